/* The glTF document the pre-pass works on (internal; gltf_doc.c): the GLB container or JSON text
 * read into a JSON tree, its top-level arrays, and typed access to JSON members that tolerates
 * anything a malformed file holds (absent members, wrong types, non-finite numbers). After
 * repairs the tree is written back in the same container for Assimp. */
#ifndef RK_GLTF_DOC_H
#define RK_GLTF_DOC_H

#include "source.h"

#include <rigkit/rigkit.h>

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct rk__gltf_doc {
  const rk__source *src;
  bool glb;
  const uint8_t *json;
  size_t json_size;
  const uint8_t *bin; /* GLB BIN chunk or NULL */
  size_t bin_size;
  JsonParser *parser; /* owns the tree */
  JsonObject *root;
  JsonArray *buffers, *views, *accessors, *nodes, *meshes, *skins, *anims, *scenes;
  GPtrArray *buffer_data; /* GBytes * per buffer, loaded on demand (NULL until loaded) */
  gint64 *parents;        /* parent of each node, -1 for none; set by rk__gltf_check_nodes */
} rk__gltf_doc;

/** Reads src as a GLB container (glb) or as JSON text into *doc, parses the JSON and checks its
 * top level: an object with asset.version 2.x, arrays where glTF has arrays, a valid scene index.
 * Fails with RK_ERROR_PARSE or RK_ERROR_UNSUPPORTED. The document borrows src; free it with
 * rk__gltf_doc_clear whether this succeeds or not. */
bool rk__gltf_doc_load(rk__gltf_doc *doc, const rk__source *src, bool glb, GError **error);
void rk__gltf_doc_clear(rk__gltf_doc *doc);
/** The JSON tree, as repaired, in the document's container (JSON text, or a GLB with the same
 * BIN chunk): new bytes (g_free) in *out. False when the GLB would exceed 4 GiB. */
bool rk__gltf_doc_write(const rk__gltf_doc *doc, uint8_t **out, size_t *size);

/** The little-endian 32-bit word at p. */
guint32 rk__gltf_rd32(const uint8_t *p);
/** Member `name` of o (o may be NULL) when it is an array, an object, a string; else NULL. */
JsonArray *rk__gltf_array(JsonObject *o, const char *name);
JsonObject *rk__gltf_object(JsonObject *o, const char *name);
const char *rk__gltf_string(JsonObject *o, const char *name);
/** A finite JSON number into *out; false for anything else. */
bool rk__gltf_node_number(JsonNode *n, double *out);
/** Member `name` of o as a finite number: 1 = present and a number, 0 = absent, -1 = present but
 * not a number. */
int rk__gltf_number(JsonObject *o, const char *name, double *out);
/** Element i of a (a may be NULL) when it is an object, else NULL. */
JsonObject *rk__gltf_element(JsonArray *a, guint i);
/** Length of a, 0 for NULL. */
guint rk__gltf_len(JsonArray *a);
/** An array element that must be an object: false with an RK_ERROR_PARSE naming it (`what`) when
 * it is not. */
bool rk__gltf_need_object(JsonObject *o, const char *what, GError **error);
/** Reads an optional index member: true when absent (*out = -1) or a valid index < limit; else
 * false with an RK_ERROR_PARSE naming `what` and the member. */
bool rk__gltf_index(rk__gltf_doc *c, JsonObject *o, const char *name, guint limit, gint64 *out,
                    const char *what, GError **error);
/** Bytes of one component of a componentType (5120 BYTE ... 5126 FLOAT), 0 for an unknown one. */
int rk__gltf_component_size(int type);
/** Components of an accessor type ("SCALAR" 1 ... "MAT4" 16), 0 for an unknown type or NULL. */
int rk__gltf_type_components(const char *type);
/** The declared element count of accessor i (a valid index). */
double rk__gltf_accessor_count(rk__gltf_doc *c, gint64 i);
/** The channel a target path names ("translation", "rotation", "scale"); *ok is false for any
 * other path ("weights", NULL). */
rk_channel rk__gltf_path_channel(const char *path, bool *ok);

G_END_DECLS

#endif
