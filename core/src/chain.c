/* Serial chains of a kinematic tree with their DH tables (see rigkit/chain.h). */
#include "tree_internal.h"

#include "math_internal.h"

#include <rigkit/chain.h>
#include <rigkit/error.h>

struct rk_chain {
  char *name;
  int base, tip;
  size_t ndof, nlinks;
  int *dofs;
  int *links;
  rk_dh_row *rows_std, *rows_mod;
  rk_dh_chain dh_std, dh_mod;
};

void rk_chain_free(rk_chain *c) {
  if (!c)
    return;
  g_free(c->name);
  g_free(c->dofs);
  g_free(c->links);
  g_free(c->rows_std);
  g_free(c->rows_mod);
  g_free(c);
}

rk_chain *rk_chain_new(const rk_tree *t, int base, int tip, GError **error) {
  g_return_val_if_fail(t != NULL, NULL);
  const int n = (int)t->n;
  if (base < -1 || base >= n || tip < 0 || tip >= n) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "chain %d -> %d: link out of range (0..%d)",
                base, tip, n - 1);
    return NULL;
  }
  const char *bname = base < 0 ? "world" : rk_tree_link_name(t, (size_t)base);
  const char *tname = rk_tree_link_name(t, (size_t)tip);
  if (base >= 0 && !(base <= tip && (size_t)tip < t->subtree_end[base])) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "chain '%s' -> '%s': the tip is not a descendant of the base", bname, tname);
    return NULL;
  }
  rk_chain *c = g_new0(rk_chain, 1);
  c->name = g_strdup_printf("%s->%s", bname, tname);
  c->base = base;
  c->tip = tip;
  for (int x = tip; x != base; x = t->parents[x]) {
    c->nlinks++;
    c->ndof += (size_t)t->joints[x].dof_count;
  }
  c->links = g_new(int, c->nlinks ? c->nlinks : 1);
  c->dofs = g_new(int, c->ndof ? c->ndof : 1);
  size_t li = c->nlinks, di = c->ndof;
  for (int x = tip; x != base; x = t->parents[x]) {
    c->links[--li] = x;
    for (int k = t->joints[x].dof_count; k-- > 0;)
      c->dofs[--di] = t->joints[x].dof_offset + k;
  }
  c->rows_std = g_new0(rk_dh_row, c->ndof ? c->ndof : 1);
  c->rows_mod = g_new0(rk_dh_row, c->ndof ? c->ndof : 1);

  /* Extract in world coordinates at q = 0 (rigid frames), then move the base into the base
   * link's body coordinates. */
  const rk_mat4 identity = rk_mat4_identity();
  const rk_mat4 *mb = base >= 0 ? &t->zero_models[base] : &identity;
  rk_mat4 mb_inv;
  if (!rk_mat4_inverse_affine(mb, &mb_inv))
    mb_inv = rk_mat4_inverse_rigid(mb);
  const rk_mat4 end = rk__mat4_rigid_part(&t->zero_models[tip]);
  rk_mat4 base_w = end, tool = identity, tool_mod = identity, base_mod = end;
  if (c->ndof > 0) {
    double *q0 = g_new0(double, t->ndof);
    rk_dof_axis *axes = g_new(rk_dof_axis, t->ndof);
    rk_dh_axis *dh_axes = g_new(rk_dh_axis, c->ndof);
    rk_tree_dof_axes(t, q0, t->zero_models, RK_DOF_AXES_COORDINATE, axes);
    for (size_t i = 0; i < c->ndof; i++) {
      const int d = c->dofs[i];
      dh_axes[i].point = axes[d].origin;
      dh_axes[i].dir = axes[d].axis;
      dh_axes[i].type = t->dofs[d].kind == RK_DOF_ROTATION ? RK_DH_REVOLUTE : RK_DH_PRISMATIC;
    }
    bool ok =
        rk_dh_extract(RK_DH_STANDARD, dh_axes, c->ndof, &end, c->rows_std, &base_w, &tool, error) &&
        rk_dh_extract(RK_DH_MODIFIED, dh_axes, c->ndof, &end, c->rows_mod, &base_mod, &tool_mod,
                      error);
    g_free(q0);
    g_free(axes);
    g_free(dh_axes);
    if (!ok) {
      g_prefix_error(error, "chain '%s': ", c->name);
      rk_chain_free(c);
      return NULL;
    }
  }
  c->dh_std = (rk_dh_chain){RK_DH_STANDARD, c->rows_std, c->ndof,
                            rk_mat4_mul_affine(&mb_inv, &base_w), tool};
  c->dh_mod = (rk_dh_chain){RK_DH_MODIFIED, c->rows_mod, c->ndof,
                            rk_mat4_mul_affine(&mb_inv, &base_mod), tool_mod};
  return c;
}

const char *rk_chain_name(const rk_chain *c) { return c->name; }
int rk_chain_base_link(const rk_chain *c) { return c->base; }
int rk_chain_tip_link(const rk_chain *c) { return c->tip; }
size_t rk_chain_dof_count(const rk_chain *c) { return c->ndof; }
const int *rk_chain_dofs(const rk_chain *c) { return c->dofs; }
size_t rk_chain_link_count(const rk_chain *c) { return c->nlinks; }
const int *rk_chain_links(const rk_chain *c) { return c->links; }
const rk_dh_chain *rk_chain_dh(const rk_chain *c, rk_dh_convention convention) {
  return convention == RK_DH_MODIFIED ? &c->dh_mod : &c->dh_std;
}

void rk_chain_gather(const rk_chain *c, const double *q_tree, double *q_chain) {
  for (size_t i = 0; i < c->ndof; i++)
    q_chain[i] = q_tree[c->dofs[i]];
}

void rk_chain_fk(const rk_chain *c, rk_dh_convention convention, const double *q_tree,
                 rk_mat4 *frames, rk_mat4 *end) {
  const rk_dh_chain *dh = rk_chain_dh(c, convention);
  rk_mat4 cur = dh->base, next;
  if (frames)
    frames[0] = cur;
  for (size_t i = 0; i < c->ndof; i++) {
    rk_mat4 a = rk_dh_row_transform(convention, &dh->rows[i], q_tree ? q_tree[c->dofs[i]] : 0.0);
    rk_mat4_mul_affine_to(&cur, &a, &next);
    cur = next;
    if (frames)
      frames[i + 1] = cur;
  }
  if (end)
    rk_mat4_mul_affine_to(&cur, &dh->tool, end);
}
