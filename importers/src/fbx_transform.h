/* A Model's local transform with the full FBX chain (internal; fbx_transform.c), for the rest pose
 * (rk__fbx_doc_model_rest, fbx_internal.h) and for the samples of fbx_animation.c. */
#ifndef RK_FBX_TRANSFORM_H
#define RK_FBX_TRANSFORM_H

#include "fbx_document.h"

G_BEGIN_DECLS

/** The transform properties of the chain, in the order of rk__fbx_model_info.vals. */
enum {
  RK__FBX_P_T,
  RK__FBX_P_ROFF,
  RK__FBX_P_RP,
  RK__FBX_P_PRE,
  RK__FBX_P_R,
  RK__FBX_P_POST,
  RK__FBX_P_SOFF,
  RK__FBX_P_SP,
  RK__FBX_P_S,
  RK__FBX_P_COUNT
};

/** A Model's static chain values and the settings that shape its rotation. */
typedef struct rk__fbx_model_info {
  rk_vec3 vals[RK__FBX_P_COUNT]; /* static values */
  int order;             /* FBX RotationOrder 0..6 */
  bool rotation_active;
  int inherit;
} rk__fbx_model_info;

/** Index (RK__FBX_P_*) of the chain property a property name names, or -1. */
int rk__fbx_chain_index(const rk__fbx_prop *name);
/** True for the rotation properties of the chain (pre-, post- and Lcl Rotation). */
bool rk__fbx_chain_is_rotation(int p);
/** Reads Model `model`'s chain values from its properties (template defaults, then FBX's). */
void rk__fbx_model_read(const rk__fbx_doc *doc, int model, rk__fbx_model_info *mi);
/** Adds to notes (may be NULL) what the chain approximates for this Model: a spheric rotation
 * order, InheritType 2, pre/post-rotations ignored because RotationActive is off. */
void rk__fbx_model_notes(const rk__fbx_doc *doc, int model, const rk__fbx_model_info *mi,
                         GPtrArray *notes);
/** T * Roff * Rp * Rpre * R * Rpost^-1 * Rp^-1 * Soff * Sp * S * Sp^-1 from chain values (vals in
 * RK__FBX_P_* order); pre/post-rotations and the rotation order only with rotation_active. */
rk_mat4 rk__fbx_compose(const rk_vec3 *vals, int order, bool rotation_active);

G_END_DECLS

#endif
