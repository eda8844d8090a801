/* rigkit/ik.h: inverse kinematics on kinematic trees and DH chains.
 *
 * One problem type (rk_ik_problem, a plain struct of borrowed inputs, ozz "job" style):
 *   - the mechanism: a kinematic tree (rigkit/tree.h) or a bare DH chain (rigkit/dh.h);
 *   - goals: a position, an orientation or a full pose for a frame fixed on any link, weighted;
 *   - loop closures (rigkit/loop.h): hard (solved first, goals live in their null space) or soft
 *     (weighted rows like goals);
 *   - joint limits (the tree's, or the problem's own arrays): every answer lies inside them;
 *   - a posture: a reference q the free DOFs drift back to, in the null space of the goals.
 * Solved by rk_ik_solve with one of three methods (rk_ik_method): Newton with the Jacobian
 * pseudo-inverse (the undamped case), damped least squares with a fixed damping, or
 * Levenberg-Marquardt with adaptive damping (the default: converges to the closest point of an
 * unreachable goal without blowing up at singularities). Limits are kept by an active set (DOFs
 * at a limit that the step pushes outward leave the step) and clamping; when an attempt stalls away
 * from the goals, the solver restarts from random configurations inside the limits, drawn from
 * options.seed (deterministic).
 *
 * Errors and Jacobians. A goal's position error is target - current (metres, world); its
 * orientation error the rotation vector of R_target R_current^T (radians, world). The Jacobian of a
 * point p on a link is the geometric one: column k is (a_k x (p - o_k); a_k) for a rotational DOF
 * with world axis a_k through o_k, (a_k; 0) for a translational one (rigkit/jacobian.h has the
 * DH-derivative form for chains, equal to it).
 *
 * Memory and threads. All scratch lives in an rk_ik_ws made once per thread for a mechanism and a
 * largest row count (rk_ik_ws_new); rk_ik_solve allocates nothing, keeps no pointer to the problem
 * after it returns and is re-entrant: the same problem solved on two threads (two workspaces) gives
 * bit-identical answers. A numerical outcome (goal not reached, iterations spent) is a result
 * (rk_ik_result.status), not an error; rk_ik_solve fails only on an invalid problem.
 *
 * Evaluation. On a tree, each evaluation runs forward kinematics over only the links the goals
 * and loops need (and their ancestors), with the DOF axes in the same pass (same conventions as
 * rk_tree_fk and rk_tree_dof_axes), and assembles the Jacobian over only the DOFs that move them;
 * the Jacobian is computed for accepted steps only. Fast path: a tree whose every DOF moves one
 * tip link (a robot arm) with goals on that tip (or links rigidly below it) and no loops is
 * evaluated through its DH table (rigkit/chain.h): same answers up to rounding.
 *
 * Index: rk_ik_goal_kind, rk_ik_goal, RK_IK_GOAL_INIT, rk_ik_loop_mode, rk_ik_problem,
 *        RK_IK_PROBLEM_INIT, rk_ik_problem_dof_count, rk_ik_problem_rows, rk_ik_problem_validate,
 *        rk_ik_method, rk_ik_method_name, rk_ik_options, RK_IK_OPTIONS_INIT, rk_ik_options_init,
 *        rk_ik_status, rk_ik_status_name, rk_ik_result, rk_ik_ws, rk_ik_ws_new, rk_ik_ws_free,
 *        rk_ik_ws_uses_chain_path, rk_ik_solve, rk_ik_goal_errors, rk_ik_step_kind,
 *        rk_ik_step_kind_name, rk_ik_newton_step, rk_ik_newton_step_work,
 *   limbs: rk_two_bone_job, RK_TWO_BONE_JOB_INIT, rk_two_bone_run, rk_ik_limb, rk_ik_limb_init,
 *          rk_ik_limb_solve (analytic two-bone IK)
 */
#ifndef RIGKIT_IK_H
#define RIGKIT_IK_H

#include <rigkit/dh.h>
#include <rigkit/loop.h>
#include <rigkit/tree.h>
#include <stdint.h>

G_BEGIN_DECLS

/* ---- Problem --------------------------------------------------------------------------------- */

/** What a goal constrains. */
typedef enum rk_ik_goal_kind {
  RK_IK_POSITION,    /* the goal frame's origin reaches target_position (3 rows) */
  RK_IK_ORIENTATION, /* the goal frame turns to target_orientation (3 rows) */
  RK_IK_POSE,        /* both (6 rows: position first) */
} rk_ik_goal_kind;

/** A goal on one link (a plain value the caller updates per frame). */
typedef struct rk_ik_goal {
  rk_ik_goal_kind kind;
  int link;                   /* tree link; for a DH chain problem, link i (0 .. rows-1) is the
                                 body moved by joint i (DH frame i+1; the last includes the tool) */
  rk_vec3 point;              /* goal frame origin on the link, link body coordinates (default 0) */
  rk_quat rotation;           /* goal frame orientation on the link, body coordinates (default
                                 identity) */
  rk_vec3 target_position;    /* world coordinates (metres) */
  rk_quat target_orientation; /* world coordinates, unit */
  double weight;              /* multiplies the position rows (default 1) */
  double orientation_weight;  /* multiplies the orientation rows (default 1: 1 rad counts as 1 m) */
} rk_ik_goal;

/** A pose goal on no link yet, weights 1. */
#define RK_IK_GOAL_INIT                                                                            \
  { RK_IK_POSE, -1, {0, 0, 0}, {0, 0, 0, 1}, {0, 0, 0}, {0, 0, 0, 1}, 1.0, 1.0 }

/** How loop closures enter the problem. */
typedef enum rk_ik_loop_mode {
  RK_IK_LOOPS_HARD, /* solved first (Gauss-Newton, minimum norm); goals act in their null space */
  RK_IK_LOOPS_SOFT, /* weighted rows next to the goals (weight loop_weight) */
} rk_ik_loop_mode;

/** An IK problem: borrowed inputs, valid for the duration of each call that takes it. */
typedef struct rk_ik_problem {
  /* The mechanism: exactly one of tree and chain. */
  const rk_tree *tree;      /* a kinematic tree: q is its DOF vector */
  const rk_dh_chain *chain; /* a DH chain: q has chain->count entries (theta or d offsets) */
  const rk_mat4 *root;      /* world placement above the tree's roots / the chain's base;
                               NULL = identity */
  const rk_ik_goal *goals;
  size_t goal_count;
  const rk_loop *loops; /* tree problems only */
  size_t loop_count;
  rk_ik_loop_mode loop_mode; /* default hard */
  double loop_weight;        /* soft loops: row weight (default 100) */
  const double *lower;       /* limits (dof count entries each); NULL = the tree's limits, or */
  const double *upper;       /* unbounded for a chain. -INFINITY / INFINITY = no limit */
  const double *posture;     /* reference q (dof count entries), NULL = no posture term */
  double posture_gain;       /* fraction of (posture - q) applied at the first iteration, in the
                                null space of the goals and loops, halving at each later one (a
                                warm-started frame pulls toward the posture a little each frame);
                                in [0, 1] (default 0.1) */
  const bool *locked;        /* DOFs the solver must not move (dof count entries), NULL = none */
} rk_ik_problem;

/** An empty problem: no mechanism, no goals, hard loops with weight 100, posture gain 0.1. */
#define RK_IK_PROBLEM_INIT                                                                         \
  { NULL, NULL, NULL, NULL, 0, NULL, 0, RK_IK_LOOPS_HARD, 100.0, NULL, NULL, NULL, 0.1, NULL }

/** Size of q for the problem's mechanism (0 when it has none). */
RK_API size_t rk_ik_problem_dof_count(const rk_ik_problem *problem);
/** Stacked rows of the problem's goals (3 or 6 each) and loops (rk_loop_rows each). */
RK_API size_t rk_ik_problem_rows(const rk_ik_problem *problem);
/** Checks a problem: exactly one mechanism, goals on existing links with finite targets, unit
 * quaternions (within 1e-6) and non-negative finite weights, loops valid for the tree (none for a
 * chain), lower <= upper, a finite posture and a posture gain in [0, 1]. Fails with
 * RK_ERROR_INVALID and a message naming the goal, loop or DOF at fault. */
RK_API bool rk_ik_problem_validate(const rk_ik_problem *problem, GError **error);

/* ---- Options and results --------------------------------------------------------------------- */

/** Solver methods. */
typedef enum rk_ik_method {
  RK_IK_NEWTON, /* dq = J^+ e: regular, over- or under-determined (no damping; a tiny one only
                   where J^+ does not exist), always accepted */
  RK_IK_DLS,    /* damped least squares, fixed damping options.damping, always accepted */
  RK_IK_LM,     /* Levenberg-Marquardt: adaptive damping, a step is kept only when it lowers the
                   error (default) */
} rk_ik_method;

/** Static name of a method ("newton", "dls", "lm") or "?". */
RK_API const char *rk_ik_method_name(rk_ik_method method);

/** Solver options; start from RK_IK_OPTIONS_INIT. */
typedef struct rk_ik_options {
  rk_ik_method method;          /* default RK_IK_LM */
  int max_iterations;           /* iterations over all attempts (default 200) */
  double position_tolerance;    /* goal reached when every position error is below (default
                                   1e-5 m) ... */
  double orientation_tolerance; /* ... and every orientation error below (default 1e-4 rad) ... */
  double closure_tolerance;     /* ... and every loop residual entry below (default 1e-9) */
  double damping;               /* DLS: the damping lambda (in units of the rows); LM: the start
                                   of lambda^2 relative to the largest diagonal of J^T J (default
                                   1e-3; 1e-5 suits warm starts such as per-frame solves from the
                                   previous frame's answer) */
  int max_restarts;             /* random restarts when an attempt stalls (default 0) */
  int attempt_iterations;       /* iterations one attempt may take before it counts as stalled
                                   (default 0 = no cap) */
  uint64_t seed;                /* restart draws (default 1) */
  double time_budget_s;         /* wall-clock budget (default 0 = none); a solve cut by it is
                                   no longer deterministic */
  double max_step;              /* largest change of one DOF per iteration (rad or m; default 0 =
                                   no cap) */
} rk_ik_options;

/** Default options (see each field). */
#define RK_IK_OPTIONS_INIT                                                                         \
  { RK_IK_LM, 200, 1e-5, 1e-4, 1e-9, 1e-3, 0, 0, 1, 0.0, 0.0 }

/** Fills *opts with the defaults (same as RK_IK_OPTIONS_INIT). */
RK_API void rk_ik_options_init(rk_ik_options *opts);

/** Why a solve stopped. */
typedef enum rk_ik_status {
  RK_IK_REACHED,        /* every goal and loop within its tolerance */
  RK_IK_CLOSEST,        /* converged to a minimum of the weighted error that misses a goal: the
                           closest point (an unreachable goal, or conflicting goals) */
  RK_IK_MAX_ITERATIONS, /* options.max_iterations spent */
  RK_IK_TIMEOUT,        /* options.time_budget_s spent */
} rk_ik_status;

/** Static name of a status ("reached", "closest", "max-iterations", "timeout") or "?". */
RK_API const char *rk_ik_status_name(rk_ik_status status);

/** What a solve did (errors are those of the returned q). */
typedef struct rk_ik_result {
  rk_ik_status status;
  bool reached;             /* status == RK_IK_REACHED */
  int iterations;           /* iterations (one Jacobian each), all attempts */
  int evaluations;          /* FK evaluations (rejected LM trials included) */
  int restarts;             /* random restarts made */
  double position_error;    /* largest goal position error (m) */
  double orientation_error; /* largest goal orientation error (rad) */
  double closure_error;     /* largest loop residual entry (m or rad) */
  double cost;              /* weighted squared error of the goals and soft loops */
  int dofs_at_limit;        /* DOFs of the answer sitting on a limit */
} rk_ik_result;

/* ---- Workspace and solve --------------------------------------------------------------------- */

typedef struct rk_ik_ws rk_ik_ws;

/** Allocates the scratch of one thread for problems on the same mechanism as `problem` (the same
 * tree, or a chain with the same row count) with up to max_rows stacked goal and loop rows
 * (0 = the rows of `problem`). The workspace keeps a pointer to the tree: the tree must outlive
 * it. Fails with RK_ERROR_INVALID when the problem has no mechanism. The caller frees it with
 * rk_ik_ws_free. */
RK_API rk_ik_ws *rk_ik_ws_new(const rk_ik_problem *problem, size_t max_rows, GError **error);
/** Frees a workspace; NULL is a no-op. */
RK_API void rk_ik_ws_free(rk_ik_ws *ws);
/** True when the workspace's mechanism has the DH fast path (a chain problem, or a tree that is
 * one serial chain); a solve takes it when its goals all sit on the tip and it has no loops. */
RK_API bool rk_ik_ws_uses_chain_path(const rk_ik_ws *ws);

/** Solves the problem from q (dof count entries; the start, replaced by the answer). The start
 * is clamped into the limits first; the answer always lies inside them. options NULL = defaults.
 * *result (optional) receives what happened. Returns false without touching q when the problem
 * is invalid (rk_ik_problem_validate), does not match the workspace's mechanism, has more rows
 * than it holds, or q holds NaN or infinity (error set, RK_ERROR_INVALID or RK_ERROR_LIMIT); a
 * goal not reached is not a failure (see result->status). Allocates nothing. */
RK_API bool rk_ik_solve(const rk_ik_problem *problem, const rk_ik_options *options, double *q,
                        rk_ik_ws *ws, rk_ik_result *result, GError **error);

/** Errors of every goal at q: pos_err[i] (m) and rot_err[i] (rad) for goal i (either may be NULL;
 * a position goal has rot_err 0, an orientation goal pos_err 0) and, when closure is not NULL,
 * the largest loop residual entry. Uses the workspace's scratch; false on the failures of
 * rk_ik_solve. */
RK_API bool rk_ik_goal_errors(const rk_ik_problem *problem, const double *q, rk_ik_ws *ws,
                              double *pos_err, double *rot_err, double *closure, GError **error);

/* ---- One Newton step (the textbook cases) ---------------------------------------------------- */

/** Which formula a Newton step used. */
typedef enum rk_ik_step_kind {
  RK_IK_STEP_REGULAR,         /* m == n: dq = J^-1 e (LU with partial pivoting) */
  RK_IK_STEP_OVERDETERMINED,  /* m > n: dq = (J^T J)^-1 J^T e (Cholesky of J^T J) */
  RK_IK_STEP_UNDERDETERMINED, /* m < n: dq = J^T (J J^T)^-1 e (Cholesky of J J^T) */
  RK_IK_STEP_DAMPED,          /* lambda > 0: dq = J^T (J J^T + lambda^2 I)^-1 e, through the smaller
                                 of the two normal matrices */
  RK_IK_STEP_SINGULAR,        /* the matrix to invert is singular: dq is set to 0 */
} rk_ik_step_kind;

/** Static name of a step kind ("regular", "over-determined", ...) or "?". */
RK_API const char *rk_ik_step_kind_name(rk_ik_step_kind kind);
/** Doubles of scratch rk_ik_newton_step needs for an m x n Jacobian. */
RK_API size_t rk_ik_newton_step_work(size_t m, size_t n);
/** One Newton step dq[n] = J^+ e[m] for the m x n Jacobian J (column-major, leading dimension
 * ld >= m), by the case the shape gives (or damped least squares when lambda > 0); returns the
 * case used. work: rk_ik_newton_step_work(m, n) doubles (plus n ints of pivots inside it). */
RK_API rk_ik_step_kind rk_ik_newton_step(size_t m, size_t n, const double *J, size_t ld,
                                         const double *e, double lambda, double *dq, double *work);

/* ---- Analytic two-bone IK -------------------------------------------------------------------- */

/** A two-bone limb in world space (hip-knee-ankle, shoulder-elbow-wrist), as a job: the inputs
 * are positions and directions, the outputs two world-space rotations. Apply mid_rotation to the
 * mid joint (about the mid joint, turning the lower bone) and then start_rotation to the start
 * joint (about the start joint, turning the whole limb). */
typedef struct rk_two_bone_job {
  rk_vec3 start, mid, end; /* world positions of the three joints */
  rk_vec3 target;          /* where the end joint should go (world) */
  rk_vec3 pole;            /* world direction the mid joint should point to, seen from the
                              start-target line (the knee's "forward"); zero = keep the current
                              bend plane */
  rk_vec3 mid_axis;        /* world hinge axis of the mid joint at the current pose (a knee's
                              revolute axis); zero = the normal of the current bend plane */
  double bend_sign;        /* the bend sense to take when the limb is straight now: +1 when a bent
                              limb has (start - mid) x (end - mid) along +mid_axis, -1 when
                              against it (0 = +1); while the limb is bent, its own sense is kept */
  double lower, upper;     /* limits of the mid joint's rotation about mid_axis from the current
                              pose (radians; -INFINITY / INFINITY = none) */
  /* Outputs. */
  rk_quat start_rotation; /* world-space rotation to apply about the start joint */
  rk_quat mid_rotation;   /* world-space rotation to apply about the mid joint (= mid_angle about
                             the hinge) */
  double mid_angle;       /* signed angle of mid_rotation about mid_axis (radians) */
  bool reached;           /* the end joint lands on the target (within 1e-9 of the limb size);
                             false when the target is out of reach (the limb then points at it,
                             as straight or as folded as it can) */
} rk_two_bone_job;

/** A job with no limits, bend sign +1 and zero pole / axis (set the positions). */
#define RK_TWO_BONE_JOB_INIT                                                                       \
  {                                                                                                \
    {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 1.0, -INFINITY, INFINITY,    \
        {0, 0, 0, 1}, {0, 0, 0, 1}, 0.0, false                                                     \
  }

/** Runs the job: fills the outputs. Returns false (outputs = identity) only when an input is not
 * finite or a bone has zero length. Never produces NaN; a target out of reach (too far or too
 * close), a target on the pole line or a straight limb give the closest reachable pose without
 * flipping the bend. Allocates nothing. */
RK_API bool rk_two_bone_run(rk_two_bone_job *job);

/** A limb of a tree for rk_ik_limb_solve: three links and how they move. */
typedef struct rk_ik_limb {
  int start, mid, end; /* links: start joint (hip, a ball or free), mid joint (knee: revolute,
                          or a ball), end (ankle: the point that reaches the goal) */
  int start_dof;       /* first DOF of the start joint's rotation (3 Euler DOFs) */
  int mid_dof;         /* first DOF of the mid joint's rotation (1 revolute or 3 Euler DOFs) */
  double bend_sign;    /* rk_two_bone_job.bend_sign: from the rest pose, or for a limb straight
                          at rest, the sense its revolute mid joint's limits allow most */
} rk_ik_limb;

/** Describes the limb start -> mid -> end of a tree (mid must be a child-path link of start and end
 * of mid). The start joint must be a ball or free joint and the mid joint revolute or ball; the
 * links need not be direct children (fixed joints in between are fine, DOFs in between stay as
 * they are). Fails with RK_ERROR_INVALID naming the links otherwise. */
RK_API bool rk_ik_limb_init(const rk_tree *tree, int start, int mid, int end, rk_ik_limb *limb,
                            GError **error);
/** Moves the limb's start and mid DOFs in q (in place) so that the end link's origin reaches
 * target (world), the mid joint pointing toward pole (world direction; zero = keep the bend
 * plane), by rk_two_bone_run on the tree's FK. models (link_count entries) must hold
 * rk_tree_fk(q, root) on entry and is scratch afterwards. The mid DOF stays inside its limits
 * (a revolute knee); the start Euler angles are read next to their previous values (no flips)
 * and clamped into the limits. Returns whether the target was reached. Allocates nothing. */
RK_API bool rk_ik_limb_solve(const rk_tree *tree, const rk_ik_limb *limb, rk_vec3 target,
                             rk_vec3 pole, rk_mat4 *models, double *q);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(rk_ik_ws, rk_ik_ws_free)

G_END_DECLS

#endif
