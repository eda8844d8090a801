/* Clip evidence for joint types: sampling, single-axis (hinge) fits, line fits, Euler lock
 * scores. */
#include "tree_fit.h"

#include "math_internal.h"

#include <rigkit/linalg.h>

#include <string.h>

void rk__tree_samples_init(rk__tree_samples *s, const rk_skeleton *skel, const rk_clip *clip,
                           size_t max_frames) {
  const size_t n = rk_skeleton_joint_count(skel);
  const double duration = rk_clip_duration(clip);
  double fps = rk_clip_fps(clip);
  if (!(fps > 0.0))
    fps = 30.0; /* unknown rate: sample densely enough for any human motion */
  size_t frames = (size_t)llround(duration * fps) + 1;
  if (max_frames < 2)
    max_frames = 2;
  if (frames > max_frames)
    frames = max_frames;
  s->frames = frames;
  s->n = n;
  s->rot = g_new(rk_quat, frames * n);
  s->trans = g_new(rk_vec3, frames * n);
  rk_transform *locals = g_new(rk_transform, n);
  const rk_transform *rest = rk_skeleton_rest_locals(skel);
  for (size_t f = 0; f < frames; f++) {
    const double t = frames > 1 ? duration * (double)f / (double)(frames - 1) : 0.0;
    rk_clip_sample(clip, rest, t, locals, n);
    for (size_t j = 0; j < n; j++) {
      s->rot[f * n + j] = rk_quat_normalize(locals[j].r);
      s->trans[f * n + j] = locals[j].t;
    }
  }
  g_free(locals);
}

void rk__tree_samples_clear(rk__tree_samples *s) {
  g_free(s->rot);
  g_free(s->trans);
  s->rot = NULL;
  s->trans = NULL;
  s->frames = 0;
}

/* Normalised sum of quaternions made to agree in sign with ref (a chordal mean: exact for
 * rotations about one axis, close to the geodesic mean for spread-out ones). */
static rk_quat quat_mean(const rk_quat *q, size_t count, rk_quat ref) {
  double x = 0, y = 0, z = 0, w = 0;
  for (size_t i = 0; i < count; i++) {
    double s = rk_quat_dot(q[i], ref) < 0 ? -1.0 : 1.0;
    x += s * q[i].x, y += s * q[i].y, z += s * q[i].z, w += s * q[i].w;
  }
  return rk_quat_normalize(rk_quat_make(x, y, z, w));
}

/* Principal direction (unit eigenvector of the largest eigenvalue) of a 3x3 scatter matrix. */
static rk_vec3 principal_direction(const double S[9]) {
  double s[3], V[9], work[64];
  rk_la_svd(3, 3, S, 3, s, NULL, 0, V, 3, work);
  return rk_vec3_normalize(rk_vec3_make(V[0], V[1], V[2]));
}

void rk__fit_hinge(const rk_quat *d, size_t count, rk__hinge_fit *out) {
  memset(out, 0, sizeof *out);
  out->axis = rk_vec3_make(1, 0, 0);
  out->zero = rk_quat_identity();
  if (count == 0)
    return;
  rk_quat c = quat_mean(d, count, d[0]);
  for (size_t i = 0; i < count; i++)
    out->motion = fmax(out->motion, rk_quat_angle_between(c, d[i]));
  if (out->motion == 0.0)
    return;
  rk_vec3 a = rk_vec3_make(0, 0, 0);
  /* Alternate: axis from the rotation vectors relative to c, then c from the frames with their
   * hinge angle removed. A true hinge is reached in one or two rounds. */
  for (int it = 0; it < 12; it++) {
    double S[9] = {0};
    for (size_t i = 0; i < count; i++) {
      rk_vec3 v = rk_quat_to_rotvec(rk_quat_mul(rk_quat_conj(c), d[i]));
      const double vv[3] = {v.x, v.y, v.z};
      for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++)
          S[k * 3 + r] += vv[r] * vv[k];
    }
    rk_vec3 na = principal_direction(S);
    if (rk_vec3_dot(na, a) < 0)
      na = rk_vec3_scale(na, -1.0);
    a = na;
    /* c_new = mean of d_i exp(-theta_i a). */
    double x = 0, y = 0, z = 0, w = 0;
    for (size_t i = 0; i < count; i++) {
      rk_quat e = rk_quat_mul(rk_quat_conj(c), d[i]);
      double th = rk__twist_angle(e, a);
      rk_quat b = rk_quat_mul(d[i], rk_quat_from_axis_angle(a, -th));
      double s = rk_quat_dot(b, c) < 0 ? -1.0 : 1.0;
      x += s * b.x, y += s * b.y, z += s * b.z, w += s * b.w;
    }
    rk_quat nc = rk_quat_normalize(rk_quat_make(x, y, z, w));
    const double moved = rk_quat_angle_between(nc, c);
    c = nc;
    if (moved < 1e-13)
      break;
  }
  /* Residuals, range, and the orientation of the axis (positive angles on average). */
  double lo = INFINITY, hi = -INFINITY, sum2 = 0.0, sum_th = 0.0;
  for (size_t i = 0; i < count; i++) {
    rk_quat e = rk_quat_mul(rk_quat_conj(c), d[i]);
    double th = rk__twist_angle(e, a);
    double res = rk_quat_angle_between(e, rk_quat_from_axis_angle(a, th));
    out->max = fmax(out->max, res);
    sum2 += res * res;
    lo = fmin(lo, th);
    hi = fmax(hi, th);
    sum_th += th;
  }
  out->rms = sqrt(sum2 / (double)count);
  out->range = hi - lo;
  /* Zero: the hinge rotation nearest to the identity (the rest), c exp(th* a), th* = twist of
   * c^-1 about a. */
  const double th0 = rk__twist_angle(rk_quat_conj(c), a);
  if (sum_th / (double)count - th0 < 0)
    a = rk_vec3_scale(a, -1.0);
  out->axis = a;
  out->zero = rk_quat_normalize(
      rk_quat_mul(c, rk_quat_from_axis_angle(a, rk__twist_angle(rk_quat_conj(c), a))));
}

void rk__fit_line(const rk_vec3 *p, size_t count, rk_vec3 *dir, rk_vec3 *mean, double *max_off,
                  double *range) {
  rk_vec3 m = rk_vec3_make(0, 0, 0);
  for (size_t i = 0; i < count; i++)
    m = rk_vec3_add(m, p[i]);
  m = count ? rk_vec3_scale(m, 1.0 / (double)count) : m;
  double S[9] = {0};
  for (size_t i = 0; i < count; i++) {
    rk_vec3 v = rk_vec3_sub(p[i], m);
    const double vv[3] = {v.x, v.y, v.z};
    for (int r = 0; r < 3; r++)
      for (int k = 0; k < 3; k++)
        S[k * 3 + r] += vv[r] * vv[k];
  }
  rk_vec3 a = principal_direction(S);
  if (rk_vec3_norm(a) == 0.0)
    a = rk_vec3_make(1, 0, 0);
  double lo = INFINITY, hi = -INFINITY, off = 0.0, sum = 0.0;
  for (size_t i = 0; i < count; i++) {
    rk_vec3 v = rk_vec3_sub(p[i], m);
    double s = rk_vec3_dot(v, a);
    lo = fmin(lo, s);
    hi = fmax(hi, s);
    sum += s;
    off = fmax(off, rk_vec3_norm(rk_vec3_sub(v, rk_vec3_scale(a, s))));
  }
  (void)sum;
  *dir = a;
  *mean = m;
  *max_off = off;
  *range = count ? hi - lo : 0.0;
}

double rk__euler_lock_margin_score(rk_euler_order order, const rk_quat *d, size_t count) {
  double worst = 0.0;
  for (size_t i = 0; i < count; i++) {
    double ang[3];
    rk_euler_from_quat(order, d[i], ang);
    worst = fmax(worst, fabs(ang[1]));
  }
  return worst;
}
