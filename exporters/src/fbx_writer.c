/* FBX writer: binary FBX 7.4 (version 7400) of a skeleton, its clips and its meshes.
 *
 * What is written (FBX 7 object model as the FBX SDK, Blender and Assimp read it):
 * - GlobalSettings: Y up (UpAxis 1, FrontAxis 2, CoordAxis 0, all signs +1: rigkit's canonical
 *   right-handed Y-up frame), UnitScaleFactor 1 (centimetres, the default) or 100 (metres),
 *   TimeMode of the first clip's rate (a standard mode when the rate has one, else eCustom with
 *   CustomFrameRate), TimeSpan of the longest clip.
 * - one Model "LimbNode" + NodeAttribute "LimbNode" per joint, in skeleton order, with the rest
 *   pose as Lcl Translation / Lcl Rotation / Lcl Scaling, RotationOrder, RotationActive 1 and
 *   InheritType 1 (eInheritRSrs: the plain product of parent and local, as rigkit's FK);
 * - a BindPose with every joint's bind matrix (the inverse of its inverse bind matrix when it
 *   skins a mesh of the file and the skeleton has one, else its rest world matrix) and every mesh;
 * - per clip an AnimationStack (LocalStart 0, LocalStop = duration) with one AnimationLayer, and
 *   per animated channel of a joint an AnimationCurveNode T, R or S with three AnimationCurves.
 *   The clip is baked at its frame rate (the options' fps, else the clip's, else the rate its
 *   keys sit on, else 30 fps): one key per frame, and one at each key of the clip that lies
 *   between frames; KeyTime in FBX ticks (46186158000 per second), linear interpolation
 *   (constant for STEP tracks). Rotations are Euler angles in degrees in the
 *   joint's rotation order, each key chosen nearest the previous one (rk_euler_from_quat_near) so
 *   curves never jump by more than 180 degrees;
 * - per mesh a Model "Mesh" (at the root, or under the joint a rigid mesh follows), a Geometry
 *   (Vertices, triangles in PolygonVertexIndex, normals and UVs by vertex), a Lambert Material
 *   with the base colour and opacity, and for skinned meshes a Deformer "Skin" with one
 *   SubDeformer "Cluster" per weighted joint: Indexes, Weights, TransformLink = the joint's bind
 *   matrix and Transform = its inverse (the mesh is at the origin).
 * Lengths are multiplied by 100 for centimetres. FileId and CreationTime hold fixed values (those
 * Blender and Assimp write; the FBX SDK accepts them with the footer in fbx_encode.c) and object
 * ids are counted from a constant: the same asset and options give the same bytes. */
#include "fbx_writer.h"

#include "atomic_file.h"
#include "export_shared.h"
#include "fbx_encode.h"

#include <float.h>
#include <rigkit/fk.h>
#include <rigkit/version.h>
#include <string.h>

#define FBX_VERSION 7400u
#define TICKS_PER_SECOND 46186158000.0
#define FIRST_ID 1000000LL

static const uint8_t FILE_ID[16] = {0x28, 0xb3, 0x2a, 0xeb, 0xb6, 0x24, 0xcc, 0xc2,
                                    0xbf, 0xc8, 0xb0, 0x2a, 0xa9, 0x2b, 0xfc, 0xf1};
static const char CREATION_TIME[] = "1970-01-01 10:00:00:000";
/* KeyAttrFlags (FbxAnimCurveDef): eInterpolationConstant, eInterpolationLinear. */
enum { KEY_CONSTANT = 0x00000002, KEY_LINEAR = 0x00000004 };

typedef struct conn {
  int64_t src, dst;
  const char *prop; /* static string for OP connections, NULL for OO */
} conn;

typedef struct mesh_out {
  const rk_mesh_data *d;
  char *model_name;
  int parent_joint; /* -1: scene root */
  size_t nv, ntri;
  double *vertices, *normals, *uv; /* file units; normals and uv may be NULL */
  int32_t *poly;
  GArray *cl_joint;  /* int: joints with weights, ascending */
  GPtrArray *cl_idx; /* GArray int32 per cluster */
  GPtrArray *cl_w;   /* GArray double per cluster */
  int64_t model_id, geom_id, mat_id, skin_id, cl_first_id;
} mesh_out;

typedef struct chan {
  int joint;
  rk_channel ch;
  bool step;
  float *v; /* 3 per frame */
  int64_t node_id, curve_id[3];
} chan;

typedef struct clip_out {
  const rk_clip *clip;
  double fps;
  size_t frames;
  int64_t *ticks;
  int64_t stop;
  GArray *chans; /* chan */
  int64_t stack_id, layer_id;
} clip_out;

typedef struct fbx_ctx {
  const rk_asset *asset;
  const rk_skeleton *s;
  const rk_export_options *opts;
  const char *path;
  GError **error;
  rk__fbx_enc *e;
  size_t n;
  double k;                     /* file units per metre */
  double usf;                   /* UnitScaleFactor: centimetres per file unit */
  const rk_euler_order *orders; /* per joint, rigkit convention */
  int64_t next_id;
  int64_t *model_id, *attr_id;
  char **names; /* Model names of the joints */
  GHashTable *used;
  GArray *conns;
  rk_mat4 *rest_world, *bind_world;
  GArray *meshes; /* mesh_out */
  GArray *clips;  /* clip_out */
  int64_t pose_id, doc_id;
} fbx_ctx;

/* ---- conventions ------------------------------------------------------------------------------
 */

/* FBX RotationOrder of a rigkit order: FBX eEulerABC rotates about A first (R = R_C R_B R_A), so
 * it is rigkit's order CBA. -1 for proper Euler orders, which FBX cannot hold. */
static int fbx_rotation_order(rk_euler_order o) {
  switch (o) {
  case RK_EULER_ZYX:
    return 0; /* eEulerXYZ */
  case RK_EULER_YZX:
    return 1; /* eEulerXZY */
  case RK_EULER_XZY:
    return 2; /* eEulerYZX */
  case RK_EULER_ZXY:
    return 3; /* eEulerYXZ */
  case RK_EULER_YXZ:
    return 4; /* eEulerZXY */
  case RK_EULER_XYZ:
    return 5; /* eEulerZYX */
  default:
    return -1;
  }
}

/* FBX's (x, y, z) rotation values, degrees, from rigkit angles in order o. */
static rk_vec3 fbx_angles(rk_euler_order o, const double a[3]) {
  int ax[3];
  rk_euler_order_axes(o, ax);
  double xyz[3] = {0, 0, 0};
  for (int i = 0; i < 3; i++)
    xyz[ax[i]] = a[i] / RK_DEG;
  return rk_vec3_make(xyz[0], xyz[1], xyz[2]);
}

static rk_mat4 scaled(rk_mat4 m, double k) {
  m.m[12] *= k, m.m[13] *= k, m.m[14] *= k;
  return m;
}

static int64_t new_id(fbx_ctx *c) { return c->next_id++; }

static void connect(fbx_ctx *c, int64_t src, int64_t dst, const char *prop) {
  conn x = {src, dst, prop};
  g_array_append_val(c->conns, x);
}

/* ---- records ----------------------------------------------------------------------------------
 */

static void node_i32(rk__fbx_enc *e, const char *name, int32_t v) {
  rk__fbx_enc_begin(e, name);
  rk__fbx_enc_i32(e, v);
  rk__fbx_enc_end(e);
}

static void node_i64(rk__fbx_enc *e, const char *name, int64_t v) {
  rk__fbx_enc_begin(e, name);
  rk__fbx_enc_i64(e, v);
  rk__fbx_enc_end(e);
}

static void node_f64(rk__fbx_enc *e, const char *name, double v) {
  rk__fbx_enc_begin(e, name);
  rk__fbx_enc_f64(e, v);
  rk__fbx_enc_end(e);
}

static void node_str(rk__fbx_enc *e, const char *name, const char *v) {
  rk__fbx_enc_begin(e, name);
  rk__fbx_enc_str(e, v);
  rk__fbx_enc_end(e);
}

static void node_f64v(rk__fbx_enc *e, const char *name, const double *v, size_t n) {
  rk__fbx_enc_begin(e, name);
  rk__fbx_enc_f64v(e, v, n);
  rk__fbx_enc_end(e);
}

/* A per-vertex, directly indexed geometry layer element (layer 0) holding n doubles. */
static void vertex_layer(rk__fbx_enc *e, const char *element, const char *layer_name,
                         const char *array, const double *v, size_t n) {
  rk__fbx_enc_begin(e, element);
  rk__fbx_enc_i32(e, 0);
  node_i32(e, "Version", 101);
  node_str(e, "Name", layer_name);
  node_str(e, "MappingInformationType", "ByVertice");
  node_str(e, "ReferenceInformationType", "Direct");
  node_f64v(e, array, v, n);
  rk__fbx_enc_end(e);
}

static void node_mat4(rk__fbx_enc *e, const char *name, const rk_mat4 *m) {
  double v[16];
  for (int i = 0; i < 16; i++)
    v[i] = rk__export_clean_zero(m->m[i]); /* FBX stores the same column-major layout (translation at 12..14) */
  node_f64v(e, name, v, 16);
}

/* A Properties70 entry: P: name, type, label, flags, values... (the caller adds the values). */
static void p_begin(rk__fbx_enc *e, const char *name, const char *type, const char *label,
                    const char *flags) {
  rk__fbx_enc_begin(e, "P");
  rk__fbx_enc_str(e, name);
  rk__fbx_enc_str(e, type);
  rk__fbx_enc_str(e, label);
  rk__fbx_enc_str(e, flags);
}

static void p_int(rk__fbx_enc *e, const char *name, int32_t v) {
  p_begin(e, name, "int", "Integer", "");
  rk__fbx_enc_i32(e, v);
  rk__fbx_enc_end(e);
}

static void p_enum(rk__fbx_enc *e, const char *name, int32_t v) {
  p_begin(e, name, "enum", "", "");
  rk__fbx_enc_i32(e, v);
  rk__fbx_enc_end(e);
}

static void p_bool(rk__fbx_enc *e, const char *name, bool v) {
  p_begin(e, name, "bool", "", "");
  rk__fbx_enc_i32(e, v ? 1 : 0);
  rk__fbx_enc_end(e);
}

static void p_double(rk__fbx_enc *e, const char *name, double v) {
  p_begin(e, name, "double", "Number", "");
  rk__fbx_enc_f64(e, v);
  rk__fbx_enc_end(e);
}

static void p_number(rk__fbx_enc *e, const char *name, const char *flags, double v) {
  p_begin(e, name, "Number", "", flags);
  rk__fbx_enc_f64(e, v);
  rk__fbx_enc_end(e);
}

static void p_ktime(rk__fbx_enc *e, const char *name, int64_t v) {
  p_begin(e, name, "KTime", "Time", "");
  rk__fbx_enc_i64(e, v);
  rk__fbx_enc_end(e);
}

static void p_kstring(rk__fbx_enc *e, const char *name, const char *v) {
  p_begin(e, name, "KString", "", "");
  rk__fbx_enc_str(e, v);
  rk__fbx_enc_end(e);
}

static void p_vec(rk__fbx_enc *e, const char *name, const char *type, const char *label,
                  const char *flags, rk_vec3 v) {
  p_begin(e, name, type, label, flags);
  rk__fbx_enc_f64(e, rk__export_clean_zero(v.x));
  rk__fbx_enc_f64(e, rk__export_clean_zero(v.y));
  rk__fbx_enc_f64(e, rk__export_clean_zero(v.z));
  rk__fbx_enc_end(e);
}

static void p_none(rk__fbx_enc *e, const char *name, const char *type) {
  p_begin(e, name, type, "", "");
  rk__fbx_enc_end(e);
}

static void lcl(rk__fbx_enc *e, const char *name, rk_vec3 v) { p_vec(e, name, name, "", "A", v); }

/* ---- checks -----------------------------------------------------------------------------------
 */

/* Values readers hold in single precision (KeyValueFloat is float32 by format; Assimp reads every
 * transform in float): refuse what does not fit, naming the clip, joint and key. */
static bool check_ranges(fbx_ctx *c) {
  for (size_t j = 0; j < c->n; j++) {
    const rk_transform *r = rk_skeleton_rest(c->s, j);
    const double v[6] = {r->t.x * c->k, r->t.y * c->k, r->t.z * c->k, r->s.x, r->s.y, r->s.z};
    for (int i = 0; i < 6; i++)
      if (!rk__export_fits_float(v[i])) {
        g_set_error(c->error, RK_ERROR, RK_ERROR_INVALID,
                    "%s: joint '%s': rest %s %g does not fit in single precision", c->path,
                    rk_skeleton_joint_name(c->s, j), i < 3 ? "translation" : "scale", v[i]);
        return false;
      }
  }
  for (guint ci = 0; ci < c->clips->len; ci++) {
    const rk_clip *clip = g_array_index(c->clips, clip_out, ci).clip;
    for (size_t ti = 0; ti < rk_clip_track_count(clip); ti++) {
      const rk_track *t = rk_clip_track(clip, ti);
      if (t->channel == RK_CHANNEL_ROTATION)
        continue; /* written as angles */
      const double k = t->channel == RK_CHANNEL_TRANSLATION ? c->k : 1.0;
      const size_t per = 3u * (t->interp == RK_INTERP_CUBIC ? 3u : 1u);
      for (size_t key = 0; key < t->key_count; key++)
        for (size_t i = 0; i < per; i++)
          if (!rk__export_fits_float(t->values[key * per + i] * k)) {
            g_set_error(c->error, RK_ERROR, RK_ERROR_INVALID,
                        "%s: clip '%s', joint '%s', %s key %zu (t=%g s): %g does not fit in "
                        "single precision",
                        c->path, rk_clip_name(clip), rk_skeleton_joint_name(c->s, (size_t)t->joint),
                        rk_channel_name(t->channel), key, t->times[key],
                        t->values[key * per + i] * k);
            return false;
          }
    }
  }
  return true;
}

/* ---- preparation ------------------------------------------------------------------------------
 */

static void mesh_out_clear(gpointer p) {
  mesh_out *m = p;
  g_free(m->model_name);
  g_free(m->vertices);
  g_free(m->normals);
  g_free(m->uv);
  g_free(m->poly);
  if (m->cl_joint)
    g_array_unref(m->cl_joint);
  if (m->cl_idx)
    g_ptr_array_unref(m->cl_idx);
  if (m->cl_w)
    g_ptr_array_unref(m->cl_w);
}

static void clip_out_clear(gpointer p) {
  clip_out *co = p;
  g_free(co->ticks);
  if (co->chans) {
    for (guint i = 0; i < co->chans->len; i++)
      g_free(g_array_index(co->chans, chan, i).v);
    g_array_unref(co->chans);
  }
}

static bool prepare_meshes(fbx_ctx *c) {
  if (c->opts->skip_meshes)
    return true;
  for (size_t mi = 0; mi < rk_asset_mesh_count(c->asset); mi++) {
    const rk_mesh_data *d = rk_mesh_data_get(rk_asset_mesh(c->asset, mi));
    if (d->vertex_count == 0)
      continue;
    mesh_out m = {0};
    m.d = d;
    m.model_name = rk__export_unique_name(c->used, d->name && *d->name ? d->name : "mesh");
    const bool skinned = d->joints && d->weights;
    m.parent_joint =
        !skinned && d->attach_joint >= 0 && (size_t)d->attach_joint < c->n ? d->attach_joint : -1;
    /* Rigid meshes are written in their joint's frame (their Model has no transform). */
    rk_mat4 to_local = rk_mat4_identity();
    if (m.parent_joint >= 0 && !rk_mat4_inverse_affine(&c->rest_world[m.parent_joint], &to_local)) {
      g_set_error(c->error, RK_ERROR, RK_ERROR_INVALID,
                  "%s: mesh '%s' follows joint '%s', whose rest pose cannot be inverted", c->path,
                  d->name ? d->name : "", rk_skeleton_joint_name(c->s, (size_t)m.parent_joint));
      mesh_out_clear(&m);
      return false;
    }
    const rk_mat3 lin =
        rk_mat4_get_rotation(&c->rest_world[m.parent_joint >= 0 ? m.parent_joint : 0]);
    m.nv = d->vertex_count;
    m.vertices = g_new(double, 3 * m.nv);
    for (size_t v = 0; v < m.nv; v++) {
      const float *p = d->positions + 3 * v;
      const rk_vec3 q = rk_mat4_transform_point(&to_local, rk_vec3_make(p[0], p[1], p[2]));
      m.vertices[3 * v] = rk__export_clean_zero(q.x * c->k);
      m.vertices[3 * v + 1] = rk__export_clean_zero(q.y * c->k);
      m.vertices[3 * v + 2] = rk__export_clean_zero(q.z * c->k);
      if (!rk__export_fits_float(m.vertices[3 * v]) || !rk__export_fits_float(m.vertices[3 * v + 1]) ||
          !rk__export_fits_float(m.vertices[3 * v + 2])) {
        g_set_error(c->error, RK_ERROR, RK_ERROR_INVALID,
                    "%s: mesh '%s', vertex %zu does not fit in single precision", c->path,
                    d->name ? d->name : "", v);
        mesh_out_clear(&m);
        return false;
      }
    }
    if (d->normals) {
      /* Normals move by the inverse transpose of to_local's linear part: the joint's L^T. */
      const rk_mat3 lt = rk_mat3_transpose(&lin);
      m.normals = g_new(double, 3 * m.nv);
      for (size_t v = 0; v < m.nv; v++) {
        const float *p = d->normals + 3 * v;
        rk_vec3 q = rk_vec3_make(p[0], p[1], p[2]);
        if (m.parent_joint >= 0)
          q = rk_vec3_normalize(rk_mat3_mul_vec(&lt, q));
        m.normals[3 * v] = rk__export_clean_zero(q.x);
        m.normals[3 * v + 1] = rk__export_clean_zero(q.y);
        m.normals[3 * v + 2] = rk__export_clean_zero(q.z);
      }
    }
    if (d->texcoords) { /* rigkit's origin is top-left (glTF), FBX's bottom-left */
      m.uv = g_new(double, 2 * m.nv);
      for (size_t v = 0; v < m.nv; v++) {
        m.uv[2 * v] = rk__export_clean_zero(d->texcoords[2 * v]);
        m.uv[2 * v + 1] = rk__export_clean_zero(1.0 - (double)d->texcoords[2 * v + 1]);
      }
    }
    m.ntri = d->indices ? d->index_count / 3 : m.nv / 3;
    m.poly = g_new(int32_t, 3 * m.ntri + 1);
    for (size_t t = 0; t < 3 * m.ntri; t++) {
      const uint32_t i = d->indices ? d->indices[t] : (uint32_t)t;
      /* The last index of a polygon is stored as -1 - index. */
      m.poly[t] = t % 3 == 2 ? -1 - (int32_t)i : (int32_t)i;
    }
    if (skinned) {
      g_autofree GArray **idx = g_new0(GArray *, c->n);
      g_autofree GArray **w = g_new0(GArray *, c->n);
      for (size_t v = 0; v < m.nv; v++) {
        double sum[4] = {0, 0, 0, 0};
        int js[4] = {-1, -1, -1, -1};
        int used = 0;
        for (int k = 0; k < 4; k++) { /* duplicated joints of one vertex are merged */
          const float wk = d->weights[4 * v + (size_t)k];
          if (!(wk > 0))
            continue;
          const int j = d->joints[4 * v + (size_t)k];
          int slot = -1;
          for (int s = 0; s < used; s++)
            if (js[s] == j)
              slot = s;
          if (slot < 0) {
            slot = used++;
            js[slot] = j;
          }
          sum[slot] += wk;
        }
        for (int s = 0; s < used; s++) {
          const int j = js[s];
          if (!idx[j]) {
            idx[j] = g_array_new(FALSE, FALSE, sizeof(int32_t));
            w[j] = g_array_new(FALSE, FALSE, sizeof(double));
          }
          const int32_t vi = (int32_t)v;
          g_array_append_val(idx[j], vi);
          g_array_append_val(w[j], sum[s]);
        }
      }
      m.cl_joint = g_array_new(FALSE, FALSE, sizeof(int));
      m.cl_idx = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
      m.cl_w = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
      for (size_t j = 0; j < c->n; j++)
        if (idx[j]) {
          const int jj = (int)j;
          g_array_append_val(m.cl_joint, jj);
          g_ptr_array_add(m.cl_idx, idx[j]);
          g_ptr_array_add(m.cl_w, w[j]);
        }
    }
    g_array_append_val(c->meshes, m);
  }
  return true;
}

static int cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* Bakes a clip: one key per frame for every animated channel, plus a key at every key of the
 * clip that lies between frames (more than a tenth of a frame from the nearest), so that baking
 * at the file's rate never moves a key of the clip. */
static bool prepare_clip(fbx_ctx *c, clip_out *co, rk_transform *locals, double *prev) {
  const rk_clip *clip = co->clip;
  const double dur = rk_clip_duration(clip);
  size_t frames = 0;
  if (!rk__export_frame_count(clip, co->fps, c->path, &frames, c->error))
    return false;
  GArray *ticks = g_array_sized_new(FALSE, FALSE, sizeof(int64_t), (guint)frames);
  for (size_t f = 0; f < frames; f++) {
    const int64_t t = llround(fmin((double)f / co->fps, dur) * TICKS_PER_SECOND);
    g_array_append_val(ticks, t);
  }
  for (size_t ti = 0; ti < rk_clip_track_count(clip); ti++) {
    const rk_track *t = rk_clip_track(clip, ti);
    for (size_t k = 0; k < t->key_count; k++) {
      const double tk = t->times[k];
      const double off = fabs(tk * co->fps - nearbyint(tk * co->fps));
      if (tk <= dur && off > 0.1) {
        const int64_t v = llround(tk * TICKS_PER_SECOND);
        g_array_append_val(ticks, v);
      }
    }
  }
  g_array_sort(ticks, cmp_i64);
  guint m = 0;
  for (guint i = 0; i < ticks->len; i++)
    if (m == 0 || g_array_index(ticks, int64_t, i) != g_array_index(ticks, int64_t, m - 1))
      g_array_index(ticks, int64_t, m++) = g_array_index(ticks, int64_t, i);
  co->frames = m;
  co->ticks = (int64_t *)(void *)g_array_free(ticks, FALSE);
  co->stop = llround(dur * TICKS_PER_SECOND);
  co->chans = g_array_new(FALSE, TRUE, sizeof(chan));
  for (size_t j = 0; j < c->n; j++)
    for (int ch = RK_CHANNEL_TRANSLATION; ch <= RK_CHANNEL_SCALE; ch++) {
      const int ti = rk_clip_find_track(clip, (int)j, (rk_channel)ch);
      if (ti < 0)
        continue;
      chan x = {0};
      x.joint = (int)j;
      x.ch = (rk_channel)ch;
      x.step = rk_clip_track(clip, (size_t)ti)->interp == RK_INTERP_STEP;
      x.v = g_new(float, 3 * co->frames);
      g_array_append_val(co->chans, x);
    }
  if (co->chans->len == 0) { /* readers drop a stack without curves: hold the root's rest */
    chan x = {0};
    x.ch = RK_CHANNEL_ROTATION;
    x.v = g_new(float, 3 * co->frames);
    g_array_append_val(co->chans, x);
  }
  const rk_transform *rest = rk_skeleton_rest_locals(c->s);
  /* Euler angles start near the rest pose's and then follow the previous key. */
  for (size_t j = 0; j < c->n; j++)
    rk_euler_from_quat(c->orders[j], rk_quat_normalize(rest[j].r), prev + 3 * j);
  for (size_t f = 0; f < co->frames; f++) {
    const double t = fmin((double)co->ticks[f] / TICKS_PER_SECOND, dur);
    rk_clip_sample(clip, rest, t, locals, c->n);
    for (guint i = 0; i < co->chans->len; i++) {
      chan *x = &g_array_index(co->chans, chan, i);
      const rk_transform *l = &locals[x->joint];
      rk_vec3 v;
      if (x->ch == RK_CHANNEL_TRANSLATION) {
        v = rk_vec3_scale(l->t, c->k);
      } else if (x->ch == RK_CHANNEL_SCALE) {
        v = l->s;
      } else {
        double a[3];
        double *p = prev + 3 * x->joint;
        rk_euler_from_quat_near(c->orders[x->joint], rk_quat_normalize(l->r), p, a);
        memcpy(p, a, sizeof a);
        v = fbx_angles(c->orders[x->joint], a);
      }
      const double vv[3] = {v.x, v.y, v.z};
      for (int k = 0; k < 3; k++) {
        if (!rk__export_fits_float(vv[k])) {
          g_set_error(c->error, RK_ERROR, RK_ERROR_INVALID,
                      "%s: clip '%s', joint '%s', %s at key %zu (t=%g s): %g does not fit in "
                      "single precision",
                      c->path, rk_clip_name(clip), rk_skeleton_joint_name(c->s, (size_t)x->joint),
                      rk_channel_name(x->ch), f, t, vv[k]);
          return false;
        }
        x->v[3 * f + (size_t)k] = (float)rk__export_clean_zero(vv[k]);
      }
    }
  }
  return true;
}

/* ---- sections ---------------------------------------------------------------------------------
 */

static void write_header(fbx_ctx *c) {
  rk__fbx_enc *e = c->e;
  rk__fbx_enc_begin(e, "FBXHeaderExtension");
  node_i32(e, "FBXHeaderVersion", 1003);
  node_i32(e, "FBXVersion", (int32_t)FBX_VERSION);
  node_i32(e, "EncryptionType", 0);
  rk__fbx_enc_begin(e, "CreationTimeStamp"); /* the fixed CreationTime below */
  node_i32(e, "Version", 1000);
  node_i32(e, "Year", 1970);
  node_i32(e, "Month", 1);
  node_i32(e, "Day", 1);
  node_i32(e, "Hour", 10);
  node_i32(e, "Minute", 0);
  node_i32(e, "Second", 0);
  node_i32(e, "Millisecond", 0);
  rk__fbx_enc_end(e);
  node_str(e, "Creator", "rigkit " RK_VERSION_STRING);
  rk__fbx_enc_begin(e, "SceneInfo");
  rk__fbx_enc_object_name(e, "GlobalInfo", "SceneInfo");
  rk__fbx_enc_str(e, "UserData");
  node_str(e, "Type", "UserData");
  node_i32(e, "Version", 100);
  rk__fbx_enc_begin(e, "MetaData");
  node_i32(e, "Version", 100);
  static const char *const meta[] = {"Title",    "Subject",  "Author",
                                     "Keywords", "Revision", "Comment"};
  for (size_t i = 0; i < G_N_ELEMENTS(meta); i++)
    node_str(e, meta[i], "");
  rk__fbx_enc_end(e);
  rk__fbx_enc_begin(e, "Properties70");
  p_kstring(e, "Original|ApplicationVendor", "rigkit");
  p_kstring(e, "Original|ApplicationName", "rigkit");
  p_kstring(e, "Original|ApplicationVersion", RK_VERSION_STRING);
  p_kstring(e, "LastSaved|ApplicationVendor", "rigkit");
  p_kstring(e, "LastSaved|ApplicationName", "rigkit");
  p_kstring(e, "LastSaved|ApplicationVersion", RK_VERSION_STRING);
  rk__fbx_enc_end(e);
  rk__fbx_enc_end(e); /* SceneInfo */
  rk__fbx_enc_end(e); /* FBXHeaderExtension */
  rk__fbx_enc_begin(e, "FileId");
  rk__fbx_enc_raw(e, FILE_ID, sizeof FILE_ID);
  rk__fbx_enc_end(e);
  node_str(e, "CreationTime", CREATION_TIME);
  node_str(e, "Creator", "rigkit " RK_VERSION_STRING);
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

static void write_global_settings(fbx_ctx *c) {
  rk__fbx_enc *e = c->e;
  double fps = 30;
  int64_t stop = 0;
  for (guint i = 0; i < c->clips->len; i++) {
    const clip_out *co = &g_array_index(c->clips, clip_out, i);
    if (i == 0)
      fps = co->fps;
    stop = MAX(stop, co->stop);
  }
  rk__fbx_enc_begin(e, "GlobalSettings");
  node_i32(e, "Version", 1000);
  rk__fbx_enc_begin(e, "Properties70");
  p_int(e, "UpAxis", 1);
  p_int(e, "UpAxisSign", 1);
  p_int(e, "FrontAxis", 2);
  p_int(e, "FrontAxisSign", 1);
  p_int(e, "CoordAxis", 0);
  p_int(e, "CoordAxisSign", 1);
  p_int(e, "OriginalUpAxis", 1);
  p_int(e, "OriginalUpAxisSign", 1);
  p_double(e, "UnitScaleFactor", c->usf);
  p_double(e, "OriginalUnitScaleFactor", c->usf);
  p_vec(e, "AmbientColor", "ColorRGB", "Color", "", rk_vec3_make(0, 0, 0));
  p_kstring(e, "DefaultCamera", "Producer Perspective");
  p_enum(e, "TimeMode", time_mode(fps));
  p_enum(e, "TimeProtocol", 2);
  p_enum(e, "SnapOnFrameMode", 0);
  p_ktime(e, "TimeSpanStart", 0);
  p_ktime(e, "TimeSpanStop", stop);
  p_double(e, "CustomFrameRate", fps);
  p_none(e, "TimeMarker", "Compound");
  p_int(e, "CurrentTimeMarker", -1);
  rk__fbx_enc_end(e);
  rk__fbx_enc_end(e);
}

static void write_documents(fbx_ctx *c) {
  rk__fbx_enc *e = c->e;
  rk__fbx_enc_begin(e, "Documents");
  node_i32(e, "Count", 1);
  rk__fbx_enc_begin(e, "Document");
  rk__fbx_enc_i64(e, c->doc_id);
  rk__fbx_enc_str(e, "Scene");
  rk__fbx_enc_str(e, "Scene");
  rk__fbx_enc_begin(e, "Properties70");
  p_none(e, "SourceObject", "object");
  p_kstring(e, "ActiveAnimStackName",
            c->clips->len ? rk_clip_name(g_array_index(c->clips, clip_out, 0).clip) : "");
  rk__fbx_enc_end(e);
  node_i64(e, "RootNode", 0);
  rk__fbx_enc_end(e);
  rk__fbx_enc_end(e);
  rk__fbx_enc_begin(e, "References");
  rk__fbx_enc_end(e);
}

/* ObjectType entry of Definitions; templates are opened by the caller when they have one. */
static void def_begin(rk__fbx_enc *e, const char *type, size_t count) {
  rk__fbx_enc_begin(e, "ObjectType");
  rk__fbx_enc_str(e, type);
  node_i32(e, "Count", (int32_t)MIN(count, (size_t)G_MAXINT32));
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

static void write_definitions(fbx_ctx *c) {
  rk__fbx_enc *e = c->e;
  size_t geometries = c->meshes->len, deformers = 0, curve_nodes = 0;
  for (guint i = 0; i < c->meshes->len; i++) {
    const mesh_out *m = &g_array_index(c->meshes, mesh_out, i);
    if (m->cl_joint)
      deformers += 1 + m->cl_joint->len;
  }
  for (guint i = 0; i < c->clips->len; i++)
    curve_nodes += g_array_index(c->clips, clip_out, i).chans->len;
  const size_t models = c->n + c->meshes->len, stacks = c->clips->len;
  const size_t total =
      1 + models + c->n + 2 * geometries + deformers + 1 + 2 * stacks + 4 * curve_nodes;
  const rk_vec3 zero = rk_vec3_make(0, 0, 0), one = rk_vec3_make(1, 1, 1);
  rk__fbx_enc_begin(e, "Definitions");
  node_i32(e, "Version", 100);
  node_i32(e, "Count", (int32_t)MIN(total, (size_t)G_MAXINT32));
  def_begin(e, "GlobalSettings", 1);
  rk__fbx_enc_end(e);
  def_begin(e, "Model", models);
  template_begin(e, "FbxNode");
  p_enum(e, "QuaternionInterpolate", 0);
  p_vec(e, "RotationOffset", "Vector3D", "Vector", "", zero);
  p_vec(e, "RotationPivot", "Vector3D", "Vector", "", zero);
  p_vec(e, "ScalingOffset", "Vector3D", "Vector", "", zero);
  p_vec(e, "ScalingPivot", "Vector3D", "Vector", "", zero);
  p_enum(e, "RotationOrder", 0);
  p_vec(e, "PreRotation", "Vector3D", "Vector", "", zero);
  p_vec(e, "PostRotation", "Vector3D", "Vector", "", zero);
  p_bool(e, "RotationActive", false);
  p_enum(e, "InheritType", 0);
  p_int(e, "DefaultAttributeIndex", -1);
  lcl(e, "Lcl Translation", zero);
  lcl(e, "Lcl Rotation", zero);
  lcl(e, "Lcl Scaling", one);
  p_begin(e, "Visibility", "Visibility", "", "A");
  rk__fbx_enc_f64(e, 1);
  rk__fbx_enc_end(e);
  p_vec(e, "GeometricTranslation", "Vector3D", "Vector", "", zero);
  p_vec(e, "GeometricRotation", "Vector3D", "Vector", "", zero);
  p_vec(e, "GeometricScaling", "Vector3D", "Vector", "", one);
  template_end(e);
  rk__fbx_enc_end(e);
  def_begin(e, "NodeAttribute", c->n);
  template_begin(e, "FbxSkeleton");
  p_vec(e, "Color", "ColorRGB", "Color", "", rk_vec3_make(0.8, 0.8, 0.8));
  p_double(e, "Size", 100);
  p_begin(e, "LimbLength", "double", "Number", "H");
  rk__fbx_enc_f64(e, 1);
  rk__fbx_enc_end(e);
  template_end(e);
  rk__fbx_enc_end(e);
  if (geometries) {
    def_begin(e, "Geometry", geometries);
    template_begin(e, "FbxMesh");
    p_vec(e, "Color", "ColorRGB", "Color", "", rk_vec3_make(0.8, 0.8, 0.8));
    p_bool(e, "Primary Visibility", true);
    p_bool(e, "Casts Shadows", true);
    p_bool(e, "Receive Shadows", true);
    template_end(e);
    rk__fbx_enc_end(e);
    def_begin(e, "Material", geometries);
    template_begin(e, "FbxSurfaceLambert");
    p_kstring(e, "ShadingModel", "Lambert");
    p_vec(e, "EmissiveColor", "Color", "", "A", zero);
    p_number(e, "EmissiveFactor", "A", 1);
    p_vec(e, "AmbientColor", "Color", "", "A", rk_vec3_make(0.2, 0.2, 0.2));
    p_number(e, "AmbientFactor", "A", 1);
    p_vec(e, "DiffuseColor", "Color", "", "A", rk_vec3_make(0.8, 0.8, 0.8));
    p_number(e, "DiffuseFactor", "A", 1);
    p_vec(e, "TransparentColor", "Color", "", "A", zero);
    p_number(e, "TransparencyFactor", "A", 0);
    template_end(e);
    rk__fbx_enc_end(e);
  }
  if (deformers) {
    def_begin(e, "Deformer", deformers);
    rk__fbx_enc_end(e);
  }
  def_begin(e, "Pose", 1);
  rk__fbx_enc_end(e);
  if (stacks) {
    def_begin(e, "AnimationStack", stacks);
    template_begin(e, "FbxAnimStack");
    p_kstring(e, "Description", "");
    p_ktime(e, "LocalStart", 0);
    p_ktime(e, "LocalStop", 0);
    p_ktime(e, "ReferenceStart", 0);
    p_ktime(e, "ReferenceStop", 0);
    template_end(e);
    rk__fbx_enc_end(e);
    def_begin(e, "AnimationLayer", stacks);
    template_begin(e, "FbxAnimLayer");
    p_number(e, "Weight", "A", 100);
    p_bool(e, "Mute", false);
    p_bool(e, "Solo", false);
    p_bool(e, "Lock", false);
    p_vec(e, "Color", "ColorRGB", "Color", "", rk_vec3_make(0.8, 0.8, 0.8));
    p_enum(e, "BlendMode", 0);
    p_enum(e, "RotationAccumulationMode", 0);
    p_enum(e, "ScaleAccumulationMode", 0);
    template_end(e);
    rk__fbx_enc_end(e);
  }
  if (curve_nodes) {
    def_begin(e, "AnimationCurveNode", curve_nodes);
    template_begin(e, "FbxAnimCurveNode");
    p_none(e, "d", "Compound");
    template_end(e);
    rk__fbx_enc_end(e);
    def_begin(e, "AnimationCurve", 3 * curve_nodes);
    rk__fbx_enc_end(e);
  }
  rk__fbx_enc_end(e);
}

static void model_begin(fbx_ctx *c, int64_t id, const char *name, const char *kind) {
  rk__fbx_enc *e = c->e;
  rk__fbx_enc_begin(e, "Model");
  rk__fbx_enc_i64(e, id);
  rk__fbx_enc_object_name(e, name, "Model");
  rk__fbx_enc_str(e, kind);
  node_i32(e, "Version", 232);
  rk__fbx_enc_begin(e, "Properties70");
  p_bool(e, "RotationActive", true);
  p_enum(e, "InheritType", 1);
  p_int(e, "DefaultAttributeIndex", 0);
}

static void model_end(fbx_ctx *c) {
  rk__fbx_enc *e = c->e;
  rk__fbx_enc_end(e); /* Properties70 */
  node_i32(e, "MultiLayer", 0);
  node_i32(e, "MultiTake", 0);
  rk__fbx_enc_begin(e, "Shading");
  rk__fbx_enc_bool(e, true);
  rk__fbx_enc_end(e);
  node_str(e, "Culling", "CullingOff");
  rk__fbx_enc_end(e); /* Model */
}

static void write_joints(fbx_ctx *c) {
  rk__fbx_enc *e = c->e;
  for (size_t j = 0; j < c->n; j++) {
    rk__fbx_enc_begin(e, "NodeAttribute");
    rk__fbx_enc_i64(e, c->attr_id[j]);
    rk__fbx_enc_object_name(e, c->names[j], "NodeAttribute");
    rk__fbx_enc_str(e, "LimbNode");
    rk__fbx_enc_begin(e, "Properties70");
    p_double(e, "Size", 100);
    rk__fbx_enc_end(e);
    node_str(e, "TypeFlags", "Skeleton");
    rk__fbx_enc_end(e);

    const rk_transform *r = rk_skeleton_rest(c->s, j);
    double a[3];
    rk_euler_from_quat(c->orders[j], rk_quat_normalize(r->r), a);
    model_begin(c, c->model_id[j], c->names[j], "LimbNode");
    const int order = fbx_rotation_order(c->orders[j]);
    if (order != 0)
      p_enum(e, "RotationOrder", order);
    lcl(e, "Lcl Translation", rk_vec3_scale(r->t, c->k));
    lcl(e, "Lcl Rotation", fbx_angles(c->orders[j], a));
    lcl(e, "Lcl Scaling", r->s);
    model_end(c);
    connect(c, c->attr_id[j], c->model_id[j], NULL);
    const int p = rk_skeleton_parent(c->s, j);
    connect(c, c->model_id[j], p >= 0 ? c->model_id[p] : 0, NULL);
  }
}

static void layer_element(rk__fbx_enc *e, const char *type) {
  rk__fbx_enc_begin(e, "LayerElement");
  node_str(e, "Type", type);
  node_i32(e, "TypedIndex", 0);
  rk__fbx_enc_end(e);
}

static void write_meshes(fbx_ctx *c) {
  rk__fbx_enc *e = c->e;
  for (guint i = 0; i < c->meshes->len; i++) {
    mesh_out *m = &g_array_index(c->meshes, mesh_out, i);
    const rk_mesh_data *d = m->d;
    rk__fbx_enc_begin(e, "Geometry");
    rk__fbx_enc_i64(e, m->geom_id);
    rk__fbx_enc_object_name(e, m->model_name, "Geometry");
    rk__fbx_enc_str(e, "Mesh");
    node_i32(e, "GeometryVersion", 124);
    rk__fbx_enc_begin(e, "Vertices");
    rk__fbx_enc_f64v(e, m->vertices, 3 * m->nv);
    rk__fbx_enc_end(e);
    rk__fbx_enc_begin(e, "PolygonVertexIndex");
    rk__fbx_enc_i32v(e, m->poly, 3 * m->ntri);
    rk__fbx_enc_end(e);
    if (m->normals)
      vertex_layer(e, "LayerElementNormal", "", "Normals", m->normals, 3 * m->nv);
    if (m->uv)
      vertex_layer(e, "LayerElementUV", "UVMap", "UV", m->uv, 2 * m->nv);
    rk__fbx_enc_begin(e, "LayerElementMaterial");
    rk__fbx_enc_i32(e, 0);
    node_i32(e, "Version", 101);
    node_str(e, "Name", "");
    node_str(e, "MappingInformationType", "AllSame");
    node_str(e, "ReferenceInformationType", "IndexToDirect");
    const int32_t zero = 0;
    rk__fbx_enc_begin(e, "Materials");
    rk__fbx_enc_i32v(e, &zero, 1);
    rk__fbx_enc_end(e);
    rk__fbx_enc_end(e);
    rk__fbx_enc_begin(e, "Layer");
    rk__fbx_enc_i32(e, 0);
    node_i32(e, "Version", 100);
    if (m->normals)
      layer_element(e, "LayerElementNormal");
    layer_element(e, "LayerElementMaterial");
    if (m->uv)
      layer_element(e, "LayerElementUV");
    rk__fbx_enc_end(e);
    rk__fbx_enc_end(e); /* Geometry */

    g_autofree char *mat_name =
        g_strdup(d->material.name && *d->material.name ? d->material.name : m->model_name);
    const float *bc = d->material.base_color;
    rk__fbx_enc_begin(e, "Material");
    rk__fbx_enc_i64(e, m->mat_id);
    rk__fbx_enc_object_name(e, mat_name, "Material");
    rk__fbx_enc_str(e, "");
    node_i32(e, "Version", 102);
    node_str(e, "ShadingModel", "lambert");
    node_i32(e, "MultiLayer", 0);
    rk__fbx_enc_begin(e, "Properties70");
    p_vec(e, "DiffuseColor", "Color", "", "A", rk_vec3_make(bc[0], bc[1], bc[2]));
    p_number(e, "DiffuseFactor", "A", 1);
    p_number(e, "TransparencyFactor", "A", rk__export_clean_zero(1.0 - bc[3]));
    p_double(e, "Opacity", bc[3]);
    rk__fbx_enc_end(e);
    rk__fbx_enc_end(e);

    model_begin(c, m->model_id, m->model_name, "Mesh");
    model_end(c);
    connect(c, m->model_id, m->parent_joint >= 0 ? c->model_id[m->parent_joint] : 0, NULL);
    connect(c, m->geom_id, m->model_id, NULL);
    connect(c, m->mat_id, m->model_id, NULL);

    if (!m->cl_joint)
      continue;
    rk__fbx_enc_begin(e, "Deformer");
    rk__fbx_enc_i64(e, m->skin_id);
    rk__fbx_enc_object_name(e, m->model_name, "Deformer");
    rk__fbx_enc_str(e, "Skin");
    node_i32(e, "Version", 101);
    node_f64(e, "Link_DeformAcuracy", 50);
    rk__fbx_enc_end(e);
    connect(c, m->skin_id, m->geom_id, NULL);
    for (guint k = 0; k < m->cl_joint->len; k++) {
      const int j = g_array_index(m->cl_joint, int, k);
      const GArray *idx = g_ptr_array_index(m->cl_idx, k), *w = g_ptr_array_index(m->cl_w, k);
      const int64_t id = m->cl_first_id + k;
      rk__fbx_enc_begin(e, "Deformer");
      rk__fbx_enc_i64(e, id);
      rk__fbx_enc_object_name(e, c->names[j], "SubDeformer");
      rk__fbx_enc_str(e, "Cluster");
      node_i32(e, "Version", 100);
      rk__fbx_enc_begin(e, "UserData");
      rk__fbx_enc_str(e, "");
      rk__fbx_enc_str(e, "");
      rk__fbx_enc_end(e);
      rk__fbx_enc_begin(e, "Indexes");
      rk__fbx_enc_i32v(e, (const int32_t *)(const void *)idx->data, idx->len);
      rk__fbx_enc_end(e);
      node_f64v(e, "Weights", (const double *)(const void *)w->data, w->len);
      /* TransformLink: the joint's world matrix at bind time; Transform: the mesh's world
       * matrix (identity) in the joint's bind frame, i.e. the inverse bind matrix. */
      const rk_mat4 link = scaled(c->bind_world[j], c->k);
      rk_mat4 inv;
      if (!rk_mat4_inverse_affine(&link, &inv))
        inv = rk_mat4_identity();
      node_mat4(e, "Transform", &inv);
      node_mat4(e, "TransformLink", &link);
      rk__fbx_enc_end(e);
      connect(c, id, m->skin_id, NULL);
      connect(c, c->model_id[j], id, NULL);
    }
  }
}

static void write_pose(fbx_ctx *c) {
  rk__fbx_enc *e = c->e;
  rk__fbx_enc_begin(e, "Pose");
  rk__fbx_enc_i64(e, c->pose_id);
  rk__fbx_enc_object_name(e, "BindPose", "Pose");
  rk__fbx_enc_str(e, "BindPose");
  node_str(e, "Type", "BindPose");
  node_i32(e, "Version", 100);
  node_i32(e, "NbPoseNodes", (int32_t)MIN(c->n + c->meshes->len, (size_t)G_MAXINT32));
  for (size_t j = 0; j < c->n; j++) {
    rk__fbx_enc_begin(e, "PoseNode");
    node_i64(e, "Node", c->model_id[j]);
    const rk_mat4 m = scaled(c->bind_world[j], c->k);
    node_mat4(e, "Matrix", &m);
    rk__fbx_enc_end(e);
  }
  for (guint i = 0; i < c->meshes->len; i++) {
    const mesh_out *m = &g_array_index(c->meshes, mesh_out, i);
    rk__fbx_enc_begin(e, "PoseNode");
    node_i64(e, "Node", m->model_id);
    const rk_mat4 w =
        m->parent_joint >= 0 ? scaled(c->rest_world[m->parent_joint], c->k) : rk_mat4_identity();
    node_mat4(e, "Matrix", &w);
    rk__fbx_enc_end(e);
  }
  rk__fbx_enc_end(e);
}

static void write_animation(fbx_ctx *c) {
  rk__fbx_enc *e = c->e;
  static const char *const node_names[3] = {"T", "R", "S"};
  static const char *const props[3] = {"Lcl Translation", "Lcl Rotation", "Lcl Scaling"};
  static const char *const comps[3] = {"d|X", "d|Y", "d|Z"};
  /* Default KeyAttrDataFloat: slopes 0, weights 1/3 (as FBX SDK files hold it; unused by
   * linear and constant keys). */
  const float data[4] = {0, 0, 9.419963346924634e-30f, 0};
  for (guint ci = 0; ci < c->clips->len; ci++) {
    clip_out *co = &g_array_index(c->clips, clip_out, ci);
    rk__fbx_enc_begin(e, "AnimationStack");
    rk__fbx_enc_i64(e, co->stack_id);
    rk__fbx_enc_object_name(e, rk_clip_name(co->clip), "AnimStack");
    rk__fbx_enc_str(e, "");
    rk__fbx_enc_begin(e, "Properties70");
    p_ktime(e, "LocalStart", 0);
    p_ktime(e, "LocalStop", co->stop);
    p_ktime(e, "ReferenceStart", 0);
    p_ktime(e, "ReferenceStop", co->stop);
    rk__fbx_enc_end(e);
    rk__fbx_enc_end_block(e);
    rk__fbx_enc_begin(e, "AnimationLayer");
    rk__fbx_enc_i64(e, co->layer_id);
    rk__fbx_enc_object_name(e, "BaseLayer", "AnimLayer");
    rk__fbx_enc_str(e, "");
    rk__fbx_enc_end_block(e);
    connect(c, co->layer_id, co->stack_id, NULL);
    g_autofree float *vals = g_new(float, co->frames);
    for (guint i = 0; i < co->chans->len; i++) {
      const chan *x = &g_array_index(co->chans, chan, i);
      rk__fbx_enc_begin(e, "AnimationCurveNode");
      rk__fbx_enc_i64(e, x->node_id);
      rk__fbx_enc_object_name(e, node_names[x->ch], "AnimCurveNode");
      rk__fbx_enc_str(e, "");
      rk__fbx_enc_begin(e, "Properties70");
      for (int k = 0; k < 3; k++)
        p_number(e, comps[k], "A", x->v[k]);
      rk__fbx_enc_end(e);
      rk__fbx_enc_end(e);
      connect(c, x->node_id, co->layer_id, NULL);
      connect(c, x->node_id, c->model_id[x->joint], props[x->ch]);
      for (int k = 0; k < 3; k++) {
        for (size_t f = 0; f < co->frames; f++)
          vals[f] = x->v[3 * f + (size_t)k];
        rk__fbx_enc_begin(e, "AnimationCurve");
        rk__fbx_enc_i64(e, x->curve_id[k]);
        rk__fbx_enc_object_name(e, "", "AnimCurve");
        rk__fbx_enc_str(e, "");
        node_f64(e, "Default", vals[0]);
        node_i32(e, "KeyVer", 4009);
        rk__fbx_enc_begin(e, "KeyTime");
        rk__fbx_enc_i64v(e, co->ticks, co->frames);
        rk__fbx_enc_end(e);
        rk__fbx_enc_begin(e, "KeyValueFloat");
        rk__fbx_enc_f32v(e, vals, co->frames);
        rk__fbx_enc_end(e);
        const int32_t flags = x->step ? KEY_CONSTANT : KEY_LINEAR;
        const int32_t refs = (int32_t)MIN(co->frames, (size_t)G_MAXINT32);
        rk__fbx_enc_begin(e, "KeyAttrFlags");
        rk__fbx_enc_i32v(e, &flags, 1);
        rk__fbx_enc_end(e);
        rk__fbx_enc_begin(e, "KeyAttrDataFloat");
        rk__fbx_enc_f32v(e, data, 4);
        rk__fbx_enc_end(e);
        rk__fbx_enc_begin(e, "KeyAttrRefCount");
        rk__fbx_enc_i32v(e, &refs, 1);
        rk__fbx_enc_end(e);
        rk__fbx_enc_end(e);
        connect(c, x->curve_id[k], x->node_id, comps[k]);
      }
    }
  }
}

static void write_connections(fbx_ctx *c) {
  rk__fbx_enc *e = c->e;
  rk__fbx_enc_begin(e, "Connections");
  for (guint i = 0; i < c->conns->len; i++) {
    const conn *x = &g_array_index(c->conns, conn, i);
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

static void write_takes(fbx_ctx *c) {
  rk__fbx_enc *e = c->e;
  rk__fbx_enc_begin(e, "Takes");
  node_str(e, "Current",
           c->clips->len ? rk_clip_name(g_array_index(c->clips, clip_out, 0).clip) : "");
  for (guint i = 0; i < c->clips->len; i++) {
    const clip_out *co = &g_array_index(c->clips, clip_out, i);
    rk__fbx_enc_begin(e, "Take");
    rk__fbx_enc_str(e, rk_clip_name(co->clip));
    g_autofree char *file = g_strdup_printf("%s.tak", rk_clip_name(co->clip));
    node_str(e, "FileName", file);
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

/* ---- entry point ------------------------------------------------------------------------------
 */

static void assign_ids(fbx_ctx *c) {
  c->doc_id = new_id(c);
  for (size_t j = 0; j < c->n; j++) {
    c->model_id[j] = new_id(c);
    c->attr_id[j] = new_id(c);
  }
  for (guint i = 0; i < c->meshes->len; i++) {
    mesh_out *m = &g_array_index(c->meshes, mesh_out, i);
    m->model_id = new_id(c);
    m->geom_id = new_id(c);
    m->mat_id = new_id(c);
    if (m->cl_joint) {
      m->skin_id = new_id(c);
      m->cl_first_id = c->next_id;
      c->next_id += m->cl_joint->len;
    }
  }
  c->pose_id = new_id(c);
  for (guint i = 0; i < c->clips->len; i++) {
    clip_out *co = &g_array_index(c->clips, clip_out, i);
    co->stack_id = new_id(c);
    co->layer_id = new_id(c);
    for (guint k = 0; k < co->chans->len; k++) {
      chan *x = &g_array_index(co->chans, chan, k);
      x->node_id = new_id(c);
      for (int a = 0; a < 3; a++)
        x->curve_id[a] = new_id(c);
    }
  }
}

bool rk__fbx_write_orders(const rk_asset *asset, const char *path, const rk_export_options *opts,
                          const rk_euler_order *orders, GError **error) {
  fbx_ctx c = {0};
  c.asset = asset;
  c.s = rk_asset_skeleton(asset);
  c.opts = opts;
  c.path = path;
  c.error = error;
  c.n = rk_skeleton_joint_count(c.s);
  c.k = opts->unit == RK_EXPORT_UNIT_METRES ? 1.0 : 100.0;
  c.usf = opts->unit == RK_EXPORT_UNIT_METRES ? 100.0 : 1.0;
  c.next_id = FIRST_ID;
  g_autofree rk_euler_order *default_orders = NULL;
  if (!orders) { /* FBX's default eEulerXYZ */
    default_orders = g_new(rk_euler_order, c.n);
    for (size_t j = 0; j < c.n; j++)
      default_orders[j] = RK_EULER_ZYX;
    orders = default_orders;
  }
  for (size_t j = 0; j < c.n; j++)
    if (fbx_rotation_order(orders[j]) < 0) {
      g_set_error(error, RK_ERROR, RK_ERROR_UNSUPPORTED,
                  "%s: joint '%s': FBX rotation orders have three distinct axes, not %s", path,
                  rk_skeleton_joint_name(c.s, j), rk_euler_order_name(orders[j]));
      return false;
    }
  c.orders = orders;
  g_autoptr(GPtrArray) selected = rk__export_select_clips(asset, opts, path, error);
  if (!selected)
    return false;
  c.model_id = g_new(int64_t, c.n);
  c.attr_id = g_new(int64_t, c.n);
  c.names = g_new0(char *, c.n + 1);
  c.used = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  c.conns = g_array_new(FALSE, FALSE, sizeof(conn));
  c.rest_world = g_new(rk_mat4, c.n);
  c.bind_world = g_new(rk_mat4, c.n);
  c.meshes = g_array_new(FALSE, TRUE, sizeof(mesh_out));
  g_array_set_clear_func(c.meshes, mesh_out_clear);
  c.clips = g_array_new(FALSE, TRUE, sizeof(clip_out));
  g_array_set_clear_func(c.clips, clip_out_clear);
  rk_transform *locals = g_new(rk_transform, c.n);
  double *prev = g_new(double, 3 * c.n);
  GByteArray *bytes = NULL;
  bool ok = false;

  for (size_t j = 0; j < c.n; j++) /* joint names are unique: the skeleton guarantees it */
    c.names[j] = rk__export_unique_name(c.used, rk_skeleton_joint_name(c.s, j));
  rk_skeleton_rest_models(c.s, c.rest_world);
  for (guint i = 0; i < selected->len; i++) {
    clip_out co = {0};
    co.clip = g_ptr_array_index(selected, i);
    co.fps = rk__export_clip_fps(co.clip, opts);
    g_array_append_val(c.clips, co);
  }
  if (!check_ranges(&c) || !prepare_meshes(&c))
    goto done;
  /* A joint that skins a mesh written here is bound where its inverse bind matrix says; the
   * others (and every joint of a file without skins) at their rest pose. */
  memcpy(c.bind_world, c.rest_world, c.n * sizeof(rk_mat4));
  for (guint i = 0; i < c.meshes->len; i++) {
    const mesh_out *m = &g_array_index(c.meshes, mesh_out, i);
    for (guint k = 0; m->cl_joint && k < m->cl_joint->len; k++) {
      const size_t j = (size_t)g_array_index(m->cl_joint, int, k);
      rk_mat4 ibm, bind;
      if (rk_skeleton_inverse_bind(c.s, j, &ibm) && rk_mat4_inverse_affine(&ibm, &bind))
        c.bind_world[j] = bind;
    }
  }
  for (guint i = 0; i < c.clips->len; i++)
    if (!prepare_clip(&c, &g_array_index(c.clips, clip_out, i), locals, prev))
      goto done;
  assign_ids(&c);

  c.e = rk__fbx_enc_new(FBX_VERSION);
  write_header(&c);
  write_global_settings(&c);
  write_documents(&c);
  write_definitions(&c);
  rk__fbx_enc_begin(c.e, "Objects");
  write_joints(&c);
  write_meshes(&c);
  write_pose(&c);
  write_animation(&c);
  rk__fbx_enc_end(c.e);
  write_connections(&c);
  write_takes(&c);
  bytes = rk__fbx_enc_finish(c.e, path, error);
  c.e = NULL;
  if (!bytes)
    goto done;
  rk__atomic_file *f = rk__atomic_file_open(path, error);
  if (!f)
    goto done;
  rk__atomic_file_write(f, bytes->data, bytes->len);
  ok = rk__atomic_file_commit(f, error);
done:
  if (bytes)
    g_byte_array_unref(bytes);
  rk__fbx_enc_free(c.e);
  g_free(locals);
  g_free(prev);
  g_free(c.model_id);
  g_free(c.attr_id);
  g_strfreev(c.names);
  g_hash_table_unref(c.used);
  g_array_unref(c.conns);
  g_free(c.rest_world);
  g_free(c.bind_world);
  g_array_unref(c.meshes);
  g_array_unref(c.clips);
  return ok;
}

bool rk__fbx_write(const rk_asset *asset, const char *path, const rk_export_options *opts,
                   GError **error) {
  return rk__fbx_write_orders(asset, path, opts, NULL, error);
}
