/* Export throughput on a long clip: a CMU-like 31-joint capture at 120 fps (default 5 minutes,
 * 36,000 frames, LINEAR keys on every frame) written as GLB, glTF + bin and BVH, timed end to end
 * (building the document, writing, fsync and rename), plus key reduction of the same clip.
 * Prints one `rigkit export_<format> ...` line per measurement (median of --reps runs).
 * Usage: rk_bench_export [--quick] [--seconds S] [--reps N] [--dir DIR] */
#include "bench_support.h"
#include "rk_rigs.h"

#include <glib/gstdio.h>
#include <rigkit/exporters.h>
#include <rigkit/rigkit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_CMU 31 /* joints of rk_rig_cmu_skeleton() */

static rk_asset *long_capture(size_t frames) {
  rk_skeleton *s = rk_rig_cmu_skeleton(NULL);
  if (!s || rk_skeleton_joint_count(s) != N_CMU) {
    fprintf(stderr, "rk_bench_export: the CMU skeleton did not build with %d joints\n", N_CMU);
    exit(1);
  }
  rk_asset *a = rk_asset_new(s);
  rk_clip *c = rk_clip_new("capture", N_CMU);
  rk_clip_set_fps(c, 120);
  double *t = g_new(double, frames), *v = g_new(double, 4 * frames);
  rk_bench_rng rng = {42};
  for (size_t f = 0; f < frames; f++)
    t[f] = (double)f / 120;
  for (size_t f = 0; f < frames; f++) {
    v[3 * f] = 0.2 * sin(0.1 * t[f]);
    v[3 * f + 1] = 0.95 + 0.04 * sin(2 * RK_PI * 1.8 * t[f]);
    v[3 * f + 2] = 1.2 * t[f];
  }
  rk_track tt = {0, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, frames, t, v};
  rk_clip_add_track(c, &tt, NULL);
  for (int j = 0; j < N_CMU; j++) {
    const double ph = 0.61 * j, amp = 0.15 + 0.02 * (j % 7);
    for (size_t f = 0; f < frames; f++) {
      const double w = 2 * RK_PI * 0.9 * t[f], noise = 0.02 * RK_DEG;
      double e[3] = {amp * sin(w + ph) + rk_bench_uniform(&rng, -noise, noise),
                     0.3 * amp * sin(2 * w + ph) + rk_bench_uniform(&rng, -noise, noise),
                     0.2 * amp * cos(w + 2 * ph) + rk_bench_uniform(&rng, -noise, noise)};
      rk_quat q = rk_euler_to_quat(RK_EULER_ZXY, e);
      v[4 * f] = q.x, v[4 * f + 1] = q.y, v[4 * f + 2] = q.z, v[4 * f + 3] = q.w;
    }
    rk_track rt = {j, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, frames, t, v};
    rk_clip_add_track(c, &rt, NULL);
  }
  g_free(t);
  g_free(v);
  rk_asset_add_clip(a, c);
  rk_skeleton_unref(s);
  return a;
}

static size_t file_size(const char *path) {
  GStatBuf st;
  return g_stat(path, &st) == 0 ? (size_t)st.st_size : 0;
}

int main(int argc, char **argv) {
  double seconds = 300;
  int reps = 5;
  const char *dir_arg = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) {
      seconds = 30;
      reps = 3;
    } else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
      seconds = atof(argv[++i]);
    } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
      dir_arg = argv[++i];
    } else {
      fprintf(stderr, "usage: rk_bench_export [--quick] [--seconds S] [--reps N] [--dir DIR]\n");
      return 2;
    }
  }
  if (!(seconds > 0) || reps < 1) {
    fprintf(stderr, "rk_bench_export: --seconds and --reps must be positive\n");
    return 2;
  }
  const size_t frames = (size_t)(seconds * 120) + 1;
  rk_asset *a = long_capture(frames);
  char *dir = dir_arg ? g_strdup(dir_arg) : g_dir_make_tmp("rk-bench-export-XXXXXX", NULL);
  if (!dir) {
    fprintf(stderr, "rk_bench_export: no temporary directory\n");
    return 1;
  }
  printf("# export of a %zu-frame clip (%.0f s at 120 fps), %d joints, %zu keys; into %s\n",
         frames, seconds, N_CMU, rk_clip_key_count_total(rk_asset_clip(a, 0)), dir);
  static const char *const exts[] = {"glb", "gltf", "bvh", "fbx"};
  double *times = g_new(double, (size_t)reps);
  int status = 0;
  for (size_t k = 0; k < G_N_ELEMENTS(exts); k++) {
    char *path = g_strdup_printf("%s/long.%s", dir, exts[k]);
    size_t bytes = 0;
    for (int r = 0; r < reps; r++) {
      GError *e = NULL;
      const double t0 = rk_bench_now_ns();
      if (!rk_export_file(a, path, NULL, &e)) {
        fprintf(stderr, "rk_bench_export: %s\n", e->message);
        g_error_free(e);
        status = 1;
        break;
      }
      times[r] = (rk_bench_now_ns() - t0) * 1e-9;
      bytes = file_size(path);
      if (k == 1) {
        char *bin = g_strdup_printf("%s/long.bin", dir);
        bytes += file_size(bin);
        g_free(bin);
      }
    }
    if (status)
      break;
    double lo = times[0], hi = times[0];
    for (int r = 0; r < reps; r++)
      lo = lo < times[r] ? lo : times[r], hi = hi > times[r] ? hi : times[r];
    const double med = rk_bench_median(times, (size_t)reps);
    printf("rigkit export_%s mb_per_s=%.1f seconds=%.4f min_seconds=%.4f max_seconds=%.4f "
           "bytes=%zu frames=%zu joints=%d reps=%d frames_per_s=%.0f\n",
           exts[k], (double)bytes / 1e6 / med, med, lo, hi, bytes, frames, N_CMU, reps,
           (double)frames / med);
    g_unlink(path);
    g_free(path);
  }
  char *bin = g_strdup_printf("%s/long.bin", dir);
  g_unlink(bin);
  g_free(bin);
  if (!status) {
    rk_reduce_stats st;
    const double t0 = rk_bench_now_ns();
    rk_clip *r = rk_clip_reduce(rk_asset_clip(a, 0), rk_asset_skeleton(a), 1e-3, 0, &st, NULL);
    const double secs = (rk_bench_now_ns() - t0) * 1e-9;
    if (r)
      printf("rigkit reduce_1mm seconds=%.3f keys_before=%zu keys_after=%zu max_error_mm=%.4f "
             "frames=%zu joints=%d frames_per_s=%.0f\n",
             secs, st.keys_baked, st.keys_output, st.max_error_m * 1e3, st.frames, N_CMU,
             (double)st.frames / secs);
    rk_clip_free(r);
  }
  if (!dir_arg)
    g_rmdir(dir);
  g_free(dir);
  g_free(times);
  rk_asset_free(a);
  return status;
}
