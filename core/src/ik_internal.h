/* Internal: the IK workspace, the evaluation of goals and loops, and small dense kernels shared
 * by ik.c (problem, workspace), ik_eval.c (residuals and Jacobians), ik_fk.c (tree FK), ik_la.c
 * (kernels) and ik_solve.c (the Newton, DLS and LM solvers). */
#ifndef RK_IK_INTERNAL_H
#define RK_IK_INTERNAL_H

#include <rigkit/chain.h>
#include <rigkit/ik.h>

/* Weight of the hard-loop rows in the merit function of the LM acceptance test. */
#define RK__IK_HARD_MERIT 1e6

/* A tree joint as the IK's FK reads it (copied from rk_tree_joint at workspace creation). */
typedef struct rk__ik_joint {
  int parent, type, dof;
  int ax[3];      /* ball / free: Euler axes (0 x, 1 y, 2 z) in product order */
  double R0[9];   /* zero rotation, 3x3 column-major */
  rk_vec3 t0, s0; /* zero translation and scale */
  rk_vec3 axis;   /* revolute (zero frame) or prismatic (parent frame) axis */
} rk__ik_joint;

/* One evaluated configuration: q, the stacked rows and their Jacobian, and the errors. */
typedef struct rk__ik_state {
  double *q;         /* n */
  double *e;         /* m rows: hard loop rows first (m1), then goals and soft loops */
  double *J;         /* m x c, column-major, leading dimension m */
  rk_mat4 *models;   /* world frame of every link (tree path) */
  rk_dof_axis *axes; /* world axis of every DOF (chain path: set by the FK) */
  rk_vec3 *pts;      /* world point of each slot (goal points, loop frame origins) */
  double merit;      /* RK__IK_HARD_MERIT |e1|^2 + |e2|^2 */
  double cost;       /* |e2|^2 (goals and soft loops) */
  double pos_err, rot_err, closure; /* largest errors (result fields) */
  bool reached;
} rk__ik_state;

struct rk_ik_ws {
  const rk_tree *tree;   /* borrowed; NULL for chain problems */
  size_t n;              /* DOF count */
  unsigned char *is_rot; /* per DOF: a rotation (revolute DH row, rotational tree DOF) */
  size_t links;          /* tree links, or chain rows */
  size_t m_cap;          /* most stacked rows */
  size_t goal_cap;       /* most goals (m_cap / 3) */
  /* DH path: a chain problem, or a tree that is one serial chain (owned_chain). */
  bool has_chain;
  rk_chain *owned_chain; /* chain of the whole tree (world -> chain_tip), or NULL */
  int chain_tip;         /* tree link at the chain's tip, -1 for chain problems */
  const int *chain_dofs; /* tree DOF of each chain row (owned_chain) */
  size_t chain_rows;
  double *ca, *sa; /* cos / sin of each row's alpha (per solve) */
  rk_mat4 *frames; /* chain frames: world <- DH frame i, rows + 1 */
  /* Per solve: which DOFs the solver moves (columns) and the chain/tree choice. */
  bool use_chain;
  rk_dh_chain dh;        /* the chain being evaluated, root folded into base */
  size_t c;              /* columns */
  int *cols;             /* DOF of each column */
  int *col_of;           /* column of each DOF, -1 when the DOF is not solved */
  rk_mat4 *goal_offsets; /* chain path: tip -> goal link (rigid descendants), per goal */
  /* Per solve: the solved DOFs that move each goal link (slot i) and each loop's two links
   * (slots goal_count + 2 j and + 2 j + 1): pairs (DOF, column) in slot_k / slot_c from
   * slot_off[s] to slot_off[s + 1]. */
  size_t slot_cap;
  int *slot_off, *slot_k, *slot_c;
  int *dof_tmp; /* n */
  /* Tree path FK (ik_fk.c): per-link joint data, and per solve the links to compute. */
  rk__ik_joint *jd;       /* links */
  unsigned char *fk_mark; /* links */
  int *fk_links;          /* links */
  size_t fk_count;
  size_t m, m1; /* rows, hard rows of the current problem */
  /* States: current, trial, best. */
  rk__ik_state st[3];
  /* Solver scratch. The step works on the free columns f (the solved DOFs not held on a limit)
   * in a transposed layout: Jt is f x m (column i = row i of J over the free columns), so every
   * inner loop runs along the DOFs, contiguous. */
  double *Jt;         /* f x m */
  double *Wt;         /* f x m1: (L1^-1 J1)^T, L1 the Cholesky factor of J1 J1^T */
  double *J2Nt;       /* f x m2: (J2 - J2 J1^+ J1)^T, the goals in the loops' null space */
  double *G1;         /* m1 x m1 factor */
  double *V;          /* m1 x m2: L1^-1 J1 J2^T */
  double *G2raw, *G2; /* level-2 Gram matrix (m2 x m2 or f x f) and its damped factor */
  double g2_maxdiag;
  bool g2_wide;
  double *dq1;     /* f: the hard rows' minimum-norm step */
  double *u1;      /* m1 */
  double *e2p;     /* m2: goal rows less what dq1 already does */
  int *cache_free; /* free columns the cached matrices were built for */
  size_t cache_f;
  long cache_id;                       /* state the cache belongs to (-1 = none) */
  long state_id;                       /* bumped whenever the current state changes */
  double *vm1, *vm2, *vm3;             /* m-sized vectors */
  double *vc1, *vc2, *vc3, *vc4, *vc5; /* dof-sized vectors */
  int *free_cols;                      /* c */
  unsigned char *active;               /* c: held on its limit this iteration (the active set) */
  unsigned char *blocked;              /* c: out of this step (active, or driven onto a limit) */
  double *goal_pos, *goal_rot;         /* per goal errors of the last evaluation */
  double *loop_res;                    /* 6, one loop's residual */
};

/* Evaluates the rows of the problem at s->q (FK, residuals, errors, the slot points); the
 * Jacobian too when jac. ws->use_chain / cols / m must be set up by rk__ik_setup. */
void rk__ik_eval(const rk_ik_problem *p, const rk_ik_options *o, rk_ik_ws *ws, rk__ik_state *s,
                 bool jac);
/* The Jacobian of a state rk__ik_eval evaluated (from its models / axes and slot points). */
void rk__ik_jacobian(const rk_ik_problem *p, rk_ik_ws *ws, rk__ik_state *s);
/* Per-solve setup: chooses the chain or tree path, the solved DOFs (columns), row counts.
 * False with error when the problem does not fit the workspace. */
bool rk__ik_setup(const rk_ik_problem *p, rk_ik_ws *ws, GError **error);

/* Tree FK (ik_fk.c): joint data at workspace creation, the link subset per solve, and the pass
 * (models of the subset; with want_axes, the world axes of the DOFs moving them). */
void rk__ik_fk_prepare(rk_ik_ws *ws);
void rk__ik_fk_links(rk_ik_ws *ws, const rk_ik_problem *p);
void rk__ik_tree_fk(rk_ik_ws *ws, const double *q, const rk_mat4 *root, rk_mat4 *models,
                    rk_dof_axis *axes, bool want_axes);

/* Dense kernels (column-major). */
/* In place Cholesky of the n x n SPD matrix A (lower triangle); false when a pivot is not > 0. */
bool rk__ik_cholesky(size_t n, double *A, size_t lda);
/* Solves L L^T x = b in place. */
void rk__ik_cholesky_solve(size_t n, const double *L, size_t lda, double *b);

#endif
