/* Analytic two-bone IK (hip-knee-ankle, shoulder-elbow-wrist) with a pole direction, for a hinge
 * of any axis, and its application to a limb of a kinematic tree.
 *
 * Mid joint. Turning the lower bone b = end - mid about the hinge h by theta keeps its component
 * along h and turns the rest, so with a = start - mid:
 *   a . b(theta) = k0 + A cos(theta) + B sin(theta) = k0 + R cos(theta - phi)
 * (k0 = (a.h)(b.h), A = a_perp . b_perp, B = a_perp . (h x b_perp)); the start-end distance d
 * gives cos(theta - phi) = (|a|^2 + |b|^2 - d^2 - 2 k0) / (2 R), clamped to [-1, 1] when d is out
 * of reach. Of the two roots, the one that keeps the bend sense (the sign of the angle from a_perp
 * to b_perp about h) is taken: the knee never flips.
 * Start joint. The shortest rotation takes the turned end direction onto the target direction;
 * a twist about the start-target line then brings the mid joint's bend direction
 * sigma (h' x w) toward the pole (its component across the line). Near the pole line that twist
 * fades out (within ~12 degrees), so a target moving through the line never flips the limb. */
#include "ik_internal.h"

#include <rigkit/error.h>
#include <rigkit/skeleton.h>

/* Rotation of v about the unit axis h by theta. */
static rk_vec3 rotate_about(rk_vec3 v, rk_vec3 h, double theta) {
  double s, c;
  rk_sincos(theta, &s, &c);
  const rk_vec3 par = rk_vec3_scale(h, rk_vec3_dot(v, h));
  const rk_vec3 perp = rk_vec3_sub(v, par);
  return rk_vec3_add(rk_vec3_add(par, rk_vec3_scale(perp, c)),
                     rk_vec3_scale(rk_vec3_cross(h, perp), s));
}

/* Rotation of angle theta about the unit axis h (rk_sincos, no renormalisation). */
static rk_quat axis_angle(rk_vec3 h, double theta) {
  double s, c;
  rk_sincos(0.5 * theta, &s, &c);
  return rk_quat_make(h.x * s, h.y * s, h.z * s, c);
}

static rk_vec3 perp_to(rk_vec3 v, rk_vec3 w) {
  return rk_vec3_sub(v, rk_vec3_scale(w, rk_vec3_dot(v, w)));
}

static bool finite_job(const rk_two_bone_job *j) {
  return rk_vec3_is_finite(j->start) && rk_vec3_is_finite(j->mid) && rk_vec3_is_finite(j->end) &&
         rk_vec3_is_finite(j->target) && rk_vec3_is_finite(j->pole) &&
         rk_vec3_is_finite(j->mid_axis) && isfinite(j->bend_sign) && !isnan(j->lower) &&
         !isnan(j->upper);
}

bool rk_two_bone_run(rk_two_bone_job *j) {
  j->start_rotation = j->mid_rotation = rk_quat_identity();
  j->mid_angle = 0;
  j->reached = false;
  if (!finite_job(j))
    return false;
  const rk_vec3 a = rk_vec3_sub(j->start, j->mid), b = rk_vec3_sub(j->end, j->mid);
  const double la = rk_vec3_norm(a), lb = rk_vec3_norm(b);
  const double size = la + lb;
  if (!(la > 0) || !(lb > 0))
    return false;
  const double tiny = 1e-12 * size;
  const rk_vec3 line = rk_vec3_sub(j->end, j->start);
  const double pole_len = rk_vec3_norm(j->pole);

  /* Hinge axis and the bend sense used when the limb is straight. */
  rk_vec3 h = rk_vec3_normalize(j->mid_axis);
  double straight_sign = j->bend_sign < 0 ? -1.0 : 1.0;
  if (rk_vec3_norm(h) == 0) {
    const rk_vec3 n = rk_vec3_cross(a, b);
    if (rk_vec3_norm(n) > 1e-9 * la * lb) {
      h = rk_vec3_normalize(n);
    } else {
      /* Straight limb, no hinge given: bend in the plane of the pole, toward it. */
      const rk_vec3 w = rk_vec3_norm(line) > tiny ? rk_vec3_normalize(line)
                                                  : rk_vec3_normalize(rk_vec3_scale(a, -1.0));
      const rk_vec3 pp = pole_len > 0 ? perp_to(j->pole, w) : rk_vec3_make(0, 0, 0);
      h = rk_vec3_norm(pp) > 1e-9 * pole_len ? rk_vec3_normalize(rk_vec3_cross(pp, w))
                                             : rk_vec3_any_perpendicular(w);
      straight_sign = 1.0;
    }
  }

  /* Mid angle. */
  const double ah = rk_vec3_dot(a, h), bh = rk_vec3_dot(b, h);
  const rk_vec3 ap = perp_to(a, h), bp = perp_to(b, h);
  const double k0 = ah * bh;
  const double A = rk_vec3_dot(ap, bp), B = rk_vec3_dot(ap, rk_vec3_cross(h, bp));
  const double R = sqrt(A * A + B * B);
  const double beta0 = atan2(-B, A); /* current bend angle from a_perp to b_perp about h */
  const double dist = rk_vec3_norm(rk_vec3_sub(j->target, j->start));
  double theta = 0;
  double sigma = straight_sign;
  if (R > 1e-12 * la * lb) {
    double c = (la * la + lb * lb - dist * dist - 2.0 * k0) / (2.0 * R);
    c = c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c;
    /* Bend sense: the current one while the limb is bent, else the given one. */
    if (fabs(B) > 1e-9 * R) /* |sin(beta0)| = |B| / R */
      sigma = beta0 > 0 ? 1.0 : -1.0;
    const double beta = sigma * acos(c);
    theta = beta - beta0;
    theta = remainder(theta, 2.0 * RK_PI);
  }
  if (theta < j->lower)
    theta = j->lower;
  if (theta > j->upper)
    theta = j->upper;
  j->mid_angle = theta;
  j->mid_rotation = axis_angle(h, theta);

  /* Start rotation: swing the end onto the target line, then twist toward the pole. */
  const rk_vec3 e1 = rk_vec3_add(j->mid, rotate_about(b, h, theta));
  const rk_vec3 cur = rk_vec3_sub(e1, j->start), tgt = rk_vec3_sub(j->target, j->start);
  rk_quat swing = rk_quat_identity();
  rk_vec3 w = rk_vec3_normalize(cur);
  if (rk_vec3_norm(cur) > tiny && rk_vec3_norm(tgt) > tiny) {
    w = rk_vec3_normalize(tgt);
    swing = rk_quat_from_to(rk_vec3_normalize(cur), w);
  }
  rk_quat rot = swing;
  if (pole_len > 0 && rk_vec3_norm(w) > 0) {
    const rk_vec3 pp = perp_to(j->pole, w);
    const double ratio = rk_vec3_norm(pp) / pole_len;
    /* Bend direction of the mid joint seen across the line: sigma (h' x w), h' the turned
     * hinge; falls back to the mid joint's own offset when the hinge runs along the line. */
    const rk_vec3 h1 = rk_quat_rotate(swing, h);
    rk_vec3 jut = rk_vec3_scale(rk_vec3_cross(h1, w), sigma);
    if (rk_vec3_norm(jut) < 1e-6)
      jut = perp_to(rk_quat_rotate(swing, rk_vec3_scale(a, -1.0)), w);
    if (ratio > 1e-12 && rk_vec3_norm(jut) > 1e-12 * size) {
      const double psi = atan2(rk_vec3_dot(w, rk_vec3_cross(jut, pp)), rk_vec3_dot(jut, pp));
      /* Fade the pole's pull out within ~12 degrees of the line (no flip as a target crosses). */
      double x = ratio / 0.2;
      x = x > 1.0 ? 1.0 : x;
      const double fade = x * x * (3.0 - 2.0 * x);
      rot = rk_quat_mul(axis_angle(w, psi * fade), swing);
    }
  }
  j->start_rotation = rk_quat_normalize(rot);
  const rk_vec3 final_end = rk_vec3_add(j->start, rk_quat_rotate(j->start_rotation, cur));
  j->reached = rk_vec3_norm(rk_vec3_sub(final_end, j->target)) <= 1e-9 * size;
  return true;
}

/* ---- Limbs of a tree ------------------------------------------------------------------------- */

/* Unit rotation of an affine frame (columns normalised where they carry scale). */
static rk_quat frame_rot(const rk_mat4 *w) {
  rk_mat3 r;
  for (int c = 0; c < 3; c++) {
    rk_vec3 col = rk_mat4_column(w, c);
    const double n2 = rk_vec3_dot(col, col);
    if (fabs(n2 - 1.0) > 1e-12)
      col = rk_vec3_scale(col, 1.0 / sqrt(n2));
    r.m[c * 3 + 0] = col.x;
    r.m[c * 3 + 1] = col.y;
    r.m[c * 3 + 2] = col.z;
  }
  return rk_quat_from_mat3(&r);
}

static rk_quat parent_rot(const rk_tree *tree, const rk_mat4 *models, int link) {
  const int p = rk_tree_link_parent(tree, (size_t)link);
  return p < 0 ? rk_quat_identity() : frame_rot(&models[p]);
}

/* World hinge axis of a revolute joint: parent rotation * zero rotation * axis. */
static rk_vec3 hinge_axis_from(const rk_joint *jt, rk_quat parent) {
  return rk_quat_rotate(rk_quat_mul(parent, jt->zero.r), jt->axis);
}

static rk_vec3 hinge_axis(const rk_tree *tree, const rk_mat4 *models, int link) {
  return hinge_axis_from(rk_tree_joint(tree, (size_t)link), parent_rot(tree, models, link));
}

/* First rotational DOF of a ball or free joint. */
static int rotation_dof(const rk_joint *jt) {
  return jt->dof_offset + (jt->type == RK_JOINT_FREE ? 3 : 0);
}

bool rk_ik_limb_init(const rk_tree *tree, int start, int mid, int end, rk_ik_limb *limb,
                     GError **error) {
  g_return_val_if_fail(tree != NULL && limb != NULL, false);
  const size_t links = rk_tree_link_count(tree);
  if (start < 0 || mid < 0 || end < 0 || (size_t)start >= links || (size_t)mid >= links ||
      (size_t)end >= links) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "IK limb: link out of range (%d, %d, %d of %zu)",
                start, mid, end, links);
    return false;
  }
  const rk_skeleton *s = rk_tree_skeleton(tree);
  const char *ns = rk_tree_link_name(tree, (size_t)start),
             *nm = rk_tree_link_name(tree, (size_t)mid), *ne = rk_tree_link_name(tree, (size_t)end);
  if (start == mid || mid == end || !rk_skeleton_is_ancestor(s, (size_t)start, (size_t)mid) ||
      !rk_skeleton_is_ancestor(s, (size_t)mid, (size_t)end)) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "IK limb '%s' -> '%s' -> '%s': each link must be a descendant of the one before",
                ns, nm, ne);
    return false;
  }
  const rk_joint *js = rk_tree_joint(tree, (size_t)start), *jm = rk_tree_joint(tree, (size_t)mid);
  if (js->type != RK_JOINT_BALL && js->type != RK_JOINT_FREE) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "IK limb: start joint '%s' is %s, it must be a ball (or free) joint", ns,
                rk_joint_type_name(js->type));
    return false;
  }
  if (jm->type != RK_JOINT_REVOLUTE && jm->type != RK_JOINT_BALL) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "IK limb: mid joint '%s' is %s, it must be revolute or a ball", nm,
                rk_joint_type_name(jm->type));
    return false;
  }
  limb->start = start;
  limb->mid = mid;
  limb->end = end;
  limb->start_dof = rotation_dof(js);
  limb->mid_dof = jm->type == RK_JOINT_REVOLUTE ? jm->dof_offset : rotation_dof(jm);
  /* Bend sense at the rest pose; for a straight rest, the sense the limits allow most. */
  limb->bend_sign = 1.0;
  if (jm->type == RK_JOINT_REVOLUTE) {
    const size_t n = rk_tree_dof_count(tree);
    double *q = g_new0(double, n);
    rk_mat4 *models = g_new(rk_mat4, links);
    rk_tree_q_rest(tree, q);
    rk_tree_fk(tree, q, NULL, models);
    const rk_vec3 ps = rk_mat4_get_translation(&models[start]);
    const rk_vec3 pm = rk_mat4_get_translation(&models[mid]);
    const rk_vec3 pe = rk_mat4_get_translation(&models[end]);
    const rk_vec3 a = rk_vec3_sub(ps, pm), b = rk_vec3_sub(pe, pm);
    const double sn = rk_vec3_dot(hinge_axis(tree, models, mid), rk_vec3_cross(a, b));
    if (fabs(sn) > 1e-6 * rk_vec3_norm(a) * rk_vec3_norm(b)) {
      limb->bend_sign = sn > 0 ? 1.0 : -1.0;
    } else {
      /* Straight at rest: turning by +q gives the bend sense -1 (see rk_two_bone_run). */
      const double lo = rk_tree_lower(tree)[jm->dof_offset],
                   hi = rk_tree_upper(tree)[jm->dof_offset];
      const double qr = q[jm->dof_offset];
      limb->bend_sign = (hi - qr) >= (qr - lo) ? -1.0 : 1.0;
    }
    g_free(q);
    g_free(models);
  }
  return true;
}

/* Sets the Euler DOFs of a ball-type joint so its local rotation becomes `local` (unit), the
 * angles nearest to the previous ones, clamped into the limits. */
static void set_ball(const rk_tree *tree, int link, int dof, rk_quat local, double *q) {
  const rk_joint *jt = rk_tree_joint(tree, (size_t)link);
  const rk_quat rel = rk_quat_mul(rk_quat_conj(jt->zero.r), local);
  double prev[3] = {q[dof], q[dof + 1], q[dof + 2]}, ang[3];
  rk_euler_from_quat_near(jt->order, rel, prev, ang);
  const double *lo = rk_tree_lower(tree), *hi = rk_tree_upper(tree);
  for (int i = 0; i < 3; i++)
    q[dof + i] = fmin(fmax(ang[i], lo[dof + i]), hi[dof + i]);
}

bool rk_ik_limb_solve(const rk_tree *tree, const rk_ik_limb *limb, rk_vec3 target, rk_vec3 pole,
                      rk_mat4 *models, double *q) {
  g_return_val_if_fail(tree != NULL && limb != NULL && models != NULL && q != NULL, false);
  const rk_joint *jm = rk_tree_joint(tree, (size_t)limb->mid);
  rk_two_bone_job job = RK_TWO_BONE_JOB_INIT;
  job.start = rk_mat4_get_translation(&models[limb->start]);
  job.mid = rk_mat4_get_translation(&models[limb->mid]);
  job.end = rk_mat4_get_translation(&models[limb->end]);
  job.target = target;
  job.pole = pole;
  job.bend_sign = limb->bend_sign;
  const bool revolute = jm->type == RK_JOINT_REVOLUTE;
  const rk_quat pm = parent_rot(tree, models, limb->mid);
  if (revolute) {
    job.mid_axis = hinge_axis_from(jm, pm);
    const double v = q[limb->mid_dof];
    job.lower = rk_tree_lower(tree)[limb->mid_dof] - v;
    job.upper = rk_tree_upper(tree)[limb->mid_dof] - v;
  }
  if (!rk_two_bone_run(&job))
    return false;
  /* World rotations before the change. */
  const rk_quat ws = frame_rot(&models[limb->start]);
  const rk_quat ps = parent_rot(tree, models, limb->start);
  if (revolute) {
    q[limb->mid_dof] += job.mid_angle;
  } else {
    /* local' = parent^-1 * R_mid * world */
    const rk_quat wm = frame_rot(&models[limb->mid]);
    const rk_quat local = rk_quat_mul(rk_quat_conj(pm), rk_quat_mul(job.mid_rotation, wm));
    set_ball(tree, limb->mid, limb->mid_dof, rk_quat_normalize(local), q);
  }
  const rk_quat local = rk_quat_mul(rk_quat_conj(ps), rk_quat_mul(job.start_rotation, ws));
  set_ball(tree, limb->start, limb->start_dof, rk_quat_normalize(local), q);
  return job.reached;
}
