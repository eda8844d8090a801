/* The files of a glTF document (gltf_files.c): a .glb, or a .gltf with its buffer file, plus any
 * files the document refers to, written together atomically. Used by the glTF writer and by the
 * glTF editor.
 *
 * Index: rk__gltf_files, rk__gltf_files_write, rk__gltf_files_stage, rk__gltf_bin_path
 */
#ifndef RK_GLTF_FILES_H
#define RK_GLTF_FILES_H

#include "atomic_file.h"

#include <glib.h>

/** What to write. */
typedef struct rk__gltf_files {
  const char *path; /* the .gltf or .glb */
  bool glb;
  const char *json; /* the document's JSON text */
  size_t json_len;
  const GByteArray *bin; /* GLB: the BIN chunk; .gltf: the contents of bin_path; may be NULL */
  const char *bin_path;  /* .gltf: where bin goes */
  const rk__atomic_output *extra; /* more files the document refers to (copies), or NULL */
  size_t n_extra;
} rk__gltf_files;

/** Writes f->path (a GLB: header, JSON chunk padded with spaces, BIN chunk padded with zeros; or
 * the JSON text and a newline), bin_path for a .gltf, and the extra files, all complete on disk
 * before any is renamed. Fails with RK_ERROR_LIMIT (a GLB past 4 GiB, naming f->path) or
 * RK_ERROR_IO. */
bool rk__gltf_files_write(const rk__gltf_files *f, GError **error);
/** rk__gltf_files_write up to the temporaries (rk__atomic_stage_files): the files in the same
 * order (f->path, bin_path, the extra files), or NULL with the same errors. */
rk__atomic_set *rk__gltf_files_stage(const rk__gltf_files *f, GError **error);
/** The buffer file a .gltf at path refers to: path with its extension replaced by ".bin" (newly
 * allocated). */
char *rk__gltf_bin_path(const char *path);

#endif
