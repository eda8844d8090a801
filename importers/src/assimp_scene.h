/* Reading through Assimp (internal; assimp_scene.c, the only file that includes Assimp). */
#ifndef RK_ASSIMP_SCENE_H
#define RK_ASSIMP_SCENE_H

#include "scene.h"
#include "source.h"

G_BEGIN_DECLS

/** Reads glTF/GLB ("gltf", "glb") or FBX ("fbx") bytes through Assimp into *scene (cleared first,
 * freed with rk__scene_clear). Fails with RK_ERROR_PARSE carrying Assimp's message. */
bool rk__assimp_read(const rk__source *src, const char *format, rk__scene *scene, GError **error);

G_END_DECLS

#endif
