/* rigkit/importers.h: files -> rk_asset in canonical space (metres, Y-up, right-handed, seconds).
 *
 * glTF/GLB and FBX are read through Assimp (only importers/src/assimp_scene.c talks to Assimp);
 * BVH and rigkit's DH-table text format are read by rigkit itself. Every importer records on the
 * asset what it converted (source unit and scale, up axis, repairs) so `rigkit info` can show it.
 *
 * Index: rk_import_options, RK_IMPORT_OPTIONS_INIT, rk_bvh_root_offset, rk_import_file,
 *        rk_import_memory, rk_import_file_bytes, rk_import_format_from_path, rk_import_parse_unit,
 *        rk_import_parse_axis
 */
#ifndef RIGKIT_IMPORTERS_H
#define RIGKIT_IMPORTERS_H

#include <rigkit/asset.h>

G_BEGIN_DECLS

/** How a BVH root OFFSET combines with the root's position channels (readers disagree). */
typedef enum rk_bvh_root_offset {
  RK_BVH_ROOT_OFFSET_AUTO,    /* pick the reading that puts the feet on the ground plane */
  RK_BVH_ROOT_OFFSET_ADD,     /* position = OFFSET + channels */
  RK_BVH_ROOT_OFFSET_REPLACE, /* position = channels (Blender's and Assimp's reading) */
} rk_bvh_root_offset;

/** What the caller decides instead of the importer (format, unit, up axis, BVH root-offset
 * reading) and whether meshes are read; start from RK_IMPORT_OPTIONS_INIT. */
typedef struct rk_import_options {
  const char *format;     /* "bvh", "gltf", "glb", "fbx", "dh"; NULL = from the content/extension */
  double unit_scale;      /* metres per file unit; 0 = from the file, or detected from the
                             skeleton's height when the format has no unit (BVH) */
  rk_bvh_root_offset bvh_root_offset;
  bool skip_meshes;       /* import only skeleton and clips */
  const char *up_axis;    /* BVH: the file's up axis ("Y", "Z", "-Z", "X", ...); NULL = detect
                             from the rest skeleton. DH tables: overrides the file's "up" line */
} rk_import_options;

#define RK_IMPORT_OPTIONS_INIT {NULL, 0.0, RK_BVH_ROOT_OFFSET_AUTO, false, NULL}

/** Reads a file into a new asset (the caller frees it with rk_asset_free); opts NULL = defaults.
 * Fails with RK_ERROR_IO (missing, unreadable, a directory), RK_ERROR_PARSE (malformed),
 * RK_ERROR_UNSUPPORTED, RK_ERROR_INVALID (NaN, cycles, duplicate joints) or RK_ERROR_LIMIT (absurd
 * declared sizes); the message starts with the path and names the fault. */
RK_API rk_asset *rk_import_file(const char *path, const rk_import_options *opts, GError **error);
/** Same from bytes in memory; `name` is used in messages and, with no opts->format, for the
 * extension. The bytes are not kept. */
RK_API rk_asset *rk_import_memory(const void *data, size_t size, const char *name,
                                  const rk_import_options *opts, GError **error);
/** rk_import_file(path) on the bytes of that file read by the caller (a file being written, read
 * back from its temporary before it takes the name): messages, the format by extension, the
 * companion files beside path and the asset's source path all come from path. The bytes are not
 * kept. Fails as rk_import_file does, but for the checks of the file itself. */
RK_API rk_asset *rk_import_file_bytes(const void *data, size_t size, const char *path,
                                      const rk_import_options *opts, GError **error);
/** Static format name guessed from a path's extension ("bvh", "glb", ...) or NULL. */
RK_API const char *rk_import_format_from_path(const char *path);
/** Parses a unit: a name ("m", "dm", "cm", "mm", "in", "ft", "cmu" for CMU motion-capture units
 * of 1/0.45 inch) or a positive number of metres per unit, into *metres_per_unit; false when the
 * text is neither. */
RK_API bool rk_import_parse_unit(const char *text, double *metres_per_unit);
/** Parses an axis name ("X", "+y", "-Z", case-insensitive) into *axis (0..2) and *sign (+-1);
 * false when the text is not an axis. */
RK_API bool rk_import_parse_axis(const char *text, int *axis, int *sign);

G_END_DECLS

#endif
