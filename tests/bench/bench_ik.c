/* IK benchmark: the KUKA iiwa 14 targets of ../shared/bench/ik_targets_iiwa14.txt (any file in that
 * format), solved the ways kdl_bench solves them, so the two run side by side
 * (tests/bench/run_ik.sh):
 *   ik seed=rand              start at the file's random seed
 *   ik seed=zero              start at mid-limits (q = 0)
 *   ik_tracik_protocol        start at mid-limits, tolerance 1e-5, 5 ms budget (TRAC-IK's protocol)
 * Success = FK of the answer (rk_dh_chain_fk, not the solver's own FK) within 1e-4 m and 1e-3 rad
 * of the target AND inside the joint limits. Lines: `rigkit <name> seed=.. key=value ...`.
 * Usage: rk_bench_ik [TARGETS_FILE] [--n N] */
#include "bench_support.h"

#include <rigkit/ik.h>
#include <rigkit/rigkit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NJ 7

static const rk_dh_row kIiwa[NJ] = {
    {0, -RK_PI / 2, 0.360, 0, RK_DH_REVOLUTE}, {0, RK_PI / 2, 0, 0, RK_DH_REVOLUTE},
    {0, RK_PI / 2, 0.420, 0, RK_DH_REVOLUTE},  {0, -RK_PI / 2, 0, 0, RK_DH_REVOLUTE},
    {0, -RK_PI / 2, 0.400, 0, RK_DH_REVOLUTE}, {0, RK_PI / 2, 0, 0, RK_DH_REVOLUTE},
    {0, 0, 0.126, 0, RK_DH_REVOLUTE}};
static const double kIiwaLimDeg[NJ] = {170, 120, 170, 120, 170, 120, 175};

typedef struct target {
  double q_true[NJ], seed[NJ];
  rk_vec3 p;
  rk_quat r;
} target;

static target *read_targets(const char *path, size_t *count) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "rk_bench_ik: cannot open %s\n", path);
    return NULL;
  }
  size_t cap = 1024, n = 0;
  target *t = malloc(cap * sizeof *t);
  char line[4096];
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n')
      continue;
    target x;
    double v[22];
    char *s = line, *end;
    int k;
    strtol(s, &end, 10); /* index */
    s = end;
    for (k = 0; k < 21; k++) {
      v[k] = strtod(s, &end);
      if (end == s)
        break;
      s = end;
    }
    if (k < 21) {
      fprintf(stderr, "rk_bench_ik: %s: malformed line %zu\n", path, n + 1);
      continue;
    }
    memcpy(x.q_true, v, sizeof x.q_true);
    memcpy(x.seed, v + 7, sizeof x.seed);
    x.p = rk_vec3_make(v[14], v[15], v[16]);
    x.r = rk_quat_normalize(rk_quat_make(v[17], v[18], v[19], v[20]));
    if (n == cap)
      t = realloc(t, (cap *= 2) * sizeof *t);
    t[n++] = x;
  }
  fclose(f);
  *count = n;
  return t;
}

typedef struct run_stats {
  size_t n, ok, ok_lim, reached;
  double *t_us, *iter, *restarts;
  double worst_perr, worst_rerr;
} run_stats;

static void print_stats(const char *name, const char *seed, const char *extra, run_stats *s) {
  double mean = 0, maxt = 0;
  for (size_t i = 0; i < s->n; i++) {
    mean += s->t_us[i];
    maxt = s->t_us[i] > maxt ? s->t_us[i] : maxt;
  }
  mean /= (double)(s->n ? s->n : 1);
  const double med = rk_bench_median(s->t_us, s->n), p99 = rk_bench_percentile(s->t_us, s->n, 99);
  const double mi = rk_bench_median(s->iter, s->n), p99i = rk_bench_percentile(s->iter, s->n, 99);
  const double maxi = s->n ? s->iter[s->n - 1] : 0;
  const double mr = rk_bench_percentile(s->restarts, s->n, 99);
  printf("rigkit %s seed=%s %s n=%zu success=%.4f within_limits_success=%.4f reached=%.4f "
         "median_us=%.2f p99_us=%.2f mean_us=%.2f max_us=%.1f median_iter=%.0f p99_iter=%.0f "
         "max_iter=%.0f p99_restarts=%.0f worst_perr_success=%.1e worst_rerr_success=%.1e\n",
         name, seed, extra, s->n, (double)s->ok / (double)s->n, (double)s->ok_lim / (double)s->n,
         (double)s->reached / (double)s->n, med, p99, mean, maxt, mi, p99i, maxi, mr,
         s->worst_perr, s->worst_rerr);
  fflush(stdout);
}

/* Runs every target once; start = file seed or mid-limits. */
static void run(const char *name, const char *seed_name, const char *extra, const target *t,
                size_t n, bool from_seed, const rk_ik_options *opts, const rk_dh_chain *chain,
                const double *lo, const double *hi) {
  rk_ik_goal goal = RK_IK_GOAL_INIT;
  goal.kind = RK_IK_POSE;
  goal.link = NJ - 1;
  rk_ik_problem prob = RK_IK_PROBLEM_INIT;
  prob.chain = chain;
  prob.goals = &goal;
  prob.goal_count = 1;
  prob.lower = lo;
  prob.upper = hi;
  GError *err = NULL;
  rk_ik_ws *ws = rk_ik_ws_new(&prob, 0, &err);
  if (!ws) {
    fprintf(stderr, "rk_bench_ik: %s\n", err->message);
    exit(1);
  }
  run_stats s = {0};
  s.n = n;
  s.t_us = calloc(n, sizeof(double));
  s.iter = calloc(n, sizeof(double));
  s.restarts = calloc(n, sizeof(double));
  for (size_t i = 0; i < n; i++) {
    double q[NJ];
    for (int j = 0; j < NJ; j++)
      q[j] = from_seed ? t[i].seed[j] : 0.5 * (lo[j] + hi[j]);
    goal.target_position = t[i].p;
    goal.target_orientation = t[i].r;
    rk_ik_result res;
    const double t0 = rk_bench_now_ns();
    rk_ik_solve(&prob, opts, q, ws, &res, NULL);
    const double t1 = rk_bench_now_ns();
    s.t_us[i] = (t1 - t0) * 1e-3;
    s.iter[i] = res.iterations;
    s.restarts[i] = res.restarts;
    s.reached += res.reached;
    /* Independent check with the library's plain DH FK. */
    rk_mat4 end;
    rk_dh_chain_fk(chain, q, NULL, &end);
    const double perr = rk_vec3_norm(rk_vec3_sub(rk_mat4_get_translation(&end), t[i].p));
    const rk_mat3 R = rk_mat4_get_rotation(&end);
    const double rerr = rk_quat_angle_between(rk_quat_from_mat3(&R), t[i].r);
    const bool ok = perr < 1e-4 && rerr < 1e-3;
    bool in = true;
    for (int j = 0; j < NJ; j++)
      in = in && q[j] >= lo[j] - 1e-9 && q[j] <= hi[j] + 1e-9;
    s.ok += ok;
    s.ok_lim += ok && in;
    if (ok) {
      s.worst_perr = perr > s.worst_perr ? perr : s.worst_perr;
      s.worst_rerr = rerr > s.worst_rerr ? rerr : s.worst_rerr;
    }
  }
  print_stats(name, seed_name, extra, &s);
  free(s.t_us);
  free(s.iter);
  free(s.restarts);
  rk_ik_ws_free(ws);
}

int main(int argc, char **argv) {
  const char *path = NULL;
  size_t limit = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--n") == 0 && i + 1 < argc)
      limit = (size_t)atol(argv[++i]);
    else if (argv[i][0] != '-')
      path = argv[i];
    else {
      fprintf(stderr, "usage: rk_bench_ik [TARGETS_FILE] [--n N]\n");
      return 2;
    }
  }
  char *def = NULL;
  if (!path)
    path = def = g_build_filename(RK_TEST_DATA_DIR, "ik_targets_iiwa14.txt", NULL);
  size_t n = 0;
  target *t = read_targets(path, &n);
  if (!t || n == 0)
    return 1;
  if (limit && limit < n)
    n = limit;
  printf("# rk_bench_ik: rigkit %s, %zu targets from %s\n", rk_version_string(), n, path);

  const rk_dh_chain chain = {RK_DH_STANDARD, kIiwa, NJ, rk_mat4_identity(), rk_mat4_identity()};
  double lo[NJ], hi[NJ];
  for (int j = 0; j < NJ; j++) {
    hi[j] = kIiwaLimDeg[j] * RK_DEG;
    lo[j] = -hi[j];
  }
  /* Sanity: the file's q_true reproduces its targets with this chain. */
  double worst = 0;
  for (size_t i = 0; i < n; i++) {
    rk_mat4 end;
    rk_dh_chain_fk(&chain, t[i].q_true, NULL, &end);
    worst = fmax(worst, rk_vec3_norm(rk_vec3_sub(rk_mat4_get_translation(&end), t[i].p)));
  }
  printf("# check: FK(q_true) vs target position, worst %.1e m\n", worst);

  rk_ik_options o = RK_IK_OPTIONS_INIT;
  o.position_tolerance = 1e-5;
  o.orientation_tolerance = 1e-4;
  o.max_iterations = 5000;
  o.max_restarts = 1000;
  o.seed = 20240601;
  run("ik", "rand", "method=lm tol=1e-5m,1e-4rad restarts=on", t, n, true, &o, &chain, lo, hi);
  run("ik", "zero", "method=lm tol=1e-5m,1e-4rad restarts=on", t, n, false, &o, &chain, lo, hi);
  rk_ik_options tp = o;
  tp.position_tolerance = 1e-5;
  tp.orientation_tolerance = 1e-5;
  tp.time_budget_s = 5e-3;
  tp.max_iterations = 1 << 30;
  tp.max_restarts = 1 << 30;
  run("ik_tracik_protocol", "nominal", "method=lm eps=1e-5 timeout_ms=5", t, n, false, &tp, &chain,
      lo, hi);
  free(t);
  g_free(def);
  return worst < 1e-9 ? 0 : 1;
}
