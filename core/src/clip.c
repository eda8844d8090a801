/* Animation clips: track storage, copies, accessors and fixed-rate baking (sampling lives in
 * clip_sample.c). */
#include "clip_internal.h"
#include "math_internal.h"

#include <rigkit/error.h>
#include <rigkit/halves.h>

#include <string.h>

/* Fills s's key-lookup guess from its times, and the inverse norms of LINEAR rotation keys (the
 * sampler's per-key normalisation, computed once: two square roots and divisions fewer per
 * sample, for a quarter more memory per rotation key): inv when given (taken), else computed. */
static void track_store_index(rk__track_store *s, double *inv) {
  const size_t n = s->view.key_count;
  const double span = n > 1 ? s->times[n - 1] - s->times[0] : 0.0;
  s->t0 = s->times[0];
  s->keys_per_second = span > 0 ? (double)(n - 1) / span : 0.0;
  s->inv_norms = NULL;
  if (s->view.channel != RK_CHANNEL_ROTATION || s->view.interp != RK_INTERP_LINEAR) {
    g_free(inv);
    return;
  }
  s->inv_norms = inv ? inv : g_new(double, n);
  for (size_t k = 0; !inv && k < n; k++) {
    const double *q = s->values + 4 * k;
    s->inv_norms[k] = rk__clip_inv_norm(rk_quat_make(q[0], q[1], q[2], q[3]));
  }
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
  rk__track_store *t = p;
  g_free(t->times);
  g_free(t->values);
  g_free(t->inv_norms);
}

rk_clip *rk_clip_new(const char *name, size_t joint_count) {
  rk_clip *c = g_new0(rk_clip, 1);
  c->name = g_strdup(name ? name : "");
  c->joint_count = joint_count;
  c->tracks = g_array_new(FALSE, TRUE, sizeof(rk__track_store));
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

/* Whether t's keys pass check_track's key checks (times finite, >= 0, increasing, within the
 * limit; values finite; rotations not zero), in one pass without a branch per value; check_track
 * then only looks for the first failure (and says what it is) when this is false. */
static bool keys_fine(const rk_track *t) {
  const size_t n = t->key_count, vpk = values_per_key(t);
  bool ok = true;
  double prev = -1.0;
  for (size_t k = 0; k < n; k++) {
    const double tk = t->times[k];
    ok &= tk >= 0 && tk <= RK_CLIP_MAX_DURATION && tk > prev;
    prev = tk;
  }
  const bool bad = !rk__all_finite(t->values, n * vpk);
  if (t->channel == RK_CHANNEL_ROTATION) {
    const size_t at = t->interp == RK_INTERP_CUBIC ? (size_t)rk_channel_components(t->channel) : 0;
    for (size_t k = 0; k < n; k++) {
      const double *q = t->values + k * vpk + at;
      ok &= !(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] < 1e-12);
    }
  }
  return ok && !bad;
}

/* The checks of rk_clip_add_track; with trusted (keys the caller vouches for), those of the joint,
 * channel, key count and last time only. */
static bool check_track(const rk_clip *clip, const rk_track *t, bool trusted, GError **error) {
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
  const double last = t->times[t->key_count - 1];
  if (trusted && isfinite(last) && last <= RK_CLIP_MAX_DURATION) {
#ifndef NDEBUG
    g_assert(keys_fine(t));
#endif
    return true;
  }
  if (keys_fine(t))
    return true;
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

/* Adds track (checked) with its keys in times and values and its inverse norms in inv (taken;
 * NULL: computed here). */
static void store_track(rk_clip *clip, const rk_track *track, double *times, double *values,
                        double *inv) {
  rk__track_store s;
  s.view = *track;
  s.times = times;
  s.values = values;
  s.view.times = s.times;
  s.view.values = s.values;
  track_store_index(&s, inv);
  if (!clip->slots) {
    clip->slots = g_new(int, clip->joint_count * 3);
    for (size_t i = 0; i < clip->joint_count * 3; i++)
      clip->slots[i] = -1;
  }
  int *slot = &clip->slots[(size_t)track->joint * 3 + (size_t)track->channel];
  if (*slot >= 0) {
    rk__track_store *old = &g_array_index(clip->tracks, rk__track_store, *slot);
    track_store_clear(old);
    *old = s;
  } else {
    g_array_append_val(clip->tracks, s);
    *slot = (int)clip->tracks->len - 1;
  }
  double last = track->times[track->key_count - 1];
  if (last > clip->duration)
    clip->duration = last;
}

bool rk_clip_add_track(rk_clip *clip, const rk_track *track, GError **error) {
  g_return_val_if_fail(clip && track, false);
  if (!check_track(clip, track, false, error))
    return false;
  store_track(clip, track, g_memdup2(track->times, track->key_count * sizeof(double)),
              g_memdup2(track->values, track->key_count * values_per_key(track) * sizeof(double)),
              NULL);
  return true;
}

bool rk_clip_take_track(rk_clip *clip, const rk_track *track, GError **error) {
  g_return_val_if_fail(clip && track, false);
  if (!check_track(clip, track, false, error)) {
    g_free((void *)track->times);
    g_free((void *)track->values);
    return false;
  }
  store_track(clip, track, (double *)track->times, (double *)track->values, NULL);
  return true;
}

/* The checks and inverse norms of tracks [first, end) of rk_clip_take_tracks. */
typedef struct take_run {
  const rk_clip *clip;
  const rk_track *tracks;
  size_t first, end;
  const bool *trusted; /* per track: keys the caller vouches for (NULL: none) */
  GError **errors;     /* per track: why it fails, or NULL */
  double **inv;    /* per track: its inverse norms (linear rotations), or NULL */
} take_run;

static gpointer check_tracks(gpointer data) {
  const take_run *w = data;
  for (size_t i = w->first; i < w->end; i++) {
    const rk_track *t = &w->tracks[i];
    if (!check_track(w->clip, t, w->trusted && w->trusted[i], &w->errors[i]) ||
        t->channel != RK_CHANNEL_ROTATION ||
        t->interp != RK_INTERP_LINEAR)
      continue;
    w->inv[i] = g_new(double, t->key_count);
    for (size_t k = 0; k < t->key_count; k++) {
      const double *q = t->values + 4 * k;
      w->inv[i][k] = rk__clip_inv_norm(rk_quat_make(q[0], q[1], q[2], q[3]));
    }
  }
  return NULL;
}

/* Keys worth a second thread. */
#define TAKE_THREAD_KEYS (32 * 1024)

/* A track's weight in the split of rk_clip_take_tracks: its keys. */
static size_t track_keys(const void *tracks, size_t i) {
  return ((const rk_track *)tracks)[i].key_count;
}

bool rk_clip_take_tracks(rk_clip *clip, const rk_track *tracks, size_t n, size_t *failed,
                         GError **error) {
  return rk_clip_take_tracks_trusted(clip, tracks, NULL, n, failed, error);
}

bool rk_clip_take_tracks_trusted(rk_clip *clip, const rk_track *tracks, const bool *trusted,
                                 size_t n, size_t *failed, GError **error) {
  g_return_val_if_fail(clip && (tracks || n == 0), false);
  g_autofree GError **errors = g_new0(GError *, n ? n : 1);
  g_autofree double **inv = g_new0(double *, n ? n : 1);
  size_t total;
  const size_t split = rk_halves_split(n, track_keys, tracks, &total);
  take_run runs[2] = {{clip, tracks, 0, split, trusted, errors, inv},
                      {clip, tracks, split, n, trusted, errors, inv}};
  rk_halves_run(check_tracks, &runs[0], &runs[1], total >= TAKE_THREAD_KEYS && split < n);
  /* In order: the tracks before the first that fails are the clip's, as one at a time. */
  size_t i = 0;
  for (; i < n && !errors[i]; i++)
    store_track(clip, &tracks[i], (double *)tracks[i].times, (double *)tracks[i].values, inv[i]);
  const bool ok = i == n;
  if (failed)
    *failed = i;
  if (!ok)
    g_propagate_error(error, g_steal_pointer(&errors[i]));
  for (; i < n; i++) {
    g_clear_error(&errors[i]);
    g_free(inv[i]);
    g_free((void *)tracks[i].times);
    g_free((void *)tracks[i].values);
  }
  return ok;
}

void rk__clip_adopt_track(rk_clip *clip, const rk_track *track, double *inv_norms) {
#ifndef NDEBUG
  g_assert(check_track(clip, track, false, NULL));
#endif
  store_track(clip, track, (double *)track->times, (double *)track->values, inv_norms);
}

rk_clip *rk_clip_copy(const rk_clip *clip) {
  rk_clip *c = rk_clip_new(clip->name, clip->joint_count);
  c->duration = clip->duration;
  c->fps = clip->fps;
  for (guint i = 0; i < clip->tracks->len; i++) {
    const rk__track_store *src = &g_array_index(clip->tracks, rk__track_store, i);
    rk__track_store s;
    s.view = src->view;
    s.times = g_memdup2(src->times, src->view.key_count * sizeof(double));
    s.values = g_memdup2(src->values, src->view.key_count * values_per_key(&src->view) * sizeof(double));
    s.view.times = s.times;
    s.view.values = s.values;
    track_store_index(&s, NULL);
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
    const rk_track *t = &g_array_index(clip->tracks, rk__track_store, i).view;
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
  return &g_array_index(clip->tracks, rk__track_store, i).view;
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
    n += g_array_index(clip->tracks, rk__track_store, i).view.key_count;
  return n;
}

double rk_clip_bake_frame_count(double duration, double fps) {
  return floor(duration * fps + 0.5) + 1;
}

double rk_clip_bake_duration(double duration, double fps) {
  const double end = (rk_clip_bake_frame_count(duration, fps) - 1) / fps;
  /* Within rounding of the grid the duration is the grid's end: it stays bit for bit. */
  return fabs(end - duration) <= 1e-6 / fps ? duration : end;
}

size_t rk_clip_bake_times(double duration, double fps, size_t frames, double *times) {
  const double end = rk_clip_bake_duration(duration, fps);
  for (size_t f = 0; f < frames; f++)
    times[f] = fmin((double)f / fps, end);
  /* Frame times must increase strictly: frames past the grid's end are not keys. */
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
    const rk__track_store *ts = &g_array_index(clip->tracks, rk__track_store, i);
    const rk_track *tr = &ts->view;
    const int nc = rk_channel_components(tr->channel);
    for (size_t f = 0; f < nf; f++) {
      double *v = values + f * (size_t)nc;
      rk__clip_eval_track(ts, times[f], v);
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
  out->duration = rk_clip_bake_duration(clip->duration, fps);
  return out;
}
