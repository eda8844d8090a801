/* Clip sampling benchmark: the KDL humanoid's playback clip (rk_rigs.h: 31 joints, 10 s at
 * 120 fps, LINEAR keys on 26 rotations and the pelvis translation) sampled into all 31 local
 * poses, the way a player does (times advancing at 60 Hz, looping) and at random times. Lines in
 * the format of the other benchmarks (tests/bench/README.md). Usage: rk_bench_sample [--quick] */
#include "bench_support.h"
#include "rk_rigs.h"

#include <rigkit/rigkit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_JOINTS (RK_RIG_KDL_JOINTS + 1)
#define NT 4096 /* random times in the pool */
#define SECONDS 10.0
#define FPS 120.0
#define RATE 60.0 /* playback rate, Hz */

typedef struct sample_ctx {
  const rk_clip *clip;
  const rk_transform *rest;
  double times[NT];
  rk_transform out[N_JOINTS];
  uint32_t keys[N_JOINTS]; /* the cursor's buffer: at most one track per joint and channel used */
  rk_clip_cursor cursor;
} sample_ctx;

/* The time of call i when playing at RATE from a quarter of a key interval in, looping at the
 * clip's end. Every time lies between keys: from 0, at 60 Hz over 120 fps keys, every sample would
 * land on a key, which skips the interpolation. */
static double playback_time(long i) {
  return fmod((double)i / RATE + 0.25 / FPS, SECONDS);
}

static void sample_playback_search(void *p, long i) {
  sample_ctx *c = p;
  rk_clip_sample(c->clip, c->rest, playback_time(i), c->out, N_JOINTS);
  rk_bench_sink = c->out[N_JOINTS - 1].r.w;
}

static void sample_playback(void *p, long i) {
  sample_ctx *c = p;
  rk_clip_sample_cursor(c->clip, c->rest, playback_time(i), &c->cursor, c->out, N_JOINTS);
  rk_bench_sink = c->out[N_JOINTS - 1].r.w;
}

static void sample_random(void *p, long i) {
  sample_ctx *c = p;
  rk_clip_sample(c->clip, c->rest, c->times[i & (NT - 1)], c->out, N_JOINTS);
  rk_bench_sink = c->out[N_JOINTS - 1].r.w;
}

int main(int argc, char **argv) {
  const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  const int reps = quick ? 7 : 21;
  const long iters = 6000;
  printf("# rk_bench_sample: rigkit %s, reps=%d (ns_per_call = median over reps)\n",
         rk_version_string(), reps);
  GError *error = NULL;
  rk_skeleton *s = rk_rig_kdl_humanoid_skeleton(&error);
  rk_clip *clip = s ? rk_rig_kdl_humanoid_clip(SECONDS, FPS, &error) : NULL;
  if (!clip) {
    fprintf(stderr, "rk_bench_sample: %s\n", error->message);
    return 1;
  }
  sample_ctx *c = calloc(1, sizeof *c);
  c->clip = clip;
  c->rest = rk_skeleton_rest_locals(s);
  rk_bench_rng rng = {20240601};
  for (int k = 0; k < NT; k++)
    c->times[k] = rk_bench_uniform(&rng, 0.0, SECONDS);
  char extra[200];
  const size_t keys = rk_clip_track(clip, 0)->key_count;
  double mn, mx, med;
  c->cursor = (rk_clip_cursor)RK_CLIP_CURSOR_INIT(c->keys, N_JOINTS);
  rk_clip_cursor_reset(&c->cursor);
  med = rk_bench_run(sample_playback, c, iters, reps, &mn, &mx);
  snprintf(extra, sizeof extra, "solver=rk_clip_sample_cursor keys=%zu tracks=%zu rate_hz=%g", keys,
           rk_clip_track_count(clip), RATE);
  rk_bench_report("sample_playback", med, mn, mx, N_JOINTS, reps, iters, extra);
  med = rk_bench_run(sample_playback_search, c, iters, reps, &mn, &mx);
  snprintf(extra, sizeof extra, "solver=rk_clip_sample keys=%zu tracks=%zu rate_hz=%g", keys,
           rk_clip_track_count(clip), RATE);
  rk_bench_report("sample_playback_search", med, mn, mx, N_JOINTS, reps, iters, extra);
  med = rk_bench_run(sample_random, c, iters, reps, &mn, &mx);
  snprintf(extra, sizeof extra, "solver=rk_clip_sample keys=%zu tracks=%zu", keys,
           rk_clip_track_count(clip));
  rk_bench_report("sample_random", med, mn, mx, N_JOINTS, reps, iters, extra);
  free(c);
  rk_clip_free(clip);
  rk_skeleton_unref(s);
  return 0;
}
