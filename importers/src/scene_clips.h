/* The clips of an Assimp scene (internal; scene_clips.c), for scene_import.c. */
#ifndef RK_SCENE_CLIPS_H
#define RK_SCENE_CLIPS_H

#include "gltf_prepass.h"
#include "raw_asset.h"
#include "scene.h"

G_BEGIN_DECLS

/** True when a key of channel c differs from the rest pose (1e-6 relative, 1e-6 rad). */
bool rk__scene_channel_moves(const rk__scene_channel *c, const rk_transform *rest);
/** Adds one clip per animation of s to raw: channels bound to joints (joint_of_node; rests in raw
 * joint order), glTF interpolation and CUBICSPLINE keys from gltf (may be NULL), times shifted to
 * start at 0, the frame rate from FBX or from the key spacing; notes what it drops or guesses.
 * A channel's key arrays that go over as they are (nothing dropped or shifted) are moved into the
 * raw tracks, not copied: s's channels are spent for anything after this. */
void rk__scene_build_clips(rk__scene *s, const char *format, const rk__gltf_info *gltf,
                           const int *joint_of_node, const rk_transform *rests,
                           rk__raw_asset *raw);

G_END_DECLS

#endif
