/* Math: rigid transforms, quaternions, axis-angle (textbook worked examples and edge cases). */
#include "rk_test.h"

#include "../../core/src/math_internal.h"

#include <float.h>

/* Textbook: T = Trans_y(1) Trans_x(3) Rot_z(pi/2). */
Test(math, composite_transform_matches_textbook) {
  rk_mat4 ty = rk_mat4_translation(rk_vec3_make(0, 1, 0));
  rk_mat4 tx = rk_mat4_translation(rk_vec3_make(3, 0, 0));
  rk_mat4 rz = rk_mat4_rot_z(RK_PI / 2);
  rk_mat4 a = rk_mat4_mul(&ty, &tx);
  rk_mat4 t = rk_mat4_mul(&a, &rz);
  const double expect[16] = {0, -1, 0, 3, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1};
  rk_assert_mat4_near(t, rk_test_mat4_rows(expect), 1e-15);
}

/* Textbook: rotating v = (0,1,1) about y by pi/2 gives (1,1,0). */
Test(math, rotation_about_y_matches_textbook) {
  rk_mat3 r = rk_mat3_rot_y(RK_PI / 2);
  rk_assert_vec3_near(rk_mat3_mul_vec(&r, rk_vec3_make(0, 1, 1)), rk_vec3_make(1, 1, 0), 1e-15);
  rk_quat q = rk_quat_from_axis_angle(rk_vec3_make(0, 1, 0), RK_PI / 2);
  rk_assert_vec3_near(rk_quat_rotate(q, rk_vec3_make(0, 1, 1)), rk_vec3_make(1, 1, 0), 1e-15);
}

/* Rotation about the current frame versus the fixed frame: R Rk(b) turns about the axis k as
 * the rotated frame carries it (R k in fixed coordinates), Rk(b) R about the fixed k; so
 * R Rk(b) = Rot(R k, b) R. Worked case: 90 degrees about z, then 90 degrees about y: about the
 * current y, x goes to -z; about the fixed y, x goes to y. */
Test(math, rotation_about_current_frame_versus_fixed_frame) {
  const rk_mat3 rz = rk_mat3_rot_z(RK_PI / 2), ry = rk_mat3_rot_y(RK_PI / 2);
  const rk_mat3 current = rk_mat3_mul(&rz, &ry), fixed = rk_mat3_mul(&ry, &rz);
  const rk_vec3 x = rk_vec3_make(1, 0, 0);
  rk_assert_vec3_near(rk_mat3_mul_vec(&current, x), rk_vec3_make(0, 0, -1), 1e-15);
  rk_assert_vec3_near(rk_mat3_mul_vec(&fixed, x), rk_vec3_make(0, 1, 0), 1e-15);
  guint64 rng = 23;
  for (int n = 0; n < 100; n++) {
    const rk_vec3 k = rk_vec3_normalize(rk_vec3_make(
        rk_test_uniform(&rng, -1, 1), rk_test_uniform(&rng, -1, 1), rk_test_uniform(&rng, -1, 1)));
    const rk_mat3 R = rk_mat3_from_axis_angle(
        rk_vec3_normalize(rk_vec3_make(rk_test_uniform(&rng, -1, 1), rk_test_uniform(&rng, -1, 1),
                                       rk_test_uniform(&rng, -1, 1))),
        rk_test_uniform(&rng, -RK_PI, RK_PI));
    const double b = rk_test_uniform(&rng, -RK_PI, RK_PI);
    const rk_mat3 Rk = rk_mat3_from_axis_angle(k, b);
    const rk_mat3 post = rk_mat3_mul(&R, &Rk);
    const rk_mat3 about = rk_mat3_from_axis_angle(rk_mat3_mul_vec(&R, k), b);
    const rk_mat3 pre = rk_mat3_mul(&about, &R);
    for (int i = 0; i < 9; i++)
      rk_assert_near(post.m[i], pre.m[i], 1e-14);
    /* Quaternions compose the same way: q r turns about r's axis carried by q. */
    const rk_quat q = rk_quat_from_mat3(&R), r = rk_quat_from_axis_angle(k, b);
    const rk_mat3 qr = rk_quat_to_mat3(rk_quat_mul(q, r));
    for (int i = 0; i < 9; i++)
      rk_assert_near(qr.m[i], post.m[i], 1e-14);
  }
}

/* The closed form of R(k, theta) for a unit axis k (Rodrigues), v = 1 - cos(theta):
 *   [ kx kx v + c      kx ky v - kz s   kx kz v + ky s ]
 *   [ kx ky v + kz s   ky ky v + c      ky kz v - kx s ]
 *   [ kx kz v - ky s   ky kz v + kx s   kz kz v + c    ]
 * equals the matrix and quaternion forms, and gives Rx, Ry, Rz for the coordinate axes. */
Test(math, axis_angle_closed_form) {
  guint64 rng = 29;
  for (int n = 0; n < 200; n++) {
    const rk_vec3 k = rk_vec3_normalize(rk_vec3_make(
        rk_test_uniform(&rng, -1, 1), rk_test_uniform(&rng, -1, 1), rk_test_uniform(&rng, -1, 1)));
    const double th = rk_test_uniform(&rng, -2 * RK_PI, 2 * RK_PI);
    const double c = cos(th), s = sin(th), v = 1 - c;
    const double R[3][3] = {{k.x * k.x * v + c, k.x * k.y * v - k.z * s, k.x * k.z * v + k.y * s},
                            {k.x * k.y * v + k.z * s, k.y * k.y * v + c, k.y * k.z * v - k.x * s},
                            {k.x * k.z * v - k.y * s, k.y * k.z * v + k.x * s, k.z * k.z * v + c}};
    const rk_mat3 m = rk_mat3_from_axis_angle(k, th);
    const rk_mat3 q = rk_quat_to_mat3(rk_quat_from_axis_angle(k, th));
    for (int r = 0; r < 3; r++)
      for (int col = 0; col < 3; col++) {
        rk_assert_near(rk_mat3_at(&m, r, col), R[r][col], 1e-14);
        rk_assert_near(rk_mat3_at(&q, r, col), R[r][col], 1e-14);
      }
    const rk_mat3 axes[3] = {rk_mat3_rot_x(th), rk_mat3_rot_y(th), rk_mat3_rot_z(th)};
    for (int a = 0; a < 3; a++) {
      const rk_mat3 e = rk_mat3_from_axis_angle(rk_vec3_make(a == 0, a == 1, a == 2), th);
      for (int i = 0; i < 9; i++)
        rk_assert_near(e.m[i], axes[a].m[i], 1e-15);
    }
  }
}

Test(math, rigid_inverse_is_transpose_form) {
  guint64 rng = 7;
  for (int n = 0; n < 100; n++) {
    rk_vec3 axis = rk_vec3_make(rk_test_uniform(&rng, -1, 1), rk_test_uniform(&rng, -1, 1),
                                rk_test_uniform(&rng, -1, 1));
    rk_mat3 r = rk_mat3_from_axis_angle(axis, rk_test_uniform(&rng, -RK_PI, RK_PI));
    rk_vec3 d = rk_vec3_make(rk_test_uniform(&rng, -5, 5), rk_test_uniform(&rng, -5, 5),
                             rk_test_uniform(&rng, -5, 5));
    rk_mat4 t = rk_mat4_from_rt(&r, d);
    rk_mat4 inv = rk_mat4_inverse_rigid(&t);
    /* [R^T, -R^T d] */
    rk_mat3 rt = rk_mat3_transpose(&r);
    rk_mat4 expect = rk_mat4_from_rt(&rt, rk_vec3_scale(rk_mat3_mul_vec(&rt, d), -1));
    rk_assert_mat4_near(inv, expect, 1e-14);
    rk_mat4 id = rk_mat4_mul(&t, &inv), aff;
    rk_assert_mat4_near(id, rk_mat4_identity(), 1e-13);
    cr_assert(rk_mat4_inverse_affine(&t, &aff));
    rk_assert_mat4_near(aff, inv, 1e-13);
  }
}

Test(math, affine_inverse_refuses_singular) {
  rk_mat4 m = rk_mat4_identity(), out;
  m.m[5] = 0;
  cr_assert_not(rk_mat4_inverse_affine(&m, &out));
}

Test(math, trs_round_trip_with_scale) {
  guint64 rng = 11;
  for (int n = 0; n < 100; n++) {
    rk_transform x = {
        {rk_test_uniform(&rng, -3, 3), rk_test_uniform(&rng, -3, 3), rk_test_uniform(&rng, -3, 3)},
        rk_quat_normalize(rk_quat_make(rk_test_uniform(&rng, -1, 1), rk_test_uniform(&rng, -1, 1),
                                       rk_test_uniform(&rng, -1, 1), rk_test_uniform(&rng, -1, 1))),
        {rk_test_uniform(&rng, 0.1, 3), rk_test_uniform(&rng, 0.1, 3), rk_test_uniform(&rng, 0.1, 3)}};
    rk_mat4 m = rk_transform_to_mat4(&x);
    rk_transform y;
    cr_assert(rk_transform_from_mat4(&m, &y));
    rk_assert_vec3_near(y.t, x.t, 1e-12);
    rk_assert_vec3_near(y.s, x.s, 1e-12);
    rk_assert_quat_near(y.r, x.r, 1e-9);
    /* TRS composition agrees with matrix composition for uniform scale. */
    rk_transform u = x;
    u.s = rk_vec3_make(2, 2, 2);
    rk_transform c = rk_transform_mul(&u, &x);
    rk_mat4 mu = rk_transform_to_mat4(&u), mc = rk_transform_to_mat4(&c);
    rk_assert_mat4_near(mc, rk_mat4_mul(&mu, &m), 1e-12);
    rk_transform ui = rk_transform_inverse(&u), id = rk_transform_mul(&u, &ui);
    rk_assert_vec3_near(id.t, rk_vec3_make(0, 0, 0), 1e-12);
    rk_assert_quat_near(id.r, rk_quat_identity(), 1e-9);
  }
}

Test(math, quaternion_matrix_round_trip_and_composition) {
  guint64 rng = 3;
  for (int n = 0; n < 200; n++) {
    rk_quat a = rk_quat_normalize(rk_quat_make(rk_test_uniform(&rng, -1, 1), rk_test_uniform(&rng, -1, 1),
                                               rk_test_uniform(&rng, -1, 1), rk_test_uniform(&rng, -1, 1)));
    rk_quat b = rk_quat_normalize(rk_quat_make(rk_test_uniform(&rng, -1, 1), rk_test_uniform(&rng, -1, 1),
                                               rk_test_uniform(&rng, -1, 1), rk_test_uniform(&rng, -1, 1)));
    rk_mat3 ma = rk_quat_to_mat3(a), mb = rk_quat_to_mat3(b);
    cr_assert(rk_mat3_is_rotation(&ma, 1e-12));
    rk_assert_quat_near(rk_quat_from_mat3(&ma), a, 1e-10);
    rk_mat3 mab = rk_mat3_mul(&ma, &mb), qab = rk_quat_to_mat3(rk_quat_mul(a, b));
    for (int i = 0; i < 9; i++)
      rk_assert_near(mab.m[i], qab.m[i], 1e-12);
  }
}

Test(math, slerp_endpoints_midpoint_and_short_arc) {
  rk_quat a = rk_quat_identity();
  rk_quat b = rk_quat_from_axis_angle(rk_vec3_make(0, 0, 1), RK_PI / 2);
  rk_assert_quat_near(rk_quat_slerp(a, b, 0), a, 1e-12);
  rk_assert_quat_near(rk_quat_slerp(a, b, 1), b, 1e-12);
  rk_assert_quat_near(rk_quat_slerp(a, b, 0.5),
                      rk_quat_from_axis_angle(rk_vec3_make(0, 0, 1), RK_PI / 4), 1e-12);
  /* -b is the same rotation: slerp must take the short arc and give the same midpoint. */
  rk_quat nb = rk_quat_make(-b.x, -b.y, -b.z, -b.w);
  rk_assert_quat_near(rk_quat_slerp(a, nb, 0.5),
                      rk_quat_from_axis_angle(rk_vec3_make(0, 0, 1), RK_PI / 4), 1e-12);
  /* Nearly equal inputs do not divide by sin(0). */
  rk_quat c = rk_quat_from_axis_angle(rk_vec3_make(1, 0, 0), 1e-9);
  rk_quat m = rk_quat_slerp(a, c, 0.5);
  cr_assert(rk_quat_is_finite(m));
  rk_assert_near(rk_quat_angle_between(a, m), 0.5e-9, 1e-12);
}

Test(math, axis_angle_from_matrix_regular_case) {
  guint64 rng = 5;
  for (int n = 0; n < 200; n++) {
    rk_vec3 axis = rk_vec3_normalize(rk_vec3_make(rk_test_uniform(&rng, -1, 1),
                                                  rk_test_uniform(&rng, -1, 1), rk_test_uniform(&rng, -1, 1)));
    double th = rk_test_uniform(&rng, 0.01, RK_PI - 0.01);
    rk_mat3 r = rk_mat3_from_axis_angle(axis, th);
    rk_vec3 k;
    double t;
    rk_mat3_to_axis_angle(&r, &k, &t);
    rk_assert_near(t, th, 1e-9);
    /* theta = acos((tr R - 1)/2) */
    rk_assert_near(t, acos((r.m[0] + r.m[4] + r.m[8] - 1) / 2), 1e-7);
    rk_assert_vec3_near(k, axis, 1e-9);
  }
}

Test(math, axis_angle_near_zero_and_near_pi) {
  rk_vec3 axis = rk_vec3_normalize(rk_vec3_make(0.3, -0.5, 0.8)), k;
  double t;
  /* theta = 0 exactly: angle 0, some unit axis. */
  rk_mat3 id = rk_mat3_identity();
  rk_mat3_to_axis_angle(&id, &k, &t);
  rk_assert_near(t, 0, 0);
  rk_assert_near(rk_vec3_norm(k), 1, 1e-15);
  /* Tiny angles keep their axis and full precision. */
  for (double th = 1e-3; th > 1e-11; th *= 0.1) {
    rk_mat3 r = rk_mat3_from_axis_angle(axis, th);
    rk_mat3_to_axis_angle(&r, &k, &t);
    rk_assert_near(t, th, th * 1e-6);
    rk_assert_vec3_near(k, axis, 1e-5);
  }
  /* Near and at pi the skew part vanishes: the axis comes from the symmetric part; the sign
   * follows the skew part while it exists. */
  const double deltas[] = {1e-2, 1e-4, 1e-6, 1e-9, 0};
  for (size_t i = 0; i < G_N_ELEMENTS(deltas); i++) {
    double th = RK_PI - deltas[i];
    rk_mat3 r = rk_mat3_from_axis_angle(axis, th);
    rk_mat3_to_axis_angle(&r, &k, &t);
    rk_assert_near(t, th, 1e-7);
    if (deltas[i] > 0)
      rk_assert_vec3_near(k, axis, 1e-6);
    else
      rk_assert_near(fabs(rk_vec3_dot(k, axis)), 1, 1e-9);
    rk_mat3 back = rk_mat3_from_axis_angle(k, t);
    for (int e = 0; e < 9; e++)
      rk_assert_near(back.m[e], r.m[e], 1e-7);
  }
}

Test(math, quaternion_axis_angle_and_rotvec) {
  rk_vec3 axis = rk_vec3_normalize(rk_vec3_make(1, 2, 3)), k;
  double t;
  rk_quat q = rk_quat_from_axis_angle(axis, 2.0);
  rk_quat_to_axis_angle(q, &k, &t);
  rk_assert_near(t, 2.0, 1e-12);
  rk_assert_vec3_near(k, axis, 1e-12);
  rk_assert_quat_near(rk_quat_from_rotvec(rk_quat_to_rotvec(q)), q, 1e-12);
  rk_quat_to_axis_angle(rk_quat_identity(), &k, &t);
  rk_assert_near(t, 0, 0);
  /* Zero axis gives the identity rather than NaN. */
  rk_quat z = rk_quat_from_axis_angle(rk_vec3_make(0, 0, 0), 1.0);
  rk_assert_quat_near(z, rk_quat_identity(), 0);
  cr_assert(rk_quat_is_finite(rk_quat_normalize(rk_quat_make(0, 0, 0, 0))));
}

Test(math, from_to_handles_opposite_vectors) {
  rk_vec3 a = rk_vec3_make(0, 1, 0);
  rk_quat q = rk_quat_from_to(a, rk_vec3_make(0, -1, 0));
  rk_assert_vec3_near(rk_quat_rotate(q, a), rk_vec3_make(0, -1, 0), 1e-12);
  q = rk_quat_from_to(a, rk_vec3_make(1, 0, 0));
  rk_assert_vec3_near(rk_quat_rotate(q, a), rk_vec3_make(1, 0, 0), 1e-12);
}

Test(math, cglm_conversion_keeps_layout) {
  rk_mat4 t = rk_mat4_translation(rk_vec3_make(1, 2, 3));
  mat4s f = rk_mat4_to_mat4s(&t);
  cr_assert_float_eq(f.raw[3][0], 1.0f, 0);
  cr_assert_float_eq(f.raw[3][2], 3.0f, 0);
  rk_mat4 back = rk_mat4_from_mat4s(f);
  rk_assert_mat4_near(back, t, 0);
}

Test(math, sincos_matches_libm) {
  guint64 rng = 13;
  double worst = 0;
  for (int n = 0; n < 200000; n++) {
    double x = n < 100000 ? rk_test_uniform(&rng, -10, 10) : rk_test_uniform(&rng, -9e4, 9e4);
    double s, c;
    rk_sincos(x, &s, &c);
    worst = fmax(worst, fmax(fabs(s - sin(x)), fabs(c - cos(x))));
  }
  cr_assert_leq(worst, 4e-16, "worst error %g", worst);
  /* Quadrant boundaries, exact values, huge and non-finite arguments. */
  const double xs[] = {0, RK_PI / 4, RK_PI / 2, RK_PI, -RK_PI / 2, 3 * RK_PI / 2, 1e6, -3e7};
  for (size_t i = 0; i < G_N_ELEMENTS(xs); i++) {
    double s, c;
    rk_sincos(xs[i], &s, &c);
    rk_assert_near(s, sin(xs[i]), 4e-16);
    rk_assert_near(c, cos(xs[i]), 4e-16);
  }
  double s, c;
  rk_sincos(NAN, &s, &c);
  cr_assert(isnan(s) && isnan(c));
  rk_sincos(INFINITY, &s, &c);
  cr_assert(isnan(s) && isnan(c));
}

static void assert_quat_eq(rk_quat a, rk_quat b) {
  cr_assert(a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w,
            "(%g,%g,%g,%g) vs (%g,%g,%g,%g): not the same components", a.x, a.y, a.z, a.w, b.x, b.y,
            b.z, b.w);
}

Test(math, same_hemisphere_flips_only_across_the_equator) {
  const rk_quat ref = rk_quat_from_axis_angle(rk_vec3_make(0, 1, 0), 0.3);
  const rk_quat near = rk_quat_from_axis_angle(rk_vec3_make(0, 1, 0), 0.5);
  const rk_quat far = rk_quat_make(-near.x, -near.y, -near.z, -near.w); /* the same rotation */
  assert_quat_eq(rk_quat_same_hemisphere(near, ref), near);
  assert_quat_eq(rk_quat_same_hemisphere(far, ref), near);
  /* Orthogonal (dot 0) stays as it is. */
  const rk_quat ortho = rk_quat_make(0, 0, 0, 1), x_turn = rk_quat_make(1, 0, 0, 0);
  assert_quat_eq(rk_quat_same_hemisphere(x_turn, ortho), x_turn);
}

/* rk__all_finite against isfinite on every value: a NaN or an infinity at each position of
 * arrays of every length up to 13 (the four-at-a-time part and the tail), the largest finite
 * doubles and subnormals passing. */
Test(math, all_finite_matches_isfinite_at_every_position) {
  const double odd[3] = {NAN, INFINITY, -INFINITY};
  double v[13];
  for (size_t n = 0; n <= 13; n++) {
    for (size_t i = 0; i < n; i++)
      v[i] = i % 3 == 0 ? DBL_MAX : i % 3 == 1 ? -4.9e-324 : (double)i;
    cr_assert(rk__all_finite(v, n), "n %zu", n);
    for (size_t i = 0; i < n; i++)
      for (int k = 0; k < 3; k++) {
        const double keep = v[i];
        v[i] = odd[k];
        cr_assert_not(rk__all_finite(v, n), "n %zu, %g at %zu", n, odd[k], i);
        v[i] = keep;
      }
  }
}
