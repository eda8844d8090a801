/* The pre-pass's repairs of a glTF file (gltf_repair.h): explicit identity inverse bind matrices
 * and unique node names. */
#include "gltf_repair.h"

#include "raw_asset.h"

#include <string.h>

static char *effective_name(JsonObject *node, guint i) {
  const char *name = rk__gltf_string(node, "name");
  /* Assimp names an unnamed glTF node by its id. */
  return name && *name ? g_strdup(name) : g_strdup_printf("nodes[%u]", i);
}

/* The array member `name` of the root, created empty when absent. */
static JsonArray *root_array(rk__gltf_doc *c, const char *name) {
  JsonArray *a = rk__gltf_array(c->root, name);
  if (!a) {
    json_object_set_array_member(c->root, name, json_array_new());
    a = rk__gltf_array(c->root, name);
  }
  return a;
}

bool rk__gltf_add_identity_inverse_binds(rk__gltf_doc *c, GPtrArray *notes) {
  guint most = 0;
  for (guint s = 0; s < rk__gltf_len(c->skins); s++) {
    JsonObject *skin = rk__gltf_element(c->skins, s);
    if (!json_object_has_member(skin, "inverseBindMatrices"))
      most = MAX(most, rk__gltf_len(rk__gltf_array(skin, "joints")));
  }
  if (most == 0)
    return false;
  const gsize bytes = (gsize)most * 64;
  g_autofree guint8 *data = g_malloc0(bytes);
  for (guint k = 0; k < most; k++)
    for (int d = 0; d < 4; d++) {
      const float one = 1.0f;
      memcpy(data + (gsize)k * 64 + (gsize)d * 20, &one, 4); /* column-major diagonal */
    }
  g_autofree char *b64 = g_base64_encode(data, bytes);
  g_autofree char *uri = g_strconcat("data:application/octet-stream;base64,", b64, NULL);
  c->buffers = root_array(c, "buffers");
  c->views = root_array(c, "bufferViews");
  c->accessors = root_array(c, "accessors");
  JsonObject *buf = json_object_new();
  json_object_set_string_member(buf, "uri", uri);
  json_object_set_int_member(buf, "byteLength", (gint64)bytes);
  json_array_add_object_element(c->buffers, buf);
  JsonObject *view = json_object_new();
  json_object_set_int_member(view, "buffer", rk__gltf_len(c->buffers) - 1);
  json_object_set_int_member(view, "byteLength", (gint64)bytes);
  json_array_add_object_element(c->views, view);
  JsonObject *acc = json_object_new();
  json_object_set_int_member(acc, "bufferView", rk__gltf_len(c->views) - 1);
  json_object_set_int_member(acc, "componentType", 5126);
  json_object_set_int_member(acc, "count", most);
  json_object_set_string_member(acc, "type", "MAT4");
  json_array_add_object_element(c->accessors, acc);
  const gint64 index = rk__gltf_len(c->accessors) - 1;
  for (guint s = 0; s < rk__gltf_len(c->skins); s++) {
    JsonObject *skin = rk__gltf_element(c->skins, s);
    if (json_object_has_member(skin, "inverseBindMatrices"))
      continue;
    json_object_set_int_member(skin, "inverseBindMatrices", index);
    g_ptr_array_add(notes, g_strdup_printf("glTF skin %u has no inverseBindMatrices: the "
                                                 "identity matrices glTF means were made explicit",
                                                 s));
  }
  return true;
}

/* How strongly each node holds on to a name it shares: 3 for a skin joint, 2 for an animation
 * target, 1 for a node without a mesh, 0 for a mesh node. A new array (g_free). */
static guint8 *name_ranks(rk__gltf_doc *c) {
  const guint n = rk__gltf_len(c->nodes);
  guint8 *rank = g_new0(guint8, n ? n : 1); /* higher keeps the name */
  for (guint i = 0; i < n; i++)
    rank[i] = json_object_has_member(rk__gltf_element(c->nodes, i), "mesh") ? 0 : 1;
  for (guint a = 0; a < rk__gltf_len(c->anims); a++) {
    JsonArray *channels = rk__gltf_array(rk__gltf_element(c->anims, a), "channels");
    for (guint k = 0; k < rk__gltf_len(channels); k++) {
      gint64 node;
      rk__gltf_index(c, rk__gltf_object(rk__gltf_element(channels, k), "target"), "node", n, &node,
                     "", NULL);
      if (node >= 0)
        rank[node] = MAX(rank[node], 2);
    }
  }
  for (guint s = 0; s < rk__gltf_len(c->skins); s++) {
    JsonArray *joints = rk__gltf_array(rk__gltf_element(c->skins, s), "joints");
    for (guint k = 0; k < rk__gltf_len(joints); k++)
      rank[(guint)json_node_get_int(json_array_get_element(joints, k))] = 3;
  }
  return rank;
}

GPtrArray *rk__gltf_unique_node_names(rk__gltf_doc *c, GPtrArray *notes, bool *renamed_out) {
  const guint n = rk__gltf_len(c->nodes);
  g_autofree guint8 *rank = name_ranks(c);
  /* orig: names as in the file (keys of `groups`, never changed); names: after renaming. */
  g_autoptr(GPtrArray) orig = g_ptr_array_new_with_free_func(g_free);
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GHashTable) all = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) groups = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
                                                       (GDestroyNotify)g_array_unref);
  for (guint i = 0; i < n; i++) {
    char *name = effective_name(rk__gltf_element(c->nodes, i), i);
    g_ptr_array_add(orig, name);
    g_ptr_array_add(names, g_strdup(name));
    g_hash_table_add(all, g_strdup(name));
    GArray *g = g_hash_table_lookup(groups, name);
    if (!g) {
      g = g_array_new(FALSE, FALSE, sizeof(guint));
      g_hash_table_insert(groups, name, g);
    }
    g_array_append_val(g, i);
  }
  bool renamed = false;
  for (guint i = 0; i < n; i++) {
    const char *name = g_ptr_array_index(orig, i);
    GArray *g = g_hash_table_lookup(groups, name);
    if (!g || g->len < 2)
      continue;
    /* The keeper: highest rank, then lowest index. */
    guint keep = g_array_index(g, guint, 0);
    for (guint k = 1; k < g->len; k++) {
      guint j = g_array_index(g, guint, k);
      if (rank[j] > rank[keep])
        keep = j;
    }
    if (i == keep)
      continue;
    char *fresh = rk__raw_fresh_name(name, all);
    g_hash_table_add(all, g_strdup(fresh));
    g_ptr_array_add(notes,
                    g_strdup_printf("glTF nodes %u and %u are both named '%s': node %u renamed "
                                    "'%s' so animation channels bind to the right node",
                                    keep, i, name, i, fresh));
    json_object_set_string_member(rk__gltf_element(c->nodes, i), "name", fresh);
    g_free(g_ptr_array_index(names, i));
    g_ptr_array_index(names, i) = fresh;
    renamed = true;
  }
  *renamed_out = renamed;
  return names;
}
