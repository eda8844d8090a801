/* What a BVH file leaves open, decided from its skeleton and motion (internal; bvh_decide.c): the
 * up axis, the unit, and whether position channels add to the OFFSET or replace it. The caller's
 * options override each; every decision is noted on the raw asset. */
#ifndef RK_BVH_DECIDE_H
#define RK_BVH_DECIDE_H

#include "bvh_file.h"
#include "raw_asset.h"

#include <rigkit/importers.h>

G_BEGIN_DECLS

/** The file's up axis (axis 0..2, sign +-1) and its left/right mirror axis. */
typedef struct rk__bvh_up {
  int axis, sign;
  int lateral; /* -1 when no clear left/right symmetry */
} rk__bvh_up;

/** The up axis: opts->up_axis, else detected (the axis carrying most bone length, lateral axis
 * excluded; its sign puts most joints above the root; +Y for a planar mechanism). Sets raw's up
 * axis. Fails with RK_ERROR_INVALID for an unreadable opts->up_axis. */
bool rk__bvh_choose_up(const rk__bvh_file *b, const rk_import_options *opts, rk__raw_asset *raw,
                       rk__bvh_up *up, GError **error);
/** The unit vector of an up axis, in file coordinates. */
rk_vec3 rk__bvh_up_vector(rk__bvh_up up);
/** Metres per file unit: opts->unit_scale, else the unit that makes the rest skeleton (its extent
 * along up_vec) a human height, or 1 for a planar mechanism (no body to measure). Sets raw's
 * unit. */
double rk__bvh_choose_unit(const rk__bvh_file *b, const rk_import_options *opts, rk_vec3 up_vec,
                           rk__raw_asset *raw);
/** Whether the root's and the other joints' position channels add to their OFFSET (else they
 * replace it): opts->bvh_root_offset, else for the root the reading whose lowest joints are
 * nearest the ground plane (median over frames), for the others whether their values contain
 * the OFFSET. */
void rk__bvh_choose_position_reading(const rk__bvh_file *b, const rk_import_options *opts,
                                     rk_vec3 up_vec, double unit, rk__raw_asset *raw,
                                     bool *root_add, bool *other_add);
/** Rest positions of the joints (zero rotations, OFFSET chain) in file units: a new array
 * (g_free). */
rk_vec3 *rk__bvh_rest_positions(const rk__bvh_file *b);

G_END_DECLS

#endif
