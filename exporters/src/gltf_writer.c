/* glTF 2.0 writer (.gltf + .bin, .glb), JSON through json-glib.
 *
 * Layout of what is written (glTF 2.0 specification, sections 3.5-3.11 and 4):
 * - node i = skeleton joint i (same order, same unique names, rest local TRS); mesh nodes follow;
 * - one skin over every joint (joint index in JOINTS_0 = skeleton joint index) with inverse bind
 *   matrices, also for a skeleton without meshes so that DCCs import an armature;
 * - one animation per clip, one sampler per track, interpolation as in the clip, rotations
 *   normalised (and sign-continuous for LINEAR), key times in float32 checked strictly increasing;
 *   a clip that lasts longer than its last key gets one holding key at its duration;
 * - meshes: skinned meshes on root nodes with the skin, rigid meshes under their joint, static
 *   meshes at the root; at most 4 weights per vertex, duplicates merged, normalised in float32;
 * - one buffer; every bufferView starts on a 4-byte boundary; accessors carry min/max.
 * Everything is in glTF's space, which is rigkit's canonical space (metres, Y-up, right-handed).
 *
 * This file adds the skeleton and its skin, has gltf_mesh.c and gltf_anim.c add meshes and
 * animations (their data goes to the buffer of gltf_buffer.c), assembles the JSON document from
 * the parts gathered in gltf_scene.c and writes .gltf + .bin or .glb (gltf_files.c). */
#include "gltf_writer.h"

#include "atomic_file.h"
#include "export_shared.h"
#include "gltf_anim.h"
#include "gltf_buffer.h"
#include "gltf_files.h"
#include "gltf_mesh.h"

#include <rigkit/fk.h>
#include <rigkit/json_text.h>
#include <rigkit/version.h>
#include <string.h>

static bool is_identity_trs(const rk_transform *x) {
  return x->t.x == 0 && x->t.y == 0 && x->t.z == 0 && x->r.x == 0 && x->r.y == 0 && x->r.z == 0 &&
         x->r.w == 1 && x->s.x == 1 && x->s.y == 1 && x->s.z == 1;
}

static bool add_skeleton(rk__gltf_ctx *c, int *skin_root) {
  const size_t n = rk_skeleton_joint_count(c->s);
  for (size_t j = 0; j < n; j++) {
    int idx = rk__gltf_add_node(c, rk_skeleton_joint_name(c->s, j));
    rk__gltf_node *nd = rk__gltf_node_at(c, idx);
    nd->trs = *rk_skeleton_rest(c->s, j); /* rotations are unit since the skeleton's build */
    nd->has_trs = !is_identity_trs(&nd->trs);
    int p = rk_skeleton_parent(c->s, j);
    if (p >= 0)
      g_array_append_val(rk__gltf_node_at(c, p)->children, idx);
  }
  *skin_root = 0;
  if (rk_skeleton_root_count(c->s) > 1) {
    /* glTF wants the joints of a skin under one common root; that root need not be a joint. */
    int top = rk__gltf_add_node(c, "Armature");
    for (size_t j = 0; j < n; j++)
      if (rk_skeleton_parent(c->s, j) < 0) {
        int child = (int)j;
        g_array_append_val(rk__gltf_node_at(c, top)->children, child);
      }
    *skin_root = top;
  }

  /* Inverse bind matrices: the skeleton's own, else the inverse of the rest pose. glTF wants
   * the fourth row exactly (0, 0, 0, 1). */
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  rk_skeleton_rest_models(c->s, models);
  g_autofree float *ibm = g_new(float, 16 * n);
  for (size_t j = 0; j < n; j++) {
    rk_mat4 m;
    if (!rk_skeleton_inverse_bind(c->s, j, &m) && !rk_mat4_inverse_affine(&models[j], &m)) {
      g_set_error(c->error, RK_ERROR, RK_ERROR_INVALID,
                  "%s: joint '%s': the rest pose cannot be inverted (zero scale)", c->path,
                  rk_skeleton_joint_name(c->s, j));
      return false;
    }
    for (int k = 0; k < 16; k++) {
      double v = (k % 4 == 3) ? (k == 15 ? 1.0 : 0.0) : m.m[k];
      if (!rk__gltf_to_float(v, &ibm[16 * j + (size_t)k])) {
        g_set_error(c->error, RK_ERROR, RK_ERROR_INVALID,
                    "%s: joint '%s': inverse bind matrix is not finite in single precision",
                    c->path, rk_skeleton_joint_name(c->s, j));
        return false;
      }
      ibm[16 * j + (size_t)k] = (float)rk__export_clean_zero(ibm[16 * j + (size_t)k]);
    }
  }
  return rk__gltf_add_accessor(c, RK__GL_FLOAT, ibm, n, 16, 0, false) >= 0;
}

static JsonArray *double_array(const double *v, int n) {
  JsonArray *a = json_array_new();
  for (int i = 0; i < n; i++)
    json_array_add_double_element(a, rk__export_clean_zero(v[i]));
  return a;
}

static void set_array_if_any(JsonObject *root, const char *name, JsonArray *a) {
  if (json_array_get_length(a) > 0)
    json_object_set_array_member(root, name, json_array_ref(a));
}

static JsonObject *build_document(rk__gltf_ctx *c, int skin_root, const char *bin_uri) {
  JsonObject *root = json_object_new();
  JsonObject *asset = json_object_new();
  json_object_set_string_member(asset, "generator", "rigkit " RK_VERSION_STRING);
  json_object_set_string_member(asset, "version", "2.0");
  json_object_set_object_member(root, "asset", asset);
  json_object_set_int_member(root, "scene", 0);

  JsonArray *scene_nodes = json_array_new();
  g_autofree bool *is_child = g_new0(bool, c->nodes->len);
  for (guint i = 0; i < c->nodes->len; i++) {
    rk__gltf_node *n = rk__gltf_node_at(c, (int)i);
    for (guint k = 0; k < n->children->len; k++)
      is_child[g_array_index(n->children, int, k)] = true;
  }
  for (guint i = 0; i < c->nodes->len; i++)
    if (!is_child[i])
      json_array_add_int_element(scene_nodes, i);
  JsonObject *scene = json_object_new();
  json_object_set_array_member(scene, "nodes", scene_nodes);
  JsonArray *scenes = json_array_new();
  json_array_add_object_element(scenes, scene);
  json_object_set_array_member(root, "scenes", scenes);

  JsonArray *nodes = json_array_new();
  for (guint i = 0; i < c->nodes->len; i++) {
    rk__gltf_node *n = rk__gltf_node_at(c, (int)i);
    JsonObject *o = json_object_new();
    json_object_set_string_member(o, "name", n->name);
    if (n->children->len > 0) {
      JsonArray *ch = json_array_new();
      for (guint k = 0; k < n->children->len; k++)
        json_array_add_int_element(ch, g_array_index(n->children, int, k));
      json_object_set_array_member(o, "children", ch);
    }
    if (n->mesh >= 0)
      json_object_set_int_member(o, "mesh", n->mesh);
    if (n->skin >= 0)
      json_object_set_int_member(o, "skin", n->skin);
    if (n->has_trs) {
      const rk_transform *x = &n->trs;
      if (x->t.x != 0 || x->t.y != 0 || x->t.z != 0)
        json_object_set_array_member(o, "translation", double_array(&x->t.x, 3));
      if (x->r.x != 0 || x->r.y != 0 || x->r.z != 0 || x->r.w != 1)
        json_object_set_array_member(o, "rotation", double_array(&x->r.x, 4));
      if (x->s.x != 1 || x->s.y != 1 || x->s.z != 1)
        json_object_set_array_member(o, "scale", double_array(&x->s.x, 3));
    }
    json_array_add_object_element(nodes, o);
  }
  json_object_set_array_member(root, "nodes", nodes);
  set_array_if_any(root, "meshes", c->meshes);
  set_array_if_any(root, "materials", c->materials);
  set_array_if_any(root, "textures", c->textures);
  set_array_if_any(root, "images", c->images);

  JsonObject *skin = json_object_new();
  json_object_set_string_member(skin, "name", "Armature");
  json_object_set_int_member(skin, "inverseBindMatrices", 0);
  if (skin_root >= 0)
    json_object_set_int_member(skin, "skeleton", skin_root);
  JsonArray *joints = json_array_new();
  for (size_t j = 0; j < rk_skeleton_joint_count(c->s); j++)
    json_array_add_int_element(joints, (gint64)j);
  json_object_set_array_member(skin, "joints", joints);
  JsonArray *skins = json_array_new();
  json_array_add_object_element(skins, skin);
  json_object_set_array_member(root, "skins", skins);

  set_array_if_any(root, "animations", c->animations);
  set_array_if_any(root, "accessors", c->accessors);
  set_array_if_any(root, "bufferViews", c->views);
  JsonObject *buffer = json_object_new();
  json_object_set_int_member(buffer, "byteLength", c->bin->len);
  if (bin_uri)
    json_object_set_string_member(buffer, "uri", bin_uri);
  JsonArray *buffers = json_array_new();
  json_array_add_object_element(buffers, buffer);
  json_object_set_array_member(root, "buffers", buffers);
  return root;
}

void rk__gltf_readback(const rk_export_options *opts, rk_export_readback *out) {
  (void)opts;                  /* glTF is always metres */
  out->self_describing = true; /* the specification fixes both */
  out->metres_per_unit = 1.0;  /* rigkit's canonical metres, written unscaled */
  out->up_axis = RK__EXPORT_UP_AXIS;
}

bool rk__gltf_write(const rk_asset *asset, const char *path, const rk_export_options *opts,
                    bool glb, GError **error) {
  if (opts->unit == RK_EXPORT_UNIT_CENTIMETRES) {
    g_set_error(error, RK_ERROR, RK_ERROR_UNSUPPORTED,
                "%s: glTF is always in metres; centimetres are not allowed", path);
    return false;
  }
  g_autoptr(GPtrArray) clips = rk__export_select_clips(asset, opts, path, error);
  if (!clips)
    return false;
  rk__gltf_ctx c;
  rk__gltf_scene_init(&c, asset, path, error);
  bool ok = false;
  g_autofree char *bin_path = NULL, *bin_uri = NULL;
  int skin_root = -1;

  if (!add_skeleton(&c, &skin_root))
    goto out;
  if (!opts->skip_meshes)
    for (size_t i = 0; i < rk_asset_mesh_count(asset); i++)
      if (!rk__gltf_add_mesh(&c, rk_asset_mesh(asset, i), i))
        goto out;
  {
    g_autoptr(GHashTable) anim_names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint i = 0; i < clips->len; i++)
      if (!rk__gltf_add_animation(&c, g_ptr_array_index(clips, i), i, anim_names))
        goto out;
  }
  if (!glb) {
    bin_path = rk__gltf_bin_path(path);
    g_autofree char *base = g_path_get_basename(bin_path);
    bin_uri = g_uri_escape_string(base, NULL, TRUE);
  }
  {
    JsonObject *root = build_document(&c, skin_root, bin_uri);
    size_t len = 0;
    g_autofree char *json = rk_json_object_to_text(root, !glb, &len);
    json_object_unref(root);
    const rk__gltf_files files = {path, glb, json, len, c.bin, bin_path, NULL, 0};
    ok = rk__gltf_files_write(&files, error);
  }
out:
  rk__gltf_scene_clear(&c);
  return ok;
}
