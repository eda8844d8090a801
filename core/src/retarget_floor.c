/* Retargeting, the floor: the clip's one ground offset (the target's soles on its floor where the
 * source's stand on the clip's ground) and, frame by frame, the lift of the pelvis that keeps the
 * body (hands, knees, seat: everything outside the feet) from going through the floor further
 * than the source's own goes (retarget_depth.c says how far that is). */
#include "retarget_run.h"
#include "stats.h"

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

/* The lowest point (y) of region r's mesh in the current models: the body outside the feet, an
 * arm from its upper arm down, a leg's foot (the last bone of a leg without one) and its detached
 * foot; INFINITY when it has none. */
static double region_mesh_low(const rk__rt_run *c, int r) {
  const rk_retargeter *rt = c->rt;
  if (r == RK__RT_BODY)
    return rk__rt_body_low(c, c->tgt_models);
  int tops[2] = {-1, -1};
  if (r >= RK__RT_FOOT) {
    tops[0] = rt->side[r - RK__RT_FOOT].foot;
    tops[1] = rt->tmap.detached_foot[r - RK__RT_FOOT];
  } else {
    tops[0] = rt->tmap.joint[r == RK__RT_ARM ? RK_BONE_LEFT_UPPER_ARM : RK_BONE_RIGHT_UPPER_ARM];
  }
  double low = INFINITY;
  rk_skin_point p;
  for (int i = 0; i < 2; i++)
    if (tops[i] >= 0 && (size_t)tops[i] < rt->nt &&
        rk_skin_lowest_subtree(c->skin, c->tgt_models, tops[i], &p))
      low = fmin(low, p.position.y);
  return low;
}

/* Where the rigs correspond and the source and target have meshes: how far each region's mesh
 * goes below the floor in the transferred frames (run->own_below, left NULL when none does; the
 * source's own depth, read by retarget_depth.c). Here, not there: it poses frames. */
static void own_below(rk__rt_run *c) {
  if (!c->rt->rests_agree || !c->rt->src_meshes || !c->skin)
    return;
  double *own = g_new(double, c->frames * RK__RT_REGIONS);
  bool any = false;
  for (size_t f = 0; f < c->frames; f++) {
    rk__rt_pose_frame(c, f);
    for (int r = 0; r < RK__RT_REGIONS; r++) {
      const double d = c->tgt_floor - region_mesh_low(c, r);
      own[f * RK__RT_REGIONS + (size_t)r] = isfinite(d) ? d : 0.0;
      any |= d > 0;
    }
  }
  if (any)
    c->own_below = own;
  else
    g_free(own);
}

void rk__rt_fit_floor(rk__rt_run *c) {
  /* Pose transfer only (no IK): the body where the transfer puts it. */
  const size_t frames = c->frames;
  own_below(c);
  rk__rt_source_below(c);
  if (!c->opts->foot_ik)
    return;
  /* How far the body goes through the floor the source leaves it (the frame posed only where the
   * source's goes through its own), then a smooth envelope over it: each frame's depth held and
   * faded out over blend_time on either side (never less than the depth). */
  g_autofree double *depth = g_new(double, frames);
  bool any = false;
  for (size_t f = 0; f < frames; f++) {
    if (rk__rt_own_through(c, f, RK__RT_BODY)) {
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
