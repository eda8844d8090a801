/* rigkit/loop.h: loop closures on a kinematic tree.
 *
 * A loop joins a frame fixed on link a to a frame fixed on link b, or on the world (b = -1):
 * both feet planted on the ground, two hands on one prop, the cut joint of a closed mechanism.
 * It adds closure equations F(q) = 0:
 *   RK_LOOP_POSITION (3 rows): p_a(q) - p_b(q), the frames' origins in world coordinates;
 *   RK_LOOP_RIGID    (6 rows): the position rows, then the rotation vector of R_a(q) R_b(q)^T
 *                              (world coordinates).
 * Their Jacobian dF/dq (rows x dof_count) is exact, also away from closure (the rotation rows
 * carry the inverse left Jacobian of SO(3)). The effective DOF of a tree with loops is
 * dof_count - rank(dF/dq) at a closed, regular configuration: a planar mechanism's out-of-plane
 * rows vanish and do not count. Away from closure the rank means nothing: where the loop is open,
 * its gap turns with every joint above it (a free root's rotations among them) and adds rank a
 * closed mechanism does not have. The rank counts the singular values of dF/dq above
 * RK_LOOP_RANK_TOLERANCE times the largest (position rows are in metres per DOF unit, rotation
 * rows in radians per DOF unit).
 *
 * Loops are plain values owned by the caller (a retargeter makes new ones per contact); the
 * evaluation functions take FK results and DOF axes computed once per configuration
 * (rk_tree_fk, rk_tree_dof_axes with RK_DOF_AXES_COORDINATE) so several loops and goals share
 * them. Functions that need scratch take an rk_loop_ws made once per thread.
 *
 * Index: rk_loop_kind, rk_loop, rk_loop_rows, rk_loop_validate, rk_loop_closing,
 *        rk_loop_residual, rk_loop_jacobian, rk_loops_rows, rk_loops_residual, rk_loops_jacobian,
 *        rk_loop_ws_new, rk_loop_ws_free, RK_LOOP_RANK_TOLERANCE, RK_LOOP_CLOSED_TOLERANCE,
 *        rk_loops_rank, rk_loops_effective_dof, rk_loops_solve
 */
#ifndef RIGKIT_LOOP_H
#define RIGKIT_LOOP_H

#include <rigkit/tree.h>

G_BEGIN_DECLS

typedef enum rk_loop_kind {
  RK_LOOP_POSITION, /* the frames' origins coincide (3 rows) */
  RK_LOOP_RIGID,    /* the frames coincide (6 rows) */
} rk_loop_kind;

/** A loop closure (a plain value). */
typedef struct rk_loop {
  rk_loop_kind kind;
  int link_a;      /* a link of the tree */
  rk_mat4 frame_a; /* rigid frame on link a, in its body coordinates */
  int link_b;      /* a link of the tree, or -1 for the world */
  rk_mat4 frame_b; /* rigid frame on link b (world coordinates when link_b = -1) */
} rk_loop;

/** Rows of one loop's closure equations (3 or 6). */
RK_API size_t rk_loop_rows(const rk_loop *loop);
/** Checks a loop against a tree: links in range, a != b, rigid finite frames. Fails with
 * RK_ERROR_INVALID naming the loop's links. */
RK_API bool rk_loop_validate(const rk_tree *tree, const rk_loop *loop, GError **error);
/** Makes a loop that is closed at q: frame_a is point_a (in link a's body coordinates) with link
 * a's orientation, and frame_b is where that frame sits at q in link b's coordinates (or in the
 * world for link_b = -1). A planted foot: rk_loop_closing(tree, RK_LOOP_RIGID, q, foot, p, -1). */
RK_API rk_loop rk_loop_closing(const rk_tree *tree, rk_loop_kind kind, const double *q, int link_a,
                               rk_vec3 point_a, int link_b);

/** F(q) of one loop into out[rk_loop_rows]: models must be rk_tree_fk(q). */
RK_API void rk_loop_residual(const rk_tree *tree, const rk_loop *loop, const rk_mat4 *models,
                             double *out);
/** dF/dq of one loop: J is rows x dof_count, column-major with leading dimension ld >= rows;
 * models = rk_tree_fk(q), axes = rk_tree_dof_axes(q, RK_DOF_AXES_COORDINATE). */
RK_API void rk_loop_jacobian(const rk_tree *tree, const rk_loop *loop, const rk_mat4 *models,
                             const rk_dof_axis *axes, double *J, size_t ld);
/** Total rows of n loops. */
RK_API size_t rk_loops_rows(const rk_loop *loops, size_t n);
/** Stacked residuals of n loops (rk_loops_rows entries). */
RK_API void rk_loops_residual(const rk_tree *tree, const rk_loop *loops, size_t n,
                              const rk_mat4 *models, double *out);
/** Stacked Jacobians of n loops (rk_loops_rows x dof_count, leading dimension ld). */
RK_API void rk_loops_jacobian(const rk_tree *tree, const rk_loop *loops, size_t n,
                              const rk_mat4 *models, const rk_dof_axis *axes, double *J, size_t ld);

/** Scratch for rank and solve, sized for a tree and up to max_rows closure rows (one per
 * thread). */
typedef struct rk_loop_ws rk_loop_ws;
/** Allocates scratch for a tree with up to max_rows stacked closure rows; the caller frees it with
 * rk_loop_ws_free. The tree must outlive it. Never fails. */
RK_API rk_loop_ws *rk_loop_ws_new(const rk_tree *tree, size_t max_rows);
/** Frees the scratch; NULL is a no-op. */
RK_API void rk_loop_ws_free(rk_loop_ws *ws);

/** Relative rank tolerance of rk_loops_rank (tol <= 0) and rk_loops_effective_dof: singular
 * values above this times the largest count. */
#define RK_LOOP_RANK_TOLERANCE 1e-9
/** Largest residual entry (metres, radians) under which rk_loops_effective_dof takes loops as
 * closed. */
#define RK_LOOP_CLOSED_TOLERANCE 1e-9

/** Rank of the stacked closure Jacobian at q (SVD, singular values above tol * s_max count;
 * tol <= 0 = RK_LOOP_RANK_TOLERANCE). Returns (size_t)-1 when the loops need more rows than ws
 * holds or a loop is invalid. */
RK_API size_t rk_loops_rank(const rk_tree *tree, const rk_loop *loops, size_t n, const double *q,
                            double tol, rk_loop_ws *ws);
/** Effective DOF = dof_count - rank of the closure Jacobian. With q not NULL, at q, which should
 * close the loops (rk_loop_closing makes loops closed at a given q; at an open q the count is not
 * the mechanism's). With q NULL, the generic count on the closed configurations: the largest rank
 * over the rest configuration and 8 configurations drawn deterministically inside the limits
 * (unbounded DOFs within +-1), each first closed by rk_loops_solve and counted only when its
 * residual falls to RK_LOOP_CLOSED_TOLERANCE (a special pose such as a straightened ring loses
 * rank; a random closed one almost surely does not). Returns -1 on the failures of rk_loops_rank
 * and, with q NULL, when no configuration closes. */
RK_API long rk_loops_effective_dof(const rk_tree *tree, const rk_loop *loops, size_t n,
                                   const double *q, rk_loop_ws *ws);
/** Closes the loops from q (in place) by Gauss-Newton with minimum-norm steps (SVD pseudo-inverse
 * of the closure Jacobian, step-halving when the residual grows): the DOFs not needed stay near
 * their start. Limits are not enforced (the IK solvers do that). Stops when the residual's largest
 * entry is below tol or after max_iter iterations; returns that final largest entry (so callers
 * compare it with tol), or INFINITY on the failures of rk_loops_rank. */
RK_API double rk_loops_solve(const rk_tree *tree, const rk_loop *loops, size_t n, double *q,
                             double tol, int max_iter, rk_loop_ws *ws);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(rk_loop_ws, rk_loop_ws_free)

G_END_DECLS

#endif
