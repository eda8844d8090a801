/* rigkit's DH-table text format: the skeleton reproduces the chain's forward kinematics. */
#include "import_test.h"

#include <stdio.h>

/* Z-up table world -> canonical Y-up. */
static rk_vec3 zup(rk_vec3 v) {
  return rk_vec3_make(v.x, v.z, -v.y);
}

/* Sets joint values on the rest pose of a DH skeleton (revolute: about local z). */
static void pose(const rk_asset *a, const char *const *joints, const double *q, size_t n,
                 rk_transform *locals) {
  const rk_skeleton *s = rk_asset_skeleton(a);
  memcpy(locals, rk_skeleton_rest_locals(s), rk_skeleton_joint_count(s) * sizeof *locals);
  for (size_t i = 0; i < n; i++) {
    rk_transform *x = &locals[joint(a, joints[i])];
    x->r = rk_quat_mul(x->r, rk_quat_from_axis_angle(rk_vec3_make(0, 0, 1), q[i]));
  }
}

Test(dh_table, iiwa14_matches_the_ik_target_set) {
  g_autoptr(rk_asset) a = import_ok("iiwa14.dh", NULL);
  const rk_skeleton *s = rk_asset_skeleton(a);
  cr_assert_eq(rk_skeleton_joint_count(s), 9u); /* base, A1..A7, tool */
  cr_assert_str_eq(rk_asset_up_axis(a), "Z");
  cr_assert(rk_skeleton_joint_flags(s, joint(a, "tool")) & RK_SKELETON_END_SITE);
  static const char *const names[] = {"A1", "A2", "A3", "A4", "A5", "A6", "A7"};
  g_autofree char *path = rk_test_data("ik_targets_iiwa14.txt");
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f);
  char line[4096];
  size_t count = 0;
  rk_transform locals[9];
  rk_mat4 models[9];
  const rk_quat to_yup = rk_quat_from_axis_angle(rk_vec3_make(1, 0, 0), -RK_PI / 2);
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#')
      continue;
    double v[22];
    char *p = line;
    for (int k = 0; k < 22; k++)
      v[k] = g_ascii_strtod(p, &p);
    pose(a, names, v + 1, 7, locals);
    rk_fk_models(s, locals, models);
    const rk_mat4 *tool = &models[joint(a, "tool")];
    rk_assert_vec3_near(rk_mat4_get_translation(tool), zup(rk_vec3_make(v[15], v[16], v[17])), 1e-9);
    rk_mat3 r = rk_mat4_get_rotation(tool);
    rk_quat expect = rk_quat_mul(to_yup, rk_quat_make(v[18], v[19], v[20], v[21]));
    rk_assert_quat_near(rk_quat_from_mat3(&r), expect, 1e-9);
    count++;
  }
  fclose(f);
  cr_assert_eq(count, 1000u);
}

Test(dh_table, skeleton_matches_chain_fk_in_both_conventions) {
  /* An arbitrary 4-joint chain with offsets, a base and a tool, written in the standard form and
   * (converted by rk_dh_standard_to_modified) in the modified form: both files must give the
   * DH chain's FK. */
  const rk_dh_row rows[4] = {{0.1, RK_PI / 2, 0.3, 0.2, RK_DH_REVOLUTE},
                             {0.4, 0, 0, -0.5, RK_DH_REVOLUTE},
                             {0, -RK_PI / 2, 0.05, 0, RK_DH_PRISMATIC},
                             {0.02, RK_PI / 3, 0.2, 1.0, RK_DH_REVOLUTE}};
  rk_mat4 base = rk_mat4_translation(rk_vec3_make(0.5, -0.2, 0.1));
  rk_mat4 tool = rk_mat4_rot_z(0.3);
  tool.m[14] = 0.07;
  rk_dh_row mod[4];
  rk_mat4 mtool;
  rk_dh_standard_to_modified(rows, 4, &tool, mod, &mtool);
  rk_transform mt;
  rk_transform_from_mat4(&mtool, &mt);
  /* The modified tool is written as x y z rx ry rz (R = Rz Ry Rx). */
  rk_vec3 eul_m;
  {
    double ang[3];
    rk_euler_from_quat(RK_EULER_ZYX, mt.r, ang);
    eul_m = rk_vec3_make(ang[2], ang[1], ang[0]); /* rx ry rz with R = Rz Ry Rx */
  }
  const double q[4] = {0.7, -1.1, 0.25, 2.0};
  for (int modified = 0; modified < 2; modified++) {
    const rk_dh_row *r = modified ? mod : rows;
    GString *s = g_string_new("rigkit-dh 1\nangle rad\nup y\n");
    g_string_append_printf(s, "convention %s\nbase 0.5 -0.2 0.1\n", modified ? "modified" : "standard");
    if (modified)
      g_string_append_printf(s, "tool %.17g %.17g %.17g %.17g %.17g %.17g\n", mt.t.x, mt.t.y, mt.t.z,
                             eul_m.x, eul_m.y, eul_m.z);
    else
      g_string_append(s, "tool 0 0 0.07 0 0 0.3\n");
    for (int i = 0; i < 4; i++)
      g_string_append_printf(s, "joint J%d %s %.17g %.17g %.17g %.17g\n", i + 1,
                             r[i].type == RK_DH_REVOLUTE ? "revolute" : "prismatic", r[i].a,
                             r[i].alpha, r[i].d, r[i].theta);
    g_string_append(s, "fps 10\nframe 0 0 0 0\n");
    g_string_append_printf(s, "frame %.17g %.17g %.17g %.17g\n", q[0], q[1], q[2], q[3]);
    g_autofree char *text = g_string_free(s, FALSE);
    g_autoptr(GError) error = NULL;
    g_autoptr(rk_asset) a = import_text(text, "chain.dh", NULL, &error);
    cr_assert(a, "%s", error ? error->message : "");
    cr_assert_str_eq(rk_asset_up_axis(a), "Y");
    for (int frame = 0; frame < 2; frame++) {
      rk_dh_chain chain = {modified ? RK_DH_MODIFIED : RK_DH_STANDARD, r, 4, base,
                           modified ? mtool : tool};
      rk_mat4 end;
      const double zero[4] = {0, 0, 0, 0};
      rk_dh_chain_fk(&chain, frame ? q : zero, NULL, &end);
      const rk_clip *c = rk_asset_clip(a, 0);
      g_autofree rk_vec3 *p = world_positions(a, c, frame / 10.0);
      rk_assert_vec3_near(p[joint(a, "tool")], rk_mat4_get_translation(&end), 1e-9);
    }
  }
}

Test(dh_table, units_base_tool_prismatic_and_frames) {
  g_autoptr(rk_asset) a = import_ok("crafted/planar_rrp.dh", NULL);
  cr_assert_str_eq(rk_asset_unit_name(a), "mm");
  const rk_clip *c = rk_asset_clip(a, 0);
  cr_assert_eq(rk_clip_frame_count(c), 3u);
  rk_assert_near(rk_clip_fps(c), 10, 0);
  /* q = (90 deg, -90 deg, 100 mm): the arm reaches along +y of the table, then +x; the slide
   * lifts the tool 150 mm along the table's z (canonical +y), 100 mm above the base plane. */
  g_autofree rk_vec3 *p = world_positions(a, c, 0.2);
  rk_assert_vec3_near(p[joint(a, "tool")], zup(rk_vec3_make(0.3, 0.4, 0.25)), 1e-12);
  g_autofree rk_vec3 *r = world_positions(a, NULL, 0);
  rk_assert_vec3_near(r[joint(a, "tool")], zup(rk_vec3_make(0.7, 0, 0.15)), 1e-12);
  rk_assert_vec3_near(r[joint(a, "base")], zup(rk_vec3_make(0, 0, 0.1)), 1e-12);
}

static void expect_dh_fault(const char *text, int code, const char *words) {
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_asset) a = import_text(text, "t.dh", NULL, &error);
  cr_assert_null(a);
  cr_assert(g_error_matches(error, RK_ERROR, code), "%s: %s", rk_error_code_name(error->code),
            error->message);
  cr_assert(strstr(error->message, words), "'%s' lacks '%s'", error->message, words);
}

Test(dh_table, faults) {
  expect_dh_fault("rigkit-dh 2\n", RK_ERROR_PARSE, "rigkit-dh 1");
  expect_dh_fault("rigkit-dh 1\n", RK_ERROR_PARSE, "no joints");
  expect_dh_fault("rigkit-dh 1\nwhatever 3\n", RK_ERROR_PARSE, "line 2: unknown keyword");
  expect_dh_fault("rigkit-dh 1\njoint a revolute 0 0 x 0\n", RK_ERROR_PARSE, "'x' is not a number");
  expect_dh_fault("rigkit-dh 1\njoint a revolute 0 0 inf 0\n", RK_ERROR_INVALID, "not finite");
  expect_dh_fault("rigkit-dh 1\njoint a revolute 0 0 0 0 2 1\n", RK_ERROR_INVALID, "min > max");
  expect_dh_fault("rigkit-dh 1\njoint base revolute 0 0 0 0\n", RK_ERROR_INVALID, "duplicate");
  expect_dh_fault("rigkit-dh 1\njoint a revolute 0 0 0 0\nframe 1\njoint b revolute 0 0 0 0\n",
                  RK_ERROR_PARSE, "after the frames");
  expect_dh_fault("rigkit-dh 1\nlength furlong\n", RK_ERROR_PARSE, "unknown length unit");
  expect_dh_fault("rigkit-dh 1\nbase 1 2\n", RK_ERROR_PARSE, "x y z");
  expect_dh_fault("rigkit-dh 1\nup w\n", RK_ERROR_PARSE, "up is one of");
  expect_dh_fault("rigkit-dh 1\nfps -3\n", RK_ERROR_INVALID, "fps");
  static const char nul[] = "rigkit-dh 1\n\0joint";
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_asset) a = rk_import_memory(nul, sizeof nul - 1, "nul.dh", NULL, &error);
  cr_assert_null(a);
  cr_assert(strstr(error->message, "NUL"));
}

/* The table's joint types and limits reach the asset (and through it the kinematic tree), also
 * without any frame to show which rows slide. */
Test(dh_table, joint_types_and_limits_are_declared_mechanics) {
  g_autoptr(rk_asset) a = import_ok("iiwa14.dh", NULL);
  const char *names[7] = {"A1", "A2", "A3", "A4", "A5", "A6", "A7"};
  const double lim[7] = {170, 120, 170, 120, 170, 120, 175};
  for (int i = 0; i < 7; i++) {
    rk_joint_mechanics m;
    cr_assert(rk_asset_joint_mechanics(a, (size_t)joint(a, names[i]), &m), "%s", names[i]);
    cr_assert_eq(m.motion, RK_JOINT_REVOLUTE);
    rk_assert_vec3_near(m.axis, rk_vec3_make(0, 0, 1), 0);
    cr_assert(m.has_limits);
    rk_assert_near(m.lower, -lim[i] * RK_DEG, 1e-12);
    rk_assert_near(m.upper, lim[i] * RK_DEG, 1e-12);
  }
  cr_assert_not(rk_asset_joint_mechanics(a, (size_t)joint(a, "base"), NULL));
  cr_assert_not(rk_asset_joint_mechanics(a, (size_t)joint(a, "tool"), NULL));

  const char *text = "rigkit-dh 1\nlength mm\nangle deg\n"
                     "joint lift prismatic 0 0 100 0 -50 250\njoint turn revolute 300 0 0 0\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_asset) b = import_text(text, "lift.dh", NULL, &error);
  cr_assert(b, "%s", error ? error->message : "");
  rk_joint_mechanics m;
  cr_assert(rk_asset_joint_mechanics(b, (size_t)joint(b, "lift"), &m));
  cr_assert_eq(m.motion, RK_JOINT_PRISMATIC);
  rk_assert_near(m.lower, -0.05, 1e-12); /* millimetres to metres */
  rk_assert_near(m.upper, 0.25, 1e-12);
  cr_assert(rk_asset_joint_mechanics(b, (size_t)joint(b, "turn"), &m));
  cr_assert_eq(m.motion, RK_JOINT_REVOLUTE);
  cr_assert_not(m.has_limits);
}
