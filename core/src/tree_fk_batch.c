/* Forward kinematics of many poses of a tree at once (rigkit/tree_fk_batch.h): job checks, blocks
 * of RK_FK_BATCH_LANES poses in structure-of-arrays form (a pose per lane) through the pass of
 * tree_fk_batch_pass.h in the widest registers of the CPU, multiversioned like rk_tree_fk's pass
 * (baseline x86-64, AVX2+FMA, AVX-512), and the frames layout written from a block's scratch. */
#include <rigkit/tree_fk_batch.h>

#include "cpu.h"
#include "sincos_lanes.h"
#include "tree_internal.h"

#include <string.h>

#define L RK_FK_BATCH_LANES /* 8: identity_frame below spells its lanes out */
#define FRAME (12 * L) /* doubles per joint in a block */
#define E(c, r) ((c) * 3 + (r)) /* entry of row r of column c (column 3: the translation) */

#define INL static inline __attribute__((always_inline))

/* DOFs whose sines and cosines a group of lanes keeps at once (as rk_tree_fk's FK_BATCH). */
#define CHUNK 64

/* A block being computed: each lane's DOF vector, the root above the roots (as a frame of the
 * block, and as given: NULL is the identity), and the block's frames (joint j at out + j * FRAME).
 * Vectors move through memcpy and pointers: by value, without the widest registers, they change
 * the ABI (-Wpsabi). */
typedef struct block {
  const rk_tree *t;
  const double *q[L];
  const double *top;
  const rk_mat4 *root;
  double *out;
} block;

/* Joint j of lanes [g, g + n) through its local transform (rk__tree_fk_local: rk_tree_fk's one
 * copy of that path). */
static void local_lanes(const block *b, size_t j, int g, int n, const double *P, double *O) {
  const int parent = b->t->fk[j].parent;
  for (int l = g; l < g + n; l++) {
    rk_mat4 pm = {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}}, m;
    for (int e = 0; e < 12; e++)
      pm.m[e / 3 * 4 + e % 3] = P[e * L + l];
    rk__tree_fk_local(b->t, j, b->q[l], parent >= 0 ? &pm : b->root, &m);
    for (int e = 0; e < 12; e++)
      O[e * L + l] = m.m[e / 3 * 4 + e % 3];
  }
}

/* The pass in vectors of 8, 4 and 2 doubles (tree_fk_batch_pass.h): group_pass8, 4, 2. */
#define BW 8
#include "tree_fk_batch_pass.h"
#define BW 4
#include "tree_fk_batch_pass.h"
#define BW 2
#include "tree_fk_batch_pass.h"

/* A block through the tree in the variant rk_tree_fk's pass runs on this CPU (tree_fk.c picks
 * the same way): one group of 8 lanes with AVX-512, two of 4 with AVX2, four of 2 on baseline
 * x86-64 (the matrix form for every joint there, as rk_tree_fk's baseline pass). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(RK_NO_MULTIVERSION)
static void block_base(const block *b) {
  for (int g = 0; g < L; g += 2)
    group_pass2(b, g, false, false);
}
__attribute__((target("avx2,fma"))) static void block_avx2(const block *b) {
  for (int g = 0; g < L; g += 4)
    group_pass4(b, g, true, b->t->fk_balls);
}
__attribute__((target("avx512f,avx512dq,avx512vl,avx2,fma"))) static void
block_avx512(const block *b) {
  group_pass8(b, 0, true, b->t->fk_balls);
}
static void run_block(const block *b) {
  if (rk__cpu_has_avx512())
    block_avx512(b);
  else if (rk__cpu_has_avx2_fma())
    block_avx2(b);
  else
    block_base(b);
}
#else
static void run_block(const block *b) {
  for (int g = 0; g < L; g += 2)
    group_pass2(b, g, false, false);
}
#endif

size_t rk_tree_fk_batch_soa_size(const rk_tree *tree, size_t count) {
  return (count + L - 1) / L * rk_tree_link_count(tree) * FRAME;
}

size_t rk_tree_fk_batch_scratch_size(const rk_tree *tree) {
  return rk_tree_link_count(tree) * FRAME;
}

bool rk_tree_fk_batch_validate(const rk_tree_fk_batch_job *job) {
  if (!job || !job->tree)
    return false;
  const rk_tree *t = job->tree;
  const size_t stride = job->q_stride ? job->q_stride : t->ndof;
  if (job->count > 0 && t->ndof > 0 && (!job->q || stride < t->ndof))
    return false;
  if (job->layout == RK_FK_BATCH_SOA)
    return job->soa && job->soa_size >= rk_tree_fk_batch_soa_size(t, job->count);
  if (job->layout != RK_FK_BATCH_FRAMES)
    return false;
  const size_t ms = job->models_stride ? job->models_stride : t->n;
  if (!job->models || ms < t->n || !job->scratch ||
      job->scratch_size < rk_tree_fk_batch_scratch_size(t))
    return false;
  return job->count == 0 || (job->models_count >= t->n &&
                             (job->models_count - t->n) / ms >= job->count - 1);
}

/* The block's frames into the frames layout: pose first + l at models[(first + l) * stride]. */
static void scatter_frames(const rk_tree *t, const double *frames, size_t lanes, rk_mat4 *models,
                           size_t stride) {
  for (size_t j = 0; j < t->n; j++)
    for (size_t l = 0; l < lanes; l++) {
      double *m = models[l * stride + j].m;
      const double *f = frames + j * FRAME + l;
      for (int k = 0; k < 4; k++) {
        m[k * 4] = f[E(k, 0) * L];
        m[k * 4 + 1] = f[E(k, 1) * L];
        m[k * 4 + 2] = f[E(k, 2) * L];
        m[k * 4 + 3] = k == 3 ? 1.0 : 0.0;
      }
    }
}

bool rk_tree_fk_batch_run(const rk_tree_fk_batch_job *job) {
  if (!rk_tree_fk_batch_validate(job))
    return false;
  const rk_tree *t = job->tree;
  const size_t stride = job->q_stride ? job->q_stride : t->ndof;
  const size_t ms = job->models_stride ? job->models_stride : t->n;
  /* The frame above the roots in every lane: the root's, or the identity's without a root. */
#define LANES_OF(x) x, x, x, x, x, x, x, x
  static const double identity_frame[FRAME] = {
      LANES_OF(1), LANES_OF(0), LANES_OF(0), LANES_OF(0), LANES_OF(1), LANES_OF(0),
      LANES_OF(0), LANES_OF(0), LANES_OF(1), LANES_OF(0), LANES_OF(0), LANES_OF(0)};
#undef LANES_OF
  double root_frame[FRAME];
  if (job->root)
    for (int e = 0; e < 12; e++)
      for (int l = 0; l < L; l++)
        root_frame[e * L + l] = job->root->m[e / 3 * 4 + e % 3];
  const double *top_frame = job->root ? root_frame : identity_frame;
  block b = {t, {NULL}, top_frame, job->root, NULL};
  for (size_t first = 0; first < job->count; first += L) {
    const size_t lanes = job->count - first < L ? job->count - first : L;
    for (size_t l = 0; l < L; l++) /* unused lanes repeat the last pose */
      b.q[l] = job->q ? job->q + (first + (l < lanes ? l : lanes - 1)) * stride : NULL;
    b.out = job->layout == RK_FK_BATCH_SOA ? job->soa + first / L * t->n * FRAME : job->scratch;
    run_block(&b);
    if (job->layout == RK_FK_BATCH_FRAMES)
      scatter_frames(t, b.out, lanes, job->models + first * ms, ms);
  }
  return true;
}
