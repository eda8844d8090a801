/* The preorder FK pass (parent before child) over a parents array and local poses: the kernel of
 * rk_fk_job_run, rk_fk_models and rk_skeleton_rest_models, compiled for baseline x86-64 (in
 * SSE2 registers of two doubles, two joints' rotations at once) and for AVX2+FMA (4-wide
 * columns), picked at run time (cpu.h). Both do the same operations in the same order (the AVX2
 * one fusing multiplies into additions: the two differ in last bits, as cpu.h allows). */
#include "fk_pass.h"

#include "columns.h"
#include "cpu.h"

#include <emmintrin.h>
#include <stdint.h>

/* The columns of the local rotation R(q) (the scale multiplies the output columns afterwards). */
typedef struct fk_rot {
  double l00, l01, l02, l10, l11, l12, l20, l21, l22;
} fk_rot;

/* Returns the rotation columns (a ROT) of the quaternion (qx, qy, qz, qw) in type T, given
 * x2, y2, z2 = 2 qx, 2 qy, 2 qz: one formula for a joint in doubles and for two joints in the
 * lanes of a vector, each lane rounding as the scalar form does. */
#define FK_QUAT_COLS(T, ROT, one, qx, qy, qz, qw, x2, y2, z2)                                      \
  do {                                                                                             \
    const T xx = qx * x2, yy = qy * y2, zz = qz * z2, xy = qx * y2, xz = qx * z2, yz = qy * z2,    \
            wx = qw * x2, wy = qw * y2, wz = qw * z2;                                              \
    return (ROT){one - (yy + zz), xy + wz, xz - wy, xy - wz,        one - (xx + zz),               \
                 yz + wx,         xz + wy, yz - wx, one - (xx + yy)};                              \
  } while (0)

__attribute__((always_inline)) static inline fk_rot fk_quat_cols(const rk_quat *q) {
  const double qx = q->x, qy = q->y, qz = q->z, qw = q->w;
  const double x2 = qx + qx, y2 = qy + qy, z2 = qz + qz;
  FK_QUAT_COLS(double, fk_rot, 1.0, qx, qy, qz, qw, x2, y2, z2);
}

/* A root without a frame above it: the local matrix itself. */
__attribute__((always_inline)) static inline void fk_root(const rk_transform *x, const fk_rot *r,
                                                          double *o) {
  o[0] = r->l00 * x->s.x, o[1] = r->l01 * x->s.x, o[2] = r->l02 * x->s.x, o[3] = 0;
  o[4] = r->l10 * x->s.y, o[5] = r->l11 * x->s.y, o[6] = r->l12 * x->s.y, o[7] = 0;
  o[8] = r->l20 * x->s.z, o[9] = r->l21 * x->s.z, o[10] = r->l22 * x->s.z, o[11] = 0;
  o[12] = x->t.x, o[13] = x->t.y, o[14] = x->t.z, o[15] = 1;
}

/* The frame above joint j: its parent's model matrix, else root (NULL: none). */
__attribute__((always_inline)) static inline const double *
fk_above(const int *restrict parents, const rk_mat4 *root, rk_mat4 *restrict models, size_t j) {
  const int p = parents[j];
  return p >= 0 ? models[p].m : root ? root->m : NULL;
}

/* How far ahead of the joint being composed the passes ask for its local poses (bytes, 8 joints):
 * poses streamed from memory (a pool of many characters' poses, one skeleton after another)
 * otherwise arrive late, the more so for the baseline pass, whose out-of-order window spans
 * fewer joints; in cache it costs two or three prefetch instructions per joint or pair. */
#define FK_AHEAD (8 * (int)sizeof(rk_transform))

/* models[j] = parent * T(t) R(q) S(s), written out so that nothing is reloaded through aliasing
 * (the parent matrix is read once into locals) and no full 4x4 local matrix is formed: each
 * output column a combination of the parent's 4-wide columns (one AVX register each); the bottom
 * row (0,0,0,1) comes out by itself. */
__attribute__((always_inline)) static inline void fk_joint_v4(const int *restrict parents,
                                                              const rk_transform *restrict locals,
                                                              const rk_mat4 *root,
                                                              rk_mat4 *restrict models, size_t j) {
  const rk_transform *x = &locals[j];
  const char *ahead = (const char *)x + FK_AHEAD;
  __builtin_prefetch(ahead), __builtin_prefetch(ahead + 64);
  const fk_rot r = fk_quat_cols(&x->r);
  const double tx = x->t.x, ty = x->t.y, tz = x->t.z;
  double *o = models[j].m;
  const double *P = fk_above(parents, root, models, j);
  if (!P) {
    fk_root(x, &r, o);
    return;
  }
  rk__v4d c0, c1, c2, c3;
  rk__cols_load(P, &c0, &c1, &c2, &c3);
  rk__v4d o0 = c0 * r.l00 + c1 * r.l01 + c2 * r.l02;
  rk__v4d o1 = c0 * r.l10 + c1 * r.l11 + c2 * r.l12;
  rk__v4d o2 = c0 * r.l20 + c1 * r.l21 + c2 * r.l22;
  if (x->s.x != 1.0 || x->s.y != 1.0 || x->s.z != 1.0) { /* animation scale is mostly 1 */
    o0 *= x->s.x;
    o1 *= x->s.y;
    o2 *= x->s.z;
  }
  /* Two independent halves: a shorter dependency chain from the parent to the child. */
  const rk__v4d o3 = (c0 * tx + c3) + (c1 * ty + c2 * tz);
  rk__cols_store(o, &o0, &o1, &o2, &o3);
}

/* The pass over all joints (joints == NULL) or over a subset, one joint at a time. */
__attribute__((always_inline)) static inline void
fk_pass_v4(const int *restrict parents, const rk_transform *restrict locals, const rk_mat4 *root,
           const int *joints, size_t count, rk_mat4 *restrict models) {
  if (joints) {
    for (size_t k = 0; k < count; k++)
      fk_joint_v4(parents, locals, root, models, (size_t)joints[k]);
  } else {
    for (size_t j = 0; j < count; j++)
      fk_joint_v4(parents, locals, root, models, j);
  }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(RK_NO_MULTIVERSION)
/* The baseline pass is bound by its floating-point operations and shuffles (multiplies on two
 * ports, additions on two, one shared with the multiplies and the other with the shuffles) and by
 * its instruction count; a skeleton of one root and 30 children runs 3% faster than the humanoid,
 * all chains. It converts two joints' quaternions at once, one per lane (half the operations of
 * one at a time), and composes in half columns (two SSE2 registers per column; GCC would split
 * fk_joint_v4's 4-wide vectors itself and spill them around the scale test). */
typedef double fk_v2d __attribute__((vector_size(16)));

/* The rotation columns of two joints, one in each lane. */
typedef struct fk_rot2 {
  fk_v2d l00, l01, l02, l10, l11, l12, l20, l21, l22;
} fk_rot2;

__attribute__((always_inline)) static inline fk_rot2 fk_quat_cols2(const rk_quat *a,
                                                                   const rk_quat *b) {
  const fk_v2d qx = {a->x, b->x}, qy = {a->y, b->y}, qz = {a->z, b->z}, qw = {a->w, b->w};
  const fk_v2d one = {1, 1};
  /* 2q as a product, not a sum: the same bits (doubling is exact), on the multipliers' ports
   * rather than those the additions share with the shuffles, the busier ones in this pass. The
   * empty asm hides the 2 from GCC, which would turn the products back into sums. */
  fk_v2d two = {2, 2};
  __asm__("" : "+x"(two));
  const fk_v2d x2 = qx * two, y2 = qy * two, z2 = qz * two;
  FK_QUAT_COLS(fk_v2d, fk_rot2, one, qx, qy, qz, qw, x2, y2, z2);
}

/* Lane k of each column entry. */
__attribute__((always_inline)) static inline fk_rot fk_rot_lane(const fk_rot2 *r, int k) {
  return (fk_rot){r->l00[k], r->l01[k], r->l02[k], r->l10[k], r->l11[k],
                  r->l12[k], r->l20[k], r->l21[k], r->l22[k]};
}

/* Lane k of v in both lanes. Lane 0 with pshufd (SSE2), which writes a new register and reads
 * v from memory: unpcklpd overwrites its operand, whose lane 1 the pair's second joint still
 * needs, so GCC copied v and then shuffled it, one instruction more per broadcast. */
#define FK_BCAST(v, k)                                                                             \
  ((k) ? __builtin_shufflevector(v, v, 1, 1)                                                       \
       : (fk_v2d)_mm_castsi128_pd(_mm_shuffle_epi32(_mm_castpd_si128(v), 0x44)))

/* One output column half: a*ka + b*kb + c*kc, times s when scaled, stored at o. */
#define FK_HALF(o, a, b, c, ka, kb, kc, s, scaled)                                                 \
  do {                                                                                             \
    fk_v2d h_ = a * ka + b * kb + c * kc;                                                          \
    if (scaled)                                                                                    \
      h_ *= s;                                                                                     \
    memcpy(o, &h_, sizeof h_);                                                                     \
  } while (0)

/* True when all three scale factors are exactly 1 (the bits of 1.0: no other double equals it),
 * tested in integer registers, a compare and a branch each (predicted: animation scale is mostly
 * 1), two instructions fewer per joint than or-ing the three differences. */
__attribute__((always_inline)) static inline bool fk_unit_scale(const rk_vec3 *s) {
  uint64_t a, b, c;
  memcpy(&a, &s->x, 8), memcpy(&b, &s->y, 8), memcpy(&c, &s->z, 8);
  const uint64_t one = 0x3ff0000000000000u;
  if (a != one)
    return false;
  __asm__ volatile(""); /* keeps GCC from merging the tests into flags and setcc */
  if (b != one)
    return false;
  __asm__ volatile("");
  return c == one;
}

/* The product of fk_joint_v4 in half columns (two SSE2 registers per column), the rotation in
 * lane k of r: the translation column first (it frees the parent's last column), each column
 * stored as soon as it is done. Compiled once with and once without the scale (scaled is a
 * constant in each copy): the 4-wide form's test between the product and the stores made GCC
 * keep the columns in stack slots across it. */
__attribute__((always_inline)) static inline void fk_compose_v2(const double *P,
                                                                const rk_transform *x,
                                                                const fk_rot2 *r, int k,
                                                                double *o, bool scaled) {
  fk_v2d c0a, c0b, c1a, c1b, c2a, c2b, c3a, c3b;
  memcpy(&c0a, P, 16), memcpy(&c0b, P + 2, 16), memcpy(&c1a, P + 4, 16);
  memcpy(&c1b, P + 6, 16), memcpy(&c2a, P + 8, 16), memcpy(&c2b, P + 10, 16);
  memcpy(&c3a, P + 12, 16), memcpy(&c3b, P + 14, 16);
  const fk_v2d tx = {x->t.x, x->t.x}, ty = {x->t.y, x->t.y}, tz = {x->t.z, x->t.z};
  const fk_v2d o3a = (c0a * tx + c3a) + (c1a * ty + c2a * tz);
  const fk_v2d o3b = (c0b * tx + c3b) + (c1b * ty + c2b * tz);
  memcpy(o + 12, &o3a, 16), memcpy(o + 14, &o3b, 16);
  const fk_v2d sx = {x->s.x, x->s.x}, sy = {x->s.y, x->s.y}, sz = {x->s.z, x->s.z};
  fk_v2d l0 = FK_BCAST(r->l00, k), l1 = FK_BCAST(r->l01, k), l2 = FK_BCAST(r->l02, k);
  FK_HALF(o, c0a, c1a, c2a, l0, l1, l2, sx, scaled);
  FK_HALF(o + 2, c0b, c1b, c2b, l0, l1, l2, sx, scaled);
  l0 = FK_BCAST(r->l10, k), l1 = FK_BCAST(r->l11, k), l2 = FK_BCAST(r->l12, k);
  FK_HALF(o + 4, c0a, c1a, c2a, l0, l1, l2, sy, scaled);
  FK_HALF(o + 6, c0b, c1b, c2b, l0, l1, l2, sy, scaled);
  l0 = FK_BCAST(r->l20, k), l1 = FK_BCAST(r->l21, k), l2 = FK_BCAST(r->l22, k);
  FK_HALF(o + 8, c0a, c1a, c2a, l0, l1, l2, sz, scaled);
  FK_HALF(o + 10, c0b, c1b, c2b, l0, l1, l2, sz, scaled);
}

/* fk_joint_v4 for joint j in half columns, its rotation in lane k of r. */
__attribute__((always_inline)) static inline void
fk_joint_v2(const int *restrict parents, const rk_transform *restrict locals, const rk_mat4 *root,
            rk_mat4 *restrict models, size_t j, const fk_rot2 *r, int k) {
  const rk_transform *x = &locals[j];
  double *o = models[j].m;
  const double *P = fk_above(parents, root, models, j);
  if (!P) {
    const fk_rot one = fk_rot_lane(r, k);
    fk_root(x, &one, o);
  } else if (fk_unit_scale(&x->s)) {
    fk_compose_v2(P, x, r, k, o, false);
  } else {
    fk_compose_v2(P, x, r, k, o, true);
  }
}

/* Joint k of the pass: joints[k], or k when joints is NULL. */
__attribute__((always_inline)) static inline size_t fk_at(const int *joints, size_t k) {
  return joints ? (size_t)joints[k] : k;
}

/* The rotations of the pair at k (joints k and k + 1, or k twice when it is the last one). */
__attribute__((always_inline)) static inline void
fk_pair_rot(const rk_transform *restrict locals, const int *joints, size_t count, size_t k,
            fk_rot2 *r) {
  const size_t a = fk_at(joints, k), b = k + 1 < count ? fk_at(joints, k + 1) : a;
  *r = fk_quat_cols2(&locals[a].r, &locals[b].r);
}

/* Joints two at a time, the rotations of the next pair converted (into the other half of a ring
 * of two in memory) ahead of composing this one: the conversion waits for nothing, the products
 * wait for the parent's frame, and with one pair's conversion after the other's products the
 * scheduler, full of products waiting on the parent, had nothing else to run (the humanoid, all
 * chains, took 5% longer than one root with 30 children; now 2%). */
__attribute__((always_inline)) static inline void
fk_pass_v2(const int *restrict parents, const rk_transform *restrict locals, const rk_mat4 *root,
           const int *joints, size_t count, rk_mat4 *restrict models) {
  fk_rot2 ring[2], *r = &ring[0], *next = &ring[1];
  if (!count)
    return;
  fk_pair_rot(locals, joints, count, 0, r);
  size_t k = 0;
  for (; k + 2 < count; k += 2) {
    const size_t a = fk_at(joints, k), b = fk_at(joints, k + 1);
    const char *ahead = (const char *)&locals[a] + FK_AHEAD;
    __builtin_prefetch(ahead), __builtin_prefetch(ahead + 64), __builtin_prefetch(ahead + 128);
    fk_pair_rot(locals, joints, count, k + 2, next);
    fk_joint_v2(parents, locals, root, models, a, r, 0);
    fk_joint_v2(parents, locals, root, models, b, r, 1);
    fk_rot2 *t = r;
    r = next, next = t;
  }
  fk_joint_v2(parents, locals, root, models, fk_at(joints, k), r, 0);
  if (k + 1 < count)
    fk_joint_v2(parents, locals, root, models, fk_at(joints, k + 1), r, 1);
}

/* Aligned so that the loop's place in the instruction cache lines, and its speed, do not depend on
 * where the linker puts the function: the same code ran 3% slower in rk_bench_fk (static, the
 * function 48 bytes into a 64-byte line) than linked with the shared library (16 bytes in). */
__attribute__((noinline, aligned(64))) static void
fk_pass_base(const int *restrict parents, const rk_transform *restrict locals, const rk_mat4 *root,
             const int *joints, size_t count, rk_mat4 *restrict models) {
  if (joints)
    fk_pass_v2(parents, locals, root, joints, count, models);
  else
    fk_pass_v2(parents, locals, root, NULL, count, models);
}

/* With AVX2+FMA it costs about half as much as the baseline pass. */
__attribute__((noinline, target("avx2,fma"))) static void
fk_pass_avx2(const int *restrict parents, const rk_transform *restrict locals, const rk_mat4 *root,
             const int *joints, size_t count, rk_mat4 *restrict models) {
  fk_pass_v4(parents, locals, root, joints, count, models);
}

void rk__fk_pass(const int *restrict parents, const rk_transform *restrict locals,
                 const rk_mat4 *root, const int *joints, size_t count, rk_mat4 *restrict models) {
  if (rk__cpu_has_avx2_fma())
    fk_pass_avx2(parents, locals, root, joints, count, models);
  else
    fk_pass_base(parents, locals, root, joints, count, models);
}
#else
void rk__fk_pass(const int *restrict parents, const rk_transform *restrict locals,
                 const rk_mat4 *root, const int *joints, size_t count, rk_mat4 *restrict models) {
  fk_pass_v4(parents, locals, root, joints, count, models);
}
#endif
