/* Meshes in glTF (gltf_mesh.c): one mesh with one primitive per rk_mesh, its material, and the
 * node that places it: skinned meshes at the root with the skin, rigid meshes under their joint
 * with vertices in that joint's rest space, static meshes at the root.
 *
 * Index: rk__gltf_add_mesh
 */
#ifndef RK_GLTF_MESH_H
#define RK_GLTF_MESH_H

#include "gltf_scene.h"

/** Adds mesh (the asset's mesh_index, named after it when it has no name) with its accessors,
 * material and node. Fails with RK_ERROR_INVALID (a position beyond float32, a singular joint) or
 * RK_ERROR_LIMIT (buffer full), naming the mesh. */
bool rk__gltf_add_mesh(rk__gltf_ctx *c, const rk_mesh *mesh, size_t mesh_index);

#endif
