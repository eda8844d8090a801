/* Junction links, their chains and junction-angle constraints (see rigkit/junction.h). */
#include "junction_internal.h"

#include "math_internal.h"

#include <rigkit/error.h>
#include <rigkit/junction.h>

#include <string.h>

/* Standard-DH frame m of a chain (world <- frame m): the product of the first m rows, with the
 * chain variables taken from q_tree (tree DOF vector, via the chain's DOF indices), from q_chain
 * (chain-local variables), or zero when both are NULL. */
static rk_mat4 chain_frame(const rk_chain *c, size_t m, const double *q_tree,
                           const double *q_chain) {
  const rk_dh_chain *dh = rk_chain_dh(c, RK_DH_STANDARD);
  const int *dofs = rk_chain_dofs(c);
  rk_mat4 cur = dh->base, next;
  for (size_t i = 0; i < m; i++) {
    const double v = q_chain ? q_chain[i] : q_tree ? q_tree[dofs[i]] : 0.0;
    rk_mat4 a = rk_dh_row_transform(RK_DH_STANDARD, &dh->rows[i], v);
    rk_mat4_mul_affine_to(&cur, &a, &next);
    cur = next;
  }
  return cur;
}

/* Movable children: children whose subtree holds at least one DOF. */
static size_t movable_children(const rk_tree *t, const bool *has_dof, size_t j, int *out) {
  size_t count = 0;
  for (size_t c = j + 1; c < t->subtree_end[j]; c = t->subtree_end[c])
    if (has_dof[c]) {
      if (out)
        out[count] = (int)c;
      count++;
    }
  return count;
}

/* The tip of the branch starting at link c: follow single movable children; stop at a leaf of
 * the movable tree (taking its end site, if any, so the chain reaches the bone's tip) or at the
 * next junction. */
static int branch_tip(const rk_tree *t, const bool *has_dof, int c) {
  for (;;) {
    int only;
    size_t m = movable_children(t, has_dof, (size_t)c, NULL);
    if (m == 1) {
      movable_children(t, has_dof, (size_t)c, &only);
      c = only;
      continue;
    }
    if (m == 0)
      for (size_t k = (size_t)c + 1; k < t->subtree_end[c]; k = t->subtree_end[k])
        if (rk_skeleton_joint_flags(t->skeleton, k) & RK_SKELETON_END_SITE)
          return (int)k;
    return c;
  }
}

/* The junctions of a tree: built with it (rk__junctions_build) and freed with it. */
struct rk__junctions {
  size_t count;
  rk_junction *items;
  rk_chain **chains;  /* every junction chain, owned; junctions point into it */
  size_t chain_total; /* chains built so far */
  int *branch_links;
  rk_junction_constraint *constraints;
  size_t rows; /* residual rows: 6 per constraint */
};

void rk__junctions_free(rk__junctions *js) {
  if (!js)
    return;
  for (size_t i = 0; i < js->chain_total; i++)
    rk_chain_free(js->chains[i]);
  g_free(js->chains);
  g_free(js->items);
  g_free(js->branch_links);
  g_free(js->constraints);
  g_free(js);
}

/* The constraints of junction J (its chains built) between its chain 0 and each other chain,
 * into out[0..chain_count - 1). */
static void junction_constraints(const rk_tree *t, const rk_junction *J,
                                 rk_junction_constraint *out) {
  const size_t rows_above = t->link_dof_count[J->link]; /* DOFs from the world to the junction */
  const rk_chain *ca = J->chains[0];
  const rk_mat4 fa = chain_frame(ca, rows_above, NULL, NULL);
  for (size_t b = 1; b < J->chain_count; b++) {
    rk_junction_constraint *c = &out[b - 1];
    const rk_chain *cb = J->chains[b];
    c->chain_a = 0;
    c->chain_b = (int)b;
    c->offset = rk_mat4_identity();
    if (rows_above == 0) {
      c->row = c->dof = -1;
      continue;
    }
    c->row = (int)rows_above - 1;
    c->dof = rk_chain_dofs(ca)[c->row];
    const rk_mat4 fb = chain_frame(cb, rows_above, NULL, NULL),
                  fa_inv = rk_mat4_inverse_rigid(&fa);
    c->offset = rk_mat4_mul_affine(&fa_inv, &fb);
    const rk_vec3 z = rk_mat4_column(&c->offset, 2);
    c->planar = fabs(z.x) < 1e-9 && fabs(z.y) < 1e-9 && z.z > 0;
    if (c->planar) {
      const rk_dh_row *ra = &rk_chain_dh(ca, RK_DH_STANDARD)->rows[c->row];
      const rk_dh_row *rb = &rk_chain_dh(cb, RK_DH_STANDARD)->rows[c->row];
      c->phi = rk__wrap_angle(rb->theta - ra->theta);
      c->dz = rb->d - ra->d;
    }
  }
}

rk__junctions *rk__junctions_build(const rk_tree *t, GError **error) {
  const size_t n = t->n;
  bool *has_dof = g_new0(bool, n ? n : 1);
  for (size_t j = n; j-- > 0;) {
    if (t->joints[j].dof_count > 0)
      has_dof[j] = true;
    if (has_dof[j] && t->parents[j] >= 0)
      has_dof[t->parents[j]] = true;
  }
  size_t nj = 0, nchains = 0;
  for (size_t j = 0; j < n; j++) {
    size_t m = movable_children(t, has_dof, j, NULL);
    if (m >= 2) {
      nj++;
      nchains += m;
    }
  }
  rk__junctions *js = g_new0(rk__junctions, 1);
  js->count = nj;
  js->items = g_new0(rk_junction, nj ? nj : 1);
  js->chains = g_new0(rk_chain *, nchains ? nchains : 1);
  js->branch_links = g_new0(int, nchains ? nchains : 1);
  js->constraints = g_new0(rk_junction_constraint, nchains ? nchains : 1);
  size_t ji = 0, ci = 0, ki = 0;
  bool ok = true;
  for (size_t j = 0; j < n && ok; j++) {
    size_t m = movable_children(t, has_dof, j, NULL);
    if (m < 2)
      continue;
    rk_junction *J = &js->items[ji++];
    J->link = (int)j;
    J->chain_count = m;
    J->chains = (const rk_chain *const *)&js->chains[ci];
    J->branch_links = &js->branch_links[ci];
    movable_children(t, has_dof, j, &js->branch_links[ci]);
    for (size_t b = 0; b < m; b++) {
      int tip = branch_tip(t, has_dof, js->branch_links[ci + b]);
      js->chains[ci + b] = rk_chain_new(t, -1, tip, error);
      if (!js->chains[ci + b]) {
        g_prefix_error(error, "junction '%s': ", rk_tree_link_name(t, j));
        ok = false;
        break;
      }
      js->chain_total++;
    }
    if (!ok)
      break;
    J->constraints = &js->constraints[ki];
    J->constraint_count = m - 1;
    junction_constraints(t, J, &js->constraints[ki]);
    ki += m - 1;
    ci += m;
  }
  g_free(has_dof);
  js->rows = 6 * ki;
  if (!ok) {
    rk__junctions_free(js);
    return NULL;
  }
  return js;
}

size_t rk_tree_junction_count(const rk_tree *tree) { return tree->junctions->count; }

const rk_junction *rk_tree_junction(const rk_tree *tree, size_t i) {
  return i < tree->junctions->count ? &tree->junctions->items[i] : NULL;
}

size_t rk_tree_junction_residual_count(const rk_tree *tree) { return tree->junctions->rows; }

static void constraint_residual(const rk_junction *J, const rk_junction_constraint *c,
                                const double *q_tree, const double *q_a, const double *q_b,
                                double *out) {
  if (c->row < 0) {
    memset(out, 0, 6 * sizeof(double));
    return;
  }
  const size_t m = (size_t)c->row + 1;
  const rk_mat4 fa = chain_frame(J->chains[c->chain_a], m, q_tree, q_a);
  const rk_mat4 fb = chain_frame(J->chains[c->chain_b], m, q_tree, q_b);
  const rk_mat4 target = rk_mat4_mul_affine(&fa, &c->offset);
  const rk_vec3 dp = rk_vec3_sub(rk_mat4_get_translation(&fb), rk_mat4_get_translation(&target));
  const rk_mat3 rb = rk_mat4_get_rotation(&fb), rt = rk_mat4_get_rotation(&target);
  const rk_mat3 rtt = rk_mat3_transpose(&rt), e = rk_mat3_mul(&rb, &rtt);
  const rk_vec3 w = rk_quat_to_rotvec(rk_quat_from_mat3(&e));
  out[0] = dp.x, out[1] = dp.y, out[2] = dp.z;
  out[3] = w.x, out[4] = w.y, out[5] = w.z;
}

void rk_tree_junction_residuals(const rk_tree *tree, const double *q, double *out) {
  size_t r = 0;
  for (size_t i = 0; i < tree->junctions->count; i++) {
    const rk_junction *J = &tree->junctions->items[i];
    for (size_t k = 0; k < J->constraint_count; k++, r += 6)
      constraint_residual(J, &J->constraints[k], q, NULL, NULL, out + r);
  }
}

void rk_junction_residual(const rk_junction *junction, size_t constraint, const double *q_a,
                          const double *q_b, double out[6]) {
  g_return_if_fail(junction && constraint < junction->constraint_count && q_a && q_b);
  constraint_residual(junction, &junction->constraints[constraint], NULL, q_a, q_b, out);
}

double rk_junction_angle_residual(const rk_junction_constraint *c, double theta_a, double theta_b) {
  return rk__wrap_angle(theta_b - theta_a - c->phi);
}
