/* Rigs built in code for the suites and the benchmarks (see rk_rigs.h). */
#include "rk_rigs.h"

#include <math.h>
#include <string.h>

const rk_dh_row rk_rig_iiwa14_rows[7] = {
    {0, -RK_PI / 2, 0.360, 0, RK_DH_REVOLUTE}, {0, RK_PI / 2, 0, 0, RK_DH_REVOLUTE},
    {0, RK_PI / 2, 0.420, 0, RK_DH_REVOLUTE},  {0, -RK_PI / 2, 0, 0, RK_DH_REVOLUTE},
    {0, -RK_PI / 2, 0.400, 0, RK_DH_REVOLUTE}, {0, RK_PI / 2, 0, 0, RK_DH_REVOLUTE},
    {0, 0, 0.126, 0, RK_DH_REVOLUTE}};
const double rk_rig_iiwa14_limit_deg[7] = {170, 120, 170, 120, 170, 120, 175};

rk_skeleton *rk_rig_iiwa14_skeleton(const char *prefix, GError **error) {
  rk_skeleton_builder *b = rk_skeleton_builder_new();
  int prev = -1;
  rk_mat4 local = rk_mat4_identity();
  for (int i = 0; i <= 7; i++) {
    rk_transform t;
    if (!rk_transform_from_mat4(&local, &t)) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "iiwa DH row %d is not a rigid transform", i);
      rk_skeleton_builder_free(b);
      return NULL;
    }
    char name[64];
    if (i < 7)
      g_snprintf(name, sizeof name, "%s%d", prefix, i + 1);
    else
      g_snprintf(name, sizeof name, "flange");
    prev = rk_skeleton_builder_add_joint(b, name, prev, &t, i < 7 ? 0 : RK_SKELETON_END_SITE);
    if (i < 7)
      local = rk_dh_row_transform(RK_DH_STANDARD, &rk_rig_iiwa14_rows[i], 0.0);
  }
  rk_skeleton *s = rk_skeleton_builder_build(b, NULL, error);
  rk_skeleton_builder_free(b);
  return s;
}

rk_tree *rk_rig_iiwa14_tree(GError **error) {
  rk_skeleton *s = rk_rig_iiwa14_skeleton("joint_", error);
  if (!s)
    return NULL;
  char names[7][32];
  rk_joint_spec specs[7];
  memset(specs, 0, sizeof specs);
  for (int i = 0; i < 7; i++) {
    g_snprintf(names[i], sizeof names[i], "joint_%d", i + 1);
    specs[i].name = names[i];
    specs[i].type = RK_JOINT_REVOLUTE;
    specs[i].axis = rk_vec3_make(0, 0, 1);
    specs[i].order = RK_EULER_N_ORDERS;
    specs[i].has_limits = true;
    specs[i].lower[0] = -rk_rig_iiwa14_limit_deg[i] * RK_DEG;
    specs[i].upper[0] = rk_rig_iiwa14_limit_deg[i] * RK_DEG;
  }
  rk_tree_options o = RK_TREE_OPTIONS_INIT;
  o.root_type = RK_JOINT_REVOLUTE;
  o.joints = specs;
  o.joint_count = 7;
  rk_tree *t = rk_tree_from_skeleton(s, NULL, &o, error);
  rk_skeleton_unref(s);
  return t;
}

static int add(rk_skeleton_builder *b, const char *name, int parent, double x, double y, double z,
               unsigned flags) {
  rk_transform t = rk_transform_identity();
  t.t = rk_vec3_make(x, y, z);
  return rk_skeleton_builder_add_joint(b, name, parent, &t, flags);
}

rk_skeleton *rk_rig_humanoid_skeleton(GError **error) {
  rk_skeleton_builder *b = rk_skeleton_builder_new();
  int hips = add(b, "Hips", -1, 0, 0.95, 0, 0);
  int spine = add(b, "Spine", hips, 0, 0.1, 0, 0);
  int chest = add(b, "Chest", spine, 0, 0.25, 0, 0);
  int neck = add(b, "Neck", chest, 0, 0.2, 0, 0);
  add(b, "Head", neck, 0, 0.1, 0, 0);
  char n[32];
  for (int side = 0; side < 2; side++) {
    const double sx = side == 0 ? 1 : -1;
    const char *S = side == 0 ? "L" : "R";
    g_snprintf(n, sizeof n, "Clavicle_%s", S);
    int cl = add(b, n, chest, sx * 0.05, 0.15, 0, 0);
    g_snprintf(n, sizeof n, "UpArm_%s", S);
    int ua = add(b, n, cl, sx * 0.15, 0, 0, 0);
    g_snprintf(n, sizeof n, "LoArm_%s", S);
    int la = add(b, n, ua, sx * 0.28, 0, 0, 0);
    g_snprintf(n, sizeof n, "Hand_%s", S);
    int ha = add(b, n, la, sx * 0.25, 0, 0.02, 0);
    g_snprintf(n, sizeof n, "Hand_%s_end", S);
    add(b, n, ha, sx * 0.08, 0, 0, RK_SKELETON_END_SITE);
  }
  for (int side = 0; side < 2; side++) {
    const double sx = side == 0 ? 1 : -1;
    const char *S = side == 0 ? "L" : "R";
    g_snprintf(n, sizeof n, "UpLeg_%s", S);
    int ul = add(b, n, hips, sx * 0.1, -0.05, 0, 0);
    g_snprintf(n, sizeof n, "LoLeg_%s", S);
    int ll = add(b, n, ul, 0, -0.43, 0.02, 0);
    g_snprintf(n, sizeof n, "Foot_%s", S);
    int ft = add(b, n, ll, 0, -0.42, -0.02, 0);
    g_snprintf(n, sizeof n, "Toe_%s", S);
    int to = add(b, n, ft, 0, -0.05, 0.12, 0);
    g_snprintf(n, sizeof n, "Toe_%s_end", S);
    add(b, n, to, 0, 0, 0.05, RK_SKELETON_END_SITE);
  }
  rk_skeleton *s = rk_skeleton_builder_build(b, NULL, error);
  rk_skeleton_builder_free(b);
  return s;
}

rk_tree *rk_rig_humanoid_tree(GError **error) {
  rk_skeleton *s = rk_rig_humanoid_skeleton(error);
  if (!s)
    return NULL;
  rk_joint_spec specs[4];
  memset(specs, 0, sizeof specs);
  const char *names[4] = {"LoLeg_L", "LoLeg_R", "LoArm_L", "LoArm_R"};
  const rk_vec3 axes[4] = {{1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}};
  for (int i = 0; i < 4; i++) {
    specs[i].name = names[i];
    specs[i].type = RK_JOINT_REVOLUTE;
    specs[i].axis = axes[i];
    specs[i].order = RK_EULER_N_ORDERS;
    specs[i].has_limits = true;
    specs[i].lower[0] = 0.0;
    specs[i].upper[0] = 2.5;
  }
  rk_tree_options o = RK_TREE_OPTIONS_INIT;
  o.joints = specs;
  o.joint_count = 4;
  rk_tree *t = rk_tree_from_skeleton(s, NULL, &o, error);
  rk_skeleton_unref(s);
  return t;
}

rk_skeleton *rk_rig_cmu_skeleton(GError **error) {
  static const struct {
    const char *name;
    int parent;
    double t[3];
  } j[] = {
      {"hip", -1, {0, 0.95, 0}},          {"lhipjoint", 0, {0, 0, 0}},
      {"lfemur", 1, {0.09, -0.08, 0.02}}, {"ltibia", 2, {0.0, -0.41, 0}},
      {"lfoot", 3, {0, -0.42, 0}},        {"ltoes", 4, {0, -0.04, 0.13}},
      {"rhipjoint", 0, {0, 0, 0}},        {"rfemur", 6, {-0.09, -0.08, 0.02}},
      {"rtibia", 7, {0, -0.41, 0}},       {"rfoot", 8, {0, -0.42, 0}},
      {"rtoes", 9, {0, -0.04, 0.13}},     {"lowerback", 0, {0, 0.02, -0.01}},
      {"upperback", 11, {0, 0.12, 0}},    {"thorax", 12, {0, 0.12, 0.01}},
      {"lowerneck", 13, {0, 0.12, -0.02}}, {"upperneck", 14, {0, 0.08, 0.01}},
      {"head", 15, {0, 0.08, 0.01}},      {"lclavicle", 13, {0.02, 0.1, 0}},
      {"lhumerus", 17, {0.15, 0.02, 0}},  {"lradius", 18, {0.28, 0, 0}},
      {"lwrist", 19, {0.24, 0, 0}},       {"lhand", 20, {0.04, 0, 0}},
      {"lfingers", 21, {0.06, 0, 0}},     {"lthumb", 20, {0.03, 0, 0.03}},
      {"rclavicle", 13, {-0.02, 0.1, 0}}, {"rhumerus", 24, {-0.15, 0.02, 0}},
      {"rradius", 25, {-0.28, 0, 0}},     {"rwrist", 26, {-0.24, 0, 0}},
      {"rhand", 27, {-0.04, 0, 0}},       {"rfingers", 28, {-0.06, 0, 0}},
      {"rthumb", 27, {-0.03, 0, 0.03}},
  };
  rk_skeleton_builder *b = rk_skeleton_builder_new();
  for (size_t i = 0; i < G_N_ELEMENTS(j); i++) {
    rk_transform x = rk_transform_identity();
    x.t = rk_vec3_make(j[i].t[0], j[i].t[1], j[i].t[2]);
    rk_skeleton_builder_add_joint(b, j[i].name, j[i].parent, &x, 0);
  }
  rk_skeleton *s = rk_skeleton_builder_build(b, NULL, error);
  rk_skeleton_builder_free(b);
  return s;
}

const rk_rig_kdl_joint rk_rig_kdl_humanoid[RK_RIG_KDL_JOINTS] = {
    {"waist_yaw", "pelvis", 0, 0, 0.10, 2, 1.0},          {"waist_pitch", "waist_yaw", 0, 0, 0.05, 1, 1.0},
    {"waist_roll", "waist_pitch", 0, 0, 0.05, 0, 0.6},    {"neck_yaw", "waist_roll", 0, 0, 0.35, 2, 1.2},
    {"neck_pitch", "neck_yaw", 0, 0, 0.05, 1, 0.8},       {"head", "neck_pitch", 0, 0, 0.12, -1, 0},
    {"l_sho_pitch", "waist_roll", 0, 0.20, 0.30, 1, 2.5}, {"l_sho_roll", "l_sho_pitch", 0, 0.03, 0, 0, 1.5},
    {"l_sho_yaw", "l_sho_roll", 0, 0, -0.12, 2, 1.5},     {"l_elbow", "l_sho_yaw", 0, 0, -0.16, 1, 2.2},
    {"l_hand", "l_elbow", 0, 0, -0.26, -1, 0},            {"r_sho_pitch", "waist_roll", 0, -0.20, 0.30, 1, 2.5},
    {"r_sho_roll", "r_sho_pitch", 0, -0.03, 0, 0, 1.5},   {"r_sho_yaw", "r_sho_roll", 0, 0, -0.12, 2, 1.5},
    {"r_elbow", "r_sho_yaw", 0, 0, -0.16, 1, 2.2},        {"r_hand", "r_elbow", 0, 0, -0.26, -1, 0},
    {"l_hip_yaw", "pelvis", 0, 0.10, -0.05, 2, 0.8},      {"l_hip_roll", "l_hip_yaw", 0, 0, -0.03, 0, 0.6},
    {"l_hip_pitch", "l_hip_roll", 0, 0, 0, 1, 1.8},       {"l_knee", "l_hip_pitch", 0, 0, -0.42, 1, 2.2},
    {"l_ankle_pitch", "l_knee", 0, 0, -0.40, 1, 0.9},     {"l_ankle_roll", "l_ankle_pitch", 0, 0, 0, 0, 0.4},
    {"l_foot", "l_ankle_roll", 0.04, 0, -0.06, -1, 0},    {"r_hip_yaw", "pelvis", 0, -0.10, -0.05, 2, 0.8},
    {"r_hip_roll", "r_hip_yaw", 0, 0, -0.03, 0, 0.6},     {"r_hip_pitch", "r_hip_roll", 0, 0, 0, 1, 1.8},
    {"r_knee", "r_hip_pitch", 0, 0, -0.42, 1, 2.2},       {"r_ankle_pitch", "r_knee", 0, 0, -0.40, 1, 0.9},
    {"r_ankle_roll", "r_ankle_pitch", 0, 0, 0, 0, 0.4},   {"r_foot", "r_ankle_roll", 0.04, 0, -0.06, -1, 0},
};

rk_skeleton *rk_rig_kdl_humanoid_skeleton(GError **error) {
  rk_skeleton_builder *b = rk_skeleton_builder_new();
  rk_skeleton_builder_add_joint(b, "pelvis", -1, NULL, 0);
  for (int k = 0; k < RK_RIG_KDL_JOINTS; k++) {
    const rk_rig_kdl_joint *h = &rk_rig_kdl_humanoid[k];
    int parent = 0;
    for (int m = 0; m < k; m++)
      if (strcmp(rk_rig_kdl_humanoid[m].name, h->parent) == 0)
        parent = m + 1;
    add(b, h->name, parent, h->ox, h->oy, h->oz, h->axis < 0 ? RK_SKELETON_END_SITE : 0);
  }
  rk_skeleton *s = rk_skeleton_builder_build(b, NULL, error);
  rk_skeleton_builder_free(b);
  return s;
}

double rk_rig_kdl_clip_angle(int joint, double t) {
  const double lim = joint == 0 ? 1.2 : rk_rig_kdl_humanoid[joint - 1].lim;
  const double f = 0.5 + 0.05 * (joint % 7);
  return 0.5 * lim * sin(2 * RK_PI * f * t + 0.37 * joint);
}

rk_clip *rk_rig_kdl_humanoid_clip(double seconds, double fps, GError **error) {
  const size_t keys = (size_t)llround(seconds * fps) + 1;
  rk_clip *clip = rk_clip_new("kdl_humanoid_playback", RK_RIG_KDL_JOINTS + 1);
  rk_clip_set_fps(clip, fps);
  g_autofree double *times = g_new(double, keys);
  g_autofree double *values = g_new(double, keys * 4);
  for (size_t k = 0; k < keys; k++)
    times[k] = (double)k / fps;
  for (int j = 0; j <= RK_RIG_KDL_JOINTS; j++) {
    const int axis = j == 0 ? 2 : rk_rig_kdl_humanoid[j - 1].axis;
    if (axis < 0)
      continue;
    for (size_t k = 0; k < keys; k++) {
      double *q = values + 4 * k;
      const double a = rk_rig_kdl_clip_angle(j, times[k]);
      q[0] = q[1] = q[2] = 0.0;
      q[axis] = sin(0.5 * a);
      q[3] = cos(0.5 * a);
    }
    const rk_track r = {j, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, keys, times, values};
    if (!rk_clip_add_track(clip, &r, error)) {
      rk_clip_free(clip);
      return NULL;
    }
  }
  for (size_t k = 0; k < keys; k++) {
    const double t = times[k];
    values[3 * k] = 0.3 * sin(0.5 * t);
    values[3 * k + 1] = 0.1 * sin(t);
    values[3 * k + 2] = 0.9 + 0.02 * sin(4 * RK_PI * t);
  }
  const rk_track tr = {0, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, keys, times, values};
  if (!rk_clip_add_track(clip, &tr, error)) {
    rk_clip_free(clip);
    return NULL;
  }
  return clip;
}

bool rk_test_write_looped_bvh(const char *src, const char *dst, size_t frames) {
  g_autofree char *text = NULL;
  if (!g_file_get_contents(src, &text, NULL, NULL))
    return false;
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  g_autoptr(GString) out = g_string_new(NULL);
  size_t i = 0;
  for (; lines[i] && !g_str_has_prefix(lines[i] + strspn(lines[i], " \t"), "Frames:"); i++)
    g_string_append_printf(out, "%s\n", lines[i]);
  if (!lines[i] || !lines[i + 1])
    return false;
  g_autoptr(GPtrArray) motion = g_ptr_array_new();
  for (size_t k = i + 2; lines[k]; k++)
    if (*g_strstrip(lines[k]))
      g_ptr_array_add(motion, lines[k]);
  if (motion->len == 0)
    return false;
  g_string_append_printf(out, "Frames: %zu\n%s\n", frames, lines[i + 1]);
  for (size_t f = 0; f < frames; f++)
    g_string_append_printf(out, "%s\n", (char *)g_ptr_array_index(motion, f % motion->len));
  return g_file_set_contents(dst, out->str, (gssize)out->len, NULL);
}
