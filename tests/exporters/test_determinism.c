/* Determinism: the same input gives the same output bytes in every run. Each test file of
 * tests/data (third-party, derived and crafted) is converted by `rigkit convert` to every output
 * format twice, in separate processes (so heap addresses and hash-table orders differ) with
 * different working directories and environments (TZ, locale variables), to the same output
 * path; the bytes must be equal, and a conversion that fails must fail the same way both times.
 * `rigkit info --json` and `rigkit tree --json` must print the same text. (Byte-identical
 * retarget outputs across -j values are tested with the batch command.) */
#include "rk_test.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

typedef struct run {
  int code;
  char *out, *err;
} run;

/* Runs rigkit with args in cwd with extra environment variables (NAME=VALUE, NULL-terminated). */
static run run_rigkit(const char *const *args, const char *cwd, const char *const *env_extra) {
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)RK_CLI_PATH);
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add(argv, (gpointer)*a);
  g_ptr_array_add(argv, NULL);
  g_auto(GStrv) env = g_get_environ();
  for (const char *const *e = env_extra; e && *e; e++) {
    g_auto(GStrv) kv = g_strsplit(*e, "=", 2);
    env = g_environ_setenv(env, kv[0], kv[1], TRUE);
  }
  run r = {0};
  int status = -1;
  g_autoptr(GError) error = NULL;
  cr_assert(g_spawn_sync(cwd, (char **)argv->pdata, env, G_SPAWN_DEFAULT, NULL, NULL, &r.out,
                         &r.err, &status, &error),
            "%s", error ? error->message : "");
  cr_assert(WIFEXITED(status), "rigkit %s died: %s", args[0], r.err);
  r.code = WEXITSTATUS(status);
  return r;
}

static void run_clear(run *r) {
  g_free(r->out);
  g_free(r->err);
}

static const char *const env_a[] = {"TZ=UTC", "LC_ALL=C", NULL};
static const char *const env_b[] = {"TZ=Pacific/Chatham", "LC_ALL=C.UTF-8", "LANG=C.UTF-8",
                                    "G_SLICE=always-malloc", NULL};

/* Test files rigkit reads: every model file of tests/data, derived/ and crafted/. */
static GPtrArray *input_files(void) {
  GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
  static const char *const dirs[] = {"", "derived", "crafted"};
  static const char *const exts[] = {".bvh", ".glb", ".gltf", ".fbx", ".dh"};
  for (size_t d = 0; d < G_N_ELEMENTS(dirs); d++) {
    g_autofree char *dir = rk_test_data(dirs[d]);
    GDir *gd = g_dir_open(dir, 0, NULL);
    cr_assert(gd, "%s", dir);
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    for (const char *n; (n = g_dir_read_name(gd));)
      for (size_t e = 0; e < G_N_ELEMENTS(exts); e++)
        if (g_str_has_suffix(n, exts[e]))
          g_ptr_array_add(names, g_build_filename(dir, n, NULL));
    g_dir_close(gd);
    g_ptr_array_sort(names, (GCompareFunc)(void *)g_strcmp0);
    for (guint i = 0; i < names->len; i++)
      g_ptr_array_add(files, g_strdup(g_ptr_array_index(names, i)));
  }
  return files;
}

static char *slurp(const char *path, gsize *len) {
  char *bytes = NULL;
  if (!g_file_get_contents(path, &bytes, len, NULL))
    return NULL;
  return bytes;
}

/* Converts in -> dir/out.<ext> (plus options) twice and compares the results; returns whether
 * the conversion succeeded. */
static bool convert_twice(const char *in, const char *ext, const char *dir1, const char *dir2,
                          const char *const *options) {
  g_autofree char *out = g_strdup_printf("%s/out.%s", dir1, ext);
  g_autofree char *bin = g_strdup_printf("%s/out.bin", dir1);
  g_autofree char *first = NULL, *first_bin = NULL;
  gsize len1 = 0, len1_bin = 0;
  run r1 = {0};
  for (int pass = 0; pass < 2; pass++) {
    g_remove(out);
    g_remove(bin);
    const char *args[16] = {"convert", in, out};
    size_t n = 3;
    for (const char *const *o = options; o && *o && n < 15; o++)
      args[n++] = *o;
    args[n] = NULL;
    run r = run_rigkit(args, pass ? dir2 : dir1, pass ? env_b : env_a);
    if (pass == 0) {
      r1 = r;
      first = slurp(out, &len1);
      first_bin = slurp(bin, &len1_bin);
      cr_assert((r.code == 0) == (first != NULL), "%s -> .%s: exit %d, output %s", in, ext, r.code,
                first ? "written" : "missing");
      continue;
    }
    cr_assert_eq(r.code, r1.code, "%s -> .%s: exit codes %d then %d (%s)", in, ext, r1.code, r.code,
                 r.err);
    cr_assert_str_eq(r.err, r1.err, "%s -> .%s: messages differ", in, ext);
    gsize len2 = 0, len2_bin = 0;
    g_autofree char *second = slurp(out, &len2);
    g_autofree char *second_bin = slurp(bin, &len2_bin);
    cr_assert((first == NULL) == (second == NULL));
    if (first)
      cr_assert(len1 == len2 && memcmp(first, second, len1) == 0,
                "%s -> .%s: %zu then %zu bytes, not identical", in, ext, len1, len2);
    cr_assert((first_bin == NULL) == (second_bin == NULL));
    if (first_bin)
      cr_assert(len1_bin == len2_bin && memcmp(first_bin, second_bin, len1_bin) == 0,
                "%s -> .%s: companion .bin differs", in, ext);
    run_clear(&r);
  }
  run_clear(&r1);
  g_remove(out);
  g_remove(bin);
  return first != NULL;
}

static char *tmpdir(void) {
  g_autoptr(GError) e = NULL;
  char *d = g_dir_make_tmp("rigkit-determinism-XXXXXX", &e);
  cr_assert(d, "%s", e ? e->message : "");
  return d;
}

Test(determinism, every_test_file_converts_to_the_same_bytes, .timeout = 900) {
  g_autofree char *d1 = tmpdir(), *d2 = tmpdir();
  g_autoptr(GPtrArray) files = input_files();
  cr_assert_geq(files->len, 15);
  static const char *const exts[] = {"glb", "gltf", "bvh"};
  size_t converted = 0;
  for (guint i = 0; i < files->len; i++)
    for (size_t k = 0; k < G_N_ELEMENTS(exts); k++) {
      converted += convert_twice(g_ptr_array_index(files, i), exts[k], d1, d2, NULL);
    }
  /* Baking and key reduction (float sums, iteration orders) on the real walk. */
  g_autofree char *walk = rk_test_data("makehuman_walk1.bvh");
  static const char *const reduce[] = {"--fps", "50", "--reduce", "0.001", NULL};
  cr_assert(convert_twice(walk, "glb", d1, d2, reduce));
  cr_assert(convert_twice(walk, "bvh", d1, d2, reduce));
  g_rmdir(d1);
  g_rmdir(d2);
  printf("%zu of %u conversions written, each twice, identical\n", converted, files->len * 3);
  cr_assert_geq(converted, 40);
}

Test(determinism, info_and_tree_print_the_same_text) {
  g_autofree char *d1 = tmpdir(), *d2 = tmpdir();
  g_autoptr(GPtrArray) files = input_files();
  for (guint i = 0; i < files->len; i++) {
    const char *in = g_ptr_array_index(files, i);
    static const char *const cmds[] = {"info", "tree"};
    for (size_t c = 0; c < G_N_ELEMENTS(cmds); c++) {
      const char *args[] = {cmds[c], "--json", in, NULL};
      run a = run_rigkit(args, d1, env_a), b = run_rigkit(args, d2, env_b);
      cr_assert_eq(a.code, b.code, "rigkit %s %s", cmds[c], in);
      cr_assert_str_eq(a.out, b.out, "rigkit %s --json %s differs between runs", cmds[c], in);
      cr_assert_str_eq(a.err, b.err);
      run_clear(&a);
      run_clear(&b);
    }
  }
  g_rmdir(d1);
  g_rmdir(d2);
}
