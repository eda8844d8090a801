/* Internal math helpers shared by the kinematics files (tree, chain, junction, loop, tree fits):
 * angle wrapping, the twist of a rotation about an axis, a finiteness test over many doubles and
 * the rigid part of an affine matrix.
 * Defined in math.c (rk__mat4_rigid_part) or inline here. */
#ifndef RK_MATH_INTERNAL_H
#define RK_MATH_INTERNAL_H

#include <rigkit/math.h>

#include <stdint.h>
#include <string.h>

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

/* Whether the n doubles at v (any struct of doubles alike) are all finite: a double is not when
 * its 11 exponent bits are all ones, and adding 1 to them then carries into bit 11; four at a
 * time in two SSE2-sized accumulators (which stay in registers), no branch per value. */
static inline bool rk__all_finite(const void *v, size_t n) {
  typedef uint64_t u64x2 __attribute__((vector_size(16)));
  const unsigned char *p = v;
  u64x2 a0 = {0, 0}, a1 = {0, 0};
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    u64x2 b0, b1;
    memcpy(&b0, p + 8 * i, sizeof b0);
    memcpy(&b1, p + 8 * i + 16, sizeof b1);
    a0 |= ((b0 >> 52) & 0x7ff) + 1;
    a1 |= ((b1 >> 52) & 0x7ff) + 1;
  }
  a0 |= a1;
  uint64_t bad = a0[0] | a0[1];
  for (; i < n; i++) {
    uint64_t b;
    memcpy(&b, p + 8 * i, sizeof b);
    bad |= ((b >> 52) & 0x7ff) + 1;
  }
  return !(bad & 0x800);
}

/* Rigid part of an affine matrix: columns orthonormalised (Gram-Schmidt x, then y, z = x cross y),
 * translation kept. */
rk_mat4 rk__mat4_rigid_part(const rk_mat4 *m);

#endif
