/* rigkit/skin_mesh.h: a character's meshes as skinning sees them, to draw it at a pose: every
 * vertex of its skinned and attached meshes with its influences (up to four joints, their weights
 * and the vertex in each joint's frame), the triangles, and the vertices skinned at a pose.
 *
 * Skinning is linear blend skinning, as rigkit/skin.h's lowest-point queries do it (the same
 * code gives both their influences): a vertex at a pose is the sum over its influences of weight
 * * model * local, local being the bind-time position through the joint's inverse bind matrix
 * (the rest model's inverse for a joint without one). A mesh attached to one joint (not skinned)
 * follows it rigidly from the rest pose; static meshes (neither) are scenery and left out.
 * Vertices that skin identically (the copies meshes make at seams and hard edges, for their
 * normals and texture coordinates) are kept once, so the count is what a drawing needs; triangles
 * that lose a corner to such a merge are dropped.
 *
 * Index: rk_skin_vertex, rk_skin_mesh, rk_skin_mesh_new, rk_skin_mesh_from_asset,
 *        rk_skin_mesh_free, rk_skin_mesh_vertex_count, rk_skin_mesh_vertices,
 *        rk_skin_mesh_triangle_count, rk_skin_mesh_triangles, rk_skin_vertex_at,
 *        rk_skin_mesh_pose
 */
#ifndef RIGKIT_SKIN_MESH_H
#define RIGKIT_SKIN_MESH_H

#include <glib.h>
#include <rigkit/asset.h>
#include <rigkit/skeleton.h>
#include <stdint.h>

G_BEGIN_DECLS

/** One vertex as skinning sees it. */
typedef struct rk_skin_vertex {
  int count;         /* influences, 1 to 4 (the mesh's non-zero weights; its first joint with
                        weight 1 when it has none; the attach joint of a rigid mesh) */
  int dominant;      /* the joint weighted most (the first of equal weights) */
  int joint[4];      /* skeleton joints; entries from count on are unused (0) */
  double weight[4];  /* their weights (entries from count on 0) */
  rk_vec3 local[4];  /* the vertex in each joint's frame (entries from count on 0) */
} rk_skin_vertex;

typedef struct rk_skin_mesh rk_skin_mesh;

/** The skinned and attached meshes of meshes[mesh_count] (each made for this skeleton by
 * rk_mesh_new; borrowed, copied from), their vertices merged where they skin identically.
 * Fails with RK_ERROR_INVALID when a mesh's joint index is beyond the skeleton, naming the mesh.
 * The caller frees the result with rk_skin_mesh_free. */
RK_API rk_skin_mesh *rk_skin_mesh_new(const rk_skeleton *skeleton, const rk_mesh *const *meshes,
                                      size_t mesh_count, GError **error);
/** rk_skin_mesh_new on an asset's skeleton and all its meshes (no meshes: no vertices). Fails as
 * rk_skin_mesh_new; the caller frees the result. */
RK_API rk_skin_mesh *rk_skin_mesh_from_asset(const rk_asset *asset, GError **error);
/** Frees a skin mesh; NULL is a no-op. */
RK_API void rk_skin_mesh_free(rk_skin_mesh *mesh);
/** Number of vertices (after merging). */
RK_API size_t rk_skin_mesh_vertex_count(const rk_skin_mesh *mesh);
/** The vertices (borrowed: valid while the skin mesh lives). */
RK_API const rk_skin_vertex *rk_skin_mesh_vertices(const rk_skin_mesh *mesh);
/** Number of triangles. */
RK_API size_t rk_skin_mesh_triangle_count(const rk_skin_mesh *mesh);
/** The triangles: three vertex indices each (borrowed: valid while the skin mesh lives). */
RK_API const uint32_t *rk_skin_mesh_triangles(const rk_skin_mesh *mesh);
/** A vertex at the pose whose model matrices are models (one per skeleton joint, as rk_fk_models
 * gives them; read only for the vertex's joints). */
RK_API rk_vec3 rk_skin_vertex_at(const rk_skin_vertex *vertex, const rk_mat4 *models);
/** Every vertex at the pose models into out[vertex count]. Allocates nothing. */
RK_API void rk_skin_mesh_pose(const rk_skin_mesh *mesh, const rk_mat4 *models, rk_vec3 *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(rk_skin_mesh, rk_skin_mesh_free)

G_END_DECLS

#endif
