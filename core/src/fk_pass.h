/* Internal: the preorder FK pass (fk_pass.c) under rk_fk_job_run, rk_fk_models (fk.c) and
 * rk_skeleton_rest_models (skeleton.c). It takes a parents array, not a skeleton, so that the
 * skeleton can use it without depending on fk.c. */
#ifndef RK_FK_PASS_H
#define RK_FK_PASS_H

#include <rigkit/math.h>

/* models[j] = models[parents[j]] * locals[j] (root, or the identity when root is NULL, above the
 * roots) for j = joints[0..count) in order, or for j = 0..count-1 when joints is NULL; parents
 * come before their children (preorder). Allocates nothing. */
void rk__fk_pass(const int *restrict parents, const rk_transform *restrict locals,
                 const rk_mat4 *root, const int *joints, size_t count, rk_mat4 *restrict models);

#endif
