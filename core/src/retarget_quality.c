/* Retargeting, quality: foot skate, pin errors, loop closure, knees bent backwards and limb
 * directions, measured frame by frame during a run and on baked clips (rk_retarget_measure). */
#include "retarget_quality.h"

#include "clip_player.h"
#include "stats.h"

#include <string.h>

/* The limbs whose directions the quality figures compare. */
static const rk_bone limb_bones[8][2] = {
    {RK_BONE_LEFT_UPPER_ARM, RK_BONE_LEFT_FOREARM},   {RK_BONE_LEFT_FOREARM, RK_BONE_LEFT_HAND},
    {RK_BONE_RIGHT_UPPER_ARM, RK_BONE_RIGHT_FOREARM}, {RK_BONE_RIGHT_FOREARM, RK_BONE_RIGHT_HAND},
    {RK_BONE_LEFT_UPPER_LEG, RK_BONE_LEFT_LOWER_LEG}, {RK_BONE_LEFT_LOWER_LEG, RK_BONE_LEFT_FOOT},
    {RK_BONE_RIGHT_UPPER_LEG, RK_BONE_RIGHT_LOWER_LEG}, {RK_BONE_RIGHT_LOWER_LEG, RK_BONE_RIGHT_FOOT}};

/* c clamped into [-1, 1] (a NaN gives 1). */
static double clamp_cos(double c) {
  return fmax(-1.0, fmin(1.0, c));
}

/* Angle in degrees whose cosine is c (clamped into [-1, 1]). */
static double angle_deg(double c) {
  return acos(clamp_cos(c)) / RK_DEG;
}

/* World positions of `joints` (-1: the origin) at every frame of a clip of skeleton s sampled at
 * rate fps: frames x nj, frame-major (g_free). */
static rk_vec3 *clip_positions(const rk_skeleton *s, const rk_clip *c, double fps, size_t frames,
                               const int *joints, size_t nj) {
  rk__clip_player p;
  rk__clip_player_init(&p, s, c, joints, nj);
  rk_vec3 *out = g_new0(rk_vec3, frames * (nj ? nj : 1));
  for (size_t f = 0; f < frames; f++) {
    rk__clip_player_at(&p, (double)f / fps); /* as rk_clip_sample_frame */
    for (size_t k = 0; k < nj; k++)
      if (joints[k] >= 0)
        out[f * nj + k] = rk_mat4_get_translation(&p.models[joints[k]]);
  }
  rk__clip_player_clear(&p);
  return out;
}

/* The joint of skeleton s named as target joint j of the retargeter, or -1. */
static int same_joint(const rk_retargeter *rt, const rk_skeleton *s, int j) {
  return rk_skeleton_find_joint(s, rk_skeleton_joint_name(rt->tgt, (size_t)j));
}

/* ---- skate ----------------------------------------------------------------------------------- */

/* Skate of one joint's positions over its intervals: accumulates sum/count/max (mm). */
static void skate_of(const rk_vec3 *pos, size_t stride, const GArray *iv, double *sum, size_t *n,
                     double *max) {
  for (guint i = 0; i < iv->len; i++) {
    const rk_contact_interval *c = &g_array_index(iv, rk_contact_interval, i);
    rk_vec3 p0 = pos[(size_t)c->first * stride];
    for (int f = c->first; f <= c->last; f++) {
      double d = 1000.0 * rk_vec3_norm(rk__rt_horizontal(rk_vec3_sub(pos[(size_t)f * stride], p0)));
      *sum += d;
      (*n)++;
      *max = fmax(*max, d);
    }
  }
}

void rk_retarget_measure(const rk_skeleton *skeleton, const rk_clip *clip, double fps,
                         const char *const *joint_names, const rk_foot_contacts *contacts,
                         size_t contact_count, rk_retarget_quality *out) {
  memset(out, 0, sizeof *out);
  const size_t n = rk_skeleton_joint_count(skeleton);
  if (!(fps > 0) || contact_count == 0 || rk_clip_joint_count(clip) != n)
    return;
  const size_t frames = (size_t)llround(rk_clip_duration(clip) * fps) + 1;
  g_autofree int *joints = g_new(int, contact_count);
  for (size_t k = 0; k < contact_count; k++)
    joints[k] = rk_skeleton_find_joint(skeleton, joint_names[k]);
  g_autofree rk_vec3 *pos = clip_positions(skeleton, clip, fps, frames, joints, contact_count);
  g_autofree bool *any = g_new0(bool, frames);
  double sum = 0;
  size_t cnt = 0;
  for (size_t k = 0; k < contact_count; k++) {
    if (joints[k] < 0)
      continue;
    g_autoptr(GArray) iv = g_array_new(FALSE, FALSE, sizeof(rk_contact_interval));
    for (size_t i = 0; i < contacts[k].count; i++) {
      rk_contact_interval c = contacts[k].intervals[i];
      if (c.first < 0 || c.last >= (int)frames || c.first > c.last)
        continue;
      g_array_append_val(iv, c);
      for (int f = c.first; f <= c.last; f++)
        any[f] = true;
    }
    skate_of(pos + k, contact_count, iv, &sum, &cnt, &out->foot_skate_max_mm);
  }
  out->foot_skate_mean_mm = cnt ? sum / (double)cnt : 0;
  for (size_t f = 0; f < frames; f++)
    out->contact_frames += any[f];
}

/* ---- per frame ------------------------------------------------------------------------------- */

/* The largest x whose acos is 10 degrees or more: acos falls as x rises, so acos(x) < 10 degrees
 * exactly when x is above it, and a frame's test takes no acos. Found once by bisection over the
 * doubles in [0.5, 1] (positive doubles order as their bits). */
static double bent_cos(void) {
  static gsize once;
  static double x;
  if (g_once_init_enter(&once)) {
    uint64_t lo, hi;
    const double a = 0.5, b = 1.0;
    memcpy(&lo, &a, sizeof lo);
    memcpy(&hi, &b, sizeof hi);
    while (hi - lo > 1) {
      const uint64_t mid = lo + (hi - lo) / 2;
      double m;
      memcpy(&m, &mid, sizeof m);
      if (acos(m) >= 10 * RK_DEG)
        lo = mid;
      else
        hi = mid;
    }
    memcpy(&x, &lo, sizeof x);
    g_once_init_leave(&once, 1);
  }
  return x;
}

/* A knee bends backwards when it sits behind the hip-ankle line (pelvis frame) by more than 1% of
 * the leg while the leg is bent by more than 10 degrees. */
static bool knee_backwards(const rk_mat4 *models, int hip, int knee, rk_vec3 c, rk_vec3 forward) {
  rk_vec3 a = rk_mat4_get_translation(&models[hip]), k = rk_mat4_get_translation(&models[knee]);
  rk_vec3 u = rk_vec3_sub(k, a), v = rk_vec3_sub(c, k);
  double lu = rk_vec3_norm(u), lv = rk_vec3_norm(v);
  if (lu <= 0 || lv <= 0)
    return false;
  /* The bend acos(cos) under 10 degrees. */
  if (clamp_cos(rk_vec3_dot(u, v) / (lu * lv)) > bent_cos())
    return false;
  rk_vec3 line = rk_vec3_normalize(rk_vec3_sub(c, a));
  rk_vec3 off = rk_vec3_sub(u, rk_vec3_scale(line, rk_vec3_dot(u, line)));
  return rk_vec3_dot(off, forward) < -0.01 * (lu + lv);
}

void rk__rt_measure_frame(rk__rt_run *c, size_t f) {
  const rk_retargeter *rt = c->rt;
  const size_t nf = rt->foot_count;
  rk__rt_tally *t = &c->tally;
  for (size_t k = 0; k < nf; k++)
    c->res->heights_ik[f * nf + k] = c->tgt_models[rt->contact_joint[k]].m[13] - rt->tmap.ground;
  /* Sole points as written, and the errors of the fully planted ones against their pins (raised
   * by a lift out of the floor: the mesh then stands on the floor, measured below). */
  for (int side = 0; side < 2; side++) {
    rk_vec3 *pts = c->res->sole_ik + f * RK__RT_SOLE_SLOTS + (size_t)side * RK__RT_POINTS;
    rk_sole_at(c->tsole[side], c->tgt_models, pts);
    const rk__rt_foot_goal *g = &c->ik.goal[side];
    for (int p = 0; g->active && p < RK__RT_POINTS; p++) {
      if (g->w[p] < 1.0)
        continue;
      const rk_vec3 pin = rk_vec3_add(g->pin[p], rk_vec3_make(0, g->lift, 0));
      const double e = 1000.0 * rk_vec3_norm(rk_vec3_sub(pts[p], pin));
      if (t->goal_errs)
        t->goal_errs[t->goal_err_n] = e;
      else
        t->goal_err_sum += e;
      t->goal_err_n++;
      t->goal_err_max = fmax(t->goal_err_max, e);
      if (e > 1.0)
        g_debug("retarget '%s' frame %zu: the %s %s misses its pin by %.3f mm", rk_clip_name(c->clip),
                f, side ? "right" : "left", p == RK_SOLE_HEEL ? "heel" : p == RK_SOLE_BALL ? "ball" : "toe tip", e);
    }
  }
  /* Knees bent backwards in the pelvis' facing. */
  rk_vec3 fwd = rk_quat_rotate(rk_quat_mul(c->tgt_world[rt->tgt_hips], rk_quat_conj(rt->qt0[rt->tgt_hips])),
                               rt->tmap.forward);
  for (int side = 0; side < 2; side++) {
    t->limit_violations += knee_backwards(c->tgt_models, rt->side[side].upper, rt->side[side].knee,
                                          rk__rt_ankle(&rt->side[side], c->tgt_models), fwd);
  }
  /* Limb directions vs the source's. */
  for (int l = 0; l < 8; l++) {
    int ta = rt->tmap.joint[limb_bones[l][0]], tb = rt->tmap.joint[limb_bones[l][1]];
    int sa = rt->smap.joint[limb_bones[l][0]], sb = rt->smap.joint[limb_bones[l][1]];
    if (ta < 0 || tb < 0 || sa < 0 || sb < 0)
      continue;
    rk_vec3 td = rk_vec3_sub(rk_mat4_get_translation(&c->tgt_models[tb]), rk_mat4_get_translation(&c->tgt_models[ta]));
    rk_vec3 sd = rk_quat_rotate(rt->align, rk_vec3_sub(rk__rt_src_pos(c, sb), rk__rt_src_pos(c, sa)));
    t->limb_cos[t->limb_n++] = clamp_cos(rk_vec3_dot(rk_vec3_normalize(td), rk_vec3_normalize(sd)));
  }
}

/* Skate of the planted sole points in pts (frames x RK__RT_SOLE_SLOTS): their horizontal drift
 * from each interval's first frame, mean and max (mm), and the frames with any point planted. */
static void sole_skate(const rk_retarget_result *res, const rk_vec3 *pts, rk_retarget_quality *q) {
  double sum = 0, mx = 0;
  size_t cnt = 0;
  g_autofree bool *any = g_new0(bool, res->frames);
  for (int side = 0; side < 2; side++)
    for (int p = 0; p < RK__RT_POINTS; p++) {
      const GArray *iv = res->points[side][p];
      skate_of(pts + side * RK__RT_POINTS + p, RK__RT_SOLE_SLOTS, iv, &sum, &cnt, &mx);
      for (guint i = 0; i < iv->len; i++)
        for (int f = g_array_index(iv, rk_contact_interval, i).first;
             f <= g_array_index(iv, rk_contact_interval, i).last; f++)
          any[f] = true;
    }
  q->foot_skate_mean_mm = cnt ? sum / (double)cnt : 0;
  q->foot_skate_max_mm = mx;
  q->contact_frames = 0;
  for (size_t f = 0; f < res->frames; f++)
    q->contact_frames += any[f];
}

void rk__rt_finish_quality(rk__rt_run *c) {
  rk_retarget_result *res = c->res;
  const rk__rt_tally *t = &c->tally;
  /* The planted sole points as written, and as the transfer alone leaves them. */
  sole_skate(res, res->sole_ik, &res->quality);
  sole_skate(res, res->sole_fk, &res->quality_fk);
  res->quality.ik_goal_error_mean_mm = t->goal_err_n ? t->goal_err_sum / (double)t->goal_err_n : 0;
  res->quality.ik_goal_error_max_mm = t->goal_err_max;
  res->quality.loop_closure_residual_max_mm = 1000.0 * t->closure_max;
  res->quality.joint_limit_violations = t->limit_violations;
  res->quality.loop_frames = t->loop_frames;
  res->quality.lifted_frames = res->lifted_frames;
  res->quality.pelvis_frames = res->pelvis_frames;
  res->quality.pelvis_max_mm = 1000.0 * res->pelvis_max;
  res->quality.unreachable_frames = res->unreachable_frames;
  /* The upper median of the angles: the angle falls as the cosine rises, so it is the angle of
   * the cosine that many places from the top (one acos, not one a limb and frame). */
  if (t->limb_n > 0)
    res->quality.limb_direction_median_deg =
        angle_deg(rk__select(t->limb_cos, t->limb_n, t->limb_n - 1 - t->limb_n / 2));
  res->quality_fk.limb_direction_median_deg = res->quality.limb_direction_median_deg;
}

/* ---- clips of the target (the written output read back) -------------------------------------- */

static void contact_frame(void *ctx, int part, size_t f, const rk_mat4 *om, const rk_mat4 *sm) {
  (void)part, (void)sm;
  rk__contact_measure *cm = ctx;
  for (size_t k = 0; k < cm->nc; k++)
    if (cm->joints[k] >= 0)
      cm->positions[f * cm->nc + k] = rk_mat4_get_translation(&om[cm->joints[k]]);
}

void rk__contact_measure_init(rk__contact_measure *cm, const rk_retargeter *rt,
                              const rk_retarget_result *r, const rk_skeleton *skeleton) {
  cm->nc = r->contact_count;
  for (size_t k = 0; k < cm->nc; k++)
    cm->joints[k] = same_joint(rt, skeleton, r->contact_joint[k]);
  cm->positions = g_new0(rk_vec3, r->frames * (cm->nc ? cm->nc : 1));
  cm->m = (rk__measure){false, cm->joints, cm->nc, NULL, 0, contact_frame, cm};
}

rk__measure_clips rk__rt_measure_clips(const rk_retargeter *rt, const rk_retarget_result *r,
                                    const rk_clip *source_clip, const rk_skeleton *skeleton,
                                    const rk_clip *clip) {
  return (rk__measure_clips){skeleton, clip, rt->src, source_clip, r->fps, r->frames};
}

rk_vec3 *rk_retarget_contact_positions(const rk_retargeter *rt, const rk_retarget_result *r,
                                       const rk_skeleton *skeleton, const rk_clip *clip) {
  rk__contact_measure cm;
  rk__contact_measure_init(&cm, rt, r, skeleton);
  rk__measure *m = &cm.m;
  /* The source is not read: any clip of its joints does. */
  const rk__measure_clips c = rk__rt_measure_clips(rt, r, clip, skeleton, clip);
  rk__measure_run(&c, &m, 1, RK__MEASURE_PARTS);
  return cm.positions;
}

bool rk_retarget_planted_height(const rk_retargeter *rt, const rk_retarget_result *r,
                                const rk_skeleton *skeleton, const rk_vec3 *positions,
                                double *mean_mm, double *max_mm) {
  const size_t nc = r->contact_count, frames = r->frames;
  double sum = 0, mx = 0;
  size_t n = 0;
  for (size_t k = 0; k < nc; k++) {
    const rk_foot_contacts fc = rk__rt_contacts(r, k);
    if (same_joint(rt, skeleton, fc.joint) < 0)
      continue;
    const double rest_y = rt->pt0[fc.joint].y;
    for (size_t i = 0; i < fc.count; i++)
      for (int f = MAX(fc.intervals[i].first, 0); f <= fc.intervals[i].last && (size_t)f < frames;
           f++) {
        const double d = 1000.0 * fabs(positions[(size_t)f * nc + k].y - rest_y);
        sum += d;
        mx = fmax(mx, d);
        n++;
      }
  }
  if (n == 0)
    return false;
  *mean_mm = sum / (double)n;
  *max_mm = mx;
  return true;
}

static void limb_frame(void *ctx, int part, size_t f, const rk_mat4 *om, const rk_mat4 *sm) {
  rk__limb_measure *lm = ctx;
  const size_t nl = lm->nl;
  if (lm->first[part] == SIZE_MAX)
    lm->first[part] = f;
  double *angles = lm->angles + lm->first[part] * nl;
  for (size_t l = 0; l < nl; l++) {
    const rk_vec3 sa = rk_mat4_get_translation(&sm[lm->sj[2 * l]]);
    const rk_vec3 sb = rk_mat4_get_translation(&sm[lm->sj[2 * l + 1]]);
    const rk_vec3 oa = rk_mat4_get_translation(&om[lm->oj[2 * l]]);
    const rk_vec3 ob = rk_mat4_get_translation(&om[lm->oj[2 * l + 1]]);
    const rk_vec3 sd = rk_quat_rotate(lm->rt->align, rk_vec3_sub(sb, sa)), od = rk_vec3_sub(ob, oa);
    const double a = rk_vec3_norm(sd), b = rk_vec3_norm(od);
    if (!(a > 0) || !(b > 0))
      continue;
    angles[lm->count[part]++] = angle_deg(rk_vec3_dot(sd, od) / (a * b));
  }
}

bool rk__limb_measure_init(rk__limb_measure *lm, const rk_retargeter *rt,
                           const rk_retarget_result *r, const rk_skeleton *skeleton) {
  memset(lm, 0, sizeof *lm);
  lm->rt = rt;
  for (int l = 0; l < 8; l++) {
    int sa = rt->smap.joint[limb_bones[l][0]], sb = rt->smap.joint[limb_bones[l][1]];
    int ta = rt->tmap.joint[limb_bones[l][0]], tb = rt->tmap.joint[limb_bones[l][1]];
    if (sa < 0 || sb < 0 || ta < 0 || tb < 0)
      continue;
    int oa = same_joint(rt, skeleton, ta), ob = same_joint(rt, skeleton, tb);
    if (oa < 0 || ob < 0)
      continue;
    lm->sj[2 * lm->nl] = sa, lm->sj[2 * lm->nl + 1] = sb;
    lm->oj[2 * lm->nl] = oa, lm->oj[2 * lm->nl + 1] = ob;
    lm->nl++;
  }
  if (lm->nl == 0 || r->frames == 0)
    return false;
  for (int p = 0; p < RK__MEASURE_PARTS; p++)
    lm->first[p] = SIZE_MAX;
  lm->angles = g_new(double, r->frames * lm->nl);
  lm->m = (rk__measure){false, lm->oj, 2 * lm->nl, lm->sj, 2 * lm->nl, limb_frame, lm};
  return true;
}

double rk__limb_measure_finish(rk__limb_measure *lm) {
  /* The parts' angles one after the other, in frame order: the array one pass would fill. */
  size_t na = 0;
  for (int p = 0; p < RK__MEASURE_PARTS; p++)
    if (lm->first[p] != SIZE_MAX) {
      memmove(lm->angles + na, lm->angles + lm->first[p] * lm->nl, lm->count[p] * sizeof(double));
      na += lm->count[p];
    }
  /* rk__median_upper without the sort */
  const double median = na ? rk__select_median(lm->angles, na, true) : NAN;
  g_free(lm->angles);
  lm->angles = NULL;
  return median;
}

double rk_retarget_limb_direction(const rk_retargeter *rt, const rk_retarget_result *r,
                                  const rk_clip *source_clip, const rk_skeleton *skeleton,
                                  const rk_clip *clip) {
  rk__limb_measure lm;
  if (!rk__limb_measure_init(&lm, rt, r, skeleton))
    return NAN;
  rk__measure *m = &lm.m;
  const rk__measure_clips c = rk__rt_measure_clips(rt, r, source_clip, skeleton, clip);
  rk__measure_run(&c, &m, 1, RK__MEASURE_PARTS);
  return rk__limb_measure_finish(&lm);
}
