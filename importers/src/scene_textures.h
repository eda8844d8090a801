/* The texture images of an Assimp scene's materials (internal; scene_textures.c): bytes embedded
 * in the file as Assimp gives them, other images read from beside the file, and their MIME type.
 *
 * Index: rk__scene_load_textures, rk__image_mime_type
 */
#ifndef RK_SCENE_TEXTURES_H
#define RK_SCENE_TEXTURES_H

#include "scene.h"

G_BEGIN_DECLS

/** Gives every material texture of scene its image bytes and MIME type: embedded bytes as they
 * are; other images read from the file their path names, relative to dir (the source's folder;
 * NULL for an in-memory import), or by its last component in dir. An image that cannot be read
 * keeps its path without bytes, and one embedded as raw texels (no file format) is dropped; both
 * with a note in notes (char *). */
void rk__scene_load_textures(rk__scene *scene, const char *dir, GPtrArray *notes);
/** The MIME type of an image file from its first bytes (PNG, JPEG, GIF, BMP, WebP, TIFF, DDS,
 * KTX2), else from the extension of name (a file name, or a format hint such as "tga"); NULL when
 * neither tells. A static string. */
const char *rk__image_mime_type(const uint8_t *data, size_t size, const char *name);

G_END_DECLS

#endif
