/* The pre-pass's checks of a glTF file's bytes (internal; gltf_check_buffers.c): buffers,
 * bufferViews and accessors, which Assimp 5.2.5 follows without checking. */
#ifndef RK_GLTF_CHECK_BUFFERS_H
#define RK_GLTF_CHECK_BUFFERS_H

#include "gltf_doc.h"

G_BEGIN_DECLS

/** Checks image and buffer data URIs (as Assimp parses them safely), each buffer's byteLength
 * against its URI's data or the GLB BIN chunk, each bufferView's bytes against its buffer, and
 * each accessor's count, types, elements and sparse sections against its bufferViews. Fails with
 * RK_ERROR_PARSE naming the element, or RK_ERROR_LIMIT for a buffer over 1 GiB, an accessor over
 * 3 x RK_MESH_MAX_VERTICES elements, or more than 64 MiB of zeros without a bufferView. */
bool rk__gltf_check_buffers(rk__gltf_doc *doc, GError **error);

G_END_DECLS

#endif
