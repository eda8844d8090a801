/* Two frames of a written node's key the matrix way at once (see node_pair.h).
 *
 * A node whose correction b is not an even scale (a document's float matrices: scales of
 * 0.9999995 to 1.0000006, uneven) takes its key as the decomposition of left (x b), which the
 * TRS products would not give to the bit. The two frames go through the same steps in the two
 * lanes of SSE2 registers: every product, sum, square root and quotient is the scalar path's
 * (rk_transform_to_mat4_to, rk_mat4_mul_affine_to twice, rk_transform_from_mat4 with
 * rk_quat_from_mat3), in the same order, so each lane rounds as one frame alone does (this file is
 * compiled for the baseline: no FMA contraction). Where the scalar path branches (which of w, x, y,
 * z Shepperd's method divides by), each lane picks its branch's operands before the one square
 * root and the divisions; a lane the scalar path would refuse (a zero column, a value that is
 * not finite) is reported, not stored. */
#include "node_pair.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

bool rk__node_mat_key(const rk_transform *x, const rk_mat4 *b, const rk_mat4 *left,
                      rk_transform *out) {
  rk_mat4 l, lb, local;
  rk_transform_to_mat4_to(x, &l);
  rk_mat4_mul_affine_to(&l, b, &lb);
  rk_mat4_mul_affine_to(left, &lb, &local);
  return rk_transform_from_mat4(&local, out) && rk_transform_is_finite(out);
}

#if defined(__SSE2__)

typedef __m128d lanes;

/* mask ? a : b, lane by lane (mask all ones or all zeros). */
static inline lanes pick(lanes mask, lanes a, lanes b) {
  return _mm_or_pd(_mm_and_pd(mask, a), _mm_andnot_pd(mask, b));
}

/* All ones where v is finite (v - v is 0 only then). */
static inline lanes all_finite(lanes v) {
  return _mm_cmpeq_pd(_mm_sub_pd(v, v), _mm_setzero_pd());
}

/* The columns (3 rows each) of an affine matrix in lanes: m[3 c + r], c = 3 the translation. */
typedef struct lane_mat {
  lanes m[12];
} lane_mat;

/* a (one matrix for both lanes) times the lanes' affine matrices b, as rk_mat4_mul_affine_to:
 * ((a0 b0c + a1 b1c) + a2 b2c), plus a3 in the translation column. */
static void left_mul(const rk_mat4 *a, const lane_mat *b, lane_mat *out) {
  const double *A = a->m;
  for (int c = 0; c < 4; c++)
    for (int r = 0; r < 3; r++) {
      lanes v = _mm_add_pd(_mm_add_pd(_mm_mul_pd(_mm_set1_pd(A[r]), b->m[3 * c]),
                                      _mm_mul_pd(_mm_set1_pd(A[4 + r]), b->m[3 * c + 1])),
                           _mm_mul_pd(_mm_set1_pd(A[8 + r]), b->m[3 * c + 2]));
      out->m[3 * c + r] = c == 3 ? _mm_add_pd(v, _mm_set1_pd(A[12 + r])) : v;
    }
}

/* The lanes' affine matrices a times b (one matrix for both lanes), as rk_mat4_mul_affine_to. */
static void right_mul(const lane_mat *a, const rk_mat4 *b, lane_mat *out) {
  for (int c = 0; c < 4; c++) {
    const lanes b0 = _mm_set1_pd(b->m[4 * c]), b1 = _mm_set1_pd(b->m[4 * c + 1]),
                b2 = _mm_set1_pd(b->m[4 * c + 2]);
    for (int r = 0; r < 3; r++) {
      lanes v = _mm_add_pd(_mm_add_pd(_mm_mul_pd(a->m[r], b0), _mm_mul_pd(a->m[3 + r], b1)),
                           _mm_mul_pd(a->m[6 + r], b2));
      out->m[3 * c + r] = c == 3 ? _mm_add_pd(v, a->m[9 + r]) : v;
    }
  }
}

/* T R S of the two transforms, as rk_transform_to_mat4_to. */
static void to_lane_mat(const rk_transform *const x[2], lane_mat *out) {
#define L(f) _mm_setr_pd(x[0]->f, x[1]->f)
  const lanes qx = L(r.x), qy = L(r.y), qz = L(r.z), qw = L(r.w), sx = L(s.x), sy = L(s.y),
              sz = L(s.z);
  out->m[9] = L(t.x), out->m[10] = L(t.y), out->m[11] = L(t.z);
#undef L
  const lanes one = _mm_set1_pd(1.0), two = _mm_set1_pd(2.0);
  const lanes xx = _mm_mul_pd(qx, qx), yy = _mm_mul_pd(qy, qy), zz = _mm_mul_pd(qz, qz);
  const lanes xy = _mm_mul_pd(qx, qy), xz = _mm_mul_pd(qx, qz), yz = _mm_mul_pd(qy, qz);
  const lanes wx = _mm_mul_pd(qw, qx), wy = _mm_mul_pd(qw, qy), wz = _mm_mul_pd(qw, qz);
  /* (1 - 2 (a + b)) s and (2 (a +- b)) s */
#define DIAG(a, b, s) _mm_mul_pd(_mm_sub_pd(one, _mm_mul_pd(two, _mm_add_pd(a, b))), s)
#define SUM(a, b, s) _mm_mul_pd(_mm_mul_pd(two, _mm_add_pd(a, b)), s)
#define DIFF(a, b, s) _mm_mul_pd(_mm_mul_pd(two, _mm_sub_pd(a, b)), s)
  out->m[0] = DIAG(yy, zz, sx), out->m[1] = SUM(xy, wz, sx), out->m[2] = DIFF(xz, wy, sx);
  out->m[3] = DIFF(xy, wz, sy), out->m[4] = DIAG(xx, zz, sy), out->m[5] = SUM(yz, wx, sy);
  out->m[6] = SUM(xz, wy, sz), out->m[7] = DIFF(yz, wx, sz), out->m[8] = DIAG(xx, yy, sz);
#undef DIAG
#undef SUM
#undef DIFF
}

/* |c| of column c, as rk_vec3_norm. */
static inline lanes column_norm(const lane_mat *a, int c) {
  const lanes x = a->m[3 * c], y = a->m[3 * c + 1], z = a->m[3 * c + 2];
  return _mm_sqrt_pd(_mm_add_pd(_mm_add_pd(_mm_mul_pd(x, x), _mm_mul_pd(y, y)), _mm_mul_pd(z, z)));
}

/* rk_quat_from_mat3 of the rotation r (column-major, r[3 c + row]) into q[4] (x, y, z, w). */
static void lane_quat(const lanes r[9], lanes q[4]) {
#define R(row, col) r[3 * (col) + (row)]
  const lanes m00 = R(0, 0), m11 = R(1, 1), m22 = R(2, 2), one = _mm_set1_pd(1.0);
  const lanes tr = _mm_add_pd(_mm_add_pd(m00, m11), m22);
  const lanes b0 = _mm_and_pd(_mm_and_pd(_mm_cmpge_pd(tr, m00), _mm_cmpge_pd(tr, m11)),
                              _mm_cmpge_pd(tr, m22));
  const lanes b1 = _mm_andnot_pd(b0, _mm_and_pd(_mm_cmpge_pd(m00, m11), _mm_cmpge_pd(m00, m22)));
  const lanes b2 = _mm_andnot_pd(_mm_or_pd(b0, b1), _mm_cmpge_pd(m11, m22));
  /* Each branch's square root operand, then its s = 2 sqrt(.). */
  const lanes arg = pick(b0, _mm_add_pd(one, tr),
                         pick(b1, _mm_sub_pd(_mm_sub_pd(_mm_add_pd(one, m00), m11), m22),
                              pick(b2, _mm_sub_pd(_mm_sub_pd(_mm_add_pd(one, m11), m00), m22),
                                   _mm_sub_pd(_mm_sub_pd(_mm_add_pd(one, m22), m00), m11))));
  const lanes s = _mm_mul_pd(_mm_set1_pd(2.0), _mm_sqrt_pd(arg));
  const lanes quarter = _mm_mul_pd(_mm_set1_pd(0.25), s);
  const lanes d21 = _mm_sub_pd(R(2, 1), R(1, 2)), d02 = _mm_sub_pd(R(0, 2), R(2, 0)),
              d10 = _mm_sub_pd(R(1, 0), R(0, 1)), s01 = _mm_add_pd(R(0, 1), R(1, 0)),
              s02 = _mm_add_pd(R(0, 2), R(2, 0)), s12 = _mm_add_pd(R(1, 2), R(2, 1));
#undef R
  /* Per component: the branch that puts 0.25 s there, else its numerator over s. */
  const lanes b3 = _mm_andnot_pd(_mm_or_pd(_mm_or_pd(b0, b1), b2), _mm_castsi128_pd(_mm_set1_epi32(-1)));
  const lanes nx = pick(b0, d21, pick(b2, s01, s02)), ny = pick(b0, d02, pick(b1, s01, s12)),
              nz = pick(b0, d10, pick(b1, s02, s12)), nw = pick(b1, d21, pick(b2, d02, d10));
  q[0] = pick(b1, quarter, _mm_div_pd(nx, s));
  q[1] = pick(b2, quarter, _mm_div_pd(ny, s));
  q[2] = pick(b3, quarter, _mm_div_pd(nz, s));
  q[3] = pick(b0, quarter, _mm_div_pd(nw, s));
  /* rk_quat_normalize, then w made non-negative. */
  const lanes n = _mm_sqrt_pd(_mm_add_pd(
      _mm_add_pd(_mm_add_pd(_mm_mul_pd(q[0], q[0]), _mm_mul_pd(q[1], q[1])), _mm_mul_pd(q[2], q[2])),
      _mm_mul_pd(q[3], q[3])));
  const lanes usable = _mm_and_pd(_mm_cmpgt_pd(n, _mm_setzero_pd()), all_finite(n));
  const lanes inv = _mm_div_pd(one, n);
  for (int k = 0; k < 4; k++)
    q[k] = pick(usable, _mm_mul_pd(q[k], inv), _mm_set1_pd(k == 3 ? 1.0 : 0.0));
  const lanes flip = _mm_and_pd(_mm_cmplt_pd(q[3], _mm_setzero_pd()), _mm_set1_pd(-0.0));
  for (int k = 0; k < 4; k++)
    q[k] = _mm_xor_pd(q[k], flip);
}

void rk__node_mat_pair(const rk_transform *const x[2], const rk_mat4 *b, const rk_mat4 *left,
                       rk_transform out[2], bool ok[2]) {
  lane_mat l, lb, m;
  to_lane_mat(x, &l);
  right_mul(&l, b, &lb);
  left_mul(left, &lb, &m);
  /* rk_transform_from_mat4: the columns' norms are the scales (the first negated when the
   * columns turn left-handed), the columns over them the rotation. */
  lanes sx = column_norm(&m, 0);
  const lanes sy = column_norm(&m, 1), sz = column_norm(&m, 2), zero = _mm_setzero_pd();
  lanes good = _mm_and_pd(_mm_and_pd(_mm_cmpgt_pd(sx, zero), _mm_cmpgt_pd(sy, zero)),
                          _mm_and_pd(_mm_cmpgt_pd(sz, zero),
                                     all_finite(_mm_add_pd(_mm_add_pd(sx, sy), sz))));
  const lanes *c0 = m.m, *c1 = m.m + 3, *c2 = m.m + 6;
  const lanes kx = _mm_sub_pd(_mm_mul_pd(c0[1], c1[2]), _mm_mul_pd(c0[2], c1[1])),
              ky = _mm_sub_pd(_mm_mul_pd(c0[2], c1[0]), _mm_mul_pd(c0[0], c1[2])),
              kz = _mm_sub_pd(_mm_mul_pd(c0[0], c1[1]), _mm_mul_pd(c0[1], c1[0]));
  const lanes det =
      _mm_add_pd(_mm_add_pd(_mm_mul_pd(kx, c2[0]), _mm_mul_pd(ky, c2[1])), _mm_mul_pd(kz, c2[2]));
  sx = _mm_xor_pd(sx, _mm_and_pd(_mm_cmplt_pd(det, zero), _mm_set1_pd(-0.0)));
  lanes r[9], q[4];
  for (int k = 0; k < 3; k++) {
    r[k] = _mm_div_pd(c0[k], sx);
    r[3 + k] = _mm_div_pd(c1[k], sy);
    r[6 + k] = _mm_div_pd(c2[k], sz);
  }
  lane_quat(r, q);
  const lanes v[10] = {m.m[9], m.m[10], m.m[11], q[0], q[1], q[2], q[3], sx, sy, sz};
  for (int k = 0; k < 10; k++)
    good = _mm_and_pd(good, all_finite(v[k]));
  double lo[10], hi[10];
  for (int k = 0; k < 10; k++) {
    _mm_storel_pd(&lo[k], v[k]);
    _mm_storeh_pd(&hi[k], v[k]);
  }
  const double *val[2] = {lo, hi};
  for (int i = 0; i < 2; i++)
    out[i] = (rk_transform){{val[i][0], val[i][1], val[i][2]},
                            {val[i][3], val[i][4], val[i][5], val[i][6]},
                            {val[i][7], val[i][8], val[i][9]}};
  const int mask = _mm_movemask_pd(good);
  ok[0] = mask & 1;
  ok[1] = (mask >> 1) & 1;
}

#else

void rk__node_mat_pair(const rk_transform *const x[2], const rk_mat4 *b, const rk_mat4 *left,
                       rk_transform out[2], bool ok[2]) {
  for (int i = 0; i < 2; i++)
    ok[i] = rk__node_mat_key(x[i], b, left, &out[i]);
}

#endif
