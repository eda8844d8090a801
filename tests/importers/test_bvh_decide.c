/* What a BVH file leaves open (importers/src/bvh_decide.c) for small textbook rigs: a rest
 * skeleton lying in one plane is a planar mechanism, read in its own numbers with Y up (once
 * guessed as feet, with up X), mirror symmetric or not; a body standing out of the plane keeps the
 * body rules; the caller's --unit and --up win over both. */
#include "import_test.h"

/* A planar chain along x in the XY plane, lengths scaled by `scale`, with a short clip. */
static char *planar_chain(double scale) {
  return g_strdup_printf("HIERARCHY\nROOT Ground\n{\n  OFFSET 0 0 0\n"
                         "  CHANNELS 3 Zrotation Xrotation Yrotation\n"
                         "  JOINT A1\n  {\n    OFFSET %g 0 0\n"
                         "    CHANNELS 3 Zrotation Xrotation Yrotation\n"
                         "    JOINT A2\n    {\n      OFFSET %g %g 0\n"
                         "      CHANNELS 3 Zrotation Xrotation Yrotation\n"
                         "      End Site\n      {\n        OFFSET %g 0 0\n      }\n    }\n  }\n}\n"
                         "MOTION\nFrames: 2\nFrame Time: 0.5\n0 0 0 0 0 0 0 0 0\n0 0 0 10 0 0 20 0 0\n",
                         2.5 * scale, 2 * scale, 0.5 * scale, 1.5 * scale);
}

Test(bvh_decide, planar_mechanisms_keep_their_numbers_and_bvh_y_up) {
  for (int k = 0; k < 3; k++) {
    const double scale = k == 0 ? 1 : k == 1 ? 100 : 0.01; /* sizes a human height would not fit,
                                                              or would in cm */
    g_autofree char *text = planar_chain(scale);
    g_autoptr(GError) error = NULL;
    g_autoptr(rk_asset) a = import_text(text, "chain.bvh", NULL, &error);
    cr_assert(a, "%s", error ? error->message : "");
    cr_assert_str_eq(rk_asset_unit_name(a), "m", "scale %g", scale);
    rk_assert_near(rk_asset_unit_scale(a), 1.0, 0);
    cr_assert_str_eq(rk_asset_up_axis(a), "Y", "scale %g", scale);
    cr_assert(has_note(a, "planar mechanism"));
    /* The numbers are the file's: the end site at (2.5 + 2 + 1.5, 0.5) times the scale. */
    g_autofree rk_vec3 *p = world_positions(a, NULL, 0);
    rk_assert_vec3_near(p[joint(a, "A2_End")], rk_vec3_make(6 * scale, 0.5 * scale, 0),
                        1e-9 * scale);
  }
}

Test(bvh_decide, the_callers_unit_and_up_axis_win) {
  g_autofree char *text = planar_chain(1);
  rk_import_options o = RK_IMPORT_OPTIONS_INIT;
  o.unit_scale = 0.3048;
  o.up_axis = "X";
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_asset) a = import_text(text, "chain.bvh", &o, &error);
  cr_assert(a, "%s", error ? error->message : "");
  cr_assert_str_eq(rk_asset_unit_name(a), "ft");
  cr_assert_str_eq(rk_asset_up_axis(a), "X");
  cr_assert(has_note(a, "given by the caller (detected: Y)"));
}

/* A stick figure, mirror symmetric across x; flat, or with its feet 10 units forward. */
static char *stick_figure(double foot_z) {
  return g_strdup_printf(
      "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 95 0\n"
      "  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
      "  JOINT Spine\n  {\n    OFFSET 0 30 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
      "    JOINT Head\n    {\n      OFFSET 0 35 0\n      CHANNELS 3 Zrotation Xrotation Yrotation\n"
      "      End Site\n      {\n        OFFSET 0 15 0\n      }\n    }\n  }\n"
      "  JOINT LeftLeg\n  {\n    OFFSET 10 0 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
      "    JOINT LeftFoot\n    {\n      OFFSET 0 -90 0\n      CHANNELS 3 Zrotation Xrotation Yrotation\n"
      "      End Site\n      {\n        OFFSET 0 -5 %g\n      }\n    }\n  }\n"
      "  JOINT RightLeg\n  {\n    OFFSET -10 0 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
      "    JOINT RightFoot\n    {\n      OFFSET 0 -90 0\n      CHANNELS 3 Zrotation Xrotation Yrotation\n"
      "      End Site\n      {\n        OFFSET 0 -5 %g\n      }\n    }\n  }\n}\n"
      "MOTION\nFrames: 1\nFrame Time: 0.033333\n"
      "0 95 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
      foot_z, foot_z);
}

/* 175 units tall: a body in centimetres once its feet stand out of the plane; drawn flat it is
 * read as a planar mechanism (metres, Y up), its mirror notwithstanding, and --unit says cm. */
Test(bvh_decide, only_a_skeleton_out_of_the_plane_is_measured_as_a_body) {
  g_autofree char *body = stick_figure(10), *flat = stick_figure(0);
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_asset) a = import_text(body, "body.bvh", NULL, &error);
  cr_assert(a, "%s", error ? error->message : "");
  cr_assert_str_eq(rk_asset_unit_name(a), "cm");
  cr_assert_str_eq(rk_asset_up_axis(a), "Y");
  cr_assert(has_note(a, "left/right mirror axis X"));
  cr_assert_not(has_note(a, "planar mechanism"));
  g_autoptr(rk_asset) f = import_text(flat, "flat.bvh", NULL, &error);
  cr_assert(f, "%s", error ? error->message : "");
  cr_assert_str_eq(rk_asset_unit_name(f), "m");
  cr_assert_str_eq(rk_asset_up_axis(f), "Y");
  cr_assert(has_note(f, "planar mechanism"));
  rk_import_options o = RK_IMPORT_OPTIONS_INIT;
  cr_assert(rk_import_parse_unit("cm", &o.unit_scale));
  g_autoptr(rk_asset) g = import_text(flat, "flat.bvh", &o, &error);
  cr_assert(g, "%s", error ? error->message : "");
  cr_assert_str_eq(rk_asset_unit_name(g), "cm");
}
