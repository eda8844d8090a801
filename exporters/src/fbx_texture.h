/* A mesh's base-colour texture in FBX (fbx_texture.c): a Texture object and a Video object that
 * holds the image's bytes (Content), connected to the mesh's Material as its DiffuseColor.
 *
 * Index: rk__fbx_texture_written, rk__fbx_write_texture
 */
#ifndef RK_FBX_TEXTURE_H
#define RK_FBX_TEXTURE_H

#include "fbx_scene.h"

/** Whether the mesh's texture is written: it has the image's bytes and the mesh has UVs. */
bool rk__fbx_texture_written(const rk_mesh_data *d);
/** Writes m's Texture and Video (ids m->tex_id, m->video_id) and their connections. */
void rk__fbx_write_texture(rk__fbx_ctx *c, const rk__fbx_mesh *m);

#endif
