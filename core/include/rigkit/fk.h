/* rigkit/fk.h: forward kinematics of a skeleton, as a job (borrowed inputs and outputs, a
 * validate step and a run step, no allocation, safe to run on many threads at once).
 *
 * Index: rk_fk_job, RK_FK_JOB_INIT, rk_fk_job_validate, rk_fk_job_run, rk_fk_models
 */
#ifndef RIGKIT_FK_H
#define RIGKIT_FK_H

#include <rigkit/skeleton.h>

G_BEGIN_DECLS

/** Local poses -> model-space matrices in one preorder pass: models[i] = models[parent] * L_i. */
typedef struct rk_fk_job {
  const rk_skeleton *skeleton; /* required */
  const rk_transform *locals;  /* local space (relative to the parent), one per joint, required */
  size_t locals_count;         /* >= joint count */
  const rk_mat4 *root;         /* model-space transform placed above the roots; NULL = identity */
  const int *joints;           /* optional subset to compute: ascending, closed under parents
                                  (rk_skeleton_ancestor_closure); NULL = every joint */
  size_t joints_count;
  rk_mat4 *models;             /* output, model space, indexed by joint; >= joint count */
  size_t models_count;
} rk_fk_job;

/** Initialiser for an empty job (no optional field set). */
#define RK_FK_JOB_INIT {NULL, NULL, 0, NULL, NULL, 0, NULL, 0}

/** True when every required field is set, the buffers are large enough and the subset (if any) is
 * ascending, in range and closed under parents. */
RK_API bool rk_fk_job_validate(const rk_fk_job *job);
/** Runs the job (validating first); false when the job is not valid (nothing written). Only the
 * joints of the subset are written when one is given. */
RK_API bool rk_fk_job_run(const rk_fk_job *job);
/** Convenience: model matrices of every joint for the given locals (locals and models have
 * joint_count entries). */
RK_API void rk_fk_models(const rk_skeleton *s, const rk_transform *locals, rk_mat4 *models);

G_END_DECLS

#endif
