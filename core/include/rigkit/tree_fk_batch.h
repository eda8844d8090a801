/* rigkit/tree_fk_batch.h: forward kinematics of many poses of one kinematic tree at once, as a job
 * (borrowed inputs and outputs, a validate step and a run step, no allocation, safe to run on many
 * threads at once on separate outputs).
 *
 * The poses' DOF vectors come frame-major (pose after pose). The model matrices go out either
 * frame-major as rk_mat4 (RK_FK_BATCH_FRAMES) or in structure-of-arrays blocks
 * (RK_FK_BATCH_SOA): RK_FK_BATCH_LANES poses side by side, which is the layout the pass computes
 * in and needs no transposition. In a block, joint j's frame is 12 entries of RK_FK_BATCH_LANES
 * doubles each, entry e = column * 3 + row of the frame's top three rows (the 3x3 linear part's
 * columns, then the translation): pose p, joint j, entry e is at
 *   soa[((p / RK_FK_BATCH_LANES * joint_count + j) * 12 + e) * RK_FK_BATCH_LANES
 *       + p % RK_FK_BATCH_LANES].
 * A last, partial block repeats the last pose in its unused lanes.
 *
 * Each pose gets the frames rk_tree_fk gives it on the same CPU, joint by joint in the same form
 * with the same operations in the same order, lane by lane: bit for bit without FMA (baseline
 * x86-64) and for trees of revolute, prismatic and fixed joints; below ball and free joints the
 * AVX2 and AVX-512 passes can differ in the last bit (the compiler fuses one or the other product
 * of their turns' a c + b s into an FMA depending on the code around them), within 1e-12 of the
 * frame's scale. The frames layout writes the bottom row as exactly 0 0 0 1, where rk_tree_fk can
 * leave a -0.
 *
 * Index: RK_FK_BATCH_LANES, rk_fk_batch_layout, rk_tree_fk_batch_job, RK_TREE_FK_BATCH_JOB_INIT,
 *        rk_tree_fk_batch_soa_size, rk_tree_fk_batch_scratch_size, rk_tree_fk_batch_validate,
 *        rk_tree_fk_batch_run
 */
#ifndef RIGKIT_TREE_FK_BATCH_H
#define RIGKIT_TREE_FK_BATCH_H

#include <rigkit/tree.h>

G_BEGIN_DECLS

/** Poses side by side in a structure-of-arrays block (one AVX-512 register of doubles). */
#define RK_FK_BATCH_LANES 8

/** Where rk_tree_fk_batch_run writes the model matrices. */
typedef enum rk_fk_batch_layout {
  RK_FK_BATCH_SOA,    /* blocks of RK_FK_BATCH_LANES poses in `soa` (see the top of this file) */
  RK_FK_BATCH_FRAMES, /* pose p's joint j at models[p * models_stride + j] */
} rk_fk_batch_layout;

/** Many poses of one tree: models of pose p = rk_tree_fk(tree, q + p * q_stride, root). */
typedef struct rk_tree_fk_batch_job {
  const rk_tree *tree;       /* required */
  const double *q;           /* pose p's DOF vector at q + p * q_stride; required unless count
                                or the DOF count is 0 */
  size_t q_stride;           /* doubles from one pose to the next; 0 = the DOF count */
  size_t count;              /* poses */
  const rk_mat4 *root;       /* model-space transform above the roots, for every pose; NULL =
                                identity */
  rk_fk_batch_layout layout; /* RK_FK_BATCH_SOA (the fast one) or RK_FK_BATCH_FRAMES */
  double *soa;               /* RK_FK_BATCH_SOA output, model space; 64-byte aligned is fastest */
  size_t soa_size;           /* doubles at soa: >= rk_tree_fk_batch_soa_size(tree, count) */
  rk_mat4 *models;           /* RK_FK_BATCH_FRAMES output, model space */
  size_t models_stride;      /* rk_mat4 from one pose to the next; 0 = the joint count */
  size_t models_count;       /* rk_mat4 at models: >= (count - 1) * stride + joint count */
  double *scratch;           /* RK_FK_BATCH_FRAMES: one block's frames, the caller's buffer of
                                rk_tree_fk_batch_scratch_size(tree) doubles */
  size_t scratch_size;
} rk_tree_fk_batch_job;

/** Initialiser for an empty job (structure-of-arrays output, no optional field set). */
#define RK_TREE_FK_BATCH_JOB_INIT {NULL, NULL, 0, 0, NULL, RK_FK_BATCH_SOA, NULL, 0, NULL, 0, 0, NULL, 0}

/** Doubles the structure-of-arrays output of `count` poses of the tree takes (whole blocks).
 * Never fails. */
RK_API size_t rk_tree_fk_batch_soa_size(const rk_tree *tree, size_t count);
/** Doubles of scratch the frames layout needs (one block of the tree's frames). Never fails. */
RK_API size_t rk_tree_fk_batch_scratch_size(const rk_tree *tree);
/** True when the job's required fields are set and its buffers are large enough for its layout. */
RK_API bool rk_tree_fk_batch_validate(const rk_tree_fk_batch_job *job);
/** Runs the job (validating first); false when it is not valid (nothing written). Allocates
 * nothing; the outputs must not overlap the inputs. */
RK_API bool rk_tree_fk_batch_run(const rk_tree_fk_batch_job *job);

G_END_DECLS

#endif
