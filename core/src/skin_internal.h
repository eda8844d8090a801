/* Internal: the layout of rk_skin_support (rigkit/skin.h), for the core files that build and read
 * it. */
#ifndef RK_SKIN_INTERNAL_H
#define RK_SKIN_INTERNAL_H

#include <rigkit/skin.h>

#include <stdint.h>

/* A candidate vertex, ready to skin: its y at a pose is the sum over k of
 * row y of models[joint[k]] . (wq[k][0], wq[k][1], wq[k][2], wq[k][3]). */
typedef struct rk__skin_cand {
  double wq[4][4];  /* per influence: weight * the vertex in the joint's frame (x, y, z), weight */
  int32_t joint[4]; /* influences; unused ones repeat the dominant joint with weight 0 */
  uint32_t mesh, vertex;
  int32_t dominant;
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

#endif
