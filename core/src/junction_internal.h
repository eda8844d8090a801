/* Internal: building and freeing the junctions of a kinematic tree (junction.c). tree_build.c
 * builds them with the tree and frees them with it; rigkit/junction.h reads them. */
#ifndef RK_JUNCTION_INTERNAL_H
#define RK_JUNCTION_INTERNAL_H

#include "tree_internal.h"

/* The junctions of a tree whose joints, DOFs and zero models are final (the tree's junctions
 * field aside); NULL with error when a junction's chain has no DH form. Free with
 * rk__junctions_free. */
rk__junctions *rk__junctions_build(const rk_tree *t, GError **error);
/* Frees junctions and their chains; NULL is a no-op. */
void rk__junctions_free(rk__junctions *js);

#endif
