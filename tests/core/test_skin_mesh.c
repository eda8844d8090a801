/* Skin meshes (rigkit/skin_mesh.h) on a rig built in code: a skinned mesh with a seam copy, a
 * blended vertex and one without weights, a rigid mesh on the second joint and static scenery;
 * vertices merged where they skin identically, triangles kept, dropped when merged flat, every
 * vertex at random poses where brute-force skinning puts it; foreign meshes refused. */
#include "skin_fixture.h"

#include <rigkit/skin_mesh.h>

/* Two joints: a root turned 30 degrees about y at (0, 1, 0), its child 0.5 along the root's x. */
static rk_skeleton *two_joints(void) {
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  rk_transform root = rk_transform_identity(), child = rk_transform_identity();
  root.t = rk_vec3_make(0, 1, 0);
  root.r = rk_quat_from_axis_angle(rk_vec3_make(0, 1, 0), 30 * RK_DEG);
  child.t = rk_vec3_make(0.5, 0, 0);
  rk_skeleton_builder_add_joint(b, "root", -1, &root, 0);
  rk_skeleton_builder_add_joint(b, "child", 0, &child, 0);
  g_autoptr(GError) e = NULL;
  rk_skeleton *s = rk_skeleton_builder_build(b, NULL, &e);
  cr_assert(s, "%s", e ? e->message : "");
  return s;
}

static rk_mesh *mesh_or_fail(const rk_mesh_data *d, size_t joints) {
  g_autoptr(GError) e = NULL;
  rk_mesh *m = rk_mesh_new(d, joints, &e);
  cr_assert(m, "%s", e ? e->message : "");
  return m;
}

/* Vertex 2 copies vertex 0 (a seam); vertex 3 has no weight (it goes to its first joint). */
static const float skin_pos[] = {0.1f, 1.2f, 0.0f, 0.6f, 1.1f, 0.1f,
                                 0.1f, 1.2f, 0.0f, 0.3f, 0.9f, -0.2f};
static const uint16_t skin_joints[] = {0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0};
static const float skin_weights[] = {1, 0, 0, 0, 0.25f, 0.75f, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
/* (0, 2, 1) becomes flat once 2 is 0. */
static const uint32_t skin_tris[] = {0, 1, 3, 2, 1, 3, 0, 2, 1};
static const float rigid_pos[] = {0.5f, 1.0f, 0.0f, 0.7f, 1.0f, 0.0f, 0.6f, 1.3f, 0.1f};
static const float scenery_pos[] = {-5, 0, -5, 5, 0, -5, 0, 0, 5};

/* The rig's three meshes: skinned, rigid on the child, static. */
static void three_meshes(rk_mesh *meshes[3]) {
  const rk_mesh_data skinned = {.name = "skinned", .vertex_count = 4, .positions = skin_pos,
                                .index_count = G_N_ELEMENTS(skin_tris), .indices = skin_tris,
                                .joints = skin_joints, .weights = skin_weights, .attach_joint = -1};
  const rk_mesh_data rigid = {.name = "rigid", .vertex_count = 3, .positions = rigid_pos,
                              .attach_joint = 1};
  const rk_mesh_data scenery = {.name = "scenery", .vertex_count = 3, .positions = scenery_pos,
                                .attach_joint = -1};
  meshes[0] = mesh_or_fail(&skinned, 2);
  meshes[1] = mesh_or_fail(&rigid, 2);
  meshes[2] = mesh_or_fail(&scenery, 2);
}

Test(skin_mesh, vertices_merge_and_skin_as_brute_force) {
  g_autoptr(rk_skeleton) s = two_joints();
  rk_mesh *meshes[3];
  three_meshes(meshes);
  g_autoptr(GError) e = NULL;
  g_autoptr(rk_skin_mesh) m = rk_skin_mesh_new(s, (const rk_mesh *const *)meshes, 3, &e);
  cr_assert(m, "%s", e ? e->message : "");
  /* The seam copy merges; the scenery is left out. */
  cr_assert_eq(rk_skin_mesh_vertex_count(m), 6);
  cr_assert_eq(rk_skin_mesh_triangle_count(m), 3);
  const uint32_t want[] = {0, 1, 2, 0, 1, 2, 3, 4, 5};
  const uint32_t *tris = rk_skin_mesh_triangles(m);
  for (size_t i = 0; i < G_N_ELEMENTS(want); i++)
    cr_assert_eq(tris[i], want[i], "corner %zu: %u", i, tris[i]);
  const rk_skin_vertex *v = rk_skin_mesh_vertices(m);
  cr_assert_eq(v[0].count, 1);
  cr_assert_eq(v[1].count, 2);
  cr_assert_eq(v[1].dominant, 1);
  rk_assert_near(v[1].weight[0], 0.25, 1e-7);
  cr_assert_eq(v[2].count, 1, "no weight: its first joint alone");
  cr_assert_eq(v[2].joint[0], 1);
  cr_assert_eq(v[3].joint[0], 1, "the rigid mesh's attach joint");
  /* Original (mesh, vertex) of each merged vertex, in order. */
  const size_t from[6][2] = {{0, 0}, {0, 1}, {0, 3}, {1, 0}, {1, 1}, {1, 2}};
  g_autofree rk_mat4 *rest = g_new(rk_mat4, 2);
  rk_skeleton_rest_models(s, rest);
  rk_transform locals[2];
  rk_mat4 models[2];
  rk_vec3 posed[6];
  guint64 rng = 7;
  for (int pose = 0; pose < 200; pose++) {
    if (pose == 0)
      memcpy(models, rest, sizeof models);
    else
      random_pose(s, &rng, 2.0, 1.0, locals, models);
    rk_skin_mesh_pose(m, models, posed);
    for (size_t i = 0; i < 6; i++) {
      const rk_mesh_data *d = rk_mesh_data_get(meshes[from[i][0]]);
      const rk_vec3 p = brute_skin(s, rest, d, from[i][1], models);
      rk_assert_vec3_near(posed[i], p, 1e-12);
      rk_assert_vec3_near(rk_skin_vertex_at(&v[i], models), p, 1e-12);
      if (pose == 0) /* at rest, bind-time positions (no inverse binds: bind is rest) */
        rk_assert_vec3_near(p, rk_vec3_make(d->positions[3 * from[i][1]],
                                            d->positions[3 * from[i][1] + 1],
                                            d->positions[3 * from[i][1] + 2]), 1e-12);
    }
  }
  for (int i = 0; i < 3; i++)
    rk_mesh_free(meshes[i]);
}

Test(skin_mesh, foreign_meshes_and_no_meshes) {
  g_autoptr(rk_skeleton) s = two_joints();
  const float pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  const uint16_t joints[] = {0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0};
  const float weights[] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  const rk_mesh_data d = {.name = "other rig's", .vertex_count = 3, .positions = pos,
                         .joints = joints, .weights = weights, .attach_joint = -1};
  g_autoptr(rk_mesh) foreign = mesh_or_fail(&d, 3);
  g_autoptr(GError) e = NULL;
  const rk_mesh *list[1] = {foreign};
  cr_assert_null(rk_skin_mesh_new(s, list, 1, &e));
  cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_INVALID));
  cr_assert(strstr(e->message, "other rig's") && strstr(e->message, "joint 2"), "%s", e->message);
  g_autoptr(rk_skin_mesh) none = rk_skin_mesh_new(s, NULL, 0, NULL);
  cr_assert_eq(rk_skin_mesh_vertex_count(none), 0);
  cr_assert_eq(rk_skin_mesh_triangle_count(none), 0);
  rk_skin_mesh_pose(none, NULL, NULL);
}
