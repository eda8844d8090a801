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

/* ---- Damped least squares on a gathered matrix ------------------------------------------------ */

/* A is r x f with leading dimension lda. wide (r <= f): G = A A^T + l2 I (r x r), else
 * G = A^T A + l2 I (f x f). Cholesky in place; when that fails (l2 = 0 and A rank deficient) a
 * tiny relative damping is added. Returns the damping actually used. */
static double dls_factor(const double *A, size_t lda, size_t r, size_t f, double l2, double *G,
                         bool *wide) {
  *wide = r <= f;
  const size_t k = *wide ? r : f;
  double eps = 0.0;
  for (int attempt = 0; attempt < 6; attempt++) {
    if (*wide) {
      memset(G, 0, k * k * sizeof(double));
      for (size_t c = 0; c < f; c++) {
        const double *col = A + c * lda;
        for (size_t b = 0; b < r; b++) {
          const double x = col[b];
          double *g = G + b * k;
          for (size_t a = b; a < r; a++)
            g[a] += col[a] * x;
        }
      }
    } else {
      for (size_t a = 0; a < f; a++) {
        const double *ca = A + a * lda;
        for (size_t b = a; b < f; b++) {
          const double *cb = A + b * lda;
          double s = 0;
          for (size_t i = 0; i < r; i++)
            s += ca[i] * cb[i];
          G[a * k + b] = s;
        }
      }
    }
    double maxd = 0;
    for (size_t a = 0; a < k; a++)
      maxd = fmax(maxd, G[a * k + a]);
    if (attempt > 0)
      eps = (eps > 0 ? eps * 1e3 : 1e-13 * maxd) + 1e-300;
    for (size_t a = 0; a < k; a++)
      G[a * k + a] += l2 + eps;
    if (rk__ik_cholesky(k, G, k))
      return l2 + eps;
  }
  /* Not even damping helps (non-finite input): a zero factor would divide by zero, so return an
   * identity factor with damping 1 (a gradient step). */
  memset(G, 0, k * k * sizeof(double));
  for (size_t a = 0; a < k; a++)
    G[a * k + a] = 1.0;
  return 1.0;
}

/* out[f] = the DLS solution for e[r] with the factor of dls_factor. tmp: max(r, f) doubles. */
static void dls_apply(const double *A, size_t lda, size_t r, size_t f, const double *G, bool wide,
                      const double *e, double *out, double *tmp) {
  if (wide) {
    memcpy(tmp, e, r * sizeof(double));
    rk__ik_cholesky_solve(r, G, r, tmp);
    for (size_t c = 0; c < f; c++) {
      const double *col = A + c * lda;
      double s = 0;
      for (size_t i = 0; i < r; i++)
        s += col[i] * tmp[i];
      out[c] = s;
    }
  } else {
    for (size_t c = 0; c < f; c++) {
      const double *col = A + c * lda;
      double s = 0;
      for (size_t i = 0; i < r; i++)
        s += col[i] * e[i];
      out[c] = s;
    }
    rk__ik_cholesky_solve(f, G, f, out);
  }
}

/* z[f] -> its projection into the (damped) null space of A: z - A^T (A A^T + l2)^-1 A z, which
 * equals l2 (A^T A + l2)^-1 z. tmp: max(r, f) doubles. */
static void dls_null(const double *A, size_t lda, size_t r, size_t f, const double *G, bool wide,
                     double l2, double *z, double *tmp) {
  if (wide) {
    for (size_t i = 0; i < r; i++)
      tmp[i] = 0;
    for (size_t c = 0; c < f; c++) {
      const double *col = A + c * lda;
      for (size_t i = 0; i < r; i++)
        tmp[i] += col[i] * z[c];
    }
    rk__ik_cholesky_solve(r, G, r, tmp);
    for (size_t c = 0; c < f; c++) {
      const double *col = A + c * lda;
      double s = 0;
      for (size_t i = 0; i < r; i++)
        s += col[i] * tmp[i];
      z[c] -= s;
    }
  } else {
    rk__ik_cholesky_solve(f, G, f, z);
    for (size_t c = 0; c < f; c++)
      z[c] *= l2;
  }
}

/* ---- One step --------------------------------------------------------------------------------- */

/* The step over the free columns (ws->free_cols[0..f)) for residual e (m) at damping l2:
 * dqf[f]. posture (optional, f entries, overwritten) is projected and added. */
static void compute_step(rk_ik_ws *ws, const double *J, const double *e, size_t f, double l2,
                         double *posture, double *dqf) {
  const size_t m = ws->m, m1 = ws->m1, m2 = m - m1;
  double *Jf = ws->Jf;
  for (size_t j = 0; j < f; j++)
    memcpy(Jf + j * m, J + (size_t)ws->free_cols[j] * m, m * sizeof(double));
  double *tmp = ws->vc4;
  if (m1 == 0) {
    bool wide;
    const double l2u = dls_factor(Jf, m, m, f, l2, ws->G2, &wide);
    dls_apply(Jf, m, m, f, ws->G2, wide, e, dqf, tmp);
    if (posture) {
      dls_null(Jf, m, m, f, ws->G2, wide, l2u, posture, tmp);
      for (size_t j = 0; j < f; j++)
        dqf[j] += posture[j];
    }
    return;
  }
  /* Level 1: the hard rows, minimum norm (tiny damping only where J1 is rank deficient). */
  const double *J1 = Jf, *J2 = Jf + m1;
  bool wide1;
  double *G1 = ws->G1;
  /* G1 = J1 J1^T + eps (m1 x m1): always the wide form so K below is defined. */
  memset(G1, 0, m1 * m1 * sizeof(double));
  for (size_t c = 0; c < f; c++) {
    const double *col = J1 + c * m;
    for (size_t b = 0; b < m1; b++) {
      const double x = col[b];
      for (size_t a = b; a < m1; a++)
        G1[b * m1 + a] += col[a] * x;
    }
  }
  double maxd = 0;
  for (size_t a = 0; a < m1; a++)
    maxd = fmax(maxd, G1[a * m1 + a]);
  const double eps1 = 1e-10 * maxd + 1e-300;
  for (size_t a = 0; a < m1; a++)
    G1[a * m1 + a] += eps1;
  wide1 = rk__ik_cholesky(m1, G1, m1);
  if (!wide1) {
    /* Only non-finite input gets here: no level-1 step. */
    memset(G1, 0, m1 * m1 * sizeof(double));
    for (size_t a = 0; a < m1; a++)
      G1[a * m1 + a] = 1e300;
  }
  /* dq1 = J1^T G1^-1 e1 */
  double *y1 = ws->vm1;
  memcpy(y1, e, m1 * sizeof(double));
  rk__ik_cholesky_solve(m1, G1, m1, y1);
  double *dq1 = ws->vc5;
  for (size_t c = 0; c < f; c++) {
    const double *col = J1 + c * m;
    double s = 0;
    for (size_t i = 0; i < m1; i++)
      s += col[i] * y1[i];
    dq1[c] = s;
  }
  /* K = G1^-1 J1 (m1 x f). */
  double *K = ws->K;
  for (size_t c = 0; c < f; c++) {
    memcpy(K + c * m1, J1 + c * m, m1 * sizeof(double));
    rk__ik_cholesky_solve(m1, G1, m1, K + c * m1);
  }
  /* P = J2 J1^T (m2 x m1, into G1's storage: the factor is no longer needed), then
   * J2N = J2 - P K (m2 x f). */
  double *P = G1;
  memset(P, 0, m2 * m1 * sizeof(double));
  for (size_t c = 0; c < f; c++) {
    const double *c1 = J1 + c * m, *c2 = J2 + c * m;
    for (size_t k = 0; k < m1; k++) {
      const double x = c1[k];
      double *pk = P + k * m2;
      for (size_t i = 0; i < m2; i++)
        pk[i] += c2[i] * x;
    }
  }
  double *J2N = ws->J2N;
  for (size_t c = 0; c < f; c++) {
    double *out = J2N + c * m2;
    const double *c2 = J2 + c * m, *kc = K + c * m1;
    for (size_t i = 0; i < m2; i++)
      out[i] = c2[i];
    for (size_t k = 0; k < m1; k++) {
      const double x = kc[k];
      const double *pk = P + k * m2;
      for (size_t i = 0; i < m2; i++)
        out[i] -= pk[i] * x;
    }
  }
  /* e2' = e2 - J2 dq1 */
  double *e2 = ws->vm2;
  for (size_t i = 0; i < m2; i++)
    e2[i] = e[m1 + i];
  for (size_t c = 0; c < f; c++) {
    const double *c2 = J2 + c * m;
    const double x = dq1[c];
    for (size_t i = 0; i < m2; i++)
      e2[i] -= c2[i] * x;
  }
  if (m2 > 0) {
    bool wide;
    const double l2u = dls_factor(J2N, m2, m2, f, l2, ws->G2, &wide);
    dls_apply(J2N, m2, m2, f, ws->G2, wide, e2, dqf, tmp);
    for (size_t c = 0; c < f; c++)
      dqf[c] += dq1[c];
    if (posture) {
      /* N1 z = z - J1^T (K z), then the level-2 null space. */
      double *kz = ws->vm3;
      for (size_t k = 0; k < m1; k++)
        kz[k] = 0;
      for (size_t c = 0; c < f; c++)
        for (size_t k = 0; k < m1; k++)
          kz[k] += K[c * m1 + k] * posture[c];
      for (size_t c = 0; c < f; c++) {
        const double *col = J1 + c * m;
        double s = 0;
        for (size_t k = 0; k < m1; k++)
          s += col[k] * kz[k];
        posture[c] -= s;
      }
      dls_null(J2N, m2, m2, f, ws->G2, wide, l2u, posture, tmp);
      for (size_t c = 0; c < f; c++)
        dqf[c] += posture[c];
    }
  } else {
    for (size_t c = 0; c < f; c++)
      dqf[c] = dq1[c];
    if (posture) {
      double *kz = ws->vm3;
      for (size_t k = 0; k < m1; k++)
        kz[k] = 0;
      for (size_t c = 0; c < f; c++)
        for (size_t k = 0; k < m1; k++)
          kz[k] += K[c * m1 + k] * posture[c];
      for (size_t c = 0; c < f; c++) {
        const double *col = J1 + c * m;
        double s = 0;
        for (size_t k = 0; k < m1; k++)
          s += col[k] * kz[k];
        dqf[c] += posture[c] - s;
      }
    }
  }
}

/* ---- Limits ----------------------------------------------------------------------------------- */

/* v brought inside [lo, hi] by a whole turn when the DOF is a rotation and that is possible. */
static inline double wrap_into(double v, double lo, double hi, bool rot) {
  if (!rot || (v >= lo && v <= hi))
    return v;
  const double tau = 2.0 * RK_PI;
  double w = v - tau * floor((v - lo) / tau);
  return w <= hi ? w : v;
}


static double limit_lo(const double *lo, int k) {
  return lo ? lo[k] : -INFINITY;
}
static double limit_hi(const double *hi, int k) {
  return hi ? hi[k] : INFINITY;
}

static void clamp_all(const rk_ik_ws *ws, size_t n, const double *lo, const double *hi,
                      double *q) {
  for (size_t k = 0; k < n; k++) {
    const double l = limit_lo(lo, (int)k), h = limit_hi(hi, (int)k);
    double v = wrap_into(q[k], l, h, ws->is_rot[k]);
    q[k] = v < l ? l : v > h ? h : v;
  }
}

/* ---- Solve ------------------------------------------------------------------------------------ */

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

/* Builds the trial configuration from cur: the step over the free columns, limits handled by
 * the active set and clamping passes. delta[c] receives the unwrapped change of each column
 * (for the LM model). */
static void make_trial(const rk_ik_problem *p, const rk_ik_options *o, rk_ik_ws *ws,
                       const rk__ik_state *cur, rk__ik_state *trial, const double *lo,
                       const double *hi, double l2, bool with_posture, double *delta,
                       double *grad_rel) {
  const size_t C = ws->c, m = ws->m;
  unsigned char *blocked = ws->blocked;
  double gmax = 0, colmax = 0;
  /* Active set from the gradient J^T W e. */
  for (size_t c = 0; c < C; c++) {
    const int k = ws->cols[c];
    const double *col = cur->J + c * m;
    double g = 0;
    for (size_t i = 0; i < ws->m1; i++)
      g += RK__IK_HARD_MERIT * col[i] * cur->e[i];
    for (size_t i = ws->m1; i < m; i++)
      g += col[i] * cur->e[i];
    const double v = cur->q[k], l = limit_lo(lo, k), h = limit_hi(hi, k);
    const double tl = 1e-12 * (1.0 + fabs(l)), th = 1e-12 * (1.0 + fabs(h));
    blocked[c] = ((v <= l + tl && g <= 0) || (v >= h - th && g >= 0)) ? 1 : 0;
    delta[c] = 0;
    if (!blocked[c]) {
      double cn = 0;
      for (size_t i = 0; i < m; i++)
        cn += col[i] * col[i];
      gmax = fmax(gmax, fabs(g));
      colmax = fmax(colmax, sqrt(cn));
    }
  }
  /* Projected gradient relative to |J| |W e|: zero at a minimum (a goal's closest point). */
  double en = 0;
  for (size_t i = 0; i < ws->m1; i++)
    en += RK__IK_HARD_MERIT * RK__IK_HARD_MERIT * cur->e[i] * cur->e[i];
  for (size_t i = ws->m1; i < m; i++)
    en += cur->e[i] * cur->e[i];
  *grad_rel = gmax / (colmax * sqrt(en) + 1e-300);
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
    bool posture = with_posture && p->posture && p->posture_gain > 0;
    if (posture)
      for (size_t j = 0; j < f; j++) {
        const int k = ws->cols[ws->free_cols[j]];
        post[j] = p->posture_gain * (p->posture[k] - cur->q[k]);
      }
    compute_step(ws, cur->J, e, f, l2, posture ? post : NULL, dqf);
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

bool rk_ik_solve(const rk_ik_problem *p, const rk_ik_options *options, double *q, rk_ik_ws *ws,
                 rk_ik_result *result, GError **error) {
  if (!ws || !q) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "IK solve: %s is NULL", ws ? "q" : "workspace");
    return false;
  }
  if (!rk_ik_problem_validate(p, error) || !rk__ik_setup(p, ws, error))
    return false;
  rk_ik_options o;
  if (options)
    o = *options;
  else
    rk_ik_options_init(&o);
  const size_t n = ws->n;
  const double *lo = p->lower ? p->lower : (p->tree ? rk_tree_lower(p->tree) : NULL);
  const double *hi = p->upper ? p->upper : (p->tree ? rk_tree_upper(p->tree) : NULL);
  const gint64 t0 = o.time_budget_s > 0 ? g_get_monotonic_time() : 0;
  const gint64 budget_us = (gint64)(o.time_budget_s * 1e6);

  rk__ik_state *cur = &ws->st[0], *trial = &ws->st[1], *best = &ws->st[2];
  memcpy(cur->q, q, n * sizeof(double));
  clamp_all(ws, n, lo, hi, cur->q);
  rk__ik_eval(p, &o, ws, cur, true);
  copy_state(ws, best, cur);
  rk_ik_result res = {0};
  res.evaluations = 1;

  uint64_t rng = o.seed;
  double *delta = ws->vc3;
  const double scale0 = fmax(max_diag_jtj(ws, cur->J), 1e-300);
  double l2 = o.method == RK_IK_LM ? o.damping * scale0
              : o.method == RK_IK_DLS ? o.damping * o.damping : 0.0;
  double nu = 2.0;
  int attempt_it = 0, flat = 0;
  double window_merit = cur->merit;
  rk_ik_status status = RK_IK_MAX_ITERATIONS;
  const bool adaptive = o.method == RK_IK_LM;

  for (;;) {
    if (cur->reached) {
      status = RK_IK_REACHED;
      break;
    }
    if (res.iterations >= o.max_iterations) {
      status = RK_IK_MAX_ITERATIONS;
      break;
    }
    if (budget_us > 0 && g_get_monotonic_time() - t0 >= budget_us) {
      status = RK_IK_TIMEOUT;
      break;
    }
    if (ws->c == 0) {
      status = RK_IK_CLOSEST;
      break;
    }
    res.iterations++;
    attempt_it++;
    bool accepted = false, stalled = false;
    for (int tries = 0; tries < MAX_LM_TRIES; tries++) {
      double grad_rel;
      make_trial(p, &o, ws, cur, trial, lo, hi, l2, tries == 0, delta, &grad_rel);
      if (tries == 0 && grad_rel <= 1e-12) {
        /* First-order optimal: a minimum of the error (the closest point), within limits. */
        stalled = true;
        break;
      }
      rk__ik_eval(p, &o, ws, trial, true);
      res.evaluations++;
      if (!adaptive) {
        accepted = true;
        break;
      }
      const double pred = cur->merit - model_merit(ws, cur->J, cur->e, delta);
      const double actual = cur->merit - trial->merit;
      if (actual > 0 && isfinite(trial->merit)) {
        const double rho = pred > 0 ? actual / pred : 1.0;
        const double t = 2.0 * rho - 1.0;
        l2 *= fmax(1.0 / 3.0, 1.0 - t * t * t);
        l2 = fmax(l2, 1e-15 * scale0);
        nu = 2.0;
        accepted = true;
        break;
      }
      l2 *= nu;
      nu *= 2.0;
      if (l2 > 1e10 * scale0) {
        stalled = true;
        break;
      }
    }
    if (accepted) {
      const double before = cur->merit;
      rk__ik_state tmp = *cur;
      *cur = *trial;
      *trial = tmp;
      if (cur->reached || cur->merit < best->merit)
        copy_state(ws, best, cur);
      /* Converged: no progress above rounding over five accepted steps in a row. */
      flat = cur->merit > before * (1.0 - 1e-14) ? flat + 1 : 0;
      if (flat >= 5)
        stalled = true;
      if (!adaptive && attempt_it >= 10 && !(best->merit < window_merit * (1.0 - 1e-9)))
        stalled = true;
    } else {
      stalled = true;
    }
    const bool restarts_left = res.restarts < o.max_restarts;
    /* With restarts left, slow progress counts as stuck too: an attempt that has not halved its
     * merit over the last 8 iterations is abandoned for a fresh start. */
    if (!cur->reached && restarts_left) {
      if (attempt_it % 8 == 0) {
        if (cur->merit > 0.5 * window_merit)
          stalled = true;
        window_merit = cur->merit;
      }
      if (o.attempt_iterations > 0 && attempt_it >= o.attempt_iterations)
        stalled = true;
    } else if (attempt_it % 8 == 0) {
      window_merit = best->merit;
    }
    if (stalled && !cur->reached) {
      if (!restarts_left) {
        status = RK_IK_CLOSEST;
        break;
      }
      res.restarts++;
      random_start(p, ws, lo, hi, &rng, cur->q);
      rk__ik_eval(p, &o, ws, cur, true);
      res.evaluations++;
      if (cur->reached || cur->merit < best->merit)
        copy_state(ws, best, cur);
      l2 = o.method == RK_IK_LM ? o.damping * fmax(max_diag_jtj(ws, cur->J), 1e-300) : l2;
      nu = 2.0;
      attempt_it = 0;
      flat = 0;
      window_merit = cur->merit;
    }
  }
  const rk__ik_state *ans = cur->reached ? cur : best;
  memcpy(q, ans->q, n * sizeof(double));
  res.status = ans->reached ? RK_IK_REACHED : status == RK_IK_REACHED ? RK_IK_CLOSEST : status;
  res.reached = ans->reached;
  res.position_error = ans->pos_err;
  res.orientation_error = ans->rot_err;
  res.closure_error = ans->closure;
  res.cost = ans->cost;
  for (size_t k = 0; k < n; k++)
    if ((lo && q[k] <= lo[k]) || (hi && q[k] >= hi[k]))
      res.dofs_at_limit++;
  if (result)
    *result = res;
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
