/* Denavit-Hartenberg transforms, chain FK and extraction of DH tables from joint axes. */
#include <rigkit/dh.h>
#include <rigkit/error.h>

#include "columns.h"
#include "cpu.h"

rk_mat4 rk_dh_standard(double a, double alpha, double d, double theta) {
  double ct, st, ca, sa;
  rk_sincos(theta, &st, &ct);
  rk_sincos(alpha, &sa, &ca);
  rk_mat4 m = {{ct, st, 0, 0,                 /* column 0 */
                -st * ca, ct * ca, sa, 0,     /* column 1 */
                st * sa, -ct * sa, ca, 0,     /* column 2 */
                a * ct, a * st, d, 1}};       /* column 3 */
  return m;
}

rk_mat4 rk_dh_modified(double alpha_prev, double a_prev, double d, double theta) {
  double ct, st, ca, sa;
  rk_sincos(theta, &st, &ct);
  rk_sincos(alpha_prev, &sa, &ca);
  rk_mat4 m = {{ct, st * ca, st * sa, 0,      /* column 0 */
                -st, ct * ca, ct * sa, 0,     /* column 1 */
                0, -sa, ca, 0,                /* column 2 */
                a_prev, -sa * d, ca * d, 1}}; /* column 3 */
  return m;
}

rk_mat4 rk_dh_row_transform(rk_dh_convention convention, const rk_dh_row *row, double q) {
  double theta = row->theta, d = row->d;
  if (row->type == RK_DH_REVOLUTE)
    theta += q;
  else
    d += q;
  return convention == RK_DH_STANDARD ? rk_dh_standard(row->a, row->alpha, d, theta)
                                      : rk_dh_modified(row->alpha, row->a, d, theta);
}

/* The frame with columns c[0..3] times row's link transform at q, in place: the DH transform is two
 * turns and two slides, so it is applied as such, not as a 4x4 product. Standard:
 * Rz(theta) Tz(d) Tx(a) Rx(alpha); modified: Rx(alpha) Tx(a) Tz(d) Rz(theta). */
__attribute__((always_inline)) static inline void dh_step(rk_dh_convention convention,
                                                          const rk_dh_row *row, double q,
                                                          rk__v4d *c) {
  double theta = row->theta, d = row->d;
  if (row->type == RK_DH_REVOLUTE)
    theta += q;
  else
    d += q;
  double st, ct, sa, ca;
  rk_sincos(theta, &st, &ct);
  rk_sincos(row->alpha, &sa, &ca);
  if (convention == RK_DH_STANDARD) {
    c[3] += c[2] * d;
    rk__cols_turn(&c[0], &c[1], st, ct);
    c[3] += c[0] * row->a;
    rk__cols_turn(&c[1], &c[2], sa, ca);
  } else {
    c[3] += c[0] * row->a;
    rk__cols_turn(&c[1], &c[2], sa, ca);
    c[3] += c[2] * d;
    rk__cols_turn(&c[0], &c[1], st, ct);
  }
}

/* Chain FK and, when axes is set, the joint axes along the way (cpu.h multiversioned). */
__attribute__((always_inline)) static inline void chain_walk_body(const rk_dh_chain *chain,
                                                                  const double *q, rk_mat4 *frames,
                                                                  rk_dh_axis *axes, rk_mat4 *end) {
  rk__v4d c[4];
  rk__cols_load(chain->base.m, &c[0], &c[1], &c[2], &c[3]);
  if (frames)
    rk__cols_store(frames[0].m, &c[0], &c[1], &c[2], &c[3]);
  const bool standard = chain->convention == RK_DH_STANDARD;
  for (size_t i = 0; i < chain->count; i++) {
    /* Standard: joint i+1 moves about z of frame i (before its own transform); modified: about z
     * of frame i+1 (after it). */
    if (axes && standard) {
      axes[i].point = rk_vec3_make(c[3][0], c[3][1], c[3][2]);
      axes[i].dir = rk_vec3_make(c[2][0], c[2][1], c[2][2]);
    }
    dh_step(chain->convention, &chain->rows[i], q ? q[i] : 0.0, c);
    if (axes && !standard) {
      axes[i].point = rk_vec3_make(c[3][0], c[3][1], c[3][2]);
      axes[i].dir = rk_vec3_make(c[2][0], c[2][1], c[2][2]);
    }
    if (axes)
      axes[i].type = chain->rows[i].type;
    if (frames)
      rk__cols_store(frames[i + 1].m, &c[0], &c[1], &c[2], &c[3]);
  }
  if (end) {
    rk_mat4 cur;
    rk__cols_store(cur.m, &c[0], &c[1], &c[2], &c[3]);
    rk_mat4_mul_affine_to(&cur, &chain->tool, end);
  }
}

RK__MULTIVERSION(void, chain_walk,
                 (const rk_dh_chain *chain, const double *q, rk_mat4 *frames, rk_dh_axis *axes,
                  rk_mat4 *end),
                 (chain, q, frames, axes, end), { chain_walk_body(chain, q, frames, axes, end); })

void rk_dh_chain_fk(const rk_dh_chain *chain, const double *q, rk_mat4 *frames, rk_mat4 *end) {
  chain_walk(chain, q, frames, NULL, end);
}

void rk_dh_chain_axes(const rk_dh_chain *chain, const double *q, rk_dh_axis *axes, rk_mat4 *end) {
  chain_walk(chain, q, NULL, axes, end);
}

rk_line_relation rk_line_common_normal(rk_vec3 p1, rk_vec3 u1, rk_vec3 p2, rk_vec3 u2, double tol,
                                       rk_vec3 *foot1, rk_vec3 *foot2) {
  const double b = rk_vec3_dot(u1, u2);
  const double sin_angle = rk_vec3_norm(rk_vec3_cross(u1, u2));
  const rk_vec3 w = rk_vec3_sub(p1, p2);
  if (sin_angle < tol) {
    *foot1 = p1;
    *foot2 = rk_vec3_add(p2, rk_vec3_scale(u2, rk_vec3_dot(w, u2)));
    return rk_vec3_norm(rk_vec3_sub(*foot2, *foot1)) < tol ? RK_LINES_COINCIDENT
                                                            : RK_LINES_PARALLEL;
  }
  const double d = rk_vec3_dot(u1, w), e = rk_vec3_dot(u2, w), den = 1.0 - b * b;
  const double s = (b * e - d) / den, t = (e - b * d) / den;
  *foot1 = rk_vec3_add(p1, rk_vec3_scale(u1, s));
  *foot2 = rk_vec3_add(p2, rk_vec3_scale(u2, t));
  return rk_vec3_norm(rk_vec3_sub(*foot2, *foot1)) < tol ? RK_LINES_INTERSECTING : RK_LINES_SKEW;
}

/* A frame as origin and axes (x, z; y = z x x). */
typedef struct dh_frame {
  rk_vec3 o, x, z;
} dh_frame;

static rk_mat4 frame_matrix(const dh_frame *f) {
  rk_vec3 y = rk_vec3_cross(f->z, f->x);
  rk_mat4 m = {{f->x.x, f->x.y, f->x.z, 0, y.x, y.y, y.z, 0, f->z.x, f->z.y, f->z.z, 0, f->o.x,
                f->o.y, f->o.z, 1}};
  return m;
}

/* The unit vector along v with its component along the unit vector z removed; fallback when
 * v is (nearly) parallel to z. */
static rk_vec3 perpendicular_part(rk_vec3 v, rk_vec3 z, rk_vec3 fallback) {
  rk_vec3 p = rk_vec3_sub(v, rk_vec3_scale(z, rk_vec3_dot(v, z)));
  double n = rk_vec3_norm(p);
  return n > 1e-9 ? rk_vec3_scale(p, 1.0 / n) : fallback;
}

static double signed_angle(rk_vec3 from, rk_vec3 to, rk_vec3 about) {
  return atan2(rk_vec3_dot(rk_vec3_cross(from, to), about), rk_vec3_dot(from, to));
}

bool rk_dh_extract(rk_dh_convention convention, const rk_dh_axis *axes, size_t n,
                   const rk_mat4 *end_frame, rk_dh_row *rows, rk_mat4 *base, rk_mat4 *tool,
                   GError **error) {
  if (n == 0 || !axes || !end_frame || !rows) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "DH extraction needs at least one joint axis");
    return false;
  }
  double scale = 1.0; /* length scale for the tolerances */
  for (size_t i = 0; i < n; i++) {
    if (!rk_vec3_is_finite(axes[i].point) || !rk_vec3_is_finite(axes[i].dir) ||
        rk_vec3_norm(axes[i].dir) < 1e-12) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "joint axis %zu is zero or not finite", i + 1);
      return false;
    }
    scale = fmax(scale, rk_vec3_norm(axes[i].point));
  }
  rk_mat3 fr = rk_mat4_get_rotation(end_frame);
  if (!rk_mat4_is_finite(end_frame) || !rk_mat3_is_rotation(&fr, 1e-6)) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "the end frame is not a rigid transform");
    return false;
  }
  const double tol = 1e-9 * scale;
  const rk_vec3 fo = rk_mat4_get_translation(end_frame), fx = rk_mat4_column(end_frame, 0),
                fz = rk_mat4_column(end_frame, 2);

  /* Frame 0: on axis 1, nearest the world origin, x from the world x. */
  dh_frame prev;
  prev.z = rk_vec3_normalize(axes[0].dir);
  prev.o = rk_vec3_sub(axes[0].point, rk_vec3_scale(prev.z, rk_vec3_dot(axes[0].point, prev.z)));
  prev.x = perpendicular_part(rk_vec3_make(1, 0, 0), prev.z,
                              perpendicular_part(rk_vec3_make(0, 1, 0), prev.z, rk_vec3_make(0, 0, 1)));
  if (base)
    *base = frame_matrix(&prev);

  for (size_t i = 1; i <= n; i++) {
    const bool last = i == n;
    /* Line of the next z axis: joint i+1's axis, or the tool's z for the last frame. */
    const rk_vec3 p = last ? fo : axes[i].point;
    dh_frame cur = prev; /* every branch below sets o, x and z */
    cur.z = last ? fz : rk_vec3_normalize(axes[i].dir);
    rk_vec3 f1, f2;
    rk_line_relation rel = rk_line_common_normal(prev.o, prev.z, p, cur.z, tol, &f1, &f2);
    switch (rel) {
    case RK_LINES_SKEW: /* x along the common normal, from axis i to axis i+1: a_i > 0 */
      cur.x = rk_vec3_normalize(rk_vec3_sub(f2, f1));
      cur.o = f2;
      break;
    case RK_LINES_INTERSECTING: { /* x = +-(z_{i-1} x z_i); the sign nearest the hint, and
                                    where the hint is square to both (a ball joint's orthogonal
                                    axes) z_{i-1} x z_i itself (alpha > 0): a tie must not be
                                    decided by round-off */
      cur.x = rk_vec3_normalize(rk_vec3_cross(prev.z, cur.z));
      rk_vec3 hint = last ? fx : prev.x;
      if (rk_vec3_dot(cur.x, hint) < -1e-9)
        cur.x = rk_vec3_scale(cur.x, -1.0);
      cur.o = f2;
      break;
    }
    case RK_LINES_PARALLEL: /* the normal through o_{i-1}: d_i = 0, a_i > 0 */
      cur.x = rk_vec3_normalize(rk_vec3_sub(f2, f1));
      cur.o = f2;
      break;
    case RK_LINES_COINCIDENT: /* same line (z may be reversed: alpha = pi): keep x, or follow
                              the tool's x for the last frame */
      cur.x = last ? perpendicular_part(fx, cur.z, prev.x) : prev.x;
      cur.o = last ? p : prev.o;
      break;
    }
    /* Make x exactly perpendicular to both z's (removes round-off). */
    cur.x = perpendicular_part(cur.x, prev.z, cur.x);
    const rk_vec3 step = rk_vec3_sub(cur.o, prev.o);
    rk_dh_row *r = &rows[i - 1];
    r->type = axes[i - 1].type;
    r->theta = signed_angle(prev.x, cur.x, prev.z);
    r->d = rk_vec3_dot(step, prev.z);
    r->a = rk_vec3_dot(step, cur.x);
    r->alpha = signed_angle(prev.z, cur.z, cur.x);
    /* Continue from the frame the row itself produces, so round-off does not accumulate. */
    rk_mat4 pm = frame_matrix(&prev), a = rk_dh_standard(r->a, r->alpha, r->d, r->theta), next;
    rk_mat4_mul_affine_to(&pm, &a, &next);
    prev.o = rk_mat4_get_translation(&next);
    prev.x = rk_mat4_column(&next, 0);
    prev.z = rk_mat4_column(&next, 2);
  }
  rk_mat4 last_frame = frame_matrix(&prev), inv = rk_mat4_inverse_rigid(&last_frame);
  rk_mat4 t = rk_mat4_mul_affine(&inv, end_frame);
  if (convention == RK_DH_MODIFIED) {
    /* Convert in place through a copy of the standard rows. */
    rk_dh_row *std_rows = g_new(rk_dh_row, n);
    for (size_t i = 0; i < n; i++)
      std_rows[i] = rows[i];
    rk_dh_standard_to_modified(std_rows, n, &t, rows, &t);
    g_free(std_rows);
  }
  if (tool)
    *tool = t;
  return true;
}

void rk_dh_standard_to_modified(const rk_dh_row *rows, size_t n, const rk_mat4 *tool,
                                rk_dh_row *out, rk_mat4 *out_tool) {
  /* Rz, Tz commute and Tx, Rx commute, so the standard product regroups as
   * [Tz(d1) Rz(t1)] [Rx(al1) Tx(a1)] [Tz(d2) Rz(t2)] ... [Rx(al_n) Tx(a_n)]: the modified rows
   * with (a, alpha) shifted by one and the last (a, alpha) in front of the tool. */
  const double a_last = rows[n - 1].a, alpha_last = rows[n - 1].alpha;
  rk_mat4 tail = rk_dh_modified(alpha_last, a_last, 0, 0);
  rk_mat4 new_tool = rk_mat4_mul_affine(&tail, tool);
  for (size_t i = n; i-- > 0;) {
    rk_dh_row r = rows[i];
    r.a = i > 0 ? rows[i - 1].a : 0.0;
    r.alpha = i > 0 ? rows[i - 1].alpha : 0.0;
    out[i] = r;
  }
  *out_tool = new_tool;
}
