/* rigkit's own BVH reader (internal; bvh.c). */
#ifndef RK_BVH_H
#define RK_BVH_H

#include "raw_asset.h"
#include "source.h"

#include <rigkit/importers.h>

G_BEGIN_DECLS

/** Reads BVH bytes into a new raw asset in canonical space (rk__raw_asset_free), deciding the
 * up axis, the unit and the root-offset reading unless opts gives them. Fails with
 * RK_ERROR_PARSE naming the line, RK_ERROR_INVALID (non-finite values, duplicate joint names) or
 * RK_ERROR_LIMIT. */
rk__raw_asset *rk__bvh_read(const rk__source *src, const rk_import_options *opts, GError **error);

G_END_DECLS

#endif
