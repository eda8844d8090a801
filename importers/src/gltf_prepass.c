/* glTF 2.0 pre-pass, run before Assimp sees a .gltf/.glb file:
 *  - checks the GLB container and the JSON, and every index and byte range Assimp would follow
 *    (Assimp 5.2.5 trusts them and can crash or loop on a malformed file), refusing absurd
 *    declared sizes before anything is allocated for them;
 *  - makes node names unique: Assimp keeps duplicate names and binds animation channels by name
 *    (quaternius-style rigs name mesh nodes like the bones), so the channels would bind to the wrong
 *    node; the node that is a skin joint (else an animation target, else one without a mesh) keeps
 *    its name, the others become "<name>.001", ... and the file is rewritten for Assimp;
 *  - records each channel's interpolation (Assimp 5.2.5 drops it) and, for CUBICSPLINE, reads
 *    the keys with their tangents (Assimp keeps only the values). */
#include "gltf_prepass.h"

#include <json-glib/json-glib.h>
#include <glib/gstdio.h>
#include <string.h>

#define GLB_MAGIC 0x46546C67u
#define GLB_JSON 0x4E4F534Au
#define GLB_BIN 0x004E4942u

/* Largest element count rigkit accepts in one accessor (keys, vertices, indices). */
#define MAX_ACCESSOR_COUNT ((gint64)RK_MESH_MAX_VERTICES * 3)
/* Largest accessor without a bufferView (all zeros, or sparse): no bytes of the file back its
 * declared size, yet Assimp materialises it (a 3 KB file could claim gigabytes). */
#define MAX_ZERO_ACCESSOR_BYTES ((double)(64u << 20))

typedef struct ctx {
  const rk__source *src;
  bool glb;
  const uint8_t *json;
  size_t json_size;
  const uint8_t *bin; /* GLB BIN chunk or NULL */
  size_t bin_size;
  JsonObject *root;
  JsonArray *buffers, *views, *accessors, *nodes, *meshes, *skins, *anims, *scenes;
  GPtrArray *buffer_data; /* GBytes * per buffer, loaded on demand (NULL = not yet) */
} ctx;

static guint32 rd32(const uint8_t *p) {
  return (guint32)p[0] | (guint32)p[1] << 8 | (guint32)p[2] << 16 | (guint32)p[3] << 24;
}

/* ---- typed JSON access -------------------------------------------------------------------------- */

static JsonArray *get_array(JsonObject *o, const char *name) {
  if (!o || !json_object_has_member(o, name))
    return NULL;
  JsonNode *n = json_object_get_member(o, name);
  return JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
}

static JsonObject *get_object(JsonObject *o, const char *name) {
  if (!o || !json_object_has_member(o, name))
    return NULL;
  JsonNode *n = json_object_get_member(o, name);
  return JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

static bool node_number(JsonNode *n, double *out) {
  if (!n || !JSON_NODE_HOLDS_VALUE(n))
    return false;
  GType t = json_node_get_value_type(n);
  if (t == G_TYPE_INT64)
    *out = (double)json_node_get_int(n);
  else if (t == G_TYPE_DOUBLE)
    *out = json_node_get_double(n);
  else
    return false;
  return isfinite(*out);
}

/* 1 = present and a number, 0 = absent, -1 = present but not a number. */
static int get_number(JsonObject *o, const char *name, double *out) {
  if (!o || !json_object_has_member(o, name))
    return 0;
  return node_number(json_object_get_member(o, name), out) ? 1 : -1;
}

static const char *get_string(JsonObject *o, const char *name) {
  if (!o || !json_object_has_member(o, name))
    return NULL;
  JsonNode *n = json_object_get_member(o, name);
  if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string(n);
}

static JsonObject *array_object(JsonArray *a, guint i) {
  if (!a || i >= json_array_get_length(a))
    return NULL;
  JsonNode *n = json_array_get_element(a, i);
  return JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

static guint array_len(JsonArray *a) {
  return a ? json_array_get_length(a) : 0;
}

/* An array element that must be an object: false with an error naming it when it is not. */
static bool need_object(JsonObject *o, const char *what, GError **error) {
  if (!o)
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s is not an object", what);
  return o != NULL;
}

/* Reads an optional index member: true when absent (*out = -1) or a valid index < limit. */
static bool get_index(ctx *c, JsonObject *o, const char *name, guint limit, gint64 *out,
                      const char *what, GError **error) {
  *out = -1;
  double v;
  int r = get_number(o, name, &v);
  if (r == 0)
    return true;
  if (r < 0 || v != floor(v) || v < 0 || v >= limit) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: '%s' is not a valid index (%u available)",
                what, name, limit);
    return false;
  }
  *out = (gint64)v;
  return true;
}

/* ---- validation --------------------------------------------------------------------------------- */

static int component_size(int type) {
  switch (type) {
  case 5120: /* BYTE */
  case 5121: /* UNSIGNED_BYTE */
    return 1;
  case 5122: /* SHORT */
  case 5123: /* UNSIGNED_SHORT */
    return 2;
  case 5125: /* UNSIGNED_INT */
  case 5126: /* FLOAT */
    return 4;
  default:
    return 0;
  }
}

static int type_components(const char *type) {
  static const struct {
    const char *name;
    int n;
  } types[] = {{"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4},
               {"MAT2", 4},   {"MAT3", 9}, {"MAT4", 16}};
  if (!type)
    return 0;
  for (size_t i = 0; i < G_N_ELEMENTS(types); i++)
    if (strcmp(type, types[i].name) == 0)
      return types[i].n;
  return 0;
}

/* Whether `count` elements of `elem` bytes from byteOffset of the object's bufferView lie in it. */
static bool view_holds(ctx *c, JsonObject *o, double count, double elem) {
  gint64 view;
  double off = 0, vlen = 0;
  if (!get_index(c, o, "bufferView", array_len(c->views), &view, "", NULL) || view < 0 ||
      get_number(o, "byteOffset", &off) < 0 || off < 0)
    return false;
  get_number(array_object(c->views, (guint)view), "byteLength", &vlen);
  return off + count * elem <= vlen;
}

/* A sparse accessor: its count of replaced elements, their indices and values must lie in their
 * bufferViews (Assimp reads them without checking). */
static bool check_sparse(ctx *c, JsonObject *a, double count, double elem, const char *what,
                         GError **error) {
  JsonObject *sp = get_object(a, "sparse");
  JsonObject *ind = get_object(sp, "indices"), *val = get_object(sp, "values");
  double n = 0, itype = 0;
  const bool ok = sp && ind && val && get_number(sp, "count", &n) == 1 && n >= 1 &&
                  n == floor(n) && n <= count && get_number(ind, "componentType", &itype) == 1 &&
                  (itype == 5121 || itype == 5123 || itype == 5125) &&
                  view_holds(c, ind, n, component_size((int)itype)) && view_holds(c, val, n, elem);
  if (!ok)
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                "%s: invalid sparse count, indices or values (or they do not fit their bufferViews)",
                what);
  return ok;
}

/* A data URI must be what Assimp 5.2.5 parses safely. Its parser keeps the offsets of the media
 * type, parameters and data in signed `char`s written into the string, so with a header (up to
 * the comma) longer than 127 bytes they wrap negative and it decodes from before the data, up to
 * 128 bytes before the string (found by fuzz_gltf: it then threw, leaking memory); its base64
 * decoder throws, leaking, on a byte >= 0x80 or a length that is not a multiple of 4. So: a
 * header of at most 100 bytes, strict padded base64. *holds = decoded bytes, computed without
 * decoding (0 for URIs that are not base64 data URIs). */
static bool check_data_uri(const char *uri, const char *what, guint i, size_t *holds,
                           GError **error) {
  *holds = 0;
  if (!g_str_has_prefix(uri, "data:"))
    return true;
  const char *comma = strchr(uri, ',');
  if (!comma || comma - uri > 100) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                "%s %u: data URI without a comma in its first 100 bytes (media type and "
                "parameters)", what, i);
    return false;
  }
  if (!g_strstr_len(uri, comma - uri, ";base64"))
    return true;
  const char *b = comma + 1;
  const size_t chars = strlen(b);
  size_t pad = 0;
  while (pad < 2 && chars > pad && b[chars - 1 - pad] == '=')
    pad++;
  for (size_t k = 0; k < chars - pad; k++)
    if (!g_ascii_isalnum(b[k]) && b[k] != '+' && b[k] != '/') {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                  "%s %u: the data URI is not base64 (character %zu)", what, i, k + 1);
      return false;
    }
  if (chars % 4 != 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                "%s %u: the data URI's base64 is %zu characters, not a multiple of 4", what, i,
                chars);
    return false;
  }
  *holds = chars / 4 * 3 - pad;
  return true;
}

static bool check_buffers(ctx *c, GError **error) {
  JsonArray *images = get_array(c->root, "images");
  for (guint i = 0; i < array_len(images); i++) {
    const char *uri = get_string(array_object(images, i), "uri");
    size_t holds;
    if (uri && !check_data_uri(uri, "image", i, &holds, error))
      return false;
  }
  for (guint i = 0; i < array_len(c->buffers); i++) {
    JsonObject *b = array_object(c->buffers, i);
    double len;
    if (!b || get_number(b, "byteLength", &len) != 1 || len < 0 || len != floor(len)) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "buffer %u has no valid byteLength", i);
      return false;
    }
    if (len > (double)RK__IMPORT_MAX_FILE_SIZE) {
      g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "buffer %u declares %.0f bytes (limit 1 GiB)",
                  i, len);
      return false;
    }
    const char *uri = get_string(b, "uri");
    if (!uri && (!c->glb || i != 0)) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "buffer %u has no uri", i);
      return false;
    }
    size_t holds = 0;
    if (uri && !check_data_uri(uri, "buffer", i, &holds, error))
      return false;
    if (uri && g_str_has_prefix(uri, "data:") && (double)holds < len) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                  "buffer %u declares %.0f bytes but its data URI holds %zu", i, len, holds);
      return false;
    }
    if (!uri && (size_t)len > c->bin_size) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                  "buffer 0 declares %.0f bytes but the GLB BIN chunk has %zu (truncated?)", len,
                  c->bin_size);
      return false;
    }
  }
  for (guint i = 0; i < array_len(c->views); i++) {
    JsonObject *v = array_object(c->views, i);
    g_autofree char *what = g_strdup_printf("bufferView %u", i);
    gint64 buf;
    double off = 0, len = -1, stride = 0;
    if (!need_object(v, what, error) ||
        !get_index(c, v, "buffer", array_len(c->buffers), &buf, what, error))
      return false;
    if (buf < 0 || get_number(v, "byteLength", &len) != 1 || len < 0 ||
        get_number(v, "byteOffset", &off) < 0 || off < 0 ||
        get_number(v, "byteStride", &stride) < 0 || (stride != 0 && (stride < 4 || stride > 252))) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: missing or invalid buffer, byteOffset, "
                  "byteLength or byteStride", what);
      return false;
    }
    double blen = 0;
    get_number(array_object(c->buffers, (guint)buf), "byteLength", &blen);
    if (off + len > blen) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                  "%s: bytes %.0f..%.0f lie outside buffer %" G_GINT64_FORMAT " (%.0f bytes)", what,
                  off, off + len, buf, blen);
      return false;
    }
  }
  for (guint i = 0; i < array_len(c->accessors); i++) {
    JsonObject *a = array_object(c->accessors, i);
    g_autofree char *what = g_strdup_printf("accessor %u", i);
    gint64 view;
    double count = -1, off = 0, ctype = 0;
    if (!need_object(a, what, error) ||
        !get_index(c, a, "bufferView", array_len(c->views), &view, what, error))
      return false;
    const int comps = type_components(get_string(a, "type"));
    if (get_number(a, "count", &count) != 1 || count < 1 || count != floor(count) ||
        get_number(a, "componentType", &ctype) != 1 || component_size((int)ctype) == 0 ||
        comps == 0 || get_number(a, "byteOffset", &off) < 0 || off < 0) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                  "%s: missing or invalid count, componentType, type or byteOffset", what);
      return false;
    }
    if (count > (double)MAX_ACCESSOR_COUNT) {
      g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "%s declares %.0f elements (limit %" G_GINT64_FORMAT ")",
                  what, count, MAX_ACCESSOR_COUNT);
      return false;
    }
    const double elem = (double)component_size((int)ctype) * comps;
    if (json_object_has_member(a, "sparse") && !check_sparse(c, a, count, elem, what, error))
      return false;
    if (view < 0) {
      if (count * elem > MAX_ZERO_ACCESSOR_BYTES) {
        g_set_error(error, RK_ERROR, RK_ERROR_LIMIT,
                    "%s has no bufferView and declares %.0f bytes of zeros (limit %.0f)", what,
                    count * elem, MAX_ZERO_ACCESSOR_BYTES);
        return false;
      }
      continue; /* all zeros (or sparse): no bytes to check */
    }
    JsonObject *v = array_object(c->views, (guint)view);
    double vlen = 0, stride = 0;
    get_number(v, "byteLength", &vlen);
    get_number(v, "byteStride", &stride);
    const double step = stride > 0 ? stride : elem;
    if (off + (count - 1) * step + elem > vlen) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                  "%s: %.0f elements do not fit in bufferView %" G_GINT64_FORMAT " (%.0f bytes)",
                  what, count, view, vlen);
      return false;
    }
  }
  return true;
}

static double accessor_count(ctx *c, gint64 i) {
  double n = 0;
  get_number(array_object(c->accessors, (guint)i), "count", &n);
  return n;
}

static bool check_nodes(ctx *c, GError **error) {
  const guint n = array_len(c->nodes);
  if (n > 10u * RK_SKELETON_MAX_JOINTS) {
    g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "%u nodes (limit %u)", n,
                10u * RK_SKELETON_MAX_JOINTS);
    return false;
  }
  g_autofree gint64 *parent = g_new(gint64, n ? n : 1);
  for (guint i = 0; i < n; i++)
    parent[i] = -1;
  for (guint i = 0; i < n; i++) {
    JsonObject *o = array_object(c->nodes, i);
    g_autofree char *what = g_strdup_printf("node %u", i);
    gint64 idx;
    if (!o) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s is not an object", what);
      return false;
    }
    if (!get_index(c, o, "mesh", array_len(c->meshes), &idx, what, error) ||
        !get_index(c, o, "skin", array_len(c->skins), &idx, what, error))
      return false;
    const char *name = get_string(o, "name");
    if (name && strlen(name) > RK_SKELETON_MAX_NAME) {
      g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "%s has a %zu-byte name (limit %d)", what,
                  strlen(name), RK_SKELETON_MAX_NAME);
      return false;
    }
    static const struct {
      const char *name;
      int len;
    } vecs[] = {{"translation", 3}, {"rotation", 4}, {"scale", 3}, {"matrix", 16}};
    for (size_t k = 0; k < G_N_ELEMENTS(vecs); k++) {
      if (!json_object_has_member(o, vecs[k].name))
        continue;
      JsonArray *a = get_array(o, vecs[k].name);
      bool ok = a && (int)array_len(a) == vecs[k].len;
      for (guint e = 0; ok && e < array_len(a); e++) {
        double v;
        ok = node_number(json_array_get_element(a, e), &v);
      }
      if (!ok) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: '%s' is not %d finite numbers", what,
                    vecs[k].name, vecs[k].len);
        return false;
      }
    }
    JsonArray *ch = get_array(o, "children");
    if (json_object_has_member(o, "children") && !ch) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: 'children' is not an array", what);
      return false;
    }
    for (guint k = 0; k < array_len(ch); k++) {
      double v;
      if (!node_number(json_array_get_element(ch, k), &v) || v != floor(v) || v < 0 || v >= n) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: child %u is not a valid node index",
                    what, k);
        return false;
      }
      const gint64 child = (gint64)v;
      if (parent[child] >= 0 || child == (gint64)i) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                    "node %" G_GINT64_FORMAT " has more than one parent (or is its own child)",
                    child);
        return false;
      }
      parent[child] = i;
    }
  }
  /* Cycles: from every node, the parent chain must end within n steps. */
  for (guint i = 0; i < n; i++) {
    gint64 j = i;
    guint steps = 0;
    while (j >= 0 && steps <= n) {
      j = parent[j];
      steps++;
    }
    if (j >= 0) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "node %u is part of a cycle of children", i);
      return false;
    }
  }
  for (guint s = 0; s < array_len(c->scenes); s++) {
    JsonArray *roots = get_array(array_object(c->scenes, s), "nodes");
    for (guint k = 0; k < array_len(roots); k++) {
      double v;
      if (!node_number(json_array_get_element(roots, k), &v) || v != floor(v) || v < 0 || v >= n) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "scene %u: node %u is not a valid index", s, k);
        return false;
      }
    }
  }
  return true;
}

/* Accessor types the glTF 2.0 specification allows for a use. types: "VEC3", "VEC4|SCALAR", ...;
 * components: a mask of componentType bits (FLOAT, and the integer types) */
enum { CT_FLOAT = 1, CT_UBYTE = 2, CT_BYTE = 4, CT_USHORT = 8, CT_SHORT = 16, CT_UINT = 32 };

static int component_bit(int type) {
  switch (type) {
  case 5126:
    return CT_FLOAT;
  case 5121:
    return CT_UBYTE;
  case 5120:
    return CT_BYTE;
  case 5123:
    return CT_USHORT;
  case 5122:
    return CT_SHORT;
  case 5125:
    return CT_UINT;
  default:
    return 0;
  }
}

/* Checks that accessor idx (>= 0, already a valid index) has one of the types and component
 * types of its use. Assimp 5.2.5 throws on a mismatch deep inside its reader (leaking what it
 * allocated) or reads the wrong number of bytes; rigkit names the fault instead. */
static bool check_use(ctx *c, gint64 idx, const char *types, int components, const char *what,
                      const char *use, GError **error) {
  JsonObject *a = array_object(c->accessors, (guint)idx);
  const char *type = get_string(a, "type");
  double ct = 0;
  get_number(a, "componentType", &ct);
  g_auto(GStrv) allowed = g_strsplit(types, "|", -1);
  bool type_ok = false;
  for (char **t = allowed; *t; t++)
    type_ok = type_ok || (type && strcmp(type, *t) == 0);
  if (!type_ok || !(component_bit((int)ct) & components)) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                "%s: accessor %" G_GINT64_FORMAT " (%s of component type %.0f) cannot hold %s",
                what, idx, type ? type : "?", ct, use);
    return false;
  }
  return true;
}

static bool check_meshes_skins(ctx *c, GError **error) {
  const guint na = array_len(c->accessors);
  for (guint m = 0; m < array_len(c->meshes); m++) {
    JsonArray *prims = get_array(array_object(c->meshes, m), "primitives");
    for (guint p = 0; p < array_len(prims); p++) {
      JsonObject *prim = array_object(prims, p);
      g_autofree char *what = g_strdup_printf("mesh %u primitive %u", m, p);
      gint64 idx;
      if (!need_object(prim, what, error) ||
          !get_index(c, prim, "indices", na, &idx, what, error) ||
          !get_index(c, prim, "material", G_MAXUINT, &idx, what, error))
        return false;
      JsonObject *attrs = get_object(prim, "attributes");
      if (!attrs) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s has no attributes", what);
        return false;
      }
      g_autoptr(GList) names = json_object_get_members(attrs);
      for (GList *l = names; l; l = l->next) {
        const char *attr = l->data;
        if (!get_index(c, attrs, attr, na, &idx, what, error))
          return false;
        const bool ok =
            idx < 0 ||
            ((strcmp(attr, "POSITION") == 0 || strcmp(attr, "NORMAL") == 0)
                 ? check_use(c, idx, "VEC3", CT_FLOAT, what, attr, error)
             : g_str_has_prefix(attr, "JOINTS_")
                 ? check_use(c, idx, "VEC4", CT_UBYTE | CT_USHORT, what, attr, error)
             : g_str_has_prefix(attr, "WEIGHTS_")
                 ? check_use(c, idx, "VEC4", CT_FLOAT | CT_UBYTE | CT_USHORT, what, attr, error)
             : g_str_has_prefix(attr, "TEXCOORD_")
                 ? check_use(c, idx, "VEC2", CT_FLOAT | CT_UBYTE | CT_USHORT, what, attr, error)
                 : true);
        if (!ok)
          return false;
      }
      if (!get_index(c, prim, "indices", na, &idx, what, error) ||
          (idx >= 0 &&
           !check_use(c, idx, "SCALAR", CT_UBYTE | CT_USHORT | CT_UINT, what, "indices", error)))
        return false;
    }
  }
  for (guint s = 0; s < array_len(c->skins); s++) {
    JsonObject *skin = array_object(c->skins, s);
    g_autofree char *what = g_strdup_printf("skin %u", s);
    gint64 ibm, root;
    JsonArray *joints = get_array(skin, "joints");
    if (!skin || !joints || array_len(joints) == 0 ||
        !get_index(c, skin, "inverseBindMatrices", na, &ibm, what, error) ||
        !get_index(c, skin, "skeleton", array_len(c->nodes), &root, what, error)) {
      if (error && !*error)
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s has no joints", what);
      return false;
    }
    if (array_len(joints) > RK_SKELETON_MAX_JOINTS) {
      g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "%s has %u joints (limit %d)", what,
                  array_len(joints), RK_SKELETON_MAX_JOINTS);
      return false;
    }
    for (guint k = 0; k < array_len(joints); k++) {
      double v;
      if (!node_number(json_array_get_element(joints, k), &v) || v != floor(v) || v < 0 ||
          v >= array_len(c->nodes)) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: joint %u is not a valid node index",
                    what, k);
        return false;
      }
    }
    if (ibm >= 0 &&
        !check_use(c, ibm, "MAT4", CT_FLOAT, what, "inverse bind matrices", error))
      return false;
    if (ibm >= 0 && accessor_count(c, ibm) < array_len(joints)) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                  "%s: %u joints but only %.0f inverse bind matrices", what, array_len(joints),
                  accessor_count(c, ibm));
      return false;
    }
  }
  return true;
}

static rk_channel path_channel(const char *path, bool *ok) {
  *ok = true;
  if (path && strcmp(path, "translation") == 0)
    return RK_CHANNEL_TRANSLATION;
  if (path && strcmp(path, "rotation") == 0)
    return RK_CHANNEL_ROTATION;
  if (path && strcmp(path, "scale") == 0)
    return RK_CHANNEL_SCALE;
  *ok = false;
  return RK_CHANNEL_TRANSLATION;
}

static bool check_animations(ctx *c, GError **error) {
  const guint na = array_len(c->accessors);
  for (guint a = 0; a < array_len(c->anims); a++) {
    JsonObject *anim = array_object(c->anims, a);
    JsonArray *samplers = get_array(anim, "samplers"), *channels = get_array(anim, "channels");
    if (!anim || !samplers || !channels) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "animation %u has no samplers or channels", a);
      return false;
    }
    for (guint s = 0; s < array_len(samplers); s++) {
      JsonObject *smp = array_object(samplers, s);
      g_autofree char *what = g_strdup_printf("animation %u sampler %u", a, s);
      gint64 in, out;
      if (!need_object(smp, what, error) || !get_index(c, smp, "input", na, &in, what, error) ||
          !get_index(c, smp, "output", na, &out, what, error))
        return false;
      if (in < 0 || out < 0) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s has no input or output", what);
        return false;
      }
      const char *interp = get_string(smp, "interpolation");
      if (interp && strcmp(interp, "LINEAR") != 0 && strcmp(interp, "STEP") != 0 &&
          strcmp(interp, "CUBICSPLINE") != 0) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: unknown interpolation '%s'", what,
                    interp);
        return false;
      }
    }
    for (guint k = 0; k < array_len(channels); k++) {
      JsonObject *ch = array_object(channels, k);
      g_autofree char *what = g_strdup_printf("animation %u channel %u", a, k);
      gint64 smp, node;
      JsonObject *target = get_object(ch, "target");
      if (!need_object(ch, what, error))
        return false;
      if (!target) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s has no target object", what);
        return false;
      }
      if (!get_index(c, ch, "sampler", array_len(samplers), &smp, what, error) ||
          !get_index(c, target, "node", array_len(c->nodes), &node, what, error))
        return false;
      if (smp < 0) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s has no sampler", what);
        return false;
      }
      bool ok;
      const char *path = get_string(target, "path");
      path_channel(path, &ok);
      if (!ok && !(path && strcmp(path, "weights") == 0)) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: unknown target path '%s'", what,
                    path ? path : "(none)");
        return false;
      }
      JsonObject *smpo = array_object(samplers, (guint)smp);
      gint64 in, out;
      get_index(c, smpo, "input", na, &in, what, NULL);
      get_index(c, smpo, "output", na, &out, what, NULL);
      if (!check_use(c, in, "SCALAR", CT_FLOAT, what, "key times", error))
        return false;
      const bool rotation = path && strcmp(path, "rotation") == 0;
      const bool weights = !ok;
      if (!check_use(c, out, weights ? "SCALAR" : rotation ? "VEC4" : "VEC3",
                     rotation || weights ? CT_FLOAT | CT_BYTE | CT_UBYTE | CT_SHORT | CT_USHORT
                                         : CT_FLOAT,
                     what, path, error))
        return false;
      if (!ok || node < 0)
        continue;
      const char *interp = get_string(smpo, "interpolation");
      const double mult = interp && strcmp(interp, "CUBICSPLINE") == 0 ? 3 : 1;
      if (accessor_count(c, out) < mult * accessor_count(c, in)) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                    "%s: %.0f keys but only %.0f output values", what, accessor_count(c, in),
                    accessor_count(c, out));
        return false;
      }
    }
  }
  return true;
}

/* ---- buffer data (for CUBICSPLINE keys) --------------------------------------------------------- */

static GBytes *load_buffer(ctx *c, guint i, GError **error) {
  if (i < c->buffer_data->len && g_ptr_array_index(c->buffer_data, i))
    return g_ptr_array_index(c->buffer_data, i);
  JsonObject *b = array_object(c->buffers, i);
  const char *uri = get_string(b, "uri");
  GBytes *bytes = NULL;
  if (!uri) {
    bytes = g_bytes_new_static(c->bin, c->bin_size);
  } else if (g_str_has_prefix(uri, "data:")) {
    const char *comma = strchr(uri, ',');
    if (!comma || !g_strstr_len(uri, comma - uri, ";base64")) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "buffer %u: unsupported data URI", i);
      return NULL;
    }
    gsize len = 0;
    guchar *d = g_base64_decode(comma + 1, &len);
    bytes = g_bytes_new_take(d, len);
  } else {
    if (!c->src->dir) {
      g_set_error(error, RK_ERROR, RK_ERROR_IO,
                  "buffer %u refers to '%s', which an in-memory import cannot open", i, uri);
      return NULL;
    }
    g_autofree char *unescaped = g_uri_unescape_string(uri, NULL);
    g_autofree char *path = g_build_filename(c->src->dir, unescaped ? unescaped : uri, NULL);
    GStatBuf st;
    if (g_stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
        (guint64)st.st_size > RK__IMPORT_MAX_FILE_SIZE) {
      g_set_error(error, RK_ERROR, RK_ERROR_IO, "buffer %u: '%s' is missing or not a file", i,
                  path);
      return NULL;
    }
    gchar *d = NULL;
    gsize len = 0;
    if (!g_file_get_contents(path, &d, &len, error))
      return NULL;
    bytes = g_bytes_new_take(d, len);
  }
  double declared = 0;
  get_number(b, "byteLength", &declared);
  if (g_bytes_get_size(bytes) < (gsize)declared) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "buffer %u has %zu bytes, declares %.0f", i,
                g_bytes_get_size(bytes), declared);
    g_bytes_unref(bytes);
    return NULL;
  }
  if (c->buffer_data->len <= i)
    g_ptr_array_set_size(c->buffer_data, i + 1);
  g_ptr_array_index(c->buffer_data, i) = bytes;
  return bytes;
}

/* Reads accessor i as doubles (float, or normalised integers); returns count * components values
 * or NULL. */
static double *read_accessor(ctx *c, gint64 i, size_t *count, int *components, GError **error) {
  JsonObject *a = array_object(c->accessors, (guint)i);
  double n = 0, ctype = 0, off = 0;
  get_number(a, "count", &n);
  get_number(a, "componentType", &ctype);
  get_number(a, "byteOffset", &off);
  const int comps = type_components(get_string(a, "type"));
  gint64 view = -1;
  get_index(c, a, "bufferView", array_len(c->views), &view, "accessor", NULL);
  const bool normalized = json_object_has_member(a, "normalized") &&
                          json_object_get_boolean_member(a, "normalized");
  *count = (size_t)n;
  *components = comps;
  /* Without a bufferView the accessor is zeros (or sparse): its declared count is backed by no
   * bytes of the file, so a few bytes could claim gigabytes. Assimp 5.2.5 refuses such accessors
   * too ("data is null"). */
  if (view < 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_UNSUPPORTED,
                "accessor %" G_GINT64_FORMAT " has no bufferView (zero or sparse accessors are not "
                "supported for animation keys)", i);
    return NULL;
  }
  double *out = g_new0(double, (size_t)n * (size_t)comps + 1);
  JsonObject *v = array_object(c->views, (guint)view);
  double voff = 0, stride = 0;
  gint64 buf = -1;
  get_number(v, "byteOffset", &voff);
  get_number(v, "byteStride", &stride);
  get_index(c, v, "buffer", array_len(c->buffers), &buf, "bufferView", NULL);
  GBytes *bytes = load_buffer(c, (guint)buf, error);
  if (!bytes) {
    g_free(out);
    return NULL;
  }
  const uint8_t *base = (const uint8_t *)g_bytes_get_data(bytes, NULL) + (size_t)voff + (size_t)off;
  const int cs = component_size((int)ctype);
  const size_t step = stride > 0 ? (size_t)stride : (size_t)(cs * comps);
  if ((int)ctype != 5126 && !normalized) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "accessor %" G_GINT64_FORMAT
                " holds integers that are not normalised", i);
    g_free(out);
    return NULL;
  }
  for (size_t e = 0; e < (size_t)n; e++)
    for (int k = 0; k < comps; k++) {
      const uint8_t *p = base + e * step + (size_t)(k * cs);
      double x;
      switch ((int)ctype) {
      case 5126: {
        guint32 u = rd32(p);
        float f;
        memcpy(&f, &u, 4);
        x = f;
        break;
      }
      case 5120:
        x = fmax((double)(int8_t)p[0] / 127.0, -1.0);
        break;
      case 5121:
        x = p[0] / 255.0;
        break;
      case 5122:
        x = fmax((double)(int16_t)(p[0] | p[1] << 8) / 32767.0, -1.0);
        break;
      case 5123:
        x = (double)(p[0] | p[1] << 8) / 65535.0;
        break;
      default:
        x = (double)rd32(p) / 4294967295.0;
        break;
      }
      out[e * (size_t)comps + (size_t)k] = x;
    }
  return out;
}

/* ---- names and interpolation -------------------------------------------------------------------- */

static char *effective_name(JsonObject *node, guint i) {
  const char *name = get_string(node, "name");
  /* Assimp names an unnamed glTF node by its id. */
  return name && *name ? g_strdup(name) : g_strdup_printf("nodes[%u]", i);
}

/* The array member `name` of the root, created empty when absent. */
static JsonArray *root_array(ctx *c, const char *name) {
  JsonArray *a = get_array(c->root, name);
  if (!a) {
    json_object_set_array_member(c->root, name, json_array_new());
    a = get_array(c->root, name);
  }
  return a;
}

/* Skins without inverseBindMatrices (valid glTF: identity matrices) crash Assimp 5.2.5 (a NULL
 * read; found by fuzz_gltf). They get one shared accessor of identity matrices, as many as the
 * largest such skin has joints (at most RK_SKELETON_MAX_JOINTS: 4 MiB), in a new data-URI buffer;
 * the file is then rewritten for Assimp. Returns whether anything was added. */
static bool add_identity_inverse_binds(ctx *c, rk__gltf_info *info) {
  guint most = 0;
  for (guint s = 0; s < array_len(c->skins); s++) {
    JsonObject *skin = array_object(c->skins, s);
    if (!json_object_has_member(skin, "inverseBindMatrices"))
      most = MAX(most, array_len(get_array(skin, "joints")));
  }
  if (most == 0)
    return false;
  const gsize bytes = (gsize)most * 64;
  g_autofree guint8 *data = g_malloc0(bytes);
  for (guint k = 0; k < most; k++)
    for (int d = 0; d < 4; d++) {
      const float one = 1.0f;
      memcpy(data + (gsize)k * 64 + (gsize)d * 20, &one, 4); /* column-major diagonal */
    }
  g_autofree char *b64 = g_base64_encode(data, bytes);
  g_autofree char *uri = g_strconcat("data:application/octet-stream;base64,", b64, NULL);
  c->buffers = root_array(c, "buffers");
  c->views = root_array(c, "bufferViews");
  c->accessors = root_array(c, "accessors");
  JsonObject *buf = json_object_new();
  json_object_set_string_member(buf, "uri", uri);
  json_object_set_int_member(buf, "byteLength", (gint64)bytes);
  json_array_add_object_element(c->buffers, buf);
  JsonObject *view = json_object_new();
  json_object_set_int_member(view, "buffer", array_len(c->buffers) - 1);
  json_object_set_int_member(view, "byteLength", (gint64)bytes);
  json_array_add_object_element(c->views, view);
  JsonObject *acc = json_object_new();
  json_object_set_int_member(acc, "bufferView", array_len(c->views) - 1);
  json_object_set_int_member(acc, "componentType", 5126);
  json_object_set_int_member(acc, "count", most);
  json_object_set_string_member(acc, "type", "MAT4");
  json_array_add_object_element(c->accessors, acc);
  const gint64 index = array_len(c->accessors) - 1;
  for (guint s = 0; s < array_len(c->skins); s++) {
    JsonObject *skin = array_object(c->skins, s);
    if (json_object_has_member(skin, "inverseBindMatrices"))
      continue;
    json_object_set_int_member(skin, "inverseBindMatrices", index);
    g_ptr_array_add(info->notes, g_strdup_printf("glTF skin %u has no inverseBindMatrices: the "
                                                 "identity matrices glTF means were made explicit",
                                                 s));
  }
  return true;
}

static bool collect(ctx *c, rk__gltf_info *info, bool *renamed_out, GError **error) {
  const guint n = array_len(c->nodes);
  g_autofree guint8 *rank = g_new0(guint8, n ? n : 1); /* higher keeps the name */
  for (guint i = 0; i < n; i++)
    rank[i] = json_object_has_member(array_object(c->nodes, i), "mesh") ? 0 : 1;
  for (guint a = 0; a < array_len(c->anims); a++) {
    JsonArray *channels = get_array(array_object(c->anims, a), "channels");
    for (guint k = 0; k < array_len(channels); k++) {
      gint64 node;
      get_index(c, get_object(array_object(channels, k), "target"), "node", n, &node, "", NULL);
      if (node >= 0)
        rank[node] = MAX(rank[node], 2);
    }
  }
  for (guint s = 0; s < array_len(c->skins); s++) {
    JsonArray *joints = get_array(array_object(c->skins, s), "joints");
    for (guint k = 0; k < array_len(joints); k++)
      rank[(guint)json_node_get_int(json_array_get_element(joints, k))] = 3;
  }
  /* orig: names as in the file (keys of `groups`, never changed); names: after renaming. */
  g_autoptr(GPtrArray) orig = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GHashTable) all = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) groups = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
                                                       (GDestroyNotify)g_array_unref);
  for (guint i = 0; i < n; i++) {
    char *name = effective_name(array_object(c->nodes, i), i);
    g_ptr_array_add(orig, name);
    g_ptr_array_add(names, g_strdup(name));
    g_hash_table_add(all, g_strdup(name));
    GArray *g = g_hash_table_lookup(groups, name);
    if (!g) {
      g = g_array_new(FALSE, FALSE, sizeof(guint));
      g_hash_table_insert(groups, name, g);
    }
    g_array_append_val(g, i);
  }
  bool renamed = false;
  for (guint i = 0; i < n; i++) {
    const char *name = g_ptr_array_index(orig, i);
    GArray *g = g_hash_table_lookup(groups, name);
    if (!g || g->len < 2)
      continue;
    /* The keeper: highest rank, then lowest index. */
    guint keep = g_array_index(g, guint, 0);
    for (guint k = 1; k < g->len; k++) {
      guint j = g_array_index(g, guint, k);
      if (rank[j] > rank[keep])
        keep = j;
    }
    if (i == keep)
      continue;
    char *fresh = NULL;
    for (unsigned k = 1;; k++) {
      fresh = g_strdup_printf("%s.%03u", name, k);
      if (!g_hash_table_contains(all, fresh))
        break;
      g_free(fresh);
    }
    g_hash_table_add(all, g_strdup(fresh));
    g_ptr_array_add(info->notes,
                    g_strdup_printf("glTF nodes %u and %u are both named '%s': node %u renamed "
                                    "'%s' so animation channels bind to the right node",
                                    keep, i, name, i, fresh));
    json_object_set_string_member(array_object(c->nodes, i), "name", fresh);
    g_free(g_ptr_array_index(names, i));
    g_ptr_array_index(names, i) = fresh;
    renamed = true;
  }
  *renamed_out = renamed;

  for (guint a = 0; a < array_len(c->anims); a++) {
    JsonObject *anim = array_object(c->anims, a);
    JsonArray *samplers = get_array(anim, "samplers"), *channels = get_array(anim, "channels");
    for (guint k = 0; k < array_len(channels); k++) {
      JsonObject *ch = array_object(channels, k);
      JsonObject *target = get_object(ch, "target");
      gint64 node, smp;
      get_index(c, target, "node", n, &node, "", NULL);
      get_index(c, ch, "sampler", array_len(samplers), &smp, "", NULL);
      bool ok;
      rk_channel channel = path_channel(get_string(target, "path"), &ok);
      if (!ok || node < 0 || smp < 0)
        continue;
      JsonObject *so = array_object(samplers, (guint)smp);
      const char *interp = get_string(so, "interpolation");
      if (!interp || strcmp(interp, "LINEAR") == 0)
        continue;
      rk__gltf_interp *e = g_new0(rk__gltf_interp, 1);
      e->anim = a;
      e->node_name = g_strdup(g_ptr_array_index(names, (guint)node));
      e->channel = channel;
      e->interp = strcmp(interp, "STEP") == 0 ? RK_INTERP_STEP : RK_INTERP_CUBIC;
      g_ptr_array_add(info->interps, e);
      if (e->interp != RK_INTERP_CUBIC)
        continue;
      gint64 in, out;
      get_index(c, so, "input", array_len(c->accessors), &in, "", NULL);
      get_index(c, so, "output", array_len(c->accessors), &out, "", NULL);
      size_t nt, nv;
      int ct, cv;
      e->times = read_accessor(c, in, &nt, &ct, error);
      if (!e->times)
        return false;
      e->values = read_accessor(c, out, &nv, &cv, error);
      if (!e->values)
        return false;
      if (ct != 1 || cv != rk_channel_components(channel) || nv < 3 * nt) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                    "animation %u channel %u: CUBICSPLINE output does not match its input", a, k);
        return false;
      }
      e->key_count = nt;
    }
  }
  return true;
}

static void interp_free(gpointer p) {
  rk__gltf_interp *e = p;
  g_free(e->node_name);
  g_free(e->times);
  g_free(e->values);
  g_free(e);
}

void rk__gltf_info_clear(rk__gltf_info *info) {
  if (info->interps)
    g_ptr_array_unref(info->interps);
  if (info->notes)
    g_ptr_array_unref(info->notes);
  g_free(info->rewritten);
  memset(info, 0, sizeof *info);
}

static void bytes_unref0(gpointer p) {
  if (p)
    g_bytes_unref(p);
}

static bool parse_container(ctx *c, GError **error) {
  const uint8_t *d = c->src->data;
  const size_t size = c->src->size;
  if (!c->glb) {
    c->json = d;
    c->json_size = size;
    return true;
  }
  if (size < 12 || rd32(d) != GLB_MAGIC) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "not a GLB file (no 'glTF' magic)");
    return false;
  }
  if (rd32(d + 4) != 2) {
    g_set_error(error, RK_ERROR, RK_ERROR_UNSUPPORTED, "GLB version %u (only 2 is supported)",
                rd32(d + 4));
    return false;
  }
  const guint32 total = rd32(d + 8);
  if (total > size) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                "truncated GLB: the header says %u bytes, the file has %zu", total, size);
    return false;
  }
  if (total < 20 + 2) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "GLB of %u bytes has no JSON chunk", total);
    return false;
  }
  const guint32 jlen = rd32(d + 12), jtype = rd32(d + 16);
  if (jtype != GLB_JSON || (size_t)jlen > total - 20) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                "GLB: first chunk is not a JSON chunk of at most %u bytes (type 0x%08x, %u bytes)",
                total - 20, jtype, jlen);
    return false;
  }
  c->json = d + 20;
  c->json_size = jlen;
  size_t pos = 20 + (size_t)jlen;
  if (pos + 8 <= total) {
    const guint32 blen = rd32(d + pos), btype = rd32(d + pos + 4);
    if (btype == GLB_BIN) {
      if ((size_t)blen > total - pos - 8) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                    "truncated GLB: BIN chunk declares %u bytes, %zu remain", blen, total - pos - 8);
        return false;
      }
      c->bin = d + pos + 8;
      c->bin_size = blen;
    }
  }
  return true;
}

static bool rewrite(ctx *c, JsonNode *root, rk__gltf_info *info) {
  g_autoptr(JsonGenerator) gen = json_generator_new();
  json_generator_set_root(gen, root);
  gsize len = 0;
  g_autofree char *text = json_generator_to_data(gen, &len);
  if (!c->glb) {
    info->rewritten = (uint8_t *)g_steal_pointer(&text);
    info->rewritten_size = len;
    return true;
  }
  const size_t jpad = (len + 3) & ~(size_t)3;
  const size_t bpad = (c->bin_size + 3) & ~(size_t)3;
  const size_t total = 12 + 8 + jpad + (c->bin ? 8 + bpad : 0);
  if (total > G_MAXUINT32)
    return false;
  uint8_t *out = g_malloc0(total);
  const guint32 hdr[5] = {GLB_MAGIC, 2, (guint32)total, (guint32)jpad, GLB_JSON};
  for (int i = 0; i < 5; i++)
    for (int b = 0; b < 4; b++)
      out[4 * i + b] = (uint8_t)(hdr[i] >> (8 * b));
  memcpy(out + 20, text, len);
  memset(out + 20 + len, ' ', jpad - len);
  if (c->bin) {
    const size_t p = 20 + jpad;
    const guint32 bh[2] = {(guint32)bpad, GLB_BIN};
    for (int i = 0; i < 2; i++)
      for (int b = 0; b < 4; b++)
        out[p + 4 * (size_t)i + (size_t)b] = (uint8_t)(bh[i] >> (8 * b));
    memcpy(out + p + 8, c->bin, c->bin_size);
  }
  info->rewritten = out;
  info->rewritten_size = total;
  return true;
}

bool rk__gltf_prepare(const rk__source *src, bool glb, rk__gltf_info *info, GError **error) {
  memset(info, 0, sizeof *info);
  info->interps = g_ptr_array_new_with_free_func(interp_free);
  info->notes = g_ptr_array_new_with_free_func(g_free);
  ctx c = {0};
  c.src = src;
  c.glb = glb;
  if (!parse_container(&c, error))
    return false;
  if (c.json_size == 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "empty glTF JSON");
    return false;
  }
  g_autoptr(JsonParser) parser = json_parser_new();
  g_autoptr(GError) jerr = NULL;
  if (!json_parser_load_from_data(parser, (const char *)c.json, (gssize)c.json_size, &jerr)) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "bad glTF JSON: %s", jerr->message);
    return false;
  }
  JsonNode *root = json_parser_get_root(parser);
  if (!root || !JSON_NODE_HOLDS_OBJECT(root)) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "bad glTF JSON: the top level is not an object");
    return false;
  }
  c.root = json_node_get_object(root);
  const char *version = get_string(get_object(c.root, "asset"), "version");
  if (!version) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "not a glTF file: no asset.version");
    return false;
  }
  if (!g_str_has_prefix(version, "2.")) {
    g_set_error(error, RK_ERROR, RK_ERROR_UNSUPPORTED, "glTF version %s (only 2.x is supported)",
                version);
    return false;
  }
  static const char *const arrays[] = {"buffers", "bufferViews", "accessors", "nodes",
                                       "meshes",  "skins",       "animations", "scenes"};
  JsonArray **slots[] = {&c.buffers, &c.views, &c.accessors, &c.nodes,
                         &c.meshes,  &c.skins, &c.anims,     &c.scenes};
  for (size_t i = 0; i < G_N_ELEMENTS(arrays); i++) {
    if (json_object_has_member(c.root, arrays[i]) && !get_array(c.root, arrays[i])) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "glTF '%s' is not an array", arrays[i]);
      return false;
    }
    *slots[i] = get_array(c.root, arrays[i]);
  }
  gint64 scene;
  if (!get_index(&c, c.root, "scene", array_len(c.scenes), &scene, "glTF", error))
    return false;
  c.buffer_data = g_ptr_array_new_with_free_func(bytes_unref0);
  bool renamed = false, added = false;
  bool ok = check_buffers(&c, error) && check_nodes(&c, error) &&
            check_meshes_skins(&c, error) && check_animations(&c, error);
  if (ok)
    added = add_identity_inverse_binds(&c, info);
  ok = ok && collect(&c, info, &renamed, error);
  if (ok && (renamed || added) && !rewrite(&c, root, info)) {
    g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "the repaired GLB would exceed 4 GiB");
    ok = false;
  }
  g_ptr_array_unref(c.buffer_data);
  return ok;
}
