/* A glTF/GLB document as the tests read it, independently of rigkit's importers: the JSON tree,
 * each buffer's bytes (GLB BIN chunk, data: URI or file beside the document) and float accessors.
 * Header-only (static inline); every failure fails the test naming the file. */
#ifndef RK_TEST_GLTF_READ_H
#define RK_TEST_GLTF_READ_H

#include "rk_test.h"

#include <json-glib/json-glib.h>
#include <string.h>

typedef struct test_gltf {
  char *path;
  char *dir;
  JsonParser *parser;
  JsonObject *root;
  GBytes *file;      /* the whole file */
  GBytes *bin;       /* GLB BIN chunk or NULL */
  GPtrArray *buffers; /* GBytes * per buffer, loaded on demand */
} test_gltf;

static inline guint32 test_gltf_u32(const guint8 *p) {
  return (guint32)p[0] | (guint32)p[1] << 8 | (guint32)p[2] << 16 | (guint32)p[3] << 24;
}

/** Reads path (.gltf or .glb, told by its first bytes) into *d; free with test_gltf_clear. */
static inline void test_gltf_load(test_gltf *d, const char *path) {
  memset(d, 0, sizeof *d);
  d->path = g_strdup(path);
  d->dir = g_path_get_dirname(path);
  gchar *bytes = NULL;
  gsize size = 0;
  cr_assert(g_file_get_contents(path, &bytes, &size, NULL), "cannot read %s", path);
  d->file = g_bytes_new_take(bytes, size);
  const guint8 *b = (const guint8 *)bytes;
  const char *json = bytes;
  gsize json_size = size;
  if (size >= 12 && memcmp(b, "glTF", 4) == 0) {
    cr_assert(size >= 20 && test_gltf_u32(b + 8) == size, "%s: GLB length", path);
    json_size = test_gltf_u32(b + 12);
    cr_assert(memcmp(b + 16, "JSON", 4) == 0 && 20 + json_size <= size, "%s: JSON chunk", path);
    json = bytes + 20;
    const gsize at = 20 + json_size;
    if (at + 8 <= size && memcmp(b + at + 4, "BIN\0", 4) == 0) {
      const gsize n = test_gltf_u32(b + at);
      cr_assert(at + 8 + n <= size, "%s: BIN chunk", path);
      d->bin = g_bytes_new_from_bytes(d->file, at + 8, n);
    }
  }
  d->parser = json_parser_new();
  g_autoptr(GError) e = NULL;
  cr_assert(json_parser_load_from_data(d->parser, json, (gssize)json_size, &e), "%s: %s", path,
            e ? e->message : "");
  d->root = json_node_get_object(json_parser_get_root(d->parser));
  d->buffers = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
}

static inline void test_gltf_clear(test_gltf *d) {
  g_free(d->path);
  g_free(d->dir);
  g_clear_object(&d->parser);
  g_clear_pointer(&d->file, g_bytes_unref);
  g_clear_pointer(&d->bin, g_bytes_unref);
  g_clear_pointer(&d->buffers, g_ptr_array_unref);
}

/** Top-level array `name` of the document, or NULL. */
static inline JsonArray *test_gltf_array(const test_gltf *d, const char *name) {
  return json_object_has_member(d->root, name) ? json_object_get_array_member(d->root, name) : NULL;
}

/** Element i of the top-level array `name`. */
static inline JsonObject *test_gltf_element(const test_gltf *d, const char *name, guint i) {
  JsonArray *a = test_gltf_array(d, name);
  cr_assert(a && i < json_array_get_length(a), "%s: no %s[%u]", d->path, name, i);
  return json_array_get_object_element(a, i);
}

/** The bytes of buffer i (borrowed). */
static inline GBytes *test_gltf_buffer(test_gltf *d, guint i) {
  if (i < d->buffers->len && g_ptr_array_index(d->buffers, i))
    return g_ptr_array_index(d->buffers, i);
  JsonObject *b = test_gltf_element(d, "buffers", i);
  GBytes *bytes = NULL;
  if (!json_object_has_member(b, "uri")) {
    cr_assert(d->bin != NULL, "%s: buffer %u without uri and no BIN chunk", d->path, i);
    bytes = g_bytes_ref(d->bin);
  } else {
    const char *uri = json_object_get_string_member(b, "uri");
    if (g_str_has_prefix(uri, "data:")) {
      gsize n = 0;
      guchar *raw = g_base64_decode(strchr(uri, ',') + 1, &n);
      bytes = g_bytes_new_take(raw, n);
    } else {
      g_autofree char *name = g_uri_unescape_string(uri, NULL);
      g_autofree char *p = g_build_filename(d->dir, name, NULL);
      gchar *raw = NULL;
      gsize n = 0;
      cr_assert(g_file_get_contents(p, &raw, &n, NULL), "%s: cannot read buffer %s", d->path, p);
      bytes = g_bytes_new_take(raw, n);
    }
  }
  cr_assert(g_bytes_get_size(bytes) >= (gsize)json_object_get_int_member(b, "byteLength"),
            "%s: buffer %u is shorter than its byteLength", d->path, i);
  if (d->buffers->len <= i)
    g_ptr_array_set_size(d->buffers, i + 1);
  g_ptr_array_index(d->buffers, i) = bytes;
  return bytes;
}

/** The bytes bufferView v covers (a new GBytes). */
static inline GBytes *test_gltf_view_bytes(test_gltf *d, guint v) {
  JsonObject *view = test_gltf_element(d, "bufferViews", v);
  GBytes *buf = test_gltf_buffer(d, (guint)json_object_get_int_member(view, "buffer"));
  const gsize off = json_object_has_member(view, "byteOffset")
                        ? (gsize)json_object_get_int_member(view, "byteOffset")
                        : 0;
  const gsize len = (gsize)json_object_get_int_member(view, "byteLength");
  cr_assert(off + len <= g_bytes_get_size(buf), "%s: bufferView %u out of its buffer", d->path, v);
  return g_bytes_new_from_bytes(buf, off, len);
}

/** Float accessor a as count * components floats (g_free); *count and *components set. */
static inline float *test_gltf_floats(test_gltf *d, guint a, size_t *count, int *components) {
  JsonObject *acc = test_gltf_element(d, "accessors", a);
  cr_assert_eq(json_object_get_int_member(acc, "componentType"), 5126, "%s: accessor %u", d->path,
               a);
  const char *type = json_object_get_string_member(acc, "type");
  const int nc = strcmp(type, "SCALAR") == 0 ? 1 : strcmp(type, "VEC2") == 0 ? 2
                 : strcmp(type, "VEC3") == 0 ? 3 : strcmp(type, "VEC4") == 0 ? 4 : 16;
  const size_t n = (size_t)json_object_get_int_member(acc, "count");
  const guint v = (guint)json_object_get_int_member(acc, "bufferView");
  JsonObject *view = test_gltf_element(d, "bufferViews", v);
  g_autoptr(GBytes) bytes = test_gltf_view_bytes(d, v);
  const size_t off = json_object_has_member(acc, "byteOffset")
                         ? (size_t)json_object_get_int_member(acc, "byteOffset")
                         : 0;
  const size_t stride = json_object_has_member(view, "byteStride")
                            ? (size_t)json_object_get_int_member(view, "byteStride")
                            : (size_t)nc * 4;
  gsize len = 0;
  const guint8 *p = g_bytes_get_data(bytes, &len);
  cr_assert(n == 0 || off + (n - 1) * stride + (size_t)nc * 4 <= len, "%s: accessor %u too long",
            d->path, a);
  float *out = g_new(float, n * (size_t)nc + 1);
  for (size_t i = 0; i < n; i++)
    memcpy(out + i * (size_t)nc, p + off + i * stride, (size_t)nc * 4);
  *count = n;
  *components = nc;
  return out;
}

#endif
