/* rigkit/jacobian.h: Jacobians of DH chains, in the geometric form and the DH-derivative form.
 *
 * For a chain end = base A_1(q_1) ... A_n(q_n) tool (rigkit/dh.h), two ways to the same 6 x n
 * Jacobian of the end frame (rows 0-2: linear velocity of the end origin, rows 3-5: angular
 * velocity, world coordinates; column-major with leading dimension ld >= 6):
 *   geometric:      column i = (z_i x (p - o_i); z_i) for a revolute row, (z_i; 0) for a
 *                   prismatic one, with z_i, o_i the axis and origin of joint i in the world
 *                   (standard DH: frame i-1; modified DH: frame i) and p the end origin;
 *   DH derivative:  dT/dq_i = P_i * dA_i/dq_i * C_i with P_i = base A_1 ... A_{i-1} and
 *                   C_i = A_{i+1} ... A_n tool, dA_i/dq_i = dA_i/dtheta_i (revolute) or
 *                   dA_i/dd_i (prismatic); column i = (translation of dT/dq_i; vee(dR/dq_i R^T)).
 * They agree for every q (tests/core/test_jacobian.c shows it, and both agree with finite
 * differences). The tree's own Jacobian (rk_tree_frame_jacobian) is the geometric form over the
 * whole DOF vector; rk_chain_jacobian gives the DH-derivative form for a chain of a tree.
 *
 * Angular velocity and Euler-angle rates. Every Jacobian in rigkit (these, rk_tree_frame_jacobian,
 * rk_chain_jacobian, the IK goal rows) maps joint rates to the end frame's angular velocity
 * omega. The textbook's end-effector state x = (p, psi, theta, phi) uses Euler-angle rates
 * instead; with a the angles in an order (rigkit/euler.h: roll-pitch-yaw is RK_EULER_ZYX with
 * a = (phi, theta, psi)), omega = B(a) da/dt, so the analytic (Euler-angle) Jacobian is
 *   J_A = [ I  0 ; 0  B(a)^-1 ] J_geometric
 * (rk_jacobian_euler_rates, rk_dh_chain_jacobian_euler). J_A does not exist where B is singular,
 * the order's gimbal lock (roll-pitch-yaw: theta = +-90 degrees), though J does: a representation
 * singularity, not the arm's. rigkit's solvers work with omega (and loop closures with the
 * rotation vector's rates through the inverse left Jacobian of SO(3), rigkit/loop.h), so they
 * never meet it.
 *
 * Nothing here allocates; every function is re-entrant.
 *
 * Index: rk_dh_row_derivative, rk_dh_chain_derivative, rk_dh_chain_jacobian,
 *        rk_dh_chain_jacobian_dh, rk_chain_jacobian, RK_EULER_RATE_SINGULAR,
 *        rk_jacobian_euler_rates, rk_dh_chain_jacobian_euler
 */
#ifndef RIGKIT_JACOBIAN_H
#define RIGKIT_JACOBIAN_H

#include <rigkit/chain.h>
#include <rigkit/dh.h>
#include <rigkit/euler.h>

G_BEGIN_DECLS

/** dA/dq of one row's link transform at joint value q (theta for a revolute row, d for a
 * prismatic one, q added to the row's offset), in the chain's convention. The bottom row of the
 * result is 0 (a derivative, not a transform). */
RK_API rk_mat4 rk_dh_row_derivative(rk_dh_convention convention, const rk_dh_row *row, double q);
/** dT/dq_k of the end frame T = base A_1 ... A_n tool at q[count], as P_k dA_k C_k. Returns the
 * zero matrix when k >= count. */
RK_API rk_mat4 rk_dh_chain_derivative(const rk_dh_chain *chain, const double *q, size_t k);
/** Geometric Jacobian of the end frame at q (6 x count into J, leading dimension ld >= 6); end
 * (optional) receives the end frame. frames: scratch of count + 1 matrices. */
RK_API void rk_dh_chain_jacobian(const rk_dh_chain *chain, const double *q, double *J, size_t ld,
                                 rk_mat4 *end, rk_mat4 *frames);
/** The same Jacobian from the DH derivatives (P_k dA_k C_k for every k, in O(n) products with
 * prefix and suffix products). frames: scratch of 2 * (count + 1) matrices. */
RK_API void rk_dh_chain_jacobian_dh(const rk_dh_chain *chain, const double *q, double *J, size_t ld,
                                    rk_mat4 *frames);
/** DH-derivative Jacobian of a tree chain's tip frame in world coordinates: 6 x
 * rk_chain_dof_count(chain) into J (leading dimension ld >= 6), column i for chain variable i
 * (tree DOF rk_chain_dofs(chain)[i]). base_model is the world frame of the chain's base link
 * (models[base], which must be rigid), NULL for a chain from the world. frames: scratch of
 * 2 * (rk_chain_dof_count(chain) + 1) matrices. */
RK_API void rk_chain_jacobian(const rk_chain *chain, rk_dh_convention convention,
                              const double *q_tree, const rk_mat4 *base_model, double *J, size_t ld,
                              rk_mat4 *frames);

/** |det B(a)| at or below which rk_jacobian_euler_rates reports a representation singularity. */
#define RK_EULER_RATE_SINGULAR 1e-9

/** Turns a geometric Jacobian (6 x cols, column-major, leading dimension ld >= 6; rows 3-5 the
 * angular velocity in world coordinates) into the analytic one of the state (p, a) in place: rows
 * 3-5 become B(a)^-1 times themselves, a being the end rotation's angles in `order`
 * (rk_euler_rate_matrix). Returns false and leaves J unchanged at a representation singularity
 * (|det B(a)| <= RK_EULER_RATE_SINGULAR). */
RK_API bool rk_jacobian_euler_rates(rk_euler_order order, const double angles[3], double *J,
                                    size_t ld, size_t cols);
/** Analytic Jacobian of a DH chain's end frame at q for the end-effector state x = (p, a): p the
 * end origin, a = rk_euler_from_mat3(order, end rotation). J (6 x count, leading dimension
 * ld >= 6) receives dx/dq; angles (optional) receives a; frames: scratch of count + 1 matrices.
 * Returns false at a representation singularity of the order at a (see rk_jacobian_euler_rates):
 * J then holds the geometric Jacobian. */
RK_API bool rk_dh_chain_jacobian_euler(const rk_dh_chain *chain, const double *q,
                                       rk_euler_order order, double *J, size_t ld,
                                       double angles[3], rk_mat4 *frames);

G_END_DECLS

#endif
