/* World axes of a kinematic tree's DOFs at a configuration, and the geometric Jacobian of a link
 * point built from them. */
#include "tree_internal.h"

static const rk_vec3 unit_axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

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
