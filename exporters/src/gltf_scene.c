/* The glTF writer's document under construction: setting up, freeing, nodes (see gltf_scene.h). */
#include "gltf_scene.h"

#include "export_shared.h"

static void node_clear(gpointer p) {
  rk__gltf_node *n = p;
  g_free(n->name);
  if (n->children)
    g_array_unref(n->children);
}

void rk__gltf_scene_init(rk__gltf_ctx *c, const rk_asset *asset, const char *path, GError **error) {
  *c = (rk__gltf_ctx){0};
  c->asset = asset;
  c->s = rk_asset_skeleton(asset);
  c->path = path;
  c->error = error;
  c->bin = g_byte_array_new();
  c->accessors = json_array_new();
  c->views = json_array_new();
  c->meshes = json_array_new();
  c->materials = json_array_new();
  c->animations = json_array_new();
  c->images = json_array_new();
  c->textures = json_array_new();
  c->texture_of_image = g_hash_table_new_full(g_bytes_hash, g_bytes_equal,
                                              (GDestroyNotify)g_bytes_unref, NULL);
  c->nodes = g_array_new(FALSE, TRUE, sizeof(rk__gltf_node));
  g_array_set_clear_func(c->nodes, node_clear);
  c->names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
}

void rk__gltf_scene_clear(rk__gltf_ctx *c) {
  g_byte_array_unref(c->bin);
  json_array_unref(c->accessors);
  json_array_unref(c->views);
  json_array_unref(c->meshes);
  json_array_unref(c->materials);
  json_array_unref(c->animations);
  json_array_unref(c->images);
  json_array_unref(c->textures);
  g_hash_table_unref(c->texture_of_image);
  g_array_unref(c->nodes);
  g_hash_table_unref(c->names);
}

int rk__gltf_add_node(rk__gltf_ctx *c, const char *name) {
  rk__gltf_node n = {0};
  n.name = rk__export_unique_name(c->names, name);
  n.children = g_array_new(FALSE, FALSE, sizeof(int));
  n.mesh = n.skin = -1;
  g_array_append_val(c->nodes, n);
  return (int)c->nodes->len - 1;
}

rk__gltf_node *rk__gltf_node_at(rk__gltf_ctx *c, int i) {
  return &g_array_index(c->nodes, rk__gltf_node, i);
}

const char *rk__gltf_target_name(const rk__gltf_ctx *c, int i) {
  return c->target_names ? c->target_names[i] : rk_skeleton_joint_name(c->s, (size_t)i);
}
