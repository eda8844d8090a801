/* IK on kinematic trees: a humanoid built in code with both feet pinned (hard and soft loops) and a
 * hand goal, unreachable goals under closure, the analytic limb solver against the numeric one,
 * warm-started sequences, the DH fast path of a robot tree, and threads. */
#include "rk_rigs.h"
#include "rk_test.h"

#include <rigkit/ik.h>
#include <rigkit/jacobian.h>
#include <string.h>

/* ---- Fixtures -------------------------------------------------------------------------------- */

/* The humanoid of rk_rigs.h: knees and elbows revolute with one-sided limits, every other joint a
 * ball, the root free. */
static rk_tree *humanoid_tree(void) {
  g_autoptr(GError) err = NULL;
  rk_tree *t = rk_rig_humanoid_tree(&err);
  cr_assert(t, "%s", err ? err->message : "");
  return t;
}

static int link_of(const rk_tree *t, const char *name) {
  const int l = rk_tree_find_link(t, name);
  cr_assert(l >= 0, "no link %s", name);
  return l;
}

/* The iiwa of rk_rigs.h as a tree (7 revolute DOFs, DH fast path). */
static rk_tree *iiwa_tree(void) {
  g_autoptr(GError) err = NULL;
  rk_tree *t = rk_rig_iiwa14_tree(&err);
  cr_assert(t, "%s", err ? err->message : "");
  cr_assert_eq(rk_tree_dof_count(t), 7);
  return t;
}

/* A start pose near rest: small ball angles, bent knees and elbows. */
static void humanoid_start(const rk_tree *t, double *q) {
  rk_tree_q_rest(t, q);
  guint64 rng = 17;
  for (size_t k = 6; k < rk_tree_dof_count(t); k++)
    q[k] += rk_test_uniform(&rng, -0.1, 0.1);
  const char *hinges[4] = {"LoLeg_L", "LoLeg_R", "LoArm_L", "LoArm_R"};
  for (int i = 0; i < 4; i++)
    q[rk_tree_joint(t, (size_t)link_of(t, hinges[i]))->dof_offset] = 0.3;
  rk_tree_q_clamp(t, q);
}

static rk_vec3 link_pos(const rk_tree *t, const double *q, int link) {
  rk_mat4 *models = g_new(rk_mat4, rk_tree_link_count(t));
  rk_tree_fk(t, q, NULL, models);
  const rk_vec3 p = rk_mat4_get_translation(&models[link]);
  g_free(models);
  return p;
}

/* ---- Humanoid with both feet pinned ---------------------------------------------------------- */

typedef struct pinned {
  rk_tree *tree;
  double *q;
  rk_loop loops[2];
  rk_ik_goal goal;
  rk_ik_problem p;
  int hand;
} pinned;

static void pinned_init(pinned *s, rk_vec3 hand_offset) {
  s->tree = humanoid_tree();
  s->q = g_new0(double, rk_tree_dof_count(s->tree));
  humanoid_start(s->tree, s->q);
  s->loops[0] = rk_loop_closing(s->tree, RK_LOOP_RIGID, s->q, link_of(s->tree, "Foot_L"),
                                rk_vec3_make(0, 0, 0), -1);
  s->loops[1] = rk_loop_closing(s->tree, RK_LOOP_RIGID, s->q, link_of(s->tree, "Foot_R"),
                                rk_vec3_make(0, 0, 0), -1);
  s->hand = link_of(s->tree, "Hand_L");
  const rk_ik_goal g = RK_IK_GOAL_INIT;
  s->goal = g;
  s->goal.kind = RK_IK_POSITION;
  s->goal.link = s->hand;
  s->goal.target_position = rk_vec3_add(link_pos(s->tree, s->q, s->hand), hand_offset);
  const rk_ik_problem p = RK_IK_PROBLEM_INIT;
  s->p = p;
  s->p.tree = s->tree;
  s->p.goals = &s->goal;
  s->p.goal_count = 1;
  s->p.loops = s->loops;
  s->p.loop_count = 2;
}

static void pinned_clear(pinned *s) {
  rk_tree_unref(s->tree);
  g_free(s->q);
}

Test(ik_tree, humanoid_feet_pinned_hand_goal_closes_loops) {
  pinned s;
  pinned_init(&s, rk_vec3_make(0.15, -0.25, 0.3));
  cr_assert(rk_test_loop_residual(s.tree, s.loops, 2, s.q) < 1e-12);
  GError *err = NULL;
  rk_ik_ws *ws = rk_ik_ws_new(&s.p, 0, &err);
  cr_assert(ws, "%s", err ? err->message : "");
  cr_assert_not(rk_ik_ws_uses_chain_path(ws));
  rk_ik_result res;
  cr_assert(rk_ik_solve(&s.p, NULL, s.q, ws, &res, &err), "%s", err ? err->message : "");
  cr_assert(res.reached, "%s: hand %g m, closure %g after %d iterations",
            rk_ik_status_name(res.status), res.position_error, res.closure_error, res.iterations);
  const double closure = rk_test_loop_residual(s.tree, s.loops, 2, s.q);
  cr_assert(closure < 1e-6, "closure residual %g", closure);
  cr_assert(closure < 1e-9, "closure residual %g (tolerance 1e-9)", closure);
  rk_assert_vec3_near(link_pos(s.tree, s.q, s.hand), s.goal.target_position, 1e-5);
  cr_assert(rk_tree_q_within_limits(s.tree, s.q, 0.0));
  rk_ik_ws_free(ws);
  pinned_clear(&s);
}

Test(ik_tree, humanoid_feet_pinned_soft_loops) {
  pinned s;
  pinned_init(&s, rk_vec3_make(-0.1, -0.2, 0.25));
  s.p.loop_mode = RK_IK_LOOPS_SOFT;
  s.p.loop_weight = 1000;
  rk_ik_ws *ws = rk_ik_ws_new(&s.p, 0, NULL);
  rk_ik_result res;
  cr_assert(rk_ik_solve(&s.p, NULL, s.q, ws, &res, NULL));
  cr_assert(res.reached, "%s", rk_ik_status_name(res.status));
  cr_assert(rk_test_loop_residual(s.tree, s.loops, 2, s.q) < 1e-6);
  rk_ik_ws_free(ws);
  pinned_clear(&s);
}

Test(ik_tree, unreachable_hand_goal_keeps_feet_closed) {
  pinned s;
  pinned_init(&s, rk_vec3_make(1.5, 0.8, 1.5));
  rk_ik_ws *ws = rk_ik_ws_new(&s.p, 0, NULL);
  rk_ik_options o = RK_IK_OPTIONS_INIT;
  o.max_iterations = 300;
  rk_ik_result res;
  cr_assert(rk_ik_solve(&s.p, &o, s.q, ws, &res, NULL));
  cr_assert_not(res.reached);
  for (size_t k = 0; k < rk_tree_dof_count(s.tree); k++)
    cr_assert(isfinite(s.q[k]));
  const double closure = rk_test_loop_residual(s.tree, s.loops, 2, s.q);
  cr_assert(closure < 1e-6, "closure %g while reaching for an unreachable hand goal", closure);
  /* It reached toward the goal: closer than at the start. */
  double q0[128];
  humanoid_start(s.tree, q0);
  const double before =
      rk_vec3_norm(rk_vec3_sub(link_pos(s.tree, q0, s.hand), s.goal.target_position));
  cr_assert(res.position_error < before - 0.3, "error %g, at start %g", res.position_error, before);
  cr_assert(rk_tree_q_within_limits(s.tree, s.q, 0.0));
  rk_ik_ws_free(ws);
  pinned_clear(&s);
}

Test(ik_tree, pose_goal_on_head_and_four_limbs) {
  rk_tree *t = humanoid_tree();
  const size_t n = rk_tree_dof_count(t);
  double q[128], qt[128];
  humanoid_start(t, q);
  /* Targets from a known pose, so every goal is reachable together. */
  memcpy(qt, q, n * sizeof(double));
  guint64 rng = 5;
  for (size_t k = 0; k < n; k++)
    qt[k] += rk_test_uniform(&rng, -0.25, 0.25);
  rk_tree_q_clamp(t, qt);
  rk_mat4 *models = g_new(rk_mat4, rk_tree_link_count(t));
  rk_tree_fk(t, qt, NULL, models);
  const char *names[5] = {"Foot_L", "Foot_R", "Hand_L", "Hand_R", "Head"};
  rk_ik_goal goals[5];
  for (int i = 0; i < 5; i++) {
    const rk_ik_goal g = RK_IK_GOAL_INIT;
    goals[i] = g;
    goals[i].link = link_of(t, names[i]);
    goals[i].kind = i < 2 ? RK_IK_POSE : RK_IK_POSITION;
    goals[i].target_position = rk_mat4_get_translation(&models[goals[i].link]);
    const rk_mat3 R = rk_mat4_get_rotation(&models[goals[i].link]);
    goals[i].target_orientation = rk_quat_from_mat3(&R);
  }
  rk_ik_problem p = RK_IK_PROBLEM_INIT;
  p.tree = t;
  p.goals = goals;
  p.goal_count = 5;
  rk_ik_ws *ws = rk_ik_ws_new(&p, 0, NULL);
  rk_ik_result res;
  cr_assert(rk_ik_solve(&p, NULL, q, ws, &res, NULL));
  cr_assert(res.reached, "%s pos %g rot %g", rk_ik_status_name(res.status), res.position_error,
            res.orientation_error);
  double pe[5], re[5];
  cr_assert(rk_ik_goal_errors(&p, q, ws, pe, re, NULL, NULL));
  for (int i = 0; i < 5; i++)
    cr_assert(pe[i] <= 1e-5 && re[i] <= 1e-4, "goal %s: %g m %g rad", names[i], pe[i], re[i]);
  g_free(models);
  rk_ik_ws_free(ws);
  rk_tree_unref(t);
}

/* ---- Analytic limb vs numeric ---------------------------------------------------------------- */

Test(ik_tree, analytic_leg_agrees_with_numeric) {
  rk_tree *t = humanoid_tree();
  const size_t n = rk_tree_dof_count(t);
  const int hip = link_of(t, "UpLeg_L"), knee = link_of(t, "LoLeg_L"), foot = link_of(t, "Foot_L");
  rk_ik_limb limb;
  GError *err = NULL;
  cr_assert(rk_ik_limb_init(t, hip, knee, foot, &limb, &err), "%s", err ? err->message : "");
  cr_assert_eq(limb.mid_dof, rk_tree_joint(t, (size_t)knee)->dof_offset);
  rk_mat4 *models = g_new(rk_mat4, rk_tree_link_count(t));
  double q0[128], qa[128], qn[128];
  humanoid_start(t, q0);
  const rk_vec3 foot0 = link_pos(t, q0, foot);
  const rk_vec3 offsets[4] = {{0, 0.15, 0.1}, {0.1, 0.3, -0.05}, {-0.05, 0.05, 0.2}, {0, 0.4, 0.3}};
  for (int i = 0; i < 4; i++) {
    const rk_vec3 target = rk_vec3_add(foot0, offsets[i]);
    memcpy(qa, q0, n * sizeof(double));
    rk_tree_fk(t, qa, NULL, models);
    cr_assert(rk_ik_limb_solve(t, &limb, target, rk_vec3_make(0, 0, 1), models, qa));
    rk_assert_vec3_near(link_pos(t, qa, foot), target, 1e-9);
    const double kq = qa[limb.mid_dof];
    cr_assert(kq >= 0 && kq <= 2.5);
    /* The knee points along the pole (+z) from the hip-foot line. */
    const rk_vec3 ph = link_pos(t, qa, hip), pk = link_pos(t, qa, knee);
    const rk_vec3 w = rk_vec3_normalize(rk_vec3_sub(target, ph));
    const rk_vec3 d = rk_vec3_sub(pk, ph);
    const rk_vec3 jut = rk_vec3_sub(d, rk_vec3_scale(w, rk_vec3_dot(d, w)));
    cr_assert(jut.z > 0, "knee behind the leg line (%g)", jut.z);
    /* Numeric: only the hip ball and the knee move. */
    bool locked[128];
    for (size_t k = 0; k < n; k++)
      locked[k] = !(k == (size_t)limb.mid_dof ||
                    (k >= (size_t)limb.start_dof && k < (size_t)limb.start_dof + 3));
    rk_ik_goal g = RK_IK_GOAL_INIT;
    g.kind = RK_IK_POSITION;
    g.link = foot;
    g.target_position = target;
    rk_ik_problem p = RK_IK_PROBLEM_INIT;
    p.tree = t;
    p.goals = &g;
    p.goal_count = 1;
    p.locked = locked;
    rk_ik_ws *ws = rk_ik_ws_new(&p, 0, NULL);
    rk_ik_options o = RK_IK_OPTIONS_INIT;
    o.position_tolerance = 1e-10;
    memcpy(qn, q0, n * sizeof(double));
    rk_ik_result res;
    cr_assert(rk_ik_solve(&p, &o, qn, ws, &res, NULL));
    cr_assert(res.reached);
    /* The knee angle is fixed by the hip-foot distance: both solvers agree on it. */
    rk_assert_near(qn[limb.mid_dof], kq, 1e-6);
    rk_ik_ws_free(ws);
  }
  /* Out of reach: no NaN, the leg straight toward the target. */
  memcpy(qa, q0, n * sizeof(double));
  rk_tree_fk(t, qa, NULL, models);
  cr_assert_not(rk_ik_limb_solve(t, &limb, rk_vec3_add(foot0, rk_vec3_make(0, -1, 0.5)),
                                 rk_vec3_make(0, 0, 1), models, qa));
  for (size_t k = 0; k < n; k++)
    cr_assert(isfinite(qa[k]));
  rk_assert_near(qa[limb.mid_dof], 0.0, 1e-9);
  g_free(models);
  rk_tree_unref(t);
}

Test(ik_tree, limb_init_rejects_bad_limbs) {
  rk_tree *t = humanoid_tree();
  rk_ik_limb limb;
  GError *err = NULL;
  cr_assert_not(rk_ik_limb_init(t, link_of(t, "UpLeg_L"), link_of(t, "LoArm_L"),
                                link_of(t, "Hand_L"), &limb, &err));
  cr_assert(err && strstr(err->message, "UpLeg_L"), "%s", err ? err->message : "");
  g_clear_error(&err);
  /* A revolute start joint. */
  cr_assert_not(rk_ik_limb_init(t, link_of(t, "LoLeg_L"), link_of(t, "Foot_L"), link_of(t, "Toe_L"),
                                &limb, &err));
  cr_assert(err && strstr(err->message, "LoLeg_L"));
  g_clear_error(&err);
  cr_assert_not(rk_ik_limb_init(t, 0, 1, 999, &limb, &err));
  g_clear_error(&err);
  /* A ball mid joint is fine (bend plane from the pose). */
  cr_assert(rk_ik_limb_init(t, link_of(t, "Clavicle_L"), link_of(t, "UpArm_L"),
                            link_of(t, "LoArm_L"), &limb, NULL));
  rk_tree_unref(t);
}

Test(ik_tree, ball_mid_joint_limb_reaches) {
  rk_tree *t = humanoid_tree();
  const size_t n = rk_tree_dof_count(t);
  rk_ik_limb limb;
  const int end = link_of(t, "LoArm_L");
  cr_assert(rk_ik_limb_init(t, link_of(t, "Clavicle_L"), link_of(t, "UpArm_L"), end, &limb, NULL));
  double q[128];
  humanoid_start(t, q);
  rk_mat4 *models = g_new(rk_mat4, rk_tree_link_count(t));
  const rk_vec3 target = rk_vec3_add(link_pos(t, q, end), rk_vec3_make(-0.05, 0.1, 0.12));
  rk_tree_fk(t, q, NULL, models);
  cr_assert(rk_ik_limb_solve(t, &limb, target, rk_vec3_make(0, 1, 0), models, q));
  rk_assert_vec3_near(link_pos(t, q, end), target, 1e-9);
  for (size_t k = 0; k < n; k++)
    cr_assert(isfinite(q[k]));
  g_free(models);
  rk_tree_unref(t);
}

/* ---- Warm-started sequences ------------------------------------------------------------------ */

Test(ik_tree, warm_started_walk_cycle_four_goals) {
  rk_tree *t = humanoid_tree();
  const size_t n = rk_tree_dof_count(t);
  double q[128], prev[128];
  humanoid_start(t, q);
  const char *names[4] = {"Foot_L", "Foot_R", "Hand_L", "Hand_R"};
  rk_ik_goal goals[4];
  rk_vec3 base[4];
  for (int i = 0; i < 4; i++) {
    const rk_ik_goal g = RK_IK_GOAL_INIT;
    goals[i] = g;
    goals[i].kind = RK_IK_POSITION;
    goals[i].link = link_of(t, names[i]);
    base[i] = link_pos(t, q, goals[i].link);
  }
  rk_ik_problem p = RK_IK_PROBLEM_INIT;
  p.tree = t;
  p.goals = goals;
  p.goal_count = 4;
  double posture[128];
  memcpy(posture, q, sizeof posture);
  p.posture = posture;
  rk_ik_ws *ws = rk_ik_ws_new(&p, 0, NULL);
  for (int f = 0; f < 60; f++) {
    const double ph = 2 * RK_PI * f / 60.0;
    for (int i = 0; i < 4; i++) {
      const double s = (i % 2) ? -1 : 1;
      goals[i].target_position =
          rk_vec3_add(base[i], rk_vec3_make(0, 0.05 * (1 - cos(ph)) * (i < 2), 0.15 * s * sin(ph)));
    }
    memcpy(prev, q, n * sizeof(double));
    rk_ik_result res;
    cr_assert(rk_ik_solve(&p, NULL, q, ws, &res, NULL));
    cr_assert(res.reached, "frame %d: %s %g", f, rk_ik_status_name(res.status), res.position_error);
    double jump = 0;
    for (size_t k = 0; k < n; k++)
      jump = fmax(jump, fabs(q[k] - prev[k]));
    cr_assert(jump < 0.25, "frame %d: a DOF jumped %g rad", f, jump);
  }
  rk_ik_ws_free(ws);
  rk_tree_unref(t);
}

/* ---- Robot tree: the DH fast path ------------------------------------------------------------ */

Test(ik_tree, robot_tree_takes_chain_path_and_matches_generic) {
  rk_tree *t = iiwa_tree();
  const int flange = link_of(t, "flange");
  rk_ik_goal goals[2];
  const rk_ik_goal g = RK_IK_GOAL_INIT;
  goals[0] = goals[1] = g;
  goals[0].link = flange;
  rk_ik_problem p = RK_IK_PROBLEM_INIT;
  p.tree = t;
  p.goals = goals;
  p.goal_count = 1;
  rk_ik_ws *ws = rk_ik_ws_new(&p, 12, NULL);
  cr_assert(rk_ik_ws_uses_chain_path(ws));
  /* The same chain as a DH problem. */
  const rk_dh_chain chain = {RK_DH_STANDARD, rk_rig_iiwa14_rows, 7, rk_mat4_identity(),
                             rk_mat4_identity()};
  guint64 rng = 9;
  rk_ik_options o = RK_IK_OPTIONS_INIT;
  o.max_restarts = 50;
  o.max_iterations = 3000;
  for (int trial = 0; trial < 40; trial++) {
    double qt[7], q[7], q2[7];
    for (int j = 0; j < 7; j++)
      qt[j] = rk_test_uniform(&rng, -0.9, 0.9) * rk_rig_iiwa14_limit_deg[j] * RK_DEG;
    rk_mat4 T;
    rk_dh_chain_fk(&chain, qt, NULL, &T);
    goals[0].target_position = rk_mat4_get_translation(&T);
    const rk_mat3 R = rk_mat4_get_rotation(&T);
    goals[0].target_orientation = rk_quat_from_mat3(&R);
    /* Chain path. */
    p.goal_count = 1;
    memset(q, 0, sizeof q);
    rk_ik_result res;
    cr_assert(rk_ik_solve(&p, &o, q, ws, &res, NULL));
    cr_assert(res.reached, "trial %d (chain path)", trial);
    /* Tree path: a second goal switched off (weight 0) on a middle link forces it. */
    goals[1].link = link_of(t, "joint_4");
    goals[1].weight = goals[1].orientation_weight = 0;
    p.goal_count = 2;
    memset(q2, 0, sizeof q2);
    rk_ik_result res2;
    cr_assert(rk_ik_solve(&p, &o, q2, ws, &res2, NULL));
    cr_assert(res2.reached, "trial %d (tree path)", trial);
    /* The tree FK of both answers reaches the target. */
    rk_mat4 *models = g_new(rk_mat4, rk_tree_link_count(t));
    for (int a = 0; a < 2; a++) {
      rk_tree_fk(t, a ? q2 : q, NULL, models);
      rk_assert_vec3_near(rk_mat4_get_translation(&models[flange]), goals[0].target_position, 1e-5);
    }
    /* The two paths take the same iterations up to rounding: same answer when neither restarted. */
    if (res.restarts == 0 && res2.restarts == 0)
      for (int j = 0; j < 7; j++)
        rk_assert_near(q[j], q2[j], 1e-6);
    g_free(models);
  }
  rk_ik_ws_free(ws);
  rk_tree_unref(t);
}

/* ---- Jacobians: tree vs chain ---------------------------------------------------------------- */

Test(ik_tree, tree_jacobian_equals_chain_dh_derivative_jacobian) {
  rk_tree *trees[2] = {iiwa_tree(), humanoid_tree()};
  for (int ti = 0; ti < 2; ti++) {
    rk_tree *t = trees[ti];
    const size_t n = rk_tree_dof_count(t), links = rk_tree_link_count(t);
    const int tip = ti == 0 ? link_of(t, "flange") : link_of(t, "Foot_L");
    g_autoptr(rk_chain) chain = rk_chain_new(t, -1, tip, NULL);
    cr_assert(chain);
    const size_t cn = rk_chain_dof_count(chain);
    const int *dofs = rk_chain_dofs(chain);
    double q[128];
    guint64 rng = 21;
    for (size_t k = 0; k < n; k++)
      q[k] = rk_test_uniform(&rng, -0.6, 0.6);
    rk_tree_q_clamp(t, q);
    rk_mat4 *models = g_new(rk_mat4, links);
    rk_dof_axis *axes = g_new(rk_dof_axis, n);
    rk_tree_fk(t, q, NULL, models);
    rk_tree_dof_axes(t, q, models, RK_DOF_AXES_COORDINATE, axes);
    double *Jt = g_new0(double, 6 * n);
    rk_tree_frame_jacobian(t, axes, tip, rk_mat4_get_translation(&models[tip]), Jt, 6);
    double *Jc = g_new0(double, 6 * cn);
    rk_mat4 *frames = g_new(rk_mat4, 2 * (cn + 1));
    for (int conv = 0; conv < 2; conv++) {
      rk_chain_jacobian(chain, conv ? RK_DH_MODIFIED : RK_DH_STANDARD, q, NULL, Jc, 6, frames);
      for (size_t i = 0; i < cn; i++)
        for (int r = 0; r < 6; r++)
          rk_assert_near(Jc[i * 6 + r], Jt[(size_t)dofs[i] * 6 + r], 1e-10);
    }
    /* Columns of DOFs off the chain are zero in the tree's Jacobian. */
    for (size_t k = 0; k < n; k++) {
      bool on = false;
      for (size_t i = 0; i < cn; i++)
        on = on || (size_t)dofs[i] == k;
      if (!on)
        for (int r = 0; r < 6; r++)
          cr_assert(Jt[k * 6 + r] == 0);
    }
    g_free(models);
    g_free(axes);
    g_free(Jt);
    g_free(Jc);
    g_free(frames);
    rk_tree_unref(t);
  }
}

/* ---- Threads --------------------------------------------------------------------------------- */

typedef struct walk_job {
  const rk_tree *tree;
  double *out; /* 30 frames x n */
} walk_job;

static gpointer walk(gpointer data) {
  walk_job *j = data;
  const rk_tree *t = j->tree;
  const size_t n = rk_tree_dof_count(t);
  double q[128];
  humanoid_start(t, q);
  rk_loop loops[2] = {rk_loop_closing(t, RK_LOOP_RIGID, q, rk_tree_find_link(t, "Foot_L"),
                                      rk_vec3_make(0, 0, 0), -1),
                      rk_loop_closing(t, RK_LOOP_RIGID, q, rk_tree_find_link(t, "Foot_R"),
                                      rk_vec3_make(0, 0, 0), -1)};
  rk_ik_goal g = RK_IK_GOAL_INIT;
  g.kind = RK_IK_POSITION;
  g.link = rk_tree_find_link(t, "Hand_R");
  const rk_vec3 h0 = link_pos(t, q, g.link);
  rk_ik_problem p = RK_IK_PROBLEM_INIT;
  p.tree = t;
  p.goals = &g;
  p.goal_count = 1;
  p.loops = loops;
  p.loop_count = 2;
  rk_ik_ws *ws = rk_ik_ws_new(&p, 0, NULL);
  rk_ik_options o = RK_IK_OPTIONS_INIT;
  o.max_restarts = 3;
  for (int f = 0; f < 30; f++) {
    g.target_position = rk_vec3_add(h0, rk_vec3_make(0.2 * sin(0.2 * f), -0.1, 0.3 * cos(0.1 * f)));
    rk_ik_solve(&p, &o, q, ws, NULL, NULL);
    memcpy(j->out + (size_t)f * n, q, n * sizeof(double));
  }
  rk_ik_ws_free(ws);
  return NULL;
}

Test(ik_tree, same_tree_problems_on_two_threads_bit_identical) {
  rk_tree *t = humanoid_tree();
  const size_t n = rk_tree_dof_count(t);
  walk_job jobs[2] = {{t, g_new0(double, 30 * n)}, {t, g_new0(double, 30 * n)}};
  GThread *a = g_thread_new("walk-a", walk, &jobs[0]);
  GThread *b = g_thread_new("walk-b", walk, &jobs[1]);
  g_thread_join(a);
  g_thread_join(b);
  cr_assert(memcmp(jobs[0].out, jobs[1].out, 30 * n * sizeof(double)) == 0);
  g_free(jobs[0].out);
  g_free(jobs[1].out);
  rk_tree_unref(t);
}

/* ---- The IK's own FK and Jacobian against the tree's ----------------------------------------- */

/* Every joint type: free root, balls, a revolute knee, a prismatic slider, fixed end sites. */
static rk_tree *mixed_tree(void) {
  rk_skeleton_builder *b = rk_skeleton_builder_new();
  rk_transform t = rk_transform_identity();
  t.t = rk_vec3_make(0.1, 0.9, -0.2);
  t.r = rk_quat_from_axis_angle(rk_vec3_make(0.2, 1, 0.1), 0.4);
  int root = rk_skeleton_builder_add_joint(b, "root", -1, &t, 0);
  t.t = rk_vec3_make(0, 0.3, 0.05);
  t.r = rk_quat_from_axis_angle(rk_vec3_make(1, 0, 0.3), -0.3);
  int ball = rk_skeleton_builder_add_joint(b, "ball", root, &t, 0);
  t.t = rk_vec3_make(0.02, 0.4, 0);
  t.r = rk_quat_from_axis_angle(rk_vec3_make(0, 0, 1), 0.2);
  int knee = rk_skeleton_builder_add_joint(b, "knee", ball, &t, 0);
  t.t = rk_vec3_make(0, 0.35, 0.01);
  t.r = rk_quat_identity();
  int slide = rk_skeleton_builder_add_joint(b, "slide", knee, &t, 0);
  t.t = rk_vec3_make(0.05, 0.1, 0);
  int wrist = rk_skeleton_builder_add_joint(b, "wrist", slide, &t, 0);
  t.t = rk_vec3_make(0, 0.08, 0.02);
  rk_skeleton_builder_add_joint(b, "tip", wrist, &t, RK_SKELETON_END_SITE);
  t.t = rk_vec3_make(-0.2, 0.1, 0);
  int arm = rk_skeleton_builder_add_joint(b, "arm", root, &t, 0);
  t.t = rk_vec3_make(-0.3, 0, 0);
  rk_skeleton_builder_add_joint(b, "arm_end", arm, &t, RK_SKELETON_END_SITE);
  g_autoptr(rk_skeleton) s = rk_skeleton_builder_build(b, NULL, NULL);
  rk_skeleton_builder_free(b);
  rk_joint_spec specs[2];
  memset(specs, 0, sizeof specs);
  specs[0].name = "knee";
  specs[0].type = RK_JOINT_REVOLUTE;
  specs[0].axis = rk_vec3_make(0.3, 0.1, 1);
  specs[0].order = RK_EULER_N_ORDERS;
  specs[1].name = "slide";
  specs[1].type = RK_JOINT_PRISMATIC;
  specs[1].axis = rk_vec3_make(0.1, 1, 0.2);
  specs[1].order = RK_EULER_N_ORDERS;
  rk_tree_options o = RK_TREE_OPTIONS_INIT;
  o.joints = specs;
  o.joint_count = 2;
  GError *err = NULL;
  rk_tree *tree = rk_tree_from_skeleton(s, NULL, &o, &err);
  cr_assert(tree, "%s", err ? err->message : "");
  return tree;
}

Test(ik_tree, ik_fk_matches_tree_fk_on_every_joint_type) {
  rk_tree *t = mixed_tree();
  const size_t n = rk_tree_dof_count(t), links = rk_tree_link_count(t);
  rk_mat4 *models = g_new(rk_mat4, links);
  rk_ik_goal *goals = g_new(rk_ik_goal, links);
  double *pe = g_new(double, links), *re = g_new(double, links), q[64];
  rk_mat4 root = rk_mat4_rot_y(0.7);
  root.m[12] = 1.0, root.m[13] = -0.5;
  guint64 rng = 77;
  for (int trial = 0; trial < 20; trial++) {
    for (size_t k = 0; k < n; k++)
      q[k] = rk_test_uniform(&rng, -1.2, 1.2);
    rk_tree_fk(t, q, &root, models);
    for (size_t l = 0; l < links; l++) {
      const rk_ik_goal g = RK_IK_GOAL_INIT;
      goals[l] = g;
      goals[l].link = (int)l;
      goals[l].point = rk_vec3_make(0.01 * (double)l, -0.02, 0.03);
      goals[l].target_position = rk_mat4_transform_point(&models[l], goals[l].point);
      const rk_mat3 R = rk_mat4_get_rotation(&models[l]);
      goals[l].target_orientation = rk_quat_from_mat3(&R);
    }
    rk_ik_problem p = RK_IK_PROBLEM_INIT;
    p.tree = t;
    p.root = &root;
    p.goals = goals;
    p.goal_count = links;
    rk_ik_ws *ws = rk_ik_ws_new(&p, 0, NULL);
    cr_assert(rk_ik_goal_errors(&p, q, ws, pe, re, NULL, NULL));
    for (size_t l = 0; l < links; l++)
      cr_assert(pe[l] < 1e-12 && re[l] < 1e-7, "link %s: %g m %g rad", rk_tree_link_name(t, l),
                pe[l], re[l]);
    rk_ik_ws_free(ws);
  }
  g_free(models);
  g_free(goals);
  g_free(pe);
  g_free(re);
  rk_tree_unref(t);
}

/* A wrong Jacobian column would leave a first-order error after one Newton step; with the right
 * one the error drops quadratically (1e-3 -> ~1e-6). */
Test(ik_tree, one_newton_step_converges_quadratically) {
  rk_tree *t = mixed_tree();
  const size_t n = rk_tree_dof_count(t);
  const int tip = link_of(t, "tip"), arm = link_of(t, "arm_end");
  double q[64], qt[64];
  guint64 rng = 13;
  for (int trial = 0; trial < 20; trial++) {
    for (size_t k = 0; k < n; k++) {
      q[k] = rk_test_uniform(&rng, -1, 1);
      qt[k] = q[k] + rk_test_uniform(&rng, -1e-3, 1e-3);
    }
    rk_mat4 models[16];
    rk_tree_fk(t, qt, NULL, models);
    rk_ik_goal g[2];
    const int ls[2] = {tip, arm};
    for (int i = 0; i < 2; i++) {
      const rk_ik_goal g0 = RK_IK_GOAL_INIT;
      g[i] = g0;
      g[i].link = ls[i];
      g[i].target_position = rk_mat4_get_translation(&models[ls[i]]);
      const rk_mat3 R = rk_mat4_get_rotation(&models[ls[i]]);
      g[i].target_orientation = rk_quat_from_mat3(&R);
    }
    rk_ik_problem p = RK_IK_PROBLEM_INIT;
    p.tree = t;
    p.goals = g;
    p.goal_count = 2;
    rk_ik_ws *ws = rk_ik_ws_new(&p, 0, NULL);
    rk_ik_options o = RK_IK_OPTIONS_INIT;
    o.method = RK_IK_NEWTON;
    o.max_iterations = 1;
    rk_ik_result before, after;
    double qq[64];
    memcpy(qq, q, sizeof q);
    o.max_iterations = 0;
    cr_assert(rk_ik_solve(&p, &o, qq, ws, &before, NULL));
    o.max_iterations = 1;
    cr_assert(rk_ik_solve(&p, &o, qq, ws, &after, NULL));
    const double e0 = fmax(before.position_error, before.orientation_error);
    const double e1 = fmax(after.position_error, after.orientation_error);
    cr_assert(e0 > 1e-4 && e1 < 1e-2 * e0, "trial %d: %g -> %g", trial, e0, e1);
    rk_ik_ws_free(ws);
  }
  rk_tree_unref(t);
}

Test(ik_tree, loops_alone_close_from_a_disturbed_pose) {
  pinned s;
  pinned_init(&s, rk_vec3_make(0, 0, 0));
  s.p.goals = NULL;
  s.p.goal_count = 0;
  const size_t n = rk_tree_dof_count(s.tree);
  /* Disturb the pelvis and the legs: the feet leave their marks (a few cm, then tens of cm). */
  double q0[128];
  memcpy(q0, s.q, n * sizeof(double));
  for (int mode = 0; mode < 4; mode++) {
    double q[128];
    memcpy(q, q0, n * sizeof(double));
    guint64 rng = 3;
    const double amp = mode < 2 ? 0.08 : 0.4;
    for (size_t k = 0; k < n; k++)
      q[k] += rk_test_uniform(&rng, -amp, amp);
    rk_tree_q_clamp(s.tree, q);
    cr_assert(rk_test_loop_residual(s.tree, s.loops, 2, q) > (mode < 2 ? 1e-2 : 0.1));
    s.p.loop_mode = mode % 2 ? RK_IK_LOOPS_SOFT : RK_IK_LOOPS_HARD;
    rk_ik_ws *ws = rk_ik_ws_new(&s.p, 0, NULL);
    rk_ik_result res;
    cr_assert(rk_ik_solve(&s.p, NULL, q, ws, &res, NULL));
    cr_assert(res.reached, "mode %d: %s closure %g after %d iterations", mode,
              rk_ik_status_name(res.status), res.closure_error, res.iterations);
    cr_assert(rk_test_loop_residual(s.tree, s.loops, 2, q) < 1e-9);
    rk_ik_ws_free(ws);
  }
  pinned_clear(&s);
}
