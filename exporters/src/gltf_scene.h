/* The glTF writer's document under construction (gltf_scene.c), shared by gltf_writer.c,
 * gltf_buffer.c, gltf_mesh.c and gltf_anim.c: the node list (joints first, in skeleton order,
 * then mesh nodes), the binary buffer and the JSON arrays the parts are added to; the document is
 * assembled from them at the end.
 *
 * Index: rk__gltf_node, rk__gltf_ctx, rk__gltf_scene_init, rk__gltf_scene_clear,
 *        rk__gltf_add_node, rk__gltf_node_at, rk__gltf_target_name
 */
#ifndef RK_GLTF_SCENE_H
#define RK_GLTF_SCENE_H

#include <json-glib/json-glib.h>
#include <rigkit/asset.h>
#include <rigkit/error.h>

/** A node as written. */
typedef struct rk__gltf_node {
  char *name;
  GArray *children; /* int */
  bool has_trs;
  rk_transform trs;
  int mesh; /* -1 = none */
  int skin; /* -1 = none */
} rk__gltf_node;

/** One glTF document being built. */
typedef struct rk__gltf_ctx {
  const rk_asset *asset;
  const rk_skeleton *s;
  const char *path;
  GByteArray *bin;
  int buffer; /* the buffer `bin` is: 0 in a new document (the glTF editor appends elsewhere) */
  const char *const *target_names; /* animation targets by node index, for messages; NULL: the
                                      skeleton's joints (node i = joint i) */
  JsonArray *accessors, *views, *meshes, *materials, *animations;
  JsonArray *images, *textures; /* base-colour textures (gltf_texture.c) */
  GHashTable *texture_of_image; /* GBytes (image bytes) -> texture index + 1 */
  GArray *nodes;     /* rk__gltf_node */
  GHashTable *names; /* node names in use */
  GError **error;
} rk__gltf_ctx;

/** Sets c up, empty, for writing asset to path; errors go to error. Free with
 * rk__gltf_scene_clear. */
void rk__gltf_scene_init(rk__gltf_ctx *c, const rk_asset *asset, const char *path,
                         GError **error);
/** Frees what c holds. */
void rk__gltf_scene_clear(rk__gltf_ctx *c);
/** Appends a node without children, mesh or skin, its name made unique among the nodes
 * ("name.001"); returns its index. */
int rk__gltf_add_node(rk__gltf_ctx *c, const char *name);
/** Node i (borrowed; valid until the next rk__gltf_add_node). */
rk__gltf_node *rk__gltf_node_at(rk__gltf_ctx *c, int i);
/** Name of animation target node i for messages (borrowed). */
const char *rk__gltf_target_name(const rk__gltf_ctx *c, int i);

#endif
