/* The command-line contract of DESIGN.md for `rigkit info` and `rigkit fk`: JSON fields, exit
 * codes 0 / 1 / 2. */
#include "import_test.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

static JsonNode *run_json(const char *const *args) {
  g_autofree char *out = NULL, *err = NULL;
  const int rc = run_cli(args, &out, &err);
  cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
  g_autoptr(JsonParser) parser = json_parser_new();
  g_autoptr(GError) error = NULL;
  cr_assert(json_parser_load_from_data(parser, out, -1, &error), "not JSON (%s): %s",
            error ? error->message : "", out);
  return json_node_copy(json_parser_get_root(parser));
}

static int run_rc(const char *const *args, char **err_out) {
  g_autofree char *out = NULL;
  char *err = NULL;
  const int rc = run_cli(args, &out, &err);
  if (err_out)
    *err_out = err;
  else
    g_free(err);
  return rc;
}

Test(cli, info_json_has_the_documented_fields) {
  g_autofree char *path = rk_test_data("makehuman_walk1.bvh");
  const char *args[] = {"info", path, "--json", NULL};
  g_autoptr(JsonNode) root = run_json(args);
  JsonObject *o = json_node_get_object(root);
  cr_assert_str_eq(json_object_get_string_member(o, "format"), "bvh");
  JsonObject *conv = json_object_get_object_member(o, "conversions");
  cr_assert_str_eq(json_object_get_string_member(conv, "unit"), "dm");
  rk_assert_near(json_object_get_double_member(conv, "scale"), 0.1, 1e-12);
  cr_assert_str_eq(json_object_get_string_member(conv, "up_axis"), "Z");
  cr_assert(json_array_get_length(json_object_get_array_member(conv, "notes")) >= 3);
  JsonArray *joints = json_object_get_array_member(o, "joints");
  cr_assert_eq(json_array_get_length(joints), 91u);
  JsonObject *j0 = json_array_get_object_element(joints, 0);
  cr_assert_str_eq(json_object_get_string_member(j0, "name"), "Root");
  cr_assert(json_object_get_null_member(j0, "parent"));
  JsonObject *j1 = json_array_get_object_element(joints, 1);
  cr_assert_str_eq(json_object_get_string_member(j1, "parent"), "Root");
  JsonObject *rest = json_object_get_object_member(j0, "rest");
  cr_assert_eq(json_array_get_length(json_object_get_array_member(rest, "translation")), 3u);
  cr_assert_eq(json_array_get_length(json_object_get_array_member(rest, "rotation")), 4u);
  cr_assert_eq(json_array_get_length(json_object_get_array_member(rest, "scale")), 3u);
  rk_assert_near(json_array_get_double_element(json_object_get_array_member(rest, "translation"), 1),
                 0.955688, 1e-9);
  JsonArray *clips = json_object_get_array_member(o, "clips");
  cr_assert_eq(json_array_get_length(clips), 1u);
  JsonObject *c = json_array_get_object_element(clips, 0);
  cr_assert_str_eq(json_object_get_string_member(c, "name"), "makehuman_walk1");
  rk_assert_near(json_object_get_double_member(c, "duration_s"), 13.0 / 24, 1e-12);
  rk_assert_near(json_object_get_double_member(c, "fps"), 24, 0);
  cr_assert_eq(json_object_get_int_member(c, "frames"), 14);
}

Test(cli, info_text_and_help) {
  g_autofree char *path = rk_test_data("Fox.glb");
  const char *args[] = {"info", path, NULL};
  g_autofree char *out = NULL, *err = NULL;
  cr_assert_eq(run_cli(args, &out, &err), 0);
  cr_assert(strstr(out, "joints:  24") && strstr(out, "Survey") && strstr(out, "format:  glb"));
  const char *help[] = {"info", "--help", NULL};
  g_autofree char *hout = NULL, *herr = NULL;
  cr_assert_eq(run_cli(help, &hout, &herr), 0);
  cr_assert(strstr(hout, "--json") && strstr(hout, "--unit"));
  const char *fhelp[] = {"fk", "--help", NULL};
  g_autofree char *fout = NULL, *ferr = NULL;
  cr_assert_eq(run_cli(fhelp, &fout, &ferr), 0);
  cr_assert(strstr(fout, "--frame") && strstr(fout, "--time") && strstr(fout, "--clip"));
}

Test(cli, fk_json_is_exactly_joints_with_positions) {
  g_autofree char *path = rk_test_data("RiggedFigure.glb");
  const char *args[] = {"fk", path, "--frame", "3", "--json", NULL};
  g_autoptr(JsonNode) root = run_json(args);
  JsonObject *o = json_node_get_object(root);
  cr_assert_eq(json_object_get_size(o), 1u);
  JsonArray *joints = json_object_get_array_member(o, "joints");
  cr_assert_eq(json_array_get_length(joints), 19u);
  for (guint i = 0; i < 19; i++) {
    JsonObject *j = json_array_get_object_element(joints, i);
    cr_assert_eq(json_object_get_size(j), 2u);
    cr_assert(json_object_get_string_member(j, "name"));
    JsonArray *p = json_object_get_array_member(j, "position");
    cr_assert_eq(json_array_get_length(p), 3u);
  }
  /* Same numbers as the library at t = 3 / 24 s. */
  g_autoptr(rk_asset) a = import_ok("RiggedFigure.glb", NULL);
  g_autofree rk_vec3 *w = world_positions(a, rk_asset_clip(a, 0), 3.0 / 24.0);
  for (guint i = 0; i < 19; i++) {
    JsonObject *j = json_array_get_object_element(joints, i);
    JsonArray *p = json_object_get_array_member(j, "position");
    const size_t k = joint(a, json_object_get_string_member(j, "name"));
    rk_assert_vec3_near(rk_vec3_make(json_array_get_double_element(p, 0),
                                     json_array_get_double_element(p, 1),
                                     json_array_get_double_element(p, 2)),
                        w[k], 1e-12);
  }
}

Test(cli, fk_clip_by_name_or_index_and_frame_or_time) {
  g_autofree char *path = rk_test_data("Fox.glb");
  const char *by_name[] = {"fk", path, "--clip", "Walk", "--frame", "12", "--json", NULL};
  const char *by_index[] = {"fk", path, "--clip", "1", "--time", "0.5", "--json", NULL};
  g_autoptr(JsonNode) a = run_json(by_name);
  g_autoptr(JsonNode) b = run_json(by_index);
  cr_assert(json_node_equal(a, b), "--clip Walk --frame 12 differs from --clip 1 --time 0.5");
  const char *first[] = {"fk", path, "--frame", "12", "--json", NULL}; /* default: clip 0 */
  g_autoptr(JsonNode) c = run_json(first);
  cr_assert(!json_node_equal(a, c));
}

Test(cli, fk_rest_pose_of_a_file_without_clips) {
  g_autofree char *path = rk_test_data("iiwa14.dh");
  const char *rest[] = {"fk", path, "--frame", "0", "--json", NULL};
  g_autoptr(JsonNode) r = run_json(rest);
  JsonArray *joints = json_object_get_array_member(json_node_get_object(r), "joints");
  JsonObject *tool = json_array_get_object_element(joints, json_array_get_length(joints) - 1);
  cr_assert_str_eq(json_object_get_string_member(tool, "name"), "tool");
  /* The iiwa stretched upright: 0.36 + 0.42 + 0.40 + 0.126 m above its base. */
  rk_assert_near(json_array_get_double_element(json_object_get_array_member(tool, "position"), 1),
                 1.306, 1e-12);
  const char *later[] = {"fk", path, "--frame", "1", NULL};
  cr_assert_eq(run_rc(later, NULL), 1);
}

Test(cli, exit_codes) {
  g_autofree char *fox = rk_test_data("Fox.glb");
  g_autofree char *bvh = rk_test_data("makehuman_walk1.bvh");
  /* 2: bad usage */
  const char *u1[] = {"info", NULL};
  const char *u2[] = {"fk", fox, "--json", NULL};
  const char *u3[] = {"fk", fox, "--frame", "1", "--time", "0.1", NULL};
  const char *u4[] = {"fk", fox, "--frame", "x", NULL};
  const char *u5[] = {"info", bvh, "--unit", "furlong", NULL};
  const char *u6[] = {"info", bvh, "--root-offset", "sideways", NULL};
  const char *u7[] = {"info", bvh, "--up", "W", NULL};
  const char *u8[] = {"info", bvh, "--no-such-option", NULL};
  const char *u9[] = {"info", bvh, fox, NULL};
  const char *u10[] = {"fk", fox, "--time", "-1", NULL};
  const char *u11[] = {"info", bvh, "--format", "obj", NULL};
  const char *const *usage[] = {u1, u2, u3, u4, u5, u6, u7, u8, u9, u10, u11};
  for (size_t i = 0; i < G_N_ELEMENTS(usage); i++) {
    g_autofree char *err = NULL;
    cr_assert_eq(run_rc(usage[i], &err), 2, "case %zu: %s", i, err);
    cr_assert(g_str_has_prefix(err, "rigkit "), "case %zu: %s", i, err);
  }
  /* 1: the input cannot give what was asked */
  const char *f1[] = {"fk", fox, "--clip", "Jump", "--frame", "0", NULL};
  const char *f2[] = {"fk", fox, "--clip", "Walk", "--frame", "18", NULL};
  const char *f3[] = {"fk", fox, "--clip", "Walk", "--time", "0.8", NULL};
  const char *const *fail[] = {f1, f2, f3};
  for (size_t i = 0; i < G_N_ELEMENTS(fail); i++) {
    g_autofree char *err = NULL;
    cr_assert_eq(run_rc(fail[i], &err), 1, "case %zu: %s", i, err);
    cr_assert(strstr(err, fox), "case %zu does not name the file: %s", i, err);
  }
  /* 0: overrides that make sense */
  const char *ok[] = {"info", bvh, "--unit", "0.1", "--up", "Z", "--root-offset", "add", NULL};
  cr_assert_eq(run_rc(ok, NULL), 0);
  const char *last[] = {"fk", fox, "--clip", "Walk", "--frame", "17", NULL};
  cr_assert_eq(run_rc(last, NULL), 0);
}

/* json-glib 1.6's generator prints 1e-08 as "1e-08.0"; the CLI must print valid JSON numbers. */
Test(cli, json_numbers_with_exponents_are_valid) {
  g_autofree char *dir = g_dir_make_tmp("rk-cli-XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "tiny.bvh", NULL);
  const char *bvh = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition "
                    "Zrotation Xrotation Yrotation\n JOINT Top\n {\n  OFFSET 0.00000001 1.7 0\n"
                    "  End Site\n  {\n   OFFSET 0 0.1 0\n  }\n }\n}\nMOTION\nFrames: 1\n"
                    "Frame Time: 0.033333\n0 0 0 0 0 0\n";
  cr_assert(g_file_set_contents(path, bvh, -1, NULL));
  const char *args[] = {"info", path, "--json", "--unit", "m", "--up", "Y", NULL};
  g_autofree char *out = NULL, *err = NULL;
  cr_assert_eq(run_cli(args, &out, &err), 0, "%s", err);
  cr_assert_null(strstr(out, "e-08.0"), "invalid number in: %s", out);
  cr_assert(strstr(out, "1e-08"), "%s", out);
  g_autoptr(JsonParser) parser = json_parser_new();
  cr_assert(json_parser_load_from_data(parser, out, -1, NULL));
  g_remove(path);
  g_rmdir(dir);
}
