/* Retargeting, the source's own depth: how far the source goes through its ground, region by
 * region and frame by frame, and so the level each region of the target may reach down to (the
 * floor's rules in retarget_floor.c, retarget_ik.c, retarget_feet.c and retarget_parts.c use it;
 * the verdict measures the body from it, counting only what the transfer adds).
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
 * still lifted out.
 *
 * Where the rigs correspond (a clip onto its own rig, or onto one of its proportions: every joint
 * has a counterpart standing where it does at rest) and the source carries meshes, the transferred
 * pose is the source's own and the target's mesh in it shows what the source's does: a region may
 * go as far through the floor as that mesh does there. (A source of bones only, a BVH, shows no
 * surface: the kneeling knees of a box character built on its skeleton are still lifted.) A robot's swinging shin through the floor, or its broad fist 110 mm below the hand's
 * joints, is the clip's own then: lifting it out bent the knee and changed the pose the user
 * asked to keep. */
#include "retarget_run.h"

void rk__rt_regions_init(rk__rt_run *c, int *joints) {
  const rk_retargeter *rt = c->rt;
  size_t n = 0;
  /* The body's are those of the hips' subtree (a root or a control at the ground carries no
   * mesh), an arm's and a foot's those of its subtree. */
  c->region_at[RK__RT_BODY] = n;
  for (size_t i = 0; i < rt->body_count; i++) {
    const int j = rt->body_joints[i];
    if (rt->match[j] >= 0 && rk_skeleton_is_ancestor(rt->tgt, (size_t)rt->tgt_hips, (size_t)j))
      joints[n++] = j;
  }
  for (int region = RK__RT_ARM; region < RK__RT_REGIONS; region++) {
    c->region_at[region] = n;
    const int top = region >= RK__RT_FOOT ? rt->side[region - RK__RT_FOOT].foot
                    : rt->tmap.joint[region == RK__RT_ARM ? RK_BONE_LEFT_UPPER_ARM : RK_BONE_RIGHT_UPPER_ARM];
    if (top < 0)
      continue;
    for (size_t j = (size_t)top; j < rk_skeleton_subtree_end(rt->tgt, (size_t)top); j++)
      if (rt->match[j] >= 0)
        joints[n++] = (int)j;
  }
  c->region_at[RK__RT_REGIONS] = n;
  c->region_joints = joints;
}

/* The lowest point (y) of the joints of region in models: the target's own (src false, models
 * of the target) or their counterparts' (src, models of the source); INFINITY when none. */
static double region_joints_low(const rk__rt_run *c, int region, const rk_mat4 *models, bool src) {
  const int *match = c->rt->match;
  double low = INFINITY;
  for (size_t i = c->region_at[region]; i < c->region_at[region + 1]; i++) {
    const int j = c->region_joints[i];
    low = fmin(low, models[src ? match[j] : j].m[13]);
  }
  return low;
}

void rk__rt_source_low(rk__rt_run *c, size_t f) {
  for (int r = 0; r < RK__RT_REGIONS; r++)
    c->src_low[f * RK__RT_REGIONS + (size_t)r] = region_joints_low(c, r, c->src_models, true);
}

/* How far region r's source joints go below the clip's ground at frame f, scaled. */
static double source_below(const rk__rt_run *c, size_t f, int r) {
  /* The joints take the travel as rk__rt_src_pos does. */
  const double low = c->src_low[f * RK__RT_REGIONS + (size_t)r] + c->travel.y * rk__rt_frame_time(c, f);
  return c->rt->scale * (c->src_floor - low);
}

/* How far region r of frame f may go below the floor by the source's own: what its mesh does
 * where the rigs correspond, else 0. */
static double own_depth(const rk__rt_run *c, size_t f, int r) {
  return c->own_below ? fmax(0.0, c->own_below[f * RK__RT_REGIONS + (size_t)r]) : 0.0;
}

void rk__rt_source_below(rk__rt_run *c) {
  const size_t frames = c->frames;
  g_autofree double *below = g_new(double, frames * RK__RT_REGIONS);
  bool any = c->own_below != NULL;
  for (size_t i = 0; i < frames * RK__RT_REGIONS; i++) {
    below[i] = source_below(c, i / RK__RT_REGIONS, (int)(i % RK__RT_REGIONS));
    any |= below[i] > 0;
  }
  if (!any)
    return;
  /* What a person sees is measured from the deepest floor the rules leave any region at each
   * frame (its source's depth and up to as much again for the mesh below its joints, or its own
   * mesh's where the rigs correspond): the depth the transfer adds, not the source's own. */
  c->res->look_floor = g_new(double, frames);
  for (size_t f = 0; f < frames; f++) {
    double a = 0;
    for (int r = 0; r < RK__RT_REGIONS; r++)
      a = fmax(a, fmax(2 * below[f * RK__RT_REGIONS + (size_t)r], own_depth(c, f, r)));
    c->res->look_floor[f] = c->tgt_floor - a;
  }
  /* A planted foot is measured from as deep as its own mesh goes (where the rigs correspond: a
   * landing that sinks the source's foot into the floor is the clip's, and kept). */
  if (c->own_below) {
    c->res->look_feet_floor = g_new(double, frames * 2);
    for (size_t f = 0; f < frames; f++)
      for (int side = 0; side < 2; side++)
        c->res->look_feet_floor[f * 2 + (size_t)side] = c->tgt_floor - own_depth(c, f, RK__RT_FOOT + side);
  }
  c->src_below = g_steal_pointer(&below);
}

bool rk__rt_own_through(const rk__rt_run *c, size_t f, int region) {
  return c->src_below && (c->src_below[f * RK__RT_REGIONS + (size_t)region] > 0 || own_depth(c, f, region) > 0);
}

double rk__rt_floor_for(const rk__rt_run *c, int region, double low) {
  const double a = c->src_below ? c->src_below[c->cur_f * RK__RT_REGIONS + (size_t)region] : 0.0;
  const double own = own_depth(c, c->cur_f, region);
  if (!(a > 0))
    return c->tgt_floor - own;
  const double joints = region_joints_low(c, region, c->tgt_models, false);
  const double margin = isfinite(joints) ? fmax(0.0, joints - low) : 0.0;
  return c->tgt_floor - fmax(a + fmin(margin, a), own);
}

double rk__rt_body_floor(const rk__rt_run *c, size_t f) {
  return c->body_floor ? c->body_floor[f] : c->tgt_floor;
}
