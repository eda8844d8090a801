/* Clips in FBX: baking at the file's rate and the animation objects (see fbx_anim.h). */
#include "fbx_anim.h"

#include "export_shared.h"
#include "fbx_props.h"
#include "fbx_skeleton.h"

#include <rigkit/euler.h>
#include <string.h>

/* KeyAttrFlags (FbxAnimCurveDef): eInterpolationConstant, eInterpolationLinear. */
enum { KEY_CONSTANT = 0x00000002, KEY_LINEAR = 0x00000004 };

static int cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* Key times of a baked clip, in ticks: every frame, plus every key of the clip that lies between
 * frames (more than a tenth of a frame from the nearest), so that baking at the file's rate
 * never moves a key of the clip. */
static bool key_ticks(rk__fbx_ctx *c, rk__fbx_clip *co) {
  const rk_clip *clip = co->clip;
  const double dur = rk_clip_duration(clip);
  size_t frames = 0;
  if (!rk__export_frame_count(clip, co->fps, c->path, &frames, c->error))
    return false;
  GArray *ticks = g_array_sized_new(FALSE, FALSE, sizeof(int64_t), (guint)frames);
  for (size_t f = 0; f < frames; f++) {
    const int64_t t = llround(fmin((double)f / co->fps, dur) * RK__FBX_TICKS_PER_SECOND);
    g_array_append_val(ticks, t);
  }
  for (size_t ti = 0; ti < rk_clip_track_count(clip); ti++) {
    const rk_track *t = rk_clip_track(clip, ti);
    for (size_t k = 0; k < t->key_count; k++) {
      const double tk = t->times[k];
      const double off = fabs(tk * co->fps - nearbyint(tk * co->fps));
      if (tk <= dur && off > 0.1) {
        const int64_t v = llround(tk * RK__FBX_TICKS_PER_SECOND);
        g_array_append_val(ticks, v);
      }
    }
  }
  g_array_sort(ticks, cmp_i64);
  guint m = 0;
  for (guint i = 0; i < ticks->len; i++)
    if (m == 0 || g_array_index(ticks, int64_t, i) != g_array_index(ticks, int64_t, m - 1))
      g_array_index(ticks, int64_t, m++) = g_array_index(ticks, int64_t, i);
  co->frames = m;
  co->ticks = (int64_t *)(void *)g_array_free(ticks, FALSE);
  co->stop = llround(dur * RK__FBX_TICKS_PER_SECOND);
  return true;
}

/* The channels a clip animates, joint by joint, T before R before S. */
static void add_channels(const rk__fbx_ctx *c, rk__fbx_clip *co) {
  const rk_clip *clip = co->clip;
  co->chans = g_array_new(FALSE, TRUE, sizeof(rk__fbx_chan));
  for (size_t j = 0; j < c->n; j++)
    for (int ch = RK_CHANNEL_TRANSLATION; ch <= RK_CHANNEL_SCALE; ch++) {
      const int ti = rk_clip_find_track(clip, (int)j, (rk_channel)ch);
      if (ti < 0)
        continue;
      rk__fbx_chan x = {0};
      x.joint = (int)j;
      x.ch = (rk_channel)ch;
      x.step = rk_clip_track(clip, (size_t)ti)->interp == RK_INTERP_STEP;
      x.v = g_new(float, 3 * co->frames);
      g_array_append_val(co->chans, x);
    }
  if (co->chans->len == 0) { /* readers drop a stack without curves: hold the root's rest */
    rk__fbx_chan x = {0};
    x.ch = RK_CHANNEL_ROTATION;
    x.v = g_new(float, 3 * co->frames);
    g_array_append_val(co->chans, x);
  }
}

/* Samples the clip at every key time into its channels (locals: n transforms, prev: 3 n angles,
 * scratch). */
static bool bake(rk__fbx_ctx *c, rk__fbx_clip *co, rk_transform *locals, double *prev) {
  const rk_clip *clip = co->clip;
  const double dur = rk_clip_duration(clip);
  const rk_transform *rest = rk_skeleton_rest_locals(c->s);
  /* Euler angles start near the rest pose's and then follow the previous key. */
  for (size_t j = 0; j < c->n; j++)
    rk_euler_from_quat(c->orders[j], rk_quat_normalize(rest[j].r), prev + 3 * j);
  for (size_t f = 0; f < co->frames; f++) {
    const double t = fmin((double)co->ticks[f] / RK__FBX_TICKS_PER_SECOND, dur);
    rk_clip_sample(clip, rest, t, locals, c->n);
    for (guint i = 0; i < co->chans->len; i++) {
      rk__fbx_chan *x = &g_array_index(co->chans, rk__fbx_chan, i);
      const rk_transform *l = &locals[x->joint];
      rk_vec3 v;
      if (x->ch == RK_CHANNEL_TRANSLATION) {
        v = rk_vec3_scale(l->t, c->k);
      } else if (x->ch == RK_CHANNEL_SCALE) {
        v = l->s;
      } else {
        double a[3];
        double *p = prev + 3 * x->joint;
        rk_euler_from_quat_near(c->orders[x->joint], rk_quat_normalize(l->r), p, a);
        memcpy(p, a, sizeof a);
        v = rk__fbx_angles(c->orders[x->joint], a);
      }
      const double vv[3] = {v.x, v.y, v.z};
      for (int k = 0; k < 3; k++) {
        if (!rk__export_fits_float(vv[k])) {
          g_set_error(c->error, RK_ERROR, RK_ERROR_INVALID,
                      "%s: clip '%s', joint '%s', %s at key %zu (t=%g s): %g does not fit in "
                      "single precision",
                      c->path, rk_clip_name(clip), rk_skeleton_joint_name(c->s, (size_t)x->joint),
                      rk_channel_name(x->ch), f, t, vv[k]);
          return false;
        }
        x->v[3 * f + (size_t)k] = (float)rk__export_clean_zero(vv[k]);
      }
    }
  }
  return true;
}

bool rk__fbx_prepare_clips(rk__fbx_ctx *c) {
  g_autofree rk_transform *locals = g_new(rk_transform, c->n);
  g_autofree double *prev = g_new(double, 3 * c->n);
  for (guint i = 0; i < c->clips->len; i++) {
    rk__fbx_clip *co = &g_array_index(c->clips, rk__fbx_clip, i);
    if (!key_ticks(c, co))
      return false;
    add_channels(c, co);
    if (!bake(c, co, locals, prev))
      return false;
  }
  return true;
}

/* The clip's AnimationStack and its one AnimationLayer. */
static void write_stack(rk__fbx_ctx *c, const rk__fbx_clip *co) {
  rk__fbx_enc *e = c->e;
  rk__fbx_enc_begin(e, "AnimationStack");
  rk__fbx_enc_i64(e, co->stack_id);
  rk__fbx_enc_object_name(e, rk_clip_name(co->clip), "AnimStack");
  rk__fbx_enc_str(e, "");
  rk__fbx_enc_begin(e, "Properties70");
  rk__fbx_p_ktime(e, "LocalStart", 0);
  rk__fbx_p_ktime(e, "LocalStop", co->stop);
  rk__fbx_p_ktime(e, "ReferenceStart", 0);
  rk__fbx_p_ktime(e, "ReferenceStop", co->stop);
  rk__fbx_enc_end(e);
  rk__fbx_enc_end_block(e);
  rk__fbx_enc_begin(e, "AnimationLayer");
  rk__fbx_enc_i64(e, co->layer_id);
  rk__fbx_enc_object_name(e, "BaseLayer", "AnimLayer");
  rk__fbx_enc_str(e, "");
  rk__fbx_enc_end_block(e);
  rk__fbx_connect(c, co->layer_id, co->stack_id, NULL);
}

/* One AnimationCurve: the frames' values (float32) at the clip's key times. */
static void write_curve(rk__fbx_enc *e, const rk__fbx_clip *co, const rk__fbx_chan *x, int64_t id,
                        const float *vals) {
  /* Default KeyAttrDataFloat: slopes 0, weights 1/3 (as FBX SDK files hold it; unused by
   * linear and constant keys). */
  static const float data[4] = {0, 0, 9.419963346924634e-30f, 0};
  rk__fbx_enc_begin(e, "AnimationCurve");
  rk__fbx_enc_i64(e, id);
  rk__fbx_enc_object_name(e, "", "AnimCurve");
  rk__fbx_enc_str(e, "");
  rk__fbx_node_f64(e, "Default", vals[0]);
  rk__fbx_node_i32(e, "KeyVer", 4009);
  rk__fbx_enc_begin(e, "KeyTime");
  rk__fbx_enc_i64v(e, co->ticks, co->frames);
  rk__fbx_enc_end(e);
  rk__fbx_enc_begin(e, "KeyValueFloat");
  rk__fbx_enc_f32v(e, vals, co->frames);
  rk__fbx_enc_end(e);
  const int32_t flags = x->step ? KEY_CONSTANT : KEY_LINEAR;
  const int32_t refs = (int32_t)MIN(co->frames, (size_t)G_MAXINT32);
  rk__fbx_enc_begin(e, "KeyAttrFlags");
  rk__fbx_enc_i32v(e, &flags, 1);
  rk__fbx_enc_end(e);
  rk__fbx_enc_begin(e, "KeyAttrDataFloat");
  rk__fbx_enc_f32v(e, data, 4);
  rk__fbx_enc_end(e);
  rk__fbx_enc_begin(e, "KeyAttrRefCount");
  rk__fbx_enc_i32v(e, &refs, 1);
  rk__fbx_enc_end(e);
  rk__fbx_enc_end(e);
}

void rk__fbx_write_animation(rk__fbx_ctx *c) {
  rk__fbx_enc *e = c->e;
  static const char *const node_names[3] = {"T", "R", "S"};
  static const char *const props[3] = {"Lcl Translation", "Lcl Rotation", "Lcl Scaling"};
  static const char *const comps[3] = {"d|X", "d|Y", "d|Z"};
  for (guint ci = 0; ci < c->clips->len; ci++) {
    const rk__fbx_clip *co = &g_array_index(c->clips, rk__fbx_clip, ci);
    write_stack(c, co);
    g_autofree float *vals = g_new(float, co->frames);
    for (guint i = 0; i < co->chans->len; i++) {
      const rk__fbx_chan *x = &g_array_index(co->chans, rk__fbx_chan, i);
      rk__fbx_enc_begin(e, "AnimationCurveNode");
      rk__fbx_enc_i64(e, x->node_id);
      rk__fbx_enc_object_name(e, node_names[x->ch], "AnimCurveNode");
      rk__fbx_enc_str(e, "");
      rk__fbx_enc_begin(e, "Properties70");
      for (int k = 0; k < 3; k++)
        rk__fbx_p_number(e, comps[k], "A", x->v[k]);
      rk__fbx_enc_end(e);
      rk__fbx_enc_end(e);
      rk__fbx_connect(c, x->node_id, co->layer_id, NULL);
      rk__fbx_connect(c, x->node_id, c->model_id[x->joint], props[x->ch]);
      for (int k = 0; k < 3; k++) {
        for (size_t f = 0; f < co->frames; f++)
          vals[f] = x->v[3 * f + (size_t)k];
        write_curve(e, co, x, x->curve_id[k], vals);
        rk__fbx_connect(c, x->curve_id[k], x->node_id, comps[k]);
      }
    }
  }
}
