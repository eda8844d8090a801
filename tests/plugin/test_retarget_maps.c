/* The example map files of samples/maps/ on rigs named as each one expects (the MakeHuman walk
 * renamed to Mixamo, Unreal mannequin and CMU MotionBuilder names; an Unreal-style "root" joint
 * added above the pelvis), and bad map files: each a clear error. */
#include "retarget_test.h"

typedef struct name_pair {
  const char *from, *to;
} name_pair;

/* The MakeHuman walk with its joints renamed (whole names of ROOT/JOINT lines), optionally under
 * a new root joint `wrap` (three zero rotation channels). */
static char *renamed_walk(const char *dir, const char *name, const name_pair *map, size_t n,
                          const char *wrap) {
  g_autofree char *src = rt_data("makehuman_walk1.bvh");
  g_autofree char *text = NULL;
  cr_assert(g_file_get_contents(src, &text, NULL, NULL));
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  GString *out = g_string_new(NULL);
  bool motion = false;
  for (size_t i = 0; lines[i]; i++) {
    char *l = lines[i];
    g_strchomp(l);
    const char *t = l + strspn(l, " \t");
    if (g_str_has_prefix(t, "MOTION")) {
      if (wrap)
        g_string_append(out, "}\n");
      motion = true;
      g_string_append_printf(out, "%s\n", l);
      continue;
    }
    if (motion) {
      if (wrap && *t && !g_str_has_prefix(t, "Frame"))
        g_string_append(out, "0 0 0 ");
      g_string_append_printf(out, "%s\n", l);
      continue;
    }
    const bool root = g_str_has_prefix(t, "ROOT "), joint = g_str_has_prefix(t, "JOINT ");
    if (!root && !joint) {
      g_string_append_printf(out, "%s\n", l);
      continue;
    }
    const char *jn = t + (root ? 5 : 6);
    const char *to = jn;
    for (size_t k = 0; k < n; k++)
      if (strcmp(jn, map[k].from) == 0)
        to = map[k].to;
    if (root && wrap)
      g_string_append_printf(out, "ROOT %s\n{\n  OFFSET 0 0 0\n  CHANNELS 3 Zrotation Xrotation "
                                  "Yrotation\n  JOINT %s\n",
                             wrap, to);
    else
      g_string_append_printf(out, "%.*s%s %s\n", (int)(t - l), l, root ? "ROOT" : "JOINT", to);
  }
  char *path = g_build_filename(dir, name, NULL);
  cr_assert(g_file_set_contents(path, out->str, (gssize)out->len, NULL));
  g_string_free(out, TRUE);
  return path;
}

static char *sample_map(const char *name) {
  char *p = g_build_filename(RK_SOURCE_DIR, "samples", "maps", name, NULL);
  cr_assert(g_file_test(p, G_FILE_TEST_IS_REGULAR), "%s missing", p);
  return p;
}

/* Every bone the map file's [group] names shows "map-file" in --print-map, and a retarget with the
 * map succeeds; returns the report's one entry (in *parser). */
static JsonObject *use_map(const char *dir, const char *map, const char *target, const char *clip,
                           const char *group, size_t bones, JsonParser **parser) {
  g_autoptr(GKeyFile) kf = g_key_file_new();
  cr_assert(g_key_file_load_from_file(kf, map, G_KEY_FILE_NONE, NULL), "%s", map);
  gsize nkeys = 0;
  g_auto(GStrv) keys = g_key_file_get_keys(kf, group, &nkeys, NULL);
  cr_assert_eq(nkeys, bones, "%s [%s] maps %zu bones", map, group, (size_t)nkeys);
  const char *pm[] = {"retarget", "--target", target, "--map", map, "--print-map", clip, NULL};
  cli_run r = rt_cli(dir, pm);
  cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
  /* The [group] part of the listing: target first, then "source ...". */
  const char *src_part = strstr(r.out, "\nsource ");
  cr_assert_not_null(src_part);
  g_autofree char *part = !strcmp(group, "target") ? g_strndup(r.out, (gsize)(src_part - r.out))
                                                   : g_strdup(src_part);
  for (gsize k = 0; k < nkeys; k++) {
    g_autofree char *joint = g_key_file_get_string(kf, group, keys[k], NULL);
    const char *line = strstr(part, keys[k]);
    cr_assert_not_null(line, "%s not listed:\n%s", keys[k], part);
    const char *eol = strchr(line, '\n');
    g_autofree char *l = g_strndup(line, eol ? (gsize)(eol - line) : strlen(line));
    cr_assert_not_null(strstr(l, joint), "%s: %s", keys[k], l);
    cr_assert_not_null(strstr(l, "map-file"), "%s", l);
  }
  rt_cli_clear(&r);
  const char *run[] = {"retarget", "--target", target, "--map", map, "--root-motion", "--out-dir",
                       "out", "--report", "r.json", clip, NULL};
  r = rt_cli(dir, run);
  cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
  rt_cli_clear(&r);
  g_autofree char *report = g_build_filename(dir, "r.json", NULL);
  JsonObject *c = rt_clip(rt_json(report, parser), 0);
  cr_assert_str_eq(rt_str(c, "status"), "ok");
  cr_assert_leq(rt_num(c, "foot_skate_mm", "max"), 5.0);
  cr_assert_leq(rt_num(c, "limb_direction_median_deg", NULL), 10.0);
  return c;
}

static const name_pair kMixamo[] = {
    {"Root", "mixamorig:Hips"},          {"Hips", "mixamorig:HipsHelper"},
    {"Spine1", "mixamorig:Spine"},       {"Spine2", "mixamorig:Spine1"},
    {"Spine3", "mixamorig:Spine2"},      {"Neck", "mixamorig:Neck"},
    {"Head", "mixamorig:Head"},          {"Clavicle_L", "mixamorig:LeftShoulder"},
    {"UpArm_L", "mixamorig:LeftArm"},    {"LoArm_L", "mixamorig:LeftForeArm"},
    {"Hand_L", "mixamorig:LeftHand"},    {"Clavicle_R", "mixamorig:RightShoulder"},
    {"UpArm_R", "mixamorig:RightArm"},   {"LoArm_R", "mixamorig:RightForeArm"},
    {"Hand_R", "mixamorig:RightHand"},   {"UpLeg_L", "mixamorig:LeftUpLeg"},
    {"LoLeg_L", "mixamorig:LeftLeg"},    {"Foot_L", "mixamorig:LeftFoot"},
    {"Toe_L", "mixamorig:LeftToeBase"},  {"UpLeg_R", "mixamorig:RightUpLeg"},
    {"LoLeg_R", "mixamorig:RightLeg"},   {"Foot_R", "mixamorig:RightFoot"},
    {"Toe_R", "mixamorig:RightToeBase"},
};

static const name_pair kUnreal[] = {
    {"Root", "pelvis"},        {"Hips", "pelvis_helper"}, {"Spine1", "spine_01"},
    {"Spine2", "spine_02"},    {"Spine3", "spine_03"},    {"Neck", "neck_01"},
    {"Head", "head"},          {"Clavicle_L", "clavicle_l"}, {"UpArm_L", "upperarm_l"},
    {"LoArm_L", "lowerarm_l"}, {"Hand_L", "hand_l"},      {"Clavicle_R", "clavicle_r"},
    {"UpArm_R", "upperarm_r"}, {"LoArm_R", "lowerarm_r"}, {"Hand_R", "hand_r"},
    {"UpLeg_L", "thigh_l"},    {"LoLeg_L", "calf_l"},     {"Foot_L", "foot_l"},
    {"Toe_L", "ball_l"},       {"UpLeg_R", "thigh_r"},    {"LoLeg_R", "calf_r"},
    {"Foot_R", "foot_r"},      {"Toe_R", "ball_r"},
};

static const name_pair kCmu[] = {
    {"Root", "Hips"},            {"Hips", "HipsHelper"},     {"Spine1", "Spine"},
    {"Spine2", "SpineMid"},      {"Spine3", "Spine1"},       {"Clavicle_L", "LeftShoulder"},
    {"UpArm_L", "LeftArm"},      {"LoArm_L", "LeftForeArm"}, {"Hand_L", "LeftHand"},
    {"Clavicle_R", "RightShoulder"}, {"UpArm_R", "RightArm"}, {"LoArm_R", "RightForeArm"},
    {"Hand_R", "RightHand"},     {"UpLeg_L", "LeftUpLeg"},   {"LoLeg_L", "LeftLeg"},
    {"Foot_L", "LeftFoot"},      {"Toe_L", "LeftToeBase"},   {"UpLeg_R", "RightUpLeg"},
    {"LoLeg_R", "RightLeg"},     {"Foot_R", "RightFoot"},    {"Toe_R", "RightToeBase"},
};

Test(retarget_maps, makehuman_target_map) {
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  g_autofree char *fig = rt_data("RiggedFigure.glb");
  g_autofree char *map = sample_map("makehuman_target.map");
  g_autofree char *dir = rt_tmpdir();
  g_autoptr(JsonParser) jp = NULL;
  JsonObject *c = use_map(dir, map, walk, fig, "target", 21, &jp);
  cr_assert_eq(rt_num(c, "mapped_joints", NULL), 19, "all of RiggedFigure's bones");
  rt_rmtree(dir);
}

Test(retarget_maps, mixamo_target_map) {
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  g_autofree char *map = sample_map("mixamo_target.map");
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *target =
      renamed_walk(dir, "mixamo_character.bvh", kMixamo, G_N_ELEMENTS(kMixamo), NULL);
  g_autoptr(JsonParser) jp = NULL;
  JsonObject *c = use_map(dir, map, target, walk, "target", 21, &jp);
  cr_assert_eq(rt_num(c, "mapped_joints", NULL), 21);
  /* Contacts name the target's joints, as the output file does. */
  g_autoptr(GList) planted = json_object_get_members(json_object_get_object_member(c, "contacts"));
  cr_assert_not_null(planted, "some foot is planted");
  for (GList *l = planted; l; l = l->next)
    cr_assert(g_str_has_prefix(l->data, "mixamorig:") && (strstr(l->data, "Foot") ||
                                                          strstr(l->data, "ToeBase")),
              "planted joint %s", (char *)l->data);
  rt_rmtree(dir);
}

Test(retarget_maps, unreal_mannequin_target_map) {
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  g_autofree char *map = sample_map("unreal_mannequin_target.map");
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *target =
      renamed_walk(dir, "mannequin.bvh", kUnreal, G_N_ELEMENTS(kUnreal), "root");
  g_autoptr(JsonParser) jp = NULL;
  JsonObject *c = use_map(dir, map, target, walk, "target", 22, &jp);
  cr_assert_eq(rt_num(c, "mapped_joints", NULL), 21);
  rt_rmtree(dir);
}

Test(retarget_maps, cmu_motionbuilder_source_map_with_settings) {
  g_autofree char *fig = rt_data("RiggedFigure.glb");
  g_autofree char *map = sample_map("cmu_motionbuilder_source.map");
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *clip = renamed_walk(dir, "cmu_like.bvh", kCmu, G_N_ELEMENTS(kCmu), NULL);
  g_autoptr(JsonParser) jp = NULL;
  JsonObject *c = use_map(dir, map, fig, clip, "source", 21, &jp);
  cr_assert_eq(rt_num(c, "fps", NULL), 30, "[settings] fps=30");
  rt_rmtree(dir);
}

Test(retarget_maps, bad_map_files_are_clear_errors) {
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  g_autofree char *fig = rt_data("RiggedFigure.glb");
  g_autofree char *dir = rt_tmpdir();
  static const struct {
    const char *text, *expect;
    int code;
  } cases[] = { /* a batch mistake found before any clip runs: exit 2 */
      {"[target]\nleft_knee=leg_joint_L_2\n", "left_knee", 2},
      {"[Target]\nhips=torso_joint_1\n", "[Target]", 2},
      {"[settings]\ncontact_height=2\n", "contact_height", 2},
      {"[settings]\nfoot_ik=maybe\n", "foot_ik", 2},
      {"[target]\nhips=no_such_joint\n", "no_such_joint", 2},
      {"this is not a key file\n", "bad.map", 2},
  };
  g_autofree char *map = g_build_filename(dir, "bad.map", NULL);
  g_autofree char *out = g_build_filename(dir, "out", NULL);
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    cr_assert(g_file_set_contents(map, cases[i].text, -1, NULL));
    const char *args[] = {"retarget", "--target", fig, "--map", map, "--out-dir", out, walk, NULL};
    cli_run r = rt_cli(NULL, args);
    cr_assert_eq(r.code, cases[i].code, "case %zu: %s%s", i, r.out, r.err);
    cr_assert_not_null(strstr(r.err, cases[i].expect), "case %zu: %s", i, r.err);
    cr_assert_not_null(strstr(r.err, "bad.map"), "case %zu names the file: %s", i, r.err);
    rt_cli_clear(&r);
  }
  g_autoptr(GPtrArray) files = rt_list(out, false);
  cr_assert_eq(files->len, 0, "no output from a bad map");
  rt_rmtree(dir);
}
