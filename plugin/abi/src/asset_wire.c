/* An rk_asset as bytes and back (see asset_wire.h). Layout, in order: magic, the build's version
 * string, provenance, joints, clips, meshes, notes, end magic. Strings are a u32 length and the
 * bytes (0xFFFFFFFF for NULL); arrays follow their counts; doubles and floats are stored as they
 * are in memory. The reader rebuilds through the same builders the importers use, which normalise
 * rest rotations and skin weights again: those may differ in their last bit, nothing else. */
#include "asset_wire.h"

#include <string.h>

#define WIRE_MAGIC 0x31414b52u /* "RKA1" */
#define WIRE_ERROR 0x31454b52u /* "RKE1" */
#define WIRE_END 0x21444e45u   /* "END!" */
#define WIRE_NULL 0xffffffffu

/* ---- writing ------------------------------------------------------------------------------- */

static void put(GByteArray *o, const void *p, size_t n) {
  g_byte_array_append(o, p, (guint)n);
}
static void put_u32(GByteArray *o, uint32_t v) { put(o, &v, sizeof v); }
static void put_i32(GByteArray *o, int32_t v) { put(o, &v, sizeof v); }
static void put_f64(GByteArray *o, double v) { put(o, &v, sizeof v); }
static void put_str(GByteArray *o, const char *s) {
  if (!s) {
    put_u32(o, WIRE_NULL);
    return;
  }
  const size_t n = strlen(s);
  put_u32(o, (uint32_t)n);
  put(o, s, n);
}
/* A u8 flag then, when set, n bytes. */
static void put_opt(GByteArray *o, const void *p, size_t n) {
  const uint8_t has = p != NULL;
  put(o, &has, 1);
  if (p)
    put(o, p, n);
}

static void write_skeleton(const rk_asset *a, GByteArray *o) {
  const rk_skeleton *s = rk_asset_skeleton(a);
  const size_t n = rk_skeleton_joint_count(s);
  put_u32(o, (uint32_t)n);
  for (size_t i = 0; i < n; i++) {
    put_str(o, rk_skeleton_joint_name(s, i));
    put_i32(o, rk_skeleton_parent(s, i));
    put(o, rk_skeleton_rest(s, i), sizeof(rk_transform));
    put_u32(o, rk_skeleton_joint_flags(s, i));
    rk_mat4 ib;
    const bool has_ib = rk_skeleton_inverse_bind(s, i, &ib);
    put_opt(o, has_ib ? &ib : NULL, sizeof ib);
    rk_joint_mechanics m;
    memset(&m, 0, sizeof m);
    const bool has_m = rk_asset_joint_mechanics(a, i, &m);
    put_opt(o, has_m ? &m : NULL, sizeof m);
    put_i32(o, rk_asset_joint_source_node(a, i));
  }
}

static void write_clip(const rk_clip *c, GByteArray *o) {
  put_str(o, rk_clip_name(c));
  put_f64(o, rk_clip_duration(c));
  put_f64(o, rk_clip_fps(c));
  const size_t nt = rk_clip_track_count(c);
  put_u32(o, (uint32_t)nt);
  for (size_t t = 0; t < nt; t++) {
    const rk_track *tr = rk_clip_track(c, t);
    put_i32(o, tr->joint);
    put_i32(o, (int32_t)tr->channel);
    put_i32(o, (int32_t)tr->interp);
    put_u32(o, (uint32_t)tr->key_count);
    const size_t per = (size_t)rk_channel_components(tr->channel) *
                       (tr->interp == RK_INTERP_CUBIC ? 3 : 1);
    put(o, tr->times, tr->key_count * sizeof(double));
    put(o, tr->values, tr->key_count * per * sizeof(double));
  }
}

static void write_mesh(const rk_mesh_data *d, GByteArray *o) {
  const size_t n = d->vertex_count;
  put_str(o, d->name);
  put_u32(o, (uint32_t)n);
  put(o, d->positions, 3 * n * sizeof(float));
  put_opt(o, d->normals, 3 * n * sizeof(float));
  put_opt(o, d->texcoords, 2 * n * sizeof(float));
  put_u32(o, (uint32_t)d->index_count);
  put_opt(o, d->indices, d->index_count * sizeof(uint32_t));
  put_opt(o, d->joints, 4 * n * sizeof(uint16_t));
  put_opt(o, d->weights, 4 * n * sizeof(float));
  put_i32(o, d->attach_joint);
  put_str(o, d->material.name);
  put(o, d->material.base_color, sizeof d->material.base_color);
  put(o, &d->material.metallic, sizeof(float));
  put(o, &d->material.roughness, sizeof(float));
  const uint8_t ds = d->material.double_sided;
  put(o, &ds, 1);
  const rk_texture *tex = d->material.base_color_texture;
  const uint8_t has_tex = tex != NULL;
  put(o, &has_tex, 1);
  if (tex) {
    put_u32(o, (uint32_t)tex->size);
    put_opt(o, tex->data, tex->size);
    put_str(o, tex->mime_type);
    put_str(o, tex->path);
    put_u32(o, tex->uv_set);
  }
}

void rk__wire_asset_write(const rk_asset *a, GByteArray *o) {
  put_u32(o, WIRE_MAGIC);
  put_str(o, RK_VERSION_STRING);
  put_str(o, rk_asset_source_format(a));
  put_str(o, rk_asset_source_path(a));
  put_str(o, rk_asset_source_digest(a));
  put_str(o, rk_asset_unit_name(a));
  put_f64(o, rk_asset_unit_scale(a));
  put_str(o, rk_asset_up_axis(a));
  write_skeleton(a, o);
  put_u32(o, (uint32_t)rk_asset_clip_count(a));
  for (size_t i = 0; i < rk_asset_clip_count(a); i++)
    write_clip(rk_asset_clip(a, i), o);
  put_u32(o, (uint32_t)rk_asset_mesh_count(a));
  for (size_t i = 0; i < rk_asset_mesh_count(a); i++)
    write_mesh(rk_mesh_data_get(rk_asset_mesh(a, i)), o);
  put_u32(o, (uint32_t)rk_asset_note_count(a));
  for (size_t i = 0; i < rk_asset_note_count(a); i++)
    put_str(o, rk_asset_note(a, i));
  put_u32(o, WIRE_END);
}

void rk__wire_error_write(const GError *failure, GByteArray *o) {
  const bool ours = failure && failure->domain == RK_ERROR;
  put_u32(o, WIRE_ERROR);
  put_i32(o, ours ? failure->code : RK_ERROR_FAILED);
  put_str(o, failure ? failure->message : "the import failed");
  put_u32(o, WIRE_END);
}

/* ---- reading ------------------------------------------------------------------------------- */

typedef struct reader {
  const uint8_t *p, *end;
  GError **error;
  bool failed;
} reader;

/* Marks the reader failed with a message (the first failure wins); returns false. */
static bool bad(reader *r, const char *what) {
  if (!r->failed)
    g_set_error(r->error, RK_ERROR, RK_ERROR_PARSE, "asset bytes from the import helper: %s",
                what);
  r->failed = true;
  return false;
}

/* A borrowed pointer to the next n bytes, or NULL (reader failed) when fewer remain. */
static const void *take(reader *r, size_t n) {
  if (r->failed || (size_t)(r->end - r->p) < n) {
    bad(r, "cut short");
    return NULL;
  }
  const void *at = r->p;
  r->p += n;
  return at;
}

static bool get(reader *r, void *out, size_t n) {
  const void *p = take(r, n);
  if (p)
    memcpy(out, p, n);
  return p != NULL;
}
static uint32_t get_u32(reader *r) {
  uint32_t v = 0;
  get(r, &v, sizeof v);
  return v;
}
static int32_t get_i32(reader *r) {
  int32_t v = 0;
  get(r, &v, sizeof v);
  return v;
}
static double get_f64(reader *r) {
  double v = 0;
  get(r, &v, sizeof v);
  return v;
}
/* A new string (NULL for a written NULL or on failure; check r->failed). */
static char *get_str(reader *r) {
  const uint32_t n = get_u32(r);
  if (r->failed || n == WIRE_NULL)
    return NULL;
  const char *s = take(r, n);
  return s ? g_strndup(s, n) : NULL;
}
/* A count of items of item_size bytes each that the remaining bytes can hold. */
static size_t get_count(reader *r, size_t item_size) {
  const uint32_t n = get_u32(r);
  if (!r->failed && (size_t)n > (size_t)(r->end - r->p) / (item_size ? item_size : 1))
    bad(r, "a count larger than the bytes that follow");
  return r->failed ? 0 : n;
}
/* The optional block of put_opt: a borrowed pointer, or NULL when absent (or on failure). */
static const void *get_opt(reader *r, size_t n) {
  uint8_t has = 0;
  if (!get(r, &has, 1) || has > 1) {
    bad(r, "a bad presence flag");
    return NULL;
  }
  return has ? take(r, n) : NULL;
}
/* A copy of the next n bytes in aligned memory (the bytes may be unaligned), NULL on failure. */
static void *dup_raw(reader *r, size_t n) {
  const void *p = take(r, n);
  return p ? g_memdup2(p, n ? n : 1) : NULL;
}
/* The same for an optional block of put_opt. */
static void *dup_opt(reader *r, size_t n) {
  const void *p = get_opt(r, n);
  return p ? g_memdup2(p, n ? n : 1) : NULL;
}

static rk_skeleton *read_skeleton(reader *r, GArray *mechanics, GArray *has_mechanics,
                                  GArray *source_nodes) {
  const size_t n = get_count(r, sizeof(int32_t) + sizeof(rk_transform));
  if (n == 0)
    return bad(r, "no joints"), NULL;
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  for (size_t i = 0; i < n && !r->failed; i++) {
    g_autofree char *name = get_str(r);
    const int32_t parent = get_i32(r);
    rk_transform rest;
    get(r, &rest, sizeof rest);
    const uint32_t flags = get_u32(r);
    if (r->failed || !name)
      return bad(r, "a joint without a name"), NULL;
    rk_skeleton_builder_add_joint(b, name, parent, &rest, flags);
    const rk_mat4 *ib = get_opt(r, sizeof(rk_mat4));
    if (ib) {
      rk_mat4 m;
      memcpy(&m, ib, sizeof m);
      rk_skeleton_builder_set_inverse_bind(b, (int)i, &m);
    }
    rk_joint_mechanics m = {0};
    const void *pm = get_opt(r, sizeof m);
    if (pm)
      memcpy(&m, pm, sizeof m);
    const bool has = pm != NULL;
    g_array_append_val(mechanics, m);
    g_array_append_val(has_mechanics, has);
    const int node = get_i32(r);
    g_array_append_val(source_nodes, node);
  }
  if (r->failed)
    return NULL;
  g_autofree int *remap = g_new(int, n);
  rk_skeleton *s = rk_skeleton_builder_build(b, remap, r->error);
  if (!s) {
    r->failed = true;
    return NULL;
  }
  for (size_t i = 0; i < n; i++)
    if (remap[i] != (int)i) { /* the writer wrote a built skeleton: preorder already */
      rk_skeleton_unref(s);
      return bad(r, "joints out of preorder"), NULL;
    }
  return s;
}

static rk_clip *read_clip(reader *r, size_t joints) {
  g_autofree char *name = get_str(r);
  const double duration = get_f64(r);
  const double fps = get_f64(r);
  const size_t nt = get_count(r, 4 * sizeof(int32_t));
  if (r->failed)
    return NULL;
  g_autoptr(rk_clip) c = rk_clip_new(name, joints);
  for (size_t t = 0; t < nt; t++) {
    rk_track tr = {0};
    tr.joint = get_i32(r);
    const int32_t channel = get_i32(r), interp = get_i32(r);
    tr.key_count = get_count(r, sizeof(double));
    if (r->failed)
      return NULL;
    if (channel < RK_CHANNEL_TRANSLATION || channel > RK_CHANNEL_SCALE || interp < RK_INTERP_STEP ||
        interp > RK_INTERP_CUBIC)
      return bad(r, "a track of an unknown channel or interpolation"), NULL;
    tr.channel = (rk_channel)channel;
    tr.interp = (rk_interp)interp;
    const size_t per =
        (size_t)rk_channel_components(tr.channel) * (tr.interp == RK_INTERP_CUBIC ? 3 : 1);
    g_autofree double *times = dup_raw(r, tr.key_count * sizeof(double));
    if (!r->failed && tr.key_count > (size_t)(r->end - r->p) / (per * sizeof(double)))
      bad(r, "track values cut short");
    g_autofree double *values = r->failed ? NULL : dup_raw(r, tr.key_count * per * sizeof(double));
    if (r->failed)
      return NULL;
    tr.times = times;
    tr.values = values;
    if (!rk_clip_add_track(c, &tr, r->error)) {
      r->failed = true;
      return NULL;
    }
  }
  rk_clip_set_fps(c, fps);
  rk_clip_set_duration(c, duration);
  return g_steal_pointer(&c);
}

/* The arrays of one mesh (owned here until rk_mesh_new copies them). */
typedef struct mesh_arrays {
  char *name, *material_name, *mime_type, *texture_path;
  float *positions, *normals, *texcoords, *weights;
  uint32_t *indices;
  uint16_t *joints;
  uint8_t *texture_data;
} mesh_arrays;

static void mesh_arrays_clear(mesh_arrays *m) {
  g_free(m->name), g_free(m->material_name), g_free(m->positions), g_free(m->normals);
  g_free(m->texcoords), g_free(m->weights), g_free(m->indices), g_free(m->joints);
  g_free(m->mime_type), g_free(m->texture_path), g_free(m->texture_data);
}

/* The material's base-colour texture, when the writer put one (*tex filled, arrays in m). */
static bool read_texture(reader *r, mesh_arrays *m, rk_texture *tex) {
  uint8_t has = 0;
  if (!get(r, &has, 1) || has > 1)
    return bad(r, "a bad texture flag");
  if (!has)
    return false;
  tex->size = get_count(r, 1);
  m->texture_data = dup_opt(r, tex->size);
  m->mime_type = get_str(r);
  m->texture_path = get_str(r);
  tex->uv_set = get_u32(r);
  tex->data = m->texture_data;
  tex->mime_type = m->mime_type;
  tex->path = m->texture_path;
  return !r->failed;
}

static rk_mesh *read_mesh(reader *r, size_t joints) {
  mesh_arrays m = {0};
  rk_mesh_data d = {0};
  m.name = get_str(r);
  d.vertex_count = get_count(r, 3 * sizeof(float));
  const size_t n = d.vertex_count;
  m.positions = dup_raw(r, 3 * n * sizeof(float));
  m.normals = dup_opt(r, 3 * n * sizeof(float));
  m.texcoords = dup_opt(r, 2 * n * sizeof(float));
  d.index_count = get_count(r, 0);
  if (!r->failed && d.index_count > (size_t)(r->end - r->p) / sizeof(uint32_t))
    bad(r, "mesh indices cut short");
  m.indices = r->failed ? NULL : dup_opt(r, d.index_count * sizeof(uint32_t));
  m.joints = dup_opt(r, 4 * n * sizeof(uint16_t));
  m.weights = dup_opt(r, 4 * n * sizeof(float));
  d.attach_joint = get_i32(r);
  m.material_name = get_str(r);
  get(r, d.material.base_color, sizeof d.material.base_color);
  get(r, &d.material.metallic, sizeof(float));
  get(r, &d.material.roughness, sizeof(float));
  uint8_t ds = 0;
  get(r, &ds, 1);
  rk_texture tex = {0};
  if (read_texture(r, &m, &tex))
    d.material.base_color_texture = &tex;
  rk_mesh *mesh = NULL;
  if (!r->failed) {
    d.name = m.name, d.positions = m.positions, d.normals = m.normals;
    d.texcoords = m.texcoords, d.indices = m.indices, d.joints = m.joints, d.weights = m.weights;
    d.material.name = m.material_name;
    d.material.double_sided = ds != 0;
    mesh = rk_mesh_new(&d, joints, r->error);
    r->failed = !mesh;
  }
  mesh_arrays_clear(&m);
  return mesh;
}

/* Provenance, clips, meshes and notes after the skeleton. */
static bool read_contents(reader *r, rk_asset *a) {
  const size_t joints = rk_skeleton_joint_count(rk_asset_skeleton(a));
  const size_t nc = get_count(r, sizeof(uint32_t));
  for (size_t i = 0; i < nc && !r->failed; i++) {
    rk_clip *c = read_clip(r, joints);
    if (c && !rk_asset_add_clip(a, c)) {
      rk_clip_free(c);
      return bad(r, "a clip of another skeleton");
    }
  }
  const size_t nm = get_count(r, sizeof(uint32_t));
  for (size_t i = 0; i < nm && !r->failed; i++) {
    rk_mesh *m = read_mesh(r, joints);
    if (m)
      rk_asset_add_mesh(a, m);
  }
  const size_t nn = get_count(r, sizeof(uint32_t));
  for (size_t i = 0; i < nn && !r->failed; i++) {
    g_autofree char *note = get_str(r);
    if (note)
      rk_asset_add_note(a, "%s", note);
  }
  if (!r->failed && get_u32(r) != WIRE_END)
    return bad(r, "no end mark");
  if (!r->failed && r->p != r->end)
    return bad(r, "bytes after the end mark");
  return !r->failed;
}

rk_asset *rk__wire_asset_read(const uint8_t *data, size_t size, GError **error) {
  reader r = {data, data + size, error, false};
  if (get_u32(&r) != WIRE_MAGIC)
    return bad(&r, "not an asset (bad magic)"), NULL;
  g_autofree char *version = get_str(&r);
  if (!r.failed && g_strcmp0(version, RK_VERSION_STRING) != 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_UNSUPPORTED,
                "the import helper is rigkit %s, the plugin rigkit %s: install both from one build",
                version ? version : "?", RK_VERSION_STRING);
    return NULL;
  }
  g_autofree char *format = get_str(&r), *path = get_str(&r), *digest = get_str(&r),
                  *unit = get_str(&r);
  const double unit_scale = get_f64(&r);
  g_autofree char *up = get_str(&r);
  g_autoptr(GArray) mech = g_array_new(FALSE, FALSE, sizeof(rk_joint_mechanics));
  g_autoptr(GArray) has_mech = g_array_new(FALSE, FALSE, sizeof(bool));
  g_autoptr(GArray) nodes = g_array_new(FALSE, FALSE, sizeof(int));
  rk_skeleton *s = r.failed ? NULL : read_skeleton(&r, mech, has_mech, nodes);
  if (!s)
    return NULL;
  g_autoptr(rk_asset) a = rk_asset_new(s);
  rk_skeleton_unref(s);
  rk_asset_set_source(a, format ? format : "", path ? path : "");
  rk_asset_set_source_digest(a, digest);
  rk_asset_set_unit(a, unit ? unit : "m", unit_scale);
  rk_asset_set_up_axis(a, up ? up : "Y");
  for (guint i = 0; i < mech->len; i++)
    if (g_array_index(has_mech, bool, i) &&
        !rk_asset_set_joint_mechanics(a, i, &g_array_index(mech, rk_joint_mechanics, i)))
      return bad(&r, "bad joint mechanics"), NULL;
  for (guint i = 0; i < nodes->len; i++)
    if (g_array_index(nodes, int, i) >= 0 &&
        !rk_asset_set_joint_source_node(a, i, g_array_index(nodes, int, i)))
      return bad(&r, "a bad source node"), NULL;
  if (!read_contents(&r, a))
    return NULL;
  return g_steal_pointer(&a);
}

rk__wire_kind rk__wire_reply_read(const uint8_t *data, size_t size, rk_asset **asset,
                                  GError **error) {
  *asset = NULL;
  uint32_t magic = 0;
  if (size >= sizeof magic)
    memcpy(&magic, data, sizeof magic);
  if (magic != WIRE_ERROR) {
    *asset = rk__wire_asset_read(data, size, error);
    return *asset ? RK__WIRE_ASSET : RK__WIRE_MALFORMED;
  }
  reader r = {data + sizeof magic, data + size, error, false};
  const int32_t code = get_i32(&r);
  g_autofree char *message = get_str(&r);
  if (!r.failed && (get_u32(&r) != WIRE_END || r.p != r.end))
    bad(&r, "an error record without its end mark");
  if (r.failed)
    return RK__WIRE_MALFORMED;
  g_set_error_literal(error, RK_ERROR, code >= 0 && code < RK_ERROR_N_CODES ? code : RK_ERROR_FAILED,
                      message ? message : "the import failed");
  return RK__WIRE_ERROR;
}
