/* Kinematic trees of real files (tests/data) and of the textbook ring (samples/textbook): the
 * MakeHuman walk's knees and elbows as fitted hinges, humanoid junctions, both feet planted, the
 * iiwa DH table through the importer, the ring's effective DOF under a free root and fixed, and
 * `rigkit tree` (text and JSON, import options, configurations, poses and points). */
#include "rk_test.h"

#include <json-glib/json-glib.h>
#include <rigkit/importers.h>

static rk_asset *import_or_fail(const char *name) {
  g_autofree char *path = rk_test_data(name);
  g_autoptr(GError) error = NULL;
  rk_asset *a = rk_import_file(path, NULL, &error);
  cr_assert(a, "%s: %s", name, error ? error->message : "");
  return a;
}

static bool is_junction(const rk_tree *t, const char *name) {
  for (size_t i = 0; i < rk_tree_junction_count(t); i++)
    if (rk_tree_junction(t, i)->link == rk_tree_find_link(t, name))
      return true;
  return false;
}

Test(tree_files, makehuman_walk_knees_and_elbows_are_fitted_hinges) {
  g_autoptr(rk_asset) a = import_or_fail("makehuman_walk1.bvh");
  const rk_skeleton *s = rk_asset_skeleton(a);
  cr_assert_eq(rk_skeleton_joint_count(s), 91);
  cr_assert_geq(rk_asset_clip_count(a), 1);
  g_autoptr(rk_tree) still = rk_test_tree_or_fail(s, NULL, NULL);
  /* Without motion: a free root and 74 balls (the 16 end sites are fixed). */
  cr_assert_eq(rk_tree_dof_count(still), 6 + 74 * 3);
  cr_assert_eq(rk_test_joint_named(still, "LoLeg_L")->type, RK_JOINT_BALL);
  cr_assert(rk_test_joint_named(still, "LoLeg_L")->hinge_hint);

  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, rk_asset_clip(a, 0), NULL);
  const char *hinges[] = {"LoLeg_L", "LoLeg_R", "LoArm_L", "LoArm_R"};
  for (size_t i = 0; i < G_N_ELEMENTS(hinges); i++) {
    const rk_joint *j = rk_test_joint_named(t, hinges[i]);
    cr_assert_eq(j->type, RK_JOINT_REVOLUTE, "%s is %s (residual %.3f deg)", hinges[i],
                 rk_joint_type_name(j->type), j->fit_residual_max / RK_DEG);
    cr_assert_eq(j->origin, RK_ORIGIN_HINGE_FIT);
    cr_assert_leq(j->fit_residual_max, 3.0 * RK_DEG);
    cr_assert_gt(j->fit_range, 45.0 * RK_DEG, "knees and elbows bend a lot in a walk");
    cr_log_info(
        "%s: hinge axis (%.3f, %.3f, %.3f), residual max %.3f deg, rms %.3f deg, range %.1f deg",
        hinges[i], j->axis.x, j->axis.y, j->axis.z, j->fit_residual_max / RK_DEG,
        j->fit_residual_rms / RK_DEG, j->fit_range / RK_DEG);
  }
  /* The knees bend about the zero frame's x (the lateral axis) within 5 degrees. */
  rk_assert_near(fabs(rk_test_joint_named(t, "LoLeg_L")->axis.x), 1.0, 1 - cos(5 * RK_DEG));
  /* Hips and shoulders swing about several axes: balls. */
  const char *balls[] = {"UpLeg_L", "UpLeg_R", "UpArm_L", "UpArm_R", "Foot_L", "Foot_R"};
  for (size_t i = 0; i < G_N_ELEMENTS(balls); i++)
    cr_assert_eq(rk_test_joint_named(t, balls[i])->type, RK_JOINT_BALL, "%s", balls[i]);
  /* Six hinges (knees, elbows and the wrists, which only flex in this walk). */
  size_t fitted = 0;
  for (size_t j = 0; j < rk_tree_link_count(t); j++)
    fitted += rk_tree_joint(t, j)->origin == RK_ORIGIN_HINGE_FIT;
  cr_assert_eq(fitted, 6);
  cr_assert_eq(rk_tree_dof_count(t), 6 + 74 * 3 - 6 * 2);
  /* Junctions at the pelvis (Root: spine and hips; Hips: both legs) and the chest. */
  cr_assert(is_junction(t, "Root"));
  cr_assert(is_junction(t, "Hips"));
  cr_assert(is_junction(t, "Spine3"));
  /* Every frame of the walk maps to q and back with only the hinges' small residual. */
  const rk_clip *c = rk_asset_clip(a, 0);
  rk_transform *locals = g_new(rk_transform, 91), *back = g_new(rk_transform, 91);
  double *q = g_new(double, rk_tree_dof_count(t)), worst = 0;
  for (size_t f = 0; f < rk_clip_frame_count(c); f++) {
    rk_clip_sample_frame(c, rk_skeleton_rest_locals(s), rk_clip_fps(c), f, locals, 91);
    double res;
    rk_tree_q_from_locals(t, locals, NULL, q, &res);
    worst = fmax(worst, res);
  }
  cr_assert_leq(worst, 3.0 * RK_DEG);
  double junction_res[256];
  cr_assert_leq(rk_tree_junction_residual_count(t), G_N_ELEMENTS(junction_res));
  rk_tree_junction_residuals(t, q, junction_res);
  for (size_t r = 0; r < rk_tree_junction_residual_count(t); r++)
    rk_assert_near(junction_res[r], 0, 1e-9);
  g_free(locals);
  g_free(back);
  g_free(q);
}

Test(tree_files, rigged_figure_junctions_and_no_hinges_from_two_keys) {
  g_autoptr(rk_asset) a = import_or_fail("RiggedFigure.glb");
  const rk_skeleton *s = rk_asset_skeleton(a);
  const rk_clip *c = rk_asset_clip_count(a) ? rk_asset_clip(a, 0) : NULL;
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, c, NULL);
  const size_t n = rk_tree_link_count(t);
  size_t balls = 0, free_roots = 0;
  for (size_t j = 0; j < n; j++) {
    balls += rk_tree_joint(t, j)->type == RK_JOINT_BALL;
    free_roots += rk_tree_joint(t, j)->type == RK_JOINT_FREE;
  }
  cr_assert_eq(free_roots, 1);
  cr_assert_eq(rk_tree_dof_count(t), 6 + 3 * balls);
  cr_assert(is_junction(t, "torso_joint_1"), "pelvis: torso and two legs");
  cr_assert(is_junction(t, "torso_joint_3"), "chest: neck and two arms");
  /* Its clip has two keys per joint: no joint may be called a hinge on that evidence. */
  for (size_t j = 0; j < n; j++)
    cr_assert_neq(rk_tree_joint(t, j)->origin, RK_ORIGIN_HINGE_FIT, "%s", rk_tree_link_name(t, j));
}

Test(tree_files, makehuman_with_both_feet_planted) {
  g_autoptr(rk_asset) a = import_or_fail("makehuman_walk1.bvh");
  const rk_skeleton *s = rk_asset_skeleton(a);
  const rk_clip *c = rk_asset_clip(a, 0);
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, c, NULL);
  const size_t nd = rk_tree_dof_count(t);
  rk_transform *locals = g_new(rk_transform, 91);
  double *q = g_new(double, nd);
  rk_clip_sample_frame(c, rk_skeleton_rest_locals(s), rk_clip_fps(c), 0, locals, 91);
  rk_tree_q_from_locals(t, locals, NULL, q, NULL);
  const int lf = rk_tree_find_link(t, "Foot_L"), rf = rk_tree_find_link(t, "Foot_R");
  g_autoptr(rk_loop_ws) ws = rk_loop_ws_new(t, 12);
  rk_loop through = rk_loop_closing(t, RK_LOOP_RIGID, q, lf, rk_vec3_make(0, 0, 0), rf);
  rk_loop planted[2] = {rk_loop_closing(t, RK_LOOP_RIGID, q, lf, rk_vec3_make(0, 0, 0), -1),
                        rk_loop_closing(t, RK_LOOP_RIGID, q, rf, rk_vec3_make(0, 0, 0), -1)};
  cr_assert_lt(rk_test_loop_residual(t, &through, 1, q), 1e-12);
  cr_assert_lt(rk_test_loop_residual(t, planted, 2, q), 1e-12);
  const long without = rk_loops_effective_dof(t, NULL, 0, q, ws);
  const long with_one = rk_loops_effective_dof(t, &through, 1, q, ws);
  const long with_two = rk_loops_effective_dof(t, planted, 2, q, ws);
  cr_log_info("makehuman: %zu DOF; foot-to-foot loop: effective %ld; both feet pinned: %ld", nd,
              with_one, with_two);
  cr_assert_eq(without, (long)nd);
  cr_assert_eq(with_one, (long)nd - 6);
  cr_assert_eq(with_two, (long)nd - 12);
  /* Lower the pelvis by 5 cm: the feet leave their plants; closing the loops brings them back. */
  q[1] -= 0.05;
  cr_assert_gt(rk_test_loop_residual(t, planted, 2, q), 0.04);
  const double err = rk_loops_solve(t, planted, 2, q, 1e-12, 50, ws);
  cr_assert_lt(err, 1e-9, "closure residual %g", err);
  cr_assert_lt(rk_test_loop_residual(t, &through, 1, q), 1e-9);
  g_free(locals);
  g_free(q);
}

Test(tree_files, iiwa_dh_file_gives_back_the_bench_table) {
  g_autoptr(rk_asset) a = import_or_fail("iiwa14.dh");
  const rk_skeleton *s = rk_asset_skeleton(a);
  /* The DH importer's skeleton: a fixed base, seven joints turning about local z, a tool. */
  rk_tree_options o = RK_TREE_OPTIONS_INIT;
  o.root_type = RK_JOINT_FIXED;
  o.default_type = RK_JOINT_REVOLUTE;
  o.default_axis = rk_vec3_make(0, 0, 1);
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, NULL, &o);
  cr_assert_eq(rk_tree_dof_count(t), 7);
  const int tool = rk_tree_find_link(t, "tool");
  cr_assert_geq(tool, 0);
  g_autoptr(rk_chain) ch = rk_chain_new(t, rk_tree_find_link(t, "base"), tool, NULL);
  cr_assert(ch);
  const rk_dh_chain *dh = rk_chain_dh(ch, RK_DH_STANDARD);
  const double a_[7] = {0, 0, 0, 0, 0, 0, 0};
  const double alpha[7] = {-RK_PI / 2, RK_PI / 2, RK_PI / 2, -RK_PI / 2, -RK_PI / 2, RK_PI / 2, 0};
  const double d[7] = {0.360, 0, 0.420, 0, 0.400, 0, 0.126};
  for (int i = 0; i < 7; i++) {
    rk_assert_near(dh->rows[i].a, a_[i], 1e-9);
    rk_assert_near(dh->rows[i].alpha, alpha[i], 1e-9);
    rk_assert_near(dh->rows[i].d, d[i], 1e-9);
    rk_assert_near(dh->rows[i].theta, 0, 1e-9);
  }
  rk_assert_mat4_near(dh->base, rk_mat4_identity(), 1e-9);
  rk_assert_mat4_near(dh->tool, rk_mat4_identity(), 1e-9);
}

/* Runs `rigkit ARGS...`, returns the exit code; *out gets stdout. */
static int run_cli(char **out, const char *const *args) {
  GPtrArray *argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)RK_CLI_PATH);
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add(argv, (gpointer)*a);
  g_ptr_array_add(argv, NULL);
  int status = -1;
  g_autoptr(GError) error = NULL;
  char *err = NULL;
  cr_assert(g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, &err,
                         &status, &error),
            "%s", error ? error->message : "");
  g_free(err);
  g_ptr_array_free(argv, TRUE);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Test(tree_files, cli_json_lists_joints_junctions_loops_and_chains) {
  g_autofree char *path = rk_test_data("makehuman_walk1.bvh");
  g_autofree char *out = NULL;
  const char *args[] = {"tree",   path,           "--json",  "--loop",     "Foot_L:world",
                        "--loop", "Foot_R:world", "--chain", "Hips:Toe_L", NULL};
  cr_assert_eq(run_cli(&out, args), 0);
  g_autoptr(JsonParser) p = json_parser_new();
  cr_assert(json_parser_load_from_data(p, out, -1, NULL), "not JSON:\n%s", out);
  JsonObject *root = json_node_get_object(json_parser_get_root(p));
  const gint64 dof = json_object_get_int_member(root, "dof_count");
  cr_assert_eq(dof, 216);
  JsonArray *links = json_object_get_array_member(root, "links");
  cr_assert_eq(json_array_get_length(links), 91);
  bool knee_ok = false;
  for (guint i = 0; i < json_array_get_length(links); i++) {
    JsonObject *l = json_array_get_object_element(links, i);
    if (strcmp(json_object_get_string_member(l, "name"), "LoLeg_L") == 0) {
      JsonObject *j = json_object_get_object_member(l, "joint");
      knee_ok = strcmp(json_object_get_string_member(j, "type"), "revolute") == 0 &&
                json_object_has_member(j, "axis") && json_object_has_member(j, "hinge_fit") &&
                json_object_get_int_member(j, "dof_index") >= 0;
    }
  }
  cr_assert(knee_ok);
  JsonArray *junctions = json_object_get_array_member(root, "junctions");
  cr_assert_geq(json_array_get_length(junctions), 3);
  JsonObject *closure = json_object_get_object_member(root, "closure");
  cr_assert_eq(json_object_get_int_member(closure, "rank"), 12);
  cr_assert_eq(json_object_get_int_member(closure, "effective_dof"), dof - 12);
  cr_assert_lt(json_object_get_double_member(closure, "residual"), 1e-9);
  JsonArray *chains = json_object_get_array_member(root, "chains");
  bool found = false;
  for (guint i = 0; i < json_array_get_length(chains); i++) {
    JsonObject *c = json_array_get_object_element(chains, i);
    if (strcmp(json_object_get_string_member(c, "name"), "Hips->Toe_L") == 0) {
      found = true;
      JsonArray *rows =
          json_object_get_array_member(json_object_get_object_member(c, "dh_standard"), "rows");
      cr_assert_eq(json_array_get_length(rows), json_object_get_int_member(c, "dof_count"));
    }
  }
  cr_assert(found);
}

Test(tree_files, cli_text_for_the_iiwa_and_bad_input) {
  g_autofree char *path = rk_test_data("iiwa14.dh");
  g_autofree char *out = NULL, *o2 = NULL, *o3 = NULL, *o4 = NULL;
  const char *args[] = {"tree", path, NULL};
  cr_assert_eq(run_cli(&out, args), 0);
  cr_assert(strstr(out, "7 DOF"), "%s", out);
  cr_assert(strstr(out, "world->tool"), "%s", out);
  const char *missing[] = {"tree", "/nonexistent/robot.dh", NULL};
  cr_assert_eq(run_cli(&o2, missing), 1);
  const char *usage[] = {"tree", NULL};
  cr_assert_eq(run_cli(&o3, usage), 2);
  const char *badloop[] = {"tree", path, "--loop", "nosuch:world", NULL};
  cr_assert_eq(run_cli(&o4, badloop), 1);
}

#define RING RK_SOURCE_DIR "/samples/textbook/ring.bvh"

/* The ring of samples/textbook as a user gets it: imported with the defaults, typed by its clip
 * (ten fitted hinges under a free root): 16 DOF, 14 and 13 with the cut pinned or welded at the
 * rest pose and generically; 10, 8 and 7 with the root fixed. */
Test(tree_files, textbook_ring_under_a_free_root_and_fixed) {
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_asset) a = rk_import_file(RING, NULL, &error);
  cr_assert(a, "%s", error ? error->message : "");
  cr_assert_str_eq(rk_asset_unit_name(a), "m", "a planar mechanism keeps its numbers");
  cr_assert_str_eq(rk_asset_up_axis(a), "Y");
  const rk_skeleton *s = rk_asset_skeleton(a);
  for (int fixed = 0; fixed < 2; fixed++) {
    rk_tree_options o = RK_TREE_OPTIONS_INIT;
    if (fixed)
      o.root_type = RK_JOINT_FIXED;
    g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, rk_asset_clip(a, 0), &o);
    const long nd = fixed ? 10 : 16;
    cr_assert_eq((long)rk_tree_dof_count(t), nd);
    double q[16];
    rk_tree_q_rest(t, q);
    const int a5 = rk_tree_find_link(t, "A5_End"), a6 = rk_tree_find_link(t, "A6_End");
    g_autoptr(rk_loop_ws) ws = rk_loop_ws_new(t, 6);
    const rk_loop pin = rk_loop_closing(t, RK_LOOP_POSITION, q, a5, rk_vec3_make(0, 0, 0), a6);
    const rk_loop weld = rk_loop_closing(t, RK_LOOP_RIGID, q, a5, rk_vec3_make(0, 0, 0), a6);
    cr_assert_eq(rk_loops_effective_dof(t, &pin, 1, q, ws), nd - 2);
    cr_assert_eq(rk_loops_effective_dof(t, &pin, 1, NULL, ws), nd - 2);
    cr_assert_eq(rk_loops_effective_dof(t, &weld, 1, q, ws), nd - 3);
    cr_assert_eq(rk_loops_effective_dof(t, &weld, 1, NULL, ws), nd - 3);
  }
}

/* `rigkit tree ARGS... --json`: the closure object. */
static JsonObject *closure_of(JsonParser *p, const char *const *args) {
  g_autofree char *out = NULL;
  cr_assert_eq(run_cli(&out, args), 0);
  cr_assert(json_parser_load_from_data(p, out, -1, NULL), "not JSON:\n%s", out);
  JsonObject *root = json_node_get_object(json_parser_get_root(p));
  cr_assert(json_object_has_member(root, "closure"));
  return json_object_get_object_member(root, "closure");
}

/* The ring through the command line: 14 and 13 under the free root (the old generic count gave
 * 13 and 11), 8 and 7 fixed to the ground or with the base held by a loop to the world; the same
 * at a closed frame of the clip. */
Test(tree_files, cli_ring_effective_dof_at_the_closed_configuration) {
  struct {
    const char *args[9];
    gint64 rank, dof;
  } cases[] = {
      {{"tree", RING, "--json", "--loop", "A5_End:A6_End:position", NULL}, 2, 14},
      {{"tree", RING, "--json", "--loop", "A5_End:A6_End:rigid", NULL}, 3, 13},
      {{"tree", RING, "--json", "--fixed-root", "--loop", "A5_End:A6_End:position", NULL}, 2, 8},
      {{"tree", RING, "--json", "--fixed-root", "--loop", "A5_End:A6_End", NULL}, 3, 7},
      {{"tree", RING, "--json", "--loop", "Base:world", "--loop", "A5_End:A6_End:position", NULL},
       8, 8},
      {{"tree", RING, "--json", "--loop", "Base:world", "--loop", "A5_End:A6_End", NULL}, 9, 7},
      {{"tree", RING, "--json", "--frame", "45", "--loop", "A5_End:A6_End:position", NULL}, 2, 14},
      {{"tree", RING, "--json", "--time", "0.5", "--loop", "A5_End:A6_End", NULL}, 3, 13},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autoptr(JsonParser) p = json_parser_new();
    JsonObject *c = closure_of(p, cases[i].args);
    cr_assert_eq(json_object_get_int_member(c, "rank"), cases[i].rank, "case %zu", i);
    cr_assert_eq(json_object_get_int_member(c, "effective_dof"), cases[i].dof, "case %zu", i);
    cr_assert_eq(json_object_get_int_member(c, "effective_dof_generic"), cases[i].dof);
    cr_assert_lt(json_object_get_double_member(c, "residual"), 1e-12);
    rk_assert_near(json_object_get_double_member(c, "rank_tolerance"), RK_LOOP_RANK_TOLERANCE, 0);
  }
  /* The iiwa welded to the world at its rest pose (stretched straight up, singular): the count
   * there, and the count at a regular closed configuration beside it. */
  g_autofree char *iiwa = rk_test_data("iiwa14.dh");
  const char *weld[] = {"tree", iiwa, "--json", "--loop", "tool:world", NULL};
  g_autoptr(JsonParser) p = json_parser_new();
  JsonObject *c = closure_of(p, weld);
  cr_assert_eq(json_object_get_int_member(c, "effective_dof"), 4);
  cr_assert_eq(json_object_get_int_member(c, "effective_dof_generic"), 1);
  g_autofree char *out = NULL;
  const char *text[] = {"tree", iiwa, "--loop", "tool:world", NULL};
  cr_assert_eq(run_cli(&out, text), 0);
  cr_assert(strstr(out, "this configuration is singular: effective DOF 1 at a regular closed one"),
            "%s", out);
}

/* The import options every command takes, `tree` included; bad values are usage errors. */
Test(tree_files, cli_tree_takes_the_import_options) {
  g_autofree char *walk = rk_test_data("makehuman_walk1.bvh");
  /* Exit 0, 2 for a usage error (a bad value), 1 for an input that fails. */
  const struct {
    int rc;
    const char *args[9];
  } cases[] = {
      {0, {"tree", RING, "--unit", "m", NULL}},
      {0, {"tree", RING, "--up", "Y", "--unit", "0.5", NULL}},
      {0, {"tree", walk, "--unit", "dm", "--up", "Z", "--root-offset", "replace", NULL}},
      {0, {"tree", RING, "--format", "bvh", "--root-offset", "add", NULL}},
      {2, {"tree", RING, "--unit", "furlong", NULL}},
      {2, {"tree", RING, "--up", "W", NULL}},
      {2, {"tree", RING, "--root-offset", "sideways", NULL}},
      {2, {"tree", RING, "--format", "obj", NULL}},
      {2, {"tree", RING, "--frame", "1", "--time", "0", NULL}},
      {2, {"tree", RING, "--time", "-1", NULL}},
      {1, {"tree", RING, "--format", "dh", NULL}},
      {1, {"tree", RING, "--frame", "61", NULL}},
      {1, {"tree", RING, "--time", "5", NULL}},
      {1, {"tree", RING, "--pose", "nosuch", NULL}},
      {1, {"tree", RING, "--point", "A1:1,2@Base", NULL}},
      {1, {"tree", RING, "--pose", "A1@nosuch", NULL}},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *out = NULL;
    cr_assert_eq(run_cli(&out, cases[i].args), cases[i].rc, "case %zu", i);
  }
  /* The unit given is the unit used: the ring in centimetres is a hundredth of its size. */
  g_autofree char *m = NULL, *cm = NULL;
  const char *in_m[] = {"tree", RING, "--json", "--point", "A5_End:0,0,0@Base", NULL};
  const char *in_cm[] = {"tree", RING, "--json", "--unit", "cm", "--point", "A5_End:0,0,0@Base",
                         NULL};
  cr_assert_eq(run_cli(&m, in_m), 0);
  cr_assert_eq(run_cli(&cm, in_cm), 0);
  double x[2];
  for (int k = 0; k < 2; k++) {
    g_autoptr(JsonParser) p = json_parser_new();
    cr_assert(json_parser_load_from_data(p, k ? cm : m, -1, NULL));
    JsonObject *root = json_node_get_object(json_parser_get_root(p));
    JsonObject *pt = json_array_get_object_element(json_object_get_array_member(root, "points"), 0);
    x[k] = json_array_get_double_element(json_object_get_array_member(pt, "position"), 0);
  }
  rk_assert_near(x[0], cos(2 * RK_PI * 5 / 11), 1e-6);
  rk_assert_near(x[1], 0.01 * x[0], 1e-9);
}

/* --pose and --point: a link's frame and a point of it in another link, at a frame of the clip;
 * the DH vertex example of samples/textbook. */
Test(tree_files, cli_poses_and_points_at_a_frame) {
  const char *args[] = {"tree", RK_SOURCE_DIR "/samples/textbook/dh_vertex.dh", "--json",
                        "--frame", "0", "--point", "frame3:3,0,0@frame1", "--pose",
                        "frame3@frame1", NULL};
  g_autofree char *out = NULL;
  cr_assert_eq(run_cli(&out, args), 0);
  g_autoptr(JsonParser) p = json_parser_new();
  cr_assert(json_parser_load_from_data(p, out, -1, NULL), "not JSON:\n%s", out);
  JsonObject *root = json_node_get_object(json_parser_get_root(p));
  cr_assert_str_eq(json_object_get_string_member(root, "configuration"),
                   "frame 0 of clip 'DH vertex example'");
  JsonObject *pt = json_array_get_object_element(json_object_get_array_member(root, "points"), 0);
  JsonArray *pos = json_object_get_array_member(pt, "position");
  const double t2 = 36 * RK_DEG, t3 = -60 * RK_DEG;
  rk_assert_near(json_array_get_double_element(pos, 0), 2.5 + 2 * cos(t2) + 3 * cos(t2 + t3),
                 1e-12);
  rk_assert_near(json_array_get_double_element(pos, 1), 2 * sin(t2) + 3 * sin(t2 + t3), 1e-12);
  JsonObject *pose = json_array_get_object_element(json_object_get_array_member(root, "poses"), 0);
  JsonArray *rows = json_object_get_array_member(pose, "matrix");
  JsonArray *r0 = json_array_get_array_element(rows, 0);
  rk_assert_near(json_array_get_double_element(r0, 0), cos(t2 + t3), 1e-12);
  rk_assert_near(json_array_get_double_element(r0, 3), 2.5 + 2 * cos(t2), 1e-12);
  /* Without --frame: the rest pose (q = 0), where the point lies on the x axis. */
  const char *rest[] = {"tree", RK_SOURCE_DIR "/samples/textbook/dh_vertex.dh", "--point",
                        "frame3:3,0,0@frame1", NULL};
  g_autofree char *text = NULL;
  cr_assert_eq(run_cli(&text, rest), 0);
  cr_assert(strstr(text, "frames at the rest pose:"), "%s", text);
  cr_assert(strstr(text, "point (3, 0, 0) of frame3 in frame1: (7.500000, 0.000000, 0.000000)"),
            "%s", text);
}
