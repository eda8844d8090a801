/* FBX animation as rigkit reads it (internal; fbx_animation.c): stacks, layers, curve nodes and
 * curves, sampled into a Model's local transforms (rk__fbx_doc_sample, fbx_internal.h). */
#ifndef RK_FBX_ANIMATION_H
#define RK_FBX_ANIMATION_H

#include "fbx_document.h"

G_BEGIN_DECLS

/** The three component curves (d|X, d|Y, d|Z) of curve node cn, as AnimationCurve objects or
 * NULL each. */
void rk__fbx_curve_node_curves(const rk__fbx_doc *doc, const rk__fbx_object *cn,
                               const rk__fbx_object *out[3]);

G_END_DECLS

#endif
