/* Retargeting throughput on a long clip, and the `rigkit retarget` command end to end.
 *
 * The clip: the MakeHuman walk (tests/data/makehuman_walk1.bvh, 91 joints, an in-place cycle of
 * 14 frames at 24 fps) looped to --frames frames (default 6000, about 4 minutes), retargeted with
 * root_motion (the cycle travels, so both feet plant in turn) onto:
 *   - RiggedFigure.glb (19 joints): a game-character-sized target;
 *   - the MakeHuman rig itself (91 joints): a film-rig-sized target (bigger IK tree).
 * Per target: rk_retargeter_run with foot IK and without (--no-ik), one thread, and two clips at
 * once on two threads (-j 2: aggregate frames/s over the wall time of both), and frames per
 * second of CPU time (the threads' own CPU clocks: per-core speed on a machine shared with other
 * work). Median of --reps.
 * Then the CLI end to end (import + retarget + export + read-back measurement + report) on a
 * ~2 MB BVH written to a temporary directory (the walk looped to 900 frames).
 * With --source CLIP --target CHARACTER (and --unit U as the CLI's --unit), instead: that clip
 * retargeted onto that character as `rigkit retarget` does (both maps from the assets, the
 * character's skinned meshes for soles and floor checks, foot IK, threads as --threads or the
 * run's own choice), the first run (fresh pages, as in the CLI) and then --reps more.
 * Prints one `rigkit retarget_... key=value ...` line per measurement.
 * Usage: rk_bench_retarget [--frames N] [--reps N] [--quick] [--only riggedfigure|makehuman]
 *        [--ik foot|none] [--threads 1|2] [--no-cli]   (the filters are for profiling runs)
 *        rk_bench_retarget --source CLIP --target CHARACTER [--unit U] [--threads 1|2] [--reps N] */
#include "bench_support.h"
#include "rk_rigs.h"

#include <glib/gstdio.h>
#include <rigkit/importers.h>
#include <rigkit/profile.h>
#include <rigkit/rigkit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static rk_asset *load(const char *name) {
  g_autofree char *path = g_build_filename(RK_TEST_DATA_DIR, name, NULL);
  GError *e = NULL;
  rk_asset *a = rk_import_file(path, NULL, &e);
  if (!a) {
    fprintf(stderr, "rk_bench_retarget: %s\n", e->message);
    exit(1);
  }
  return a;
}

/* The source clip looped to `frames` frames (key per frame, at the clip's rate). */
static rk_clip *looped(const rk_skeleton *s, const rk_clip *c, size_t frames) {
  const size_t n = rk_skeleton_joint_count(s), period = rk_clip_frame_count(c);
  const double fps = rk_clip_fps(c);
  rk_transform *pose = g_new(rk_transform, period * n);
  for (size_t f = 0; f < period; f++)
    rk_clip_sample_frame(c, rk_skeleton_rest_locals(s), fps, f, pose + f * n, n);
  double *t = g_new(double, frames), *v = g_new(double, 4 * frames);
  for (size_t f = 0; f < frames; f++)
    t[f] = (double)f / fps;
  rk_clip *out = rk_clip_new("walk_long", n);
  rk_clip_set_fps(out, fps);
  for (size_t j = 0; j < n; j++) {
    for (size_t f = 0; f < frames; f++) {
      rk_quat q = pose[(f % period) * n + j].r;
      v[4 * f] = q.x, v[4 * f + 1] = q.y, v[4 * f + 2] = q.z, v[4 * f + 3] = q.w;
    }
    rk_track rt = {(int)j, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, frames, t, v};
    rk_clip_add_track(out, &rt, NULL);
    if (j == 0) {
      for (size_t f = 0; f < frames; f++) {
        rk_vec3 p = pose[(f % period) * n + j].t;
        v[3 * f] = p.x, v[3 * f + 1] = p.y, v[3 * f + 2] = p.z;
      }
      rk_track tt = {0, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, frames, t, v};
      rk_clip_add_track(out, &tt, NULL);
    }
  }
  g_free(pose);
  g_free(t);
  g_free(v);
  return out;
}

typedef struct job {
  const rk_retargeter *rt;
  const rk_clip *clip;
  rk_retarget_options opts;
  double seconds, cpu_seconds; /* wall and this thread's CPU time */
  size_t frames;
  double skate_max_mm, goal_max_mm;
} job;

static double thread_cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static gpointer run_job(gpointer p) {
  job *j = p;
  GError *e = NULL;
  const double t0 = rk_bench_now_ns(), c0 = thread_cpu_s();
  rk_retarget_result *r = rk_retargeter_run(j->rt, j->clip, &j->opts, &e);
  j->seconds = (rk_bench_now_ns() - t0) * 1e-9;
  j->cpu_seconds = thread_cpu_s() - c0;
  if (!r) {
    fprintf(stderr, "rk_bench_retarget: %s\n", e->message);
    exit(1);
  }
  j->frames = rk_retarget_result_frames(r);
  j->skate_max_mm = rk_retarget_result_quality(r)->foot_skate_max_mm;
  j->goal_max_mm = rk_retarget_result_quality(r)->ik_goal_error_max_mm;
  rk_retarget_result_free(r);
  return NULL;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void measure(const char *target_name, const rk_retargeter *rt, const rk_clip *clip,
                    bool foot_ik, int threads, int reps) {
  double wall[64], cpu[64];
  job jobs[2];
  for (int r = 0; r < reps; r++) {
    for (int k = 0; k < threads; k++) {
      jobs[k] = (job){rt, clip, RK_RETARGET_OPTIONS_INIT, 0, 0, 0, 0, 0};
      jobs[k].opts.foot_ik = foot_ik;
      jobs[k].opts.root_motion = true;
      /* One thread a run: the figures are per thread, CPU from each thread's own clock (a run's
       * second half on another thread would not be counted). */
      jobs[k].opts.threads = 1;
    }
    const double t0 = rk_bench_now_ns();
    if (threads == 1) {
      run_job(&jobs[0]);
    } else {
      GThread *th[2];
      for (int k = 0; k < threads; k++)
        th[k] = g_thread_new("retarget", run_job, &jobs[k]);
      for (int k = 0; k < threads; k++)
        g_thread_join(th[k]);
    }
    wall[r] = (rk_bench_now_ns() - t0) * 1e-9;
    cpu[r] = 0;
    for (int k = 0; k < threads; k++)
      cpu[r] += jobs[k].cpu_seconds;
  }
  qsort(wall, (size_t)reps, sizeof(double), cmp_d);
  qsort(cpu, (size_t)reps, sizeof(double), cmp_d);
  const double med = reps % 2 ? wall[reps / 2] : 0.5 * (wall[reps / 2 - 1] + wall[reps / 2]);
  const double cpu_med = reps % 2 ? cpu[reps / 2] : 0.5 * (cpu[reps / 2 - 1] + cpu[reps / 2]);
  const double frames = (double)jobs[0].frames * threads;
  const size_t nt = rk_skeleton_joint_count(rk_retargeter_target(rt));
  const size_t ns = rk_skeleton_joint_count(rk_retargeter_source(rt));
  printf("rigkit retarget_%s ik=%s threads=%d frames=%zu wall_s=%.4f frames_per_s=%.0f "
         "frames_per_s_per_thread=%.0f target_joints=%zu target_joint_frames_per_s=%.3g "
         "source_joints=%zu source_joint_frames_per_s=%.3g min_wall_s=%.4f max_wall_s=%.4f "
         "frames_per_cpu_s=%.0f skate_max_mm=%.4f goal_max_mm=%.4f reps=%d\n",
         target_name, foot_ik ? "foot" : "none", threads, jobs[0].frames, med, frames / med,
         frames / med / threads, nt, frames * (double)nt / med, ns, frames * (double)ns / med,
         wall[0], wall[reps - 1], frames / cpu_med, jobs[0].skate_max_mm, jobs[0].goal_max_mm, reps);
  fflush(stdout);
}

/* A clip file onto a character as the CLI retargets it: the first run, then `reps` more, each
 * timed by wall clock and by the process's CPU clock (a run's second half may be on another
 * thread). */
static int file_runs(const char *source, const char *target, const char *unit, int threads,
                     int reps) {
  rk_import_options io = RK_IMPORT_OPTIONS_INIT;
  if (unit && !rk_import_parse_unit(unit, &io.unit_scale)) {
    fprintf(stderr, "rk_bench_retarget: bad --unit %s\n", unit);
    return 2;
  }
  GError *e = NULL;
  rk_asset *src = rk_import_file(source, &io, &e);
  rk_asset *tgt = src ? rk_import_file(target, NULL, &e) : NULL;
  rk_humanoid_map sm, tm;
  rk_retargeter *rt = NULL;
  if (tgt && rk_profile_map_asset(NULL, src, RK_PROFILE_SOURCE, &sm, &e) &&
      rk_profile_map_asset(NULL, tgt, RK_PROFILE_TARGET, &tm, &e))
    rt = rk_retargeter_new_onto(rk_asset_skeleton(src), &sm, tgt, &tm, &e);
  if (!rt) {
    fprintf(stderr, "rk_bench_retarget: %s\n", e->message);
    return 1;
  }
  for (int r = 0; r <= reps; r++) {
    rk_retarget_options o = RK_RETARGET_OPTIONS_INIT;
    o.threads = threads;
    const double t0 = rk_bench_now_ns(), c0 = rk_bench_cpu_s();
    rk_retarget_result *res = rk_retargeter_run(rt, rk_asset_clip(src, 0), &o, &e);
    const double wall = (rk_bench_now_ns() - t0) * 1e-9, cpu = rk_bench_cpu_s() - c0;
    if (!res) {
      fprintf(stderr, "rk_bench_retarget: %s\n", e->message);
      return 1;
    }
    const size_t frames = rk_retarget_result_frames(res);
    printf("rigkit retarget_file run=%s threads=%d frames=%zu wall_s=%.4f cpu_s=%.4f "
           "frames_per_cpu_s=%.0f us_per_frame_cpu=%.2f\n",
           r ? "again" : "first", threads, frames, wall, cpu, frames / cpu, cpu * 1e6 / frames);
    rk_retarget_result_free(res);
  }
  rk_retargeter_free(rt);
  rk_asset_free(tgt);
  rk_asset_free(src);
  return 0;
}

/* Writes the walk looped to `frames` frames as BVH text (the file's own motion lines repeated). */
static char *write_long_bvh(const char *dir, size_t frames) {
  g_autofree char *src = g_build_filename(RK_TEST_DATA_DIR, "makehuman_walk1.bvh", NULL);
  char *path = g_build_filename(dir, "walk_long.bvh", NULL);
  if (!rk_test_write_looped_bvh(src, path, frames))
    exit(1);
  return path;
}

static void cli_end_to_end(const char *cli, int reps) {
  g_autofree char *dir = g_dir_make_tmp("rk-bench-retarget-XXXXXX", NULL);
  g_autofree char *bvh = write_long_bvh(dir, 900);
  GStatBuf st;
  g_stat(bvh, &st);
  g_autofree char *target = g_build_filename(RK_TEST_DATA_DIR, "RiggedFigure.glb", NULL);
  g_autofree char *out = g_build_filename(dir, "out", NULL);
  g_autofree char *report = g_build_filename(dir, "report.json", NULL);
  double wall[64];
  for (int r = 0; r < reps; r++) {
    const char *argv[] = {cli, "retarget", "--target", target, "--root-motion", "--out-dir", out,
                          "--report", report, bvh, NULL};
    int status = 0;
    g_autofree char *so = NULL, *se = NULL;
    const double t0 = rk_bench_now_ns();
    if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &so, &se, &status,
                      NULL) ||
        !g_spawn_check_wait_status(status, NULL)) {
      fprintf(stderr, "rk_bench_retarget: %s failed:\n%s\n", cli, se ? se : "");
      exit(1);
    }
    wall[r] = (rk_bench_now_ns() - t0) * 1e-9;
  }
  qsort(wall, (size_t)reps, sizeof(double), cmp_d);
  printf("rigkit retarget_cli file_bytes=%lld frames=900 wall_s=%.4f min_wall_s=%.4f "
         "max_wall_s=%.4f frames_per_s=%.0f reps=%d\n",
         (long long)st.st_size, wall[reps / 2], wall[0], wall[reps - 1], 900 / wall[reps / 2], reps);
  g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", dir);
  if (system(cmd) != 0)
    fprintf(stderr, "rk_bench_retarget: could not remove %s\n", dir);
}

int main(int argc, char **argv) {
  size_t frames = 6000;
  int reps = 5, only_threads = 0, only_ik = -1;
  const char *only = NULL, *source = NULL, *target = NULL, *unit = NULL;
  bool cli_run = true;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp(argv[i], "--ik") && i + 1 < argc)
      only_ik = strcmp(argv[++i], "none") != 0;
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
      only_threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--no-cli"))
      cli_run = false;
    else if (!strcmp(argv[i], "--frames") && i + 1 < argc)
      frames = (size_t)atol(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--source") && i + 1 < argc)
      source = argv[++i];
    else if (!strcmp(argv[i], "--target") && i + 1 < argc)
      target = argv[++i];
    else if (!strcmp(argv[i], "--unit") && i + 1 < argc)
      unit = argv[++i];
    else if (!strcmp(argv[i], "--quick"))
      frames = 1200, reps = 3;
    else {
      fprintf(stderr, "usage: rk_bench_retarget [--frames N] [--reps N] [--quick] [--only NAME] "
                      "[--ik foot|none] [--threads 1|2] [--no-cli]\n");
      return 2;
    }
  }
  if (reps < 1 || reps > 64 || frames < 2 || !source != !target)
    return 2;
  if (source)
    return file_runs(source, target, unit, only_threads, reps);
  rk_asset *walk = load("makehuman_walk1.bvh");
  rk_asset *figure = load("RiggedFigure.glb");
  rk_skeleton *ss = rk_asset_skeleton(walk);
  rk_clip *clip = looped(ss, rk_asset_clip(walk, 0), frames);
  rk_humanoid_map sm, fm;
  GError *e = NULL;
  if (!rk_humanoid_map_build(ss, NULL, &sm, &e) ||
      !rk_humanoid_map_build(rk_asset_skeleton(figure), NULL, &fm, &e)) {
    fprintf(stderr, "rk_bench_retarget: %s\n", e->message);
    return 1;
  }
  struct {
    const char *name;
    rk_skeleton *s;
    const rk_humanoid_map *m;
  } targets[] = {{"riggedfigure", rk_asset_skeleton(figure), &fm}, {"makehuman", ss, &sm}};
  for (size_t t = 0; t < G_N_ELEMENTS(targets); t++) {
    if (only && strcmp(only, targets[t].name) != 0)
      continue;
    const double t0 = rk_bench_now_ns();
    rk_retargeter *rt = rk_retargeter_new(ss, &sm, targets[t].s, targets[t].m, &e);
    const double build_ms = (rk_bench_now_ns() - t0) * 1e-6;
    if (!rt) {
      fprintf(stderr, "rk_bench_retarget: %s\n", e->message);
      return 1;
    }
    printf("rigkit retarget_%s_build ms=%.3f\n", targets[t].name, build_ms);
    for (int ik = 1; ik >= 0; ik--)
      for (int th = 1; th <= 2; th++)
        if ((only_ik < 0 || only_ik == ik) && (only_threads == 0 || only_threads == th))
          measure(targets[t].name, rt, clip, ik, th, reps);
    rk_retargeter_free(rt);
  }
  g_autofree char *bindir = g_path_get_dirname(argv[0]);
  g_autofree char *cli = g_build_filename(bindir, "rigkit", NULL);
  if (!cli_run)
    ;
  else if (g_file_test(cli, G_FILE_TEST_IS_EXECUTABLE))
    cli_end_to_end(cli, reps);
  else
    fprintf(stderr, "rk_bench_retarget: %s not found: no end-to-end CLI measurement\n", cli);
  rk_clip_free(clip);
  rk_asset_free(walk);
  rk_asset_free(figure);
  return 0;
}
