/* The preorder FK pass (parent before child) over a parents array and local poses: the kernel of
 * rk_fk_job_run, rk_fk_models and rk_skeleton_rest_models, multiversioned (cpu.h). */
#include "fk_pass.h"

#include "columns.h"
#include "cpu.h"

/* models[j] = parent * T(t) R(q) S(s), written out so that nothing is reloaded through aliasing
 * (the parent matrix is read once into locals) and no full 4x4 local matrix is formed. */
__attribute__((always_inline)) static inline void fk_joint(const int *restrict parents,
                                                           const rk_transform *restrict locals,
                                                           const rk_mat4 *root,
                                                           rk_mat4 *restrict models, size_t j) {
  const rk_transform *x = &locals[j];
  const double qx = x->r.x, qy = x->r.y, qz = x->r.z, qw = x->r.w;
  const double x2 = qx + qx, y2 = qy + qy, z2 = qz + qz;
  const double xx = qx * x2, yy = qy * y2, zz = qz * z2, xy = qx * y2, xz = qx * z2,
               yz = qy * z2, wx = qw * x2, wy = qw * y2, wz = qw * z2;
  /* Local rotation columns l0, l1, l2 (the scale multiplies the output columns) and translation. */
  const double l00 = 1 - (yy + zz), l01 = xy + wz, l02 = xz - wy;
  const double l10 = xy - wz, l11 = 1 - (xx + zz), l12 = yz + wx;
  const double l20 = xz + wy, l21 = yz - wx, l22 = 1 - (xx + yy);
  const double tx = x->t.x, ty = x->t.y, tz = x->t.z;
  double *o = models[j].m;
  const int p = parents[j];
  const double *P = p >= 0 ? models[p].m : root ? root->m : NULL;
  if (!P) {
    o[0] = l00 * x->s.x, o[1] = l01 * x->s.x, o[2] = l02 * x->s.x, o[3] = 0;
    o[4] = l10 * x->s.y, o[5] = l11 * x->s.y, o[6] = l12 * x->s.y, o[7] = 0;
    o[8] = l20 * x->s.z, o[9] = l21 * x->s.z, o[10] = l22 * x->s.z, o[11] = 0;
    o[12] = tx, o[13] = ty, o[14] = tz, o[15] = 1;
    return;
  }
  /* Column-wise product with 4-wide vectors: each output column is a combination of the
   * parent's columns; the bottom row (0,0,0,1) comes out by itself. */
  rk__v4d c0, c1, c2, c3;
  rk__cols_load(P, &c0, &c1, &c2, &c3);
  rk__v4d o0 = c0 * l00 + c1 * l01 + c2 * l02;
  rk__v4d o1 = c0 * l10 + c1 * l11 + c2 * l12;
  rk__v4d o2 = c0 * l20 + c1 * l21 + c2 * l22;
  if (x->s.x != 1.0 || x->s.y != 1.0 || x->s.z != 1.0) { /* animation scale is mostly 1 */
    o0 *= x->s.x;
    o1 *= x->s.y;
    o2 *= x->s.z;
  }
  /* Two independent halves: a shorter dependency chain from the parent to the child. */
  const rk__v4d o3 = (c0 * tx + c3) + (c1 * ty + c2 * tz);
  rk__cols_store(o, &o0, &o1, &o2, &o3);
}

/* The preorder pass over all joints (joints == NULL) or over a subset, multiversioned (cpu.h):
 * with AVX2+FMA it costs about half as much. */
RK__MULTIVERSION_EXTERN(void, rk__fk_pass,
                        (const int *restrict parents, const rk_transform *restrict locals,
                         const rk_mat4 *root, const int *joints, size_t count,
                         rk_mat4 *restrict models),
                        (parents, locals, root, joints, count, models), {
                          if (joints) {
                            for (size_t k = 0; k < count; k++)
                              fk_joint(parents, locals, root, models, (size_t)joints[k]);
                          } else {
                            for (size_t j = 0; j < count; j++)
                              fk_joint(parents, locals, root, models, j);
                          }
                        })
