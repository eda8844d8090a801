/* The pre-pass's checks of a glTF file's structure (internal; gltf_check_structure.c): the node
 * tree, meshes, skins and animations, every index Assimp 5.2.5 would follow, and the accessor
 * types each use allows. */
#ifndef RK_GLTF_CHECK_STRUCTURE_H
#define RK_GLTF_CHECK_STRUCTURE_H

#include "gltf_doc.h"

G_BEGIN_DECLS

/** Checks the nodes: mesh, skin and child indices, finite transforms, names of at most
 * RK_SKELETON_MAX_NAME bytes, one parent per node and no cycles, scene roots; on success records
 * each node's parent in doc->parents. Fails with
 * RK_ERROR_PARSE naming the node, or RK_ERROR_LIMIT beyond 10 x RK_SKELETON_MAX_JOINTS nodes. */
bool rk__gltf_check_nodes(rk__gltf_doc *doc, GError **error);
/** Checks mesh primitives (accessor and material indices; POSITION, NORMAL, JOINTS_n, WEIGHTS_n,
 * TEXCOORD_n and indices of the types glTF allows) and skins (joints, inverse bind matrices, one
 * per joint). Fails with RK_ERROR_PARSE naming the primitive or skin, or RK_ERROR_LIMIT beyond
 * RK_SKELETON_MAX_JOINTS joints in a skin. */
bool rk__gltf_check_meshes_skins(rk__gltf_doc *doc, GError **error);
/** Checks animations: samplers (input, output, interpolation), channels (sampler, target node
 * and path), the accessor types of key times and values, enough values for the keys. Fails with
 * RK_ERROR_PARSE naming the sampler or channel. */
bool rk__gltf_check_animations(rk__gltf_doc *doc, GError **error);

G_END_DECLS

#endif
