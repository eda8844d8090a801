/* Two frames of a written node's key in lanes (exporters/src/node_pair.c): the same bits and the
 * same refusals as one frame at a time, on every branch of the quaternion's recovery, mirrored
 * and uneven corrections, and keys that cannot be decomposed. */
#include "rk_test.h"

#include "../../exporters/src/node_pair.h"

#include <string.h>

static double uniform(GRand *rng, double lo, double hi) {
  return g_rand_double_range(rng, lo, hi);
}

static rk_transform random_local(GRand *rng) {
  rk_transform x;
  x.t = rk_vec3_make(uniform(rng, -2, 2), uniform(rng, -2, 2), uniform(rng, -2, 2));
  x.r = rk_quat_normalize(rk_quat_make(uniform(rng, -1, 1), uniform(rng, -1, 1),
                                       uniform(rng, -1, 1), uniform(rng, -1, 1)));
  x.s = rk_vec3_make(1, 1, 1);
  if (g_rand_int_range(rng, 0, 4) == 0) /* an uneven scale now and then */
    x.s = rk_vec3_make(uniform(rng, 0.5, 2), uniform(rng, 0.5, 2), uniform(rng, 0.5, 2));
  return x;
}

/* A correction as a document's float matrices leave it: a rotation and translation with scales
 * a few 1e-7 off 1, uneven; mirrored when asked. */
static void random_correction(GRand *rng, bool mirror, rk_mat4 *b, rk_mat4 *left) {
  rk_transform c = random_local(rng);
  c.s = rk_vec3_make((mirror ? -1 : 1) * (1 + uniform(rng, -6e-7, 6e-7)), 1 + uniform(rng, -6e-7, 6e-7),
                     1 + uniform(rng, -6e-7, 6e-7));
  rk_transform_to_mat4_to(&c, b);
  rk_transform d = random_local(rng);
  d.s = rk_vec3_make(1 + uniform(rng, -6e-7, 6e-7), 1, 1 + uniform(rng, -6e-7, 6e-7));
  rk_transform_to_mat4_to(&d, left);
}

static void assert_pair_as_one(const rk_transform *x0, const rk_transform *x1, const rk_mat4 *b,
                               const rk_mat4 *left, const char *what) {
  const rk_transform *x[2] = {x0, x1};
  rk_transform pair[2], one[2];
  bool ok_pair[2], ok_one[2];
  rk__node_mat_pair(x, b, left, pair, ok_pair);
  for (int k = 0; k < 2; k++) {
    ok_one[k] = rk__node_mat_key(x[k], b, left, &one[k]);
    cr_assert_eq(ok_pair[k], ok_one[k], "%s, frame %d: usable %d, one at a time %d", what, k,
                 ok_pair[k], ok_one[k]);
    if (ok_one[k])
      cr_assert(memcmp(&pair[k], &one[k], sizeof one[k]) == 0,
                "%s, frame %d: rotation (%.17g %.17g %.17g %.17g), one at a time (%.17g %.17g "
                "%.17g %.17g)",
                what, k, pair[k].r.x, pair[k].r.y, pair[k].r.z, pair[k].r.w, one[k].r.x,
                one[k].r.y, one[k].r.z, one[k].r.w);
  }
}

Test(node_pair, two_frames_in_lanes_are_two_frames_one_at_a_time) {
  GRand *rng = g_rand_new_with_seed(2222);
  for (int i = 0; i < 200000; i++) {
    rk_mat4 b, left;
    random_correction(rng, i % 5 == 0, &b, &left);
    const rk_transform x0 = random_local(rng), x1 = random_local(rng);
    assert_pair_as_one(&x0, &x1, &b, &left, "random");
  }
  g_rand_free(rng);
}

/* Half turns about each axis and none: each of Shepperd's four branches, in either lane next to
 * another. */
Test(node_pair, every_branch_of_the_rotation_in_either_lane) {
  const rk_quat turns[] = {{0, 0, 0, 1},           {1, 0, 0, 0},        {0, 1, 0, 0},
                           {0, 0, 1, 0},           {0.7, 0.1, 0, 0.1},  {0.1, 0.7, 0.1, 0},
                           {0, 0.1, 0.7, 0.1},     {0.5, 0.5, 0.5, 0.5}};
  const size_t n = G_N_ELEMENTS(turns);
  rk_mat4 b = rk_mat4_identity(), left = rk_mat4_identity();
  for (size_t a = 0; a < n; a++)
    for (size_t c = 0; c < n; c++) {
      rk_transform x0 = {{0.1, 0.2, 0.3}, rk_quat_normalize(turns[a]), {1, 1, 1}};
      rk_transform x1 = {{-1, 0, 2}, rk_quat_normalize(turns[c]), {1, 1, 1}};
      assert_pair_as_one(&x0, &x1, &b, &left, "branches");
    }
}

/* A key that cannot be decomposed (a zero scale: a zero column) or is not finite is refused in
 * its lane only. */
Test(node_pair, a_refused_frame_leaves_the_other_lane_alone) {
  rk_mat4 b = rk_mat4_identity(), left = rk_mat4_identity();
  const rk_transform good = {{1, 2, 3}, {0, 0, 0, 1}, {1, 1, 1}};
  const rk_transform flat = {{1, 2, 3}, {0, 0, 0, 1}, {0, 1, 1}};
  const rk_transform huge = {{1e308, 1e308, 0}, {0, 0, 0, 1}, {1e308, 1, 1}};
  const rk_transform nan = {{NAN, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
  const rk_transform *bad[] = {&flat, &huge, &nan};
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    assert_pair_as_one(&good, bad[i], &b, &left, "second refused");
    assert_pair_as_one(bad[i], &good, &b, &left, "first refused");
  }
  const rk_transform *x[2] = {&good, &flat};
  rk_transform out[2];
  bool ok[2];
  rk__node_mat_pair(x, &b, &left, out, ok);
  cr_assert(ok[0] && !ok[1]);
}
