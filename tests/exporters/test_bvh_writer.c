/* BVH writer on skeletons built in code, read back by an independent evaluator (bvh_eval.h):
 * world positions at every frame, rest rotations baked into channels, End Sites, orders, units. */
#include "bvh_eval.h"
#include "export_fixtures.h"

static char *write_bvh(const rk_asset *a, const char *dir, const char *file,
                       const rk_export_options *opts) {
  char *path = g_build_filename(dir, file, NULL);
  g_autoptr(GError) e = NULL;
  cr_assert(rk_export_file(a, path, opts, &e), "%s", e ? e->message : "");
  return path;
}

/* Largest distance (metres) between the BVH's joints and rigkit's FK of the clip, over every
 * frame; every skeleton joint must be in the file under its name. */
static double max_world_error(const rk_skeleton *s, const rk_clip *clip, const bvh_file *b,
                              double fps, double metres_per_unit) {
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_vec3 *ours = g_new(rk_vec3, n);
  g_autofree rk_vec3 *theirs = g_new(rk_vec3, b->nodes->len);
  g_autofree int *map = g_new(int, n);
  for (size_t j = 0; j < n; j++) {
    map[j] = bvh_find(b, rk_skeleton_joint_name(s, j));
    cr_assert(map[j] >= 0, "joint '%s' missing from the BVH", rk_skeleton_joint_name(s, j));
  }
  double worst = 0;
  for (size_t f = 0; f < b->frames; f++) {
    const double t = clip ? fmin((double)f / fps, rk_clip_duration(clip)) : 0;
    fixture_world_positions(s, clip, t, ours);
    bvh_world(b, f, theirs);
    for (size_t j = 0; j < n; j++)
      worst = fmax(worst, rk_vec3_norm(rk_vec3_sub(rk_vec3_scale(theirs[map[j]], metres_per_unit),
                                                   ours[j])));
  }
  return worst;
}

Test(bvh, rest_rotations_are_baked_into_channels) {
  g_autoptr(rk_skeleton) s = fixture_humanoid(true);
  g_autoptr(rk_asset) a = rk_asset_new(s);
  cr_assert(rk_asset_add_clip(a, fixture_walk(s, "walk", 46, 30)));
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *path = write_bvh(a, dir, "walk.bvh", NULL);
  bvh_file *b = bvh_load(path);
  cr_assert_eq(b->frames, 46);
  rk_assert_near(b->frame_time, 1.0 / 30, 1e-10);
  double err = max_world_error(s, rk_asset_clip(a, 0), b, 30, 0.01);
  cr_log_info("rotated rest: max world error %.3g m", err);
  cr_assert(err < 1e-6, "world positions differ by %g m", err);
  /* The rest pose (all channels zero) stands where the skeleton's rest pose stands. */
  g_autofree rk_mat4 *rest = g_new(rk_mat4, rk_skeleton_joint_count(s));
  rk_skeleton_rest_models(s, rest);
  for (size_t j = 0; j < rk_skeleton_joint_count(s); j++) {
    rk_vec3 acc = rk_vec3_make(0, 0, 0);
    for (int k = bvh_find(b, rk_skeleton_joint_name(s, j)); k >= 0;
         k = g_array_index(b->nodes, bvh_node, k).parent) {
      const double *o = g_array_index(b->nodes, bvh_node, k).offset;
      acc = rk_vec3_add(acc, rk_vec3_make(o[0], o[1], o[2]));
    }
    rk_assert_vec3_near(rk_vec3_scale(acc, 0.01), rk_mat4_get_translation(&rest[j]), 1e-7);
  }
  bvh_file_free(b);
  fixture_rmdir(dir);
}

Test(bvh, end_sites_default_orders_and_root_channels) {
  g_autoptr(rk_skeleton) s = fixture_humanoid(false);
  g_autoptr(rk_asset) a = rk_asset_new(s);
  cr_assert(rk_asset_add_clip(a, fixture_walk(s, "walk", 10, 30)));
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *path = write_bvh(a, dir, "w.bvh", NULL);
  bvh_file *b = bvh_load(path);
  const bvh_node *root = &g_array_index(b->nodes, bvh_node, 0);
  cr_assert_str_eq(root->name, "Hips");
  cr_assert_eq(root->nch, 6);
  cr_assert_str_eq(root->ch[0], "Xposition");
  cr_assert_str_eq(root->ch[3], "Zrotation");
  cr_assert_str_eq(root->ch[4], "Xrotation");
  cr_assert_str_eq(root->ch[5], "Yrotation");
  /* Head_End and LeftHand_End are End Sites; head_top keeps its name as a JOINT. */
  cr_assert(g_array_index(b->nodes, bvh_node, bvh_find(b, "Head_End")).end_site);
  cr_assert(g_array_index(b->nodes, bvh_node, bvh_find(b, "LeftHand_End")).end_site);
  const bvh_node *top = &g_array_index(b->nodes, bvh_node, bvh_find(b, "head_top"));
  cr_assert_not(top->end_site);
  cr_assert_eq(top->nch, 3);
  const bvh_node *spine = &g_array_index(b->nodes, bvh_node, bvh_find(b, "Spine"));
  cr_assert_eq(spine->nch, 3);
  cr_assert_str_eq(spine->ch[0], "Zrotation");
  /* Root OFFSET is the rest position in centimetres. */
  rk_assert_near(root->offset[1], 95.0, 1e-9);
  double err = max_world_error(s, rk_asset_clip(a, 0), b, 30, 0.01);
  cr_assert(err < 1e-6, "%g", err);
  bvh_file_free(b);
  fixture_rmdir(dir);
}

Test(bvh, scale_animation_gets_position_channels) {
  /* "mixed" animates the chest's scale (children move relative to it) and a cubic root. */
  g_autoptr(rk_skeleton) s = fixture_humanoid(true);
  g_autoptr(rk_asset) a = rk_asset_new(s);
  cr_assert(rk_asset_add_clip(a, fixture_mixed(s)));
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *path = write_bvh(a, dir, "m.bvh", NULL);
  bvh_file *b = bvh_load(path);
  cr_assert_eq(b->frames, 37); /* 1.5 s at 24 fps, the lowest usual rate holding every key */
  cr_assert_eq(g_array_index(b->nodes, bvh_node, bvh_find(b, "Neck")).nch, 6);
  cr_assert_eq(g_array_index(b->nodes, bvh_node, bvh_find(b, "Spine")).nch, 3);
  double err = max_world_error(s, rk_asset_clip(a, 0), b, 24, 0.01);
  cr_assert(err < 1e-6, "%g", err);
  bvh_file_free(b);
  fixture_rmdir(dir);
}

Test(bvh, orders_units_and_zero_root_offset) {
  g_autoptr(rk_skeleton) s = fixture_humanoid(true);
  g_autoptr(rk_asset) a = rk_asset_new(s);
  cr_assert(rk_asset_add_clip(a, fixture_walk(s, "walk", 25, 24)));
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_euler_order *orders = g_new(rk_euler_order, n);
  for (size_t j = 0; j < n; j++)
    orders[j] = (rk_euler_order)(j % 6); /* the six Tait-Bryan orders */
  rk_export_options o = RK_EXPORT_OPTIONS_INIT;
  o.unit = RK_EXPORT_UNIT_METRES;
  o.bvh_joint_orders = orders;
  o.bvh_root = RK_BVH_ROOT_ZERO;
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *path = write_bvh(a, dir, "o.bvh", &o);
  bvh_file *b = bvh_load(path);
  const bvh_node *root = &g_array_index(b->nodes, bvh_node, 0);
  rk_assert_near(root->offset[0], 0, 0);
  rk_assert_near(root->offset[1], 0, 0);
  const bvh_node *spine = &g_array_index(b->nodes, bvh_node, bvh_find(b, "Spine"));
  cr_assert_str_eq(spine->ch[0], "Xrotation"); /* joint 1: XZY */
  cr_assert_str_eq(spine->ch[1], "Zrotation");
  rk_assert_near(b->frame_time, 1.0 / 24, 1e-10);
  double err = max_world_error(s, rk_asset_clip(a, 0), b, 24, 1.0);
  cr_assert(err < 1e-7, "%g", err); /* 8 decimals in metres */
  bvh_file_free(b);

  o.bvh_joint_orders = NULL;
  o.bvh_order = RK_EULER_ZXZ;
  g_autoptr(GError) e = NULL;
  g_autofree char *bad = g_build_filename(dir, "bad.bvh", NULL);
  cr_assert_not(rk_export_file(a, bad, &o, &e));
  cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_UNSUPPORTED), "%s", e->message);
  cr_assert(!g_file_test(bad, G_FILE_TEST_EXISTS));
  fixture_rmdir(dir);
}

Test(bvh, several_roots_and_spaces_in_names) {
  g_autoptr(rk_skeleton_builder) bld = rk_skeleton_builder_new();
  rk_transform x = rk_transform_identity();
  x.t = rk_vec3_make(0.5, 1, 0);
  x.r = rk_quat_from_axis_angle(rk_vec3_make(0, 0, 1), 0.4);
  int r1 = rk_skeleton_builder_add_joint(bld, "left prop", -1, &x, 0);
  rk_skeleton_builder_add_joint(bld, "left prop tip", r1, &x, 0);
  x.t = rk_vec3_make(-0.5, 1, 0);
  int r2 = rk_skeleton_builder_add_joint(bld, "right", -1, &x, 0);
  rk_skeleton_builder_add_joint(bld, "right tip", r2, &x, 0);
  g_autoptr(rk_skeleton) s = rk_skeleton_builder_build(bld, NULL, NULL);
  g_autoptr(rk_asset) a = rk_asset_new(s);
  rk_clip *c = rk_clip_new("two", 4);
  const double t[2] = {0, 1};
  const double tr[6] = {0.5, 1, 0, 0.7, 1.5, 0.2};
  rk_track tt = {2, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, 2, t, tr};
  cr_assert(rk_clip_add_track(c, &tt, NULL));
  rk_quat q = rk_quat_from_axis_angle(rk_vec3_make(1, 1, 0), 1.0);
  const double rr[8] = {x.r.x, x.r.y, x.r.z, x.r.w, q.x, q.y, q.z, q.w};
  rk_track rt = {0, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, 2, t, rr};
  cr_assert(rk_clip_add_track(c, &rt, NULL));
  rk_clip_set_fps(c, 10);
  cr_assert(rk_asset_add_clip(a, c));
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *path = write_bvh(a, dir, "r.bvh", NULL);
  bvh_file *b = bvh_load(path);
  cr_assert_str_eq(g_array_index(b->nodes, bvh_node, 0).name, "rigkit_root");
  cr_assert(bvh_find(b, "left_prop_tip") >= 0);
  /* Compare through the sanitised names. */
  const char *bvh_names[4] = {"left_prop", "left_prop_tip", "right", "right_tip"};
  g_autofree rk_vec3 *ours = g_new(rk_vec3, 4);
  g_autofree rk_vec3 *theirs = g_new(rk_vec3, b->nodes->len);
  for (size_t f = 0; f < b->frames; f++) {
    fixture_world_positions(s, c, (double)f / 10, ours);
    bvh_world(b, f, theirs);
    for (size_t j = 0; j < 4; j++) {
      int k = bvh_find(b, bvh_names[j]);
      cr_assert(k >= 0);
      rk_assert_vec3_near(rk_vec3_scale(theirs[k], 0.01), ours[j], 1e-7);
    }
  }
  bvh_file_free(b);
  fixture_rmdir(dir);
}

Test(bvh, one_clip_only_and_rest_pose_without_clip) {
  g_autoptr(rk_asset) a = fixture_character(5);
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *path = g_build_filename(dir, "two.bvh", NULL);
  g_autoptr(GError) e = NULL;
  cr_assert_not(rk_export_file(a, path, NULL, &e));
  cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_UNSUPPORTED));
  cr_assert(strstr(e->message, "'walk'") && strstr(e->message, "'mixed'"), "%s", e->message);
  cr_assert_eq(fixture_dir_count(dir), 0);
  rk_export_options o = RK_EXPORT_OPTIONS_INIT;
  o.clip = "1";
  g_autofree char *one = write_bvh(a, dir, "one.bvh", &o);
  bvh_file *b = bvh_load(one);
  cr_assert_eq(b->frames, 37);
  bvh_file_free(b);

  g_autoptr(rk_skeleton) s = fixture_humanoid(true);
  g_autoptr(rk_asset) rest = rk_asset_new(s);
  g_autofree char *rp = write_bvh(rest, dir, "rest.bvh", NULL);
  b = bvh_load(rp);
  cr_assert_eq(b->frames, 1);
  cr_assert(max_world_error(s, NULL, b, 30, 0.01) < 1e-7);
  bvh_file_free(b);
  fixture_rmdir(dir);
}

Test(bvh, output_is_deterministic) {
  g_autoptr(rk_skeleton) s = fixture_humanoid(true);
  g_autoptr(rk_asset) a = rk_asset_new(s);
  cr_assert(rk_asset_add_clip(a, fixture_walk(s, "walk", 30, 30)));
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *p1 = write_bvh(a, dir, "1.bvh", NULL);
  g_autofree char *p2 = write_bvh(a, dir, "2.bvh", NULL);
  g_autofree char *c1 = NULL, *c2 = NULL;
  cr_assert(g_file_get_contents(p1, &c1, NULL, NULL) && g_file_get_contents(p2, &c2, NULL, NULL));
  cr_assert_str_eq(c1, c2);
  cr_assert_null(strstr(c1, "-0.000000 "), "negative zero written");
  fixture_rmdir(dir);
}
