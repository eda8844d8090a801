/* Folding Assimp's FBX helper nodes back into their joints (internal; fbx_helpers.c). */
#ifndef RK_FBX_HELPERS_H
#define RK_FBX_HELPERS_H

#include "fbx_internal.h"
#include "scene.h"

G_BEGIN_DECLS

/** Removes every `<name>_$AssimpFbx$_<kind>` helper node: the joint <name>'s rest and animation
 * are evaluated from the FBX file itself (doc, from rk__fbx_precheck) with FBX's transform chain,
 * or composed from the helper chain when there is no doc (doc_error says why, in a note); and
 * marks the nodes whose FBX Model is a skeleton node (fbx_skeleton). Modifies
 * the scene in place and returns the number of helper nodes removed; adds notes. */
unsigned rk__fbx_fold_helpers(rk__scene *scene, const rk__fbx_doc *doc, const GError *doc_error,
                              GPtrArray *notes);

G_END_DECLS

#endif
