/* Telling the formats apart (format.c): by extension (public: rk_import_format_from_path) and
 * by content. Format names are the static strings "bvh", "gltf", "glb", "fbx" and "dh". */
#ifndef RK_FORMAT_H
#define RK_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** The format the first n bytes announce (a GLB or binary FBX magic, HIERARCHY, rigkit-dh, a JSON
 * object, an ASCII FBX comment; leading whitespace and a UTF-8 BOM skipped), or NULL. */
const char *rk__format_sniff(const uint8_t *d, size_t n);
/** True when f names a format rigkit reads. */
bool rk__format_known(const char *f);

#endif
