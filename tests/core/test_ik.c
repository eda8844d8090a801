/* IK solvers on DH chains: the textbook Newton steps (regular, over- and under-determined) checked
 * against formulas worked out by hand, Newton / DLS / LM solves, unreachable goals, limits,
 * posture, locked DOFs, determinism on two threads, and validation one field at a time. */
#include "rk_rigs.h"
#include "rk_test.h"

#include <rigkit/ik.h>
#include <rigkit/jacobian.h>
#include <string.h>

/* A planar arm in the XY plane: standard DH rows (a = length, alpha = 0), joints about z. */
static rk_dh_chain planar(const double *lengths, size_t n, rk_dh_row *rows) {
  for (size_t i = 0; i < n; i++) {
    rk_dh_row r = {lengths[i], 0, 0, 0, RK_DH_REVOLUTE};
    rows[i] = r;
  }
  rk_dh_chain c = {RK_DH_STANDARD, rows, n, rk_mat4_identity(), rk_mat4_identity()};
  return c;
}

static rk_vec3 chain_tip(const rk_dh_chain *c, const double *q) {
  rk_mat4 end;
  rk_dh_chain_fk(c, q, NULL, &end);
  return rk_mat4_get_translation(&end);
}

/* ---- Newton steps against hand formulas ------------------------------------------------------ */

/* 2-link planar arm, position goal in the plane: J is 2 x 2,
 *   J = [ -l1 s1 - l2 s12   -l2 s12 ]
 *       [  l1 c1 + l2 c12    l2 c12 ]
 * and dq = J^-1 e with the 2x2 inverse (1/det) [j11 -j01; -j10 j00]. */
Test(ik_newton, regular_step_two_link_planar) {
  const double l1 = 1.0, l2 = 0.8, q[2] = {0.3, 0.7};
  const double s1 = sin(q[0]), c1 = cos(q[0]), s12 = sin(q[0] + q[1]), c12 = cos(q[0] + q[1]);
  const double J[4] = {-l1 * s1 - l2 * s12, l1 * c1 + l2 * c12, -l2 * s12, l2 * c12};
  /* The library's geometric Jacobian has the same x, y rows. */
  const double len[2] = {l1, l2};
  rk_dh_row rows[2];
  rk_dh_chain c = planar(len, 2, rows);
  double Jg[6 * 2];
  rk_mat4 frames[3];
  rk_dh_chain_jacobian(&c, q, Jg, 6, NULL, frames);
  for (int k = 0; k < 2; k++)
    for (int r = 0; r < 2; r++)
      rk_assert_near(Jg[k * 6 + r], J[k * 2 + r], 1e-14);
  const double e[2] = {0.05, -0.02};
  const double det = J[0] * J[3] - J[2] * J[1];
  const double expect[2] = {(J[3] * e[0] - J[2] * e[1]) / det, (-J[1] * e[0] + J[0] * e[1]) / det};
  double dq[2], work[64];
  cr_assert(rk_ik_newton_step_work(2, 2) <= 64);
  rk_ik_step_kind kind = rk_ik_newton_step(2, 2, J, 2, e, 0.0, dq, work);
  cr_assert_eq(kind, RK_IK_STEP_REGULAR, "kind %s", rk_ik_step_kind_name(kind));
  rk_assert_near(dq[0], expect[0], 1e-12);
  rk_assert_near(dq[1], expect[1], 1e-12);
}

/* 3-link planar arm, 2D position: J is 2 x 3, dq = J^T (J J^T)^-1 e (minimum norm). */
Test(ik_newton, underdetermined_step_three_link_planar) {
  const double len[3] = {1.0, 0.7, 0.4}, q[3] = {0.2, -0.5, 0.9};
  rk_dh_row rows[3];
  rk_dh_chain c = planar(len, 3, rows);
  double Jg[6 * 3];
  rk_mat4 frames[4];
  rk_dh_chain_jacobian(&c, q, Jg, 6, NULL, frames);
  /* By hand: column k = (-sum_{i>=k} l_i sin(q_0..q_i), sum_{i>=k} l_i cos(...)). */
  double J[2 * 3];
  for (int k = 0; k < 3; k++) {
    double sx = 0, sy = 0, ang = 0;
    for (int i = 0; i < 3; i++) {
      ang += q[i];
      if (i >= k) {
        sx -= len[i] * sin(ang);
        sy += len[i] * cos(ang);
      }
    }
    J[k * 2] = sx;
    J[k * 2 + 1] = sy;
    rk_assert_near(Jg[k * 6], sx, 1e-14);
    rk_assert_near(Jg[k * 6 + 1], sy, 1e-14);
  }
  const double e[2] = {-0.03, 0.04};
  /* A = J J^T (2x2), y = A^-1 e, dq = J^T y */
  double a00 = 0, a01 = 0, a11 = 0;
  for (int k = 0; k < 3; k++) {
    a00 += J[k * 2] * J[k * 2];
    a01 += J[k * 2] * J[k * 2 + 1];
    a11 += J[k * 2 + 1] * J[k * 2 + 1];
  }
  const double det = a00 * a11 - a01 * a01;
  const double y0 = (a11 * e[0] - a01 * e[1]) / det, y1 = (-a01 * e[0] + a00 * e[1]) / det;
  double dq[3], work[64];
  rk_ik_step_kind kind = rk_ik_newton_step(2, 3, J, 2, e, 0.0, dq, work);
  cr_assert_eq(kind, RK_IK_STEP_UNDERDETERMINED, "kind %s", rk_ik_step_kind_name(kind));
  for (int k = 0; k < 3; k++)
    rk_assert_near(dq[k], J[k * 2] * y0 + J[k * 2 + 1] * y1, 1e-12);
  /* The step solves J dq = e exactly (under-determined: a solution exists). */
  for (int r = 0; r < 2; r++)
    rk_assert_near(J[r] * dq[0] + J[2 + r] * dq[1] + J[4 + r] * dq[2], e[r], 1e-12);
}

/* 2-link planar arm, position and orientation in the plane (x, y, phi): J is 3 x 2,
 * dq = (J^T J)^-1 J^T e (least squares); the residual is orthogonal to J's columns. */
Test(ik_newton, overdetermined_step_two_link_pose) {
  const double len[2] = {1.0, 0.8}, q[2] = {0.4, 1.1};
  rk_dh_row rows[2];
  rk_dh_chain c = planar(len, 2, rows);
  double Jg[6 * 2];
  rk_mat4 frames[3];
  rk_dh_chain_jacobian(&c, q, Jg, 6, NULL, frames);
  /* Rows x, y (linear) and the z angular row (phi = q0 + q1, so that row is (1, 1)). */
  double J[3 * 2];
  for (int k = 0; k < 2; k++) {
    J[k * 3] = Jg[k * 6];
    J[k * 3 + 1] = Jg[k * 6 + 1];
    J[k * 3 + 2] = Jg[k * 6 + 5];
    rk_assert_near(J[k * 3 + 2], 1.0, 1e-14);
  }
  const double e[3] = {0.02, 0.01, -0.05};
  /* N = J^T J (2x2), b = J^T e, dq = N^-1 b */
  double n00 = 0, n01 = 0, n11 = 0, b0 = 0, b1 = 0;
  for (int r = 0; r < 3; r++) {
    n00 += J[r] * J[r];
    n01 += J[r] * J[3 + r];
    n11 += J[3 + r] * J[3 + r];
    b0 += J[r] * e[r];
    b1 += J[3 + r] * e[r];
  }
  const double det = n00 * n11 - n01 * n01;
  const double x0 = (n11 * b0 - n01 * b1) / det, x1 = (-n01 * b0 + n00 * b1) / det;
  double dq[2], work[64];
  rk_ik_step_kind kind = rk_ik_newton_step(3, 2, J, 3, e, 0.0, dq, work);
  cr_assert_eq(kind, RK_IK_STEP_OVERDETERMINED, "kind %s", rk_ik_step_kind_name(kind));
  rk_assert_near(dq[0], x0, 1e-12);
  rk_assert_near(dq[1], x1, 1e-12);
  for (int k = 0; k < 2; k++) {
    double s = 0;
    for (int r = 0; r < 3; r++)
      s += J[k * 3 + r] * (e[r] - J[r] * dq[0] - J[3 + r] * dq[1]);
    rk_assert_near(s, 0.0, 1e-12);
  }
}

/* Damped: both normal-equation forms give J^T (J J^T + l^2 I)^-1 e = (J^T J + l^2 I)^-1 J^T e. */
Test(ik_newton, damped_step_both_forms_agree) {
  const double J[2 * 3] = {0.3, -1.2, 0.8, 0.1, -0.5, 0.6};
  const double Jt[3 * 2] = {0.3, 0.8, -0.5, -1.2, 0.1, 0.6}; /* the 3 x 2 transpose */
  const double e[2] = {0.4, -0.1};
  const double lambda = 0.3;
  double dq[3], work[64];
  cr_assert_eq(rk_ik_newton_step(2, 3, J, 2, e, lambda, dq, work), RK_IK_STEP_DAMPED);
  /* (J^T J + l^2 I) dq = J^T e must hold. */
  for (int a = 0; a < 3; a++) {
    double lhs = lambda * lambda * dq[a], rhs = 0;
    for (int b = 0; b < 3; b++) {
      double s = 0;
      for (int r = 0; r < 2; r++)
        s += J[a * 2 + r] * J[b * 2 + r];
      lhs += s * dq[b];
    }
    for (int r = 0; r < 2; r++)
      rhs += J[a * 2 + r] * e[r];
    rk_assert_near(lhs, rhs, 1e-12);
  }
  /* The tall transpose problem goes through the other form; its step solves the same kind of
   * equation for its own sizes. */
  const double e3[3] = {0.2, 0.1, -0.3};
  double dq2[2];
  cr_assert_eq(rk_ik_newton_step(3, 2, Jt, 3, e3, lambda, dq2, work), RK_IK_STEP_DAMPED);
  for (int a = 0; a < 2; a++) {
    double lhs = lambda * lambda * dq2[a], rhs = 0;
    for (int b = 0; b < 2; b++) {
      double s = 0;
      for (int r = 0; r < 3; r++)
        s += Jt[a * 3 + r] * Jt[b * 3 + r];
      lhs += s * dq2[b];
    }
    for (int r = 0; r < 3; r++)
      rhs += Jt[a * 3 + r] * e3[r];
    rk_assert_near(lhs, rhs, 1e-12);
  }
}

Test(ik_newton, singular_matrix_reported) {
  /* Stretched 2-link arm: both columns parallel. */
  const double J[4] = {0, 1.8, 0, 0.8};
  const double e[2] = {0.1, 0.1};
  double dq[2] = {7, 7}, work[64];
  cr_assert_eq(rk_ik_newton_step(2, 2, J, 2, e, 0.0, dq, work), RK_IK_STEP_SINGULAR);
  cr_assert(dq[0] == 0 && dq[1] == 0);
  /* Under-determined with parallel rows (J J^T singular). */
  const double Jr[6] = {1, 2, 0.5, 1, -3, -6};
  double dq3[3];
  cr_assert_eq(rk_ik_newton_step(2, 3, Jr, 2, e, 0.0, dq3, work), RK_IK_STEP_SINGULAR);
  /* Damping makes it solvable. */
  cr_assert_eq(rk_ik_newton_step(2, 3, Jr, 2, e, 0.1, dq3, work), RK_IK_STEP_DAMPED);
  cr_assert(isfinite(dq3[0]) && isfinite(dq3[1]) && isfinite(dq3[2]));
}

/* ---- Solves on chains ------------------------------------------------------------------------ */

typedef struct chain_problem {
  rk_dh_row rows[8];
  rk_dh_chain chain;
  rk_ik_goal goal;
  rk_ik_problem p;
  double lo[8], hi[8];
} chain_problem;

static void chain_problem_init(chain_problem *cp, const double *len, size_t n,
                               rk_ik_goal_kind kind) {
  memset(cp, 0, sizeof *cp);
  cp->chain = planar(len, n, cp->rows);
  const rk_ik_goal g = RK_IK_GOAL_INIT;
  cp->goal = g;
  cp->goal.kind = kind;
  cp->goal.link = (int)n - 1;
  const rk_ik_problem p = RK_IK_PROBLEM_INIT;
  cp->p = p;
  cp->p.chain = &cp->chain;
  cp->p.goals = &cp->goal;
  cp->p.goal_count = 1;
}

static rk_ik_ws *ws_for(const rk_ik_problem *p) {
  GError *err = NULL;
  rk_ik_ws *ws = rk_ik_ws_new(p, 0, &err);
  cr_assert(ws, "%s", err ? err->message : "");
  return ws;
}

/* Analytic 2-link planar IK (law of cosines), elbow sign s = +1 or -1. */
static void two_link_analytic(double l1, double l2, double x, double y, double s, double *q) {
  const double c2 = (x * x + y * y - l1 * l1 - l2 * l2) / (2 * l1 * l2);
  q[1] = s * acos(fmin(1.0, fmax(-1.0, c2)));
  q[0] = atan2(y, x) - atan2(l2 * sin(q[1]), l1 + l2 * cos(q[1]));
}

Test(ik_solve, two_link_planar_numeric_matches_analytic) {
  const double len[2] = {1.0, 0.8};
  const rk_ik_method methods[3] = {RK_IK_NEWTON, RK_IK_DLS, RK_IK_LM};
  guint64 rng = 7;
  for (int trial = 0; trial < 40; trial++) {
    chain_problem cp;
    chain_problem_init(&cp, len, 2, RK_IK_POSITION);
    const double qt[2] = {rk_test_uniform(&rng, -3, 3), rk_test_uniform(&rng, 0.2, 2.8)};
    const rk_vec3 t = chain_tip(&cp.chain, qt);
    cp.goal.target_position = t;
    rk_ik_ws *ws = ws_for(&cp.p);
    for (int m = 0; m < 3; m++) {
      rk_ik_options o = RK_IK_OPTIONS_INIT;
      o.method = methods[m];
      o.damping = 1e-3; /* DLS: a small fixed damping */
      o.position_tolerance = 1e-10;
      o.max_iterations = 500;
      /* Start on the same elbow side as the truth, 0.3 rad away. */
      double q[2] = {qt[0] + 0.3, qt[1] - 0.3};
      rk_ik_result res;
      cr_assert(rk_ik_solve(&cp.p, &o, q, ws, &res, NULL));
      cr_assert(res.reached, "trial %d method %s: %s, error %g after %d iterations", trial,
                rk_ik_method_name(o.method), rk_ik_status_name(res.status), res.position_error,
                res.iterations);
      double qa[2];
      two_link_analytic(len[0], len[1], t.x, t.y, q[1] > 0 ? 1.0 : -1.0, qa);
      rk_assert_near(remainder(q[0] - qa[0], 2 * RK_PI), 0.0, 1e-8);
      rk_assert_near(remainder(q[1] - qa[1], 2 * RK_PI), 0.0, 1e-8);
    }
    rk_ik_ws_free(ws);
  }
}

Test(ik_solve, unreachable_goal_converges_to_closest_point) {
  const double len[2] = {1.0, 0.8};
  chain_problem cp;
  chain_problem_init(&cp, len, 2, RK_IK_POSITION);
  rk_ik_ws *ws = ws_for(&cp.p);
  const rk_vec3 targets[3] = {{3.0, 1.0, 0.0}, {-0.5, -2.5, 0.4}, {0.05, 0.02, 0.0}};
  for (int i = 0; i < 3; i++) {
    cp.goal.target_position = targets[i];
    rk_ik_options o = RK_IK_OPTIONS_INIT;
    o.max_iterations = 500;
    double q[2] = {0.0, 0.0}; /* stretched: singular Jacobian at the start */
    if (i == 2)
      q[1] = 0.5;
    rk_ik_result res;
    cr_assert(rk_ik_solve(&cp.p, &o, q, ws, &res, NULL));
    cr_assert(isfinite(q[0]) && isfinite(q[1]));
    cr_assert_eq(res.status, RK_IK_CLOSEST, "target %d: %s", i, rk_ik_status_name(res.status));
    const rk_vec3 tip = chain_tip(&cp.chain, q);
    /* The closest reachable point: on the reach circle toward the target (z cannot change),
     * or, inside the inner radius 0.2, on that circle. */
    const rk_vec3 tp = rk_vec3_make(targets[i].x, targets[i].y, 0);
    const double r = rk_vec3_norm(tp);
    const double reach = r > 1.8 ? 1.8 : 0.2;
    const rk_vec3 closest = rk_vec3_scale(tp, reach / r);
    rk_assert_vec3_near(tip, closest, 1e-6);
    rk_assert_near(res.position_error, rk_vec3_norm(rk_vec3_sub(targets[i], tip)), 1e-12);
  }
  rk_ik_ws_free(ws);
}

Test(ik_solve, newton_and_dls_never_blow_up_at_singularity) {
  const double len[2] = {1.0, 0.8};
  chain_problem cp;
  chain_problem_init(&cp, len, 2, RK_IK_POSITION);
  cp.goal.target_position = rk_vec3_make(2.5, 0.0, 0.0);
  rk_ik_ws *ws = ws_for(&cp.p);
  for (int m = 0; m < 2; m++) {
    rk_ik_options o = RK_IK_OPTIONS_INIT;
    o.method = m == 0 ? RK_IK_NEWTON : RK_IK_DLS;
    o.damping = 0.1;
    o.max_iterations = 100;
    double q[2] = {0.0, 1e-9};
    rk_ik_result res;
    cr_assert(rk_ik_solve(&cp.p, &o, q, ws, &res, NULL));
    cr_assert(isfinite(q[0]) && isfinite(q[1]) && isfinite(res.position_error));
    cr_assert(!res.reached);
    cr_assert(res.position_error < 0.7 + 1e-6, "%s: error %g", rk_ik_method_name(o.method),
              res.position_error);
  }
  rk_ik_ws_free(ws);
}

Test(ik_solve, answer_respects_limits) {
  /* Elbow limited to [0.1, 2.5]: the target is reachable only elbow-up; start elbow-down. */
  const double len[2] = {1.0, 0.8};
  chain_problem cp;
  chain_problem_init(&cp, len, 2, RK_IK_POSITION);
  cp.lo[0] = -RK_PI, cp.hi[0] = RK_PI;
  cp.lo[1] = 0.1, cp.hi[1] = 2.5;
  cp.p.lower = cp.lo;
  cp.p.upper = cp.hi;
  const double qt[2] = {0.3, 1.2};
  cp.goal.target_position = chain_tip(&cp.chain, qt);
  rk_ik_ws *ws = ws_for(&cp.p);
  rk_ik_options o = RK_IK_OPTIONS_INIT;
  o.max_restarts = 20;
  double q[2] = {1.0, -1.2};
  rk_ik_result res;
  cr_assert(rk_ik_solve(&cp.p, &o, q, ws, &res, NULL));
  cr_assert(res.reached, "%s error %g", rk_ik_status_name(res.status), res.position_error);
  cr_assert(q[1] >= 0.1 && q[1] <= 2.5, "q1 = %g", q[1]);
  rk_assert_near(q[1], 1.2, 1e-6);
  /* A goal that needs the elbow past its limit: the answer sits on the limit, closest. */
  const double qx[2] = {0.3, 2.9};
  cp.goal.target_position = chain_tip(&cp.chain, qx);
  o.max_restarts = 0;
  double q2[2] = {0.3, 2.0};
  cr_assert(rk_ik_solve(&cp.p, &o, q2, ws, &res, NULL));
  cr_assert(!res.reached);
  cr_assert(q2[1] <= 2.5 && q2[1] >= 0.1);
  rk_assert_near(q2[1], 2.5, 1e-9);
  cr_assert_eq(res.dofs_at_limit, 1);
  rk_ik_ws_free(ws);
}

Test(ik_solve, posture_pulls_redundant_dofs_in_null_space) {
  const double len[3] = {1.0, 0.7, 0.4};
  chain_problem cp;
  chain_problem_init(&cp, len, 3, RK_IK_POSITION);
  const double qt[3] = {0.5, 0.6, -0.4};
  cp.goal.target_position = chain_tip(&cp.chain, qt);
  const double ref[3] = {0.1, 1.2, 0.3};
  rk_ik_ws *ws = ws_for(&cp.p);
  rk_ik_options o = RK_IK_OPTIONS_INIT;
  o.position_tolerance = 1e-9;
  double q0[3] = {0.0, 0.3, 0.3}, q1[3], q2[3];
  memcpy(q1, q0, sizeof q0);
  memcpy(q2, q0, sizeof q0);
  rk_ik_result r1, r2;
  cr_assert(rk_ik_solve(&cp.p, &o, q1, ws, &r1, NULL));
  cp.p.posture = ref;
  cp.p.posture_gain = 0.5;
  /* A posture is pursued while the goal is not met; with a loose tolerance it gets several
   * iterations to act. */
  o.max_iterations = 200;
  cr_assert(rk_ik_solve(&cp.p, &o, q2, ws, &r2, NULL));
  cr_assert(r1.reached && r2.reached);
  double d1 = 0, d2 = 0;
  for (int k = 0; k < 3; k++) {
    d1 += (q1[k] - ref[k]) * (q1[k] - ref[k]);
    d2 += (q2[k] - ref[k]) * (q2[k] - ref[k]);
  }
  cr_assert(d2 < d1, "with posture |q - ref|^2 = %g, without %g", d2, d1);
  rk_ik_ws_free(ws);
}

Test(ik_solve, locked_dofs_do_not_move) {
  const double len[3] = {1.0, 0.7, 0.4};
  chain_problem cp;
  chain_problem_init(&cp, len, 3, RK_IK_POSITION);
  const double qt[3] = {0.5, 0.6, -0.4};
  cp.goal.target_position = chain_tip(&cp.chain, qt);
  const bool locked[3] = {false, true, false};
  cp.p.locked = locked;
  rk_ik_ws *ws = ws_for(&cp.p);
  double q[3] = {0.2, 0.6, 0.0};
  rk_ik_result res;
  cr_assert(rk_ik_solve(&cp.p, NULL, q, ws, &res, NULL));
  cr_assert(res.reached);
  cr_assert(q[1] == 0.6);
  rk_ik_ws_free(ws);
}

Test(ik_solve, orientation_only_goal) {
  rk_dh_chain c = {RK_DH_STANDARD, rk_rig_iiwa14_rows, 7, rk_mat4_identity(),
                   rk_mat4_identity()};
  rk_ik_goal g = RK_IK_GOAL_INIT;
  g.kind = RK_IK_ORIENTATION;
  g.link = 6;
  const double qt[7] = {0.3, -0.4, 0.5, 1.0, -0.2, 0.7, 0.1};
  rk_mat4 end;
  rk_dh_chain_fk(&c, qt, NULL, &end);
  const rk_mat3 R = rk_mat4_get_rotation(&end);
  g.target_orientation = rk_quat_from_mat3(&R);
  g.target_position = rk_vec3_make(5, 5, 5); /* ignored */
  rk_ik_problem p = RK_IK_PROBLEM_INIT;
  p.chain = &c;
  p.goals = &g;
  p.goal_count = 1;
  rk_ik_ws *ws = ws_for(&p);
  double q[7] = {0};
  rk_ik_result res;
  cr_assert(rk_ik_solve(&p, NULL, q, ws, &res, NULL));
  cr_assert(res.reached, "%s %g", rk_ik_status_name(res.status), res.orientation_error);
  rk_dh_chain_fk(&c, q, NULL, &end);
  const rk_mat3 R2 = rk_mat4_get_rotation(&end);
  rk_assert_quat_near(rk_quat_from_mat3(&R2), g.target_orientation, 1e-4);
  cr_assert(res.position_error == 0);
  rk_ik_ws_free(ws);
}

/* iiwa targets from the shared set: random seeds, limits, restarts. */
typedef struct iiwa_case {
  double seed[7];
  rk_vec3 p;
  rk_quat r;
} iiwa_case;

static size_t read_iiwa(iiwa_case *out, size_t max) {
  g_autofree char *path = rk_test_data("ik_targets_iiwa14.txt");
  FILE *f = fopen(path, "r");
  cr_assert(f, "cannot open %s", path);
  char line[4096];
  size_t n = 0;
  while (n < max && fgets(line, sizeof line, f)) {
    if (line[0] == '#')
      continue;
    double v[22];
    char *s = line, *end;
    strtol(s, &end, 10);
    s = end;
    for (int k = 0; k < 21; k++) {
      v[k] = strtod(s, &end);
      s = end;
    }
    memcpy(out[n].seed, v + 7, 7 * sizeof(double));
    out[n].p = rk_vec3_make(v[14], v[15], v[16]);
    out[n].r = rk_quat_normalize(rk_quat_make(v[17], v[18], v[19], v[20]));
    n++;
  }
  fclose(f);
  return n;
}

typedef struct iiwa_setup {
  rk_dh_chain chain;
  rk_ik_goal goal;
  rk_ik_problem p;
  double lo[7], hi[7];
} iiwa_setup;

static void iiwa_init(iiwa_setup *s) {
  rk_dh_chain c = {RK_DH_STANDARD, rk_rig_iiwa14_rows, 7, rk_mat4_identity(),
                   rk_mat4_identity()};
  s->chain = c;
  const rk_ik_goal g = RK_IK_GOAL_INIT;
  s->goal = g;
  s->goal.link = 6;
  const rk_ik_problem p = RK_IK_PROBLEM_INIT;
  s->p = p;
  s->p.chain = &s->chain;
  s->p.goals = &s->goal;
  s->p.goal_count = 1;
  for (int j = 0; j < 7; j++) {
    s->hi[j] = rk_rig_iiwa14_limit_deg[j] * RK_DEG;
    s->lo[j] = -s->hi[j];
  }
  s->p.lower = s->lo;
  s->p.upper = s->hi;
}

Test(ik_solve, iiwa_targets_reached_within_limits) {
  iiwa_case cases[100];
  const size_t n = read_iiwa(cases, 100);
  cr_assert_eq(n, 100);
  iiwa_setup s;
  iiwa_init(&s);
  rk_ik_ws *ws = ws_for(&s.p);
  rk_ik_options o = RK_IK_OPTIONS_INIT;
  o.max_restarts = 100;
  o.max_iterations = 5000;
  for (size_t i = 0; i < n; i++) {
    s.goal.target_position = cases[i].p;
    s.goal.target_orientation = cases[i].r;
    double q[7];
    memcpy(q, cases[i].seed, sizeof q);
    rk_ik_result res;
    cr_assert(rk_ik_solve(&s.p, &o, q, ws, &res, NULL));
    cr_assert(res.reached, "target %zu: %s", i, rk_ik_status_name(res.status));
    rk_mat4 end;
    rk_dh_chain_fk(&s.chain, q, NULL, &end);
    const rk_mat3 R = rk_mat4_get_rotation(&end);
    cr_assert(rk_vec3_norm(rk_vec3_sub(rk_mat4_get_translation(&end), cases[i].p)) < 1e-5);
    cr_assert(rk_quat_angle_between(rk_quat_from_mat3(&R), cases[i].r) < 1e-4);
    for (int j = 0; j < 7; j++)
      cr_assert(q[j] >= s.lo[j] && q[j] <= s.hi[j]);
    /* The reported errors are those of the answer. */
    double pe, re;
    cr_assert(rk_ik_goal_errors(&s.p, q, ws, &pe, &re, NULL, NULL));
    rk_assert_near(pe, res.position_error, 1e-15);
    rk_assert_near(re, res.orientation_error, 1e-15);
  }
  rk_ik_ws_free(ws);
}

/* ---- Threads --------------------------------------------------------------------------------- */

typedef struct thread_job {
  iiwa_case *cases;
  size_t n;
  double *q; /* n x 7 answers */
  rk_ik_result *res;
} thread_job;

static gpointer solve_all(gpointer data) {
  thread_job *j = data;
  iiwa_setup s;
  iiwa_init(&s);
  rk_ik_ws *ws = rk_ik_ws_new(&s.p, 0, NULL);
  rk_ik_options o = RK_IK_OPTIONS_INIT;
  o.max_restarts = 50;
  o.max_iterations = 2000;
  o.seed = 99;
  for (size_t i = 0; i < j->n; i++) {
    s.goal.target_position = j->cases[i].p;
    s.goal.target_orientation = j->cases[i].r;
    memcpy(j->q + i * 7, j->cases[i].seed, 7 * sizeof(double));
    rk_ik_solve(&s.p, &o, j->q + i * 7, ws, &j->res[i], NULL);
  }
  rk_ik_ws_free(ws);
  return NULL;
}

Test(ik_solve, same_problems_on_two_threads_bit_identical) {
  iiwa_case cases[60];
  const size_t n = read_iiwa(cases, 60);
  thread_job jobs[2];
  for (int t = 0; t < 2; t++) {
    jobs[t].cases = cases;
    jobs[t].n = n;
    jobs[t].q = g_new0(double, n * 7);
    jobs[t].res = g_new0(rk_ik_result, n);
  }
  GThread *a = g_thread_new("ik-a", solve_all, &jobs[0]);
  GThread *b = g_thread_new("ik-b", solve_all, &jobs[1]);
  g_thread_join(a);
  g_thread_join(b);
  cr_assert(memcmp(jobs[0].q, jobs[1].q, n * 7 * sizeof(double)) == 0);
  for (size_t i = 0; i < n; i++) {
    cr_assert_eq(jobs[0].res[i].iterations, jobs[1].res[i].iterations);
    cr_assert_eq(jobs[0].res[i].restarts, jobs[1].res[i].restarts);
    cr_assert(jobs[0].res[i].position_error == jobs[1].res[i].position_error);
  }
  for (int t = 0; t < 2; t++) {
    g_free(jobs[t].q);
    g_free(jobs[t].res);
  }
}

/* ---- Validation, one field at a time --------------------------------------------------------- */

static void expect_invalid(const rk_ik_problem *p, const char *fragment) {
  GError *err = NULL;
  cr_assert_not(rk_ik_problem_validate(p, &err), "expected a failure mentioning '%s'", fragment);
  cr_assert(g_error_matches(err, RK_ERROR, RK_ERROR_INVALID));
  cr_assert(strstr(err->message, fragment), "message '%s' lacks '%s'", err->message, fragment);
  g_error_free(err);
}

Test(ik_problem, validate_breaks_one_field_at_a_time) {
  iiwa_setup s;
  iiwa_init(&s);
  cr_assert(rk_ik_problem_validate(&s.p, NULL));
  rk_ik_problem p = s.p;
  p.chain = NULL;
  expect_invalid(&p, "none");
  p = s.p;
  p.tree = (const rk_tree *)&s; /* any non-NULL pointer: both mechanisms set */
  expect_invalid(&p, "both");
  p = s.p;
  rk_ik_goal g = s.goal;
  p.goals = &g;
  g.link = 7;
  expect_invalid(&p, "goal 0");
  g = s.goal;
  g.target_position.y = NAN;
  expect_invalid(&p, "not finite");
  g = s.goal;
  g.target_orientation = rk_quat_make(0, 0, 0, 2);
  expect_invalid(&p, "unit quaternion");
  g = s.goal;
  g.weight = -1;
  expect_invalid(&p, "weights");
  g = s.goal;
  g.kind = (rk_ik_goal_kind)9;
  expect_invalid(&p, "kind");
  p = s.p;
  double lo[7];
  memcpy(lo, s.lo, sizeof lo);
  lo[3] = 5;
  p.lower = lo;
  expect_invalid(&p, "limits");
  p = s.p;
  double post[7] = {0, 0, NAN, 0, 0, 0, 0};
  p.posture = post;
  expect_invalid(&p, "posture");
  p = s.p;
  p.posture_gain = 1.5;
  expect_invalid(&p, "gain");
  p = s.p;
  rk_loop lp = {0};
  p.loops = &lp;
  p.loop_count = 1;
  expect_invalid(&p, "loops need a tree");
  p = s.p;
  p.goal_count = 2;
  p.goals = NULL;
  expect_invalid(&p, "no goal array");
}

Test(ik_problem, solve_rejects_mismatched_workspace_and_keeps_q) {
  iiwa_setup s;
  iiwa_init(&s);
  rk_ik_ws *ws = ws_for(&s.p);
  const double len[3] = {1, 1, 1};
  chain_problem cp;
  chain_problem_init(&cp, len, 3, RK_IK_POSITION);
  double q[3] = {0.1, 0.2, 0.3};
  GError *err = NULL;
  cr_assert_not(rk_ik_solve(&cp.p, NULL, q, ws, NULL, &err));
  cr_assert(err && strstr(err->message, "workspace"), "%s", err ? err->message : "");
  g_clear_error(&err);
  cr_assert(q[0] == 0.1 && q[1] == 0.2 && q[2] == 0.3);
  /* A non-finite start. */
  double qn[7] = {0, 0, NAN, 0, 0, 0, 0};
  cr_assert_not(rk_ik_solve(&s.p, NULL, qn, ws, NULL, &err));
  cr_assert(g_error_matches(err, RK_ERROR, RK_ERROR_INVALID) && strstr(err->message, "start q"));
  g_clear_error(&err);
  cr_assert(isnan(qn[2]));
  /* Too many rows for the workspace: two pose goals (12 rows) in a 6-row workspace. */
  rk_ik_goal goals[2] = {s.goal, s.goal};
  s.p.goals = goals;
  s.p.goal_count = 2;
  double q7[7] = {0};
  cr_assert_not(rk_ik_solve(&s.p, NULL, q7, ws, NULL, &err));
  cr_assert(g_error_matches(err, RK_ERROR, RK_ERROR_LIMIT));
  g_clear_error(&err);
  rk_ik_ws_free(ws);
  /* A workspace made with room for them solves both. */
  ws = rk_ik_ws_new(&s.p, 12, NULL);
  cr_assert(rk_ik_solve(&s.p, NULL, q7, ws, NULL, NULL));
  rk_ik_ws_free(ws);
}

Test(ik_problem, names_and_defaults) {
  rk_ik_options o;
  rk_ik_options_init(&o);
  cr_assert_eq(o.method, RK_IK_LM);
  cr_assert_str_eq(rk_ik_method_name(RK_IK_DLS), "dls");
  cr_assert_str_eq(rk_ik_status_name(RK_IK_CLOSEST), "closest");
  cr_assert_str_eq(rk_ik_status_name((rk_ik_status)42), "?");
  cr_assert_str_eq(rk_ik_step_kind_name(RK_IK_STEP_OVERDETERMINED), "over-determined");
  cr_assert_null(rk_ik_ws_new(NULL, 0, NULL));
  rk_ik_ws_free(NULL);
}

/* ---- Stopping reasons and seeds -------------------------------------------------------------- */

Test(ik_solve, stop_reasons_are_reported) {
  iiwa_setup s;
  iiwa_init(&s);
  rk_ik_ws *ws = ws_for(&s.p);
  s.goal.target_position = rk_vec3_make(2.0, 0.5, 0.4); /* beyond the arm's 1.3 m reach */
  double q[7] = {0};
  rk_ik_options o = RK_IK_OPTIONS_INIT;
  o.max_iterations = 3;
  rk_ik_result res;
  cr_assert(rk_ik_solve(&s.p, &o, q, ws, &res, NULL));
  cr_assert_eq(res.status, RK_IK_MAX_ITERATIONS);
  cr_assert_eq(res.iterations, 3);
  cr_assert_not(res.reached);
  /* Endless restarts stop at the time budget. 20 ms, not less: on a loaded machine (a build
   * beside the suite) a 2 ms budget could pass while the thread waited, before any restart. */
  o.max_iterations = 1 << 30;
  o.max_restarts = 1 << 30;
  o.time_budget_s = 20e-3;
  memset(q, 0, sizeof q);
  gint64 t0 = g_get_monotonic_time();
  cr_assert(rk_ik_solve(&s.p, &o, q, ws, &res, NULL));
  gint64 t1 = g_get_monotonic_time();
  cr_assert_eq(res.status, RK_IK_TIMEOUT, "%s", rk_ik_status_name(res.status));
  cr_assert(res.restarts > 0);
  cr_assert(t1 - t0 < 2000000, "took %lld us", (long long)(t1 - t0));
  /* The best attempt is returned: straight toward the target, within limits. */
  for (int j = 0; j < 7; j++)
    cr_assert(q[j] >= s.lo[j] && q[j] <= s.hi[j]);
  /* Attempts cut short by restarts: near the closest distance (~1.12 m), far below the start's. */
  cr_assert(res.position_error < 1.35, "error %g", res.position_error);
  rk_ik_ws_free(ws);
}

Test(ik_solve, restarts_follow_the_seed) {
  iiwa_case cases[20];
  const size_t n = read_iiwa(cases, 20);
  iiwa_setup s;
  iiwa_init(&s);
  rk_ik_ws *ws = ws_for(&s.p);
  rk_ik_options o = RK_IK_OPTIONS_INIT;
  o.max_restarts = 500;
  o.attempt_iterations = 5; /* restart often, so the draws decide the answer */
  o.max_iterations = 3000;
  int differ = 0;
  for (size_t i = 0; i < n; i++) {
    s.goal.target_position = cases[i].p;
    s.goal.target_orientation = cases[i].r;
    double a[7], b[7], c[7];
    for (int k = 0; k < 3; k++) {
      double *q = k == 0 ? a : k == 1 ? b : c;
      memcpy(q, cases[i].seed, sizeof a);
      o.seed = k < 2 ? 5 : 6;
      rk_ik_result res;
      cr_assert(rk_ik_solve(&s.p, &o, q, ws, &res, NULL));
      cr_assert(res.reached);
    }
    cr_assert(memcmp(a, b, sizeof a) == 0, "same seed, different answers (target %zu)", i);
    differ += memcmp(a, c, sizeof a) != 0;
  }
  cr_assert(differ > 0, "another seed never changed an answer");
  rk_ik_ws_free(ws);
}
