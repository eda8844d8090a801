/* Retargeting, loose parts: deforming bones a rig hangs from root-level controls instead of from
 * its body (a game rig's feet under IK foot controls, a helmet under a socket at the root). The
 * transfer and the IK pose the body; then each loose part is put where it belongs: a detached
 * foot (rk_humanoid_map.detached_foot) at the end of the lower leg it stands at, turned with the
 * leg's heading and pitched about the ankle as the source's foot pitches, flat while the source's
 * heel is planted (the leg's pin holds its sole on the floor there); the IK asks where its mesh
 * reaches (rk__rt_loose_foot_low) and lifts the ankle when the pitched foot would go through the
 * floor, as it lifts an ordinary foot; any other part rigidly on the deforming bone nearest to it
 * at rest. The highest control above a part that moves nothing else (FootControl.L above Foot.L) is
 * keyed so that the part lands there, its own pose under the control left at rest; a part hanging
 * directly from the root is keyed itself. Rigs without loose parts are untouched. */
#include "retarget_run.h"

#include "math_internal.h"
#include "skin_internal.h"

/* Distance from p to the segment a-b. */
static double segment_distance(rk_vec3 p, rk_vec3 a, rk_vec3 b) {
  const rk_vec3 d = rk_vec3_sub(b, a);
  const double dd = rk_vec3_dot(d, d);
  const double t = dd > 0 ? fmax(0.0, fmin(1.0, rk_vec3_dot(rk_vec3_sub(p, a), d) / dd)) : 0.0;
  return rk_vec3_norm(rk_vec3_sub(p, rk_vec3_add(a, rk_vec3_scale(d, t))));
}

/* The deforming joint of the body (the hips' subtree) whose bone (to each child) or the middle
 * of whose skin (a head has no child) is nearest to where joint j stands at rest. */
int rk__rt_nearest_bone(const rk_retargeter *rt, const size_t *count, int j) {
  const rk_skeleton *s = rt->tgt;
  const int hips = rt->tgt_hips;
  int best = hips;
  double best_d = INFINITY;
  for (size_t i = (size_t)hips; i < rk_skeleton_subtree_end(s, (size_t)hips); i++) {
    if (count[i] == 0)
      continue;
    double d = rk_vec3_norm(rk_vec3_sub(rt->pt0[j], rt->pt0[i]));
    for (size_t c = i + 1; c < rk_skeleton_subtree_end(s, i); c = rk_skeleton_subtree_end(s, c))
      d = fmin(d, segment_distance(rt->pt0[j], rt->pt0[i], rt->pt0[c]));
    rk_vec3 mid = rk_vec3_make(0, 0, 0);
    for (size_t v = rt->skin->vert_start[i]; v < rt->skin->vert_start[i + 1]; v++)
      mid = rk_vec3_add(mid, rt->skin->vert_rest[v]);
    d = fmin(d, rk_vec3_norm(rk_vec3_sub(rt->pt0[j], rk_vec3_scale(mid, 1.0 / (double)count[i]))));
    if (d < best_d) {
      best_d = d;
      best = (int)i;
    }
  }
  return best;
}

/* Fills part p for the loose deforming joint j: the joint keyed for it, what it follows, and the
 * rest relations between the three. */
static void part_init(rk_retargeter *rt, const size_t *count, const size_t *below,
                      const rk_mat4 *rest, int j, rk__rt_part *p) {
  const rk_skeleton *s = rt->tgt;
  const size_t hips = (size_t)rt->tgt_hips;
  p->joint = j;
  p->keyed = j;
  for (int q = rk_skeleton_parent(s, (size_t)j);
       q >= 0 && rk_skeleton_parent(s, (size_t)q) >= 0 && !rk_skeleton_is_ancestor(s, (size_t)q, hips) &&
       below[q] == below[j];
       q = rk_skeleton_parent(s, (size_t)q))
    p->keyed = q;
  p->level = false;
  p->leader = -1;
  for (int side = 0; side < 2; side++)
    if (rt->tmap.detached_foot[side] == j && rt->side[side].footless) {
      p->leader = rt->side[side].knee;
      p->level = true;
      rt->side[side].loose_foot = true;
      rt->side[side].loose_drop = fmax(0.0, rt->tmap.leg_end_drop[side]);
    }
  if (p->leader < 0)
    p->leader = rk__rt_nearest_bone(rt, count, j);
  rk_mat4 inv;
  if (!rk_mat4_inverse_affine(&rest[p->leader], &inv))
    inv = rk_mat4_identity();
  p->offset = rk_mat4_mul_affine(&inv, &rest[j]);
  /* keyed = part * inverse(part's rest model in the keyed joint's rest frame) */
  if (!rk_mat4_inverse_affine(&rest[j], &inv))
    inv = rk_mat4_identity();
  p->below = rk_mat4_mul_affine(&inv, &rest[p->keyed]);
  p->part_rest = rest[j];
  p->part_rest.m[12] = p->part_rest.m[13] = p->part_rest.m[14] = 0;
}

bool rk__rt_census_take(const rk_retargeter *rt, rk__rt_census *cs) {
  const size_t n = rt->nt;
  *cs = (rk__rt_census){0};
  if (!rt->skin || rt->skin->joint_count != n || rk_skin_support_vertex_count(rt->skin, -1) == 0)
    return false;
  cs->count = g_new(size_t, n);
  cs->below = g_new0(size_t, n);
  for (size_t j = n; j-- > 0;) {
    cs->count[j] = rt->skin->vert_start[j + 1] - rt->skin->vert_start[j];
    cs->below[j] += cs->count[j];
    const int p = rk_skeleton_parent(rt->tgt, j);
    if (p >= 0)
      cs->below[p] += cs->below[j];
  }
  cs->rest = g_new(rk_mat4, n);
  rk_skeleton_rest_models(rt->tgt, cs->rest);
  return true;
}

void rk__rt_census_clear(rk__rt_census *cs) {
  g_clear_pointer(&cs->count, g_free);
  g_clear_pointer(&cs->below, g_free);
  g_clear_pointer(&cs->rest, g_free);
}

bool rk__rt_follows_source(const rk_retargeter *rt, int j, int leader) {
  const int s = rt->match[j], sl = rt->match[leader];
  if (s < 0 || sl < 0)
    return false;
  const rk_vec3 want = rk_vec3_scale(rk_quat_rotate(rt->align, rk_vec3_sub(rt->ps0[s], rt->ps0[sl])), rt->scale);
  return rk_vec3_norm(rk_vec3_sub(want, rk_vec3_sub(rt->pt0[j], rt->pt0[leader]))) <=
         0.005 * rt->tmap.height;
}

rk_mat4 rk__rt_place_as_source(const rk__rt_run *c, int j, int leader) {
  const rk_retargeter *rt = c->rt;
  const int s = rt->match[j], sl = rt->match[leader];
  /* The source's offset from its leader in world terms (turned onto the target's facing, scaled),
   * from where the target's leader stands: the leader's own turn (an IK's twist of a thigh) does
   * not swing it. Its world rotation is the source's from rest, as the transfer gives it. */
  const rk_vec3 d = rk_vec3_sub(rk__rt_src_pos(c, s), rk__rt_src_pos(c, sl));
  const rk_vec3 at = rk_vec3_add(rk_mat4_get_translation(&c->tgt_models[leader]),
                                 rk_vec3_scale(rk_quat_rotate(rt->align, d), rt->scale));
  const rk_quat delta = rk_quat_mul(c->cur_q[rt->src_slot[s]], rk_quat_conj(rt->qs0[s]));
  const rk_quat q = rk_quat_normalize(
      rk_quat_mul(rk_quat_mul(rk_quat_mul(rt->align, delta), rk_quat_conj(rt->align)), rt->qt0[j]));
  const rk_transform x = {at, q, rk_vec3_make(rt->tgt_wscale[j], rt->tgt_wscale[j], rt->tgt_wscale[j])};
  return rk_transform_to_mat4(&x);
}

bool rk__rt_in_part(const rk_retargeter *rt, size_t j) {
  for (size_t k = 0; k < rt->part_count; k++)
    if (rk_skeleton_is_ancestor(rt->tgt, (size_t)rt->parts[k].keyed, j))
      return true;
  return false;
}

void rk__rt_parts_init(rk_retargeter *rt, const rk__rt_census *cs) {
  if (!cs)
    return;
  const rk_skeleton *s = rt->tgt;
  const size_t n = rt->nt, hips = (size_t)rt->tgt_hips;
  const size_t *count = cs->count, *below = cs->below;
  const rk_mat4 *rest = cs->rest;
  rt->parts = g_new(rk__rt_part, n);
  for (size_t j = 0; j < n; j++) {
    if (count[j] == 0 || rk_skeleton_is_ancestor(s, hips, j) || rk_skeleton_is_ancestor(s, j, hips))
      continue;
    bool loose = true;
    for (int q = rk_skeleton_parent(s, j); loose && q >= 0; q = rk_skeleton_parent(s, (size_t)q))
      loose = count[q] == 0;
    if (loose)
      part_init(rt, count, below, rest, (int)j, &rt->parts[rt->part_count++]);
  }
  /* The parts are not the body the floor holds: the feet stand with their legs, the rest ride on
   * the bones they follow. */
  size_t kept = 0;
  for (size_t b = 0; b < rt->body_count; b++) {
    if (!rk__rt_in_part(rt, (size_t)rt->body_joints[b]))
      rt->body_joints[kept++] = rt->body_joints[b];
  }
  rt->body_count = kept;
}

/* The pitch (radians, toes up positive) of a sole from its heel to its ball. */
static double sole_pitch(const rk_vec3 *pts) {
  const rk_vec3 d = rk_vec3_sub(pts[RK_SOLE_BALL], pts[RK_SOLE_HEEL]);
  return atan2(d.y, rk_vec3_norm(rk__rt_horizontal(d)));
}

/* The side whose detached foot part p is, or -1. */
static int foot_side(const rk_retargeter *rt, const rk__rt_part *p) {
  for (int side = 0; side < 2; side++)
    if (p->level && rt->tmap.detached_foot[side] == p->joint)
      return side;
  return -1;
}

/* How far (radians, toes up positive) side's detached foot pitches at the current frame: as the
 * source's foot pitches from its rest (heel to ball), none while the source's heel is planted
 * (the foot stands flat on the floor where the leg's pin holds it), faded in and out around its
 * contacts as the pins are. */
static double foot_pitch(const rk__rt_run *c, int side) {
  const rk_retargeter *rt = c->rt;
  if (rt->side[side].src_footless || !c->src_pts)
    return 0.0;
  rk_vec3 pts[RK__RT_POINTS];
  for (int p = 0; p < RK__RT_POINTS; p++)
    pts[p] = RK__RT_SOLE(c->src_pts, c->cur_f, side * RK__RT_POINTS + p);
  const double pitch = sole_pitch(pts) - sole_pitch(rt->side[side].src.rest);
  if (!c->opts->foot_ik || !isfinite(pitch))
    return isfinite(pitch) ? pitch : 0.0;
  guint at = 0;
  int index;
  const double held = rk__rt_interval_weight(c->res->points[side][RK_SOLE_HEEL], (int)c->cur_f,
                                             c->ik.blend, &at, &index);
  return (1.0 - held) * pitch;
}

/* Where part p goes on its leader's current model (pitch: a detached foot's, about the ankle). */
static rk_mat4 part_place(const rk__rt_run *c, const rk__rt_part *p, double pitch) {
  const rk_retargeter *rt = c->rt;
  const rk_mat4 *lead = &c->tgt_models[p->leader];
  if (!p->level)
    return rk_mat4_mul_affine(lead, &p->offset);
  /* The leader's turn from rest about the vertical (its heading), then the foot's pitch about
   * the ankle, across that heading. */
  rk_transform lt = rk_transform_identity();
  rk_transform_from_mat4(lead, &lt);
  const rk_vec3 up = rk_vec3_make(0, 1, 0);
  const double yaw = rk__twist_angle(rk_quat_mul(lt.r, rk_quat_conj(rt->qt0[p->leader])), up);
  rk_quat turn = rk_quat_from_axis_angle(up, yaw);
  const rk_vec3 ahead = rk__rt_horizontal(rk_quat_rotate(turn, rt->tmap.forward));
  if (pitch != 0.0 && rk_vec3_norm(ahead) > 0) {
    const rk_vec3 across = rk_vec3_normalize(rk_vec3_cross(ahead, up));
    turn = rk_quat_normalize(rk_quat_mul(rk_quat_from_axis_angle(across, pitch), turn));
  }
  const rk_mat3 m3 = rk_quat_to_mat3(turn);
  const rk_mat4 r = rk_mat4_from_rt(&m3, rk_vec3_make(0, 0, 0));
  rk_mat4 want = rk_mat4_mul_affine(&r, &p->part_rest);
  const rk_vec3 at = rk_mat4_transform_point(lead, rk_mat4_get_translation(&p->offset));
  want.m[12] = at.x, want.m[13] = at.y, want.m[14] = at.z;
  return want;
}

/* Poses part p where `want` puts it: the keyed joint's local and the models below it. */
static void part_pose(rk__rt_run *c, const rk__rt_part *p, const rk_mat4 *want) {
  const rk_retargeter *rt = c->rt;
  const rk_mat4 keyed = rk_mat4_mul_affine(want, &p->below);
  const int parent = rk_skeleton_parent(rt->tgt, (size_t)p->keyed);
  rk_mat4 local = keyed;
  rk_mat4 inv;
  if (parent >= 0 && rk_mat4_inverse_affine(&c->tgt_models[parent], &inv))
    local = rk_mat4_mul_affine(&inv, &keyed);
  /* A degenerate matrix (a zero scale somewhere above) keeps the last pose. */
  rk_transform_from_mat4(&local, &c->tgt_locals[p->keyed]);
  rk__rt_fk_below(rt->tgt, c->tgt_locals, c->tgt_models, p->keyed, p->keyed);
}

/* How far (m) part p's mesh, or its leader's (which may blend with it), reaches below the floor
 * in the current models (0 without a mesh); the foot of side, through as far as the source's is
 * left so. */
static double part_depth(const rk__rt_run *c, const rk__rt_part *p, int side) {
  double low = INFINITY;
  rk_skin_point q;
  if (c->skin && rk_skin_lowest_subtree(c->skin, c->tgt_models, p->joint, &q))
    low = q.position.y;
  if (c->skin && rk_skin_lowest_subtree(c->skin, c->tgt_models, p->leader, &q))
    low = fmin(low, q.position.y);
  if (!isfinite(low))
    return 0.0;
  return (side >= 0 ? rk__rt_floor_for(c, RK__RT_FOOT + side, low) : c->tgt_floor) - low;
}

/* Poses part p on its leader's current model; a detached foot pitched as the source's, by as much
 * of that pitch as keeps its mesh out of the floor when `floor` (the IK lifted the ankle where
 * the leg could reach: what is left is a leg too short to lift it). */
static void pose_part(rk__rt_run *c, const rk__rt_part *p, bool floor) {
  const int side = foot_side(c->rt, p);
  /* The source's own detached foot, standing alike at rest: where it goes. */
  if (side >= 0 && c->rt->smap.detached_foot[side] == c->rt->match[p->joint] &&
      rk__rt_follows_source(c->rt, p->joint, p->leader)) {
    const rk_mat4 as_source = rk__rt_place_as_source(c, p->joint, p->leader);
    part_pose(c, p, &as_source);
    return;
  }
  const double pitch = side >= 0 ? foot_pitch(c, side) : 0.0;
  rk_mat4 want = part_place(c, p, pitch);
  part_pose(c, p, &want);
  const double tol = 1e-5 * c->rt->tmap.height;
  if (!floor || pitch == 0.0 || part_depth(c, p, side) <= tol)
    return;
  /* The largest share of the pitch that stays out of the floor (the flat foot, which the leg's
   * sole keeps there, when none does). */
  double lo = 0.0, hi = 1.0;
  for (int i = 0; i < 16; i++) {
    const double mid = 0.5 * (lo + hi);
    want = part_place(c, p, mid * pitch);
    part_pose(c, p, &want);
    if (part_depth(c, p, side) <= tol)
      lo = mid;
    else
      hi = mid;
  }
  want = part_place(c, p, lo * pitch);
  part_pose(c, p, &want);
}

bool rk__rt_loose_foot_low(rk__rt_run *c, int side, rk_vec3 *low) {
  const rk_retargeter *rt = c->rt;
  for (size_t k = 0; k < rt->part_count; k++) {
    const rk__rt_part *p = &rt->parts[k];
    rk_skin_point q;
    if (foot_side(rt, p) != side)
      continue;
    pose_part(c, p, false);
    if (!c->skin || !rk_skin_lowest_subtree(c->skin, c->tgt_models, p->joint, &q))
      return false;
    *low = q.position;
    return true;
  }
  return false;
}

double rk__rt_parts_low_on(rk__rt_run *c, int top) {
  const rk_retargeter *rt = c->rt;
  double low = INFINITY;
  for (size_t k = 0; k < rt->part_count; k++) {
    const rk__rt_part *p = &rt->parts[k];
    rk_skin_point q;
    if (p->level || !rk_skeleton_is_ancestor(rt->tgt, (size_t)top, (size_t)p->leader))
      continue;
    const rk_mat4 want = part_place(c, p, 0.0);
    part_pose(c, p, &want);
    if (c->skin && rk_skin_lowest_subtree(c->skin, c->tgt_models, p->joint, &q))
      low = fmin(low, q.position.y);
  }
  return low;
}

bool rk__rt_surely_above(const rk__rt_run *c, int top) {
  const rk_retargeter *rt = c->rt;
  if (!c->skin)
    return false;
  for (size_t k = 0; k < rt->part_count; k++)
    if (!rt->parts[k].level && rk_skeleton_is_ancestor(rt->tgt, (size_t)top, (size_t)rt->parts[k].leader))
      return false;
  return rk_skin_bound_subtree(c->skin, c->tgt_models, top) > c->tgt_floor + 1e-6 * rt->tmap.height;
}

void rk__rt_parts_frame(rk__rt_run *c) {
  for (size_t k = 0; k < c->rt->part_count; k++)
    pose_part(c, &c->rt->parts[k], c->opts->foot_ik);
}
