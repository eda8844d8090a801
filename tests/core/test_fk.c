/* Skeleton FK: the textbook planar tree in preorder, subsets, job validation, the pass against
 * its formula bit for bit. */
#include "rk_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Textbook planar robot tree: node 0 at (3,3); node 1 child of 0 at (1.5,4) rotated 14 deg; node 2
 * child of 0 at (-1.5,4) rotated 70 deg; node 3 child of 1 at (3,0) rotated -31 deg. */
static rk_skeleton *planar_tree(int remap[4]) {
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  rk_transform x = rk_transform_identity();
  x.t = rk_vec3_make(3, 3, 0);
  rk_skeleton_builder_add_joint(b, "n0", -1, &x, 0);
  x.t = rk_vec3_make(1.5, 4, 0);
  rk_skeleton_builder_add_joint(b, "n1", 0, &x, 0);
  x.t = rk_vec3_make(-1.5, 4, 0);
  rk_skeleton_builder_add_joint(b, "n2", 0, &x, 0);
  x.t = rk_vec3_make(3, 0, 0);
  rk_skeleton_builder_add_joint(b, "n3", 1, &x, 0);
  g_autoptr(GError) error = NULL;
  rk_skeleton *s = rk_skeleton_builder_build(b, remap, &error);
  cr_assert(s, "%s", error ? error->message : "");
  return s;
}

static void planar_pose(const rk_skeleton *s, const double deg[3], rk_transform *locals) {
  /* Pose vector in traversal order (nodes 1, 3, 2). */
  const char *names[3] = {"n1", "n3", "n2"};
  for (size_t i = 0; i < 4; i++)
    locals[i] = *rk_skeleton_rest(s, i);
  for (int k = 0; k < 3; k++) {
    int j = rk_skeleton_find_joint(s, names[k]);
    locals[j].r = rk_quat_from_axis_angle(rk_vec3_make(0, 0, 1), deg[k] * RK_DEG);
  }
}

static rk_mat4 planar(double x, double y, double deg) {
  rk_mat4 r = rk_mat4_rot_z(deg * RK_DEG);
  r.m[12] = x;
  r.m[13] = y;
  return r;
}

Test(fk, preorder_matches_textbook_robot) {
  int remap[4];
  g_autoptr(rk_skeleton) s = planar_tree(remap);
  /* Traversal order 0, 1, 3, 2. */
  const char *order[4] = {"n0", "n1", "n3", "n2"};
  for (int i = 0; i < 4; i++)
    cr_assert_str_eq(rk_skeleton_joint_name(s, (size_t)i), order[i]);
  cr_assert_eq(remap[0], 0);
  cr_assert_eq(remap[1], 1);
  cr_assert_eq(remap[2], 3);
  cr_assert_eq(remap[3], 2);
  for (size_t i = 1; i < 4; i++)
    cr_assert_lt(rk_skeleton_parent(s, i), (int)i);

  const double pose[3] = {14, -31, 70};
  rk_transform locals[4];
  planar_pose(s, pose, locals);
  rk_mat4 models[4];
  rk_fk_job job = RK_FK_JOB_INIT;
  job.skeleton = s;
  job.locals = locals;
  job.locals_count = 4;
  job.models = models;
  job.models_count = 4;
  cr_assert(rk_fk_job_run(&job));
  rk_assert_mat4_near(models[0], planar(3, 3, 0), 1e-12);
  rk_assert_mat4_near(models[1], planar(4.5, 7, 14), 1e-12);
  rk_assert_mat4_near(models[2], planar(4.5 + 3 * cos(14 * RK_DEG), 7 + 3 * sin(14 * RK_DEG), -17), 1e-12);
  rk_assert_mat4_near(models[3], planar(1.5, 7, 70), 1e-12);
  /* The worked number: node 3's origin at (7.41089, 7.72577). */
  rk_assert_near(models[2].m[12], 7.41089, 5e-6);
  rk_assert_near(models[2].m[13], 7.72577, 5e-6);
}

Test(fk, subset_computes_only_the_path_to_the_ends) {
  g_autoptr(rk_skeleton) s = planar_tree(NULL);
  const double pose[3] = {14, -31, 70};
  rk_transform locals[4];
  planar_pose(s, pose, locals);
  int ends[1] = {rk_skeleton_find_joint(s, "n3")}, joints[4];
  size_t n = rk_skeleton_ancestor_closure(s, ends, 1, joints);
  cr_assert_eq(n, 3);
  rk_mat4 models[4], full[4];
  memset(models, 0xff, sizeof models); /* NaN pattern: untouched entries stay NaN */
  rk_fk_job job = RK_FK_JOB_INIT;
  job.skeleton = s;
  job.locals = locals;
  job.locals_count = 4;
  job.joints = joints;
  job.joints_count = n;
  job.models = models;
  job.models_count = 4;
  cr_assert(rk_fk_job_run(&job));
  rk_fk_models(s, locals, full);
  rk_assert_mat4_near(models[2], full[2], 0);
  cr_assert(isnan(models[3].m[0]), "joint n2 is not on the path and must not be written");
}

Test(fk, root_transform_is_applied_above_the_roots) {
  g_autoptr(rk_skeleton) s = planar_tree(NULL);
  rk_transform locals[4];
  const double pose[3] = {0, 0, 0};
  planar_pose(s, pose, locals);
  rk_mat4 root = rk_mat4_translation(rk_vec3_make(0, 0, 5)), models[4];
  rk_fk_job job = {s, locals, 4, &root, NULL, 0, models, 4};
  cr_assert(rk_fk_job_run(&job));
  rk_assert_vec3_near(rk_mat4_get_translation(&models[3]), rk_vec3_make(1.5, 7, 5), 1e-12);
}

Test(fk, validate_rejects_each_broken_field) {
  g_autoptr(rk_skeleton) s = planar_tree(NULL);
  rk_transform locals[4];
  rk_mat4 models[4];
  const double pose[3] = {0, 0, 0};
  planar_pose(s, pose, locals);
  const rk_fk_job good = {s, locals, 4, NULL, NULL, 0, models, 4};
  cr_assert(rk_fk_job_validate(&good));
  rk_fk_job j = good;
  j.skeleton = NULL;
  cr_assert_not(rk_fk_job_validate(&j));
  j = good;
  j.locals = NULL;
  cr_assert_not(rk_fk_job_validate(&j));
  j = good;
  j.locals_count = 3;
  cr_assert_not(rk_fk_job_validate(&j));
  j = good;
  j.models = NULL;
  cr_assert_not(rk_fk_job_validate(&j));
  j = good;
  j.models_count = 2;
  cr_assert_not(rk_fk_job_validate(&j));
  int not_closed[2] = {0, 2}; /* joint 2's parent (1) is missing */
  j = good;
  j.joints = not_closed;
  j.joints_count = 2;
  cr_assert_not(rk_fk_job_validate(&j));
  int unsorted[3] = {0, 2, 1};
  j.joints = unsorted;
  j.joints_count = 3;
  cr_assert_not(rk_fk_job_validate(&j));
  int out_of_range[2] = {0, 9};
  j.joints = out_of_range;
  j.joints_count = 2;
  cr_assert_not(rk_fk_job_validate(&j));
  cr_assert_not(rk_fk_job_run(&j));
  cr_assert_not(rk_fk_job_validate(NULL));
}

Test(fk, single_joint_and_deep_chain) {
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  rk_transform x = rk_transform_identity();
  x.t = rk_vec3_make(0, 0.001, 0);
  /* The maximum joint count as one chain: no recursion anywhere. */
  for (int i = 0; i < RK_SKELETON_MAX_JOINTS; i++) {
    char name[32];
    snprintf(name, sizeof name, "j%d", i);
    rk_skeleton_builder_add_joint(b, name, i - 1, &x, 0);
  }
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_skeleton) s = rk_skeleton_builder_build(b, NULL, &error);
  cr_assert(s, "%s", error ? error->message : "");
  size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_mat4 *m = g_new(rk_mat4, n);
  rk_skeleton_rest_models(s, m);
  rk_assert_near(m[n - 1].m[13], 0.001 * RK_SKELETON_MAX_JOINTS, 1e-6);
  rk_assert_near(rk_skeleton_rest_height(s), 0.001 * (RK_SKELETON_MAX_JOINTS - 1), 1e-6);
}

/* Subsets are checked for closure under parents with a bitmap up to 4096 joints and a binary
 * search beyond: both must accept a closed subset (and run it as the full pass would) and refuse
 * one with a parent missing, at the bitmap's word edges too. */
Test(fk, subset_closure_is_checked_on_small_and_large_skeletons) {
  const size_t sizes[] = {64, 65, 4096, 4097, 5000};
  for (size_t z = 0; z < G_N_ELEMENTS(sizes); z++) {
    const size_t n = sizes[z];
    g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
    /* Two chains from one root: joints 1, 3, 5, ... and 2, 4, 6, ... */
    for (size_t j = 0; j < n; j++) {
      char name[32];
      snprintf(name, sizeof name, "j%zu", j);
      rk_transform x = rk_transform_identity();
      x.t = rk_vec3_make(j % 2 ? 0.01 : -0.01, 0.01, 0);
      const int parent = j == 0 ? -1 : j <= 2 ? 0 : (int)j - 2;
      cr_assert_geq(rk_skeleton_builder_add_joint(b, name, parent, &x, 0), 0);
    }
    g_autoptr(GError) error = NULL;
    g_autoptr(rk_skeleton) s = rk_skeleton_builder_build(b, NULL, &error);
    cr_assert(s, "%s", error ? error->message : "");
    rk_transform *locals = g_new(rk_transform, n);
    rk_mat4 *models = g_new(rk_mat4, n), *full = g_new(rk_mat4, n);
    int *subset = g_new(int, n);
    for (size_t j = 0; j < n; j++)
      locals[j] = rk_skeleton_rest_locals(s)[j];
    rk_fk_models(s, locals, full);
    /* The root and one chain (the builder may renumber joints: take the last joint's
     * ancestors): closed. */
    const int leaf = (int)n - 1;
    const size_t count = rk_skeleton_ancestor_closure(s, &leaf, 1, subset);
    cr_assert_gt(count, n / 2 - 2);
    rk_fk_job job = {s, locals, n, NULL, subset, count, models, n};
    cr_assert(rk_fk_job_run(&job), "%zu joints: a closed subset", n);
    rk_assert_mat4_near(models[subset[count - 1]], full[subset[count - 1]], 1e-12);
    /* Drop a joint in the middle (at a bitmap word edge for the small sizes): not closed. */
    const size_t drop = count / 2 > 32 ? 32 : count / 2;
    memmove(subset + drop, subset + drop + 1, (count - drop - 1) * sizeof subset[0]);
    job.joints_count = count - 1;
    cr_assert_not(rk_fk_job_validate(&job), "%zu joints: joint %d's parent is missing", n,
                  subset[drop]);
    g_free(locals);
    g_free(models);
    g_free(full);
    g_free(subset);
  }
}

/* The pass's formula for one joint, written out in scalars: the rotation columns of q (not
 * normalised), each model column a sum of the parent's columns in the pass's order, times the
 * scale (a product by 1 changes no bits, so the pass skipping it for unit scales is the same). */
static void formula_joint(const rk_mat4 *above, const rk_transform *x, rk_mat4 *out) {
  const double qx = x->r.x, qy = x->r.y, qz = x->r.z, qw = x->r.w;
  const double x2 = qx + qx, y2 = qy + qy, z2 = qz + qz;
  const double xx = qx * x2, yy = qy * y2, zz = qz * z2, xy = qx * y2, xz = qx * z2,
               yz = qy * z2, wx = qw * x2, wy = qw * y2, wz = qw * z2;
  const double l[3][3] = {{1.0 - (yy + zz), xy + wz, xz - wy},
                          {xy - wz, 1.0 - (xx + zz), yz + wx},
                          {xz + wy, yz - wx, 1.0 - (xx + yy)}};
  const double s[3] = {x->s.x, x->s.y, x->s.z};
  double *o = out->m;
  if (!above) {
    for (int c = 0; c < 3; c++) {
      for (int i = 0; i < 3; i++)
        o[4 * c + i] = l[c][i] * s[c];
      o[4 * c + 3] = 0;
    }
    o[12] = x->t.x, o[13] = x->t.y, o[14] = x->t.z, o[15] = 1;
    return;
  }
  const double *P = above->m;
  for (int i = 0; i < 4; i++) {
    o[12 + i] = (P[i] * x->t.x + P[12 + i]) + (P[4 + i] * x->t.y + P[8 + i] * x->t.z);
    for (int c = 0; c < 3; c++)
      o[4 * c + i] = (P[i] * l[c][0] + P[4 + i] * l[c][1] + P[8 + i] * l[c][2]) * s[c];
  }
}

static double draw(GRand *g, double lo, double hi) {
  return g_rand_double_range(g, lo, hi);
}

/* Random local poses with the cases the pass treats apart: unit and non-unit, negative and zero
 * scales, signed zeros in rotations and offsets, quaternions off unit length. */
static void random_local(GRand *g, rk_transform *x) {
  x->t = rk_vec3_make(draw(g, -1, 1), draw(g, -1, 1), draw(g, -1, 1));
  x->r = rk_quat_make(draw(g, -1, 1), draw(g, -1, 1), draw(g, -1, 1), draw(g, -1, 1));
  if (g_rand_int_range(g, 0, 3) == 0)
    x->r.x = 0, x->r.y = -0.0;
  if (g_rand_int_range(g, 0, 4) == 0)
    x->t.x = -0.0, x->t.y = 0;
  x->s = rk_vec3_make(1, 1, 1);
  const int kind = g_rand_int_range(g, 0, 8);
  if (kind == 0)
    x->s = rk_vec3_make(draw(g, 0.1, 3), draw(g, -2, 3), draw(g, 0.1, 3));
  else if (kind == 1)
    x->s.y = -1;
  else if (kind == 2)
    x->s.z = 0;
}

/* rk_fk_job_run on random skeletons of 1 to 40 joints (odd and even counts: the baseline pass goes
 * two joints at a time), whole and on random closed subsets, with and without a root frame, equals
 * the formula bit for bit on the baseline pass (RIGKIT_CPU=baseline) and to rounding on the
 * AVX2 pass, which fuses multiplies into additions. */
Test(fk, pass_matches_its_formula_bit_for_bit) {
  const char *level = getenv("RIGKIT_CPU");
  const bool exact = level && strcmp(level, "baseline") == 0;
  g_autoptr(GRand) g = g_rand_new_with_seed(22);
  for (int trial = 0; trial < 240; trial++) {
    const int n = 1 + trial % 40;
    g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
    for (int j = 0; j < n; j++) {
      char name[32];
      snprintf(name, sizeof name, "j%d", j);
      const int parent = j == 0 || g_rand_int_range(g, 0, 9) == 0 ? -1 : g_rand_int_range(g, 0, j);
      rk_skeleton_builder_add_joint(b, name, parent, NULL, 0);
    }
    g_autoptr(rk_skeleton) s = rk_skeleton_builder_build(b, NULL, NULL);
    cr_assert(s);
    const int *parents = rk_skeleton_parents(s);
    g_autofree rk_transform *locals = g_new(rk_transform, n);
    g_autofree rk_mat4 *got = g_new0(rk_mat4, n);
    g_autofree rk_mat4 *want = g_new0(rk_mat4, n);
    g_autofree int *subset = g_new(int, n);
    g_autofree bool *in = g_new0(bool, n);
    for (int j = 0; j < n; j++)
      random_local(g, &locals[j]);
    rk_mat4 root = rk_mat4_identity();
    for (int k = 0; k < 12; k++)
      root.m[k + k / 3] = draw(g, -2, 2);
    const bool with_root = trial % 2, whole = trial % 3 == 0;
    size_t count = 0;
    for (int j = 0; j < n; j++)
      if (whole || ((parents[j] < 0 || in[parents[j]]) && g_rand_int_range(g, 0, 10) < 7))
        in[j] = true, subset[count++] = j;
    for (size_t k = 0; k < count; k++) {
      const int j = subset[k], p = parents[j];
      formula_joint(p >= 0 ? &want[p] : with_root ? &root : NULL, &locals[j], &want[j]);
    }
    rk_fk_job job = {s, locals, n, with_root ? &root : NULL, whole ? NULL : subset, count, got, n};
    cr_assert(rk_fk_job_run(&job));
    for (int j = 0; j < n; j++) {
      if (exact)
        cr_assert(memcmp(&got[j], &want[j], sizeof got[j]) == 0, "trial %d joint %d of %d", trial,
                  j, n);
      else
        for (int e = 0; e < 16; e++) {
          double scale = 1;
          for (int f = 0; f < 16; f++)
            scale = fmax(scale, fabs(want[j].m[f]));
          cr_assert_leq(fabs(got[j].m[e] - want[j].m[e]), 1e-12 * scale, "trial %d joint %d", trial,
                        j);
        }
    }
  }
}
