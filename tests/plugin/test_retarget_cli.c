/* `rigkit retarget` on the shared files: the MakeHuman walk onto RiggedFigure (with and without
 * root motion), RiggedFigure's clip onto the MakeHuman rig (BVH in, BVH out), the Fox (refused,
 * then mapped by samples/maps/fox_hind_legs.map); outputs read back with rigkit and Assimp; the
 * report's fields; bad inputs that fail one clip and let the batch go on; usage errors. */
#include "glb_json.h"
#include "retarget_test.h"

#include <rigkit/fk.h>

static const char *const kEntryFields[] = {
    "source", "target", "output", "status", "error", "frames", "fps", "mapped_joints", "contacts",
    "foot_skate_mm", "ik_goal_error_mm", "loop_closure_residual_mm", "joint_limit_violations",
    "seconds", "verdict", "warnings", "mesh_lowest_planted_mm", "floor_penetration_mm",
    "foot_pitch_deg", "pose_error_mm", "ground_offset_mm", "lifted_frames", "pelvis_frames",
    "unreachable_frames", "source_height_m", "target_height_m", "joints", "error_code"};

/* Every field a report entry promises (README.md, "Retargeting") is present with its type; an ok
 * entry has numbers everywhere. */
static void check_entry_fields(JsonObject *c) {
  for (size_t i = 0; i < G_N_ELEMENTS(kEntryFields); i++)
    cr_assert(json_object_has_member(c, kEntryFields[i]), "report entry lacks '%s'",
              kEntryFields[i]);
  const char *status = rt_str(c, "status");
  cr_assert(status && (!strcmp(status, "ok") || !strcmp(status, "error")), "status %s", status);
  rt_str(c, "source");
  rt_str(c, "target");
  rt_num(c, "seconds", NULL);
  if (strcmp(status, "ok") != 0) {
    cr_assert_not_null(rt_str(c, "error"), "a failed clip says why");
    cr_assert_not_null(rt_str(c, "error_code"), "and with which code");
    return;
  }
  cr_assert_null(rt_str(c, "error"));
  cr_assert_null(rt_str(c, "error_code"));
  cr_assert_not_null(rt_str(c, "output"));
  /* Every target joint, with the source joint that drives it or null; the mapped bones among
   * them. */
  JsonObject *drivers = json_object_get_object_member(c, "joints");
  cr_assert_not_null(drivers);
  guint driven = 0;
  g_autoptr(GList) names = json_object_get_members(drivers);
  for (GList *n = names; n; n = n->next)
    driven += !json_node_is_null(json_object_get_member(drivers, n->data));
  cr_assert_geq(driven, (guint)rt_num(c, "mapped_joints", NULL), "%u driven joints", driven);
  const char *verdict = rt_str(c, "verdict");
  cr_assert(verdict && (!strcmp(verdict, "clean") || !strcmp(verdict, "check") ||
                        !strcmp(verdict, "failed")),
            "verdict %s", verdict);
  JsonArray *warnings = json_object_get_array_member(c, "warnings");
  for (guint i = 0; i < json_array_get_length(warnings); i++) {
    JsonObject *w = json_array_get_object_element(warnings, i);
    cr_assert_not_null(rt_str(w, "code"));
    cr_assert_not_null(rt_str(w, "message"));
  }
  cr_assert_eq(!strcmp(verdict, "clean"), json_array_get_length(warnings) == 0,
               "clean exactly when nothing warns");
  rt_num(c, "ground_offset_mm", NULL);
  rt_num(c, "floor_penetration_mm", NULL);
  cr_assert_geq(rt_num(c, "frames", NULL), 1);
  cr_assert_gt(rt_num(c, "fps", NULL), 0);
  cr_assert_geq(rt_num(c, "mapped_joints", NULL), 8);
  rt_num(c, "foot_skate_mm", "mean");
  rt_num(c, "foot_skate_mm", "max");
  rt_num(c, "ik_goal_error_mm", "mean");
  rt_num(c, "ik_goal_error_mm", "max");
  rt_num(c, "loop_closure_residual_mm", "max");
  cr_assert_geq(rt_num(c, "joint_limit_violations", NULL), 0);
  JsonNode *cn = json_object_get_member(c, "contacts");
  cr_assert(JSON_NODE_HOLDS_OBJECT(cn), "contacts is an object");
  JsonObject *contacts = json_node_get_object(cn);
  g_autoptr(GList) joints = json_object_get_members(contacts);
  const double frames = rt_num(c, "frames", NULL);
  for (GList *l = joints; l; l = l->next) {
    JsonArray *iv = json_object_get_array_member(contacts, l->data);
    cr_assert_not_null(iv, "contacts.%s is a list", (char *)l->data);
    for (guint k = 0; k < json_array_get_length(iv); k++) {
      JsonArray *p = json_array_get_array_element(iv, k);
      cr_assert_eq(json_array_get_length(p), 2, "an interval is [first, last]");
      gint64 a = json_array_get_int_element(p, 0), b = json_array_get_int_element(p, 1);
      cr_assert(a >= 0 && a <= b && b < frames, "contacts.%s[%u] = [%ld, %ld] of %g frames",
                (char *)l->data, k, (long)a, (long)b, frames);
    }
  }
}

/* Output checks: reads back with rigkit (target's joint count, one clip named as the source clip,
 * the source's duration, finite poses at every frame) and returns the asset. */
static rk_asset *check_output(const char *path, size_t target_joints, const char *clip_name,
                              double duration, double fps) {
  rk_asset *a = rt_read_output(path);
  const rk_skeleton *s = rk_asset_skeleton(a);
  cr_assert_eq(rk_skeleton_joint_count(s), target_joints, "%s: %zu joints, target has %zu", path,
               rk_skeleton_joint_count(s), target_joints);
  cr_assert_eq(rk_asset_clip_count(a), 1, "%s carries exactly one clip", path);
  const rk_clip *c = rk_asset_clip(a, 0);
  cr_assert_str_eq(rk_clip_name(c), clip_name);
  rk_assert_near(rk_clip_duration(c), duration, 1e-3);
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_transform *locals = g_new(rk_transform, n);
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  const size_t frames = (size_t)llround(duration * fps) + 1;
  for (size_t f = 0; f < frames; f++) {
    rk_clip_sample_frame(c, rk_skeleton_rest_locals(s), fps, f, locals, n);
    rk_fk_models(s, locals, models);
    for (size_t j = 0; j < n; j++)
      cr_assert(rk_mat4_is_finite(&models[j]), "%s: joint %zu frame %zu not finite", path, j, f);
  }
  return a;
}

/* Feet on the ground, on the read-back output: planted joints stay within the contact band (3% of
 * the target's height) of the height their rest pose stands them at, and over the clip the lowest
 * of the target's foot joints (`feet`, NULL-terminated) comes down to the ground (the lowest of
 * their rest heights) within tol metres. */
static void check_feet_on_ground(const rk_asset *out, const rk_skeleton *target, JsonObject *entry,
                                 const char *const *feet, double tol) {
  const rk_skeleton *s = rk_asset_skeleton(out);
  const rk_clip *c = rk_asset_clip(out, 0);
  const size_t n = rk_skeleton_joint_count(s);
  const double fps = rt_num(entry, "fps", NULL);
  const size_t frames = (size_t)rt_num(entry, "frames", NULL);
  g_autofree rk_mat4 *rest = g_new(rk_mat4, rk_skeleton_joint_count(target));
  rk_skeleton_rest_models(target, rest);
  double ground = INFINITY;
  for (size_t k = 0; feet[k]; k++) {
    int j = rk_skeleton_find_joint(target, feet[k]);
    cr_assert_geq(j, 0, "no joint %s in the target", feet[k]);
    ground = fmin(ground, rk_mat4_get_translation(&rest[j]).y);
  }
  g_autofree rk_transform *locals = g_new(rk_transform, n);
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  double lowest = INFINITY;
  for (size_t f = 0; f < frames; f++) {
    rk_clip_sample_frame(c, rk_skeleton_rest_locals(s), fps, f, locals, n);
    rk_fk_models(s, locals, models);
    for (size_t k = 0; feet[k]; k++)
      lowest = fmin(lowest, rk_mat4_get_translation(&models[rk_skeleton_find_joint(s, feet[k])]).y);
  }
  JsonObject *contacts = json_object_get_object_member(entry, "contacts");
  g_autoptr(GList) joints = json_object_get_members(contacts);
  cr_assert_not_null(joints, "some foot is planted");
  double worst = 0;
  for (GList *l = joints; l; l = l->next) {
    const int j = rk_skeleton_find_joint(s, l->data);
    const double rest_h = rk_mat4_get_translation(&rest[rk_skeleton_find_joint(target, l->data)]).y;
    JsonArray *iv = json_object_get_array_member(contacts, l->data);
    for (guint k = 0; k < json_array_get_length(iv); k++) {
      JsonArray *p = json_array_get_array_element(iv, k);
      for (gint64 f = json_array_get_int_element(p, 0); f <= json_array_get_int_element(p, 1); f++) {
        rk_clip_sample_frame(c, rk_skeleton_rest_locals(s), fps, (size_t)f, locals, n);
        rk_fk_models(s, locals, models);
        worst = fmax(worst, fabs(rk_mat4_get_translation(&models[j]).y - rest_h));
      }
    }
  }
  cr_log_info("planted joints: largest height change from rest %.2f mm; lowest foot joint %.2f mm "
              "above the ground",
              worst * 1e3, (lowest - ground) * 1e3);
  const double contact_height = 0.03 * rk_skeleton_rest_height(target);
  cr_assert_leq(worst, contact_height, "a planted joint is %.1f mm off its rest height",
                worst * 1e3);
  cr_assert_leq(fabs(lowest - ground), tol, "the feet do not reach the ground (%.1f mm)",
                (lowest - ground) * 1e3);
}

static const char *const kFigureFeet[] = {"leg_joint_L_3", "leg_joint_L_5", "leg_joint_R_3",
                                          "leg_joint_R_5", NULL};
static const char *const kMakeHumanFeet[] = {"Foot_L", "Toe_L", "Foot_R", "Toe_R", NULL};

/* `assimp info FILE` (Debian's assimp-utils) reads the output with one animation; skipped when
 * the tool is missing. */
static void check_with_assimp(const char *path, long nodes_at_least) {
  g_autofree char *assimp = g_find_program_in_path("assimp");
  if (!assimp) {
    cr_log_warn("assimp (assimp-utils) not installed: %s not checked with Assimp", path);
    return;
  }
  const char *argv[] = {assimp, "info", path, NULL};
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  cr_assert(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                         &status, NULL));
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "assimp info %s failed:\n%s%s", path,
            out, err);
  const char *a = strstr(out, "Animations:");
  cr_assert_not_null(a, "assimp info %s:\n%s", path, out);
  cr_assert_eq(strtol(a + strlen("Animations:"), NULL, 10), 1, "Assimp sees one animation");
  const char *nd = strstr(out, "Nodes:");
  cr_assert_not_null(nd);
  cr_assert_geq(strtol(nd + strlen("Nodes:"), NULL, 10), nodes_at_least);
}

static double source_duration(const char *path) {
  g_autoptr(GError) e = NULL;
  g_autoptr(rk_asset) a = rk_import_file(path, NULL, &e);
  cr_assert_not_null(a, "%s", e ? e->message : "");
  return rk_clip_duration(rk_asset_clip(a, 0));
}

static size_t joint_count(const char *path) {
  g_autoptr(GError) e = NULL;
  g_autoptr(rk_asset) a = rk_import_file(path, NULL, &e);
  cr_assert_not_null(a, "%s", e ? e->message : "");
  return rk_skeleton_joint_count(rk_asset_skeleton(a));
}

/* A well-formed XML document (GMarkup) holding an <svg> element and `paths` <path> elements at
 * least. */
static void check_svg(const char *path, int paths) {
  g_autofree char *text = NULL;
  cr_assert(g_file_get_contents(path, &text, NULL, NULL), "no plot %s", path);
  GMarkupParser p = {0};
  g_autoptr(GMarkupParseContext) ctx = g_markup_parse_context_new(&p, 0, NULL, NULL);
  g_autoptr(GError) e = NULL;
  cr_assert(g_markup_parse_context_parse(ctx, text, -1, &e) && g_markup_parse_context_end_parse(ctx, &e),
            "%s is not well-formed: %s", path, e ? e->message : "");
  cr_assert_not_null(strstr(text, "<svg"));
  int n = 0;
  for (const char *s = text; (s = strstr(s, "<path")); s++)
    n++;
  cr_assert_geq(n, paths, "%s has %d paths", path, n);
}

Test(retarget_cli, walk_onto_rigged_figure_with_root_motion_is_clean) {
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  g_autofree char *fig = rt_data("RiggedFigure.glb");
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *out = g_build_filename(dir, "out", NULL);
  g_autofree char *plots = g_build_filename(dir, "plots", NULL);
  g_autofree char *report = g_build_filename(dir, "report.json", NULL);
  const char *args[] = {"retarget", "--target", fig, "--root-motion", "--out-dir", out, "--report",
                        report, "--plot", plots, walk, NULL};
  cli_run r = rt_cli(NULL, args);
  cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
  cr_assert_not_null(strstr(r.out, "1 clip: 1 ok, 0 failed"), "%s", r.out);
  g_autoptr(JsonParser) jp = NULL;
  JsonObject *rep = rt_json(report, &jp);
  cr_assert_eq(json_array_get_length(rt_clips(rep)), 1);
  JsonObject *c = rt_clip(rep, 0);
  check_entry_fields(c);
  cr_assert_str_eq(rt_str(c, "status"), "ok");
  cr_assert_str_eq(rt_str(c, "source"), walk);
  cr_assert_str_eq(rt_str(c, "target"), fig);
  g_autofree char *expect_out = g_build_filename(out, "makehuman_walk1.glb", NULL);
  cr_assert_str_eq(rt_str(c, "output"), expect_out);
  cr_assert_eq(rt_num(c, "frames", NULL), 14);
  cr_assert_eq(rt_num(c, "fps", NULL), 24);
  cr_assert_eq(rt_num(c, "mapped_joints", NULL), 19);
  const double th = rt_num(c, "target_height_m", NULL), sh = rt_num(c, "source_height_m", NULL);
  cr_assert(th > 0.5 && th < 3 && sh > 0.5 && sh < 3, "heights %g m, %g m", th, sh);
  /* Quality (measured on the written file): planted feet skate at most 5 mm and less than without
   * IK, pins and the loop within 1 mm, no knee bent backwards, limbs within 10 degrees. */
  cr_log_info("walk -> RiggedFigure --root-motion: skate FK %.3f mm -> %.4f mm, goal error %.4f mm, "
              "closure %.4f mm, limits %g, limb median %.3f deg",
              rt_num(c, "foot_skate_fk_mm", "max"), rt_num(c, "foot_skate_mm", "max"),
              rt_num(c, "ik_goal_error_mm", "max"), rt_num(c, "loop_closure_residual_mm", "max"),
              rt_num(c, "joint_limit_violations", NULL), rt_num(c, "limb_direction_median_deg", NULL));
  cr_assert_leq(rt_num(c, "foot_skate_mm", "max"), 5.0);
  cr_assert_gt(rt_num(c, "foot_skate_fk_mm", "max"), rt_num(c, "foot_skate_mm", "max"),
               "IK removes skate that the pose transfer alone leaves");
  cr_assert_leq(rt_num(c, "ik_goal_error_mm", "max"), 1.0);
  cr_assert_leq(rt_num(c, "loop_closure_residual_mm", "max"), 1.0);
  cr_assert_eq(rt_num(c, "joint_limit_violations", NULL), 0);
  cr_assert_leq(rt_num(c, "limb_direction_median_deg", NULL), 10.0);
  cr_assert_gt(rt_num(c, "contact_frames", NULL), 0);
  g_autoptr(rk_asset) fa = rk_import_file(fig, NULL, NULL);
  g_autoptr(rk_asset) o = check_output(expect_out, joint_count(fig), "makehuman_walk1",
                                       source_duration(walk), 24);
  check_feet_on_ground(o, rk_asset_skeleton(fa), c, kFigureFeet, 0.01);
  /* The character's mesh and skin come along. */
  cr_assert_eq(rk_asset_mesh_count(o), rk_asset_mesh_count(fa));
  check_with_assimp(expect_out, 19);
  /* The plot: one per clip, well-formed, curves for each contact joint. */
  g_autofree char *svg = g_build_filename(plots, "makehuman_walk1.svg", NULL);
  cr_assert_str_eq(rt_str(c, "plot"), svg);
  check_svg(svg, 4);
  cr_assert_eq(rt_temporaries(out), 0);
  rt_cli_clear(&r);
  rt_rmtree(dir);
}

Test(retarget_cli, in_place_walk_without_root_motion_plants_nothing_and_says_so) {
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  g_autofree char *fig = rt_data("RiggedFigure.glb");
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *out = g_build_filename(dir, "walk.glb", NULL);
  g_autofree char *report = g_build_filename(dir, "report.json", NULL);
  const char *args[] = {"retarget", "--target", fig, "--out", out, "--report", report, walk, NULL};
  cli_run r = rt_cli(NULL, args);
  cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
  cr_assert_not_null(strstr(r.err, "in-place"), "a note tells the user: %s", r.err);
  cr_assert_not_null(strstr(r.err, "--root-motion"), "%s", r.err);
  g_autoptr(JsonParser) jp = NULL;
  JsonObject *c = rt_clip(rt_json(report, &jp), 0);
  check_entry_fields(c);
  cr_assert_str_eq(rt_str(c, "output"), out);
  cr_assert(json_object_get_boolean_member(c, "in_place"));
  cr_assert_eq(json_object_get_size(json_object_get_object_member(c, "contacts")), 0);
  cr_assert_eq(json_array_get_length(json_object_get_array_member(c, "notes")), 1);
  cr_assert_leq(rt_num(c, "limb_direction_median_deg", NULL), 10.0);
  JsonObject *joints = json_object_get_object_member(c, "joints");
  cr_assert_eq(json_object_get_size(joints), joint_count(fig));
  cr_assert_str_eq(json_object_get_string_member(joints, "leg_joint_L_1"), "UpLeg_L");
  cr_assert_str_eq(json_object_get_string_member(joints, "leg_joint_R_3"), "Foot_R");
  rk_asset_free(check_output(out, joint_count(fig), "makehuman_walk1", source_duration(walk), 24));
  rt_cli_clear(&r);
  rt_rmtree(dir);
}

Test(retarget_cli, rigged_figure_clip_onto_the_makehuman_rig_writes_bvh) {
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  g_autofree char *fig = rt_data("RiggedFigure.glb");
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *report = g_build_filename(dir, "report.json", NULL);
  const char *args[] = {"retarget", "--target", walk, "--out-dir", dir, "--report", report, fig,
                        NULL};
  cli_run r = rt_cli(NULL, args);
  cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
  g_autoptr(JsonParser) jp = NULL;
  JsonObject *c = rt_clip(rt_json(report, &jp), 0);
  check_entry_fields(c);
  g_autofree char *out = g_build_filename(dir, "RiggedFigure.bvh", NULL);
  cr_assert_str_eq(rt_str(c, "output"), out, "a BVH target gives BVH outputs");
  cr_log_info("RiggedFigure -> MakeHuman: skate FK %.4f mm -> %.4f mm, goal %.4f mm, closure "
              "%.4f mm, limits %g, limb median %.3f deg",
              rt_num(c, "foot_skate_fk_mm", "max"), rt_num(c, "foot_skate_mm", "max"),
              rt_num(c, "ik_goal_error_mm", "max"), rt_num(c, "loop_closure_residual_mm", "max"),
              rt_num(c, "joint_limit_violations", NULL), rt_num(c, "limb_direction_median_deg", NULL));
  cr_assert_leq(rt_num(c, "foot_skate_mm", "max"), 5.0);
  cr_assert_leq(rt_num(c, "ik_goal_error_mm", "max"), 1.0);
  cr_assert_leq(rt_num(c, "loop_closure_residual_mm", "max"), 1.0);
  cr_assert_eq(rt_num(c, "joint_limit_violations", NULL), 0);
  cr_assert_leq(rt_num(c, "limb_direction_median_deg", NULL), 10.0);
  g_autoptr(rk_asset) wa = rk_import_file(walk, NULL, NULL);
  /* BVH has no clip names: a BVH reads back with its file's stem as the clip name. */
  g_autoptr(rk_asset) o =
      check_output(out, joint_count(walk), "RiggedFigure", source_duration(fig), 24);
  check_feet_on_ground(o, rk_asset_skeleton(wa), c, kMakeHumanFeet, 0.01);
  check_with_assimp(out, 91);
  rt_cli_clear(&r);
  rt_rmtree(dir);
}

Test(retarget_cli, fox_is_refused_without_a_map_and_walks_on_its_hind_legs_with_one) {
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  g_autofree char *fox = rt_data("Fox.glb");
  g_autofree char *map = g_build_filename(RK_SOURCE_DIR, "samples", "maps", "fox_hind_legs.map", NULL);
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *report = g_build_filename(dir, "report.json", NULL);
  {
    const char *args[] = {"retarget", "--target", fox, "--out-dir", dir, "--report", report, walk,
                          NULL};
    cli_run r = rt_cli(NULL, args);
    cr_assert_eq(r.code, 2, "a target that cannot be mapped is a batch mistake: %s%s", r.out,
                 r.err);
    cr_assert_not_null(strstr(r.err, "quadruped"), "%s", r.err);
    cr_assert_not_null(strstr(r.err, "map file"), "the error says how to fix it: %s", r.err);
    g_autoptr(GPtrArray) files = rt_list(dir, false);
    cr_assert_eq(files->len, 0, "nothing written, not even the report");
    rt_cli_clear(&r);
  }
  const char *args[] = {"retarget", "--target", fox, "--target-unit", "cm", "--map", map,
                        "--root-motion", "--out-dir", dir, "--report", report, walk, NULL};
  cli_run r = rt_cli(NULL, args);
  cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
  g_autoptr(JsonParser) jp = NULL;
  JsonObject *c = rt_clip(rt_json(report, &jp), 0);
  check_entry_fields(c);
  cr_assert_eq(rt_num(c, "mapped_joints", NULL), 9, "hips and two legs of four bones");
  cr_assert_gt(json_object_get_size(json_object_get_object_member(c, "contacts")), 0);
  cr_assert_leq(rt_num(c, "foot_skate_mm", "max"), 5.0);
  cr_assert_leq(rt_num(c, "ik_goal_error_mm", "max"), 1.0);
  g_autofree char *out = g_build_filename(dir, "makehuman_walk1.glb", NULL);
  rk_asset_free(check_output(out, joint_count(fox), "makehuman_walk1", source_duration(walk), 24));
  check_with_assimp(out, 24);
  rt_cli_clear(&r);
  rt_rmtree(dir);
}

/* --clip given several times selects several clips (by name or index, each once, in the file's
 * order, outputs named per clip); one it cannot find fails the file naming it. The Fox's clips
 * cannot be mapped as a source (the map has no [source] group): the entries say so, which is
 * enough to see which clips were selected. */
Test(retarget_cli, clip_given_several_times_selects_each_once) {
  g_autofree char *fox = rt_data("Fox.glb");
  g_autofree char *map = g_build_filename(RK_SOURCE_DIR, "samples", "maps", "fox_hind_legs.map", NULL);
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *report = g_build_filename(dir, "report.json", NULL);
  g_autofree char *out = g_build_filename(dir, "out", NULL);
  const char *args[] = {"retarget", "--target", fox, "--target-unit", "cm", "--map", map,
                        "--clip", "Walk", "--clip", "0", "--clip", "1", "--out-dir", out,
                        "--report", report, fox, NULL};
  cli_run r = rt_cli(NULL, args);
  g_autoptr(JsonParser) jp = NULL;
  JsonArray *clips = rt_clips(rt_json(report, &jp));
  cr_assert_eq(json_array_get_length(clips), 2, "Walk named twice runs once: %s%s", r.out, r.err);
  const char *names[] = {"Survey", "Walk"};
  for (guint i = 0; i < 2; i++) {
    JsonObject *c = json_array_get_object_element(clips, i);
    cr_assert_str_eq(rt_str(c, "clip"), names[i]);
    g_autofree char *stem = g_strdup_printf("Fox_%s.glb", names[i]);
    cr_assert(g_str_has_suffix(rt_str(c, "output"), stem), "%s", rt_str(c, "output"));
  }
  rt_cli_clear(&r);
  const char *missing[] = {"retarget", "--target", fox, "--target-unit", "cm", "--map", map,
                           "--clip", "Walk", "--clip", "Trot", "--out-dir", out, fox, NULL};
  r = rt_cli(NULL, missing);
  cr_assert_eq(r.code, 1);
  cr_assert_not_null(strstr(r.err, "no clip 'Trot'"), "%s", r.err);
  rt_cli_clear(&r);
  rt_rmtree(dir);
}

Test(retarget_cli, print_map_shows_bone_joint_and_how_found) {
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  g_autofree char *fox = rt_data("Fox.glb");
  g_autofree char *fig = rt_data("RiggedFigure.glb");
  g_autofree char *map = g_build_filename(RK_SOURCE_DIR, "samples", "maps", "fox_hind_legs.map", NULL);
  const char *args[] = {"retarget", "--target", fig, "--print-map", walk, fig, NULL};
  cli_run r = rt_cli(NULL, args);
  cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
  cr_assert_not_null(strstr(r.out, "left_upper_leg"), "%s", r.out);
  cr_assert_not_null(strstr(r.out, "UpLeg_L"), "the walk's joint names: %s", r.out);
  cr_assert_not_null(strstr(r.out, "topology"), "RiggedFigure's numbered names: %s", r.out);
  rt_cli_clear(&r);
  const char *fargs[] = {"retarget", "--target", fox, "--map", map, "--print-map", walk, NULL};
  r = rt_cli(NULL, fargs);
  cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
  cr_assert_not_null(strstr(r.out, "b_LeftLeg01_015"), "%s", r.out);
  cr_assert_not_null(strstr(r.out, "map-file"), "%s", r.out);
  rt_cli_clear(&r);
}

/* A BVH with a spine, a head and arms, no legs. */
static const char kLegless[] =
    "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 100 0\n  CHANNELS 6 Xposition Yposition Zposition "
    "Zrotation Xrotation Yrotation\n  JOINT Spine\n  {\n    OFFSET 0 20 0\n    CHANNELS 3 Zrotation "
    "Xrotation Yrotation\n    JOINT Head\n    {\n      OFFSET 0 40 0\n      CHANNELS 3 Zrotation "
    "Xrotation Yrotation\n      End Site\n      {\n        OFFSET 0 15 0\n      }\n    }\n    "
    "JOINT LeftArm\n    {\n      OFFSET 15 35 0\n      CHANNELS 3 Zrotation Xrotation Yrotation\n  "
    "    End Site\n      {\n        OFFSET 50 0 0\n      }\n    }\n    JOINT RightArm\n    {\n     "
    " OFFSET -15 35 0\n      CHANNELS 3 Zrotation Xrotation Yrotation\n      End Site\n      {\n  "
    "      OFFSET -50 0 0\n      }\n    }\n  }\n}\nMOTION\nFrames: 3\nFrame Time: 0.033333\n"
    "0 100 0 0 0 0 0 0 0 0 0 0 0 0 10 0 0 -10\n0 100 1 0 0 0 5 0 0 0 0 0 0 0 20 0 0 -20\n"
    "0 100 2 0 0 0 10 0 0 0 0 0 0 0 30 0 0 -30\n";

Test(retarget_cli, bad_clips_fail_alone_with_clear_errors_and_the_batch_goes_on) {
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  g_autofree char *fig = rt_data("RiggedFigure.glb");
  g_autofree char *fox = rt_data("Fox.glb");
  g_autofree char *nan = rt_data("bad/bvh_nan.bvh");
  g_autofree char *trunc = rt_data("bad/truncated.glb");
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *legless = g_build_filename(dir, "legless.bvh", NULL);
  cr_assert(g_file_set_contents(legless, kLegless, -1, NULL));
  g_autofree char *out = g_build_filename(dir, "out", NULL);
  g_autofree char *report = g_build_filename(dir, "report.json", NULL);
  const char *args[] = {"retarget", "--target", fig, "--out-dir", out, "--report", report, "-j",
                        "2", fox, legless, nan, walk, trunc, NULL};
  cli_run r = rt_cli(NULL, args);
  cr_assert_eq(r.code, 1, "a failed clip makes the exit code 1: %s%s", r.out, r.err);
  g_autoptr(JsonParser) jp = NULL;
  JsonObject *rep = rt_json(report, &jp);
  JsonArray *clips = rt_clips(rep);
  /* Fox's three clips each fail (its rig cannot be mapped), then one entry per other file. */
  cr_assert_eq(json_array_get_length(clips), 3 + 4);
  const char *expect_source[] = {fox, fox, fox, legless, nan, walk, trunc};
  const char *expect_error[] = {"quadruped", "quadruped", "quadruped", "hips", "bvh_nan.bvh", NULL,
                                "truncated.glb"};
  const char *expect_code[] = {"source-unmapped",   "source-unmapped",   "source-unmapped",
                               "source-unmapped",   "source-unreadable", NULL,
                               "source-unreadable"};
  for (guint i = 0; i < json_array_get_length(clips); i++) {
    JsonObject *c = json_array_get_object_element(clips, i);
    check_entry_fields(c);
    cr_assert_str_eq(rt_str(c, "source"), expect_source[i], "report in input order");
    if (!expect_error[i]) {
      cr_assert_str_eq(rt_str(c, "status"), "ok");
      continue;
    }
    cr_assert_str_eq(rt_str(c, "status"), "error", "entry %u", i);
    cr_assert_not_null(strstr(rt_str(c, "error"), expect_error[i]), "entry %u: %s", i,
                       rt_str(c, "error"));
    cr_assert_not_null(strstr(r.err, rt_str(c, "error")), "printed on stderr too: %s", r.err);
    cr_assert_str_eq(rt_str(c, "error_code"), expect_code[i], "entry %u", i);
  }
  JsonObject *sum = json_object_get_object_member(rep, "summary");
  cr_assert_eq(json_object_get_int_member(sum, "ok"), 1);
  cr_assert_eq(json_object_get_int_member(sum, "error"), 6);
  g_autoptr(GPtrArray) files = rt_list(out, false);
  cr_assert_eq(files->len, 1, "only the good clip's output");
  cr_assert_str_eq(g_ptr_array_index(files, 0), "makehuman_walk1.glb");
  cr_assert_eq(rt_temporaries(out), 0, "nothing half-written");
  rt_cli_clear(&r);
  rt_rmtree(dir);
}

Test(retarget_cli, out_file_fps_and_reduce) {
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  g_autofree char *fig = rt_data("RiggedFigure.glb");
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *full = g_build_filename(dir, "full.gltf", NULL);
  g_autofree char *reduced = g_build_filename(dir, "reduced.glb", NULL);
  g_autofree char *r1 = g_build_filename(dir, "r1.json", NULL);
  g_autofree char *r2 = g_build_filename(dir, "r2.json", NULL);
  const char *a1[] = {"retarget", "--target", fig, "--root-motion", "--fps", "30", "--out", full,
                      "--report", r1, walk, NULL};
  cli_run r = rt_cli(NULL, a1);
  cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
  rt_cli_clear(&r);
  const char *a2[] = {"retarget", "--target", fig, "--root-motion", "--fps", "30", "--reduce",
                      "0.001", "--out", reduced, "--report", r2, walk, NULL};
  r = rt_cli(NULL, a2);
  cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
  g_autoptr(JsonParser) p1 = NULL, p2 = NULL;
  JsonObject *c1 = rt_clip(rt_json(r1, &p1), 0), *c2 = rt_clip(rt_json(r2, &p2), 0);
  const double dur = source_duration(walk);
  cr_assert_eq(rt_num(c1, "frames", NULL), llround(dur * 30) + 1);
  cr_assert_eq(rt_num(c1, "fps", NULL), 30);
  g_autofree char *bin = g_build_filename(dir, "full.bin", NULL);
  cr_assert(g_file_test(bin, G_FILE_TEST_IS_REGULAR), ".gltf writes its .bin");
  cr_assert_lt(rt_num(c2, "keys", NULL), rt_num(c1, "keys", NULL), "reduction drops keys");
  /* 1 mm of reduction moves a planted foot by 1 mm at most. */
  cr_assert_leq(rt_num(c2, "foot_skate_mm", "max"), rt_num(c1, "foot_skate_mm", "max") + 1.0 + 1e-6);
  /* Every key on the 30 fps grid: the duration rounded to a whole frame. */
  g_autoptr(rk_asset) o = check_output(reduced, joint_count(fig), "makehuman_walk1",
                                       rk_clip_bake_duration(dur, 30), 30);
  /* glTF stores times as 32-bit floats: on the grid within 1e-4 of a frame (the last key
   * was 0.3 of a frame off it). */
  const rk_clip *oc = rk_asset_clip(o, 0);
  rk_assert_near(rk_clip_duration(oc) * 30, rt_num(c1, "frames", NULL) - 1, 1e-4);
  for (size_t t = 0; t < rk_clip_track_count(oc); t++) {
    const rk_track *tr = rk_clip_track(oc, t);
    for (size_t k = 0; k < tr->key_count; k++)
      rk_assert_near(tr->times[k] * 30, round(tr->times[k] * 30), 1e-4);
  }
  rt_cli_clear(&r);
  rt_rmtree(dir);
}

Test(retarget_cli, hand_goals) {
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  g_autofree char *fig = rt_data("RiggedFigure.glb");
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *out = g_build_filename(dir, "o.glb", NULL);
  g_autofree char *report = g_build_filename(dir, "r.json", NULL);
  const char *args[] = {"retarget", "--target", fig, "--root-motion", "--hands", "--out", out,
                        "--report", report, walk, NULL};
  cli_run r = rt_cli(NULL, args);
  cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
  g_autoptr(JsonParser) jp = NULL;
  JsonObject *c = rt_clip(rt_json(report, &jp), 0);
  check_entry_fields(c);
  JsonObject *opts = json_object_get_object_member(json_node_get_object(json_parser_get_root(jp)),
                                                   "options");
  cr_assert(json_object_get_boolean_member(opts, "hand_ik"), "the report records --hands");
  cr_assert_leq(rt_num(c, "ik_goal_error_mm", "max"), 1.0);
  cr_assert_leq(rt_num(c, "foot_skate_mm", "max"), 5.0);
  cr_assert_leq(rt_num(c, "limb_direction_median_deg", NULL), 10.0);
  rt_cli_clear(&r);
  rt_rmtree(dir);
}

Test(retarget_cli, bad_usage_exits_2) {
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  g_autofree char *fig = rt_data("RiggedFigure.glb");
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *other = g_build_filename(dir, "makehuman_walk1.bvh", NULL);
  rt_copy(walk, other);
  const char *cases[][12] = {
      {"retarget", "--out-dir", dir, walk, NULL},
      {"retarget", "--target", fig, walk, NULL},
      {"retarget", "--target", fig, "--out-dir", dir, NULL},
      {"retarget", "--target", fig, "--out", "a.glb", "--out-dir", dir, walk, NULL},
      {"retarget", "--target", fig, "--out", "a.glb", walk, fig, NULL},
      {"retarget", "--target", fig, "--out", "a.xyz", walk, NULL},
      {"retarget", "--target", fig, "--out-dir", dir, "--shard", "3/2", walk, NULL},
      {"retarget", "--target", fig, "--out-dir", dir, "--format", "obj", walk, NULL},
      {"retarget", "--target", fig, "--out-dir", dir, "--fps", "-3", walk, NULL},
      {"retarget", "--target", fig, "--out-dir", dir, "--unit", "parsec", walk, NULL},
      {"retarget", "--target", fig, "--out-dir", dir, walk, other, NULL},
      {"retarget", "--target", fig, "--out-dir", dir, "--bogus", walk, NULL},
      {"retarget", "--target", fig, "--target", walk, "--out-dir", dir, walk, NULL},
      {"retarget", "--target", fig, "--out-dir", dir, "-j", "2", "--jobs=3", walk, NULL},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    cli_run r = rt_cli(dir, cases[i]);
    cr_assert_eq(r.code, 2, "case %zu: exit %d\n%s%s", i, r.code, r.out, r.err);
    cr_assert_not_null(strstr(r.err, "rigkit retarget"), "case %zu: %s", i, r.err);
    rt_cli_clear(&r);
  }
  for (size_t i = G_N_ELEMENTS(cases) - 2; i < G_N_ELEMENTS(cases); i++) {
    cli_run r = rt_cli(dir, cases[i]);
    cr_assert_not_null(strstr(r.err, "given twice"), "a second value is refused, not kept: %s",
                       r.err);
    rt_cli_clear(&r);
  }
  g_autoptr(GPtrArray) files = rt_list(dir, true);
  cr_assert_eq(files->len, 1, "nothing written on bad usage");
  const char *help[] = {"retarget", "--help", NULL};
  cli_run r = rt_cli(NULL, help);
  cr_assert_eq(r.code, 0);
  cr_assert_not_null(strstr(r.out, "--root-motion"));
  cr_assert_not_null(strstr(r.out, "--shard"));
  rt_cli_clear(&r);
  rt_rmtree(dir);
}

Test(retarget_cli, an_output_never_replaces_an_input) {
  g_autofree char *walk_src = rt_data("makehuman_walk1.bvh");
  g_autofree char *fig_src = rt_data("RiggedFigure.glb");
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *walk = g_build_filename(dir, "walk.bvh", NULL);
  g_autofree char *fig = g_build_filename(dir, "fig.glb", NULL);
  rt_copy(walk_src, walk);
  rt_copy(fig_src, fig);
  /* walk.bvh -> <dir>/walk.bvh (its own source); fig.glb's clip onto itself -> <dir>/fig.glb. */
  const char *a1[] = {"retarget", "--target", fig, "--format", "bvh", "--out-dir", dir, walk, NULL};
  const char *a2[] = {"retarget", "--target", fig, "--out-dir", dir, fig, NULL};
  const char *const *cases[] = {a1, a2};
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    cli_run r = rt_cli(NULL, cases[i]);
    cr_assert_eq(r.code, 2, "case %zu: a batch mistake: %s%s", i, r.out, r.err);
    cr_assert_not_null(strstr(r.err, "would overwrite the input"), "case %zu: %s", i, r.err);
    rt_cli_clear(&r);
  }
  cr_assert(rt_same_bytes(walk, walk_src), "the source is intact");
  cr_assert(rt_same_bytes(fig, fig_src), "the target is intact");
  rt_rmtree(dir);
}

Test(retarget_cli, fbx_output) {
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  g_autofree char *fig = rt_data("RiggedFigure.glb");
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *report = g_build_filename(dir, "r.json", NULL);
  const char *args[] = {"retarget", "--target", fig, "--root-motion", "--format", "fbx",
                        "--out-dir", dir, "--report", report, walk, NULL};
  cli_run r = rt_cli(NULL, args);
  cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
  g_autoptr(JsonParser) jp = NULL;
  JsonObject *c = rt_clip(rt_json(report, &jp), 0);
  check_entry_fields(c);
  g_autofree char *out = g_build_filename(dir, "makehuman_walk1.fbx", NULL);
  cr_assert_str_eq(rt_str(c, "output"), out);
  cr_assert_leq(rt_num(c, "foot_skate_mm", "max"), 5.0);
  g_autoptr(rk_asset) fa = rk_import_file(fig, NULL, NULL);
  g_autoptr(rk_asset) o = check_output(out, joint_count(fig), "makehuman_walk1",
                                       source_duration(walk), 24);
  cr_assert_eq(rk_asset_mesh_count(o), rk_asset_mesh_count(fa), "the character's mesh comes along");
  check_feet_on_ground(o, rk_asset_skeleton(fa), c, kFigureFeet, 0.01);
  check_with_assimp(out, 19);
  rt_cli_clear(&r);
  rt_rmtree(dir);
}

Test(retarget_cli, a_gltf_character_goes_out_as_it_came_in) {
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  g_autofree char *fox = rt_data("Fox.glb");
  g_autofree char *map = g_build_filename(RK_SOURCE_DIR, "samples", "maps", "fox_hind_legs.map", NULL);
  g_autofree char *dir = rt_tmpdir();
  const char *args[] = {"retarget", "--target", fox, "--target-unit", "cm", "--map", map,
                        "--root-motion", "--out-dir", dir, walk, NULL};
  cli_run r = rt_cli(NULL, args);
  cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
  g_autofree char *out = g_build_filename(dir, "makehuman_walk1.glb", NULL);
  g_autoptr(JsonParser) pin = NULL, pout = NULL;
  g_autoptr(GBytes) bin_in = NULL, bin_out = NULL;
  JsonObject *in = glb_json(fox, &pin, &bin_in), *o = glb_json(out, &pout, &bin_out);
  /* Every member but the animations (and the arrays the new animation appends to) is the same;
   * the appended arrays start with the input's entries, and the binary chunk with its bytes. */
  g_autoptr(GList) members = json_object_get_members(in);
  for (GList *m = members; m; m = m->next) {
    const char *name = m->data;
    if (!strcmp(name, "animations"))
      continue;
    JsonNode *a = json_object_get_member(in, name), *b = json_object_get_member(o, name);
    cr_assert_not_null(b, "member '%s' lost", name);
    if (!strcmp(name, "accessors") || !strcmp(name, "bufferViews") || !strcmp(name, "buffers")) {
      JsonArray *aa = json_node_get_array(a), *bb = json_node_get_array(b);
      cr_assert_geq(json_array_get_length(bb), json_array_get_length(aa), "%s", name);
      for (guint i = 0; i < json_array_get_length(aa); i++) {
        if (!strcmp(name, "buffers"))
          continue; /* the buffer's byteLength grows by the appended data */
        cr_assert(json_node_equal(json_array_get_element(aa, i), json_array_get_element(bb, i)),
                  "%s[%u] changed", name, i);
      }
      continue;
    }
    cr_assert(json_node_equal(a, b), "member '%s' changed", name);
  }
  cr_assert_eq(json_array_get_length(json_object_get_array_member(o, "images")), 1,
               "the fox keeps its image");
  cr_assert_eq(json_array_get_length(json_object_get_array_member(o, "textures")), 1);
  JsonArray *anims = json_object_get_array_member(o, "animations");
  cr_assert_eq(json_array_get_length(anims), 1, "the character's own clips are replaced");
  cr_assert_str_eq(json_object_get_string_member(json_array_get_object_element(anims, 0), "name"),
                   "makehuman_walk1");
  gsize nin = 0, nout = 0;
  const guint8 *din = g_bytes_get_data(bin_in, &nin), *dout = g_bytes_get_data(bin_out, &nout);
  cr_assert_gt(nout, nin);
  cr_assert(memcmp(din, dout, nin) == 0, "the input's buffer bytes are kept");
  rt_cli_clear(&r);
  rt_rmtree(dir);
}
