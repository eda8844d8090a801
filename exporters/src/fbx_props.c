/* Records of the FBX 7 object model: one-value records, Properties70 entries, matrices, geometry
 * layers and the Model record (see fbx_props.h). Values are written as given; only matrices and
 * vectors drop negative zeros, so equal poses give equal bytes. */
#include "fbx_props.h"

#include "export_shared.h"

void rk__fbx_node_i32(rk__fbx_enc *e, const char *name, int32_t v) {
  rk__fbx_enc_begin(e, name);
  rk__fbx_enc_i32(e, v);
  rk__fbx_enc_end(e);
}

void rk__fbx_node_i64(rk__fbx_enc *e, const char *name, int64_t v) {
  rk__fbx_enc_begin(e, name);
  rk__fbx_enc_i64(e, v);
  rk__fbx_enc_end(e);
}

void rk__fbx_node_f64(rk__fbx_enc *e, const char *name, double v) {
  rk__fbx_enc_begin(e, name);
  rk__fbx_enc_f64(e, v);
  rk__fbx_enc_end(e);
}

void rk__fbx_node_str(rk__fbx_enc *e, const char *name, const char *v) {
  rk__fbx_enc_begin(e, name);
  rk__fbx_enc_str(e, v);
  rk__fbx_enc_end(e);
}

void rk__fbx_node_f64v(rk__fbx_enc *e, const char *name, const double *v, size_t n) {
  rk__fbx_enc_begin(e, name);
  rk__fbx_enc_f64v(e, v, n);
  rk__fbx_enc_end(e);
}

void rk__fbx_vertex_layer(rk__fbx_enc *e, const char *element, const char *layer_name,
                          const char *array, const double *v, size_t n) {
  rk__fbx_enc_begin(e, element);
  rk__fbx_enc_i32(e, 0);
  rk__fbx_node_i32(e, "Version", 101);
  rk__fbx_node_str(e, "Name", layer_name);
  rk__fbx_node_str(e, "MappingInformationType", "ByVertice");
  rk__fbx_node_str(e, "ReferenceInformationType", "Direct");
  rk__fbx_node_f64v(e, array, v, n);
  rk__fbx_enc_end(e);
}

void rk__fbx_node_mat4(rk__fbx_enc *e, const char *name, const rk_mat4 *m) {
  double v[16];
  for (int i = 0; i < 16; i++) /* FBX's layout is rigkit's: column-major, translation at 12..14 */
    v[i] = rk__export_clean_zero(m->m[i]);
  rk__fbx_node_f64v(e, name, v, 16);
}

void rk__fbx_p_begin(rk__fbx_enc *e, const char *name, const char *type, const char *label,
                     const char *flags) {
  rk__fbx_enc_begin(e, "P");
  rk__fbx_enc_str(e, name);
  rk__fbx_enc_str(e, type);
  rk__fbx_enc_str(e, label);
  rk__fbx_enc_str(e, flags);
}

/* An entry holding one int32, or one double. */
static void p_i32(rk__fbx_enc *e, const char *name, const char *type, const char *label,
                  int32_t v) {
  rk__fbx_p_begin(e, name, type, label, "");
  rk__fbx_enc_i32(e, v);
  rk__fbx_enc_end(e);
}

static void p_f64(rk__fbx_enc *e, const char *name, const char *type, const char *label,
                  const char *flags, double v) {
  rk__fbx_p_begin(e, name, type, label, flags);
  rk__fbx_enc_f64(e, v);
  rk__fbx_enc_end(e);
}

void rk__fbx_p_int(rk__fbx_enc *e, const char *name, int32_t v) {
  p_i32(e, name, "int", "Integer", v);
}

void rk__fbx_p_enum(rk__fbx_enc *e, const char *name, int32_t v) { p_i32(e, name, "enum", "", v); }

void rk__fbx_p_bool(rk__fbx_enc *e, const char *name, bool v) {
  p_i32(e, name, "bool", "", v ? 1 : 0);
}

void rk__fbx_p_double(rk__fbx_enc *e, const char *name, double v) {
  p_f64(e, name, "double", "Number", "", v);
}

void rk__fbx_p_number(rk__fbx_enc *e, const char *name, const char *flags, double v) {
  p_f64(e, name, "Number", "", flags, v);
}

void rk__fbx_p_ktime(rk__fbx_enc *e, const char *name, int64_t v) {
  rk__fbx_p_begin(e, name, "KTime", "Time", "");
  rk__fbx_enc_i64(e, v);
  rk__fbx_enc_end(e);
}

void rk__fbx_p_kstring(rk__fbx_enc *e, const char *name, const char *v) {
  rk__fbx_p_begin(e, name, "KString", "", "");
  rk__fbx_enc_str(e, v);
  rk__fbx_enc_end(e);
}

void rk__fbx_p_vec(rk__fbx_enc *e, const char *name, const char *type, const char *label,
                   const char *flags, rk_vec3 v) {
  rk__fbx_p_begin(e, name, type, label, flags);
  rk__fbx_enc_f64(e, rk__export_clean_zero(v.x));
  rk__fbx_enc_f64(e, rk__export_clean_zero(v.y));
  rk__fbx_enc_f64(e, rk__export_clean_zero(v.z));
  rk__fbx_enc_end(e);
}

void rk__fbx_p_none(rk__fbx_enc *e, const char *name, const char *type) {
  rk__fbx_p_begin(e, name, type, "", "");
  rk__fbx_enc_end(e);
}

void rk__fbx_p_lcl(rk__fbx_enc *e, const char *name, rk_vec3 v) {
  rk__fbx_p_vec(e, name, name, "", "A", v);
}

void rk__fbx_model_begin(rk__fbx_enc *e, int64_t id, const char *name, const char *kind) {
  rk__fbx_enc_begin(e, "Model");
  rk__fbx_enc_i64(e, id);
  rk__fbx_enc_object_name(e, name, "Model");
  rk__fbx_enc_str(e, kind);
  rk__fbx_node_i32(e, "Version", 232);
  rk__fbx_enc_begin(e, "Properties70");
  rk__fbx_p_bool(e, "RotationActive", true);
  rk__fbx_p_enum(e, "InheritType", 1);
  rk__fbx_p_int(e, "DefaultAttributeIndex", 0);
}

void rk__fbx_model_end(rk__fbx_enc *e) {
  rk__fbx_enc_end(e); /* Properties70 */
  rk__fbx_node_i32(e, "MultiLayer", 0);
  rk__fbx_node_i32(e, "MultiTake", 0);
  rk__fbx_enc_begin(e, "Shading");
  rk__fbx_enc_bool(e, true);
  rk__fbx_enc_end(e);
  rk__fbx_node_str(e, "Culling", "CullingOff");
  rk__fbx_enc_end(e); /* Model */
}
