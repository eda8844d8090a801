/* `rigkit convert`: the command-line contract (exit codes 0/1/2, messages on stderr), the key
 * report of --reduce, and outputs that rigkit reads back. */
#include "export_fixtures.h"

#include <json-glib/json-glib.h>
#include <rigkit/importers.h>

typedef struct run_result {
  int code;
  char *out;
  char *err;
} run_result;

static run_result run_cli(const char *const *args) {
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)RK_CLI_PATH);
  for (size_t i = 0; args[i]; i++)
    g_ptr_array_add(argv, (gpointer)args[i]);
  g_ptr_array_add(argv, NULL);
  run_result r = {0};
  int status = 0;
  g_autoptr(GError) e = NULL;
  cr_assert(g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &r.out,
                         &r.err, &status, &e),
            "cannot run rigkit: %s", e ? e->message : "");
  cr_assert(WIFEXITED(status), "rigkit did not exit normally:\n%s", r.err);
  r.code = WEXITSTATUS(status);
  return r;
}

static void run_result_clear(run_result *r) {
  g_free(r->out);
  g_free(r->err);
}

static char *data(const char *name) {
  char *p = rk_test_data(name);
  if (!g_file_test(p, G_FILE_TEST_IS_REGULAR))
    cr_skip("test file %s not found", name);
  return p;
}

/* Joint count of a file as rigkit reads it (in-process: `rigkit info --json` goes through
 * json-glib's generator, which prints 1e-08 as "1e-08.0"). */
static gint64 joint_count(const char *path, const rk_import_options *opts) {
  g_autoptr(GError) e = NULL;
  g_autoptr(rk_asset) a = rk_import_file(path, opts, &e);
  cr_assert_not_null(a, "%s: %s", path, e ? e->message : "");
  return (gint64)rk_skeleton_joint_count(rk_asset_skeleton(a));
}

Test(convert_cli, every_shared_file_to_every_format) {
  static const char *const files[] = {"SimpleSkin.gltf", "RiggedFigure.glb", "Fox.glb",
                                      "makehuman_walk1.bvh", "assimp_huesitos.fbx"};
  static const char *const exts[] = {"glb", "gltf", "bvh"};
  g_autofree char *dir = fixture_tmpdir();
  for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
    g_autofree char *in = data(files[i]);
    const gint64 joints = joint_count(in, NULL);
    for (size_t k = 0; k < G_N_ELEMENTS(exts); k++) {
      g_autofree char *out = g_strdup_printf("%s/%zu.%s", dir, i, exts[k]);
      const char *args[] = {"convert", in, out, "--clip", "0", NULL};
      run_result r = run_cli(args);
      cr_assert_eq(r.code, 0, "convert %s -> %s: %s", files[i], exts[k], r.err);
      cr_assert(strstr(r.out, "wrote ") != NULL, "%s", r.out);
      rk_import_options bvh_read = RK_IMPORT_OPTIONS_INIT;
      bvh_read.unit_scale = 0.01;
      bvh_read.up_axis = "Y";
      cr_assert_eq(joint_count(out, k == 2 ? &bvh_read : NULL), joints,
                   "%s -> %s: joint count changed", files[i], exts[k]);
      run_result_clear(&r);
    }
  }
  fixture_rmdir(dir);
}

Test(convert_cli, reduce_reports_keys_and_stays_deterministic) {
  g_autofree char *in = data("makehuman_walk1.bvh");
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *o1 = g_build_filename(dir, "a.glb", NULL);
  g_autofree char *o2 = g_build_filename(dir, "b.glb", NULL);
  const char *a1[] = {"convert", in, o1, "--fps", "120", "--reduce", "0.001", NULL};
  const char *a2[] = {"convert", in, o2, "--fps", "120", "--reduce", "0.001", NULL};
  run_result r1 = run_cli(a1), r2 = run_cli(a2);
  cr_assert_eq(r1.code, 0, "%s", r1.err);
  cr_assert_eq(r2.code, 0, "%s", r2.err);
  g_autoptr(GRegex) re =
      g_regex_new("keys ([0-9,]+) -> ([0-9,]+) at 1 mm .*largest error ([0-9.]+) mm", 0, 0, NULL);
  g_autoptr(GMatchInfo) m = NULL;
  cr_assert(g_regex_match(re, r1.out, 0, &m), "no key report in:\n%s", r1.out);
  g_autofree char *err_mm = g_match_info_fetch(m, 3);
  cr_assert(g_ascii_strtod(err_mm, NULL) <= 1.0, "%s", r1.out);
  cr_log_info("%s", r1.out);
  g_autofree char *c1 = NULL, *c2 = NULL;
  gsize l1 = 0, l2 = 0;
  cr_assert(g_file_get_contents(o1, &c1, &l1, NULL) && g_file_get_contents(o2, &c2, &l2, NULL));
  cr_assert(l1 == l2 && memcmp(c1, c2, l1) == 0, "two converts gave different bytes");
  run_result_clear(&r1);
  run_result_clear(&r2);
  fixture_rmdir(dir);
}

Test(convert_cli, usage_errors_exit_2) {
  g_autofree char *in = data("makehuman_walk1.bvh");
  const char *const cases[][8] = {
      {"convert", NULL},
      {"convert", in, NULL},
      {"convert", in, "/tmp/x.glb", "--reduce", "-0.1", NULL},
      {"convert", in, "/tmp/x.glb", "--fps", "zero", NULL},
      {"convert", in, "/tmp/x.glb", "--to", "obj", NULL},
      {"convert", in, "/tmp/x.unknown", NULL},
      {"convert", in, "/tmp/x.bvh", "--bvh-order", "ABC", NULL},
      {"convert", in, "/tmp/x.glb", "--no-such-option", NULL},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    run_result r = run_cli(cases[i]);
    cr_assert_eq(r.code, 2, "case %zu: exit %d, stderr: %s", i, r.code, r.err);
    cr_assert(strstr(r.err, "rigkit convert") != NULL, "case %zu: %s", i, r.err);
    run_result_clear(&r);
  }
  const char *help[] = {"convert", "--help", NULL};
  run_result r = run_cli(help);
  cr_assert_eq(r.code, 0);
  cr_assert(strstr(r.out, "--reduce") && strstr(r.out, "--fps") && strstr(r.out, "--clip"));
  run_result_clear(&r);
}

Test(convert_cli, failed_inputs_exit_1_and_leave_no_file) {
  g_autofree char *fox = data("Fox.glb");
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *missing = g_build_filename(dir, "missing.bvh", NULL);
  g_autofree char *out = g_build_filename(dir, "o.glb", NULL);
  g_autofree char *bvh = g_build_filename(dir, "o.bvh", NULL);
  g_autofree char *bad_dir = g_build_filename(dir, "no", "such", "o.glb", NULL);
  const char *c1[] = {"convert", missing, out, NULL};
  const char *c2[] = {"convert", fox, bvh, NULL};                        /* 3 clips -> BVH */
  const char *c3[] = {"convert", fox, bad_dir, NULL};                    /* unwritable */
  const char *c4[] = {"convert", fox, out, "--clip", "Dance", NULL};    /* no such clip */
  const char *c5[] = {"convert", fox, out, "--out-unit", "cm", NULL};   /* glTF is metres */
  const char *const *cases[] = {c1, c2, c3, c4, c5};
  const char *expect[] = {"missing.bvh", "--clip", "cannot create", "'Dance'", "metres"};
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    run_result r = run_cli(cases[i]);
    cr_assert_eq(r.code, 1, "case %zu: exit %d: %s", i, r.code, r.err);
    cr_assert(strstr(r.err, expect[i]) != NULL, "case %zu: '%s' not in: %s", i, expect[i], r.err);
    cr_log_info("%s", r.err);
    run_result_clear(&r);
  }
  cr_assert_eq(fixture_dir_count(dir), 0, "a failed convert left a file");
  fixture_rmdir(dir);
}
