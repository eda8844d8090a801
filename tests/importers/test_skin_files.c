/* Skin supports, skin meshes and soles of the shared characters: the lowest point equals
 * brute-force skinning at rest and at random poses, and so do the skin meshes' vertices; the
 * soles sit where a foot's heel, ball and toe tip are (on the CMU-style character, exactly where
 * its shoes were built); soles from the bones of the generated BVH clips touch the floor where
 * their ground truth says the points are planted. */
#include "import_test.h"
#include "../core/skin_fixture.h"

#include <json-glib/json-glib.h>
#include <rigkit/humanoid.h>
#include <rigkit/skin.h>
#include <rigkit/skin_mesh.h>

/* The meshes of an asset as an array (borrowed from it; free the array with g_free). */
static const rk_mesh **asset_meshes(const rk_asset *a) {
  const rk_mesh **m = g_new(const rk_mesh *, rk_asset_mesh_count(a) + 1);
  for (size_t i = 0; i < rk_asset_mesh_count(a); i++)
    m[i] = rk_asset_mesh(a, i);
  return m;
}

static rk_skin_support *support_of(const rk_asset *a) {
  g_autoptr(GError) error = NULL;
  rk_skin_support *sup = rk_skin_support_from_asset(a, &error);
  cr_assert(sup, "%s", error ? error->message : "");
  return sup;
}

/* The largest coordinate of the asset's mesh vertices: the hull's rounding allowance is 1e-6 of
 * it (rigkit/skin.h). */
static double reach_from_origin(const rk_asset *a) {
  double far = 0;
  for (size_t m = 0; m < rk_asset_mesh_count(a); m++) {
    const rk_mesh_data *d = rk_mesh_data_get(rk_asset_mesh(a, m));
    for (size_t i = 0; i < 3 * d->vertex_count; i++)
      far = fmax(far, fabs(d->positions[i]));
  }
  return far;
}

/* The lowest point of every shared character is the brute-force one at rest and at 300 random
 * poses (every joint turned by up to 60 degrees, the root moved), within the hull's rounding
 * allowance; fewer candidates than vertices. */
Test(skin_files, lowest_point_of_the_characters_is_the_brute_force_one) {
  const char *files[] = {"RiggedFigure.glb",         "Fox.glb",
                         "generated/cmu_char.glb",   "generated/mh_char.glb",
                         "generated/game_robot.glb", "generated/game_stylised.glb",
                         "generated/cmu_char.fbx"};
  guint64 rng = 99;
  for (size_t f = 0; f < G_N_ELEMENTS(files); f++) {
    g_autoptr(rk_asset) a = import_ok(files[f], NULL);
    const rk_skeleton *s = rk_asset_skeleton(a);
    const size_t n = rk_skeleton_joint_count(s);
    g_autoptr(rk_skin_support) sup = support_of(a);
    g_autofree const rk_mesh **meshes = asset_meshes(a);
    g_autofree rk_mat4 *rest = g_new(rk_mat4, n);
    g_autofree rk_mat4 *models = g_new(rk_mat4, n);
    g_autofree rk_transform *locals = g_new(rk_transform, n);
    rk_skeleton_rest_models(s, rest);
    const double scale = reach_from_origin(a);
    const size_t nv = rk_skin_support_vertex_count(sup, -1),
                 nc = rk_skin_support_candidate_count(sup, -1);
    cr_assert(nc > 0 && nc < nv, "%s: %zu candidates of %zu vertices", files[f], nc, nv);
    for (int pose = 0; pose <= 300; pose++) {
      if (pose == 0)
        memcpy(models, rest, n * sizeof *models);
      else
        random_pose(s, &rng, 60 * RK_DEG, 0.5, locals, models);
      const brute_lowest b = brute_lowest_of(s, rest, meshes, rk_asset_mesh_count(a), models, NULL);
      cr_assert_eq(b.count, nv);
      rk_skin_point p;
      cr_assert(rk_skin_lowest(sup, models, NULL, 0, &p));
      cr_assert(p.position.y >= b.y - 1e-12 * scale && p.position.y <= b.y + 1e-6 * scale,
                "%s pose %d: %.12g, brute force %.12g", files[f], pose, p.position.y, b.y);
    }
  }
}

/* The skin meshes of the characters (rigkit/skin_mesh.h): at rest and at 100 random poses their
 * vertices reach exactly as far (lowest, highest, leftmost, rightmost) as every vertex of the
 * file skinned by brute force; seam copies merged, no triangle gained. */
Test(skin_files, skin_meshes_of_the_characters_skin_as_brute_force) {
  const char *files[] = {"RiggedFigure.glb", "Fox.glb", "generated/mh_char.glb",
                         "generated/game_robot.glb", "generated/cmu_char.fbx"};
  guint64 rng = 5;
  for (size_t f = 0; f < G_N_ELEMENTS(files); f++) {
    g_autoptr(rk_asset) a = import_ok(files[f], NULL);
    const rk_skeleton *s = rk_asset_skeleton(a);
    const size_t n = rk_skeleton_joint_count(s);
    g_autoptr(GError) e = NULL;
    g_autoptr(rk_skin_mesh) m = rk_skin_mesh_from_asset(a, &e);
    cr_assert(m, "%s: %s", files[f], e ? e->message : "");
    size_t vertices = 0, triangles = 0;
    for (size_t k = 0; k < rk_asset_mesh_count(a); k++) {
      const rk_mesh_data *d = rk_mesh_data_get(rk_asset_mesh(a, k));
      vertices += d->vertex_count;
      triangles += (d->indices ? d->index_count : d->vertex_count) / 3;
    }
    const size_t nv = rk_skin_mesh_vertex_count(m);
    cr_assert(nv > 0 && nv <= vertices, "%s: %zu of %zu vertices", files[f], nv, vertices);
    cr_assert(rk_skin_mesh_triangle_count(m) <= triangles);
    g_autofree rk_mat4 *rest = g_new(rk_mat4, n);
    g_autofree rk_mat4 *models = g_new(rk_mat4, n);
    g_autofree rk_transform *locals = g_new(rk_transform, n);
    g_autofree rk_vec3 *posed = g_new(rk_vec3, nv);
    rk_skeleton_rest_models(s, rest);
    for (int pose = 0; pose <= 100; pose++) {
      if (pose == 0)
        memcpy(models, rest, n * sizeof *models);
      else
        random_pose(s, &rng, 60 * RK_DEG, 0.5, locals, models);
      rk_skin_mesh_pose(m, models, posed);
      double got[4] = {INFINITY, -INFINITY, INFINITY, -INFINITY}, want[4];
      memcpy(want, got, sizeof got);
      for (size_t i = 0; i < nv; i++)
        got[0] = fmin(got[0], posed[i].y), got[1] = fmax(got[1], posed[i].y),
        got[2] = fmin(got[2], posed[i].x), got[3] = fmax(got[3], posed[i].x);
      for (size_t k = 0; k < rk_asset_mesh_count(a); k++) {
        const rk_mesh_data *d = rk_mesh_data_get(rk_asset_mesh(a, k));
        for (size_t v = 0; (d->joints || d->attach_joint >= 0) && v < d->vertex_count; v++) {
          const rk_vec3 p = brute_skin(s, rest, d, v, models);
          want[0] = fmin(want[0], p.y), want[1] = fmax(want[1], p.y);
          want[2] = fmin(want[2], p.x), want[3] = fmax(want[3], p.x);
        }
      }
      for (int i = 0; i < 4; i++)
        rk_assert_near(got[i], want[i], 1e-9);
    }
  }
}

/* What a sole must look like: heel behind the ankle unless the foot walks on its toes, the points
 * within `flat` times the foot's length of the foot's lowest rest point. */
typedef struct sole_shape {
  bool plantigrade;
  double flat;
} sole_shape;

/* Heel behind the ankle (see shape), ball ahead of the heel, tip ahead of both, all near the
 * foot's lowest rest point (see shape). */
static void check_sole(const rk_skin_support *sup, int foot, int toe, rk_vec3 forward,
                       sole_shape shape, const char *what, rk_sole *sole) {
  const rk_skeleton *s = rk_skin_support_skeleton(sup);
  g_autoptr(GError) error = NULL;
  cr_assert(rk_sole_build(sup, NULL, foot, toe, forward, sole, &error), "%s: %s", what,
            error ? error->message : "");
  cr_assert_eq(sole->source, RK_SOLE_FROM_MESH, "%s", what);
  g_autofree rk_mat4 *rest = g_new(rk_mat4, rk_skeleton_joint_count(s));
  rk_skeleton_rest_models(s, rest);
  rk_skin_point low;
  cr_assert(rk_skin_lowest_subtree(sup, rest, foot, &low));
  const double ankle = rk_vec3_dot(rk_mat4_get_translation(&rest[foot]), forward);
  const double heel = rk_vec3_dot(sole->rest[RK_SOLE_HEEL], forward);
  const double ball = rk_vec3_dot(sole->rest[RK_SOLE_BALL], forward);
  const double tip = rk_vec3_dot(sole->rest[RK_SOLE_TIP], forward);
  cr_assert((heel < ankle || !shape.plantigrade) && heel < ball && ball < tip && ankle < tip,
            "%s: heel %g, ankle %g, ball %g, tip %g along forward", what, heel, ankle, ball, tip);
  for (int k = 0; k < RK_SOLE_POINTS; k++)
    cr_assert(fabs(sole->rest[k].y - low.position.y) <= shape.flat * (tip - heel),
              "%s: point %d at height %g, the foot's lowest %g", what, k, sole->rest[k].y,
              low.position.y);
  /* At rest the points sit where their joints' rest frames put them. */
  rk_vec3 at[RK_SOLE_POINTS];
  rk_sole_at(sole, rest, at);
  for (int k = 0; k < RK_SOLE_POINTS; k++)
    rk_assert_vec3_near(at[k], sole->rest[k], 1e-9 * (1 + rk_vec3_norm(at[k])));
}

Test(skin_files, soles_of_the_characters_are_sensible) {
  const char *humans[] = {"RiggedFigure.glb", "generated/cmu_char.glb", "generated/mh_char.glb",
                          "generated/cmu_char.fbx"};
  const sole_shape human = {true, 0.01}, fox_hind = {false, 0.06}, rocker = {true, 0.15};
  for (size_t f = 0; f < G_N_ELEMENTS(humans); f++) {
    g_autoptr(rk_asset) a = import_ok(humans[f], NULL);
    g_autoptr(rk_skin_support) sup = support_of(a);
    rk_humanoid_map m;
    cr_assert(rk_humanoid_map_build(rk_asset_skeleton(a), NULL, &m, NULL));
    rk_sole sole;
    check_sole(sup, m.joint[RK_BONE_LEFT_FOOT], m.joint[RK_BONE_LEFT_TOES], m.forward, human,
               humans[f], &sole);
    check_sole(sup, m.joint[RK_BONE_RIGHT_FOOT], m.joint[RK_BONE_RIGHT_TOES], m.forward, human,
               humans[f], &sole);
  }
  /* The Fox's hind feet, by its map file: it stands on its toes, the hock high behind them, and
   * its paw is not flat at rest (the tip 0.36 above the lowest point of a sole 6.6 long). */
  g_autoptr(rk_asset) fox = import_ok("Fox.glb", NULL);
  g_autoptr(rk_skin_support) fox_sup = support_of(fox);
  rk_humanoid_map m;
  fox_hind_legs_map(rk_asset_skeleton(fox), &m);
  rk_sole sole;
  check_sole(fox_sup, m.joint[RK_BONE_LEFT_FOOT], m.joint[RK_BONE_LEFT_TOES], m.forward, fox_hind,
             "Fox", &sole);
  /* The robot's lower leg carries its foot and has no toe; its rocker sole is an arc about the
   * ankle (heel and tip 3 and 9 mm above its lowest point, 7 cm apart). */
  g_autoptr(rk_asset) robot = import_ok("generated/game_robot.glb", NULL);
  g_autoptr(rk_skin_support) robot_sup = support_of(robot);
  check_sole(robot_sup, (int)joint(robot, "LowerLeg.L"), -1, rk_vec3_make(0, 0, 1), rocker, "robot",
             &sole);
  cr_assert_eq(sole.joint[RK_SOLE_TIP], (int)joint(robot, "LowerLeg.L"));
}

/* The CMU-style character's shoes run flat from its clips' heel point (5.5 cm behind the ankle)
 * to their toe point (under the toe end): the sole from its mesh is those points. */
Test(skin_files, cmu_character_sole_is_where_its_shoes_were_built) {
  g_autoptr(rk_asset) a = import_ok("generated/cmu_char.glb", NULL);
  g_autoptr(rk_skin_support) sup = support_of(a);
  rk_sole sole;
  g_autoptr(GError) error = NULL;
  cr_assert(rk_sole_from_mesh(sup, (int)joint(a, "LeftFoot"), (int)joint(a, "LeftToeBase"),
                              rk_vec3_make(0, 0, 1), &sole, &error),
            "%s", error ? error->message : "");
  rk_assert_vec3_near(sole.rest[RK_SOLE_HEEL], rk_vec3_make(0.09, 0, 0.012 - 0.055), 1e-4);
  rk_assert_vec3_near(sole.rest[RK_SOLE_BALL], rk_vec3_make(0.09, 0, 0.15), 1e-4);
  rk_assert_vec3_near(sole.rest[RK_SOLE_TIP], rk_vec3_make(0.09, 0, 0.205), 1e-4);
}

/* A foot of a generated clip's ground truth: its joints' names, the three points' offsets from
 * their joints (metres, in the joints' rest orientation) and per point the planted frames. */
typedef struct truth_foot {
  char *ankle, *toe;
  rk_vec3 offset[RK_SOLE_POINTS];
  char *planted[RK_SOLE_POINTS];
} truth_foot;

static void truth_foot_clear(truth_foot *t) {
  g_free(t->ankle);
  g_free(t->toe);
  for (int k = 0; k < RK_SOLE_POINTS; k++)
    g_free(t->planted[k]);
}

static truth_foot read_truth(const char *clip, const char *side) {
  g_autofree char *name = g_strdup_printf("generated/%s.truth.json", clip);
  g_autofree char *path = rk_test_data(name);
  g_autoptr(JsonParser) parser = json_parser_new();
  cr_assert(json_parser_load_from_file(parser, path, NULL), "cannot read %s", path);
  JsonObject *feet =
      json_object_get_object_member(json_node_get_object(json_parser_get_root(parser)), "feet");
  JsonObject *foot = json_object_get_object_member(feet, side);
  JsonObject *joints = json_object_get_object_member(foot, "joints");
  JsonObject *points = json_object_get_object_member(foot, "points");
  JsonObject *planted = json_object_get_object_member(foot, "planted");
  truth_foot t;
  t.ankle = g_strdup(json_object_get_string_member(joints, "ankle"));
  t.toe = g_strdup(json_object_get_string_member(joints, "ball"));
  const char *keys[RK_SOLE_POINTS] = {"heel", "ball", "toe"};
  for (int k = 0; k < RK_SOLE_POINTS; k++) {
    JsonArray *o =
        json_object_get_array_member(json_object_get_object_member(points, keys[k]), "offset_m");
    t.offset[k] =
        rk_vec3_make(json_array_get_double_element(o, 0), json_array_get_double_element(o, 1),
                     json_array_get_double_element(o, 2));
    t.planted[k] = g_strdup(json_object_get_string_member(planted, keys[k]));
  }
  return t;
}

/* The sole from the bones of a generated clip's skeleton: the ball and toe tip at the truth's
 * points (within tol; the heel under the ankle, the truth's 5.5 cm behind it, at its height), and
 * at every frame where the truth has a point planted, ours on the floor within tol. */
static void check_bvh_sole(const char *clip, const char *side, double tol) {
  g_autofree char *file = g_strdup_printf("generated/%s.bvh", clip);
  g_autoptr(rk_asset) a = import_ok(file, NULL);
  const rk_skeleton *s = rk_asset_skeleton(a);
  const size_t n = rk_skeleton_joint_count(s);
  truth_foot t = read_truth(clip, side);
  const int foot = (int)joint(a, t.ankle), toe = (int)joint(a, t.toe);
  rk_sole sole;
  g_autoptr(GError) error = NULL;
  cr_assert(rk_sole_from_bones(s, foot, toe, rk_vec3_make(0, 0, 1), &sole, &error), "%s",
            error ? error->message : "");
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  g_autofree rk_transform *locals = g_new(rk_transform, n);
  rk_skeleton_rest_models(s, models);
  const rk_vec3 ankle = rk_mat4_get_translation(&models[foot]);
  const rk_vec3 ball = rk_mat4_get_translation(&models[toe]);
  rk_assert_vec3_near(sole.rest[RK_SOLE_BALL], rk_vec3_add(ball, t.offset[RK_SOLE_BALL]), tol);
  rk_assert_vec3_near(sole.rest[RK_SOLE_TIP], rk_vec3_add(ball, t.offset[RK_SOLE_TIP]), tol);
  rk_assert_vec3_near(sole.rest[RK_SOLE_HEEL],
                      rk_vec3_make(ankle.x, ankle.y + t.offset[RK_SOLE_HEEL].y, ankle.z), tol);
  const rk_clip *c = rk_asset_clip(a, 0);
  const size_t frames = strlen(t.planted[RK_SOLE_BALL]);
  size_t checked = 0;
  for (size_t f = 0; f < frames; f++) {
    cr_assert(rk_clip_sample_frame(c, rk_skeleton_rest_locals(s), rk_clip_fps(c), f, locals, n));
    rk_fk_models(s, locals, models);
    rk_vec3 at[RK_SOLE_POINTS];
    rk_sole_at(&sole, models, at);
    /* The heel only where the whole foot is flat: ours is under the ankle, not behind it. */
    const bool flat = t.planted[RK_SOLE_HEEL][f] == '1' && t.planted[RK_SOLE_BALL][f] == '1';
    for (int k = 0; k < RK_SOLE_POINTS; k++) {
      if (t.planted[k][f] != '1' || (k == RK_SOLE_HEEL && !flat))
        continue;
      cr_assert(fabs(at[k].y) <= tol, "%s %s frame %zu: point %d planted, at height %g", clip, side,
                f, k, at[k].y);
      checked++;
    }
  }
  cr_assert_gt(checked, frames / 4, "%s %s: %zu planted points checked", clip, side, checked);
  truth_foot_clear(&t);
}

Test(skin_files, soles_from_bvh_bones_are_on_the_floor_when_planted) {
  /* CMU-style: ball and toe end 2 cm up, the ankle 8 cm: the sole estimate is exact. MakeHuman's
   * proportions put it 2.4 mm low. */
  check_bvh_sole("cmu_walk", "left", 1e-4);
  check_bvh_sole("cmu_walk", "right", 1e-4);
  check_bvh_sole("cmu_floor", "left", 1e-4);
  check_bvh_sole("mh_walk", "left", 3e-3);
  check_bvh_sole("mh_walk", "right", 3e-3);
}
