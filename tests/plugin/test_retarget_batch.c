/* `rigkit retarget` as a batch: the same bytes whatever -j; shards run through GNU parallel give
 * the unsharded run's outputs; SIGTERM/SIGINT mid-batch leave only complete outputs and a report
 * of what was done, and --resume completes the rest; --resume redoes what changed. */
#include "retarget_test.h"

#include <signal.h>
#include <unistd.h>

/* Writes clip variants into dir: the walk looped to frames[i] frames as <stem>_<frames>.bvh.
 * Returns the paths. */
static GPtrArray *walk_variants(const char *dir, const size_t *frames, size_t n) {
  GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
  for (size_t i = 0; i < n; i++) {
    g_autofree char *name = g_strdup_printf("walk_%zu.bvh", frames[i]);
    char *p = g_build_filename(dir, name, NULL);
    rt_write_long_walk(p, frames[i]);
    g_ptr_array_add(paths, p);
  }
  return paths;
}

/* Checks that two directories hold the same visible files with the same bytes. */
static void check_same_tree(const char *a, const char *b) {
  g_autoptr(GPtrArray) fa = rt_list(a, false), fb = rt_list(b, false);
  cr_assert_eq(fa->len, fb->len, "%s has %u files, %s has %u", a, fa->len, b, fb->len);
  for (guint i = 0; i < fa->len; i++) {
    cr_assert_str_eq(g_ptr_array_index(fa, i), g_ptr_array_index(fb, i));
    g_autofree char *pa = g_build_filename(a, g_ptr_array_index(fa, i), NULL);
    g_autofree char *pb = g_build_filename(b, g_ptr_array_index(fb, i), NULL);
    cr_assert(rt_same_bytes(pa, pb), "%s and %s differ", pa, pb);
  }
}

Test(retarget_batch, jobs_1_and_jobs_2_write_the_same_bytes) {
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  g_autofree char *fig = rt_data("RiggedFigure.glb");
  g_autofree char *fox = rt_data("Fox.glb");
  g_autofree char *dir = rt_tmpdir();
  const size_t frames[] = {40, 70, 100};
  g_autoptr(GPtrArray) clips = walk_variants(dir, frames, G_N_ELEMENTS(frames));
  const char *runs[] = {"1", "2"};
  for (size_t k = 0; k < 2; k++) {
    g_autofree char *cwd = g_build_filename(dir, runs[k], NULL);
    cr_assert_eq(g_mkdir(cwd, 0777), 0);
    const char *args[] = {"retarget", "--target", fig, "--root-motion", "--out-dir", "out",
                          "--report", "report.json", "--plot", "plots", "-j", runs[k], walk,
                          g_ptr_array_index(clips, 0), fox, g_ptr_array_index(clips, 1), fig,
                          g_ptr_array_index(clips, 2), NULL};
    cli_run r = rt_cli(cwd, args);
    cr_assert_eq(r.code, 1, "Fox's clips fail (quadruped): %s%s", r.out, r.err);
    rt_cli_clear(&r);
  }
  g_autofree char *o1 = g_build_filename(dir, "1", "out", NULL);
  g_autofree char *o2 = g_build_filename(dir, "2", "out", NULL);
  g_autofree char *p1 = g_build_filename(dir, "1", "plots", NULL);
  g_autofree char *p2 = g_build_filename(dir, "2", "plots", NULL);
  g_autoptr(GPtrArray) outs = rt_list(o1, false);
  cr_assert_eq(outs->len, 5, "five outputs (Fox fails)");
  check_same_tree(o1, o2);
  check_same_tree(p1, p2);
  g_autofree char *r1 = g_build_filename(dir, "1", "report.json", NULL);
  g_autofree char *r2 = g_build_filename(dir, "2", "report.json", NULL);
  g_autofree char *t1 = rt_report_without_seconds(r1);
  g_autofree char *t2 = rt_report_without_seconds(r2);
  cr_assert_str_eq(t1, t2, "reports differ beyond 'seconds'");
  rt_rmtree(dir);
}

/* Entry texts of a report by source path (seconds removed, output by its base name: the runs
 * write into different directories). */
static void entries_by_source(const char *report, GHashTable *into) {
  g_autoptr(JsonParser) jp = NULL;
  JsonArray *clips = rt_clips(rt_json(report, &jp));
  for (guint i = 0; i < json_array_get_length(clips); i++) {
    JsonObject *c = json_array_get_object_element(clips, i);
    json_object_remove_member(c, "seconds");
    g_autofree char *base = g_path_get_basename(rt_str(c, "output"));
    json_object_set_string_member(c, "output", base);
    g_autoptr(JsonNode) node = json_node_init_object(json_node_alloc(), c);
    char *text = json_to_string(node, FALSE);
    cr_assert(!g_hash_table_contains(into, rt_str(c, "source")), "%s twice", rt_str(c, "source"));
    g_hash_table_insert(into, g_strdup(rt_str(c, "source")), text);
  }
}

Test(retarget_batch, two_shards_through_gnu_parallel_equal_one_unsharded_run) {
  g_autofree char *parallel = g_find_program_in_path("parallel");
  if (!parallel)
    cr_skip("GNU parallel not installed (Debian package 'parallel', see .ci/deps.sh)");
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  g_autofree char *fig = rt_data("RiggedFigure.glb");
  g_autofree char *dir = rt_tmpdir();
  const size_t frames[] = {30, 45, 60, 75};
  g_autoptr(GPtrArray) clips = walk_variants(dir, frames, G_N_ELEMENTS(frames));
  g_ptr_array_add(clips, g_strdup(walk));
  g_ptr_array_add(clips, g_strdup(fig));
  /* One unsharded run. */
  {
    g_autoptr(GPtrArray) args = g_ptr_array_new();
    const char *head[] = {"retarget", "--target", fig, "--root-motion", "--out-dir", "whole",
                          "--report", "whole.json"};
    for (size_t i = 0; i < G_N_ELEMENTS(head); i++)
      g_ptr_array_add(args, (gpointer)head[i]);
    for (guint i = 0; i < clips->len; i++)
      g_ptr_array_add(args, g_ptr_array_index(clips, i));
    g_ptr_array_add(args, NULL);
    cli_run r = rt_cli(dir, (const char *const *)args->pdata);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    rt_cli_clear(&r);
  }
  /* Two shards, as a scheduler would start them: parallel ... --shard {}/2 ::: 1 2 */
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  const char *head[] = {parallel,       "--will-cite", "--halt",       "never",   "-j",
                        "2",            RK_CLI_PATH,   "retarget",     "--target", fig,
                        "--root-motion", "--out-dir",  "sharded",      "--report", "shard-{}.json",
                        "--shard",      "{}/2"};
  for (size_t i = 0; i < G_N_ELEMENTS(head); i++)
    g_ptr_array_add(argv, (gpointer)head[i]);
  for (guint i = 0; i < clips->len; i++)
    g_ptr_array_add(argv, g_ptr_array_index(clips, i));
  const char *tail[] = {":::", "1", "2", NULL};
  for (size_t i = 0; i < G_N_ELEMENTS(tail); i++)
    g_ptr_array_add(argv, (gpointer)tail[i]);
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  cr_assert(g_spawn_sync(dir, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                         &status, NULL));
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "parallel failed:\n%s%s", out, err);
  g_autofree char *whole = g_build_filename(dir, "whole", NULL);
  g_autofree char *sharded = g_build_filename(dir, "sharded", NULL);
  check_same_tree(whole, sharded);
  /* Each shard did its own part: reports split the clips, their union is the whole report. */
  g_autoptr(GHashTable) a = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GHashTable) b = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  g_autofree char *wr = g_build_filename(dir, "whole.json", NULL);
  g_autofree char *s1 = g_build_filename(dir, "shard-1.json", NULL);
  g_autofree char *s2 = g_build_filename(dir, "shard-2.json", NULL);
  entries_by_source(wr, a);
  entries_by_source(s1, b);
  const guint in_first = g_hash_table_size(b);
  entries_by_source(s2, b);
  cr_assert(in_first == 3 && g_hash_table_size(b) == 6, "6 files split 3 + 3 (got %u + %u)",
            in_first, g_hash_table_size(b) - in_first);
  cr_assert_eq(g_hash_table_size(a), g_hash_table_size(b));
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, a);
  while (g_hash_table_iter_next(&it, &key, &value))
    cr_assert_str_eq(value, g_hash_table_lookup(b, key), "entry of %s differs", (char *)key);
  /* Each shard journals apart (no two processes append to one file). */
  g_autofree char *j1 = g_build_filename(sharded, ".rigkit-retarget.shard-1-of-2.journal", NULL);
  g_autofree char *j2 = g_build_filename(sharded, ".rigkit-retarget.shard-2-of-2.journal", NULL);
  cr_assert(g_file_test(j1, G_FILE_TEST_IS_REGULAR) && g_file_test(j2, G_FILE_TEST_IS_REGULAR));
  rt_rmtree(dir);
}

/* Inode and modification time of a file, to see that --resume left it alone. */
static void file_id(const char *path, guint64 *ino, gint64 *mtime_ns) {
  GStatBuf st;
  cr_assert_eq(g_stat(path, &st), 0, "%s missing", path);
  *ino = (guint64)st.st_ino;
  *mtime_ns = (gint64)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

/* Starts `rigkit ARGS` in cwd, waits for the first visible file in watch_dir, sends `sig`, and
 * returns the exit code (128 + signal for a process killed by a signal). Returns -1 when the batch
 * finished before it could be interrupted. */
static int run_and_interrupt(const char *cwd, const char *const *args, const char *watch_dir,
                             int sig) {
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)RK_CLI_PATH);
  for (size_t i = 0; args[i]; i++)
    g_ptr_array_add(argv, (gpointer)args[i]);
  g_ptr_array_add(argv, NULL);
  GPid pid;
  g_autoptr(GError) e = NULL;
  cr_assert(g_spawn_async(cwd, (char **)argv->pdata, NULL,
                          G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL |
                              G_SPAWN_STDERR_TO_DEV_NULL,
                          NULL, NULL, &pid, &e),
            "%s", e ? e->message : "");
  bool seen = false;
  int status = 0;
  for (int i = 0; i < 60000 && !seen; i++) { /* up to 10 minutes (sanitizer builds are slow) */
    g_autoptr(GPtrArray) files = rt_list(watch_dir, false);
    seen = files->len > 0;
    if (!seen) {
      if (waitpid(pid, &status, WNOHANG) == pid)
        return -1;
      g_usleep(10000);
    }
  }
  cr_assert(seen, "no output appeared");
  cr_assert_eq(kill(pid, sig), 0);
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  g_spawn_close_pid(pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void interrupt_then_resume(int sig, const char *sig_name) {
  g_autofree char *fig = rt_data("RiggedFigure.glb");
  g_autofree char *nan = rt_data("bad/bvh_nan.bvh");
  g_autofree char *trunc = rt_data("bad/truncated.glb");
  g_autofree char *dir = rt_tmpdir();
  /* 10 clips: 8 walks of different lengths (long enough to stop the batch between them), 2 bad. */
  const size_t frames[] = {1500, 1600, 1700, 1800, 1900, 2000, 2100, 2200};
  g_autoptr(GPtrArray) good = walk_variants(dir, frames, G_N_ELEMENTS(frames));
  g_autofree char *bad1 = g_build_filename(dir, "bad_nan.bvh", NULL);
  g_autofree char *bad2 = g_build_filename(dir, "bad_truncated.glb", NULL);
  rt_copy(nan, bad1);
  rt_copy(trunc, bad2);
  const char *clips[10] = {g_ptr_array_index(good, 0), g_ptr_array_index(good, 1), bad1,
                           g_ptr_array_index(good, 2), g_ptr_array_index(good, 3),
                           g_ptr_array_index(good, 4), bad2, g_ptr_array_index(good, 5),
                           g_ptr_array_index(good, 6), g_ptr_array_index(good, 7)};
  g_autofree char *out = g_build_filename(dir, "out", NULL);
  g_autofree char *report = g_build_filename(dir, "report.json", NULL);
  const char *head[] = {"retarget", "--target", fig, "--root-motion", "--out-dir", out, "--report",
                        report, "-j", "1"};
  g_autoptr(GPtrArray) args = g_ptr_array_new();
  for (size_t i = 0; i < G_N_ELEMENTS(head); i++)
    g_ptr_array_add(args, (gpointer)head[i]);
  for (size_t i = 0; i < 10; i++)
    g_ptr_array_add(args, (gpointer)clips[i]);
  g_ptr_array_add(args, NULL);
  const int code = run_and_interrupt(dir, (const char *const *)args->pdata, out, sig);
  if (code < 0)
    cr_skip("the batch finished before it could be interrupted (machine too fast for the test)");
  cr_assert_eq(code, 128 + sig, "exit %d after %s", code, sig_name);

  /* What the interrupted run left: complete outputs only, each one reported ok. */
  g_autoptr(JsonParser) jp = NULL;
  JsonObject *rep = rt_json(report, &jp);
  cr_assert_str_eq(rt_str(rep, "interrupted"), sig_name);
  JsonArray *done = rt_clips(rep);
  JsonArray *not_run = json_object_get_array_member(rep, "not_run");
  cr_assert_gt(json_array_get_length(not_run), 0, "the batch stopped early");
  cr_assert_lt(json_array_get_length(done), 10);
  cr_assert_eq(rt_temporaries(out), 0, "no partial output");
  g_autoptr(GPtrArray) files = rt_list(out, false);
  guint ok_done = 0;
  g_autoptr(GHashTable) first_ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < json_array_get_length(done); i++) {
    JsonObject *c = json_array_get_object_element(done, i);
    cr_assert_str_eq(rt_str(c, "source"), clips[i], "done clips are the first ones, in order");
    if (strcmp(rt_str(c, "status"), "ok") != 0)
      continue;
    ok_done++;
    g_autoptr(rk_asset) a = rt_read_output(rt_str(c, "output"));
    cr_assert_eq(rk_asset_clip_count(a), 1);
    gint64 *id = g_new(gint64, 2);
    guint64 ino;
    file_id(rt_str(c, "output"), &ino, &id[1]);
    id[0] = (gint64)ino;
    g_hash_table_insert(first_ids, g_strdup(rt_str(c, "output")), id);
  }
  cr_assert_eq(files->len, ok_done, "every output on disk is a reported, complete one");
  cr_assert_geq(ok_done, 1);

  /* --resume: the rest is done, the done ones are skipped (not rewritten). */
  g_ptr_array_insert(args, 1, (gpointer) "--resume");
  cli_run r = rt_cli(dir, (const char *const *)args->pdata);
  cr_assert_eq(r.code, 1, "two malformed clips fail: %s%s", r.out, r.err);
  g_autoptr(JsonParser) jp2 = NULL;
  JsonObject *rep2 = rt_json(report, &jp2);
  JsonArray *all = rt_clips(rep2);
  cr_assert_eq(json_array_get_length(all), 10);
  cr_assert(json_node_is_null(json_object_get_member(rep2, "interrupted")));
  cr_assert_eq(json_array_get_length(json_object_get_array_member(rep2, "not_run")), 0);
  JsonObject *sum = json_object_get_object_member(rep2, "summary");
  cr_assert_eq(json_object_get_int_member(sum, "ok"), 8);
  cr_assert_eq(json_object_get_int_member(sum, "error"), 2);
  cr_assert_eq(json_object_get_int_member(sum, "resumed"), ok_done);
  for (guint i = 0; i < 10; i++) {
    JsonObject *c = json_array_get_object_element(all, i);
    cr_assert_str_eq(rt_str(c, "source"), clips[i]);
    const bool bad = i == 2 || i == 6;
    cr_assert_str_eq(rt_str(c, "status"), bad ? "error" : "ok", "clip %u", i);
    if (bad)
      continue;
    g_autoptr(rk_asset) a = rt_read_output(rt_str(c, "output"));
    cr_assert_eq(rk_asset_clip_count(a), 1);
    gint64 *id = g_hash_table_lookup(first_ids, rt_str(c, "output"));
    if (id) {
      guint64 ino;
      gint64 mt;
      file_id(rt_str(c, "output"), &ino, &mt);
      cr_assert(id[0] == (gint64)ino && id[1] == mt, "%s was rewritten", rt_str(c, "output"));
    }
  }
  g_autoptr(GPtrArray) files2 = rt_list(out, false);
  cr_assert_eq(files2->len, 8);
  cr_assert_eq(rt_temporaries(out), 0);
  rt_cli_clear(&r);
  rt_rmtree(dir);
}

Test(retarget_batch, sigterm_mid_batch_leaves_complete_outputs_and_resume_finishes,
     .timeout = 600) {
  interrupt_then_resume(SIGTERM, "SIGTERM");
}

Test(retarget_batch, sigint_mid_batch_too, .timeout = 600) {
  interrupt_then_resume(SIGINT, "SIGINT");
}

Test(retarget_batch, resume_redoes_missing_or_changed_outputs_and_other_settings) {
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  g_autofree char *fig = rt_data("RiggedFigure.glb");
  g_autofree char *dir = rt_tmpdir();
  const size_t frames[] = {20, 30, 40};
  g_autoptr(GPtrArray) clips = walk_variants(dir, frames, G_N_ELEMENTS(frames));
  const char *args[] = {"retarget", "--resume", "--target", fig, "--out-dir", "out", "--report",
                        "r.json", g_ptr_array_index(clips, 0), g_ptr_array_index(clips, 1),
                        g_ptr_array_index(clips, 2), walk, NULL};
  g_autofree char *report = g_build_filename(dir, "r.json", NULL);
  /* First run (nothing to resume yet). */
  cli_run r = rt_cli(dir, args);
  cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
  rt_cli_clear(&r);
  g_autofree char *first = NULL;
  cr_assert(g_file_get_contents(report, &first, NULL, NULL));
  /* Everything done: a rerun skips all four and reports the same entries. */
  r = rt_cli(dir, args);
  cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
  cr_assert_not_null(strstr(r.out, "4 already done"), "%s", r.out);
  rt_cli_clear(&r);
  {
    g_autoptr(JsonParser) jp = NULL;
    JsonObject *rep = rt_json(report, &jp);
    cr_assert_eq(json_object_get_int_member(json_object_get_object_member(rep, "summary"), "resumed"), 4);
    JsonArray *c = rt_clips(rep);
    g_autoptr(JsonParser) jp0 = json_parser_new();
    cr_assert(json_parser_load_from_data(jp0, first, -1, NULL));
    JsonArray *c0 = json_object_get_array_member(json_node_get_object(json_parser_get_root(jp0)), "clips");
    for (guint i = 0; i < 4; i++) {
      JsonObject *a = json_array_get_object_element(c, i), *b = json_array_get_object_element(c0, i);
      g_autoptr(JsonNode) na = json_node_init_object(json_node_alloc(), a);
      g_autoptr(JsonNode) nb = json_node_init_object(json_node_alloc(), b);
      g_autofree char *ta = json_to_string(na, FALSE), *tb = json_to_string(nb, FALSE);
      cr_assert_str_eq(ta, tb, "a resumed entry is the original one");
    }
  }
  /* One output deleted, one damaged: those two are redone, the rest skipped. */
  g_autofree char *o0 = g_build_filename(dir, "out", "walk_20.glb", NULL);
  g_autofree char *o1 = g_build_filename(dir, "out", "walk_30.glb", NULL);
  cr_assert_eq(g_unlink(o0), 0);
  FILE *f = fopen(o1, "ab");
  cr_assert_not_null(f);
  fputc('x', f);
  fclose(f);
  r = rt_cli(dir, args);
  cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
  cr_assert_not_null(strstr(r.out, "2 already done"), "%s", r.out);
  rt_cli_clear(&r);
  rk_asset_free(rt_read_output(o0)); /* both outputs still read back */
  rk_asset_free(rt_read_output(o1));
  /* Other settings: nothing is reused. */
  const char *other[] = {"retarget", "--resume", "--fps", "30", "--target", fig, "--out-dir",
                         "out", "--report", "r.json", g_ptr_array_index(clips, 0),
                         g_ptr_array_index(clips, 1), g_ptr_array_index(clips, 2), walk, NULL};
  r = rt_cli(dir, other);
  cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
  cr_assert_null(strstr(r.out, "already done"), "%s", r.out);
  rt_cli_clear(&r);
  rt_rmtree(dir);
}
