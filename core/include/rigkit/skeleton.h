/* rigkit/skeleton.h: immutable skeletons built from an editable builder.
 *
 * A built rk_skeleton stores its joints in depth-first preorder, so parent[i] < i for every joint
 * (roots have parent -1) and the descendants of joint i are exactly the joints
 * [i + 1, rk_skeleton_subtree_end(s, i)). Children keep the order in which they were added.
 * Rest poses are local transforms (translation, rotation, scale) relative to the parent joint,
 * in metres for imported assets (canonical space: Y-up, right-handed).
 *
 * Skeletons are reference counted and immutable, so one skeleton may be shared by clips, assets
 * and threads without locks: rk_skeleton_ref adds a reference, rk_skeleton_unref drops one.
 *
 * Index: rk_skeleton_flags, rk_skeleton, rk_skeleton_builder, rk_skeleton_builder_new,
 *        rk_skeleton_builder_free, rk_skeleton_builder_add_joint, rk_skeleton_builder_set_parent,
 *        rk_skeleton_builder_set_inverse_bind, rk_skeleton_builder_count,
 *        rk_skeleton_builder_build, rk_skeleton_ref, rk_skeleton_unref, rk_skeleton_joint_count,
 *        rk_skeleton_joint_name, rk_skeleton_parent, rk_skeleton_parents, rk_skeleton_rest,
 *        rk_skeleton_rest_locals, rk_skeleton_joint_flags, rk_skeleton_inverse_bind,
 *        rk_skeleton_has_inverse_binds, rk_skeleton_find_joint, rk_skeleton_subtree_end,
 *        rk_skeleton_root_count, rk_skeleton_child_count, rk_skeleton_is_ancestor,
 *        rk_skeleton_rest_models, rk_skeleton_ancestor_closure, rk_skeleton_rest_height
 */
#ifndef RIGKIT_SKELETON_H
#define RIGKIT_SKELETON_H

#include <stddef.h>
#include <glib.h>
#include <rigkit/math.h>

G_BEGIN_DECLS

/** Most joints a skeleton may have (mesh joint indices are 16-bit; see README "Limits"). */
#define RK_SKELETON_MAX_JOINTS 65535
/** Longest joint name in bytes. */
#define RK_SKELETON_MAX_NAME 1024

/** Joint flags. */
typedef enum rk_skeleton_flags {
  RK_SKELETON_END_SITE = 1u << 0, /* a leaf marking a bone's tip (BVH End Site, "_end" bones) */
  RK_SKELETON_HELPER = 1u << 1,   /* a helper with no authored meaning (e.g. a synthetic root) */
} rk_skeleton_flags;

typedef struct rk_skeleton rk_skeleton;
typedef struct rk_skeleton_builder rk_skeleton_builder;

/** Creates an empty builder; the caller frees it with rk_skeleton_builder_free. Never fails. */
RK_API rk_skeleton_builder *rk_skeleton_builder_new(void);
/** Frees a builder; NULL is a no-op. */
RK_API void rk_skeleton_builder_free(rk_skeleton_builder *b);
/** Adds a joint (name copied; rest NULL = identity) with a parent given as a builder index or -1,
 * and returns its builder index. Parents may be added later than children: the build sorts. The
 * name and parent are checked by rk_skeleton_builder_build, not here. */
RK_API int rk_skeleton_builder_add_joint(rk_skeleton_builder *b, const char *name, int parent,
                                         const rk_transform *rest, unsigned flags);
/** Changes the parent of builder joint `joint` (checked at build). */
RK_API void rk_skeleton_builder_set_parent(rk_skeleton_builder *b, int joint, int parent);
/** Records the inverse bind matrix (model space -> joint space at bind time) of a joint. */
RK_API void rk_skeleton_builder_set_inverse_bind(rk_skeleton_builder *b, int joint,
                                                 const rk_mat4 *inverse_bind);
/** Number of joints added so far. */
RK_API size_t rk_skeleton_builder_count(const rk_skeleton_builder *b);
/** Builds an immutable skeleton in depth-first preorder. When remap is not NULL it receives, for
 * each builder index, the joint index in the built skeleton (rk_skeleton_builder_count entries).
 * Fails with RK_ERROR_INVALID on: no joints, empty or duplicate names, a parent out of range, a
 * cycle, a non-finite or zero-scale rest pose; RK_ERROR_LIMIT beyond RK_SKELETON_MAX_JOINTS joints
 * or RK_SKELETON_MAX_NAME bytes of name. The caller frees the result with rk_skeleton_unref. */
RK_API rk_skeleton *rk_skeleton_builder_build(const rk_skeleton_builder *b, int *remap,
                                              GError **error);

/** Adds a reference and returns s (thread-safe); NULL gives NULL. */
RK_API rk_skeleton *rk_skeleton_ref(rk_skeleton *s);
/** Drops a reference and frees the skeleton with the last one (thread-safe); NULL is a no-op. */
RK_API void rk_skeleton_unref(rk_skeleton *s);

/** Number of joints (0 for NULL). */
RK_API size_t rk_skeleton_joint_count(const rk_skeleton *s);
/** Borrowed name of joint i (valid while s lives). */
RK_API const char *rk_skeleton_joint_name(const rk_skeleton *s, size_t i);
/** Parent of joint i, or -1 for a root. */
RK_API int rk_skeleton_parent(const rk_skeleton *s, size_t i);
/** Borrowed array of all parents (joint_count entries). */
RK_API const int *rk_skeleton_parents(const rk_skeleton *s);
/** Borrowed rest local pose of joint i. */
RK_API const rk_transform *rk_skeleton_rest(const rk_skeleton *s, size_t i);
/** Borrowed array of all rest local poses (joint_count entries). */
RK_API const rk_transform *rk_skeleton_rest_locals(const rk_skeleton *s);
/** rk_skeleton_flags of joint i. */
RK_API unsigned rk_skeleton_joint_flags(const rk_skeleton *s, size_t i);
/** Copies joint i's inverse bind matrix into *out and returns true, or returns false when the
 * joint has none (then rk_skeleton_rest_models gives the bind pose). */
RK_API bool rk_skeleton_inverse_bind(const rk_skeleton *s, size_t i, rk_mat4 *out);
/** True when at least one joint carries an inverse bind matrix. */
RK_API bool rk_skeleton_has_inverse_binds(const rk_skeleton *s);
/** Index of the joint with this exact name, or -1 (hash lookup). */
RK_API int rk_skeleton_find_joint(const rk_skeleton *s, const char *name);
/** One past the last descendant of joint i. */
RK_API size_t rk_skeleton_subtree_end(const rk_skeleton *s, size_t i);
/** Number of root joints (parent -1). */
RK_API size_t rk_skeleton_root_count(const rk_skeleton *s);
/** Number of direct children of joint i. */
RK_API size_t rk_skeleton_child_count(const rk_skeleton *s, size_t i);
/** True when a is b or an ancestor of b. */
RK_API bool rk_skeleton_is_ancestor(const rk_skeleton *s, size_t a, size_t b);
/** Fills models[joint_count] with the model-space rest pose (product of rest locals). */
RK_API void rk_skeleton_rest_models(const rk_skeleton *s, rk_mat4 *models);
/** Writes into out (capacity joint_count) the ascending list of the joints in `ends` and all their
 * ancestors, i.e. exactly the joints FK must visit to place the ends; returns its length.
 * Indices out of range are ignored. */
RK_API size_t rk_skeleton_ancestor_closure(const rk_skeleton *s, const int *ends, size_t n_ends,
                                           int *out);
/** Vertical extent (max y - min y) of the rest pose's joint positions, in skeleton units. */
RK_API double rk_skeleton_rest_height(const rk_skeleton *s);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(rk_skeleton, rk_skeleton_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(rk_skeleton_builder, rk_skeleton_builder_free)

G_END_DECLS

#endif
