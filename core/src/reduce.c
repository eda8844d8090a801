/* Key reduction with a world-space bound, and frame-rate inference.
 *
 * The clip is baked at a fixed rate; every track then keeps a subset of the baked frames as LINEAR
 * keys. Keys are dropped greedily, one segment at a time: a segment from kept key a to candidate
 * key b replaces the frames in between by interpolation, and it is accepted only when, at each of
 * those frames, every joint of the track's subtree (plus virtual points on leaf joints) stays within
 * the threshold of its reference position, computed with the current (already reduced) state of
 * every other track. Each accepted change is checked against the whole current clip, so the bound
 * holds for the final clip at every baked frame, not only at the kept keys. The threshold grows
 * over a few rounds (tol/4, tol/2, tol) so that no track spends the whole error budget before the
 * others had a chance to drop their cheap keys. */
#include <rigkit/error.h>
#include <rigkit/fk.h>
#include <rigkit/reduce.h>

#include <string.h>

/* Working set limit (locals, reference positions) of one reduction. */
#define MAX_WORKING_BYTES ((size_t)1 << 30)
#define VIRTUAL_POINTS 3

double rk_clip_infer_fps(const rk_clip *clip) {
  if (!clip)
    return 0;
  if (rk_clip_fps(clip) > 0)
    return rk_clip_fps(clip);
  static const double rates[] = {24, 25, 30, 48, 50, 60, 100, 120};
  const size_t nt = rk_clip_track_count(clip);
  if (nt == 0)
    return 0;
  for (size_t r = 0; r < G_N_ELEMENTS(rates); r++) {
    bool fits = true;
    for (size_t i = 0; fits && i < nt; i++) {
      const rk_track *t = rk_clip_track(clip, i);
      for (size_t k = 0; fits && k < t->key_count; k++) {
        const double frames = t->times[k] * rates[r];
        fits = fabs(frames - nearbyint(frames)) <= 1e-4 * rates[r];
      }
    }
    if (fits)
      return rates[r];
  }
  return 0;
}

typedef struct reducer {
  const rk_skeleton *s;
  size_t n, frames;
  const double *times;     /* frames */
  rk_transform *cur;       /* [frame][joint] current locals */
  rk_vec3 *ref;            /* [frame][joint] reference positions */
  rk_vec3 *ref_virtual;    /* [frame][leaf][VIRTUAL_POINTS] */
  int *leaf_index;         /* joint -> leaf slot or -1 */
  size_t leaves;
  double *leaf_len;        /* joint -> virtual point distance */
  int *path;               /* scratch: ancestors of a joint, root first */
  rk_mat4 *models;         /* scratch: joint_count */
} reducer;

static rk_transform *cur_at(const reducer *r, size_t f) {
  return r->cur + f * r->n;
}

/* Value of track channel at frame f on the segment a..b (linear / slerp, as rk_clip_sample). */
static void segment_value(const rk_track *t, size_t a, size_t b, const double *times, size_t f,
                          rk_transform *x) {
  const double s = (times[f] - times[a]) / (times[b] - times[a]);
  if (t->channel == RK_CHANNEL_ROTATION) {
    const double *qa = t->values + 4 * a, *qb = t->values + 4 * b;
    rk_quat q = rk_quat_slerp(rk_quat_normalize(rk_quat_make(qa[0], qa[1], qa[2], qa[3])),
                              rk_quat_normalize(rk_quat_make(qb[0], qb[1], qb[2], qb[3])), s);
    x->r = rk_quat_normalize(q);
    return;
  }
  const double *va = t->values + 3 * a, *vb = t->values + 3 * b;
  rk_vec3 v = rk_vec3_make(va[0] + (vb[0] - va[0]) * s, va[1] + (vb[1] - va[1]) * s,
                           va[2] + (vb[2] - va[2]) * s);
  if (t->channel == RK_CHANNEL_TRANSLATION)
    x->t = v;
  else
    x->s = v;
}

static void set_channel(const rk_track *t, size_t key, rk_transform *x) {
  rk_channel_apply(t->channel, t->values + (size_t)rk_channel_components(t->channel) * key, x);
}

/* Largest error of joint j's subtree at frame f when joint j's local pose is `local` (the other
 * joints use their current locals). Stops early once the error exceeds `limit`. */
static double subtree_error(reducer *r, size_t f, size_t j, const rk_transform *local,
                            double limit) {
  const rk_transform *cur = cur_at(r, f);
  /* Ancestors, root first. */
  size_t depth = 0;
  for (int p = rk_skeleton_parent(r->s, j); p >= 0; p = rk_skeleton_parent(r->s, (size_t)p))
    r->path[depth++] = p;
  rk_mat4 parent = rk_mat4_identity(), m;
  while (depth > 0) {
    const int a = r->path[--depth];
    rk_transform_to_mat4_to(&cur[a], &m);
    rk_mat4 t;
    rk_mat4_mul_affine_to(&parent, &m, &t);
    parent = t;
  }
  const size_t end = rk_skeleton_subtree_end(r->s, j);
  const rk_vec3 *ref = r->ref + f * r->n;
  double worst = 0;
  for (size_t k = j; k < end; k++) {
    rk_transform_to_mat4_to(k == j ? local : &cur[k], &m);
    const int p = rk_skeleton_parent(r->s, k);
    const rk_mat4 *pm = k == j ? &parent : &r->models[p];
    rk_mat4_mul_affine_to(pm, &m, &r->models[k]);
    const rk_vec3 pos = rk_mat4_get_translation(&r->models[k]);
    worst = fmax(worst, rk_vec3_norm(rk_vec3_sub(pos, ref[k])));
    const int leaf = r->leaf_index[k];
    if (leaf >= 0) {
      const rk_vec3 *rv = r->ref_virtual + (f * r->leaves + (size_t)leaf) * VIRTUAL_POINTS;
      for (int a = 0; a < VIRTUAL_POINTS; a++) {
        rk_vec3 e = rk_vec3_make(a == 0, a == 1, a == 2);
        rk_vec3 v = rk_mat4_transform_point(&r->models[k], rk_vec3_scale(e, r->leaf_len[k]));
        worst = fmax(worst, rk_vec3_norm(rk_vec3_sub(v, rv[a])));
      }
    }
    if (worst > limit)
      return worst;
  }
  return worst;
}

/* True when replacing the frames strictly between keys a and b of track t by interpolation keeps
 * every error within limit. */
static bool segment_ok(reducer *r, const rk_track *t, size_t a, size_t b, double limit) {
  for (size_t f = a + 1; f < b; f++) {
    rk_transform local = cur_at(r, f)[t->joint];
    segment_value(t, a, b, r->times, f, &local);
    if (subtree_error(r, f, (size_t)t->joint, &local, limit) > limit)
      return false;
  }
  return true;
}

static void commit_segment(reducer *r, const rk_track *t, size_t a, size_t b) {
  for (size_t f = a + 1; f < b; f++)
    segment_value(t, a, b, r->times, f, &cur_at(r, f)[t->joint]);
}

/* One greedy pass over the kept keys of one track (kept: frame flags). From each kept key a, the
 * farthest key b whose segment a..b is within the limit is found by galloping (b = a+2, a+4,
 * a+8, ... kept keys ahead) and then bisecting, so long nearly-linear stretches cost O(L log L)
 * frame checks instead of O(L^2). The error need not grow monotonically with b, so the bisection
 * may stop short of the farthest valid key, but every segment it accepts has been verified. */
static void reduce_track(reducer *r, const rk_track *t, bool *kept, double limit) {
  g_autofree size_t *keys = g_new(size_t, r->frames);
  size_t m = 0;
  for (size_t f = 0; f < r->frames; f++)
    if (kept[f])
      keys[m++] = f;
  if (m < 3)
    return;
  size_t ia = 0;
  while (ia + 1 < m) {
    size_t ok = ia + 1, bad = m; /* keys[ok] verified reachable; keys[bad] not (m = past end) */
    for (size_t step = 2; ia + step < m; step *= 2) {
      if (segment_ok(r, t, keys[ia], keys[ia + step], limit)) {
        ok = ia + step;
      } else {
        bad = ia + step;
        break;
      }
    }
    if (bad == m && ok < m - 1) { /* galloping stopped at the end: try the last key too */
      if (segment_ok(r, t, keys[ia], keys[m - 1], limit))
        ok = m - 1;
      else
        bad = m - 1;
    }
    while (bad - ok > 1) {
      const size_t mid = ok + (bad - ok) / 2;
      if (segment_ok(r, t, keys[ia], keys[mid], limit))
        ok = mid;
      else
        bad = mid;
    }
    for (size_t k = ia + 1; k < ok; k++)
      kept[keys[k]] = false;
    commit_segment(r, t, keys[ia], keys[ok]);
    ia = ok;
  }
}

/* A track left with two keys of nearly equal value may hold one constant value instead. */
static bool try_constant(reducer *r, const rk_track *t, bool *kept, double limit) {
  size_t first = 0, last = 0, m = 0;
  for (size_t f = 0; f < r->frames; f++)
    if (kept[f]) {
      if (m++ == 0)
        first = f;
      last = f;
    }
  if (m != 2)
    return false;
  for (size_t f = 0; f < r->frames; f++) {
    rk_transform local = cur_at(r, f)[t->joint];
    set_channel(t, first, &local);
    if (subtree_error(r, f, (size_t)t->joint, &local, limit) > limit)
      return false;
  }
  for (size_t f = 0; f < r->frames; f++)
    set_channel(t, first, &cur_at(r, f)[t->joint]);
  kept[last] = false;
  return true;
}

static void compute_reference(reducer *r, const rk_clip *baked) {
  const rk_transform *rest = rk_skeleton_rest_locals(r->s);
  for (size_t f = 0; f < r->frames; f++) {
    rk_transform *loc = cur_at(r, f);
    rk_clip_sample(baked, rest, r->times[f], loc, r->n);
    rk_fk_models(r->s, loc, r->models);
    for (size_t j = 0; j < r->n; j++) {
      r->ref[f * r->n + j] = rk_mat4_get_translation(&r->models[j]);
      const int leaf = r->leaf_index[j];
      if (leaf < 0)
        continue;
      rk_vec3 *rv = r->ref_virtual + (f * r->leaves + (size_t)leaf) * VIRTUAL_POINTS;
      for (int a = 0; a < VIRTUAL_POINTS; a++) {
        rk_vec3 e = rk_vec3_make(a == 0, a == 1, a == 2);
        rv[a] = rk_mat4_transform_point(&r->models[j], rk_vec3_scale(e, r->leaf_len[j]));
      }
    }
  }
}

rk_clip *rk_clip_reduce(const rk_clip *clip, const rk_skeleton *s, double tol_m, double fps,
                        rk_reduce_stats *stats, GError **error) {
  g_return_val_if_fail(clip && s, NULL);
  const char *name = rk_clip_name(clip);
  const size_t n = rk_skeleton_joint_count(s);
  if (!isfinite(tol_m) || tol_m < 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "clip '%s': reduction tolerance %g m is not a "
                "finite non-negative number", name, tol_m);
    return NULL;
  }
  if (rk_clip_joint_count(clip) != n) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "clip '%s' animates %zu joints but the skeleton has %zu", name,
                rk_clip_joint_count(clip), n);
    return NULL;
  }
  if (!(fps > 0) || !isfinite(fps))
    fps = rk_clip_infer_fps(clip);
  if (!(fps > 0)) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "clip '%s': no frame rate to check the reduction at (its keys sit on no usual "
                "frame grid): give one", name);
    return NULL;
  }
  const rk_transform *rest = rk_skeleton_rest_locals(s);
  rk_clip *baked = rk_clip_bake(clip, rest, fps, error);
  if (!baked)
    return NULL;
  const size_t nt = rk_clip_track_count(baked);
  rk_reduce_stats st = {0};
  st.keys_input = rk_clip_key_count_total(clip);
  st.keys_baked = rk_clip_key_count_total(baked);
  st.fps = fps;
  st.max_error_joint = -1;
  if (nt == 0) {
    st.keys_output = 0;
    st.frames = rk_clip_frame_count(baked);
    if (stats)
      *stats = st;
    return baked;
  }
  reducer r = {0};
  r.s = s;
  r.n = n;
  r.frames = rk_clip_track(baked, 0)->key_count;
  r.times = rk_clip_track(baked, 0)->times;
  r.leaf_index = g_new(int, n);
  r.leaf_len = g_new0(double, n);
  const double height = rk_skeleton_rest_height(s);
  for (size_t j = 0; j < n; j++) {
    const bool leaf = rk_skeleton_subtree_end(s, j) == j + 1;
    r.leaf_index[j] = leaf ? (int)r.leaves++ : -1;
    if (leaf) {
      const double len = rk_vec3_norm(rest[j].t);
      r.leaf_len[j] = len > 1e-6 ? len : (height > 0 ? 0.05 * height : 0.05);
    }
  }
  const double bytes = (double)r.frames *
                       ((double)n * (sizeof(rk_transform) + sizeof(rk_vec3)) +
                        (double)r.leaves * VIRTUAL_POINTS * sizeof(rk_vec3));
  if (bytes > (double)MAX_WORKING_BYTES) {
    g_set_error(error, RK_ERROR, RK_ERROR_LIMIT,
                "clip '%s': reducing %zu frames of %zu joints needs %.0f MiB (limit %zu MiB)", name,
                r.frames, n, bytes / 1048576.0, MAX_WORKING_BYTES >> 20);
    g_free(r.leaf_index);
    g_free(r.leaf_len);
    rk_clip_free(baked);
    return NULL;
  }
  r.cur = g_new(rk_transform, r.frames * n);
  r.ref = g_new(rk_vec3, r.frames * n);
  r.ref_virtual = g_new(rk_vec3, r.frames * (r.leaves ? r.leaves : 1) * VIRTUAL_POINTS);
  r.path = g_new(int, n);
  r.models = g_new(rk_mat4, n);
  compute_reference(&r, baked);

  bool *kept = g_new(bool, nt * r.frames);
  for (size_t i = 0; i < nt * r.frames; i++)
    kept[i] = true;
  /* 1 pm of slack absorbs rounding, so a zero tolerance still drops exactly redundant keys. */
  static const double rounds[] = {0.25, 0.5, 1.0};
  for (size_t round = 0; round < G_N_ELEMENTS(rounds); round++)
    for (size_t i = 0; i < nt; i++)
      reduce_track(&r, rk_clip_track(baked, i), kept + i * r.frames,
                   tol_m * rounds[round] + RK_REDUCE_SLACK_M);
  for (size_t i = 0; i < nt; i++)
    try_constant(&r, rk_clip_track(baked, i), kept + i * r.frames, tol_m + RK_REDUCE_SLACK_M);

  rk_clip *out = rk_clip_new(name, n);
  rk_clip_set_fps(out, fps);
  double *times = g_new(double, r.frames);
  double *values = g_new(double, r.frames * 4);
  bool ok = true;
  for (size_t i = 0; i < nt && ok; i++) {
    const rk_track *t = rk_clip_track(baked, i);
    const size_t nc = (size_t)rk_channel_components(t->channel);
    size_t m = 0;
    for (size_t f = 0; f < r.frames; f++)
      if (kept[i * r.frames + f]) {
        times[m] = t->times[f];
        memcpy(values + m * nc, t->values + f * nc, nc * sizeof(double));
        m++;
      }
    rk_track rt = {t->joint, t->channel, RK_INTERP_LINEAR, m, times, values};
    ok = rk_clip_add_track(out, &rt, error);
  }
  rk_clip_set_duration(out, rk_clip_duration(baked));
  g_free(times);
  g_free(values);
  g_free(kept);

  if (ok) {
    /* Measure what the written clip actually does (the same sampling a consumer uses). */
    st.frames = r.frames;
    st.keys_output = rk_clip_key_count_total(out);
    for (size_t f = 0; f < r.frames; f++) {
      rk_transform *loc = cur_at(&r, f);
      rk_clip_sample(out, rest, r.times[f], loc, n);
      rk_fk_models(s, loc, r.models);
      for (size_t j = 0; j < n; j++) {
        double e = rk_vec3_norm(rk_vec3_sub(rk_mat4_get_translation(&r.models[j]),
                                            r.ref[f * n + j]));
        if (e > st.max_error_m) {
          st.max_error_m = e;
          st.max_error_joint = (int)j;
          st.max_error_frame = f;
        }
      }
    }
    if (stats)
      *stats = st;
  } else {
    rk_clip_free(out);
    out = NULL;
  }
  g_free(r.cur);
  g_free(r.ref);
  g_free(r.ref_virtual);
  g_free(r.path);
  g_free(r.models);
  g_free(r.leaf_index);
  g_free(r.leaf_len);
  rk_clip_free(baked);
  return out;
}

/* 74000 -> "74,000" */
static void append_count(GString *out, size_t v) {
  char digits[32];
  const int len = g_snprintf(digits, sizeof digits, "%zu", v);
  for (int i = 0; i < len; i++) {
    if (i > 0 && (len - i) % 3 == 0)
      g_string_append_c(out, ',');
    g_string_append_c(out, digits[i]);
  }
}

char *rk_reduce_stats_summary(const rk_reduce_stats *st, double tol_m, const rk_skeleton *skeleton) {
  GString *out = g_string_new("keys ");
  append_count(out, st->keys_baked);
  g_string_append(out, " -> ");
  append_count(out, st->keys_output);
  /* 0.001 -> "1 mm", 0.0005 -> "0.5 mm", 0.02 -> "2 cm" */
  if (tol_m >= 0.01 && fmod(tol_m * 100, 1.0) == 0)
    g_string_append_printf(out, " at %g cm", tol_m * 100);
  else
    g_string_append_printf(out, " at %g mm", tol_m * 1000);
  g_string_append_printf(out, " (checked at %zu frames at %g fps", st->frames, st->fps);
  if (st->keys_baked != st->keys_input) {
    g_string_append(out, ", ");
    append_count(out, st->keys_input);
    g_string_append(out, " keys given");
  }
  g_string_append_printf(out, "; largest error %.3f mm", st->max_error_m * 1e3);
  if (st->max_error_joint >= 0) {
    if (skeleton && (size_t)st->max_error_joint < rk_skeleton_joint_count(skeleton))
      g_string_append_printf(out, " at joint '%s'",
                             rk_skeleton_joint_name(skeleton, (size_t)st->max_error_joint));
    else
      g_string_append_printf(out, " at joint %d", st->max_error_joint);
    g_string_append_printf(out, ", frame %zu", st->max_error_frame);
  }
  g_string_append_c(out, ')');
  return g_string_free(out, FALSE);
}
