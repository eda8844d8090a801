/* Internal math helpers shared by the kinematics files (tree, chain, junction, loop, tree fits):
 * angle wrapping, the twist of a rotation about an axis and the rigid part of an affine matrix.
 * Defined in math.c (rk__mat4_rigid_part) or inline here. */
#ifndef RK_MATH_INTERNAL_H
#define RK_MATH_INTERNAL_H

#include <rigkit/math.h>

/* Wraps an angle into (-pi, pi]. */
static inline double rk__wrap_angle(double a) {
  a = fmod(a, 2.0 * RK_PI);
  if (a <= -RK_PI)
    a += 2.0 * RK_PI;
  else if (a > RK_PI)
    a -= 2.0 * RK_PI;
  return a;
}

/* Twist angle of the unit quaternion d about the unit axis a, in (-pi, pi]. */
static inline double rk__twist_angle(rk_quat d, rk_vec3 a) {
  return rk__wrap_angle(2.0 * atan2(d.x * a.x + d.y * a.y + d.z * a.z, d.w));
}

/* Rigid part of an affine matrix: columns orthonormalised (Gram-Schmidt x, then y, z = x cross y),
 * translation kept. */
rk_mat4 rk__mat4_rigid_part(const rk_mat4 *m);

#endif
