/* Internal: the clip evidence rk_tree_from_skeleton (tree_build.c) types joints by (tree_fit.c):
 * sampled local poses, single-axis (hinge) fits, line fits and Euler lock scores. */
#ifndef RK_TREE_FIT_H
#define RK_TREE_FIT_H

#include <rigkit/clip.h>
#include <rigkit/euler.h>
#include <rigkit/skeleton.h>

/* Clip evidence gathered by tree_fit.c: per sampled frame the local pose of every joint. */
typedef struct rk__tree_samples {
  size_t frames, n;
  rk_quat *rot;   /* [frame * n + joint] */
  rk_vec3 *trans; /* [frame * n + joint] */
} rk__tree_samples;

/* Samples a clip into at most max_frames frames (allocates; free with rk__tree_samples_clear). */
void rk__tree_samples_init(rk__tree_samples *s, const rk_skeleton *skel, const rk_clip *clip,
                           size_t max_frames);
/* Frees the samples' arrays and empties s. */
void rk__tree_samples_clear(rk__tree_samples *s);

/* Result of a single-axis fit of a joint's rotations d_f (relative to its rest rotation). */
typedef struct rk__hinge_fit {
  rk_vec3 axis;    /* unit, in the rest frame of the joint (right-multiplied) */
  rk_quat zero;    /* rotation on the hinge nearest to the identity (relative to the rest) */
  double rms, max; /* residual angles off the hinge */
  double range;    /* max - min hinge angle */
  double motion;   /* largest angle from the mean rotation */
} rk__hinge_fit;

/* Fits d[0..count) (unit quaternions, any signs) with C exp(theta_f axis). */
void rk__fit_hinge(const rk_quat *d, size_t count, rk__hinge_fit *out);
/* Fits points p[0..count) with a line: unit direction, mean, largest distance off the line and
 * range along it. */
void rk__fit_line(const rk_vec3 *p, size_t count, rk_vec3 *dir, rk_vec3 *mean, double *max_off,
                  double *range);
/* Largest |middle Euler angle| of the rotations d[0..count) in an order (smaller = further from
 * gimbal lock). */
double rk__euler_lock_margin_score(rk_euler_order order, const rk_quat *d, size_t count);

#endif
