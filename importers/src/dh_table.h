/* rigkit's DH-table reader (internal; dh_table.c). */
#ifndef RK_DH_TABLE_H
#define RK_DH_TABLE_H

#include "raw_asset.h"
#include "source.h"

#include <rigkit/importers.h>

G_BEGIN_DECLS

/** Reads a DH table into a new raw asset in canonical space (rk__raw_asset_free): the chain as a
 * skeleton and its frames as one clip. Fails with RK_ERROR_PARSE or RK_ERROR_LIMIT naming the
 * line, RK_ERROR_INVALID for non-finite numbers, min > max or duplicate joint names. */
rk__raw_asset *rk__dh_read(const rk__source *src, const rk_import_options *opts, GError **error);

G_END_DECLS

#endif
