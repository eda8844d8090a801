/* What the pre-pass collects for the import that Assimp 5.2.5 loses (internal; gltf_collect.c):
 * each animation channel's interpolation, and for CUBICSPLINE the keys with their tangents. */
#ifndef RK_GLTF_COLLECT_H
#define RK_GLTF_COLLECT_H

#include <rigkit/rigkit.h>

G_BEGIN_DECLS

/* The document of gltf_doc.h, declared without including it: the files that include this header
 * through gltf_prepass.h (import.c, scene_import.c, scene_clips.c) then do not see json-glib. */
typedef struct rk__gltf_doc rk__gltf_doc;

/** Per-channel interpolation recovered from the glTF JSON (Assimp 5.2.5 loses it). */
typedef struct rk__gltf_interp {
  unsigned anim;
  char *node_name; /* unique name as given to Assimp */
  rk_channel channel;
  rk_interp interp;
  /* CUBICSPLINE: the full keys (in-tangent, value, out-tangent) read from the buffers. */
  size_t key_count;
  double *times;
  double *values;
} rk__gltf_interp;

/** Frees an rk__gltf_interp (a GDestroyNotify for arrays of them). */
void rk__gltf_interp_free(gpointer p);
/** Appends to interps one rk__gltf_interp for each channel whose sampler is STEP or CUBICSPLINE
 * (LINEAR is what Assimp assumes), bound to the node by names (rk__gltf_unique_node_names); for
 * CUBICSPLINE it reads the keys from the buffers (loading external buffers relative to the
 * source's directory). Fails with RK_ERROR_IO (a buffer that cannot be read), RK_ERROR_PARSE (a
 * buffer shorter than it declares, keys that do not match) or RK_ERROR_UNSUPPORTED (keys without
 * a bufferView). */
bool rk__gltf_collect_interps(rk__gltf_doc *doc, GPtrArray *names, GPtrArray *interps,
                              GError **error);

G_END_DECLS

#endif
