/* rk_asset: what an asset records about its source (the document node of each joint, the file's
 * digest) and the declared joint mechanics, checked when recorded: only fixed, revolute and
 * prismatic joints (the one joint-type enum of rigkit/joint.h) with a usable axis and ordered
 * limits. */
#include "rk_test.h"

#include <rigkit/asset.h>
#include <string.h>

/* An asset of one chain of joints named by the NULL-terminated names, each the child of the last. */
static rk_asset *chain_asset(const char *const *names) {
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  for (int i = 0; names[i]; i++)
    rk_skeleton_builder_add_joint(b, names[i], i - 1, NULL, 0);
  g_autoptr(rk_skeleton) s = rk_skeleton_builder_build(b, NULL, NULL);
  cr_assert_not_null(s);
  return rk_asset_new(s);
}

static rk_asset *three_joint_asset(void) {
  return chain_asset((const char *const[]){"root", "a", "b", NULL});
}

Test(asset, joint_source_nodes_default_to_none) {
  g_autoptr(rk_asset) a = three_joint_asset();
  for (size_t j = 0; j < 4; j++)
    cr_assert_eq(rk_asset_joint_source_node(a, j), -1);
  cr_assert(rk_asset_set_joint_source_node(a, 1, 7));
  cr_assert_eq(rk_asset_joint_source_node(a, 0), -1);
  cr_assert_eq(rk_asset_joint_source_node(a, 1), 7);
  cr_assert_eq(rk_asset_joint_source_node(a, 2), -1);
  cr_assert(rk_asset_set_joint_source_node(a, 1, -1));
  cr_assert_eq(rk_asset_joint_source_node(a, 1), -1);
  cr_assert_not(rk_asset_set_joint_source_node(a, 3, 0), "joint out of range");
  cr_assert_not(rk_asset_set_joint_source_node(a, 0, -2), "node below -1");
  cr_assert_eq(rk_asset_joint_source_node(a, 0), -1);
}

Test(asset, source_digest_is_copied_and_clearable) {
  g_autoptr(rk_asset) a = three_joint_asset();
  cr_assert_null(rk_asset_source_digest(a));
  char d[] = "00ff";
  rk_asset_set_source_digest(a, d);
  d[0] = 'x';
  cr_assert_str_eq(rk_asset_source_digest(a), "00ff");
  rk_asset_set_source_digest(a, NULL);
  cr_assert_null(rk_asset_source_digest(a));
}

static int trees_freed;
static void count_free(gpointer p) {
  trees_freed++;
  g_free(p);
}

/* A thread's take of the asset's source tree (NULL when another thread took it). */
static gpointer take_tree(gpointer asset) {
  return rk_asset_take_source_tree(asset, NULL);
}

/* The source tree: replaced ones and an untaken one are freed, a taken one is the taker's, and
 * only the first of several takers (threads too) gets it. */
Test(asset, source_tree_is_taken_once_or_freed) {
  trees_freed = 0;
  {
    g_autoptr(rk_asset) a = three_joint_asset();
    cr_assert_null(rk_asset_take_source_tree(a, NULL));
    rk_asset_set_source_tree(a, g_strdup("one"), count_free);
    rk_asset_set_source_tree(a, g_strdup("two"), count_free);
    cr_assert_eq(trees_freed, 1);
    GDestroyNotify f = NULL;
    char *t = rk_asset_take_source_tree(a, &f);
    cr_assert_str_eq(t, "two");
    cr_assert_eq(f, count_free);
    cr_assert_null(rk_asset_take_source_tree(a, &f));
    cr_assert_null(f);
    count_free(t);
    rk_asset_set_source_tree(a, g_strdup("three"), count_free);
  }
  cr_assert_eq(trees_freed, 3, "the untaken tree goes with the asset");
  /* Four threads take at once, many times over: exactly one gets each tree. */
  for (int round = 0; round < 50; round++) {
    g_autoptr(rk_asset) a = three_joint_asset();
    rk_asset_set_source_tree(a, g_strdup("raced"), count_free);
    GThread *t[4];
    for (int i = 0; i < 4; i++)
      t[i] = g_thread_new("take", take_tree, a);
    int got = 0;
    for (int i = 0; i < 4; i++) {
      char *tree = g_thread_join(t[i]);
      got += tree != NULL;
      g_free(tree);
    }
    cr_assert_eq(got, 1, "round %d: %d threads got the tree", round, got);
  }
}

/* One triangle with UVs and the given material. */
static rk_mesh *triangle(const rk_material *m, GError **error) {
  const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, uv[6] = {0, 0, 1, 0, 0, 1};
  rk_mesh_data d = {0};
  d.name = "tri";
  d.vertex_count = 3;
  d.positions = pos;
  d.texcoords = uv;
  d.attach_joint = -1;
  d.material = *m;
  return rk_mesh_new(&d, 1, error);
}

Test(asset, meshes_copy_their_texture) {
  uint8_t png[12] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 1, 2, 3, 4};
  char mime[] = "image/png", path[] = "/some/where/skin.png";
  rk_texture t = {png, sizeof png, mime, path, 0};
  rk_material m = {0};
  m.base_color[0] = m.base_color[1] = m.base_color[2] = m.base_color[3] = 1;
  m.base_color_texture = &t;
  g_autoptr(rk_mesh) mesh = triangle(&m, NULL);
  cr_assert_not_null(mesh);
  png[8] = 9, mime[0] = 'X', path[0] = 'X';
  const rk_texture *c = rk_mesh_data_get(mesh)->material.base_color_texture;
  cr_assert_not_null(c);
  cr_assert_neq((const void *)c, (const void *)&t);
  cr_assert_eq(c->size, sizeof png);
  cr_assert_eq(c->data[8], 1, "the bytes are copied");
  cr_assert_str_eq(c->mime_type, "image/png");
  cr_assert_str_eq(c->path, "/some/where/skin.png");
  /* A path alone is a texture (its image could not be read); nothing at all is not. */
  rk_texture only_path = {NULL, 0, NULL, "skin.png", 0};
  m.base_color_texture = &only_path;
  g_autoptr(rk_mesh) by_path = triangle(&m, NULL);
  cr_assert_not_null(by_path);
  cr_assert_null(rk_mesh_data_get(by_path)->material.base_color_texture->data);
  rk_texture nothing = {NULL, 0, "image/png", NULL, 0};
  m.base_color_texture = &nothing;
  g_autoptr(GError) e = NULL;
  cr_assert_null(triangle(&m, &e));
  cr_assert(e && e->code == RK_ERROR_INVALID && strstr(e->message, "neither image bytes"), "%s",
            e ? e->message : "no error");
  m.base_color_texture = NULL;
  g_autoptr(rk_mesh) plain = triangle(&m, NULL);
  cr_assert_null(rk_mesh_data_get(plain)->material.base_color_texture);
}

static rk_asset *two_joint_asset(void) {
  return chain_asset((const char *const[]){"base", "link", NULL});
}

Test(asset, declared_mechanics_are_recorded_with_a_unit_axis) {
  g_autoptr(rk_asset) a = two_joint_asset();
  rk_joint_mechanics m = {RK_JOINT_REVOLUTE, rk_vec3_make(0, 0, 2), true, -1.0, 1.0};
  cr_assert(rk_asset_set_joint_mechanics(a, 1, &m));
  rk_joint_mechanics out;
  cr_assert(rk_asset_joint_mechanics(a, 1, &out));
  cr_assert_eq(out.motion, RK_JOINT_REVOLUTE);
  cr_assert_float_eq(out.axis.z, 1.0, 1e-15);
  cr_assert_not(rk_asset_joint_mechanics(a, 0, &out), "joint 0 declared nothing");
  m = (rk_joint_mechanics){RK_JOINT_FIXED, rk_vec3_make(0, 0, 0), false, 0, 0};
  cr_assert(rk_asset_set_joint_mechanics(a, 0, &m), "a fixed joint needs no axis");
}

Test(asset, declared_mechanics_refuse_what_a_file_cannot_declare) {
  g_autoptr(rk_asset) a = two_joint_asset();
  const rk_joint_type refused[] = {RK_JOINT_BALL, RK_JOINT_FREE, (rk_joint_type)99};
  for (size_t i = 0; i < G_N_ELEMENTS(refused); i++) {
    rk_joint_mechanics m = {refused[i], rk_vec3_make(0, 0, 1), false, 0, 0};
    cr_assert_not(rk_asset_set_joint_mechanics(a, 1, &m), "type %d", (int)refused[i]);
  }
  rk_joint_mechanics zero_axis = {RK_JOINT_PRISMATIC, rk_vec3_make(0, 0, 0), false, 0, 0};
  cr_assert_not(rk_asset_set_joint_mechanics(a, 1, &zero_axis));
  rk_joint_mechanics reversed = {RK_JOINT_REVOLUTE, rk_vec3_make(1, 0, 0), true, 1.0, -1.0};
  cr_assert_not(rk_asset_set_joint_mechanics(a, 1, &reversed));
  rk_joint_mechanics ok = {RK_JOINT_PRISMATIC, rk_vec3_make(1, 0, 0), false, 0, 0};
  cr_assert_not(rk_asset_set_joint_mechanics(a, 2, &ok), "joint out of range");
  rk_joint_mechanics out;
  cr_assert_not(rk_asset_joint_mechanics(a, 1, &out), "nothing refused was recorded");
}
