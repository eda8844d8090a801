/* IK's forward kinematics on a tree: the world frames of the links a problem needs (the goal and
 * loop links and their ancestors) and the world axes of the DOFs moving them, in one pass.
 *
 * Same conventions as rk_tree_fk / rk_tree_dof_axes (rigkit/tree.h), computed for a subset and
 * with rotation matrices built from rk_sincos: a ball joint's R0 R_A(q0) R_B(q1) R_C(q2) is the
 * parent frame times R0, turned column-wise by each elementary rotation, and the axis of each
 * Euler DOF is read off the frame just before its own rotation. tests/core/test_ik_tree.c checks
 * it against the tree's functions on every joint type. */
#include "ik_internal.h"

#include <string.h>

void rk__ik_fk_prepare(rk_ik_ws *ws) {
  const rk_tree *t = ws->tree;
  for (size_t l = 0; l < ws->links; l++) {
    const rk_joint *j = rk_tree_joint(t, l);
    rk__ik_joint *d = &ws->jd[l];
    d->parent = j->parent;
    d->type = j->type;
    d->dof = j->dof_offset;
    d->axis = j->axis;
    d->t0 = j->zero.t;
    d->s0 = j->zero.s;
    const rk_mat3 r = rk_quat_to_mat3(rk_quat_normalize(j->zero.r));
    memcpy(d->R0, r.m, sizeof d->R0);
    if (j->type == RK_JOINT_BALL || j->type == RK_JOINT_FREE)
      rk_euler_order_axes(j->order, d->ax);
    else
      d->ax[0] = d->ax[1] = d->ax[2] = 0;
  }
}

/* Marks a link and its ancestors. */
static void mark_up(rk_ik_ws *ws, int link) {
  for (int j = link; j >= 0 && !ws->fk_mark[j]; j = ws->jd[j].parent)
    ws->fk_mark[j] = 1;
}

void rk__ik_fk_links(rk_ik_ws *ws, const rk_ik_problem *p) {
  /* (rk_skeleton_ancestor_closure would do, but it allocates: a solve must not.) */
  memset(ws->fk_mark, 0, ws->links);
  for (size_t i = 0; i < p->goal_count; i++)
    mark_up(ws, p->goals[i].link);
  for (size_t i = 0; i < p->loop_count; i++) {
    mark_up(ws, p->loops[i].link_a);
    mark_up(ws, p->loops[i].link_b);
  }
  size_t n = 0;
  for (size_t l = 0; l < ws->links; l++)
    if (ws->fk_mark[l])
      ws->fk_links[n++] = (int)l;
  ws->fk_count = n;
}

/* out = A B for 3x3 column-major matrices. */
static inline void mul3(const double *A, const double *B, double *out) {
  for (int c = 0; c < 3; c++) {
    const double b0 = B[c * 3], b1 = B[c * 3 + 1], b2 = B[c * 3 + 2];
    out[c * 3 + 0] = A[0] * b0 + A[3] * b1 + A[6] * b2;
    out[c * 3 + 1] = A[1] * b0 + A[4] * b1 + A[7] * b2;
    out[c * 3 + 2] = A[2] * b0 + A[5] * b1 + A[8] * b2;
  }
}

static inline rk_vec3 col3(const double *M, int c) {
  return rk_vec3_make(M[c * 3], M[c * 3 + 1], M[c * 3 + 2]);
}

/* M <- M R_axis(theta), column-wise (M is 3x3 column-major). */
static inline void turn(double *M, int axis, double theta) {
  double s, c;
  rk_sincos(theta, &s, &c);
  const int i = (axis + 1) % 3, k = (axis + 2) % 3; /* R_x mixes y, z; R_y z, x; R_z x, y */
  for (int r = 0; r < 3; r++) {
    const double a = M[i * 3 + r], b = M[k * 3 + r];
    M[i * 3 + r] = c * a + s * b;
    M[k * 3 + r] = -s * a + c * b;
  }
}

/* M <- M R(a, theta) for a unit axis a (Rodrigues: c M + s M [a]x + (1 - c) (M a) a^T). */
static inline void turn_axis(double *M, rk_vec3 a, double theta) {
  double s, c;
  rk_sincos(theta, &s, &c);
  const rk_vec3 m0 = col3(M, 0), m1 = col3(M, 1), m2 = col3(M, 2);
  const rk_vec3 ma = rk_vec3_add(rk_vec3_add(rk_vec3_scale(m0, a.x), rk_vec3_scale(m1, a.y)),
                                 rk_vec3_scale(m2, a.z));
  /* M [a]x columns: a.z m1 - a.y m2, a.x m2 - a.z m0, a.y m0 - a.x m1 */
  const rk_vec3 k0 = rk_vec3_sub(rk_vec3_scale(m1, a.z), rk_vec3_scale(m2, a.y));
  const rk_vec3 k1 = rk_vec3_sub(rk_vec3_scale(m2, a.x), rk_vec3_scale(m0, a.z));
  const rk_vec3 k2 = rk_vec3_sub(rk_vec3_scale(m0, a.y), rk_vec3_scale(m1, a.x));
  const rk_vec3 cols[3] = {m0, m1, m2}, ks[3] = {k0, k1, k2};
  const double ac[3] = {a.x, a.y, a.z};
  for (int j = 0; j < 3; j++) {
    const rk_vec3 v = rk_vec3_add(rk_vec3_add(rk_vec3_scale(cols[j], c), rk_vec3_scale(ks[j], s)),
                                  rk_vec3_scale(ma, (1.0 - c) * ac[j]));
    M[j * 3] = v.x;
    M[j * 3 + 1] = v.y;
    M[j * 3 + 2] = v.z;
  }
}

void rk__ik_tree_fk(rk_ik_ws *ws, const double *q, const rk_mat4 *root, rk_mat4 *models,
                    rk_dof_axis *axes, bool want_axes) {
  const rk_mat4 identity = rk_mat4_identity();
  for (size_t i = 0; i < ws->fk_count; i++) {
    const int l = ws->fk_links[i];
    const rk__ik_joint *d = &ws->jd[l];
    const rk_mat4 *P = d->parent >= 0 ? &models[d->parent] : (root ? root : &identity);
    const double *pm = P->m;
    /* Parent linear part (may carry scale) and the joint's translation in the parent. */
    const double PL[9] = {pm[0], pm[1], pm[2], pm[4], pm[5], pm[6], pm[8], pm[9], pm[10]};
    rk_vec3 t = d->t0;
    if (d->type == RK_JOINT_PRISMATIC) {
      t = rk_vec3_add(t, rk_vec3_scale(d->axis, q[d->dof]));
    } else if (d->type == RK_JOINT_FREE) {
      t.x += q[d->dof];
      t.y += q[d->dof + 1];
      t.z += q[d->dof + 2];
    }
    const rk_vec3 origin = rk_mat4_transform_point(P, t);
    double W[9];
    mul3(PL, d->R0, W);
    switch (d->type) {
    case RK_JOINT_REVOLUTE: {
      if (want_axes) {
        const rk_vec3 a = rk_vec3_add(
            rk_vec3_add(rk_vec3_scale(col3(W, 0), d->axis.x), rk_vec3_scale(col3(W, 1), d->axis.y)),
            rk_vec3_scale(col3(W, 2), d->axis.z));
        axes[d->dof].origin = origin;
        axes[d->dof].axis = rk_vec3_normalize(a);
      }
      turn_axis(W, d->axis, q[d->dof]);
      break;
    }
    case RK_JOINT_PRISMATIC:
      if (want_axes) {
        /* d origin / dq = P_linear a (exact also under a scaled parent). */
        axes[d->dof].origin = origin;
        axes[d->dof].axis = rk_vec3_add(rk_vec3_add(rk_vec3_scale(col3(PL, 0), d->axis.x),
                                                    rk_vec3_scale(col3(PL, 1), d->axis.y)),
                                        rk_vec3_scale(col3(PL, 2), d->axis.z));
      }
      break;
    case RK_JOINT_FREE:
    case RK_JOINT_BALL: {
      int first = d->dof;
      if (d->type == RK_JOINT_FREE) {
        if (want_axes)
          for (int k = 0; k < 3; k++) {
            axes[first + k].origin = origin;
            axes[first + k].axis = col3(PL, k);
          }
        first += 3;
      }
      for (int k = 0; k < 3; k++) {
        if (want_axes) {
          axes[first + k].origin = origin;
          axes[first + k].axis = rk_vec3_normalize(col3(W, d->ax[k]));
        }
        turn(W, d->ax[k], q[first + k]);
      }
      break;
    }
    case RK_JOINT_FIXED:
      break;
    }
    double *o = models[l].m;
    const double sc[3] = {d->s0.x, d->s0.y, d->s0.z};
    for (int c = 0; c < 3; c++) {
      o[c * 4 + 0] = W[c * 3 + 0] * sc[c];
      o[c * 4 + 1] = W[c * 3 + 1] * sc[c];
      o[c * 4 + 2] = W[c * 3 + 2] * sc[c];
      o[c * 4 + 3] = 0.0;
    }
    o[12] = origin.x;
    o[13] = origin.y;
    o[14] = origin.z;
    o[15] = 1.0;
  }
}
