/* Batch mistakes of `rigkit retarget` found before any clip runs (retarget_preflight.c and the
 * command's own checks): a target that cannot be used, outputs that cannot be written or would
 * collide or overwrite an input, bad -j and --fail-on values, and directory arguments expanded
 * (--recursive for subdirectories) or refused. */
#include "retarget_test.h"

/* Batch mistakes are found before any clip runs: one line on stderr, exit 2, nothing created
 * (no output directory, no report, no journal). */
static void expect_batch_mistake(const char *const *args, const char *dir, const char *expect,
                                 guint files_before) {
  cli_run r = rt_cli(NULL, args);
  cr_assert_eq(r.code, 2, "%s%s", r.out, r.err);
  cr_assert_str_empty(r.out, "no clip ran: %s", r.out);
  cr_assert_not_null(strstr(r.err, expect), "'%s' lacks '%s'", r.err, expect);
  cr_assert_eq(strchr(r.err, '\n'), r.err + strlen(r.err) - 1, "one line: %s", r.err);
  g_autoptr(GPtrArray) files = rt_list(dir, true);
  cr_assert_eq(files->len, files_before, "nothing created in %s", dir);
  rt_cli_clear(&r);
}

Test(retarget_preflight, a_target_without_skeleton_is_a_batch_mistake) {
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  g_autofree char *fig = rt_data("RiggedFigure.glb");
  g_autofree char *bad = rt_data("bad/gltf_no_skeleton.gltf");
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *out = g_build_filename(dir, "out", NULL);
  g_autofree char *report = g_build_filename(dir, "report.json", NULL);
  const char *args[] = {"retarget", "--target", bad, "--out-dir", out, "--report", report, walk,
                        fig, NULL};
  expect_batch_mistake(args, dir, "gltf_no_skeleton.gltf", 0);
  g_autofree char *missing = g_build_filename(dir, "no_such.glb", NULL);
  const char *args2[] = {"retarget", "--target", missing, "--out-dir", out, "--report", report,
                         walk, NULL};
  expect_batch_mistake(args2, dir, "no_such.glb", 0);
  rt_rmtree(dir);
}

Test(retarget_preflight, unwritable_outputs_are_batch_mistakes) {
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  g_autofree char *fig = rt_data("RiggedFigure.glb");
  g_autofree char *dir = rt_tmpdir();
  /* A directory below a regular file cannot be created or written, even by root. */
  g_autofree char *file = g_build_filename(dir, "a_file", NULL);
  cr_assert(g_file_set_contents(file, "x", 1, NULL));
  g_autofree char *out = g_build_filename(file, "out", NULL);
  g_autofree char *good = g_build_filename(dir, "out", NULL);
  g_autofree char *report = g_build_filename(dir, "report.json", NULL);
  g_autofree char *bad_report = g_build_filename(dir, "no_dir", "report.json", NULL);
  const char *a1[] = {"retarget", "--target", fig, "--out-dir", out, "--report", report, walk,
                      fig, NULL};
  expect_batch_mistake(a1, dir, out, 1);
  const char *a2[] = {"retarget", "--target", fig, "--out-dir", good, "--report", bad_report,
                      walk, NULL};
  expect_batch_mistake(a2, dir, "--report", 1);
  const char *a3[] = {"retarget", "--target", fig, "--out-dir", good, "--plot", file, walk, NULL};
  expect_batch_mistake(a3, dir, "is not a directory", 1);
  g_autofree char *as_dir = g_build_filename(dir, "x.glb", NULL);
  cr_assert_eq(g_mkdir(as_dir, 0777), 0);
  const char *a4[] = {"retarget", "--target", fig, "--out", as_dir, walk, NULL};
  expect_batch_mistake(a4, dir, "is a directory", 2);
  rt_rmtree(dir);
}

Test(retarget_preflight, colliding_outputs_and_bad_jobs_are_batch_mistakes) {
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  g_autofree char *fig = rt_data("RiggedFigure.glb");
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *sub = g_build_filename(dir, "sub", NULL);
  g_autofree char *copy = g_build_filename(sub, "makehuman_walk1.bvh", NULL);
  g_autofree char *text = NULL;
  gsize len = 0;
  cr_assert(g_file_get_contents(walk, &text, &len, NULL));
  cr_assert_eq(g_mkdir(sub, 0777), 0);
  cr_assert(g_file_set_contents(copy, text, (gssize)len, NULL));
  g_autofree char *out = g_build_filename(dir, "out", NULL);
  const char *a1[] = {"retarget", "--target", fig, "--out-dir", out, walk, copy, NULL};
  expect_batch_mistake(a1, dir, "would both write", 1);
  /* The source's own directory and format: the output would replace the clip. */
  const char *a2[] = {"retarget", "--target", fig, "--out-dir", sub, "--format", "bvh", copy, NULL};
  expect_batch_mistake(a2, dir, "would overwrite the input", 1);
  const char *a3[] = {"retarget", "--target", fig, "--out-dir", out, "-j", "-1", walk, NULL};
  expect_batch_mistake(a3, dir, "-j must be 0", 1);
  const char *a4[] = {"retarget", "--target", fig, "--out-dir", out, "--fail-on", "ok", walk, NULL};
  expect_batch_mistake(a4, dir, "--fail-on must be failed or check", 1);
  rt_rmtree(dir);
}

/* A directory argument gives its clip files; --recursive those of its subdirectories too; one
 * without clip files is refused. */
Test(retarget_preflight, directories_are_expanded) {
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  g_autofree char *fig = rt_data("RiggedFigure.glb");
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *clips = g_build_filename(dir, "clips", NULL);
  g_autofree char *deep = g_build_filename(clips, "deep", NULL);
  g_autofree char *text = NULL;
  gsize len = 0;
  cr_assert(g_file_get_contents(walk, &text, &len, NULL));
  cr_assert_eq(g_mkdir_with_parents(deep, 0777), 0);
  const char *names[] = {"a.bvh", "b.BVH", "readme.txt", "deep/c.bvh"};
  for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
    g_autofree char *p = g_build_filename(clips, names[i], NULL);
    cr_assert(g_file_set_contents(p, text, (gssize)len, NULL));
  }
  g_autofree char *out = g_build_filename(dir, "out", NULL);
  const char *a1[] = {"retarget", "--target", fig, "--out-dir", out, "-j", "0", clips, NULL};
  cli_run r = rt_cli(NULL, a1);
  cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
  rt_cli_clear(&r);
  g_autoptr(GPtrArray) f1 = rt_list(out, false);
  cr_assert_eq(f1->len, 2, "a and b, not deep/c");
  rt_rmtree(out);
  const char *a2[] = {"retarget", "--target", fig, "--out-dir", out, "--recursive", clips, NULL};
  r = rt_cli(NULL, a2);
  cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
  rt_cli_clear(&r);
  g_autoptr(GPtrArray) f2 = rt_list(out, false);
  cr_assert_eq(f2->len, 3, "a, b and deep/c");
  rt_rmtree(out);
  const char *a3[] = {"retarget", "--target", fig, "--out-dir", out, deep, NULL};
  g_autofree char *c = g_build_filename(deep, "c.bvh", NULL);
  g_unlink(c);
  expect_batch_mistake(a3, dir, "holds no clip files", 1);
  rt_rmtree(dir);
}
