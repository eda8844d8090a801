/* Kinematic trees: typing joints, the DOF vector, q <-> local poses, FK and DOF axes. */
#include "tree_internal.h"

#include "math_internal.h"
#include "columns.h"
#include "cpu.h"

#include <rigkit/error.h>
#include <rigkit/fk.h>

#include <ctype.h>
#include <string.h>

/* ---- names ----------------------------------------------------------------------------------- */

const char *rk_joint_type_name(rk_joint_type type) {
  switch (type) {
  case RK_JOINT_FIXED:
    return "fixed";
  case RK_JOINT_REVOLUTE:
    return "revolute";
  case RK_JOINT_PRISMATIC:
    return "prismatic";
  case RK_JOINT_BALL:
    return "ball";
  case RK_JOINT_FREE:
    return "free";
  }
  return "?";
}

const char *rk_joint_origin_name(rk_joint_origin origin) {
  switch (origin) {
  case RK_ORIGIN_DEFAULT:
    return "default";
  case RK_ORIGIN_SPEC:
    return "spec";
  case RK_ORIGIN_END_SITE:
    return "end-site";
  case RK_ORIGIN_HINGE_FIT:
    return "hinge-fit";
  case RK_ORIGIN_LINE_FIT:
    return "line-fit";
  case RK_ORIGIN_STATIC:
    return "static";
  }
  return "?";
}

int rk_joint_type_dof_count(rk_joint_type type) {
  switch (type) {
  case RK_JOINT_REVOLUTE:
  case RK_JOINT_PRISMATIC:
    return 1;
  case RK_JOINT_BALL:
    return 3;
  case RK_JOINT_FREE:
    return 6;
  case RK_JOINT_FIXED:
    break;
  }
  return 0;
}

void rk_tree_options_init(rk_tree_options *opts) {
  rk_tree_options d = RK_TREE_OPTIONS_INIT;
  *opts = d;
}

/* ---- small helpers --------------------------------------------------------------------------- */

static const rk_vec3 unit_axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

/* ---- accessors ------------------------------------------------------------------------------- */

const rk_skeleton *rk_tree_skeleton(const rk_tree *tree) { return tree->skeleton; }
size_t rk_tree_link_count(const rk_tree *tree) { return tree->n; }
const char *rk_tree_link_name(const rk_tree *tree, size_t link) {
  return link < tree->n ? rk_skeleton_joint_name(tree->skeleton, link) : NULL;
}
int rk_tree_link_parent(const rk_tree *tree, size_t link) {
  return link < tree->n ? tree->parents[link] : -1;
}
int rk_tree_find_link(const rk_tree *tree, const char *name) {
  return rk_skeleton_find_joint(tree->skeleton, name);
}
size_t rk_tree_link_subtree_end(const rk_tree *tree, size_t link) {
  return link < tree->n ? tree->subtree_end[link] : link;
}
const rk_joint *rk_tree_joint(const rk_tree *tree, size_t joint) {
  return joint < tree->n ? &tree->joints[joint] : NULL;
}
size_t rk_tree_dof_count(const rk_tree *tree) { return tree->ndof; }
const rk_dof *rk_tree_dof(const rk_tree *tree, size_t k) {
  return k < tree->ndof ? &tree->dofs[k] : NULL;
}
const char *rk_tree_dof_name(const rk_tree *tree, size_t k) {
  return k < tree->ndof ? tree->dof_names[k] : NULL;
}
const double *rk_tree_lower(const rk_tree *tree) { return tree->lower; }
const double *rk_tree_upper(const rk_tree *tree) { return tree->upper; }

bool rk_tree_dof_moves_link(const rk_tree *tree, size_t k, size_t link) {
  if (k >= tree->ndof || link >= tree->n)
    return false;
  const size_t j = (size_t)tree->dofs[k].joint;
  return j <= link && link < tree->subtree_end[j];
}

size_t rk_tree_link_dof_count(const rk_tree *tree, size_t link) {
  return link < tree->n ? tree->link_dof_count[link] : 0;
}

size_t rk_tree_link_dofs(const rk_tree *tree, size_t link, int *out) {
  if (link >= tree->n)
    return 0;
  size_t pos = tree->link_dof_count[link];
  const size_t count = pos;
  for (int x = (int)link; x >= 0; x = tree->parents[x]) {
    const rk_joint *J = &tree->joints[x];
    for (int k = J->dof_count; k-- > 0;)
      out[--pos] = J->dof_offset + k;
  }
  return count;
}

/* ---- q <-> local poses ----------------------------------------------------------------------- */

void rk_tree_q_zero(const rk_tree *tree, double *q) {
  for (size_t k = 0; k < tree->ndof; k++)
    q[k] = 0.0;
}

void rk_tree_q_rest(const rk_tree *tree, double *q) {
  memcpy(q, tree->q_rest, tree->ndof * sizeof(double));
}

/* Rotation of angle about a unit axis (no normalisation: tree axes are unit by construction). */
static inline rk_quat axis_quat(rk_vec3 a, double angle) {
  double s, c;
  rk_sincos(0.5 * angle, &s, &c);
  return rk_quat_make(a.x * s, a.y * s, a.z * s, c);
}

/* R_A(q0) R_B(q1) R_C(q2) as a quaternion, each factor about a coordinate axis. */
static inline rk_quat euler_quat(const unsigned char ax[3], const double *q) {
  rk_quat r = rk_quat_identity();
  for (int k = 0; k < 3; k++) {
    double s, c;
    rk_sincos(0.5 * q[k], &s, &c);
    rk_quat e = rk_quat_make(ax[k] == 0 ? s : 0.0, ax[k] == 1 ? s : 0.0, ax[k] == 2 ? s : 0.0, c);
    r = k ? rk_quat_mul(r, e) : e;
  }
  return r;
}

void rk_tree_joint_local(const rk_tree *tree, size_t j, const double *q, rk_transform *out) {
  const rk_joint *J = &tree->joints[j];
  *out = J->zero;
  const double *qj = J->dof_offset >= 0 ? q + J->dof_offset : NULL;
  switch (J->type) {
  case RK_JOINT_FIXED:
    break;
  case RK_JOINT_REVOLUTE:
    out->r = rk_quat_mul(J->zero.r, axis_quat(J->axis, qj[0]));
    break;
  case RK_JOINT_PRISMATIC:
    out->t = rk_vec3_add(J->zero.t, rk_vec3_scale(J->axis, qj[0]));
    break;
  case RK_JOINT_BALL:
    out->r = rk_quat_mul(J->zero.r, euler_quat(tree->euler_axes[j], qj));
    break;
  case RK_JOINT_FREE:
    out->t = rk_vec3_add(J->zero.t, rk_vec3_make(qj[0], qj[1], qj[2]));
    out->r = rk_quat_mul(J->zero.r, euler_quat(tree->euler_axes[j], qj + 3));
    break;
  }
}

void rk_tree_q_to_locals(const rk_tree *tree, const double *q, rk_transform *locals) {
  for (size_t j = 0; j < tree->n; j++)
    rk_tree_joint_local(tree, j, q, &locals[j]);
}

static void euler_read(rk_euler_order order, rk_quat d, const double *hint, double *out) {
  if (hint)
    rk_euler_from_quat_near(order, d, hint, out);
  else
    rk_euler_from_quat(order, d, out);
}

void rk_tree_q_from_locals(const rk_tree *tree, const rk_transform *locals, const double *hint,
                           double *q, double *max_residual) {
  double worst = 0.0;
  for (size_t j = 0; j < tree->n; j++) {
    const rk_joint *J = &tree->joints[j];
    const rk_transform *L = &locals[j];
    double *qj = J->dof_offset >= 0 ? q + J->dof_offset : NULL;
    const double *hj = hint && J->dof_offset >= 0 ? hint + J->dof_offset : NULL;
    const rk_quat r = rk_quat_normalize(L->r);
    const rk_quat d = rk_quat_mul(rk_quat_conj(J->zero.r), r); /* relative to the zero rotation */
    switch (J->type) {
    case RK_JOINT_FIXED:
    case RK_JOINT_PRISMATIC:
      worst = fmax(worst, rk_quat_angle_between(J->zero.r, r));
      if (J->type == RK_JOINT_PRISMATIC)
        qj[0] = rk_vec3_dot(rk_vec3_sub(L->t, J->zero.t), J->axis);
      break;
    case RK_JOINT_REVOLUTE: {
      double th = rk__twist_angle(d, J->axis);
      rk_quat tw = rk_quat_from_axis_angle(J->axis, th);
      worst = fmax(worst, rk_quat_angle_between(tw, d));
      if (hj)
        th = hj[0] + rk__wrap_angle(th - hj[0]);
      qj[0] = th;
      break;
    }
    case RK_JOINT_BALL:
      euler_read(J->order, d, hj, qj);
      break;
    case RK_JOINT_FREE: {
      rk_vec3 dt = rk_vec3_sub(L->t, J->zero.t);
      qj[0] = dt.x;
      qj[1] = dt.y;
      qj[2] = dt.z;
      euler_read(J->order, d, hj ? hj + 3 : NULL, qj + 3);
      break;
    }
    }
  }
  if (max_residual)
    *max_residual = worst;
}

size_t rk_tree_q_clamp(const rk_tree *tree, double *q) {
  size_t changed = 0;
  for (size_t k = 0; k < tree->ndof; k++) {
    double v = q[k];
    if (v < tree->lower[k])
      v = tree->lower[k];
    else if (v > tree->upper[k])
      v = tree->upper[k];
    else if (v != v) /* NaN goes to the nearest bound of zero, i.e. a defined value */
      v = fmin(fmax(0.0, tree->lower[k]), tree->upper[k]);
    if (v != q[k] || q[k] != q[k]) {
      q[k] = v;
      changed++;
    }
  }
  return changed;
}

bool rk_tree_q_within_limits(const rk_tree *tree, const double *q, double tol) {
  for (size_t k = 0; k < tree->ndof; k++)
    if (!(q[k] >= tree->lower[k] - tol && q[k] <= tree->upper[k] + tol))
      return false;
  return true;
}

void rk_tree_q_integrate(const rk_tree *tree, const double *q, const double *dv, double *q_out) {
  for (size_t j = 0; j < tree->n; j++) {
    const rk_joint *J = &tree->joints[j];
    if (J->dof_count == 0)
      continue;
    const size_t o = (size_t)J->dof_offset;
    size_t rot = o; /* first Euler angle */
    switch (J->type) {
    case RK_JOINT_REVOLUTE:
    case RK_JOINT_PRISMATIC:
      q_out[o] = q[o] + dv[o];
      continue;
    case RK_JOINT_FREE:
      for (size_t k = 0; k < 3; k++)
        q_out[o + k] = q[o + k] + dv[o + k];
      rot = o + 3;
      break;
    case RK_JOINT_BALL:
    case RK_JOINT_FIXED:
      break;
    }
    const double old[3] = {q[rot], q[rot + 1], q[rot + 2]};
    rk_quat e = rk_euler_to_quat(J->order, old);
    rk_quat step = rk_quat_from_rotvec(rk_vec3_make(dv[rot], dv[rot + 1], dv[rot + 2]));
    rk_euler_from_quat_near(J->order, rk_quat_normalize(rk_quat_mul(e, step)), old, q_out + rot);
  }
}

/* ---- FK and axes ----------------------------------------------------------------------------- */

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

/* sin and cos of the vector at x into s and c: rk_sincos's reduction and kernels in every lane (VD,
 * VU, VI: the double, unsigned and signed vector types of one width), the quadrant picked with
 * bit operations. Clears the lanes of ok where x is beyond the kernel's range (|x| >= 1e5, NaN);
 * the caller redoes those with rk_sincos (libm). A macro so one definition serves both widths. */
#define RK__SINCOS_LANES(VD, VU, VI, x, s, c, ok)                                                  \
  do {                                                                                             \
    VD v;                                                                                          \
    memcpy(&v, (x), sizeof v);                                                                     \
    const VD kk = v * RK__SINCOS_2_OVER_PI + RK__SINCOS_ROUND;                                     \
    const VD k = kk - RK__SINCOS_ROUND;                                                            \
    const VD r = (v - k * RK__SINCOS_PIO2_HI) - k * RK__SINCOS_PIO2_LO;                            \
    const VD r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;                                               \
    const VD sr = RK__SIN_KERNEL(r, r2, r4, r8);                                                   \
    const VD cr = RK__COS_KERNEL(r2, r4, r8);                                                      \
    /* The low bits of kk's representation are k mod 4 (two's complement for negative k). */     \
    const VU q = (VU)kk & 3;                                                                       \
    const VU swap = -(q & 1); /* all ones in odd quadrants */                                      \
    const VU a = ((VU)cr & swap) | ((VU)sr & ~swap), b = ((VU)sr & swap) | ((VU)cr & ~swap);       \
    const VD so = (VD)(a ^ ((q & 2) << 62)), co = (VD)(b ^ (((q + 1) & 2) << 62));                 \
    memcpy((s), &so, sizeof so);                                                                   \
    memcpy((c), &co, sizeof co);                                                                   \
    const VD av = (VD)((VU)v & 0x7fffffffffffffffULL);                                             \
    (ok) &= (VI)(av < 1e5); /* false for NaN */                                                    \
  } while (0)

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
  rk_transform L;
  rk_tree_joint_local(t, j, q, &L);
  rk_mat4 local;
  rk_transform_to_mat4_to(&L, &local);
  if (parent)
    rk_mat4_mul_affine_to(parent, &local, &models[j]);
  else
    models[j] = local;
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

/* World direction of a vector v given in joint j's child frame: models[j]'s linear part applied to
 * v with the joint's own scale removed (models[j] = parent * T R S), normalised. */
static inline rk_vec3 child_dir_to_world(const rk_mat4 *m, rk_vec3 inv_s, rk_vec3 v) {
  return rk_vec3_normalize(
      rk_mat4_transform_dir(m, rk_vec3_make(v.x * inv_s.x, v.y * inv_s.y, v.z * inv_s.z)));
}

static inline rk_quat axis_half(int axis, double angle) {
  double s, c;
  rk_sincos(0.5 * angle, &s, &c);
  return rk_quat_make(axis == 0 ? s : 0.0, axis == 1 ? s : 0.0, axis == 2 ? s : 0.0, c);
}

void rk_tree_dof_axes(const rk_tree *tree, const double *q, const rk_mat4 *models,
                      rk_dof_axes_mode mode, rk_dof_axis *axes) {
  /* Every axis is computed in the joint's child frame and mapped by models[j], so neither the
   * parent nor the root placement is needed. */
  for (size_t j = 0; j < tree->n; j++) {
    const rk_joint *J = &tree->joints[j];
    if (J->dof_count == 0)
      continue;
    const rk_mat4 *M = &models[j];
    const rk_vec3 origin = rk_mat4_get_translation(M);
    const rk_vec3 inv_s = rk_vec3_make(1.0 / J->zero.s.x, 1.0 / J->zero.s.y, 1.0 / J->zero.s.z);
    rk_dof_axis *out = &axes[J->dof_offset];
    const double *qj = q + J->dof_offset;
    const unsigned char *ax = tree->euler_axes[j];
    switch (J->type) {
    case RK_JOINT_FIXED:
      break;
    case RK_JOINT_REVOLUTE: /* the rotation keeps its own axis */
      out[0].origin = origin;
      out[0].axis = child_dir_to_world(M, inv_s, J->axis);
      break;
    case RK_JOINT_PRISMATIC: /* parent-frame axis, seen from the child: r0^-1 a */
      out[0].origin = origin;
      out[0].axis = child_dir_to_world(M, inv_s, rk_quat_rotate(rk_quat_conj(J->zero.r), J->axis));
      break;
    case RK_JOINT_FREE:
    case RK_JOINT_BALL: {
      int first = 0;
      const double *a = qj;
      /* Child-frame images of the Euler axes: e_A turned back by C and B, e_B by C, e_C. */
      const rk_quat ic = rk_quat_conj(axis_half(ax[2], a[J->type == RK_JOINT_FREE ? 5 : 2]));
      const rk_quat ib = rk_quat_conj(axis_half(ax[1], a[J->type == RK_JOINT_FREE ? 4 : 1]));
      if (J->type == RK_JOINT_FREE) {
        /* Translations along the parent axes: in the child frame, (r0 E)^-1 e_k. */
        const rk_quat ia = rk_quat_conj(axis_half(ax[0], a[3]));
        const rk_quat back =
            rk_quat_mul(rk_quat_mul(rk_quat_mul(ic, ib), ia), rk_quat_conj(J->zero.r));
        for (int k = 0; k < 3; k++) {
          out[k].origin = origin;
          out[k].axis = child_dir_to_world(M, inv_s, rk_quat_rotate(back, unit_axes[k]));
        }
        first = 3;
      }
      if (mode == RK_DOF_AXES_TANGENT) {
        for (int k = 0; k < 3; k++) {
          out[first + k].origin = origin;
          out[first + k].axis = child_dir_to_world(M, inv_s, unit_axes[k]);
        }
      } else {
        const rk_vec3 va = rk_quat_rotate(rk_quat_mul(ic, ib), unit_axes[ax[0]]);
        const rk_vec3 vb = rk_quat_rotate(ic, unit_axes[ax[1]]);
        out[first + 0].origin = out[first + 1].origin = out[first + 2].origin = origin;
        out[first + 0].axis = child_dir_to_world(M, inv_s, va);
        out[first + 1].axis = child_dir_to_world(M, inv_s, vb);
        out[first + 2].axis = child_dir_to_world(M, inv_s, unit_axes[ax[2]]);
      }
      break;
    }
    }
  }
}

void rk_tree_frame_jacobian(const rk_tree *tree, const rk_dof_axis *axes, int link, rk_vec3 p,
                            double *J, size_t ld) {
  for (size_t c = 0; c < tree->ndof; c++)
    for (size_t r = 0; r < 6; r++)
      J[c * ld + r] = 0.0;
  if (link < 0 || (size_t)link >= tree->n)
    return;
  for (int x = link; x >= 0; x = tree->parents[x]) {
    const rk_joint *Jt = &tree->joints[x];
    for (int k = 0; k < Jt->dof_count; k++) {
      const size_t d = (size_t)(Jt->dof_offset + k);
      const rk_dof_axis *a = &axes[d];
      double *col = J + d * ld;
      if (tree->dofs[d].kind == RK_DOF_ROTATION) {
        rk_vec3 v = rk_vec3_cross(a->axis, rk_vec3_sub(p, a->origin));
        col[0] = v.x, col[1] = v.y, col[2] = v.z;
        col[3] = a->axis.x, col[4] = a->axis.y, col[5] = a->axis.z;
      } else {
        col[0] = a->axis.x, col[1] = a->axis.y, col[2] = a->axis.z;
      }
    }
  }
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
