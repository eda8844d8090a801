/* Skin supports and sole points on rigs built in code: a box whose lowest corner is known under
 * turns (and changes between them), a bent knee, a blended many-joint rig against brute-force
 * skinning under 10,000 random poses, the sole of a box foot whatever its bones' axes, soles from
 * bones, and the failures. */
#include "skin_fixture.h"

#include <rigkit/skin.h>

/* A rig built from model-space rest frames. */
typedef struct frame_spec {
  const char *name;
  int parent;
  rk_vec3 pos;
  rk_quat rot;
  unsigned flags;
} frame_spec;

/* The skeleton whose joints sit at the model-space rest frames spec[0..n) (parents before
 * children); the caller frees it. */
static rk_skeleton *skeleton_from_frames(const frame_spec *spec, size_t n) {
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  for (size_t j = 0; j < n; j++) {
    rk_transform local = rk_transform_identity();
    local.r = spec[j].rot;
    local.t = spec[j].pos;
    if (spec[j].parent >= 0) {
      const frame_spec *p = &spec[spec[j].parent];
      const rk_quat back = rk_quat_conj(p->rot);
      local.r = rk_quat_mul(back, spec[j].rot);
      local.t = rk_quat_rotate(back, rk_vec3_sub(spec[j].pos, p->pos));
    }
    rk_skeleton_builder_add_joint(b, spec[j].name, spec[j].parent, &local, spec[j].flags);
  }
  g_autoptr(GError) error = NULL;
  rk_skeleton *s = rk_skeleton_builder_build(b, NULL, &error);
  cr_assert(s, "%s", error ? error->message : "");
  return s;
}

/* Mesh arrays grown vertex by vertex. */
typedef struct mesh_build {
  GArray *pos;     /* float x3 */
  GArray *joints;  /* uint16 x4 */
  GArray *weights; /* float x4 */
} mesh_build;

static mesh_build mesh_build_new(void) {
  return (mesh_build){g_array_new(FALSE, FALSE, sizeof(float)),
                      g_array_new(FALSE, FALSE, sizeof(uint16_t)),
                      g_array_new(FALSE, FALSE, sizeof(float))};
}

/* Adds a vertex at p weighted to joints j[0..n) by w (n <= 4). */
static void add_vertex(mesh_build *m, rk_vec3 p, const int *j, const double *w, int n) {
  const float xyz[3] = {(float)p.x, (float)p.y, (float)p.z};
  g_array_append_vals(m->pos, xyz, 3);
  for (int k = 0; k < 4; k++) {
    const uint16_t jj = k < n ? (uint16_t)j[k] : 0;
    const float ww = k < n ? (float)w[k] : 0.0f;
    g_array_append_val(m->joints, jj);
    g_array_append_val(m->weights, ww);
  }
}

/* Adds the 8 corners of the box lo..hi, `copies` times each (as meshes split corners at hard
 * edges), rigidly weighted to joint j. */
static void add_box(mesh_build *m, rk_vec3 lo, rk_vec3 hi, int j, int copies) {
  const double one = 1;
  for (int c = 0; c < copies; c++)
    for (int i = 0; i < 8; i++)
      add_vertex(m, rk_vec3_make(i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z), &j,
                 &one, 1);
}

/* The mesh (skinned, or attached to attach_joint when `rigid`), for joint_count joints; frees
 * the arrays. */
static rk_mesh *mesh_finish(mesh_build *m, size_t joint_count, bool rigid, int attach_joint) {
  static const uint32_t tri[3] = {0, 0, 0};
  rk_mesh_data d = {0};
  d.name = "test";
  d.vertex_count = m->pos->len / 3;
  d.positions = (const float *)m->pos->data;
  d.index_count = 3;
  d.indices = tri;
  d.joints = rigid ? NULL : (const uint16_t *)m->joints->data;
  d.weights = rigid ? NULL : (const float *)m->weights->data;
  d.attach_joint = attach_joint;
  g_autoptr(GError) error = NULL;
  rk_mesh *mesh = rk_mesh_new(&d, joint_count, &error);
  cr_assert(mesh, "%s", error ? error->message : "");
  g_array_free(m->pos, TRUE);
  g_array_free(m->joints, TRUE);
  g_array_free(m->weights, TRUE);
  return mesh;
}

/* The rigid transform turning by q, then moving by t. */
static rk_mat4 mat_qt(rk_quat q, rk_vec3 t) {
  const rk_mat3 r = rk_quat_to_mat3(q);
  return rk_mat4_from_rt(&r, t);
}

static rk_skin_support *support_or_fail(rk_skeleton *s, rk_mesh **meshes, size_t n) {
  g_autoptr(GError) error = NULL;
  rk_skin_support *sup = rk_skin_support_new(s, (const rk_mesh *const *)meshes, n, &error);
  cr_assert(sup, "%s", error ? error->message : "");
  return sup;
}

/* ---- lowest points ------------------------------------------------------------------------- */

Test(skin, box_lowest_corner_under_known_turns) {
  const frame_spec spec[1] = {{"body", -1, {0, 0, 0}, {0, 0, 0, 1}, 0}};
  g_autoptr(rk_skeleton) s = skeleton_from_frames(spec, 1);
  mesh_build mb = mesh_build_new();
  add_box(&mb, rk_vec3_make(-1, 0, -0.25), rk_vec3_make(2, 1, 0.5), 0, 3);
  g_autoptr(rk_mesh) mesh = mesh_finish(&mb, 1, false, -1);
  g_autoptr(rk_skin_support) sup = support_or_fail(s, &mesh, 1);
  cr_assert_eq(rk_skin_support_vertex_count(sup, -1), 24);
  cr_assert_eq(rk_skin_support_vertex_count(sup, 0), 24);
  /* The three copies of each corner skin identically: each corner counts once. */
  cr_assert_eq(rk_skin_support_candidate_count(sup, -1), 8);
  cr_assert_eq(rk_skin_support_candidate_count(sup, 0), 8);

  /* Rx(20) Rz(30): corner (-1, 0, 0.5) (vertex 4) is lowest at -0.5 cos 20 - 0.5 sin 20. */
  rk_mat4 rx = rk_mat4_rot_x(20 * RK_DEG), rz = rk_mat4_rot_z(30 * RK_DEG);
  rk_mat4 pose = rk_mat4_mul(&rx, &rz);
  rk_skin_point p;
  cr_assert(rk_skin_lowest(sup, &pose, NULL, 0, &p));
  rk_assert_near(p.position.y, -0.5 * cos(20 * RK_DEG) - 0.5 * sin(20 * RK_DEG), 1e-12);
  cr_assert_eq(p.vertex, 4);
  cr_assert_eq(p.mesh, 0);
  cr_assert_eq(p.joint, 0);
  const rk_vec3 corner4 = rk_mat4_transform_point(&pose, rk_vec3_make(-1, 0, 0.5));
  rk_assert_vec3_near(p.position, corner4, 1e-12);

  /* Rx(20) Rz(-30): the lowest corner changes to (2, 0, 0.5) (vertex 5), at -cos 20 - 0.5 sin 20;
   * moved up by 3 it is 3 higher. */
  rz = rk_mat4_rot_z(-30 * RK_DEG);
  pose = rk_mat4_mul(&rx, &rz);
  cr_assert(rk_skin_lowest(sup, &pose, NULL, 0, &p));
  rk_assert_near(p.position.y, -cos(20 * RK_DEG) - 0.5 * sin(20 * RK_DEG), 1e-12);
  cr_assert_eq(p.vertex, 5);
  pose.m[13] += 3;
  cr_assert(rk_skin_lowest_subtree(sup, &pose, 0, &p));
  rk_assert_near(p.position.y, 3 - cos(20 * RK_DEG) - 0.5 * sin(20 * RK_DEG), 1e-12);
  cr_assert_eq(p.vertex, 5);
}

/* A leg: upper from the hip at the origin to the knee at (0, -1, 0), lower from the knee down to
 * (0, -2, 0), boxes 0.2 wide, the ring at the knee blended half and half. */
static rk_skeleton *leg_rig(rk_mesh **mesh) {
  const frame_spec spec[2] = {{"upper", -1, {0, 0, 0}, {0, 0, 0, 1}, 0},
                              {"lower", 0, {0, -1, 0}, {0, 0, 0, 1}, 0}};
  rk_skeleton *s = skeleton_from_frames(spec, 2);
  mesh_build mb = mesh_build_new();
  add_box(&mb, rk_vec3_make(-0.1, -0.9, -0.1), rk_vec3_make(0.1, 0, 0.1), 0, 1);
  add_box(&mb, rk_vec3_make(-0.1, -2, -0.1), rk_vec3_make(0.1, -1.1, 0.1), 1, 1);
  const int both[2] = {0, 1};
  const double half[2] = {0.5, 0.5};
  for (int i = 0; i < 4; i++)
    add_vertex(&mb, rk_vec3_make(i & 1 ? 0.1 : -0.1, -1, i & 2 ? 0.1 : -0.1), both, half, 2);
  *mesh = mesh_finish(&mb, 2, false, -1);
  return s;
}

Test(skin, bent_knee_lowest_is_the_shin_back) {
  rk_mesh *mesh;
  g_autoptr(rk_skeleton) s = leg_rig(&mesh);
  g_autoptr(rk_skin_support) sup = support_or_fail(s, &mesh, 1);
  cr_assert_eq(rk_skin_support_vertex_count(sup, 0), 12); /* the ring's first joint wins ties */
  cr_assert_eq(rk_skin_support_vertex_count(sup, 1), 8);
  rk_transform locals[2];
  memcpy(locals, rk_skeleton_rest_locals(s), sizeof locals);
  rk_mat4 models[2];
  rk_fk_models(s, locals, models);
  rk_skin_point p;
  cr_assert(rk_skin_lowest(sup, models, NULL, 0, &p));
  rk_assert_near(p.position.y, -2, 1e-12);
  cr_assert_eq(p.joint, 1);
  /* The knee bent 90 degrees, the shin forward: its back (z = -0.1 at rest) is lowest, at -1.1;
   * the blended ring's back sits halfway, at -1.05. */
  locals[1].r = rk_quat_from_axis_angle(rk_vec3_make(1, 0, 0), -90 * RK_DEG);
  rk_fk_models(s, locals, models);
  cr_assert(rk_skin_lowest(sup, models, NULL, 0, &p));
  rk_assert_near(p.position.y, -1.1, 1e-7); /* -0.1 and 0.1 as floats */
  cr_assert_eq(p.joint, 1);
  const int thigh[1] = {0};
  cr_assert(rk_skin_lowest(sup, models, thigh, 1, &p));
  rk_assert_near(p.position.y, -1.05, 1e-7);
  cr_assert_eq(p.joint, 0);
  rk_mesh_free(mesh);
}

/* A branching rig with bone axes turned at random and inverse binds that differ from the rest
 * pose: point clouds around each bone (inside as well as on the surface) blended with the
 * neighbouring joints near the joints and at random, a rigid mesh on the chest and a static
 * floor far below (left out). */
enum { R_HIPS, R_CHEST, R_ARM, R_THIGH, R_SHIN, R_FOOT, R_TOE, R_COUNT };

static rk_skeleton *random_rig(guint64 *rng, rk_mesh **meshes) {
  frame_spec spec[R_COUNT] = {{"hips", -1, {0, 1, 0}, {0, 0, 0, 1}, 0},
                              {"chest", R_HIPS, {0, 1.4, 0}, {0, 0, 0, 1}, 0},
                              {"arm", R_CHEST, {0.2, 1.35, 0}, {0, 0, 0, 1}, 0},
                              {"thigh", R_HIPS, {0.1, 0.95, 0}, {0, 0, 0, 1}, 0},
                              {"shin", R_THIGH, {0.1, 0.5, 0}, {0, 0, 0, 1}, 0},
                              {"foot", R_SHIN, {0.1, 0.08, 0}, {0, 0, 0, 1}, 0},
                              {"toe", R_FOOT, {0.1, 0.02, 0.14}, {0, 0, 0, 1}, 0}};
  const rk_vec3 tip[R_COUNT] = {{0, 1.4, 0},    {0, 1.6, 0},       {0.6, 1.2, 0},   {0.1, 0.5, 0},
                                {0.1, 0.08, 0}, {0.1, 0.02, 0.14}, {0.1, 0.02, 0.2}};
  for (int j = 0; j < R_COUNT; j++)
    spec[j].rot =
        rk_quat_normalize(rk_quat_make(rk_test_uniform(rng, -1, 1), rk_test_uniform(rng, -1, 1),
                                       rk_test_uniform(rng, -1, 1), rk_test_uniform(rng, -1, 1)));
  g_autoptr(rk_skeleton) rest = skeleton_from_frames(spec, R_COUNT);
  /* Bound 3 degrees and 1 cm away from the rest pose. */
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  rk_mat4 models[R_COUNT];
  rk_skeleton_rest_models(rest, models);
  for (int j = 0; j < R_COUNT; j++) {
    rk_skeleton_builder_add_joint(b, spec[j].name, spec[j].parent,
                                  rk_skeleton_rest(rest, (size_t)j), 0);
    const rk_mat4 turn =
        mat_qt(rk_quat_from_axis_angle(rk_vec3_make(rk_test_uniform(rng, -1, 1), 1, 0), 3 * RK_DEG),
               rk_vec3_make(0.01, 0, -0.01));
    const rk_mat4 bind = rk_mat4_mul(&turn, &models[j]);
    rk_mat4 ibm;
    cr_assert(rk_mat4_inverse_affine(&bind, &ibm));
    rk_skeleton_builder_set_inverse_bind(b, j, &ibm);
  }
  g_autoptr(GError) error = NULL;
  rk_skeleton *s = rk_skeleton_builder_build(b, NULL, &error);
  cr_assert(s, "%s", error ? error->message : "");

  mesh_build mb = mesh_build_new();
  for (int j = 0; j < R_COUNT; j++) {
    const rk_vec3 from = spec[j].pos, to = tip[j];
    for (int i = 0; i < 150; i++) {
      const double t = rk_test_uniform(rng, 0, 1);
      const rk_vec3 p =
          rk_vec3_add(rk_vec3_lerp(from, to, t), rk_vec3_make(rk_test_uniform(rng, -0.06, 0.06),
                                                              rk_test_uniform(rng, -0.06, 0.06),
                                                              rk_test_uniform(rng, -0.06, 0.06)));
      int jj[4] = {j, spec[j].parent >= 0 ? spec[j].parent : j, j < R_TOE ? j + 1 : j,
                   (int)rk_test_uniform(rng, 0, R_COUNT)};
      double w[4] = {1, t < 0.2 ? 0.2 - t : 0, t > 0.8 ? t - 0.8 : 0,
                     i % 7 == 0 ? rk_test_uniform(rng, 0, 0.6) : 0};
      add_vertex(&mb, p, jj, w, 4);
    }
  }
  meshes[0] = mesh_finish(&mb, R_COUNT, false, -1);
  mb = mesh_build_new();
  for (int i = 0; i < 60; i++)
    add_vertex(&mb,
               rk_vec3_make(rk_test_uniform(rng, -0.1, 0.1), rk_test_uniform(rng, 1.6, 1.8),
                            rk_test_uniform(rng, -0.1, 0.1)),
               NULL, NULL, 0);
  meshes[1] = mesh_finish(&mb, R_COUNT, true, R_CHEST);
  mb = mesh_build_new();
  add_box(&mb, rk_vec3_make(-9, -50, -9), rk_vec3_make(9, -49, 9), 0, 1);
  meshes[2] = mesh_finish(&mb, R_COUNT, true, -1);
  return s;
}

Test(skin, candidates_keep_the_lowest_point_under_10000_random_poses) {
  guint64 rng = 12345;
  rk_mesh *meshes[3];
  g_autoptr(rk_skeleton) s = random_rig(&rng, meshes);
  g_autoptr(rk_skin_support) sup = support_or_fail(s, meshes, 3);
  const size_t nv = R_COUNT * 150 + 60, nc = rk_skin_support_candidate_count(sup, -1);
  cr_assert_eq(rk_skin_support_vertex_count(sup, -1), nv); /* the floor is left out */
  cr_assert_lt(nc, nv * 3 / 4, "%zu candidates of %zu vertices", nc, nv);
  rk_mat4 rest[R_COUNT], models[R_COUNT];
  rk_transform locals[R_COUNT];
  rk_skeleton_rest_models(s, rest);
  bool leg[R_COUNT] = {0}, ends[R_COUNT] = {0};
  leg[R_THIGH] = leg[R_SHIN] = leg[R_FOOT] = leg[R_TOE] = true;
  ends[R_ARM] = ends[R_TOE] = true;
  const int end_list[3] = {R_ARM, 99, R_TOE}; /* 99: out of range, ignored */
  const rk_mesh *const *ms = (const rk_mesh *const *)meshes;
  for (int pose = 0; pose < 10000; pose++) {
    random_pose(s, &rng, RK_PI, 1.0, locals, models);
    const brute_lowest all = brute_lowest_of(s, rest, ms, 2, models, NULL);
    rk_skin_point p;
    cr_assert(rk_skin_lowest(sup, models, NULL, 0, &p));
    /* Never below the lowest vertex (it is a vertex); above it by at most the hull's rounding
     * allowance, 1e-6 of the rig's 2 m reach from the origin. */
    cr_assert(p.position.y >= all.y - 1e-12 && p.position.y <= all.y + 2e-6,
              "pose %d: %.12g, brute force %.12g (mesh %zu vertex %zu)", pose, p.position.y, all.y,
              all.mesh, all.vertex);
    const rk_mesh_data *d = rk_mesh_data_get(meshes[p.mesh]);
    rk_assert_vec3_near(p.position, brute_skin(s, rest, d, p.vertex, models), 1e-9);
    cr_assert_eq(p.joint, brute_dominant(d, p.vertex));
    if (pose % 10)
      continue;
    const brute_lowest in_leg = brute_lowest_of(s, rest, ms, 2, models, leg);
    cr_assert(rk_skin_lowest_subtree(sup, models, R_THIGH, &p));
    cr_assert(p.position.y >= in_leg.y - 1e-12 && p.position.y <= in_leg.y + 2e-6);
    /* The bound is below every vertex of the leg, and not far below (within the leg's size). */
    const double lb = rk_skin_bound_subtree(sup, models, R_THIGH);
    cr_assert(lb <= in_leg.y && lb > in_leg.y - 2.0, "pose %d: bound %g, lowest %g", pose, lb,
              in_leg.y);
    const brute_lowest at_ends = brute_lowest_of(s, rest, ms, 2, models, ends);
    cr_assert(rk_skin_lowest(sup, models, end_list, 3, &p));
    cr_assert(p.position.y >= at_ends.y - 1e-12 && p.position.y <= at_ends.y + 2e-6);
  }
  for (int m = 0; m < 3; m++)
    rk_mesh_free(meshes[m]);
}

Test(skin, empty_sets_and_foreign_meshes) {
  rk_mesh *mesh;
  g_autoptr(rk_skeleton) s = leg_rig(&mesh);
  g_autoptr(rk_skin_support) sup = support_or_fail(s, &mesh, 1);
  cr_assert_eq(rk_skin_support_skeleton(sup), s);
  cr_assert_eq(rk_skin_support_vertex_count(sup, 2), 0);
  cr_assert_eq(rk_skin_support_candidate_count(sup, -2), 0);
  rk_mat4 models[2];
  rk_skeleton_rest_models(s, models);
  rk_skin_point p = {{7, 7, 7}, 7, 7, 7};
  const int none[2] = {-1, 5};
  cr_assert_not(rk_skin_lowest(sup, models, none, 2, &p));
  cr_assert_not(rk_skin_lowest(sup, models, none, 0, &p));
  cr_assert_not(rk_skin_lowest_subtree(sup, models, 2, &p));
  cr_assert(rk_skin_bound_subtree(sup, models, 2) == -INFINITY); /* out of range */
  cr_assert(rk_skin_bound_subtree(sup, models, 0) < INFINITY);
  cr_assert_eq(p.vertex, 7); /* untouched */
  /* No meshes: no vertices, no lowest point. */
  g_autoptr(rk_skin_support) bare = support_or_fail(s, NULL, 0);
  cr_assert_eq(rk_skin_support_vertex_count(bare, -1), 0);
  cr_assert_not(rk_skin_lowest(bare, models, NULL, 0, &p));
  cr_assert(rk_skin_bound_subtree(bare, models, 0) == -INFINITY); /* nothing is surely above */
  /* A mesh made for a larger skeleton. */
  mesh_build mb = mesh_build_new();
  add_box(&mb, rk_vec3_make(0, 0, 0), rk_vec3_make(1, 1, 1), 5, 1);
  g_autoptr(rk_mesh) foreign = mesh_finish(&mb, 6, false, -1);
  g_autoptr(GError) error = NULL;
  cr_assert_null(rk_skin_support_new(s, (const rk_mesh *const *)&foreign, 1, &error));
  cr_assert(g_error_matches(error, RK_ERROR, RK_ERROR_INVALID));
  cr_assert(strstr(error->message, "'test'") && strstr(error->message, "joint 5"), "%s",
            error->message);
  rk_mesh_free(mesh);
}

/* ---- sole points --------------------------------------------------------------------------- */

/* A leg, a foot (ankle 8 cm up) and a toe (2 cm up, 14 cm ahead) with the given bone axes, the
 * whole turned by yaw about the vertical; a box foot and a box toe on them, slightly off-centre
 * (x from -4 to 5 cm). */
static rk_skeleton *box_foot(const rk_quat axes[3], double yaw, rk_mesh **mesh) {
  const rk_quat turn = rk_quat_from_axis_angle(rk_vec3_make(0, 1, 0), yaw);
  frame_spec spec[3] = {{"leg", -1, {0, 0.5, 0}, axes[0], 0},
                        {"foot", 0, {0, 0.08, 0}, axes[1], 0},
                        {"toe", 1, {0, 0.02, 0.14}, axes[2], 0}};
  for (int j = 0; j < 3; j++)
    spec[j].pos = rk_quat_rotate(turn, spec[j].pos), spec[j].rot = rk_quat_mul(turn, spec[j].rot);
  rk_skeleton *s = skeleton_from_frames(spec, 3);
  mesh_build mb = mesh_build_new();
  add_box(&mb, rk_vec3_make(-0.04, 0, -0.05), rk_vec3_make(0.05, 0.1, 0.14), 1, 3);
  add_box(&mb, rk_vec3_make(-0.04, 0, 0.14), rk_vec3_make(0.05, 0.04, 0.2), 2, 3);
  for (guint i = 0; i < mb.pos->len / 3; i++) {
    float *p = &g_array_index(mb.pos, float, 3 * i);
    const rk_vec3 q = rk_quat_rotate(turn, rk_vec3_make(p[0], p[1], p[2]));
    p[0] = (float)q.x, p[1] = (float)q.y, p[2] = (float)q.z;
  }
  *mesh = mesh_finish(&mb, 3, false, -1);
  return s;
}

/* Models of the box foot's joints when the foot pitches 25 degrees about the ankle and moves,
 * and the toe bends -30 degrees more about its joint: each joint's world turn from rest. */
static void box_foot_pose(const rk_skeleton *s, rk_mat4 models[3], rk_mat4 delta[3]) {
  rk_skeleton_rest_models(s, models);
  const rk_vec3 ankle = rk_mat4_get_translation(&models[1]);
  const rk_vec3 ball = rk_mat4_get_translation(&models[2]);
  const rk_vec3 side = rk_quat_rotate(
      rk_quat_from_to(rk_vec3_make(0, 0, 1),
                      rk_vec3_normalize(rk_vec3_make(ball.x - ankle.x, 0, ball.z - ankle.z))),
      rk_vec3_make(1, 0, 0));
  const rk_quat pitch = rk_quat_from_axis_angle(side, 25 * RK_DEG);
  const rk_quat bend = rk_quat_from_axis_angle(side, -30 * RK_DEG);
  const rk_vec3 move = rk_vec3_make(0.3, 0.1, 0.2);
  /* x -> pitch (x - ankle) + ankle + move */
  const rk_vec3 t1 = rk_vec3_add(rk_vec3_sub(ankle, rk_quat_rotate(pitch, ankle)), move);
  delta[0] = rk_mat4_identity();
  delta[1] = mat_qt(pitch, t1);
  const rk_vec3 ball_now = rk_mat4_transform_point(&delta[1], ball);
  const rk_mat4 bend_m = mat_qt(bend, rk_vec3_sub(ball_now, rk_quat_rotate(bend, ball_now)));
  delta[2] = rk_mat4_mul(&bend_m, &delta[1]);
  for (int j = 0; j < 3; j++)
    models[j] = rk_mat4_mul(&delta[j], &models[j]);
}

Test(skin, box_foot_sole_is_the_same_whatever_the_bone_axes) {
  const rk_quat id = {0, 0, 0, 1};
  /* Identity axes; Blender-like axes (y along the bone) with the toe rolled 90 degrees; random. */
  const rk_vec3 down = rk_vec3_make(0, -1, 0),
                along = rk_vec3_normalize(rk_vec3_make(0, -0.06, 0.14));
  const rk_quat roll = rk_quat_from_axis_angle(rk_vec3_make(0, 0, 1), 90 * RK_DEG);
  const rk_quat variants[3][3] = {
      {id, id, id},
      {rk_quat_from_to(rk_vec3_make(0, 1, 0), down), rk_quat_from_to(rk_vec3_make(0, 1, 0), along),
       rk_quat_mul(rk_quat_from_to(rk_vec3_make(0, 1, 0), rk_vec3_make(0, 0, 1)), roll)},
      {rk_quat_normalize(rk_quat_make(0.3, -0.2, 0.9, 0.1)),
       rk_quat_normalize(rk_quat_make(-0.7, 0.1, 0.2, 0.5)),
       rk_quat_normalize(rk_quat_make(0.2, 0.8, -0.4, -0.3))}};
  for (int yaw = 0; yaw < 2; yaw++) {
    const rk_quat turn = rk_quat_from_axis_angle(rk_vec3_make(0, 1, 0), yaw * 90 * RK_DEG);
    const rk_vec3 forward = rk_quat_rotate(turn, rk_vec3_make(0, 0, 1));
    /* Heel: rear-most bottom; ball: under the toe joint; tip: front-most bottom. Sideways the mean
     * of the box's two sides, 0.5 cm off centre. */
    const rk_vec3 expect[3] = {rk_quat_rotate(turn, rk_vec3_make(0.005, 0, -0.05)),
                               rk_quat_rotate(turn, rk_vec3_make(0.005, 0, 0.14)),
                               rk_quat_rotate(turn, rk_vec3_make(0.005, 0, 0.2))};
    for (int v = 0; v < 3; v++) {
      rk_mesh *mesh;
      g_autoptr(rk_skeleton) s = box_foot(variants[v], yaw * 90 * RK_DEG, &mesh);
      g_autoptr(rk_skin_support) sup = support_or_fail(s, &mesh, 1);
      rk_sole sole;
      g_autoptr(GError) error = NULL;
      cr_assert(rk_sole_from_mesh(sup, 1, 2, forward, &sole, &error), "%s",
                error ? error->message : "");
      cr_assert_eq(sole.source, RK_SOLE_FROM_MESH);
      cr_assert(sole.foot == 1 && sole.toe == 2);
      cr_assert(sole.joint[RK_SOLE_HEEL] == 1 && sole.joint[RK_SOLE_BALL] == 2 &&
                sole.joint[RK_SOLE_TIP] == 2);
      rk_mat4 models[3], delta[3];
      box_foot_pose(s, models, delta);
      rk_vec3 at[RK_SOLE_POINTS];
      rk_sole_at(&sole, models, at);
      for (int k = 0; k < RK_SOLE_POINTS; k++) {
        rk_assert_vec3_near(sole.rest[k], expect[k], 1e-6);
        rk_assert_vec3_near(at[k], rk_mat4_transform_point(&delta[sole.joint[k]], expect[k]), 1e-6);
      }
      rk_mesh_free(mesh);
    }
  }
}

Test(skin, sole_from_bones_sits_under_the_joints) {
  const rk_quat id = {0, 0, 0, 1};
  const frame_spec spec[4] = {{"leg", -1, {0, 0.5, 0}, id, 0},
                              {"foot", 0, {0, 0.08, 0}, id, 0},
                              {"toe", 1, {0, 0.02, 0.14}, id, 0},
                              {"toe_end", 2, {0, 0.02, 0.195}, id, RK_SKELETON_END_SITE}};
  g_autoptr(rk_skeleton) s = skeleton_from_frames(spec, 4);
  const rk_vec3 fwd = rk_vec3_make(0, 0.3, 2); /* only its horizontal part counts */
  rk_sole sole;
  g_autoptr(GError) error = NULL;
  /* The sole a third of the ankle's 6 cm above the toe below the toe: on y = 0. */
  cr_assert(rk_sole_from_bones(s, 1, 2, fwd, &sole, &error), "%s", error ? error->message : "");
  cr_assert_eq(sole.source, RK_SOLE_FROM_BONES);
  rk_assert_vec3_near(sole.rest[RK_SOLE_HEEL], rk_vec3_make(0, 0, 0), 1e-12);
  rk_assert_vec3_near(sole.rest[RK_SOLE_BALL], rk_vec3_make(0, 0, 0.14), 1e-12);
  rk_assert_vec3_near(sole.rest[RK_SOLE_TIP], rk_vec3_make(0, 0, 0.195), 1e-12);
  rk_assert_vec3_near(sole.local[RK_SOLE_TIP], rk_vec3_make(0, -0.02, 0.055), 1e-12);
  /* A toe without children ends 0.4 x 14 cm ahead of it. */
  g_autoptr(rk_skeleton) no_end = skeleton_from_frames(spec, 3);
  cr_assert(rk_sole_from_bones(no_end, 1, 2, fwd, &sole, NULL));
  rk_assert_vec3_near(sole.rest[RK_SOLE_TIP], rk_vec3_make(0, 0, 0.196), 1e-12);
  /* No toe joint: the foot's end joint is the tip, the ball three quarters of the way to it. */
  frame_spec toeless[3] = {spec[0], spec[1], {"foot_end", 1, {0, 0.02, 0.18}, id, 0}};
  g_autoptr(rk_skeleton) flat = skeleton_from_frames(toeless, 3);
  cr_assert(rk_sole_from_bones(flat, 1, -1, fwd, &sole, NULL));
  rk_assert_vec3_near(sole.rest[RK_SOLE_BALL], rk_vec3_make(0, 0, 0.135), 1e-12);
  rk_assert_vec3_near(sole.rest[RK_SOLE_TIP], rk_vec3_make(0, 0, 0.18), 1e-12);
  cr_assert(sole.joint[RK_SOLE_BALL] == 1 && sole.joint[RK_SOLE_TIP] == 1);
  /* Nothing ahead of a toeless foot facing backwards; a toe that is not below the foot; a
   * vertical forward; a foot out of range. */
  cr_assert_not(rk_sole_from_bones(flat, 1, -1, rk_vec3_make(0, 0, -1), &sole, &error));
  cr_assert(g_error_matches(error, RK_ERROR, RK_ERROR_NOT_FOUND) &&
                strstr(error->message, "'foot'"),
            "%s", error->message);
  g_clear_error(&error);
  cr_assert_not(rk_sole_from_bones(s, 2, 1, fwd, &sole, &error));
  cr_assert(g_error_matches(error, RK_ERROR, RK_ERROR_INVALID), "%s", error->message);
  g_clear_error(&error);
  cr_assert_not(rk_sole_from_bones(s, 1, 2, rk_vec3_make(0, 1, 0), &sole, &error));
  cr_assert(g_error_matches(error, RK_ERROR, RK_ERROR_INVALID), "%s", error->message);
  g_clear_error(&error);
  cr_assert_not(rk_sole_from_bones(s, 4, -1, fwd, &sole, &error));
  cr_assert(g_error_matches(error, RK_ERROR, RK_ERROR_INVALID), "%s", error->message);
}

Test(skin, sole_build_takes_the_mesh_when_the_foot_has_one) {
  const rk_quat axes[3] = {{0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}};
  rk_mesh *mesh;
  g_autoptr(rk_skeleton) s = box_foot(axes, 0, &mesh);
  g_autoptr(rk_skin_support) sup = support_or_fail(s, &mesh, 1);
  g_autoptr(rk_skin_support) bare = support_or_fail(s, NULL, 0);
  const rk_vec3 fwd = rk_vec3_make(0, 0, 1);
  rk_sole sole;
  cr_assert(rk_sole_build(sup, NULL, 1, 2, fwd, &sole, NULL));
  cr_assert_eq(sole.source, RK_SOLE_FROM_MESH);
  cr_assert(rk_sole_build(bare, NULL, 1, 2, fwd, &sole, NULL));
  cr_assert_eq(sole.source, RK_SOLE_FROM_BONES);
  cr_assert(rk_sole_build(NULL, s, 1, 2, fwd, &sole, NULL));
  cr_assert_eq(sole.source, RK_SOLE_FROM_BONES);
  /* The mesh's sole without a toe joint: the ball three quarters of the way from heel to tip. */
  cr_assert(rk_sole_from_mesh(sup, 1, -1, fwd, &sole, NULL));
  rk_assert_vec3_near(sole.rest[RK_SOLE_BALL], rk_vec3_make(0.005, 0, 0.1375), 1e-6);
  cr_assert_eq(sole.joint[RK_SOLE_TIP], 1);
  g_autoptr(GError) error = NULL;
  cr_assert_not(rk_sole_from_mesh(bare, 1, 2, fwd, &sole, &error));
  cr_assert(g_error_matches(error, RK_ERROR, RK_ERROR_NOT_FOUND) &&
                strstr(error->message, "'foot'"),
            "%s", error->message);
  rk_mesh_free(mesh);
}
