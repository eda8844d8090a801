/* Malformed input: every file of tests/data/bad (listed in bad/expected.txt with a piece of the
 * message it must produce), plus a directory, a missing file and a file without read permission.
 * Each must make `rigkit info` exit with 1 and print one line naming the file and the fault. */
#include "import_test.h"

#include <errno.h>
#include <grp.h>
#include <glib/gstdio.h>
#include <unistd.h>

static void assert_one_line_failure(const char *path, const char *expected, const char *out,
                                    const char *err, int rc) {
  cr_assert_eq(rc, 1, "%s: exit code %d (stderr: %s)", path, rc, err);
  cr_assert_str_empty(out, "%s: stdout not empty: %s", path, out);
  const size_t len = strlen(err);
  cr_assert(len > 0 && err[len - 1] == '\n' && !memchr(err, '\n', len - 1),
            "%s: not exactly one line on stderr: '%s'", path, err);
  g_autofree char *prefix = g_strdup_printf("rigkit info: %s: ", path);
  cr_assert(g_str_has_prefix(err, prefix), "%s: message does not start with '%s': %s", path,
            prefix, err);
  cr_assert(strstr(err, expected), "%s: message lacks '%s': %s", path, expected, err);
}

Test(bad_files, every_malformed_file_fails_cleanly) {
  g_autoptr(GPtrArray) cases = bad_cases("expected.txt");
  for (guint i = 0; i < cases->len; i++) {
    char **f = g_ptr_array_index(cases, i);
    const char *path = f[0];
    cr_assert(g_file_test(path, G_FILE_TEST_IS_REGULAR), "%s is missing", path);
    const char *args[] = {"info", path, NULL};
    g_autofree char *out = NULL, *err = NULL;
    const int rc = run_cli(args, &out, &err);
    assert_one_line_failure(path, f[1], out, err, rc);
    /* The library says the same without the command prefix, and --json changes nothing. */
    g_autoptr(GError) error = NULL;
    rk_asset *a = rk_import_file(path, NULL, &error);
    cr_assert_null(a);
    cr_assert(error && strstr(error->message, f[1]), "%s", error ? error->message : "");
    const char *jargs[] = {"info", "--json", path, NULL};
    g_autofree char *jout = NULL, *jerr = NULL;
    assert_one_line_failure(path, f[1], jout, jerr, run_cli(jargs, &jout, &jerr));
  }
  cr_assert(cases->len >= 20, "only %u malformed files", cases->len);
}

Test(bad_files, a_directory) {
  g_autofree char *path = rk_test_data("bad");
  const char *args[] = {"info", path, NULL};
  g_autofree char *out = NULL, *err = NULL;
  assert_one_line_failure(path, "is a directory", out, err, run_cli(args, &out, &err));
}

Test(bad_files, a_missing_file) {
  g_autofree char *path = rk_test_data("bad/there-is-no-such-file.bvh");
  const char *args[] = {"info", path, NULL};
  g_autofree char *out = NULL, *err = NULL;
  assert_one_line_failure(path, "No such file", out, err, run_cli(args, &out, &err));
}

/* child_setup for g_spawn: become "nobody" so that permissions apply even when the tests run as
 * root (root reads any file). Exit code 77 tells the parent that this is impossible here. */
static void drop_to_nobody(gpointer data) {
  if (geteuid() != 0)
    return;
  if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
    _exit(77);
}

Test(bad_files, a_file_without_read_permission) {
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp("rigkit-perm-XXXXXX", &error);
  cr_assert(dir, "%s", error ? error->message : "");
  cr_assert_eq(g_chmod(dir, 0755), 0);
  g_autofree char *src = rk_test_data("SimpleSkin.gltf");
  g_autofree char *path = g_build_filename(dir, "locked.gltf", NULL);
  g_autofree char *bytes = NULL;
  gsize len = 0;
  cr_assert(g_file_get_contents(src, &bytes, &len, NULL));
  cr_assert(g_file_set_contents(path, bytes, (gssize)len, NULL));
  cr_assert_eq(g_chmod(path, 0000), 0);
  const char *argv[] = {RK_CLI_PATH, "info", path, NULL};
  g_autofree char *out = NULL, *err = NULL;
  int status = -1;
  cr_assert(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, drop_to_nobody, NULL, &out,
                         &err, &status, NULL));
  g_remove(path);
  g_rmdir(dir);
  cr_assert(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77)
    cr_skip_test("cannot switch to user nobody to test file permissions as root");
  assert_one_line_failure(path, "permission denied", out, err, WEXITSTATUS(status));
}

Test(bad_files, library_errors_carry_codes) {
  g_autoptr(GError) e1 = NULL, e2 = NULL, e3 = NULL, e4 = NULL;
  g_autofree char *dir = rk_test_data("bad");
  cr_assert_null(rk_import_file(dir, NULL, &e1));
  cr_assert(g_error_matches(e1, RK_ERROR, RK_ERROR_IO));
  g_autofree char *huge = rk_test_data("bad/gltf_huge_buffer.gltf");
  cr_assert_null(rk_import_file(huge, NULL, &e2));
  cr_assert(g_error_matches(e2, RK_ERROR, RK_ERROR_LIMIT));
  g_autofree char *absurd = rk_test_data("bad/bvh_absurd_frames.bvh");
  cr_assert_null(rk_import_file(absurd, NULL, &e3));
  cr_assert(g_error_matches(e3, RK_ERROR, RK_ERROR_LIMIT));
  rk_import_options opts = RK_IMPORT_OPTIONS_INIT;
  opts.format = "obj";
  g_autofree char *ok = rk_test_data("SimpleSkin.gltf");
  cr_assert_null(rk_import_file(ok, &opts, &e4));
  cr_assert(g_error_matches(e4, RK_ERROR, RK_ERROR_UNSUPPORTED));
}
