/* The stable codes of failed clips (retarget_errors.c), each from a real input that fails that
 * way: the report's error_code beside its message, the summary table and stderr with "[code]
 * message", null for a clip that did not fail. Two codes have no test: target-unusable (the command
 * line refuses such a target before any clip runs, exit 2) and readback-failed (every writer's
 * output reads back as written; test_retarget_cli checks the read-back itself). */
#include "retarget_test.h"

/* Runs `rigkit retarget --no-progress --target RiggedFigure.glb --report r.json ARGS...` in a new
 * directory (prepared by `prepare` when set; an argument "data:NAME" is the shared test file NAME)
 * and checks that the clip failed (exit 1) with `code` and a message holding `message`, in the
 * report and as "[code] message" in the table and on stderr. */
static void fails_with(void (*prepare)(const char *dir), const char *const *args, const char *code,
                       const char *message) {
  g_autofree char *dir = rt_tmpdir();
  if (prepare)
    prepare(dir);
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
  const char *head[] = {"retarget", "--no-progress", "--target", "data:RiggedFigure.glb",
                        "--report", "r.json"};
  for (size_t i = 0; i < G_N_ELEMENTS(head); i++)
    g_ptr_array_add(argv, g_str_has_prefix(head[i], "data:") ? rt_data(head[i] + 5)
                                                              : g_strdup(head[i]));
  for (size_t i = 0; args[i]; i++)
    g_ptr_array_add(argv, g_str_has_prefix(args[i], "data:") ? rt_data(args[i] + 5)
                                                              : g_strdup(args[i]));
  g_ptr_array_add(argv, NULL);
  cli_run r = rt_cli(dir, (const char *const *)argv->pdata);
  cr_assert_eq(r.code, 1, "%s: %s%s", code, r.out, r.err);
  g_autofree char *report = g_build_filename(dir, "r.json", NULL);
  g_autoptr(JsonParser) jp = NULL;
  JsonObject *rep = rt_json(report, &jp);
  cr_assert_eq(json_array_get_length(rt_clips(rep)), 1);
  JsonObject *c = rt_clip(rep, 0);
  cr_assert_str_eq(rt_str(c, "status"), "error");
  cr_assert_str_eq(rt_str(c, "error_code"), code, "%s", rt_str(c, "error"));
  cr_assert(strstr(rt_str(c, "error"), message), "%s: %s", code, rt_str(c, "error"));
  g_autofree char *said = g_strdup_printf("[%s] %s", code, rt_str(c, "error"));
  cr_assert(strstr(r.out, said), "not in the table: %s", r.out);
  cr_assert(strstr(r.err, said), "not on stderr: %s", r.err);
  rt_cli_clear(&r);
  rt_rmtree(dir);
}

/* A transfer cut short inside the hierarchy: the walk's first 3000 bytes as cut.bvh. */
static void write_cut_walk(const char *dir) {
  g_autofree char *walk = rt_data("generated/cmu_walk.bvh");
  g_autofree char *text = NULL;
  cr_assert(g_file_get_contents(walk, &text, NULL, NULL));
  g_autofree char *cut = g_build_filename(dir, "cut.bvh", NULL);
  cr_assert(g_file_set_contents(cut, text, 3000, NULL));
}

Test(retarget_errors, source_unreadable) {
  const char *cut[] = {"--out-dir", "out", "cut.bvh", NULL};
  fails_with(write_cut_walk, cut, "source-unreadable", "file ends inside the hierarchy");
  const char *garbage[] = {"--out-dir", "out", "data:bad/bvh_binary_garbage.bvh", NULL};
  fails_with(NULL, garbage, "source-unreadable", "not a BVH file");
}

Test(retarget_errors, no_clip) {
  const char *character[] = {"--out-dir", "out", "data:generated/cmu_char.glb", NULL};
  fails_with(NULL, character, "no-clip", "holds a skeleton but no clip");
  const char *named[] = {"--out-dir", "out", "--clip", "run", "data:generated/cmu_walk.bvh", NULL};
  fails_with(NULL, named, "no-clip", "no clip 'run' in the file");
}

Test(retarget_errors, source_unmapped) {
  const char *fox[] = {"--out-dir", "out", "--clip", "Walk", "data:Fox.glb", NULL};
  fails_with(NULL, fox, "source-unmapped", "quadruped");
}

Test(retarget_errors, output_conflict) {
  const char *fox[] = {"--out", "one.glb", "data:Fox.glb", NULL};
  fails_with(NULL, fox, "output-conflict", "holds 3 clips and --out writes one");
}

/* A rate the clip cannot be baked at: more frames than a clip may hold. */
Test(retarget_errors, retarget_failed) {
  const char *fast[] = {"--unit", "cmu", "--out-dir", "out", "--fps", "1e9",
                        "data:generated/cmu_walk.bvh", NULL};
  fails_with(NULL, fast, "retarget-failed", "exceed the limit");
}

/* The output directory can be written, but a directory stands where the output goes. */
static void block_the_output(const char *dir) {
  g_autofree char *in_the_way = g_build_filename(dir, "out", "cmu_walk.glb", NULL);
  cr_assert_eq(g_mkdir_with_parents(in_the_way, 0777), 0);
}

Test(retarget_errors, write_failed) {
  const char *walk[] = {"--unit", "cmu", "--out-dir", "out", "data:generated/cmu_walk.bvh", NULL};
  fails_with(block_the_output, walk, "write-failed", "is a directory");
}
