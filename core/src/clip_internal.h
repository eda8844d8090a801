/* Internal: the layout of rk_clip and its tracks, shared by clip.c (storage, copies, baking) and
 * clip_sample.c (key lookup, interpolation, sampling). */
#ifndef RK_CLIP_INTERNAL_H
#define RK_CLIP_INTERNAL_H

#include <rigkit/clip.h>

typedef struct rk__track_store {
  rk_track view; /* times/values point into the arrays below */
  double *times;
  double *values;
  double t0, keys_per_second; /* first key time and (keys - 1) / span: where to look for a key
                                 first (exact for a uniform grid, as BVH and baked clips have) */
  double *inv_norms; /* LINEAR rotations: per key 1 / |q| as rk_quat_normalize computes it (q times
                        it is normalise(q), bit for bit), 0 where it gives the identity; else NULL */
} rk__track_store;

struct rk_clip {
  char *name;
  size_t joint_count;
  double duration;
  double fps;
  GArray *tracks; /* rk__track_store */
  int *slots;     /* track index per (joint, channel): joint_count * 3, -1 = none; NULL until
                     the first track (rk_clip_add_track stays O(1) for 65535-joint clips) */
};

/* 1 / |q| as rk_quat_normalize computes it (q times it is normalise(q), bit for bit), 0 where it
 * gives the identity: a LINEAR rotation key's inverse norm. */
static inline double rk__clip_inv_norm(rk_quat q) {
  const double m = sqrt(rk_quat_dot(q, q));
  return m > 0.0 && isfinite(m) ? 1.0 / m : 0.0;
}

/* rk_clip_add_track for a producer that vouches for what it checks (joint and channel in range,
 * 1..RK_CLIP_MAX_KEYS times, finite, >= 0 and increasing, finite values, no zero rotation), without
 * the copies or the checks' pass over the keys: the clip takes track's times and values, and
 * inv_norms (a LINEAR rotation's per-key rk__clip_inv_norm; NULL: computed here; ignored and
 * freed for other tracks), all g_malloc'd. Builds without NDEBUG check anyway (g_assert). */
void rk__clip_adopt_track(rk_clip *clip, const rk_track *track, double *inv_norms);

/* Evaluates track ts at time t into v[components] (as rk_clip_sample does, before the channel is
 * applied: rotations are not normalised a last time). */
void rk__clip_eval_track(const rk__track_store *ts, double t, double *v);

#endif
