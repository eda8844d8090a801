/* rigkit/chain.h: serial chains of a kinematic tree, in Denavit-Hartenberg form.
 *
 * A chain runs from a base link (or the world) down to a descendant tip link. Its variables are
 * the DOFs of the joints on that path below the base (the base link's own inner joint excluded),
 * root to tip: every DOF is a revolute or prismatic DH joint (a ball gives three intersecting
 * revolute rows, a free joint three prismatic and three revolute rows). The DH tables, standard
 * and modified, are extracted once from the joint axes at q = 0 with rk_dh_extract (rigkit/dh.h),
 * so each row's theta (revolute) or d (prismatic) holds the offset at q = 0 and the chain variable
 * q_i is added to it. base maps DH frame 0 into the base link's body coordinates, tool maps the
 * tip link's body frame into the last DH frame, so for every q:
 *     models[base_link] * rk_dh_chain_fk(dh(q_chain)) == models[tip_link]      (tree FK),
 * up to the tip's scale (DH frames are rigid; the tool keeps the rigid part of the tip frame).
 *
 * A chain copies what it needs from the tree (it keeps no pointer to it), is immutable and may be
 * used on many threads at once.
 *
 * Index: rk_chain_new, rk_chain_free, rk_chain_base_link, rk_chain_tip_link, rk_chain_dof_count,
 *        rk_chain_dofs, rk_chain_link_count, rk_chain_links, rk_chain_dh,
 *        rk_chain_gather, rk_chain_fk, rk_chain_name
 */
#ifndef RIGKIT_CHAIN_H
#define RIGKIT_CHAIN_H

#include <rigkit/dh.h>
#include <rigkit/tree.h>

G_BEGIN_DECLS

typedef struct rk_chain rk_chain;

/** Builds the chain from base_link (-1 = the world) to tip_link with both DH tables. Fails with
 * RK_ERROR_INVALID when a link is out of range or tip_link is not base_link or a descendant of it
 * (the message names both links), or when the DH extraction fails (message names the chain).
 * A chain without DOFs is valid (no rows; base carries the constant transform). The caller frees
 * it with rk_chain_free. */
RK_API rk_chain *rk_chain_new(const rk_tree *tree, int base_link, int tip_link, GError **error);
/** Frees a chain; NULL is a no-op. */
RK_API void rk_chain_free(rk_chain *chain);
/** Borrowed "base->tip" name built from the link names ("world" for -1). */
RK_API const char *rk_chain_name(const rk_chain *chain);
/** The base link, or -1 for the world. */
RK_API int rk_chain_base_link(const rk_chain *chain);
/** The tip link. */
RK_API int rk_chain_tip_link(const rk_chain *chain);
/** Number of chain variables (= DH rows). */
RK_API size_t rk_chain_dof_count(const rk_chain *chain);
/** Borrowed tree DOF index of each chain variable, root to tip. */
RK_API const int *rk_chain_dofs(const rk_chain *chain);
/** Number of links on the path below the base, tip included. */
RK_API size_t rk_chain_link_count(const rk_chain *chain);
/** Borrowed links on the path below the base, root to tip (the tip last). */
RK_API const int *rk_chain_links(const rk_chain *chain);
/** The DH table in a convention (borrowed, valid while the chain lives): rows, base (base link
 * <- frame 0) and tool (last frame <- tip link). */
RK_API const rk_dh_chain *rk_chain_dh(const rk_chain *chain, rk_dh_convention convention);
/** Copies the chain's variables out of a tree DOF vector: q_chain[i] = q_tree[dofs[i]]. */
RK_API void rk_chain_gather(const rk_chain *chain, const double *q_tree, double *q_chain);
/** FK along the chain from a tree DOF vector (allocates nothing): frames (optional, dof_count + 1
 * entries) receives base link <- DH frame i, end (optional) base link <- tip link body frame. */
RK_API void rk_chain_fk(const rk_chain *chain, rk_dh_convention convention, const double *q_tree,
                        rk_mat4 *frames, rk_mat4 *end);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(rk_chain, rk_chain_free)

G_END_DECLS

#endif
