/* The transfer's rotations four joints at a time (core/src/retarget_lanes.c) against the scalar
 * transfer (rk__rt_transfer_rotation), bit for bit: world rotations of the joints a source joint
 * drives (its rotation, the bones' direction turns) and every local rotation, on random source
 * frames for a T-pose rig onto an A-pose one turned and with other legs (bones with their own
 * directions), and onto itself; a source bone turned exactly against its target bone is left to
 * the scalar transfer (listed to redo). */
#include "rig_fixture.h"

#include "../../core/src/retarget_run.h"

static rk_quat random_quat(GRand *r) {
  return rk_quat_normalize(rk_quat_make(g_rand_double_range(r, -1, 1), g_rand_double_range(r, -1, 1),
                                        g_rand_double_range(r, -1, 1), g_rand_double_range(r, -1, 1)));
}

/* Sets direction joint j's source bone (slots s -> e) against the target bone its rotation alone
 * gives (the source joint's rotation the identity). */
static void turn_against(const rk_retargeter *rt, size_t j, int s, int e, rk_quat *q, rk_vec3 *p) {
  const rk__rt_rule *rule = &rt->rules[j];
  const rk_quat A = rt->align;
  q[s] = rk_quat_identity();
  const rk_quat w = rk_quat_normalize(
      rk_quat_mul(rk_quat_mul(rk_quat_mul(A, rk_quat_conj(rt->qs0[rule->src])), rk_quat_conj(A)),
                  rt->qt0[j]));
  const rk_vec3 bone = rk_quat_rotate(rk_quat_conj(rt->qt0[j]),
                                      rk_vec3_sub(rt->pt0[rule->tgt_child], rt->pt0[j]));
  p[e] = rk_vec3_sub(p[s], rk_vec3_scale(rk_quat_rotate(rk_quat_conj(A), rk_quat_rotate(w, bone)), 2.0));
}

/* 200 random frames; returns how many joints the lanes left to redo. */
static size_t check_frames(const rk_retargeter *rt, GRand *r) {
  const size_t nt = rt->nt, used = rt->src_used;
  g_autofree rk_quat *q = g_new(rk_quat, used), *world = g_new(rk_quat, nt);
  g_autofree rk_quat *want = g_new(rk_quat, nt);
  g_autofree rk_vec3 *p = g_new(rk_vec3, used);
  g_autofree int *redo = g_new(int, nt);
  g_autofree bool *against = g_new(bool, nt);
  g_autofree rk_transform *locals = g_new(rk_transform, nt);
  rk__rt_run c = {.rt = rt, .cur_q = q, .cur_p = p, .travel = {0.1, 0, -0.3}, .tgt_world = want};
  size_t redone = 0;
  for (int frame = 0; frame < 200; frame++) {
    for (size_t u = 0; u < used; u++) {
      q[u] = random_quat(r);
      p[u] = rk_vec3_make(g_rand_double_range(r, -1, 1), g_rand_double_range(r, -1, 1),
                          g_rand_double_range(r, -1, 1));
    }
    c.cur_t = frame / 24.0;
    /* Now and then a direction bone of zero length, or turned exactly against its target's. */
    for (size_t j = 0; j < nt; j++) {
      const rk__rt_rule *rule = &rt->rules[j];
      against[j] = false;
      if (frame % 3 || rule->kind != RK__RULE_DIRECTION || g_rand_int_range(r, 0, 3))
        continue;
      const int s = rt->src_slot[rule->src], e = rt->src_slot[rule->src_child];
      if (frame % 2) {
        p[e] = p[s];
      } else {
        turn_against(rt, j, s, e, q, p);
        against[j] = true;
      }
    }
    for (size_t j = 0; j < nt; j++)
      world[j] = rk_quat_make(NAN, NAN, NAN, NAN);
    const size_t n = rk__rt_world_lanes(&c, world, redo);
    redone += n;
    for (size_t k = 0; k < n; k++)
      cr_assert(against[redo[k]], "frame %d: joint %d left to redo", frame, redo[k]);
    for (size_t j = 0; j < nt; j++) {
      if (rt->rules[j].kind == RK__RULE_REST)
        continue;
      want[j] = rk__rt_transfer_rotation(&c, j);
      bool listed = false;
      for (size_t k = 0; k < n; k++)
        listed |= redo[k] == (int)j;
      cr_assert(listed || memcmp(&want[j], &world[j], sizeof(rk_quat)) == 0,
                "frame %d joint %zu: (%a %a %a %a)", frame, j, world[j].x, world[j].y, world[j].z,
                world[j].w);
    }
    for (size_t j = 0; j < nt; j++)
      if (rt->rules[j].kind == RK__RULE_REST)
        want[j] = random_quat(r);
    rk__rt_local_lanes(rt, want, locals);
    for (size_t j = 0; j < nt; j++) {
      const int par = rk_skeleton_parent(rt->tgt, j);
      if (par < 0)
        continue;
      const rk_quat local = rk_quat_normalize(rk_quat_mul(rk_quat_conj(want[par]), want[j]));
      cr_assert(memcmp(&local, &locals[j].r, sizeof local) == 0, "frame %d local %zu", frame, j);
    }
  }
  return redone;
}

Test(retarget_lanes, rotations_are_the_scalar_transfers_bits) {
  rk_skeleton *src = make_rig(NULL, 0, false);
  fx_rig_params p = FX_RIG_PARAMS_INIT;
  p.arm_down_deg = 45;
  p.yaw = 0.5 * RK_PI;
  p.thigh = 0.5;
  p.right_first = true;
  rk_skeleton *tgt = fx_rig(&p, NULL);
  GRand *r = g_rand_new_with_seed(5);
  rk_retargeter *onto_a = fx_retargeter(src, tgt), *onto_self = fx_retargeter(src, src);
  size_t directions = 0;
  for (size_t j = 0; j < onto_a->nt; j++)
    directions += onto_a->rules[j].kind == RK__RULE_DIRECTION;
  cr_assert_gt(directions, 3, "arms lowered at rest: bones with their own directions");
  cr_assert_gt(check_frames(onto_a, r), 0, "bones turned against their targets' were redone");
  check_frames(onto_self, r);
  rk_retargeter_free(onto_a);
  rk_retargeter_free(onto_self);
  g_rand_free(r);
  rk_skeleton_unref(src);
  rk_skeleton_unref(tgt);
}
