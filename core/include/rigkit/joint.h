/* rigkit/joint.h: how a joint moves. One enum for the kinematic tree (rigkit/tree.h: every type)
 * and for the mechanics a file declares (rigkit/asset.h: fixed, revolute or prismatic).
 *
 * Index: rk_joint_type
 */
#ifndef RIGKIT_JOINT_H
#define RIGKIT_JOINT_H

/** Joint types. A tree joint's local pose for each is given in rigkit/tree.h. */
typedef enum rk_joint_type {
  RK_JOINT_FIXED,     /* no motion */
  RK_JOINT_REVOLUTE,  /* rotation about an axis */
  RK_JOINT_PRISMATIC, /* translation along an axis */
  RK_JOINT_BALL,      /* three rotations about concurrent axes */
  RK_JOINT_FREE,      /* three translations and a ball (a floating root) */
} rk_joint_type;

#endif
