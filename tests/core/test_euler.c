/* Euler angles: all 12 orders both ways, gimbal lock, textbook closed forms, every invalid axis
 * set refused, the rate matrix B (omega = B da/dt) against finite differences and the textbook's
 * forms. */
#include "rk_test.h"

static double wrapped_diff(double a, double b) {
  return fabs(remainder(a - b, 2 * RK_PI));
}

Test(euler, all_orders_round_trip) {
  guint64 rng = 42;
  for (int o = 0; o < RK_EULER_N_ORDERS; o++) {
    int ax[3];
    rk_euler_order_axes((rk_euler_order)o, ax);
    bool proper = ax[0] == ax[2];
    for (int n = 0; n < 500; n++) {
      double a[3] = {rk_test_uniform(&rng, -RK_PI, RK_PI),
                     proper ? rk_test_uniform(&rng, 0.01, RK_PI - 0.01)
                            : rk_test_uniform(&rng, -RK_PI / 2 + 0.01, RK_PI / 2 - 0.01),
                     rk_test_uniform(&rng, -RK_PI, RK_PI)};
      rk_mat3 r = rk_euler_to_mat3((rk_euler_order)o, a);
      double b[3];
      rk_euler_from_mat3((rk_euler_order)o, &r, b);
      for (int k = 0; k < 3; k++)
        cr_assert(wrapped_diff(a[k], b[k]) < 1e-9, "order %s angle %d: %g vs %g",
                  rk_euler_order_name((rk_euler_order)o), k, a[k], b[k]);
      /* Quaternion path agrees with the matrix path. */
      rk_mat3 rq = rk_quat_to_mat3(rk_euler_to_quat((rk_euler_order)o, a));
      for (int e = 0; e < 9; e++)
        rk_assert_near(rq.m[e], r.m[e], 1e-12);
    }
  }
}

Test(euler, any_rotation_is_reproduced_in_every_order) {
  guint64 rng = 9;
  for (int o = 0; o < RK_EULER_N_ORDERS; o++)
    for (int n = 0; n < 300; n++) {
      rk_quat q = rk_quat_normalize(rk_quat_make(rk_test_uniform(&rng, -1, 1), rk_test_uniform(&rng, -1, 1),
                                                 rk_test_uniform(&rng, -1, 1), rk_test_uniform(&rng, -1, 1)));
      double a[3];
      rk_euler_from_quat((rk_euler_order)o, q, a);
      rk_assert_quat_near(rk_euler_to_quat((rk_euler_order)o, a), q, 1e-9);
    }
}

Test(euler, gimbal_lock_still_reproduces_rotation) {
  for (int o = 0; o < RK_EULER_N_ORDERS; o++) {
    int ax[3];
    rk_euler_order_axes((rk_euler_order)o, ax);
    const double mids[2] = {ax[0] == ax[2] ? 0.0 : RK_PI / 2, ax[0] == ax[2] ? RK_PI : -RK_PI / 2};
    for (int m = 0; m < 2; m++) {
      double a[3] = {0.7, mids[m], -0.4}, b[3];
      rk_mat3 r = rk_euler_to_mat3((rk_euler_order)o, a);
      rk_euler_from_mat3((rk_euler_order)o, &r, b);
      cr_assert(isfinite(b[0]) && isfinite(b[1]) && isfinite(b[2]));
      rk_assert_near(b[2], 0.0, 0);
      rk_mat3 r2 = rk_euler_to_mat3((rk_euler_order)o, b);
      for (int e = 0; e < 9; e++)
        rk_assert_near(r2.m[e], r.m[e], 1e-9);
    }
  }
}

/* Textbook closed form of ZYZ Euler angles: R = Rz(phi) Ry(theta) Rz(psi) =
 * [[c_phi c_th c_psi - s_phi s_psi, -c_phi c_th s_psi - s_phi c_psi, c_phi s_th],
 *  [s_phi c_th c_psi + c_phi s_psi, -s_phi c_th s_psi + c_phi c_psi, s_phi s_th],
 *  [-s_th c_psi, s_th s_psi, c_th]]. */
Test(euler, zyz_closed_form_matches_textbook) {
  const double phi = 0.3, th = 1.1, psi = -0.8;
  const double cf = cos(phi), sf = sin(phi), ct = cos(th), st = sin(th), cp = cos(psi), sp = sin(psi);
  const double expect[3][3] = {{cf * ct * cp - sf * sp, -cf * ct * sp - sf * cp, cf * st},
                               {sf * ct * cp + cf * sp, -sf * ct * sp + cf * cp, sf * st},
                               {-st * cp, st * sp, ct}};
  double a[3] = {phi, th, psi};
  rk_mat3 r = rk_euler_to_mat3(RK_EULER_ZYZ, a);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      rk_assert_near(rk_mat3_at(&r, i, j), expect[i][j], 1e-15);
  /* Inverse: theta = atan2(sqrt(1 - r33^2), r33), phi = atan2(r23, r13), psi = atan2(r32, -r31). */
  double b[3];
  rk_euler_from_mat3(RK_EULER_ZYZ, &r, b);
  rk_assert_near(b[0], atan2(expect[1][2], expect[0][2]), 1e-12);
  rk_assert_near(b[1], atan2(sqrt(1 - expect[2][2] * expect[2][2]), expect[2][2]), 1e-12);
  rk_assert_near(b[2], atan2(expect[2][1], -expect[2][0]), 1e-12);
}

/* Textbook roll-pitch-yaw: R = Rz(phi) Ry(theta) Rx(psi) =
 * [[c_phi c_th, -s_phi c_psi + c_phi s_th s_psi, s_phi s_psi + c_phi s_th c_psi],
 *  [s_phi c_th, c_phi c_psi + s_phi s_th s_psi, -c_phi s_psi + s_phi s_th c_psi],
 *  [-s_th, c_th s_psi, c_th c_psi]]. */
Test(euler, roll_pitch_yaw_closed_form_matches_textbook) {
  const double phi = -1.2, th = 0.4, psi = 2.5;
  const double cf = cos(phi), sf = sin(phi), ct = cos(th), st = sin(th), cp = cos(psi), sp = sin(psi);
  const double expect[3][3] = {{cf * ct, -sf * cp + cf * st * sp, sf * sp + cf * st * cp},
                               {sf * ct, cf * cp + sf * st * sp, -cf * sp + sf * st * cp},
                               {-st, ct * sp, ct * cp}};
  double a[3] = {phi, th, psi};
  rk_mat3 r = rk_euler_to_mat3(RK_EULER_ZYX, a);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      rk_assert_near(rk_mat3_at(&r, i, j), expect[i][j], 1e-15);
  double b[3];
  rk_euler_from_mat3(RK_EULER_ZYX, &r, b);
  rk_assert_near(b[0], phi, 1e-12);
  rk_assert_near(b[1], th, 1e-12);
  rk_assert_near(b[2], psi, 1e-12);
}

Test(euler, names_parse_both_ways) {
  for (int o = 0; o < RK_EULER_N_ORDERS; o++) {
    rk_euler_order p;
    cr_assert(rk_euler_order_parse(rk_euler_order_name((rk_euler_order)o), &p));
    cr_assert_eq((int)p, o);
  }
  rk_euler_order p;
  cr_assert(rk_euler_order_parse("zxy", &p) && p == RK_EULER_ZXY);
  cr_assert_not(rk_euler_order_parse("XXY", &p));
  cr_assert_not(rk_euler_order_parse(NULL, &p));
  cr_assert_str_eq(rk_euler_order_name((rk_euler_order)99), "?");
}

Test(euler, near_solution_never_jumps_more_than_pi) {
  /* A rotation sweeping through 720 degrees about z, then tumbling: unwrapped curves stay
   * continuous (every step small) and reproduce every key. */
  double prev[3] = {0, 0, 0};
  for (int o = 0; o < RK_EULER_N_ORDERS; o++) {
    prev[0] = prev[1] = prev[2] = 0;
    for (int f = 0; f <= 720; f++) {
      double t = f * RK_DEG;
      rk_quat q = rk_quat_mul(rk_quat_from_axis_angle(rk_vec3_make(0, 1, 0), 2 * t),
                              rk_quat_from_axis_angle(rk_vec3_make(1, 0.2, 0), 0.5 * sin(t)));
      double a[3];
      rk_euler_from_quat_near((rk_euler_order)o, q, prev, a);
      rk_assert_quat_near(rk_euler_to_quat((rk_euler_order)o, a), q, 1e-9);
      if (f > 0)
        for (int k = 0; k < 3; k++)
          cr_assert(fabs(a[k] - prev[k]) < RK_PI, "order %s frame %d angle %d jumps %g",
                    rk_euler_order_name((rk_euler_order)o), f, k, a[k] - prev[k]);
      prev[0] = a[0], prev[1] = a[1], prev[2] = a[2];
    }
  }
}

/* Three axes name an order when no two neighbours are equal: of the 27 sets over X, Y, Z the 12
 * orders parse (either case), the 15 others (XXY, XYY, XXX, ...) are refused, as is anything of
 * another length or alphabet. */
Test(euler, every_invalid_axis_set_is_refused) {
  const char axes[3] = {'X', 'Y', 'Z'};
  int valid = 0, refused = 0;
  for (int i = 0; i < 27; i++) {
    const char name[4] = {axes[i / 9], axes[(i / 3) % 3], axes[i % 3], '\0'};
    const bool ok = name[0] != name[1] && name[1] != name[2];
    char lower[4];
    for (int k = 0; k < 4; k++)
      lower[k] = (char)g_ascii_tolower(name[k]);
    rk_euler_order o = RK_EULER_N_ORDERS, p = RK_EULER_N_ORDERS;
    cr_assert_eq(rk_euler_order_parse(name, &o), ok, "%s", name);
    cr_assert_eq(rk_euler_order_parse(lower, &p), ok, "%s", lower);
    if (ok) {
      valid++;
      cr_assert_str_eq(rk_euler_order_name(o), name);
      cr_assert_eq(p, o);
    } else {
      refused++;
      cr_assert_eq(o, RK_EULER_N_ORDERS, "%s: the order is left alone", name);
    }
  }
  cr_assert_eq(valid, RK_EULER_N_ORDERS);
  cr_assert_eq(refused, 15);
  const char *other[] = {"", "X", "XY", "XYZX", "XYW", "XY Z", " XYZ", "XYZ ", "ABC", "123"};
  for (size_t i = 0; i < G_N_ELEMENTS(other); i++) {
    rk_euler_order o;
    cr_assert_not(rk_euler_order_parse(other[i], &o), "'%s'", other[i]);
  }
}

/* B's columns are the rotation axes: B e_k equals the angular velocity of R(a + t e_k) at t = 0
 * (central differences of R), and det B = +-cos(a1) (Tait-Bryan) or +-sin(a1) (proper Euler). */
Test(euler, rate_matrix_maps_angle_rates_to_angular_velocity) {
  guint64 rng = 17;
  for (int o = 0; o < RK_EULER_N_ORDERS; o++) {
    int ax[3];
    rk_euler_order_axes((rk_euler_order)o, ax);
    for (int trial = 0; trial < 20; trial++) {
      double a[3] = {rk_test_uniform(&rng, -3, 3), rk_test_uniform(&rng, -3, 3),
                     rk_test_uniform(&rng, -3, 3)};
      rk_mat3 B;
      const double det = rk_euler_rate_matrix((rk_euler_order)o, a, &B);
      rk_assert_near(fabs(det), fabs(ax[0] == ax[2] ? sin(a[1]) : cos(a[1])), 1e-14);
      const rk_mat3 R = rk_euler_to_mat3((rk_euler_order)o, a), Rt = rk_mat3_transpose(&R);
      for (int k = 0; k < 3; k++) {
        const double h = 1e-6;
        double ap[3] = {a[0], a[1], a[2]}, am[3] = {a[0], a[1], a[2]};
        ap[k] += h, am[k] -= h;
        const rk_mat3 Rp = rk_euler_to_mat3((rk_euler_order)o, ap);
        const rk_mat3 Rm = rk_euler_to_mat3((rk_euler_order)o, am);
        /* dR/dt R^T = [omega]x */
        rk_mat3 W;
        for (int i = 0; i < 9; i++)
          W.m[i] = (Rp.m[i] - Rm.m[i]) / (2 * h);
        W = rk_mat3_mul(&W, &Rt);
        const rk_vec3 w = rk_vec3_make(rk_mat3_at(&W, 2, 1), rk_mat3_at(&W, 0, 2),
                                       rk_mat3_at(&W, 1, 0));
        rk_assert_vec3_near(rk_vec3_make(B.m[k * 3], B.m[k * 3 + 1], B.m[k * 3 + 2]), w, 1e-8);
      }
    }
  }
}

/* The textbook's forms: roll-pitch-yaw (ZYX, a = (phi, theta, psi)) and ZYZ,
 *   B_rpy = [ 0 -sf  cf ct ]    B_zyz = [ 0 -sf  cf st ]
 *           [ 0  cf  sf ct ]            [ 0  cf  sf st ]
 *           [ 1  0  -st    ]            [ 1  0   ct    ]
 * with det B_rpy = -cos(theta), det B_zyz = -sin(theta): singular at theta = +-90 and 0 degrees. */
Test(euler, rate_matrices_of_roll_pitch_yaw_and_zyz_match_textbook) {
  const double phi = 0.7, th = -0.4, psi = 2.1;
  const double sf = sin(phi), cf = cos(phi), st = sin(th), ct = cos(th);
  const double a[3] = {phi, th, psi};
  const double rpy[9] = {0, -sf, cf * ct, 0, cf, sf * ct, 1, 0, -st};
  const double zyz[9] = {0, -sf, cf * st, 0, cf, sf * st, 1, 0, ct};
  rk_mat3 B;
  rk_assert_near(rk_euler_rate_matrix(RK_EULER_ZYX, a, &B), -ct, 1e-15);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      rk_assert_near(rk_mat3_at(&B, r, c), rpy[r * 3 + c], 1e-15);
  rk_assert_near(rk_euler_rate_matrix(RK_EULER_ZYZ, a, &B), -st, 1e-15);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      rk_assert_near(rk_mat3_at(&B, r, c), zyz[r * 3 + c], 1e-15);
  const double lock_rpy[3] = {phi, RK_PI / 2, psi}, lock_zyz[3] = {phi, 0, psi};
  rk_assert_near(rk_euler_rate_matrix(RK_EULER_ZYX, lock_rpy, &B), 0, 1e-15);
  rk_assert_near(rk_euler_rate_matrix(RK_EULER_ZYZ, lock_zyz, &B), 0, 1e-15);
}

/* Degrees through rk_sincos: the batch gives rk_euler_axes_deg_to_quat's bits for every triple
 * (zeros, a channel zero in four triples at once, a half angle beyond the vector sine's range,
 * NaN, a count not a multiple of four, a stride wider than the triple), and both are
 * rk_euler_to_quat's rotation. */
Test(euler, degree_batch_is_bit_identical_to_one_at_a_time) {
  guint64 rng = 7;
  enum { N = 23, STRIDE = 5 };
  double deg[N * STRIDE];
  for (int i = 0; i < N * STRIDE; i++)
    deg[i] = rk_test_uniform(&rng, -400, 400);
  deg[0 * STRIDE + 1] = 0, deg[5 * STRIDE + 0] = deg[5 * STRIDE + 2] = 0, deg[6 * STRIDE + 1] = -0.0;
  for (int i = 16; i < 20; i++) /* one channel at rest in a whole group of four */
    deg[i * STRIDE + 1] = 0;
  deg[9 * STRIDE + 2] = 3e7; /* half angle 2.6e5 rad: libm's lane */
  deg[13 * STRIDE + 0] = NAN;
  for (int o = 0; o < RK_EULER_N_ORDERS; o++) {
    double out[4 * N];
    rk_euler_deg_to_quats((rk_euler_order)o, deg, STRIDE, N, out);
    int ax[3];
    rk_euler_order_axes((rk_euler_order)o, ax);
    for (int i = 0; i < N; i++) {
      const rk_quat q = rk_euler_axes_deg_to_quat(ax, deg + i * STRIDE, 3);
      cr_assert(memcmp(&q, out + 4 * i, sizeof q) == 0, "order %d triple %d", o, i);
      if (i == 13)
        continue;
      const double rad[3] = {deg[i * STRIDE] * RK_DEG, deg[i * STRIDE + 1] * RK_DEG,
                             deg[i * STRIDE + 2] * RK_DEG};
      const rk_quat e = rk_euler_to_quat((rk_euler_order)o, rad);
      cr_assert(fabs(fabs(rk_quat_dot(q, e)) - 1) < 1e-12, "order %d triple %d", o, i);
    }
    cr_assert(isnan(out[4 * 13 + 3]));
  }
}
