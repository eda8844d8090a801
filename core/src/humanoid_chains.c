/* What the skin says about a rig's chains: which joints are control or helper bones (IK targets,
 * pole targets, sockets, props: they weight no vertex and carry no bone that does, so they are no
 * part of a limb) and where a chain ends when its last deforming bone has no child (the far
 * extent of the vertices that bone dominates, along the bone). */
#include "humanoid_internal.h"

#include "skin_internal.h"

#include <math.h>

/* The direction joint j's bone points in: toward the middle of the vertices it dominates (a bone
 * without a child joint still has its mesh hanging from it), else its parent's direction. */
static rk_vec3 leaf_direction(const rk_skin_support *skin, const rk_skeleton *s, const rk_vec3 *pos,
                              int j) {
  const size_t a = skin->vert_start[j], b = skin->vert_start[j + 1];
  rk_vec3 mid = rk_vec3_make(0, 0, 0);
  for (size_t v = a; v < b; v++)
    mid = rk_vec3_add(mid, skin->vert_rest[v]);
  rk_vec3 d = rk_vec3_sub(rk_vec3_scale(mid, 1.0 / (double)(b - a)), pos[j]);
  const int p = rk_skeleton_parent(s, (size_t)j);
  if (rk_vec3_norm(d) < 1e-9 && p >= 0)
    d = rk_vec3_sub(pos[j], pos[p]);
  return rk_vec3_norm(d) > 1e-12 ? rk_vec3_normalize(d) : rk_vec3_make(0, -1, 0);
}

/* How far the lowest of points v[0..n) (turned by angle about the horizontal axis `axis` through
 * c) lies below c. */
static double depth_below(const rk_vec3 *v, size_t n, rk_vec3 c, rk_vec3 axis, double angle) {
  const rk_quat q = rk_quat_from_axis_angle(axis, angle);
  double low = INFINITY;
  for (size_t i = 0; i < n; i++)
    low = fmin(low, rk_quat_rotate(q, rk_vec3_sub(v[i], c)).y);
  return -low;
}

/* The end of a chain whose last bone carries its foot in its mesh (no foot bone): the point of
 * the bone's axis about which the sole rolls, i.e. whose height above the lowest vertex changes
 * least when the bone pitches (a rocker sole's centre) about either side of its footprint.
 * v: the bone's vertices, tip: the far end along direction d, reach: tip's distance from the
 * joint. */
static rk_vec3 rolling_end(const rk_vec3 *v, size_t n, rk_vec3 tip, rk_vec3 d, double reach) {
  g_autofree rk_vec3 *near = g_new(rk_vec3, n);
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (rk_vec3_dot(rk_vec3_sub(tip, v[i]), d) < 0.3 * reach)
      near[m++] = v[i];
  if (m < 3)
    return tip;
  /* Pitch about the sole's width or its length, whichever rolls: the horizontal direction of
   * the end's narrowest extent (a side of its footprint) and the one across it. */
  rk_vec3 along = rk_vec3_make(0, 0, 1);
  double narrowest = INFINITY;
  for (int a = 0; a < 36; a++) {
    const rk_vec3 u = rk_vec3_make(sin(a * G_PI / 36), 0, cos(a * G_PI / 36));
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < m; i++) {
      lo = fmin(lo, rk_vec3_dot(near[i], u));
      hi = fmax(hi, rk_vec3_dot(near[i], u));
    }
    if (hi - lo < narrowest - 1e-9) {
      narrowest = hi - lo;
      along = u;
    }
  }
  const rk_vec3 axes[2] = {rk_vec3_cross(rk_vec3_make(0, 1, 0), along), along};
  static const double pitch[] = {-0.6, -0.3, 0.3, 0.6};
  rk_vec3 best = tip;
  double best_var = INFINITY;
  for (int k = 0; k <= 60; k++) {
    const rk_vec3 c = rk_vec3_sub(tip, rk_vec3_scale(d, 0.5 * reach * k / 60.0));
    const double h0 = depth_below(near, m, c, axes[0], 0.0);
    double var[2] = {0, 0};
    for (int x = 0; x < 2; x++)
      for (size_t a = 0; a < G_N_ELEMENTS(pitch); a++)
        var[x] = fmax(var[x], fabs(depth_below(near, m, c, axes[x], pitch[a]) - h0));
    if (fmin(var[0], var[1]) < best_var - 1e-9 * reach) {
      best_var = fmin(var[0], var[1]);
      best = c;
    }
  }
  return best;
}

static void mark_controls(const rk_skeleton *s, const rk_skin_support *skin, const bool *detached,
                          bool *control);
static void chain_tips(const rk_skeleton *s, const rk_skin_support *skin, const rk_vec3 *pos,
                       const bool *control, rk_vec3 *tip, bool *has_tip, double *drop);

/* Where the chain ending at joint k ends: its tip, or an end site below it at the place a
 * detached foot stands (the end site of a bone is its tail). */
static bool end_near(const rk_skeleton *s, const rk_vec3 *pos, const rk_vec3 *tip, int k,
                     rk_vec3 at, double tol) {
  if (rk_vec3_norm(rk_vec3_sub(tip[k], at)) < tol)
    return true;
  for (size_t c = (size_t)k + 1; c < rk_skeleton_subtree_end(s, (size_t)k);
       c = rk_skeleton_subtree_end(s, c))
    if ((rk_skeleton_joint_flags(s, c) & RK_SKELETON_END_SITE) &&
        rk_vec3_norm(rk_vec3_sub(pos[c], at)) < tol)
      return true;
  return false;
}

/* The lowest rest vertex (y) of the skin joint j and its descendants dominate (INFINITY for
 * none): how far down a detached foot reaches. */
static double subtree_skin_low(const rk_skeleton *s, const rk_skin_support *skin, size_t j) {
  double low = INFINITY;
  for (size_t c = j; c < rk_skeleton_subtree_end(s, j); c++)
    for (size_t v = skin->vert_start[c]; v < skin->vert_start[c + 1]; v++)
      low = fmin(low, skin->vert_rest[v].y);
  return low;
}

/* Detached feet (game rigs whose foot bones hang from root-level IK controls, not from the
 * shins): a joint that dominates vertices, whose parent dominates none, standing below the end
 * of a downward chain elsewhere within half that chain's last bone. The chain then ends
 * at the foot, the foot's skin below it; detached[] marks the foot's subtree. Returns whether
 * any was found. */
static bool detach_feet(const rk_skeleton *s, const rk_skin_support *skin, const rk_vec3 *pos,
                        bool *has_tip, rk_vec3 *tip, double *drop, bool *detached, int *foot_at) {
  const size_t n = rk_skeleton_joint_count(s);
  bool any = false;
  for (size_t j = 0; j < n; j++) {
    const int p = rk_skeleton_parent(s, j);
    if (skin->vert_start[j + 1] == skin->vert_start[j] ||
        (p >= 0 && skin->vert_start[p + 1] > skin->vert_start[p]))
      continue;
    for (size_t k = 0; k < n; k++) {
      const int kp = rk_skeleton_parent(s, k);
      if (!has_tip[k] || kp < 0 || skin->vert_start[kp + 1] == skin->vert_start[kp] || rk_skeleton_is_ancestor(s, j, k) ||
          rk_skeleton_is_ancestor(s, k, j) || !(pos[j].y < pos[k].y) || !(tip[k].y < pos[k].y))
        continue;
      const double len = rk_vec3_norm(rk_vec3_sub(pos[k], pos[kp]));
      if (!end_near(s, pos, tip, (int)k, pos[j], 0.5 * len))
        continue;
      tip[k] = pos[j];
      drop[k] = fmax(0.0, pos[j].y - subtree_skin_low(s, skin, j));
      foot_at[k] = (int)j;
      for (size_t c = j; c < rk_skeleton_subtree_end(s, j); c++)
        detached[c] = true;
      any = true;
      break;
    }
  }
  return any;
}

void rk__humanoid_skin_marks(const rk_skeleton *s, const rk_skin_support *skin, const rk_vec3 *pos,
                             bool *control, rk_vec3 *tip, bool *has_tip, double *drop,
                             int *foot_at) {
  const size_t n = rk_skeleton_joint_count(s);
  for (size_t j = 0; j < n; j++) {
    foot_at[j] = -1;
    control[j] = false;
    has_tip[j] = false;
    tip[j] = pos[j];
    drop[j] = 0;
  }
  if (!skin || skin->joint_count != n || rk_skin_support_vertex_count(skin, -1) == 0)
    return;
  g_autofree bool *detached = g_new0(bool, n);
  mark_controls(s, skin, detached, control);
  chain_tips(s, skin, pos, control, tip, has_tip, drop);
  /* Feet under root-level foot controls end the legs they stand at the end of; then the legs are
   * chains again and the feet no part of any. */
  if (detach_feet(s, skin, pos, has_tip, tip, drop, detached, foot_at)) {
    mark_controls(s, skin, detached, control);
    for (size_t j = 0; j < n; j++)
      if (detached[j])
        has_tip[j] = false;
  }
}

/* Joints that dominate no vertex and carry none that does, the subtrees of detached feet aside:
 * the control and helper bones. */
static void mark_controls(const rk_skeleton *s, const rk_skin_support *skin, const bool *detached,
                          bool *control) {
  const size_t n = rk_skeleton_joint_count(s);
  /* Bottom-up: a joint carries a deforming bone when it or one of its descendants dominates a
   * vertex. */
  g_autofree bool *deforms = g_new0(bool, n);
  for (size_t j = n; j-- > 0;) {
    deforms[j] = !detached[j] && (deforms[j] || skin->vert_start[j + 1] > skin->vert_start[j]);
    const int p = rk_skeleton_parent(s, j);
    if (p >= 0 && deforms[j])
      deforms[p] = true;
  }
  for (size_t j = 0; j < n; j++)
    control[j] = !deforms[j];
}

/* Each deforming joint whose children are all control bones ends its chain: its tip is where its
 * skin ends along its direction. */
static void chain_tips(const rk_skeleton *s, const rk_skin_support *skin, const rk_vec3 *pos,
                       const bool *control, rk_vec3 *tip, bool *has_tip, double *drop) {
  const size_t n = rk_skeleton_joint_count(s);
  for (size_t j = 0; j < n; j++) {
    if (control[j] || skin->vert_start[j + 1] == skin->vert_start[j])
      continue;
    bool leaf = true;
    for (size_t k = j + 1; k < rk_skeleton_subtree_end(s, j); k = rk_skeleton_subtree_end(s, k))
      leaf &= control[k];
    if (!leaf)
      continue;
    const rk_vec3 d = leaf_direction(skin, s, pos, (int)j);
    double reach = 0;
    for (size_t v = skin->vert_start[j]; v < skin->vert_start[j + 1]; v++)
      reach = fmax(reach, rk_vec3_dot(rk_vec3_sub(skin->vert_rest[v], pos[j]), d));
    const size_t a = skin->vert_start[j], nv = skin->vert_start[j + 1] - a;
    const rk_vec3 far = rk_vec3_add(pos[j], rk_vec3_scale(d, reach));
    tip[j] = rolling_end(skin->vert_rest + a, nv, far, d, reach);
    has_tip[j] = reach > 0;
    for (size_t v = a; v < a + nv; v++)
      drop[j] = fmax(drop[j], tip[j].y - skin->vert_rest[v].y);
  }
}

void rk__humanoid_marks_at_rest(const rk_skeleton *s, const rk_skin_support *skin,
                                rk__humanoid_marks *out) {
  const size_t n = rk_skeleton_joint_count(s);
  out->control = g_new(bool, n);
  out->has_tip = g_new(bool, n);
  out->tip = g_new(rk_vec3, n);
  out->drop = g_new(double, n);
  out->foot_at = g_new(int, n);
  g_autofree rk_vec3 *pos = g_new(rk_vec3, n);
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  rk_skeleton_rest_models(s, models);
  for (size_t j = 0; j < n; j++)
    pos[j] = rk_mat4_get_translation(&models[j]);
  rk__humanoid_skin_marks(s, skin, pos, out->control, out->tip, out->has_tip, out->drop,
                          out->foot_at);
}

void rk__humanoid_marks_clear(rk__humanoid_marks *marks) {
  g_clear_pointer(&marks->control, g_free);
  g_clear_pointer(&marks->has_tip, g_free);
  g_clear_pointer(&marks->tip, g_free);
  g_clear_pointer(&marks->drop, g_free);
  g_clear_pointer(&marks->foot_at, g_free);
}

/* A map (file) that names as a leg's foot a joint hanging elsewhere (a root-level IK control's
 * foot bone) detaches it: the leg ends at the foot, its toes dropped with it, the drop reaching
 * down to the lowest point of its skin (without a skin, of its joints). Returns whether it did. */
static bool detach_named_foot(rk_humanoid_map *map, const rk_skeleton *s,
                              const rk_skin_support *skin, int side) {
  const rk_bone u = side ? RK_BONE_RIGHT_UPPER_LEG : RK_BONE_LEFT_UPPER_LEG;
  const int lower = rk__humanoid_leg_knee(map, u);
  const int foot = map->joint[u + 2];
  if (lower < 0 || foot < 0 || rk_skeleton_is_ancestor(s, (size_t)lower, (size_t)foot) ||
      rk_skeleton_is_ancestor(s, (size_t)foot, (size_t)lower))
    return false;
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  rk_skeleton_rest_models(s, models);
  const rk_vec3 at = rk_mat4_get_translation(&models[foot]);
  double low = at.y;
  if (skin && skin->joint_count == n)
    low = fmin(low, subtree_skin_low(s, skin, (size_t)foot));
  for (size_t c = (size_t)foot; c < rk_skeleton_subtree_end(s, (size_t)foot); c++)
    low = fmin(low, models[c].m[13]);
  const int toes = map->joint[u + 3];
  if (toes >= 0 && rk_skeleton_is_ancestor(s, (size_t)foot, (size_t)toes))
    map->joint[u + 3] = -1;
  map->joint[u + 2] = -1;
  map->detached_foot[side] = foot;
  map->leg_end[side] = at;
  map->leg_end_drop[side] = at.y - low;
  map->leg_end_from_skin[side] = true;
  return true;
}

void rk__humanoid_skin_leg_ends(rk_humanoid_map *map, const rk_skeleton *s,
                                const rk_skin_support *skin) {
  rk__humanoid_marks mk;
  rk__humanoid_marks_at_rest(s, skin, &mk);
  for (int side = 0; side < 2; side++) {
    const rk_bone u = side ? RK_BONE_RIGHT_UPPER_LEG : RK_BONE_LEFT_UPPER_LEG;
    /* The leg's last bone: its lower leg, or its only bone. */
    const int lower = rk__humanoid_leg_knee(map, u);
    map->detached_foot[side] = -1;
    if (detach_named_foot(map, s, skin, side))
      continue;
    map->leg_end_from_skin[side] = map->joint[u + 2] < 0 && lower >= 0 && mk.has_tip[lower];
    if (map->leg_end_from_skin[side]) {
      map->leg_end[side] = mk.tip[lower];
      map->leg_end_drop[side] = mk.drop[lower];
      map->detached_foot[side] = mk.foot_at[lower];
    }
  }
  rk__humanoid_marks_clear(&mk);
}

/* Whether skinned joint j (its parent p) hangs beside a sibling like one of a pair of legs of one
 * bone: their skins end well below them, at one level, the two on either side of p, joints at
 * one height. A hip offset to the side is no bone direction for such a leg's skin to follow. */
static bool hanging_pair(const rk_skeleton *s, const rk_vec3 *pos, const rk_vec3 *tip,
                         const bool *has_tip, int j, int p) {
  const rk_vec3 out = rk_vec3_sub(tip[j], pos[j]);
  const double reach = rk_vec3_norm(out);
  if (!(out.y < -0.7 * reach))
    return false;
  const size_t end = rk_skeleton_subtree_end(s, (size_t)p);
  for (size_t k = (size_t)p + 1; k < end; k = rk_skeleton_subtree_end(s, k)) {
    if ((int)k == j || !has_tip[k])
      continue;
    const rk_vec3 ok = rk_vec3_sub(tip[k], pos[k]);
    const double side = (pos[j].x - pos[p].x) * (pos[k].x - pos[p].x) +
                        (pos[j].z - pos[p].z) * (pos[k].z - pos[p].z);
    if (ok.y < -0.7 * rk_vec3_norm(ok) && side < 0 && fabs(pos[k].y - pos[j].y) <= 0.05 * reach &&
        fabs(tip[k].y - tip[j].y) <= 0.05 * reach)
      return true;
  }
  return false;
}

bool rk__humanoid_tip_extends(const rk_skeleton *s, const rk_vec3 *pos, const rk_vec3 *tip,
                              const bool *has_tip, int j) {
  const int p = rk_skeleton_parent(s, (size_t)j);
  if (!has_tip[j] || p < 0)
    return has_tip[j];
  if (hanging_pair(s, pos, tip, has_tip, j, p))
    return true;
  const rk_vec3 bone = rk_vec3_sub(pos[j], pos[p]), out = rk_vec3_sub(tip[j], pos[j]);
  const double lb = rk_vec3_norm(bone), lo = rk_vec3_norm(out);
  return lb > 1e-12 && lo >= 0.1 * lb && rk_vec3_dot(bone, out) >= 0.5 * lb * lo;
}

bool rk__humanoid_is_prop(const rk_skeleton *s, const rk_vec3 *pos, const rk_vec3 *tip,
                          const bool *has_tip, const bool *control, int j) {
  return has_tip[j] && !control[j] && !rk__humanoid_tip_extends(s, pos, tip, has_tip, j);
}
