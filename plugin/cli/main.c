/* `rigkit`: the batch command line. Dispatches to the subcommands in cmd_*.c. */
#include "cli.h"

#include <rigkit/rigkit.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

/* The subcommands, in the order --help lists them; each is defined in its cmd_<name>.c. */
typedef struct command {
  const char *name;
  const char *help;
  int (*run)(int argc, char **argv);
} command;

static const command commands[] = {
    {"info", "format, conversions, joints and clips of a file", rk__cmd_info},
    {"fk", "world joint positions of a clip frame (JSON)", rk__cmd_fk},
    {"tree", "kinematic tree: joints, DOF, junctions, loops, DH chains", rk__cmd_tree},
    {"convert", "convert between glTF/GLB, FBX and BVH (with baking and key reduction)",
     rk__cmd_convert},
    {"retarget", "retarget clips onto a character with foot/hand IK, in batch", rk__cmd_retarget},
};

static void print_help(FILE *out) {
  fprintf(out, "Usage: rigkit COMMAND [OPTIONS] ...\n\n"
               "rigkit moves motion from one skeleton to another: it imports mocap clips and\n"
               "characters (glTF/GLB, FBX, BVH), retargets with foot and hand IK, bakes keys\n"
               "and exports (glTF/GLB, FBX, BVH).\n\nCommands:\n");
  for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
    fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].help);
  fprintf(out, "\nOptions:\n  -h, --help     show this help\n  --version      show the version\n"
               "\nEvery command has --help. Exit codes: 0 success, 1 an input failed, 2 bad usage.\n");
}

/* Whether an option keeps one value (a second would silently replace the first). */
static bool single_valued(GOptionArg arg) {
  return arg == G_OPTION_ARG_STRING || arg == G_OPTION_ARG_FILENAME || arg == G_OPTION_ARG_INT ||
         arg == G_OPTION_ARG_INT64 || arg == G_OPTION_ARG_DOUBLE;
}

/* The entry argv[i] names (--long, --long=V, -s, -sV), or NULL; *inline_value says whether its
 * value is in the same word. */
static const GOptionEntry *entry_named(const GOptionEntry *entries, const char *word,
                                       bool *inline_value) {
  for (const GOptionEntry *e = entries; e->long_name; e++) {
    size_t n = strlen(e->long_name);
    if (word[1] == '-' && !strncmp(word + 2, e->long_name, n) &&
        (word[2 + n] == '\0' || word[2 + n] == '=')) {
      *inline_value = word[2 + n] == '=';
      return e;
    }
    if (word[1] != '-' && e->short_name && word[1] == e->short_name) {
      *inline_value = word[2] != '\0';
      return e;
    }
  }
  return NULL;
}

/* The first single-valued option given twice (GOption would keep the last without a word), or
 * NULL. Words after "--" are arguments, not options. */
static const GOptionEntry *repeated_option(const GOptionEntry *entries, int argc, char **argv) {
  size_t n = 0;
  while (entries[n].long_name)
    n++;
  g_autofree unsigned *seen = g_new0(unsigned, n + 1);
  for (int i = 1; i < argc; i++) {
    const char *w = argv[i];
    if (!strcmp(w, "--"))
      break;
    bool inline_value = false;
    const GOptionEntry *e = w[0] == '-' && w[1] ? entry_named(entries, w, &inline_value) : NULL;
    if (!e)
      continue;
    if (e->arg != G_OPTION_ARG_NONE && !inline_value)
      i++; /* its value is the next word */
    if (single_valued(e->arg) && ++seen[e - entries] > 1)
      return e;
  }
  return NULL;
}

int rk__cli_parse(const char *command_name, const char *parameter_string, const char *summary,
                  const GOptionEntry *entries, int *argc, char ***argv) {
  const GOptionEntry *twice = repeated_option(entries, *argc, *argv);
  if (twice)
    return rk__cli_usage(command_name, "--%s given twice: it takes one value (see rigkit %s --help)",
                         twice->long_name, command_name);
  g_autofree char *params = g_strdup_printf("%s", parameter_string);
  g_autoptr(GOptionContext) ctx = g_option_context_new(params);
  g_option_context_set_summary(ctx, summary);
  g_option_context_add_main_entries(ctx, entries, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *prgname = g_strdup_printf("rigkit %s", command_name);
  g_set_prgname(prgname);
  if (!g_option_context_parse(ctx, argc, argv, &error))
    return rk__cli_usage(command_name, "%s (see rigkit %s --help)", error->message, command_name);
  return RK_EXIT_OK;
}

int rk__cli_fail(const char *command_name, const GError *error) {
  fprintf(stderr, "rigkit %s: %s\n", command_name, error ? error->message : "failed");
  return RK_EXIT_FAILED;
}

int rk__cli_usage(const char *command_name, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  g_autofree char *msg = g_strdup_vprintf(format, ap);
  va_end(ap);
  fprintf(stderr, "rigkit %s: %s\n", command_name, msg);
  return RK_EXIT_USAGE;
}

/* Bytes the heap grows by at start, on huge pages: about what a retarget of a 2 MB clip touches. */
#define HEAP_HUGE_PAD ((size_t)32 << 20)
#define HUGE_PAGE ((uintptr_t)2 << 20)

/* A run allocates per-step arrays of a few megabytes, on several threads, and frees them: with
 * glibc's defaults each went to fresh pages (an mmap per large array, an arena per thread) and a
 * third of the run's page faults came from that. One arena and large blocks from the heap let a
 * later step reuse the pages an earlier one freed (page faults 8,000 -> 5,200 for a 2 MB clip
 * onto RiggedFigure; peak RSS no higher). Even so, most of the ~3,400 faults left were the heap's
 * first touch of each 4 KiB page. glibc asks for transparent huge pages only when told at start-up
 * (a tunable in the environment); from here the heap grows once by HEAP_HUGE_PAD, is asked for
 * huge pages (madvise: the kernel's usual "madvise" mode) and is never trimmed below it: ~1,100
 * faults. Set before any thread exists; where the heap cannot grow in place, nothing is asked. */
static void tune_allocator(void) {
#ifdef __GLIBC__
  mallopt(M_ARENA_MAX, 1);
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt(M_TOP_PAD, (int)HEAP_HUGE_PAD);
  mallopt(M_TRIM_THRESHOLD, (int)(2 * HEAP_HUGE_PAD));
#ifdef MADV_HUGEPAGE
  char *grow = malloc(1u << 20); /* beyond the initial heap's top: the heap grows by the pad */
  const uintptr_t lo = ((uintptr_t)grow + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  const uintptr_t hi = (uintptr_t)sbrk(0) & ~(HUGE_PAGE - 1);
  if (grow && hi > lo)
    (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
  free(grow);
#endif
#endif
}

int main(int argc, char **argv) {
  tune_allocator();
  if (argc < 2) {
    print_help(stderr);
    return RK_EXIT_USAGE;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
    print_help(stdout);
    return RK_EXIT_OK;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("rigkit %s (ABI %d)\n", rk_version_string(), RK_ABI_VERSION);
    return RK_EXIT_OK;
  }
  for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
    if (strcmp(argv[1], commands[i].name) == 0)
      return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "rigkit: unknown command '%s' (see rigkit --help)\n", argv[1]);
  return RK_EXIT_USAGE;
}
