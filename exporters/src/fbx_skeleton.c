/* The skeleton in FBX: joints as LimbNode Models, their rotation orders and angles, the bind pose
 * (see fbx_skeleton.h). */
#include "fbx_skeleton.h"

#include "fbx_props.h"

#include <rigkit/euler.h>
#include <string.h>

/* FBX RotationOrder of a rigkit order: FBX eEulerABC rotates about A first (R = R_C R_B R_A), so
 * it is rigkit's order CBA. -1 for proper Euler orders, which FBX cannot hold. */
static int rotation_order(rk_euler_order o) {
  switch (o) {
  case RK_EULER_ZYX:
    return 0; /* eEulerXYZ */
  case RK_EULER_YZX:
    return 1; /* eEulerXZY */
  case RK_EULER_XZY:
    return 2; /* eEulerYZX */
  case RK_EULER_ZXY:
    return 3; /* eEulerYXZ */
  case RK_EULER_YXZ:
    return 4; /* eEulerZXY */
  case RK_EULER_XYZ:
    return 5; /* eEulerZYX */
  default:
    return -1;
  }
}

bool rk__fbx_check_orders(const rk_skeleton *s, const rk_euler_order *orders, const char *path,
                          GError **error) {
  for (size_t j = 0; j < rk_skeleton_joint_count(s); j++)
    if (rotation_order(orders[j]) < 0) {
      g_set_error(error, RK_ERROR, RK_ERROR_UNSUPPORTED,
                  "%s: joint '%s': FBX rotation orders have three distinct axes, not %s", path,
                  rk_skeleton_joint_name(s, j), rk_euler_order_name(orders[j]));
      return false;
    }
  return true;
}

rk_vec3 rk__fbx_angles(rk_euler_order o, const double a[3]) {
  int ax[3];
  rk_euler_order_axes(o, ax);
  double xyz[3] = {0, 0, 0};
  for (int i = 0; i < 3; i++)
    xyz[ax[i]] = a[i] / RK_DEG;
  return rk_vec3_make(xyz[0], xyz[1], xyz[2]);
}

static rk_mat4 scaled(rk_mat4 m, double k) {
  m.m[12] *= k, m.m[13] *= k, m.m[14] *= k;
  return m;
}

void rk__fbx_bind_pose(rk__fbx_ctx *c) {
  memcpy(c->bind_world, c->rest_world, c->n * sizeof(rk_mat4));
  for (guint i = 0; i < c->meshes->len; i++) {
    const rk__fbx_mesh *m = &g_array_index(c->meshes, rk__fbx_mesh, i);
    for (guint k = 0; m->cl_joint && k < m->cl_joint->len; k++) {
      const size_t j = (size_t)g_array_index(m->cl_joint, int, k);
      rk_mat4 ibm, bind;
      if (rk_skeleton_inverse_bind(c->s, j, &ibm) && rk_mat4_inverse_affine(&ibm, &bind))
        c->bind_world[j] = bind;
    }
  }
}

rk_mat4 rk__fbx_bind_matrix(const rk__fbx_ctx *c, size_t j) {
  return scaled(c->bind_world[j], c->k);
}

void rk__fbx_write_joints(rk__fbx_ctx *c) {
  rk__fbx_enc *e = c->e;
  for (size_t j = 0; j < c->n; j++) {
    rk__fbx_enc_begin(e, "NodeAttribute");
    rk__fbx_enc_i64(e, c->attr_id[j]);
    rk__fbx_enc_object_name(e, c->names[j], "NodeAttribute");
    rk__fbx_enc_str(e, "LimbNode");
    rk__fbx_enc_begin(e, "Properties70");
    rk__fbx_p_double(e, "Size", 100);
    rk__fbx_enc_end(e);
    rk__fbx_node_str(e, "TypeFlags", "Skeleton");
    rk__fbx_enc_end(e);

    const rk_transform *r = rk_skeleton_rest(c->s, j);
    double a[3];
    rk_euler_from_quat(c->orders[j], rk_quat_normalize(r->r), a);
    rk__fbx_model_begin(e, c->model_id[j], c->names[j], "LimbNode");
    const int order = rotation_order(c->orders[j]);
    if (order != 0)
      rk__fbx_p_enum(e, "RotationOrder", order);
    rk__fbx_p_lcl(e, "Lcl Translation", rk_vec3_scale(r->t, c->k));
    rk__fbx_p_lcl(e, "Lcl Rotation", rk__fbx_angles(c->orders[j], a));
    rk__fbx_p_lcl(e, "Lcl Scaling", r->s);
    rk__fbx_model_end(e);
    rk__fbx_connect(c, c->attr_id[j], c->model_id[j], NULL);
    const int p = rk_skeleton_parent(c->s, j);
    rk__fbx_connect(c, c->model_id[j], p >= 0 ? c->model_id[p] : 0, NULL);
  }
}

void rk__fbx_write_pose(rk__fbx_ctx *c) {
  rk__fbx_enc *e = c->e;
  rk__fbx_enc_begin(e, "Pose");
  rk__fbx_enc_i64(e, c->pose_id);
  rk__fbx_enc_object_name(e, "BindPose", "Pose");
  rk__fbx_enc_str(e, "BindPose");
  rk__fbx_node_str(e, "Type", "BindPose");
  rk__fbx_node_i32(e, "Version", 100);
  rk__fbx_node_i32(e, "NbPoseNodes", (int32_t)MIN(c->n + c->meshes->len, (size_t)G_MAXINT32));
  for (size_t j = 0; j < c->n; j++) {
    rk__fbx_enc_begin(e, "PoseNode");
    rk__fbx_node_i64(e, "Node", c->model_id[j]);
    const rk_mat4 m = rk__fbx_bind_matrix(c, j);
    rk__fbx_node_mat4(e, "Matrix", &m);
    rk__fbx_enc_end(e);
  }
  for (guint i = 0; i < c->meshes->len; i++) {
    const rk__fbx_mesh *m = &g_array_index(c->meshes, rk__fbx_mesh, i);
    rk__fbx_enc_begin(e, "PoseNode");
    rk__fbx_node_i64(e, "Node", m->model_id);
    const rk_mat4 w =
        m->parent_joint >= 0 ? scaled(c->rest_world[m->parent_joint], c->k) : rk_mat4_identity();
    rk__fbx_node_mat4(e, "Matrix", &w);
    rk__fbx_enc_end(e);
  }
  rk__fbx_enc_end(e);
}
