/* The document the glTF editor reads (see gltf_source.h). The file passed rigkit's importer when
 * the character was read from it and its digest says it still holds those bytes; the checks here
 * cover what the editor itself follows (container, JSON top level, buffer sizes). */
#include "gltf_source.h"

#include <glib/gstdio.h>
#include <string.h>

static guint32 rd32(const guint8 *p) {
  return (guint32)p[0] | (guint32)p[1] << 8 | (guint32)p[2] << 16 | (guint32)p[3] << 24;
}

/* The bytes of the regular file at path (what: "glTF file", "buffer 1", ... for messages). */
static GBytes *read_file(const char *path, const char *what, GError **error) {
  GStatBuf st;
  if (g_stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
    g_set_error(error, RK_ERROR, RK_ERROR_IO, "%s: %s is missing or not a file", path, what);
    return NULL;
  }
  if ((guint64)st.st_size > RK__GLTF_SOURCE_MAX_BYTES) {
    g_set_error(error, RK_ERROR, RK_ERROR_IO, "%s: %s is larger than 1 GiB", path, what);
    return NULL;
  }
  gchar *data = NULL;
  gsize size = 0;
  g_autoptr(GError) e = NULL;
  if (!g_file_get_contents(path, &data, &size, &e)) {
    g_set_error(error, RK_ERROR, RK_ERROR_IO, "%s: cannot read %s: %s", path, what, e->message);
    return NULL;
  }
  return g_bytes_new_take(data, size);
}

/* GLB: header, JSON chunk, optional BIN chunk; *json / *json_size point into the file. */
static bool parse_glb(rk__gltf_source *s, const guint8 *d, gsize size, const char **json,
                      gsize *json_size, GError **error) {
  if (size < 20 || rd32(d + 4) != 2 || rd32(d + 8) > size || rd32(d + 8) < 20 ||
      rd32(d + 16) != 0x4E4F534Au || rd32(d + 12) > rd32(d + 8) - 20) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                "%s: not a complete GLB 2 file (header, JSON chunk) of %zu bytes", s->path,
                (size_t)size);
    return false;
  }
  const gsize total = rd32(d + 8), at = 20 + (gsize)rd32(d + 12);
  *json = (const char *)d + 20;
  *json_size = rd32(d + 12);
  if (at + 8 <= total && rd32(d + at + 4) == 0x004E4942u) {
    if (rd32(d + at) > total - at - 8) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                  "%s: truncated GLB: the BIN chunk declares %u bytes, %zu remain", s->path,
                  rd32(d + at), (size_t)(total - at - 8));
      return false;
    }
    s->bin = g_bytes_new_from_bytes(s->file, at + 8, rd32(d + at));
  }
  return true;
}

/* The document's own parse of its JSON text into s->parser. */
static bool parse_json(rk__gltf_source *s, const char *json, gsize json_size, GError **error) {
  s->parser = json_parser_new();
  g_autoptr(GError) e = NULL;
  if (!json_parser_load_from_data(s->parser, json, (gssize)json_size, &e)) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: bad glTF JSON: %s", s->path, e->message);
    return false;
  }
  return true;
}

bool rk__gltf_source_read(rk__gltf_source *s, const char *path, const char *digest,
                          JsonNode *tree, GError **error) {
  memset(s, 0, sizeof *s);
  s->tree = digest ? tree : NULL;
  if (tree && !digest)
    json_node_unref(tree);
  s->path = g_strdup(path);
  s->dir = g_path_get_dirname(path);
  s->file = read_file(path, "the glTF file", error);
  if (!s->file)
    return false;
  gsize size = 0;
  const guint8 *d = g_bytes_get_data(s->file, &size);
  if (digest) {
    g_autofree char *sha = g_compute_checksum_for_bytes(G_CHECKSUM_SHA256, s->file);
    if (strcmp(sha, digest) != 0) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                  "%s: the file is not the one the character was imported from (it changed "
                  "since the import): import it again", path);
      return false;
    }
  }
  const char *json = (const char *)d;
  gsize json_size = size;
  s->glb = size >= 4 && memcmp(d, "glTF", 4) == 0;
  if (s->glb && !parse_glb(s, d, size, &json, &json_size, error))
    return false;
  /* The digest matched: the import parsed these very bytes, the tree is that parse. */
  if (!s->tree && !parse_json(s, json, json_size, error))
    return false;
  JsonNode *root = s->tree ? s->tree : json_parser_get_root(s->parser);
  s->root = root && JSON_NODE_HOLDS_OBJECT(root) ? json_node_get_object(root) : NULL;
  JsonNode *an = s->root ? json_object_get_member(s->root, "asset") : NULL;
  JsonObject *asset = an && JSON_NODE_HOLDS_OBJECT(an) ? json_node_get_object(an) : NULL;
  const char *version =
      asset ? json_object_get_string_member_with_default(asset, "version", NULL) : NULL;
  if (!version || !g_str_has_prefix(version, "2.")) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: not a glTF 2 document", path);
    return false;
  }
  return true;
}

void rk__gltf_source_clear(rk__gltf_source *s) {
  g_free(s->path);
  g_free(s->dir);
  g_clear_pointer(&s->file, g_bytes_unref);
  g_clear_pointer(&s->bin, g_bytes_unref);
  g_clear_object(&s->parser);
  g_clear_pointer(&s->tree, json_node_unref);
  memset(s, 0, sizeof *s);
}

JsonArray *rk__gltf_source_array(const rk__gltf_source *s, const char *name) {
  JsonNode *n = json_object_get_member(s->root, name);
  return n && JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
}

bool rk__gltf_source_uri_file(const rk__gltf_source *s, const char *uri, const char *what,
                              char **file, GError **error) {
  *file = NULL;
  if (g_str_has_prefix(uri, "data:"))
    return true;
  g_autofree char *scheme = g_uri_parse_scheme(uri);
  g_autofree char *name = scheme ? NULL : g_uri_unescape_string(uri, NULL);
  bool inside = name && *name && !g_path_is_absolute(name);
  g_auto(GStrv) parts = inside ? g_strsplit(name, "/", -1) : NULL;
  for (size_t i = 0; parts && parts[i]; i++)
    inside = inside && strcmp(parts[i], "..") != 0;
  if (!inside) {
    g_set_error(error, RK_ERROR, RK_ERROR_UNSUPPORTED,
                "%s: %s refers to '%s', which is not a file inside the document's folder", s->path,
                what, uri);
    return false;
  }
  *file = g_steal_pointer(&name);
  return true;
}

GBytes *rk__gltf_source_file(const rk__gltf_source *s, const char *file, const char *what,
                             GError **error) {
  g_autofree char *p = g_build_filename(s->dir, file, NULL);
  return read_file(p, what, error);
}

/* A data: URI's bytes (base64 only). */
static GBytes *data_uri(const rk__gltf_source *s, const char *uri, guint i, GError **error) {
  const char *comma = strchr(uri, ',');
  if (!comma || !g_strstr_len(uri, comma - uri, ";base64")) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: buffer %u: a data URI that is not base64",
                s->path, i);
    return NULL;
  }
  gsize n = 0;
  guchar *raw = g_base64_decode(comma + 1, &n);
  return g_bytes_new_take(raw, n);
}

GBytes *rk__gltf_source_buffer(const rk__gltf_source *s, guint i, GError **error) {
  JsonArray *buffers = rk__gltf_source_array(s, "buffers");
  JsonNode *bn = buffers && i < json_array_get_length(buffers)
                     ? json_array_get_element(buffers, i)
                     : NULL;
  JsonObject *b = bn && JSON_NODE_HOLDS_OBJECT(bn) ? json_node_get_object(bn) : NULL;
  if (!b) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: no buffer %u", s->path, i);
    return NULL;
  }
  const char *uri = json_object_get_string_member_with_default(b, "uri", NULL);
  g_autofree char *what = g_strdup_printf("buffer %u", i);
  GBytes *bytes = NULL;
  if (!uri && s->bin) {
    bytes = g_bytes_ref(s->bin);
  } else if (!uri) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: buffer %u has no uri and no BIN chunk",
                s->path, i);
    return NULL;
  } else {
    g_autofree char *file = NULL;
    if (!rk__gltf_source_uri_file(s, uri, what, &file, error))
      return NULL;
    bytes = file ? rk__gltf_source_file(s, file, what, error) : data_uri(s, uri, i, error);
    if (!bytes)
      return NULL;
  }
  const gint64 declared = json_object_get_int_member_with_default(b, "byteLength", 0);
  if (declared < 0 || g_bytes_get_size(bytes) < (guint64)declared) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                "%s: buffer %u holds %zu bytes, declares %" G_GINT64_FORMAT, s->path, i,
                g_bytes_get_size(bytes), declared);
    g_bytes_unref(bytes);
    return NULL;
  }
  return bytes;
}
