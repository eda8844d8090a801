/* The textbook examples of samples/textbook: every row of the table in its README run as written
 * (rigkit, or the sample program it names) in that folder, and its output checked against each
 * `...` piece of the row's last column, runs of spaces collapsed. The README is the only source
 * of the commands and numbers. */
#include "rk_test.h"

#include <string.h>
#include <sys/wait.h>

#define TEXTBOOK_DIR RK_SOURCE_DIR "/samples/textbook"

/* The cells of a table line, split at '|' not escaped as "\|" (which becomes '|'), trimmed. */
static GPtrArray *cells(const char *line) {
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  GString *cell = NULL;
  for (const char *c = line; *c; c++) {
    if (*c == '\\' && c[1] == '|') {
      g_string_append_c(cell, '|');
      c++;
    } else if (*c == '|') {
      if (cell)
        g_ptr_array_add(out, g_strstrip(g_string_free(cell, FALSE)));
      cell = g_string_new(NULL);
    } else if (cell) {
      g_string_append_c(cell, *c);
    }
  }
  if (cell)
    g_string_free(cell, TRUE); /* the text after the last '|' */
  return out;
}

/* The `...` spans of a cell. */
static GPtrArray *spans(const char *cell) {
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  for (const char *a = strchr(cell, '`'); a; a = strchr(a, '`')) {
    const char *b = strchr(a + 1, '`');
    cr_assert(b, "unclosed ` in '%s'", cell);
    g_ptr_array_add(out, g_strndup(a + 1, (gsize)(b - a - 1)));
    a = b + 1;
  }
  return out;
}

/* The text with every run of white space made one space. */
static char *squeeze(const char *text) {
  GString *s = g_string_new(NULL);
  bool space = false;
  for (const char *c = text; *c; c++) {
    if (g_ascii_isspace(*c)) {
      space = true;
      continue;
    }
    if (space && s->len)
      g_string_append_c(s, ' ');
    space = false;
    g_string_append_c(s, *c);
  }
  return g_string_free(s, FALSE);
}

/* Runs a row's command in the samples folder; returns its stdout, asserting exit 0. */
static char *run_row(const char *id, const char *command) {
  char **argv = NULL;
  g_autoptr(GError) error = NULL;
  cr_assert(g_shell_parse_argv(command, NULL, &argv, &error), "row %s: %s", id, error->message);
  if (strcmp(argv[0], "rigkit") == 0) {
    g_free(argv[0]);
    argv[0] = g_strdup(RK_CLI_PATH);
  } else {
    cr_assert(g_str_has_prefix(argv[0], "sample_"), "row %s runs '%s'", id, argv[0]);
    char *path = g_build_filename(RK_BINARY_DIR, "bin", argv[0], NULL);
    cr_assert(g_file_test(path, G_FILE_TEST_IS_EXECUTABLE), "row %s: %s is not built", id, path);
    g_free(argv[0]);
    argv[0] = path;
  }
  char *out = NULL, *err = NULL;
  int status = -1;
  cr_assert(g_spawn_sync(TEXTBOOK_DIR, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                         &status, &error),
            "row %s: %s", id, error ? error->message : "");
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "row %s: `%s` failed:\n%s", id,
            command, err);
  g_free(err);
  g_strfreev(argv);
  return out;
}

Test(textbook, every_row_of_the_samples_table_prints_its_numbers) {
  g_autofree char *text = NULL;
  cr_assert(g_file_get_contents(TEXTBOOK_DIR "/README.md", &text, NULL, NULL));
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  bool examples[9] = {false};
  size_t rows = 0;
  g_autoptr(GString) inputs = g_string_new(NULL);
  for (char **l = lines; *l; l++) {
    if (!g_str_has_prefix(*l, "| ") || !g_ascii_isdigit((*l)[2]))
      continue;
    g_autoptr(GPtrArray) c = cells(*l);
    cr_assert_eq(c->len, 5, "a row has # | example | input | command | printed: %s", *l);
    const char *id = g_ptr_array_index(c, 0);
    g_autoptr(GPtrArray) command = spans(g_ptr_array_index(c, 3));
    g_autoptr(GPtrArray) expect = spans(g_ptr_array_index(c, 4));
    cr_assert_eq(command->len, 1, "row %s: one command", id);
    cr_assert_geq(expect->len, 1, "row %s: something to check", id);
    g_autofree char *out = run_row(id, g_ptr_array_index(command, 0));
    g_autofree char *flat = squeeze(out);
    for (guint i = 0; i < expect->len; i++) {
      g_autofree char *want = squeeze(g_ptr_array_index(expect, i));
      cr_assert(strstr(flat, want), "row %s: `%s` does not print\n  %s\nit printed:\n%s", id,
                (const char *)g_ptr_array_index(command, 0), want, out);
    }
    const int n = atoi(id);
    if (n >= 1 && n <= 8)
      examples[n] = true;
    g_string_append(inputs, g_ptr_array_index(c, 2));
    rows++;
  }
  cr_log_info("%zu rows of samples/textbook/README.md checked", rows);
  for (int n = 1; n <= 8; n++)
    cr_assert(examples[n], "example %d has no row", n);
  /* Every input file of the folder is some row's input. */
  g_autoptr(GDir) dir = g_dir_open(TEXTBOOK_DIR, 0, NULL);
  cr_assert(dir);
  for (const char *name; (name = g_dir_read_name(dir));) {
    if (!g_str_has_suffix(name, ".bvh") && !g_str_has_suffix(name, ".dh"))
      continue;
    g_autofree char *quoted = g_strdup_printf("`%s`", name);
    cr_assert(strstr(inputs->str, quoted), "%s is no row's input", name);
  }
}
