/* rigkit/dh.h: Denavit-Hartenberg link transforms, chain FK and DH extraction from joint axes.
 *
 * Standard DH (Spong/Hartenberg): A_i = Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i), frame i on the
 *   axis of joint i+1; a row holds (a_i, alpha_i, d_i, theta_i).
 * Modified DH (Craig): T_i = Rx(alpha_{i-1}) Tx(a_{i-1}) Tz(d_i) Rz(theta_i), frame i on the axis
 *   of joint i; a row i holds (a = a_{i-1}, alpha = alpha_{i-1}, d_i, theta_i).
 * The joint variable q_i is added to theta_i (revolute) or d_i (prismatic): the stored value is
 * the offset at q = 0. A chain carries a fixed base (world <- frame 0) and tool (frame n <- end).
 *
 * Index: rk_dh_standard, rk_dh_modified, rk_dh_row_transform, rk_dh_chain_fk, rk_dh_chain_axes,
 *        rk_dh_extract, rk_dh_standard_to_modified, rk_line_common_normal
 */
#ifndef RIGKIT_DH_H
#define RIGKIT_DH_H

#include <stddef.h>
#include <glib.h>
#include <rigkit/math.h>

G_BEGIN_DECLS

typedef enum rk_dh_convention { RK_DH_STANDARD, RK_DH_MODIFIED } rk_dh_convention;
typedef enum rk_dh_joint_type { RK_DH_REVOLUTE, RK_DH_PRISMATIC } rk_dh_joint_type;

/** One DH row; see the header comment for what each field means in each convention. */
typedef struct rk_dh_row {
  double a, alpha, d, theta;
  rk_dh_joint_type type;
} rk_dh_row;

/** A serial chain in DH form; rows are borrowed (not owned). */
typedef struct rk_dh_chain {
  rk_dh_convention convention;
  const rk_dh_row *rows;
  size_t count;
  rk_mat4 base; /* world <- frame 0 */
  rk_mat4 tool; /* frame n <- end effector */
} rk_dh_chain;

/** A joint axis: the line point + s*dir in world coordinates, and the joint type. */
typedef struct rk_dh_axis {
  rk_vec3 point;
  rk_vec3 dir; /* unit; the positive sense of rotation / translation */
  rk_dh_joint_type type;
} rk_dh_axis;

/** Relative position of two lines, from rk_line_common_normal. */
typedef enum rk_line_relation {
  RK_LINES_SKEW,
  RK_LINES_INTERSECTING,
  RK_LINES_PARALLEL,
  RK_LINES_COINCIDENT,
} rk_line_relation;

/** Standard DH link transform Rz(theta) Tz(d) Tx(a) Rx(alpha). */
RK_API rk_mat4 rk_dh_standard(double a, double alpha, double d, double theta);
/** Modified DH link transform Rx(alpha_prev) Tx(a_prev) Tz(d) Rz(theta). */
RK_API rk_mat4 rk_dh_modified(double alpha_prev, double a_prev, double d, double theta);
/** Link transform of a row with joint value q added to theta or d. */
RK_API rk_mat4 rk_dh_row_transform(rk_dh_convention convention, const rk_dh_row *row, double q);
/** FK along the chain for q[count]: frames (optional, count + 1 entries) receives world <- frame i
 * for i = 0..n (frames[0] = base); end (optional) receives world <- end effector. No allocation. */
RK_API void rk_dh_chain_fk(const rk_dh_chain *chain, const double *q, rk_mat4 *frames,
                           rk_mat4 *end);
/** Joint axes in world coordinates at configuration q (axes[count]) and the end frame (optional):
 * the input rk_dh_extract expects. */
RK_API void rk_dh_chain_axes(const rk_dh_chain *chain, const double *q, rk_dh_axis *axes,
                             rk_mat4 *end);
/** Extracts DH parameters from n joint axes (world lines at the reference configuration) and the
 * end-effector frame there. Frame 0 takes z along axis 1 with its origin at the point of axis 1
 * nearest the world origin and x from the world x (made perpendicular); each next x follows the
 * common normal of consecutive axes (a_i >= 0 for skew and parallel axes; for intersecting axes
 * the sign giving |theta offset| <= 90 degrees, and alpha > 0 where both signs give 90 degrees,
 * as at a ball joint's orthogonal axes; coincident axes keep the previous x); the tool's
 * z-axis line acts as axis n+1. Results: rows[n] (theta/d hold the offsets at the reference
 * configuration), *base and *tool so that rk_dh_chain_fk reproduces the input chain for all q.
 * Fails with RK_ERROR_INVALID for n = 0, a zero or non-finite axis, or a non-rigid end frame. */
RK_API bool rk_dh_extract(rk_dh_convention convention, const rk_dh_axis *axes, size_t n,
                          const rk_mat4 *end_frame, rk_dh_row *rows, rk_mat4 *base, rk_mat4 *tool,
                          GError **error);
/** Converts a standard table (with its tool) to the modified table of the same chain:
 * modified row i takes (a, alpha) of standard row i-1 (row 0 gets 0, 0) and the last standard
 * (a, alpha) moves into the tool. rows may not alias out. */
RK_API void rk_dh_standard_to_modified(const rk_dh_row *rows, size_t n, const rk_mat4 *tool,
                                       rk_dh_row *out, rk_mat4 *out_tool);
/** Common normal of the lines p1 + s u1 and p2 + t u2 (unit directions): *foot1 and *foot2 are its
 * ends on each line (for parallel lines, foot1 = p1); returns how the lines relate (tolerance
 * tol on distances and sines). */
RK_API rk_line_relation rk_line_common_normal(rk_vec3 p1, rk_vec3 u1, rk_vec3 p2, rk_vec3 u2,
                                              double tol, rk_vec3 *foot1, rk_vec3 *foot2);

G_END_DECLS

#endif
