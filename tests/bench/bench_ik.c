/* IK benchmark.
 * 1. The KUKA iiwa 14 targets of ../shared/bench/ik_targets_iiwa14.txt (any file in that format),
 *    solved the ways kdl_bench solves them, so the two run side by side (tests/bench/run_ik.sh):
 *      ik seed=rand              start at the file's random seed
 *      ik seed=zero              start at mid-limits (q = 0)
 *      ik_tracik_protocol        start at mid-limits, tolerance 1e-5, 5 ms budget (TRAC-IK's)
 *      ik_tree seed=rand         the same chain given as a kinematic tree (DH fast path)
 *    Success = FK of the answer (rk_dh_chain_fk, not the solver's own FK) within 1e-4 m and
 *    1e-3 rad of the target AND inside the joint limits.
 * 2. A mocap-style humanoid (free root, ball joints, hinge knees and elbows: 58 DOFs) following a
 *    synthetic walk, per frame warm-started from the previous frame:
 *      humanoid_twobone          both legs and both arms by the analytic limb solver (+ one FK)
 *      humanoid_dls              LM on 4 goals (feet: pose, hands: position), all DOFs
 *      humanoid_dls_pinned       the same with both feet as hard loops to the ground
 * Lines: `rigkit <name> seed=.. key=value ...`.
 * Usage: rk_bench_ik [TARGETS_FILE] [--n N] [--only iiwa|humanoid|twobone] */
#include "bench_support.h"
#include "rk_rigs.h"

#include <rigkit/ik.h>
#include <rigkit/rigkit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NJ 7

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
         (double)s->reached / (double)s->n, med, p99, mean, maxt, mi, p99i, maxi, mr, s->worst_perr,
         s->worst_rerr);
  fflush(stdout);
}

/* Runs every target once; start = file seed or mid-limits. With tree, the problem is posed on the
 * tree (goal on its flange, the tree's own limits) instead of the DH chain. */
static void run(const char *name, const char *seed_name, const char *extra, const target *t,
                size_t n, bool from_seed, const rk_ik_options *opts, const rk_dh_chain *chain,
                const double *lo, const double *hi, const rk_tree *tree) {
  rk_ik_goal goal = RK_IK_GOAL_INIT;
  goal.kind = RK_IK_POSE;
  goal.link = NJ - 1;
  rk_ik_problem prob = RK_IK_PROBLEM_INIT;
  prob.chain = chain;
  prob.goals = &goal;
  prob.goal_count = 1;
  prob.lower = lo;
  prob.upper = hi;
  if (tree) {
    prob.chain = NULL;
    prob.tree = tree;
    prob.lower = prob.upper = NULL;
    goal.link = rk_tree_find_link(tree, "flange");
  }
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

/* ---- Humanoid -------------------------------------------------------------------------------- */

/* The humanoid of rk_rigs.h: 25 joints, knees and elbows revolute with one-sided limits. */
static rk_tree *humanoid_tree(void) {
  GError *err = NULL;
  rk_tree *t = rk_rig_humanoid_tree(&err);
  if (!t) {
    fprintf(stderr, "rk_bench_ik: humanoid: %s\n", err->message);
    exit(1);
  }
  return t;
}

#define HUM_FRAMES 600

typedef struct walk {
  rk_tree *tree;
  size_t n, links;
  int goal_links[4];
  double *q_truth;  /* frames x n: the motion the goals come from */
  rk_mat4 *targets; /* frames x 4: world frames of the goal links */
} walk;

/* A synthetic walk: every DOF swings about a start pose (legs and arms more), the root moves
 * forward and bobs; the goals are that motion's feet and hands, so they are reachable. */
static void walk_init(walk *w) {
  w->tree = humanoid_tree();
  w->n = rk_tree_dof_count(w->tree);
  w->links = rk_tree_link_count(w->tree);
  const char *names[4] = {"Foot_L", "Foot_R", "Hand_L", "Hand_R"};
  for (int i = 0; i < 4; i++)
    w->goal_links[i] = rk_tree_find_link(w->tree, names[i]);
  w->q_truth = calloc((size_t)HUM_FRAMES * w->n, sizeof(double));
  w->targets = calloc((size_t)HUM_FRAMES * 4, sizeof(rk_mat4));
  rk_mat4 *models = calloc(w->links, sizeof(rk_mat4));
  rk_bench_rng rng = {7};
  double *amp = calloc(w->n, sizeof(double)), *phase = calloc(w->n, sizeof(double));
  for (size_t k = 6; k < w->n; k++) {
    amp[k] = rk_bench_uniform(&rng, 0.02, 0.25);
    phase[k] = rk_bench_uniform(&rng, 0, 2 * RK_PI);
  }
  for (int f = 0; f < HUM_FRAMES; f++) {
    double *q = w->q_truth + (size_t)f * w->n;
    const double ph = 2 * RK_PI * f / 60.0; /* one cycle per second at 60 fps */
    q[2] = 0.02 * f;                        /* forward 1.2 m/s */
    q[1] = 0.02 * sin(2 * ph);
    for (size_t k = 6; k < w->n; k++)
      q[k] = amp[k] * sin(ph + phase[k]);
    for (size_t l = 0; l < w->links; l++) {
      const rk_joint *jt = rk_tree_joint(w->tree, l);
      if (jt->type == RK_JOINT_REVOLUTE)
        q[jt->dof_offset] = 0.6 + 0.5 * sin(ph + phase[jt->dof_offset]);
    }
    rk_tree_q_clamp(w->tree, q);
    rk_tree_fk(w->tree, q, NULL, models);
    for (int i = 0; i < 4; i++)
      w->targets[(size_t)f * 4 + i] = models[w->goal_links[i]];
  }
  free(models);
  free(amp);
  free(phase);
}

static void walk_free(walk *w) {
  rk_tree_unref(w->tree);
  free(w->q_truth);
  free(w->targets);
}

static void print_frames(const char *name, const char *extra, double *t_us, double *iters,
                         size_t frames, size_t reached, double worst_err, double worst_closure) {
  double mean = 0;
  for (size_t i = 0; i < frames; i++)
    mean += t_us[i];
  mean /= (double)frames;
  const double med = rk_bench_median(t_us, frames), p99 = rk_bench_percentile(t_us, frames, 99);
  const double mi = rk_bench_median(iters, frames), maxi = rk_bench_percentile(iters, frames, 100);
  printf("rigkit %s seed=walk %s frames=%zu us_per_frame=%.2f median_us=%.2f p99_us=%.2f "
         "mean_us=%.2f reached=%.4f median_iter=%.0f max_iter=%.0f worst_goal_err_m=%.1e "
         "worst_closure=%.1e\n",
         name, extra, frames, mean, med, p99, mean, (double)reached / (double)frames, mi, maxi,
         worst_err, worst_closure);
  fflush(stdout);
}

/* Analytic: one FK, then the four limbs (hip-knee-foot, shoulder-elbow-hand). */
static void bench_twobone(walk *w) {
  const rk_tree *t = w->tree;
  rk_ik_limb limbs[4];
  const char *chain[4][3] = {{"UpLeg_L", "LoLeg_L", "Foot_L"},
                             {"UpLeg_R", "LoLeg_R", "Foot_R"},
                             {"UpArm_L", "LoArm_L", "Hand_L"},
                             {"UpArm_R", "LoArm_R", "Hand_R"}};
  for (int i = 0; i < 4; i++)
    if (!rk_ik_limb_init(t, rk_tree_find_link(t, chain[i][0]), rk_tree_find_link(t, chain[i][1]),
                         rk_tree_find_link(t, chain[i][2]), &limbs[i], NULL))
      exit(1);
  const rk_vec3 poles[4] = {{0, 0, 1}, {0, 0, 1}, {0, 0, -1}, {0, 0, -1}};
  bool *limb_dof = calloc(w->n, sizeof(bool));
  for (int i = 0; i < 4; i++) {
    for (int k = 0; k < 3; k++)
      limb_dof[limbs[i].start_dof + k] = true;
    limb_dof[limbs[i].mid_dof] = true;
  }
  double *q = calloc(w->n, sizeof(double)), *t_us = calloc(HUM_FRAMES, sizeof(double));
  double *iters = calloc(HUM_FRAMES, sizeof(double)), *fk_us = calloc(HUM_FRAMES, sizeof(double));
  rk_mat4 *models = calloc(w->links, sizeof(rk_mat4));
  size_t reached = 0;
  double worst = 0;
  for (int rep = 0; rep < 3; rep++) { /* the last repetition is kept (warm caches) */
    memcpy(q, w->q_truth, w->n * sizeof(double));
    reached = 0;
    worst = 0;
    for (int f = 0; f < HUM_FRAMES; f++) {
      /* The body (root, spine, clavicles) follows the motion; the limbs are solved, warm-started
       * from the previous frame. */
      const double *qt = w->q_truth + (size_t)f * w->n;
      for (size_t k = 0; k < w->n; k++)
        if (!limb_dof[k])
          q[k] = qt[k];
      const double t0 = rk_bench_now_ns();
      rk_tree_fk(t, q, NULL, models);
      const double tf = rk_bench_now_ns();
      bool all = true;
      for (int i = 0; i < 4; i++)
        all &=
            rk_ik_limb_solve(t, &limbs[i], rk_mat4_get_translation(&w->targets[(size_t)f * 4 + i]),
                             poles[i], models, q);
      const double t1 = rk_bench_now_ns();
      t_us[f] = (t1 - t0) * 1e-3;
      fk_us[f] = (tf - t0) * 1e-3;
      iters[f] = 1;
      /* Check outside the timing. */
      rk_tree_fk(t, q, NULL, models);
      for (int i = 0; i < 4; i++)
        worst = fmax(worst, rk_vec3_norm(rk_vec3_sub(
                                rk_mat4_get_translation(&models[limbs[i].end]),
                                rk_mat4_get_translation(&w->targets[(size_t)f * 4 + i]))));
      reached += all;
    }
  }
  char extra[96];
  snprintf(extra, sizeof extra, "goals=4_limbs method=analytic fk_median_us=%.2f",
           rk_bench_median(fk_us, HUM_FRAMES));
  print_frames("humanoid_twobone", extra, t_us, iters, HUM_FRAMES, reached, worst, 0);
  free(fk_us);
  free(limb_dof);
  free(q);
  free(t_us);
  free(iters);
  free(models);
}

/* Numeric: LM on the four goals over all DOFs (58), optionally feet pinned as hard loops. */
static void bench_dls(walk *w, bool pinned) {
  const rk_tree *t = w->tree;
  rk_ik_goal goals[4];
  for (int i = 0; i < 4; i++) {
    const rk_ik_goal g = RK_IK_GOAL_INIT;
    goals[i] = g;
    goals[i].link = w->goal_links[i];
    goals[i].kind = i < 2 ? RK_IK_POSE : RK_IK_POSITION;
  }
  rk_loop loops[2];
  rk_ik_problem p = RK_IK_PROBLEM_INIT;
  p.tree = t;
  p.goals = pinned ? goals + 2 : goals;
  p.goal_count = pinned ? 2 : 4;
  p.loops = pinned ? loops : NULL;
  p.loop_count = pinned ? 2 : 0;
  double *posture = calloc(w->n, sizeof(double));
  rk_tree_q_rest(t, posture);
  p.posture = posture;
  p.posture_gain = 0.05;
  rk_ik_ws *ws = rk_ik_ws_new(&p, 24, NULL);
  rk_ik_options o = RK_IK_OPTIONS_INIT;
  o.position_tolerance = 1e-4; /* 0.1 mm, the retargeting goal error is 1 mm */
  o.orientation_tolerance = 1e-3;
  o.closure_tolerance = 1e-7;
  o.max_iterations = 50;
  o.damping = 1e-5; /* warm starts: the previous frame is close, start near Gauss-Newton */
  double *q = calloc(w->n, sizeof(double)), *t_us = calloc(HUM_FRAMES, sizeof(double));
  double *iters = calloc(HUM_FRAMES, sizeof(double));
  rk_mat4 *models = calloc(w->links, sizeof(rk_mat4));
  size_t reached = 0;
  double worst = 0, worst_closure = 0;
  for (int rep = 0; rep < 3; rep++) {
    memcpy(q, w->q_truth, w->n * sizeof(double));
    /* Start from a neutral body, not the truth. */
    for (size_t k = 6; k < w->n; k++)
      q[k] = 0.5 * q[k];
    reached = 0;
    worst = worst_closure = 0;
    for (int f = 0; f < HUM_FRAMES; f++) {
      for (int i = 0; i < 4; i++) {
        const rk_mat4 *T = &w->targets[(size_t)f * 4 + i];
        goals[i].target_position = rk_mat4_get_translation(T);
        const rk_mat3 R = rk_mat4_get_rotation(T);
        goals[i].target_orientation = rk_quat_from_mat3(&R);
        if (pinned && i < 2) {
          loops[i].kind = RK_LOOP_RIGID;
          loops[i].link_a = w->goal_links[i];
          loops[i].frame_a = rk_mat4_identity();
          loops[i].link_b = -1;
          loops[i].frame_b = *T;
        }
      }
      rk_ik_result res;
      const double t0 = rk_bench_now_ns();
      rk_ik_solve(&p, &o, q, ws, &res, NULL);
      const double t1 = rk_bench_now_ns();
      t_us[f] = (t1 - t0) * 1e-3;
      iters[f] = res.iterations;
      reached += res.reached;
      rk_tree_fk(t, q, NULL, models);
      for (int i = 0; i < 4; i++)
        worst = fmax(worst, rk_vec3_norm(rk_vec3_sub(
                                rk_mat4_get_translation(&models[w->goal_links[i]]),
                                rk_mat4_get_translation(&w->targets[(size_t)f * 4 + i]))));
      worst_closure = fmax(worst_closure, res.closure_error);
    }
  }
  char extra[160];
  snprintf(extra, sizeof extra, "goals=%s method=lm dofs=%zu tol=1e-4m,1e-3rad",
           pinned ? "2_hands+2_feet_hard_loops" : "2_feet_pose+2_hands", w->n);
  print_frames(pinned ? "humanoid_dls_pinned" : "humanoid_dls", extra, t_us, iters, HUM_FRAMES,
               reached, worst, worst_closure);
  rk_ik_ws_free(ws);
  free(posture);
  free(q);
  free(t_us);
  free(iters);
  free(models);
}

int main(int argc, char **argv) {
  const char *path = NULL, *only = NULL;
  size_t limit = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--n") == 0 && i + 1 < argc)
      limit = (size_t)atol(argv[++i]);
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
    else if (argv[i][0] != '-')
      path = argv[i];
    else {
      fprintf(stderr, "usage: rk_bench_ik [TARGETS_FILE] [--n N] [--only iiwa|humanoid|twobone]\n");
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

  const rk_dh_chain chain = {RK_DH_STANDARD, rk_rig_iiwa14_rows, NJ, rk_mat4_identity(),
                             rk_mat4_identity()};
  double lo[NJ], hi[NJ];
  for (int j = 0; j < NJ; j++) {
    hi[j] = rk_rig_iiwa14_limit_deg[j] * RK_DEG;
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
  const bool do_iiwa = !only || strcmp(only, "iiwa") == 0;
  const bool do_hum = !only || strcmp(only, "humanoid") == 0 || strcmp(only, "twobone") == 0;
  const bool do_dls = !only || strcmp(only, "humanoid") == 0;
  if (do_iiwa) {
    run("ik", "rand", "method=lm tol=1e-5m,1e-4rad restarts=on", t, n, true, &o, &chain, lo, hi,
        NULL);
    run("ik", "zero", "method=lm tol=1e-5m,1e-4rad restarts=on", t, n, false, &o, &chain, lo, hi,
        NULL);
    rk_ik_options tp = o;
    tp.position_tolerance = 1e-5;
    tp.orientation_tolerance = 1e-5;
    tp.time_budget_s = 5e-3;
    tp.max_iterations = 1 << 30;
    tp.max_restarts = 1 << 30;
    run("ik_tracik_protocol", "nominal", "method=lm eps=1e-5 timeout_ms=5", t, n, false, &tp,
        &chain, lo, hi, NULL);
    rk_tree *iiwa = rk_rig_iiwa14_tree(NULL);
    run("ik_tree", "rand", "method=lm tol=1e-5m,1e-4rad restarts=on mechanism=tree", t, n, true, &o,
        &chain, lo, hi, iiwa);
    rk_tree_unref(iiwa);
  }
  free(t);

  if (do_hum) {
    walk w;
    walk_init(&w);
    bench_twobone(&w);
    if (do_dls) {
      bench_dls(&w, false);
      bench_dls(&w, true);
    }
    walk_free(&w);
  }
  g_free(def);
  return worst < 1e-9 ? 0 : 1;
}
