/* FK benchmark: the 25-joint humanoid tree of the KDL peer harness (kdl_bench's kHum[],
 * rk_rig_kdl_humanoid) and the KUKA iiwa 14 DH chain, timed the same way as kdl_bench so the two can run side by side
 * (tests/bench/run_fk.sh). Usage: rk_bench_fk [--quick] */
#include "bench_support.h"
#include "rk_rigs.h"

#include <rigkit/rigkit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The humanoid of the KDL peer (rk_rigs.h): each local transform is T(origin) R(axis, q), as
 * KDL's URDF-style RotAxis joints. */
#define kHum rk_rig_kdl_humanoid
#define N_HUM RK_RIG_KDL_JOINTS
#define N_JOINTS (N_HUM + 1) /* + the pelvis root */
#define N_DOF 25
#define NQ 4096

typedef struct hum_ctx {
  const rk_skeleton *skel;
  int dof_joint[N_DOF]; /* skeleton joint of each DOF */
  rk_vec3 dof_axis[N_DOF];
  double *qpool;          /* NQ x N_DOF */
  rk_transform *lpool;    /* NQ x N_JOINTS, precomputed locals (the animation case) */
  rk_transform locals[N_JOINTS];
  rk_mat4 models[N_JOINTS];
  const rk_tree *tree;   /* the same humanoid as a kinematic tree: the 25 revolute DOFs, the rest fixed */
  double *tqpool;        /* NQ x N_DOF, qpool in the tree's DOF order */
  rk_mat4 tree_models[N_JOINTS];
  int leaves[5];
  int subset[N_JOINTS];
  size_t subset_count;
} hum_ctx;

/* q -> local rotations (one sincos of the half angle per DOF) -> one preorder FK pass. */
static void hum_from_q(void *p, long i) {
  hum_ctx *c = p;
  const double *q = c->qpool + (size_t)(i & (NQ - 1)) * N_DOF;
  for (int d = 0; d < N_DOF; d++) {
    double s, co;
    rk_sincos(0.5 * q[d], &s, &co);
    const rk_vec3 a = c->dof_axis[d];
    c->locals[c->dof_joint[d]].r = rk_quat_make(a.x * s, a.y * s, a.z * s, co);
  }
  rk_fk_models(c->skel, c->locals, c->models);
  rk_bench_sink = c->models[N_JOINTS - 1].m[12];
}

/* q -> all frames through the library's q-in API (rk_tree_fk: batched sincos, Rodrigues). */
static void hum_tree_fk(void *p, long i) {
  hum_ctx *c = p;
  rk_tree_fk(c->tree, c->tqpool + (size_t)(i & (NQ - 1)) * N_DOF, NULL, c->tree_models);
  rk_bench_sink = c->tree_models[N_JOINTS - 1].m[12];
}
/* The tree of skel with a fixed root, the joints in specs as given and the others default_type;
 * exits with a message on failure. */
static rk_tree *tree_or_exit(const rk_skeleton *skel, rk_joint_type default_type,
                             const rk_joint_spec *specs, size_t n, const char *what) {
  rk_tree_options o = RK_TREE_OPTIONS_INIT;
  o.root_type = RK_JOINT_FIXED;
  o.default_type = default_type;
  o.joints = specs;
  o.joint_count = n;
  GError *error = NULL;
  rk_tree *t = rk_tree_from_skeleton(skel, NULL, &o, &error);
  if (!t) {
    fprintf(stderr, "rk_bench_fk: %s: %s\n", what, error->message);
    exit(1);
  }
  return t;
}

/* The kHum skeleton as a tree (revolute DOFs about kHum's axes, everything else fixed) and the
 * q pool permuted into the tree's DOF order. */
static rk_tree *build_humanoid_tree(hum_ctx *c) {
  rk_joint_spec specs[N_DOF];
  memset(specs, 0, sizeof specs);
  for (int d = 0; d < N_DOF; d++) {
    specs[d].name = rk_skeleton_joint_name(c->skel, (size_t)c->dof_joint[d]);
    specs[d].type = RK_JOINT_REVOLUTE;
    specs[d].axis = c->dof_axis[d];
    specs[d].order = RK_EULER_N_ORDERS;
  }
  rk_tree *t = tree_or_exit(c->skel, RK_JOINT_FIXED, specs, N_DOF, "humanoid tree");
  if (rk_tree_dof_count(t) != N_DOF) {
    fprintf(stderr, "rk_bench_fk: humanoid tree: wrong DOF count\n");
    exit(1);
  }
  c->tqpool = malloc(sizeof(double) * NQ * N_DOF);
  for (int d = 0; d < N_DOF; d++) {
    const int td = rk_tree_joint(t, (size_t)c->dof_joint[d])->dof_offset;
    for (int k = 0; k < NQ; k++)
      c->tqpool[k * N_DOF + td] = c->qpool[k * N_DOF + d];
  }
  return t;
}
/* The same skeleton as a mocap-style tree: every kHum joint a ball (3 Euler DOFs), the ends and
 * the pelvis fixed; q in [-1, 1] rad per DOF. */
typedef struct ball_ctx {
  const rk_tree *tree;
  size_t ndof;
  double *qpool; /* NQ x ndof */
  rk_mat4 models[N_JOINTS];
} ball_ctx;

static void hum_ball_fk(void *p, long i) {
  ball_ctx *c = p;
  rk_tree_fk(c->tree, c->qpool + (size_t)(i & (NQ - 1)) * c->ndof, NULL, c->models);
  rk_bench_sink = c->models[N_JOINTS - 1].m[12];
}

static rk_tree *build_ball_tree(const rk_skeleton *skel, ball_ctx *c, rk_bench_rng *rng) {
  rk_joint_spec specs[N_HUM];
  size_t n = 0;
  memset(specs, 0, sizeof specs);
  for (int j = 0; j < N_HUM; j++)
    if (kHum[j].axis < 0) {
      specs[n].name = kHum[j].name;
      specs[n].type = RK_JOINT_FIXED;
      specs[n].order = RK_EULER_N_ORDERS;
      n++;
    }
  rk_tree *t = tree_or_exit(skel, RK_JOINT_BALL, specs, n, "ball tree");
  c->tree = t;
  c->ndof = rk_tree_dof_count(t);
  c->qpool = malloc(sizeof(double) * NQ * c->ndof);
  for (size_t k = 0; k < NQ * c->ndof; k++)
    c->qpool[k] = rk_bench_uniform(rng, -1.0, 1.0);
  return t;
}

/* Many poses at once (rk_tree_fk_batch_run): each call takes the next `poses` of the pool. */
typedef struct batch_ctx {
  rk_tree_fk_batch_job job;
  const double *qpool; /* NQ x dofs */
  size_t dofs;
} batch_ctx;

static void hum_tree_fk_batch(void *p, long i) {
  batch_ctx *c = p;
  c->job.q = c->qpool + (size_t)((i * (long)c->job.count) & (NQ - 1)) * c->dofs;
  rk_tree_fk_batch_run(&c->job);
  rk_bench_sink = c->job.layout == RK_FK_BATCH_SOA ? c->job.soa[0] : c->job.models[0].m[12];
}

/* Largest difference between rk_tree_fk and the batch on the poses of its first call: zero when
 * the batch gives rk_tree_fk's bits, as it should on this tree. */
static double check_batch(batch_ctx *c, const rk_tree *t) {
  rk_mat4 expect[N_JOINTS];
  double err = 0.0;
  hum_tree_fk_batch(c, 0);
  for (size_t p = 0; p < c->job.count; p++) {
    rk_tree_fk(t, c->qpool + p * c->dofs, NULL, expect);
    for (int j = 0; j < N_JOINTS; j++)
      for (int e = 0; e < 12; e++) {
        const int m = e / 3 * 4 + e % 3;
        const size_t at = ((p / RK_FK_BATCH_LANES * N_JOINTS + (size_t)j) * 12 + (size_t)e) *
                              RK_FK_BATCH_LANES + p % RK_FK_BATCH_LANES;
        const double v = c->job.layout == RK_FK_BATCH_FRAMES
                             ? c->job.models[p * N_JOINTS + (size_t)j].m[m]
                             : c->job.soa[at];
        err = fmax(err, fabs(v - expect[j].m[m]));
      }
  }
  return err;
}

/* Times `poses` poses per call of the humanoid tree in `layout`, reported per pose as `name`;
 * returns the check error. The output buffer is reused call after call, as treefk_onepass reuses
 * its 31 frames: in L1 for one block (8 poses, 24 KB), in L2 for 256 poses (760 KB). */
static double bench_batch(const rk_tree *t, const double *qpool, size_t poses,
                          rk_fk_batch_layout layout, const char *name, int reps) {
  batch_ctx c = {RK_TREE_FK_BATCH_JOB_INIT, qpool, N_DOF};
  c.job.tree = t;
  c.job.count = poses;
  c.job.layout = layout;
  c.job.soa_size = rk_tree_fk_batch_soa_size(t, poses);
  c.job.soa = aligned_alloc(64, c.job.soa_size * sizeof(double));
  c.job.models_count = poses * N_JOINTS;
  c.job.models = aligned_alloc(64, c.job.models_count * sizeof(rk_mat4));
  c.job.scratch_size = rk_tree_fk_batch_scratch_size(t);
  c.job.scratch = aligned_alloc(64, c.job.scratch_size * sizeof(double));
  const double err = check_batch(&c, t);
  const long iters = (long)(800 / poses) + 1;
  double mn, mx;
  const double med = rk_bench_run(hum_tree_fk_batch, &c, iters, reps, &mn, &mx);
  char extra[200];
  snprintf(extra, sizeof extra,
           "solver=rk_tree_fk_batch_%s poses_per_call=%zu frames=%d check_err=%.1e",
           layout == RK_FK_BATCH_SOA ? "soa" : "frames", poses, N_JOINTS, err);
  const double k = (double)poses;
  rk_bench_report(name, med / k, mn / k, mx / k, N_DOF, reps, iters * (long)poses, extra);
  free(c.job.soa);
  free(c.job.models);
  free(c.job.scratch);
  return err;
}

/* Largest difference between rk_tree_fk and the quaternion path (q -> locals -> rk_fk_models). */
static double check_ball_tree(ball_ctx *c, const rk_skeleton *skel) {
  rk_transform locals[N_JOINTS];
  rk_mat4 expect[N_JOINTS];
  double err = 0.0;
  for (long i = 0; i < 64; i++) {
    hum_ball_fk(c, i);
    rk_tree_q_to_locals(c->tree, c->qpool + (size_t)i * c->ndof, locals);
    rk_fk_models(skel, locals, expect);
    for (int j = 0; j < N_JOINTS; j++)
      err = fmax(err, rk_mat4_max_abs_diff(&c->models[j], &expect[j]));
  }
  return err;
}

static void hum_from_locals(void *p, long i) {
  hum_ctx *c = p;
  rk_fk_models(c->skel, c->lpool + (size_t)(i & (NQ - 1)) * N_JOINTS, c->models);
  rk_bench_sink = c->models[N_JOINTS - 1].m[12];
}

static void hum_job_5leaves(void *p, long i) {
  hum_ctx *c = p;
  rk_fk_job job = {c->skel, c->lpool + (size_t)(i & (NQ - 1)) * N_JOINTS, N_JOINTS, NULL,
                   c->subset, c->subset_count, c->models, N_JOINTS};
  rk_fk_job_run(&job);
  rk_bench_sink = c->models[c->leaves[4]].m[12];
}

typedef struct chain_ctx {
  rk_dh_chain chain;
  double *qpool; /* NQ x 7 */
  rk_mat4 frames[8], end;
} chain_ctx;

static void iiwa_ee(void *p, long i) {
  chain_ctx *c = p;
  rk_dh_chain_fk(&c->chain, c->qpool + (size_t)(i & (NQ - 1)) * 7, NULL, &c->end);
  rk_bench_sink = c->end.m[12];
}

static void iiwa_all(void *p, long i) {
  chain_ctx *c = p;
  rk_dh_chain_fk(&c->chain, c->qpool + (size_t)(i & (NQ - 1)) * 7, c->frames, NULL);
  rk_bench_sink = c->frames[7].m[12];
}

static rk_skeleton *build_humanoid(hum_ctx *c) {
  GError *error = NULL;
  rk_skeleton *s = rk_rig_kdl_humanoid_skeleton(&error);
  if (!s) {
    fprintf(stderr, "rk_bench_fk: humanoid: %s\n", error->message);
    exit(1);
  }
  int d = 0;
  for (int k = 0; k < N_HUM; k++)
    if (kHum[k].axis >= 0) {
      c->dof_joint[d] = rk_skeleton_find_joint(s, kHum[k].name);
      c->dof_axis[d] = rk_vec3_make(kHum[k].axis == 0, kHum[k].axis == 1, kHum[k].axis == 2);
      d++;
    }
  return s;
}

/* Independent check: r_foot by composing 4x4 matrices along its path with rk_mat4_mul. */
static double check_humanoid(hum_ctx *c) {
  hum_from_q(c, 9);
  const double *q = c->qpool + 9 * N_DOF;
  const char *name = "r_foot";
  rk_mat4 acc = rk_mat4_identity();
  /* Walk from r_foot up to the pelvis collecting the chain, then multiply root-first. */
  int chain[16], n = 0;
  for (int k = N_HUM - 1; k >= 0; k--)
    if (strcmp(kHum[k].name, name) == 0) {
      chain[n++] = k;
      name = kHum[k].parent;
    }
  for (int m = n - 1; m >= 0; m--) {
    const rk_rig_kdl_joint *h = &kHum[chain[m]];
    rk_mat4 t = rk_mat4_translation(rk_vec3_make(h->ox, h->oy, h->oz)), r = rk_mat4_identity();
    if (h->axis >= 0) {
      int d = 0;
      for (int k = 0; k < chain[m]; k++)
        d += kHum[k].axis >= 0;
      r = h->axis == 0 ? rk_mat4_rot_x(q[d]) : h->axis == 1 ? rk_mat4_rot_y(q[d]) : rk_mat4_rot_z(q[d]);
    }
    rk_mat4 tr = rk_mat4_mul(&t, &r);
    acc = rk_mat4_mul(&acc, &tr);
  }
  return rk_mat4_max_abs_diff(&acc, &c->models[rk_skeleton_find_joint(c->skel, "r_foot")]);
}

int main(int argc, char **argv) {
  bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  const int reps = quick ? 7 : 21;
  rk_bench_rng rng = {20240601};
  printf("# rk_bench_fk: rigkit %s, reps=%d (ns_per_call = median over reps)\n", rk_version_string(), reps);

  chain_ctx cc = {{RK_DH_STANDARD, rk_rig_iiwa14_rows, 7, rk_mat4_identity(), rk_mat4_identity()},
                  NULL,
                  {{{0}}},
                  {{0}}};
  cc.qpool = malloc(sizeof(double) * NQ * 7);
  for (int k = 0; k < NQ; k++)
    for (int j = 0; j < 7; j++)
      cc.qpool[k * 7 + j] = rk_bench_uniform(&rng, -rk_rig_iiwa14_limit_deg[j] * RK_DEG,
                                             rk_rig_iiwa14_limit_deg[j] * RK_DEG);
  double mn, mx, med;
  const long it_fk = 20000;
  med = rk_bench_run(iiwa_ee, &cc, it_fk, reps, &mn, &mx);
  rk_bench_report("fk7_ee", med, mn, mx, 7, reps, it_fk, "solver=rk_dh_chain_fk out=tip_frame");
  med = rk_bench_run(iiwa_all, &cc, it_fk, reps, &mn, &mx);
  rk_bench_report("fk7_all", med, mn, mx, 7, reps, it_fk, "solver=rk_dh_chain_fk out=all_8_frames");

  hum_ctx hc;
  memset(&hc, 0, sizeof hc);
  rk_skeleton *s = build_humanoid(&hc);
  hc.skel = s;
  memcpy(hc.locals, rk_skeleton_rest_locals(s), sizeof hc.locals);
  hc.qpool = malloc(sizeof(double) * NQ * N_DOF);
  hc.lpool = malloc(sizeof(rk_transform) * NQ * N_JOINTS);
  for (int k = 0; k < NQ; k++) {
    int d = 0;
    for (int j = 0; j < N_HUM; j++)
      if (kHum[j].axis >= 0)
        hc.qpool[k * N_DOF + d++] = rk_bench_uniform(&rng, -kHum[j].lim, kHum[j].lim);
  }
  for (int k = 0; k < NQ; k++) {
    hum_from_q(&hc, k);
    memcpy(hc.lpool + (size_t)k * N_JOINTS, hc.locals, sizeof hc.locals);
  }
  const char *leaf_names[5] = {"head", "l_hand", "r_hand", "l_foot", "r_foot"};
  for (int l = 0; l < 5; l++)
    hc.leaves[l] = rk_skeleton_find_joint(s, leaf_names[l]);
  hc.subset_count = rk_skeleton_ancestor_closure(s, hc.leaves, 5, hc.subset);
  char extra[200];
  rk_tree *tree = build_humanoid_tree(&hc);
  hc.tree = tree;
  double err = check_humanoid(&hc);
  /* rk_tree_fk on the same q gives the same frames as the quaternion path. */
  hum_tree_fk(&hc, 9);
  for (int j = 0; j < N_JOINTS; j++)
    err = fmax(err, rk_mat4_max_abs_diff(&hc.tree_models[j], &hc.models[j]));
  const long it_tree = 6000;
  med = rk_bench_run(hum_from_q, &hc, it_tree, reps, &mn, &mx);
  snprintf(extra, sizeof extra,
           "solver=q_to_quat_rk_sincos_plus_rk_fk_models frames=%d check_err=%.1e", N_JOINTS, err);
  rk_bench_report("skelfk_from_q", med, mn, mx, N_DOF, reps, it_tree, extra);
  med = rk_bench_run(hum_tree_fk, &hc, it_tree, reps, &mn, &mx);
  snprintf(extra, sizeof extra, "solver=rk_tree_fk frames=%d check_err=%.1e", N_JOINTS, err);
  rk_bench_report("treefk_onepass", med, mn, mx, N_DOF, reps, it_tree, extra);
  med = rk_bench_run(hum_from_locals, &hc, it_tree, reps, &mn, &mx);
  snprintf(extra, sizeof extra, "solver=rk_fk_models_from_local_trs frames=%d", N_JOINTS);
  rk_bench_report("skelfk_locals", med, mn, mx, N_DOF, reps, it_tree, extra);
  med = rk_bench_run(hum_job_5leaves, &hc, it_tree, reps, &mn, &mx);
  snprintf(extra, sizeof extra, "solver=rk_fk_job_subset frames=%zu queries=5_endeffectors", hc.subset_count);
  rk_bench_report("treefk_5leaves", med, mn, mx, N_DOF, reps, it_tree, extra);

  const size_t lanes = RK_FK_BATCH_LANES;
  err = fmax(err, bench_batch(tree, hc.tqpool, lanes, RK_FK_BATCH_SOA, "treefk_batch", reps));
  err = fmax(err, bench_batch(tree, hc.tqpool, 256, RK_FK_BATCH_SOA, "treefk_batch_256", reps));
  err = fmax(err, bench_batch(tree, hc.tqpool, lanes, RK_FK_BATCH_FRAMES, "treefk_batch_frames", reps));

  ball_ctx bc;
  memset(&bc, 0, sizeof bc);
  rk_tree *ball_tree = build_ball_tree(s, &bc, &rng);
  const double ball_err = check_ball_tree(&bc, s);
  err = fmax(err, ball_err);
  med = rk_bench_run(hum_ball_fk, &bc, it_tree, reps, &mn, &mx);
  snprintf(extra, sizeof extra, "solver=rk_tree_fk_balls dofs=%zu frames=%d check_err=%.1e",
           bc.ndof, N_JOINTS, ball_err);
  rk_bench_report("treefk_balls", med, mn, mx, N_DOF, reps, it_tree, extra);

  rk_tree_unref(ball_tree);
  free(bc.qpool);
  rk_tree_unref(tree);
  rk_skeleton_unref(s);
  free(hc.tqpool);
  free(hc.qpool);
  free(hc.lpool);
  free(cc.qpool);
  return err < 1e-12 ? 0 : 1;
}
