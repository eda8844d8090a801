/* IK on real files (tests/data, from ../shared/data): the MakeHuman walk's skeleton with its knees
 * and elbows fitted as hinges and limits from the clip's range; both feet planted (loops to the
 * ground) and a hand goal; the walk's own feet and hands followed frame by frame, warm-started;
 * the analytic limb solver on its legs. */
#include "rk_test.h"

#include <rigkit/ik.h>
#include <rigkit/importers.h>
#include <string.h>

typedef struct walk_rig {
  rk_asset *asset;
  const rk_skeleton *skel;
  const rk_clip *clip;
  rk_tree *tree;
  size_t joints, dofs;
  rk_transform *locals;
} walk_rig;

static void walk_rig_init(walk_rig *w) {
  g_autofree char *path = rk_test_data("makehuman_walk1.bvh");
  GError *error = NULL;
  w->asset = rk_import_file(path, NULL, &error);
  cr_assert(w->asset, "%s", error ? error->message : "");
  w->skel = rk_asset_skeleton(w->asset);
  w->clip = rk_asset_clip(w->asset, 0);
  rk_tree_options o = RK_TREE_OPTIONS_INIT;
  o.limits_from_clip = true;
  w->tree = rk_tree_from_skeleton(w->skel, w->clip, &o, &error);
  cr_assert(w->tree, "%s", error ? error->message : "");
  w->joints = rk_skeleton_joint_count(w->skel);
  w->dofs = rk_tree_dof_count(w->tree);
  w->locals = g_new(rk_transform, w->joints);
}

static void walk_rig_clear(walk_rig *w) {
  rk_tree_unref(w->tree);
  rk_asset_free(w->asset);
  g_free(w->locals);
}

/* q of clip frame f (hint: the previous frame's q, for continuous angles), clamped into the
 * limits (which the clip's range, widened by a margin, contains). */
static void frame_q(walk_rig *w, size_t f, const double *hint, double *q) {
  rk_clip_sample_frame(w->clip, rk_skeleton_rest_locals(w->skel), rk_clip_fps(w->clip), f,
                       w->locals, w->joints);
  rk_tree_q_from_locals(w->tree, w->locals, hint, q, NULL);
  rk_tree_q_clamp(w->tree, q);
}

static int link_of(const rk_tree *t, const char *name) {
  const int l = rk_tree_find_link(t, name);
  cr_assert_geq(l, 0, "no link %s", name);
  return l;
}

Test(ik_files, makehuman_feet_planted_hand_goal) {
  walk_rig w;
  walk_rig_init(&w);
  cr_assert_eq(rk_tree_joint(w.tree, (size_t)link_of(w.tree, "LoLeg_L"))->type, RK_JOINT_REVOLUTE);
  double *q = g_new(double, w.dofs);
  rk_mat4 *m = g_new(rk_mat4, w.joints);
  const int feet[2] = {link_of(w.tree, "Foot_L"), link_of(w.tree, "Foot_R")};
  const int hand = link_of(w.tree, "Hand_R");
  const size_t frames[3] = {0, rk_clip_frame_count(w.clip) / 3, rk_clip_frame_count(w.clip) / 2};
  for (int k = 0; k < 3; k++) {
    frame_q(&w, frames[k], NULL, q);
    rk_loop loops[2];
    for (int i = 0; i < 2; i++)
      loops[i] = rk_loop_closing(w.tree, RK_LOOP_RIGID, q, feet[i], rk_vec3_make(0, 0, 0), -1);
    rk_tree_fk(w.tree, q, NULL, m);
    /* Reach 8 cm forward, 5 cm down and 4 cm inward. */
    rk_ik_goal g = RK_IK_GOAL_INIT;
    g.kind = RK_IK_POSITION;
    g.link = hand;
    g.target_position =
        rk_vec3_add(rk_mat4_get_translation(&m[hand]), rk_vec3_make(0.04, -0.05, 0.08));
    rk_ik_problem p = RK_IK_PROBLEM_INIT;
    p.tree = w.tree;
    p.goals = &g;
    p.goal_count = 1;
    p.loops = loops;
    p.loop_count = 2;
    GError *error = NULL;
    rk_ik_ws *ws = rk_ik_ws_new(&p, 0, &error);
    cr_assert(ws, "%s", error ? error->message : "");
    rk_ik_result res;
    cr_assert(rk_ik_solve(&p, NULL, q, ws, &res, &error), "%s", error ? error->message : "");
    const double closure = rk_test_loop_residual(w.tree, loops, 2, q);
    cr_log_info("frame %zu: %s, hand %.2e m, closure %.2e, %d iterations, %d DOFs at a limit",
                frames[k], rk_ik_status_name(res.status), res.position_error, closure,
                res.iterations, res.dofs_at_limit);
    cr_assert(res.reached, "frame %zu: %s, hand %g m", frames[k], rk_ik_status_name(res.status),
              res.position_error);
    cr_assert_lt(closure, 1e-6);
    cr_assert(rk_tree_q_within_limits(w.tree, q, 0.0));
    rk_ik_ws_free(ws);
  }
  g_free(q);
  g_free(m);
  walk_rig_clear(&w);
}

Test(ik_files, makehuman_walk_followed_frame_by_frame) {
  walk_rig w;
  walk_rig_init(&w);
  const char *names[4] = {"Foot_L", "Foot_R", "Hand_L", "Hand_R"};
  rk_ik_goal goals[4];
  for (int i = 0; i < 4; i++) {
    const rk_ik_goal g = RK_IK_GOAL_INIT;
    goals[i] = g;
    goals[i].link = link_of(w.tree, names[i]);
    goals[i].kind = i < 2 ? RK_IK_POSE : RK_IK_POSITION;
  }
  rk_ik_problem p = RK_IK_PROBLEM_INIT;
  p.tree = w.tree;
  p.goals = goals;
  p.goal_count = 4;
  double *q = g_new(double, w.dofs), *truth = g_new(double, w.dofs);
  double *posture = g_new(double, w.dofs);
  rk_tree_q_rest(w.tree, posture);
  rk_tree_q_clamp(w.tree, posture);
  p.posture = posture;
  p.posture_gain = 0.05;
  rk_mat4 *m = g_new(rk_mat4, w.joints);
  rk_ik_ws *ws = rk_ik_ws_new(&p, 0, NULL);
  rk_ik_options o = RK_IK_OPTIONS_INIT;
  o.damping = 1e-5;
  o.position_tolerance = 1e-4;
  o.orientation_tolerance = 1e-3;
  frame_q(&w, 0, NULL, q);
  memcpy(truth, q, w.dofs * sizeof(double));
  const size_t frames = MIN(rk_clip_frame_count(w.clip), (size_t)240);
  size_t reached = 0;
  int max_iter = 0;
  double worst = 0;
  const gint64 t0 = g_get_monotonic_time();
  for (size_t f = 1; f < frames; f++) {
    frame_q(&w, f, truth, truth);
    rk_tree_fk(w.tree, truth, NULL, m);
    for (int i = 0; i < 4; i++) {
      goals[i].target_position = rk_mat4_get_translation(&m[goals[i].link]);
      const rk_mat3 R = rk_mat4_get_rotation(&m[goals[i].link]);
      goals[i].target_orientation = rk_quat_normalize(rk_quat_from_mat3(&R));
    }
    rk_ik_result res;
    cr_assert(rk_ik_solve(&p, &o, q, ws, &res, NULL));
    reached += res.reached;
    max_iter = MAX(max_iter, res.iterations);
    worst = fmax(worst, res.position_error);
    cr_assert(rk_tree_q_within_limits(w.tree, q, 0.0));
  }
  const double us = (double)(g_get_monotonic_time() - t0) / (double)(frames - 1);
  cr_log_info("walk: %zu frames, %zu reached, worst goal %.2e m, max %d iterations, %.1f us/frame "
              "(sampling and FK of the goals included, %zu DOFs)",
              frames - 1, reached, worst, max_iter, us, w.dofs);
  cr_assert_eq(reached, frames - 1);
  rk_ik_ws_free(ws);
  g_free(q);
  g_free(truth);
  g_free(posture);
  g_free(m);
  walk_rig_clear(&w);
}

Test(ik_files, makehuman_legs_by_the_limb_solver) {
  walk_rig w;
  walk_rig_init(&w);
  rk_ik_limb legs[2];
  const char *side[2][3] = {{"UpLeg_L", "LoLeg_L", "Foot_L"}, {"UpLeg_R", "LoLeg_R", "Foot_R"}};
  for (int i = 0; i < 2; i++) {
    GError *error = NULL;
    cr_assert(rk_ik_limb_init(w.tree, link_of(w.tree, side[i][0]), link_of(w.tree, side[i][1]),
                              link_of(w.tree, side[i][2]), &legs[i], &error),
              "%s", error ? error->message : "");
  }
  double *q = g_new(double, w.dofs), *truth = g_new(double, w.dofs);
  rk_mat4 *m = g_new(rk_mat4, w.joints), *mt = g_new(rk_mat4, w.joints);
  const size_t frames = rk_clip_frame_count(w.clip);
  frame_q(&w, 0, NULL, q);
  memcpy(truth, q, w.dofs * sizeof(double));
  double worst = 0, worst_knee = 0;
  size_t reached = 0, solved = 0;
  for (size_t f = 1; f < frames; f += 3) {
    frame_q(&w, f, truth, truth);
    rk_tree_fk(w.tree, truth, NULL, mt);
    /* The body follows the clip; the legs keep their previous answer and solve for the feet. */
    for (size_t k = 0; k < w.dofs; k++) {
      bool leg = false;
      for (int i = 0; i < 2; i++)
        leg = leg || k == (size_t)legs[i].mid_dof ||
              (k >= (size_t)legs[i].start_dof && k < (size_t)legs[i].start_dof + 3);
      if (!leg)
        q[k] = truth[k];
    }
    rk_tree_fk(w.tree, q, NULL, m);
    for (int i = 0; i < 2; i++) {
      const rk_vec3 target = rk_mat4_get_translation(&mt[legs[i].end]);
      /* Pole: where the clip's own knee points, seen from the hip-foot line. */
      const rk_vec3 pole = rk_vec3_sub(rk_mat4_get_translation(&mt[legs[i].mid]),
                                       rk_mat4_get_translation(&mt[legs[i].start]));
      reached += rk_ik_limb_solve(w.tree, &legs[i], target, pole, m, q);
      rk_tree_fk(w.tree, q, NULL, m);
      worst =
          fmax(worst, rk_vec3_norm(rk_vec3_sub(rk_mat4_get_translation(&m[legs[i].end]), target)));
      worst_knee =
          fmax(worst_knee, rk_vec3_norm(rk_vec3_sub(rk_mat4_get_translation(&m[legs[i].mid]),
                                                    rk_mat4_get_translation(&mt[legs[i].mid]))));
      solved++;
    }
  }
  cr_log_info("legs: %zu of %zu reached, worst foot %.2e m, knees within %.3f m of the clip's",
              reached, solved, worst, worst_knee);
  /* Every foot of the clip is reachable by its own leg (the knee limits come from the clip). */
  cr_assert_eq(reached, solved);
  cr_assert_lt(worst, 1e-6);
  /* Same bone lengths, same foot, pole from the clip's knee: the knee lands where the clip's
   * was (the hinge fit's residual allows a little difference). */
  cr_assert_lt(worst_knee, 0.02);
  g_free(q);
  g_free(truth);
  g_free(m);
  g_free(mt);
  walk_rig_clear(&w);
}
