/* IK evaluation: forward kinematics (DH chain or tree), the stacked rows of goals and loops, their
 * geometric Jacobian over the solved DOFs, and the errors a result reports. */
#include "ik_internal.h"

#include <string.h>

/* World frames of the chain (ws->frames[0..rows]), the end frame, and the DOF axes. */
static void chain_fk(rk_ik_ws *ws, rk__ik_state *s, rk_mat4 *end) {
  const rk_dh_chain *ch = &ws->dh;
  const size_t rows = ch->count;
  const int *dofs = ws->tree ? ws->chain_dofs : NULL;
  rk_mat4 *F = ws->frames;
  F[0] = ch->base;
  const bool standard = ch->convention == RK_DH_STANDARD;
  for (size_t i = 0; i < rows; i++) {
    const rk_dh_row *r = &ch->rows[i];
    const int k = dofs ? dofs[i] : (int)i;
    const double qi = s->q[k];
    double theta = r->theta, d = r->d;
    if (r->type == RK_DH_REVOLUTE)
      theta += qi;
    else
      d += qi;
    double st, ct;
    rk_sincos(theta, &st, &ct);
    const double ca = ws->ca[i], sa = ws->sa[i], a = r->a;
    rk_mat4 A;
    if (standard) {
      /* Rz(theta) Tz(d) Tx(a) Rx(alpha) */
      const rk_mat4 m = {
          {ct, st, 0, 0, -st * ca, ct * ca, sa, 0, st * sa, -ct * sa, ca, 0, a * ct, a * st, d, 1}};
      A = m;
    } else {
      /* Rx(alpha) Tx(a) Tz(d) Rz(theta) */
      const rk_mat4 m = {{ct, st * ca, st * sa, 0, -st, ct * ca, ct * sa, 0, 0, -sa, ca, 0, a,
                          -sa * d, ca * d, 1}};
      A = m;
    }
    rk_mat4_mul_affine_to(&F[i], &A, &F[i + 1]);
    /* Standard DH: joint i turns about z of frame i; modified: about z of frame i+1. */
    const rk_mat4 *f = standard ? &F[i] : &F[i + 1];
    s->axes[k].origin = rk_mat4_get_translation(f);
    s->axes[k].axis = rk_mat4_column(f, 2);
  }
  rk_mat4_mul_affine_to(&F[rows], &ch->tool, end);
}

/* Unit rotation part of an affine frame (columns normalised: tree frames may carry scale). */
static rk_quat frame_rotation(const rk_mat4 *w) {
  rk_mat3 r;
  for (int c = 0; c < 3; c++) {
    const rk_vec3 col = rk_vec3_normalize(rk_mat4_column(w, c));
    r.m[c * 3 + 0] = col.x;
    r.m[c * 3 + 1] = col.y;
    r.m[c * 3 + 2] = col.z;
  }
  return rk_quat_from_mat3(&r);
}

/* Rotation vector of target * current^-1 (world), angle in [0, pi]. */
static rk_vec3 rotation_error(rk_quat target, rk_quat current, double *angle) {
  rk_quat d = rk_quat_mul(target, rk_quat_conj(current));
  if (d.w < 0)
    d = rk_quat_make(-d.x, -d.y, -d.z, -d.w);
  const double s = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
  const double th = 2.0 * atan2(s, d.w);
  *angle = th;
  /* th / s -> 2 / w as s -> 0 (no division by zero). */
  const double f = s > 1e-12 ? th / s : 2.0 / d.w;
  return rk_vec3_make(d.x * f, d.y * f, d.z * f);
}

/* Adds sign * the Jacobian of point pt on the link of slot to rows [row, row+3) (linear, scaled
 * by wl; row < 0 = none) and [rrow, rrow+3) (angular, scaled by wa; rrow < 0 = none). */
static void add_point_jacobian(const rk_ik_ws *ws, const rk_ik_problem *p, const rk__ik_state *s,
                               size_t slot, rk_vec3 pt, int row, double wl, int rrow, double wa,
                               double sign) {
  const size_t m = ws->m;
  for (int i = ws->slot_off[slot]; i < ws->slot_off[slot + 1]; i++) {
    const int k = ws->slot_k[i], c = ws->slot_c[i];
    double *col = s->J + (size_t)c * m;
    const rk_dof_axis *ax = &s->axes[k];
    if (ws->is_rot[k]) {
      const rk_vec3 v = rk_vec3_cross(ax->axis, rk_vec3_sub(pt, ax->origin));
      if (row >= 0) {
        col[row] += sign * wl * v.x;
        col[row + 1] += sign * wl * v.y;
        col[row + 2] += sign * wl * v.z;
      }
      if (rrow >= 0) {
        col[rrow] += sign * wa * ax->axis.x;
        col[rrow + 1] += sign * wa * ax->axis.y;
        col[rrow + 2] += sign * wa * ax->axis.z;
      }
    } else if (row >= 0) {
      col[row] += sign * wl * ax->axis.x;
      col[row + 1] += sign * wl * ax->axis.y;
      col[row + 2] += sign * wl * ax->axis.z;
    }
  }
}

/* World frame of a goal's link. */
static const rk_mat4 *goal_link_frame(const rk_ik_ws *ws, const rk_ik_problem *p,
                                      const rk__ik_state *s, size_t gi, const rk_mat4 *end,
                                      rk_mat4 *tmp) {
  const int link = p->goals[gi].link;
  if (p->chain)
    return (size_t)link + 1 == ws->dh.count ? end : &ws->frames[link + 1];
  if (ws->use_chain) {
    if (link == ws->chain_tip)
      return end;
    rk_mat4_mul_affine_to(end, &ws->goal_offsets[gi], tmp);
    return tmp;
  }
  return &s->models[link];
}

/* Rows of loop li at `row` (residual only; the Jacobian comes from the slot points); returns
 * the number of rows. */
static size_t loop_rows(const rk_ik_problem *p, rk_ik_ws *ws, rk__ik_state *s, size_t li,
                        size_t row, double w) {
  const rk_loop *lp = &p->loops[li];
  const size_t slot = p->goal_count + 2 * li;
  const size_t r = rk_loop_rows(lp);
  double *F = ws->loop_res;
  rk_loop_residual(ws->tree, lp, s->models, F);
  for (size_t i = 0; i < r; i++) {
    s->e[row + i] = -w * F[i];
    s->closure = fmax(s->closure, fabs(F[i]));
  }
  s->pts[slot] =
      rk_mat4_transform_point(&s->models[lp->link_a], rk_mat4_get_translation(&lp->frame_a));
  s->pts[slot + 1] =
      lp->link_b >= 0
          ? rk_mat4_transform_point(&s->models[lp->link_b], rk_mat4_get_translation(&lp->frame_b))
          : rk_vec3_make(0, 0, 0);
  return r;
}

void rk__ik_eval(const rk_ik_problem *p, const rk_ik_options *o, rk_ik_ws *ws, rk__ik_state *s,
                 bool jac) {
  rk_mat4 end;
  if (ws->use_chain)
    chain_fk(ws, s, &end);
  else
    rk__ik_tree_fk(ws, s->q, p->root, s->models, s->axes, true);
  const size_t m = ws->m;
  s->pos_err = s->rot_err = s->closure = 0;
  size_t row = 0;
  if (ws->m1 > 0)
    for (size_t i = 0; i < p->loop_count; i++)
      row += loop_rows(p, ws, s, i, row, 1.0);
  for (size_t gi = 0; gi < p->goal_count; gi++) {
    const rk_ik_goal *g = &p->goals[gi];
    rk_mat4 tmp;
    const rk_mat4 *W = goal_link_frame(ws, p, s, gi, &end, &tmp);
    const rk_vec3 pt = rk_mat4_transform_point(W, g->point);
    s->pts[gi] = pt;
    ws->goal_pos[gi] = ws->goal_rot[gi] = 0;
    if (g->kind != RK_IK_ORIENTATION) {
      const rk_vec3 d = rk_vec3_sub(g->target_position, pt);
      const double w = g->weight;
      s->e[row] = w * d.x;
      s->e[row + 1] = w * d.y;
      s->e[row + 2] = w * d.z;
      ws->goal_pos[gi] = rk_vec3_norm(d);
      if (w > 0) /* a goal switched off (weight 0) does not decide whether the solve reached */
        s->pos_err = fmax(s->pos_err, ws->goal_pos[gi]);
      row += 3;
    }
    if (g->kind != RK_IK_POSITION) {
      const rk_quat cur = rk_quat_mul(frame_rotation(W), g->rotation);
      double angle;
      const rk_vec3 d = rotation_error(g->target_orientation, cur, &angle);
      const double w = g->orientation_weight;
      s->e[row] = w * d.x;
      s->e[row + 1] = w * d.y;
      s->e[row + 2] = w * d.z;
      ws->goal_rot[gi] = angle;
      if (w > 0)
        s->rot_err = fmax(s->rot_err, angle);
      row += 3;
    }
  }
  if (ws->m1 == 0)
    for (size_t i = 0; i < p->loop_count; i++)
      row += loop_rows(p, ws, s, i, row, p->loop_weight);

  double hard = 0, soft = 0;
  for (size_t i = 0; i < ws->m1; i++)
    hard += s->e[i] * s->e[i];
  for (size_t i = ws->m1; i < m; i++)
    soft += s->e[i] * s->e[i];
  s->cost = soft;
  s->merit = RK__IK_HARD_MERIT * hard + soft;
  s->reached = s->pos_err <= o->position_tolerance && s->rot_err <= o->orientation_tolerance &&
               s->closure <= o->closure_tolerance;
  if (jac)
    rk__ik_jacobian(p, ws, s);
}

void rk__ik_jacobian(const rk_ik_problem *p, rk_ik_ws *ws, rk__ik_state *s) {
  memset(s->J, 0, ws->m * ws->c * sizeof(double));
  int row = 0;
  for (size_t li = 0; ws->m1 > 0 && li < p->loop_count; li++) {
    const rk_loop *lp = &p->loops[li];
    const size_t slot = p->goal_count + 2 * li;
    const int rrow = lp->kind == RK_LOOP_RIGID ? row + 3 : -1;
    add_point_jacobian(ws, p, s, slot, s->pts[slot], row, 1.0, rrow, 1.0, 1.0);
    if (lp->link_b >= 0)
      add_point_jacobian(ws, p, s, slot + 1, s->pts[slot + 1], row, 1.0, rrow, 1.0, -1.0);
    row += (int)rk_loop_rows(lp);
  }
  for (size_t gi = 0; gi < p->goal_count; gi++) {
    const rk_ik_goal *g = &p->goals[gi];
    int prow = -1, rrow = -1;
    if (g->kind != RK_IK_ORIENTATION) {
      prow = row;
      row += 3;
    }
    if (g->kind != RK_IK_POSITION) {
      rrow = row;
      row += 3;
    }
    add_point_jacobian(ws, p, s, gi, s->pts[gi], prow, g->weight, rrow, g->orientation_weight, 1.0);
  }
  for (size_t li = 0; ws->m1 == 0 && li < p->loop_count; li++) {
    const rk_loop *lp = &p->loops[li];
    const size_t slot = p->goal_count + 2 * li;
    const double w = p->loop_weight;
    const int rrow = lp->kind == RK_LOOP_RIGID ? row + 3 : -1;
    add_point_jacobian(ws, p, s, slot, s->pts[slot], row, w, rrow, w, 1.0);
    if (lp->link_b >= 0)
      add_point_jacobian(ws, p, s, slot + 1, s->pts[slot + 1], row, w, rrow, w, -1.0);
    row += (int)rk_loop_rows(lp);
  }
}
