/* rigkit/skin.h's sole points: heel, ball and toe tip of a foot from the rest positions of the
 * vertices of its subtree (skin_internal.h) or from its bones, and where they are at a pose. */
#include "skin_internal.h"

#include <rigkit/error.h>

#include <math.h>

/* Of the foot's length: the sole band's height above the lowest vertex, and how far along the foot
 * the vertices that place a point reach. */
#define SOLE_BAND 0.1
/* Of the ankle's rest height above the toe: how far the sole is below the toe (its end, if lower).
 * CMU-style skeletons: 2 cm under a toe 6 cm below the ankle; MakeHuman's 1.9 under 6.4; the
 * RiggedFigure's mesh 2.2 under 6.3. The skeleton's height is a worse yardstick: it depends on
 * whether the head has an end joint, and stylised feet are larger. */
#define SOLE_TOE_DROP (1.0 / 3.0)
/* Of the ankle-to-toe distance along forward: how far ahead of a toe joint without children the
 * toes end (CMU-style: 5.5 cm ahead of a toe 13.8 cm ahead of the ankle). */
#define SOLE_TOE_LENGTH 0.4
/* Without a toe joint: where the ball sits from the heel (mesh) or ankle (bones) to the tip. */
#define SOLE_BALL_AT 0.75

/* The rig's horizontal axes: forward f and side (up x f). */
typedef struct sole_axes {
  rk_vec3 f, side;
} sole_axes;

static rk_vec3 from_axes(const sole_axes *ax, double along, double side, double y) {
  rk_vec3 p = rk_vec3_add(rk_vec3_scale(ax->f, along), rk_vec3_scale(ax->side, side));
  p.y = y;
  return p;
}

/* Checks the foot, the toe and forward; fills the axes. */
static bool check_foot(const rk_skeleton *s, int foot, int toe, rk_vec3 forward, sole_axes *ax,
                       GError **error) {
  const size_t n = rk_skeleton_joint_count(s);
  if (foot < 0 || (size_t)foot >= n) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "sole: foot joint %d is not among the %zu joints", foot, n);
    return false;
  }
  const char *name = rk_skeleton_joint_name(s, (size_t)foot);
  if (toe != -1 &&
      (toe <= foot || (size_t)toe >= n || !rk_skeleton_is_ancestor(s, (size_t)foot, (size_t)toe))) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "sole of '%s': toe joint %d is not below it",
                name, toe);
    return false;
  }
  ax->f = rk_vec3_normalize(rk_vec3_make(forward.x, 0, forward.z));
  if (!(rk_vec3_norm(ax->f) > 0.5)) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "sole of '%s': forward (%g, %g, %g) has no horizontal direction", name, forward.x,
                forward.y, forward.z);
    return false;
  }
  ax->side = rk_vec3_cross(rk_vec3_make(0, 1, 0), ax->f);
  return true;
}

/* Fills the sole from its points in model space at rest: heel on the foot, ball and tip on the
 * toe (the foot without one). */
static void sole_finish(const rk_mat4 *rest, int foot, int toe, const rk_vec3 *pts,
                        rk_sole_source source, rk_sole *out) {
  out->foot = foot;
  out->toe = toe;
  out->source = source;
  out->joint[RK_SOLE_HEEL] = foot;
  out->joint[RK_SOLE_BALL] = out->joint[RK_SOLE_TIP] = toe >= 0 ? toe : foot;
  for (int k = 0; k < RK_SOLE_POINTS; k++) {
    rk_mat4 inv;
    if (!rk_mat4_inverse_affine(&rest[out->joint[k]], &inv))
      inv = rk_mat4_identity();
    out->rest[k] = pts[k];
    out->local[k] = rk_mat4_transform_point(&inv, pts[k]);
  }
}

/* The point of the sole band at `along` (forward coordinate): the lowest height and mean sideways
 * position of the band's vertices within reach of it along the foot (the nearest one when none
 * is). */
static rk_vec3 band_point(const sole_axes *ax, const rk_vec3 *v, size_t n, double band_top,
                          double along, double reach) {
  double y = INFINITY, side = 0, nearest = INFINITY;
  size_t count = 0, near_i = 0;
  for (size_t i = 0; i < n; i++) {
    if (v[i].y > band_top)
      continue;
    const double d = fabs(rk_vec3_dot(v[i], ax->f) - along);
    if (d < nearest)
      nearest = d, near_i = i;
    if (d <= reach)
      y = fmin(y, v[i].y), side += rk_vec3_dot(v[i], ax->side), count++;
  }
  if (count == 0)
    return from_axes(ax, along, rk_vec3_dot(v[near_i], ax->side), v[near_i].y);
  return from_axes(ax, along, side / (double)count, y);
}

bool rk_sole_from_mesh(const rk_skin_support *support, int foot, int toe, rk_vec3 forward,
                       rk_sole *out, GError **error) {
  g_return_val_if_fail(support != NULL && out != NULL, false);
  const rk_skeleton *s = support->skeleton;
  sole_axes ax;
  if (!check_foot(s, foot, toe, forward, &ax, error))
    return false;
  const size_t a = support->vert_start[foot];
  const size_t n = support->vert_start[rk_skeleton_subtree_end(s, (size_t)foot)] - a;
  const rk_vec3 *v = support->vert_rest + a;
  if (n == 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_NOT_FOUND,
                "sole of '%s': no vertex is weighted mostly to it or a joint below it",
                rk_skeleton_joint_name(s, (size_t)foot));
    return false;
  }
  double y0 = INFINITY, lo = INFINITY, hi = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    const double f = rk_vec3_dot(v[i], ax.f);
    y0 = fmin(y0, v[i].y), lo = fmin(lo, f), hi = fmax(hi, f);
  }
  const double reach = SOLE_BAND * (hi - lo), top = y0 + reach;
  double heel = INFINITY, tip = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    const double f = rk_vec3_dot(v[i], ax.f);
    if (v[i].y <= top)
      heel = fmin(heel, f), tip = fmax(tip, f);
  }
  const double ball = toe >= 0
                          ? rk_vec3_dot(rk_mat4_get_translation(&support->rest_models[toe]), ax.f)
                          : heel + SOLE_BALL_AT * (tip - heel);
  const rk_vec3 pts[RK_SOLE_POINTS] = {band_point(&ax, v, n, top, heel, reach),
                                       band_point(&ax, v, n, top, ball, reach),
                                       band_point(&ax, v, n, top, tip, reach)};
  sole_finish(support->rest_models, foot, toe, pts, RK_SOLE_FROM_MESH, out);
  return true;
}

/* The front-most child of joint j ahead of `after` along forward (any child for -INFINITY), or
 * -1. */
static int front_child(const rk_skeleton *s, const rk_mat4 *rest, const sole_axes *ax, int j,
                       double after) {
  int best = -1;
  double best_f = after;
  for (size_t c = (size_t)j + 1; c < rk_skeleton_subtree_end(s, (size_t)j); c++) {
    if (rk_skeleton_parent(s, c) != j)
      continue;
    const double f = rk_vec3_dot(rk_mat4_get_translation(&rest[c]), ax->f);
    if (f > best_f)
      best = (int)c, best_f = f;
  }
  return best;
}

bool rk_sole_from_bones(const rk_skeleton *s, int foot, int toe, rk_vec3 forward, rk_sole *out,
                        GError **error) {
  g_return_val_if_fail(s != NULL && out != NULL, false);
  sole_axes ax;
  if (!check_foot(s, foot, toe, forward, &ax, error))
    return false;
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_mat4 *rest = g_new(rk_mat4, n);
  rk_skeleton_rest_models(s, rest);
  const rk_vec3 ankle = rk_mat4_get_translation(&rest[foot]);
  rk_vec3 ball, end;
  if (toe >= 0) {
    ball = rk_mat4_get_translation(&rest[toe]);
    const int c = front_child(s, rest, &ax, toe, -INFINITY);
    const double toe_along = rk_vec3_dot(rk_vec3_sub(ball, ankle), ax.f);
    end = c >= 0 ? rk_mat4_get_translation(&rest[c])
                 : rk_vec3_add(ball, rk_vec3_scale(ax.f, SOLE_TOE_LENGTH * fabs(toe_along)));
  } else {
    const int c = front_child(s, rest, &ax, foot, rk_vec3_dot(ankle, ax.f));
    if (c < 0) {
      g_set_error(error, RK_ERROR, RK_ERROR_NOT_FOUND,
                  "sole of '%s': no toe joint and no joint ahead of it below it",
                  rk_skeleton_joint_name(s, (size_t)foot));
      return false;
    }
    end = rk_mat4_get_translation(&rest[c]);
    ball = rk_vec3_lerp(ankle, end, SOLE_BALL_AT);
  }
  const double low = fmin(end.y, ball.y), y = low - SOLE_TOE_DROP * fmax(ankle.y - low, 0);
  const rk_vec3 pts[RK_SOLE_POINTS] = {rk_vec3_make(ankle.x, y, ankle.z),
                                       rk_vec3_make(ball.x, y, ball.z),
                                       rk_vec3_make(end.x, y, end.z)};
  sole_finish(rest, foot, toe, pts, RK_SOLE_FROM_BONES, out);
  return true;
}

bool rk_sole_build(const rk_skin_support *support, const rk_skeleton *skeleton, int foot, int toe,
                   rk_vec3 forward, rk_sole *out, GError **error) {
  g_return_val_if_fail((support != NULL || skeleton != NULL) && out != NULL, false);
  if (support && foot >= 0 && (size_t)foot < support->joint_count &&
      support->vert_start[rk_skeleton_subtree_end(support->skeleton, (size_t)foot)] >
          support->vert_start[foot])
    return rk_sole_from_mesh(support, foot, toe, forward, out, error);
  return rk_sole_from_bones(skeleton ? skeleton : support->skeleton, foot, toe, forward, out,
                            error);
}

void rk_sole_at(const rk_sole *sole, const rk_mat4 *models, rk_vec3 out[RK_SOLE_POINTS]) {
  for (int k = 0; k < RK_SOLE_POINTS; k++)
    out[k] = rk_mat4_transform_point(&models[sole->joint[k]], sole->local[k]);
}
