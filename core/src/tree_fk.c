/* Forward kinematics of kinematic trees from q: the per-joint layout chosen at build time
 * (rk__tree_prepare_fk), the whole-tree pass (multiversioned, with batched sines and cosines), the
 * subset pass and the transform between two links. */
#include "tree_internal.h"

#include "columns.h"
#include "cpu.h"
#include "sincos_lanes.h"

#include <string.h>

/* Index of the coordinate axis k lies on (k = +-e_a, exactly), or -1. */
static int coordinate_axis(rk_vec3 k) {
  const double v[3] = {k.x, k.y, k.z};
  for (int a = 0; a < 3; a++)
    if (fabs(v[a]) == 1.0 && v[(a + 1) % 3] == 0.0 && v[(a + 2) % 3] == 0.0)
      return a;
  return -1;
}

void rk__tree_prepare_fk(rk_tree *t) {
  t->fk = g_new0(rk__fk_joint, t->n ? t->n : 1);
  t->fk_balls = false;
  for (size_t j = 0; j < t->n; j++) {
    const rk_joint *J = &t->joints[j];
    rk__fk_joint *f = &t->fk[j];
    const rk_mat3 r0 = rk_quat_to_mat3(rk_quat_normalize(J->zero.r));
    const double sc[3] = {J->zero.s.x, J->zero.s.y, J->zero.s.z};
    const double *R = r0.m; /* column-major */
    const bool revolute = J->type == RK_JOINT_REVOLUTE;
    const rk_vec3 k = revolute ? J->axis : rk_vec3_make(0, 0, 0);
    const double kv[3] = {k.x, k.y, k.z};
    double r0k[3]; /* R0 k */
    for (int r = 0; r < 3; r++)
      r0k[r] = R[r] * k.x + R[3 + r] * k.y + R[6 + r] * k.z;
    bool r0_identity = true;
    for (int c = 0; c < 3; c++) {
      const rk_vec3 e = rk_vec3_make(c == 0, c == 1, c == 2);
      const rk_vec3 kx = rk_vec3_cross(k, e); /* column c of [k]x */
      for (int r = 0; r < 3; r++) {
        const double a = R[c * 3 + r] * sc[c];
        const double cc = r0k[r] * kv[c] * sc[c];
        f->C[c * 4 + r] = revolute ? cc : a;
        f->P[c * 4 + r] = revolute ? a - cc : 0.0;
        f->B[c * 4 + r] = (R[r] * kx.x + R[3 + r] * kx.y + R[6 + r] * kx.z) * sc[c];
        r0_identity = r0_identity && R[c * 3 + r] == (r == c ? 1.0 : 0.0);
      }
    }
    f->t[0] = J->zero.t.x;
    f->t[1] = J->zero.t.y;
    f->t[2] = J->zero.t.z;
    f->parent = t->parents[j];
    f->dof = revolute ? J->dof_offset : -1;
    f->chained = j > 0 && f->parent == (int)j - 1;
    f->sign = 1.0;
    const bool unit_scale = sc[0] == 1.0 && sc[1] == 1.0 && sc[2] == 1.0;
    const int axis = revolute && r0_identity && unit_scale ? coordinate_axis(k) : -1;
    if (J->type == RK_JOINT_FIXED && r0_identity && unit_scale) {
      f->kind = RK__FK_TRANSLATE;
    } else if (axis >= 0) {
      f->kind = (unsigned char)(RK__FK_ROT_X + axis);
      f->sign = kv[axis];
    } else if (revolute || J->type == RK_JOINT_FIXED) {
      f->kind = RK__FK_MATRIX;
    } else if (J->type == RK_JOINT_BALL || J->type == RK_JOINT_FREE) {
      f->kind = J->type == RK_JOINT_BALL ? RK__FK_BALL : RK__FK_FREE;
      t->fk_balls = true;
      f->dof = J->dof_offset;
      memcpy(f->axes, t->euler_axes[j], sizeof f->axes);
      f->pre = !r0_identity;
      f->scaled = !unit_scale;
      memset(f->C, 0, sizeof f->C);
      for (int c = 0; c < 3; c++) {
        f->scale[c] = sc[c];
        for (int r = 0; r < 3; r++)
          f->C[c * 4 + r] = R[c * 3 + r];
      }
    } else {
      f->kind = RK__FK_LOCAL;
    }
  }
}

/* GNU vector extensions: 4 doubles (columns.h; AVX registers in the AVX2 variant, two SSE2
 * registers in the baseline one) and 8 doubles (AVX-512 registers, used only by the AVX-512
 * variant). */
typedef rk__v4d v4d;
typedef unsigned long long v4u __attribute__((vector_size(32)));
typedef long long v4i __attribute__((vector_size(32)));

typedef double v8d __attribute__((vector_size(64)));
typedef unsigned long long v8u __attribute__((vector_size(64)));
typedef long long v8i __attribute__((vector_size(64)));

/* sin and cos of n angles (n <= FK_BATCH): W (4 or 8) at a time, the rest one by one, then the
 * angles beyond the vector kernel's range, if any, one by one. */
__attribute__((always_inline)) static inline void sincos_batch(const double *x, size_t n,
                                                               double *s, double *c, int W) {
  bool all_ok = true;
  size_t i = 0;
  if (W == 8) {
    v8i ok = {-1, -1, -1, -1, -1, -1, -1, -1};
    for (; i + 8 <= n; i += 8)
      RK__SINCOS_LANES(v8d, v8u, v8i, x + i, s + i, c + i, ok);
    for (int l = 0; l < 8; l++)
      all_ok = all_ok && ok[l] == -1;
  }
  v4i ok4 = {-1, -1, -1, -1};
  for (; i + 4 <= n; i += 4)
    RK__SINCOS_LANES(v4d, v4u, v4i, x + i, s + i, c + i, ok4);
  all_ok = all_ok && (ok4[0] & ok4[1] & ok4[2] & ok4[3]) == -1;
  for (; i < n; i++)
    rk_sincos(x[i], &s[i], &c[i]);
  if (!all_ok)
    for (size_t k = 0; k < n; k++)
      if (!(fabs(x[k]) < 1e5))
        rk_sincos(x[k], &s[k], &c[k]);
}

/* Columns c0..c2 turned about axis a (0 x: y towards z, 1 y: z towards x, 2 z: x towards y). */
__attribute__((always_inline)) static inline void turn_about(int a, v4d *c0, v4d *c1, v4d *c2,
                                                             double s, double c) {
  if (a == 0)
    rk__cols_turn(c1, c2, s, c);
  else if (a == 1)
    rk__cols_turn(c2, c0, s, c);
  else
    rk__cols_turn(c0, c1, s, c);
}

/* Joint f at (s, c) composed onto the parent frame's columns x0..x3 (bottom row 0 0 0 1), which
 * it replaces with the joint's model matrix, in 4-wide vectors; every kind but RK__FK_LOCAL.
 * Without axis_forms every joint takes the RK__FK_MATRIX form (its C, P, B are always filled). */
__attribute__((always_inline)) static inline void compose_joint(const rk__fk_joint *f, double s,
                                                                double c, v4d *x0, v4d *x1,
                                                                v4d *x2, v4d *x3,
                                                                bool axis_forms) {
  const v4d p0 = *x0, p1 = *x1, p2 = *x2, p3 = *x3;
  v4d o0, o1, o2;
  /* Two independent halves: a shorter dependency chain from the parent to the child. */
  const v4d o3 = (p0 * f->t[0] + p3) + (p1 * f->t[1] + p2 * f->t[2]);
  switch (axis_forms ? (rk__fk_kind)f->kind : RK__FK_MATRIX) {
  case RK__FK_TRANSLATE:
    o0 = p0;
    o1 = p1;
    o2 = p2;
    break;
  case RK__FK_ROT_X: /* one case per axis: constant column indices, no second branch */
    o0 = p0, o1 = p1, o2 = p2;
    turn_about(0, &o0, &o1, &o2, s * f->sign, c);
    break;
  case RK__FK_ROT_Y:
    o0 = p0, o1 = p1, o2 = p2;
    turn_about(1, &o0, &o1, &o2, s * f->sign, c);
    break;
  case RK__FK_ROT_Z:
    o0 = p0, o1 = p1, o2 = p2;
    turn_about(2, &o0, &o1, &o2, s * f->sign, c);
    break;
  default: { /* RK__FK_MATRIX. Scalars kept in registers: a vector L stored and reloaded lane by
              * lane stalls on store forwarding. */
#define RK__L(i) (f->C[i] + c * f->P[i] + s * f->B[i])
    const double l00 = RK__L(0), l01 = RK__L(1), l02 = RK__L(2);
    const double l10 = RK__L(4), l11 = RK__L(5), l12 = RK__L(6);
    const double l20 = RK__L(8), l21 = RK__L(9), l22 = RK__L(10);
#undef RK__L
    o0 = p0 * l00 + p1 * l01 + p2 * l02;
    o1 = p0 * l10 + p1 * l11 + p2 * l12;
    o2 = p0 * l20 + p1 * l21 + p2 * l22;
    break;
  }
  }
  *x0 = o0;
  *x1 = o1;
  *x2 = o2;
  *x3 = o3;
}

/* Ball or free joint f composed onto the parent frame's columns x0..x3, which it replaces with the
 * joint's model matrix: T(t0 (+ q[0..3) if free)) R0 R_A R_B R_C S, the three Euler turns from
 * their sines s[0..3) and cosines c[0..3), q the joint's own DOFs. */
__attribute__((always_inline)) static inline void compose_ball(const rk__fk_joint *f,
                                                               const double *s, const double *c,
                                                               const double *q, v4d *x0, v4d *x1,
                                                               v4d *x2, v4d *x3) {
  const v4d p0 = *x0, p1 = *x1, p2 = *x2, p3 = *x3;
  double t[3] = {f->t[0], f->t[1], f->t[2]};
  if (f->kind == RK__FK_FREE)
    for (int k = 0; k < 3; k++)
      t[k] += q[k];
  *x3 = (p0 * t[0] + p3) + (p1 * t[1] + p2 * t[2]);
  v4d m0 = p0, m1 = p1, m2 = p2;
  if (f->pre) {
    const double *R = f->C;
    m0 = p0 * R[0] + p1 * R[1] + p2 * R[2];
    m1 = p0 * R[4] + p1 * R[5] + p2 * R[6];
    m2 = p0 * R[8] + p1 * R[9] + p2 * R[10];
  }
  for (int k = 0; k < 3; k++)
    turn_about(f->axes[k], &m0, &m1, &m2, s[k], c[k]);
  if (f->scaled) {
    m0 *= f->scale[0];
    m1 *= f->scale[1];
    m2 *= f->scale[2];
  }
  *x0 = m0;
  *x1 = m1;
  *x2 = m2;
}

static const rk_mat4 fk_identity = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};

void rk__tree_fk_local(const rk_tree *t, size_t j, const double *q, const rk_mat4 *parent,
                       rk_mat4 *out) {
  rk_transform L;
  rk_tree_joint_local(t, j, q, &L);
  rk_mat4 local;
  rk_transform_to_mat4_to(&L, &local);
  if (parent)
    rk_mat4_mul_affine_to(parent, &local, out);
  else
    *out = local;
}

/* One joint from q (the subset pass and the general joints of the whole-tree pass). */
static void fk_one(const rk_tree *t, const double *q, const rk_mat4 *root, rk_mat4 *models,
                   size_t j) {
  const rk__fk_joint *f = &t->fk[j];
  const rk_mat4 *parent = f->parent >= 0 ? &models[f->parent] : root;
  if (f->kind <= RK__FK_MATRIX) {
    double s = 0.0, c = 1.0;
    if (f->dof >= 0)
      rk_sincos(q[f->dof], &s, &c);
    v4d x0, x1, x2, x3;
    rk__cols_load((parent ? parent : &fk_identity)->m, &x0, &x1, &x2, &x3);
    compose_joint(f, s, c, &x0, &x1, &x2, &x3, false);
    rk__cols_store(models[j].m, &x0, &x1, &x2, &x3);
    return;
  }
  rk__tree_fk_local(t, j, q, parent, &models[j]);
}

/* Angles per batch of rk_tree_fk's trigonometry (on the stack: no allocation per call). */
#define FK_BATCH 64

/* The whole-tree pass: the sines and cosines of the next FK_BATCH DOFs at once whenever a joint
 * needs an angle not yet computed (DOFs are numbered in joint order), W (4 or 8) lanes wide.
 * With wide (registers of 4 doubles), joints turning about coordinate axes (revolute ones, balls,
 * free joints) take their short forms, and a child right after its parent composes onto the
 * parent's columns still in registers. With 2-double registers (SSE2) both are slower, not
 * faster: GCC broadcasts the sine and cosine through the stack and the carried columns spill.
 * balls compiles the ball and free forms in: a tree without such joints runs a copy of the pass
 * without them, which measured 20% faster on the revolute humanoid (register pressure). */
__attribute__((always_inline)) static inline void tree_fk_body(const rk_tree *t, const double *q,
                                                               const rk_mat4 *root,
                                                               rk_mat4 *models, int W,
                                                               bool wide, bool balls) {
  double sn[FK_BATCH];
  double cs[FK_BATCH];
  size_t lo = 0; /* DOFs [lo, hi) are in sn, cs */
  size_t hi = 0;
  const double *top = (root ? root : &fk_identity)->m;
  v4d x0, x1, x2, x3; /* the last joint's columns */
  rk__cols_load(top, &x0, &x1, &x2, &x3);
  for (size_t j = 0; j < t->n; j++) {
    const rk__fk_joint *f = &t->fk[j];
    /* Ball and free joints take their form only in a pass compiled with it (a constant false
     * otherwise); there and for any other joint type, the general local transform. */
    const bool ball = balls && (f->kind == RK__FK_BALL || f->kind == RK__FK_FREE);
    if (f->kind >= RK__FK_BALL && !ball) {
      fk_one(t, q, root, models, j);
      rk__cols_load(models[j].m, &x0, &x1, &x2, &x3);
      continue;
    }
    if (!wide || !f->chained)
      rk__cols_load(f->parent >= 0 ? models[f->parent].m : top, &x0, &x1, &x2, &x3);
    double s = 0.0, c = 1.0;
    if (f->dof >= 0) {
      /* The joint's angles: a revolute joint's one, a ball's three, a free joint's last three. */
      const size_t first = (size_t)f->dof + (ball && f->kind == RK__FK_FREE ? 3 : 0);
      const size_t count = ball ? 3 : 1;
      if (first < lo || first + count > hi) {
        lo = first;
        hi = t->ndof - first < FK_BATCH ? t->ndof : first + FK_BATCH;
        sincos_batch(q + lo, hi - lo, sn, cs, W);
      }
      if (ball) {
        compose_ball(f, sn + (first - lo), cs + (first - lo), q + f->dof, &x0, &x1, &x2, &x3);
        rk__cols_store(models[j].m, &x0, &x1, &x2, &x3);
        continue;
      }
      s = sn[first - lo];
      c = cs[first - lo];
    }
    compose_joint(f, s, c, &x0, &x1, &x2, &x3, wide);
    rk__cols_store(models[j].m, &x0, &x1, &x2, &x3);
  }
}

/* tree_fk_body compiled for baseline x86-64, AVX2+FMA and AVX-512 (8-wide trigonometry), picked
 * at run time like RK__MULTIVERSION (cpu.h). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(RK_NO_MULTIVERSION)
static void tree_fk_pass_base(const rk_tree *t, const double *q, const rk_mat4 *root,
                              rk_mat4 *models) {
  tree_fk_body(t, q, root, models, 4, false, false);
}
/* The pass in wide registers, W lanes of trigonometry, with the ball form compiled in only for
 * trees that have ball or free joints. */
__attribute__((always_inline)) static inline void tree_fk_wide(const rk_tree *t, const double *q,
                                                               const rk_mat4 *root,
                                                               rk_mat4 *models, int W) {
  if (t->fk_balls)
    tree_fk_body(t, q, root, models, W, true, true);
  else
    tree_fk_body(t, q, root, models, W, true, false);
}
__attribute__((target("avx2,fma"))) static void
tree_fk_pass_avx2(const rk_tree *t, const double *q, const rk_mat4 *root, rk_mat4 *models) {
  tree_fk_wide(t, q, root, models, 4);
}
__attribute__((target("avx512f,avx512dq,avx512vl,avx2,fma"))) static void
tree_fk_pass_avx512(const rk_tree *t, const double *q, const rk_mat4 *root, rk_mat4 *models) {
  tree_fk_wide(t, q, root, models, 8);
}
static void tree_fk_pass(const rk_tree *t, const double *q, const rk_mat4 *root, rk_mat4 *models) {
  if (rk__cpu_has_avx512())
    tree_fk_pass_avx512(t, q, root, models);
  else if (rk__cpu_has_avx2_fma())
    tree_fk_pass_avx2(t, q, root, models);
  else
    tree_fk_pass_base(t, q, root, models);
}
#else
static void tree_fk_pass(const rk_tree *t, const double *q, const rk_mat4 *root, rk_mat4 *models) {
  tree_fk_body(t, q, root, models, 4, false, false);
}
#endif

void rk_tree_fk(const rk_tree *tree, const double *q, const rk_mat4 *root, rk_mat4 *models) {
  tree_fk_pass(tree, q, root, models);
}

void rk_tree_fk_subset(const rk_tree *tree, const double *q, const rk_mat4 *root, const int *links,
                       size_t count, rk_mat4 *models) {
  for (size_t k = 0; k < count; k++)
    if (links[k] >= 0 && (size_t)links[k] < tree->n)
      fk_one(tree, q, root, models, (size_t)links[k]);
}

void rk_tree_transform_between(const rk_tree *tree, const double *q, int a, int b, rk_mat4 *out) {
  rk_mat4 ta = rk_mat4_identity(), tb = rk_mat4_identity(), tmp;
  if (a >= (int)tree->n)
    a = -1;
  if (b >= (int)tree->n)
    b = -1;
  /* Climb from the deeper (larger preorder index) side until both meet at the common ancestor. */
  while (a != b) {
    int *x = a > b ? &a : &b;
    rk_mat4 *acc = a > b ? &ta : &tb;
    rk_transform L;
    rk_tree_joint_local(tree, (size_t)*x, q, &L);
    rk_mat4 lm = rk_transform_to_mat4(&L);
    rk_mat4_mul_affine_to(&lm, acc, &tmp);
    *acc = tmp;
    *x = tree->parents[*x];
  }
  rk_mat4 inv;
  if (!rk_mat4_inverse_affine(&ta, &inv))
    inv = rk_mat4_inverse_rigid(&ta);
  rk_mat4_mul_affine_to(&inv, &tb, out);
}
