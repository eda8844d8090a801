/* Internal: the layout of rk_tree shared by the tree files (tree.c, tree_build.c, tree_fk.c,
 * tree_jacobian.c, tree_fit.c) and chain.c, junction.c and loop.c, and the clip evidence of
 * tree_fit.c. */
#ifndef RK_TREE_INTERNAL_H
#define RK_TREE_INTERNAL_H

#include <rigkit/tree.h>

/* How rk_tree_fk composes a joint onto its parent frame (rk__tree_prepare_fk picks the cheapest
 * form that is exact for the joint). */
typedef enum rk__fk_kind {
  RK__FK_TRANSLATE, /* fixed with identity rotation and unit scale: translation only */
  RK__FK_ROT_X,     /* revolute about +-x of an identity zero rotation, unit scale: y, z turn */
  RK__FK_ROT_Y,     /* the same about +-y: z, x turn */
  RK__FK_ROT_Z,     /* the same about +-z: x, y turn */
  RK__FK_MATRIX,    /* fixed or revolute: linear part C + cos q P + sin q B (fixed: P = B = 0) */
  RK__FK_BALL,      /* ball: R0 (in C, if pre), then three turns about its Euler axes, then S */
  RK__FK_FREE,      /* free: the ball's form, its zero translation moved by q0..q2 first */
  RK__FK_LOCAL      /* any type: from the joint's local transform (rk_tree_joint_local) */
} rk__fk_kind;

/* Per joint, precomputed for FK from q (rk__tree_prepare_fk, tree_fk.c), the fields every joint
 * reads first. The local transform is T(t) R0 R(k, q) S. RK__FK_MATRIX holds its 3x3 linear part as
 * C + cos(q) P + sin(q) B, i.e. Rodrigues' formula R0 (k k^T + cos q (I - k k^T) + sin q [k]x) S,
 * column-major with each column padded to 4 (the 4th entry 0) for 4-wide arithmetic. C, P, B are
 * filled for every fixed and revolute joint, whatever its kind: the baseline pass and the subset
 * pass compose them all in the RK__FK_MATRIX form (and ball and free joints as RK__FK_LOCAL). */
typedef struct rk__fk_joint {
  double t[3];
  double sign;        /* RK__FK_ROT_*: +1 or -1, the axis' direction along x, y or z */
  int parent;         /* parent link, -1 for a root */
  int dof;            /* revolute: its DOF; ball, free: the first of theirs; otherwise -1 */
  unsigned char kind; /* rk__fk_kind */
  bool chained;       /* the parent is the joint just before */
  unsigned char axes[3]; /* RK__FK_BALL, RK__FK_FREE: the Euler axes (0 x, 1 y, 2 z) */
  bool pre;              /* RK__FK_BALL, RK__FK_FREE: R0 is not the identity (it is in C) */
  bool scaled;           /* RK__FK_BALL, RK__FK_FREE: S is not 1 (it is in scale) */
  double scale[3];
  double C[12], P[12], B[12];
} rk__fk_joint;

/* A tree's junctions, their chains and constraints (junction.c). */
typedef struct rk__junctions rk__junctions;

struct rk_tree {
  gint refcount;
  rk_skeleton *skeleton; /* one reference */
  size_t n;              /* links = joints */
  size_t ndof;
  const int *parents; /* borrowed from the skeleton */
  size_t *subtree_end;
  rk_joint *joints;
  rk_dof *dofs;
  char **dof_names;
  double *lower, *upper;
  size_t *link_dof_count;         /* DOFs moving each link */
  rk_mat4 *zero_models;           /* FK at q = 0 */
  double *q_rest;                 /* q of the skeleton's rest pose */
  unsigned char (*euler_axes)[3]; /* per joint: axis index (0..2) of each Euler angle */
  rk__fk_joint *fk;               /* per joint, see rk__fk_joint */
  bool fk_balls;                  /* some joint is RK__FK_BALL or RK__FK_FREE */
  rk__junctions *junctions;       /* owned, built with the tree (junction_internal.h) */
};

/* Fills tree->fk from the joints (after their types, axes and DOFs are final). */
void rk__tree_prepare_fk(rk_tree *t);

/* Clip evidence gathered by tree_fit.c: per sampled frame the local pose of every joint. */
typedef struct rk__tree_samples {
  size_t frames, n;
  rk_quat *rot;   /* [frame * n + joint] */
  rk_vec3 *trans; /* [frame * n + joint] */
} rk__tree_samples;

/* Samples a clip into at most max_frames frames (allocates; free with rk__tree_samples_clear). */
void rk__tree_samples_init(rk__tree_samples *s, const rk_skeleton *skel, const rk_clip *clip,
                           size_t max_frames);
void rk__tree_samples_clear(rk__tree_samples *s);

/* Result of a single-axis fit of a joint's rotations d_f (relative to its rest rotation). */
typedef struct rk__hinge_fit {
  rk_vec3 axis;    /* unit, in the rest frame of the joint (right-multiplied) */
  rk_quat zero;    /* rotation on the hinge nearest to the identity (relative to the rest) */
  double rms, max; /* residual angles off the hinge */
  double range;    /* max - min hinge angle */
  double motion;   /* largest angle from the mean rotation */
} rk__hinge_fit;

/* Fits d[0..count) (unit quaternions, any signs) with C exp(theta_f axis). */
void rk__fit_hinge(const rk_quat *d, size_t count, rk__hinge_fit *out);
/* Fits points p[0..count) with a line: unit direction, mean, largest distance off the line and
 * range along it. */
void rk__fit_line(const rk_vec3 *p, size_t count, rk_vec3 *dir, rk_vec3 *mean, double *max_off,
                  double *range);
/* Largest |middle Euler angle| of the rotations d[0..count) in an order (smaller = further from
 * gimbal lock). */
double rk__euler_lock_margin_score(rk_euler_order order, const rk_quat *d, size_t count);

#endif
