/* A source clip given by the host (asset_from_host): its skeleton and one key per frame, local or
 * relative to the rest (Blender's pose channels), in the host's space, become an asset with one
 * clip in rigkit's canonical space, ready for session_new like an imported file. */
#include "plugin_internal.h"

#include <string.h>

/* Keys within these of the rest on every frame make no track (the joint holds its rest, as an
 * untracked channel of an imported file does): metres, quaternion dot from 1, scale. */
#define HOLD_METRES 1e-6
#define HOLD_DOT 1e-12
#define HOLD_SCALE 1e-6

static int check_clip(const rk_plugin_host_clip *c, double *mpu, char *err, size_t err_size) {
  if (!c)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT, "asset_from_host: clip is NULL");
  if (!c->skeleton)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "asset_from_host: clip.skeleton is NULL");
  if (c->keys != RK_PLUGIN_KEYS_LOCAL && c->keys != RK_PLUGIN_KEYS_REST_RELATIVE)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "asset_from_host: clip.keys = %d: must be RK_PLUGIN_KEYS_LOCAL (0) or "
                           "RK_PLUGIN_KEYS_REST_RELATIVE (1)",
                           (int)c->keys);
  if (!(isfinite(c->fps) && c->fps > 0 && c->fps <= 10000))
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "asset_from_host: clip.fps = %g: must be a rate above 0, up to 10000",
                           c->fps);
  if (c->frame_count == 0 || c->frame_count > RK_CLIP_MAX_KEYS)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "asset_from_host: clip.frame_count = %u: must be 1 to %u",
                           c->frame_count, RK_CLIP_MAX_KEYS);
  if ((c->name && !g_utf8_validate(c->name, -1, NULL)) ||
      (c->label && !g_utf8_validate(c->label, -1, NULL)))
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_INVALID,
                           "asset_from_host: clip.%s is not valid UTF-8",
                           c->name && !g_utf8_validate(c->name, -1, NULL) ? "name" : "label");
  return rk__plugin_space_check(&c->space, mpu, err, err_size);
}

/* Checks the host's key of joint h at frame f (NULL arrays: the rest); a message names both. */
static int check_key(const rk_plugin_host_clip *c, const char *what, size_t h, size_t f,
                     char *err, size_t err_size) {
  const size_t o = f * c->skeleton->joint_count + h;
  const float *t = c->translations ? c->translations + o * 3 : NULL;
  const float *r = c->rotations ? c->rotations + o * 4 : NULL;
  const float *s = c->scales ? c->scales + o * 3 : NULL;
  const char *bad = NULL;
  for (int k = 0; k < 4 && !bad; k++)
    if ((k < 3 && t && !isfinite(t[k])) || (r && !isfinite(r[k])) || (k < 3 && s && !isfinite(s[k])))
      bad = "a value that is not finite";
  if (!bad && r &&
      (double)r[0] * r[0] + (double)r[1] * r[1] + (double)r[2] * r[2] + (double)r[3] * r[3] < 1e-12)
    bad = "a zero rotation";
  if (!bad && s && (fabsf(s[0]) < 1e-9f || fabsf(s[1]) < 1e-9f || fabsf(s[2]) < 1e-9f))
    bad = "a zero scale";
  if (!bad)
    return RK_PLUGIN_OK;
  return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_INVALID, "%s: joint '%s' frame %zu: %s", what,
                         c->skeleton->names[h], f, bad);
}

/* The canonical local pose of host joint h (skeleton joint k) at frame f. */
static rk_transform local_at(const rk_plugin_host_clip *c, const rk__plugin_host_rig *rig,
                             double mpu, size_t h, size_t f) {
  const size_t k = (size_t)rig->host_to_skel[h];
  const rk_transform *rest = rk_skeleton_rest(rig->skeleton, k);
  const size_t o = f * rig->n + h;
  const float *t = c->translations ? c->translations + o * 3 : NULL;
  const float *r = c->rotations ? c->rotations + o * 4 : NULL;
  const float *s = c->scales ? c->scales + o * 3 : NULL;
  if (c->keys == RK_PLUGIN_KEYS_LOCAL) {
    float trs[RK_PLUGIN_TRS_FLOATS];
    memcpy(trs, c->skeleton->rest + h * RK_PLUGIN_TRS_FLOATS, sizeof trs);
    if (t)
      memcpy(trs, t, 3 * sizeof(float));
    if (r)
      memcpy(trs + 3, r, 4 * sizeof(float));
    if (s)
      memcpy(trs + 7, s, 3 * sizeof(float));
    return rk__plugin_to_canonical(trs, &c->space, mpu, rig->host_parents[h] < 0);
  }
  /* local = rest * basis, the inverse of session_keys' REST_RELATIVE form. */
  rk_transform x = *rest;
  if (t) {
    const rk_vec3 bt = rk_vec3_make(t[0] * mpu * rest->s.x, t[1] * mpu * rest->s.y,
                                    t[2] * mpu * rest->s.z);
    x.t = rk_vec3_add(rest->t, rk_quat_rotate(rest->r, bt));
  }
  if (r)
    x.r = rk_quat_normalize(rk_quat_mul(rest->r, rk_quat_make(r[0], r[1], r[2], r[3])));
  if (s)
    x.s = rk_vec3_make(rest->s.x * s[0], rest->s.y * s[1], rest->s.z * s[2]);
  return x;
}

/* Adds one LINEAR track of a channel unless every key holds the rest. */
static void add_track(rk_clip *clip, int joint, rk_channel ch, size_t frames, const double *times,
                      const double *values, bool moves) {
  if (!moves)
    return;
  const rk_track tr = {joint, ch, RK_INTERP_LINEAR, frames, times, values};
  rk_clip_add_track(clip, &tr, NULL); /* the keys were checked: it cannot fail */
}

/* Fills the clip from the host's keys, joint by joint. */
static int build_clip(const rk_plugin_host_clip *c, const rk__plugin_host_rig *rig, double mpu,
                      const char *what, rk_clip *clip, char *err, size_t err_size) {
  const size_t frames = c->frame_count;
  g_autofree double *times = g_new(double, frames);
  g_autofree double *tv = g_new(double, frames * 3), *rv = g_new(double, frames * 4),
                    *sv = g_new(double, frames * 3);
  for (size_t f = 0; f < frames; f++)
    times[f] = (double)f / c->fps;
  for (size_t h = 0; h < rig->n; h++) {
    const int k = rig->host_to_skel[h];
    const rk_transform *rest = rk_skeleton_rest(rig->skeleton, (size_t)k);
    bool moves_t = false, moves_r = false, moves_s = false;
    for (size_t f = 0; f < frames; f++) {
      const int st = check_key(c, what, h, f, err, err_size);
      if (st != RK_PLUGIN_OK)
        return st;
      rk_transform x = local_at(c, rig, mpu, h, f);
      if (f > 0 && rk_quat_dot(x.r, rk_quat_make(rv[4 * f - 4], rv[4 * f - 3], rv[4 * f - 2],
                                                 rv[4 * f - 1])) < 0)
        x.r = rk_quat_make(-x.r.x, -x.r.y, -x.r.z, -x.r.w); /* sign-continuous */
      const double t[3] = {x.t.x, x.t.y, x.t.z}, s[3] = {x.s.x, x.s.y, x.s.z};
      const double r[4] = {x.r.x, x.r.y, x.r.z, x.r.w};
      memcpy(tv + 3 * f, t, sizeof t), memcpy(sv + 3 * f, s, sizeof s);
      memcpy(rv + 4 * f, r, sizeof r);
      moves_t = moves_t || rk_vec3_norm(rk_vec3_sub(x.t, rest->t)) > HOLD_METRES;
      moves_r = moves_r || 1.0 - fabs(rk_quat_dot(x.r, rest->r)) > HOLD_DOT;
      moves_s = moves_s || fabs(x.s.x - rest->s.x) + fabs(x.s.y - rest->s.y) +
                                   fabs(x.s.z - rest->s.z) > HOLD_SCALE;
    }
    add_track(clip, k, RK_CHANNEL_TRANSLATION, frames, times, tv, moves_t);
    add_track(clip, k, RK_CHANNEL_ROTATION, frames, times, rv, moves_r);
    add_track(clip, k, RK_CHANNEL_SCALE, frames, times, sv, moves_s);
  }
  rk_clip_set_fps(clip, c->fps);
  rk_clip_set_duration(clip, (double)(frames - 1) / c->fps);
  return RK_PLUGIN_OK;
}

int rk__plugin_asset_from_host(const rk_plugin_host_clip *c, rk_plugin_asset **out, char *err,
                               size_t err_size) {
  if (!out)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT, "asset_from_host: out is NULL");
  *out = NULL;
  double mpu;
  int st = check_clip(c, &mpu, err, err_size);
  if (st != RK_PLUGIN_OK)
    return st;
  const char *label = c->label && *c->label ? c->label : "(host)";
  g_autofree char *what = g_strdup_printf("%s skeleton", label);
  rk__plugin_host_rig rig;
  if ((st = rk__plugin_host_rig_build(c->skeleton, &c->space, mpu, what, &rig, err, err_size)))
    return st;
  g_autoptr(rk_clip) clip = rk_clip_new(c->name ? c->name : "host clip", rig.n);
  st = build_clip(c, &rig, mpu, label, clip, err, err_size);
  if (st == RK_PLUGIN_OK) {
    rk_asset *a = rk_asset_new(rig.skeleton);
    rk_asset_add_clip(a, g_steal_pointer(&clip));
    rk_asset_set_source(a, "host", label);
    g_autofree char *unit = mpu == 1.0 ? g_strdup("m") : g_strdup_printf("%g m", mpu);
    rk_asset_set_unit(a, unit, mpu);
    rk_asset_set_up_axis(a, c->space.up_axis == RK_PLUGIN_UP_Z ? "Z" : "Y");
    *out = rk__plugin_asset_wrap(a, false);
  }
  rk__plugin_host_rig_clear(&rig);
  return st;
}
