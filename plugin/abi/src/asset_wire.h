/* What crosses the pipe from the import helper process to the plugin (plugin_isolate.c): an
 * rk_asset as bytes (skeleton: names, parents, rest poses, flags, inverse binds, declared
 * mechanics, source document nodes; clips: every track as stored; meshes: arrays, skin, material
 * and its texture; provenance: format, path, digest, unit, up axis; notes), or the import's
 * error. Both ends are built from the same sources,
 * so the bytes are in the machine's own byte order; a leading magic and the build's version
 * refuse anything else. */
#ifndef RK_ASSET_WIRE_H
#define RK_ASSET_WIRE_H

#include <rigkit/rigkit.h>

/* Appends the asset's bytes to out. Never fails. */
void rk__wire_asset_write(const rk_asset *asset, GByteArray *out);

/* Reads an asset from size bytes written by rk__wire_asset_write; every count, index and value is
 * checked (through the same builders the importers use), so malformed bytes give NULL with
 * RK_ERROR_PARSE or RK_ERROR_INVALID, never a crash. The caller frees the asset. */
rk_asset *rk__wire_asset_read(const uint8_t *data, size_t size, GError **error);

/* Appends an import failure: its RK_ERROR code (RK_ERROR_FAILED for other domains) and message. */
void rk__wire_error_write(const GError *failure, GByteArray *out);

/* What a reply held. */
typedef enum rk__wire_kind {
  RK__WIRE_ASSET,     /* an asset (*asset) */
  RK__WIRE_ERROR,     /* the import's error, as the helper's importer reported it (*error) */
  RK__WIRE_MALFORMED, /* neither, e.g. cut short by a crash (*error says what was wrong) */
} rk__wire_kind;

/* Reads a whole reply (an asset or an error written above). */
rk__wire_kind rk__wire_reply_read(const uint8_t *data, size_t size, rk_asset **asset,
                                  GError **error);

#endif
