/* Brute force for the skin suites (tests/core/test_skin.c, tests/importers/test_skin_files.c):
 * every vertex of a set of meshes skinned at a pose by linear blend skinning, written apart from
 * core/src/skin.c, the lowest of them, and random poses. Header-only (static functions). */
#ifndef RK_SKIN_FIXTURE_H
#define RK_SKIN_FIXTURE_H

#include "rk_test.h"

#include <string.h>

/* Vertex v of mesh d at the pose models: the sum over its joints of weight * model * inverse bind
 * (the rest model's inverse for a joint without one) * position; a rigid mesh follows its joint
 * from the rest pose (rest holds the rest models). */
static inline rk_vec3 brute_skin(const rk_skeleton *s, const rk_mat4 *rest, const rk_mesh_data *d,
                                 size_t v, const rk_mat4 *models) {
  const rk_vec3 p =
      rk_vec3_make(d->positions[3 * v], d->positions[3 * v + 1], d->positions[3 * v + 2]);
  if (!d->joints) {
    rk_mat4 inv;
    cr_assert(rk_mat4_inverse_affine(&rest[d->attach_joint], &inv));
    const rk_mat4 m = rk_mat4_mul(&models[d->attach_joint], &inv);
    return rk_mat4_transform_point(&m, p);
  }
  rk_vec3 out = {0, 0, 0};
  for (int k = 0; k < 4; k++) {
    const double w = d->weights[4 * v + (size_t)k];
    const size_t j = d->joints[4 * v + (size_t)k];
    rk_mat4 ibm;
    if (!rk_skeleton_inverse_bind(s, j, &ibm))
      cr_assert(rk_mat4_inverse_affine(&rest[j], &ibm));
    const rk_mat4 m = rk_mat4_mul(&models[j], &ibm);
    out = rk_vec3_add(out, rk_vec3_scale(rk_mat4_transform_point(&m, p), w));
  }
  return out;
}

/* The joint vertex v of mesh d is weighted to most (the first of equal weights), its attach
 * joint for a rigid mesh. */
static inline int brute_dominant(const rk_mesh_data *d, size_t v) {
  if (!d->joints)
    return d->attach_joint;
  int best = 0;
  for (int k = 1; k < 4; k++)
    if (d->weights[4 * v + (size_t)k] > d->weights[4 * v + (size_t)best])
      best = k;
  return d->joints[4 * v + (size_t)best];
}

typedef struct brute_lowest {
  double y;
  size_t mesh, vertex;
  size_t count; /* vertices looked at */
} brute_lowest;

/* The lowest vertex of meshes[0..n) at the pose models among those whose dominant joint j has
 * member[j] set (member NULL: all), static meshes left out. */
static inline brute_lowest brute_lowest_of(const rk_skeleton *s, const rk_mat4 *rest,
                                           const rk_mesh *const *meshes, size_t n,
                                           const rk_mat4 *models, const bool *member) {
  brute_lowest best = {INFINITY, 0, 0, 0};
  for (size_t m = 0; m < n; m++) {
    const rk_mesh_data *d = rk_mesh_data_get(meshes[m]);
    if (!d->joints && d->attach_joint < 0)
      continue;
    for (size_t v = 0; v < d->vertex_count; v++) {
      if (member && !member[brute_dominant(d, v)])
        continue;
      best.count++;
      const double y = brute_skin(s, rest, d, v, models).y;
      if (y < best.y)
        best.y = y, best.mesh = m, best.vertex = v;
    }
  }
  return best;
}

/* A random pose: every rest local turned by a rotation about a random axis by up to max_angle,
 * the roots moved by up to shift along each axis; locals and models have a joint count of
 * entries. */
static inline void random_pose(const rk_skeleton *s, guint64 *rng, double max_angle, double shift,
                               rk_transform *locals, rk_mat4 *models) {
  const size_t n = rk_skeleton_joint_count(s);
  memcpy(locals, rk_skeleton_rest_locals(s), n * sizeof *locals);
  for (size_t j = 0; j < n; j++) {
    rk_vec3 axis;
    do
      axis = rk_vec3_make(rk_test_uniform(rng, -1, 1), rk_test_uniform(rng, -1, 1),
                          rk_test_uniform(rng, -1, 1));
    while (rk_vec3_norm(axis) > 1 || rk_vec3_norm(axis) < 1e-3);
    const rk_quat turn = rk_quat_from_axis_angle(axis, rk_test_uniform(rng, 0, max_angle));
    locals[j].r = rk_quat_mul(locals[j].r, turn);
    if (rk_skeleton_parent(s, j) < 0)
      locals[j].t = rk_vec3_add(locals[j].t, rk_vec3_make(rk_test_uniform(rng, -shift, shift),
                                                          rk_test_uniform(rng, -shift, shift),
                                                          rk_test_uniform(rng, -shift, shift)));
  }
  rk_fk_models(s, locals, models);
}

#endif
