/* Binary FBX 7.4 writer (fbx_writer.c and the fbx_*.c files it drives).
 *
 * Index: rk__fbx_write, rk__fbx_write_orders, rk__fbx_readback
 */
#ifndef RK_FBX_WRITER_H
#define RK_FBX_WRITER_H

#include <rigkit/exporters.h>

/** Writes asset to path as binary FBX 7.4 (atomically), every joint in FBX's default rotation
 * order eEulerXYZ. Fails as rk_export_file does; also with RK_ERROR_LIMIT past 4 GiB. */
bool rk__fbx_write(const rk_asset *asset, const char *path, const rk_export_options *opts,
                   GError **error);
/** rk__fbx_write with each joint's rotation order (a Tait-Bryan rigkit order per joint; NULL:
 * eEulerXYZ for every joint). Fails with RK_ERROR_UNSUPPORTED for a proper Euler order. */
bool rk__fbx_write_orders(const rk_asset *asset, const char *path, const rk_export_options *opts,
                          const rk_euler_order *orders, GError **error);
/** How an FBX file written with opts reads back as written (see rk_export_readback_of; format
 * left unset). */
void rk__fbx_readback(const rk_export_options *opts, rk_export_readback *out);

#endif
