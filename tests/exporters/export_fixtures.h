/* Assets built in code for the exporter tests, and helpers to compare poses, read files and run
 * the glTF validator. Header-only (static inline) so each test_*.c includes what it uses. */
#ifndef RK_EXPORT_FIXTURES_H
#define RK_EXPORT_FIXTURES_H

#include "rk_test.h"

#include <glib/gstdio.h>
#include <rigkit/exporters.h>
#include <string.h>
#include <sys/wait.h>

/* A humanoid of 24 joints, in metres, with rest rotations on most joints (as glTF and FBX rigs
 * have them) when `rotated`, and End Sites named the way rigkit's BVH reader names them
 * ("<parent>_End") plus one end joint with another name ("head_top"). */
static inline rk_skeleton *fixture_humanoid(bool rotated) {
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  struct {
    const char *name;
    const char *parent;
    double t[3];
    unsigned flags;
  } joints[] = {
      {"Hips", NULL, {0, 0.95, 0}, 0},
      {"Spine", "Hips", {0, 0.1, 0.01}, 0},
      {"Chest", "Spine", {0, 0.15, 0}, 0},
      {"Neck", "Chest", {0, 0.2, -0.01}, 0},
      {"Head", "Neck", {0, 0.1, 0.02}, 0},
      {"Head_End", "Head", {0, 0.18, 0}, RK_SKELETON_END_SITE},
      {"head_top", "Head", {0, 0.2, 0.05}, RK_SKELETON_END_SITE},
      {"LeftShoulder", "Chest", {0.05, 0.15, 0}, 0},
      {"LeftArm", "LeftShoulder", {0.12, 0, 0}, 0},
      {"LeftForeArm", "LeftArm", {0.28, 0, 0}, 0},
      {"LeftHand", "LeftForeArm", {0.25, 0, 0}, 0},
      {"LeftHand_End", "LeftHand", {0.1, 0, 0}, RK_SKELETON_END_SITE},
      {"RightShoulder", "Chest", {-0.05, 0.15, 0}, 0},
      {"RightArm", "RightShoulder", {-0.12, 0, 0}, 0},
      {"RightForeArm", "RightArm", {-0.28, 0, 0}, 0},
      {"RightHand", "RightForeArm", {-0.25, 0, 0}, 0},
      {"LeftUpLeg", "Hips", {0.09, -0.05, 0}, 0},
      {"LeftLeg", "LeftUpLeg", {0, -0.42, 0}, 0},
      {"LeftFoot", "LeftLeg", {0, -0.42, 0}, 0},
      {"LeftToe", "LeftFoot", {0, -0.05, 0.12}, 0},
      {"RightUpLeg", "Hips", {-0.09, -0.05, 0}, 0},
      {"RightLeg", "RightUpLeg", {0, -0.42, 0}, 0},
      {"RightFoot", "RightLeg", {0, -0.42, 0}, 0},
      {"RightToe", "RightFoot", {0, -0.05, 0.12}, 0},
  };
  guint64 seed = 7;
  for (size_t i = 0; i < G_N_ELEMENTS(joints); i++) {
    rk_transform x = rk_transform_identity();
    x.t = rk_vec3_make(joints[i].t[0], joints[i].t[1], joints[i].t[2]);
    if (rotated && i > 0) {
      /* Rest rotations bend the rest pose: any rest pose is a valid skeleton, and these are
       * the joint orients that BVH cannot store and the writer must bake into the channels. */
      rk_vec3 axis = rk_vec3_make(rk_test_uniform(&seed, -1, 1), rk_test_uniform(&seed, -1, 1),
                                  rk_test_uniform(&seed, -1, 1));
      x.r = rk_quat_from_axis_angle(axis, rk_test_uniform(&seed, -1.2, 1.2));
    }
    int parent = -1;
    if (joints[i].parent)
      for (size_t k = 0; k < i; k++)
        if (strcmp(joints[k].name, joints[i].parent) == 0)
          parent = (int)k;
    rk_skeleton_builder_add_joint(b, joints[i].name, parent, &x, joints[i].flags);
  }
  return rk_skeleton_builder_build(b, NULL, NULL);
}

/* A clip of `frames` frames at fps: root translation and rotation, every non-end joint rotating
 * about its rest rotation with smooth curves (LINEAR keys every frame). */
static inline rk_clip *fixture_walk(const rk_skeleton *s, const char *name, size_t frames,
                                    double fps) {
  const size_t n = rk_skeleton_joint_count(s);
  rk_clip *c = rk_clip_new(name, n);
  rk_clip_set_fps(c, fps);
  g_autofree double *times = g_new(double, frames);
  g_autofree double *v = g_new(double, 4 * frames);
  for (size_t f = 0; f < frames; f++)
    times[f] = (double)f / fps;
  for (size_t f = 0; f < frames; f++) {
    const double t = times[f];
    v[3 * f] = 0.3 * t;
    v[3 * f + 1] = 0.95 + 0.03 * sin(2 * RK_PI * 1.7 * t);
    v[3 * f + 2] = 1.1 * t;
  }
  rk_track tt = {0, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, frames, times, v};
  cr_assert(rk_clip_add_track(c, &tt, NULL));
  for (size_t j = 0; j < n; j++) {
    if (rk_skeleton_joint_flags(s, j) & RK_SKELETON_END_SITE)
      continue;
    const rk_quat r0 = rk_skeleton_rest(s, j)->r;
    const double ph = 0.37 * (double)j, amp = j == 0 ? 0.3 : 0.5;
    for (size_t f = 0; f < frames; f++) {
      const double t = times[f];
      rk_vec3 axis = rk_vec3_make(sin(ph + t), cos(0.7 * ph + 2 * t), 0.5 + 0.4 * sin(3 * t));
      rk_quat q = rk_quat_mul(r0, rk_quat_from_axis_angle(axis, amp * sin(2 * RK_PI * t + ph)));
      v[4 * f] = q.x, v[4 * f + 1] = q.y, v[4 * f + 2] = q.z, v[4 * f + 3] = q.w;
    }
    rk_track rt = {(int)j, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, frames, times, v};
    cr_assert(rk_clip_add_track(c, &rt, NULL));
  }
  return c;
}

/* A short clip with STEP, LINEAR and CUBICSPLINE tracks on a few joints, lasting longer than its
 * last key. */
static inline rk_clip *fixture_mixed(const rk_skeleton *s) {
  rk_clip *c = rk_clip_new("mixed", rk_skeleton_joint_count(s));
  const double t3[3] = {0, 0.5, 1.0};
  const rk_quat r = rk_skeleton_rest(s, 8)->r;
  rk_quat q1 = rk_quat_mul(r, rk_quat_from_axis_angle(rk_vec3_make(0, 0, 1), 0.8));
  rk_quat q2 = rk_quat_mul(r, rk_quat_from_axis_angle(rk_vec3_make(0, 1, 0), -0.6));
  const double step[12] = {r.x, r.y, r.z, r.w, q1.x, q1.y, q1.z, q1.w, q2.x, q2.y, q2.z, q2.w};
  rk_track st = {8, RK_CHANNEL_ROTATION, RK_INTERP_STEP, 3, t3, step};
  cr_assert(rk_clip_add_track(c, &st, NULL));
  const double t2[2] = {0.25, 1.25};
  /* cubic translation of the hips: (in, value, out) per key */
  const double cub[18] = {0, 0, 0, 0, 0.95, 0, 0.2, 0.1, 0.5, /* key 0 */
                          0.1, -0.2, 0.3, 0.4, 1.0, 0.6, 0, 0, 0 /* key 1 */};
  rk_track ct = {0, RK_CHANNEL_TRANSLATION, RK_INTERP_CUBIC, 2, t2, cub};
  cr_assert(rk_clip_add_track(c, &ct, NULL));
  const rk_quat h = rk_skeleton_rest(s, 4)->r;
  rk_quat h1 = rk_quat_mul(h, rk_quat_from_axis_angle(rk_vec3_make(1, 0, 0), 0.5));
  const double cubr[24] = {0, 0, 0, 0, h.x, h.y, h.z, h.w, 0.1, 0, 0, 0,
                           0, 0.1, 0, 0, h1.x, h1.y, h1.z, h1.w, 0, 0, 0, 0};
  rk_track cr = {4, RK_CHANNEL_ROTATION, RK_INTERP_CUBIC, 2, t2, cubr};
  cr_assert(rk_clip_add_track(c, &cr, NULL));
  const double sc[6] = {1, 1, 1, 1.2, 0.9, 1.1};
  rk_track sct = {2, RK_CHANNEL_SCALE, RK_INTERP_LINEAR, 2, t2, sc};
  cr_assert(rk_clip_add_track(c, &sct, NULL));
  rk_clip_set_duration(c, 1.5);
  return c;
}

/* A skinned box around the spine and left arm (weights over up to 4 joints, one vertex with a
 * duplicated joint), a rigid mesh on the head and a static ground quad. */
static inline void fixture_add_meshes(rk_asset *a) {
  const rk_skeleton *s = rk_asset_skeleton(a);
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_mat4 *m = g_new(rk_mat4, n);
  rk_skeleton_rest_models(s, m);
  const int spine = rk_skeleton_find_joint(s, "Spine"), chest = rk_skeleton_find_joint(s, "Chest"),
            arm = rk_skeleton_find_joint(s, "LeftArm"), fore = rk_skeleton_find_joint(s, "LeftForeArm");
  rk_vec3 c0 = rk_mat4_get_translation(&m[spine]);
  float pos[8 * 3], nrm[8 * 3], uv[8 * 2], w[8 * 4];
  uint16_t jt[8 * 4];
  for (int v = 0; v < 8; v++) {
    rk_vec3 d = rk_vec3_make(v & 1 ? 0.15 : -0.15, v & 2 ? 0.4 : -0.05, v & 4 ? 0.1 : -0.1);
    pos[3 * v] = (float)(c0.x + d.x), pos[3 * v + 1] = (float)(c0.y + d.y),
    pos[3 * v + 2] = (float)(c0.z + d.z);
    rk_vec3 nn = rk_vec3_normalize(d);
    nrm[3 * v] = (float)nn.x, nrm[3 * v + 1] = (float)nn.y, nrm[3 * v + 2] = (float)nn.z;
    uv[2 * v] = (float)(v & 1), uv[2 * v + 1] = (float)((v >> 1) & 1);
    const uint16_t js[4] = {(uint16_t)spine, (uint16_t)chest, (uint16_t)arm, (uint16_t)fore};
    const float ws[4] = {0.4f, 0.3f, 0.2f, 0.1f};
    for (int k = 0; k < 4; k++) {
      jt[4 * v + k] = js[(k + v) % 4];
      w[4 * v + k] = ws[k] * (v == 3 ? 3.0f : 1.0f); /* not normalised on input */
    }
  }
  jt[4 * 5 + 1] = jt[4 * 5 + 0]; /* a duplicated joint: the writer merges it */
  static const uint32_t box[36] = {0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1,
                                   2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3};
  rk_mesh_data d = {0};
  d.name = "body";
  d.vertex_count = 8;
  d.positions = pos;
  d.normals = nrm;
  d.texcoords = uv;
  d.index_count = 36;
  d.indices = box;
  d.joints = jt;
  d.weights = w;
  d.attach_joint = -1;
  d.material = (rk_material){"skin", {0.8f, 0.6f, 0.5f, 1.0f}, 0.0f, 0.7f, false, NULL};
  rk_mesh *mesh = rk_mesh_new(&d, n, NULL);
  cr_assert_not_null(mesh);
  rk_asset_add_mesh(a, mesh);

  /* rigid hat on the head (positions in model space) */
  const int head = rk_skeleton_find_joint(s, "Head");
  rk_vec3 h = rk_mat4_get_translation(&m[head]);
  float hat[9] = {(float)h.x - 0.1f, (float)h.y + 0.2f, (float)h.z, (float)h.x + 0.1f,
                  (float)h.y + 0.2f, (float)h.z, (float)h.x, (float)h.y + 0.35f, (float)h.z};
  rk_mesh_data hd = {0};
  hd.name = "hat";
  hd.vertex_count = 3;
  hd.positions = hat;
  hd.attach_joint = head;
  hd.material = (rk_material){NULL, {0.1f, 0.1f, 0.9f, 0.5f}, 0.2f, 0.4f, true, NULL};
  mesh = rk_mesh_new(&hd, n, NULL);
  cr_assert_not_null(mesh);
  rk_asset_add_mesh(a, mesh);

  static const float ground[12] = {-1, 0, -1, 1, 0, -1, 1, 0, 1, -1, 0, 1};
  static const uint32_t quad[6] = {0, 2, 1, 0, 3, 2};
  rk_mesh_data gd = {0};
  gd.name = "Hips"; /* same name as a joint: node names must still be unique */
  gd.vertex_count = 4;
  gd.positions = ground;
  gd.index_count = 6;
  gd.indices = quad;
  gd.attach_joint = -1;
  mesh = rk_mesh_new(&gd, n, NULL);
  cr_assert_not_null(mesh);
  rk_asset_add_mesh(a, mesh);
}

/* The full test character: rotated humanoid, clips "walk" (frames at 30 fps) and "mixed", meshes. */
static inline rk_asset *fixture_character(size_t frames) {
  g_autoptr(rk_skeleton) s = fixture_humanoid(true);
  rk_asset *a = rk_asset_new(s);
  cr_assert(rk_asset_add_clip(a, fixture_walk(s, "walk", frames, 30)));
  cr_assert(rk_asset_add_clip(a, fixture_mixed(s)));
  fixture_add_meshes(a);
  return a;
}

/* A fresh temporary directory for one test (removed by fixture_rmdir). */
static inline char *fixture_tmpdir(void) {
  g_autoptr(GError) e = NULL;
  char *d = g_dir_make_tmp("rk-export-XXXXXX", &e);
  cr_assert_not_null(d, "%s", e ? e->message : "");
  return d;
}

static inline void fixture_rmdir(const char *dir) {
  GDir *d = g_dir_open(dir, 0, NULL);
  if (d) {
    const char *name;
    while ((name = g_dir_read_name(d))) {
      g_autofree char *p = g_build_filename(dir, name, NULL);
      g_unlink(p);
    }
    g_dir_close(d);
  }
  g_rmdir(dir);
}

static inline size_t fixture_dir_count(const char *dir) {
  size_t k = 0;
  GDir *d = g_dir_open(dir, 0, NULL);
  if (d) {
    while (g_dir_read_name(d))
      k++;
    g_dir_close(d);
  }
  return k;
}

/* World positions of every joint at time t (positions[joint_count]). */
static inline void fixture_world_positions(const rk_skeleton *s, const rk_clip *clip, double t,
                                           rk_vec3 *positions) {
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_transform *loc = g_new(rk_transform, n);
  g_autofree rk_mat4 *m = g_new(rk_mat4, n);
  if (clip)
    cr_assert(rk_clip_sample(clip, rk_skeleton_rest_locals(s), t, loc, n));
  else
    memcpy(loc, rk_skeleton_rest_locals(s), n * sizeof *loc);
  rk_fk_models(s, loc, m);
  for (size_t j = 0; j < n; j++)
    positions[j] = rk_mat4_get_translation(&m[j]);
}

/* The length round-trip errors are measured against: the skeleton's height, or for a skeleton
 * with no vertical extent (SimpleSkin's two joints sit on one point) its largest extent along
 * another axis or its largest distance from the origin. */
static inline double fixture_reference_length(const rk_skeleton *s) {
  const double h = rk_skeleton_rest_height(s);
  if (h > 0)
    return h;
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_mat4 *m = g_new(rk_mat4, n);
  rk_skeleton_rest_models(s, m);
  rk_vec3 lo = rk_mat4_get_translation(&m[0]), hi = lo;
  double far = 0;
  for (size_t j = 0; j < n; j++) {
    rk_vec3 p = rk_mat4_get_translation(&m[j]);
    lo = rk_vec3_make(fmin(lo.x, p.x), fmin(lo.y, p.y), fmin(lo.z, p.z));
    hi = rk_vec3_make(fmax(hi.x, p.x), fmax(hi.y, p.y), fmax(hi.z, p.z));
    far = fmax(far, rk_vec3_norm(p));
  }
  return fmax(fmax(hi.x - lo.x, hi.z - lo.z), far);
}

/* Runs the Khronos validator on files (NULL-terminated); returns its exit status (0 = no
 * errors) with its output in *output, or skips the test when node/npm are missing. */
static inline int fixture_validate(const char *const *files, char **output) {
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_autofree char *script = g_build_filename(RK_SOURCE_DIR, "tests", "gltf_validator", "run.sh", NULL);
  g_ptr_array_add(argv, "sh");
  g_ptr_array_add(argv, script);
  for (size_t i = 0; files[i]; i++)
    g_ptr_array_add(argv, (gpointer)files[i]);
  g_ptr_array_add(argv, NULL);
  int status = 0;
  g_autofree char *err = NULL;
  g_autoptr(GError) e = NULL;
  cr_assert(g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, output,
                         &err, &status, &e),
            "cannot run the validator: %s", e ? e->message : "");
  if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
    cr_skip("glTF validator not available: %s", err);
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) <= 1, "validator failed to run:\n%s\n%s",
            *output, err);
  return WEXITSTATUS(status);
}

#endif
