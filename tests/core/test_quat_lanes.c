/* Quaternion and vector arithmetic in four lanes (core/src/quat_lanes.h) against the scalar
 * functions of rigkit/math.h, bit for bit, lane by lane: random values, zeros, NaN and infinities,
 * opposite vectors; compiled for baseline x86-64 and, where the CPU has it, for AVX2 without FMA
 * (as the library's variants are). */
#include "rk_test.h"

#include "../../core/src/quat_lanes.h"

#include <string.h>

#define N 64 /* values per kind (a multiple of 4) */

typedef struct inputs {
  rk_quat qa[N], qb[N];
  rk_vec3 va[N], vb[N];
} inputs;

typedef struct outputs {
  rk_quat mul[N], norm[N], from_to[N];
  rk_vec3 rot[N], vnorm[N], cross[N];
  double dot[N];
  bool opposite[N];
} outputs;

static double pick(GRand *r) {
  switch (g_rand_int_range(r, 0, 12)) {
  case 0:
    return 0.0;
  case 1:
    return -0.0;
  case 2:
    return NAN;
  case 3:
    return g_rand_boolean(r) ? INFINITY : -INFINITY;
  case 4:
    return g_rand_double_range(r, -1e-160, 1e-160);
  default:
    return g_rand_double_range(r, -2, 2);
  }
}

static void make_inputs(inputs *in, unsigned seed) {
  GRand *r = g_rand_new_with_seed(seed);
  for (int i = 0; i < N; i++) {
    const bool odd = i % 5 == 0; /* now and then a value of the odd kinds above */
    double v[14];
    for (int k = 0; k < 14; k++)
      v[k] = odd ? pick(r) : g_rand_double_range(r, -2, 2);
    in->qa[i] = rk_quat_make(v[0], v[1], v[2], v[3]);
    in->qb[i] = rk_quat_make(v[4], v[5], v[6], v[7]);
    in->va[i] = rk_vec3_make(v[8], v[9], v[10]);
    in->vb[i] = rk_vec3_make(v[11], v[12], v[13]);
    if (i % 7 == 3) /* opposite and nearly opposite directions */
      in->vb[i] = rk_vec3_scale(in->va[i], i % 2 ? -3.0 : -1.0 - 1e-15);
    if (i % 11 == 4)
      in->qa[i] = rk_quat_normalize(in->qa[i]);
  }
  g_rand_free(r);
}

static void scalar(const inputs *in, outputs *o) {
  for (int i = 0; i < N; i++) {
    o->mul[i] = rk_quat_mul(in->qa[i], in->qb[i]);
    o->norm[i] = rk_quat_normalize(in->qa[i]);
    o->rot[i] = rk_quat_rotate(in->qa[i], in->va[i]);
    o->vnorm[i] = rk_vec3_normalize(in->va[i]);
    o->cross[i] = rk_vec3_cross(in->va[i], in->vb[i]);
    o->dot[i] = rk_vec3_dot(in->va[i], in->vb[i]);
    const double d = rk_vec3_dot(rk_vec3_normalize(in->va[i]), rk_vec3_normalize(in->vb[i]));
    o->opposite[i] = d < -1.0 + 1e-12;
    o->from_to[i] = o->opposite[i] ? rk_quat_identity() : rk_quat_from_to(in->va[i], in->vb[i]);
  }
}

static void put_q(const rk__q4 *v, rk_quat *q, int i) {
  const int at[4] = {i, i + 1, i + 2, i + 3};
  rk__q4_scatter(v, q, at, 4);
}

static void put_p(const rk__p4 *v, rk_vec3 *p, int i) {
  for (int l = 0; l < 4; l++)
    p[i + l] = rk_vec3_make(v->x[l], v->y[l], v->z[l]);
}

/* The same through the lanes (a macro: one body for both compilations below). */
#define LANES_BODY                                                                                \
  for (int i = 0; i < N; i += 4) {                                                                \
    const int at[4] = {i, i + 1, i + 2, i + 3};                                                   \
    rk__q4 a, b, q;                                                                               \
    rk__p4 u, v, p;                                                                               \
    rk__q4_gather(&a, in->qa, at);                                                                \
    rk__q4_gather(&b, in->qb, at);                                                                \
    rk__p4_gather(&u, in->va, at);                                                                \
    rk__p4_gather(&v, in->vb, at);                                                                \
    rk__q4_mul(&q, &a, &b);                                                                       \
    put_q(&q, o->mul, i);                                                                         \
    rk__q4_normalize(&q, &a);                                                                     \
    put_q(&q, o->norm, i);                                                                        \
    rk__q4_rotate(&p, &a, &u);                                                                    \
    put_p(&p, o->rot, i);                                                                         \
    rk__p4_normalize(&p, &u);                                                                     \
    put_p(&p, o->vnorm, i);                                                                       \
    rk__p4_cross(&p, &u, &v);                                                                     \
    put_p(&p, o->cross, i);                                                                       \
    rk__v4d d;                                                                                    \
    rk__p4_dot(&d, &u, &v);                                                                       \
    memcpy(o->dot + i, &d, sizeof d);                                                             \
    rk__v4i opp;                                                                                  \
    rk__q4_from_to(&q, &u, &v, &opp);                                                             \
    put_q(&q, o->from_to, i);                                                                     \
    for (int l = 0; l < 4; l++) {                                                                 \
      o->opposite[i + l] = opp[l] != 0;                                                           \
      if (opp[l])                                                                                 \
        o->from_to[i + l] = rk_quat_identity();                                                   \
    }                                                                                             \
  }

static void lanes_base(const inputs *in, outputs *o) {
  LANES_BODY
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) static void lanes_avx2(const inputs *in, outputs *o) {
  LANES_BODY
}
#endif

/* The same bits in each of n doubles, or NaN in both (a NaN's sign and payload follow operand
 * order, which the compiler may swap in commutative operations; no output of the library keeps a
 * NaN). */
static bool same(const void *a, const void *b, size_t n) {
  const double *x = a, *y = b;
  for (size_t k = 0; k < n; k++)
    if (memcmp(&x[k], &y[k], sizeof(double)) != 0 && !(isnan(x[k]) && isnan(y[k])))
      return false;
  return true;
}

static void check(const outputs *want, const outputs *got, const char *variant) {
  for (int i = 0; i < N; i++) {
    cr_assert(same(&want->mul[i], &got->mul[i], 4), "%s mul %d", variant, i);
    cr_assert(same(&want->norm[i], &got->norm[i], 4), "%s normalize %d", variant, i);
    cr_assert(same(&want->rot[i], &got->rot[i], 3), "%s rotate %d", variant, i);
    cr_assert(same(&want->vnorm[i], &got->vnorm[i], 3), "%s vec normalize %d", variant, i);
    cr_assert(same(&want->cross[i], &got->cross[i], 3), "%s cross %d", variant, i);
    cr_assert(same(&want->dot[i], &got->dot[i], 1), "%s dot %d", variant, i);
    cr_assert_eq(want->opposite[i], got->opposite[i], "%s opposite %d", variant, i);
    cr_assert(same(&want->from_to[i], &got->from_to[i], 4), "%s from_to %d", variant, i);
  }
}

Test(quat_lanes, every_lane_gives_the_scalar_bits) {
  for (unsigned seed = 1; seed <= 20; seed++) {
    inputs in;
    outputs want, got;
    make_inputs(&in, seed);
    scalar(&in, &want);
    memset(&got, 0, sizeof got);
    lanes_base(&in, &got);
    check(&want, &got, "baseline");
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("avx2")) {
      memset(&got, 0, sizeof got);
      lanes_avx2(&in, &got);
      check(&want, &got, "avx2");
    }
#endif
  }
}
