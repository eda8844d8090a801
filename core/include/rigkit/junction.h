/* rigkit/junction.h: junction links and their junction-angle constraints.
 *
 * A junction is a link that carries more than two joints: its inner joint plus at least two outer
 * joints leading to movable branches (pelvis: spine and two legs; chest: neck and two clavicles).
 * Joints to end sites do not count (they are markers, not mechanisms). Each branch k defines a
 * chain from the world through the junction to the end of the branch (the branch is followed
 * while links have exactly one movable child; it stops at a leaf or at the next junction).
 *
 * In DH form each chain gives the junction its own frame: the row of the junction's last DOF
 * (its own inner joint's, or the nearest one above it when that joint is fixed) takes x along the
 * common normal to the next axis of that branch, so the chains disagree on that row's theta (and
 * d). Keeping one independent variable, the others follow from a constant offset:
 *   planar case (the two frames share their z axis):  theta_b = theta_a + phi,  d_b = d_a + dz;
 *   3D case:                                          F_b = F_a * offset  (a constant rigid
 *                                                     transform on the junction link).
 * rigkit lists one constraint per branch other than the first (chain 0 is the reference).
 *
 * Junctions belong to the tree (computed when it is built, immutable, thread-safe).
 *
 * Index: rk_junction_constraint, rk_junction, rk_tree_junction_count, rk_tree_junction,
 *        rk_tree_junction_residual_count, rk_tree_junction_residuals, rk_junction_residual,
 *        rk_junction_angle_residual
 */
#ifndef RIGKIT_JUNCTION_H
#define RIGKIT_JUNCTION_H

#include <rigkit/chain.h>

G_BEGIN_DECLS

/** Constraint between the junction frames of two of a junction's chains. */
typedef struct rk_junction_constraint {
  int chain_a;    /* reference chain (index into rk_junction.chains) */
  int chain_b;    /* constrained chain */
  int row;        /* index of the junction's DH row in both chains (0-based), -1 when the
                     junction has no DOF above it (fixed to the world: nothing to constrain) */
  int dof;        /* tree DOF of that row, -1 with row */
  bool planar;    /* the two junction frames share z: the constraint is an angle (and a shift) */
  double phi;     /* planar: theta_b = theta_a + phi (rad, in (-pi, pi]) (standard DH) */
  double dz;      /* planar: d_b = d_a + dz */
  rk_mat4 offset; /* F_b = F_a * offset, standard DH junction frames (always set) */
} rk_junction_constraint;

/** A junction link with its chains and constraints (borrowed view). */
typedef struct rk_junction {
  int link;                      /* the junction link */
  size_t chain_count;            /* = number of movable branches (>= 2) */
  const rk_chain *const *chains; /* world -> end of each branch */
  const int *branch_links;       /* first link of each branch (chain_count) */
  size_t constraint_count;       /* chain_count - 1 */
  const rk_junction_constraint *constraints;
} rk_junction;

/** Number of junctions of the tree. */
RK_API size_t rk_tree_junction_count(const rk_tree *tree);
/** Borrowed junction i (in link order); NULL when out of range. */
RK_API const rk_junction *rk_tree_junction(const rk_tree *tree, size_t i);
/** Rows rk_tree_junction_residuals writes: 6 per constraint of every junction. */
RK_API size_t rk_tree_junction_residual_count(const rk_tree *tree);
/** Evaluates every junction constraint at q from the chains' own DH tables: for each constraint,
 * F_a(q) is the junction frame reached through chain a's standard DH rows, F_b(q) through chain
 * b's, and the 6 rows are (position of F_b minus position of F_a * offset; rotation vector of
 * (F_a * offset)^-1 F_b expressed in the world). They vanish for every q the tree produces; a
 * non-zero value means the chains disagree (e.g. per-chain variables that broke the constraint).
 * out has rk_tree_junction_residual_count entries. Allocates nothing. */
RK_API void rk_tree_junction_residuals(const rk_tree *tree, const double *q, double *out);
/** Residual of one constraint of a junction for per-chain variables: q_a holds chain a's
 * variables and q_b chain b's (rk_chain_dof_count entries each, as rk_chain_gather makes them
 * from a tree q), evaluated as in rk_tree_junction_residuals into out[6]. Non-zero when the two
 * chains' values disagree on the junction (e.g. chains solved independently). */
RK_API void rk_junction_residual(const rk_junction *junction, size_t constraint, const double *q_a,
                                 const double *q_b, double out[6]);
/** The planar junction-angle residual theta_b - theta_a - phi wrapped to (-pi, pi], for DH thetas
 * of the junction row as two separate chains see them. */
RK_API double rk_junction_angle_residual(const rk_junction_constraint *c, double theta_a,
                                         double theta_b);

G_END_DECLS

#endif
