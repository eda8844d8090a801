/* Animation clips: tracks of keys, sampling and fixed-rate baking. */
#include <rigkit/clip.h>
#include <rigkit/error.h>

#include <string.h>

typedef struct track_store {
  rk_track view; /* times/values point into the arrays below */
  double *times;
  double *values;
  double t0, keys_per_second; /* first key time and (keys - 1) / span: where to look for a key
                                 first (exact for a uniform grid, as BVH and baked clips have) */
} track_store;

/* Fills s's key-lookup guess from its times. */
static void track_store_index(track_store *s) {
  const size_t n = s->view.key_count;
  const double span = n > 1 ? s->times[n - 1] - s->times[0] : 0.0;
  s->t0 = s->times[0];
  s->keys_per_second = span > 0 ? (double)(n - 1) / span : 0.0;
}

struct rk_clip {
  char *name;
  size_t joint_count;
  double duration;
  double fps;
  GArray *tracks; /* track_store */
  int *slots;     /* track index per (joint, channel): joint_count * 3, -1 = none; NULL until
                     the first track (rk_clip_add_track stays O(1) for 65535-joint clips) */
};

int rk_channel_components(rk_channel channel) {
  return channel == RK_CHANNEL_ROTATION ? 4 : 3;
}

const char *rk_channel_name(rk_channel channel) {
  switch (channel) {
  case RK_CHANNEL_TRANSLATION:
    return "translation";
  case RK_CHANNEL_ROTATION:
    return "rotation";
  case RK_CHANNEL_SCALE:
    return "scale";
  }
  return "?";
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

const char *rk_interp_name(rk_interp interp) {
  switch (interp) {
  case RK_INTERP_STEP:
    return "STEP";
  case RK_INTERP_LINEAR:
    return "LINEAR";
  case RK_INTERP_CUBIC:
    return "CUBICSPLINE";
  }
  return "?";
}

static void track_store_clear(gpointer p) {
  track_store *t = p;
  g_free(t->times);
  g_free(t->values);
}

rk_clip *rk_clip_new(const char *name, size_t joint_count) {
  rk_clip *c = g_new0(rk_clip, 1);
  c->name = g_strdup(name ? name : "");
  c->joint_count = joint_count;
  c->tracks = g_array_new(FALSE, TRUE, sizeof(track_store));
  g_array_set_clear_func(c->tracks, track_store_clear);
  return c;
}

void rk_clip_free(rk_clip *clip) {
  if (!clip)
    return;
  g_array_unref(clip->tracks);
  g_free(clip->slots);
  g_free(clip->name);
  g_free(clip);
}

static size_t values_per_key(const rk_track *t) {
  return (size_t)rk_channel_components(t->channel) * (t->interp == RK_INTERP_CUBIC ? 3 : 1);
}

static bool check_track(const rk_clip *clip, const rk_track *t, GError **error) {
  if (t->joint < 0 || (size_t)t->joint >= clip->joint_count) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "clip '%s': track for joint %d, but the skeleton has %zu joints", clip->name,
                t->joint, clip->joint_count);
    return false;
  }
  if ((unsigned)t->channel > RK_CHANNEL_SCALE || (unsigned)t->interp > RK_INTERP_CUBIC) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "clip '%s': joint %d: bad channel or interpolation",
                clip->name, t->joint);
    return false;
  }
  if (t->key_count == 0 || !t->times || !t->values) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "clip '%s': joint %d %s track has no keys",
                clip->name, t->joint, rk_channel_name(t->channel));
    return false;
  }
  if (t->key_count > RK_CLIP_MAX_KEYS) {
    g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "clip '%s': joint %d %s track has %zu keys (limit %u)",
                clip->name, t->joint, rk_channel_name(t->channel), t->key_count, RK_CLIP_MAX_KEYS);
    return false;
  }
  for (size_t k = 0; k < t->key_count; k++) {
    double tk = t->times[k];
    if (!isfinite(tk) || tk < 0 || (k > 0 && !(tk > t->times[k - 1]))) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                  "clip '%s': joint %d %s key %zu: time %g is not finite, negative or not increasing",
                  clip->name, t->joint, rk_channel_name(t->channel), k, tk);
      return false;
    }
    if (tk > RK_CLIP_MAX_DURATION) {
      g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "clip '%s': key time %g s beyond the limit of %g s",
                  clip->name, tk, RK_CLIP_MAX_DURATION);
      return false;
    }
  }
  const size_t vpk = values_per_key(t), nc = (size_t)rk_channel_components(t->channel);
  for (size_t k = 0; k < t->key_count; k++) {
    const double *v = t->values + k * vpk;
    for (size_t c = 0; c < vpk; c++)
      if (!isfinite(v[c])) {
        g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                    "clip '%s': joint %d %s key %zu (t=%g s) has a non-finite value", clip->name,
                    t->joint, rk_channel_name(t->channel), k, t->times[k]);
        return false;
      }
    if (t->channel == RK_CHANNEL_ROTATION) {
      const double *q = v + (t->interp == RK_INTERP_CUBIC ? nc : 0);
      if (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] < 1e-12) {
        g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                    "clip '%s': joint %d rotation key %zu (t=%g s) is a zero quaternion",
                    clip->name, t->joint, k, t->times[k]);
        return false;
      }
    }
  }
  return true;
}

bool rk_clip_add_track(rk_clip *clip, const rk_track *track, GError **error) {
  g_return_val_if_fail(clip && track, false);
  if (!check_track(clip, track, error))
    return false;
  track_store s;
  s.view = *track;
  s.times = g_memdup2(track->times, track->key_count * sizeof(double));
  s.values = g_memdup2(track->values, track->key_count * values_per_key(track) * sizeof(double));
  s.view.times = s.times;
  s.view.values = s.values;
  track_store_index(&s);
  if (!clip->slots) {
    clip->slots = g_new(int, clip->joint_count * 3);
    for (size_t i = 0; i < clip->joint_count * 3; i++)
      clip->slots[i] = -1;
  }
  int *slot = &clip->slots[(size_t)track->joint * 3 + (size_t)track->channel];
  if (*slot >= 0) {
    track_store *old = &g_array_index(clip->tracks, track_store, *slot);
    track_store_clear(old);
    *old = s;
  } else {
    g_array_append_val(clip->tracks, s);
    *slot = (int)clip->tracks->len - 1;
  }
  double last = track->times[track->key_count - 1];
  if (last > clip->duration)
    clip->duration = last;
  return true;
}

rk_clip *rk_clip_copy(const rk_clip *clip) {
  rk_clip *c = rk_clip_new(clip->name, clip->joint_count);
  c->duration = clip->duration;
  c->fps = clip->fps;
  for (guint i = 0; i < clip->tracks->len; i++) {
    const track_store *src = &g_array_index(clip->tracks, track_store, i);
    track_store s;
    s.view = src->view;
    s.times = g_memdup2(src->times, src->view.key_count * sizeof(double));
    s.values = g_memdup2(src->values, src->view.key_count * values_per_key(&src->view) * sizeof(double));
    s.view.times = s.times;
    s.view.values = s.values;
    track_store_index(&s);
    g_array_append_val(c->tracks, s);
  }
  if (clip->slots)
    c->slots = g_memdup2(clip->slots, clip->joint_count * 3 * sizeof(int));
  return c;
}

const char *rk_clip_name(const rk_clip *clip) {
  return clip->name;
}

void rk_clip_set_name(rk_clip *clip, const char *name) {
  char *n = g_strdup(name ? name : "");
  g_free(clip->name);
  clip->name = n;
}

double rk_clip_duration(const rk_clip *clip) {
  return clip->duration;
}

void rk_clip_set_duration(rk_clip *clip, double seconds) {
  double last = 0;
  for (guint i = 0; i < clip->tracks->len; i++) {
    const rk_track *t = &g_array_index(clip->tracks, track_store, i).view;
    last = fmax(last, t->times[t->key_count - 1]);
  }
  clip->duration = isfinite(seconds) ? fmax(seconds, last) : last;
}

double rk_clip_fps(const rk_clip *clip) {
  return clip->fps;
}

void rk_clip_set_fps(rk_clip *clip, double fps) {
  clip->fps = isfinite(fps) && fps > 0 ? fps : 0.0;
}

size_t rk_clip_frame_count(const rk_clip *clip) {
  if (clip->fps <= 0)
    return 1;
  return (size_t)llround(clip->duration * clip->fps) + 1;
}

size_t rk_clip_joint_count(const rk_clip *clip) {
  return clip->joint_count;
}

size_t rk_clip_track_count(const rk_clip *clip) {
  return clip->tracks->len;
}

const rk_track *rk_clip_track(const rk_clip *clip, size_t i) {
  g_return_val_if_fail(clip && i < clip->tracks->len, NULL);
  return &g_array_index(clip->tracks, track_store, i).view;
}

int rk_clip_find_track(const rk_clip *clip, int joint, rk_channel channel) {
  if (!clip->slots || joint < 0 || (size_t)joint >= clip->joint_count ||
      (unsigned)channel > RK_CHANNEL_SCALE)
    return -1;
  return clip->slots[(size_t)joint * 3 + (size_t)channel];
}

size_t rk_clip_key_count_total(const rk_clip *clip) {
  size_t n = 0;
  for (guint i = 0; i < clip->tracks->len; i++)
    n += g_array_index(clip->tracks, track_store, i).view.key_count;
  return n;
}

/* Index k of the last key with times[k] <= t, for times[0] < t < times[n - 1]: first where the
 * track's key rate puts it and its neighbours (one or two loads where a binary search over a
 * long clip takes a dozen dependent ones, most of them cache misses), else by binary search. */
static size_t find_key(const track_store *ts, double t) {
  const double *times = ts->times;
  const size_t n = ts->view.key_count;
  const double g = floor((t - ts->t0) * ts->keys_per_second);
  if (g >= 0 && g <= (double)(n - 2)) {
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

/* Evaluates a track at time t into v[components]. */
static void eval_track(const track_store *ts, double t, double *v) {
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
  size_t k = find_key(ts, t);
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

bool rk_clip_sample(const rk_clip *clip, const rk_transform *rest, double t, rk_transform *out,
                    size_t count) {
  if (!clip || !rest || !out || count != clip->joint_count)
    return false;
  if (!(t >= 0))
    t = 0;
  if (t > clip->duration)
    t = clip->duration;
  memcpy(out, rest, count * sizeof(rk_transform));
  for (guint i = 0; i < clip->tracks->len; i++) {
    const track_store *ts = &g_array_index(clip->tracks, track_store, i);
    const rk_track *tr = &ts->view;
    double v[4];
    eval_track(ts, t, v);
    rk_channel_apply(tr->channel, v, &out[tr->joint]);
  }
  return true;
}

bool rk_clip_sample_frame(const rk_clip *clip, const rk_transform *rest, double fps, size_t frame,
                          rk_transform *out, size_t count) {
  if (!(fps > 0))
    return false;
  return rk_clip_sample(clip, rest, (double)frame / fps, out, count);
}

double rk_clip_bake_frame_count(double duration, double fps) {
  return floor(duration * fps + 0.5) + 1;
}

size_t rk_clip_bake_times(double duration, double fps, size_t frames, double *times) {
  for (size_t f = 0; f < frames; f++)
    times[f] = fmin((double)f / fps, duration);
  /* Frame times must increase strictly; a duration that is not a multiple of the frame time
   * makes the last frame the duration itself. */
  size_t keys = frames;
  while (keys > 1 && !(times[keys - 1] > times[keys - 2]))
    keys--;
  return keys;
}

rk_clip *rk_clip_bake(const rk_clip *clip, const rk_transform *rest, double fps, GError **error) {
  g_return_val_if_fail(clip && rest, NULL);
  if (!(fps > 0))
    fps = clip->fps;
  if (!(fps > 0) || !isfinite(fps)) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "clip '%s': cannot bake without a frame rate", clip->name);
    return NULL;
  }
  const double frames_d = rk_clip_bake_frame_count(clip->duration, fps);
  if (frames_d > RK_CLIP_MAX_KEYS) {
    g_set_error(error, RK_ERROR, RK_ERROR_LIMIT,
                "clip '%s': baking %.0f frames exceeds the limit of %u", clip->name, frames_d,
                RK_CLIP_MAX_KEYS);
    return NULL;
  }
  const size_t frames = (size_t)frames_d;
  rk_clip *out = rk_clip_new(clip->name, clip->joint_count);
  out->fps = fps;
  g_autofree double *times = g_new(double, frames);
  const size_t nf = rk_clip_bake_times(clip->duration, fps, frames, times);
  g_autofree double *values = g_new(double, frames * 4);
  for (guint i = 0; i < clip->tracks->len; i++) {
    const track_store *ts = &g_array_index(clip->tracks, track_store, i);
    const rk_track *tr = &ts->view;
    const int nc = rk_channel_components(tr->channel);
    for (size_t f = 0; f < nf; f++) {
      double *v = values + f * (size_t)nc;
      eval_track(ts, times[f], v);
      if (nc == 4) {
        rk_quat q = rk_quat_normalize(rk_quat_make(v[0], v[1], v[2], v[3]));
        if (f > 0) /* LINEAR consumers never take the long way round */
          q = rk_quat_same_hemisphere(q, rk_quat_make(v[-4], v[-3], v[-2], v[-1]));
        v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
      }
    }
    rk_track bt = {tr->joint, tr->channel, RK_INTERP_LINEAR, nf, times, values};
    if (!rk_clip_add_track(out, &bt, error)) {
      rk_clip_free(out);
      return NULL;
    }
  }
  out->duration = clip->duration;
  return out;
}
