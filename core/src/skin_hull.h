/* Internal: the candidate reduction of rigkit/skin.h (skin_hull.c): which of one joint's vertices
 * can be its lowest point at some pose, from a convex hull of their rest positions. */
#ifndef RK_SKIN_HULL_H
#define RK_SKIN_HULL_H

#include <rigkit/math.h>

#include <stdbool.h>
#include <stddef.h>

/* Sets keep[i] for each of the n points (rest positions pts[i], each free to move within reach[i]
 * of it in the joint's frame, INFINITY for unbounded) that can be extreme in some direction, and
 * clears it for the others; returns how many are kept. rigkit/skin.h states the rule and its
 * proof. Keeps every point when they span no volume. Allocates (build time only). */
size_t rk__skin_hull_keep(const rk_vec3 *pts, const double *reach, size_t n, bool *keep);

#endif
