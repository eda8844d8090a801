/* The local transform of an FBX Model with the full FBX chain (fbx_transform.h; FBX SDK
 * documentation, "Computing transformation matrix"):
 *
 *   L = T * Roff * Rp * Rpre * R * Rpost^-1 * Rp^-1 * Soff * Sp * S * Sp^-1
 *
 * T, Roff, Rp, Soff, Sp are translations ("Lcl Translation", RotationOffset, RotationPivot,
 * ScalingOffset, ScalingPivot), S the scale ("Lcl Scaling"), R the rotation "Lcl Rotation" in
 * degrees composed in the Model's RotationOrder (eEulerXYZ rotates about X first: R = Rz Ry Rx),
 * Rpre / Rpost the PreRotation / PostRotation, always in XYZ order (Maya's joint orient and
 * rotate axis, which they carry, are XYZ whatever the rotate order; Assimp reads them so too).
 * As in the FBX SDK and Blender, pre/post-rotations and the rotation order only apply when the
 * Model's RotationActive is set; Assimp 5.2.5 ignores RotationActive.
 *
 * Unset properties take the Definitions' PropertyTemplate "FbxNode" values, then FBX's defaults
 * (zero, scale one). */
#include "fbx_transform.h"

#include <string.h>

static const char *const chain_props[RK__FBX_P_COUNT] = {
    "Lcl Translation", "RotationOffset", "RotationPivot", "PreRotation", "Lcl Rotation",
    "PostRotation",    "ScalingOffset",  "ScalingPivot",  "Lcl Scaling"};

int rk__fbx_chain_index(const rk__fbx_prop *name) {
  int p = -1;
  for (int k = 0; k < RK__FBX_P_COUNT; k++)
    if (rk__fbx_prop_is(name, chain_props[k]))
      p = k;
  return p;
}

bool rk__fbx_chain_is_rotation(int p) {
  return p == RK__FBX_P_PRE || p == RK__FBX_P_R || p == RK__FBX_P_POST;
}

static rk_vec3 p_vec3(const rk__fbx_node *p, rk_vec3 fallback) {
  double v[3];
  for (int k = 0; k < 3; k++)
    if (!rk__fbx_prop_number(rk__fbx_node_prop(p, 4 + (size_t)k), &v[k]) || !isfinite(v[k]))
      return fallback;
  return rk_vec3_make(v[0], v[1], v[2]);
}

static double p_number(const rk__fbx_node *p, double fallback) {
  double v;
  return rk__fbx_prop_number(rk__fbx_node_prop(p, 4), &v) && isfinite(v) ? v : fallback;
}

void rk__fbx_model_read(const rk__fbx_doc *doc, int model, rk__fbx_model_info *mi) {
  const rk__fbx_node *obj = rk__fbx_model_object(doc, model)->node;
  for (int p = 0; p < RK__FBX_P_COUNT; p++) {
    const rk_vec3 def = p == RK__FBX_P_S ? rk_vec3_make(1, 1, 1) : rk_vec3_make(0, 0, 0);
    mi->vals[p] = p_vec3(rk__fbx_object_p(obj, doc->model_template, chain_props[p]), def);
  }
  mi->order = (int)p_number(rk__fbx_object_p(obj, doc->model_template, "RotationOrder"), 0);
  if (mi->order < 0 || mi->order > 6)
    mi->order = 0;
  mi->rotation_active =
      p_number(rk__fbx_object_p(obj, doc->model_template, "RotationActive"), 0) != 0;
  mi->inherit = (int)p_number(rk__fbx_object_p(obj, doc->model_template, "InheritType"), 0);
}

/* Rotation of FBX Euler angles (degrees) in FBX order 0..5 (eEulerXYZ .. eEulerZYX; 6, spheric,
 * is read as XYZ). FBX's eEulerABC rotates about A first, so it is R = R_C R_B R_A: rigkit's
 * order CBA with the angles reversed. */
static rk_mat3 fbx_euler(int order, rk_vec3 deg) {
  static const char *const names[6] = {"XYZ", "XZY", "YZX", "YXZ", "ZXY", "ZYX"};
  const char *n = names[order >= 0 && order < 6 ? order : 0];
  const double v[3] = {deg.x * RK_DEG, deg.y * RK_DEG, deg.z * RK_DEG};
  char rev[4] = {n[2], n[1], n[0], '\0'};
  rk_euler_order o = RK_EULER_ZYX;
  rk_euler_order_parse(rev, &o);
  const double a[3] = {v[n[2] - 'X'], v[n[1] - 'X'], v[n[0] - 'X']};
  return rk_euler_to_mat3(o, a);
}

static rk_mat4 translation(rk_vec3 v) { return rk_mat4_translation(v); }

rk_mat4 rk__fbx_compose(const rk_vec3 *vals, int order, bool rotation_active) {
  const rk_mat3 id3 = rk_mat3_identity();
  const rk_mat3 pre = rotation_active ? fbx_euler(0, vals[RK__FBX_P_PRE]) : id3;
  const rk_mat3 post = rotation_active ? fbx_euler(0, vals[RK__FBX_P_POST]) : id3;
  const rk_mat3 r = fbx_euler(rotation_active ? order : 0, vals[RK__FBX_P_R]);
  const rk_mat3 post_inv = rk_mat3_transpose(&post);
  rk_mat3 rot = rk_mat3_mul(&pre, &r);
  rot = rk_mat3_mul(&rot, &post_inv);
  const rk_vec3 zero = rk_vec3_make(0, 0, 0);
  const rk_mat4 rot4 = rk_mat4_from_rt(&rot, zero);
  rk_mat4 s = rk_mat4_identity();
  s.m[0] = vals[RK__FBX_P_S].x, s.m[5] = vals[RK__FBX_P_S].y, s.m[10] = vals[RK__FBX_P_S].z;
  const rk_mat4 parts[] = {
      translation(vals[RK__FBX_P_T]),
      translation(vals[RK__FBX_P_ROFF]),
      translation(vals[RK__FBX_P_RP]),
      rot4,
      translation(rk_vec3_scale(vals[RK__FBX_P_RP], -1)),
      translation(vals[RK__FBX_P_SOFF]),
      translation(vals[RK__FBX_P_SP]),
      s,
      translation(rk_vec3_scale(vals[RK__FBX_P_SP], -1)),
  };
  rk_mat4 m = rk_mat4_identity();
  for (size_t i = 0; i < G_N_ELEMENTS(parts); i++)
    m = rk_mat4_mul(&m, &parts[i]);
  return m;
}

void rk__fbx_model_notes(const rk__fbx_doc *doc, int model, const rk__fbx_model_info *mi,
                         GPtrArray *notes) {
  if (!notes)
    return;
  const char *name = rk__fbx_model_object(doc, model)->name;
  if (mi->rotation_active && mi->order == 6)
    g_ptr_array_add(notes,
                    g_strdup_printf("FBX Model '%s': spheric rotation order read as XYZ", name));
  if (mi->inherit == 2)
    g_ptr_array_add(notes, g_strdup_printf("FBX Model '%s': InheritType 2 (parent scale not "
                                           "inherited) read as a plain parent transform",
                                           name));
  if (!mi->rotation_active &&
      (rk_vec3_norm(mi->vals[RK__FBX_P_PRE]) > 0 || rk_vec3_norm(mi->vals[RK__FBX_P_POST]) > 0))
    g_ptr_array_add(notes, g_strdup_printf("FBX Model '%s': PreRotation/PostRotation ignored "
                                           "because RotationActive is off (as the FBX SDK does)",
                                           name));
}

rk_mat4 rk__fbx_doc_model_rest(const rk__fbx_doc *doc, int model, GPtrArray *notes) {
  rk__fbx_model_info mi;
  rk__fbx_model_read(doc, model, &mi);
  rk__fbx_model_notes(doc, model, &mi, notes);
  return rk__fbx_compose(mi.vals, mi.order, mi.rotation_active);
}
