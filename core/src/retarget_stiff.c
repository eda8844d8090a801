/* Retargeting onto legs of one bone (a blocky game character's leg turning about its hip, the
 * foot in its mesh or on a foot bone): the leg aimed at its goal, the pelvis riding on the legs
 * by contact weight, and free legs paced from frame to frame (a bounded turn per frame, the
 * pelvis lifted while no foot holds) so that a leg never leaps across as the hip passes the
 * height where its foot stands straight. Called by the frame's IK (retarget_ik.c). */
#include "retarget_run.h"
#include "tree_internal.h"

#include <rigkit/fk.h>

/* Whether both legs of the target are of one bone (no knee). */
bool rk__rt_stiff_legs(const rk_retargeter *rt) {
  return rt->side[0].knee == rt->side[0].upper && rt->side[1].knee == rt->side[1].upper &&
         rk_tree_joint(rt->tree, (size_t)rt->tgt_hips)->dof_count == 6;
}

/* x solving the symmetric 3 x 3 system m x = v (Cramer's rule); false when m is singular. */
static bool solve3(const double m[3][3], const double v[3], double x[3]) {
  const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                     m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  if (!(fabs(det) > 0))
    return false;
  for (int k = 0; k < 3; k++) {
    double t[3][3];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        t[i][j] = j == k ? v[i] : m[i][j];
    x[k] = (t[0][0] * (t[1][1] * t[2][2] - t[1][2] * t[2][1]) -
            t[0][1] * (t[1][0] * t[2][2] - t[1][2] * t[2][0]) +
            t[0][2] * (t[1][0] * t[2][1] - t[1][1] * t[2][0])) / det;
  }
  return true;
}

/* How firmly a foot holds: 1 while held, else its firmest sole point's contact weight. */
static double stiff_hold(const rk__rt_foot_goal *g) {
  double w = g->held ? 1.0 : 0.0;
  for (int p = 0; p < RK__RT_POINTS; p++)
    w = fmax(w, g->w[p]);
  return w;
}

/* The pelvis of legs of one bone. A stiff leg reaches its goal only at its length: the pelvis
 * stands on a sphere about each planted goal (less the hip's offset from the pelvis), on both
 * spheres' circle when both feet hold. It goes to the point nearest the transferred pelvis that
 * meets each leg as firmly as its foot holds: a held foot exactly, one fading into or out of a
 * contact by its weight w (a spring of stiffness w / (1 - w) against the pelvis' own of 1), so
 * that the pelvis never drops in one frame when support changes. Solved by Gauss-Newton from the
 * transferred pelvis. Returns whether any leg weighs on the pelvis. */
bool rk__rt_stand_on_stiff_legs(rk__rt_run *c) {
  const rk_retargeter *rt = c->rt;
  const rk_vec3 p0 = rk_mat4_get_translation(&c->tgt_models[rt->tgt_hips]);
  rk_vec3 off[2], goal[2];
  double len[2], k[2];
  int n = 0;
  for (int side = 0; side < 2; side++) {
    const rk__rt_foot_goal *g = &c->ik.goal[side];
    const double w = stiff_hold(g);
    if (!g->active || w <= 0)
      continue;
    const rk__rt_side *sd = &rt->side[side];
    const rk_vec3 hip = rk_mat4_get_translation(&c->tgt_models[sd->upper]);
    off[n] = rk_vec3_sub(hip, p0);
    goal[n] = g->ankle;
    len[n] = rk_vec3_norm(rk_vec3_sub(rk__rt_ankle(sd, c->tgt_models), hip));
    k[n++] = w >= 1 ? 1e8 : w / (1 - w);
  }
  if (!n)
    return false;
  rk_vec3 p = p0;
  for (int it = 0; it < 30; it++) {
    double m[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, v[3] = {p0.x - p.x, p0.y - p.y, p0.z - p.z};
    for (int i = 0; i < n; i++) {
      const rk_vec3 u = rk_vec3_sub(rk_vec3_add(p, off[i]), goal[i]);
      const double d = rk_vec3_norm(u);
      if (!(d > 1e-9 * len[i]))
        continue;
      const double j[3] = {u.x / d, u.y / d, u.z / d}, r = d - len[i];
      for (int a = 0; a < 3; a++) {
        v[a] -= k[i] * j[a] * r;
        for (int b = 0; b < 3; b++)
          m[a][b] += k[i] * j[a] * j[b];
      }
    }
    double x[3];
    if (!solve3(m, v, x))
      break;
    p = rk_vec3_add(p, rk_vec3_make(x[0], x[1], x[2]));
    if (sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) <= 1e-9 * len[0])
      break;
  }
  rk__rt_set_pelvis_position(c, p);
  return true;
}

/* The horizontal direction away from the body on side's side (from the pelvis to the hip, else
 * across the pelvis' facing): the way a leg of one bone swings out to clear the floor. */
static rk_vec3 outward(const rk__rt_run *c, int side) {
  const rk_retargeter *rt = c->rt;
  const rk_vec3 off = rk__rt_horizontal(rk_vec3_sub(rk_mat4_get_translation(&c->tgt_models[rt->side[side].upper]),
                                                    rk_mat4_get_translation(&c->tgt_models[rt->tgt_hips])));
  if (rk_vec3_norm(off) > 1e-3 * rt->tmap.height)
    return rk_vec3_normalize(off);
  const rk_vec3 across = rk_vec3_cross(rk_vec3_make(0, 1, 0), rk__rt_horizontal(rk__rt_pelvis_forward(c)));
  return rk_vec3_norm(across) > 0 ? rk_vec3_scale(rk_vec3_normalize(across), side ? -1.0 : 1.0) : across;
}

/* The middle of side's sole (between heel and tip) among the sole points pts. */
static rk_vec3 sole_middle(const rk_vec3 pts[RK__RT_POINTS]) {
  return rk_vec3_scale(rk_vec3_add(pts[RK_SOLE_HEEL], pts[RK_SOLE_TIP]), 0.5);
}

/* Where side's free leg of one bone puts its end relative to its hip pa: the source's foot (the
 * middle of its sole) relative to its hip, turned and scaled onto the target, less the target
 * sole's own offset from its ankle, not the transferred thigh's direction (a stiff leg along a
 * crouching thigh leans far back and out); blended toward the goal by how firmly the foot holds
 * (fading into or out of a contact, the goal's correction fades with it). */
static rk_vec3 free_reach(const rk__rt_run *c, int side, rk_vec3 pa, const rk__rt_foot_goal *g) {
  const rk_retargeter *rt = c->rt;
  const rk__rt_side *sd = &rt->side[side];
  if (!c->src_pts)
    return rk_vec3_sub(g->ankle, pa);
  const rk_vec3 *src = &c->src_pts[c->cur_f * RK__RT_SOLE_SLOTS + (size_t)side * RK__RT_POINTS];
  const int hip = rt->smap.joint[side ? RK_BONE_RIGHT_UPPER_LEG : RK_BONE_LEFT_UPPER_LEG];
  rk_vec3 pts[RK__RT_POINTS];
  rk_sole_at(c->tsole[side], c->tgt_models, pts);
  const rk_vec3 own = rk_vec3_sub(sole_middle(pts), rk__rt_ankle(sd, c->tgt_models));
  const rk_vec3 rel = rk_vec3_sub(rk_vec3_scale(rk_quat_rotate(rt->align, rk_vec3_sub(sole_middle(src),
                                                                                       rk__rt_src_pos(c, hip))),
                                                rt->scale),
                                  own);
  const double w = stiff_hold(g);
  return rk_vec3_add(rk_vec3_scale(rel, 1 - w), rk_vec3_scale(rk_vec3_sub(g->ankle, pa), w));
}

/* Where side's free leg of one bone (length len, from its hip pa) points. In its swing a stiff
 * leg cannot shorten, so its end follows its place over the ground (free_reach), not its
 * height: it hangs from the hip as a pendulum would (below it, or above it when that place is
 * above the hip). Where the end must stand at least as high as `rise_to` (its foot's mesh out of
 * the floor, the hip too low for the hanging leg), it reaches out just far enough to stay that
 * high: out to the side when its place is under the hip, turning toward the place's own
 * direction as it lies farther out (not at all when the hip is high enough, as in a hop's
 * flight). Each step is continuous in the hip and the place, so the end follows them without
 * leaping from behind the hip to in front of it. */
static rk_vec3 hang_toward(const rk__rt_run *c, int side, rk_vec3 pa, double len, rk_vec3 want, double rise_to) {
  rk_vec3 h = rk__rt_horizontal(want);
  if (rk_vec3_norm(h) > len)
    h = rk_vec3_scale(rk_vec3_normalize(h), len);
  double dy = (want.y > 0 ? 1.0 : -1.0) * sqrt(fmax(0.0, len * len - rk_vec3_dot(h, h)));
  if (rise_to - (pa.y + dy) > 0) {
    /* The reach over the ground that leaves the end at that height (farther than the place's
     * own), along outward turned toward the place's direction by as much as the place lies out
     * toward that reach (0.9 of it: the direction never vanishes, not even for a place inward of
     * the hip). */
    const double rise = fmax(0.0, pa.y - rise_to), reach = sqrt(fmax(0.0, len * len - rise * rise));
    const rk_vec3 dir = rk_vec3_normalize(rk_vec3_add(rk_vec3_scale(h, 0.9 / reach), outward(c, side)));
    const double along = rk_vec3_dot(h, dir);
    const double s = -along + sqrt(fmax(0.0, along * along - rk_vec3_dot(h, h) + reach * reach));
    h = rk_vec3_add(h, rk_vec3_scale(dir, s));
    dy = -sqrt(fmax(0.0, len * len - rk_vec3_dot(h, h)));
  }
  return rk_vec3_add(h, rk_vec3_make(0, dy, 0));
}

/* Where side's free leg of one bone points (hang_toward the place free_reach says). */
static rk_vec3 free_want(const rk__rt_run *c, int side, rk_vec3 pa, double len, const rk__rt_foot_goal *g,
                         double rise_to) {
  return hang_toward(c, side, pa, len, free_reach(c, side, pa, g), rise_to);
}

/* Turns side's leg of one bone (its end point pc) about its hip. A held foot's leg points at its
 * goal (the pelvis stands where the leg reaches it); a free one as free_want says, rising to a
 * goal lifted out of the floor. Updates the leg's local and limb_world (not the models); returns
 * whether the end reaches the goal. */
bool rk__rt_aim_stiff_leg(rk__rt_run *c, int side, rk_vec3 pc, const rk__rt_foot_goal *g) {
  const int a = c->rt->side[side].upper;
  const rk_vec3 pa = rk_mat4_get_translation(&c->tgt_models[a]);
  const rk_vec3 now = rk_vec3_sub(pc, pa);
  const double len = rk_vec3_norm(now);
  if (!(len > 0))
    return false;
  const rk_vec3 want = g->held ? rk_vec3_sub(g->ankle, pa) : free_want(c, side, pa, len, g, g->lifted ? g->ankle.y : -INFINITY);
  if (!(rk_vec3_norm(want) > 0))
    return false;
  rk__rt_set_world_rotation(c, a, rk_quat_mul(rk_quat_from_to(now, want), c->limb_world[a]));
  const rk_vec3 end = rk_vec3_add(pa, rk_vec3_scale(rk_vec3_normalize(want), len));
  return rk_vec3_norm(rk_vec3_sub(end, g->ankle)) <= 1e-6 * len;
}

/* Whether a leg of one bone fading into or out of a contact was lifted out of the floor: the
 * pelvis, which that leg pulls on as firmly as it holds, rises with its goal (as it does for a
 * held one) rather than leave the leg to reach out for it. */
bool rk__rt_stiff_lifted(const rk__rt_run *c) {
  if (!rk__rt_stiff_legs(c->rt))
    return false;
  for (int side = 0; side < 2; side++) {
    const rk__rt_foot_goal *g = &c->ik.goal[side];
    for (int p = 0; p < RK__RT_POINTS; p++)
      if (g->lifted && g->w[p] > 0)
        return true;
  }
  return false;
}

/* The fastest a free leg of one bone turns (radians per second): a radian in a tenth of a
 * second, faster than a walk swings it. */
#define STIFF_TURN 10.0

/* Turns side's leg of one bone (its top `upper`) from direction d to direction to, its foot
 * bone, if any, keeping its world rotation, and redoes the leg's models. */
static void turn_stiff_leg(rk__rt_run *c, int side, rk_vec3 d, rk_vec3 to) {
  const rk_retargeter *rt = c->rt;
  const rk__rt_side *sd = &rt->side[side];
  rk__rt_set_world_rotation(c, sd->upper, rk_quat_mul(rk_quat_from_to(d, to), c->limb_world[sd->upper]));
  if (!sd->footless) {
    rk__rt_turned_path(c, sd->upper, rk_skeleton_parent(rt->tgt, (size_t)sd->foot));
    rk__rt_set_world_rotation(c, sd->foot, c->limb_world[sd->foot]);
  }
  rk__rt_fk_below(rt->tgt, c->tgt_locals, c->tgt_models, sd->upper, sd->upper);
}

/* The unit direction of side's leg of one bone (hip to end) in the current models, its hip in
 * *hip and its length in *len. */
static rk_vec3 leg_direction(const rk__rt_run *c, int side, rk_vec3 *hip, double *len) {
  const rk__rt_side *sd = &c->rt->side[side];
  *hip = rk_mat4_get_translation(&c->tgt_models[sd->upper]);
  const rk_vec3 d = rk_vec3_sub(rk__rt_ankle(sd, c->tgt_models), *hip);
  *len = rk_vec3_norm(d);
  return rk_vec3_normalize(d);
}

/* Side's free leg of one bone hung from its hip (free_want, no rise). */
static void hang_free_leg(rk__rt_run *c, int side) {
  rk_vec3 hip;
  double len;
  const rk_vec3 now = leg_direction(c, side, &hip, &len);
  turn_stiff_leg(c, side, now, rk_vec3_normalize(free_want(c, side, hip, len, &c->ik.goal[side], -INFINITY)));
}

/* Side's free leg of one bone, its foot's mesh through the floor, reaching out from where it
 * points until it clears (hang_toward its own place over the ground, rising to the height that
 * takes it out): continuous in the leg's direction, which turns at a bounded rate. */
static void reach_out_of_floor(rk__rt_run *c, int side) {
  const double tol = 1e-3 * c->rt->tmap.height;
  double depth = rk__rt_foot_depth(c, side, &c->ik.goal[side]);
  rk_vec3 hip;
  double len;
  const rk_vec3 from = leg_direction(c, side, &hip, &len);
  rk_vec3 at = from;
  double rise_to = rk__rt_ankle(&c->rt->side[side], c->tgt_models).y;
  for (int pass = 0; pass < 4 && depth > tol; pass++) {
    rise_to += depth;
    const rk_vec3 to = rk_vec3_normalize(hang_toward(c, side, hip, len, rk_vec3_scale(from, len), rise_to));
    turn_stiff_leg(c, side, at, to);
    at = to;
    depth = rk__rt_foot_depth(c, side, &c->ik.goal[side]);
  }
}

/* The pelvis raised by as much as the free legs' feet (free) go through the floor, as firmly as
 * no foot holds (support). */
static void raise_on_free_legs(rk__rt_run *c, const bool free[2], double support) {
  const double tol = 1e-3 * c->rt->tmap.height;
  for (int pass = 0; pass < 4 && support < 1; pass++) {
    double depth = 0;
    for (int side = 0; side < 2; side++)
      if (free[side])
        depth = fmax(depth, rk__rt_foot_depth(c, side, &c->ik.goal[side]));
    if (depth <= tol)
      break;
    rk__rt_set_pelvis_position(c, rk_vec3_add(rk_mat4_get_translation(&c->tgt_models[c->rt->tgt_hips]),
                                              rk_vec3_make(0, depth * (1 - support), 0)));
  }
}

/* Side's free leg of one bone turned from its direction at the last frame toward where it
 * points by no more than STIFF_TURN allows in a frame, then on by as much more as keeps its
 * foot out of the floor. */
static void pace_free_leg(rk__rt_run *c, int side) {
  rk_vec3 hip;
  double len;
  const rk_vec3 want = leg_direction(c, side, &hip, &len), was = c->ik.stiff_dir[side];
  const rk_vec3 axis = rk_vec3_cross(was, want);
  const double angle = acos(fmin(1.0, fmax(-1.0, rk_vec3_dot(was, want)))), most = STIFF_TURN / c->fps;
  if (!(angle > most && rk_vec3_norm(axis) > 0))
    return;
  turn_stiff_leg(c, side, want, rk_quat_rotate(rk_quat_from_axis_angle(rk_vec3_normalize(axis), most), was));
}

/* Free legs of one bone (no sole point fully planted) posed after the frame's solve: each hung
 * where the source's foot is (free_want); where a foot then goes through the floor, the pelvis
 * rises as firmly as no foot holds (support: the body sinks only as far as its legs allow, as
 * in a crouch), and the leg reaches out for what the pelvis does not take. Then each turns from
 * its last frame's direction at a bounded rate, further only as far as keeps its foot out of
 * the floor: the pose that keeps a flat foot out of a low floor leaps from out to the side to
 * straight down as the hip passes the height where the foot stands straight, and from the
 * reach to the source's own swing as the foot leaves the floor; the leg swings across instead. */
void rk__rt_pace_stiff_legs(rk__rt_run *c) {
  if (!rk__rt_stiff_legs(c->rt))
    return;
  double support = 0;
  bool free[2];
  for (int side = 0; side < 2; side++) {
    const rk__rt_foot_goal *g = &c->ik.goal[side];
    support = fmax(support, g->active ? stiff_hold(g) : 0.0);
    free[side] = g->active && !g->held;
    if (free[side])
      hang_free_leg(c, side);
  }
  raise_on_free_legs(c, free, support);
  for (int side = 0; side < 2; side++)
    if (free[side]) {
      if (c->ik.stiff_have)
        pace_free_leg(c, side);
      reach_out_of_floor(c, side);
    }
}

/* The directions of legs of one bone at this frame, for the next one's turns. */
void rk__rt_remember_stiff_legs(rk__rt_run *c) {
  const rk_retargeter *rt = c->rt;
  if (!rk__rt_stiff_legs(rt) || !c->ik.goal[0].active || !c->ik.goal[1].active)
    return;
  for (int side = 0; side < 2; side++) {
    const rk_vec3 hip = rk_mat4_get_translation(&c->tgt_models[rt->side[side].upper]);
    c->ik.stiff_dir[side] = rk_vec3_normalize(rk_vec3_sub(rk__rt_ankle(&rt->side[side], c->tgt_models), hip));
  }
  c->ik.stiff_have = true;
}
