/* rigkit/tree.h: a skeleton understood as a mechanism: links, typed joints, the DOF vector.
 *
 * Links and joints. A tree has one link per skeleton joint, with the same index (link i is the
 * rigid body carried by skeleton joint i: its body frame is the joint's model frame, and
 * everything rigidly attached to it, bones to its children included). Joint i is the inner joint
 * of link i: it connects the parent link (skeleton parent; -1 = the world) to link i. Joint types:
 *   RK_JOINT_FIXED      0 DOF  local pose = the zero pose (end sites; joints the options fix)
 *   RK_JOINT_REVOLUTE   1 DOF  rotation q about a unit axis a given in the joint's zero frame:
 *                              local = T(t0) R(r0) R(a, q) S(s0)
 *   RK_JOINT_PRISMATIC  1 DOF  translation q along a unit axis a given in the parent link's frame:
 *                              local = T(t0 + q a) R(r0) S(s0)
 *   RK_JOINT_BALL       3 DOF  three revolute DOFs on zero-length links (DH form): Euler angles
 *                              (q0, q1, q2) in the joint's order ABC (rigkit/euler.h convention):
 *                              local = T(t0) R(r0) R_A(q0) R_B(q1) R_C(q2) S(s0)
 *   RK_JOINT_FREE       6 DOF  three translations along the parent frame's x, y, z, then a ball:
 *                              local = T(t0 + (q0, q1, q2)) R(r0) R_A(q3) R_B(q4) R_C(q5) S(s0)
 * where (t0, r0, s0) is the joint's zero pose (rk_joint.zero): the skeleton's rest local
 * pose, except for a revolute joint fitted to a clip whose hinge does not pass through the rest
 * (then r0 is the rotation on the fitted hinge nearest to the rest). So q = 0 is the rest pose, or
 * the nearest pose the joint types can express.
 *
 * Ball joints and singularities. Euler angles keep every DOF a revolute joint, so chains through
 * balls have exact DH tables (rigkit/chain.h) and the geometric Jacobian column of every DOF is
 * z x (p - o). The price is gimbal lock when the middle angle reaches +-90 degrees (axes A and C
 * align, two Jacobian columns become parallel). rigkit keeps it away from real poses: Tait-Bryan
 * orders only (the middle angle is 0 at rest, 90 degrees from lock), twist last: the last axis
 * (C) is the zero-frame axis nearest the bone (towards the first child), the first (A) the most
 * horizontal remaining one (the lateral flexion axis of limbs); roots turn about the most vertical
 * axis first (yaw). With a clip, when that order would bring the clip's middle angle past 60
 * degrees, the Tait-Bryan order with the smallest largest |middle angle| is taken. IK that must
 * cross lock-prone poses uses the tangent form instead: rk_tree_dof_axes(..., RK_DOF_AXES_TANGENT,
 * ...) gives the three current joint-frame axes of each ball (never degenerate) and
 * rk_tree_q_integrate applies such a step (rotating the joint frame and re-reading Euler angles
 * next to the previous ones), which is singularity-free; revolute, prismatic and translation DOFs
 * are identical in both forms.
 *
 * Paired joint frames (Sheth-Uicker). Each joint has a frame on each of the two links it connects:
 * frame_on_parent in the parent link's body coordinates and frame_on_child in the child link's
 * body coordinates, both with z along the joint axis for revolute and prismatic joints (ball, free
 * and fixed joints: the child's zero orientation). They coincide at q = 0, and the joint motion
 * between them is Rz(q) or Tz(q) (revolute, prismatic), or the ball/free motion above. A link's
 * inner frame is its inner joint's frame_on_child; its outer frames are its children's
 * frame_on_parent. rk_tree_transform_between composes them to express one link's frame in another.
 *
 * Types from data, names as hints. Without a clip every movable joint is a ball (roots free),
 * end sites are fixed, and the options can type joints explicitly (robots, DH files). With a clip,
 * a joint whose rotations over the clip stay about one axis (fit residual within
 * hinge_tolerance and within hinge_relative_tolerance of the range, over a range of at least
 * hinge_min_range, from at least 3 distinct keys) becomes revolute with the fitted axis (knees
 * and elbows of mocap); the fit is kept for every tested joint (rk_joint.fit_*). Two keys prove
 * nothing (any two rotations differ by one axis), so sparse clips leave joints as balls.
 * Names and the rest pose never decide a type: they only set hinge_hint/hint_axis for a tool to
 * show ("this looks like a knee").
 *
 * The DOF vector q has rk_tree_dof_count entries, joints in link order, each joint's DOFs together
 * (free: tx ty tz then the three angles). Angles in radians, translations in model units (metres
 * for imported assets).
 *
 * Threading and memory. A tree is immutable once built and reference counted; every query takes
 * a const tree and caller buffers, allocates nothing, and is safe on many threads at once.
 *
 * Index: rk_joint_type_name, rk_joint_type_dof_count, rk_joint_origin,
 *        rk_joint_origin_name, rk_joint, rk_dof, rk_dof_kind,
 *        rk_joint_spec, rk_tree_options, RK_TREE_OPTIONS_INIT, rk_tree_options_init,
 *        rk_tree_from_skeleton, rk_tree_ref, rk_tree_unref, rk_tree_skeleton, rk_tree_link_count,
 *        rk_tree_link_name, rk_tree_link_parent, rk_tree_find_link, rk_tree_link_subtree_end,
 *        rk_tree_joint, rk_tree_dof_count, rk_tree_dof, rk_tree_dof_name, rk_tree_lower,
 *        rk_tree_upper, rk_tree_dof_moves_link, rk_tree_link_dof_count, rk_tree_link_dofs,
 *        rk_tree_q_zero, rk_tree_q_rest, rk_tree_q_to_locals, rk_tree_q_from_locals,
 *        rk_tree_q_clamp, rk_tree_q_within_limits, rk_tree_q_integrate, rk_tree_joint_local,
 *        rk_tree_fk,
 *        rk_tree_fk_subset, rk_dof_axis, rk_dof_axes_mode, rk_tree_dof_axes,
 *        rk_tree_frame_jacobian, rk_tree_transform_between
 */
#ifndef RIGKIT_TREE_H
#define RIGKIT_TREE_H

#include <glib.h>
#include <rigkit/clip.h>
#include <rigkit/euler.h>
#include <rigkit/joint.h>
#include <rigkit/math.h>
#include <rigkit/skeleton.h>
#include <stddef.h>

G_BEGIN_DECLS

/** Why a joint got its type. */
typedef enum rk_joint_origin {
  RK_ORIGIN_DEFAULT,   /* no evidence: ball (free for a root, per the options) */
  RK_ORIGIN_SPEC,      /* named in rk_tree_options.joints */
  RK_ORIGIN_END_SITE,  /* a skeleton end site: fixed */
  RK_ORIGIN_HINGE_FIT, /* the clip's rotations fit one axis */
  RK_ORIGIN_LINE_FIT,  /* the clip's translations fit one line (and rotation is static) */
  RK_ORIGIN_STATIC,    /* does not move in the clip and the options fix static joints */
} rk_joint_origin;

/** Most DOFs one joint has (a free joint). */
#define RK_JOINT_MAX_DOF 6

/** Static lower-case name of a type ("fixed", "revolute", "prismatic", "ball", "free") or "?". */
RK_API const char *rk_joint_type_name(rk_joint_type type);
/** Static name of an origin ("default", "spec", "end-site", "hinge-fit", "line-fit", "static"). */
RK_API const char *rk_joint_origin_name(rk_joint_origin origin);
/** Number of DOFs of a type (0, 1, 1, 3, 6). */
RK_API int rk_joint_type_dof_count(rk_joint_type type);

/** An explicit joint description in rk_tree_options (robots, DH files, user overrides). */
typedef struct rk_joint_spec {
  const char *name; /* skeleton joint name (exact); required */
  rk_joint_type type;
  rk_vec3 axis;         /* revolute: in the joint's zero frame; prismatic: in the parent frame;
                           need not be unit, must not be zero for those types */
  rk_euler_order order; /* ball/free: Euler order, RK_EULER_N_ORDERS = automatic */
  bool has_limits;      /* when true, lower/upper give the limits of the joint's DOFs */
  double lower[RK_JOINT_MAX_DOF], upper[RK_JOINT_MAX_DOF];
} rk_joint_spec;

/** How rk_tree_from_skeleton types joints; start from RK_TREE_OPTIONS_INIT. */
typedef struct rk_tree_options {
  rk_joint_type root_type;     /* type of root joints (default FREE) */
  rk_joint_type default_type;  /* other movable joints without evidence (default BALL) */
  rk_vec3 default_axis;        /* axis when default_type/root_type is revolute or prismatic
                                  (default (0,0,1): robots from DH files turn about local z) */
  bool detect_hinges;          /* with a clip: fit revolute joints (default true) */
  double hinge_tolerance;      /* max angle (rad) off the fitted axis, worst frame (default
                                  3 degrees) */
  double hinge_min_range;      /* least range (rad) of the hinge angle for a fit to count
                                  (default 10 degrees: a joint that barely moves proves nothing) */
  bool detect_prismatic;       /* with a clip: non-root joints translating along a line with
                                  static rotation become prismatic (default true) */
  double line_tolerance;       /* max distance off the fitted line, as a fraction of the range
                                  (default 0.02) */
  bool fix_static;             /* with a clip: joints that do not move become fixed (default
                                  false: a target rig must stay fully movable) */
  double static_tolerance;     /* rotation (rad) and relative translation under which a joint
                                  counts as static (default 1e-4) */
  bool limits_from_clip;       /* with a clip: DOF limits = clip range widened by limit_margin
                                  (default false: limits stay wide; rotation +-pi, translation
                                  unbounded) */
  double limit_margin;         /* radians for angles; translations use it times the bone length
                                  scale (default 10 degrees = 0.1745) */
  rk_euler_order ball_order;   /* Euler order of every ball/free joint, RK_EULER_N_ORDERS =
                                  choose per joint (default) */
  const rk_joint_spec *joints; /* explicit joints (borrowed during the call) */
  size_t joint_count;
  size_t clip_max_frames;          /* frames sampled from the clip at most (default 20000; longer
                                      clips are sampled with a stride) */
  double hinge_relative_tolerance; /* the fit residual must also stay below this fraction of the
                                   hinge's range (default 0.1: 3 degrees of wobble on a 12 degree
                                   sway is no hinge) */
} rk_tree_options;

/** Default options (see each field). */
#define RK_TREE_OPTIONS_INIT                                                                       \
  {                                                                                                \
    RK_JOINT_FREE, RK_JOINT_BALL, {0, 0, 1}, true, 3.0 * RK_DEG, 10.0 * RK_DEG, true, 0.02, false, \
        1e-4, false, 10.0 * RK_DEG, RK_EULER_N_ORDERS, NULL, 0, 20000, 0.1                         \
  }

/** Fills *opts with the defaults (same as RK_TREE_OPTIONS_INIT). */
RK_API void rk_tree_options_init(rk_tree_options *opts);

/** One joint of a tree (borrowed view, valid while the tree lives). */
typedef struct rk_joint {
  int link;   /* the child link (= skeleton joint index) */
  int parent; /* parent link, -1 = the world */
  rk_joint_type type;
  rk_joint_origin origin; /* why it has this type */
  int dof_offset;         /* index of its first DOF in q, -1 when it has none */
  int dof_count;
  rk_vec3 axis;            /* revolute: unit axis in the zero frame; prismatic: unit axis in the
                              parent frame; otherwise (0,0,0) */
  rk_euler_order order;    /* ball/free: Euler order of the angles; otherwise RK_EULER_N_ORDERS */
  rk_transform zero;       /* local pose at q = 0 */
  rk_mat4 frame_on_parent; /* paired frame on the parent link, parent body coordinates (world
                              coordinates for a root) */
  rk_mat4 frame_on_child;  /* paired frame on this link, this link's body coordinates */
  /* Clip evidence (all 0 without a clip, or when the joint was not tested). */
  bool fit_tested;         /* the hinge fit ran on this joint */
  rk_vec3 fit_axis;        /* best single axis (zero frame) whether or not it was accepted */
  double fit_residual_rms; /* rotation off that axis (rad), RMS over the sampled frames */
  double fit_residual_max; /* ... worst frame (compared with hinge_tolerance) */
  double fit_range;        /* range (max - min, rad) of the angle about that axis */
  double motion_range;     /* largest rotation (rad) of the joint away from its mean pose */
  int fit_keys;            /* distinct rotation keys of the joint in the clip (capped at 3): a fit
                              needs 3, since any two rotations are related by a single axis */
  /* Hints from names and the rest pose: never used to type the joint. */
  bool hinge_hint;   /* the name or the rest bend suggests a hinge (knee, elbow, ...) */
  rk_vec3 hint_axis; /* suggested axis (zero frame), (0,0,0) when unknown */
} rk_joint;

/** What a DOF moves. */
typedef enum rk_dof_kind { RK_DOF_ROTATION, RK_DOF_TRANSLATION } rk_dof_kind;

/** One DOF of q (borrowed view). */
typedef struct rk_dof {
  int joint;     /* joint (= link) index */
  int component; /* 0 .. dof_count - 1 within the joint */
  rk_dof_kind kind;
  rk_vec3 axis;        /* unit axis at q = 0: rotations in the joint's zero frame (ball and free:
                          the Euler axis before the later angles turn it), translations in the
                          parent frame */
  double lower, upper; /* limits (-inf / +inf when unbounded) */
} rk_dof;

typedef struct rk_tree rk_tree;

/** Builds the kinematic tree of a skeleton (the tree keeps a reference to it). motion (optional)
 * is a clip of that skeleton used as evidence for joint types and, with limits_from_clip, for
 * limits; opts NULL = defaults. Fails with RK_ERROR_INVALID when the clip's joint count differs
 * from the skeleton's, a joint spec has a zero axis or a type
 * that does not fit the joint (a root prismatic or revolute is fine; a spec'ed FREE on a non-root
 * is accepted too), or limits with lower > upper; RK_ERROR_LIMIT when the DOF count would exceed
 * RK_TREE_MAX_DOF; RK_ERROR_NOT_FOUND when a joint spec names no joint of the skeleton (the message
 * names it). The caller frees the tree with rk_tree_unref. */
RK_API rk_tree *rk_tree_from_skeleton(const rk_skeleton *skeleton, const rk_clip *motion,
                                      const rk_tree_options *opts, GError **error);
/** Most DOFs a tree may have. */
#define RK_TREE_MAX_DOF 65535
/** Adds a reference (thread-safe); NULL gives NULL. */
RK_API rk_tree *rk_tree_ref(rk_tree *tree);
/** Drops a reference, freeing the tree with the last one; NULL is a no-op. */
RK_API void rk_tree_unref(rk_tree *tree);

/** Borrowed skeleton the tree was built from. */
RK_API const rk_skeleton *rk_tree_skeleton(const rk_tree *tree);
/** Number of links (= skeleton joints = tree joints). */
RK_API size_t rk_tree_link_count(const rk_tree *tree);
/** Borrowed name of link i (the skeleton joint's name). */
RK_API const char *rk_tree_link_name(const rk_tree *tree, size_t link);
/** Parent link of link i, or -1 (attached to the world). */
RK_API int rk_tree_link_parent(const rk_tree *tree, size_t link);
/** Link with this exact name, or -1. */
RK_API int rk_tree_find_link(const rk_tree *tree, const char *name);
/** One past the last descendant of link i (links are in preorder, like the skeleton). */
RK_API size_t rk_tree_link_subtree_end(const rk_tree *tree, size_t link);
/** Borrowed joint i (the inner joint of link i); NULL when out of range. */
RK_API const rk_joint *rk_tree_joint(const rk_tree *tree, size_t joint);

/** Size of the DOF vector q. */
RK_API size_t rk_tree_dof_count(const rk_tree *tree);
/** Borrowed DOF k; NULL when out of range. */
RK_API const rk_dof *rk_tree_dof(const rk_tree *tree, size_t k);
/** Borrowed name of DOF k: "<link>.<component>" with components tx ty tz (translations along the
 * parent axes), rx ry rz (Euler angles named by their axis), "angle" (revolute) or "offset"
 * (prismatic). */
RK_API const char *rk_tree_dof_name(const rk_tree *tree, size_t k);
/** Borrowed arrays of all lower / upper limits (dof_count entries each). */
RK_API const double *rk_tree_lower(const rk_tree *tree);
RK_API const double *rk_tree_upper(const rk_tree *tree);
/** True when DOF k moves link (its joint is the link's inner joint or an ancestor's). O(1). */
RK_API bool rk_tree_dof_moves_link(const rk_tree *tree, size_t k, size_t link);
/** Number of DOFs that move a link (its own and its ancestors'). O(1). */
RK_API size_t rk_tree_link_dof_count(const rk_tree *tree, size_t link);
/** Writes the DOFs that move a link into out (capacity rk_tree_link_dof_count), ascending (root
 * first), and returns their number (0 for a link fixed to the world). */
RK_API size_t rk_tree_link_dofs(const rk_tree *tree, size_t link, int *out);

/** q = 0 (the zero pose). */
RK_API void rk_tree_q_zero(const rk_tree *tree, double *q);
/** q of the skeleton's rest pose (0 except where a fitted hinge misses the rest). */
RK_API void rk_tree_q_rest(const rk_tree *tree, double *q);
/** Local poses of every skeleton joint (link_count entries) for q. Components a joint cannot move
 * (the translation of a ball, the scale) come from its zero pose. */
RK_API void rk_tree_q_to_locals(const rk_tree *tree, const double *q, rk_transform *locals);
/** The q that reproduces local poses as closely as the joint types allow: revolute angles are the
 * twist about the axis, ball/free angles the Euler angles of the rotation relative to the zero
 * rotation, translations the component along each translation axis. hint (optional, e.g. the
 * previous frame's q) picks, among equivalent angles, those nearest to it (no 2*pi jumps, no Euler
 * flips). The rotation the types cannot express (the swing off a hinge axis) is dropped:
 * *max_residual (optional) receives the largest such angle (rad) over the joints. locals has
 * link_count entries. */
RK_API void rk_tree_q_from_locals(const rk_tree *tree, const rk_transform *locals,
                                  const double *hint, double *q, double *max_residual);
/** Clamps q into the limits in place; returns the number of DOFs changed. */
RK_API size_t rk_tree_q_clamp(const rk_tree *tree, double *q);
/** True when every DOF is within its limits enlarged by tol. */
RK_API bool rk_tree_q_within_limits(const rk_tree *tree, const double *q, double tol);
/** q_out = q "plus" a tangent step dv (dof_count entries each; q_out may alias q): translations,
 * revolute and prismatic DOFs add; each ball (and the rotation of a free joint) rotates its joint
 * frame by the rotation vector (dv0, dv1, dv2) expressed in that joint's current frame (the axes
 * RK_DOF_AXES_TANGENT reports) and re-reads the Euler angles nearest to the old ones. Valid at
 * gimbal lock. */
RK_API void rk_tree_q_integrate(const rk_tree *tree, const double *q, const double *dv,
                                double *q_out);
/** Local pose of one joint for q (q is the full DOF vector). */
RK_API void rk_tree_joint_local(const rk_tree *tree, size_t joint, const double *q,
                                rk_transform *out);

/** Forward kinematics: models[link_count] receives the model-space (world) matrix of every link's
 * body frame for q, exactly rk_fk_models(rk_tree_q_to_locals(q)). root (optional) is placed above
 * the roots. */
RK_API void rk_tree_fk(const rk_tree *tree, const double *q, const rk_mat4 *root, rk_mat4 *models);
/** Forward kinematics for a subset of links: links[count] ascending and closed under parents
 * (rk_skeleton_ancestor_closure); only those entries of models are written. */
RK_API void rk_tree_fk_subset(const rk_tree *tree, const double *q, const rk_mat4 *root,
                              const int *links, size_t count, rk_mat4 *models);

/** A DOF's line of action in world coordinates at a configuration. */
typedef struct rk_dof_axis {
  rk_vec3 origin; /* a point on the axis (the joint's world position) */
  rk_vec3 axis;   /* unit direction */
} rk_dof_axis;

/** Which derivative rk_tree_dof_axes describes. */
typedef enum rk_dof_axes_mode {
  /* d/dq: the exact partial derivatives of FK with respect to each entry of q. For a ball the
   * axes are the intermediate Euler axes (A, then B turned by q0, then C turned by both); they
   * degenerate at gimbal lock. */
  RK_DOF_AXES_COORDINATE,
  /* Tangent: for balls and free rotations the joint frame's current x, y, z axes (never
   * degenerate), to be used with rk_tree_q_integrate; other DOFs as in COORDINATE. */
  RK_DOF_AXES_TANGENT,
} rk_dof_axes_mode;

/** World axes of every DOF at q: axes[dof_count]; models must be rk_tree_fk(q) (root placement
 * included). The geometric Jacobian column of DOF k for a point p on a link it moves is
 * (axis x (p - origin); axis) for a rotation and (axis; 0) for a translation (linear
 * rows first). */
RK_API void rk_tree_dof_axes(const rk_tree *tree, const double *q, const rk_mat4 *models,
                             rk_dof_axes_mode mode, rk_dof_axis *axes);
/** Geometric Jacobian of the world point p fixed on a link (link -1: the world, all zero):
 * J is 6 x dof_count, column-major with leading dimension ld >= 6 (rows 0-2 linear velocity,
 * rows 3-5 angular velocity); DOFs that do not move the link get zero columns. */
RK_API void rk_tree_frame_jacobian(const rk_tree *tree, const rk_dof_axis *axes, int link,
                                   rk_vec3 p, double *J, size_t ld);
/** Pose of link b's body frame in link a's body coordinates at q (a or b = -1: the world),
 * composed through their common ancestor with the paired joint frames; no full FK needed. */
RK_API void rk_tree_transform_between(const rk_tree *tree, const double *q, int a, int b,
                                      rk_mat4 *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(rk_tree, rk_tree_unref)

G_END_DECLS

#endif
