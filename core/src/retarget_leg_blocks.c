/* The blocks of legs of one bone: how far a leg's mesh reaches out from its end (a block's
 * width toward the other leg) and the closest distance between two legs' segments. Used to keep
 * such legs beside each other (retarget_stiff.c) and to measure how far they go through each
 * other (retarget_output.c). */
#include "retarget_run.h"

bool rk__rt_leg_reach(const rk_retargeter *rt, rk_mat4 *rest, int leg, rk_vec3 from, rk_vec3 t, double *reach) {
  const rk_mat3 turn3 = rk_quat_to_mat3(rk_quat_from_to(t, rk_vec3_make(0, -1, 0)));
  const rk_mat4 turn = rk_mat4_from_rt(&turn3, rk_vec3_make(0, 0, 0));
  const size_t stop = rk_skeleton_subtree_end(rt->tgt, (size_t)leg);
  for (size_t j = (size_t)leg; j < stop; j++)
    rest[j] = rk_mat4_mul(&turn, &rest[j]);
  rk_skin_point p;
  const bool found = rt->skin && rk_skin_lowest_subtree(rt->skin, rest, leg, &p);
  rk_skeleton_rest_models(rt->tgt, rest);
  *reach = found ? fmax(0.0, -p.position.y - rk_vec3_dot(from, t)) : 0.0;
  return found;
}

double rk__rt_segments_distance(rk_vec3 p0, rk_vec3 p1, rk_vec3 q0, rk_vec3 q1) {
  const rk_vec3 d1 = rk_vec3_sub(p1, p0), d2 = rk_vec3_sub(q1, q0), r = rk_vec3_sub(p0, q0);
  const double a = rk_vec3_dot(d1, d1), e = rk_vec3_dot(d2, d2), f = rk_vec3_dot(d2, r);
  double s = 0, t = 0;
  if (a <= 0 && e <= 0)
    return rk_vec3_norm(r);
  if (a <= 0) {
    t = fmin(1.0, fmax(0.0, f / e));
  } else {
    const double c = rk_vec3_dot(d1, r);
    if (e <= 0) {
      s = fmin(1.0, fmax(0.0, -c / a));
    } else {
      const double b = rk_vec3_dot(d1, d2), den = a * e - b * b;
      s = den > 0 ? fmin(1.0, fmax(0.0, (b * f - c * e) / den)) : 0.0;
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = fmin(1.0, fmax(0.0, -c / a));
      } else if (t > 1) {
        t = 1;
        s = fmin(1.0, fmax(0.0, (b - c) / a));
      }
    }
  }
  return rk_vec3_norm(rk_vec3_sub(rk_vec3_add(p0, rk_vec3_scale(d1, s)), rk_vec3_add(q0, rk_vec3_scale(d2, t))));
}
