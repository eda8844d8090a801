/* Forward kinematics of a skeleton: one preorder pass, parent before child. */
#include <rigkit/fk.h>

bool rk_fk_job_validate(const rk_fk_job *job) {
  if (!job || !job->skeleton || !job->locals || !job->models)
    return false;
  const size_t n = rk_skeleton_joint_count(job->skeleton);
  if (job->locals_count < n || job->models_count < n)
    return false;
  if (job->joints) {
    const int *parents = rk_skeleton_parents(job->skeleton);
    for (size_t k = 0; k < job->joints_count; k++) {
      int j = job->joints[k];
      if (j < 0 || (size_t)j >= n || (k > 0 && j <= job->joints[k - 1]))
        return false;
      /* Closed under parents: the parent must appear earlier in the (sorted) list. Walking back
       * from k is linear overall because parents precede children. */
      int p = parents[j];
      if (p >= 0) {
        size_t lo = 0, hi = k; /* binary search for p in joints[0, k) */
        while (lo < hi) {
          size_t mid = (lo + hi) / 2;
          if (job->joints[mid] < p)
            lo = mid + 1;
          else
            hi = mid;
        }
        if (lo >= k || job->joints[lo] != p)
          return false;
      }
    }
  }
  return true;
}

static inline void fk_joint(const int *parents, const rk_transform *locals, const rk_mat4 *root,
                            rk_mat4 *models, size_t j) {
  rk_mat4 local;
  rk_transform_to_mat4_to(&locals[j], &local);
  const int p = parents[j];
  if (p >= 0)
    rk_mat4_mul_affine_to(&models[p], &local, &models[j]);
  else if (root)
    rk_mat4_mul_affine_to(root, &local, &models[j]);
  else
    models[j] = local;
}

bool rk_fk_job_run(const rk_fk_job *job) {
  if (!rk_fk_job_validate(job))
    return false;
  const int *parents = rk_skeleton_parents(job->skeleton);
  if (job->joints) {
    for (size_t k = 0; k < job->joints_count; k++)
      fk_joint(parents, job->locals, job->root, job->models, (size_t)job->joints[k]);
  } else {
    const size_t n = rk_skeleton_joint_count(job->skeleton);
    for (size_t j = 0; j < n; j++)
      fk_joint(parents, job->locals, job->root, job->models, j);
  }
  return true;
}

void rk_fk_models(const rk_skeleton *s, const rk_transform *locals, rk_mat4 *models) {
  const size_t n = rk_skeleton_joint_count(s);
  const int *parents = rk_skeleton_parents(s);
  for (size_t j = 0; j < n; j++)
    fk_joint(parents, locals, NULL, models, j);
}
