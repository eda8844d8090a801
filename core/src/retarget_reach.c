/* Retargeting, the pelvis eased to what the legs reach, before the solve: where a fully planted
 * leg cannot reach its pin (from the pin and the leg's length in the transferred pose), the
 * pelvis comes straight down as far as it must; where a leg whose lower bone carries the foot in
 * its mesh kneels (the mesh's lowest point at the knee's end of the shin, through the floor), it
 * goes up by that depth. Each is eased in and out over blend_time on either side as the floor's
 * lift is (retarget_floor.c), so that the solve (retarget_ik.c), which moves the pelvis only for
 * a leg still out of reach, never drops it within a frame, and a kneeling shin is not lifted by
 * its ankle (which turns the shin about the knee, deeper into the floor). With no foot planted,
 * it also goes up as far as a free leg, folded as far as it goes, cannot lift its foot out of the
 * floor (short legs whose shin is longer than the thigh, in a deep crouch): eased the same way,
 * instead of pulled up by the solve within the frames its foot is through. */
#include "retarget_run.h"

/* How much shorter than its full stretch a planted leg that could not reach is planned to stand
 * (of its length): bent a little more than the solve's own test of reach (1e-4), so that a frame
 * planned for reaches without it. */
#define SLACK 1e-3

/* How far (m, >= 0) the pelvis of the posed frame f must come straight down for side's planted
 * leg to reach its goal with a little bend: 0 when it reaches already, when it cannot reach by
 * coming down (the goal farther out than the leg, or not below the hip), and for a leg of one
 * bone (it reaches at its length only; the solve decides). */
static double side_drop(rk__rt_run *c, int side, size_t f) {
  const rk__rt_side *sd = &c->rt->side[side];
  rk_vec3 goal;
  if (sd->knee == sd->upper || !rk__rt_held_ankle(c, side, f, &goal))
    return 0;
  const rk_mat4 *m = c->tgt_models;
  const rk_vec3 a = rk_mat4_get_translation(&m[sd->upper]), b = rk_mat4_get_translation(&m[sd->knee]);
  const double length = rk_vec3_norm(rk_vec3_sub(b, a)) +
                        rk_vec3_norm(rk_vec3_sub(rk__rt_ankle(sd, m), b));
  /* A leg that reaches at its full stretch, within the solve's tolerance (a straight leg
   * standing on its pin), stays as it is. */
  const rk_vec3 to = rk_vec3_sub(goal, a);
  if (rk_vec3_norm(to) <= length + c->ik.iko.position_tolerance)
    return 0;
  const double want = length * (1.0 - SLACK), h = rk_vec3_norm(rk__rt_horizontal(to)), v = -to.y;
  return h < want && v > 0 ? fmax(0.0, v - sqrt(want * want - h * h)) : 0.0;
}

/* Whether side's leg ends at its lower bone with the foot in that bone's mesh. */
static bool shin_foot(const rk__rt_run *c, int side) {
  const rk__rt_side *sd = &c->rt->side[side];
  return c->skin && sd->footless && sd->knee != sd->upper;
}

/* How far (m, >= 0) the mesh of side's lower leg goes through the floor at its knee's end in the
 * posed frame (its lowest point nearer the knee than the ankle, along the shin: the knee kneels),
 * where only the pelvis lifts it out. Lower in the shin, the solve lifts the ankle and
 * fold_rise the pelvis as far as the leg cannot fold. */
static double shin_depth(rk__rt_run *c, int side) {
  const rk__rt_side *sd = &c->rt->side[side];
  if (!shin_foot(c, side))
    return 0;
  /* A detached foot posed at the leg's end first, for the vertices the shin blends with it. */
  rk_vec3 foot;
  if (sd->loose_foot)
    rk__rt_loose_foot_low(c, side, &foot);
  rk_skin_point p;
  if (!rk_skin_lowest_subtree(c->skin, c->tgt_models, sd->knee, &p))
    return 0;
  const rk_vec3 knee = rk_mat4_get_translation(&c->tgt_models[sd->knee]);
  const rk_vec3 shin = rk_vec3_sub(rk__rt_ankle(sd, c->tgt_models), knee);
  const double along = rk_vec3_dot(rk_vec3_sub(p.position, knee), shin) / fmax(rk_vec3_dot(shin, shin), 1e-12);
  return along < 0.5 ? fmax(0.0, c->tgt_floor - p.position.y) : 0.0;
}

/* How far (m, >= 0) the pelvis of the posed frame must go up for side's free leg (no foot of
 * the frame planted) to lift its foot out of the floor by bending: the solve lifts the ankle by
 * the foot's depth and bends the leg to it, and an ankle lifted nearer the hip than the leg
 * folds (or farther than it stretches) would pull the pelvis within the frame, by as much as the
 * bend falls short, from frame to frame as the depth comes and goes. Raised by r, the leg and its
 * foot rise with the pelvis and the ankle is lifted by r less: the least r that keeps the lifted
 * ankle within the leg's reach (its full depth at most: the transferred leg reaches its own
 * ankle). */
static double fold_rise(rk__rt_run *c, int side) {
  const rk__rt_side *sd = &c->rt->side[side];
  if (sd->knee == sd->upper) /* a leg of one bone: the solve decides */
    return 0;
  const rk__rt_foot_goal none = {0};
  const double depth = rk__rt_foot_depth(c, side, &none);
  if (depth <= 0)
    return 0;
  const rk_mat4 *m = c->tgt_models;
  const rk_vec3 a = rk_mat4_get_translation(&m[sd->upper]), b = rk_mat4_get_translation(&m[sd->knee]);
  const rk_vec3 v = rk_vec3_sub(rk__rt_ankle(sd, m), a);
  const double thigh = rk_vec3_norm(rk_vec3_sub(b, a)), shin = rk_vec3_norm(rk_vec3_sub(rk__rt_ankle(sd, m), b));
  const double slack = SLACK * (thigh + shin);
  const double near = fabs(thigh - shin) + slack, far = thigh + shin - slack;
  /* The ankle lifted by s (s = depth - r) lies at v + s up from the hip, at a distance within
   * [near, far] for s in [y0 - reach, y0 - fold] or [y0 + fold, y0 + reach] (y0 = -v.y; reach
   * and fold from the horizontal distance h): the largest s in [0, depth] there. */
  const double h = rk_vec3_norm(rk__rt_horizontal(v)), y0 = -v.y;
  if (h >= far)
    return depth;
  const double reach = sqrt(far * far - h * h), fold = h < near ? sqrt(near * near - h * h) : 0.0;
  double s = -1;
  const double lo[2] = {y0 - reach, y0 + fold}, hi[2] = {y0 - fold, y0 + reach};
  for (int k = 0; k < 2; k++)
    if (lo[k] <= depth && hi[k] >= 0)
      s = fmax(s, fmin(hi[k], depth));
  return s < 0 ? depth : depth - s;
}

bool rk__rt_reach_wanted(const rk__rt_run *c) {
  const rk_retargeter *rt = c->rt;
  return c->opts->foot_ik && c->frames > 0 &&
         rk_tree_joint(rt->tree, (size_t)rt->tgt_hips)->dof_count == 6 &&
         !(rt->side[0].knee == rt->side[0].upper && rt->side[1].knee == rt->side[1].upper);
}

bool rk__rt_reach_needs(rk__rt_run *c, size_t first, size_t end, double *down, double *up) {
  const rk_retargeter *rt = c->rt;
  g_autofree int *chains = g_new(int, rt->nt);
  const size_t nc = rk__rt_feet_chains(c, chains);
  bool any = false;
  for (size_t f = first; f < end; f++) {
    const bool held[2] = {rk__rt_side_held(c->res, 0, f), rk__rt_side_held(c->res, 1, f)};
    const bool free = !held[0] && !held[1];
    rk__rt_pose_frame_joints(c, f, chains, nc);
    for (int side = 0; side < 2; side++) {
      if (held[side])
        down[f] = fmax(down[f], side_drop(c, side, f));
      else
        up[f] = fmax(up[f], fmax(shin_depth(c, side), free ? fold_rise(c, side) : 0.0));
    }
    any |= down[f] > 0 || up[f] > 0;
  }
  return any;
}

void rk__rt_reach_ease(rk__rt_run *c, const double *down, const double *up) {
  const size_t frames = c->frames;
  g_autofree double *drop = g_new0(double, frames), *raise = g_new0(double, frames);
  rk__rt_ease_envelope(c, down, drop);
  rk__rt_ease_envelope(c, up, raise);
  if (!c->lift)
    c->lift = g_new0(double, frames);
  rk_retarget_result *res = c->res;
  double most = 0;
  for (size_t f = 0; f < frames; f++) {
    /* Never down through the floor with the body outside the feet. */
    drop[f] = fmin(drop[f], fmax(0.0, c->tgt_body[f] + raise[f] - rk__rt_body_floor(c, f)));
    c->lift[f] += raise[f] - drop[f];
    most = fmax(most, drop[f]);
    /* A kneeling shin lifted is the body lifted off the floor. */
    if (raise[f] > 0) {
      if (!res->lift)
        res->lift = g_new0(double, frames);
      res->lifted_frames += !(res->lift[f] > 0);
      res->lift[f] += raise[f];
    }
  }
  g_debug("retarget '%s': the pelvis eased down by up to %g m so that planted legs reach",
          rk_clip_name(c->clip), most);
  c->reach_drop = g_steal_pointer(&drop);
}
