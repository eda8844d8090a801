/* The glTF editor's view of a document's nodes and the clip as keys of those nodes
 * (gltf_edit_nodes.c): parents, rest local and world matrices; per frame each joint node's world
 * matrix from the asset's canonical pose through a fixed correction, and its local transform from
 * its parent's world matrix.
 *
 * Index: rk__gltf_nodes, rk__gltf_nodes_read, rk__gltf_nodes_clear, rk__gltf_edit_node_clip
 */
#ifndef RK_GLTF_EDIT_NODES_H
#define RK_GLTF_EDIT_NODES_H

#include <json-glib/json-glib.h>
#include <rigkit/asset.h>
#include <rigkit/error.h>

/** A document's node tree at rest. */
typedef struct rk__gltf_nodes {
  guint count;
  gint *parent;    /* -1 for a node no node lists as a child */
  guint *order;    /* every node, parents before children */
  rk_mat4 *local;  /* rest local matrix ("matrix", or translation * rotation * scale) */
  rk_mat4 *world;  /* rest world matrix */
  GPtrArray *names; /* char *: the node's name, "nodes[i]" when it has none (messages) */
} rk__gltf_nodes;

/** Reads the document's "nodes" (NULL: none) into *out (free with rk__gltf_nodes_clear, also
 * after a failure). Fails with RK_ERROR_PARSE naming path and the node: a node that is not an
 * object, a child index out of range, a node with two parents or in a cycle, a transform that is
 * not finite numbers of the right count. */
bool rk__gltf_nodes_read(JsonArray *nodes, rk__gltf_nodes *out, const char *path,
                         GError **error);
void rk__gltf_nodes_clear(rk__gltf_nodes *nodes);

/** The clip as keys of the document's nodes: a new clip named after `clip` over nodes->count
 * "joints" (joint index = node index) holding, for every node a joint of `asset` was read from
 * (rk_asset_joint_source_node), LINEAR translation and rotation keys at the `frames` frames of
 * `clip` sampled at fps (times f / fps, the last one no later than the clip's duration), and scale
 * keys when the scale leaves the node's rest scale (relative 1e-6); *animated[n] (a new array of
 * nodes->count flags, g_free) says which nodes got keys. The clip must animate asset's skeleton.
 * Fails with RK_ERROR_INVALID naming path and the joint or node: a joint's node out of range or
 * shared, no joint from this document, a singular or non-finite transform. */
rk_clip *rk__gltf_edit_node_clip(const rk__gltf_nodes *nodes, const rk_asset *asset,
                                 const rk_clip *clip, double fps, size_t frames,
                                 bool **animated, const char *path, GError **error);

#endif
