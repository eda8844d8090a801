/* Clips in glTF (gltf_anim.c): one animation per clip, one sampler per track with the track's
 * interpolation, rotations normalised (and sign-continuous for LINEAR), key times in float32;
 * a clip that lasts longer than its last key gets one holding key at its duration.
 *
 * Index: rk__gltf_add_animation
 */
#ifndef RK_GLTF_ANIM_H
#define RK_GLTF_ANIM_H

#include "gltf_scene.h"

/** Adds clip (the clip_index-th written) as an animation named after it ("animation_<i>" when
 * unnamed), unique among `names` (a set of owned strings). Fails with RK_ERROR_UNSUPPORTED (key
 * times not increasing in float32), RK_ERROR_INVALID (a value beyond float32, a zero rotation) or
 * RK_ERROR_LIMIT, naming clip, joint and key. */
bool rk__gltf_add_animation(rk__gltf_ctx *c, const rk_clip *clip, size_t clip_index,
                            GHashTable *names);

#endif
