/* Analytic two-bone IK: reachable targets are hit with the bend sense kept and the mid joint
 * toward the pole; out-of-reach targets give the straight or folded limb pointing at them;
 * targets on the pole line and straight limbs give no NaN and no flip; the planar two-link arm
 * agrees with the law-of-cosines solution. */
#include "rk_test.h"

#include <rigkit/ik.h>

static rk_vec3 rand_vec(guint64 *rng, double r) {
  return rk_vec3_make(rk_test_uniform(rng, -r, r), rk_test_uniform(rng, -r, r),
                      rk_test_uniform(rng, -r, r));
}

/* Applies the job's outputs: the new mid and end positions. */
static void apply(const rk_two_bone_job *j, rk_vec3 *mid, rk_vec3 *end) {
  const rk_vec3 e1 =
      rk_vec3_add(j->mid, rk_quat_rotate(j->mid_rotation, rk_vec3_sub(j->end, j->mid)));
  *mid = rk_vec3_add(j->start, rk_quat_rotate(j->start_rotation, rk_vec3_sub(j->mid, j->start)));
  *end = rk_vec3_add(j->start, rk_quat_rotate(j->start_rotation, rk_vec3_sub(e1, j->start)));
}

static double bend_sense(rk_vec3 s, rk_vec3 m, rk_vec3 e, rk_vec3 h) {
  return rk_vec3_dot(h, rk_vec3_cross(rk_vec3_sub(s, m), rk_vec3_sub(e, m)));
}

static rk_vec3 perp(rk_vec3 v, rk_vec3 w) {
  return rk_vec3_sub(v, rk_vec3_scale(w, rk_vec3_dot(v, w)));
}

Test(two_bone, reachable_targets_hit_with_bend_kept_and_pole_followed) {
  guint64 rng = 11;
  for (int trial = 0; trial < 500; trial++) {
    rk_two_bone_job j = RK_TWO_BONE_JOB_INIT;
    j.start = rand_vec(&rng, 1);
    j.mid = rk_vec3_add(j.start, rand_vec(&rng, 0.5));
    j.end = rk_vec3_add(j.mid, rand_vec(&rng, 0.5));
    const double l1 = rk_vec3_norm(rk_vec3_sub(j.mid, j.start));
    const double l2 = rk_vec3_norm(rk_vec3_sub(j.end, j.mid));
    const rk_vec3 h =
        rk_vec3_normalize(rk_vec3_cross(rk_vec3_sub(j.start, j.mid), rk_vec3_sub(j.end, j.mid)));
    /* Every other trial passes the hinge explicitly (the bend-plane normal). */
    if (trial % 2)
      j.mid_axis = h;
    const double dmin = fabs(l1 - l2), dmax = l1 + l2;
    const double d = dmin + (dmax - dmin) * rk_test_uniform(&rng, 0.02, 0.98);
    j.target = rk_vec3_add(j.start, rk_vec3_scale(rk_vec3_normalize(rand_vec(&rng, 1)), d));
    j.pole = rand_vec(&rng, 1);
    cr_assert(rk_two_bone_run(&j));
    cr_assert(j.reached, "trial %d", trial);
    rk_vec3 m2, e2;
    apply(&j, &m2, &e2);
    rk_assert_vec3_near(e2, j.target, 1e-9);
    rk_assert_near(rk_vec3_norm(rk_vec3_sub(m2, j.start)), l1, 1e-12);
    rk_assert_near(rk_vec3_norm(rk_vec3_sub(e2, m2)), l2, 1e-12);
    /* The bend sense about the (turned) hinge is kept. */
    const rk_vec3 h2 = rk_quat_rotate(j.start_rotation, h);
    cr_assert(bend_sense(j.start, m2, e2, h2) > 0, "trial %d flipped", trial);
    /* The mid joint sits on the pole's side of the start-target line. */
    const rk_vec3 w = rk_vec3_normalize(rk_vec3_sub(j.target, j.start));
    const rk_vec3 pp = perp(j.pole, w);
    if (rk_vec3_norm(pp) > 0.2 * rk_vec3_norm(j.pole)) {
      const rk_vec3 jut = perp(rk_vec3_sub(m2, j.start), w);
      const double cosang = rk_vec3_dot(rk_vec3_normalize(jut), rk_vec3_normalize(pp));
      cr_assert(cosang > 1.0 - 1e-9, "trial %d: mid joint off the pole plane (cos %g)", trial,
                cosang);
    }
  }
}

Test(two_bone, oblique_hinge_reaches_its_range) {
  /* A hinge that is not perpendicular to the bones: the reachable distances shrink, the solver
   * still hits targets inside them. */
  rk_two_bone_job base = RK_TWO_BONE_JOB_INIT;
  base.start = rk_vec3_make(0, 0, 0);
  base.mid = rk_vec3_make(0, -0.5, 0);
  base.end = rk_vec3_make(0.1, -0.9, 0.05);
  base.mid_axis = rk_vec3_normalize(rk_vec3_make(1, 0.3, 0.2));
  for (int i = 0; i < 20; i++) {
    rk_two_bone_job j = base;
    const double d = 0.65 + 0.02 * i;
    j.target = rk_vec3_scale(rk_vec3_normalize(rk_vec3_make(0.2, -1, 0.1 * i)), d);
    cr_assert(rk_two_bone_run(&j));
    rk_vec3 m2, e2;
    apply(&j, &m2, &e2);
    /* The mid rotation is about the hinge. */
    rk_vec3 ax;
    double ang;
    rk_quat_to_axis_angle(j.mid_rotation, &ax, &ang);
    if (ang > 1e-9)
      cr_assert(fabs(fabs(rk_vec3_dot(ax, base.mid_axis)) - 1) < 1e-9);
    if (j.reached)
      rk_assert_vec3_near(e2, j.target, 1e-9);
    else /* out of this hinge's range: as close as it gets, pointing at the target */
      cr_assert(rk_vec3_norm(rk_vec3_cross(rk_vec3_normalize(e2), rk_vec3_normalize(j.target))) <
                1e-9);
  }
}

Test(two_bone, out_of_reach_is_straight_or_folded_toward_target) {
  rk_two_bone_job j = RK_TWO_BONE_JOB_INIT;
  j.start = rk_vec3_make(0, 1, 0);
  j.mid = rk_vec3_make(0.05, 0.55, 0.1);
  j.end = rk_vec3_make(0, 0.25, 0);
  j.pole = rk_vec3_make(0, 0, 1);
  const double l1 = rk_vec3_norm(rk_vec3_sub(j.mid, j.start)),
               l2 = rk_vec3_norm(rk_vec3_sub(j.end, j.mid));
  /* Too far. */
  j.target = rk_vec3_make(3, -2, 1);
  cr_assert(rk_two_bone_run(&j));
  cr_assert_not(j.reached);
  rk_vec3 m2, e2;
  apply(&j, &m2, &e2);
  const rk_vec3 dir = rk_vec3_normalize(rk_vec3_sub(j.target, j.start));
  rk_assert_vec3_near(e2, rk_vec3_add(j.start, rk_vec3_scale(dir, l1 + l2)), 1e-9);
  /* Too close (inside |l1 - l2|): folded, pointing at the target. */
  cr_assert(fabs(l1 - l2) > 0.1);
  j.target = rk_vec3_add(j.start, rk_vec3_make(0.001, -0.002, 0.0));
  cr_assert(rk_two_bone_run(&j));
  apply(&j, &m2, &e2);
  rk_assert_near(rk_vec3_norm(rk_vec3_sub(e2, j.start)), fabs(l1 - l2), 1e-9);
  /* Exactly on the start. */
  j.target = j.start;
  cr_assert(rk_two_bone_run(&j));
  apply(&j, &m2, &e2);
  cr_assert(rk_vec3_is_finite(m2) && rk_vec3_is_finite(e2));
}

Test(two_bone, target_on_pole_line_and_sweeping_across_it_never_flips) {
  rk_two_bone_job base = RK_TWO_BONE_JOB_INIT;
  base.start = rk_vec3_make(0, 1, 0);
  base.mid = rk_vec3_make(0, 0.55, 0.08);
  base.end = rk_vec3_make(0, 0.1, 0);
  base.mid_axis = rk_vec3_make(1, 0, 0);
  base.pole = rk_vec3_make(0, 0, 1);
  /* Target exactly on the pole line through the start. */
  rk_two_bone_job j = base;
  j.target = rk_vec3_make(0, 1, 0.6);
  cr_assert(rk_two_bone_run(&j));
  cr_assert(j.reached);
  rk_vec3 m2, e2, prev = {0};
  apply(&j, &m2, &e2);
  cr_assert(rk_vec3_is_finite(m2) && rk_vec3_is_finite(e2));
  /* Sweep the target through the pole line: the knee moves continuously (Lipschitz in the
   * target: a flip would jump by twice the knee's offset from the line, ~0.15 m, at any step). */
  double worst = 0;
  const double step = 0.0005;
  for (int i = -800; i <= 800; i++) {
    j = base;
    j.target = rk_vec3_make(step * i, 1.0 - 0.25 * step * i, 0.6);
    cr_assert(rk_two_bone_run(&j));
    apply(&j, &m2, &e2);
    cr_assert(rk_vec3_is_finite(m2));
    rk_assert_vec3_near(e2, j.target, 1e-9);
    if (i > -800)
      worst = fmax(worst, rk_vec3_norm(rk_vec3_sub(m2, prev)));
    prev = m2;
  }
  cr_assert(worst < 10 * step, "knee jumped %g m between targets %g m apart", worst, step);
}

Test(two_bone, straight_limb_bends_by_the_given_sense) {
  for (int sgn = -1; sgn <= 1; sgn += 2) {
    rk_two_bone_job j = RK_TWO_BONE_JOB_INIT;
    j.start = rk_vec3_make(0, 1, 0);
    j.mid = rk_vec3_make(0, 0.5, 0);
    j.end = rk_vec3_make(0, 0, 0);
    j.mid_axis = rk_vec3_make(1, 0, 0);
    j.bend_sign = sgn;
    j.target = rk_vec3_make(0, 0.3, 0.1);
    cr_assert(rk_two_bone_run(&j));
    cr_assert(j.reached);
    rk_vec3 m2, e2;
    apply(&j, &m2, &e2);
    const rk_vec3 h2 = rk_quat_rotate(j.start_rotation, j.mid_axis);
    cr_assert(bend_sense(j.start, m2, e2, h2) * sgn > 0, "sense %d not kept", sgn);
  }
  /* No hinge given, straight limb: bends toward the pole. */
  rk_two_bone_job j = RK_TWO_BONE_JOB_INIT;
  j.start = rk_vec3_make(0, 1, 0);
  j.mid = rk_vec3_make(0, 0.5, 0);
  j.end = rk_vec3_make(0, 0, 0);
  j.pole = rk_vec3_make(0, 0, 1);
  j.target = rk_vec3_make(0, 0.2, 0);
  cr_assert(rk_two_bone_run(&j));
  rk_vec3 m2, e2;
  apply(&j, &m2, &e2);
  cr_assert(m2.z > 0.1, "knee at z = %g, pole is +z", m2.z);
  rk_assert_vec3_near(e2, j.target, 1e-9);
}

Test(two_bone, mid_limits_clamp_the_angle) {
  rk_two_bone_job j = RK_TWO_BONE_JOB_INIT;
  j.start = rk_vec3_make(0, 1, 0);
  j.mid = rk_vec3_make(0, 0.5, 0.05);
  j.end = rk_vec3_make(0, 0, 0);
  j.mid_axis = rk_vec3_make(1, 0, 0);
  j.lower = -0.2;
  j.upper = 0.2;
  j.target = rk_vec3_make(0, 0.6, 0.1); /* needs a deep bend */
  cr_assert(rk_two_bone_run(&j));
  cr_assert(fabs(j.mid_angle) <= 0.2 + 1e-15);
  cr_assert_not(j.reached);
}

/* Analytic 2-link planar IK (law of cosines). */
static void two_link_analytic(double l1, double l2, double x, double y, double s, double *q) {
  const double c2 = (x * x + y * y - l1 * l1 - l2 * l2) / (2 * l1 * l2);
  q[1] = s * acos(fmin(1.0, fmax(-1.0, c2)));
  q[0] = atan2(y, x) - atan2(l2 * sin(q[1]), l1 + l2 * cos(q[1]));
}

Test(two_bone, two_link_planar_agrees_with_law_of_cosines) {
  const double l1 = 1.0, l2 = 0.8;
  guint64 rng = 3;
  for (int trial = 0; trial < 100; trial++) {
    const double q[2] = {rk_test_uniform(&rng, -3, 3), rk_test_uniform(&rng, -2.8, 2.8)};
    rk_two_bone_job j = RK_TWO_BONE_JOB_INIT;
    j.start = rk_vec3_make(0, 0, 0);
    j.mid = rk_vec3_make(l1 * cos(q[0]), l1 * sin(q[0]), 0);
    j.end = rk_vec3_add(j.mid, rk_vec3_make(l2 * cos(q[0] + q[1]), l2 * sin(q[0] + q[1]), 0));
    j.mid_axis = rk_vec3_make(0, 0, 1);
    const double r = rk_test_uniform(&rng, 0.25, 1.75), phi = rk_test_uniform(&rng, -3, 3);
    j.target = rk_vec3_make(r * cos(phi), r * sin(phi), 0);
    cr_assert(rk_two_bone_run(&j));
    cr_assert(j.reached);
    /* New joint angles: the start rotation is about z (no pole), the mid angle adds to q1. */
    rk_vec3 ax;
    double ang;
    rk_quat_to_axis_angle(j.start_rotation, &ax, &ang);
    const double q0 = q[0] + (ax.z < 0 ? -ang : ang), q1 = q[1] + j.mid_angle;
    double qa[2];
    two_link_analytic(l1, l2, j.target.x, j.target.y, q[1] >= 0 ? 1.0 : -1.0, qa);
    rk_assert_near(remainder(q0 - qa[0], 2 * RK_PI), 0.0, 1e-9);
    rk_assert_near(remainder(q1 - qa[1], 2 * RK_PI), 0.0, 1e-9);
  }
}

Test(two_bone, bad_input_gives_identity_without_nan) {
  rk_two_bone_job j = RK_TWO_BONE_JOB_INIT;
  j.start = rk_vec3_make(0, 1, 0);
  j.mid = rk_vec3_make(0, 0.5, 0);
  j.end = rk_vec3_make(0, 0, 0);
  j.target = rk_vec3_make(NAN, 0, 0);
  cr_assert_not(rk_two_bone_run(&j));
  rk_assert_quat_near(j.start_rotation, rk_quat_identity(), 0);
  j.target = rk_vec3_make(0, 0.5, 0.1);
  j.mid = j.start; /* zero-length bone */
  cr_assert_not(rk_two_bone_run(&j));
  cr_assert_not(j.reached);
}
