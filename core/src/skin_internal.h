/* Internal: the layout of rk_skin_support (rigkit/skin.h), for the core files that build and read
 * it, and what every skinning of a mesh vertex shares (skin.c's supports, skin_mesh.c's meshes):
 * the frames a vertex is carried in and its influences. */
#ifndef RK_SKIN_INTERNAL_H
#define RK_SKIN_INTERNAL_H

#include <rigkit/skin.h>
#include <rigkit/skin_mesh.h>

#include <stdint.h>

/* A candidate vertex, ready to skin: its y at a pose is the sum over k of
 * row y of models[joint[k]] . (wq[k][0], wq[k][1], wq[k][2], wq[k][3]). */
typedef struct rk__skin_cand {
  double wq[4][4];  /* per influence: weight * the vertex in the joint's frame (x, y, z), weight */
  int32_t joint[4]; /* influences; unused ones repeat the dominant joint with weight 0 */
  uint32_t mesh, vertex;
  int32_t dominant;
  int32_t count; /* influences used: joint[0 .. count) (the others add a zero to a height) */
} rk__skin_cand;

/* A sphere around one weighted joint's share of a dominant joint's candidates, in that weighted
 * joint's frame: a lower bound of their heights at any pose. */
typedef struct rk__skin_bound {
  int joint;
  rk_vec3 centre;
  double radius;
} rk__skin_bound;

struct rk_skin_support {
  rk_skeleton *skeleton; /* one reference */
  size_t joint_count;
  rk_mat4 *rest_models; /* joint_count */
  size_t *vert_start;   /* joint_count + 1: the vertices joint j dominates are
                           vert_rest[vert_start[j] .. vert_start[j + 1]) */
  rk_vec3 *vert_rest;   /* in the rest pose, model space */
  size_t *cand_start;   /* joint_count + 1, likewise into cands */
  size_t *cand_multi;   /* joint_count: where joint j's candidates weighted to more than one
                           joint begin (those before are weighted to j alone) */
  rk__skin_cand *cands;
  size_t *bound_start; /* joint_count + 1, likewise into bounds */
  rk__skin_bound *bounds;
};

/* The frames skinning carries a skeleton's vertices in, per joint. */
typedef struct rk__skin_frames {
  size_t n;
  const rk_mat4 *rest; /* rest models (borrowed) */
  rk_mat4 *bind_inv;   /* model space at bind time -> joint frame: the inverse bind matrix, or
                          the rest model's inverse for a joint without one */
  rk_mat4 *rest_inv;   /* model space at rest -> joint frame (rigid meshes follow from rest) */
} rk__skin_frames;

/* Fills f for skeleton s whose rest models are rest (kept borrowed); rk__skin_frames_clear frees
 * what it allocates. */
void rk__skin_frames_init(rk__skin_frames *f, const rk_skeleton *s, const rk_mat4 *rest);
void rk__skin_frames_clear(rk__skin_frames *f);
/* Whether mesh d (index mi) fits a skeleton of n joints; false with RK_ERROR_INVALID naming the
 * mesh and the joint. */
bool rk__skin_mesh_check(const rk_mesh_data *d, size_t mi, size_t n, GError **error);
/* The meshes of an asset as an array (borrowed from it; *n receives their count); free the array
 * with g_free. */
const rk_mesh **rk__skin_asset_meshes(const rk_asset *asset, size_t *n);
/* Vertex v of a skinned or attached mesh d: its influences in *out (unused entries zeroed), the
 * index of the dominant one returned. */
int rk__skin_vertex(const rk__skin_frames *f, const rk_mesh_data *d, size_t v, rk_skin_vertex *out);

#endif
