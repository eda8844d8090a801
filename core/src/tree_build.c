/* Building and freeing kinematic trees: rk_tree_from_skeleton types joints from specs, end sites
 * and clip evidence, lays out the DOFs, limits, paired joint frames and hints, and builds the
 * junctions; rk_tree_ref and rk_tree_unref share and free the result. */
#include "junction_internal.h"
#include "tree_fit.h"
#include "tree_internal.h"

#include <rigkit/error.h>

#include <string.h>

static const rk_vec3 unit_axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

static bool valid_type(rk_joint_type t) { return t >= RK_JOINT_FIXED && t <= RK_JOINT_FREE; }

static rk_euler_order order_from_axes(int a, int b, int c) {
  for (int o = RK_EULER_XYZ; o <= RK_EULER_ZYX; o++) {
    int ax[3];
    rk_euler_order_axes((rk_euler_order)o, ax);
    if (ax[0] == a && ax[1] == b && ax[2] == c)
      return (rk_euler_order)o;
  }
  return RK_EULER_XYZ;
}

/* Twist-last order from the rest pose (see tree.h): C = the bone's axis, A = the most horizontal
 * remaining axis (ties: the one nearest the model x axis). Roots: A = the most vertical axis
 * (yaw), B = the remaining axis nearest the model x axis. */
static rk_euler_order heuristic_order(const rk_skeleton *s, size_t j, const rk_mat4 *rest_models) {
  rk_vec3 w[3];
  for (int k = 0; k < 3; k++)
    w[k] = rk_vec3_normalize(rk_mat4_column(&rest_models[j], k));
  const rk_transform *rest = rk_skeleton_rest_locals(s);
  int a, b, c;
  if (rk_skeleton_parent(s, j) < 0) {
    a = 0;
    for (int k = 1; k < 3; k++)
      if (fabs(w[k].y) > fabs(w[a].y))
        a = k;
    int r1 = (a + 1) % 3, r2 = (a + 2) % 3;
    b = fabs(w[r1].x) >= fabs(w[r2].x) ? r1 : r2;
    c = 3 - a - b;
    return order_from_axes(a, b, c);
  }
  rk_vec3 bone = rk_vec3_make(0, 0, 0);
  const size_t end = rk_skeleton_subtree_end(s, j);
  if (end > j + 1)
    bone = rest[j + 1].t; /* the first child follows j in preorder */
  if (rk_vec3_norm(bone) < 1e-12)
    bone = rk_quat_rotate(rk_quat_conj(rest[j].r), rest[j].t);
  if (rk_vec3_norm(bone) < 1e-12)
    return RK_EULER_XZY; /* nothing to go by: y (up in rest-aligned rigs) last */
  const double bb[3] = {fabs(bone.x), fabs(bone.y), fabs(bone.z)};
  c = 0;
  for (int k = 1; k < 3; k++)
    if (bb[k] > bb[c])
      c = k;
  int r1 = (c + 1) % 3, r2 = (c + 2) % 3;
  if (r1 > r2) {
    int tmp = r1;
    r1 = r2;
    r2 = tmp;
  }
  const double y1 = fabs(w[r1].y), y2 = fabs(w[r2].y);
  if (fabs(y1 - y2) < 1e-6)
    a = fabs(w[r1].x) >= fabs(w[r2].x) ? r1 : r2;
  else
    a = y1 < y2 ? r1 : r2;
  b = 3 - a - c;
  return order_from_axes(a, b, c);
}

/* Names that suggest a hinge (knee or elbow) in common rigs; hints only. */
static bool name_suggests_hinge(const char *name) {
  static const char *const patterns[] = {"knee",     "elbow",    "shin",      "calf",
                                         "forearm",  "fore_arm", "loleg",     "loarm",
                                         "lowerleg", "lowerarm", "lower_leg", "lower_arm",
                                         "lowleg",   "lowarm",   "lower leg", "lower arm"};
  g_autofree char *low = g_ascii_strdown(name, -1);
  for (size_t i = 0; i < G_N_ELEMENTS(patterns); i++)
    if (strstr(low, patterns[i]))
      return true;
  /* CMU/MotionBuilder: LeftLeg / RightLeg are the shins (LeftUpLeg the thighs). */
  return strcmp(low, "leftleg") == 0 || strcmp(low, "rightleg") == 0 ||
         g_str_has_suffix(low, ":leftleg") || g_str_has_suffix(low, ":rightleg");
}

static void set_hints(rk_tree *t, size_t j) {
  rk_joint *J = &t->joints[j];
  const rk_transform *rest = rk_skeleton_rest_locals(t->skeleton);
  J->hinge_hint = J->dof_count > 0 && name_suggests_hinge(rk_skeleton_joint_name(t->skeleton, j));
  J->hint_axis = rk_vec3_make(0, 0, 0);
  if (t->parents[j] < 0 || t->subtree_end[j] <= j + 1)
    return;
  /* Bend at rest: the normal of the plane of the incoming and outgoing bones (zero frame). */
  rk_vec3 in = rk_quat_rotate(rk_quat_conj(J->zero.r), J->zero.t);
  rk_vec3 out = rest[j + 1].t;
  rk_vec3 n = rk_vec3_cross(in, out);
  const double denom = rk_vec3_norm(in) * rk_vec3_norm(out);
  if (denom > 0 && rk_vec3_norm(n) / denom > sin(5.0 * RK_DEG))
    J->hint_axis = rk_vec3_normalize(n);
}

static bool check_spec(const rk_skeleton *s, const rk_joint_spec *sp, int *spec_of, size_t index,
                       GError **error) {
  if (!sp->name) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "joint spec %zu has no name", index);
    return false;
  }
  int j = rk_skeleton_find_joint(s, sp->name);
  if (j < 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_NOT_FOUND,
                "joint spec '%s': the skeleton has no joint of that name", sp->name);
    return false;
  }
  if (spec_of[j] >= 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "joint '%s' is specified twice", sp->name);
    return false;
  }
  if (!valid_type(sp->type) || (unsigned)sp->order > RK_EULER_N_ORDERS) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "joint spec '%s': unknown type or Euler order",
                sp->name);
    return false;
  }
  if ((sp->type == RK_JOINT_REVOLUTE || sp->type == RK_JOINT_PRISMATIC) &&
      (!rk_vec3_is_finite(sp->axis) || rk_vec3_norm(sp->axis) < 1e-12)) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "joint spec '%s': the %s axis is zero or not finite", sp->name,
                rk_joint_type_name(sp->type));
    return false;
  }
  if (sp->has_limits)
    for (int k = 0; k < rk_joint_type_dof_count(sp->type); k++)
      if (isnan(sp->lower[k]) || isnan(sp->upper[k]) || sp->lower[k] > sp->upper[k]) {
        g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                    "joint spec '%s': limits of DOF %d are not lower <= upper", sp->name, k);
        return false;
      }
  spec_of[j] = (int)index;
  return true;
}

static bool check_options(const rk_tree_options *o, GError **error) {
  const double vals[] = {o->hinge_tolerance,  o->hinge_min_range, o->line_tolerance,
                         o->static_tolerance, o->limit_margin,    o->hinge_relative_tolerance};
  for (size_t i = 0; i < G_N_ELEMENTS(vals); i++)
    if (!isfinite(vals[i]) || vals[i] < 0) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                  "tree options: tolerances and margins must be finite and >= 0");
      return false;
    }
  if (!valid_type(o->root_type) || !valid_type(o->default_type) ||
      (unsigned)o->ball_order > RK_EULER_N_ORDERS) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "tree options: unknown joint type or Euler order");
    return false;
  }
  if ((o->root_type == RK_JOINT_REVOLUTE || o->root_type == RK_JOINT_PRISMATIC ||
       o->default_type == RK_JOINT_REVOLUTE || o->default_type == RK_JOINT_PRISMATIC) &&
      (!rk_vec3_is_finite(o->default_axis) || rk_vec3_norm(o->default_axis) < 1e-12)) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "tree options: default_axis is zero");
    return false;
  }
  if (o->joint_count && !o->joints) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "tree options: joint_count without joints");
    return false;
  }
  return true;
}

/* Joint frames of the clip relative to the rest rotation, d_f = rest^-1 r_f. */
static void relative_rotations(const rk__tree_samples *s, size_t j, rk_quat rest, rk_quat *d) {
  rk_quat inv = rk_quat_conj(rest);
  for (size_t f = 0; f < s->frames; f++)
    d[f] = rk_quat_mul(inv, s->rot[f * s->n + j]);
}

/* Number of distinct successive key values of a joint's channel (capped at `cap`): 0 without a
 * track. Rotations compare as rotations (q and -q are equal). */
static int distinct_keys(const rk_clip *clip, int joint, rk_channel ch, double tol, int cap) {
  const int ti = rk_clip_find_track(clip, joint, ch);
  if (ti < 0)
    return 0;
  const rk_track *tr = rk_clip_track(clip, (size_t)ti);
  const int nc = rk_channel_components(ch), stride = tr->interp == RK_INTERP_CUBIC ? 3 * nc : nc;
  const int off = tr->interp == RK_INTERP_CUBIC ? nc : 0;
  int count = 0;
  const double *last = NULL;
  for (size_t k = 0; k < tr->key_count && count < cap; k++) {
    const double *v = tr->values + k * (size_t)stride + off;
    bool differs = !last;
    if (last && ch == RK_CHANNEL_ROTATION) {
      rk_quat a = rk_quat_normalize(rk_quat_make(last[0], last[1], last[2], last[3]));
      rk_quat b = rk_quat_normalize(rk_quat_make(v[0], v[1], v[2], v[3]));
      differs = rk_quat_angle_between(a, b) > tol;
    } else if (last) {
      differs = fabs(v[0] - last[0]) + fabs(v[1] - last[1]) + fabs(v[2] - last[2]) > tol;
    }
    if (differs) {
      count++;
      last = v;
    }
  }
  return count;
}

/* Types one joint from the clip (non-root, no spec, not an end site). */
static void type_from_clip(rk_tree *t, size_t j, const rk_tree_options *o, const rk_clip *clip,
                           const rk__tree_samples *s, rk_quat *d, rk_vec3 *p, double height) {
  rk_joint *J = &t->joints[j];
  const rk_transform *rest = rk_skeleton_rest(t->skeleton, j);
  relative_rotations(s, j, rest->r, d);
  rk__hinge_fit fit;
  rk__fit_hinge(d, s->frames, &fit);
  J->fit_tested = true;
  J->fit_axis = fit.axis;
  J->fit_residual_rms = fit.rms;
  J->fit_residual_max = fit.max;
  J->fit_range = fit.range;
  J->motion_range = fit.motion;
  J->fit_keys = distinct_keys(clip, (int)j, RK_CHANNEL_ROTATION, o->static_tolerance, 3);

  rk_vec3 mean_t = rk_vec3_make(0, 0, 0);
  for (size_t f = 0; f < s->frames; f++) {
    p[f] = s->trans[f * s->n + j];
    mean_t = rk_vec3_add(mean_t, p[f]);
  }
  mean_t = rk_vec3_scale(mean_t, 1.0 / (double)s->frames);
  double dev = 0.0;
  for (size_t f = 0; f < s->frames; f++)
    dev = fmax(dev, rk_vec3_norm(rk_vec3_sub(p[f], mean_t)));
  const double scale_t = fmax(rk_vec3_norm(rest->t), fmax(0.01 * height, 1e-12));
  const bool rot_static = fit.motion <= o->static_tolerance;
  const bool trans_static = dev <= o->static_tolerance * scale_t;

  if (o->fix_static && rot_static && trans_static) {
    J->type = RK_JOINT_FIXED;
    J->origin = RK_ORIGIN_STATIC;
    return;
  }
  if (o->detect_hinges && !rot_static && J->fit_keys >= 3 && fit.range >= o->hinge_min_range &&
      fit.max <= o->hinge_tolerance && fit.max <= o->hinge_relative_tolerance * fit.range) {
    J->type = RK_JOINT_REVOLUTE;
    J->origin = RK_ORIGIN_HINGE_FIT;
    J->axis = fit.axis;
    J->zero.r = rk_quat_normalize(rk_quat_mul(rest->r, fit.zero));
    return;
  }
  if (o->detect_prismatic && rot_static && !trans_static) {
    rk_vec3 dir, mean;
    double off, range;
    rk__fit_line(p, s->frames, &dir, &mean, &off, &range);
    const double key_tol = o->static_tolerance * scale_t;
    if (range > 0 && off <= o->line_tolerance * range &&
        distinct_keys(clip, (int)j, RK_CHANNEL_TRANSLATION, key_tol, 3) >= 3) {
      rk_vec3 zt =
          rk_vec3_add(mean, rk_vec3_scale(dir, rk_vec3_dot(rk_vec3_sub(rest->t, mean), dir)));
      if (rk_vec3_dot(rk_vec3_sub(mean, zt), dir) < 0)
        dir = rk_vec3_scale(dir, -1.0);
      J->type = RK_JOINT_PRISMATIC;
      J->origin = RK_ORIGIN_LINE_FIT;
      J->axis = dir;
      J->zero.t = zt;
    }
  }
}

static rk_euler_order choose_order(rk_tree *t, size_t j, const rk_mat4 *rest_models,
                                   const rk__tree_samples *s, rk_quat *d) {
  const rk_euler_order h = heuristic_order(t->skeleton, j, rest_models);
  if (!s)
    return h;
  relative_rotations(s, j, t->joints[j].zero.r, d);
  const double limit = 60.0 * RK_DEG;
  double best_score = rk__euler_lock_margin_score(h, d, s->frames);
  if (best_score < limit)
    return h;
  rk_euler_order best = h;
  for (int o = RK_EULER_XYZ; o <= RK_EULER_ZYX; o++) {
    double sc = rk__euler_lock_margin_score((rk_euler_order)o, d, s->frames);
    if (sc < best_score - 1e-9) {
      best_score = sc;
      best = (rk_euler_order)o;
    }
  }
  return best;
}

static const char *euler_axis_name(int axis) { return axis == 0 ? "rx" : axis == 1 ? "ry" : "rz"; }

static bool assign_dofs(rk_tree *t, GError **error) {
  size_t ndof = 0;
  for (size_t j = 0; j < t->n; j++) {
    rk_joint *J = &t->joints[j];
    J->dof_count = rk_joint_type_dof_count(J->type);
    J->dof_offset = J->dof_count ? (int)ndof : -1;
    ndof += (size_t)J->dof_count;
    if (ndof > RK_TREE_MAX_DOF) {
      g_set_error(error, RK_ERROR, RK_ERROR_LIMIT,
                  "the kinematic tree would have more than %d DOFs (at joint '%s')",
                  RK_TREE_MAX_DOF, rk_skeleton_joint_name(t->skeleton, j));
      return false;
    }
  }
  t->ndof = ndof;
  t->dofs = g_new0(rk_dof, ndof ? ndof : 1);
  t->dof_names = g_new0(char *, ndof ? ndof : 1);
  t->lower = g_new(double, ndof ? ndof : 1);
  t->upper = g_new(double, ndof ? ndof : 1);
  for (size_t j = 0; j < t->n; j++) {
    const rk_joint *J = &t->joints[j];
    const char *name = rk_skeleton_joint_name(t->skeleton, j);
    int ax[3] = {0, 1, 2};
    if (J->type == RK_JOINT_BALL || J->type == RK_JOINT_FREE)
      rk_euler_order_axes(J->order, ax);
    for (int k = 0; k < J->dof_count; k++) {
      const size_t d = (size_t)(J->dof_offset + k);
      rk_dof *D = &t->dofs[d];
      D->joint = (int)j;
      D->component = k;
      const char *comp;
      double lim = RK_PI;
      switch (J->type) {
      case RK_JOINT_REVOLUTE:
        D->kind = RK_DOF_ROTATION;
        D->axis = J->axis;
        comp = "angle";
        break;
      case RK_JOINT_PRISMATIC:
        D->kind = RK_DOF_TRANSLATION;
        D->axis = J->axis;
        comp = "offset";
        lim = INFINITY;
        break;
      case RK_JOINT_FREE:
        if (k < 3) {
          D->kind = RK_DOF_TRANSLATION;
          D->axis = unit_axes[k];
          comp = k == 0 ? "tx" : k == 1 ? "ty" : "tz";
        } else {
          D->kind = RK_DOF_ROTATION;
          D->axis = unit_axes[ax[k - 3]];
          comp = euler_axis_name(ax[k - 3]);
        }
        lim = INFINITY; /* a free root goes anywhere and turns any number of times */
        break;
      default: /* ball */
        D->kind = RK_DOF_ROTATION;
        D->axis = unit_axes[ax[k]];
        comp = euler_axis_name(ax[k]);
        break;
      }
      D->lower = t->lower[d] = -lim;
      D->upper = t->upper[d] = lim;
      t->dof_names[d] = g_strdup_printf("%s.%s", name, comp);
    }
  }
  t->link_dof_count = g_new0(size_t, t->n);
  for (size_t j = 0; j < t->n; j++)
    t->link_dof_count[j] = (t->parents[j] >= 0 ? t->link_dof_count[t->parents[j]] : 0) +
                           (size_t)t->joints[j].dof_count;
  return true;
}

static void limits_from_clip(rk_tree *t, const rk__tree_samples *s, double margin, double height) {
  if (t->ndof == 0)
    return;
  double *lo = g_new(double, t->ndof), *hi = g_new(double, t->ndof);
  double *q = g_new(double, t->ndof), *prev = g_new(double, t->ndof);
  rk_transform *locals = g_new(rk_transform, t->n);
  for (size_t k = 0; k < t->ndof; k++)
    lo[k] = INFINITY, hi[k] = -INFINITY;
  for (size_t f = 0; f < s->frames; f++) {
    for (size_t j = 0; j < t->n; j++) {
      locals[j] = t->joints[j].zero;
      locals[j].r = s->rot[f * s->n + j];
      locals[j].t = s->trans[f * s->n + j];
    }
    rk_tree_q_from_locals(t, locals, f ? prev : NULL, q, NULL);
    for (size_t k = 0; k < t->ndof; k++) {
      lo[k] = fmin(lo[k], q[k]);
      hi[k] = fmax(hi[k], q[k]);
    }
    memcpy(prev, q, t->ndof * sizeof(double));
  }
  for (size_t k = 0; k < t->ndof; k++) {
    const rk_joint *J = &t->joints[t->dofs[k].joint];
    if (J->type == RK_JOINT_FREE || !(lo[k] <= hi[k]))
      continue;
    double m = margin;
    if (t->dofs[k].kind == RK_DOF_TRANSLATION)
      m = margin * fmax(rk_vec3_norm(J->zero.t), 0.01 * height);
    t->lower[k] = t->dofs[k].lower = lo[k] - m;
    t->upper[k] = t->dofs[k].upper = hi[k] + m;
  }
  g_free(lo);
  g_free(hi);
  g_free(q);
  g_free(prev);
  g_free(locals);
}

static void paired_frames(rk_tree *t, size_t j) {
  rk_joint *J = &t->joints[j];
  rk_quat rj = J->zero.r;
  if (J->type == RK_JOINT_REVOLUTE)
    rj = rk_quat_from_to(rk_vec3_make(0, 0, 1), rk_quat_rotate(J->zero.r, J->axis));
  else if (J->type == RK_JOINT_PRISMATIC)
    rj = rk_quat_from_to(rk_vec3_make(0, 0, 1), J->axis);
  rk_transform fp = {J->zero.t, rj, {1, 1, 1}};
  J->frame_on_parent = rk_transform_to_mat4(&fp);
  rk_mat4 zero = rk_transform_to_mat4(&J->zero), inv;
  if (!rk_mat4_inverse_affine(&zero, &inv))
    inv = rk_mat4_inverse_rigid(&zero);
  J->frame_on_child = rk_mat4_mul_affine(&inv, &J->frame_on_parent);
}

rk_tree *rk_tree_from_skeleton(const rk_skeleton *skeleton, const rk_clip *motion,
                               const rk_tree_options *opts_in, GError **error) {
  g_return_val_if_fail(skeleton != NULL, NULL);
  rk_tree_options o;
  if (opts_in)
    o = *opts_in;
  else
    rk_tree_options_init(&o);
  if (!check_options(&o, error))
    return NULL;
  const size_t n = rk_skeleton_joint_count(skeleton);
  if (motion && rk_clip_joint_count(motion) != n) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "clip '%s' animates %zu joints but the skeleton has %zu", rk_clip_name(motion),
                rk_clip_joint_count(motion), n);
    return NULL;
  }
  int *spec_of = g_new(int, n);
  for (size_t j = 0; j < n; j++)
    spec_of[j] = -1;
  for (size_t i = 0; i < o.joint_count; i++)
    if (!check_spec(skeleton, &o.joints[i], spec_of, i, error)) {
      g_free(spec_of);
      return NULL;
    }

  rk_tree *t = g_new0(rk_tree, 1);
  t->refcount = 1;
  t->skeleton = rk_skeleton_ref((rk_skeleton *)skeleton);
  t->n = n;
  t->parents = rk_skeleton_parents(skeleton);
  t->subtree_end = g_new(size_t, n);
  for (size_t j = 0; j < n; j++)
    t->subtree_end[j] = rk_skeleton_subtree_end(skeleton, j);
  t->joints = g_new0(rk_joint, n);
  const rk_transform *rest = rk_skeleton_rest_locals(skeleton);
  rk_mat4 *rest_models = g_new(rk_mat4, n);
  rk_skeleton_rest_models(skeleton, rest_models);
  const double height = rk_skeleton_rest_height(skeleton);

  rk__tree_samples samples = {0};
  rk__tree_samples *s = NULL;
  if (motion) {
    rk__tree_samples_init(&samples, skeleton, motion, o.clip_max_frames);
    s = &samples;
  }
  rk_quat *d = g_new(rk_quat, s ? s->frames : 1);
  rk_vec3 *p = g_new(rk_vec3, s ? s->frames : 1);

  for (size_t j = 0; j < n; j++) {
    rk_joint *J = &t->joints[j];
    J->link = (int)j;
    J->parent = t->parents[j];
    J->zero = rest[j];
    J->order = RK_EULER_N_ORDERS;
    const bool root = t->parents[j] < 0;
    const bool end_site =
        (rk_skeleton_joint_flags(skeleton, j) & RK_SKELETON_END_SITE) && t->subtree_end[j] == j + 1;
    if (spec_of[j] >= 0) {
      const rk_joint_spec *sp = &o.joints[spec_of[j]];
      J->type = sp->type;
      J->origin = RK_ORIGIN_SPEC;
      if (J->type == RK_JOINT_REVOLUTE || J->type == RK_JOINT_PRISMATIC)
        J->axis = rk_vec3_normalize(sp->axis);
    } else if (end_site) {
      J->type = RK_JOINT_FIXED;
      J->origin = RK_ORIGIN_END_SITE;
    } else {
      J->type = root ? o.root_type : o.default_type;
      J->origin = RK_ORIGIN_DEFAULT;
      if (J->type == RK_JOINT_REVOLUTE || J->type == RK_JOINT_PRISMATIC)
        J->axis = rk_vec3_normalize(o.default_axis);
      if (s && !root)
        type_from_clip(t, j, &o, motion, s, d, p, height);
    }
    if (J->type == RK_JOINT_BALL || J->type == RK_JOINT_FREE) {
      rk_euler_order ord = spec_of[j] >= 0 ? o.joints[spec_of[j]].order : RK_EULER_N_ORDERS;
      if (ord == RK_EULER_N_ORDERS)
        ord = o.ball_order;
      if (ord == RK_EULER_N_ORDERS)
        ord = choose_order(t, j, rest_models, s, d);
      J->order = ord;
    }
  }
  g_free(d);
  g_free(p);
  g_free(rest_models);

  t->euler_axes = g_malloc0((n ? n : 1) * sizeof *t->euler_axes);
  for (size_t j = 0; j < n; j++)
    if (t->joints[j].type == RK_JOINT_BALL || t->joints[j].type == RK_JOINT_FREE) {
      int ax[3];
      rk_euler_order_axes(t->joints[j].order, ax);
      for (int k = 0; k < 3; k++)
        t->euler_axes[j][k] = (unsigned char)ax[k];
    }
  bool ok = assign_dofs(t, error);
  if (ok) {
    if (s && o.limits_from_clip)
      limits_from_clip(t, s, o.limit_margin, height);
    for (size_t j = 0; j < n; j++) {
      const rk_joint *J = &t->joints[j];
      if (spec_of[j] >= 0 && o.joints[spec_of[j]].has_limits)
        for (int k = 0; k < J->dof_count; k++) {
          const size_t dd = (size_t)(J->dof_offset + k);
          t->lower[dd] = t->dofs[dd].lower = o.joints[spec_of[j]].lower[k];
          t->upper[dd] = t->dofs[dd].upper = o.joints[spec_of[j]].upper[k];
        }
    }
    for (size_t j = 0; j < n; j++) {
      paired_frames(t, j);
      set_hints(t, j);
    }
    rk__tree_prepare_fk(t);
    t->zero_models = g_new(rk_mat4, n);
    double *q0 = g_new0(double, t->ndof ? t->ndof : 1);
    rk_tree_fk(t, q0, NULL, t->zero_models);
    g_free(q0);
    t->q_rest = g_new0(double, t->ndof ? t->ndof : 1);
    rk_tree_q_from_locals(t, rest, NULL, t->q_rest, NULL);
    t->junctions = rk__junctions_build(t, error);
    ok = t->junctions != NULL;
  }
  if (s)
    rk__tree_samples_clear(s);
  g_free(spec_of);
  if (!ok) {
    rk_tree_unref(t);
    return NULL;
  }
  return t;
}

rk_tree *rk_tree_ref(rk_tree *tree) {
  if (tree)
    g_atomic_int_inc(&tree->refcount);
  return tree;
}

void rk_tree_unref(rk_tree *tree) {
  if (!tree || !g_atomic_int_dec_and_test(&tree->refcount))
    return;
  rk__junctions_free(tree->junctions);
  if (tree->dof_names)
    for (size_t k = 0; k < tree->ndof; k++)
      g_free(tree->dof_names[k]);
  g_free(tree->dof_names);
  g_free(tree->dofs);
  g_free(tree->lower);
  g_free(tree->upper);
  g_free(tree->joints);
  g_free(tree->subtree_end);
  g_free(tree->link_dof_count);
  g_free(tree->zero_models);
  g_free(tree->q_rest);
  g_free(tree->euler_axes);
  g_free(tree->fk);
  rk_skeleton_unref(tree->skeleton);
  g_free(tree);
}
