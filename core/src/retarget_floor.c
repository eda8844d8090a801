/* Retargeting, the floor: the clip's one ground offset (the target's soles on its floor where the
 * source's stand on the clip's ground), frame by frame the lift of the pelvis that keeps the
 * body (hands, knees, seat: everything outside the feet) from going through the floor, and how
 * far the source itself goes through its ground, which the floor's rules leave to the target (and
 * the floor the body's depth is measured from, so the verdict counts only what the transfer adds).
 *
 * The floor corrects what the transfer brings through it, not what the source does: a region
 * (the body outside the feet, an arm, a foot) may go as far through the floor as the source's own
 * does, scaled. The source is measured by its joints (a BVH has no mesh: the counterparts of the
 * region's target joints); the target's allowance then grows by the margin its mesh reaches below
 * those same joints, up to the source's depth again, so that a clip onto a character built on its
 * own skeleton comes back as it was and a joint a hair through the ground lets the mesh through
 * by at most twice that hair. Joints lie inside the body, so a joint through the ground is the
 * clip's doing (a fall, a hand through the floor), not capture noise (the sole points, below the
 * joints, are the ground's measure: their noise is the ground offset's). A source whose joints
 * stay above its ground (every mocap clip of the tests) has the target's floor everywhere, as
 * before; a mesh the source's joints do not show going through (a fall onto a broad back) is
 * still lifted out. */
#include "retarget_run.h"
#include "stats.h"

#include <rigkit/fk.h>

/* The lowest of a side's sole points at frame f. */
static double sole_low(const rk_vec3 *pts, size_t f, int side) {
  double y = INFINITY;
  for (int p = 0; p < RK__RT_POINTS; p++)
    y = fmin(y, RK__RT_SOLE(pts, f, side * RK__RT_POINTS + p).y);
  return y;
}

/* The lowest of a side's target sole points at frame f, less how high they stand above the foot's
 * lowest point at rest when the leg has no foot bone (its one point rolls above the sole). */
static double tgt_sole_low(const rk__rt_run *c, size_t f, int side) {
  return sole_low(c->tgt_pts, f, side) - rk__rt_end_stand(c, side);
}

void rk__rt_fit_ground(rk__rt_run *c) {
  if (c->opts->ground == RK_RETARGET_GROUND_KEEP)
    return;
  const rk_retargeter *rt = c->rt;
  /* Per flat foot and frame (heel and ball planted: the soles of both rigs lie on their floors
   * whatever their shapes; else per planted foot): how far the target's sole must rise to stand
   * as far above its floor as the source's sole above the clip's ground (scaled). Without a
   * planted frame (a jump, an in-place cycle), the lower sole of every frame. */
  g_autofree double *lift = g_new(double, 2 * c->frames);
  size_t n = 0;
  for (int pass = 0; pass < 2 && n == 0; pass++)
    for (size_t f = 0; f < c->frames; f++)
      for (int side = 0; side < 2; side++)
        if (pass ? rk__rt_side_held(c->res, side, f)
                 : c->res->phase[f * 2 + (size_t)side] == RK_FOOT_FLAT)
          lift[n++] = c->tgt_floor + rt->scale * (sole_low(c->src_pts, f, side) - c->src_floor) -
                      tgt_sole_low(c, f, side);
  if (n == 0)
    for (size_t f = 0; f < c->frames; f++) {
      const double s = fmin(sole_low(c->src_pts, f, 0), sole_low(c->src_pts, f, 1));
      const double t = fmin(tgt_sole_low(c, f, 0), tgt_sole_low(c, f, 1));
      lift[n++] = c->tgt_floor + rt->scale * (s - c->src_floor) - t;
    }
  /* Under a millionth of the height the offset is the files' 32-bit floats (a rig exported twice
   * skins its rest a few tenths of a micrometre apart): none. */
  const double offset = n ? rk__select_median(lift, n, false) : 0.0;
  rk__rt_shift_ground(c, fabs(offset) < 1e-6 * rt->tmap.height ? 0.0 : offset);
}

void rk__rt_ease_envelope(const rk__rt_run *c, const double *need, double *out) {
  const size_t frames = c->frames;
  const int blend = MAX(1, (int)lround(c->opts->blend_time * c->fps));
  for (size_t f = 0; f < frames; f++) {
    if (need[f] <= 0)
      continue;
    const size_t a = f > (size_t)blend ? f - (size_t)blend : 0;
    const size_t b = MIN(frames - 1, f + (size_t)blend);
    for (size_t g = a; g <= b; g++) {
      const double u = 1.0 - fabs((double)g - (double)f) / (blend + 1);
      out[g] = fmax(out[g], need[f] * u * u * (3 - 2 * u));
    }
  }
}

/* The lowest point (y) of the joints of region that have counterparts, in models: the target's
 * own (src false, models of the target) or their counterparts' (src, models of the source);
 * INFINITY when none. The body's are those of the hips' subtree (a root or a control at the
 * ground carries no mesh), an arm's and a foot's those of its subtree. */
static double region_joints_low(const rk__rt_run *c, int region, const rk_mat4 *models, bool src) {
  const rk_retargeter *rt = c->rt;
  double low = INFINITY;
  if (region == RK__RT_BODY) {
    for (size_t i = 0; i < rt->body_count; i++) {
      const int j = rt->body_joints[i];
      if (rt->match[j] >= 0 && rk_skeleton_is_ancestor(rt->tgt, (size_t)rt->tgt_hips, (size_t)j))
        low = fmin(low, models[src ? rt->match[j] : j].m[13]);
    }
    return low;
  }
  const int top = region >= RK__RT_FOOT ? rt->side[region - RK__RT_FOOT].foot
                  : rt->tmap.joint[region == RK__RT_ARM ? RK_BONE_LEFT_UPPER_ARM : RK_BONE_RIGHT_UPPER_ARM];
  if (top < 0)
    return low;
  for (size_t j = (size_t)top; j < rk_skeleton_subtree_end(rt->tgt, (size_t)top); j++)
    if (rt->match[j] >= 0)
      low = fmin(low, models[src ? (size_t)rt->match[j] : j].m[13]);
  return low;
}

/* How far the source's own regions go below the clip's ground, per frame (src_below); left NULL
 * when none ever does. The whole source is sampled again: the transfer keeps only the joints
 * it reads. */
static void source_below(rk__rt_run *c) {
  const rk_retargeter *rt = c->rt;
  const size_t frames = c->frames;
  g_autofree double *below = g_new(double, frames * RK__RT_REGIONS);
  g_autofree rk_transform *locals = g_new(rk_transform, rt->ns);
  g_autofree rk_mat4 *models = g_new(rk_mat4, rt->ns);
  const rk_transform *rest = rk_skeleton_rest_locals(rt->src);
  bool any = false;
  for (size_t f = 0; f < frames; f++) {
    const double t = rk__rt_frame_time(c, f);
    rk_clip_sample(c->clip, rest, t, locals, rt->ns);
    rk_fk_models(rt->src, locals, models);
    for (int r = 0; r < RK__RT_REGIONS; r++) {
      /* The joints take the travel as rk__rt_src_pos does. */
      const double low = region_joints_low(c, r, models, true) + c->travel.y * t;
      below[f * RK__RT_REGIONS + (size_t)r] = rt->scale * (c->src_floor - low);
      any |= below[f * RK__RT_REGIONS + (size_t)r] > 0;
    }
  }
  if (!any)
    return;
  /* What a person sees is measured from the deepest floor the rules leave any region at each
   * frame (its source's depth and up to as much again for the mesh below its joints): the depth
   * the transfer adds, not the source's own. */
  c->res->body_floor = g_new(double, frames);
  for (size_t f = 0; f < frames; f++) {
    double a = 0;
    for (int r = 0; r < RK__RT_REGIONS; r++)
      a = fmax(a, below[f * RK__RT_REGIONS + (size_t)r]);
    c->res->body_floor[f] = c->tgt_floor - 2 * a;
  }
  c->src_below = g_steal_pointer(&below);
}

double rk__rt_floor_for(const rk__rt_run *c, int region, double low) {
  const double a = c->src_below ? c->src_below[c->cur_f * RK__RT_REGIONS + (size_t)region] : 0.0;
  if (!(a > 0))
    return c->tgt_floor;
  const double joints = region_joints_low(c, region, c->tgt_models, false);
  const double margin = isfinite(joints) ? fmax(0.0, joints - low) : 0.0;
  return c->tgt_floor - a - fmin(margin, a);
}

double rk__rt_body_floor(const rk__rt_run *c, size_t f) {
  return c->body_floor ? c->body_floor[f] : c->tgt_floor;
}

void rk__rt_fit_floor(rk__rt_run *c) {
  /* Pose transfer only (no IK): the body where the transfer puts it. */
  const size_t frames = c->frames;
  source_below(c);
  if (!c->opts->foot_ik)
    return;
  /* How far the body goes through the floor the source leaves it (the frame posed only where the
   * source's goes through its own), then a smooth envelope over it: each frame's depth held and
   * faded out over blend_time on either side (never less than the depth). */
  g_autofree double *depth = g_new(double, frames);
  bool any = false;
  for (size_t f = 0; f < frames; f++) {
    if (c->src_below && c->src_below[f * RK__RT_REGIONS + RK__RT_BODY] > 0) {
      if (!c->body_floor) {
        c->body_floor = g_new(double, frames);
        for (size_t g = 0; g < frames; g++)
          c->body_floor[g] = c->tgt_floor;
      }
      rk__rt_pose_frame(c, f);
      c->body_floor[f] = rk__rt_floor_for(c, RK__RT_BODY, c->tgt_body[f]);
    }
    depth[f] = fmax(0.0, rk__rt_body_floor(c, f) - c->tgt_body[f]);
    any |= depth[f] > 0;
  }
  if (!any)
    return;
  c->lift = g_new0(double, frames);
  rk__rt_ease_envelope(c, depth, c->lift);
  for (size_t f = 0; f < frames; f++) {
    c->res->lifted_frames += c->lift[f] > 0;
    rk__rt_raise_frame(c, f, c->lift[f]);
  }
  c->res->lift = g_memdup2(c->lift, frames * sizeof(double));
}
