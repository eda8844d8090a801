/* Retarget sessions through the plugin ABI: a source clip, a target rig (an asset or the host's
 * own skeleton in its own space), an optional profile; run; read keys back in the host's space. */
#include "plugin_internal.h"

#include <rigkit/exporters.h>
#include <rigkit/gltf_edit.h>

#include <string.h>

struct rk_plugin_session {
  rk__plugin_kind kind;
  rk_plugin_asset *source;       /* reference: keeps the source skeleton and clip alive */
  rk_plugin_asset *target_asset; /* reference (to an opened target, or the session's own around
                                    a host skeleton with meshes), or NULL */
  const rk_clip *clip;           /* borrowed from source */
  rk_skeleton *target;           /* canonical target skeleton (own reference) */
  size_t nt;
  int *host_to_skel; /* host joint -> target skeleton joint */
  int *skel_to_host;
  int32_t *host_parents; /* host order */
  uint32_t *host_flags;
  rk_plugin_space space;
  double mpu;
  char *source_label, *target_label;
  rk_humanoid_map smap, tmap;
  rk_retargeter *rt;
  rk_retarget_options opts;
  double reduce_tol;
  /* Results of the last successful run. */
  rk_retarget_result *result;
  rk_clip *reduced;
  rk_reduce_stats reduce_stats;
  double run_seconds;
};

static void session_free(rk_plugin_session *s) {
  if (!s)
    return;
  rk_retarget_result_free(s->result);
  rk_clip_free(s->reduced);
  rk_retargeter_free(s->rt);
  rk_skeleton_unref(s->target);
  rk__plugin_asset_unref(s->source);
  rk__plugin_asset_unref(s->target_asset);
  g_free(s->host_to_skel);
  g_free(s->skel_to_host);
  g_free(s->host_parents);
  g_free(s->host_flags);
  g_free(s->source_label);
  g_free(s->target_label);
  s->kind = 0;
  g_free(s);
}

static int check_session(const rk_plugin_session *s, const char *fn, bool need_run, char *err,
                         size_t err_size) {
  if (!rk__plugin_is_live(s, RK__PLUGIN_SESSION))
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "%s: %s is not an open session handle", fn, s ? "the session" : "NULL");
  if (need_run && !s->result)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_STATE,
                           "%s: the session has no result yet (call session_run first)", fn);
  return RK_PLUGIN_OK;
}

/* ---- building ------------------------------------------------------------------------------ */

static int check_settings(const rk_plugin_settings *st, char *err, size_t err_size) {
  const struct {
    const char *name;
    int32_t v;
  } tri[] = {{"foot_ik", st->foot_ik}, {"hand_ik", st->hand_ik}, {"root_motion", st->root_motion}};
  for (size_t i = 0; i < G_N_ELEMENTS(tri); i++)
    if (tri[i].v != RK_PLUGIN_DEFAULT && tri[i].v != 0 && tri[i].v != 1)
      return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                             "settings.%s = %d: must be RK_PLUGIN_DEFAULT (-1), 0 or 1",
                             tri[i].name, (int)tri[i].v);
  if (!(isfinite(st->fps) && st->fps >= 0 && st->fps <= 10000))
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "settings.fps = %g: must be 0 (the profile's or the source's rate) or a "
                           "rate up to 10000",
                           st->fps);
  if (!(isfinite(st->reduce_tolerance_m) && st->reduce_tolerance_m >= 0 &&
        st->reduce_tolerance_m <= 10))
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "settings.reduce_tolerance_m = %g: must be within [0, 10] metres "
                           "(0 = no reduction)",
                           st->reduce_tolerance_m);
  return RK_PLUGIN_OK;
}

/* Builds the canonical target skeleton from the host's arrays; fills the host <-> skeleton maps;
 * with target meshes, the session's own target asset around them. */
static int build_host_skeleton(rk_plugin_session *s, const rk_plugin_session_desc *desc, char *err,
                               size_t err_size) {
  rk__plugin_host_rig rig;
  int st = rk__plugin_host_rig_build(desc->target_skeleton, &s->space, s->mpu, "target skeleton",
                                     &rig, err, err_size);
  if (st != RK_PLUGIN_OK)
    return st;
  if (desc->target_mesh_count &&
      (st = rk__plugin_host_target(desc, &rig, s->mpu, &s->target_asset, err, err_size))) {
    rk__plugin_host_rig_clear(&rig);
    return st;
  }
  s->target = rig.skeleton; /* the session takes over the rig's arrays */
  s->nt = rig.n;
  s->host_to_skel = rig.host_to_skel;
  s->skel_to_host = rig.skel_to_host;
  s->host_parents = rig.host_parents;
  s->host_flags = rig.host_flags;
  return RK_PLUGIN_OK;
}

/* The target is an opened asset: the host's order is the skeleton's. */
static void use_asset_skeleton(rk_plugin_session *s) {
  s->target = rk_skeleton_ref(rk_asset_skeleton(s->target_asset->asset));
  const size_t n = s->nt = rk_skeleton_joint_count(s->target);
  s->host_to_skel = g_new(int, n);
  s->skel_to_host = g_new(int, n);
  s->host_parents = g_new(int32_t, n);
  s->host_flags = g_new(uint32_t, n);
  for (size_t i = 0; i < n; i++) {
    s->host_to_skel[i] = s->skel_to_host[i] = (int)i;
    s->host_parents[i] = rk_skeleton_parent(s->target, i);
    s->host_flags[i] =
        (rk_skeleton_joint_flags(s->target, i) & RK_SKELETON_END_SITE) ? RK_PLUGIN_JOINT_END_SITE : 0;
  }
}

static char *label_of(const rk_plugin_asset *a) {
  const char *p = rk_asset_source_path(a->asset);
  return g_strdup_printf("'%s'", p && *p ? p : "asset");
}

/* Checks a session description before anything is built: handles, exclusive fields, the space
 * (*mpu: metres per unit), the settings and the clip index. */
static int check_desc(const rk_plugin_session_desc *desc, double *mpu, char *err, size_t err_size) {
  if (!desc)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT, "session_new: desc is NULL");
  if (!rk__plugin_is_live(desc->source, RK__PLUGIN_ASSET))
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT, "session_new: desc.source is %s",
                           desc->source ? "not an open asset handle" : "NULL");
  if (!desc->target_asset == !desc->target_skeleton)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "session_new: set exactly one of desc.target_asset and "
                           "desc.target_skeleton (%s set)",
                           desc->target_asset ? "both are" : "neither is");
  if (desc->target_asset && !rk__plugin_is_live(desc->target_asset, RK__PLUGIN_ASSET))
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "session_new: desc.target_asset is not an open asset handle");
  if (desc->target_mesh_count && (!desc->target_meshes || !desc->target_skeleton))
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "session_new: desc.target_mesh_count = %u needs desc.target_meshes and "
                           "desc.target_skeleton (an opened target has its own meshes)",
                           desc->target_mesh_count);
  if (desc->profile_path && desc->profile_text)
    return rk__plugin_fail(
        err, err_size, RK_PLUGIN_ERR_ARGUMENT,
        "session_new: set at most one of desc.profile_path and desc.profile_text");
  int st = rk__plugin_space_check(&desc->space, mpu, err, err_size);
  if (st != RK_PLUGIN_OK)
    return st;
  if ((st = check_settings(&desc->settings, err, err_size)) != RK_PLUGIN_OK)
    return st;
  const rk_asset *src = desc->source->asset;
  const size_t nclips = rk_asset_clip_count(src);
  if (desc->source_clip >= nclips)
    return rk__plugin_fail(err, err_size, nclips ? RK_PLUGIN_ERR_ARGUMENT : RK_PLUGIN_ERR_NOT_FOUND,
                           "%s: clip %u does not exist (the file has %zu clip%s)",
                           rk_asset_source_path(src) ? rk_asset_source_path(src) : "source",
                           desc->source_clip, nclips, nclips == 1 ? "" : "s");
  return RK_PLUGIN_OK;
}

/* Applies desc.settings_text, the body of a [settings] group, over *o (nothing when NULL). */
static int apply_settings_text(const char *text, rk_retarget_options *o, char *err,
                               size_t err_size) {
  if (!text)
    return RK_PLUGIN_OK;
  g_autoptr(GKeyFile) kf = g_key_file_new();
  g_autofree char *group = g_strconcat("[settings]\n", text, NULL);
  g_autoptr(GError) e = NULL;
  if (!g_key_file_load_from_data(kf, group, (gsize)-1, G_KEY_FILE_NONE, &e)) {
    g_prefix_error(&e, "settings_text: ");
    return rk__plugin_fail_gerror(err, err_size, e);
  }
  g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
  if (groups[1])
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_INVALID,
                           "settings_text: [%s]: only the keys of [settings] belong here (bone "
                           "maps go into the profile)",
                           groups[1]);
  if (!rk_retarget_options_from_keyfile(o, kf, "settings_text", &e))
    return rk__plugin_fail_gerror(err, err_size, e);
  return RK_PLUGIN_OK;
}

/* The retargeting options: defaults, the profile's [settings], settings_text, then the host's
 * typed settings. */
static int session_options(const rk_profile *profile, const rk_plugin_session_desc *desc,
                           rk_retarget_options *o, char *err, size_t err_size) {
  const rk_retarget_options defaults = RK_RETARGET_OPTIONS_INIT;
  *o = defaults;
  rk_profile_apply_settings(profile, o);
  int st = apply_settings_text(desc->settings_text, o, err, err_size);
  if (st != RK_PLUGIN_OK)
    return st;
  const rk_plugin_settings *set = &desc->settings;
  if (set->foot_ik != RK_PLUGIN_DEFAULT)
    o->foot_ik = set->foot_ik;
  if (set->hand_ik != RK_PLUGIN_DEFAULT)
    o->hand_ik = set->hand_ik;
  if (set->root_motion != RK_PLUGIN_DEFAULT)
    o->root_motion = set->root_motion;
  if (set->fps > 0)
    o->fps = set->fps;
  return RK_PLUGIN_OK;
}

int rk__plugin_session_new(const rk_plugin_session_desc *desc, rk_plugin_session **out, char *err,
                           size_t err_size) {
  if (!out)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT, "session_new: out is NULL");
  *out = NULL;
  double mpu;
  int st = check_desc(desc, &mpu, err, err_size);
  if (st != RK_PLUGIN_OK)
    return st;
  const rk_asset *src = desc->source->asset;

  /* The profile: read, checked and applied by the same core functions as the command line. */
  g_autoptr(rk_profile) profile = NULL;
  if (desc->profile_path || desc->profile_text) {
    g_autoptr(GError) e = NULL;
    profile = desc->profile_path ? rk_profile_load_file(desc->profile_path, &e)
                                 : rk_profile_load_text(desc->profile_text, NULL, &e);
    if (!profile)
      return rk__plugin_fail_gerror(err, err_size, e);
  }

  rk_plugin_session *s = g_new0(rk_plugin_session, 1);
  s->kind = RK__PLUGIN_SESSION;
  s->space = desc->space;
  s->mpu = mpu;
  s->source = rk__plugin_asset_ref((rk_plugin_asset *)desc->source);
  s->clip = rk_asset_clip(src, desc->source_clip);
  s->source_label = label_of(desc->source);
  if ((st = session_options(profile, desc, &s->opts, err, err_size)) != RK_PLUGIN_OK) {
    session_free(s);
    return st;
  }
  s->reduce_tol = desc->settings.reduce_tolerance_m;

  if (desc->target_asset) {
    s->target_asset = rk__plugin_asset_ref((rk_plugin_asset *)desc->target_asset);
    s->target_label = label_of(desc->target_asset);
    use_asset_skeleton(s);
  } else {
    s->target_label = g_strdup("(host skeleton)");
    if ((st = build_host_skeleton(s, desc, err, err_size)) != RK_PLUGIN_OK) {
      session_free(s);
      return st;
    }
  }
  rk_skeleton *src_skel = rk_asset_skeleton(src);
  g_autoptr(GError) e = NULL;
  /* Assets map with their skins (a game rig's control bones, legs ending in their meshes). */
  if (!rk_profile_map_asset(profile, src, RK_PROFILE_SOURCE, &s->smap, &e)) {
    g_prefix_error(&e, "source %s: ", s->source_label);
    goto gerror;
  }
  if (!(s->target_asset
            ? rk_profile_map_asset(profile, s->target_asset->asset, RK_PROFILE_TARGET, &s->tmap, &e)
            : rk_profile_map_rig(profile, s->target, RK_PROFILE_TARGET, &s->tmap, &e))) {
    g_prefix_error(&e, "target %s: ", s->target_label);
    goto gerror;
  }
  /* A target asset's meshes (an opened target's, or a host skeleton's target_meshes) give its
   * soles and body; a host skeleton without meshes has its bones only. The source asset's own
   * meshes tell how deep the clip itself goes through its floor (kept onto its own rig). */
  s->rt = s->target_asset
              ? rk_retargeter_new_between(src, &s->smap, s->target_asset->asset, &s->tmap, &e)
              : rk_retargeter_new(src_skel, &s->smap, s->target, &s->tmap, &e);
  if (!s->rt) {
    g_prefix_error(&e, "retarget %s onto %s: ", s->source_label, s->target_label);
    goto gerror;
  }
  rk__plugin_register(s, RK__PLUGIN_SESSION);
  *out = s;
  return RK_PLUGIN_OK;

gerror:
  st = rk__plugin_fail_gerror(err, err_size, e);
  session_free(s);
  return st;
}

int rk__plugin_session_close(rk_plugin_session *session) {
  if (!session)
    return RK_PLUGIN_OK;
  if (!rk__plugin_unregister(session, RK__PLUGIN_SESSION))
    return RK_PLUGIN_ERR_ARGUMENT;
  session_free(session);
  return RK_PLUGIN_OK;
}

/* ---- running ------------------------------------------------------------------------------- */

int rk__plugin_session_run(rk_plugin_session *s, char *err, size_t err_size) {
  int st = check_session(s, "session_run", false, err, err_size);
  if (st != RK_PLUGIN_OK)
    return st;
  g_clear_pointer(&s->result, rk_retarget_result_free);
  g_clear_pointer(&s->reduced, rk_clip_free);
  memset(&s->reduce_stats, 0, sizeof s->reduce_stats);
  const gint64 t0 = g_get_monotonic_time();
  g_autoptr(GError) e = NULL;
  rk_retarget_result *r = rk_retargeter_run(s->rt, s->clip, &s->opts, &e);
  if (!r) {
    g_prefix_error(&e, "retarget %s clip '%s' onto %s: ", s->source_label, rk_clip_name(s->clip),
                   s->target_label);
    return rk__plugin_fail_gerror(err, err_size, e);
  }
  if (s->reduce_tol > 0) {
    s->reduced = rk_clip_reduce(rk_retarget_result_clip(r), s->target, s->reduce_tol,
                                rk_retarget_result_fps(r), &s->reduce_stats, &e);
    if (!s->reduced) {
      rk_retarget_result_free(r);
      g_prefix_error(&e, "key reduction of clip '%s': ", rk_clip_name(s->clip));
      return rk__plugin_fail_gerror(err, err_size, e);
    }
  }
  s->result = r;
  s->run_seconds = (double)(g_get_monotonic_time() - t0) * 1e-6;
  return RK_PLUGIN_OK;
}

int rk__plugin_session_result(const rk_plugin_session *s, rk_plugin_result *out, char *err,
                              size_t err_size) {
  int st = check_session(s, "session_result", true, err, err_size);
  if (st != RK_PLUGIN_OK)
    return st;
  if (!out)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT, "session_result: out is NULL");
  const rk_retarget_result *r = s->result;
  const rk_clip *c = rk_retarget_result_clip(r);
  const rk_retarget_quality *q = rk_retarget_result_quality(r);
  const rk_retarget_quality *qfk = rk_retarget_result_quality_fk(r);
  memset(out, 0, sizeof *out);
  out->frames = (uint32_t)rk_retarget_result_frames(r);
  out->joint_count = (uint32_t)s->nt;
  out->fps = rk_retarget_result_fps(r);
  out->duration_s = rk_clip_duration(c);
  out->mapped_bones = (uint32_t)rk_retargeter_mapped_joints(s->rt);
  out->contact_count = (uint32_t)rk_retarget_result_contact_count(r);
  out->contact_frames = (uint32_t)q->contact_frames;
  out->joint_limit_violations = (uint32_t)MIN(q->joint_limit_violations, (size_t)UINT32_MAX);
  out->keys_baked = rk_clip_key_count_total(c);
  out->keys_output = s->reduced ? rk_clip_key_count_total(s->reduced) : out->keys_baked;
  out->reduce_max_error_m = s->reduced ? s->reduce_stats.max_error_m : 0;
  out->foot_skate_mean_mm = q->foot_skate_mean_mm;
  out->foot_skate_max_mm = q->foot_skate_max_mm;
  out->ik_goal_error_mean_mm = q->ik_goal_error_mean_mm;
  out->ik_goal_error_max_mm = q->ik_goal_error_max_mm;
  out->loop_closure_residual_max_mm = q->loop_closure_residual_max_mm;
  out->limb_direction_median_deg = q->limb_direction_median_deg;
  out->foot_skate_fk_max_mm = qfk ? qfk->foot_skate_max_mm : 0;
  out->run_seconds = s->run_seconds;
  return RK_PLUGIN_OK;
}

/* ---- reading ------------------------------------------------------------------------------- */

int rk__plugin_session_joints(const rk_plugin_session *s, uint32_t capacity, const char **names,
                              int32_t *parents, float *rest, uint32_t *flags, char *err,
                              size_t err_size) {
  int st = check_session(s, "session_joints", false, err, err_size);
  if (st != RK_PLUGIN_OK)
    return st;
  if (capacity < s->nt)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_CAPACITY,
                           "session_joints: capacity %u is less than the %zu target joints",
                           capacity, s->nt);
  for (size_t h = 0; h < s->nt; h++) {
    const size_t k = (size_t)s->host_to_skel[h];
    if (names)
      names[h] = rk_skeleton_joint_name(s->target, k);
    if (parents)
      parents[h] = s->host_parents[h];
    if (rest)
      rk__plugin_from_canonical(rk_skeleton_rest(s->target, k), &s->space, s->mpu,
                                s->host_parents[h] < 0, rest + h * RK_PLUGIN_TRS_FLOATS);
    if (flags)
      flags[h] = s->host_flags[h];
  }
  return RK_PLUGIN_OK;
}

/* One canonical local pose of target joint k (host joint h) -> the host's form, per channel (each
 * channel's conversion depends only on that channel, so tracks convert key by key). */
static void to_host(const rk_plugin_session *s, size_t h, size_t k, int32_t keys,
                    const rk_transform *x, float *t3, float *r4, float *s3) {
  if (keys == RK_PLUGIN_KEYS_REST_RELATIVE) {
    const rk_transform *rest = rk_skeleton_rest(s->target, k);
    const rk_quat ri = rk_quat_conj(rest->r);
    if (t3) {
      rk_vec3 d = rk_quat_rotate(ri, rk_vec3_sub(x->t, rest->t));
      t3[0] = (float)(d.x / rest->s.x / s->mpu);
      t3[1] = (float)(d.y / rest->s.y / s->mpu);
      t3[2] = (float)(d.z / rest->s.z / s->mpu);
    }
    if (r4) {
      rk_quat q = rk_quat_normalize(rk_quat_mul(ri, x->r));
      r4[0] = (float)q.x, r4[1] = (float)q.y, r4[2] = (float)q.z, r4[3] = (float)q.w;
    }
    if (s3) {
      s3[0] = (float)(x->s.x / rest->s.x);
      s3[1] = (float)(x->s.y / rest->s.y);
      s3[2] = (float)(x->s.z / rest->s.z);
    }
    return;
  }
  float trs[RK_PLUGIN_TRS_FLOATS];
  rk__plugin_from_canonical(x, &s->space, s->mpu, s->host_parents[h] < 0, trs);
  if (t3)
    memcpy(t3, trs, 3 * sizeof(float));
  if (r4)
    memcpy(r4, trs + 3, 4 * sizeof(float));
  if (s3)
    memcpy(s3, trs + 7, 3 * sizeof(float));
}

static void make_continuous(float *q, const float *prev) {
  if (q[0] * prev[0] + q[1] * prev[1] + q[2] * prev[2] + q[3] * prev[3] < 0)
    for (int c = 0; c < 4; c++)
      q[c] = -q[c];
}

static int check_keys_mode(int32_t keys, const char *fn, char *err, size_t err_size) {
  if (keys != RK_PLUGIN_KEYS_LOCAL && keys != RK_PLUGIN_KEYS_REST_RELATIVE)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "%s: keys = %d: must be RK_PLUGIN_KEYS_LOCAL (0) or "
                           "RK_PLUGIN_KEYS_REST_RELATIVE (1)",
                           fn, (int)keys);
  return RK_PLUGIN_OK;
}

int rk__plugin_session_keys(const rk_plugin_session *s, int32_t keys, uint32_t first_frame,
                            uint32_t frame_count, float *translations, float *rotations,
                            float *scales, char *err, size_t err_size) {
  int st = check_session(s, "session_keys", true, err, err_size);
  if (st != RK_PLUGIN_OK || (st = check_keys_mode(keys, "session_keys", err, err_size)))
    return st;
  const size_t frames = rk_retarget_result_frames(s->result);
  if ((uint64_t)first_frame + frame_count > frames)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "session_keys: frames %u..%llu requested, the result has frames 0..%zu",
                           first_frame, (unsigned long long)first_frame + frame_count - 1,
                           frames - 1);
  const rk_clip *c = rk_retarget_result_clip(s->result);
  const double fps = rk_retarget_result_fps(s->result);
  const rk_transform *rest = rk_skeleton_rest_locals(s->target);
  const size_t nt = s->nt;
  g_autofree rk_transform *pose = g_new(rk_transform, nt);
  for (size_t i = 0; i < frame_count; i++) {
    const size_t f = first_frame + i;
    rk_clip_sample_frame(c, rest, fps, f, pose, nt);
    for (size_t h = 0; h < nt; h++) {
      const size_t k = (size_t)s->host_to_skel[h], o = i * nt + h;
      float *r4 = rotations ? rotations + o * 4 : NULL;
      to_host(s, h, k, keys, &pose[k], translations ? translations + o * 3 : NULL, r4,
              scales ? scales + o * 3 : NULL);
      if (r4 && i > 0)
        make_continuous(r4, r4 - nt * 4);
    }
  }
  return RK_PLUGIN_OK;
}

int rk__plugin_session_track(const rk_plugin_session *s, uint32_t joint, int32_t channel,
                             int32_t keys, uint32_t capacity, float *frames, float *values,
                             uint32_t *count, char *err, size_t err_size) {
  int st = check_session(s, "session_track", true, err, err_size);
  if (st != RK_PLUGIN_OK || (st = check_keys_mode(keys, "session_track", err, err_size)))
    return st;
  if (joint >= s->nt)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "session_track: joint %u out of range (the target has %zu joints)",
                           joint, s->nt);
  if (channel < RK_PLUGIN_CHANNEL_TRANSLATION || channel > RK_PLUGIN_CHANNEL_SCALE)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "session_track: channel %d: must be 0 (translation), 1 (rotation) or "
                           "2 (scale)",
                           (int)channel);
  if (!count)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT, "session_track: count is NULL");
  const size_t k = (size_t)s->host_to_skel[joint];
  const rk_clip *c = s->reduced ? s->reduced : rk_retarget_result_clip(s->result);
  const rk_channel ch = channel == RK_PLUGIN_CHANNEL_TRANSLATION ? RK_CHANNEL_TRANSLATION
                        : channel == RK_PLUGIN_CHANNEL_ROTATION  ? RK_CHANNEL_ROTATION
                                                                 : RK_CHANNEL_SCALE;
  const int ti = rk_clip_find_track(c, (int)k, ch);
  const rk_track *tr = ti >= 0 ? rk_clip_track(c, (size_t)ti) : NULL;
  const size_t n = tr ? tr->key_count : 1;
  *count = (uint32_t)MIN(n, (size_t)UINT32_MAX);
  if (capacity < n)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_CAPACITY,
                           "session_track: joint '%s' %s has %zu keys, capacity is %u",
                           rk_skeleton_joint_name(s->target, k), rk_channel_name(ch), n, capacity);
  if (!frames || !values)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "session_track: frames and values are required");
  const double fps = rk_retarget_result_fps(s->result);
  const int nc = ch == RK_CHANNEL_ROTATION ? 4 : 3;
  const int stride = tr && tr->interp == RK_INTERP_CUBIC ? 3 : 1;
  for (size_t i = 0; i < n; i++) {
    rk_transform x = *rk_skeleton_rest(s->target, k);
    if (tr) {
      const double *v = tr->values + (i * (size_t)stride + (stride == 3 ? 1 : 0)) * (size_t)nc;
      if (ch == RK_CHANNEL_TRANSLATION)
        x.t = rk_vec3_make(v[0], v[1], v[2]);
      else if (ch == RK_CHANNEL_ROTATION)
        x.r = rk_quat_normalize(rk_quat_make(v[0], v[1], v[2], v[3]));
      else
        x.s = rk_vec3_make(v[0], v[1], v[2]);
    }
    frames[i] = tr ? (float)nearbyint(tr->times[i] * fps) : 0.0f;
    float *dst = values + i * (size_t)nc;
    to_host(s, joint, k, keys, &x, ch == RK_CHANNEL_TRANSLATION ? dst : NULL,
            ch == RK_CHANNEL_ROTATION ? dst : NULL, ch == RK_CHANNEL_SCALE ? dst : NULL);
    if (ch == RK_CHANNEL_ROTATION && i > 0)
      make_continuous(dst, dst - 4);
  }
  return RK_PLUGIN_OK;
}

int rk__plugin_session_contact(const rk_plugin_session *s, uint32_t index, int32_t *joint,
                               uint32_t capacity, int32_t *intervals, uint32_t *count, char *err,
                               size_t err_size) {
  int st = check_session(s, "session_contact", true, err, err_size);
  if (st != RK_PLUGIN_OK)
    return st;
  const size_t nc = rk_retarget_result_contact_count(s->result);
  if (index >= nc)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "session_contact: contact %u out of range (%zu contacts)", index, nc);
  if (!joint || !count)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "session_contact: joint and count are required");
  const rk_foot_contacts fc = rk_retarget_result_contacts(s->result, index);
  *joint = s->skel_to_host[fc.joint];
  *count = (uint32_t)fc.count;
  if (capacity < fc.count)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_CAPACITY,
                           "session_contact: joint '%s' has %zu intervals, capacity is %u",
                           rk_skeleton_joint_name(s->target, (size_t)fc.joint), fc.count, capacity);
  if (fc.count && !intervals)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "session_contact: intervals is NULL");
  for (size_t i = 0; i < fc.count; i++) {
    intervals[2 * i] = fc.intervals[i].first;
    intervals[2 * i + 1] = fc.intervals[i].last;
  }
  return RK_PLUGIN_OK;
}

int rk__plugin_session_map_text(const rk_plugin_session *s, char *text, size_t text_size,
                                size_t *needed, char *err, size_t err_size) {
  int st = check_session(s, "session_map_text", false, err, err_size);
  if (st != RK_PLUGIN_OK)
    return st;
  const rk_skeleton *src = rk_asset_skeleton(s->source->asset);
  GString *g = g_string_new(NULL);
  g_string_append_printf(g, "%-16s %-28s %-28s\n", "bone", "source", "target");
  for (int b = 0; b < RK_BONE_COUNT; b++) {
    char *cell[2];
    const rk_humanoid_map *m[2] = {&s->smap, &s->tmap};
    const rk_skeleton *sk[2] = {src, s->target};
    for (int i = 0; i < 2; i++)
      cell[i] =
          m[i]->joint[b] < 0
              ? g_strdup("-")
              : g_strdup_printf("%s (%s)", rk_skeleton_joint_name(sk[i], (size_t)m[i]->joint[b]),
                                rk_bone_source_name(m[i]->source[b]));
    g_string_append_printf(g, "%-16s %-28s %-28s\n", rk_bone_name((rk_bone)b), cell[0], cell[1]);
    g_free(cell[0]);
    g_free(cell[1]);
  }
  if (needed)
    *needed = g->len + 1;
  rk__plugin_copy_text(text, text_size, g->str);
  g_string_free(g, TRUE);
  return RK_PLUGIN_OK;
}

/* True when the target was read from a glTF/GLB file that is still there and path asks for
 * glTF/GLB: the export then edits that document instead of rebuilding it from rigkit's model. */
static bool edits_own_document(const rk_asset *target, const char *path) {
  const char *src = target ? rk_asset_source_path(target) : NULL;
  return rk_gltf_edit_applies(target, path, RK_EXPORT_AUTO) && src && *src &&
         g_file_test(src, G_FILE_TEST_IS_REGULAR);
}

int rk__plugin_session_export(const rk_plugin_session *s, const char *path, char *err,
                              size_t err_size) {
  int st = check_session(s, "session_export", true, err, err_size);
  if (st != RK_PLUGIN_OK)
    return st;
  if (!path || !*path)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "session_export: the path is NULL or empty");
  g_autoptr(GError) e = NULL;
  const rk_clip *keys = s->reduced ? s->reduced : rk_retarget_result_clip(s->result);
  const rk_asset *ta = s->target_asset ? s->target_asset->asset : NULL;
  if (edits_own_document(ta, path)) {
    /* A glTF character goes out as it came in (textures, extensions, extras): its own document
     * with the clip as its animation. */
    if (!rk_gltf_edit_write(rk_asset_source_path(ta), ta, keys, path, &e))
      return rk__plugin_fail_gerror(err, err_size, e);
    return RK_PLUGIN_OK;
  }
  rk_clip *clip = rk_clip_copy(keys);
  g_autoptr(rk_asset) out = rk_retarget_output_asset(s->target, ta, clip, &e);
  if (!out)
    return rk__plugin_fail_gerror(err, err_size, e);
  if (!rk_export_file(out, path, NULL, &e))
    return rk__plugin_fail_gerror(err, err_size, e);
  return RK_PLUGIN_OK;
}
