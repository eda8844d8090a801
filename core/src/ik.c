/* IK problems: options, validation, workspaces and the per-solve setup (chain or tree path,
 * which DOFs are solved). */
#include "ik_internal.h"

#include <rigkit/error.h>
#include <string.h>

void rk_ik_options_init(rk_ik_options *opts) {
  g_return_if_fail(opts != NULL);
  const rk_ik_options d = RK_IK_OPTIONS_INIT;
  *opts = d;
}

const char *rk_ik_method_name(rk_ik_method method) {
  switch (method) {
  case RK_IK_NEWTON:
    return "newton";
  case RK_IK_DLS:
    return "dls";
  case RK_IK_LM:
    return "lm";
  }
  return "?";
}

const char *rk_ik_status_name(rk_ik_status status) {
  switch (status) {
  case RK_IK_REACHED:
    return "reached";
  case RK_IK_CLOSEST:
    return "closest";
  case RK_IK_MAX_ITERATIONS:
    return "max-iterations";
  case RK_IK_TIMEOUT:
    return "timeout";
  }
  return "?";
}

const char *rk_ik_step_kind_name(rk_ik_step_kind kind) {
  switch (kind) {
  case RK_IK_STEP_REGULAR:
    return "regular";
  case RK_IK_STEP_OVERDETERMINED:
    return "over-determined";
  case RK_IK_STEP_UNDERDETERMINED:
    return "under-determined";
  case RK_IK_STEP_DAMPED:
    return "damped";
  case RK_IK_STEP_SINGULAR:
    return "singular";
  }
  return "?";
}

size_t rk_ik_problem_dof_count(const rk_ik_problem *p) {
  if (!p)
    return 0;
  if (p->tree)
    return rk_tree_dof_count(p->tree);
  if (p->chain)
    return p->chain->count;
  return 0;
}

static size_t goal_rows(const rk_ik_goal *g) { return g->kind == RK_IK_POSE ? 6 : 3; }

size_t rk_ik_problem_rows(const rk_ik_problem *p) {
  if (!p)
    return 0;
  size_t rows = 0;
  for (size_t i = 0; i < p->goal_count && p->goals; i++)
    rows += goal_rows(&p->goals[i]);
  if (p->loops)
    rows += rk_loops_rows(p->loops, p->loop_count);
  return rows;
}

static size_t mechanism_links(const rk_ik_problem *p) {
  return p->tree ? rk_tree_link_count(p->tree) : p->chain->count;
}

static const char *link_name(const rk_ik_problem *p, int link) {
  if (p->tree && link >= 0 && (size_t)link < rk_tree_link_count(p->tree))
    return rk_tree_link_name(p->tree, (size_t)link);
  return "chain link";
}

static bool quat_is_unit(rk_quat q) {
  return rk_quat_is_finite(q) && fabs(rk_quat_dot(q, q) - 1.0) <= 2e-6;
}

static const char *dof_name(const rk_ik_problem *p, size_t k, char *buf, size_t len) {
  if (p->tree)
    return rk_tree_dof_name(p->tree, k);
  g_snprintf(buf, len, "row %zu", k);
  return buf;
}

bool rk_ik_problem_validate(const rk_ik_problem *p, GError **error) {
  if (!p) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "IK problem is NULL");
    return false;
  }
  if (!p->tree == !p->chain) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "IK problem needs exactly one mechanism (a tree or a DH chain), it has %s",
                p->tree ? "both" : "none");
    return false;
  }
  if (p->chain) {
    if (p->chain->count > 0 && !p->chain->rows) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "IK problem: DH chain of %zu rows has no rows",
                  p->chain->count);
      return false;
    }
    for (size_t i = 0; i < p->chain->count; i++) {
      const rk_dh_row *r = &p->chain->rows[i];
      if (!isfinite(r->a) || !isfinite(r->alpha) || !isfinite(r->d) || !isfinite(r->theta)) {
        g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "IK problem: DH row %zu is not finite", i);
        return false;
      }
    }
    if (!rk_mat4_is_finite(&p->chain->base) || !rk_mat4_is_finite(&p->chain->tool)) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "IK problem: DH base or tool is not finite");
      return false;
    }
    if (p->loop_count > 0) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                  "IK problem: loops need a tree mechanism (a DH chain problem has %zu loops)",
                  p->loop_count);
      return false;
    }
  }
  if (p->root && !rk_mat4_is_finite(p->root)) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "IK problem: root placement is not finite");
    return false;
  }
  if (p->goal_count > 0 && !p->goals) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "IK problem: %zu goals but no goal array",
                p->goal_count);
    return false;
  }
  const size_t links = mechanism_links(p);
  for (size_t i = 0; i < p->goal_count; i++) {
    const rk_ik_goal *g = &p->goals[i];
    if (g->link < 0 || (size_t)g->link >= links) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                  "IK goal %zu: link %d out of range (%zu links)", i, g->link, links);
      return false;
    }
    const char *name = link_name(p, g->link);
    if (g->kind != RK_IK_POSITION && g->kind != RK_IK_ORIENTATION && g->kind != RK_IK_POSE) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "IK goal %zu (link '%s'): unknown kind %d", i,
                  name, (int)g->kind);
      return false;
    }
    if (!rk_vec3_is_finite(g->point) || !rk_vec3_is_finite(g->target_position)) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                  "IK goal %zu (link '%s'): point or target position is not finite", i, name);
      return false;
    }
    if (!quat_is_unit(g->rotation) || !quat_is_unit(g->target_orientation)) {
      g_set_error(
          error, RK_ERROR, RK_ERROR_INVALID,
          "IK goal %zu (link '%s'): rotation or target orientation is not a unit quaternion", i,
          name);
      return false;
    }
    if (!(g->weight >= 0 && isfinite(g->weight)) ||
        !(g->orientation_weight >= 0 && isfinite(g->orientation_weight))) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                  "IK goal %zu (link '%s'): weights must be finite and >= 0 (%g, %g)", i, name,
                  g->weight, g->orientation_weight);
      return false;
    }
  }
  if (p->loop_count > 0 && !p->loops) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "IK problem: %zu loops but no loop array",
                p->loop_count);
    return false;
  }
  for (size_t i = 0; i < p->loop_count; i++) {
    if (!rk_loop_validate(p->tree, &p->loops[i], error)) {
      g_prefix_error(error, "IK loop %zu: ", i);
      return false;
    }
  }
  if (p->loop_mode != RK_IK_LOOPS_HARD && p->loop_mode != RK_IK_LOOPS_SOFT) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "IK problem: unknown loop mode %d",
                (int)p->loop_mode);
    return false;
  }
  if (!(p->loop_weight >= 0 && isfinite(p->loop_weight))) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "IK problem: loop weight %g must be finite and >= 0", p->loop_weight);
    return false;
  }
  const size_t n = rk_ik_problem_dof_count(p);
  const double *lo = p->lower ? p->lower : (p->tree ? rk_tree_lower(p->tree) : NULL);
  const double *hi = p->upper ? p->upper : (p->tree ? rk_tree_upper(p->tree) : NULL);
  char buf[32];
  for (size_t k = 0; k < n; k++) {
    const double l = lo ? lo[k] : -INFINITY, u = hi ? hi[k] : INFINITY;
    if (isnan(l) || isnan(u) || l > u) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "IK problem: DOF %s has limits [%g, %g]",
                  dof_name(p, k, buf, sizeof buf), l, u);
      return false;
    }
    if (p->posture && !isfinite(p->posture[k])) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "IK problem: posture of DOF %s is not finite",
                  dof_name(p, k, buf, sizeof buf));
      return false;
    }
  }
  if (!(p->posture_gain >= 0 && p->posture_gain <= 1)) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "IK problem: posture gain %g is not in [0, 1]",
                p->posture_gain);
    return false;
  }
  return true;
}

/* ---- Workspace ------------------------------------------------------------------------------- */

/* The first link that every DOF of the tree moves, or -1 (then the tree is no single chain). */
static int whole_chain_tip(const rk_tree *tree) {
  const size_t n = rk_tree_dof_count(tree), links = rk_tree_link_count(tree);
  if (n == 0)
    return -1;
  for (size_t l = 0; l < links; l++)
    if (rk_tree_link_dof_count(tree, l) == n)
      return (int)l;
  return -1;
}

/* A deterministic configuration inside the limits, away from zero (to test the chain's FK). */
static void probe_q(const rk_tree *tree, double *q) {
  const size_t n = rk_tree_dof_count(tree);
  const double *lo = rk_tree_lower(tree), *hi = rk_tree_upper(tree);
  for (size_t k = 0; k < n; k++) {
    double v = 0.37 + 0.11 * (double)(k % 5);
    if (k % 2)
      v = -v;
    q[k] = fmin(fmax(v, lo[k]), hi[k]);
  }
}

/* Builds the DH chain of a tree that is one serial chain, when its FK matches the tree's. */
static void try_chain_path(rk_ik_ws *ws) {
  const rk_tree *tree = ws->tree;
  const int tip = whole_chain_tip(tree);
  if (tip < 0)
    return;
  rk_chain *chain = rk_chain_new(tree, -1, tip, NULL);
  if (!chain)
    return;
  if (rk_chain_dof_count(chain) != ws->n) {
    rk_chain_free(chain);
    return;
  }
  /* The chain keeps only the rigid part of the tip frame: use it only when that is all of it. */
  double *q = g_new0(double, ws->n);
  rk_mat4 *models = g_new(rk_mat4, ws->links);
  bool same = true;
  for (int trial = 0; trial < 2 && same; trial++) {
    if (trial == 1)
      probe_q(tree, q);
    rk_mat4 end;
    rk_chain_fk(chain, RK_DH_STANDARD, q, NULL, &end);
    rk_tree_fk(tree, q, NULL, models);
    same = rk_mat4_max_abs_diff(&end, &models[tip]) <= 1e-9;
  }
  g_free(q);
  g_free(models);
  if (!same) {
    rk_chain_free(chain);
    return;
  }
  ws->owned_chain = chain;
  ws->chain_tip = tip;
  ws->chain_dofs = rk_chain_dofs(chain);
  ws->chain_rows = rk_chain_dof_count(chain);
  ws->has_chain = true;
}

rk_ik_ws *rk_ik_ws_new(const rk_ik_problem *p, size_t max_rows, GError **error) {
  if (!p || !p->tree == !p->chain) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "IK workspace: the problem needs exactly one mechanism (a tree or a DH chain)");
    return NULL;
  }
  rk_ik_ws *ws = g_new0(rk_ik_ws, 1);
  ws->tree = p->tree;
  ws->n = rk_ik_problem_dof_count(p);
  ws->links = mechanism_links(p);
  ws->chain_tip = -1;
  size_t m = MAX(max_rows, rk_ik_problem_rows(p));
  ws->m_cap = MAX(m, 6);
  ws->goal_cap = ws->m_cap / 3 + 1;
  const size_t n = MAX(ws->n, 1), mc = ws->m_cap, big = MAX(mc, n);
  if (p->chain) {
    ws->has_chain = true;
    ws->chain_rows = p->chain->count;
  } else {
    try_chain_path(ws);
  }
  ws->is_rot = g_new0(unsigned char, n);
  for (size_t k = 0; k < ws->n; k++)
    ws->is_rot[k] = p->chain ? p->chain->rows[k].type == RK_DH_REVOLUTE
                             : rk_tree_dof(p->tree, k)->kind == RK_DOF_ROTATION;
  const size_t rows = MAX(ws->chain_rows, 1);
  ws->ca = g_new0(double, rows);
  ws->sa = g_new0(double, rows);
  ws->frames = g_new0(rk_mat4, rows + 1);
  ws->cols = g_new0(int, n);
  ws->col_of = g_new0(int, n);
  ws->goal_offsets = g_new0(rk_mat4, ws->goal_cap);
  ws->slot_cap = ws->goal_cap + 2 * (ws->m_cap / 3 + 1);
  ws->slot_off = g_new0(int, ws->slot_cap + 1);
  ws->slot_k = g_new0(int, ws->slot_cap *n);
  ws->slot_c = g_new0(int, ws->slot_cap *n);
  ws->dof_tmp = g_new0(int, n);
  ws->fk_mark = g_new0(unsigned char, MAX(ws->links, 1));
  ws->fk_links = g_new0(int, MAX(ws->links, 1));
  if (p->tree) {
    ws->jd = g_new0(rk__ik_joint, ws->links);
    rk__ik_fk_prepare(ws);
  }
  for (int i = 0; i < 3; i++) {
    rk__ik_state *s = &ws->st[i];
    s->q = g_new0(double, n);
    s->e = g_new0(double, mc);
    s->J = g_new0(double, mc *n);
    s->models = g_new0(rk_mat4, MAX(ws->links, 1));
    s->axes = g_new0(rk_dof_axis, n);
    s->pts = g_new0(rk_vec3, ws->slot_cap);
  }
  ws->Jt = g_new0(double, mc *n);
  ws->Wt = g_new0(double, mc *n);
  ws->J2Nt = g_new0(double, mc *n);
  ws->G1 = g_new0(double, mc *mc);
  ws->V = g_new0(double, mc *mc);
  ws->G2raw = g_new0(double, big *big);
  ws->G2 = g_new0(double, big *big);
  ws->dq1 = g_new0(double, n);
  ws->u1 = g_new0(double, mc);
  ws->e2p = g_new0(double, mc);
  ws->cache_free = g_new0(int, n);
  ws->cache_id = -1;
  ws->vm1 = g_new0(double, mc);
  ws->vm2 = g_new0(double, mc);
  ws->vm3 = g_new0(double, mc);
  ws->vc1 = g_new0(double, big);
  ws->vc2 = g_new0(double, big);
  ws->vc3 = g_new0(double, big);
  ws->vc4 = g_new0(double, big);
  ws->vc5 = g_new0(double, big);
  ws->free_cols = g_new0(int, n);
  ws->blocked = g_new0(unsigned char, n);
  ws->active = g_new0(unsigned char, n);
  ws->goal_pos = g_new0(double, ws->goal_cap);
  ws->goal_rot = g_new0(double, ws->goal_cap);
  ws->loop_res = g_new0(double, 6);
  return ws;
}

void rk_ik_ws_free(rk_ik_ws *ws) {
  if (!ws)
    return;
  rk_chain_free(ws->owned_chain);
  g_free(ws->is_rot);
  g_free(ws->ca);
  g_free(ws->sa);
  g_free(ws->frames);
  g_free(ws->cols);
  g_free(ws->col_of);
  g_free(ws->goal_offsets);
  g_free(ws->slot_off);
  g_free(ws->slot_k);
  g_free(ws->slot_c);
  g_free(ws->dof_tmp);
  g_free(ws->fk_mark);
  g_free(ws->fk_links);
  g_free(ws->jd);
  for (int i = 0; i < 3; i++) {
    g_free(ws->st[i].q);
    g_free(ws->st[i].e);
    g_free(ws->st[i].J);
    g_free(ws->st[i].models);
    g_free(ws->st[i].axes);
    g_free(ws->st[i].pts);
  }
  g_free(ws->Jt);
  g_free(ws->Wt);
  g_free(ws->J2Nt);
  g_free(ws->G1);
  g_free(ws->V);
  g_free(ws->G2raw);
  g_free(ws->G2);
  g_free(ws->dq1);
  g_free(ws->u1);
  g_free(ws->e2p);
  g_free(ws->cache_free);
  g_free(ws->vm1);
  g_free(ws->vm2);
  g_free(ws->vm3);
  g_free(ws->vc1);
  g_free(ws->vc2);
  g_free(ws->vc3);
  g_free(ws->vc4);
  g_free(ws->vc5);
  g_free(ws->free_cols);
  g_free(ws->blocked);
  g_free(ws->active);
  g_free(ws->goal_pos);
  g_free(ws->goal_rot);
  g_free(ws->loop_res);
  g_free(ws);
}

bool rk_ik_ws_uses_chain_path(const rk_ik_ws *ws) { return ws && ws->has_chain; }

/* ---- Per-solve setup
 * ----------------------------------------------------------------------------- */

/* True when link is the chain tip or a descendant of it that no further DOF moves. */
static bool rides_on_tip(const rk_ik_ws *ws, int link) {
  if (link == ws->chain_tip)
    return true;
  const size_t end = rk_tree_link_subtree_end(ws->tree, (size_t)ws->chain_tip);
  if (link <= ws->chain_tip || (size_t)link >= end)
    return false;
  return rk_tree_link_dof_count(ws->tree, (size_t)link) == ws->n;
}

/* The DOFs that move a link on the path this solve takes, into ws->dof_tmp; returns the count. */
static size_t link_dofs(const rk_ik_problem *p, rk_ik_ws *ws, int link) {
  if (link < 0)
    return 0;
  if (p->chain) {
    for (int k = 0; k <= link; k++)
      ws->dof_tmp[k] = k;
    return (size_t)link + 1;
  }
  if (ws->use_chain) {
    memcpy(ws->dof_tmp, ws->chain_dofs, ws->chain_rows * sizeof(int));
    return ws->chain_rows;
  }
  return rk_tree_link_dofs(ws->tree, (size_t)link, ws->dof_tmp);
}

static void mark_link_dofs(const rk_ik_problem *p, rk_ik_ws *ws, int link) {
  const size_t count = link_dofs(p, ws, link);
  for (size_t i = 0; i < count; i++)
    ws->col_of[ws->dof_tmp[i]] = 0;
}

/* Appends slot s: the solved DOFs moving link and their columns. */
static void fill_slot(const rk_ik_problem *p, rk_ik_ws *ws, size_t s, int link) {
  int pos = ws->slot_off[s];
  const size_t count = link_dofs(p, ws, link);
  for (size_t i = 0; i < count; i++) {
    const int k = ws->dof_tmp[i];
    if (ws->col_of[k] < 0)
      continue;
    ws->slot_k[pos] = k;
    ws->slot_c[pos] = ws->col_of[k];
    pos++;
  }
  ws->slot_off[s + 1] = pos;
}

bool rk__ik_setup(const rk_ik_problem *p, rk_ik_ws *ws, GError **error) {
  if (p->tree ? p->tree != ws->tree : (ws->tree != NULL || p->chain->count != ws->n)) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "IK solve: the problem's mechanism is not the one the workspace was made for");
    return false;
  }
  const size_t rows = rk_ik_problem_rows(p);
  if (rows > ws->m_cap || p->goal_count + 2 * p->loop_count > ws->slot_cap) {
    g_set_error(
        error, RK_ERROR, RK_ERROR_LIMIT,
        "IK solve: the problem has %zu rows (%zu goals, %zu loops), the workspace holds %zu", rows,
        p->goal_count, p->loop_count, ws->m_cap);
    return false;
  }
  ws->m = rows;
  ws->m1 =
      p->loop_mode == RK_IK_LOOPS_HARD && p->loops ? rk_loops_rows(p->loops, p->loop_count) : 0;

  /* Chain or tree path. */
  ws->use_chain = false;
  if (p->chain) {
    ws->use_chain = true;
    ws->dh = *p->chain;
  } else if (ws->has_chain && p->loop_count == 0) {
    bool all = true;
    for (size_t i = 0; i < p->goal_count && all; i++)
      all = rides_on_tip(ws, p->goals[i].link);
    if (all) {
      ws->use_chain = true;
      ws->dh = *rk_chain_dh(ws->owned_chain, RK_DH_STANDARD);
      /* Goals on fixed descendants of the tip: a constant offset from the tip frame. */
      const double *qz = ws->st[2].q;
      memset(ws->st[2].q, 0, ws->n * sizeof(double));
      for (size_t i = 0; i < p->goal_count; i++) {
        if (p->goals[i].link == ws->chain_tip)
          ws->goal_offsets[i] = rk_mat4_identity();
        else
          rk_tree_transform_between(ws->tree, qz, ws->chain_tip, p->goals[i].link,
                                    &ws->goal_offsets[i]);
      }
    }
  }
  if (ws->use_chain) {
    if (p->root)
      ws->dh.base = rk_mat4_mul_affine(p->root, &ws->dh.base);
    for (size_t i = 0; i < ws->dh.count; i++)
      rk_sincos(ws->dh.rows[i].alpha, &ws->sa[i], &ws->ca[i]);
  }

  /* Columns: the unlocked DOFs that move a goal or loop link. */
  const size_t n = ws->n;
  for (size_t k = 0; k < n; k++)
    ws->col_of[k] = -1;
  if (ws->use_chain) {
    for (size_t k = 0; k < n; k++)
      ws->col_of[k] = 0;
  } else {
    for (size_t i = 0; i < p->goal_count; i++)
      mark_link_dofs(p, ws, p->goals[i].link);
    for (size_t i = 0; i < p->loop_count; i++) {
      mark_link_dofs(p, ws, p->loops[i].link_a);
      mark_link_dofs(p, ws, p->loops[i].link_b);
    }
  }
  size_t c = 0;
  for (size_t k = 0; k < n; k++) {
    if (ws->col_of[k] < 0 || (p->locked && p->locked[k])) {
      ws->col_of[k] = -1;
      continue;
    }
    ws->col_of[k] = (int)c;
    ws->cols[c++] = (int)k;
  }
  ws->c = c;
  if (!ws->use_chain)
    rk__ik_fk_links(ws, p);
  ws->slot_off[0] = 0;
  size_t slot = 0;
  for (size_t i = 0; i < p->goal_count; i++, slot++)
    fill_slot(p, ws, slot, p->goals[i].link);
  for (size_t i = 0; i < p->loop_count; i++, slot += 2) {
    fill_slot(p, ws, slot, p->loops[i].link_a);
    fill_slot(p, ws, slot + 1, p->loops[i].link_b);
  }
  return true;
}
