/* A parametric humanoid rig built in code for the humanoid-mapping and retargeting suites:
 * 29 joints in slots (root, hips, spine, chest, neck, head, clavicles, arms, hands with two finger
 * tips, legs with ankles, toes and toe tips), facing +Z (left = +X) before a yaw, in metres.
 * Header-only (static functions). */
#ifndef RK_RIG_FIXTURE_H
#define RK_RIG_FIXTURE_H

#include "rk_test.h"

#include <stdio.h>
#include <string.h>

enum {
  T_ROOT, T_HIPS, T_SPINE, T_CHEST, T_NECK, T_HEAD, T_HEAD_END,
  T_LCLAV, T_LUPARM, T_LFOREARM, T_LHAND, T_LFINGER1, T_LFINGER2,
  T_RCLAV, T_RUPARM, T_RFOREARM, T_RHAND, T_RFINGER1, T_RFINGER2,
  T_LUPLEG, T_LKNEE, T_LANKLE, T_LTOE, T_LTOE_END,
  T_RUPLEG, T_RKNEE, T_RANKLE, T_RTOE, T_RTOE_END, T_COUNT
};

/** Proportions and pose of a rig (the defaults give the template: a 1.6 m T-pose). */
typedef struct fx_rig_params {
  double thigh, shin;   /* bone lengths (0.42, 0.42) */
  double upper_arm;     /* 0.28 */
  double arm_down_deg;  /* 0 = T-pose, 45 = A-pose (arms lowered in the rest pose) */
  double yaw;           /* facing: rotation of the whole rig about +Y (radians) */
  bool right_first;     /* add the right limbs to the builder first */
} fx_rig_params;

#define FX_RIG_PARAMS_INIT {0.42, 0.42, 0.28, 0.0, 0.0, false}

static inline rk_skeleton *fx_rig(const fx_rig_params *p, const char *const names[T_COUNT]) {
  const double hip_y = 0.11 + p->thigh + p->shin; /* toe tips on y = 0.01 */
  const double ca = cos(p->arm_down_deg * RK_DEG), sa = sin(p->arm_down_deg * RK_DEG);
  const struct {
    int parent;
    double x, y, z;
  } t[T_COUNT] = {
      [T_ROOT] = {-1, 0, 0, 0},          [T_HIPS] = {T_ROOT, 0, hip_y, 0},
      [T_SPINE] = {T_HIPS, 0, 0.1, 0},    [T_CHEST] = {T_SPINE, 0, 0.25, 0},
      [T_NECK] = {T_CHEST, 0, 0.2, 0},    [T_HEAD] = {T_NECK, 0, 0.1, 0.02},
      [T_HEAD_END] = {T_HEAD, 0, 0.18, 0}, [T_LCLAV] = {T_CHEST, 0.03, 0.15, 0},
      [T_LUPARM] = {T_LCLAV, 0.15, 0, 0}, [T_LFOREARM] = {T_LUPARM, p->upper_arm * ca, -p->upper_arm * sa, 0},
      [T_LHAND] = {T_LFOREARM, 0.25 * ca, -0.25 * sa, 0}, [T_LFINGER1] = {T_LHAND, 0.08 * ca, -0.08 * sa, 0.02},
      [T_LFINGER2] = {T_LHAND, 0.07 * ca, -0.07 * sa, -0.02}, [T_RCLAV] = {T_CHEST, -0.03, 0.15, 0},
      [T_RUPARM] = {T_RCLAV, -0.15, 0, 0}, [T_RFOREARM] = {T_RUPARM, -p->upper_arm * ca, -p->upper_arm * sa, 0},
      [T_RHAND] = {T_RFOREARM, -0.25 * ca, -0.25 * sa, 0}, [T_RFINGER1] = {T_RHAND, -0.08 * ca, -0.08 * sa, 0.02},
      [T_RFINGER2] = {T_RHAND, -0.07 * ca, -0.07 * sa, -0.02}, [T_LUPLEG] = {T_HIPS, 0.09, -0.05, 0},
      [T_LKNEE] = {T_LUPLEG, 0, -p->thigh, 0}, [T_LANKLE] = {T_LKNEE, 0, -p->shin, -0.02},
      [T_LTOE] = {T_LANKLE, 0, -0.05, 0.12}, [T_LTOE_END] = {T_LTOE, 0, 0, 0.05},
      [T_RUPLEG] = {T_HIPS, -0.09, -0.05, 0}, [T_RKNEE] = {T_RUPLEG, 0, -p->thigh, 0},
      [T_RANKLE] = {T_RKNEE, 0, -p->shin, -0.02}, [T_RTOE] = {T_RANKLE, 0, -0.05, 0.12},
      [T_RTOE_END] = {T_RTOE, 0, 0, 0.05},
  };
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  int order[T_COUNT], k = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < T_COUNT; i++) {
      bool right = (i >= T_RCLAV && i <= T_RFINGER2) || i >= T_RUPLEG;
      if (p->right_first ? (pass == 0) == right : pass == 0)
        order[k++] = i;
    }
  int builder_index[T_COUNT];
  for (int n = 0; n < T_COUNT; n++)
    builder_index[order[n]] = n;
  for (int n = 0; n < T_COUNT; n++) {
    int i = order[n];
    rk_transform x = rk_transform_identity();
    x.t = rk_vec3_make(t[i].x, t[i].y, t[i].z);
    if (i == T_ROOT)
      x.r = rk_quat_from_axis_angle(rk_vec3_make(0, 1, 0), p->yaw);
    char fallback[16];
    snprintf(fallback, sizeof fallback, "j%d", i);
    unsigned flags = (i == T_HEAD_END || i == T_LTOE_END || i == T_RTOE_END || i == T_LFINGER1 ||
                      i == T_LFINGER2 || i == T_RFINGER1 || i == T_RFINGER2)
                         ? RK_SKELETON_END_SITE
                         : 0;
    rk_skeleton_builder_add_joint(b, names && names[i] ? names[i] : fallback,
                                  t[i].parent < 0 ? -1 : builder_index[t[i].parent], &x, flags);
  }
  g_autoptr(GError) error = NULL;
  rk_skeleton *s = rk_skeleton_builder_build(b, NULL, &error);
  cr_assert(s, "%s", error ? error->message : "");
  return s;
}

/** The template with names (NULL entries get "j<slot>"), turned by yaw, right limbs first. */
static inline rk_skeleton *make_rig(const char *const names[T_COUNT], double yaw, bool right_first) {
  fx_rig_params p = FX_RIG_PARAMS_INIT;
  p.yaw = yaw;
  p.right_first = right_first;
  return fx_rig(&p, names);
}

/** A retargeter from src onto tgt with the maps their names give (asserted to build). */
static inline rk_retargeter *fx_retargeter(rk_skeleton *src, rk_skeleton *tgt) {
  rk_humanoid_map sm, tm;
  g_autoptr(GError) error = NULL;
  cr_assert(rk_humanoid_map_build(src, NULL, &sm, &error), "%s", error ? error->message : "");
  cr_assert(rk_humanoid_map_build(tgt, NULL, &tm, &error), "%s", error ? error->message : "");
  rk_retargeter *rt = rk_retargeter_new(src, &sm, tgt, &tm, &error);
  cr_assert(rt, "%s", error ? error->message : "");
  return rt;
}

/** A quadruped: hips ("hip") with two hind legs (hl*, hr*) and a horizontal spine to a chest with
 * two front legs (fl*, fr*) and a head. */
static inline rk_skeleton *fx_quadruped(void) {
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  rk_transform x = rk_transform_identity();
  x.t = rk_vec3_make(0, 0.5, -0.3);
  int hip = rk_skeleton_builder_add_joint(b, "hip", -1, &x, 0);
  x.t = rk_vec3_make(0, 0.05, 0.6);
  int chest = rk_skeleton_builder_add_joint(b, "chest", hip, &x, 0);
  x.t = rk_vec3_make(0, 0.25, 0.2);
  rk_skeleton_builder_add_joint(b, "head", chest, &x, 0);
  const char *legs[4][3] = {{"fl1", "fl2", "fl3"}, {"fr1", "fr2", "fr3"}, {"hl1", "hl2", "hl3"}, {"hr1", "hr2", "hr3"}};
  for (int l = 0; l < 4; l++) {
    x.t = rk_vec3_make(l % 2 ? -0.1 : 0.1, -0.05, 0);
    int a = rk_skeleton_builder_add_joint(b, legs[l][0], l < 2 ? chest : hip, &x, 0);
    x.t = rk_vec3_make(0, -0.22, 0);
    int k = rk_skeleton_builder_add_joint(b, legs[l][1], a, &x, 0);
    x.t = rk_vec3_make(0, -0.23, 0.02);
    rk_skeleton_builder_add_joint(b, legs[l][2], k, &x, 0);
  }
  rk_skeleton *s = rk_skeleton_builder_build(b, NULL, NULL);
  cr_assert(s);
  return s;
}

#endif
