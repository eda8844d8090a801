/* rigkit/math.h: vectors, quaternions, rotation matrices, rigid and affine transforms.
 *
 * Conventions, stated once for all of rigkit:
 * - double precision everywhere in kinematics (the textbook checks and IK need 1e-9; cglm is
 *   single-precision and is used at float boundaries only, see rk_mat4_to_mat4s);
 * - right-handed frames, column vectors, column-major storage: element (row r, column c) of an
 *   rk_mat3 is m[c*3 + r], of an rk_mat4 m[c*4 + r]; v' = M v; A*B applies B first;
 * - quaternions are (x, y, z, w) with w the scalar part and rotate vectors as q v q^-1;
 * - angles are radians.
 *
 * Index:
 *   consts: RK_PI, RK_DEG,
 *   vec3:   rk_vec3, rk_vec3_make, rk_vec3_add, rk_vec3_sub, rk_vec3_scale, rk_vec3_dot,
 *           rk_vec3_cross, rk_vec3_norm, rk_vec3_normalize, rk_vec3_lerp, rk_vec3_is_finite,
 *           rk_vec3_any_perpendicular,
 *   quat:   rk_quat, rk_quat_identity, rk_quat_make, rk_quat_mul, rk_quat_conj, rk_quat_dot,
 *           rk_quat_normalize, rk_quat_rotate, rk_quat_is_finite, rk_quat_same_hemisphere,
 *           rk_quat_slerp, rk_quat_nlerp,
 *           rk_quat_from_axis_angle, rk_quat_to_axis_angle, rk_quat_to_rotvec, rk_quat_from_rotvec,
 *           rk_quat_from_mat3, rk_quat_to_mat3, rk_quat_from_to, rk_quat_angle_between,
 *   trig:   rk_sincos,
 *   mat3:   rk_mat3, rk_mat3_identity, rk_mat3_mul, rk_mat3_mul_vec, rk_mat3_transpose,
 *           rk_mat3_rot_x, rk_mat3_rot_y, rk_mat3_rot_z, rk_mat3_from_axis_angle,
 *           rk_mat3_to_axis_angle, rk_mat3_is_rotation, rk_mat3_at,
 *   mat4:   rk_mat4, rk_mat4_identity, rk_mat4_mul, rk_mat4_mul_affine_to, rk_mat4_mul_affine,
 *           rk_mat4_transform_point, rk_mat4_transform_dir, rk_mat4_inverse_rigid,
 *           rk_mat4_inverse_affine, rk_mat4_from_rt, rk_mat4_get_rotation, rk_mat4_get_translation,
 *           rk_mat4_column, rk_mat4_at, rk_mat4_translation, rk_mat4_rot_x, rk_mat4_rot_y,
 *           rk_mat4_rot_z, rk_mat4_max_abs_diff, rk_mat4_is_finite, rk_mat4_to_mat4s,
 *           rk_mat4_from_mat4s,
 *   trs:    rk_transform, rk_transform_identity, rk_transform_to_mat4_to, rk_transform_to_mat4,
 *           rk_transform_from_mat4, rk_transform_mul, rk_transform_inverse, rk_transform_is_finite
 */
#ifndef RIGKIT_MATH_H
#define RIGKIT_MATH_H

#include <math.h>
#include <stdbool.h>
#include <cglm/struct.h>
#include <rigkit/api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RK_PI 3.14159265358979323846
#define RK_DEG (RK_PI / 180.0)

/** A point or direction in 3D. */
typedef struct rk_vec3 {
  double x, y, z;
} rk_vec3;

/** A rotation as a unit quaternion (x, y, z vector part, w scalar part). */
typedef struct rk_quat {
  double x, y, z, w;
} rk_quat;

/** A 3x3 matrix, column-major (m[c*3 + r]). */
typedef struct rk_mat3 {
  double m[9];
} rk_mat3;

/** A 4x4 matrix, column-major (m[c*4 + r]); rigid and affine transforms keep row 3 = (0,0,0,1). */
typedef struct rk_mat4 {
  double m[16];
} rk_mat4;

/** A local pose: translation t, rotation r, scale s; as a matrix T(t) R(r) S(s). */
typedef struct rk_transform {
  rk_vec3 t;
  rk_quat r;
  rk_vec3 s;
} rk_transform;

/* ---- vec3 ------------------------------------------------------------------------------------ */

/** The vector (x, y, z). */
static inline rk_vec3 rk_vec3_make(double x, double y, double z) {
  rk_vec3 v = {x, y, z};
  return v;
}
/** a + b. */
static inline rk_vec3 rk_vec3_add(rk_vec3 a, rk_vec3 b) {
  return rk_vec3_make(a.x + b.x, a.y + b.y, a.z + b.z);
}
/** a - b. */
static inline rk_vec3 rk_vec3_sub(rk_vec3 a, rk_vec3 b) {
  return rk_vec3_make(a.x - b.x, a.y - b.y, a.z - b.z);
}
/** s a. */
static inline rk_vec3 rk_vec3_scale(rk_vec3 a, double s) {
  return rk_vec3_make(a.x * s, a.y * s, a.z * s);
}
/** a . b. */
static inline double rk_vec3_dot(rk_vec3 a, rk_vec3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
/** a x b (right-handed). */
static inline rk_vec3 rk_vec3_cross(rk_vec3 a, rk_vec3 b) {
  return rk_vec3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
/** |a|. */
static inline double rk_vec3_norm(rk_vec3 a) {
  return sqrt(rk_vec3_dot(a, a));
}
/** Returns a / |a|, or the zero vector when |a| is 0 (never NaN for finite input). */
static inline rk_vec3 rk_vec3_normalize(rk_vec3 a) {
  double n = rk_vec3_norm(a);
  return n > 0.0 ? rk_vec3_scale(a, 1.0 / n) : rk_vec3_make(0, 0, 0);
}
/** a + (b - a) t. */
static inline rk_vec3 rk_vec3_lerp(rk_vec3 a, rk_vec3 b, double t) {
  return rk_vec3_make(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t);
}
/** True when no component is NaN or infinite. */
static inline bool rk_vec3_is_finite(rk_vec3 a) {
  return isfinite(a.x) && isfinite(a.y) && isfinite(a.z);
}
/** Returns a unit vector perpendicular to the unit vector a (deterministic choice). */
RK_API rk_vec3 rk_vec3_any_perpendicular(rk_vec3 a);

/* rk_sincos's reduction constants and kernels, also used by the 4-wide copy in core/src/tree_fk.c
 * (the expressions work on doubles and on GNU vectors alike). Internal. */
#define RK__SINCOS_2_OVER_PI 0.63661977236758134308
#define RK__SINCOS_ROUND 6755399441055744.0 /* 1.5 * 2^52 */
#define RK__SINCOS_PIO2_HI 1.57079632673412561417e+00
#define RK__SINCOS_PIO2_LO 6.07710050650619224932e-11
/* sin r and cos r on [-pi/4, pi/4] from r, r2 = r^2, r4 = r^4, r8 = r^8. */
#define RK__SIN_KERNEL(r, r2, r4, r8)                                                               \
  ((r) + (r) * (r2) *                                                                               \
             (((-1.0 / 6 + (r2) * (1.0 / 120)) + (r4) * (-1.0 / 5040 + (r2) * (1.0 / 362880))) +   \
              (r8) * ((-1.0 / 39916800 + (r2) * (1.0 / 6227020800.0)) +                           \
                      (r4) * (-1.0 / 1307674368000.0))))
#define RK__COS_KERNEL(r2, r4, r8)                                                                  \
  (1.0 - 0.5 * (r2) +                                                                               \
   (r4) * (((1.0 / 24 + (r2) * (-1.0 / 720)) + (r4) * (1.0 / 40320 + (r2) * (-1.0 / 3628800))) +   \
           (r8) * ((1.0 / 479001600.0 + (r2) * (-1.0 / 87178291200.0)) +                          \
                   (r4) * (1.0 / 20922789888000.0))))

/** sin(x) and cos(x) together, within 2 ulp of libm for |x| < 1e5 (Cody-Waite reduction by pi/2
 * and Taylor kernels on [-pi/4, pi/4]) and by libm itself beyond; several times cheaper than two
 * libm calls, for the per-DOF trigonometry of FK and IK hot loops. NaN in, NaN out. */
static inline void rk_sincos(double x, double *restrict s, double *restrict c) {
  if (!(fabs(x) < 1e5)) {
    *s = sin(x);
    *c = cos(x);
    return;
  }
  /* x = k pi/2 + r with pi/2 split in a 33-bit head (k * head is exact) and a tail. */
  /* Round to the nearest integer by adding and removing 1.5 * 2^52 (exact for |x| < 1e5, and
   * free of the libm call nearbyint costs on baseline x86-64). */
  const double k = (x * RK__SINCOS_2_OVER_PI + RK__SINCOS_ROUND) - RK__SINCOS_ROUND;
  const double r = (x - k * RK__SINCOS_PIO2_HI) - k * RK__SINCOS_PIO2_LO;
  /* Taylor kernels to x^15 / x^16 (truncation below 5e-17 on [-pi/4, pi/4]) in Estrin form: the
   * short dependency chains let consecutive calls overlap. */
  const double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
  const double sr = RK__SIN_KERNEL(r, r2, r4, r8);
  const double cr = RK__COS_KERNEL(r2, r4, r8);
  /* Quadrant q: (sin, cos) = (sr, cr), (cr, -sr), (-sr, -cr), (-cr, sr). Selects and exact sign
   * multiplies instead of a switch: random quadrants would mispredict a branch. */
  const long q = (long)k & 3;
  const double a = (q & 1) ? cr : sr, b = (q & 1) ? sr : cr;
  *s = a * (double)(1 - (q & 2));
  *c = b * (double)(1 - ((q + 1) & 2));
}

/* ---- quaternions ----------------------------------------------------------------------------- */

/** The identity rotation (0, 0, 0, 1). */
static inline rk_quat rk_quat_identity(void) {
  rk_quat q = {0, 0, 0, 1};
  return q;
}
/** The quaternion (x, y, z, w), w the scalar part (not normalised). */
static inline rk_quat rk_quat_make(double x, double y, double z, double w) {
  rk_quat q = {x, y, z, w};
  return q;
}
/** Returns a*b (rotate by b, then by a). */
static inline rk_quat rk_quat_mul(rk_quat a, rk_quat b) {
  return rk_quat_make(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                      a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                      a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                      a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}
/** Returns the conjugate, the inverse of a unit quaternion. */
static inline rk_quat rk_quat_conj(rk_quat a) {
  return rk_quat_make(-a.x, -a.y, -a.z, a.w);
}
/** The 4D dot product of a and b. */
static inline double rk_quat_dot(rk_quat a, rk_quat b) {
  return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
/** Returns q / |q|; a zero or non-finite quaternion gives the identity (never NaN). */
static inline rk_quat rk_quat_normalize(rk_quat q) {
  double n = sqrt(rk_quat_dot(q, q));
  if (!(n > 0.0) || !isfinite(n))
    return rk_quat_identity();
  double s = 1.0 / n;
  return rk_quat_make(q.x * s, q.y * s, q.z * s, q.w * s);
}
/** Rotates v by the unit quaternion q. */
static inline rk_vec3 rk_quat_rotate(rk_quat q, rk_vec3 v) {
  /* v + 2w (u x v) + 2 u x (u x v), u = vector part */
  rk_vec3 u = rk_vec3_make(q.x, q.y, q.z);
  rk_vec3 t = rk_vec3_scale(rk_vec3_cross(u, v), 2.0);
  return rk_vec3_add(rk_vec3_add(v, rk_vec3_scale(t, q.w)), rk_vec3_cross(u, t));
}
/** True when no component is NaN or infinite. */
static inline bool rk_quat_is_finite(rk_quat q) {
  return isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w);
}
/** q, or -q when q has a negative dot product with ref: the same rotation in ref's hemisphere, so
 * that consecutive keys of a rotation track interpolate linearly the short way round. */
static inline rk_quat rk_quat_same_hemisphere(rk_quat q, rk_quat ref) {
  return rk_quat_dot(q, ref) < 0 ? rk_quat_make(-q.x, -q.y, -q.z, -q.w) : q;
}
/** Spherical interpolation along the shorter arc; t in [0,1]; inputs must be unit quaternions. */
RK_API rk_quat rk_quat_slerp(rk_quat a, rk_quat b, double t);
/** Normalised linear interpolation along the shorter arc (cheaper than slerp, not constant speed). */
RK_API rk_quat rk_quat_nlerp(rk_quat a, rk_quat b, double t);
/** Rotation of angle radians about axis (normalised here; a zero axis gives the identity). */
RK_API rk_quat rk_quat_from_axis_angle(rk_vec3 axis, double angle);
/** Unit axis and angle in [0, pi] of q; the identity gives angle 0 and axis (1,0,0). */
RK_API void rk_quat_to_axis_angle(rk_quat q, rk_vec3 *axis, double *angle);
/** Rotation vector (axis * angle, angle in [0, pi]): the logarithm map of q. */
RK_API rk_vec3 rk_quat_to_rotvec(rk_quat q);
/** Quaternion of the rotation vector v (exponential map). */
RK_API rk_quat rk_quat_from_rotvec(rk_vec3 v);
/** Unit quaternion of a rotation matrix (Shepperd's method, robust near 180 degrees); w >= 0. */
RK_API rk_quat rk_quat_from_mat3(const rk_mat3 *r);
/** Rotation matrix of a unit quaternion. */
RK_API rk_mat3 rk_quat_to_mat3(rk_quat q);
/** Shortest rotation taking unit vector a onto unit vector b (180 degrees about a perpendicular
 * axis when they are opposite). */
RK_API rk_quat rk_quat_from_to(rk_vec3 a, rk_vec3 b);
/** Angle in [0, pi] between the rotations a and b (q and -q are the same rotation). */
RK_API double rk_quat_angle_between(rk_quat a, rk_quat b);

/* ---- 3x3 rotation matrices ------------------------------------------------------------------- */

/** The 3x3 identity. */
RK_API rk_mat3 rk_mat3_identity(void);
/** Returns a*b. */
RK_API rk_mat3 rk_mat3_mul(const rk_mat3 *a, const rk_mat3 *b);
/** Returns a*v. */
RK_API rk_vec3 rk_mat3_mul_vec(const rk_mat3 *a, rk_vec3 v);
/** a^T (the inverse of a rotation). */
RK_API rk_mat3 rk_mat3_transpose(const rk_mat3 *a);
/** Elementary rotations about the x, y and z axes (right-hand rule). */
RK_API rk_mat3 rk_mat3_rot_x(double angle);
RK_API rk_mat3 rk_mat3_rot_y(double angle);
RK_API rk_mat3 rk_mat3_rot_z(double angle);
/** Rodrigues' formula: rotation of angle about the axis (normalised here). */
RK_API rk_mat3 rk_mat3_from_axis_angle(rk_vec3 axis, double angle);
/** Axis and angle of a rotation matrix: theta = acos((tr R - 1)/2) clamped, axis from the skew part
 * (R - R^T)/(2 sin theta); near theta = 0 the axis is (1,0,0) and theta 0; near theta = pi the axis
 * comes from the symmetric part (R + I)/2 with the signs of the skew part. */
RK_API void rk_mat3_to_axis_angle(const rk_mat3 *r, rk_vec3 *axis, double *angle);
/** True when r is orthonormal with determinant +1 within tol. */
RK_API bool rk_mat3_is_rotation(const rk_mat3 *r, double tol);
/** Element (row, col). */
static inline double rk_mat3_at(const rk_mat3 *a, int row, int col) {
  return a->m[col * 3 + row];
}

/* ---- 4x4 transforms -------------------------------------------------------------------------- */

/** The 4x4 identity. */
RK_API rk_mat4 rk_mat4_identity(void);
/** General product a*b. */
RK_API rk_mat4 rk_mat4_mul(const rk_mat4 *a, const rk_mat4 *b);
/** Product of two affine matrices (bottom rows (0,0,0,1) assumed, 36 multiplies). */
static inline void rk_mat4_mul_affine_to(const rk_mat4 *a, const rk_mat4 *b, rk_mat4 *out) {
  const double *A = a->m, *B = b->m;
  double *o = out->m;
  for (int c = 0; c < 4; c++) {
    const double b0 = B[c * 4 + 0], b1 = B[c * 4 + 1], b2 = B[c * 4 + 2];
    o[c * 4 + 0] = A[0] * b0 + A[4] * b1 + A[8] * b2;
    o[c * 4 + 1] = A[1] * b0 + A[5] * b1 + A[9] * b2;
    o[c * 4 + 2] = A[2] * b0 + A[6] * b1 + A[10] * b2;
    o[c * 4 + 3] = 0.0;
  }
  o[12] += A[12];
  o[13] += A[13];
  o[14] += A[14];
  o[15] = 1.0;
}
/** Returns a*b for affine matrices. */
RK_API rk_mat4 rk_mat4_mul_affine(const rk_mat4 *a, const rk_mat4 *b);
/** Returns M p (p as a point, w = 1). */
static inline rk_vec3 rk_mat4_transform_point(const rk_mat4 *a, rk_vec3 p) {
  const double *m = a->m;
  return rk_vec3_make(m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12],
                      m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13],
                      m[2] * p.x + m[6] * p.y + m[10] * p.z + m[14]);
}
/** Returns M d (d as a direction, w = 0). */
static inline rk_vec3 rk_mat4_transform_dir(const rk_mat4 *a, rk_vec3 d) {
  const double *m = a->m;
  return rk_vec3_make(m[0] * d.x + m[4] * d.y + m[8] * d.z, m[1] * d.x + m[5] * d.y + m[9] * d.z,
                      m[2] * d.x + m[6] * d.y + m[10] * d.z);
}
/** Inverse of a rigid transform [R d; 0 1] as [R^T, -R^T d; 0 1] (no scale allowed). */
RK_API rk_mat4 rk_mat4_inverse_rigid(const rk_mat4 *a);
/** Inverse of an affine transform (any invertible 3x3 block); false when it is singular. */
RK_API bool rk_mat4_inverse_affine(const rk_mat4 *a, rk_mat4 *out);
/** [R d; 0 1]. */
RK_API rk_mat4 rk_mat4_from_rt(const rk_mat3 *r, rk_vec3 d);
/** Upper-left 3x3 block. */
RK_API rk_mat3 rk_mat4_get_rotation(const rk_mat4 *a);
/** The translation column (m[12], m[13], m[14]). */
static inline rk_vec3 rk_mat4_get_translation(const rk_mat4 *a) {
  return rk_vec3_make(a->m[12], a->m[13], a->m[14]);
}
/** Column c (0..3) as a vector (its first three rows). */
static inline rk_vec3 rk_mat4_column(const rk_mat4 *a, int c) {
  return rk_vec3_make(a->m[c * 4], a->m[c * 4 + 1], a->m[c * 4 + 2]);
}
/** Element (row, col). */
static inline double rk_mat4_at(const rk_mat4 *a, int row, int col) {
  return a->m[col * 4 + row];
}
/** The translation by d. */
RK_API rk_mat4 rk_mat4_translation(rk_vec3 d);
/** Elementary rotations about the x, y and z axes (right-hand rule), no translation. */
RK_API rk_mat4 rk_mat4_rot_x(double angle);
RK_API rk_mat4 rk_mat4_rot_y(double angle);
RK_API rk_mat4 rk_mat4_rot_z(double angle);
/** Largest absolute element difference between a and b. */
RK_API double rk_mat4_max_abs_diff(const rk_mat4 *a, const rk_mat4 *b);
/** True when no element is NaN or infinite. */
RK_API bool rk_mat4_is_finite(const rk_mat4 *a);
/** Converts to cglm's single-precision struct matrix (same column-major layout). */
RK_API mat4s rk_mat4_to_mat4s(const rk_mat4 *a);
/** Converts from cglm's single-precision struct matrix. */
RK_API rk_mat4 rk_mat4_from_mat4s(mat4s a);

/* ---- TRS local poses ------------------------------------------------------------------------- */

/** No translation, no rotation, unit scale. */
static inline rk_transform rk_transform_identity(void) {
  rk_transform t = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
  return t;
}
/** T(t) R(r) S(s) as an affine matrix (r must be unit). */
static inline void rk_transform_to_mat4_to(const rk_transform *x, rk_mat4 *out) {
  const double qx = x->r.x, qy = x->r.y, qz = x->r.z, qw = x->r.w;
  const double xx = qx * qx, yy = qy * qy, zz = qz * qz;
  const double xy = qx * qy, xz = qx * qz, yz = qy * qz, wx = qw * qx, wy = qw * qy, wz = qw * qz;
  double *m = out->m;
  m[0] = (1 - 2 * (yy + zz)) * x->s.x;
  m[1] = 2 * (xy + wz) * x->s.x;
  m[2] = 2 * (xz - wy) * x->s.x;
  m[3] = 0;
  m[4] = 2 * (xy - wz) * x->s.y;
  m[5] = (1 - 2 * (xx + zz)) * x->s.y;
  m[6] = 2 * (yz + wx) * x->s.y;
  m[7] = 0;
  m[8] = 2 * (xz + wy) * x->s.z;
  m[9] = 2 * (yz - wx) * x->s.z;
  m[10] = (1 - 2 * (xx + yy)) * x->s.z;
  m[11] = 0;
  m[12] = x->t.x;
  m[13] = x->t.y;
  m[14] = x->t.z;
  m[15] = 1;
}
/** T(t) R(r) S(s) as an affine matrix, returned (r must be unit). */
RK_API rk_mat4 rk_transform_to_mat4(const rk_transform *x);
/** Decomposes an affine matrix into T R S (positive scale unless the determinant is negative, in
 * which case s.x is negated); false when a column is zero (no rotation can be recovered). */
RK_API bool rk_transform_from_mat4(const rk_mat4 *m, rk_transform *out);
/** Composition a*b of two TRS transforms without scale shear (exact when a has uniform scale). */
RK_API rk_transform rk_transform_mul(const rk_transform *a, const rk_transform *b);
/** Inverse of a TRS transform with uniform scale. */
RK_API rk_transform rk_transform_inverse(const rk_transform *a);
/** True when no component of t, r or s is NaN or infinite. */
RK_API bool rk_transform_is_finite(const rk_transform *a);

#ifdef __cplusplus
}
#endif

#endif
