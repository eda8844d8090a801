/* Shared helpers for rigkit's Criterion suites: near-equality checks that print what differs,
 * and paths to the test data. */
#ifndef RK_TEST_H
#define RK_TEST_H

#include <criterion/criterion.h>
#include <rigkit/rigkit.h>

#ifndef RK_TEST_DATA_DIR
#error "RK_TEST_DATA_DIR must be defined by the build"
#endif

/** Path of a file in tests/data (static buffer per call site is avoided: returns g_strdup'ed). */
#define rk_test_data(name) g_build_filename(RK_TEST_DATA_DIR, (name), NULL)

#define rk_assert_near(a, b, tol)                                                                \
  do {                                                                                           \
    double rk__a = (a), rk__b = (b);                                                             \
    cr_assert(fabs(rk__a - rk__b) <= (tol), "%s = %.12g, expected %s = %.12g (tol %g)", #a,     \
              rk__a, #b, rk__b, (double)(tol));                                                  \
  } while (0)

#define rk_assert_vec3_near(a, b, tol)                                                           \
  do {                                                                                           \
    rk_vec3 rk__a = (a), rk__b = (b);                                                            \
    cr_assert(rk_vec3_norm(rk_vec3_sub(rk__a, rk__b)) <= (tol),                                 \
              "%s = (%.10g, %.10g, %.10g), expected (%.10g, %.10g, %.10g) (tol %g)", #a, rk__a.x, \
              rk__a.y, rk__a.z, rk__b.x, rk__b.y, rk__b.z, (double)(tol));                       \
  } while (0)

#define rk_assert_mat4_near(a, b, tol)                                                           \
  do {                                                                                           \
    rk_mat4 rk__a = (a), rk__b = (b);                                                            \
    double rk__e = rk_mat4_max_abs_diff(&rk__a, &rk__b);                                         \
    cr_assert(rk__e <= (tol), "%s differs from %s by %g (tol %g)\n%s", #a, #b, rk__e,           \
              (double)(tol), rk_test_mat4_diff_text(&rk__a, &rk__b));                            \
  } while (0)

/* Quaternions q and -q are the same rotation. */
#define rk_assert_quat_near(a, b, tol)                                                           \
  do {                                                                                           \
    rk_quat rk__a = (a), rk__b = (b);                                                            \
    double rk__e = rk_quat_angle_between(rk__a, rk__b);                                          \
    cr_assert(rk__e <= (tol), "%s = (%g,%g,%g,%g) vs %s = (%g,%g,%g,%g): angle %g (tol %g)", #a, \
              rk__a.x, rk__a.y, rk__a.z, rk__a.w, #b, rk__b.x, rk__b.y, rk__b.z, rk__b.w, rk__e, \
              (double)(tol));                                                                    \
  } while (0)

/** The [target] section of a map file naming the Fox's hips and hind legs (Fox.glb is a
 * quadruped: only such a file makes it a retarget target). */
#define RK_TEST_FOX_HIND_LEGS_MAP                                                                \
  "[target]\nhips=b_Hip_01\n"                                                                    \
  "left_upper_leg=b_LeftLeg01_015\nleft_lower_leg=b_LeftLeg02_016\n"                              \
  "left_foot=b_LeftFoot01_017\nleft_toes=b_LeftFoot02_018\n"                                      \
  "right_upper_leg=b_RightLeg01_019\nright_lower_leg=b_RightLeg02_020\n"                          \
  "right_foot=b_RightFoot01_021\nright_toes=b_RightFoot02_022\n"

/** Both matrices side by side, for failure messages (static buffer, one thread). */
const char *rk_test_mat4_diff_text(const rk_mat4 *a, const rk_mat4 *b);
/** The tree of skeleton s (clip c and options o may be NULL), owned by the caller; fails the test
 * with the error otherwise. */
rk_tree *rk_test_tree_or_fail(const rk_skeleton *s, const rk_clip *c, const rk_tree_options *o);
/** The joint of the link called name in t (owned by t); fails the test when there is none. */
const rk_joint *rk_test_joint_named(const rk_tree *t, const char *name);
/** The matrix whose rows, top to bottom, are r[0..3], r[4..7], r[8..11], r[12..15]. */
rk_mat4 rk_test_mat4_rows(const double r[16]);
/** Largest absolute entry of the stacked residuals of the n loops at q (FK computed here). */
double rk_test_loop_residual(const rk_tree *t, const rk_loop *loops, size_t n, const double *q);
/** Deterministic uniform double in [lo, hi) from a caller-held state (xorshift64*). */
double rk_test_uniform(guint64 *state, double lo, double hi);

#endif
