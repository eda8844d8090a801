/* Import benchmark: wall time and MB/s of rk_import_file / rk_import_memory for multi-megabyte
 * BVH files generated here (the MakeHuman walk's skeleton, 91 joints, with seeded random motion)
 * and for the test GLB/FBX files. One `rigkit import_<name> key=value ...` line per measurement.
 * Usage: rk_bench_import [--quick] [--reps N] */
#include "bench_support.h"

#include <rigkit/importers.h>
#include <rigkit/rigkit.h>

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char *data_path(const char *name) {
  return g_build_filename(RK_TEST_DATA_DIR, name, NULL);
}

/* A BVH of at least `bytes` bytes: the hierarchy of makehuman_walk1.bvh and random frames. */
static char *make_bvh(size_t bytes, size_t *out_len, size_t *out_frames) {
  g_autofree char *path = data_path("makehuman_walk1.bvh");
  g_autofree char *src = NULL;
  if (!g_file_get_contents(path, &src, NULL, NULL))
    return NULL;
  char *motion = strstr(src, "MOTION");
  if (!motion)
    return NULL;
  *motion = '\0';
  size_t channels = 0;
  for (const char *p = strstr(src, "CHANNELS"); p; p = strstr(p + 8, "CHANNELS"))
    channels += strtoul(p + 8, NULL, 10);
  GString *body = g_string_sized_new(bytes + 65536);
  rk_bench_rng rng = {42};
  size_t frames = 0;
  while (body->len < bytes) {
    for (size_t c = 0; c < channels; c++)
      g_string_append_printf(body, "%.6f ", rk_bench_uniform(&rng, -30.0, 30.0));
    body->str[body->len - 1] = '\n';
    frames++;
  }
  GString *out = g_string_new(src);
  g_string_append_printf(out, "MOTION\nFrames: %zu\nFrame Time: 0.008333\n", frames);
  g_string_append_len(out, body->str, (gssize)body->len);
  g_string_free(body, TRUE);
  *out_len = out->len;
  *out_frames = frames;
  return g_string_free(out, FALSE);
}

typedef struct job {
  const char *path;       /* file import, or */
  const char *data;       /* memory import */
  size_t size;
  const char *name;
} job;

static void report(const char *name, const job *j, int reps) {
  g_autofree double *ms = g_new(double, (size_t)reps);
  size_t joints = 0, clips = 0, keys = 0;
  for (int r = -1; r < reps; r++) { /* r = -1: warm-up (page cache, first-time setup) */
    g_autoptr(GError) error = NULL;
    const double t0 = rk_bench_now_ns();
    rk_asset *a = j->path ? rk_import_file(j->path, NULL, &error)
                          : rk_import_memory(j->data, j->size, j->name, NULL, &error);
    const double t1 = rk_bench_now_ns();
    if (!a) {
      fprintf(stderr, "rk_bench_import: %s\n", error->message);
      return;
    }
    if (r >= 0)
      ms[r] = (t1 - t0) / 1e6;
    joints = rk_skeleton_joint_count(rk_asset_skeleton(a));
    clips = rk_asset_clip_count(a);
    keys = 0;
    for (size_t c = 0; c < clips; c++)
      keys += rk_clip_key_count_total(rk_asset_clip(a, c));
    rk_asset_free(a);
  }
  double lo = ms[0], hi = ms[0];
  for (int r = 1; r < reps; r++) {
    lo = ms[r] < lo ? ms[r] : lo;
    hi = ms[r] > hi ? ms[r] : hi;
  }
  const double med = rk_bench_median(ms, (size_t)reps);
  const double mb = (double)j->size / 1e6;
  printf("rigkit import_%s bytes=%zu ms=%.3f min_ms=%.3f max_ms=%.3f mb_per_s=%.1f "
         "max_mb_per_s=%.1f joints=%zu clips=%zu keys=%zu reps=%d\n",
         name, j->size, med, lo, hi, mb / (med / 1e3), mb / (lo / 1e3), joints, clips, keys, reps);
  fflush(stdout);
}

int main(int argc, char **argv) {
  bool quick = false;
  int reps = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0)
      quick = true;
    else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      reps = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: rk_bench_import [--quick] [--reps N]\n");
      return 2;
    }
  }
  if (reps <= 0)
    reps = quick ? 5 : 15;

  /* Generated BVH, from memory and from a file. */
  const size_t sizes[] = {4u << 20, 16u << 20};
  for (size_t s = 0; s < (quick ? 1u : 2u); s++) {
    size_t len = 0, frames = 0;
    g_autofree char *bvh = make_bvh(sizes[s], &len, &frames);
    if (!bvh) {
      fprintf(stderr, "rk_bench_import: cannot read makehuman_walk1.bvh\n");
      return 1;
    }
    g_autofree char *name = g_strdup_printf("bvh_%zumb_memory", sizes[s] >> 20);
    job m = {NULL, bvh, len, "generated.bvh"};
    report(name, &m, reps);
    g_autofree char *tmp = NULL;
    int fd = g_file_open_tmp("rk_bench_XXXXXX.bvh", &tmp, NULL);
    if (fd >= 0) {
      close(fd);
      if (g_file_set_contents(tmp, bvh, (gssize)len, NULL)) {
        g_autofree char *fname = g_strdup_printf("bvh_%zumb_file", sizes[s] >> 20);
        job f = {tmp, NULL, len, NULL};
        report(fname, &f, reps);
      }
      g_remove(tmp);
    }
  }

  /* The test files (first-party readers through Assimp). */
  static const char *const files[][2] = {
      {"Fox.glb", "fox_glb"},
      {"RiggedFigure.glb", "riggedfigure_glb"},
      {"derived/makehuman_walk1_assimp.glb", "makehuman_walk_glb"},
      {"assimp_huesitos.fbx", "huesitos_fbx"},
      {"makehuman_walk1.bvh", "makehuman_walk_bvh"},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
    g_autofree char *path = data_path(files[i][0]);
    GStatBuf st;
    if (g_stat(path, &st) != 0)
      continue;
    job f = {path, NULL, (size_t)st.st_size, NULL};
    report(files[i][1], &f, quick ? reps : 3 * reps);
  }
  return 0;
}
