/* The document-level sections of an FBX file: header, settings, documents, definitions,
 * connections and takes (see fbx_sections.h). */
#include "fbx_sections.h"

#include "fbx_props.h"

#include <rigkit/version.h>

/* FileId and CreationTime: the pair Blender and Assimp write (the FBX SDK accepts it with the
 * footer of fbx_encode.c), so no file carries the time it was written. */
static const uint8_t FILE_ID[16] = {0x28, 0xb3, 0x2a, 0xeb, 0xb6, 0x24, 0xcc, 0xc2,
                                    0xbf, 0xc8, 0xb0, 0x2a, 0xa9, 0x2b, 0xfc, 0xf1};
static const char CREATION_TIME[] = "1970-01-01 10:00:00:000";

typedef struct named_i32 {
  const char *name;
  int32_t v;
} named_i32;

void rk__fbx_write_header(rk__fbx_ctx *c) {
  rk__fbx_enc *e = c->e;
  rk__fbx_enc_begin(e, "FBXHeaderExtension");
  rk__fbx_node_i32(e, "FBXHeaderVersion", 1003);
  rk__fbx_node_i32(e, "FBXVersion", (int32_t)RK__FBX_VERSION);
  rk__fbx_node_i32(e, "EncryptionType", 0);
  static const named_i32 stamp[] = {{"Version", 1000}, {"Year", 1970},    {"Month", 1},
                                    {"Day", 1},        {"Hour", 10},      {"Minute", 0},
                                    {"Second", 0},     {"Millisecond", 0}};
  rk__fbx_enc_begin(e, "CreationTimeStamp"); /* the fixed CreationTime below */
  for (size_t i = 0; i < G_N_ELEMENTS(stamp); i++)
    rk__fbx_node_i32(e, stamp[i].name, stamp[i].v);
  rk__fbx_enc_end(e);
  rk__fbx_node_str(e, "Creator", "rigkit " RK_VERSION_STRING);
  rk__fbx_enc_begin(e, "SceneInfo");
  rk__fbx_enc_object_name(e, "GlobalInfo", "SceneInfo");
  rk__fbx_enc_str(e, "UserData");
  rk__fbx_node_str(e, "Type", "UserData");
  rk__fbx_node_i32(e, "Version", 100);
  rk__fbx_enc_begin(e, "MetaData");
  rk__fbx_node_i32(e, "Version", 100);
  static const char *const meta[] = {"Title",    "Subject",  "Author",
                                     "Keywords", "Revision", "Comment"};
  for (size_t i = 0; i < G_N_ELEMENTS(meta); i++)
    rk__fbx_node_str(e, meta[i], "");
  rk__fbx_enc_end(e);
  rk__fbx_enc_begin(e, "Properties70");
  rk__fbx_p_kstring(e, "Original|ApplicationVendor", "rigkit");
  rk__fbx_p_kstring(e, "Original|ApplicationName", "rigkit");
  rk__fbx_p_kstring(e, "Original|ApplicationVersion", RK_VERSION_STRING);
  rk__fbx_p_kstring(e, "LastSaved|ApplicationVendor", "rigkit");
  rk__fbx_p_kstring(e, "LastSaved|ApplicationName", "rigkit");
  rk__fbx_p_kstring(e, "LastSaved|ApplicationVersion", RK_VERSION_STRING);
  rk__fbx_enc_end(e);
  rk__fbx_enc_end(e); /* SceneInfo */
  rk__fbx_enc_end(e); /* FBXHeaderExtension */
  rk__fbx_enc_begin(e, "FileId");
  rk__fbx_enc_raw(e, FILE_ID, sizeof FILE_ID);
  rk__fbx_enc_end(e);
  rk__fbx_node_str(e, "CreationTime", CREATION_TIME);
  rk__fbx_node_str(e, "Creator", "rigkit " RK_VERSION_STRING);
}

/* FBX TimeMode of a rate: the standard modes Assimp 5.2.5 and Blender both know, else eCustom. */
static int time_mode(double fps) {
  static const struct {
    double fps;
    int mode;
  } modes[] = {{120, 1}, {100, 2}, {60, 3}, {50, 4}, {48, 5}, {30, 6}, {25, 10}, {24, 11}};
  for (size_t i = 0; i < G_N_ELEMENTS(modes); i++)
    if (fabs(fps - modes[i].fps) < 1e-9)
      return modes[i].mode;
  return 14;
}

void rk__fbx_write_global_settings(rk__fbx_ctx *c) {
  /* Y up, Z front, X right, all positive: rigkit's own axes, written unchanged. */
  static const named_i32 axes[] = {{"UpAxis", RK__FBX_UP_AXIS},
                                   {"UpAxisSign", 1},
                                   {"FrontAxis", 2},
                                   {"FrontAxisSign", 1},
                                   {"CoordAxis", 0},
                                   {"CoordAxisSign", 1},
                                   {"OriginalUpAxis", RK__FBX_UP_AXIS},
                                   {"OriginalUpAxisSign", 1}};
  rk__fbx_enc *e = c->e;
  double fps = 30;
  int64_t stop = 0;
  for (guint i = 0; i < c->clips->len; i++) {
    const rk__fbx_clip *co = &g_array_index(c->clips, rk__fbx_clip, i);
    if (i == 0)
      fps = co->fps;
    stop = MAX(stop, co->stop);
  }
  rk__fbx_enc_begin(e, "GlobalSettings");
  rk__fbx_node_i32(e, "Version", 1000);
  rk__fbx_enc_begin(e, "Properties70");
  for (size_t i = 0; i < G_N_ELEMENTS(axes); i++)
    rk__fbx_p_int(e, axes[i].name, axes[i].v);
  rk__fbx_p_double(e, "UnitScaleFactor", c->usf);
  rk__fbx_p_double(e, "OriginalUnitScaleFactor", c->usf);
  rk__fbx_p_vec(e, "AmbientColor", "ColorRGB", "Color", "", rk_vec3_make(0, 0, 0));
  rk__fbx_p_kstring(e, "DefaultCamera", "Producer Perspective");
  rk__fbx_p_enum(e, "TimeMode", time_mode(fps));
  rk__fbx_p_enum(e, "TimeProtocol", 2);
  rk__fbx_p_enum(e, "SnapOnFrameMode", 0);
  rk__fbx_p_ktime(e, "TimeSpanStart", 0);
  rk__fbx_p_ktime(e, "TimeSpanStop", stop);
  rk__fbx_p_double(e, "CustomFrameRate", fps);
  rk__fbx_p_none(e, "TimeMarker", "Compound");
  rk__fbx_p_int(e, "CurrentTimeMarker", -1);
  rk__fbx_enc_end(e);
  rk__fbx_enc_end(e);
}

void rk__fbx_write_documents(rk__fbx_ctx *c) {
  rk__fbx_enc *e = c->e;
  rk__fbx_enc_begin(e, "Documents");
  rk__fbx_node_i32(e, "Count", 1);
  rk__fbx_enc_begin(e, "Document");
  rk__fbx_enc_i64(e, c->doc_id);
  rk__fbx_enc_str(e, "Scene");
  rk__fbx_enc_str(e, "Scene");
  rk__fbx_enc_begin(e, "Properties70");
  rk__fbx_p_none(e, "SourceObject", "object");
  rk__fbx_p_kstring(e, "ActiveAnimStackName",
                    c->clips->len ? rk_clip_name(g_array_index(c->clips, rk__fbx_clip, 0).clip)
                                  : "");
  rk__fbx_enc_end(e);
  rk__fbx_node_i64(e, "RootNode", 0);
  rk__fbx_enc_end(e);
  rk__fbx_enc_end(e);
  rk__fbx_enc_begin(e, "References");
  rk__fbx_enc_end(e);
}

/* ObjectType entry of Definitions; templates are opened by the caller when they have one. */
static void def_begin(rk__fbx_enc *e, const char *type, size_t count) {
  rk__fbx_enc_begin(e, "ObjectType");
  rk__fbx_enc_str(e, type);
  rk__fbx_node_i32(e, "Count", (int32_t)MIN(count, (size_t)G_MAXINT32));
}

static void template_begin(rk__fbx_enc *e, const char *name) {
  rk__fbx_enc_begin(e, "PropertyTemplate");
  rk__fbx_enc_str(e, name);
  rk__fbx_enc_begin(e, "Properties70");
}

static void template_end(rk__fbx_enc *e) {
  rk__fbx_enc_end(e); /* Properties70 */
  rk__fbx_enc_end(e); /* PropertyTemplate */
}

/* Model and NodeAttribute definitions with their templates (the defaults readers assume). */
static void def_nodes(rk__fbx_enc *e, size_t models, size_t joints) {
  const rk_vec3 zero = rk_vec3_make(0, 0, 0), one = rk_vec3_make(1, 1, 1);
  def_begin(e, "Model", models);
  template_begin(e, "FbxNode");
  rk__fbx_p_enum(e, "QuaternionInterpolate", 0);
  rk__fbx_p_vec(e, "RotationOffset", "Vector3D", "Vector", "", zero);
  rk__fbx_p_vec(e, "RotationPivot", "Vector3D", "Vector", "", zero);
  rk__fbx_p_vec(e, "ScalingOffset", "Vector3D", "Vector", "", zero);
  rk__fbx_p_vec(e, "ScalingPivot", "Vector3D", "Vector", "", zero);
  rk__fbx_p_enum(e, "RotationOrder", 0);
  rk__fbx_p_vec(e, "PreRotation", "Vector3D", "Vector", "", zero);
  rk__fbx_p_vec(e, "PostRotation", "Vector3D", "Vector", "", zero);
  rk__fbx_p_bool(e, "RotationActive", false);
  rk__fbx_p_enum(e, "InheritType", 0);
  rk__fbx_p_int(e, "DefaultAttributeIndex", -1);
  rk__fbx_p_lcl(e, "Lcl Translation", zero);
  rk__fbx_p_lcl(e, "Lcl Rotation", zero);
  rk__fbx_p_lcl(e, "Lcl Scaling", one);
  rk__fbx_p_begin(e, "Visibility", "Visibility", "", "A");
  rk__fbx_enc_f64(e, 1);
  rk__fbx_enc_end(e);
  rk__fbx_p_vec(e, "GeometricTranslation", "Vector3D", "Vector", "", zero);
  rk__fbx_p_vec(e, "GeometricRotation", "Vector3D", "Vector", "", zero);
  rk__fbx_p_vec(e, "GeometricScaling", "Vector3D", "Vector", "", one);
  template_end(e);
  rk__fbx_enc_end(e);
  def_begin(e, "NodeAttribute", joints);
  template_begin(e, "FbxSkeleton");
  rk__fbx_p_vec(e, "Color", "ColorRGB", "Color", "", rk_vec3_make(0.8, 0.8, 0.8));
  rk__fbx_p_double(e, "Size", 100);
  rk__fbx_p_begin(e, "LimbLength", "double", "Number", "H");
  rk__fbx_enc_f64(e, 1);
  rk__fbx_enc_end(e);
  template_end(e);
  rk__fbx_enc_end(e);
}

/* Geometry and Material definitions with their templates. */
static void def_meshes(rk__fbx_enc *e, size_t geometries) {
  const rk_vec3 zero = rk_vec3_make(0, 0, 0);
  def_begin(e, "Geometry", geometries);
  template_begin(e, "FbxMesh");
  rk__fbx_p_vec(e, "Color", "ColorRGB", "Color", "", rk_vec3_make(0.8, 0.8, 0.8));
  rk__fbx_p_bool(e, "Primary Visibility", true);
  rk__fbx_p_bool(e, "Casts Shadows", true);
  rk__fbx_p_bool(e, "Receive Shadows", true);
  template_end(e);
  rk__fbx_enc_end(e);
  def_begin(e, "Material", geometries);
  template_begin(e, "FbxSurfaceLambert");
  rk__fbx_p_kstring(e, "ShadingModel", "Lambert");
  rk__fbx_p_vec(e, "EmissiveColor", "Color", "", "A", zero);
  rk__fbx_p_number(e, "EmissiveFactor", "A", 1);
  rk__fbx_p_vec(e, "AmbientColor", "Color", "", "A", rk_vec3_make(0.2, 0.2, 0.2));
  rk__fbx_p_number(e, "AmbientFactor", "A", 1);
  rk__fbx_p_vec(e, "DiffuseColor", "Color", "", "A", rk_vec3_make(0.8, 0.8, 0.8));
  rk__fbx_p_number(e, "DiffuseFactor", "A", 1);
  rk__fbx_p_vec(e, "TransparentColor", "Color", "", "A", zero);
  rk__fbx_p_number(e, "TransparencyFactor", "A", 0);
  template_end(e);
  rk__fbx_enc_end(e);
}

/* AnimationStack, AnimationLayer, AnimationCurveNode and AnimationCurve definitions. */
static void def_animation(rk__fbx_enc *e, size_t stacks, size_t curve_nodes) {
  if (stacks) {
    def_begin(e, "AnimationStack", stacks);
    template_begin(e, "FbxAnimStack");
    rk__fbx_p_kstring(e, "Description", "");
    rk__fbx_p_ktime(e, "LocalStart", 0);
    rk__fbx_p_ktime(e, "LocalStop", 0);
    rk__fbx_p_ktime(e, "ReferenceStart", 0);
    rk__fbx_p_ktime(e, "ReferenceStop", 0);
    template_end(e);
    rk__fbx_enc_end(e);
    def_begin(e, "AnimationLayer", stacks);
    template_begin(e, "FbxAnimLayer");
    rk__fbx_p_number(e, "Weight", "A", 100);
    rk__fbx_p_bool(e, "Mute", false);
    rk__fbx_p_bool(e, "Solo", false);
    rk__fbx_p_bool(e, "Lock", false);
    rk__fbx_p_vec(e, "Color", "ColorRGB", "Color", "", rk_vec3_make(0.8, 0.8, 0.8));
    rk__fbx_p_enum(e, "BlendMode", 0);
    rk__fbx_p_enum(e, "RotationAccumulationMode", 0);
    rk__fbx_p_enum(e, "ScaleAccumulationMode", 0);
    template_end(e);
    rk__fbx_enc_end(e);
  }
  if (curve_nodes) {
    def_begin(e, "AnimationCurveNode", curve_nodes);
    template_begin(e, "FbxAnimCurveNode");
    rk__fbx_p_none(e, "d", "Compound");
    template_end(e);
    rk__fbx_enc_end(e);
    def_begin(e, "AnimationCurve", 3 * curve_nodes);
    rk__fbx_enc_end(e);
  }
}

void rk__fbx_write_definitions(rk__fbx_ctx *c) {
  rk__fbx_enc *e = c->e;
  size_t geometries = c->meshes->len, deformers = 0, curve_nodes = 0;
  for (guint i = 0; i < c->meshes->len; i++) {
    const rk__fbx_mesh *m = &g_array_index(c->meshes, rk__fbx_mesh, i);
    if (m->cl_joint)
      deformers += 1 + m->cl_joint->len;
  }
  size_t textures = 0;
  for (guint i = 0; i < c->meshes->len; i++)
    textures += g_array_index(c->meshes, rk__fbx_mesh, i).textured;
  for (guint i = 0; i < c->clips->len; i++)
    curve_nodes += g_array_index(c->clips, rk__fbx_clip, i).chans->len;
  const size_t models = c->n + c->meshes->len, stacks = c->clips->len;
  const size_t total = 1 + models + c->n + 2 * geometries + deformers + 1 + 2 * stacks +
                       4 * curve_nodes + 2 * textures;
  rk__fbx_enc_begin(e, "Definitions");
  rk__fbx_node_i32(e, "Version", 100);
  rk__fbx_node_i32(e, "Count", (int32_t)MIN(total, (size_t)G_MAXINT32));
  def_begin(e, "GlobalSettings", 1);
  rk__fbx_enc_end(e);
  def_nodes(e, models, c->n);
  if (geometries)
    def_meshes(e, geometries);
  if (deformers) {
    def_begin(e, "Deformer", deformers);
    rk__fbx_enc_end(e);
  }
  def_begin(e, "Pose", 1);
  rk__fbx_enc_end(e);
  def_animation(e, stacks, curve_nodes);
  if (textures) {
    def_begin(e, "Texture", textures);
    rk__fbx_enc_end(e);
    def_begin(e, "Video", textures);
    rk__fbx_enc_end(e);
  }
  rk__fbx_enc_end(e);
}

void rk__fbx_write_connections(rk__fbx_ctx *c) {
  rk__fbx_enc *e = c->e;
  rk__fbx_enc_begin(e, "Connections");
  for (guint i = 0; i < c->conns->len; i++) {
    const rk__fbx_conn *x = &g_array_index(c->conns, rk__fbx_conn, i);
    rk__fbx_enc_begin(e, "C");
    rk__fbx_enc_str(e, x->prop ? "OP" : "OO");
    rk__fbx_enc_i64(e, x->src);
    rk__fbx_enc_i64(e, x->dst);
    if (x->prop)
      rk__fbx_enc_str(e, x->prop);
    rk__fbx_enc_end(e);
  }
  rk__fbx_enc_end(e);
}

void rk__fbx_write_takes(rk__fbx_ctx *c) {
  rk__fbx_enc *e = c->e;
  rk__fbx_enc_begin(e, "Takes");
  rk__fbx_node_str(e, "Current",
                   c->clips->len ? rk_clip_name(g_array_index(c->clips, rk__fbx_clip, 0).clip)
                                 : "");
  for (guint i = 0; i < c->clips->len; i++) {
    const rk__fbx_clip *co = &g_array_index(c->clips, rk__fbx_clip, i);
    rk__fbx_enc_begin(e, "Take");
    rk__fbx_enc_str(e, rk_clip_name(co->clip));
    g_autofree char *file = g_strdup_printf("%s.tak", rk_clip_name(co->clip));
    rk__fbx_node_str(e, "FileName", file);
    rk__fbx_enc_begin(e, "LocalTime");
    rk__fbx_enc_i64(e, 0);
    rk__fbx_enc_i64(e, co->stop);
    rk__fbx_enc_end(e);
    rk__fbx_enc_begin(e, "ReferenceTime");
    rk__fbx_enc_i64(e, 0);
    rk__fbx_enc_i64(e, co->stop);
    rk__fbx_enc_end(e);
    rk__fbx_enc_end(e);
  }
  rk__fbx_enc_end(e);
}
