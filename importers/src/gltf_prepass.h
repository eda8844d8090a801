/* The glTF pre-pass (internal; gltf_prepass.c): checks a .gltf/.glb file before Assimp reads it,
 * repairs what Assimp 5.2.5 would get wrong, and collects the facts Assimp loses, which
 * scene_import.c applies to the scene Assimp reads. */
#ifndef RK_GLTF_PREPASS_H
#define RK_GLTF_PREPASS_H

#include "gltf_collect.h"
#include "source.h"

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct rk__gltf_info {
  GPtrArray *interps; /* rk__gltf_interp */
  GPtrArray *notes;   /* char *: renames and other repairs */
  /* The document's nodes as Assimp sees them, to find each scene node's document index: */
  GPtrArray *node_names; /* char *: node i's name as given to Assimp (unique) */
  gint64 *node_parents;  /* node i's parent in the document, -1 for none */
  JsonNode *tree;     /* the document's JSON tree (a reference) when no repair changed it */
  uint8_t *rewritten; /* the repaired file's bytes when a repair changed it, else NULL */
  size_t rewritten_size;
} rk__gltf_info;

/** Checks the GLB container and the glTF JSON, repairs it for Assimp (rewriting the bytes when
 * needed), collects each animation channel's interpolation and each node's name and parent into
 * *info (cleared first; free it
 * with rk__gltf_info_clear, also after a failure). Fails with RK_ERROR_PARSE naming the malformed
 * element, RK_ERROR_LIMIT on absurd sizes, RK_ERROR_UNSUPPORTED (not glTF 2.x) or RK_ERROR_IO (a
 * buffer file that cannot be read). */
bool rk__gltf_prepare(const rk__source *src, bool glb, rk__gltf_info *info, GError **error);
void rk__gltf_info_clear(rk__gltf_info *info);

G_END_DECLS

#endif
