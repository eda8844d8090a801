/* Batched tree FK (tree_fk_batch.c): each pose of a batch gets rk_tree_fk's frames in both layouts,
 * on every form of joint, odd batch sizes and tails, strided DOF vectors, a root transform and
 * angles beyond the vector kernel's range; jobs that do not fit are refused untouched. CTest runs
 * this suite at every CPU level (RIGKIT_CPU=baseline, avx2, and the widest).
 *
 * Bit for bit, except below ball and free joints with FMA (the AVX2 and AVX-512 passes): their
 * three turns a c + b s are the same expressions in both passes, but GCC fuses either product
 * into the FMA depending on the code around it, so the last bit can differ there (and below);
 * within 1e-12 of the frame's scale. Without FMA (baseline) every joint is bit for bit. */
#include "tree_fixtures.h"

#include <stdlib.h>
#include <string.h>

enum { LANES = RK_FK_BATCH_LANES };

/* Entry e (column e / 3, row e % 3) of pose p, joint j in a structure-of-arrays output. */
static double soa_at(const double *soa, size_t joints, size_t p, size_t j, int e) {
  return soa[((p / LANES * joints + j) * 12 + (size_t)e) * LANES + p % LANES];
}

/* rk_tree_fk_batch_run on `count` poses at q (stride doubles apart) under root, in both layouts,
 * against rk_tree_fk pose by pose: the 12 entries bit for bit, the frames layout's bottom row
 * exactly 0 0 0 1, the lanes of a last partial block the last pose's. */
static void check_batch(const rk_tree *t, const double *q, size_t stride, size_t count,
                        const rk_mat4 *root) {
  const size_t n = rk_tree_link_count(t);
  const char *level = getenv("RIGKIT_CPU");
  bool exact = level && strcmp(level, "baseline") == 0;
  if (!exact) { /* without ball and free joints, bit for bit at every level */
    exact = true;
    for (size_t j = 0; j < n; j++)
      exact = exact && rk_tree_joint(t, j)->type != RK_JOINT_BALL &&
              rk_tree_joint(t, j)->type != RK_JOINT_FREE;
  }
  g_autofree rk_mat4 *expect = g_new(rk_mat4, n);
  rk_tree_fk_batch_job job = RK_TREE_FK_BATCH_JOB_INIT;
  job.tree = t;
  job.q = q;
  job.q_stride = stride;
  job.count = count;
  job.root = root;
  job.soa_size = rk_tree_fk_batch_soa_size(t, count);
  cr_assert_eq(job.soa_size, (count + LANES - 1) / LANES * n * 12 * LANES);
  g_autofree double *soa = g_new(double, job.soa_size);
  job.soa = soa;
  cr_assert(rk_tree_fk_batch_run(&job));
  g_autofree rk_mat4 *models = g_new(rk_mat4, count * (n + 1));
  g_autofree double *scratch = g_new(double, rk_tree_fk_batch_scratch_size(t));
  rk_tree_fk_batch_job frames = job;
  frames.layout = RK_FK_BATCH_FRAMES;
  frames.soa = NULL;
  frames.models = models;
  frames.models_stride = n + 1; /* a gap after each pose */
  frames.models_count = count * (n + 1);
  frames.scratch = scratch;
  frames.scratch_size = rk_tree_fk_batch_scratch_size(t);
  cr_assert(rk_tree_fk_batch_run(&frames));
  const size_t padded = (count + LANES - 1) / LANES * LANES;
  for (size_t p = 0; p < padded; p++) {
    const size_t pose = p < count ? p : count - 1; /* unused lanes repeat the last pose */
    rk_tree_fk(t, q + pose * stride, root, expect);
    for (size_t j = 0; j < n; j++) {
      const double *m = expect[j].m, *got = models[pose * (n + 1) + j].m;
      const double tol = 1e-12 * (1.0 + fabs(m[12]) + fabs(m[13]) + fabs(m[14]));
      for (int e = 0; e < 12; e++) {
        const double v = soa_at(soa, n, p, j, e), w = m[e / 3 * 4 + e % 3];
        const double u = got[e / 3 * 4 + e % 3];
        if (exact) {
          cr_assert(memcmp(&v, &w, sizeof v) == 0,
                    "count %zu pose %zu joint %zu entry %d: %.17g != %.17g", count, p, j, e, v, w);
          cr_assert(memcmp(&u, &w, sizeof w) == 0, "frames: count %zu pose %zu joint %zu entry %d",
                    count, p, j, e);
        } else {
          cr_assert(fabs(v - w) <= tol, "count %zu pose %zu joint %zu entry %d: %.17g vs %.17g",
                    count, p, j, e, v, w);
          cr_assert(memcmp(&u, &v, sizeof v) == 0, "frames: the layouts differ");
        }
      }
      const double bottom[4] = {0, 0, 0, 1}, row[4] = {got[3], got[7], got[11], got[15]};
      cr_assert(memcmp(row, bottom, sizeof row) == 0);
    }
  }
}

/* Poses of t, `stride` doubles apart (the gaps hold NaN, which must not be read). */
static double *random_poses(const rk_tree *t, size_t count, size_t stride, guint64 *rng,
                            double scale) {
  const size_t nd = rk_tree_dof_count(t);
  double *q = g_new(double, count * stride + 1);
  for (size_t i = 0; i < count * stride + 1; i++)
    q[i] = NAN;
  for (size_t p = 0; p < count; p++)
    for (size_t k = 0; k < nd; k++)
      q[p * stride + k] = rk_test_uniform(rng, -4, 4) * scale;
  return q;
}

Test(tree_fk_batch, every_form_and_tail_gives_rk_tree_fk_bits) {
  guint64 rng = 31;
  int kinds[10] = {0};
  g_autoptr(rk_tree) t = fx_every_form_tree(&rng, kinds, NULL);
  const size_t nd = rk_tree_dof_count(t);
  rk_mat4 root = rk_mat4_rot_x(0.7); /* Z up to a tilted Y up, moved */
  root.m[12] = 0.5, root.m[13] = -2, root.m[14] = 3;
  const size_t counts[] = {1, 7, 8, 9, 17};
  for (size_t c = 0; c < G_N_ELEMENTS(counts); c++) {
    const size_t stride = nd + (c % 2 ? 3 : 0);
    g_autofree double *q = random_poses(t, counts[c], stride, &rng, c == 3 ? 1e4 : 1.0);
    if (c == 2) {
      q[(nd - 1)] = 2e6; /* beyond the vector kernel's range: libm, in one lane */
      q[stride + nd / 3] = -4e5;
    }
    check_batch(t, q, stride, counts[c], c % 2 ? &root : NULL);
  }
}

Test(tree_fk_batch, robot_and_humanoid_trees) {
  guint64 rng = 5;
  g_autoptr(rk_tree) iiwa = rk_rig_iiwa14_tree(NULL);
  g_autoptr(rk_tree) hum = rk_rig_humanoid_tree(NULL); /* free root, balls, hinges */
  g_autoptr(rk_skeleton) ks = rk_rig_kdl_humanoid_skeleton(NULL);
  cr_assert(iiwa && hum && ks);
  /* The KDL humanoid: revolute joints about coordinate axes, the short forms. */
  rk_joint_spec specs[RK_RIG_KDL_JOINTS];
  size_t ns = 0;
  memset(specs, 0, sizeof specs);
  for (int k = 0; k < RK_RIG_KDL_JOINTS; k++)
    if (rk_rig_kdl_humanoid[k].axis >= 0) {
      const int a = rk_rig_kdl_humanoid[k].axis;
      specs[ns].name = rk_rig_kdl_humanoid[k].name;
      specs[ns].type = RK_JOINT_REVOLUTE;
      specs[ns].axis = rk_vec3_make(a == 0, a == 1, a == 2);
      specs[ns++].order = RK_EULER_N_ORDERS;
    }
  g_autoptr(rk_tree) kdl = fx_tree_of_specs(ks, specs, ns);
  const rk_tree *trees[3] = {iiwa, hum, kdl};
  for (int k = 0; k < 3; k++)
    for (size_t count = 1; count <= 2 * LANES + 1; count += 3) {
      const size_t nd = rk_tree_dof_count(trees[k]);
      g_autofree double *q = random_poses(trees[k], count, nd, &rng, 1.0);
      check_batch(trees[k], q, nd, count, NULL);
    }
}

Test(tree_fk_batch, jobs_that_do_not_fit_are_refused) {
  g_autoptr(rk_tree) t = rk_rig_iiwa14_tree(NULL);
  double q[3 * 7] = {0};
  double soa[3 * 8 * 12 * LANES];
  rk_mat4 models[3 * 8];
  double scratch[8 * 12 * LANES];
  rk_tree_fk_batch_job ok = RK_TREE_FK_BATCH_JOB_INIT;
  ok.tree = t;
  ok.q = q;
  ok.count = 3;
  ok.soa = soa;
  ok.soa_size = rk_tree_fk_batch_soa_size(t, 3);
  cr_assert_leq(ok.soa_size, G_N_ELEMENTS(soa));
  cr_assert(rk_tree_fk_batch_validate(&ok));
  rk_tree_fk_batch_job fr = ok;
  fr.layout = RK_FK_BATCH_FRAMES;
  fr.models = models;
  fr.models_count = 3 * 8;
  fr.scratch = scratch;
  fr.scratch_size = rk_tree_fk_batch_scratch_size(t);
  cr_assert(rk_tree_fk_batch_validate(&fr));
  rk_tree_fk_batch_job bad[12];
  for (int i = 0; i < 12; i++)
    bad[i] = i < 6 ? ok : fr;
  bad[0].tree = NULL;
  bad[1].q = NULL;
  bad[2].q_stride = 6; /* fewer than the 7 DOFs */
  bad[3].soa = NULL;
  bad[4].soa_size = ok.soa_size - 1;
  bad[5].layout = (rk_fk_batch_layout)7;
  bad[6].models = NULL;
  bad[7].models_count = 3 * 8 - 1;
  bad[8].models_stride = 7; /* fewer than the 8 links */
  bad[9].scratch = NULL;
  bad[10].scratch_size = fr.scratch_size - 1;
  bad[11].models_stride = 9; /* 2 * 9 + 8 = 26 > 24 */
  memset(soa, 0x5a, sizeof soa);
  memset(models, 0x5a, sizeof models);
  for (int i = 0; i < 12; i++) {
    cr_assert_not(rk_tree_fk_batch_validate(&bad[i]), "job %d", i);
    cr_assert_not(rk_tree_fk_batch_run(&bad[i]), "job %d", i);
  }
  for (size_t i = 0; i < sizeof soa; i++)
    cr_assert_eq(((unsigned char *)soa)[i], 0x5a);
  for (size_t i = 0; i < sizeof models; i++)
    cr_assert_eq(((unsigned char *)models)[i], 0x5a);
  cr_assert_not(rk_tree_fk_batch_validate(NULL));
  rk_tree_fk_batch_job empty = ok; /* no poses: nothing to read or write */
  empty.count = 0;
  empty.q = NULL;
  empty.soa_size = 0;
  cr_assert(rk_tree_fk_batch_run(&empty));
}
