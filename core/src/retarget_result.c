/* Retargeting, the result: keys stored frame by frame and baked into the target clip, what a
 * result hands out (clip, contacts, quality, foot tracks before and after IK), and the output
 * asset (the target character carrying the retargeted clip). */
#include "retarget_run.h"

#include "clip_internal.h"

#include <rigkit/error.h>

#include <string.h>

rk_retarget_result *rk__rt_result_new(const rk__rt_run *c) {
  const size_t frames = c->frames, nf = c->rt->foot_count;
  rk_retarget_result *res = g_new0(rk_retarget_result, 1);
  res->frames = frames;
  res->fps = c->fps;
  res->contact_count = nf;
  res->foot_ik = c->opts->foot_ik;
  res->heights_fk = g_new(double, frames * (nf ? nf : 1));
  res->heights_ik = g_new(double, frames * (nf ? nf : 1));
  res->fk_positions = g_new(rk_vec3, frames * (nf ? nf : 1));
  res->sole_fk = g_new(rk_vec3, frames * RK__RT_SOLE_SLOTS);
  res->sole_ik = g_new(rk_vec3, frames * RK__RT_SOLE_SLOTS);
  res->phase = g_new0(guint8, frames * 2);
  return res;
}

/* ---- keys ------------------------------------------------------------------------------------ */

void rk__rt_keys_init(rk__rt_run *c) {
  const size_t nt = c->rt->nt, frames = c->frames;
  rk__rt_keys *bb = &c->keys;
  /* Keys on the output grid (the source is sampled at the same times, held past its end); the
   * times come from the run's scratch, the values are the arrays the clip's tracks will own
   * (translations only where the run moves them: elsewhere every key is the rest's). */
  rk_clip_bake_times(c->duration, c->fps, frames, bb->times);
  bb->rot = g_new(double *, nt);
  bb->inv = g_new(double *, nt);
  bb->trans = g_new0(double *, nt);
  for (size_t j = 0; j < nt; j++) {
    bb->rot[j] = g_new(double, frames * 4);
    bb->inv[j] = g_new(double, frames);
    if (c->tgt_moves[j])
      bb->trans[j] = g_new(double, frames * 3);
  }
  bb->rot_used = g_new0(bool, nt);
  bb->trans_used = g_new0(bool, nt);
}

void rk__rt_key_frame(rk__rt_run *c, size_t f) {
  const size_t nt = c->rt->nt;
  const rk_transform *trest = rk_skeleton_rest_locals(c->rt->tgt);
  rk__rt_keys *bb = &c->keys;
  for (size_t j = 0; j < nt; j++) {
    rk_quat r = c->tgt_locals[j].r;
    double *dst = bb->rot[j] + f * 4;
    if (f > bb->first && r.x * dst[-4] + r.y * dst[-3] + r.z * dst[-2] + r.w * dst[-1] < 0)
      r = rk_quat_make(-r.x, -r.y, -r.z, -r.w); /* same hemisphere as the previous key */
    dst[0] = r.x, dst[1] = r.y, dst[2] = r.z, dst[3] = r.w;
    bb->inv[j][f] = rk__clip_inv_norm(r);
    /* A channel found moving once is kept: no need to measure it again (an acos a joint). */
    if (!bb->rot_used[j] && rk_quat_angle_between(r, trest[j].r) > 1e-9)
      bb->rot_used[j] = true;
    if (!bb->trans[j])
      continue;
    double *tr = bb->trans[j] + f * 3;
    tr[0] = c->tgt_locals[j].t.x, tr[1] = c->tgt_locals[j].t.y, tr[2] = c->tgt_locals[j].t.z;
    if (!bb->trans_used[j] &&
        rk_vec3_norm(rk_vec3_sub(c->tgt_locals[j].t, trest[j].t)) > 1e-9 * c->rt->tmap.height)
      bb->trans_used[j] = true;
  }
}

void rk__rt_bake(rk__rt_run *c) {
  const size_t nt = c->rt->nt;
  rk__rt_keys *bb = &c->keys;
  /* Frame times increase strictly on the grid (rk_clip_bake_times). */
  size_t nkeys = c->frames;
  while (nkeys > 1 && !(bb->times[nkeys - 1] > bb->times[nkeys - 2]))
    nkeys--;
  rk_retarget_result *res = c->res;
  res->clip = rk_clip_new(rk_clip_name(c->clip), nt);
  rk_clip_set_fps(res->clip, c->fps);
  /* The used channels' arrays go to the clip as they are (each track its own times): every
   * frame's pose was finite (solve_frames), its rotations unit, its times increasing. */
  for (size_t j = 0; j < nt; j++) {
    if (bb->rot_used[j]) {
      const rk_track tr = {(int)j, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, nkeys,
                           g_memdup2(bb->times, nkeys * sizeof(double)), bb->rot[j]};
      rk__clip_adopt_track(res->clip, &tr, bb->inv[j]);
      bb->rot[j] = bb->inv[j] = NULL;
    }
    if (bb->trans_used[j]) {
      const rk_track tr = {(int)j, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, nkeys,
                           g_memdup2(bb->times, nkeys * sizeof(double)), bb->trans[j]};
      rk__clip_adopt_track(res->clip, &tr, NULL);
      bb->trans[j] = NULL;
    }
  }
  rk_clip_set_duration(res->clip, rk_clip_bake_duration(c->duration, c->fps));
}

/* ---- the result ------------------------------------------------------------------------------ */

void rk_retarget_result_free(rk_retarget_result *r) {
  if (!r)
    return;
  rk_clip_free(r->clip);
  for (int i = 0; i < RK__RT_MAX_FEET; i++)
    if (r->intervals[i])
      g_array_unref(r->intervals[i]);
  for (int side = 0; side < 2; side++) {
    for (int p = 0; p < RK__RT_POINTS; p++)
      if (r->points[side][p])
        g_array_unref(r->points[side][p]);
    if (r->slides[side])
      g_array_unref(r->slides[side]);
  }
  g_free(r->sole_fk);
  g_free(r->lift);
  g_free(r->look_floor);
  g_free(r->look_feet_floor);
  g_free(r->sole_ik);
  g_free(r->phase);
  g_free(r->heights_fk);
  g_free(r->heights_ik);
  g_free(r->fk_positions);
  g_free(r);
}

const rk_clip *rk_retarget_result_clip(const rk_retarget_result *r) {
  return r->clip;
}

rk_clip *rk_retarget_result_take_clip(rk_retarget_result *r) {
  rk_clip *c = r->clip;
  r->clip = NULL;
  return c;
}

size_t rk_retarget_result_frames(const rk_retarget_result *r) {
  return r->frames;
}

double rk_retarget_result_fps(const rk_retarget_result *r) {
  return r->fps;
}

double rk_retarget_result_ground_offset(const rk_retarget_result *r) {
  return r->ground_offset;
}

size_t rk_retarget_result_contact_count(const rk_retarget_result *r) {
  return r->contact_count;
}

rk_foot_contacts rk_retarget_result_contacts(const rk_retarget_result *r, size_t i) {
  return rk__rt_contacts(r, i);
}

const rk_retarget_quality *rk_retarget_result_quality(const rk_retarget_result *r) {
  return &r->quality;
}

const rk_retarget_quality *rk_retarget_result_quality_fk(const rk_retarget_result *r) {
  return &r->quality_fk;
}

rk_vec3 rk_retarget_result_ground_velocity(const rk_retarget_result *r, bool *in_place) {
  if (in_place)
    *in_place = r->in_place;
  return r->ground_velocity;
}

const double *rk_retarget_result_heights(const rk_retarget_result *r, bool after_ik) {
  return after_ik ? r->heights_ik : r->heights_fk;
}

const rk_vec3 *rk_retarget_result_fk_positions(const rk_retarget_result *r) {
  return r->fk_positions;
}

static const char *const phase_names[RK_FOOT_PHASES] = {"swing", "heel-strike", "flat",
                                                        "toe-off", "pivot", "slide"};

const char *rk_foot_phase_name(rk_foot_phase phase) {
  return (unsigned)phase < RK_FOOT_PHASES ? phase_names[phase] : "?";
}

rk_foot_phase rk_retarget_result_phase(const rk_retarget_result *r, int side, size_t frame) {
  return side >= 0 && side < 2 && frame < r->frames ? (rk_foot_phase)r->phase[frame * 2 + (size_t)side]
                                                   : RK_FOOT_SWING;
}

rk_foot_contacts rk_retarget_result_sole_contacts(const rk_retarget_result *r, int side,
                                                  rk_sole_point point) {
  rk_foot_contacts fc = {-1, 0, NULL};
  if (side >= 0 && side < 2 && (unsigned)point < RK__RT_POINTS && r->points[side][point]) {
    fc.joint = r->sole_joint[side][point];
    fc.count = r->points[side][point]->len;
    fc.intervals = (const rk_contact_interval *)(void *)r->points[side][point]->data;
  }
  return fc;
}

const rk_vec3 *rk_retarget_result_soles(const rk_retarget_result *r, bool after_ik) {
  return after_ik ? r->sole_ik : r->sole_fk;
}

double rk_retarget_result_floor(const rk_retarget_result *r) {
  return r->tgt_floor;
}

/* ---- the output asset ------------------------------------------------------------------------ */

rk_asset *rk_retarget_output_asset(rk_skeleton *skeleton, const rk_asset *meshes_from,
                                   rk_clip *clip, GError **error) {
  rk_asset *out = rk_asset_new(skeleton);
  if (!rk_asset_add_clip(out, clip)) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "clip '%s' animates %zu joints, the target has %zu",
                rk_clip_name(clip), rk_clip_joint_count(clip), rk_skeleton_joint_count(skeleton));
    rk_clip_free(clip);
    rk_asset_free(out);
    return NULL;
  }
  if (!meshes_from)
    return out;
  const size_t n = rk_skeleton_joint_count(skeleton);
  for (size_t m = 0; m < rk_asset_mesh_count(meshes_from); m++) {
    rk_mesh *copy = rk_mesh_new(rk_mesh_data_get(rk_asset_mesh(meshes_from, m)), n, error);
    if (!copy) {
      g_prefix_error(error, "target mesh %zu: ", m);
      rk_asset_free(out);
      return NULL;
    }
    rk_asset_add_mesh(out, copy);
  }
  rk_asset_set_source(out, rk_asset_source_format(meshes_from), rk_asset_source_path(meshes_from));
  return out;
}
