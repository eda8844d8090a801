/* The glTF document the glTF editor edits (gltf_source.c): the file's bytes and their SHA-256,
 * the GLB container or JSON text, the JSON tree, the bytes of each buffer (BIN chunk, data: URI
 * or file beside the document) and the files the document refers to by relative URI.
 *
 * Index: RK__GLTF_SOURCE_MAX_BYTES, rk__gltf_source, rk__gltf_source_read,
 *        rk__gltf_source_clear, rk__gltf_source_array, rk__gltf_source_uri_file,
 *        rk__gltf_source_file, rk__gltf_source_buffer
 */
#ifndef RK_GLTF_SOURCE_H
#define RK_GLTF_SOURCE_H

#include <json-glib/json-glib.h>
#include <rigkit/error.h>
#include <stdbool.h>

/** Largest document or buffer file read (the importers' limit). */
#define RK__GLTF_SOURCE_MAX_BYTES ((gsize)1 << 30)

/** A glTF document as read from its file. */
typedef struct rk__gltf_source {
  char *path; /* as given, for messages */
  char *dir;  /* its folder, for relative URIs */
  GBytes *file;
  bool glb;
  GBytes *bin; /* the GLB BIN chunk, or NULL */
  JsonParser *parser; /* of the document's JSON, or NULL when given the import's tree */
  JsonNode *tree;     /* the import's parse of the JSON (a reference), or NULL */
  JsonObject *root;
} rk__gltf_source;

/** Reads the .gltf or .glb (told by its first bytes) at path into *s. When digest is not NULL the
 * file's SHA-256 (hex) must equal it: otherwise RK_ERROR_INVALID says the file changed since the
 * import; then tree (taken, may be NULL: the import's parse of that file's JSON) stands for the
 * JSON instead of a parse of its own (without a digest tree is dropped). Fails with RK_ERROR_IO (unreadable, past RK__GLTF_SOURCE_MAX_BYTES) or RK_ERROR_PARSE
 * (a malformed or truncated container, bad JSON, no glTF 2 asset); messages start with path. Free
 * *s with rk__gltf_source_clear, also after a failure. */
bool rk__gltf_source_read(rk__gltf_source *s, const char *path, const char *digest,
                          JsonNode *tree, GError **error);
void rk__gltf_source_clear(rk__gltf_source *s);
/** Top-level array `name` of the document (borrowed), or NULL when absent or not an array. */
JsonArray *rk__gltf_source_array(const rk__gltf_source *s, const char *name);
/** The file a buffer's or image's uri names, relative to the document's folder and unescaped, in
 * *file (g_free; NULL for a data: URI). Fails with RK_ERROR_UNSUPPORTED for a URI with a scheme, an
 * absolute path or a ".." segment (naming `what`, e.g. "image 2"): rigkit copies only files inside
 * the document's folder. */
bool rk__gltf_source_uri_file(const rk__gltf_source *s, const char *uri, const char *what,
                              char **file, GError **error);
/** The bytes of `file` (as rk__gltf_source_uri_file gives it) in the document's folder (a new
 * reference). Fails with RK_ERROR_IO naming the file and `what`. */
GBytes *rk__gltf_source_file(const rk__gltf_source *s, const char *file, const char *what,
                             GError **error);
/** The bytes of buffer i (a new reference): the BIN chunk for a GLB buffer without uri, the
 * decoded base64 of a data: URI, or the file beside the document; at least its byteLength. Fails
 * with RK_ERROR_PARSE (no such buffer, shorter than declared, a data: URI that is not base64) or
 * RK_ERROR_IO. */
GBytes *rk__gltf_source_buffer(const rk__gltf_source *s, guint i, GError **error);

#endif
