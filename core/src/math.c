/* Vectors, quaternions, rotation matrices and transforms (see rigkit/math.h for conventions), and
 * the rigid part of an affine matrix for the kinematics files (math_internal.h). */
#include <rigkit/math.h>

#include "math_internal.h"

#include <float.h>
#include <string.h>

rk_vec3 rk_vec3_any_perpendicular(rk_vec3 a) {
  /* Cross with the coordinate axis least aligned with a. */
  double ax = fabs(a.x), ay = fabs(a.y), az = fabs(a.z);
  rk_vec3 e = ax <= ay && ax <= az ? rk_vec3_make(1, 0, 0)
              : ay <= az           ? rk_vec3_make(0, 1, 0)
                                   : rk_vec3_make(0, 0, 1);
  return rk_vec3_normalize(rk_vec3_cross(a, e));
}

/* ---- quaternions ----------------------------------------------------------------------------- */

rk_quat rk_quat_slerp(rk_quat a, rk_quat b, double t) {
  double d = rk_quat_dot(a, b);
  if (d < 0) {
    d = -d;
    b = rk_quat_make(-b.x, -b.y, -b.z, -b.w);
  }
  double wa, wb;
  if (d > 0.9995) {
    /* Nearly parallel: linear blend then normalise avoids dividing by sin(~0). */
    wa = 1.0 - t;
    wb = t;
  } else {
    double th = acos(d), s = sin(th);
    wa = sin((1.0 - t) * th) / s;
    wb = sin(t * th) / s;
  }
  return rk_quat_normalize(rk_quat_make(wa * a.x + wb * b.x, wa * a.y + wb * b.y,
                                        wa * a.z + wb * b.z, wa * a.w + wb * b.w));
}

rk_quat rk_quat_nlerp(rk_quat a, rk_quat b, double t) {
  double s = rk_quat_dot(a, b) < 0 ? -t : t;
  return rk_quat_normalize(rk_quat_make(a.x * (1 - t) + b.x * s, a.y * (1 - t) + b.y * s,
                                        a.z * (1 - t) + b.z * s, a.w * (1 - t) + b.w * s));
}

rk_quat rk_quat_from_axis_angle(rk_vec3 axis, double angle) {
  rk_vec3 u = rk_vec3_normalize(axis);
  if (rk_vec3_dot(u, u) == 0.0)
    return rk_quat_identity();
  double s = sin(0.5 * angle);
  return rk_quat_make(u.x * s, u.y * s, u.z * s, cos(0.5 * angle));
}

void rk_quat_to_axis_angle(rk_quat q, rk_vec3 *axis, double *angle) {
  q = rk_quat_normalize(q);
  if (q.w < 0)
    q = rk_quat_make(-q.x, -q.y, -q.z, -q.w);
  double s = sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
  /* atan2 keeps full precision for small angles, unlike acos(w). */
  double th = 2.0 * atan2(s, q.w);
  if (s < 1e-300) {
    *axis = rk_vec3_make(1, 0, 0);
    *angle = 0.0;
    return;
  }
  *axis = rk_vec3_make(q.x / s, q.y / s, q.z / s);
  *angle = th;
}

rk_vec3 rk_quat_to_rotvec(rk_quat q) {
  rk_vec3 axis;
  double angle;
  rk_quat_to_axis_angle(q, &axis, &angle);
  return rk_vec3_scale(axis, angle);
}

rk_quat rk_quat_from_rotvec(rk_vec3 v) {
  double th = rk_vec3_norm(v);
  if (th < 1e-12) /* first-order expansion, then normalise */
    return rk_quat_normalize(rk_quat_make(0.5 * v.x, 0.5 * v.y, 0.5 * v.z, 1.0));
  double s = sin(0.5 * th) / th;
  return rk_quat_make(v.x * s, v.y * s, v.z * s, cos(0.5 * th));
}

rk_quat rk_quat_from_mat3(const rk_mat3 *r) {
  const double m00 = rk_mat3_at(r, 0, 0), m11 = rk_mat3_at(r, 1, 1), m22 = rk_mat3_at(r, 2, 2);
  const double tr = m00 + m11 + m22;
  rk_quat q;
  /* Pick the largest of w, x, y, z to divide by (Shepperd). */
  if (tr >= m00 && tr >= m11 && tr >= m22) {
    double s = 2.0 * sqrt(1.0 + tr);
    q = rk_quat_make((rk_mat3_at(r, 2, 1) - rk_mat3_at(r, 1, 2)) / s,
                     (rk_mat3_at(r, 0, 2) - rk_mat3_at(r, 2, 0)) / s,
                     (rk_mat3_at(r, 1, 0) - rk_mat3_at(r, 0, 1)) / s, 0.25 * s);
  } else if (m00 >= m11 && m00 >= m22) {
    double s = 2.0 * sqrt(1.0 + m00 - m11 - m22);
    q = rk_quat_make(0.25 * s, (rk_mat3_at(r, 0, 1) + rk_mat3_at(r, 1, 0)) / s,
                     (rk_mat3_at(r, 0, 2) + rk_mat3_at(r, 2, 0)) / s,
                     (rk_mat3_at(r, 2, 1) - rk_mat3_at(r, 1, 2)) / s);
  } else if (m11 >= m22) {
    double s = 2.0 * sqrt(1.0 + m11 - m00 - m22);
    q = rk_quat_make((rk_mat3_at(r, 0, 1) + rk_mat3_at(r, 1, 0)) / s, 0.25 * s,
                     (rk_mat3_at(r, 1, 2) + rk_mat3_at(r, 2, 1)) / s,
                     (rk_mat3_at(r, 0, 2) - rk_mat3_at(r, 2, 0)) / s);
  } else {
    double s = 2.0 * sqrt(1.0 + m22 - m00 - m11);
    q = rk_quat_make((rk_mat3_at(r, 0, 2) + rk_mat3_at(r, 2, 0)) / s,
                     (rk_mat3_at(r, 1, 2) + rk_mat3_at(r, 2, 1)) / s, 0.25 * s,
                     (rk_mat3_at(r, 1, 0) - rk_mat3_at(r, 0, 1)) / s);
  }
  q = rk_quat_normalize(q);
  if (q.w < 0)
    q = rk_quat_make(-q.x, -q.y, -q.z, -q.w);
  return q;
}

rk_mat3 rk_quat_to_mat3(rk_quat q) {
  rk_transform x = {{0, 0, 0}, q, {1, 1, 1}};
  rk_mat4 m;
  rk_transform_to_mat4_to(&x, &m);
  return rk_mat4_get_rotation(&m);
}

rk_quat rk_quat_from_to(rk_vec3 a, rk_vec3 b) {
  a = rk_vec3_normalize(a);
  b = rk_vec3_normalize(b);
  double d = rk_vec3_dot(a, b);
  if (d < -1.0 + 1e-12) {
    rk_vec3 p = rk_vec3_any_perpendicular(a);
    return rk_quat_make(p.x, p.y, p.z, 0.0);
  }
  rk_vec3 c = rk_vec3_cross(a, b);
  /* q = (c, 1 + d) normalised is the half-angle rotation from a to b. */
  return rk_quat_normalize(rk_quat_make(c.x, c.y, c.z, 1.0 + d));
}

double rk_quat_angle_between(rk_quat a, rk_quat b) {
  rk_quat d = rk_quat_mul(rk_quat_conj(a), b);
  double s = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
  return 2.0 * atan2(s, fabs(d.w));
}

/* ---- mat3 ------------------------------------------------------------------------------------ */

rk_mat3 rk_mat3_identity(void) {
  rk_mat3 r = {{1, 0, 0, 0, 1, 0, 0, 0, 1}};
  return r;
}

rk_mat3 rk_mat3_mul(const rk_mat3 *a, const rk_mat3 *b) {
  rk_mat3 o;
  for (int c = 0; c < 3; c++)
    for (int r = 0; r < 3; r++)
      o.m[c * 3 + r] = a->m[r] * b->m[c * 3] + a->m[3 + r] * b->m[c * 3 + 1] +
                       a->m[6 + r] * b->m[c * 3 + 2];
  return o;
}

rk_vec3 rk_mat3_mul_vec(const rk_mat3 *a, rk_vec3 v) {
  const double *m = a->m;
  return rk_vec3_make(m[0] * v.x + m[3] * v.y + m[6] * v.z, m[1] * v.x + m[4] * v.y + m[7] * v.z,
                      m[2] * v.x + m[5] * v.y + m[8] * v.z);
}

rk_mat3 rk_mat3_transpose(const rk_mat3 *a) {
  rk_mat3 o;
  for (int c = 0; c < 3; c++)
    for (int r = 0; r < 3; r++)
      o.m[c * 3 + r] = a->m[r * 3 + c];
  return o;
}

rk_mat3 rk_mat3_rot_x(double t) {
  double c = cos(t), s = sin(t);
  rk_mat3 r = {{1, 0, 0, 0, c, s, 0, -s, c}};
  return r;
}

rk_mat3 rk_mat3_rot_y(double t) {
  double c = cos(t), s = sin(t);
  rk_mat3 r = {{c, 0, -s, 0, 1, 0, s, 0, c}};
  return r;
}

rk_mat3 rk_mat3_rot_z(double t) {
  double c = cos(t), s = sin(t);
  rk_mat3 r = {{c, s, 0, -s, c, 0, 0, 0, 1}};
  return r;
}

rk_mat3 rk_mat3_from_axis_angle(rk_vec3 axis, double angle) {
  rk_vec3 u = rk_vec3_normalize(axis);
  double c = cos(angle), s = sin(angle), v = 1.0 - c;
  rk_mat3 r = {{
      c + u.x * u.x * v, u.y * u.x * v + u.z * s, u.z * u.x * v - u.y * s, /* column 0 */
      u.x * u.y * v - u.z * s, c + u.y * u.y * v, u.z * u.y * v + u.x * s, /* column 1 */
      u.x * u.z * v + u.y * s, u.y * u.z * v - u.x * s, c + u.z * u.z * v, /* column 2 */
  }};
  return r;
}

void rk_mat3_to_axis_angle(const rk_mat3 *r, rk_vec3 *axis, double *angle) {
  const double tr = rk_mat3_at(r, 0, 0) + rk_mat3_at(r, 1, 1) + rk_mat3_at(r, 2, 2);
  double c = 0.5 * (tr - 1.0);
  c = c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c;
  /* The skew part gives 2 sin(theta) * axis. */
  rk_vec3 w = rk_vec3_make(rk_mat3_at(r, 2, 1) - rk_mat3_at(r, 1, 2),
                           rk_mat3_at(r, 0, 2) - rk_mat3_at(r, 2, 0),
                           rk_mat3_at(r, 1, 0) - rk_mat3_at(r, 0, 1));
  const double s2 = rk_vec3_norm(w); /* = 2 sin(theta) */
  /* theta = acos(c), evaluated as atan2(sin, cos) so that small angles keep full precision. */
  const double th = atan2(0.5 * s2, c);
  if (s2 < 1e-300 && c > 0) { /* the identity: any axis */
    *axis = rk_vec3_make(1, 0, 0);
    *angle = 0.0;
    return;
  }
  if (RK_PI - th > 1e-3) {
    *axis = rk_vec3_scale(w, 1.0 / s2);
    *angle = th;
    return;
  }
  /* theta ~ pi: the skew part vanishes. R = c I + s [u]x + (1 - c) u u^T, so the diagonal gives
   * u_k^2 = (R_kk - c)/(1 - c); take the largest such component, the others from the symmetric
   * off-diagonal terms, and the overall sign from the (small) skew part so that theta slightly
   * below pi stays continuous. */
  double d[3] = {rk_mat3_at(r, 0, 0), rk_mat3_at(r, 1, 1), rk_mat3_at(r, 2, 2)};
  int k = d[0] >= d[1] && d[0] >= d[2] ? 0 : d[1] >= d[2] ? 1 : 2;
  double u[3];
  u[k] = sqrt(fmax(0.0, (d[k] - c) / (1.0 - c)));
  for (int i = 0; i < 3; i++)
    if (i != k)
      u[i] = (rk_mat3_at(r, i, k) + rk_mat3_at(r, k, i)) / (2.0 * (1.0 - c) * u[k]);
  rk_vec3 a = rk_vec3_normalize(rk_vec3_make(u[0], u[1], u[2]));
  if (rk_vec3_dot(a, w) < 0)
    a = rk_vec3_scale(a, -1.0);
  *axis = a;
  *angle = th;
}

bool rk_mat3_is_rotation(const rk_mat3 *r, double tol) {
  rk_mat3 rt = rk_mat3_transpose(r);
  rk_mat3 p = rk_mat3_mul(&rt, r);
  for (int i = 0; i < 9; i++)
    if (fabs(p.m[i] - (i % 4 == 0 ? 1.0 : 0.0)) > tol)
      return false;
  const double *m = r->m;
  double det = m[0] * (m[4] * m[8] - m[7] * m[5]) - m[3] * (m[1] * m[8] - m[7] * m[2]) +
               m[6] * (m[1] * m[5] - m[4] * m[2]);
  return fabs(det - 1.0) <= tol;
}

/* ---- mat4 ------------------------------------------------------------------------------------ */

rk_mat4 rk_mat4_identity(void) {
  rk_mat4 r = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
  return r;
}

rk_mat4 rk_mat4_mul(const rk_mat4 *a, const rk_mat4 *b) {
  rk_mat4 o;
  for (int c = 0; c < 4; c++)
    for (int r = 0; r < 4; r++) {
      double s = 0;
      for (int k = 0; k < 4; k++)
        s += a->m[k * 4 + r] * b->m[c * 4 + k];
      o.m[c * 4 + r] = s;
    }
  return o;
}

rk_mat4 rk_mat4_mul_affine(const rk_mat4 *a, const rk_mat4 *b) {
  rk_mat4 o;
  rk_mat4_mul_affine_to(a, b, &o);
  return o;
}

rk_mat4 rk_mat4_inverse_rigid(const rk_mat4 *a) {
  rk_mat3 r = rk_mat4_get_rotation(a);
  rk_mat3 rt = rk_mat3_transpose(&r);
  rk_vec3 d = rk_mat3_mul_vec(&rt, rk_mat4_get_translation(a));
  return rk_mat4_from_rt(&rt, rk_vec3_scale(d, -1.0));
}

bool rk_mat4_inverse_affine(const rk_mat4 *a, rk_mat4 *out) {
  const double *m = a->m;
  /* Inverse of the 3x3 block by cofactors, then -A^-1 d. */
  double c00 = m[5] * m[10] - m[9] * m[6], c01 = m[9] * m[2] - m[1] * m[10],
         c02 = m[1] * m[6] - m[5] * m[2];
  double det = m[0] * c00 + m[4] * c01 + m[8] * c02;
  double scale = fabs(m[0]) + fabs(m[5]) + fabs(m[10]) + fabs(m[4]) + fabs(m[8]) + fabs(m[1]);
  if (!(fabs(det) > 1e-300) || !isfinite(det) || fabs(det) < 1e-14 * scale * scale * scale)
    return false;
  double inv = 1.0 / det;
  rk_mat3 r;
  r.m[0] = c00 * inv;
  r.m[1] = c01 * inv;
  r.m[2] = c02 * inv;
  r.m[3] = (m[8] * m[6] - m[4] * m[10]) * inv;
  r.m[4] = (m[0] * m[10] - m[8] * m[2]) * inv;
  r.m[5] = (m[4] * m[2] - m[0] * m[6]) * inv;
  r.m[6] = (m[4] * m[9] - m[8] * m[5]) * inv;
  r.m[7] = (m[8] * m[1] - m[0] * m[9]) * inv;
  r.m[8] = (m[0] * m[5] - m[4] * m[1]) * inv;
  rk_vec3 d = rk_mat3_mul_vec(&r, rk_mat4_get_translation(a));
  *out = rk_mat4_from_rt(&r, rk_vec3_scale(d, -1.0));
  return true;
}

rk_mat4 rk_mat4_from_rt(const rk_mat3 *r, rk_vec3 d) {
  rk_mat4 o = {{r->m[0], r->m[1], r->m[2], 0, r->m[3], r->m[4], r->m[5], 0, r->m[6], r->m[7],
                r->m[8], 0, d.x, d.y, d.z, 1}};
  return o;
}

rk_mat3 rk_mat4_get_rotation(const rk_mat4 *a) {
  rk_mat3 r = {{a->m[0], a->m[1], a->m[2], a->m[4], a->m[5], a->m[6], a->m[8], a->m[9], a->m[10]}};
  return r;
}

rk_mat4 rk_mat4_translation(rk_vec3 d) {
  rk_mat4 o = rk_mat4_identity();
  o.m[12] = d.x;
  o.m[13] = d.y;
  o.m[14] = d.z;
  return o;
}

rk_mat4 rk_mat4_rot_x(double angle) {
  rk_mat3 r = rk_mat3_rot_x(angle);
  return rk_mat4_from_rt(&r, rk_vec3_make(0, 0, 0));
}

rk_mat4 rk_mat4_rot_y(double angle) {
  rk_mat3 r = rk_mat3_rot_y(angle);
  return rk_mat4_from_rt(&r, rk_vec3_make(0, 0, 0));
}

rk_mat4 rk_mat4_rot_z(double angle) {
  rk_mat3 r = rk_mat3_rot_z(angle);
  return rk_mat4_from_rt(&r, rk_vec3_make(0, 0, 0));
}

double rk_mat4_max_abs_diff(const rk_mat4 *a, const rk_mat4 *b) {
  double e = 0;
  for (int i = 0; i < 16; i++) {
    double d = fabs(a->m[i] - b->m[i]);
    if (!(d <= e)) /* also propagates NaN as infinity */
      e = isnan(d) ? INFINITY : d;
  }
  return e;
}

bool rk_mat4_is_finite(const rk_mat4 *a) {
  for (int i = 0; i < 16; i++)
    if (!isfinite(a->m[i]))
      return false;
  return true;
}

mat4s rk_mat4_to_mat4s(const rk_mat4 *a) {
  mat4s o;
  for (int c = 0; c < 4; c++)
    for (int r = 0; r < 4; r++)
      o.raw[c][r] = (float)a->m[c * 4 + r];
  return o;
}

rk_mat4 rk_mat4_from_mat4s(mat4s a) {
  rk_mat4 o;
  for (int c = 0; c < 4; c++)
    for (int r = 0; r < 4; r++)
      o.m[c * 4 + r] = a.raw[c][r];
  return o;
}

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

/* ---- TRS ------------------------------------------------------------------------------------- */

rk_mat4 rk_transform_to_mat4(const rk_transform *x) {
  rk_mat4 m;
  rk_transform_to_mat4_to(x, &m);
  return m;
}

bool rk_transform_from_mat4(const rk_mat4 *m, rk_transform *out) {
  rk_vec3 c0 = rk_mat4_column(m, 0), c1 = rk_mat4_column(m, 1), c2 = rk_mat4_column(m, 2);
  double sx = rk_vec3_norm(c0), sy = rk_vec3_norm(c1), sz = rk_vec3_norm(c2);
  if (!(sx > 0 && sy > 0 && sz > 0) || !isfinite(sx + sy + sz))
    return false;
  if (rk_vec3_dot(rk_vec3_cross(c0, c1), c2) < 0)
    sx = -sx;
  rk_mat3 r = {{c0.x / sx, c0.y / sx, c0.z / sx, c1.x / sy, c1.y / sy, c1.z / sy, c2.x / sz,
                c2.y / sz, c2.z / sz}};
  out->t = rk_mat4_get_translation(m);
  out->r = rk_quat_from_mat3(&r);
  out->s = rk_vec3_make(sx, sy, sz);
  return true;
}

rk_transform rk_transform_mul(const rk_transform *a, const rk_transform *b) {
  rk_transform o;
  o.t = rk_vec3_add(a->t, rk_quat_rotate(a->r, rk_vec3_make(a->s.x * b->t.x, a->s.y * b->t.y,
                                                            a->s.z * b->t.z)));
  o.r = rk_quat_normalize(rk_quat_mul(a->r, b->r));
  o.s = rk_vec3_make(a->s.x * b->s.x, a->s.y * b->s.y, a->s.z * b->s.z);
  return o;
}

rk_transform rk_transform_inverse(const rk_transform *a) {
  rk_transform o;
  o.r = rk_quat_conj(a->r);
  o.s = rk_vec3_make(1.0 / a->s.x, 1.0 / a->s.y, 1.0 / a->s.z);
  rk_vec3 t = rk_quat_rotate(o.r, rk_vec3_scale(a->t, -1.0));
  o.t = rk_vec3_make(t.x * o.s.x, t.y * o.s.y, t.z * o.s.z);
  return o;
}

bool rk_transform_is_finite(const rk_transform *a) {
  return rk_vec3_is_finite(a->t) && rk_quat_is_finite(a->r) && rk_vec3_is_finite(a->s);
}
