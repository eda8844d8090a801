/* rigkit/euler.h: Euler angles in all 12 orders, both ways.
 *
 * The convention, named once: an order "ABC" with angles (a, b, c) is the matrix product
 *   R = R_A(a) R_B(b) R_C(c)
 * of elementary right-handed rotations, i.e. intrinsic rotations about A, then the new B, then
 * the new C (equivalently extrinsic C, B, A). This is exactly how BVH channel lists read
 * ("Zrotation Xrotation Yrotation" is RK_EULER_ZXY) and how the textbook writes its angles:
 *   roll-pitch-yaw  R = Rz(phi) Ry(theta) Rx(psi)  is RK_EULER_ZYX with angles (phi, theta, psi);
 *   ZYZ Euler       R = Rz(phi) Ry(theta) Rz(psi)  is RK_EULER_ZYZ with angles (phi, theta, psi).
 * FBX's "eEulerXYZ" rotates about X first, so it is RK_EULER_ZYX here.
 *
 * Rates: when the angles change at da/dt, R turns at the angular velocity (world frame)
 *   omega = B(a) da/dt,  B(a) = [ e_A | R_A(a0) e_B | R_A(a0) R_B(a1) e_C ]
 * (the three rotation axes at the current angles). B is singular at the order's gimbal lock:
 * cos(a1) = 0 for Tait-Bryan orders, sin(a1) = 0 for proper Euler orders. For roll-pitch-yaw
 * (ZYX, a = (phi, theta, psi)):
 *   B = [ 0  -sin(phi)  cos(phi) cos(theta) ]
 *       [ 0   cos(phi)  sin(phi) cos(theta) ]
 *       [ 1   0        -sin(theta)          ]
 *
 * Index: rk_euler_order, rk_euler_order_name, rk_euler_order_parse, rk_euler_order_axes,
 *        rk_euler_to_mat3, rk_euler_from_mat3, rk_euler_to_quat, rk_euler_from_quat,
 *        rk_euler_from_quat_near, rk_euler_rate_matrix, rk_euler_axes_deg_to_quat,
 *        rk_euler_deg_to_quats
 */
#ifndef RIGKIT_EULER_H
#define RIGKIT_EULER_H

#include <rigkit/math.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The 12 orders: 6 Tait-Bryan (three distinct axes) and 6 proper Euler (first = last axis). */
typedef enum rk_euler_order {
  RK_EULER_XYZ,
  RK_EULER_XZY,
  RK_EULER_YXZ,
  RK_EULER_YZX,
  RK_EULER_ZXY,
  RK_EULER_ZYX,
  RK_EULER_XYX,
  RK_EULER_XZX,
  RK_EULER_YXY,
  RK_EULER_YZY,
  RK_EULER_ZXZ,
  RK_EULER_ZYZ,
  RK_EULER_N_ORDERS
} rk_euler_order;

/** Returns the static name ("ZXY") of an order, or "?" when out of range. */
RK_API const char *rk_euler_order_name(rk_euler_order order);
/** Parses "XYZ".."ZYZ" (case-insensitive) into *order; false when the text is not an order. */
RK_API bool rk_euler_order_parse(const char *text, rk_euler_order *order);
/** The three axis indices (0 = x, 1 = y, 2 = z) of an order, in product order. */
RK_API void rk_euler_order_axes(rk_euler_order order, int axes[3]);
/** R = R_A(a[0]) R_B(a[1]) R_C(a[2]) for order ABC. */
RK_API rk_mat3 rk_euler_to_mat3(rk_euler_order order, const double angles[3]);
/** Angles (a[0], a[1], a[2]) with R = R_A R_B R_C. Tait-Bryan: middle angle in [-pi/2, pi/2];
 * proper Euler: middle angle in [0, pi]; the other two in (-pi, pi]. At gimbal lock (middle
 * angle at its bound) the third angle is set to 0 and the first carries the whole rotation. */
RK_API void rk_euler_from_mat3(rk_euler_order order, const rk_mat3 *r, double angles[3]);
/** Quaternion of the Euler angles. */
RK_API rk_quat rk_euler_to_quat(rk_euler_order order, const double angles[3]);
/** Euler angles of a unit quaternion (same ranges as rk_euler_from_mat3). */
RK_API void rk_euler_from_quat(rk_euler_order order, rk_quat q, double angles[3]);
/** Euler angles of q closest to prev (the previous key): among the two equivalent solutions and
 * their 2*pi shifts, picks the one nearest prev, so curves never jump by more than pi. */
RK_API void rk_euler_from_quat_near(rk_euler_order order, rk_quat q, const double prev[3],
                                    double angles[3]);
/** The rate matrix B(angles) of an order (omega = B da/dt, above) into *B. Returns det B:
 * +-cos(a1) for Tait-Bryan orders, +-sin(a1) for proper Euler orders, 0 at gimbal lock (where
 * angular velocities about the lost axis have no angle rates). */
RK_API double rk_euler_rate_matrix(rk_euler_order order, const double angles[3], rk_mat3 *B);
/** Quaternion of the rotations about axes[0..n) (0 x, 1 y, 2 z) by deg[0..n) degrees in product
 * order (BVH rotation channels), each from its half angle by rk_sincos (within 2 ulp of libm), a
 * zero angle skipped exactly; borrows both arrays, never fails (NaN in, NaN out). */
RK_API rk_quat rk_euler_axes_deg_to_quat(const int *axes, const double *deg, size_t n);
/** rk_euler_axes_deg_to_quat of order's axes for n triples of degrees (triple i at deg + i * stride)
 * into xyzw[0..4n) as x, y, z, w: four triples at a time in vector lanes with the same operations,
 * so the same bits; the caller owns both arrays, never fails. */
RK_API void rk_euler_deg_to_quats(rk_euler_order order, const double *deg, size_t stride, size_t n,
                                  double *xyzw);

#ifdef __cplusplus
}
#endif

#endif
