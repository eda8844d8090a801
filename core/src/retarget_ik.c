/* Retargeting, IK per frame: the feet's goals (retarget_feet.c), the pelvis when planted legs
 * cannot reach their ankles' goals (the loop through the ground, solved with rigkit/ik.h),
 * analytic two-bone legs and hands (legs of one bone aimed), feet lifted out of the floor, and
 * the closure of the loop on the final pose. */
#include "retarget_run.h"
#include "tree_internal.h"

#include <rigkit/error.h>
#include <rigkit/fk.h>

#include <string.h>

/* ---- limbs ----------------------------------------------------------------------------------- */

/* Bends the limb a -> b -> end (joints a, b in ancestor order, the end point pc where the pose
 * puts it, carried by b or a joint below it) so that the end reaches target, in the bend plane of
 * the current pose (when the limb is straight, the plane of the pelvis' facing, turned back for
 * forward < 0: worked out only then): analytic two-bone IK (rigkit/ik.h), applied as world
 * rotations of a and b (limb_world: a's parent's and theirs current). Updates locals and
 * limb_world, not the models: the caller redoes a's subtree once its last turn is set
 * (rk__rt_fk_below). Returns whether the target was reached. */
static bool bend_limb(rk__rt_run *c, int a, int b, rk_vec3 pc, rk_vec3 target, double forward) {
  const rk_mat4 *models = c->tgt_models;
  const rk_vec3 pa = rk_mat4_get_translation(&models[a]), pb = rk_mat4_get_translation(&models[b]);
  const rk_vec3 line = rk_vec3_normalize(rk_vec3_sub(pc, pa)), ab = rk_vec3_sub(pb, pa);
  const rk_vec3 off = rk_vec3_sub(ab, rk_vec3_scale(line, rk_vec3_dot(ab, line)));
  rk_two_bone_job job = RK_TWO_BONE_JOB_INIT;
  job.start = pa;
  job.mid = pb;
  job.end = pc;
  job.target = target;
  job.pole = rk_vec3_norm(off) > 1e-4 * rk_vec3_norm(ab)
                 ? rk_vec3_normalize(off)
                 : forward < 0 ? rk_vec3_scale(rk__rt_pelvis_forward(c), -1.0) : rk__rt_pelvis_forward(c);
  if (!rk_two_bone_run(&job))
    return false;
  const rk_quat wa = c->limb_world[a], wb = c->limb_world[b];
  rk__rt_set_world_rotation(c, a, rk_quat_mul(job.start_rotation, wa));
  rk__rt_turned_path(c, a, rk_skeleton_parent(c->rt->tgt, (size_t)b));
  rk__rt_set_world_rotation(c, b, rk_quat_mul(rk_quat_mul(job.start_rotation, job.mid_rotation), wb));
  return job.reached;
}

/* Where the ankle sits in its foot joint's frame, as a loop's offset (rigkit/loop.h). */
static rk_mat4 ankle_offset(const rk__rt_side *sd) {
  return sd->footless ? rk_mat4_translation(sd->ankle_local) : rk_mat4_identity();
}

/* ---- set-up ---------------------------------------------------------------------------------- */

bool rk__rt_ik_init(rk__rt_run *c, GError **error) {
  const rk_retargeter *rt = c->rt;
  rk__rt_ik *ik = &c->ik;
  ik->ndof = rk_tree_dof_count(rt->tree);
  ik->q = g_new0(double, ik->ndof);
  ik->q_fk = g_new0(double, ik->ndof);
  ik->q_prev = g_new0(double, ik->ndof);
  ik->locked = g_new(bool, ik->ndof);
  ik->tree_models = g_new(rk_mat4, rt->nt);
  ik->prob = (rk_ik_problem)RK_IK_PROBLEM_INIT;
  ik->prob.tree = rt->tree;
  ik->prob.loops = ik->loops;
  ik->prob.posture = ik->q_fk;
  ik->prob.locked = ik->locked;
  rk_ik_options_init(&ik->iko);
  ik->iko.max_iterations = c->opts->ik_iterations;
  ik->iko.position_tolerance = 1e-5 * rt->tmap.height;
  ik->iko.closure_tolerance = 1e-6 * rt->tmap.height;
  ik->iko.damping = 1e-5; /* warm starts close to the answer (rigkit/ik.h) */
  ik->blend = (int)lround(c->opts->blend_time * c->fps);
  ik->have_prev = false;
  ik->stiff_have = false;
  rk_ik_problem sizing = ik->prob;
  sizing.loop_count = 2;
  for (int i = 0; i < 2; i++)
    ik->loops[i] = (rk_loop){RK_LOOP_POSITION, rt->tgt_hips, rk_mat4_identity(), -1, rk_mat4_identity()};
  ik->ws = rk_ik_ws_new(&sizing, 6, error);
  return ik->ws != NULL;
}

/* ---- one frame ------------------------------------------------------------------------------- */

/* Whether a leg's goal must be reached from the pelvis: its foot held, or lifted out of the
 * floor (in its swing that pulls on the pelvis only through a knee: a leg of one bone swings its
 * foot up instead). */
static bool holds_pelvis(const rk_retargeter *rt, const rk__rt_foot_goal *g, int side) {
  return g->active && (g->held || (g->lifted && rt->side[side].knee != rt->side[side].upper));
}

/* Never into the floor: the pelvis comes back up as far as the body went through it (below its
 * lowest point `low` before the move; then the legs may not reach: counted). */
static void pelvis_off_the_floor(rk__rt_run *c, double low) {
  const rk_retargeter *rt = c->rt;
  const double depth = fmin(low, rk__rt_body_floor(c, c->cur_f)) - rk__rt_body_low(c, c->tgt_models);
  if (depth > 0)
    rk__rt_set_pelvis_position(c, rk_vec3_add(rk_mat4_get_translation(&c->tgt_models[rt->tgt_hips]),
                                       rk_vec3_make(0, depth, 0)));
}

/* Both feet planted close a loop through the ground. When a planted leg cannot reach its pin
 * from the transferred pelvis, the closure equations (rigkit/loop.h) of the planted feet are
 * solved with the pelvis free to translate and those legs free (the body dips or shifts as a
 * person's would); small mismatches never move the pelvis. */
static bool move_pelvis(rk__rt_run *c, size_t f, GError **error) {
  const rk_retargeter *rt = c->rt;
  rk__rt_ik *ik = &c->ik;
  if (rk__rt_stiff_legs(rt)) {
    /* Legs of one bone: the pelvis rides on them, never into the floor. */
    const double low = rk__rt_body_low(c, c->tgt_models);
    if (rk__rt_stand_on_stiff_legs(c))
      pelvis_off_the_floor(c, low);
    return true;
  }
  bool held[2] = {false, false}, reachable = true;
  for (int side = 0; side < 2; side++) {
    const rk__rt_side *sd = &rt->side[side];
    held[side] = holds_pelvis(rt, &ik->goal[side], side);
    if (!held[side])
      continue;
    rk_vec3 a = rk_mat4_get_translation(&c->tgt_models[sd->upper]);
    rk_vec3 b = rk_mat4_get_translation(&c->tgt_models[sd->knee]);
    rk_vec3 e = rk__rt_ankle(sd, c->tgt_models);
    const double thigh = rk_vec3_norm(rk_vec3_sub(b, a)), shin = rk_vec3_norm(rk_vec3_sub(e, b));
    const double d = rk_vec3_norm(rk_vec3_sub(ik->goal[side].ankle, a));
    reachable &= sd->knee == sd->upper
                     ? fabs(d - shin) <= 1e-4 * shin
                     : d < (thigh + shin) * (1.0 - 1e-4) && d > fabs(thigh - shin) * (1.0 + 1e-4);
  }
  const rk_joint *hips_joint = rk_tree_joint(rt->tree, (size_t)rt->tgt_hips);
  if (reachable || hips_joint->dof_count != 6)
    return true;
  rk_tree_q_from_locals(rt->tree, c->tgt_locals, ik->have_prev ? ik->q_prev : NULL, ik->q_fk, NULL);
  memcpy(ik->q, ik->q_fk, ik->ndof * sizeof(double));
  for (size_t j = 0; j < ik->ndof; j++)
    ik->locked[j] = true;
  for (int d = 0; d < 3; d++)
    ik->locked[hips_joint->dof_offset + d] = false;
  size_t nl = 0;
  for (int side = 0; side < 2; side++) {
    if (!held[side])
      continue;
    ik->loops[nl++] = (rk_loop){RK_LOOP_POSITION, rt->side[side].foot, ankle_offset(&rt->side[side]),
                                -1, rk_mat4_translation(ik->goal[side].ankle)};
    for (size_t i = 0; i < rt->leg_count[side]; i++) {
      const rk_joint *jt = rk_tree_joint(rt->tree, (size_t)rt->leg_joints[side][i]);
      for (int d = 0; d < jt->dof_count; d++)
        ik->locked[jt->dof_offset + d] = false;
    }
  }
  ik->prob.loop_count = nl;
  rk_ik_result ir;
  if (!rk_ik_solve(&ik->prob, &ik->iko, ik->q, ik->ws, &ir, error)) {
    g_prefix_error(error, "clip '%s' frame %zu: ", rk_clip_name(c->clip), f);
    return false;
  }
  g_debug("retarget '%s' frame %zu: pelvis solve on %zu loops: %s after %d iterations, "
          "closure %g m", rk_clip_name(c->clip), f, nl, rk_ik_status_name(ir.status),
          ir.iterations, ir.closure_error);
  /* Keep the solved pelvis; the legs are redone analytically below (stable knees). */
  const double low = rk__rt_body_low(c, c->tgt_models);
  rk_transform pelvis;
  rk_tree_joint_local(rt->tree, (size_t)rt->tgt_hips, ik->q, &pelvis);
  c->tgt_locals[rt->tgt_hips].t = pelvis.t;
  rk_fk_models(rt->tgt, c->tgt_locals, c->tgt_models);
  pelvis_off_the_floor(c, low);
  return true;
}

/* A leg without a foot bone carries its foot on its lower leg: the bend points the lower leg at
 * the ankle's goal, and whatever turn about its own axis the bend gave it (a straight leg's bend
 * plane can swing round) would turn the foot; it takes the transferred pose's turn instead. */
static void untwist_shin(rk__rt_run *c, const rk__rt_side *sd) {
  const rk_vec3 shin = rk_vec3_sub(rk__rt_ankle(sd, c->tgt_models),
                                   rk_mat4_get_translation(&c->tgt_models[sd->knee]));
  const rk_quat now = c->limb_world[sd->knee], want = c->tgt_world[sd->knee];
  /* Where the transferred turn points the shin, swung back onto where the bend points it. */
  const rk_vec3 was = rk_quat_rotate(rk_quat_mul(want, rk_quat_conj(now)), shin);
  rk__rt_set_world_rotation(c, sd->knee, rk_quat_normalize(rk_quat_mul(rk_quat_from_to(was, shin), want)));
}

/* One leg onto its goal: analytic two-bone in the bend plane of the transferred pose (a leg of
 * one bone turned about its hip), then the foot and toes turned as the goal says. */
static bool place_leg(rk__rt_run *c, int side) {
  const rk_retargeter *rt = c->rt;
  const rk__rt_side *sd = &rt->side[side];
  const rk__rt_foot_goal *g = &c->ik.goal[side];
  const rk_skeleton *s = rt->tgt;
  const rk_vec3 ankle = rk__rt_ankle(sd, c->tgt_models);
  const bool reached = sd->knee == sd->upper
                           ? rk__rt_aim_stiff_leg(c, side, ankle, g)
                           : bend_limb(c, sd->upper, sd->knee, ankle, g->ankle, 1.0);
  /* Each turn below needs its parent's world rotation; the leg's models are made once at the end
   * (a footless leg's foot is its knee, whose untwist reads the bent models). */
  if (sd->footless) {
    rk__rt_fk_path(s, c->tgt_locals, c->tgt_models, sd->upper, sd->knee);
    untwist_shin(c, sd);
  } else {
    rk__rt_turned_path(c, sd->knee, rk_skeleton_parent(s, (size_t)sd->foot));
    rk__rt_set_world_rotation(c, sd->foot, g->foot);
  }
  if (sd->toe >= 0) {
    rk__rt_turned_path(c, sd->foot, rk_skeleton_parent(s, (size_t)sd->toe));
    rk__rt_set_world_rotation(c, sd->toe, g->toe);
  }
  rk__rt_fk_below(s, c->tgt_locals, c->tgt_models, sd->upper, sd->upper);
  return reached;
}

/* Whether two quaternions have the same components. */
static bool same_quat(rk_quat a, rk_quat b) {
  return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
}

/* Whether side's leg stands where its goal puts it already: the ankle there, the foot and toes
 * turned so (a swinging leg, whose goal is the pose's own). Solving it would only turn it by
 * rounding errors. */
static bool leg_in_place(const rk__rt_run *c, int side, const rk__rt_foot_goal *g) {
  const rk__rt_side *sd = &c->rt->side[side];
  const rk_vec3 a = rk__rt_ankle(sd, c->tgt_models);
  return a.x == g->ankle.x && a.y == g->ankle.y && a.z == g->ankle.z &&
         (sd->footless || same_quat(c->limb_world[sd->foot], g->foot)) &&
         (sd->toe < 0 || same_quat(c->limb_world[sd->toe], g->toe));
}

/* Legs onto their goals; a foot whose mesh then goes through the floor is lifted out of it (a
 * source foot through its own floor is fixed, not copied). */
static void place_legs(rk__rt_run *c) {
  for (int side = 0; side < 2; side++) {
    rk__rt_foot_goal *g = &c->ik.goal[side];
    if (!g->active)
      continue;
    if (!leg_in_place(c, side, g))
      place_leg(c, side);
    /* Turned about its held end, then (still through, or held at both ends or none) lifted. The
     * depth is measured once per placing of the leg. */
    const double tol = 1e-5 * c->rt->tmap.height;
    double depth = rk__rt_foot_depth(c, side, g);
    for (int pass = 0; pass < 8 && depth > tol; pass++) {
      if (!rk__rt_foot_tilt(c, side, g))
        break;
      place_leg(c, side);
      depth = rk__rt_foot_depth(c, side, g);
    }
    /* Lifted by its depth (again while blended vertices, which follow the leg's bend too, are
     * still through). */
    for (int pass = 0; pass < 4; pass++) {
      if (pass > 0)
        depth = rk__rt_foot_depth(c, side, g);
      if (depth <= tol)
        break;
      /* From where the ankle is: a goal below the leg's reach lifts nothing by itself. */
      const double was = g->ankle.y;
      g->ankle.y = fmax(g->ankle.y, rk__rt_ankle(&c->rt->side[side], c->tgt_models).y) + depth;
      g->lift += g->ankle.y - was;
      g->lifted = true;
      place_leg(c, side);
      /* A held leg of one bone reaches its lifted goal only as the pelvis rises (the frame's
       * second pass): lifted once, not again by the same depth. */
      if (g->held && c->rt->side[side].knee == c->rt->side[side].upper)
        break;
    }
  }
}

/* After an arm tu -> tf bent by bend_limb: hand th takes world rotation w, and the arm's models
 * are redone. */
static void turn_hand(rk__rt_run *c, int tu, int tf, int th, rk_quat w) {
  const rk_skeleton *s = c->rt->tgt;
  rk__rt_turned_path(c, tf, rk_skeleton_parent(s, (size_t)th));
  rk__rt_set_world_rotation(c, th, w);
  rk__rt_fk_below(s, c->tgt_locals, c->tgt_models, tu, tu);
}

/* Hands: the source's hand relative to its shoulder, scaled by arm length; the hand keeps its
 * transferred world rotation. */
static void reach_hands(rk__rt_run *c) {
  const rk_retargeter *rt = c->rt;
  for (int side = 0; side < 2; side++) {
    rk_bone ua = side ? RK_BONE_RIGHT_UPPER_ARM : RK_BONE_LEFT_UPPER_ARM;
    int su = rt->smap.joint[ua], sh = rt->smap.joint[ua + 2];
    int tu = rt->tmap.joint[ua], tf = rt->tmap.joint[ua + 1], th = rt->tmap.joint[ua + 2];
    if (su < 0 || sh < 0 || tu < 0 || tf < 0 || th < 0)
      continue;
    double sl = rk_vec3_norm(rk_vec3_sub(rt->ps0[sh], rt->ps0[su]));
    double tl = rk_vec3_norm(rk_vec3_sub(rt->pt0[tf], rt->pt0[tu])) + rk_vec3_norm(rk_vec3_sub(rt->pt0[th], rt->pt0[tf]));
    if (!(sl > 0))
      continue;
    rk_quat hand_world = c->tgt_world[th];
    rk_vec3 rel = rk_quat_rotate(rt->align, rk_vec3_sub(rk__rt_src_pos(c, sh), rk__rt_src_pos(c, su)));
    rk_vec3 target = rk_vec3_add(rk_mat4_get_translation(&c->tgt_models[tu]), rk_vec3_scale(rel, tl / sl));
    bend_limb(c, tu, tf, rk_mat4_get_translation(&c->tgt_models[th]), target, -1.0);
    turn_hand(c, tu, tf, th, hand_world);
  }
}

/* The lowest point of a target joint top and its descendants into *at: skinned (true), else
 * its lowest joint (false). */
static bool lowest_point(const rk__rt_run *c, int top, rk_vec3 *at) {
  rk_skin_point p;
  if (c->skin && rk_skin_lowest_subtree(c->skin, c->tgt_models, top, &p)) {
    *at = p.position;
    return true;
  }
  size_t low = (size_t)top;
  for (size_t j = (size_t)top; j < rk_skeleton_subtree_end(c->rt->tgt, (size_t)top); j++)
    low = c->tgt_models[j].m[13] < c->tgt_models[low].m[13] ? j : low;
  *at = rk_mat4_get_translation(&c->tgt_models[low]);
  return false;
}

/* The lowest point (y) of a target joint and its descendants, skinned (with the loose parts that
 * ride on them: a shield on a socket at the root), else its joints. */
static double subtree_low(rk__rt_run *c, int top) {
  rk_vec3 at;
  return lowest_point(c, top, &at) ? fmin(at.y, rk__rt_parts_low_on(c, top)) : at.y;
}

/* The arm from its top tu down to its hand th, saved or put back (the rotations the arm's turns
 * set: locals and world rotations along the path; the models are redone from them). */
enum { ARM_LONGEST = 16 };
typedef struct arm_pose {
  int n, joint[ARM_LONGEST];
  rk_quat local[ARM_LONGEST], world[ARM_LONGEST];
} arm_pose;

/* Saves the path tu..th into a; false when th is not below tu within ARM_LONGEST joints. */
static bool arm_save(const rk__rt_run *c, int tu, int th, arm_pose *a) {
  a->n = 0;
  for (int j = th; j >= 0 && a->n < ARM_LONGEST; j = rk_skeleton_parent(c->rt->tgt, (size_t)j)) {
    a->joint[a->n] = j;
    a->local[a->n] = c->tgt_locals[j].r;
    a->world[a->n++] = c->limb_world[j];
    if (j == tu)
      return true;
  }
  return false;
}

static void arm_restore(rk__rt_run *c, int tu, const arm_pose *a) {
  for (int i = 0; i < a->n; i++) {
    c->tgt_locals[a->joint[i]].r = a->local[i];
    c->limb_world[a->joint[i]] = a->world[i];
  }
  rk__rt_fk_below(c->rt->tgt, c->tgt_locals, c->tgt_models, tu, tu);
}

/* Arms and the floor: an arm through it raises its hand by as much, by the arm (analytic
 * two-bone, the hand keeping its world rotation), again while what went through was nearer the
 * shoulder than the hand (a forearm, a shield on it: they rise by less than the hand) and the
 * arm still lifts it; a raise that sinks it deeper (a broad shield's edge turning down) is taken
 * back. An arm without a mapped hand (fingers on the forearm) raises the forearm's lowest point
 * the same way, what hangs from the forearm turning with it. The pelvis never lifts for the
 * arms. */
static void floor_hands(rk__rt_run *c) {
  enum { TRIES = 4 };
  const rk_retargeter *rt = c->rt;
  const double tol = 1e-4 * rt->tmap.height;
  for (int side = 0; side < 2; side++) {
    const rk_bone ua = side ? RK_BONE_RIGHT_UPPER_ARM : RK_BONE_LEFT_UPPER_ARM;
    const int tu = rt->tmap.joint[ua], tf = rt->tmap.joint[ua + 1], th = rt->tmap.joint[ua + 2];
    if (tu < 0 || tf < 0)
      continue;
    /* An arm surely above the floor (most frames) lifts nothing: dy below would be <= 0. */
    if (rk__rt_surely_above(c, tu))
      continue;
    const rk_quat hand_world = th >= 0 ? c->limb_world[th] : rk_quat_identity();
    /* The floor this arm may reach down to: the source's own arm's depth left to it. */
    const double low = subtree_low(c, tu), floor = rk__rt_floor_for(c, RK__RT_ARM + side, low);
    double dy = floor - low;
    arm_pose before;
    for (int k = 0; k < TRIES && dy > tol; k++) {
      const bool saved = arm_save(c, tu, th >= 0 ? th : tf, &before);
      rk_vec3 end = rk_mat4_get_translation(&c->tgt_models[th >= 0 ? th : tf]);
      if (th < 0) /* no hand: the forearm's lowest point */
        lowest_point(c, tf, &end);
      bend_limb(c, tu, tf, end, rk_vec3_add(end, rk_vec3_make(0, dy, 0)), -1.0);
      if (th >= 0)
        turn_hand(c, tu, tf, th, hand_world);
      else
        rk__rt_fk_below(rt->tgt, c->tgt_locals, c->tgt_models, tu, tu);
      const double left = floor - subtree_low(c, tu);
      if (left < dy - tol) {
        dy = left;
        continue;
      }
      if (saved && left > dy)
        arm_restore(c, tu, &before);
      break; /* the arm cannot lift it further (straight, or the shoulder too low) */
    }
  }
}

/* A planted pair: the closure equations on the final pose, as the tree's q. Only the joints that
 * carry the feet decide the feet's models, so only their angles are read from the pose (the
 * Euler angles of every joint were 8% of a run); the others keep what q held (they move no foot:
 * the pelvis solve, which starts from this q's angles, keeps only what the feet decide). */
static void close_loop(rk__rt_run *c) {
  const rk_retargeter *rt = c->rt;
  rk__rt_ik *ik = &c->ik;
  rk__tree_q_from_locals_links(rt->tree, c->tgt_locals, ik->have_prev ? ik->q_prev : NULL,
                               rt->feet_links, rt->feet_link_count, ik->q);
  memcpy(ik->q_prev, ik->q, ik->ndof * sizeof(double));
  ik->have_prev = true;
  rk_tree_fk(rt->tree, ik->q, NULL, ik->tree_models);
  for (int side = 0; side < 2; side++) {
    rk_loop lp = {RK_LOOP_POSITION, rt->side[side].foot, ankle_offset(&rt->side[side]), -1,
                  rk_mat4_translation(ik->goal[side].ankle)};
    double r[3];
    rk_loop_residual(rt->tree, &lp, ik->tree_models, r);
    c->tally.closure_max = fmax(c->tally.closure_max, sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]));
  }
  c->tally.loop_frames++;
}

/* Whether a held foot's ankle missed its goal (the leg too short for it). */
static bool held_missed(const rk__rt_run *c) {
  for (int side = 0; side < 2; side++) {
    const rk__rt_foot_goal *g = &c->ik.goal[side];
    const rk_vec3 a = rk__rt_ankle(&c->rt->side[side], c->tgt_models);
    if (holds_pelvis(c->rt, g, side) && rk_vec3_norm(rk_vec3_sub(a, g->ankle)) > 1e-4 * c->rt->tmap.height)
      return true;
  }
  return false;
}

bool rk__rt_solve_frame(rk__rt_run *c, size_t f, GError **error) {
  const rk_vec3 hips = rk_mat4_get_translation(&c->tgt_models[c->rt->tgt_hips]);
  rk__rt_feet_goals(c, f);
  if (!move_pelvis(c, f, error))
    return false;
  place_legs(c);
  /* A foot turned or lifted out of the floor may have moved its ankle out of reach: the pelvis
   * again, then the legs; still out of reach, the frame is counted. */
  if (held_missed(c) || rk__rt_stiff_lifted(c)) {
    if (!move_pelvis(c, f, error))
      return false;
    place_legs(c);
    c->res->unreachable_frames += held_missed(c);
  }
  rk__rt_pace_stiff_legs(c);
  /* How far the legs moved the pelvis within the frame, beyond the lowering eased in ahead
   * (retarget_reach.c: counted as moved, not as a jump); the hip bob is the source's elsewhere. */
  const double moved = rk_vec3_norm(rk_vec3_sub(rk_mat4_get_translation(&c->tgt_models[c->rt->tgt_hips]), hips));
  c->res->pelvis_frames += moved <= 1e-6 * c->rt->tmap.height && c->reach_drop && c->reach_drop[f] > 0;
  if (moved > 1e-6 * c->rt->tmap.height) {
    c->res->pelvis_frames++;
    c->res->pelvis_max = fmax(c->res->pelvis_max, moved);
  }
  if (c->opts->hand_ik)
    reach_hands(c);
  if (c->opts->foot_ik)
    floor_hands(c);
  if (c->ik.goal[0].active && c->ik.goal[0].held && c->ik.goal[1].active && c->ik.goal[1].held)
    close_loop(c);
  rk__rt_remember_stiff_legs(c);
  return true;
}
