/* Base-colour textures in glTF (gltf_texture.c): the image's bytes in a bufferView with its MIME
 * type, a texture over it, one per distinct image.
 *
 * Index: rk__gltf_add_texture
 */
#ifndef RK_GLTF_TEXTURE_H
#define RK_GLTF_TEXTURE_H

#include "gltf_scene.h"

/** The index of the glTF texture holding t's image (added, with its image and bufferView, the
 * first time these bytes come), or -1 when glTF cannot hold it: no bytes, or an image that is
 * neither PNG nor JPEG (the core specification's two formats); -2 with c->error set when the
 * buffer would pass its limit. */
int rk__gltf_add_texture(rk__gltf_ctx *c, const rk_texture *t);

#endif
