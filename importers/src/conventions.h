/* The conventions a file states or implies (internal; conventions.c): axes, length units and
 * frame rates. The public parsers rk_import_parse_axis and rk_import_parse_unit live there too. */
#ifndef RK_CONVENTIONS_H
#define RK_CONVENTIONS_H

#include <rigkit/rigkit.h>

G_BEGIN_DECLS

/** Signed permutation basis change taking a file's up axis to +Y, right-handed. up: 0..2 with
 * sign +-1; front: the file's forward axis (different from up) and sign. */
rk_mat3 rk__basis_from_axes(int up, int up_sign, int front, int front_sign, int coord,
                            int coord_sign);
/** The proper rotation taking the file axis (axis 0..2, sign +-1) onto +Y by the smallest turn
 * (identity for +Y; Z-up -> Y-up is (x, y, z) -> (x, z, -y)). */
rk_mat3 rk__basis_for_up(int axis, int sign);
/** Static text naming an axis ("X", "-Z", ...). */
const char *rk__axis_name(int axis, int sign);

/** Unit names the importers know, with metres per unit: "m", "dm", "cm", "mm", "in", "ft",
 * "cmu" (CMU motion capture units, 1/0.45 inch). Returns false for an unknown name. */
bool rk__unit_from_name(const char *name, double *metres_per_unit);
/** Name of a known unit scale ("cm" for 0.01, ...) or NULL. */
const char *rk__unit_name(double metres_per_unit);
/** Picks the unit that makes a human-sized skeleton (height in file units) 1.4-2.1 m tall;
 * *fits is false when no unit gives a human height (the nearest is returned). */
const char *rk__unit_guess_from_height(double height, double *metres_per_unit, bool *fits);
/** Key spacing -> frame rate: the first common rate (24, 25, 30, ...) on which every time lies,
 * else 1 / smallest spacing. times need not be sorted; returns 0 for fewer than 2 distinct times. */
double rk__fps_from_times(const double *times, size_t n, bool *regular);

G_END_DECLS

#endif
