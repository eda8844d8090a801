/* The glTF pre-pass (internal; gltf_prepass.c): checks a .gltf/.glb file before Assimp reads it,
 * repairs what Assimp 5.2.5 would get wrong, and collects the facts Assimp loses. */
#ifndef RK_GLTF_PREPASS_H
#define RK_GLTF_PREPASS_H

#include "source.h"

#include <rigkit/rigkit.h>

G_BEGIN_DECLS

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

typedef struct rk__gltf_info {
  GPtrArray *interps; /* rk__gltf_interp */
  GPtrArray *notes;   /* char *: renames and other repairs */
  uint8_t *rewritten; /* new file bytes when node names had to be made unique, else NULL */
  size_t rewritten_size;
} rk__gltf_info;

/** Checks the glTF JSON / GLB container, makes node names unique (rewriting the bytes when
 * needed) and collects each animation channel's interpolation. Fails with RK_ERROR_PARSE on a
 * malformed container or JSON, RK_ERROR_LIMIT on absurd sizes. */
bool rk__gltf_prepare(const rk__source *src, bool glb, rk__gltf_info *info, GError **error);
void rk__gltf_info_clear(rk__gltf_info *info);

G_END_DECLS

#endif
