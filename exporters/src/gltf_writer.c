/* glTF 2.0 writer (.gltf + .bin, .glb), JSON through json-glib.
 *
 * Layout of what is written (glTF 2.0 specification, sections 3.5-3.11 and 4):
 * - node i = skeleton joint i (same order, same unique names, rest local TRS); mesh nodes follow;
 * - one skin over every joint (joint index in JOINTS_0 = skeleton joint index) with inverse bind
 *   matrices, also for a skeleton without meshes so that DCCs import an armature;
 * - one animation per clip, one sampler per track, interpolation as in the clip, rotations
 *   normalised (and sign-continuous for LINEAR), key times in float32 checked strictly increasing;
 *   a clip that lasts longer than its last key gets one holding key at its duration;
 * - meshes: skinned meshes on root nodes with the skin, rigid meshes under their joint, static
 *   meshes at the root; at most 4 weights per vertex, duplicates merged, normalised in float32;
 * - one buffer; every bufferView starts on a 4-byte boundary; accessors carry min/max.
 * Everything is in glTF's space, which is rigkit's canonical space (metres, Y-up, right-handed). */
#include "gltf_writer.h"

#include "atomic_file.h"
#include "export_shared.h"
#include "json_text.h"

#include <float.h>
#include <json-glib/json-glib.h>
#include <rigkit/fk.h>
#include <rigkit/version.h>
#include <string.h>

enum {
  GL_UNSIGNED_BYTE = 5121,
  GL_UNSIGNED_SHORT = 5123,
  GL_UNSIGNED_INT = 5125,
  GL_FLOAT = 5126,
  TARGET_ARRAY_BUFFER = 34962,
  TARGET_ELEMENT_ARRAY_BUFFER = 34963,
};

/* The binary buffer must stay addressable by GLB's 32-bit lengths (and by GByteArray). */
#define MAX_BUFFER_BYTES ((size_t)G_MAXUINT32 - (64u << 20))

typedef struct node_desc {
  char *name;
  GArray *children; /* int */
  bool has_trs;
  rk_transform trs;
  int mesh; /* -1 = none */
  int skin; /* -1 = none */
} node_desc;

typedef struct gltf_ctx {
  const rk_asset *asset;
  const rk_skeleton *s;
  const char *path;
  GByteArray *bin;
  JsonArray *accessors, *views, *meshes, *materials, *animations;
  GArray *nodes;     /* node_desc */
  GHashTable *names; /* node names in use */
  GError **error;
} gltf_ctx;

static void node_desc_clear(gpointer p) {
  node_desc *n = p;
  g_free(n->name);
  if (n->children)
    g_array_unref(n->children);
}

static bool to_float(double v, float *out) {
  if (!rk__export_fits_float(v))
    return false;
  *out = (float)v;
  return true;
}

static int add_node(gltf_ctx *c, const char *name) {
  node_desc n = {0};
  n.name = rk__export_unique_name(c->names, name);
  n.children = g_array_new(FALSE, FALSE, sizeof(int));
  n.mesh = n.skin = -1;
  g_array_append_val(c->nodes, n);
  return (int)c->nodes->len - 1;
}

static node_desc *node_at(gltf_ctx *c, int i) {
  return &g_array_index(c->nodes, node_desc, i);
}

/* ---- buffer, views, accessors ---------------------------------------------------------------- */

static int add_view(gltf_ctx *c, const void *data, size_t bytes, int target) {
  static const guint8 zeros[4] = {0};
  if (c->bin->len + bytes + 4 > MAX_BUFFER_BYTES) {
    g_set_error(c->error, RK_ERROR, RK_ERROR_LIMIT,
                "%s: the binary data would exceed %zu bytes, the most a glTF buffer written by "
                "rigkit may hold",
                c->path, MAX_BUFFER_BYTES);
    return -1;
  }
  if (c->bin->len % 4)
    g_byte_array_append(c->bin, zeros, 4 - c->bin->len % 4);
  const size_t offset = c->bin->len;
  g_byte_array_append(c->bin, data, (guint)bytes);
  JsonObject *v = json_object_new();
  json_object_set_int_member(v, "buffer", 0);
  json_object_set_int_member(v, "byteOffset", (gint64)offset);
  json_object_set_int_member(v, "byteLength", (gint64)bytes);
  if (target)
    json_object_set_int_member(v, "target", target);
  json_array_add_object_element(c->views, v);
  return (int)json_array_get_length(c->views) - 1;
}

static const char *type_name(int ncomp) {
  switch (ncomp) {
  case 1:
    return "SCALAR";
  case 2:
    return "VEC2";
  case 3:
    return "VEC3";
  case 4:
    return "VEC4";
  case 16:
    return "MAT4";
  }
  return "?";
}

static size_t component_size(int type) {
  return type == GL_FLOAT || type == GL_UNSIGNED_INT ? 4 : type == GL_UNSIGNED_SHORT ? 2 : 1;
}

static double component_at(int type, const void *data, size_t i) {
  switch (type) {
  case GL_FLOAT:
    return ((const float *)data)[i];
  case GL_UNSIGNED_INT:
    return ((const guint32 *)data)[i];
  case GL_UNSIGNED_SHORT:
    return ((const guint16 *)data)[i];
  default:
    return ((const guint8 *)data)[i];
  }
}

/* Adds a bufferView holding data and an accessor over it; min/max are computed from the stored
 * values themselves (so they match exactly what a reader decodes). Returns the accessor index,
 * or -1 with c->error set. */
static int add_accessor(gltf_ctx *c, int comp_type, const void *data, size_t count, int ncomp,
                        int target, bool minmax) {
  const size_t n = count * (size_t)ncomp;
  int view = add_view(c, data, n * component_size(comp_type), target);
  if (view < 0)
    return -1;
  JsonObject *a = json_object_new();
  json_object_set_int_member(a, "bufferView", view);
  json_object_set_int_member(a, "componentType", comp_type);
  json_object_set_int_member(a, "count", (gint64)count);
  json_object_set_string_member(a, "type", type_name(ncomp));
  if (minmax && count > 0) {
    JsonArray *mn = json_array_new(), *mx = json_array_new();
    for (int k = 0; k < ncomp; k++) {
      double lo = INFINITY, hi = -INFINITY;
      for (size_t i = 0; i < count; i++) {
        double v = component_at(comp_type, data, i * (size_t)ncomp + (size_t)k);
        lo = fmin(lo, v);
        hi = fmax(hi, v);
      }
      if (comp_type == GL_FLOAT) {
        json_array_add_double_element(mn, rk__export_clean_zero(lo));
        json_array_add_double_element(mx, rk__export_clean_zero(hi));
      } else {
        json_array_add_int_element(mn, (gint64)lo);
        json_array_add_int_element(mx, (gint64)hi);
      }
    }
    json_object_set_array_member(a, "min", mn);
    json_object_set_array_member(a, "max", mx);
  }
  json_array_add_object_element(c->accessors, a);
  return (int)json_array_get_length(c->accessors) - 1;
}

/* ---- skeleton and skin ----------------------------------------------------------------------- */

static bool is_identity_trs(const rk_transform *x) {
  return x->t.x == 0 && x->t.y == 0 && x->t.z == 0 && x->r.x == 0 && x->r.y == 0 &&
         x->r.z == 0 && x->r.w == 1 && x->s.x == 1 && x->s.y == 1 && x->s.z == 1;
}

static bool add_skeleton(gltf_ctx *c, int *skin_root) {
  const size_t n = rk_skeleton_joint_count(c->s);
  for (size_t j = 0; j < n; j++) {
    int idx = add_node(c, rk_skeleton_joint_name(c->s, j));
    node_desc *nd = node_at(c, idx);
    nd->trs = *rk_skeleton_rest(c->s, j); /* rotations are unit since the skeleton's build */
    nd->has_trs = !is_identity_trs(&nd->trs);
    int p = rk_skeleton_parent(c->s, j);
    if (p >= 0)
      g_array_append_val(node_at(c, p)->children, idx);
  }
  *skin_root = 0;
  if (rk_skeleton_root_count(c->s) > 1) {
    /* glTF wants the joints of a skin under one common root; that root need not be a joint. */
    int top = add_node(c, "Armature");
    for (size_t j = 0; j < n; j++)
      if (rk_skeleton_parent(c->s, j) < 0) {
        int child = (int)j;
        g_array_append_val(node_at(c, top)->children, child);
      }
    *skin_root = top;
  }

  /* Inverse bind matrices: the skeleton's own, else the inverse of the rest pose. glTF wants
   * the fourth row exactly (0, 0, 0, 1). */
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  rk_skeleton_rest_models(c->s, models);
  g_autofree float *ibm = g_new(float, 16 * n);
  for (size_t j = 0; j < n; j++) {
    rk_mat4 m;
    if (!rk_skeleton_inverse_bind(c->s, j, &m) && !rk_mat4_inverse_affine(&models[j], &m)) {
      g_set_error(c->error, RK_ERROR, RK_ERROR_INVALID,
                  "%s: joint '%s': the rest pose cannot be inverted (zero scale)", c->path,
                  rk_skeleton_joint_name(c->s, j));
      return false;
    }
    for (int k = 0; k < 16; k++) {
      double v = (k % 4 == 3) ? (k == 15 ? 1.0 : 0.0) : m.m[k];
      if (!to_float(v, &ibm[16 * j + (size_t)k])) {
        g_set_error(c->error, RK_ERROR, RK_ERROR_INVALID,
                    "%s: joint '%s': inverse bind matrix is not finite in single precision",
                    c->path, rk_skeleton_joint_name(c->s, j));
        return false;
      }
      ibm[16 * j + (size_t)k] = (float)rk__export_clean_zero(ibm[16 * j + (size_t)k]);
    }
  }
  return add_accessor(c, GL_FLOAT, ibm, n, 16, 0, false) >= 0;
}

/* ---- meshes ---------------------------------------------------------------------------------- */

/* The default material of the asset model (all fields zero, no name) means "none". */
static int add_material(gltf_ctx *c, const rk_material *m) {
  const bool unset = !m->name && m->base_color[0] == 0 && m->base_color[1] == 0 &&
                     m->base_color[2] == 0 && m->base_color[3] == 0 && m->metallic == 0 &&
                     m->roughness == 0 && !m->double_sided;
  if (unset)
    return -1;
  JsonObject *o = json_object_new();
  if (m->name && *m->name)
    json_object_set_string_member(o, "name", m->name);
  JsonObject *pbr = json_object_new();
  JsonArray *col = json_array_new();
  for (int k = 0; k < 4; k++) {
    double v = m->base_color[k];
    json_array_add_double_element(col, isfinite(v) ? fmin(fmax(v, 0.0), 1.0) : 1.0);
  }
  json_object_set_array_member(pbr, "baseColorFactor", col);
  json_object_set_double_member(pbr, "metallicFactor",
                                isfinite(m->metallic) ? fmin(fmax(m->metallic, 0.0), 1.0) : 1.0);
  json_object_set_double_member(pbr, "roughnessFactor",
                                isfinite(m->roughness) ? fmin(fmax(m->roughness, 0.0), 1.0) : 1.0);
  json_object_set_object_member(o, "pbrMetallicRoughness", pbr);
  if (m->base_color[3] < 1.0f)
    json_object_set_string_member(o, "alphaMode", "BLEND");
  if (m->double_sided)
    json_object_set_boolean_member(o, "doubleSided", TRUE);
  json_array_add_object_element(c->materials, o);
  return (int)json_array_get_length(c->materials) - 1;
}

/* Up to 4 influences of one vertex: duplicates merged, zero weights dropped, sorted by weight,
 * normalised so that the float32 sum is as close to 1 as float32 allows. */
static void vertex_weights(const uint16_t *jin, const float *win, uint16_t *jout, float *wout) {
  double w[4];
  uint16_t j[4];
  int n = 0;
  for (int k = 0; k < 4; k++) {
    if (!(win[k] > 0))
      continue;
    int found = -1;
    for (int m = 0; m < n; m++)
      if (j[m] == jin[k])
        found = m;
    if (found >= 0) {
      w[found] += win[k];
    } else {
      j[n] = jin[k];
      w[n++] = win[k];
    }
  }
  if (n == 0) { /* rk_mesh_new gives such a vertex to its first joint */
    j[0] = jin[0];
    w[0] = 1;
    n = 1;
  }
  for (int a = 1; a < n; a++) /* insertion sort, heaviest first, ties by joint index */
    for (int b = a; b > 0 && (w[b] > w[b - 1] || (w[b] == w[b - 1] && j[b] < j[b - 1])); b--) {
      double tw = w[b];
      w[b] = w[b - 1];
      w[b - 1] = tw;
      uint16_t tj = j[b];
      j[b] = j[b - 1];
      j[b - 1] = tj;
    }
  double sum = 0;
  for (int k = 0; k < n; k++)
    sum += w[k];
  float fsum = 0;
  for (int k = 0; k < 4; k++) {
    jout[k] = k < n ? j[k] : 0;
    wout[k] = k < n ? (float)(w[k] / sum) : 0.0f;
  }
  for (int k = 1; k < n; k++)
    fsum += wout[k];
  wout[0] = 1.0f - fsum; /* the heaviest weight absorbs the rounding */
}

static bool add_mesh(gltf_ctx *c, const rk_mesh *mesh, size_t mesh_index) {
  const rk_mesh_data *d = rk_mesh_data_get(mesh);
  const size_t nv = d->vertex_count;
  const bool skinned = d->joints != NULL;
  const bool attached = !skinned && d->attach_joint >= 0;
  g_autofree char *name =
      d->name && *d->name ? g_strdup(d->name) : g_strdup_printf("mesh_%zu", mesh_index);
  g_autofree uint16_t *joints = skinned ? g_new(uint16_t, 4 * nv) : NULL;
  g_autofree float *weights = skinned ? g_new(float, 4 * nv) : NULL;
  g_autofree float *pos = g_new(float, 3 * nv);
  g_autofree float *nrm = d->normals ? g_new(float, 3 * nv) : NULL;
  rk_mat4 to_local = rk_mat4_identity(), model = rk_mat4_identity();
  if (attached) {
    /* A rigid mesh is stored in model space at bind time; under its joint's node it must be in
     * that joint's space. */
    g_autofree rk_mat4 *models = g_new(rk_mat4, rk_skeleton_joint_count(c->s));
    rk_skeleton_rest_models(c->s, models);
    model = models[d->attach_joint];
    if (!rk_mat4_inverse_affine(&model, &to_local)) {
      g_set_error(c->error, RK_ERROR, RK_ERROR_INVALID,
                  "%s: mesh '%s' is attached to joint '%s' whose rest pose is singular", c->path,
                  d->name, rk_skeleton_joint_name(c->s, (size_t)d->attach_joint));
      return false;
    }
  }
  for (size_t v = 0; v < nv; v++) {
    rk_vec3 p = rk_vec3_make(d->positions[3 * v], d->positions[3 * v + 1], d->positions[3 * v + 2]);
    if (attached)
      p = rk_mat4_transform_point(&to_local, p);
    bool ok = to_float(p.x, &pos[3 * v]) && to_float(p.y, &pos[3 * v + 1]) &&
              to_float(p.z, &pos[3 * v + 2]);
    if (!ok) {
      g_set_error(c->error, RK_ERROR, RK_ERROR_INVALID,
                  "%s: mesh '%s' vertex %zu has a position out of single-precision range", c->path,
                  d->name, v);
      return false;
    }
    if (nrm) {
      rk_vec3 q = rk_vec3_make(d->normals[3 * v], d->normals[3 * v + 1], d->normals[3 * v + 2]);
      if (attached) /* normals transform with the inverse transpose of to_local: model^T */
        q = rk_vec3_make(model.m[0] * q.x + model.m[1] * q.y + model.m[2] * q.z,
                         model.m[4] * q.x + model.m[5] * q.y + model.m[6] * q.z,
                         model.m[8] * q.x + model.m[9] * q.y + model.m[10] * q.z);
      q = rk_vec3_normalize(q);
      if (rk_vec3_norm(q) == 0) /* glTF requires unit normals; a degenerate one points up */
        q = rk_vec3_make(0, 1, 0);
      nrm[3 * v] = (float)q.x, nrm[3 * v + 1] = (float)q.y, nrm[3 * v + 2] = (float)q.z;
    }
  }
  JsonObject *attrs = json_object_new();
  JsonObject *prim = json_object_new();
  int a = add_accessor(c, GL_FLOAT, pos, nv, 3, TARGET_ARRAY_BUFFER, true);
  if (a < 0)
    goto fail;
  json_object_set_int_member(attrs, "POSITION", a);
  if (nrm) {
    if ((a = add_accessor(c, GL_FLOAT, nrm, nv, 3, TARGET_ARRAY_BUFFER, true)) < 0)
      goto fail;
    json_object_set_int_member(attrs, "NORMAL", a);
  }
  if (d->texcoords) {
    if ((a = add_accessor(c, GL_FLOAT, d->texcoords, nv, 2, TARGET_ARRAY_BUFFER, true)) < 0)
      goto fail;
    json_object_set_int_member(attrs, "TEXCOORD_0", a);
  }
  if (skinned) {
    for (size_t v = 0; v < nv; v++)
      vertex_weights(d->joints + 4 * v, d->weights + 4 * v, joints + 4 * v, weights + 4 * v);
    if ((a = add_accessor(c, GL_UNSIGNED_SHORT, joints, nv, 4, TARGET_ARRAY_BUFFER, true)) < 0)
      goto fail;
    json_object_set_int_member(attrs, "JOINTS_0", a);
    if ((a = add_accessor(c, GL_FLOAT, weights, nv, 4, TARGET_ARRAY_BUFFER, true)) < 0)
      goto fail;
    json_object_set_int_member(attrs, "WEIGHTS_0", a);
  }
  json_object_set_object_member(prim, "attributes", attrs);
  attrs = NULL;
  if (d->indices && d->index_count > 0) {
    /* 16-bit indices when they fit (65535 is the primitive-restart value, never an index). */
    if (nv < 65535) {
      uint16_t *idx = g_new(uint16_t, d->index_count);
      for (size_t i = 0; i < d->index_count; i++)
        idx[i] = (uint16_t)d->indices[i];
      a = add_accessor(c, GL_UNSIGNED_SHORT, idx, d->index_count, 1, TARGET_ELEMENT_ARRAY_BUFFER,
                       true);
      g_free(idx);
    } else {
      a = add_accessor(c, GL_UNSIGNED_INT, d->indices, d->index_count, 1,
                       TARGET_ELEMENT_ARRAY_BUFFER, true);
    }
    if (a < 0)
      goto fail;
    json_object_set_int_member(prim, "indices", a);
  }
  int mat = add_material(c, &d->material);
  if (mat >= 0)
    json_object_set_int_member(prim, "material", mat);
  JsonObject *m = json_object_new();
  json_object_set_string_member(m, "name", name);
  JsonArray *prims = json_array_new();
  json_array_add_object_element(prims, prim);
  json_object_set_array_member(m, "primitives", prims);
  json_array_add_object_element(c->meshes, m);
  const int mesh_idx = (int)json_array_get_length(c->meshes) - 1;

  int node = add_node(c, name);
  node_at(c, node)->mesh = mesh_idx;
  if (skinned)
    node_at(c, node)->skin = 0;
  if (attached)
    g_array_append_val(node_at(c, d->attach_joint)->children, node);
  return true;
fail:
  if (attrs)
    json_object_unref(attrs);
  json_object_unref(prim);
  return false;
}

/* ---- animations ------------------------------------------------------------------------------ */

typedef struct input_cache {
  const double *times; /* borrowed from the clip */
  size_t count;
  double extra; /* extra key time appended (the clip's duration), or -1 */
  int accessor;
} input_cache;

static int input_accessor(gltf_ctx *c, GArray *cache, const rk_clip *clip, const rk_track *t,
                          double extra) {
  for (guint i = 0; i < cache->len; i++) {
    const input_cache *e = &g_array_index(cache, input_cache, i);
    if (e->count == t->key_count && e->extra == extra &&
        memcmp(e->times, t->times, t->key_count * sizeof(double)) == 0)
      return e->accessor;
  }
  const size_t n = t->key_count + (extra >= 0 ? 1 : 0);
  g_autofree float *times = g_new(float, n);
  for (size_t k = 0; k < n; k++) {
    double tk = k < t->key_count ? t->times[k] : extra;
    bool ok = to_float(tk, &times[k]);
    if (!ok || (k > 0 && !(times[k] > times[k - 1]))) {
      g_set_error(c->error, RK_ERROR, RK_ERROR_UNSUPPORTED,
                  "%s: clip '%s', joint '%s', %s key %zu (t=%.9g s): key times must stay strictly "
                  "increasing in single precision (bake at a lower rate)",
                  c->path, rk_clip_name(clip), rk_skeleton_joint_name(c->s, (size_t)t->joint),
                  rk_channel_name(t->channel), k, tk);
      return -1;
    }
  }
  int a = add_accessor(c, GL_FLOAT, times, n, 1, 0, true);
  if (a >= 0) {
    input_cache e = {t->times, t->key_count, extra, a};
    g_array_append_val(cache, e);
  }
  return a;
}

/* Output values of one track (plus the holding key when extra), in float32. */
static int output_accessor(gltf_ctx *c, const rk_clip *clip, const rk_track *t, bool extra) {
  const size_t nc = (size_t)rk_channel_components(t->channel);
  const bool cubic = t->interp == RK_INTERP_CUBIC;
  const size_t per_key = nc * (cubic ? 3 : 1);
  const size_t n = t->key_count + (extra ? 1 : 0);
  g_autofree double *v = g_new(double, n * per_key);
  memcpy(v, t->values, t->key_count * per_key * sizeof(double));
  if (extra) {
    double *last = v + (t->key_count - 1) * per_key, *add = v + t->key_count * per_key;
    memcpy(add, last, per_key * sizeof(double));
    if (cubic) /* hold: zero tangents between the old last key and the added one */
      for (size_t k = 0; k < nc; k++)
        last[2 * nc + k] = add[k] = add[2 * nc + k] = 0;
  }
  if (t->channel == RK_CHANNEL_ROTATION) {
    for (size_t k = 0; k < n; k++) {
      double *key = v + k * per_key, *q = key + (cubic ? nc : 0);
      double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
      if (!(len > 0) || !isfinite(len)) {
        g_set_error(c->error, RK_ERROR, RK_ERROR_INVALID,
                    "%s: clip '%s', joint '%s', rotation key %zu is not a rotation", c->path,
                    rk_clip_name(clip), rk_skeleton_joint_name(c->s, (size_t)t->joint), k);
        return -1;
      }
      /* Cubic keys scale their tangents with the value so the curve keeps its shape. */
      for (size_t m = 0; m < per_key; m++)
        key[m] /= len;
      if (t->interp == RK_INTERP_LINEAR && k > 0) {
        const double *p = key - per_key;
        if (p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3] < 0)
          for (size_t m = 0; m < 4; m++)
            q[m] = -q[m];
      }
    }
  }
  g_autofree float *f = g_new(float, n * per_key);
  for (size_t i = 0; i < n * per_key; i++)
    if (!to_float(rk__export_clean_zero(v[i]), &f[i])) {
      g_set_error(c->error, RK_ERROR, RK_ERROR_INVALID,
                  "%s: clip '%s', joint '%s', %s key %zu: value %g is out of single-precision "
                  "range",
                  c->path, rk_clip_name(clip), rk_skeleton_joint_name(c->s, (size_t)t->joint),
                  rk_channel_name(t->channel), i / per_key, v[i]);
      return -1;
    }
  return add_accessor(c, GL_FLOAT, f, n * (cubic ? 3 : 1), (int)nc, 0, true);
}

static void add_channel(JsonArray *samplers, JsonArray *channels, int input, int output,
                        rk_interp interp, int node, rk_channel channel) {
  JsonObject *s = json_object_new();
  json_object_set_int_member(s, "input", input);
  json_object_set_int_member(s, "output", output);
  json_object_set_string_member(s, "interpolation", rk_interp_name(interp));
  json_array_add_object_element(samplers, s);
  JsonObject *ch = json_object_new();
  json_object_set_int_member(ch, "sampler", (gint64)json_array_get_length(samplers) - 1);
  JsonObject *target = json_object_new();
  json_object_set_int_member(target, "node", node);
  json_object_set_string_member(target, "path", rk_channel_name(channel));
  json_object_set_object_member(ch, "target", target);
  json_array_add_object_element(channels, ch);
}

static bool add_animation(gltf_ctx *c, const rk_clip *clip, size_t clip_index, GHashTable *names) {
  g_autoptr(JsonArray) samplers = json_array_new();
  g_autoptr(JsonArray) channels = json_array_new();
  g_autoptr(GArray) cache = g_array_new(FALSE, FALSE, sizeof(input_cache));
  const size_t nt = rk_clip_track_count(clip);
  const double duration = rk_clip_duration(clip);
  /* glTF has no duration of its own: an animation lasts until its last key. When the clip lasts
   * longer, the track with the latest last key holds its value in one added key. */
  double last = 0;
  size_t last_track = 0;
  for (size_t i = 0; i < nt; i++) {
    const rk_track *t = rk_clip_track(clip, i);
    if (t->times[t->key_count - 1] > last) {
      last = t->times[t->key_count - 1];
      last_track = i;
    }
  }
  const bool extend = nt > 0 && (float)duration > (float)last;
  for (size_t i = 0; i < nt; i++) {
    const rk_track *t = rk_clip_track(clip, i);
    const bool extra = extend && i == last_track;
    int in = input_accessor(c, cache, clip, t, extra ? duration : -1);
    if (in < 0)
      return false;
    int out = output_accessor(c, clip, t, extra);
    if (out < 0)
      return false;
    add_channel(samplers, channels, in, out, t->interp, t->joint, t->channel);
  }
  if (nt == 0) {
    /* An animation needs a channel: hold the first root's rest rotation over the duration. */
    const rk_quat q = rk_quat_normalize(rk_skeleton_rest(c->s, 0)->r);
    const double vals[8] = {q.x, q.y, q.z, q.w, q.x, q.y, q.z, q.w};
    const double times[2] = {0, duration};
    const rk_track t = {0, RK_CHANNEL_ROTATION, RK_INTERP_STEP, duration > 0 ? 2 : 1, times, vals};
    int in = input_accessor(c, cache, clip, &t, -1);
    int out = in < 0 ? -1 : output_accessor(c, clip, &t, false);
    if (out < 0)
      return false;
    add_channel(samplers, channels, in, out, t.interp, 0, RK_CHANNEL_ROTATION);
  }
  JsonObject *a = json_object_new();
  const char *cname = rk_clip_name(clip);
  g_autofree char *fallback = *cname ? NULL : g_strdup_printf("animation_%zu", clip_index);
  g_autofree char *name = rk__export_unique_name(names, fallback ? fallback : cname);
  json_object_set_string_member(a, "name", name);
  json_object_set_array_member(a, "channels", g_steal_pointer(&channels));
  json_object_set_array_member(a, "samplers", g_steal_pointer(&samplers));
  json_array_add_object_element(c->animations, a);
  return true;
}

/* ---- document -------------------------------------------------------------------------------- */

static JsonArray *double_array(const double *v, int n) {
  JsonArray *a = json_array_new();
  for (int i = 0; i < n; i++)
    json_array_add_double_element(a, rk__export_clean_zero(v[i]));
  return a;
}

static void set_array_if_any(JsonObject *root, const char *name, JsonArray *a) {
  if (json_array_get_length(a) > 0)
    json_object_set_array_member(root, name, json_array_ref(a));
}

static JsonObject *build_document(gltf_ctx *c, int skin_root, const char *bin_uri) {
  JsonObject *root = json_object_new();
  JsonObject *asset = json_object_new();
  json_object_set_string_member(asset, "generator", "rigkit " RK_VERSION_STRING);
  json_object_set_string_member(asset, "version", "2.0");
  json_object_set_object_member(root, "asset", asset);
  json_object_set_int_member(root, "scene", 0);

  JsonArray *scene_nodes = json_array_new();
  g_autofree bool *is_child = g_new0(bool, c->nodes->len);
  for (guint i = 0; i < c->nodes->len; i++) {
    node_desc *n = node_at(c, (int)i);
    for (guint k = 0; k < n->children->len; k++)
      is_child[g_array_index(n->children, int, k)] = true;
  }
  for (guint i = 0; i < c->nodes->len; i++)
    if (!is_child[i])
      json_array_add_int_element(scene_nodes, i);
  JsonObject *scene = json_object_new();
  json_object_set_array_member(scene, "nodes", scene_nodes);
  JsonArray *scenes = json_array_new();
  json_array_add_object_element(scenes, scene);
  json_object_set_array_member(root, "scenes", scenes);

  JsonArray *nodes = json_array_new();
  for (guint i = 0; i < c->nodes->len; i++) {
    node_desc *n = node_at(c, (int)i);
    JsonObject *o = json_object_new();
    json_object_set_string_member(o, "name", n->name);
    if (n->children->len > 0) {
      JsonArray *ch = json_array_new();
      for (guint k = 0; k < n->children->len; k++)
        json_array_add_int_element(ch, g_array_index(n->children, int, k));
      json_object_set_array_member(o, "children", ch);
    }
    if (n->mesh >= 0)
      json_object_set_int_member(o, "mesh", n->mesh);
    if (n->skin >= 0)
      json_object_set_int_member(o, "skin", n->skin);
    if (n->has_trs) {
      const rk_transform *x = &n->trs;
      if (x->t.x != 0 || x->t.y != 0 || x->t.z != 0)
        json_object_set_array_member(o, "translation", double_array(&x->t.x, 3));
      if (x->r.x != 0 || x->r.y != 0 || x->r.z != 0 || x->r.w != 1)
        json_object_set_array_member(o, "rotation", double_array(&x->r.x, 4));
      if (x->s.x != 1 || x->s.y != 1 || x->s.z != 1)
        json_object_set_array_member(o, "scale", double_array(&x->s.x, 3));
    }
    json_array_add_object_element(nodes, o);
  }
  json_object_set_array_member(root, "nodes", nodes);
  set_array_if_any(root, "meshes", c->meshes);
  set_array_if_any(root, "materials", c->materials);

  JsonObject *skin = json_object_new();
  json_object_set_string_member(skin, "name", "Armature");
  json_object_set_int_member(skin, "inverseBindMatrices", 0);
  if (skin_root >= 0)
    json_object_set_int_member(skin, "skeleton", skin_root);
  JsonArray *joints = json_array_new();
  for (size_t j = 0; j < rk_skeleton_joint_count(c->s); j++)
    json_array_add_int_element(joints, (gint64)j);
  json_object_set_array_member(skin, "joints", joints);
  JsonArray *skins = json_array_new();
  json_array_add_object_element(skins, skin);
  json_object_set_array_member(root, "skins", skins);

  set_array_if_any(root, "animations", c->animations);
  set_array_if_any(root, "accessors", c->accessors);
  set_array_if_any(root, "bufferViews", c->views);
  JsonObject *buffer = json_object_new();
  json_object_set_int_member(buffer, "byteLength", c->bin->len);
  if (bin_uri)
    json_object_set_string_member(buffer, "uri", bin_uri);
  JsonArray *buffers = json_array_new();
  json_array_add_object_element(buffers, buffer);
  json_object_set_array_member(root, "buffers", buffers);
  return root;
}

static void put_u32(guint8 *p, guint32 v) {
  p[0] = (guint8)v, p[1] = (guint8)(v >> 8), p[2] = (guint8)(v >> 16), p[3] = (guint8)(v >> 24);
}

static bool write_glb(gltf_ctx *c, const char *json, size_t json_len, GError **error) {
  const size_t json_padded = (json_len + 3) & ~(size_t)3;
  const size_t bin_padded = ((size_t)c->bin->len + 3) & ~(size_t)3;
  const size_t total = 12 + 8 + json_padded + 8 + bin_padded;
  if (total > G_MAXUINT32) {
    g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "%s: %zu bytes is more than a GLB file can hold",
                c->path, total);
    return false;
  }
  rk__atomic_file *f = rk__atomic_file_open(c->path, error);
  if (!f)
    return false;
  guint8 header[20];
  memcpy(header, "glTF", 4);
  put_u32(header + 4, 2);
  put_u32(header + 8, (guint32)total);
  put_u32(header + 12, (guint32)json_padded);
  memcpy(header + 16, "JSON", 4);
  rk__atomic_file_write(f, header, 20);
  rk__atomic_file_write(f, json, json_len);
  rk__atomic_file_write(f, "   ", json_padded - json_len);
  put_u32(header, (guint32)bin_padded);
  memcpy(header + 4, "BIN\0", 4);
  rk__atomic_file_write(f, header, 8);
  rk__atomic_file_write(f, c->bin->data, c->bin->len);
  rk__atomic_file_write(f, "\0\0\0", bin_padded - c->bin->len);
  return rk__atomic_file_commit(f, error);
}

static bool write_gltf(gltf_ctx *c, const char *json, size_t json_len, const char *bin_path,
                       GError **error) {
  rk__atomic_file *fj = rk__atomic_file_open(c->path, error);
  if (!fj)
    return false;
  rk__atomic_file *fb = rk__atomic_file_open(bin_path, error);
  if (!fb) {
    rk__atomic_file_abort(fj);
    return false;
  }
  rk__atomic_file_write(fb, c->bin->data, c->bin->len);
  rk__atomic_file_write(fj, json, json_len);
  rk__atomic_file_write(fj, "\n", 1);
  /* Both complete on disk before either is renamed: a failure leaves neither. */
  if (!rk__atomic_file_finish(fb, error) || !rk__atomic_file_finish(fj, error)) {
    rk__atomic_file_abort(fb);
    rk__atomic_file_abort(fj);
    return false;
  }
  if (!rk__atomic_file_commit(fb, error)) {
    rk__atomic_file_abort(fj);
    return false;
  }
  return rk__atomic_file_commit(fj, error);
}

char *rk__gltf_bin_path(const char *path) {
  const char *dot = rk__export_path_extension(path);
  const size_t stem = dot ? (size_t)(dot - path) : strlen(path);
  return g_strdup_printf("%.*s.bin", (int)stem, path);
}

bool rk__gltf_write(const rk_asset *asset, const char *path, const rk_export_options *opts,
                    bool glb, GError **error) {
  if (opts->unit == RK_EXPORT_UNIT_CENTIMETRES) {
    g_set_error(error, RK_ERROR, RK_ERROR_UNSUPPORTED,
                "%s: glTF is always in metres; centimetres are not allowed", path);
    return false;
  }
  g_autoptr(GPtrArray) clips = rk__export_select_clips(asset, opts, path, error);
  if (!clips)
    return false;
  gltf_ctx c = {0};
  c.asset = asset;
  c.s = rk_asset_skeleton(asset);
  c.path = path;
  c.error = error;
  c.bin = g_byte_array_new();
  c.accessors = json_array_new();
  c.views = json_array_new();
  c.meshes = json_array_new();
  c.materials = json_array_new();
  c.animations = json_array_new();
  c.nodes = g_array_new(FALSE, TRUE, sizeof(node_desc));
  g_array_set_clear_func(c.nodes, node_desc_clear);
  c.names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  bool ok = false;
  g_autofree char *bin_path = NULL, *bin_uri = NULL;
  int skin_root = -1;

  if (!add_skeleton(&c, &skin_root))
    goto out;
  if (!opts->skip_meshes)
    for (size_t i = 0; i < rk_asset_mesh_count(asset); i++)
      if (!add_mesh(&c, rk_asset_mesh(asset, i), i))
        goto out;
  {
    g_autoptr(GHashTable) anim_names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint i = 0; i < clips->len; i++)
      if (!add_animation(&c, g_ptr_array_index(clips, i), i, anim_names))
        goto out;
  }
  if (!glb) {
    bin_path = rk__gltf_bin_path(path);
    g_autofree char *base = g_path_get_basename(bin_path);
    bin_uri = g_uri_escape_string(base, NULL, TRUE);
  }
  {
    JsonObject *root = build_document(&c, skin_root, bin_uri);
    size_t len = 0;
    g_autofree char *json = rk__json_object_to_text(root, !glb, &len);
    json_object_unref(root);
    ok = glb ? write_glb(&c, json, len, error) : write_gltf(&c, json, len, bin_path, error);
  }
out:
  g_byte_array_unref(c.bin);
  json_array_unref(c.accessors);
  json_array_unref(c.views);
  json_array_unref(c.meshes);
  json_array_unref(c.materials);
  json_array_unref(c.animations);
  g_array_unref(c.nodes);
  g_hash_table_unref(c.names);
  return ok;
}
