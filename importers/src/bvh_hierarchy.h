/* The HIERARCHY section of a BVH file (internal; bvh_hierarchy.c). */
#ifndef RK_BVH_HIERARCHY_H
#define RK_BVH_HIERARCHY_H

#include "bvh_file.h"

G_BEGIN_DECLS

/** Reads HIERARCHY up to and including the MOTION keyword into b's joints (each End Site a leaf
 * joint "<parent>_End"), numbering the channel columns of a frame line. Fails with
 * RK_ERROR_PARSE naming the line (unbalanced braces, a joint without OFFSET, unknown, repeated or
 * more than 6 channels, no MOTION), RK_ERROR_INVALID (a non-finite OFFSET) or RK_ERROR_LIMIT
 * (more than RK_SKELETON_MAX_JOINTS joints, names over RK_SKELETON_MAX_NAME bytes). */
bool rk__bvh_parse_hierarchy(rk__bvh_file *b, GError **error);

G_END_DECLS

#endif
