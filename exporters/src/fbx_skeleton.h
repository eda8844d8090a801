/* The skeleton in FBX (fbx_skeleton.c): rotation orders and Euler angles as FBX holds them, one
 * Model "LimbNode" with its NodeAttribute per joint, the bind matrices and the BindPose.
 *
 * Index: rk__fbx_check_orders, rk__fbx_angles, rk__fbx_bind_pose, rk__fbx_bind_matrix,
 *        rk__fbx_write_joints, rk__fbx_write_pose
 */
#ifndef RK_FBX_SKELETON_H
#define RK_FBX_SKELETON_H

#include "fbx_scene.h"

/** Checks that FBX can hold every joint's rotation order (one per joint of s): FBX has the six
 * Tait-Bryan orders. Fails with RK_ERROR_UNSUPPORTED naming path and the joint. */
bool rk__fbx_check_orders(const rk_skeleton *s, const rk_euler_order *orders, const char *path,
                          GError **error);
/** FBX's (x, y, z) rotation values, degrees, from rigkit angles a (radians) in order o. */
rk_vec3 rk__fbx_angles(rk_euler_order o, const double a[3]);
/** Sets c->bind_world after the meshes are prepared: a joint that skins a mesh written here is
 * bound where its inverse bind matrix says; the others (and every joint of a file without skins)
 * at their rest pose. */
void rk__fbx_bind_pose(rk__fbx_ctx *c);
/** Joint j's bind matrix in file units (as a cluster's TransformLink and the BindPose hold it). */
rk_mat4 rk__fbx_bind_matrix(const rk__fbx_ctx *c, size_t j);
/** Writes a NodeAttribute and a Model "LimbNode" per joint, in skeleton order, with the rest pose
 * as Lcl Translation / Rotation / Scaling, and connects them. */
void rk__fbx_write_joints(rk__fbx_ctx *c);
/** Writes the BindPose: every joint at its bind matrix, every mesh at its parent's rest matrix. */
void rk__fbx_write_pose(rk__fbx_ctx *c);

#endif
