/* Forward kinematics jobs of a skeleton: checking a job, running it (fk_pass.c), and the
 * convenience rk_fk_models. */
#include <rigkit/fk.h>

#include "fk_pass.h"

#include <stdint.h>
#include <string.h>

/* Skeletons up to this many joints validate a subset with a bitmap on the stack; larger ones
 * with a binary search per joint (whose mispredicted branches cost about as much as the FK). */
#define FK_BITMAP_JOINTS 4096

bool rk_fk_job_validate(const rk_fk_job *job) {
  if (!job || !job->skeleton || !job->locals || !job->models)
    return false;
  const size_t n = rk_skeleton_joint_count(job->skeleton);
  if (job->locals_count < n || job->models_count < n)
    return false;
  if (!job->joints)
    return true;
  const int *parents = rk_skeleton_parents(job->skeleton);
  uint64_t seen[FK_BITMAP_JOINTS / 64];
  const bool bitmap = n <= FK_BITMAP_JOINTS;
  if (bitmap)
    memset(seen, 0, (n + 63) / 64 * sizeof seen[0]);
  for (size_t k = 0; k < job->joints_count; k++) {
    int j = job->joints[k];
    if (j < 0 || (size_t)j >= n || (k > 0 && j <= job->joints[k - 1]))
      return false;
    /* Closed under parents: the parent must appear earlier in the (sorted) list. */
    int p = parents[j];
    if (p < 0) {
      /* a root */
    } else if (bitmap) {
      if (!(seen[p / 64] >> (p % 64) & 1))
        return false;
    } else {
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
    if (bitmap)
      seen[j / 64] |= (uint64_t)1 << (j % 64);
  }
  return true;
}

bool rk_fk_job_run(const rk_fk_job *job) {
  if (!rk_fk_job_validate(job))
    return false;
  /* A valid list of every joint is 0..n-1 (sorted, distinct): the whole-skeleton loop. */
  const size_t n = rk_skeleton_joint_count(job->skeleton);
  const bool all = !job->joints || job->joints_count == n;
  rk__fk_pass(rk_skeleton_parents(job->skeleton), job->locals, job->root,
              all ? NULL : job->joints, all ? n : job->joints_count, job->models);
  return true;
}

void rk_fk_models(const rk_skeleton *s, const rk_transform *locals, rk_mat4 *models) {
  rk__fk_pass(rk_skeleton_parents(s), locals, NULL, NULL, rk_skeleton_joint_count(s), models);
}
