/* Internal interface shared by rigkit's writers (gltf_writer.c, bvh_writer.c, and the FBX writer
 * to come): atomic output files, checks every writer applies, clip selection and name helpers. */
#ifndef RK_EXPORT_INTERNAL_H
#define RK_EXPORT_INTERNAL_H

#include <json-glib/json-glib.h>
#include "json_text.h"
#include <rigkit/error.h>
#include <rigkit/exporters.h>

/* ---- atomic files (atomic_file.c) ---------------------------------------------------------- */

/** An output being written: a temporary file ".<name>.rk-XXXXXX" in the destination's directory
 * that becomes the destination only at commit. Writes are buffered; errors are sticky (the first
 * one is kept and reported at commit). */
typedef struct rk__atomic_file rk__atomic_file;

/** Creates the temporary file for path (mode 0666 less the umask). Fails with RK_ERROR_IO naming
 * path when the directory is missing or unwritable or path is a directory. */
rk__atomic_file *rk__atomic_file_open(const char *path, GError **error);
/** Appends n bytes (buffered). Returns false once any write has failed. */
bool rk__atomic_file_write(rk__atomic_file *f, const void *data, size_t n);
/** Appends a NUL-terminated string. */
bool rk__atomic_file_puts(rk__atomic_file *f, const char *s);
/** Flushes, fsyncs and closes the temporary file (not yet renamed). Fails with RK_ERROR_IO (disk
 * full, I/O error); the file stays open for rk__atomic_file_abort. Calling it twice is harmless. */
bool rk__atomic_file_finish(rk__atomic_file *f, GError **error);
/** Finishes (when not yet done) and renames the temporary over the destination, then frees f. On
 * failure the temporary is removed and f freed too. */
bool rk__atomic_file_commit(rk__atomic_file *f, GError **error);
/** Removes the temporary file and frees f; NULL is a no-op. */
void rk__atomic_file_abort(rk__atomic_file *f);
/** Destination path (borrowed). */
const char *rk__atomic_file_path(const rk__atomic_file *f);

/* ---- shared checks and helpers (export.c) ---------------------------------------------------- */

/** Clips to write, in asset order (borrowed pointers): every clip, or the one opts->clip names.
 * Fails with RK_ERROR_NOT_FOUND naming the clip and the asset's clip names. */
GPtrArray *rk__export_select_clips(const rk_asset *asset, const rk_export_options *opts,
                                   const char *path, GError **error);
/** Checks that every value of a clip is finite (clips can be corrupted after rk_clip_add_track by
 * writes through the borrowed arrays). Fails with RK_ERROR_INVALID naming the clip, joint, channel
 * and key. */
bool rk__export_check_clip(const rk_clip *clip, const rk_skeleton *s, const char *path,
                           GError **error);
/** Checks the skeleton: at least one joint and finite rest poses. */
bool rk__export_check_skeleton(const rk_skeleton *s, const char *path, GError **error);
/** Makes `name` unique within `used` (a set of owned strings): returns name itself or
 * "name.001", "name.002", ... (newly allocated; the set keeps its own copy). */
char *rk__export_unique_name(GHashTable *used, const char *name);

/* ---- writers --------------------------------------------------------------------------------- */

/** glTF 2.0 as .gltf + .bin (glb false) or .glb (glb true). */
bool rk__gltf_write(const rk_asset *asset, const char *path, const rk_export_options *opts,
                    bool glb, GError **error);
/** BVH. */
bool rk__bvh_write(const rk_asset *asset, const char *path, const rk_export_options *opts,
                   GError **error);
/** Binary FBX 7.4 (fbx_writer.c); rk__fbx_write_orders takes each joint's rotation order (a
 * Tait-Bryan rigkit order; NULL: FBX's default eEulerXYZ for every joint). */
bool rk__fbx_write(const rk_asset *asset, const char *path, const rk_export_options *opts,
                   GError **error);
bool rk__fbx_write_orders(const rk_asset *asset, const char *path, const rk_export_options *opts,
                          const rk_euler_order *orders, GError **error);

#endif
