/* rigkit's BVH reader: channel orders, units, up axes, root OFFSET readings, frame counts and
 * times, End Sites, limits and faults. Most files are generated here from one stick figure
 * described in canonical space (Y-up metres), written in another unit and axis convention. */
#include "import_test.h"

#include <glib/gstdio.h>
#include <rigkit/exporters.h>

typedef struct fig_joint {
  const char *name;
  int parent;
  double off[3]; /* canonical: metres, Y-up, +Z forward, +X the figure's left */
  bool end;
} fig_joint;

/* 1.75 m tall; the lowest points (toe tips) at y = 0, the hips at 0.95 m. */
static const fig_joint fig[] = {
    {"Hips", -1, {0, 0.95, 0}, false},       {"Spine", 0, {0, 0.25, 0}, false},
    {"Neck", 1, {0, 0.3, 0}, false},         {"Head", 2, {0, 0.1, 0}, false},
    {"Head_End", 3, {0, 0.15, 0}, true},     {"LeftArm", 1, {0.2, 0.25, 0}, false},
    {"LeftHand", 5, {0.5, 0, 0}, false},     {"LeftHand_End", 6, {0.15, 0, 0}, true},
    {"RightArm", 1, {-0.2, 0.25, 0}, false}, {"RightHand", 8, {-0.5, 0, 0}, false},
    {"RightHand_End", 9, {-0.15, 0, 0}, true}, {"LeftUpLeg", 0, {0.1, -0.05, 0}, false},
    {"LeftLeg", 11, {0, -0.42, 0}, false},   {"LeftFoot", 12, {0, -0.4, 0}, false},
    {"LeftFoot_End", 13, {0, -0.08, 0.15}, true}, {"RightUpLeg", 0, {-0.1, -0.05, 0}, false},
    {"RightLeg", 15, {0, -0.42, 0}, false},  {"RightFoot", 16, {0, -0.4, 0}, false},
    {"RightFoot_End", 17, {0, -0.08, 0.15}, true},
};
#define FIG_N G_N_ELEMENTS(fig)

/* File axes of a canonical vector for a file whose up axis is `up` (the inverse of the
 * conversion rigkit applies: Z-up files are read as (x, y, z) -> (x, z, -y), and so on). */
static rk_vec3 to_file(const char *up, rk_vec3 c) {
  if (strcmp(up, "Y") == 0)
    return c;
  if (strcmp(up, "Z") == 0)
    return rk_vec3_make(c.x, -c.z, c.y);
  if (strcmp(up, "-Z") == 0)
    return rk_vec3_make(c.x, c.z, -c.y);
  if (strcmp(up, "X") == 0)
    return rk_vec3_make(c.y, -c.x, c.z);
  if (strcmp(up, "-Y") == 0)
    return rk_vec3_make(c.x, -c.y, -c.z);
  cr_assert_fail("axis %s", up);
  return c;
}

typedef struct fig_options {
  const char *up;       /* file up axis */
  double unit;          /* metres per file unit */
  bool root_full;       /* root channels carry the whole hip position (OFFSET too) */
  const char *order;    /* rotation channel order, e.g. "Zrotation Xrotation Yrotation" */
  double arm_deg;       /* frame 1: LeftArm turned by this about canonical +Z */
  const char *frame_time;
  const char *newline;
} fig_options;

#define FIG_OPTIONS_INIT {"Y", 1.0, false, "Zrotation Xrotation Yrotation", 30.0, "0.033333", "\n"}

/* Rotation channel values (in `order`) for a turn of `deg` about canonical +Z. */
static void arm_channels(const fig_options *o, double deg, double out[3]) {
  rk_vec3 axis = to_file(o->up, rk_vec3_make(0, 0, 1));
  for (int k = 0; k < 3; k++) {
    const char c = o->order[k * 10]; /* "Xrotation " is 10 characters */
    const double comp = c == 'X' ? axis.x : c == 'Y' ? axis.y : axis.z;
    out[k] = comp * deg;
  }
}

static char *fig_bvh(const fig_options *o) {
  GString *s = g_string_new("HIERARCHY");
  const char *nl = o->newline;
  g_string_append(s, nl);
  int stack[FIG_N + 1], top = 0;
  for (size_t i = 0; i < FIG_N; i++) {
    while (top > 0 && stack[top - 1] != fig[i].parent) {
      top--;
      g_string_append_printf(s, "%*s}%s", 2 * top, "", nl);
    }
    rk_vec3 f = to_file(o->up, rk_vec3_scale(rk_vec3_make(fig[i].off[0], fig[i].off[1],
                                                          fig[i].off[2]), 1.0 / o->unit));
    const int d = 2 * top;
    if (fig[i].end)
      g_string_append_printf(s, "%*sEnd Site%s", d, "", nl);
    else
      g_string_append_printf(s, "%*s%s %s%s", d, "", i == 0 ? "ROOT" : "JOINT", fig[i].name, nl);
    g_string_append_printf(s, "%*s{%s%*sOFFSET %.9f %.9f %.9f%s", d, "", nl, d + 2, "", f.x, f.y,
                           f.z, nl);
    if (i == 0)
      g_string_append_printf(s, "%*sCHANNELS 6 Xposition Yposition Zposition %s%s", d + 2, "",
                             o->order, nl);
    else if (!fig[i].end)
      g_string_append_printf(s, "%*sCHANNELS 3 %s%s", d + 2, "", o->order, nl);
    stack[top++] = (int)i;
  }
  while (top > 0) {
    top--;
    g_string_append_printf(s, "%*s}%s", 2 * top, "", nl);
  }
  g_string_append_printf(s, "MOTION%sFrames: 2%sFrame Time: %s%s", nl, nl, o->frame_time, nl);
  for (int frame = 0; frame < 2; frame++) {
    for (size_t i = 0; i < FIG_N; i++) {
      if (fig[i].end)
        continue;
      if (i == 0) {
        rk_vec3 p = o->root_full ? rk_vec3_make(0, 0.95, 0) : rk_vec3_make(0, 0, 0);
        p = to_file(o->up, rk_vec3_scale(p, 1.0 / o->unit));
        g_string_append_printf(s, "%.9f %.9f %.9f ", p.x, p.y, p.z);
      }
      double r[3] = {0, 0, 0};
      if (frame == 1 && strcmp(fig[i].name, "LeftArm") == 0)
        arm_channels(o, o->arm_deg, r);
      g_string_append_printf(s, "%.9f %.9f %.9f ", r[0], r[1], r[2]);
    }
    g_string_append(s, nl);
  }
  return g_string_free(s, FALSE);
}

/* Canonical world positions of the figure: frame 0 rest, frame 1 LeftArm turned about +Z. */
static rk_vec3 fig_world(size_t j, int frame, double arm_deg) {
  rk_vec3 p = rk_vec3_make(0, 0, 0);
  for (int i = (int)j; i >= 0; i = fig[i].parent) {
    rk_vec3 o = rk_vec3_make(fig[i].off[0], fig[i].off[1], fig[i].off[2]);
    /* Offsets below LeftArm turn with it. */
    bool below_arm = false;
    for (int k = fig[i].parent; k >= 0; k = fig[k].parent)
      if (strcmp(fig[k].name, "LeftArm") == 0 && strcmp(fig[i].name, "LeftArm") != 0)
        below_arm = true;
    if (frame == 1 && below_arm)
      o = rk_quat_rotate(rk_quat_from_axis_angle(rk_vec3_make(0, 0, 1), arm_deg * RK_DEG), o);
    p = rk_vec3_add(p, o);
  }
  return p;
}

static void assert_fig(const rk_asset *a, double tol) {
  const rk_clip *c = rk_asset_clip(a, 0);
  cr_assert_not_null(c);
  for (int frame = 0; frame < 2; frame++) {
    g_autofree rk_vec3 *p = world_positions(a, c, frame / rk_clip_fps(c));
    for (size_t i = 0; i < FIG_N; i++)
      rk_assert_vec3_near(p[joint(a, fig[i].name)], fig_world(i, frame, 30.0), tol);
  }
}

static rk_asset *import_fig(const fig_options *o, const rk_import_options *opts) {
  g_autofree char *text = fig_bvh(o);
  g_autoptr(GError) error = NULL;
  rk_asset *a = import_text(text, "figure.bvh", opts, &error);
  cr_assert(a, "%s", error ? error->message : "");
  return a;
}

Test(bvh, every_up_axis_is_detected_and_converted) {
  static const char *const ups[] = {"Y", "Z", "-Z", "X", "-Y"};
  for (size_t u = 0; u < G_N_ELEMENTS(ups); u++) {
    fig_options o = FIG_OPTIONS_INIT;
    o.up = ups[u];
    g_autoptr(rk_asset) a = import_fig(&o, NULL);
    cr_assert_str_eq(rk_asset_up_axis(a), ups[u]);
    assert_fig(a, 1e-7);
  }
}

Test(bvh, up_axis_override) {
  fig_options o = FIG_OPTIONS_INIT;
  o.up = "Z";
  rk_import_options opts = RK_IMPORT_OPTIONS_INIT;
  opts.up_axis = "Z";
  g_autoptr(rk_asset) a = import_fig(&o, &opts);
  cr_assert_str_eq(rk_asset_up_axis(a), "Z");
  cr_assert(has_note(a, "given by the caller"));
  assert_fig(a, 1e-7);
  opts.up_axis = "Y"; /* wrong on purpose: nothing is rotated */
  g_autoptr(rk_asset) b = import_fig(&o, &opts);
  g_autofree rk_vec3 *p = world_positions(b, NULL, 0);
  rk_assert_near(p[joint(b, "Head_End")].z, 1.75, 1e-7);
}

Test(bvh, unit_is_detected_from_the_skeleton_height) {
  static const struct {
    const char *name;
    double metres;
  } units[] = {{"m", 1.0},       {"dm", 0.1},      {"cm", 0.01},          {"mm", 0.001},
               {"in", 0.0254},   {"ft", 0.3048},   {"cmu", 0.0254 / 0.45}};
  for (size_t u = 0; u < G_N_ELEMENTS(units); u++) {
    fig_options o = FIG_OPTIONS_INIT;
    o.unit = units[u].metres;
    o.up = u % 2 ? "Z" : "Y";
    g_autoptr(rk_asset) a = import_fig(&o, NULL);
    cr_assert_str_eq(rk_asset_unit_name(a), units[u].name, "unit %s read as %s", units[u].name,
                     rk_asset_unit_name(a));
    rk_assert_near(rk_asset_unit_scale(a), units[u].metres, 1e-12);
    assert_fig(a, 1e-6);
  }
}

Test(bvh, unit_override_wins) {
  fig_options o = FIG_OPTIONS_INIT;
  o.unit = 0.01;
  rk_import_options opts = RK_IMPORT_OPTIONS_INIT;
  opts.unit_scale = 0.001; /* the caller says millimetres: a 17.5 cm figure */
  g_autoptr(rk_asset) a = import_fig(&o, &opts);
  cr_assert_str_eq(rk_asset_unit_name(a), "mm");
  g_autofree rk_vec3 *p = world_positions(a, NULL, 0);
  rk_assert_near(p[joint(a, "Head_End")].y, 0.175, 1e-9);
}

Test(bvh, a_skeleton_of_no_human_size_gets_the_nearest_unit_and_a_note) {
  fig_options o = FIG_OPTIONS_INIT;
  o.unit = 0.004; /* 437.5 units tall: neither cm (140-210) nor mm (1400-2100) */
  g_autoptr(rk_asset) a = import_fig(&o, NULL);
  cr_assert(has_note(a, "no human height"));
  cr_assert_str_eq(rk_asset_unit_name(a), "cm");
}

Test(bvh, channel_order_is_the_euler_order) {
  static const char *const orders[] = {"Xrotation Yrotation Zrotation", "Xrotation Zrotation Yrotation",
                                       "Yrotation Xrotation Zrotation", "Yrotation Zrotation Xrotation",
                                       "Zrotation Xrotation Yrotation", "Zrotation Yrotation Xrotation"};
  static const rk_euler_order eo[] = {RK_EULER_XYZ, RK_EULER_XZY, RK_EULER_YXZ,
                                      RK_EULER_YZX, RK_EULER_ZXY, RK_EULER_ZYX};
  const double deg[3] = {25, -40, 70};
  for (size_t k = 0; k < G_N_ELEMENTS(orders); k++) {
    g_autofree char *with_channels = g_strdup_printf(
        "HIERARCHY\nROOT A\n{\n OFFSET 0 0 0\n CHANNELS 3 %s\n JOINT B\n {\n  OFFSET 0 1.7 0\n"
        "  CHANNELS 3 Xrotation Yrotation Zrotation\n  End Site\n  {\n   OFFSET 0 0.1 0\n  }\n"
        " }\n}\nMOTION\nFrames: 1\nFrame Time: 0.04\n%g %g %g 0 0 0\n",
        orders[k], deg[0], deg[1], deg[2]);
    rk_import_options opts = RK_IMPORT_OPTIONS_INIT;
    opts.up_axis = "Y";
    opts.unit_scale = 1;
    g_autoptr(GError) error = NULL;
    g_autoptr(rk_asset) a = import_text(with_channels, "order.bvh", &opts, &error);
    cr_assert(a, "%s", error ? error->message : "");
    const rk_clip *c = rk_asset_clip(a, 0);
    const rk_track *t = rk_clip_track(c, (size_t)rk_clip_find_track(c, 0, RK_CHANNEL_ROTATION));
    const double rad[3] = {deg[0] * RK_DEG, deg[1] * RK_DEG, deg[2] * RK_DEG};
    rk_quat expect = rk_euler_to_quat(eo[k], rad);
    rk_assert_quat_near(rk_quat_make(t->values[0], t->values[1], t->values[2], t->values[3]),
                        expect, 1e-12);
  }
}

Test(bvh, crlf_tabs_and_another_channel_order) {
  fig_options o = FIG_OPTIONS_INIT;
  o.newline = "\r\n";
  o.order = "Yrotation Xrotation Zrotation";
  o.up = "Z";
  g_autofree char *text = fig_bvh(&o);
  /* Indent with tabs instead of spaces. */
  for (char *p = text; *p; p++)
    if (*p == ' ' && (p == text || p[-1] == '\n' || p[-1] == '\t'))
      *p = '\t';
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_asset) a = import_text(text, "crlf.bvh", NULL, &error);
  cr_assert(a, "%s", error ? error->message : "");
  assert_fig(a, 1e-7);
}

Test(bvh, root_offset_reading_puts_the_feet_on_the_ground) {
  for (int full = 0; full < 2; full++) {
    fig_options o = FIG_OPTIONS_INIT;
    o.root_full = full;
    g_autoptr(rk_asset) a = import_fig(&o, NULL);
    cr_assert(has_note(a, full ? "replace the root OFFSET" : "add to the root OFFSET"));
    assert_fig(a, 1e-7);
    /* Forcing the other reading lifts the figure or sinks it by the hip height. */
    rk_import_options opts = RK_IMPORT_OPTIONS_INIT;
    opts.bvh_root_offset = full ? RK_BVH_ROOT_OFFSET_ADD : RK_BVH_ROOT_OFFSET_REPLACE;
    g_autoptr(rk_asset) b = import_fig(&o, &opts);
    g_autofree rk_vec3 *p = world_positions(b, rk_asset_clip(b, 0), 0);
    rk_assert_near(p[joint(b, "Hips")].y, full ? 1.9 : 0.0, 1e-7);
  }
}

Test(bvh, crafted_files_agree_in_metres) {
  /* Same motion written Y-up in cm with the root height in the channels, Z-up in inches with
   * CRLF and tabs and the height in the OFFSET, and Y-up in metres. */
  g_autoptr(rk_asset) m = import_ok("crafted/human_yup_m_frames_short.bvh", NULL);
  g_autoptr(rk_asset) cm = import_ok("crafted/human_yup_cm_full_root.bvh", NULL);
  g_autoptr(rk_asset) in = import_ok("crafted/human_zup_in_offset_root.bvh", NULL);
  cr_assert_str_eq(rk_asset_unit_name(cm), "cm");
  cr_assert_str_eq(rk_asset_unit_name(in), "in");
  cr_assert_str_eq(rk_asset_up_axis(in), "Z");
  const size_t n = rk_skeleton_joint_count(rk_asset_skeleton(m));
  for (int f = 0; f < 3; f++) {
    g_autofree rk_vec3 *a = world_positions(m, rk_asset_clip(m, 0), f / 30.0);
    g_autofree rk_vec3 *b = world_positions(cm, rk_asset_clip(cm, 0), f / 30.0);
    g_autofree rk_vec3 *c = world_positions(in, rk_asset_clip(in, 0), f / 30.0);
    for (size_t i = 0; i < n; i++) {
      const char *name = rk_skeleton_joint_name(rk_asset_skeleton(m), i);
      rk_assert_vec3_near(b[joint(cm, name)], a[i], 1e-6);
      rk_assert_vec3_near(c[joint(in, name)], a[i], 1e-6);
    }
  }
}

Test(bvh, header_frame_count_may_disagree_with_the_data) {
  g_autoptr(rk_asset) s = import_ok("crafted/human_yup_m_frames_short.bvh", NULL);
  g_autoptr(rk_asset) l = import_ok("crafted/human_yup_m_frames_long.bvh", NULL);
  cr_assert_eq(rk_clip_frame_count(rk_asset_clip(s, 0)), 3u);
  cr_assert_eq(rk_clip_frame_count(rk_asset_clip(l, 0)), 3u);
  cr_assert(has_note(s, "declares 2 frames, the file has 3"));
  cr_assert(has_note(l, "declares 5 frames, the file has 3"));
}

Test(bvh, frame_time_is_read_exactly) {
  static const struct {
    const char *text;
    double fps;
    double frame_time;
  } cases[] = {{"0.033333", 30, 1.0 / 30},    {"0.0083333", 120, 1.0 / 120},
               {"0.041667", 24, 1.0 / 24},    {"0.01", 100, 0.01},
               {"0.0416", 1 / 0.0416, 0.0416}, {"4.1667e-2", 1 / 4.1667e-2, 4.1667e-2},
               {"0.0333667", 1 / 0.0333667, 0.0333667}};
  for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
    fig_options o = FIG_OPTIONS_INIT;
    o.frame_time = cases[k].text;
    g_autoptr(rk_asset) a = import_fig(&o, NULL);
    const rk_clip *c = rk_asset_clip(a, 0);
    rk_assert_near(rk_clip_fps(c), cases[k].fps, 1e-9);
    rk_assert_near(rk_clip_duration(c), cases[k].frame_time, 1e-15);
  }
}

Test(bvh, end_sites_are_leaf_joints_named_after_their_parent) {
  fig_options o = FIG_OPTIONS_INIT;
  g_autoptr(rk_asset) a = import_fig(&o, NULL);
  const rk_skeleton *s = rk_asset_skeleton(a);
  cr_assert_eq(rk_skeleton_joint_count(s), FIG_N);
  for (size_t i = 0; i < FIG_N; i++) {
    const size_t j = joint(a, fig[i].name);
    cr_assert_eq((rk_skeleton_joint_flags(s, j) & RK_SKELETON_END_SITE) != 0, fig[i].end);
    if (fig[i].end)
      cr_assert_eq(rk_skeleton_child_count(s, j), 0u);
  }
  /* A joint already called "<parent>_End" keeps its name; the End Site yields. */
  const char *text = "HIERARCHY\nROOT A\n{\n OFFSET 0 0 0\n CHANNELS 3 Zrotation Xrotation Yrotation\n"
                     " JOINT A_End\n {\n  OFFSET 0 1 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n"
                     "  End Site\n  {\n   OFFSET 0 0.7 0\n  }\n }\n End Site\n {\n  OFFSET 0 0 1\n }\n}\n"
                     "MOTION\nFrames: 1\nFrame Time: 0.04\n0 0 0 0 0 0\n";
  rk_import_options opts = RK_IMPORT_OPTIONS_INIT;
  opts.up_axis = "Y";
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_asset) b = import_text(text, "ends.bvh", &opts, &error);
  cr_assert(b, "%s", error ? error->message : "");
  const rk_skeleton *sb = rk_asset_skeleton(b);
  cr_assert_eq(rk_skeleton_joint_flags(sb, joint(b, "A_End")) & RK_SKELETON_END_SITE, 0u);
  cr_assert(rk_skeleton_joint_flags(sb, joint(b, "A_End.001")) & RK_SKELETON_END_SITE);
  cr_assert(rk_skeleton_joint_flags(sb, joint(b, "A_End_End")) & RK_SKELETON_END_SITE);
}

Test(bvh, translation_channels_on_inner_joints) {
  /* A joint with position channels: values carrying the offset (replace) or not (add). */
  for (int carry = 0; carry < 2; carry++) {
    g_autofree char *text = g_strdup_printf(
        "HIERARCHY\nROOT A\n{\n OFFSET 0 0 0\n CHANNELS 3 Zrotation Xrotation Yrotation\n"
        " JOINT B\n {\n  OFFSET 0 1 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation "
        "Xrotation Yrotation\n  End Site\n  {\n   OFFSET 0 0.5 0\n  }\n }\n}\nMOTION\nFrames: 2\n"
        "Frame Time: 0.1\n0 0 0 %s 0 0 0\n0 0 0 %s 0 0 0\n",
        carry ? "0 1 0" : "0 0 0", carry ? "0.2 1 0" : "0.2 0 0");
    rk_import_options opts = RK_IMPORT_OPTIONS_INIT;
    opts.up_axis = "Y";
    opts.unit_scale = 1;
    g_autoptr(GError) error = NULL;
    g_autoptr(rk_asset) a = import_text(text, "inner.bvh", &opts, &error);
    cr_assert(a, "%s", error ? error->message : "");
    cr_assert(has_note(a, carry ? "non-root position channels replace" : "non-root position channels add"));
    g_autofree rk_vec3 *p = world_positions(a, rk_asset_clip(a, 0), 0.1);
    rk_assert_vec3_near(p[joint(a, "B")], rk_vec3_make(0.2, 1, 0), 1e-12);
  }
}

Test(bvh, truncated_last_frame_line_is_dropped) {
  fig_options o = FIG_OPTIONS_INIT;
  g_autofree char *text = fig_bvh(&o);
  const size_t len = strlen(text);
  text[len - 30] = '\0'; /* cut inside the last frame line */
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_asset) a = import_text(text, "cut.bvh", NULL, &error);
  cr_assert(a, "%s", error ? error->message : "");
  cr_assert_eq(rk_clip_frame_count(rk_asset_clip(a, 0)), 1u);
  cr_assert(has_note(a, "truncated"));
}

Test(bvh, skeleton_without_frames) {
  const char *text = "HIERARCHY\nROOT A\n{\n OFFSET 0 0 0\n CHANNELS 3 Zrotation Xrotation Yrotation\n"
                     " End Site\n {\n  OFFSET 0 1.7 0\n }\n}\nMOTION\nFrames: 0\nFrame Time: 0.04\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_asset) a = import_text(text, "rest.bvh", NULL, &error);
  cr_assert(a, "%s", error ? error->message : "");
  cr_assert_eq(rk_asset_clip_count(a), 0u);
  cr_assert_eq(rk_skeleton_joint_count(rk_asset_skeleton(a)), 2u);
}

static void expect_fault(const char *text, int code, const char *words) {
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_asset) a = import_text(text, "fault.bvh", NULL, &error);
  cr_assert_null(a);
  cr_assert(g_error_matches(error, RK_ERROR, code), "got %s: %s",
            rk_error_code_name(error->code), error->message);
  cr_assert(strstr(error->message, "fault.bvh:") == error->message, "%s", error->message);
  cr_assert(strstr(error->message, words), "'%s' does not mention '%s'", error->message, words);
  cr_assert(!strchr(error->message, '\n'));
}

#define HEAD "HIERARCHY\nROOT A\n{\n OFFSET 0 0 0\n CHANNELS 3 Zrotation Xrotation Yrotation\n" \
             " End Site\n {\n  OFFSET 0 1.7 0\n }\n}\n"

Test(bvh, faults_are_reported_with_their_code_and_place) {
  expect_fault(HEAD "MOTION\nFrames: 1000000000\nFrame Time: 0.04\n0 0 0\n", RK_ERROR_LIMIT, "limit");
  expect_fault(HEAD "MOTION\nFrames: -1\nFrame Time: 0.04\n0 0 0\n", RK_ERROR_PARSE, "negative");
  expect_fault(HEAD "MOTION\nFrames: 2.5\nFrame Time: 0.04\n0 0 0\n", RK_ERROR_PARSE, "whole number");
  expect_fault(HEAD "MOTION\nFrames: 1\nFrame Time: -0.04\n0 0 0\n", RK_ERROR_INVALID, "not positive");
  expect_fault(HEAD "MOTION\nFrames: 1\nFrame Time: 7200\n0 0 0\n", RK_ERROR_LIMIT, "3600");
  expect_fault(HEAD "MOTION\nFrames: 2\nFrame Time: 0.04\n0 0 0\n0 inf 0\n", RK_ERROR_INVALID,
               "line 15 (frame 1)");
  expect_fault(HEAD "MOTION\nFrames: 3\nFrame Time: 0.04\n0 0 0\n0 0\n0 0 0\n", RK_ERROR_PARSE,
               "2 values");
  expect_fault(HEAD "MOTION\nFrames: 1\nFrame Time: 0.04\n0 0 0 0\n", RK_ERROR_PARSE, "4 values");
  expect_fault(HEAD "MOTION\nFrames: 5\nFrame Time: 0.04\n", RK_ERROR_PARSE, "no frame data");
  expect_fault(HEAD, RK_ERROR_PARSE, "no MOTION");
  expect_fault("HIERARCHY\nROOT A\n{\n OFFSET 0 0\n}\n", RK_ERROR_PARSE, "three numbers");
  expect_fault("HIERARCHY\nROOT A\n{\n CHANNELS 0\n}\nMOTION\nFrames: 0\nFrame Time: 1\n",
               RK_ERROR_PARSE, "no OFFSET");
  expect_fault("HIERARCHY\n}\n", RK_ERROR_PARSE, "unbalanced");
  expect_fault("HIERARCHY\nJOINT A\n{\n}\n", RK_ERROR_PARSE, "outside a ROOT");
  expect_fault("HIERARCHY\nROOT\n{\n OFFSET 0 0 0\n}\n", RK_ERROR_PARSE, "without a name");
  expect_fault("HIERARCHY\nROOT A\n OFFSET 0 0 0\n}\n", RK_ERROR_PARSE, "expected '{'");
  expect_fault("HIERARCHY\nROOT A\n{\n OFFSET 0 0 0\n CHANNELS 2 Xrotation Xrotation\n}\n",
               RK_ERROR_PARSE, "twice");
  expect_fault("HIERARCHY\nROOT A\n{\n OFFSET 0 0 nan\n}\n", RK_ERROR_INVALID, "not finite");
  expect_fault("HIERARCHY\nROOT A\n{\n OFFSET 0 0 0\n JOINT B\n {\n  OFFSET 0 1 0\n }\n"
               " JOINT B\n {\n  OFFSET 0 1 0\n }\n}\nMOTION\nFrames: 0\nFrame Time: 1\n",
               RK_ERROR_INVALID, "duplicate joint name 'B' (lines 5 and 9)");
  expect_fault("hierarchy? no.\n", RK_ERROR_PARSE, "not a BVH file");
}

Test(bvh, too_many_joints_is_a_limit) {
  /* 70000 nested joints: more than a skeleton may hold, refused while parsing. */
  GString *s = g_string_new("HIERARCHY\nROOT J0\n{\nOFFSET 0 0 0\n");
  for (int i = 1; i < 70000; i++)
    g_string_append_printf(s, "JOINT J%d\n{\nOFFSET 0 1 0\n", i);
  g_autofree char *text = g_string_free(s, FALSE);
  expect_fault(text, RK_ERROR_LIMIT, "more than 65535 joints");
}

Test(bvh, deep_chain_imports_without_recursion) {
  /* 20000 nested joints, each with a channel: no stack overflow anywhere. */
  GString *s = g_string_new("HIERARCHY\nROOT J0\n{\nOFFSET 0 0 0\nCHANNELS 1 Zrotation\n");
  for (int i = 1; i < 20000; i++)
    g_string_append_printf(s, "JOINT J%d\n{\nOFFSET 0 0.0001 0\nCHANNELS 1 Zrotation\n", i);
  for (int i = 0; i < 20000; i++)
    g_string_append(s, "}\n");
  g_string_append(s, "MOTION\nFrames: 1\nFrame Time: 0.04\n");
  for (int i = 0; i < 20000; i++)
    g_string_append(s, "0 ");
  g_string_append(s, "\n");
  g_autofree char *text = g_string_free(s, FALSE);
  rk_import_options opts = RK_IMPORT_OPTIONS_INIT;
  opts.up_axis = "Y";
  opts.unit_scale = 1;
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_asset) a = import_text(text, "deep.bvh", &opts, &error);
  cr_assert(a, "%s", error ? error->message : "");
  cr_assert_eq(rk_skeleton_joint_count(rk_asset_skeleton(a)), 20000u);
}

Test(bvh, numbers_parse_exactly_like_strtod) {
  /* The reader's fast decimal path must give strtod's correctly rounded doubles. */
  static const char *const nums[] = {"0.1", "-0.000001", "123456.789012", "0.123456789012345",
                                     "-98765.4321", "1e-3", "2.5E2", "3.", "-0", "+7.25",
                                     "0.30000000000000004", "1234567890123456789"};
  for (size_t i = 0; i + 2 < G_N_ELEMENTS(nums) + 2; i += 3) {
    const char *x = nums[i % G_N_ELEMENTS(nums)], *y = nums[(i + 1) % G_N_ELEMENTS(nums)],
               *z = nums[(i + 2) % G_N_ELEMENTS(nums)];
    g_autofree char *text = g_strdup_printf(
        "HIERARCHY\nROOT A\n{\n OFFSET %s %s %s\n End Site\n {\n  OFFSET 0 1.7 0\n }\n}\n"
        "MOTION\nFrames: 0\nFrame Time: 0.04\n", x, y, z);
    rk_import_options opts = RK_IMPORT_OPTIONS_INIT;
    opts.up_axis = "Y";
    opts.unit_scale = 1;
    g_autoptr(GError) error = NULL;
    g_autoptr(rk_asset) a = import_text(text, "numbers.bvh", &opts, &error);
    cr_assert(a, "%s", error ? error->message : "");
    const rk_vec3 t = rk_skeleton_rest(rk_asset_skeleton(a), 0)->t;
    cr_assert(t.x == g_ascii_strtod(x, NULL) && t.y == g_ascii_strtod(y, NULL) &&
              t.z == g_ascii_strtod(z, NULL), "%s %s %s read as %.17g %.17g %.17g", x, y, z, t.x,
              t.y, t.z);
  }
}

/* A figure whose legs are long against its upper body (RiggedFigure): the joint centroid sits at
 * the root, so the up sign comes from the body's ends (a foot pair at the bottom, the head on the
 * mirror plane at the top). Read back from rigkit's own BVH without any override. */
Test(bvh, up_sign_from_the_feet_pair_and_the_head) {
  g_autofree char *src = rk_test_data("RiggedFigure.glb");
  g_autoptr(rk_asset) figure = rk_import_file(src, NULL, NULL);
  cr_assert(figure);
  g_autofree char *dir = g_dir_make_tmp("rk-bvh-XXXXXX", NULL);
  g_autofree char *out = g_build_filename(dir, "figure.bvh", NULL);
  g_autoptr(GError) error = NULL;
  cr_assert(rk_export_file(figure, out, NULL, &error), "%s", error ? error->message : "");
  g_autoptr(rk_asset) back = rk_import_file(out, NULL, &error);
  cr_assert(back, "%s", error ? error->message : "");
  cr_assert_str_eq(rk_asset_up_axis(back), "Y");
  g_remove(out);
  g_rmdir(dir);
}
