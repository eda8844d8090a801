/* Loop closures: residuals, exact Jacobians, rank, effective DOF and a closure solver. */
#include "tree_internal.h"

#include "math_internal.h"

#include <rigkit/error.h>
#include <rigkit/linalg.h>
#include <rigkit/loop.h>

#include <string.h>

size_t rk_loop_rows(const rk_loop *loop) { return loop->kind == RK_LOOP_RIGID ? 6 : 3; }

size_t rk_loops_rows(const rk_loop *loops, size_t n) {
  size_t r = 0;
  for (size_t i = 0; i < n; i++)
    r += rk_loop_rows(&loops[i]);
  return r;
}

static bool frame_ok(const rk_mat4 *m) {
  rk_mat3 r = rk_mat4_get_rotation(m);
  return rk_mat4_is_finite(m) && rk_mat3_is_rotation(&r, 1e-6);
}

bool rk_loop_validate(const rk_tree *tree, const rk_loop *loop, GError **error) {
  const int n = (int)tree->n;
  const char *an =
      loop->link_a >= 0 && loop->link_a < n ? rk_tree_link_name(tree, (size_t)loop->link_a) : "?";
  const char *bn = loop->link_b == -1 ? "world"
                   : loop->link_b >= 0 && loop->link_b < n
                       ? rk_tree_link_name(tree, (size_t)loop->link_b)
                       : "?";
  if (loop->link_a < 0 || loop->link_a >= n || loop->link_b < -1 || loop->link_b >= n) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "loop %d ('%s') -> %d ('%s'): link out of range",
                loop->link_a, an, loop->link_b, bn);
    return false;
  }
  if (loop->link_a == loop->link_b) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "loop '%s' -> '%s': both ends on one link", an,
                bn);
    return false;
  }
  if (loop->kind != RK_LOOP_POSITION && loop->kind != RK_LOOP_RIGID) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "loop '%s' -> '%s': unknown kind", an, bn);
    return false;
  }
  if (!frame_ok(&loop->frame_a) || !frame_ok(&loop->frame_b)) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "loop '%s' -> '%s': a frame is not rigid or not finite", an, bn);
    return false;
  }
  return true;
}

rk_loop rk_loop_closing(const rk_tree *tree, rk_loop_kind kind, const double *q, int link_a,
                        rk_vec3 point_a, int link_b) {
  rk_loop l;
  l.kind = kind;
  l.link_a = link_a;
  l.link_b = link_b;
  l.frame_a = rk_mat4_translation(point_a);
  rk_mat4 b_from_a, fb;
  rk_tree_transform_between(tree, q, link_b, link_a, &b_from_a);
  rk_mat4_mul_affine_to(&b_from_a, &l.frame_a, &fb);
  l.frame_b = rk__mat4_rigid_part(&fb);
  return l;
}

/* World poses of both loop frames (rigid parts). */
static void loop_frames(const rk_loop *loop, const rk_mat4 *models, rk_mat4 *wa, rk_mat4 *wb) {
  rk_mat4 t;
  rk_mat4_mul_affine_to(&models[loop->link_a], &loop->frame_a, &t);
  *wa = rk__mat4_rigid_part(&t);
  if (loop->link_b >= 0) {
    rk_mat4_mul_affine_to(&models[loop->link_b], &loop->frame_b, &t);
    *wb = rk__mat4_rigid_part(&t);
  } else {
    *wb = loop->frame_b;
  }
}

static rk_vec3 rotation_error(const rk_mat4 *wa, const rk_mat4 *wb) {
  rk_mat3 ra = rk_mat4_get_rotation(wa), rb = rk_mat4_get_rotation(wb);
  rk_mat3 rbt = rk_mat3_transpose(&rb), e = rk_mat3_mul(&ra, &rbt);
  return rk_quat_to_rotvec(rk_quat_from_mat3(&e));
}

void rk_loop_residual(const rk_tree *tree, const rk_loop *loop, const rk_mat4 *models,
                      double *out) {
  (void)tree;
  rk_mat4 wa, wb;
  loop_frames(loop, models, &wa, &wb);
  rk_vec3 dp = rk_vec3_sub(rk_mat4_get_translation(&wa), rk_mat4_get_translation(&wb));
  out[0] = dp.x, out[1] = dp.y, out[2] = dp.z;
  if (loop->kind == RK_LOOP_RIGID) {
    rk_vec3 e = rotation_error(&wa, &wb);
    out[3] = e.x, out[4] = e.y, out[5] = e.z;
  }
}

/* Inverse left Jacobian of SO(3) at the rotation vector phi: maps the spatial angular velocity of
 * R = exp(phi) to d(phi)/dt. */
static rk_mat3 so3_left_jacobian_inverse(rk_vec3 phi) {
  const double th = rk_vec3_norm(phi);
  double c2;
  if (th < 1e-4)
    c2 = 1.0 / 12.0 + th * th / 720.0;
  else
    c2 = 1.0 / (th * th) - (1.0 + cos(th)) / (2.0 * th * sin(th));
  /* K = [phi]x; J^-1 = I - K/2 + c2 K^2 (column-major). */
  const double K[9] = {0, phi.z, -phi.y, -phi.z, 0, phi.x, phi.y, -phi.x, 0};
  rk_mat3 out;
  for (int c = 0; c < 3; c++)
    for (int r = 0; r < 3; r++) {
      double k2 = 0.0;
      for (int i = 0; i < 3; i++)
        k2 += K[i * 3 + r] * K[c * 3 + i];
      out.m[c * 3 + r] = (r == c ? 1.0 : 0.0) - 0.5 * K[c * 3 + r] + c2 * k2;
    }
  return out;
}

void rk_loop_jacobian(const rk_tree *tree, const rk_loop *loop, const rk_mat4 *models,
                      const rk_dof_axis *axes, double *J, size_t ld) {
  const size_t rows = rk_loop_rows(loop);
  rk_mat4 wa, wb;
  loop_frames(loop, models, &wa, &wb);
  const rk_vec3 pa = rk_mat4_get_translation(&wa), pb = rk_mat4_get_translation(&wb);
  rk_mat3 jinv = rk_mat3_identity(), rab = rk_mat3_identity();
  if (rows == 6) {
    jinv = so3_left_jacobian_inverse(rotation_error(&wa, &wb));
    rk_mat3 ra = rk_mat4_get_rotation(&wa), rb = rk_mat4_get_rotation(&wb);
    rk_mat3 rbt = rk_mat3_transpose(&rb);
    rab = rk_mat3_mul(&ra, &rbt); /* R = R_a R_b^T: d/dt R = [w_a - R w_b] R */
  }
  for (size_t k = 0; k < tree->ndof; k++) {
    double *col = J + k * ld;
    for (size_t r = 0; r < rows; r++)
      col[r] = 0.0;
    const bool ma = rk_tree_dof_moves_link(tree, k, (size_t)loop->link_a);
    const bool mb = loop->link_b >= 0 && rk_tree_dof_moves_link(tree, k, (size_t)loop->link_b);
    if (!ma && !mb)
      continue;
    const rk_dof_axis *a = &axes[k];
    rk_vec3 lin = rk_vec3_make(0, 0, 0), wa_k = lin, wb_k = lin;
    if (tree->dofs[k].kind == RK_DOF_ROTATION) {
      if (ma) {
        lin = rk_vec3_add(lin, rk_vec3_cross(a->axis, rk_vec3_sub(pa, a->origin)));
        wa_k = a->axis;
      }
      if (mb) {
        lin = rk_vec3_sub(lin, rk_vec3_cross(a->axis, rk_vec3_sub(pb, a->origin)));
        wb_k = a->axis;
      }
    } else {
      if (ma)
        lin = rk_vec3_add(lin, a->axis);
      if (mb)
        lin = rk_vec3_sub(lin, a->axis);
    }
    col[0] = lin.x, col[1] = lin.y, col[2] = lin.z;
    if (rows == 6) {
      rk_vec3 w = rk_vec3_sub(wa_k, rk_mat3_mul_vec(&rab, wb_k));
      rk_vec3 e = rk_mat3_mul_vec(&jinv, w);
      col[3] = e.x, col[4] = e.y, col[5] = e.z;
    }
  }
}

void rk_loops_residual(const rk_tree *tree, const rk_loop *loops, size_t n, const rk_mat4 *models,
                       double *out) {
  for (size_t i = 0; i < n; i++) {
    rk_loop_residual(tree, &loops[i], models, out);
    out += rk_loop_rows(&loops[i]);
  }
}

void rk_loops_jacobian(const rk_tree *tree, const rk_loop *loops, size_t n, const rk_mat4 *models,
                       const rk_dof_axis *axes, double *J, size_t ld) {
  size_t r = 0;
  for (size_t i = 0; i < n; i++) {
    rk_loop_jacobian(tree, &loops[i], models, axes, J + r, ld);
    r += rk_loop_rows(&loops[i]);
  }
}

/* ---- workspace, rank, solve ------------------------------------------------------------------ */

struct rk_loop_ws {
  const rk_tree *tree;
  size_t max_rows, ndof;
  rk_mat4 *models;
  rk_dof_axis *axes;
  double *J, *F, *F_try, *dq, *q_try, *q_closed, *work;
};

rk_loop_ws *rk_loop_ws_new(const rk_tree *tree, size_t max_rows) {
  rk_loop_ws *ws = g_new0(rk_loop_ws, 1);
  const size_t nd = tree->ndof ? tree->ndof : 1, mr = max_rows ? max_rows : 1;
  ws->tree = tree;
  ws->max_rows = max_rows;
  ws->ndof = tree->ndof;
  ws->models = g_new(rk_mat4, tree->n ? tree->n : 1);
  ws->axes = g_new0(rk_dof_axis, nd);
  ws->J = g_new(double, mr *nd);
  ws->F = g_new(double, mr);
  ws->F_try = g_new(double, mr);
  ws->dq = g_new(double, nd);
  ws->q_try = g_new(double, nd);
  ws->q_closed = g_new(double, nd);
  ws->work = g_new(double, rk_la_pinv_work(mr, nd));
  return ws;
}

void rk_loop_ws_free(rk_loop_ws *ws) {
  if (!ws)
    return;
  g_free(ws->models);
  g_free(ws->axes);
  g_free(ws->J);
  g_free(ws->F);
  g_free(ws->F_try);
  g_free(ws->dq);
  g_free(ws->q_try);
  g_free(ws->q_closed);
  g_free(ws->work);
  g_free(ws);
}

static bool loops_ok(const rk_tree *tree, const rk_loop *loops, size_t n, rk_loop_ws *ws) {
  if (!ws || ws->tree != tree || rk_loops_rows(loops, n) > ws->max_rows)
    return false;
  for (size_t i = 0; i < n; i++)
    if (!rk_loop_validate(tree, &loops[i], NULL))
      return false;
  return true;
}

/* FK, axes and the stacked Jacobian (rows x ndof, ld = rows) at q into ws. */
static size_t jacobian_at(const rk_tree *tree, const rk_loop *loops, size_t n, const double *q,
                          rk_loop_ws *ws) {
  const size_t rows = rk_loops_rows(loops, n);
  rk_tree_fk(tree, q, NULL, ws->models);
  rk_tree_dof_axes(tree, q, ws->models, RK_DOF_AXES_COORDINATE, ws->axes);
  rk_loops_jacobian(tree, loops, n, ws->models, ws->axes, ws->J, rows ? rows : 1);
  return rows;
}

size_t rk_loops_rank(const rk_tree *tree, const rk_loop *loops, size_t n, const double *q,
                     double tol, rk_loop_ws *ws) {
  if (!loops_ok(tree, loops, n, ws))
    return (size_t)-1;
  const size_t rows = jacobian_at(tree, loops, n, q, ws);
  if (rows == 0 || tree->ndof == 0)
    return 0;
  return rk_la_rank(rows, tree->ndof, ws->J, rows, tol > 0 ? tol : RK_LOOP_RANK_TOLERANCE,
                    ws->work);
}

/* Configuration `trial` of the generic rank into q: the rest configuration, then deterministic
 * draws inside the limits (unbounded DOFs within +-1). */
static void draw_configuration(const rk_tree *tree, int trial, guint64 *state, double *q) {
  if (trial == 0) {
    rk_tree_q_rest(tree, q);
    return;
  }
  for (size_t k = 0; k < tree->ndof; k++) {
    *state ^= *state >> 12, *state ^= *state << 25, *state ^= *state >> 27;
    const double u = (double)((*state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
    double lo = tree->lower[k], hi = tree->upper[k];
    if (!isfinite(lo))
      lo = -1.0;
    if (!isfinite(hi))
      hi = 1.0;
    q[k] = lo + (hi - lo) * u;
  }
}

long rk_loops_effective_dof(const rk_tree *tree, const rk_loop *loops, size_t n, const double *q,
                            rk_loop_ws *ws) {
  if (!loops_ok(tree, loops, n, ws))
    return -1;
  if (q)
    return (long)tree->ndof - (long)rk_loops_rank(tree, loops, n, q, 0, ws);
  /* The rank means something only where the loops are closed: each drawn configuration is closed
   * first (rk_loops_solve uses the other scratch vectors), and the largest rank among the closed
   * ones is the generic rank of the mechanism. */
  double *qc = ws->q_closed;
  size_t best = 0;
  bool closed = false;
  guint64 state = 0x9E3779B97F4A7C15ull;
  for (int trial = 0; trial < 9; trial++) {
    draw_configuration(tree, trial, &state, qc);
    if (!(rk_loops_solve(tree, loops, n, qc, 0.1 * RK_LOOP_CLOSED_TOLERANCE, 100, ws) <=
          RK_LOOP_CLOSED_TOLERANCE))
      continue;
    closed = true;
    const size_t r = rk_loops_rank(tree, loops, n, qc, 0, ws);
    if (r > best)
      best = r;
  }
  return closed ? (long)tree->ndof - (long)best : -1;
}

static double max_abs(const double *v, size_t n) {
  double m = 0.0;
  for (size_t i = 0; i < n; i++)
    m = fmax(m, fabs(v[i]));
  return m;
}

double rk_loops_solve(const rk_tree *tree, const rk_loop *loops, size_t n, double *q, double tol,
                      int max_iter, rk_loop_ws *ws) {
  if (!loops_ok(tree, loops, n, ws))
    return INFINITY;
  const size_t rows = rk_loops_rows(loops, n), nd = tree->ndof;
  rk_tree_fk(tree, q, NULL, ws->models);
  rk_loops_residual(tree, loops, n, ws->models, ws->F);
  double err = max_abs(ws->F, rows);
  double norm = rk_la_norm2(rows, ws->F);
  for (int it = 0; it < max_iter && err > tol && nd > 0; it++) {
    jacobian_at(tree, loops, n, q, ws);
    rk_la_pinv_solve(rows, nd, ws->J, rows, ws->F, 1e-10, 0.0, ws->dq, ws->work);
    double step = 1.0;
    bool improved = false;
    for (int h = 0; h < 30; h++, step *= 0.5) {
      for (size_t k = 0; k < nd; k++)
        ws->q_try[k] = q[k] - step * ws->dq[k];
      rk_tree_fk(tree, ws->q_try, NULL, ws->models);
      rk_loops_residual(tree, loops, n, ws->models, ws->F_try);
      const double nn = rk_la_norm2(rows, ws->F_try);
      if (nn < norm) {
        memcpy(q, ws->q_try, nd * sizeof(double));
        memcpy(ws->F, ws->F_try, rows * sizeof(double));
        norm = nn;
        err = max_abs(ws->F, rows);
        improved = true;
        break;
      }
    }
    if (!improved)
      break;
  }
  return err;
}
