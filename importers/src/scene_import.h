/* An Assimp scene -> a raw asset in canonical space (internal; scene_import.c). */
#ifndef RK_SCENE_IMPORT_H
#define RK_SCENE_IMPORT_H

#include "gltf_prepass.h"
#include "raw_asset.h"
#include "scene.h"

#include <rigkit/importers.h>

G_BEGIN_DECLS

/** Turns an Assimp scene into a new raw asset in canonical space (rk__raw_asset_free). gltf is
 * what the glTF pre-pass found (interpolation, repairs), NULL for FBX. Fails with
 * RK_ERROR_PARSE (no nodes) or RK_ERROR_UNSUPPORTED (no skinned or animated node). */
rk__raw_asset *rk__scene_to_raw(rk__scene *scene, const char *format,
                                const rk__gltf_info *gltf, const rk_import_options *opts,
                                GError **error);

G_END_DECLS

#endif
