/* Kinematic trees: typing joints, the DOF vector, q <-> local poses, FK and DOF axes. */
#include "tree_internal.h"

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

rk_mat4 rk__mat4_rigid_part(const rk_mat4 *m) {
  rk_vec3 x = rk_vec3_normalize(rk_mat4_column(m, 0));
  rk_vec3 y = rk_mat4_column(m, 1);
  y = rk_vec3_normalize(rk_vec3_sub(y, rk_vec3_scale(x, rk_vec3_dot(x, y))));
  if (rk_vec3_norm(x) == 0.0)
    x = rk_vec3_make(1, 0, 0);
  if (rk_vec3_norm(y) == 0.0)
    y = rk_vec3_any_perpendicular(x);
  rk_vec3 z = rk_vec3_cross(x, y);
  /* Keep a reflection's handedness out: z follows x cross y. */
  rk_mat4 r = {
      {x.x, x.y, x.z, 0, y.x, y.y, y.z, 0, z.x, z.y, z.z, 0, m->m[12], m->m[13], m->m[14], 1}};
  return r;
}

/* ---- accessors ------------------------------------------------------------------------------- */

rk_tree *rk_tree_ref(rk_tree *tree) {
  if (tree)
    g_atomic_int_inc(&tree->refcount);
  return tree;
}

void rk_tree_free(rk_tree *tree) {
  if (!tree || !g_atomic_int_dec_and_test(&tree->refcount))
    return;
  rk__tree_free_junctions(tree);
  if (tree->dof_names)
    for (size_t k = 0; k < tree->ndof; k++)
      g_free(tree->dof_names[k]);
  g_free(tree->dof_names);
  g_free(tree->dofs);
  g_free(tree->lower);
  g_free(tree->upper);
  g_free(tree->joints);
  g_free(tree->subtree_end);
  g_free(tree->link_dof_count);
  g_free(tree->zero_models);
  g_free(tree->q_rest);
  g_free(tree->euler_axes);
  rk_skeleton_free(tree->skeleton);
  g_free(tree);
}

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

/* Twist angle of the unit quaternion d about the unit axis a, in (-pi, pi]. */
static double twist_angle(rk_quat d, rk_vec3 a) {
  double s = d.x * a.x + d.y * a.y + d.z * a.z;
  return rk__wrap_angle(2.0 * atan2(s, d.w));
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
      double th = twist_angle(d, J->axis);
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

__attribute__((always_inline)) static inline void
fk_one(const rk_tree *t, const double *q, const rk_mat4 *root, rk_mat4 *models, size_t j) {
  rk_transform L;
  rk_tree_joint_local(t, j, q, &L);
  rk_mat4 local;
  rk_transform_to_mat4_to(&L, &local);
  const int p = t->parents[j];
  if (p >= 0)
    rk_mat4_mul_affine_to(&models[p], &local, &models[j]);
  else if (root)
    rk_mat4_mul_affine_to(root, &local, &models[j]);
  else
    models[j] = local;
}

void rk_tree_fk(const rk_tree *tree, const double *q, const rk_mat4 *root, rk_mat4 *models) {
  for (size_t j = 0; j < tree->n; j++)
    fk_one(tree, q, root, models, j);
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
