/* Retargeting, the root and the controls of a game rig. A root joint above the hips that the maps
 * of both rigs name (and that correspond) carries the travel as the source's root does: placed at
 * its rest plus the source root's displacement (turned onto the target's facing and scaled), the
 * joints hanging from it re-expressed so that nothing else moves (the hips keep the place the
 * transfer and the IK gave them). A control (a joint outside the hips' subtree that weights no
 * vertex and carries none that does: an IK foot target, a pole, a socket at the root) is keyed on
 * the deforming bone it belongs to, the nearest at rest (rk__rt_nearest_bone): where the source's
 * counterpart stands to that bone's counterpart when the two stand alike at rest, else keeping
 * its rest relation to the bone. Rigs without a corresponding root or controls are untouched. */
#include "retarget_run.h"


/* The root joint above the hips that carries the travel, or -1: named by both maps, corresponding,
 * a strict ancestor of the hips on both rigs. */
static void find_root(rk_retargeter *rt) {
  const int t = rt->tmap.joint[RK_BONE_ROOT], s = rt->smap.joint[RK_BONE_ROOT];
  rt->root_tgt = rt->root_src = -1;
  if (t < 0 || s < 0 || t == rt->tgt_hips || s == rt->src_hips || rt->match[t] != s ||
      !rk_skeleton_is_ancestor(rt->tgt, (size_t)t, (size_t)rt->tgt_hips) ||
      !rk_skeleton_is_ancestor(rt->src, (size_t)s, (size_t)rt->src_hips))
    return;
  rt->root_tgt = t;
  rt->root_src = s;
}

void rk__rt_controls_init(rk_retargeter *rt, const rk__rt_census *cs) {
  find_root(rt);
  if (!cs)
    return;
  const rk_skeleton *s = rt->tgt;
  const size_t n = rt->nt, hips = (size_t)rt->tgt_hips;
  const size_t *count = cs->count, *below = cs->below;
  const rk_mat4 *rest = cs->rest;
  rt->controls = g_new(rk__rt_control, n);
  for (size_t j = 0; j < n; j++) {
    if (below[j] > 0 || rk_skeleton_parent(s, j) < 0 || rk_skeleton_is_ancestor(s, hips, j) ||
        rk_skeleton_is_ancestor(s, j, hips) || rk__rt_in_part(rt, j))
      continue;
    rk__rt_control *k = &rt->controls[rt->control_count++];
    k->joint = (int)j;
    k->leader = rk__rt_nearest_bone(rt, count, (int)j);
    k->as_source = rk__rt_follows_source(rt, k->joint, k->leader);
    rk_mat4 inv;
    if (!rk_mat4_inverse_affine(&rest[k->leader], &inv))
      inv = rk_mat4_identity();
    k->offset = rk_mat4_mul_affine(&inv, &rest[j]);
  }
}

void rk__rt_controls_moves(rk__rt_run *c) {
  const rk_retargeter *rt = c->rt;
  c->root_moves = rt->root_tgt >= 0 &&
                  rk_clip_find_track(c->clip, rt->root_src, RK_CHANNEL_TRANSLATION) >= 0;
  if (c->root_moves) {
    c->tgt_moves[rt->root_tgt] = true;
    for (size_t j = (size_t)rt->root_tgt + 1; j < rk_skeleton_subtree_end(rt->tgt, (size_t)rt->root_tgt); j++)
      if (rk_skeleton_parent(rt->tgt, j) == rt->root_tgt)
        c->tgt_moves[j] = true;
  }
  for (size_t k = 0; k < rt->control_count; k++)
    c->tgt_moves[rt->controls[k].joint] = true;
}

/* Sets joint j's local from the model `want` under its parent's current model (a degenerate
 * parent keeps the last pose) and redoes the models below it. */
static void set_model(rk__rt_run *c, int j, const rk_mat4 *want) {
  const int parent = rk_skeleton_parent(c->rt->tgt, (size_t)j);
  rk_mat4 local = *want, inv;
  if (parent >= 0 && rk_mat4_inverse_affine(&c->tgt_models[parent], &inv))
    local = rk_mat4_mul_affine(&inv, want);
  rk_transform_from_mat4(&local, &c->tgt_locals[j]);
  rk__rt_fk_below(c->rt->tgt, c->tgt_locals, c->tgt_models, j, j);
}

/* Moves the root where the source's displacement puts it; the joints hanging from it keep their
 * world places (only their local translations change). */
static void place_root(rk__rt_run *c) {
  const rk_retargeter *rt = c->rt;
  const int r = rt->root_tgt, parent = rk_skeleton_parent(rt->tgt, (size_t)r);
  const rk_vec3 moved = rk_vec3_sub(rk__rt_src_pos(c, rt->root_src), rt->ps0[rt->root_src]);
  const rk_vec3 want = rk_vec3_add(rt->pt0[r], rk_vec3_scale(rk_quat_rotate(rt->align, moved), rt->scale));
  rk_mat4 inv;
  rk_vec3 local = want;
  if (parent >= 0 && rk_mat4_inverse_affine(&c->tgt_models[parent], &inv))
    local = rk_mat4_transform_point(&inv, want);
  c->tgt_locals[r].t = local;
  rk_mat4 model = rk_transform_to_mat4(&c->tgt_locals[r]);
  if (parent >= 0)
    model = rk_mat4_mul_affine(&c->tgt_models[parent], &model);
  if (!rk_mat4_inverse_affine(&model, &inv))
    return;
  for (size_t j = (size_t)r + 1; j < rk_skeleton_subtree_end(rt->tgt, (size_t)r); j++)
    if (rk_skeleton_parent(rt->tgt, j) == r)
      c->tgt_locals[j].t = rk_mat4_transform_point(&inv, rk_mat4_get_translation(&c->tgt_models[j]));
  rk__rt_fk_below(rt->tgt, c->tgt_locals, c->tgt_models, r, r);
}

void rk__rt_controls_frame(rk__rt_run *c) {
  const rk_retargeter *rt = c->rt;
  if (c->root_moves)
    place_root(c);
  for (size_t i = 0; i < rt->control_count; i++) {
    const rk__rt_control *k = &rt->controls[i];
    const rk_mat4 want = k->as_source ? rk__rt_place_as_source(c, k->joint, k->leader)
                                      : rk_mat4_mul_affine(&c->tgt_models[k->leader], &k->offset);
    set_model(c, k->joint, &want);
  }
}
