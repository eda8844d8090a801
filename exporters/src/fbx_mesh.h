/* Meshes in FBX (fbx_mesh.c): per mesh a Model "Mesh" (at the root, or under the joint a rigid
 * mesh follows), a Geometry, a Lambert Material (with its texture, fbx_texture.c) and, for
 * skinned meshes, a Skin deformer with one Cluster per weighted joint.
 *
 * Index: rk__fbx_prepare_meshes, rk__fbx_write_meshes
 */
#ifndef RK_FBX_MESH_H
#define RK_FBX_MESH_H

#include "fbx_scene.h"

/** Converts the asset's meshes (none with opts->skip_meshes, and none without vertices) into
 * c->meshes: vertices in file units, normals, UVs, triangles, skin clusters. Fails with
 * RK_ERROR_INVALID naming the mesh (a vertex beyond float32, a joint that cannot be inverted). */
bool rk__fbx_prepare_meshes(rk__fbx_ctx *c);
/** Writes every prepared mesh's objects and connects them (ids assigned, bind pose set). */
void rk__fbx_write_meshes(rk__fbx_ctx *c);

#endif
