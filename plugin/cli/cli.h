/* Internal interface of the `rigkit` command line: one file per subcommand (cmd_<name>.c), each
 * defining `int rk__cmd_<name>(int argc, char **argv)` that returns an exit code:
 * RK_EXIT_OK, RK_EXIT_FAILED (an input failed; message on stderr) or RK_EXIT_USAGE. */
#ifndef RK_CLI_H
#define RK_CLI_H

#include <glib.h>
#include <stdio.h>

enum { RK_EXIT_OK = 0, RK_EXIT_FAILED = 1, RK_EXIT_USAGE = 2 };

/** The subcommands (main.c's table): each parses its own options and returns an exit code. */
int rk__cmd_info(int argc, char **argv);
int rk__cmd_fk(int argc, char **argv);
int rk__cmd_tree(int argc, char **argv);
int rk__cmd_convert(int argc, char **argv);
int rk__cmd_retarget(int argc, char **argv);

/** Parses argv with a GOptionContext (summary shown by --help). Returns RK_EXIT_OK to go on,
 * or the exit code to return (usage errors print a message naming the command). */
int rk__cli_parse(const char *command, const char *parameter_string, const char *summary,
                  const GOptionEntry *entries, int *argc, char ***argv);
/** Prints "rigkit <command>: <message>" to stderr and returns RK_EXIT_FAILED. */
int rk__cli_fail(const char *command, const GError *error);
/** Prints a usage error and returns RK_EXIT_USAGE. */
int rk__cli_usage(const char *command, const char *format, ...) G_GNUC_PRINTF(2, 3);

#endif
