/* Euler angles in the 12 orders (convention in rigkit/euler.h: R = R_A(a) R_B(b) R_C(c)). */
#include <rigkit/euler.h>

#include "sincos_lanes.h"

#include <glib.h>

static const char *const order_names[RK_EULER_N_ORDERS] = {
    "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX", "XYX", "XZX", "YXY", "YZY", "ZXZ", "ZYZ"};

const char *rk_euler_order_name(rk_euler_order order) {
  return (unsigned)order < RK_EULER_N_ORDERS ? order_names[order] : "?";
}

bool rk_euler_order_parse(const char *text, rk_euler_order *order) {
  if (!text)
    return false;
  for (int i = 0; i < RK_EULER_N_ORDERS; i++)
    if (g_ascii_strcasecmp(text, order_names[i]) == 0) {
      *order = (rk_euler_order)i;
      return true;
    }
  return false;
}

void rk_euler_order_axes(rk_euler_order order, int axes[3]) {
  const char *n = rk_euler_order_name(order);
  for (int i = 0; i < 3; i++)
    axes[i] = n[i] == 'X' ? 0 : n[i] == 'Y' ? 1 : 2;
}

static rk_mat3 axis_rotation(int axis, double angle) {
  return axis == 0 ? rk_mat3_rot_x(angle) : axis == 1 ? rk_mat3_rot_y(angle) : rk_mat3_rot_z(angle);
}

rk_mat3 rk_euler_to_mat3(rk_euler_order order, const double angles[3]) {
  int ax[3];
  rk_euler_order_axes(order, ax);
  rk_mat3 a = axis_rotation(ax[0], angles[0]), b = axis_rotation(ax[1], angles[1]),
          c = axis_rotation(ax[2], angles[2]);
  rk_mat3 ab = rk_mat3_mul(&a, &b);
  return rk_mat3_mul(&ab, &c);
}

rk_quat rk_euler_to_quat(rk_euler_order order, const double angles[3]) {
  int ax[3];
  rk_euler_order_axes(order, ax);
  rk_quat q = rk_quat_identity();
  for (int n = 0; n < 3; n++) {
    rk_vec3 e = rk_vec3_make(ax[n] == 0, ax[n] == 1, ax[n] == 2);
    q = rk_quat_mul(q, rk_quat_from_axis_angle(e, angles[n]));
  }
  return q;
}

/* R(row, col) */
#define R_(r, c) rk_mat3_at(m, (r), (c))

void rk_euler_from_mat3(rk_euler_order order, const rk_mat3 *m, double angles[3]) {
  int ax[3];
  rk_euler_order_axes(order, ax);
  const int i = ax[0], j = ax[1];
  const int k = 3 - i - j; /* the axis not used by the first two */
  /* +1 when (i, j, k) is a cyclic permutation of (x, y, z): the formulas below are written for
   * the cyclic case and an odd permutation (a mirror relabelling) flips the listed signs. */
  const double par = (j == (i + 1) % 3) ? 1.0 : -1.0;
  const double eps = 1e-12;
  double a, b, c;
  if (ax[2] != i) {
    /* Tait-Bryan R = Ri(a) Rj(b) Rk(c): R[i][k] = par sin b, R[j][k] = -par sin a cos b,
     * R[k][k] = cos a cos b, R[i][j] = -par cos b sin c, R[i][i] = cos b cos c. */
    double cb = hypot(R_(i, i), R_(i, j));
    b = atan2(par * R_(i, k), cb);
    if (cb > eps) {
      a = atan2(-par * R_(j, k), R_(k, k));
      c = atan2(-par * R_(i, j), R_(i, i));
    } else {
      /* Gimbal lock: only a + c (or a - c) is defined; put it all in a. Column j of R is
       * Ri(a) e_j = cos a e_j + par sin a e_k whatever b is. */
      a = atan2(par * R_(k, j), R_(j, j));
      c = 0.0;
    }
  } else {
    /* Proper Euler R = Ri(a) Rj(b) Ri(c): R[i][i] = cos b, R[i][j] = sin b sin c,
     * R[i][k] = par sin b cos c, R[j][i] = sin a sin b, R[k][i] = -par cos a sin b. */
    double sb = hypot(R_(i, j), R_(i, k));
    b = atan2(sb, R_(i, i));
    if (sb > eps) {
      a = atan2(R_(j, i), -par * R_(k, i));
      c = atan2(R_(i, j), par * R_(i, k));
    } else {
      a = atan2(par * R_(k, j), R_(j, j));
      c = 0.0;
    }
  }
  angles[0] = a;
  angles[1] = b;
  angles[2] = c;
}
#undef R_

void rk_euler_from_quat(rk_euler_order order, rk_quat q, double angles[3]) {
  rk_mat3 m = rk_quat_to_mat3(rk_quat_normalize(q));
  rk_euler_from_mat3(order, &m, angles);
}

/* x + 2 pi n nearest to ref. */
static double wrap_near(double x, double ref) {
  return x + 2.0 * RK_PI * nearbyint((ref - x) / (2.0 * RK_PI));
}

void rk_euler_from_quat_near(rk_euler_order order, rk_quat q, const double prev[3],
                             double angles[3]) {
  double p[3];
  rk_euler_from_quat(order, q, p);
  int ax[3];
  rk_euler_order_axes(order, ax);
  /* The other solution of the same rotation: Tait-Bryan (a+pi, pi-b, c+pi), proper (a+pi, -b, c+pi). */
  double alt[3] = {p[0] + RK_PI, ax[2] != ax[0] ? RK_PI - p[1] : -p[1], p[2] + RK_PI};
  double best = INFINITY;
  for (int s = 0; s < 2; s++) {
    const double *cand = s == 0 ? p : alt;
    double w[3], d = 0;
    for (int n = 0; n < 3; n++) {
      w[n] = wrap_near(cand[n], prev[n]);
      d += fabs(w[n] - prev[n]);
    }
    if (d < best) {
      best = d;
      for (int n = 0; n < 3; n++)
        angles[n] = w[n];
    }
  }
}

double rk_euler_rate_matrix(rk_euler_order order, const double angles[3], rk_mat3 *B) {
  int ax[3];
  rk_euler_order_axes(order, ax);
  const rk_mat3 ra = axis_rotation(ax[0], angles[0]), rb = axis_rotation(ax[1], angles[1]);
  const rk_mat3 rab = rk_mat3_mul(&ra, &rb);
  rk_vec3 e[3];
  for (int n = 0; n < 3; n++)
    e[n] = rk_vec3_make(ax[n] == 0, ax[n] == 1, ax[n] == 2);
  e[1] = rk_mat3_mul_vec(&ra, e[1]);
  e[2] = rk_mat3_mul_vec(&rab, e[2]);
  for (int c = 0; c < 3; c++) {
    B->m[c * 3 + 0] = e[c].x;
    B->m[c * 3 + 1] = e[c].y;
    B->m[c * 3 + 2] = e[c].z;
  }
  return rk_vec3_dot(e[0], rk_vec3_cross(e[1], e[2]));
}

/* ---- degrees through rk_sincos, one triple or many ------------------------------------------ */

/* (qx, qy, qz, qw) = (px, py, pz, pw) times the rotation about axis (0 x, 1 y, 2 z) whose half
 * angle has sine s and cosine c, written without the elementary quaternion's zero terms. A macro
 * so that the one-triple path (doubles) and the four-triple path (vectors) share the operations,
 * hence the bits. */
#define MUL_AXIS(axis, px, py, pz, pw, s, c, qx, qy, qz, qw)                                       \
  do {                                                                                             \
    if ((axis) == 0) {                                                                             \
      qx = pw * s + px * c, qy = py * c + pz * s, qz = pz * c - py * s, qw = pw * c - px * s;      \
    } else if ((axis) == 1) {                                                                      \
      qx = px * c - pz * s, qy = pw * s + py * c, qz = px * s + pz * c, qw = pw * c - py * s;      \
    } else {                                                                                       \
      qx = px * c + py * s, qy = py * c - px * s, qz = pw * s + pz * c, qw = pw * c - pz * s;      \
    }                                                                                              \
  } while (0)

rk_quat rk_euler_axes_deg_to_quat(const int *axes, const double *deg, size_t n) {
  /* A zero angle (a third to a half of mocap channels) is the identity: no sine, no product. */
  rk_quat q = rk_quat_identity();
  for (size_t k = 0; k < n; k++) {
    const double h = 0.5 * deg[k] * RK_DEG;
    if (h == 0)
      continue;
    double s, c;
    rk_sincos(h, &s, &c);
    const rk_quat p = q;
    MUL_AXIS(axes[k], p.x, p.y, p.z, p.w, s, c, q.x, q.y, q.z, q.w);
  }
  return q;
}

typedef double v4d __attribute__((vector_size(32)));
typedef unsigned long long v4u __attribute__((vector_size(32)));
typedef long long v4i __attribute__((vector_size(32)));

/* Lanes of a where keep is all ones, else of b (a macro: a function returning a 32-byte vector
 * would change the ABI on the baseline path). */
#define PICK(keep, a, b) ((v4d)(((v4u)(keep) & (v4u)(a)) | (~(v4u)(keep) & (v4u)(b))))

/* Four triples (triple l at deg + l * stride) into out[16): rk_euler_axes_deg_to_quat's
 * operations in each lane, a zero angle's lane keeping its product; lanes whose half angle is
 * beyond the vector sine's range (or NaN) are redone one at a time. */
static void four_triples(const int ax[3], const double *deg, size_t stride, double *out) {
  v4d qx = {0, 0, 0, 0}, qy = qx, qz = qx, qw = {1, 1, 1, 1};
  v4i ok = {-1, -1, -1, -1};
  for (int k = 0; k < 3; k++) {
    const v4d a = {deg[k], deg[stride + k], deg[2 * stride + k], deg[3 * stride + k]};
    const v4d h = 0.5 * a * RK_DEG;
    const v4i zero = h == 0;
    if ((zero[0] & zero[1] & zero[2] & zero[3]) == -1) /* a channel at rest in all four */
      continue;
    v4d s, c, nx, ny, nz, nw;
    RK__SINCOS_LANES(v4d, v4u, v4i, &h, &s, &c, ok);
    MUL_AXIS(ax[k], qx, qy, qz, qw, s, c, nx, ny, nz, nw);
    qx = PICK(zero, qx, nx), qy = PICK(zero, qy, ny), qz = PICK(zero, qz, nz);
    qw = PICK(zero, qw, nw);
  }
  for (int l = 0; l < 4; l++) {
    rk_quat q = {qx[l], qy[l], qz[l], qw[l]};
    if (ok[l] != -1)
      q = rk_euler_axes_deg_to_quat(ax, deg + (size_t)l * stride, 3);
    out[4 * l] = q.x, out[4 * l + 1] = q.y, out[4 * l + 2] = q.z, out[4 * l + 3] = q.w;
  }
}

void rk_euler_deg_to_quats(rk_euler_order order, const double *deg, size_t stride, size_t n,
                           double *xyzw) {
  int ax[3];
  rk_euler_order_axes(order, ax);
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    four_triples(ax, deg + i * stride, stride, xyzw + 4 * i);
  for (; i < n; i++) {
    const rk_quat q = rk_euler_axes_deg_to_quat(ax, deg + i * stride, 3);
    double *o = xyzw + 4 * i;
    o[0] = q.x, o[1] = q.y, o[2] = q.z, o[3] = q.w;
  }
}
