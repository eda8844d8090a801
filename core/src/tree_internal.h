/* Internal: the layout of rk_tree shared by the tree files (tree.c, tree_build.c, tree_fk.c,
 * tree_jacobian.c) and chain.c, junction.c and loop.c. */
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
/* rk_tree_q_from_locals for links[count] only: their DOFs of q, the others left as they are
 * (tree.c). */
void rk__tree_q_from_locals_links(const rk_tree *tree, const rk_transform *locals,
                                  const double *hint, const int *links, size_t count, double *q);
/* Joint j's model matrix from q through its local transform: parent (NULL: none) times
 * rk_tree_joint_local's matrix (tree_fk.c). The one compiled copy (baseline x86-64) that every FK
 * pass takes for joints without a short form, so they all give its bits. */
__attribute__((noinline)) void rk__tree_fk_local(const rk_tree *t, size_t j, const double *q,
                                                 const rk_mat4 *parent, rk_mat4 *out);

#endif
