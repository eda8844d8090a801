/* Retargeting, a foot against the floor: the lowest point of each target foot (its mesh, a
 * detached foot's too, else its sole points) in the current models, how far it is through the
 * floor the rules leave it (retarget_depth.c), and the joints that carry the feet. The feet's
 * goals (retarget_feet.c), the IK's floor steps (retarget_ik.c) and the legs of one bone
 * (retarget_stiff.c, retarget_reach.c) measure with these. */
#include "retarget_run.h"

size_t rk__rt_feet_chains(const rk__rt_run *c, int *chains) {
  const rk_retargeter *rt = c->rt;
  int ends[2 * (RK__RT_POINTS + 2)];
  size_t ne = 0;
  for (int side = 0; side < 2; side++) {
    ends[ne++] = rt->side[side].foot;
    if (rt->side[side].toe >= 0)
      ends[ne++] = rt->side[side].toe;
    for (int p = 0; p < RK__RT_POINTS; p++)
      ends[ne++] = c->tsole[side]->joint[p];
  }
  return rk_skeleton_ancestor_closure(rt->tgt, ends, ne, chains);
}

rk_vec3 rk__rt_foot_low(rk__rt_run *c, int side, int *joint) {
  const rk_retargeter *rt = c->rt;
  const rk__rt_side *sd = &rt->side[side];
  /* A detached foot, posed at the leg's end after the legs (retarget_parts.c): posed now, first,
   * for the vertices the leg's mesh blends with it. */
  rk_vec3 loose;
  const bool posed = sd->loose_foot && rk__rt_loose_foot_low(c, side, &loose);
  rk_skin_point p;
  if (c->skin && rk_skin_lowest_subtree(c->skin, c->tgt_models, sd->foot, &p)) {
    *joint = p.joint;
    if (!sd->loose_foot)
      return p.position;
    if (posed)
      return loose.y < p.position.y ? loose : p.position;
    const rk_vec3 a = rk__rt_ankle(sd, c->tgt_models);
    return a.y - sd->loose_drop < p.position.y ? rk_vec3_make(a.x, a.y - sd->loose_drop, a.z)
                                               : p.position;
  }
  rk_vec3 pts[RK__RT_POINTS];
  rk_sole_at(c->tsole[side], c->tgt_models, pts);
  int k = 0;
  for (int q = 1; q < RK__RT_POINTS; q++)
    if (pts[q].y < pts[k].y)
      k = q;
  *joint = c->tsole[side]->joint[k];
  return pts[k];
}

double rk__rt_foot_depth(rk__rt_run *c, int side, const rk__rt_foot_goal *g) {
  int joint;
  const double low = rk__rt_foot_low(c, side, &joint).y;
  const double depth = fmax(0.0, rk__rt_floor_for(c, RK__RT_FOOT + side, low) - low);
  /* A held foot's mesh, blended where it bends (the crease, the ankle), may dip through by 0.2%
   * of the height: the pins hold. */
  const bool held = g->w[RK_SOLE_HEEL] >= 1 || g->w[RK_SOLE_BALL] >= 1 || g->w[RK_SOLE_TIP] >= 1;
  const rk__rt_side *sd = &c->rt->side[side];
  if (sd->knee == sd->upper && !held) {
    /* The foot of a leg of one bone in its swing: a stiff leg near the vertical reaches far out
     * to rise a little, so a graze of the floor (under 0.1% of the height) lifts it by little
     * and a deeper dip by nearly all of it, never by a step as the dip grows. */
    const double graze = 0.001 * c->rt->tmap.height;
    return depth * depth / (depth + graze);
  }
  return held && depth <= 0.002 * c->rt->tmap.height ? 0.0 : depth;
}
