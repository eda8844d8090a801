/* Records of the FBX 7 object model on the record encoder (fbx_props.c): one-value records,
 * Properties70 entries ("P" records: name, type, label, flags, values), matrices, per-vertex
 * geometry layers, and the Model record every joint and mesh is written as.
 *
 * Index: rk__fbx_node_i32/i64/f64/str/f64v/mat4, rk__fbx_vertex_layer,
 *        rk__fbx_p_begin/int/enum/bool/double/number/ktime/kstring/vec/none/lcl,
 *        rk__fbx_model_begin, rk__fbx_model_end
 */
#ifndef RK_FBX_PROPS_H
#define RK_FBX_PROPS_H

#include "fbx_encode.h"

#include <rigkit/math.h>

/* A record `name` holding one value, or one array. */
void rk__fbx_node_i32(rk__fbx_enc *e, const char *name, int32_t v);
void rk__fbx_node_i64(rk__fbx_enc *e, const char *name, int64_t v);
void rk__fbx_node_f64(rk__fbx_enc *e, const char *name, double v);
void rk__fbx_node_str(rk__fbx_enc *e, const char *name, const char *v);
void rk__fbx_node_f64v(rk__fbx_enc *e, const char *name, const double *v, size_t n);
/** A record holding a matrix as 16 doubles (FBX's layout is rigkit's column-major one). */
void rk__fbx_node_mat4(rk__fbx_enc *e, const char *name, const rk_mat4 *m);
/** A per-vertex, directly indexed geometry layer element (layer 0) holding n doubles. */
void rk__fbx_vertex_layer(rk__fbx_enc *e, const char *element, const char *layer_name,
                          const char *array, const double *v, size_t n);

/** Opens a Properties70 entry: P: name, type, label, flags (the caller adds the values and closes
 * it with rk__fbx_enc_end). */
void rk__fbx_p_begin(rk__fbx_enc *e, const char *name, const char *type, const char *label,
                     const char *flags);
/* Complete Properties70 entries of the usual types. */
void rk__fbx_p_int(rk__fbx_enc *e, const char *name, int32_t v);
void rk__fbx_p_enum(rk__fbx_enc *e, const char *name, int32_t v);
void rk__fbx_p_bool(rk__fbx_enc *e, const char *name, bool v);
void rk__fbx_p_double(rk__fbx_enc *e, const char *name, double v);
void rk__fbx_p_number(rk__fbx_enc *e, const char *name, const char *flags, double v);
void rk__fbx_p_ktime(rk__fbx_enc *e, const char *name, int64_t v);
void rk__fbx_p_kstring(rk__fbx_enc *e, const char *name, const char *v);
void rk__fbx_p_vec(rk__fbx_enc *e, const char *name, const char *type, const char *label,
                   const char *flags, rk_vec3 v);
/** An entry without values (a Compound or object slot). */
void rk__fbx_p_none(rk__fbx_enc *e, const char *name, const char *type);
/** An animatable local transform entry ("Lcl Translation", "Lcl Rotation", "Lcl Scaling"). */
void rk__fbx_p_lcl(rk__fbx_enc *e, const char *name, rk_vec3 v);

/** Opens Model `id` called name of kind "LimbNode" or "Mesh" and its Properties70 with the
 * properties every rigkit Model has (RotationActive 1, InheritType 1); the caller adds its own. */
void rk__fbx_model_begin(rk__fbx_enc *e, int64_t id, const char *name, const char *kind);
/** Closes the Properties70 and the Model opened by rk__fbx_model_begin. */
void rk__fbx_model_end(rk__fbx_enc *e);

#endif
