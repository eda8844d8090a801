/* Forward kinematics of a skeleton: one preorder pass, parent before child. */
#include <rigkit/fk.h>

#include "columns.h"
#include "cpu.h"

#include <stdint.h>
#include <string.h>


/* Skeletons up to this many joints validate a subset with a bitmap on the stack; larger ones
 * with a binary search per joint (whose mispredicted branches cost about as much as the FK). */
#define FK_BITMAP_JOINTS 4096

bool rk_fk_job_validate(const rk_fk_job *job) {
  if (!job || !job->skeleton || !job->locals || !job->models)
    return false;
  const size_t n = rk_skeleton_joint_count(job->skeleton);
  if (job->locals_count < n || job->models_count < n)
    return false;
  if (!job->joints)
    return true;
  const int *parents = rk_skeleton_parents(job->skeleton);
  uint64_t seen[FK_BITMAP_JOINTS / 64];
  const bool bitmap = n <= FK_BITMAP_JOINTS;
  if (bitmap)
    memset(seen, 0, (n + 63) / 64 * sizeof seen[0]);
  for (size_t k = 0; k < job->joints_count; k++) {
    int j = job->joints[k];
    if (j < 0 || (size_t)j >= n || (k > 0 && j <= job->joints[k - 1]))
      return false;
    /* Closed under parents: the parent must appear earlier in the (sorted) list. */
    int p = parents[j];
    if (p < 0) {
      /* a root */
    } else if (bitmap) {
      if (!(seen[p / 64] >> (p % 64) & 1))
        return false;
    } else {
      size_t lo = 0, hi = k; /* binary search for p in joints[0, k) */
      while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (job->joints[mid] < p)
          lo = mid + 1;
        else
          hi = mid;
      }
      if (lo >= k || job->joints[lo] != p)
        return false;
    }
    if (bitmap)
      seen[j / 64] |= (uint64_t)1 << (j % 64);
  }
  return true;
}

/* models[j] = parent * T(t) R(q) S(s), written out so that nothing is reloaded through aliasing
 * (the parent matrix is read once into locals) and no full 4x4 local matrix is formed. */
__attribute__((always_inline)) static inline void fk_joint(const int *restrict parents, const rk_transform *restrict locals,
                            const rk_mat4 *root, rk_mat4 *restrict models, size_t j) {
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
RK__MULTIVERSION(void, fk_pass,
                 (const int *restrict parents, const rk_transform *restrict locals,
                  const rk_mat4 *root, const int *joints, size_t count, rk_mat4 *restrict models),
                 (parents, locals, root, joints, count, models), {
                   if (joints) {
                     for (size_t k = 0; k < count; k++)
                       fk_joint(parents, locals, root, models, (size_t)joints[k]);
                   } else {
                     for (size_t j = 0; j < count; j++)
                       fk_joint(parents, locals, root, models, j);
                   }
                 })

bool rk_fk_job_run(const rk_fk_job *job) {
  if (!rk_fk_job_validate(job))
    return false;
  /* A valid list of every joint is 0..n-1 (sorted, distinct): the whole-skeleton loop. */
  const size_t n = rk_skeleton_joint_count(job->skeleton);
  const bool all = !job->joints || job->joints_count == n;
  fk_pass(rk_skeleton_parents(job->skeleton), job->locals, job->root, all ? NULL : job->joints,
          all ? n : job->joints_count, job->models);
  return true;
}

void rk_fk_models(const rk_skeleton *s, const rk_transform *locals, rk_mat4 *models) {
  fk_pass(rk_skeleton_parents(s), locals, NULL, NULL, rk_skeleton_joint_count(s), models);
}
