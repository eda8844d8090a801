/* Denavit-Hartenberg: textbook chains, the KUKA iiwa 14, extraction round trips. */
#include "rk_rigs.h"
#include "rk_test.h"

#include <stdio.h>

Test(dh, standard_and_modified_link_transforms_are_their_products) {
  const double a = 0.3, al = -0.7, d = 0.25, th = 1.3;
  rk_mat4 rz = rk_mat4_rot_z(th), tz = rk_mat4_translation(rk_vec3_make(0, 0, d)),
          tx = rk_mat4_translation(rk_vec3_make(a, 0, 0)), rx = rk_mat4_rot_x(al);
  rk_mat4 p1 = rk_mat4_mul(&rz, &tz), p2 = rk_mat4_mul(&p1, &tx), std = rk_mat4_mul(&p2, &rx);
  rk_assert_mat4_near(rk_dh_standard(a, al, d, th), std, 1e-15);
  rk_mat4 q1 = rk_mat4_mul(&rx, &tx), q2 = rk_mat4_mul(&q1, &tz), mod = rk_mat4_mul(&q2, &rz);
  rk_assert_mat4_near(rk_dh_modified(al, a, d, th), mod, 1e-15);
}

/* rk_dh_chain_fk applies each link as its turns and slides, not as a 4x4 product: its frames, end
 * and axes must equal base * A_1(q_1) * ... * A_i(q_i) (* tool) built from rk_dh_row_transform,
 * for both conventions, revolute and prismatic rows and a placed base and tool. */
Test(dh, chain_fk_and_axes_equal_the_product_of_link_transforms) {
  enum { N = 9 };
  guint64 rng = 77;
  for (int conv = 0; conv < 2; conv++) {
    for (int trial = 0; trial < 40; trial++) {
      rk_dh_row rows[N];
      for (int i = 0; i < N; i++) {
        const rk_dh_row r = {rk_test_uniform(&rng, -0.5, 0.5), rk_test_uniform(&rng, -3, 3),
                             rk_test_uniform(&rng, -0.5, 0.5), rk_test_uniform(&rng, -3, 3),
                             (i + trial) % 3 == 1 ? RK_DH_PRISMATIC : RK_DH_REVOLUTE};
        rows[i] = r;
      }
      rk_mat4 base = rk_mat4_rot_x(rk_test_uniform(&rng, -3, 3));
      base.m[12] = 0.1, base.m[13] = -0.2, base.m[14] = 0.5;
      rk_mat4 tool = rk_mat4_rot_z(rk_test_uniform(&rng, -3, 3));
      tool.m[12] = 0.05, tool.m[13] = 0.3;
      const rk_dh_convention cv = conv ? RK_DH_MODIFIED : RK_DH_STANDARD;
      const rk_dh_chain c = {cv, rows, N, base, tool};
      double q[N];
      for (int i = 0; i < N; i++)
        q[i] = rk_test_uniform(&rng, -4, 4);
      rk_mat4 frames[N + 1], end, end_axes;
      rk_dh_axis axes[N];
      rk_dh_chain_fk(&c, q, frames, &end);
      rk_dh_chain_axes(&c, q, axes, &end_axes);
      rk_mat4 expect = base;
      rk_assert_mat4_near(frames[0], expect, 1e-15);
      for (int i = 0; i < N; i++) {
        const rk_mat4 before = expect;
        const rk_mat4 a = rk_dh_row_transform(cv, &rows[i], q[i]);
        expect = rk_mat4_mul(&before, &a);
        rk_assert_mat4_near(frames[i + 1], expect, 1e-13);
        const rk_mat4 *moving = cv == RK_DH_STANDARD ? &before : &expect;
        rk_assert_vec3_near(axes[i].point, rk_mat4_get_translation(moving), 1e-13);
        rk_assert_vec3_near(axes[i].dir, rk_mat4_column(moving, 2), 1e-13);
        cr_assert_eq(axes[i].type, rows[i].type);
      }
      const rk_mat4 tip = rk_mat4_mul(&expect, &tool);
      rk_assert_mat4_near(end, tip, 1e-13);
      rk_assert_mat4_near(end_axes, tip, 1e-13);
      rk_mat4 end_only;
      rk_dh_chain_fk(&c, q, NULL, &end_only);
      rk_assert_mat4_near(end_only, end, 0.0);
    }
  }
}

/* Textbook 2: two-link planar arm. */
Test(dh, two_link_planar_arm_matches_closed_form) {
  guint64 rng = 1;
  for (int n = 0; n < 100; n++) {
    double a1 = rk_test_uniform(&rng, 0.1, 2), a2 = rk_test_uniform(&rng, 0.1, 2);
    double q[2] = {rk_test_uniform(&rng, -RK_PI, RK_PI), rk_test_uniform(&rng, -RK_PI, RK_PI)};
    rk_dh_row rows[2] = {{a1, 0, 0, 0, RK_DH_REVOLUTE}, {a2, 0, 0, 0, RK_DH_REVOLUTE}};
    rk_dh_chain c = {RK_DH_STANDARD, rows, 2, rk_mat4_identity(), rk_mat4_identity()};
    rk_mat4 t;
    rk_dh_chain_fk(&c, q, NULL, &t);
    double c1 = cos(q[0]), s1 = sin(q[0]), c12 = cos(q[0] + q[1]), s12 = sin(q[0] + q[1]);
    const double expect[16] = {c12, -s12, 0, a1 * c1 + a2 * c12, s12, c12, 0, a1 * s1 + a2 * s12,
                               0,   0,    1, 0,                  0,   0,   0, 1};
    rk_assert_mat4_near(t, rk_test_mat4_rows(expect), 1e-14);
  }
}

/* Textbook 3: cylindrical robot. */
Test(dh, cylindrical_robot_matches_closed_form) {
  const double d1 = 0.7;
  rk_dh_row rows[3] = {{0, 0, d1, 0, RK_DH_REVOLUTE},
                       {0, -RK_PI / 2, 0, 0, RK_DH_PRISMATIC},
                       {0, 0, 0, 0, RK_DH_PRISMATIC}};
  rk_dh_chain c = {RK_DH_STANDARD, rows, 3, rk_mat4_identity(), rk_mat4_identity()};
  guint64 rng = 2;
  for (int n = 0; n < 50; n++) {
    double q[3] = {rk_test_uniform(&rng, -RK_PI, RK_PI), rk_test_uniform(&rng, 0, 1),
                   rk_test_uniform(&rng, 0, 1)};
    rk_mat4 t;
    rk_dh_chain_fk(&c, q, NULL, &t);
    double c1 = cos(q[0]), s1 = sin(q[0]), d2 = q[1], d3 = q[2];
    const double expect[16] = {c1, 0, -s1, -s1 * d3, s1, 0, c1, c1 * d3,
                               0, -1, 0, d1 + d2, 0, 0, 0, 1};
    rk_assert_mat4_near(t, rk_test_mat4_rows(expect), 1e-14);
  }
}

/* Textbook 4: spherical wrist. */
Test(dh, spherical_wrist_matches_closed_form) {
  const double d6 = 0.15;
  rk_dh_row rows[3] = {{0, -RK_PI / 2, 0, 0, RK_DH_REVOLUTE},
                       {0, RK_PI / 2, 0, 0, RK_DH_REVOLUTE},
                       {0, 0, d6, 0, RK_DH_REVOLUTE}};
  rk_dh_chain c = {RK_DH_STANDARD, rows, 3, rk_mat4_identity(), rk_mat4_identity()};
  guint64 rng = 4;
  for (int n = 0; n < 50; n++) {
    double q[3] = {rk_test_uniform(&rng, -RK_PI, RK_PI), rk_test_uniform(&rng, -RK_PI, RK_PI),
                   rk_test_uniform(&rng, -RK_PI, RK_PI)};
    rk_mat4 t;
    rk_dh_chain_fk(&c, q, NULL, &t);
    double c4 = cos(q[0]), s4 = sin(q[0]), c5 = cos(q[1]), s5 = sin(q[1]);
    rk_assert_vec3_near(rk_mat4_column(&t, 2), rk_vec3_make(c4 * s5, s4 * s5, c5), 1e-14);
    rk_assert_vec3_near(rk_mat4_get_translation(&t), rk_vec3_make(c4 * s5 * d6, s4 * s5 * d6, c5 * d6), 1e-14);
    /* The whole of T_6^3 (the material prints s5 c6 in entry (3,2); the product gives s5 s6). */
    const double c6 = cos(q[2]), s6 = sin(q[2]);
    const double expect[16] = {c4 * c5 * c6 - s4 * s6, -c4 * c5 * s6 - s4 * c6, c4 * s5, c4 * s5 * d6,
                               s4 * c5 * c6 + c4 * s6, -s4 * c5 * s6 + c4 * c6, s4 * s5, s4 * s5 * d6,
                               -s5 * c6,               s5 * s6,                 c5,      c5 * d6,
                               0,                      0,                       0,       1};
    rk_assert_mat4_near(t, rk_test_mat4_rows(expect), 1e-14);
  }
}

/* Textbook 6: KUKA iiwa 14, FK(q_true) equals every target of the benchmark set. */
Test(dh, iiwa_fk_matches_every_benchmark_target) {
  g_autofree char *path = rk_test_data("ik_targets_iiwa14.txt");
  FILE *f = fopen(path, "r");
  cr_assert(f, "cannot open %s", path);
  rk_dh_chain c = {RK_DH_STANDARD, rk_rig_iiwa14_rows, 7, rk_mat4_identity(),
                   rk_mat4_identity()};
  char line[4096];
  int count = 0;
  double worst_p = 0, worst_r = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#')
      continue;
    double v[22];
    int idx, off = 0, used;
    cr_assert_eq(sscanf(line, "%d%n", &idx, &used), 1);
    off = used;
    for (int k = 0; k < 21; k++) {
      cr_assert_eq(sscanf(line + off, "%lf%n", &v[k], &used), 1, "line %d field %d", idx, k);
      off += used;
    }
    rk_mat4 t;
    rk_dh_chain_fk(&c, v, NULL, &t); /* q_true = v[0..6] */
    rk_vec3 p = rk_vec3_make(v[14], v[15], v[16]);
    rk_quat q = rk_quat_make(v[17], v[18], v[19], v[20]);
    rk_mat3 r = rk_mat4_get_rotation(&t);
    worst_p = fmax(worst_p, rk_vec3_norm(rk_vec3_sub(rk_mat4_get_translation(&t), p)));
    worst_r = fmax(worst_r, rk_quat_angle_between(rk_quat_from_mat3(&r), q));
    count++;
  }
  fclose(f);
  cr_assert_eq(count, 1000);
  cr_assert_leq(worst_p, 1e-9, "worst position error %g", worst_p);
  cr_assert_leq(worst_r, 1e-9, "worst rotation error %g", worst_r);
}

static rk_mat4 random_rigid(guint64 *rng, double reach) {
  rk_vec3 axis = rk_vec3_make(rk_test_uniform(rng, -1, 1), rk_test_uniform(rng, -1, 1),
                              rk_test_uniform(rng, -1, 1));
  rk_mat3 r = rk_mat3_from_axis_angle(axis, rk_test_uniform(rng, -RK_PI, RK_PI));
  return rk_mat4_from_rt(&r, rk_vec3_make(rk_test_uniform(rng, -reach, reach),
                                          rk_test_uniform(rng, -reach, reach),
                                          rk_test_uniform(rng, -reach, reach)));
}

/* Random chain mixing skew, intersecting (a = 0), parallel (alpha = 0 or pi) and coincident
 * (a = 0, alpha = 0) consecutive axes, revolute and prismatic joints. */
static void random_chain(guint64 *rng, rk_dh_row *rows, size_t n) {
  for (size_t i = 0; i < n; i++) {
    int kind = (int)rk_test_uniform(rng, 0, 5);
    rows[i].a = kind == 1 || kind == 4 ? 0.0 : rk_test_uniform(rng, 0.05, 0.8);
    rows[i].alpha = kind == 2 || kind == 4 ? (rk_test_uniform(rng, 0, 1) < 0.5 ? 0.0 : RK_PI)
                    : kind == 3            ? (rk_test_uniform(rng, 0, 1) < 0.5 ? RK_PI / 2 : -RK_PI / 2)
                                           : rk_test_uniform(rng, -RK_PI, RK_PI);
    rows[i].d = rk_test_uniform(rng, -0.5, 0.5);
    rows[i].theta = rk_test_uniform(rng, -RK_PI, RK_PI);
    rows[i].type = rk_test_uniform(rng, 0, 1) < 0.25 ? RK_DH_PRISMATIC : RK_DH_REVOLUTE;
  }
}

/* Textbook 7: DH extraction round trip, both conventions. */
Test(dh, extraction_round_trip_on_random_chains) {
  guint64 rng = 77;
  for (int conv = 0; conv < 2; conv++)
    for (int trial = 0; trial < 300; trial++) {
      const size_t n = 1 + (size_t)rk_test_uniform(&rng, 0, 8);
      rk_dh_row rows[8], ext[8];
      random_chain(&rng, rows, n);
      rk_dh_chain orig = {RK_DH_STANDARD, rows, n, random_rigid(&rng, 1), random_rigid(&rng, 0.3)};
      rk_dh_axis axes[8];
      rk_mat4 end;
      rk_dh_chain_axes(&orig, NULL, axes, &end);
      rk_dh_chain got = {(rk_dh_convention)conv, ext, n, rk_mat4_identity(), rk_mat4_identity()};
      g_autoptr(GError) error = NULL;
      cr_assert(rk_dh_extract((rk_dh_convention)conv, axes, n, &end, ext, &got.base, &got.tool, &error),
                "%s", error ? error->message : "");
      for (int k = 0; k < 20; k++) {
        double q[8];
        for (size_t i = 0; i < n; i++)
          q[i] = rows[i].type == RK_DH_REVOLUTE ? rk_test_uniform(&rng, -RK_PI, RK_PI)
                                                : rk_test_uniform(&rng, -0.5, 0.5);
        rk_mat4 a, b;
        rk_dh_chain_fk(&orig, q, NULL, &a);
        rk_dh_chain_fk(&got, q, NULL, &b);
        double e = rk_mat4_max_abs_diff(&a, &b);
        cr_assert_leq(e, 1e-9, "convention %d trial %d (n=%zu): FK differs by %g", conv, trial, n, e);
      }
      /* The extracted table obeys the DH rules: x_i is perpendicular to z_{i-1} and z_i, so the
       * rows alone reproduce the axes. */
      rk_dh_axis back[8];
      rk_dh_chain_axes(&got, NULL, back, NULL);
      for (size_t i = 0; i < n; i++) {
        rk_assert_near(rk_vec3_dot(back[i].dir, axes[i].dir), 1.0, 1e-9);
        rk_vec3 diff = rk_vec3_sub(back[i].point, axes[i].point);
        rk_assert_near(rk_vec3_norm(rk_vec3_cross(diff, axes[i].dir)), 0, 1e-9);
      }
    }
}

Test(dh, extraction_recovers_the_iiwa_table) {
  rk_dh_chain c = {RK_DH_STANDARD, rk_rig_iiwa14_rows, 7, rk_mat4_identity(),
                   rk_mat4_identity()};
  rk_dh_axis axes[7];
  rk_mat4 end, base, tool;
  rk_dh_chain_axes(&c, NULL, axes, &end);
  rk_dh_row ext[7];
  cr_assert(rk_dh_extract(RK_DH_STANDARD, axes, 7, &end, ext, &base, &tool, NULL));
  rk_assert_mat4_near(base, rk_mat4_identity(), 1e-12);
  rk_assert_mat4_near(tool, rk_mat4_identity(), 1e-12);
  for (int i = 0; i < 7; i++) {
    rk_assert_near(ext[i].a, rk_rig_iiwa14_rows[i].a, 1e-12);
    rk_assert_near(ext[i].alpha, rk_rig_iiwa14_rows[i].alpha, 1e-12);
    rk_assert_near(ext[i].d, rk_rig_iiwa14_rows[i].d, 1e-12);
    rk_assert_near(ext[i].theta, rk_rig_iiwa14_rows[i].theta, 1e-12);
  }
}

/* A ball joint's orthogonal axes (z, then x, then y through one point) make the sign of x at the
 * second axis a tie between two theta offsets of 90 degrees; round-off in the axes (a BVH
 * channel's rotation computed another way) must not flip the table. */
Test(dh, a_ball_joints_tie_does_not_follow_round_off) {
  rk_dh_row rows[2][3];
  const double eps[2] = {1e-13, -1e-13};
  for (int k = 0; k < 2; k++) {
    const rk_dh_axis axes[3] = {
        {rk_vec3_make(0, 0, 0), rk_vec3_make(0, 0, 1), RK_DH_REVOLUTE},
        {rk_vec3_make(0, 0, 0), rk_vec3_normalize(rk_vec3_make(1, eps[k], 0)), RK_DH_REVOLUTE},
        {rk_vec3_make(0, 0, 0), rk_vec3_normalize(rk_vec3_make(eps[k], 1, 0)), RK_DH_REVOLUTE},
    };
    rk_mat4 end = rk_mat4_translation(rk_vec3_make(0.1, 0.2, 0.3)), base, tool;
    cr_assert(rk_dh_extract(RK_DH_STANDARD, axes, 3, &end, rows[k], &base, &tool, NULL));
    rk_dh_chain c = {RK_DH_STANDARD, rows[k], 3, base, tool};
    rk_mat4 got;
    rk_dh_chain_fk(&c, (const double[3]){0, 0, 0}, NULL, &got);
    rk_assert_mat4_near(got, end, 1e-9);
  }
  for (int i = 0; i < 3; i++) {
    rk_assert_near(rows[0][i].alpha, rows[1][i].alpha, 1e-9);
    rk_assert_near(rows[0][i].theta, rows[1][i].theta, 1e-9);
    rk_assert_near(rows[0][i].a, rows[1][i].a, 1e-9);
    rk_assert_near(rows[0][i].d, rows[1][i].d, 1e-9);
  }
}

Test(dh, standard_to_modified_keeps_the_chain) {
  guint64 rng = 8;
  rk_dh_row rows[6], mod[6];
  random_chain(&rng, rows, 6);
  rk_mat4 tool = random_rigid(&rng, 0.2), mtool;
  rk_dh_standard_to_modified(rows, 6, &tool, mod, &mtool);
  rk_dh_chain s = {RK_DH_STANDARD, rows, 6, rk_mat4_identity(), tool};
  rk_dh_chain m = {RK_DH_MODIFIED, mod, 6, rk_mat4_identity(), mtool};
  double q[6] = {0.1, -0.4, 0.3, 0.2, 1.0, -2.0};
  rk_mat4 a, b;
  rk_dh_chain_fk(&s, q, NULL, &a);
  rk_dh_chain_fk(&m, q, NULL, &b);
  rk_assert_mat4_near(a, b, 1e-12);
  cr_assert_eq(mod[0].a, 0);
  cr_assert_eq(mod[0].alpha, 0);
  rk_assert_near(mod[3].alpha, rows[2].alpha, 0);
}

Test(dh, line_relations) {
  rk_vec3 f1, f2;
  rk_vec3 o = rk_vec3_make(0, 0, 0), ex = rk_vec3_make(1, 0, 0), ey = rk_vec3_make(0, 1, 0);
  cr_assert_eq(rk_line_common_normal(o, ex, rk_vec3_make(0, 0, 2), ey, 1e-9, &f1, &f2), RK_LINES_SKEW);
  rk_assert_vec3_near(f1, o, 1e-12);
  rk_assert_vec3_near(f2, rk_vec3_make(0, 0, 2), 1e-12);
  cr_assert_eq(rk_line_common_normal(o, ex, rk_vec3_make(3, 5, 0), ey, 1e-9, &f1, &f2), RK_LINES_INTERSECTING);
  rk_assert_vec3_near(f1, rk_vec3_make(3, 0, 0), 1e-12);
  cr_assert_eq(rk_line_common_normal(o, ex, rk_vec3_make(4, 1, 0), ex, 1e-9, &f1, &f2), RK_LINES_PARALLEL);
  rk_assert_vec3_near(f2, rk_vec3_make(0, 1, 0), 1e-12);
  cr_assert_eq(rk_line_common_normal(o, ex, rk_vec3_make(4, 0, 0), rk_vec3_scale(ex, -1), 1e-9, &f1, &f2),
               RK_LINES_COINCIDENT);
}

Test(dh, extraction_refuses_bad_input) {
  rk_dh_axis axes[1] = {{{0, 0, 0}, {0, 0, 0}, RK_DH_REVOLUTE}};
  rk_mat4 end = rk_mat4_identity(), base, tool;
  rk_dh_row rows[1];
  g_autoptr(GError) e1 = NULL, e2 = NULL, e3 = NULL;
  cr_assert_not(rk_dh_extract(RK_DH_STANDARD, axes, 0, &end, rows, &base, &tool, &e1));
  cr_assert_not(rk_dh_extract(RK_DH_STANDARD, axes, 1, &end, rows, &base, &tool, &e2));
  cr_assert(g_error_matches(e2, RK_ERROR, RK_ERROR_INVALID));
  axes[0].dir = rk_vec3_make(0, 0, 1);
  end.m[0] = 2; /* not rigid */
  cr_assert_not(rk_dh_extract(RK_DH_STANDARD, axes, 1, &end, rows, &base, &tool, &e3));
}
