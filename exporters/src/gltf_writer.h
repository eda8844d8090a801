/* glTF 2.0 writer (gltf_writer.c): .gltf with its .bin buffer, or one .glb.
 *
 * Index: rk__gltf_write, rk__gltf_readback
 */
#ifndef RK_GLTF_WRITER_H
#define RK_GLTF_WRITER_H

#include <rigkit/exporters.h>

/** Writes asset to path as .gltf + .bin (glb false) or .glb (glb true), atomically: a .gltf and
 * its .bin are both complete on disk before either is renamed. Fails as rk_export_file does; also
 * with RK_ERROR_UNSUPPORTED for centimetres (glTF is metres). */
bool rk__gltf_write(const rk_asset *asset, const char *path, const rk_export_options *opts,
                    bool glb, GError **error);
/** How a .gltf or .glb reads back as written (see rk_export_readback_of; format left unset). */
void rk__gltf_readback(const rk_export_options *opts, rk_export_readback *out);

#endif
