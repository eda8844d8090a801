/* BVH writer (bvh_writer.c): one skeleton and one clip as a Biovision hierarchy.
 *
 * Index: rk__bvh_write, rk__bvh_readback
 */
#ifndef RK_BVH_WRITER_H
#define RK_BVH_WRITER_H

#include <rigkit/exporters.h>

/** Writes asset as BVH to path (atomically), in centimetres unless opts->unit says metres. Fails
 * as rk_export_file does; also with RK_ERROR_UNSUPPORTED for several clips without opts->clip or
 * a rotation order without three distinct axes. */
bool rk__bvh_write(const rk_asset *asset, const char *path, const rk_export_options *opts,
                   GError **error);
/** How a BVH written with opts reads back as written (see rk_export_readback_of; format left
 * unset). */
void rk__bvh_readback(const rk_export_options *opts, rk_export_readback *out);

#endif
