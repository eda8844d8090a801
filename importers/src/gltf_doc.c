/* The glTF document of the pre-pass (gltf_doc.h): the GLB container (header, JSON chunk, BIN
 * chunk) read and written back, the JSON parsed and its top level checked, and typed access to
 * its members. */
#include "gltf_doc.h"

#include <string.h>

#define GLB_MAGIC 0x46546C67u
#define GLB_JSON 0x4E4F534Au
#define GLB_BIN 0x004E4942u

guint32 rk__gltf_rd32(const uint8_t *p) {
  return (guint32)p[0] | (guint32)p[1] << 8 | (guint32)p[2] << 16 | (guint32)p[3] << 24;
}

/* ---- typed JSON access ----------------------------------------------------------------------- */

JsonArray *rk__gltf_array(JsonObject *o, const char *name) {
  if (!o || !json_object_has_member(o, name))
    return NULL;
  JsonNode *n = json_object_get_member(o, name);
  return JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
}

JsonObject *rk__gltf_object(JsonObject *o, const char *name) {
  if (!o || !json_object_has_member(o, name))
    return NULL;
  JsonNode *n = json_object_get_member(o, name);
  return JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

bool rk__gltf_node_number(JsonNode *n, double *out) {
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
int rk__gltf_number(JsonObject *o, const char *name, double *out) {
  if (!o || !json_object_has_member(o, name))
    return 0;
  return rk__gltf_node_number(json_object_get_member(o, name), out) ? 1 : -1;
}

const char *rk__gltf_string(JsonObject *o, const char *name) {
  if (!o || !json_object_has_member(o, name))
    return NULL;
  JsonNode *n = json_object_get_member(o, name);
  if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string(n);
}

JsonObject *rk__gltf_element(JsonArray *a, guint i) {
  if (!a || i >= json_array_get_length(a))
    return NULL;
  JsonNode *n = json_array_get_element(a, i);
  return JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

guint rk__gltf_len(JsonArray *a) {
  return a ? json_array_get_length(a) : 0;
}

/* An array element that must be an object: false with an error naming it when it is not. */
bool rk__gltf_need_object(JsonObject *o, const char *what, GError **error) {
  if (!o)
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s is not an object", what);
  return o != NULL;
}

/* Reads an optional index member: true when absent (*out = -1) or a valid index < limit. */
bool rk__gltf_index(rk__gltf_doc *c, JsonObject *o, const char *name, guint limit, gint64 *out,
                      const char *what, GError **error) {
  *out = -1;
  double v;
  int r = rk__gltf_number(o, name, &v);
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

/* ---- glTF vocabulary ------------------------------------------------------------------------- */

int rk__gltf_component_size(int type) {
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

int rk__gltf_type_components(const char *type) {
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

double rk__gltf_accessor_count(rk__gltf_doc *c, gint64 i) {
  double n = 0;
  rk__gltf_number(rk__gltf_element(c->accessors, (guint)i), "count", &n);
  return n;
}

rk_channel rk__gltf_path_channel(const char *path, bool *ok) {
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

/* ---- container ------------------------------------------------------------------------------- */

static void bytes_unref0(gpointer p) {
  if (p)
    g_bytes_unref(p);
}

static bool parse_container(rk__gltf_doc *c, GError **error) {
  const uint8_t *d = c->src->data;
  const size_t size = c->src->size;
  if (!c->glb) {
    c->json = d;
    c->json_size = size;
    return true;
  }
  if (size < 12 || rk__gltf_rd32(d) != GLB_MAGIC) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "not a GLB file (no 'glTF' magic)");
    return false;
  }
  if (rk__gltf_rd32(d + 4) != 2) {
    g_set_error(error, RK_ERROR, RK_ERROR_UNSUPPORTED, "GLB version %u (only 2 is supported)",
                rk__gltf_rd32(d + 4));
    return false;
  }
  const guint32 total = rk__gltf_rd32(d + 8);
  if (total > size) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                "truncated GLB: the header says %u bytes, the file has %zu", total, size);
    return false;
  }
  if (total < 20 + 2) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "GLB of %u bytes has no JSON chunk", total);
    return false;
  }
  const guint32 jlen = rk__gltf_rd32(d + 12), jtype = rk__gltf_rd32(d + 16);
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
    const guint32 blen = rk__gltf_rd32(d + pos), btype = rk__gltf_rd32(d + pos + 4);
    if (btype == GLB_BIN) {
      if ((size_t)blen > total - pos - 8) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                    "truncated GLB: BIN chunk declares %u bytes, %zu remain", blen,
                    total - pos - 8);
        return false;
      }
      c->bin = d + pos + 8;
      c->bin_size = blen;
    }
  }
  return true;
}

bool rk__gltf_doc_load(rk__gltf_doc *c, const rk__source *src, bool glb, GError **error) {
  memset(c, 0, sizeof *c);
  c->src = src;
  c->glb = glb;
  if (!parse_container(c, error))
    return false;
  if (c->json_size == 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "empty glTF JSON");
    return false;
  }
  c->parser = json_parser_new();
  g_autoptr(GError) jerr = NULL;
  if (!json_parser_load_from_data(c->parser, (const char *)c->json, (gssize)c->json_size, &jerr)) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "bad glTF JSON: %s", jerr->message);
    return false;
  }
  JsonNode *root = json_parser_get_root(c->parser);
  if (!root || !JSON_NODE_HOLDS_OBJECT(root)) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "bad glTF JSON: the top level is not an object");
    return false;
  }
  c->root = json_node_get_object(root);
  const char *version = rk__gltf_string(rk__gltf_object(c->root, "asset"), "version");
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
  JsonArray **slots[] = {&c->buffers, &c->views, &c->accessors, &c->nodes,
                         &c->meshes,  &c->skins, &c->anims,     &c->scenes};
  for (size_t i = 0; i < G_N_ELEMENTS(arrays); i++) {
    if (json_object_has_member(c->root, arrays[i]) && !rk__gltf_array(c->root, arrays[i])) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "glTF '%s' is not an array", arrays[i]);
      return false;
    }
    *slots[i] = rk__gltf_array(c->root, arrays[i]);
  }
  gint64 scene;
  if (!rk__gltf_index(c, c->root, "scene", rk__gltf_len(c->scenes), &scene, "glTF", error))
    return false;
  c->buffer_data = g_ptr_array_new_with_free_func(bytes_unref0);
  return true;
}

void rk__gltf_doc_clear(rk__gltf_doc *doc) {
  if (doc->buffer_data)
    g_ptr_array_unref(doc->buffer_data);
  g_free(doc->parents);
  if (doc->parser)
    g_object_unref(doc->parser);
  memset(doc, 0, sizeof *doc);
}

bool rk__gltf_doc_write(const rk__gltf_doc *c, uint8_t **out, size_t *size) {
  g_autoptr(JsonGenerator) gen = json_generator_new();
  json_generator_set_root(gen, json_parser_get_root(c->parser));
  gsize len = 0;
  g_autofree char *text = json_generator_to_data(gen, &len);
  if (!c->glb) {
    *out = (uint8_t *)g_steal_pointer(&text);
    *size = len;
    return true;
  }
  const size_t jpad = (len + 3) & ~(size_t)3;
  const size_t bpad = (c->bin_size + 3) & ~(size_t)3;
  const size_t total = 12 + 8 + jpad + (c->bin ? 8 + bpad : 0);
  if (total > G_MAXUINT32)
    return false;
  uint8_t *glb = g_malloc0(total);
  const guint32 hdr[5] = {GLB_MAGIC, 2, (guint32)total, (guint32)jpad, GLB_JSON};
  for (int i = 0; i < 5; i++)
    for (int b = 0; b < 4; b++)
      glb[4 * i + b] = (uint8_t)(hdr[i] >> (8 * b));
  memcpy(glb + 20, text, len);
  memset(glb + 20 + len, ' ', jpad - len);
  if (c->bin) {
    const size_t p = 20 + jpad;
    const guint32 bh[2] = {(guint32)bpad, GLB_BIN};
    for (int i = 0; i < 2; i++)
      for (int b = 0; b < 4; b++)
        glb[p + 4 * (size_t)i + (size_t)b] = (uint8_t)(bh[i] >> (8 * b));
    memcpy(glb + p + 8, c->bin, c->bin_size);
  }
  *out = glb;
  *size = total;
  return true;
}
