/* Clips in FBX (fbx_anim.c): each clip baked at its rate into an AnimationStack with one
 * AnimationLayer, per animated channel of a joint an AnimationCurveNode T, R or S with three
 * AnimationCurves; rotations as Euler angles in degrees in the joint's rotation order.
 *
 * Index: RK__FBX_TICKS_PER_SECOND, rk__fbx_prepare_clips, rk__fbx_write_animation
 */
#ifndef RK_FBX_ANIM_H
#define RK_FBX_ANIM_H

#include "fbx_scene.h"

/** FBX time unit (KTime): ticks per second. */
#define RK__FBX_TICKS_PER_SECOND 46186158000.0

/** Bakes every clip of c->clips: one key per frame, and one at each key of the clip that lies
 * between frames, for every animated channel (a clip without tracks holds the root's rest
 * rotation). Fails with RK_ERROR_LIMIT (too many frames) or RK_ERROR_INVALID (a value beyond
 * float32), naming clip, joint and key. */
bool rk__fbx_prepare_clips(rk__fbx_ctx *c);
/** Writes every clip's stack, layer, curve nodes and curves and connects them. */
void rk__fbx_write_animation(rk__fbx_ctx *c);

#endif
