/* Batch mistakes of `rigkit retarget` found before any clip runs (retarget_preflight.c and the
 * command's own checks): a target that cannot be used, outputs that cannot be written or would
 * collide or overwrite an input, bad -j and --fail-on values, and directory arguments expanded
 * (--recursive for subdirectories) or refused. */
#include "retarget_test.h"

/* What every case uses: the bundled walk and figure, a scratch directory and dir/out. */
typedef struct files {
  char *walk, *fig, *dir, *out;
} files;

static files files_new(void) {
  files f = {rt_data("makehuman_walk1.bvh"), rt_data("RiggedFigure.glb"), rt_tmpdir(), NULL};
  f.out = g_build_filename(f.dir, "out", NULL);
  return f;
}

static void files_clear(files *f) {
  rt_rmtree(f->dir);
  g_free(f->walk);
  g_free(f->fig);
  g_free(f->dir);
  g_free(f->out);
}

/* Batch mistakes are found before any clip runs: one line on stderr, exit 2, nothing created
 * (no output directory, no report, no journal). */
static void expect_batch_mistake(const char *const *args, const char *dir, const char *expect,
                                 guint files_before) {
  cli_run r = rt_cli(NULL, args);
  cr_assert_eq(r.code, 2, "%s%s", r.out, r.err);
  cr_assert_str_empty(r.out, "no clip ran: %s", r.out);
  cr_assert_not_null(strstr(r.err, expect), "'%s' lacks '%s'", r.err, expect);
  cr_assert_eq(strchr(r.err, '\n'), r.err + strlen(r.err) - 1, "one line: %s", r.err);
  g_autoptr(GPtrArray) list = rt_list(dir, true);
  cr_assert_eq(list->len, files_before, "nothing created in %s", dir);
  rt_cli_clear(&r);
}

/* dir/sub holding a copy of the walk under each name (subdirectories made as needed); the caller
 * frees the path. */
static char *copies(const files *f, const char *sub, const char *const *names) {
  char *d = g_build_filename(f->dir, sub, NULL);
  for (size_t i = 0; names[i]; i++) {
    g_autofree char *p = g_build_filename(d, names[i], NULL);
    g_autofree char *parent = g_path_get_dirname(p);
    cr_assert_eq(g_mkdir_with_parents(parent, 0777), 0);
    rt_copy(f->walk, p);
  }
  return d;
}

/* Runs a batch that must succeed. */
static void expect_ok(const char *const *args) {
  cli_run r = rt_cli(NULL, args);
  cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
  rt_cli_clear(&r);
}

Test(retarget_preflight, a_target_without_skeleton_is_a_batch_mistake) {
  files f = files_new();
  g_autofree char *bad = rt_data("bad/gltf_no_skeleton.gltf");
  g_autofree char *report = g_build_filename(f.dir, "report.json", NULL);
  const char *args[] = {"retarget", "--target", bad, "--out-dir", f.out, "--report", report,
                        f.walk, f.fig, NULL};
  expect_batch_mistake(args, f.dir, "gltf_no_skeleton.gltf", 0);
  g_autofree char *missing = g_build_filename(f.dir, "no_such.glb", NULL);
  const char *args2[] = {"retarget", "--target", missing, "--out-dir", f.out, "--report", report,
                         f.walk, NULL};
  expect_batch_mistake(args2, f.dir, "no_such.glb", 0);
  files_clear(&f);
}

Test(retarget_preflight, unwritable_outputs_are_batch_mistakes) {
  files f = files_new();
  /* A directory below a regular file cannot be created or written, even by root. */
  g_autofree char *file = g_build_filename(f.dir, "a_file", NULL);
  cr_assert(g_file_set_contents(file, "x", 1, NULL));
  g_autofree char *below = g_build_filename(file, "out", NULL);
  g_autofree char *report = g_build_filename(f.dir, "report.json", NULL);
  g_autofree char *bad_report = g_build_filename(f.dir, "no_dir", "report.json", NULL);
  const char *a1[] = {"retarget", "--target", f.fig, "--out-dir", below, "--report", report,
                      f.walk, f.fig, NULL};
  expect_batch_mistake(a1, f.dir, below, 1);
  const char *a2[] = {"retarget", "--target", f.fig, "--out-dir", f.out, "--report", bad_report,
                      f.walk, NULL};
  expect_batch_mistake(a2, f.dir, "--report", 1);
  const char *a3[] = {"retarget", "--target", f.fig, "--out-dir", f.out, "--plot", file, f.walk,
                      NULL};
  expect_batch_mistake(a3, f.dir, "is not a directory", 1);
  g_autofree char *as_dir = g_build_filename(f.dir, "x.glb", NULL);
  cr_assert_eq(g_mkdir(as_dir, 0777), 0);
  const char *a4[] = {"retarget", "--target", f.fig, "--out", as_dir, f.walk, NULL};
  expect_batch_mistake(a4, f.dir, "is a directory", 2);
  files_clear(&f);
}

Test(retarget_preflight, reports_and_pages_may_go_into_the_directories_the_run_creates) {
  /* `--out-dir out --report out/report.json` on a fresh checkout: out does not exist yet. */
  files f = files_new();
  g_autofree char *report = g_build_filename(f.out, "report.json", NULL);
  g_autofree char *page = g_build_filename(f.out, "review.html", NULL);
  g_autofree char *plots = g_build_filename(f.dir, "plots", NULL);
  g_autofree char *plot_report = g_build_filename(plots, "report.json", NULL);
  const char *a1[] = {"retarget", "--target", f.fig, "--root-motion", "--out-dir", f.out,
                      "--report", report, "--html", page, f.walk, NULL};
  expect_ok(a1);
  cr_assert(g_file_test(report, G_FILE_TEST_IS_REGULAR));
  cr_assert(g_file_test(page, G_FILE_TEST_IS_REGULAR));
  const char *a2[] = {"retarget", "--target", f.fig, "--root-motion", "--out-dir", f.out,
                      "--plot", plots, "--report", plot_report, f.walk, NULL};
  expect_ok(a2);
  cr_assert(g_file_test(plot_report, G_FILE_TEST_IS_REGULAR));
  /* --out-dir new/a with --report new/r.json: new is made as a parent of new/a. */
  g_autofree char *nested = g_build_filename(f.dir, "new", "a", NULL);
  g_autofree char *beside = g_build_filename(f.dir, "new", "r.json", NULL);
  const char *a3[] = {"retarget", "--target", f.fig, "--root-motion", "--out-dir", nested,
                      "--report", beside, f.walk, NULL};
  expect_ok(a3);
  cr_assert(g_file_test(beside, G_FILE_TEST_IS_REGULAR));
  files_clear(&f);
}

Test(retarget_preflight, colliding_outputs_and_bad_jobs_are_batch_mistakes) {
  files f = files_new();
  g_autofree char *sub = copies(&f, "sub", (const char *const[]){"makehuman_walk1.bvh", NULL});
  g_autofree char *copy = g_build_filename(sub, "makehuman_walk1.bvh", NULL);
  const char *a1[] = {"retarget", "--target", f.fig, "--out-dir", f.out, f.walk, copy, NULL};
  expect_batch_mistake(a1, f.dir, "would both write", 1);
  /* The source's own directory and format: the output would replace the clip. */
  const char *a2[] = {"retarget", "--target", f.fig, "--out-dir", sub, "--format", "bvh", copy,
                      NULL};
  expect_batch_mistake(a2, f.dir, "would overwrite the input", 1);
  const char *a3[] = {"retarget", "--target", f.fig, "--out-dir", f.out, "-j", "-1", f.walk, NULL};
  expect_batch_mistake(a3, f.dir, "-j must be 0", 1);
  const char *a4[] = {"retarget", "--target", f.fig, "--out-dir", f.out, "--fail-on", "ok", f.walk,
                      NULL};
  expect_batch_mistake(a4, f.dir, "--fail-on must be failed or check", 1);
  files_clear(&f);
}

/* A directory argument gives its clip files; --recursive those of its subdirectories too; one
 * without clip files is refused. -j 0 is the number of CPUs. */
Test(retarget_preflight, directories_are_expanded) {
  files f = files_new();
  const char *names[] = {"a.bvh", "b.BVH", "readme.txt", "deep/c.bvh", NULL};
  g_autofree char *clips = copies(&f, "clips", names);
  g_autofree char *deep = g_build_filename(clips, "deep", NULL);
  const char *a1[] = {"retarget", "--target", f.fig, "--out-dir", f.out, "-j", "0", clips, NULL};
  expect_ok(a1);
  g_autoptr(GPtrArray) f1 = rt_list(f.out, false);
  cr_assert_eq(f1->len, 2, "a and b, not deep/c");
  rt_rmtree(f.out);
  const char *a2[] = {"retarget", "--target", f.fig, "--out-dir", f.out, "--recursive", clips,
                      NULL};
  expect_ok(a2);
  g_autoptr(GPtrArray) f2 = rt_list(f.out, false);
  cr_assert_eq(f2->len, 3, "a, b and deep/c");
  rt_rmtree(f.out);
  g_autofree char *c = g_build_filename(deep, "c.bvh", NULL);
  g_unlink(c);
  const char *a3[] = {"retarget", "--target", f.fig, "--out-dir", f.out, deep, NULL};
  expect_batch_mistake(a3, f.dir, "holds no clip files", 1);
  files_clear(&f);
}
