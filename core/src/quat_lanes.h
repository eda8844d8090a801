/* Internal: quaternion and 3-vector arithmetic four lanes at a time (GNU vectors of 4 doubles:
 * one AVX register or two SSE2 registers), for per-joint work done on several joints at once
 * (retarget_lanes.c). Each lane does the operations of rigkit/math.h's scalar function of the same
 * name in the same order, so a lane gives that function's bits wherever both are compiled without
 * FMA contraction. Values move through pointers: by value, without AVX, vectors change the ABI
 * (-Wpsabi). Outputs may alias inputs. */
#ifndef RK_QUAT_LANES_H
#define RK_QUAT_LANES_H

#include "columns.h"

#include <emmintrin.h>
#include <math.h>

typedef long long rk__v4i __attribute__((vector_size(32)));

/* Four quaternions, a component per vector. */
typedef struct rk__q4 {
  rk__v4d x, y, z, w;
} rk__q4;

/* Four 3-vectors. */
typedef struct rk__p4 {
  rk__v4d x, y, z;
} rk__p4;

#define RK__QL static inline __attribute__((always_inline))

/* a where the lanes of the mask m are all ones, b where they are zero (a macro: vectors returned
 * by value change the ABI without AVX). */
#define RK__V4D_PICK(m, a, b) ((rk__v4d)(((rk__v4i)(a) & (m)) | ((rk__v4i)(b) & ~(m))))

/* The vector (a, b, c, d) (from two halves: built lane by lane in place, GCC's warnings take it
 * for a read of the uninitialised lanes). */
RK__QL void rk__v4d_set(rk__v4d *o, double a, double b, double c, double d) {
  const __m128d lo = {a, b}, hi = {c, d};
  *o = __builtin_shufflevector(lo, hi, 0, 1, 2, 3);
}

/* The square root of each lane (correctly rounded, as sqrt), a half at a time (SSE2's). */
RK__QL void rk__v4d_sqrt(rk__v4d *o, const rk__v4d *x) {
  const __m128d lo = _mm_sqrt_pd(__builtin_shufflevector(*x, *x, 0, 1));
  const __m128d hi = _mm_sqrt_pd(__builtin_shufflevector(*x, *x, 2, 3));
  *o = __builtin_shufflevector(lo, hi, 0, 1, 2, 3);
}

/* Every lane q. */
RK__QL void rk__q4_splat(rk__q4 *o, rk_quat q) {
  rk__v4d_set(&o->x, q.x, q.x, q.x, q.x);
  rk__v4d_set(&o->y, q.y, q.y, q.y, q.y);
  rk__v4d_set(&o->z, q.z, q.z, q.z, q.z);
  rk__v4d_set(&o->w, q.w, q.w, q.w, q.w);
}

/* Lane l from q[at[l]]. */
RK__QL void rk__q4_gather(rk__q4 *o, const rk_quat *q, const int at[4]) {
  const rk_quat a = q[at[0]], b = q[at[1]], c = q[at[2]], d = q[at[3]];
  rk__v4d_set(&o->x, a.x, b.x, c.x, d.x);
  rk__v4d_set(&o->y, a.y, b.y, c.y, d.y);
  rk__v4d_set(&o->z, a.z, b.z, c.z, d.z);
  rk__v4d_set(&o->w, a.w, b.w, c.w, d.w);
}

/* Lane l into q[at[l]], for the first n lanes. */
RK__QL void rk__q4_scatter(const rk__q4 *v, rk_quat *q, const int at[4], int n) {
  for (int l = 0; l < n; l++)
    q[at[l]] = rk_quat_make(v->x[l], v->y[l], v->z[l], v->w[l]);
}

/* Lane l from p[at[l]]. */
RK__QL void rk__p4_gather(rk__p4 *o, const rk_vec3 *p, const int at[4]) {
  const rk_vec3 a = p[at[0]], b = p[at[1]], c = p[at[2]], d = p[at[3]];
  rk__v4d_set(&o->x, a.x, b.x, c.x, d.x);
  rk__v4d_set(&o->y, a.y, b.y, c.y, d.y);
  rk__v4d_set(&o->z, a.z, b.z, c.z, d.z);
}

/* rk_quat_conj. */
RK__QL void rk__q4_conj(rk__q4 *o, const rk__q4 *a) {
  o->x = -a->x, o->y = -a->y, o->z = -a->z, o->w = a->w;
}

/* rk_quat_mul: o = a b. */
RK__QL void rk__q4_mul(rk__q4 *o, const rk__q4 *a, const rk__q4 *b) {
  const rk__v4d x = a->w * b->x + a->x * b->w + a->y * b->z - a->z * b->y;
  const rk__v4d y = a->w * b->y - a->x * b->z + a->y * b->w + a->z * b->x;
  const rk__v4d z = a->w * b->z + a->x * b->y - a->y * b->x + a->z * b->w;
  const rk__v4d w = a->w * b->w - a->x * b->x - a->y * b->y - a->z * b->z;
  o->x = x, o->y = y, o->z = z, o->w = w;
}

/* rk_quat_normalize: the identity where the norm is zero or not finite. */
RK__QL void rk__q4_normalize(rk__q4 *o, const rk__q4 *q) {
  const rk__v4d d = q->x * q->x + q->y * q->y + q->z * q->z + q->w * q->w;
  rk__v4d n;
  rk__v4d_sqrt(&n, &d);
  const rk__v4i ok = (n > 0.0) & (n < INFINITY);
  const rk__v4d s = 1.0 / n, zero = {0, 0, 0, 0}, one = {1, 1, 1, 1};
  o->x = RK__V4D_PICK(ok, q->x * s, zero);
  o->y = RK__V4D_PICK(ok, q->y * s, zero);
  o->z = RK__V4D_PICK(ok, q->z * s, zero);
  o->w = RK__V4D_PICK(ok, q->w * s, one);
}

/* rk_vec3_dot. */
RK__QL void rk__p4_dot(rk__v4d *o, const rk__p4 *a, const rk__p4 *b) {
  *o = a->x * b->x + a->y * b->y + a->z * b->z;
}

/* rk_vec3_cross. */
RK__QL void rk__p4_cross(rk__p4 *o, const rk__p4 *a, const rk__p4 *b) {
  const rk__v4d x = a->y * b->z - a->z * b->y;
  const rk__v4d y = a->z * b->x - a->x * b->z;
  const rk__v4d z = a->x * b->y - a->y * b->x;
  o->x = x, o->y = y, o->z = z;
}

/* rk_vec3_normalize: zero where the norm is not above zero. */
RK__QL void rk__p4_normalize(rk__p4 *o, const rk__p4 *a) {
  rk__v4d d, n;
  rk__p4_dot(&d, a, a);
  rk__v4d_sqrt(&n, &d);
  const rk__v4i ok = n > 0.0;
  const rk__v4d s = 1.0 / n, zero = {0, 0, 0, 0};
  o->x = RK__V4D_PICK(ok, a->x * s, zero);
  o->y = RK__V4D_PICK(ok, a->y * s, zero);
  o->z = RK__V4D_PICK(ok, a->z * s, zero);
}

/* rk_quat_rotate: v turned by the unit quaternion q. */
RK__QL void rk__q4_rotate(rk__p4 *o, const rk__q4 *q, const rk__p4 *v) {
  const rk__p4 u = {q->x, q->y, q->z};
  rk__p4 t, ut;
  rk__p4_cross(&t, &u, v);
  t.x *= 2.0, t.y *= 2.0, t.z *= 2.0;
  rk__p4_cross(&ut, &u, &t);
  o->x = v->x + t.x * q->w + ut.x;
  o->y = v->y + t.y * q->w + ut.y;
  o->z = v->z + t.z * q->w + ut.z;
}

/* rk_quat_from_to: the shortest rotation taking a onto b. Lanes where a and b are opposite (the
 * scalar function's special case) are set in *opposite and hold no answer. */
RK__QL void rk__q4_from_to(rk__q4 *o, const rk__p4 *a, const rk__p4 *b, rk__v4i *opposite) {
  rk__p4 an, bn, c;
  rk__p4_normalize(&an, a);
  rk__p4_normalize(&bn, b);
  rk__v4d d;
  rk__p4_dot(&d, &an, &bn);
  *opposite = d < -1.0 + 1e-12;
  rk__p4_cross(&c, &an, &bn);
  const rk__q4 q = {c.x, c.y, c.z, 1.0 + d};
  rk__q4_normalize(o, &q);
}

#endif
