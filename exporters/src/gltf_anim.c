/* Clips in glTF: key time and value accessors, samplers and channels (see gltf_anim.h). */
#include "gltf_anim.h"

#include "gltf_buffer.h"

#include <rigkit/halves.h>
#include <string.h>

typedef struct input_cache {
  const double *times; /* borrowed from the clip */
  size_t count;
  double extra; /* extra key time appended (the clip's duration), or -1 */
  int accessor;
} input_cache;

static int input_accessor(rk__gltf_ctx *c, GArray *cache, const rk_clip *clip, const rk_track *t,
                          double extra) {
  for (guint i = 0; i < cache->len; i++) {
    const input_cache *e = &g_array_index(cache, input_cache, i);
    if (e->count == t->key_count && e->extra == extra &&
        memcmp(e->times, t->times, t->key_count * sizeof(double)) == 0)
      return e->accessor;
  }
  const size_t n = t->key_count + (extra >= 0 ? 1 : 0);
  g_autofree float *times = g_new(float, n);
  for (size_t k = 0; k < n; k++) {
    double tk = k < t->key_count ? t->times[k] : extra;
    bool ok = rk__gltf_to_float(tk, &times[k]);
    if (!ok || (k > 0 && !(times[k] > times[k - 1]))) {
      g_set_error(c->error, RK_ERROR, RK_ERROR_UNSUPPORTED,
                  "%s: clip '%s', joint '%s', %s key %zu (t=%.9g s): key times must stay strictly "
                  "increasing in single precision (bake at a lower rate)",
                  c->path, rk_clip_name(clip), rk__gltf_target_name(c, t->joint),
                  rk_channel_name(t->channel), k, tk);
      return -1;
    }
  }
  int a = rk__gltf_add_accessor(c, RK__GL_FLOAT, times, n, 1, 0, true);
  if (a >= 0) {
    input_cache e = {t->times, t->key_count, extra, a};
    g_array_append_val(cache, e);
  }
  return a;
}

/* One track's output: its values (plus the holding key when extra) in float32, in a bufferView
 * laid out in order and filled afterwards, perhaps on another thread. */
typedef struct out_job {
  const rk_track *t;
  bool extra;
  size_t offset;      /* of its bufferView in c->bin */
  int accessor;
  double lo[4], hi[4]; /* its bounds, once filled */
  GError *error;      /* why it cannot be filled */
} out_job;

/* Floats per key of a track (a cubic key holds its tangents too). */
static size_t per_key_of(const rk_track *t) {
  return (size_t)rk_channel_components(t->channel) * (t->interp == RK_INTERP_CUBIC ? 3 : 1);
}

static size_t floats_of(const out_job *o) {
  return (o->t->key_count + (o->extra ? 1 : 0)) * per_key_of(o->t);
}

/* Fills f (floats_of(o)) with o's values in float32 and o->lo/hi with their bounds; false with
 * o->error (a rotation key that is not one, a value beyond float32). Reads c, writes only o, f. */
static bool output_values(const rk__gltf_ctx *c, const rk_clip *clip, out_job *o, float *f) {
  const rk_track *t = o->t;
  const size_t nc = (size_t)rk_channel_components(t->channel);
  const bool cubic = t->interp == RK_INTERP_CUBIC;
  const size_t per_key = per_key_of(t);
  const size_t n = t->key_count + (o->extra ? 1 : 0);
  g_autofree double *v = g_new(double, n *per_key);
  memcpy(v, t->values, t->key_count * per_key * sizeof(double));
  if (o->extra) {
    double *last = v + (t->key_count - 1) * per_key, *add = v + t->key_count * per_key;
    memcpy(add, last, per_key * sizeof(double));
    if (cubic) /* hold: zero tangents between the old last key and the added one */
      for (size_t k = 0; k < nc; k++)
        last[2 * nc + k] = add[k] = add[2 * nc + k] = 0;
  }
  if (t->channel == RK_CHANNEL_ROTATION) {
    for (size_t k = 0; k < n; k++) {
      double *key = v + k * per_key, *q = key + (cubic ? nc : 0);
      double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
      if (!(len > 0) || !isfinite(len)) {
        g_set_error(&o->error, RK_ERROR, RK_ERROR_INVALID,
                    "%s: clip '%s', joint '%s', rotation key %zu is not a rotation", c->path,
                    rk_clip_name(clip), rk__gltf_target_name(c, t->joint), k);
        return false;
      }
      /* Cubic keys scale their tangents with the value so the curve keeps its shape. */
      for (size_t m = 0; m < per_key; m++)
        key[m] /= len;
      if (t->interp == RK_INTERP_LINEAR && k > 0) {
        const double *p = key - per_key;
        if (p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3] < 0)
          for (size_t m = 0; m < 4; m++)
            q[m] = -q[m];
      }
    }
  }
  for (size_t i = 0; i < n * per_key; i++)
    if (!rk__gltf_to_float(rk__export_clean_zero(v[i]), &f[i])) {
      g_set_error(&o->error, RK_ERROR, RK_ERROR_INVALID,
                  "%s: clip '%s', joint '%s', %s key %zu: value %g is out of single-precision "
                  "range",
                  c->path, rk_clip_name(clip), rk__gltf_target_name(c, t->joint),
                  rk_channel_name(t->channel), i / per_key, v[i]);
      return false;
    }
  rk__gltf_bounds(RK__GL_FLOAT, f, n * (cubic ? 3 : 1), (int)nc, o->lo, o->hi);
  return true;
}

/* One track's output accessor added at once (the values filled, then their view and accessor):
 * its index, or -1 with c->error. */
static int output_accessor(rk__gltf_ctx *c, const rk_clip *clip, const rk_track *t, bool extra) {
  out_job o = {.t = t, .extra = extra};
  const int nc = rk_channel_components(t->channel);
  g_autofree float *f = g_new(float, floats_of(&o) + 1);
  if (!output_values(c, clip, &o, f)) {
    g_propagate_error(c->error, o.error);
    return -1;
  }
  return rk__gltf_add_accessor(c, RK__GL_FLOAT, f, floats_of(&o) / (size_t)nc, nc, 0, true);
}

/* Tracks [first, end) of an animation's outputs filled into the buffer. */
typedef struct fill_run {
  const rk__gltf_ctx *c;
  const rk_clip *clip;
  out_job *jobs;
  size_t first, end;
} fill_run;

static gpointer fill_outputs(gpointer data) {
  const fill_run *w = data;
  for (size_t i = w->first; i < w->end; i++)
    output_values(w->c, w->clip, &w->jobs[i], (float *)(void *)(w->c->bin->data + w->jobs[i].offset));
  return NULL;
}

/* Float values worth a second thread. */
#define FILL_THREAD_FLOATS (64 * 1024)

/* A job's weight in the split of fill_all: its float values. */
static size_t job_floats(const void *jobs, size_t i) {
  return floats_of(&((const out_job *)jobs)[i]);
}

/* Fills jobs[0..n) (laid out in c->bin, which must not grow meanwhile): in two runs of about as
 * many values on two threads when there are many. */
static void fill_all(const rk__gltf_ctx *c, const rk_clip *clip, out_job *jobs, size_t n) {
  size_t total;
  const size_t split = rk_halves_split(n, job_floats, jobs, &total);
  fill_run runs[2] = {{c, clip, jobs, 0, split}, {c, clip, jobs, split, n}};
  rk_halves_run(fill_outputs, &runs[0], &runs[1], total >= FILL_THREAD_FLOATS && split < n);
}

static void add_channel(JsonArray *samplers, JsonArray *channels, int input, int output,
                        rk_interp interp, int node, rk_channel channel) {
  JsonObject *s = json_object_new();
  json_object_set_int_member(s, "input", input);
  json_object_set_int_member(s, "output", output);
  json_object_set_string_member(s, "interpolation", rk_interp_name(interp));
  json_array_add_object_element(samplers, s);
  JsonObject *ch = json_object_new();
  json_object_set_int_member(ch, "sampler", (gint64)json_array_get_length(samplers) - 1);
  JsonObject *target = json_object_new();
  json_object_set_int_member(target, "node", node);
  json_object_set_string_member(target, "path", rk_channel_name(channel));
  json_object_set_object_member(ch, "target", target);
  json_array_add_object_element(channels, ch);
}

/* The error a sequential pass over the tracks would have met first, moved into c->error: the
 * first laid-out track whose values cannot be filled, else layout's (the layout of track `at`
 * failed: that track's values are checked first, as they were filled before its layout). */
static void first_failure(rk__gltf_ctx *c, const rk_clip *clip, out_job *jobs, size_t laid,
                          GError *layout, size_t at, bool at_output) {
  for (size_t i = 0; i < laid; i++)
    if (jobs[i].error) {
      g_propagate_error(c->error, g_steal_pointer(&jobs[i].error));
      g_clear_error(&layout);
      return;
    }
  if (layout && at_output) {
    g_autofree float *f = g_new(float, floats_of(&jobs[at]) + 1);
    if (!output_values(c, clip, &jobs[at], f)) {
      g_propagate_error(c->error, g_steal_pointer(&jobs[at].error));
      g_clear_error(&layout);
      return;
    }
  }
  g_propagate_error(c->error, layout);
}

bool rk__gltf_add_animation(rk__gltf_ctx *c, const rk_clip *clip, size_t clip_index,
                            GHashTable *names) {
  g_autoptr(JsonArray) samplers = json_array_new();
  g_autoptr(JsonArray) channels = json_array_new();
  g_autoptr(GArray) cache = g_array_new(FALSE, FALSE, sizeof(input_cache));
  const size_t nt = rk_clip_track_count(clip);
  const double duration = rk_clip_duration(clip);
  /* glTF has no duration of its own: an animation lasts until its last key. When the clip lasts
   * longer, the track with the latest last key holds its value in one added key. */
  double last = 0;
  size_t last_track = 0;
  for (size_t i = 0; i < nt; i++) {
    const rk_track *t = rk_clip_track(clip, i);
    if (t->times[t->key_count - 1] > last) {
      last = t->times[t->key_count - 1];
      last_track = i;
    }
  }
  const bool extend = nt > 0 && (float)duration > (float)last;
  /* The layout in track order (each track's key times, then its values' view and accessor), the
   * values filled after it, the bounds last: the bytes and members of one pass in order. */
  g_autofree out_job *jobs = g_new0(out_job, nt ? nt : 1);
  size_t bytes = 0;
  for (size_t i = 0; i < nt; i++) {
    jobs[i].t = rk_clip_track(clip, i);
    jobs[i].extra = extend && i == last_track;
    bytes += 4 * (floats_of(&jobs[i]) + jobs[i].t->key_count + 2);
  }
  const guint len = c->bin->len;
  if (bytes < (size_t)G_MAXUINT32 / 2 - len) { /* room for it all at once: no copy per growth */
    g_byte_array_set_size(c->bin, len + (guint)bytes);
    g_byte_array_set_size(c->bin, len);
  }
  GError **error = c->error, *layout = NULL;
  c->error = &layout;
  size_t laid = 0;
  bool at_output = false;
  for (; laid < nt; laid++) {
    out_job *o = &jobs[laid];
    const rk_track *t = o->t;
    int in = input_accessor(c, cache, clip, t, o->extra ? duration : -1);
    if (in < 0)
      break;
    const size_t nc = (size_t)rk_channel_components(t->channel);
    const int view = rk__gltf_reserve_view(c, floats_of(o) * sizeof(float), 0, &o->offset);
    if (view < 0) {
      at_output = true;
      break;
    }
    o->accessor = rk__gltf_accessor_of(c, view, RK__GL_FLOAT, floats_of(o) / nc, (int)nc);
    add_channel(samplers, channels, in, o->accessor, t->interp, t->joint, t->channel);
  }
  c->error = error;
  fill_all(c, clip, jobs, laid);
  bool ok = !layout;
  for (size_t i = 0; ok && i < laid; i++)
    ok = !jobs[i].error;
  if (!ok) {
    first_failure(c, clip, jobs, laid, layout, laid, at_output);
    for (size_t i = 0; i < nt; i++)
      g_clear_error(&jobs[i].error);
    return false;
  }
  for (size_t i = 0; i < nt; i++)
    rk__gltf_accessor_set_bounds(c, jobs[i].accessor, RK__GL_FLOAT,
                                 rk_channel_components(jobs[i].t->channel), jobs[i].lo, jobs[i].hi);
  if (nt == 0) {
    /* An animation needs a channel: hold the first root's rest rotation over the duration. */
    const rk_quat q = rk_quat_normalize(rk_skeleton_rest(c->s, 0)->r);
    const double vals[8] = {q.x, q.y, q.z, q.w, q.x, q.y, q.z, q.w};
    const double times[2] = {0, duration};
    const rk_track t = {0, RK_CHANNEL_ROTATION, RK_INTERP_STEP, duration > 0 ? 2 : 1, times, vals};
    int in = input_accessor(c, cache, clip, &t, -1);
    int out = in < 0 ? -1 : output_accessor(c, clip, &t, false);
    if (out < 0)
      return false;
    add_channel(samplers, channels, in, out, t.interp, 0, RK_CHANNEL_ROTATION);
  }
  JsonObject *a = json_object_new();
  const char *cname = rk_clip_name(clip);
  g_autofree char *fallback = *cname ? NULL : g_strdup_printf("animation_%zu", clip_index);
  g_autofree char *name = rk__export_unique_name(names, fallback ? fallback : cname);
  json_object_set_string_member(a, "name", name);
  json_object_set_array_member(a, "channels", g_steal_pointer(&channels));
  json_object_set_array_member(a, "samplers", g_steal_pointer(&samplers));
  json_array_add_object_element(c->animations, a);
  return true;
}
