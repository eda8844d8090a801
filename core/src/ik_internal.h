/* Internal: the IK workspace, the evaluation of goals and loops, and small dense kernels shared
 * by ik.c (problem, workspace), ik_eval.c (residuals and Jacobians) and ik_dls.c (solvers). */
#ifndef RK_IK_INTERNAL_H
#define RK_IK_INTERNAL_H

#include <rigkit/chain.h>
#include <rigkit/ik.h>

/* Weight of the hard-loop rows in the merit function of the LM acceptance test. */
#define RK__IK_HARD_MERIT 1e6

/* One evaluated configuration: q, the stacked rows and their Jacobian, and the errors. */
typedef struct rk__ik_state {
  double *q;            /* n */
  double *e;            /* m rows: hard loop rows first (m1), then goals and soft loops */
  double *J;            /* m x c, column-major, leading dimension m */
  rk_mat4 *models;      /* world frame of every link (tree) / every chain link */
  rk_dof_axis *axes;    /* world axis of every DOF */
  double merit;         /* RK__IK_HARD_MERIT |e1|^2 + |e2|^2 */
  double cost;          /* |e2|^2 (goals and soft loops) */
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
  rk_chain *owned_chain;       /* chain of the whole tree (world -> chain_tip), or NULL */
  int chain_tip;               /* tree link at the chain's tip, -1 for chain problems */
  const int *chain_dofs;       /* tree DOF of each chain row (owned_chain) */
  size_t chain_rows;
  double *ca, *sa;             /* cos / sin of each row's alpha (per solve) */
  rk_mat4 *frames;             /* chain frames: world <- DH frame i, rows + 1 */
  /* Per solve: which DOFs the solver moves (columns) and the chain/tree choice. */
  bool use_chain;
  rk_dh_chain dh;              /* the chain being evaluated, root folded into base */
  size_t c;                    /* columns */
  int *cols;                   /* DOF of each column */
  int *col_of;                 /* column of each DOF, -1 when the DOF is not solved */
  rk_mat4 *goal_offsets;       /* chain path: tip -> goal link (rigid descendants), per goal */
  /* Per solve: the solved DOFs that move each goal link (slot i) and each loop's two links
   * (slots goal_count + 2 j and + 2 j + 1): pairs (DOF, column) in slot_k / slot_c from
   * slot_off[s] to slot_off[s + 1]. */
  size_t slot_cap;
  int *slot_off, *slot_k, *slot_c;
  int *dof_tmp;                /* n */
  size_t m, m1;                /* rows, hard rows of the current problem */
  /* States: current, trial, best. */
  rk__ik_state st[3];
  /* Solver scratch. */
  double *G1, *G2;             /* normal matrices */
  double *K;                   /* m1 x c */
  double *Jf;                  /* m x c, gathered free columns */
  double *J2N;                 /* m2 x c */
  double *vm1, *vm2, *vm3;     /* m-sized vectors */
  double *vc1, *vc2, *vc3, *vc4, *vc5; /* dof-sized vectors */
  double *dq;                  /* n */
  int *free_cols;              /* c */
  unsigned char *blocked;      /* c: column removed from this step (limit) */
  double *goal_pos, *goal_rot; /* per goal errors of the last evaluation */
  double *loop_res;            /* 6, one loop's residual */
};

/* Evaluates the rows (and the Jacobian when jac) of the problem at s->q; fills s's errors.
 * ws->use_chain / cols / m must be set up by rk__ik_setup. */
void rk__ik_eval(const rk_ik_problem *p, const rk_ik_options *o, rk_ik_ws *ws, rk__ik_state *s,
                 bool jac);
/* Per-solve setup: chooses the chain or tree path, the solved DOFs (columns), row counts.
 * False with error when the problem does not fit the workspace. */
bool rk__ik_setup(const rk_ik_problem *p, rk_ik_ws *ws, GError **error);

/* Dense kernels (column-major). */
/* In place Cholesky of the n x n SPD matrix A (lower triangle); false when a pivot is not > 0. */
bool rk__ik_cholesky(size_t n, double *A, size_t lda);
/* Solves L L^T x = b in place. */
void rk__ik_cholesky_solve(size_t n, const double *L, size_t lda, double *b);

#endif
