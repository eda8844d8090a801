/* Kinematic trees: joint type names, accessors, the DOF vector and q <-> local poses. Building and
 * freeing: tree_build.c; FK: tree_fk.c; DOF axes and Jacobians: tree_jacobian.c. */
#include "tree_internal.h"

#include "math_internal.h"

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

/* Joint j's DOFs of q from its local transform (hint: the DOFs' last values, or NULL); returns the
 * rotation a fixed or revolute joint's DOFs cannot express (radians), else 0. */
static double joint_q_from_local(const rk_tree *tree, size_t j, const rk_transform *L,
                                 const double *hint, double *q) {
  const rk_joint *J = &tree->joints[j];
  double *qj = J->dof_offset >= 0 ? q + J->dof_offset : NULL;
  const double *hj = hint && J->dof_offset >= 0 ? hint + J->dof_offset : NULL;
  const rk_quat r = rk_quat_normalize(L->r);
  const rk_quat d = rk_quat_mul(rk_quat_conj(J->zero.r), r); /* relative to the zero rotation */
  double worst = 0.0;
  switch (J->type) {
  case RK_JOINT_FIXED:
  case RK_JOINT_PRISMATIC:
    worst = rk_quat_angle_between(J->zero.r, r);
    if (J->type == RK_JOINT_PRISMATIC)
      qj[0] = rk_vec3_dot(rk_vec3_sub(L->t, J->zero.t), J->axis);
    break;
  case RK_JOINT_REVOLUTE: {
    double th = rk__twist_angle(d, J->axis);
    rk_quat tw = rk_quat_from_axis_angle(J->axis, th);
    worst = rk_quat_angle_between(tw, d);
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
  return worst;
}

void rk_tree_q_from_locals(const rk_tree *tree, const rk_transform *locals, const double *hint,
                           double *q, double *max_residual) {
  double worst = 0.0;
  for (size_t j = 0; j < tree->n; j++)
    worst = fmax(worst, joint_q_from_local(tree, j, &locals[j], hint, q));
  if (max_residual)
    *max_residual = worst;
}

void rk__tree_q_from_locals_links(const rk_tree *tree, const rk_transform *locals,
                                  const double *hint, const int *links, size_t count, double *q) {
  for (size_t k = 0; k < count; k++)
    joint_q_from_local(tree, (size_t)links[k], &locals[links[k]], hint, q);
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
