/* Sampling clips: channel values (their sizes, applying one to a pose), key lookup (from the
 * track's key rate, a binary search, or a caller's cursor), interpolation of one track, and the
 * sampling of a whole pose, which blends LINEAR rotation tracks four at a time in vectors (the
 * same operations as rk_quat_slerp, lane by lane), or of the few joints a caller reads. */
#include "clip_internal.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

int rk_channel_components(rk_channel channel) {
  return channel == RK_CHANNEL_ROTATION ? 4 : 3;
}

void rk_channel_apply(rk_channel channel, const double *v, rk_transform *x) {
  switch (channel) {
  case RK_CHANNEL_TRANSLATION:
    x->t = rk_vec3_make(v[0], v[1], v[2]);
    break;
  case RK_CHANNEL_ROTATION:
    x->r = rk_quat_normalize(rk_quat_make(v[0], v[1], v[2], v[3]));
    break;
  case RK_CHANNEL_SCALE:
    x->s = rk_vec3_make(v[0], v[1], v[2]);
    break;
  }
}

/* Index k of the last key with times[k] <= t, for times[0] < t < times[n - 1]: first where the
 * track's key rate puts it and its neighbours (one or two loads where a binary search over a
 * long clip takes a dozen dependent ones, most of them cache misses), else by binary search. */
static size_t find_key(const rk__track_store *ts, double t) {
  const double *times = ts->times;
  const size_t n = ts->view.key_count;
  /* t > times[0] = t0: g > 0, and truncation is floor (without SSE4.1, floor is a call). */
  const double g = (t - ts->t0) * ts->keys_per_second;
  if (g < (double)(n - 1)) {
    const size_t k = (size_t)g;
    if (times[k] <= t && t < times[k + 1])
      return k;
    if (k + 2 < n && times[k + 1] <= t && t < times[k + 2])
      return k + 1;
    if (k > 0 && times[k - 1] <= t && t < times[k])
      return k - 1;
  }
  size_t lo = 0, hi = n;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (times[mid] <= t)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* Steps a cursor may move forward before the lookup falls back to find_key: playback moves one
 * or two keys per call (60 Hz over 120 fps keys), a jump or a loop back searches. */
#define CURSOR_STEPS 4

/* find_key's answer, starting from *key (where the last sample of this track fell) and stepping
 * forward, which is where sequential times find it; *key is updated. Same preconditions. */
static size_t cursor_key(const rk__track_store *ts, double t, uint32_t *key) {
  const double *times = ts->times;
  const size_t n = ts->view.key_count;
  size_t k = *key;
  if (k + 1 < n && times[k] <= t) {
    for (int step = 0; step < CURSOR_STEPS; step++, k++)
      if (t < times[k + 1]) {
        *key = (uint32_t)k;
        return k;
      }
  }
  k = find_key(ts, t);
  *key = (uint32_t)k;
  return k;
}

/* True when t lies strictly inside the track's keys (there is an interval to interpolate in). */
static bool inside(const rk__track_store *ts, double t) {
  const size_t n = ts->view.key_count;
  return n > 1 && t > ts->times[0] && t < ts->times[n - 1];
}

/* Evaluates track ts at time t inside its keys, in the interval starting at key k. */
static void eval_interval(const rk__track_store *ts, size_t k, double t, double *v) {
  const rk_track *tr = &ts->view;
  const int nc = rk_channel_components(tr->channel);
  const bool cubic = tr->interp == RK_INTERP_CUBIC;
  const size_t stride = (size_t)nc * (cubic ? 3 : 1), off = cubic ? (size_t)nc : 0;
  const double t0 = tr->times[k], t1 = tr->times[k + 1], dt = t1 - t0, s = (t - t0) / dt;
  const double *a = tr->values + k * stride, *b = tr->values + (k + 1) * stride;
  if (s == 0.0 && tr->interp != RK_INTERP_STEP) {
    /* On key k, as when a clip is sampled at its own rate: every interpolation below gives key k
     * itself (slerp at 0 is normalise(normalise(a)): its weights are exactly 1 and 0; the same
     * bits on 10^6 random pairs), without the slerp's acos and sines. */
    memcpy(v, a + off, (size_t)nc * sizeof(double));
    if (nc == 4 && tr->interp == RK_INTERP_LINEAR) {
      const rk_quat q = rk_quat_normalize(rk_quat_normalize(rk_quat_make(v[0], v[1], v[2], v[3])));
      v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
    }
    return;
  }
  switch (tr->interp) {
  case RK_INTERP_STEP:
    memcpy(v, a, (size_t)nc * sizeof(double));
    return;
  case RK_INTERP_LINEAR:
    if (nc == 4) {
      rk_quat q = rk_quat_slerp(rk_quat_normalize(rk_quat_make(a[0], a[1], a[2], a[3])),
                                rk_quat_normalize(rk_quat_make(b[0], b[1], b[2], b[3])), s);
      v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
    } else {
      for (int c = 0; c < nc; c++)
        v[c] = a[c] + (b[c] - a[c]) * s;
    }
    return;
  case RK_INTERP_CUBIC: {
    /* glTF: p = h00 v_k + h10 dt b_k + h01 v_k+1 + h11 dt a_k+1, with b_k the out-tangent of key
     * k (stored third) and a_k+1 the in-tangent of key k+1 (stored first). */
    const double s2 = s * s, s3 = s2 * s;
    const double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2,
                 h11 = s3 - s2;
    for (int c = 0; c < nc; c++)
      v[c] = h00 * a[nc + c] + h10 * dt * a[2 * nc + c] + h01 * b[nc + c] + h11 * dt * b[c];
    return;
  }
  }
}

void rk__clip_eval_track(const rk__track_store *ts, double t, double *v) {
  const rk_track *tr = &ts->view;
  const int nc = rk_channel_components(tr->channel);
  const size_t n = tr->key_count;
  const bool cubic = tr->interp == RK_INTERP_CUBIC;
  const size_t stride = (size_t)nc * (cubic ? 3 : 1), off = cubic ? (size_t)nc : 0;
  if (n == 1 || t <= tr->times[0]) {
    memcpy(v, tr->values + off, (size_t)nc * sizeof(double));
    return;
  }
  if (t >= tr->times[n - 1]) {
    memcpy(v, tr->values + (n - 1) * stride + off, (size_t)nc * sizeof(double));
    return;
  }
  eval_interval(ts, find_key(ts, t), t, v);
}

/* One lane of the rotation kernel: a LINEAR rotation track inside its keys at key k, sampled into
 * *out. */
typedef struct rot_lane {
  const rk__track_store *ts;
  size_t k;
  rk_transform *out;
} rot_lane;

/* The lane the scalar way: eval_interval, then rk_channel_apply. */
static void slerp_scalar(const rot_lane *l, double t) {
  double v[4];
  eval_interval(l->ts, l->k, t, v);
  rk_channel_apply(RK_CHANNEL_ROTATION, v, l->out);
}

#if defined(__SSE2__)
/* Two lanes at once in SSE2 registers (one double per lane), straight-line intrinsics: GCC splits
 * generic vectors' compares and selects into scalar code without SSE4.1, and keeps arrays of
 * vectors in memory. This file is compiled for baseline x86-64 (no FMA contraction), so each
 * lane performs exactly the rounding steps of the scalar path, bit for bit. */

/* The norms of both lanes of (x, y, z, w), as rk_quat_normalize computes them. */
#define NORM2(x, y, z, w)                                                                          \
  _mm_sqrt_pd(_mm_add_pd(                                                                          \
      _mm_add_pd(_mm_add_pd(_mm_mul_pd(x, x), _mm_mul_pd(y, y)), _mm_mul_pd(z, z)),                \
      _mm_mul_pd(w, w)))
/* (x, y, z, w) divided by their norms n, as rk_quat_normalize does for a finite, non-zero norm. */
#define SCALE2(x, y, z, w, n)                                                                      \
  do {                                                                                             \
    const __m128d s_ = _mm_div_pd(_mm_set1_pd(1.0), n);                                            \
    x = _mm_mul_pd(x, s_), y = _mm_mul_pd(y, s_), z = _mm_mul_pd(z, s_), w = _mm_mul_pd(w, s_);    \
  } while (0)
/* Normalises both lanes of r twice, as rk_channel_apply normalises the value eval_interval gives,
 * into the lanes' output rotations. r is a unit key, or a blend of unit keys on one hemisphere
 * with weights wa, wb >= 0 (summing to 1, or slerp's): |r|^2 >= wa^2 + wb^2 >= 1/2, so both
 * normalisations divide by a finite, non-zero norm. */
static inline __attribute__((always_inline)) void normalise_store(const rot_lane *l0,
                                                                  const rot_lane *l1, __m128d rx,
                                                                  __m128d ry, __m128d rz,
                                                                  __m128d rw) {
  __m128d nr = NORM2(rx, ry, rz, rw);
  SCALE2(rx, ry, rz, rw, nr);
  nr = NORM2(rx, ry, rz, rw);
  SCALE2(rx, ry, rz, rw, nr);
  double *q0 = &l0->out->r.x, *q1 = &l1->out->r.x;
  _mm_storel_pd(q0, rx), _mm_storel_pd(q0 + 1, ry), _mm_storel_pd(q0 + 2, rz);
  _mm_storel_pd(q0 + 3, rw);
  _mm_storeh_pd(q1, rx), _mm_storeh_pd(q1 + 1, ry), _mm_storeh_pd(q1 + 2, rz);
  _mm_storeh_pd(q1 + 3, rw);
}

/* The LINEAR rotation of lanes l0 and l1 (l1 may repeat l0) at time t, as eval_interval then
 * rk_channel_apply give it: slerp(normalise(a), normalise(b)) (a normalised blend for keys
 * closer than rk_quat_slerp's threshold, its sines otherwise), normalised again. The keys are
 * normalised with their stored inverse norms; keys whose squares overflow take the scalar path
 * (rk_quat_normalize's identity). */
static inline __attribute__((always_inline)) void slerp_pair(const rot_lane *l0,
                                                             const rot_lane *l1, double t) {
  const double *a0 = l0->ts->values + 4 * l0->k, *a1 = l1->ts->values + 4 * l1->k;
  const double *t0 = l0->ts->times + l0->k, *t1 = l1->ts->times + l1->k;
  __m128d ax = _mm_setr_pd(a0[0], a1[0]), ay = _mm_setr_pd(a0[1], a1[1]);
  __m128d az = _mm_setr_pd(a0[2], a1[2]), aw = _mm_setr_pd(a0[3], a1[3]);
  __m128d bx = _mm_setr_pd(a0[4], a1[4]), by = _mm_setr_pd(a0[5], a1[5]);
  __m128d bz = _mm_setr_pd(a0[6], a1[6]), bw = _mm_setr_pd(a0[7], a1[7]);
  const __m128d k0 = _mm_setr_pd(t0[0], t1[0]);
  const __m128d s = _mm_div_pd(_mm_sub_pd(_mm_set1_pd(t), k0),
                               _mm_sub_pd(_mm_setr_pd(t0[1], t1[1]), k0));
  const double *i0 = l0->ts->inv_norms + l0->k, *i1 = l1->ts->inv_norms + l1->k;
  const __m128d ia = _mm_setr_pd(i0[0], i1[0]), ib = _mm_setr_pd(i0[1], i1[1]);
  const __m128d zero = _mm_setzero_pd();
  if (_mm_movemask_pd(_mm_or_pd(_mm_cmpeq_pd(ia, zero), _mm_cmpeq_pd(ib, zero)))) {
    slerp_scalar(l0, t); /* a key whose norm overflows: rk_quat_normalize's identity */
    slerp_scalar(l1, t);
    return;
  }
  ax = _mm_mul_pd(ax, ia), ay = _mm_mul_pd(ay, ia), az = _mm_mul_pd(az, ia), aw = _mm_mul_pd(aw, ia);
  /* On a key (s == 0) the value is normalise(normalise(a)): a itself, not the blend (whose
   * a + 0 b would turn a -0 into +0). Both lanes on keys (a clip sampled at its own rate) skip the
   * blend and its weights, which the selection below would discard. */
  const __m128d key = _mm_cmpeq_pd(s, zero);
  if (_mm_movemask_pd(key) == 3) {
    normalise_store(l0, l1, ax, ay, az, aw);
    return;
  }
  bx = _mm_mul_pd(bx, ib), by = _mm_mul_pd(by, ib), bz = _mm_mul_pd(bz, ib), bw = _mm_mul_pd(bw, ib);
  __m128d d = _mm_add_pd(_mm_add_pd(_mm_add_pd(_mm_mul_pd(ax, bx), _mm_mul_pd(ay, by)),
                                    _mm_mul_pd(az, bz)),
                         _mm_mul_pd(aw, bw));
  /* d < 0: the other hemisphere, b and d negated (their sign bits flipped). */
  const __m128d flip = _mm_and_pd(_mm_cmplt_pd(d, zero), _mm_set1_pd(-0.0));
  d = _mm_xor_pd(d, flip);
  bx = _mm_xor_pd(bx, flip), by = _mm_xor_pd(by, flip);
  bz = _mm_xor_pd(bz, flip), bw = _mm_xor_pd(bw, flip);
  __m128d wa = _mm_sub_pd(_mm_set1_pd(1.0), s), wb = s;
  if (_mm_movemask_pd(_mm_cmpgt_pd(d, _mm_set1_pd(0.9995))) != 3) {
    double dl[2], sl[2], wal[2], wbl[2];
    _mm_storeu_pd(dl, d);
    _mm_storeu_pd(sl, s);
    _mm_storeu_pd(wal, wa);
    _mm_storeu_pd(wbl, wb);
    for (int l = 0; l < 2; l++)
      if (!(dl[l] > 0.9995) && sl[l] != 0.0) { /* rk_quat_slerp's far branch, off a key */
        const double th = acos(dl[l]), sn = sin(th);
        wal[l] = sin((1.0 - sl[l]) * th) / sn;
        wbl[l] = sin(sl[l] * th) / sn;
      }
    wa = _mm_loadu_pd(wal);
    wb = _mm_loadu_pd(wbl);
  }
#define BLEND(ac, bc) \
  _mm_or_pd(_mm_and_pd(key, ac), _mm_andnot_pd(key, _mm_add_pd(_mm_mul_pd(wa, ac), _mm_mul_pd(wb, bc))))
  normalise_store(l0, l1, BLEND(ax, bx), BLEND(ay, by), BLEND(az, bz), BLEND(aw, bw));
#undef BLEND
}
#undef NORM2
#undef SCALE2

/* Four lanes (the last ones may repeat), as two pairs. */
static void slerp_lanes(const rot_lane *lane, double t) {
  slerp_pair(&lane[0], &lane[1], t);
  slerp_pair(&lane[2], &lane[3], t);
}
#else
static void slerp_lanes(const rot_lane *lane, double t) {
  for (int l = 0; l < 4; l++)
    slerp_scalar(&lane[l], t);
}
#endif

/* LINEAR rotation lanes waiting to be blended four at a time. */
typedef struct lane_batch {
  rot_lane lane[4];
  int n;
} lane_batch;

/* How many keys ahead of a cursor's key sample_track prefetches. */
#define CURSOR_AHEAD 16

/* Samples track i (ts) at time t into its joint's channel of out, or queues it in b; keys (one
 * per track) is a cursor, or NULL to look every key up. */
static inline __attribute__((always_inline)) void sample_track(const rk__track_store *ts, size_t i,
                                                               double t, uint32_t *keys,
                                                               rk_transform *out, lane_batch *b) {
  const rk_track *tr = &ts->view;
  double v[4];
  if (!inside(ts, t)) {
    rk__clip_eval_track(ts, t, v);
    rk_channel_apply(tr->channel, v, &out[tr->joint]);
    return;
  }
  const size_t k = keys ? cursor_key(ts, t, &keys[i]) : find_key(ts, t);
  /* A cursor plays forward: the keys a few samples ahead are asked for from memory now (a long
   * clip's tracks are many streams the hardware does not fetch ahead by itself). */
  if (keys && k + CURSOR_AHEAD < tr->key_count) {
    __builtin_prefetch(ts->times + k + CURSOR_AHEAD);
    __builtin_prefetch(ts->values + (k + CURSOR_AHEAD) * (size_t)rk_channel_components(tr->channel));
    if (ts->inv_norms)
      __builtin_prefetch(ts->inv_norms + k + CURSOR_AHEAD);
  }
  if (tr->channel == RK_CHANNEL_ROTATION && tr->interp == RK_INTERP_LINEAR) {
    b->lane[b->n++] = (rot_lane){ts, k, &out[tr->joint]};
    if (b->n == 4) {
      slerp_lanes(b->lane, t);
      b->n = 0;
    }
    return;
  }
  eval_interval(ts, k, t, v);
  rk_channel_apply(tr->channel, v, &out[tr->joint]);
}

/* Blends the lanes left in b (the last one repeated into the empty ones). */
static void flush_lanes(lane_batch *b, double t) {
  if (!b->n)
    return;
  for (int l = b->n; l < 4; l++)
    b->lane[l] = b->lane[0];
  slerp_lanes(b->lane, t);
  b->n = 0;
}

/* rk_clip_sample's body; keys (one per track) is a cursor, or NULL to look every key up. */
static void sample_tracks(const rk_clip *clip, const rk_transform *rest, double t,
                          uint32_t *keys, rk_transform *out) {
  memcpy(out, rest, clip->joint_count * sizeof(rk_transform));
  lane_batch b = {.n = 0};
  const rk__track_store *all = (const rk__track_store *)(const void *)clip->tracks->data;
  for (guint i = 0; i < clip->tracks->len; i++)
    sample_track(&all[i], i, t, keys, out, &b);
  flush_lanes(&b, t);
}

/* t clamped to [0, duration] (NaN to 0). */
static double clamp_time(const rk_clip *clip, double t) {
  if (!(t >= 0))
    t = 0;
  return t > clip->duration ? clip->duration : t;
}

bool rk_clip_sample(const rk_clip *clip, const rk_transform *rest, double t, rk_transform *out,
                    size_t count) {
  if (!clip || !rest || !out || count != clip->joint_count)
    return false;
  sample_tracks(clip, rest, clamp_time(clip, t), NULL, out);
  return true;
}

bool rk_clip_sample_frame(const rk_clip *clip, const rk_transform *rest, double fps, size_t frame,
                          rk_transform *out, size_t count) {
  if (!(fps > 0))
    return false;
  return rk_clip_sample(clip, rest, (double)frame / fps, out, count);
}

void rk_clip_cursor_reset(rk_clip_cursor *cursor) {
  if (cursor && cursor->keys)
    memset(cursor->keys, 0, cursor->keys_count * sizeof cursor->keys[0]);
}

bool rk_clip_sample_cursor(const rk_clip *clip, const rk_transform *rest, double t,
                           rk_clip_cursor *cursor, rk_transform *out, size_t count) {
  if (!clip || !rest || !out || count != clip->joint_count || !cursor || !cursor->keys ||
      cursor->keys_count < clip->tracks->len)
    return false;
  sample_tracks(clip, rest, clamp_time(clip, t), cursor->keys, out);
  return true;
}

bool rk_clip_sample_joints(const rk_clip *clip, double t, const int *joints, size_t n,
                           rk_clip_cursor *cursor, rk_transform *out, size_t count) {
  if (!clip || !out || count != clip->joint_count || (n && !joints) ||
      (cursor && (!cursor->keys || cursor->keys_count < clip->tracks->len)))
    return false;
  for (size_t u = 0; u < n; u++)
    if (joints[u] < 0 || (size_t)joints[u] >= count)
      return false;
  if (!clip->slots)
    return true; /* no tracks */
  t = clamp_time(clip, t);
  uint32_t *keys = cursor ? cursor->keys : NULL;
  lane_batch b = {.n = 0};
  const rk__track_store *all = (const rk__track_store *)(const void *)clip->tracks->data;
  for (size_t u = 0; u < n; u++)
    for (size_t ch = 0; ch < 3; ch++) {
      const int i = clip->slots[(size_t)joints[u] * 3 + ch];
      if (i >= 0)
        sample_track(&all[i], (size_t)i, t, keys, out, &b);
    }
  flush_lanes(&b, t);
  return true;
}
