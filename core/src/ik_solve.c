/* IK solvers: Newton with the pseudo-inverse, damped least squares and Levenberg-Marquardt over
 * one problem type, with hard loops solved first (goals in their null space), an active set for
 * joint limits, a posture in the null space, and seeded random restarts.
 *
 * One iteration at q (rows e = target - current, Jacobian J over the solved DOFs):
 *   1. active set: a DOF on a limit whose gradient J^T W e points outward leaves the step;
 *   2. step: without hard rows dq = J^T (J J^T + l^2 I)^-1 e (or the n x n form, whichever is
 *      smaller); with hard rows (J1, e1) first dq1 = J1^+ e1, then the goals through
 *      J2 N1 = J2 - J2 J1^T (J1 J1^T)^-1 J1 on e2 - J2 dq1 (task priority);
 *   3. posture: gain * (posture - q) projected into the null space of both levels;
 *   4. limits: a DOF the step drives across a limit is set on the limit and leaves the step, the
 *      rest is solved again for what that left over (at most a few passes);
 *   5. LM: the step is kept when the merit (goal rows squared plus 1e6 times hard rows squared)
 *      drops; the damping follows Nielsen's gain-ratio rule.
 */
#include "ik_internal.h"
#include "ik_kernels.h"

#include "cpu.h"

#include <rigkit/error.h>
#include <string.h>

#define LIMIT_PASSES 4
#define MAX_LM_TRIES 12

static inline uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static inline double uniform01(uint64_t *s) {
  return (double)(splitmix64(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- The step -------------------------------------------------------------------------------- */

/* Solves L L^T x = b in place. */
RK__IK_INLINE void chol_solve(size_t n, const double *L, size_t lda, double *b) {
  rk__ik_forward(n, L, lda, b);
  rk__ik_backward(n, L, lda, b);
}

/* The parts of the step that depend on the free columns only (not on the damping, the posture or
 * the residual): the transposed Jacobian, the hard rows' factor and null-space projection of the
 * goal rows, and the level-2 Gram matrix. */
RK__IK_INLINE void prep_matrices_impl(rk_ik_ws *ws, const double *J, size_t f) {
  const size_t m = ws->m, m1 = ws->m1, m2 = m - m1;
  double *Jt = ws->Jt;
  for (size_t j = 0; j < f; j++) {
    const double *col = J + (size_t)ws->free_cols[j] * m;
    for (size_t i = 0; i < m; i++)
      Jt[i * f + j] = col[i];
  }
  const double *J2t = Jt + m1 * f;
  double *J2Nt = ws->J2Nt;
  if (m1 > 0) {
    double *G1 = ws->G1, *G1raw = ws->G2; /* G2 is free until the level-2 factor */
    double maxd = 0;
    for (size_t a = 0; a < m1; a++)
      for (size_t b = a; b < m1; b++)
        G1raw[a * m1 + b] = rk__ik_dot(Jt + a * f, Jt + b * f, f);
    for (size_t a = 0; a < m1; a++)
      maxd = fmax(maxd, G1raw[a * m1 + a]);
    /* A tiny damping keeps a rank-deficient J1 (a planar loop's idle rows) factorable. */
    double eps = 1e-10 * maxd + 1e-300;
    bool ok = false;
    for (int attempt = 0; attempt < 4 && !ok; attempt++, eps *= 1e3) {
      memcpy(G1, G1raw, m1 * m1 * sizeof(double));
      for (size_t a = 0; a < m1; a++)
        G1[a * m1 + a] += eps;
      ok = rk__ik_cholesky_impl(m1, G1, m1);
    }
    if (!ok) { /* non-finite input only: no level-1 step */
      memset(G1, 0, m1 * m1 * sizeof(double));
      for (size_t a = 0; a < m1; a++)
        G1[a * m1 + a] = 1e150;
    }
    /* Wt = (L1^-1 J1)^T */
    memcpy(ws->Wt, Jt, m1 * f * sizeof(double));
    rk__ik_forward_multi(m1, G1, m1, ws->Wt, f);
    /* V = L1^-1 (J1 J2^T), then J2N^T = J2^T - W^T V. */
    for (size_t i = 0; i < m2; i++) {
      double *v = ws->V + i * m1;
      for (size_t a = 0; a < m1; a++)
        v[a] = rk__ik_dot(Jt + a * f, J2t + i * f, f);
      rk__ik_forward(m1, G1, m1, v);
      double *out = J2Nt + i * f;
      memcpy(out, J2t + i * f, f * sizeof(double));
      for (size_t a = 0; a < m1; a++)
        rk__ik_axpy(-v[a], ws->Wt + a * f, out, f);
    }
  } else {
    memcpy(J2Nt, Jt, m * f * sizeof(double));
  }
  /* Level-2 Gram matrix (lower triangle), the smaller of the two forms. */
  double *G = ws->G2raw;
  ws->g2_wide = m2 <= f;
  double maxd = 0;
  if (ws->g2_wide) {
    for (size_t a = 0; a < m2; a++)
      for (size_t b = a; b < m2; b++)
        G[a * m2 + b] = rk__ik_dot(J2Nt + a * f, J2Nt + b * f, f);
    for (size_t a = 0; a < m2; a++)
      maxd = fmax(maxd, G[a * m2 + a]);
  } else {
    memset(G, 0, f * f * sizeof(double));
    for (size_t i = 0; i < m2; i++) {
      const double *r = J2Nt + i * f;
      for (size_t d = 0; d < f; d++)
        rk__ik_axpy(r[d], r + d, G + d * f + d, f - d);
    }
    for (size_t a = 0; a < f; a++)
      maxd = fmax(maxd, G[a * f + a]);
  }
  ws->g2_maxdiag = maxd;
}

/* The parts that depend on the residual e (m): the hard rows' step dq1 and what the goal rows
 * still need, e2' = e2 - J2 dq1. */
RK__IK_INLINE void prep_vectors_impl(rk_ik_ws *ws, const double *e, size_t f) {
  const size_t m = ws->m, m1 = ws->m1, m2 = m - m1;
  memset(ws->dq1, 0, f * sizeof(double));
  if (m1 > 0) {
    memcpy(ws->u1, e, m1 * sizeof(double));
    rk__ik_forward(m1, ws->G1, m1, ws->u1);
    for (size_t a = 0; a < m1; a++)
      rk__ik_axpy(ws->u1[a], ws->Wt + a * f, ws->dq1, f);
    const double *J2t = ws->Jt + m1 * f;
    for (size_t i = 0; i < m2; i++)
      ws->e2p[i] = e[m1 + i] - rk__ik_dot(J2t + i * f, ws->dq1, f);
  } else {
    memcpy(ws->e2p, e, m * sizeof(double));
  }
}

/* Damped level-2 factor: G2 = G2raw + l2 I, Cholesky (a tiny damping added where l2 = 0 leaves it
 * singular). Returns the damping used. */
RK__IK_INLINE double factor_level2_impl(rk_ik_ws *ws, size_t f, double l2) {
  const size_t m2 = ws->m - ws->m1, k = ws->g2_wide ? m2 : f;
  double eps = 0;
  for (int attempt = 0; attempt < 6; attempt++) {
    memcpy(ws->G2, ws->G2raw, k * k * sizeof(double));
    for (size_t a = 0; a < k; a++)
      ws->G2[a * k + a] += l2 + eps;
    if (rk__ik_cholesky_impl(k, ws->G2, k))
      return l2 + eps;
    eps = (eps > 0 ? eps * 1e3 : 1e-13 * ws->g2_maxdiag) + 1e-300;
  }
  /* Not even damping helps (non-finite input): the identity (a gradient step). */
  memset(ws->G2, 0, k * k * sizeof(double));
  for (size_t a = 0; a < k; a++)
    ws->G2[a * k + a] = 1.0;
  return 1.0;
}

/* The step over the free columns at damping l2 (factor_level2 done): dqf[f]. posture (optional,
 * f entries, overwritten) is projected into the null space of both levels and added. */
RK__IK_INLINE void level2_step_impl(rk_ik_ws *ws, size_t f, double l2u, double *posture,
                                    double *dqf) {
  const size_t m1 = ws->m1, m2 = ws->m - m1;
  const double *J2Nt = ws->J2Nt;
  double *t = ws->vm3;
  if (ws->g2_wide) {
    memcpy(t, ws->e2p, m2 * sizeof(double));
    chol_solve(m2, ws->G2, m2, t);
    memcpy(dqf, ws->dq1, f * sizeof(double));
    for (size_t i = 0; i < m2; i++)
      rk__ik_axpy(t[i], J2Nt + i * f, dqf, f);
  } else {
    memset(dqf, 0, f * sizeof(double));
    for (size_t i = 0; i < m2; i++)
      rk__ik_axpy(ws->e2p[i], J2Nt + i * f, dqf, f);
    chol_solve(f, ws->G2, f, dqf);
    rk__ik_axpy(1.0, ws->dq1, dqf, f);
  }
  if (!posture)
    return;
  /* N1 z = z - W^T (W z) */
  for (size_t a = 0; a < m1; a++)
    rk__ik_axpy(-rk__ik_dot(ws->Wt + a * f, posture, f), ws->Wt + a * f, posture, f);
  if (ws->g2_wide) {
    for (size_t i = 0; i < m2; i++)
      t[i] = rk__ik_dot(J2Nt + i * f, posture, f);
    chol_solve(m2, ws->G2, m2, t);
    for (size_t i = 0; i < m2; i++)
      rk__ik_axpy(-t[i], J2Nt + i * f, posture, f);
  } else {
    chol_solve(f, ws->G2, f, posture);
    for (size_t c = 0; c < f; c++)
      posture[c] *= l2u;
  }
  rk__ik_axpy(1.0, posture, dqf, f);
}

RK__MULTIVERSION(void, prep_matrices, (rk_ik_ws * ws, const double *J, size_t f), (ws, J, f),
                 { prep_matrices_impl(ws, J, f); })
RK__MULTIVERSION(void, prep_vectors, (rk_ik_ws * ws, const double *e, size_t f), (ws, e, f),
                 { prep_vectors_impl(ws, e, f); })
RK__MULTIVERSION(double, factor_level2, (rk_ik_ws * ws, size_t f, double l2), (ws, f, l2),
                 { return factor_level2_impl(ws, f, l2); })
RK__MULTIVERSION(void, level2_step,
                 (rk_ik_ws * ws, size_t f, double l2u, double *posture, double *dqf),
                 (ws, f, l2u, posture, dqf), { level2_step_impl(ws, f, l2u, posture, dqf); })

/* Builds (or reuses) the matrices for the current free set, then the step for residual e. */
static void compute_step(rk_ik_ws *ws, const double *J, const double *e, size_t f, double l2,
                         double *posture, double *dqf) {
  bool cached = ws->cache_id == ws->state_id && ws->cache_f == f &&
                memcmp(ws->cache_free, ws->free_cols, f * sizeof(int)) == 0;
  if (!cached) {
    prep_matrices(ws, J, f);
    memcpy(ws->cache_free, ws->free_cols, f * sizeof(int));
    ws->cache_f = f;
    ws->cache_id = ws->state_id;
  }
  prep_vectors(ws, e, f);
  const double l2u = factor_level2(ws, f, l2);
  level2_step(ws, f, l2u, posture, dqf);
}

/* ---- Limits ---------------------------------------------------------------------------------- */

/* v brought inside [lo, hi] by a whole turn when the DOF is a rotation and that is possible. */
static inline double wrap_into(double v, double lo, double hi, bool rot) {
  if (!rot || (v >= lo && v <= hi))
    return v;
  const double tau = 2.0 * RK_PI;
  double w = v - tau * floor((v - lo) / tau);
  return w <= hi ? w : v;
}

static double limit_lo(const double *lo, int k) { return lo ? lo[k] : -INFINITY; }
static double limit_hi(const double *hi, int k) { return hi ? hi[k] : INFINITY; }

static void clamp_all(const rk_ik_ws *ws, size_t n, const double *lo, const double *hi, double *q) {
  for (size_t k = 0; k < n; k++) {
    const double l = limit_lo(lo, (int)k), h = limit_hi(hi, (int)k);
    double v = wrap_into(q[k], l, h, ws->is_rot[k]);
    q[k] = v < l ? l : v > h ? h : v;
  }
}

/* ---- Solve ----------------------------------------------------------------------------------- */

static void copy_state(const rk_ik_ws *ws, rk__ik_state *dst, const rk__ik_state *src) {
  memcpy(dst->q, src->q, ws->n * sizeof(double));
  dst->merit = src->merit;
  dst->cost = src->cost;
  dst->pos_err = src->pos_err;
  dst->rot_err = src->rot_err;
  dst->closure = src->closure;
  dst->reached = src->reached;
}

static double max_diag_jtj(const rk_ik_ws *ws, const double *J) {
  double best = 0;
  for (size_t c = 0; c < ws->c; c++) {
    const double *col = J + c * ws->m;
    double s = 0;
    for (size_t i = 0; i < ws->m; i++)
      s += col[i] * col[i];
    best = fmax(best, s);
  }
  return best;
}

/* Merit of the linear model: W-weighted |e - J d|^2 over the columns with delta d[c]. */
static double model_merit(const rk_ik_ws *ws, const double *J, const double *e, const double *d) {
  double *r = ws->vm3;
  memcpy(r, e, ws->m * sizeof(double));
  for (size_t c = 0; c < ws->c; c++) {
    const double x = d[c];
    if (x == 0.0)
      continue;
    const double *col = J + c * ws->m;
    for (size_t i = 0; i < ws->m; i++)
      r[i] -= col[i] * x;
  }
  double hard = 0, soft = 0;
  for (size_t i = 0; i < ws->m1; i++)
    hard += r[i] * r[i];
  for (size_t i = ws->m1; i < ws->m; i++)
    soft += r[i] * r[i];
  return RK__IK_HARD_MERIT * hard + soft;
}

/* Draws a restart configuration: solved DOFs uniform inside finite limits, rotations without
 * limits uniform in (-pi, pi], translations without limits unchanged. */
static void random_start(const rk_ik_problem *p, rk_ik_ws *ws, const double *lo, const double *hi,
                         uint64_t *rng, double *q) {
  for (size_t c = 0; c < ws->c; c++) {
    const int k = ws->cols[c];
    const double l = limit_lo(lo, k), h = limit_hi(hi, k);
    const double u = uniform01(rng);
    if (isfinite(l) && isfinite(h))
      q[k] = l + (h - l) * u;
    else if (ws->is_rot[k])
      q[k] = fmin(fmax(-RK_PI + 2.0 * RK_PI * u, l), h);
  }
}

/* The active set at cur (ws->active: 1 = held on its limit this iteration) from the gradient
 * J^T W e; returns the projected gradient relative to |J| |W e|, zero at a minimum of the error
 * (a goal's closest point inside the limits). */
static double active_set(rk_ik_ws *ws, const rk__ik_state *cur, const double *lo,
                         const double *hi) {
  const size_t C = ws->c, m = ws->m;
  double gmax = 0, colmax = 0;
  for (size_t c = 0; c < C; c++) {
    const int k = ws->cols[c];
    const double *col = cur->J + c * m;
    const double g = RK__IK_HARD_MERIT * rk__ik_dot(col, cur->e, ws->m1) +
                     rk__ik_dot(col + ws->m1, cur->e + ws->m1, m - ws->m1);
    const double v = cur->q[k], l = limit_lo(lo, k), h = limit_hi(hi, k);
    const double tl = 1e-12 * (1.0 + fabs(l)), th = 1e-12 * (1.0 + fabs(h));
    ws->active[c] = ((v <= l + tl && g <= 0) || (v >= h - th && g >= 0)) ? 1 : 0;
    if (!ws->active[c]) {
      gmax = fmax(gmax, fabs(g));
      colmax = fmax(colmax, sqrt(rk__ik_dot(col, col, m)));
    }
  }
  const double en = RK__IK_HARD_MERIT * RK__IK_HARD_MERIT * rk__ik_dot(cur->e, cur->e, ws->m1) +
                    rk__ik_dot(cur->e + ws->m1, cur->e + ws->m1, m - ws->m1);
  return gmax / (colmax * sqrt(en) + 1e-300);
}

/* Builds the trial configuration from cur: the step over the free columns (those not in the
 * active set), limits handled by clamping passes. delta[c] receives the unwrapped change of each
 * column (for the LM model). */
static void make_trial(const rk_ik_problem *p, const rk_ik_options *o, rk_ik_ws *ws,
                       const rk__ik_state *cur, rk__ik_state *trial, const double *lo,
                       const double *hi, double l2, double posture_gain, double alpha,
                       double *delta) {
  const size_t C = ws->c, m = ws->m;
  unsigned char *blocked = ws->blocked;
  memcpy(blocked, ws->active, C);
  memset(delta, 0, C * sizeof(double));
  /* e adjusted for DOFs moved onto a limit, in the trial's row buffer (its evaluation rewrites
   * it afterwards). */
  double *e = trial->e;
  memcpy(e, cur->e, m * sizeof(double));
  double *dqf = ws->vc1, *post = ws->vc2;
  for (int pass = 0; pass < LIMIT_PASSES; pass++) {
    size_t f = 0;
    for (size_t c = 0; c < C; c++)
      if (!blocked[c])
        ws->free_cols[f++] = (int)c;
    if (f == 0)
      break;
    const bool posture = p->posture && posture_gain > 0;
    if (posture)
      for (size_t j = 0; j < f; j++) {
        const int k = ws->cols[ws->free_cols[j]];
        post[j] = posture_gain * (p->posture[k] - cur->q[k]);
      }
    compute_step(ws, cur->J, e, f, l2, posture ? post : NULL, dqf);
    if (alpha != 1.0)
      for (size_t j = 0; j < f; j++)
        dqf[j] *= alpha;
    /* Cap the largest move. */
    if (o->max_step > 0) {
      double big = 0;
      for (size_t j = 0; j < f; j++)
        big = fmax(big, fabs(dqf[j]));
      if (big > o->max_step)
        for (size_t j = 0; j < f; j++)
          dqf[j] *= o->max_step / big;
    }
    bool again = false;
    for (size_t j = 0; j < f; j++) {
      const int c = ws->free_cols[j];
      const int k = ws->cols[c];
      const double l = limit_lo(lo, k), h = limit_hi(hi, k);
      const double v = cur->q[k] + dqf[j];
      delta[c] = dqf[j];
      if (v >= l && v <= h)
        continue;
      if (wrap_into(v, l, h, ws->is_rot[k]) != v)
        continue; /* a whole turn brings it inside */
      if (pass + 1 == LIMIT_PASSES)
        continue; /* last pass: clamped below */
      /* Onto the limit and out of the step; the others solve for what is left. */
      const double target = v < l ? l : h;
      const double moved = target - cur->q[k];
      const double *col = cur->J + (size_t)c * m;
      for (size_t i = 0; i < m; i++)
        e[i] -= col[i] * moved;
      blocked[c] = 2;
      delta[c] = moved;
      again = true;
    }
    if (!again)
      break;
    for (size_t c = 0; c < C; c++)
      if (!blocked[c])
        delta[c] = 0;
  }
  memcpy(trial->q, cur->q, ws->n * sizeof(double));
  for (size_t c = 0; c < C; c++) {
    const int k = ws->cols[c];
    const double l = limit_lo(lo, k), h = limit_hi(hi, k);
    const double raw = cur->q[k] + delta[c];
    const double w = wrap_into(raw, l, h, ws->is_rot[k]);
    const double v = w < l ? l : w > h ? h : w;
    trial->q[k] = v;
    if (w == raw)
      delta[c] = v - cur->q[k]; /* a clamped move is what the LM model must see */
  }
}

/* One solve between its steps: the problem, the limits, the three states, the result so far and
 * the LM damping. */
typedef struct solve_run {
  const rk_ik_problem *p;
  rk_ik_options o;
  rk_ik_ws *ws;
  const double *lo, *hi; /* limits, NULL for none */
  gint64 t0, budget_us;  /* start time and time budget (0: none) */
  rk__ik_state *cur, *trial, *best;
  rk_ik_result res;
  uint64_t rng;        /* restart configurations */
  double *delta;       /* per column: the trial's change, for the LM model */
  double scale0;       /* largest diagonal of J^T J at the start: the damping's scale */
  double l2, nu;       /* damping and its growth after a rejected step */
  int attempt_it;      /* iterations of the current attempt */
  int flat;            /* accepted steps in a row without progress */
  double window_merit; /* merit at the last 8-iteration mark of the attempt */
  bool adaptive;       /* LM: a trial is kept only when the merit drops */
} solve_run;

/* Checks rk_ik_solve's arguments and sets the workspace up for the problem. */
static bool solve_prepare(const rk_ik_problem *p, const double *q, rk_ik_ws *ws, GError **error) {
  if (!ws || !q) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "IK solve: %s is NULL", ws ? "q" : "workspace");
    return false;
  }
  if (!rk_ik_problem_validate(p, error) || !rk__ik_setup(p, ws, error))
    return false;
  for (size_t k = 0; k < ws->n; k++)
    if (!isfinite(q[k])) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "IK solve: the start q of DOF %s is %g",
                  p->tree ? rk_tree_dof_name(p->tree, k) : "(chain row)", q[k]);
      return false;
    }
  return true;
}

/* Starts the solve at q brought inside the limits: its first evaluation and damping. */
static void solve_start(solve_run *r, const rk_ik_problem *p, const rk_ik_options *options,
                        const double *q, rk_ik_ws *ws) {
  r->p = p;
  r->ws = ws;
  if (options)
    r->o = *options;
  else
    rk_ik_options_init(&r->o);
  const rk_ik_options *o = &r->o;
  r->lo = p->lower ? p->lower : (p->tree ? rk_tree_lower(p->tree) : NULL);
  r->hi = p->upper ? p->upper : (p->tree ? rk_tree_upper(p->tree) : NULL);
  r->t0 = o->time_budget_s > 0 ? g_get_monotonic_time() : 0;
  r->budget_us = (gint64)(o->time_budget_s * 1e6);

  r->cur = &ws->st[0];
  r->trial = &ws->st[1];
  r->best = &ws->st[2];
  ws->state_id++;
  memcpy(r->cur->q, q, ws->n * sizeof(double));
  clamp_all(ws, ws->n, r->lo, r->hi, r->cur->q);
  rk__ik_eval(p, o, ws, r->cur, true);
  copy_state(ws, r->best, r->cur);
  r->res = (rk_ik_result){0};
  r->res.evaluations = 1;

  r->rng = o->seed;
  r->delta = ws->vc3;
  r->scale0 = fmax(max_diag_jtj(ws, r->cur->J), 1e-300);
  r->l2 = o->method == RK_IK_LM    ? o->damping * r->scale0
          : o->method == RK_IK_DLS ? o->damping * o->damping
                                   : 0.0;
  r->nu = 2.0;
  r->attempt_it = 0;
  r->flat = 0;
  r->window_merit = r->cur->merit;
  r->adaptive = o->method == RK_IK_LM;
}

/* True, with the status, when the solve ends before another iteration. */
static bool solve_done(const solve_run *r, rk_ik_status *status) {
  if (r->cur->reached) {
    *status = RK_IK_REACHED;
    return true;
  }
  if (r->res.iterations >= r->o.max_iterations) {
    *status = RK_IK_MAX_ITERATIONS;
    return true;
  }
  if (r->budget_us > 0 && g_get_monotonic_time() - r->t0 >= r->budget_us) {
    *status = RK_IK_TIMEOUT;
    return true;
  }
  if (r->ws->c == 0) {
    *status = RK_IK_CLOSEST;
    return true;
  }
  return false;
}

/* The posture moves the body in the goals' null space, but only to first order: its second-order
 * effect on the goals would hold back their convergence, so its gain halves with every iteration
 * of an attempt, and it stops once every error is within ten tolerances (and on a retried LM
 * step). */
static double posture_gain(const solve_run *r) {
  const rk__ik_state *cur = r->cur;
  const bool near = cur->pos_err <= 10 * r->o.position_tolerance &&
                    cur->rot_err <= 10 * r->o.orientation_tolerance &&
                    cur->closure <= 10 * r->o.closure_tolerance;
  return near ? 0.0 : ldexp(r->p->posture_gain, -(r->attempt_it - 1 < 60 ? r->attempt_it - 1 : 60));
}

/* Builds and evaluates trial steps from the current state until one is kept: the first (Newton,
 * DLS) or, for LM, one that lowers the merit, the damping rising after each rejection by
 * Nielsen's rule. False when none is kept (the damping ran away or the tries ran out). */
static bool try_steps(solve_run *r, double gain) {
  rk_ik_ws *ws = r->ws;
  const rk__ik_state *cur = r->cur;
  rk__ik_state *trial = r->trial;
  for (int tries = 0; tries < MAX_LM_TRIES; tries++) {
    /* A retried step: more damping for the goals; with hard rows (not damped) also half the
     * length, so an overshooting closure step is cut back too. */
    const double alpha = ws->m1 > 0 ? ldexp(1.0, -tries) : 1.0;
    make_trial(r->p, &r->o, ws, cur, trial, r->lo, r->hi, r->l2, tries == 0 ? gain : 0.0, alpha,
               r->delta);
    rk__ik_eval(r->p, &r->o, ws, trial, false);
    r->res.evaluations++;
    if (!r->adaptive)
      return true;
    const double pred = cur->merit - model_merit(ws, cur->J, cur->e, r->delta);
    const double actual = cur->merit - trial->merit;
    if (actual > 0 && isfinite(trial->merit)) {
      const double rho = pred > 0 ? actual / pred : 1.0;
      const double t = 2.0 * rho - 1.0;
      r->l2 *= fmax(1.0 / 3.0, 1.0 - t * t * t);
      r->l2 = fmax(r->l2, 1e-15 * r->scale0);
      r->nu = 2.0;
      return true;
    }
    r->l2 *= r->nu;
    r->nu *= 2.0;
    if (r->l2 > 1e10 * r->scale0)
      return false;
  }
  return false;
}

/* Makes the kept trial the current state (with its Jacobian) and the best one when it is; true
 * when progress has stalled. */
static bool accept_trial(solve_run *r) {
  rk_ik_ws *ws = r->ws;
  rk__ik_state *cur = r->cur;
  const double before = cur->merit;
  rk__ik_state tmp = *cur;
  *cur = *r->trial;
  *r->trial = tmp;
  ws->state_id++;
  if (!cur->reached)
    rk__ik_jacobian(r->p, ws, cur);
  if (cur->reached || cur->merit < r->best->merit)
    copy_state(ws, r->best, cur);
  /* Converged: no progress above rounding over five accepted steps in a row. */
  r->flat = cur->merit > before * (1.0 - 1e-14) ? r->flat + 1 : 0;
  bool stalled = r->flat >= 5;
  if (!r->adaptive && r->attempt_it >= 10 && !(r->best->merit < r->window_merit * (1.0 - 1e-9)))
    stalled = true;
  return stalled;
}

/* With restarts left, slow progress counts as stuck too: an attempt that has not halved its merit
 * over the last 8 iterations, or has used its iterations, is abandoned for a fresh start. Moves
 * the 8-iteration window; true when the attempt is stuck. */
static bool attempt_stuck(solve_run *r, bool restarts_left) {
  bool stuck = false;
  if (!r->cur->reached && restarts_left) {
    if (r->attempt_it % 8 == 0) {
      if (r->cur->merit > 0.5 * r->window_merit)
        stuck = true;
      r->window_merit = r->cur->merit;
    }
    if (r->o.attempt_iterations > 0 && r->attempt_it >= r->o.attempt_iterations)
      stuck = true;
  } else if (r->attempt_it % 8 == 0) {
    r->window_merit = r->best->merit;
  }
  return stuck;
}

/* A fresh attempt from a random configuration (seeded), with the damping reset. */
static void restart(solve_run *r) {
  rk_ik_ws *ws = r->ws;
  rk__ik_state *cur = r->cur;
  r->res.restarts++;
  random_start(r->p, ws, r->lo, r->hi, &r->rng, cur->q);
  ws->state_id++;
  rk__ik_eval(r->p, &r->o, ws, cur, true);
  r->res.evaluations++;
  if (cur->reached || cur->merit < r->best->merit)
    copy_state(ws, r->best, cur);
  r->l2 = r->o.method == RK_IK_LM ? r->o.damping * fmax(max_diag_jtj(ws, cur->J), 1e-300) : r->l2;
  r->nu = 2.0;
  r->attempt_it = 0;
  r->flat = 0;
  r->window_merit = cur->merit;
}

/* The answer, the reached state or else the best one, into q and *result (when not NULL). */
static void solve_finish(const solve_run *r, rk_ik_status status, double *q, rk_ik_result *result) {
  const size_t n = r->ws->n;
  const rk__ik_state *ans = r->cur->reached ? r->cur : r->best;
  memcpy(q, ans->q, n * sizeof(double));
  rk_ik_result res = r->res;
  res.status = ans->reached ? RK_IK_REACHED : status == RK_IK_REACHED ? RK_IK_CLOSEST : status;
  res.reached = ans->reached;
  res.position_error = ans->pos_err;
  res.orientation_error = ans->rot_err;
  res.closure_error = ans->closure;
  res.cost = ans->cost;
  for (size_t k = 0; k < n; k++)
    if ((r->lo && q[k] <= r->lo[k]) || (r->hi && q[k] >= r->hi[k]))
      res.dofs_at_limit++;
  if (result)
    *result = res;
}

bool rk_ik_solve(const rk_ik_problem *p, const rk_ik_options *options, double *q, rk_ik_ws *ws,
                 rk_ik_result *result, GError **error) {
  if (!solve_prepare(p, q, ws, error))
    return false;
  solve_run r;
  solve_start(&r, p, options, q, ws);
  rk_ik_status status = RK_IK_MAX_ITERATIONS;
  while (!solve_done(&r, &status)) {
    r.res.iterations++;
    r.attempt_it++;
    /* First-order optimal: a minimum of the error (the closest point), within limits. */
    const bool optimal = active_set(ws, r.cur, r.lo, r.hi) <= 1e-12;
    const double gain = posture_gain(&r);
    const bool accepted = !optimal && try_steps(&r, gain);
    bool stalled = accepted ? accept_trial(&r) : true;
    const bool restarts_left = r.res.restarts < r.o.max_restarts;
    if (attempt_stuck(&r, restarts_left))
      stalled = true;
    if (stalled && !r.cur->reached) {
      if (!restarts_left) {
        status = RK_IK_CLOSEST;
        break;
      }
      restart(&r);
    }
  }
  solve_finish(&r, status, q, result);
  return true;
}

bool rk_ik_goal_errors(const rk_ik_problem *p, const double *q, rk_ik_ws *ws, double *pos_err,
                       double *rot_err, double *closure, GError **error) {
  if (!ws || !q) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "IK goal errors: %s is NULL",
                ws ? "q" : "workspace");
    return false;
  }
  if (!rk_ik_problem_validate(p, error) || !rk__ik_setup(p, ws, error))
    return false;
  rk_ik_options o;
  rk_ik_options_init(&o);
  rk__ik_state *s = &ws->st[1];
  memcpy(s->q, q, ws->n * sizeof(double));
  rk__ik_eval(p, &o, ws, s, false);
  for (size_t i = 0; i < p->goal_count; i++) {
    if (pos_err)
      pos_err[i] = ws->goal_pos[i];
    if (rot_err)
      rot_err[i] = ws->goal_rot[i];
  }
  if (closure)
    *closure = s->closure;
  return true;
}
