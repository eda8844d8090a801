/* Atomic output files (atomic_file.c): every writer puts its bytes in a temporary file beside the
 * destination and renames it over the destination only once it is complete on disk, so a failed
 * or interrupted export leaves no partial output and any previous file untouched.
 *
 * Index: rk__atomic_file, rk__atomic_file_open, rk__atomic_file_write, rk__atomic_file_finish,
 *        rk__atomic_file_commit, rk__atomic_file_abort, rk__atomic_piece, rk__atomic_output,
 *        rk__atomic_write_files
 */
#ifndef RK_ATOMIC_FILE_H
#define RK_ATOMIC_FILE_H

#include <rigkit/error.h>

#include <stdbool.h>
#include <stddef.h>

/** An output being written: a temporary file ".<name>.rk-XXXXXX" in the destination's directory
 * that becomes the destination only at commit. Writes are buffered; errors are sticky (the first
 * one is kept and reported at commit). */
typedef struct rk__atomic_file rk__atomic_file;

/** Creates the temporary file for path (mode 0666 less the umask). Fails with RK_ERROR_IO naming
 * path when the directory is missing or unwritable or path is a directory. */
rk__atomic_file *rk__atomic_file_open(const char *path, GError **error);
/** Appends n bytes (buffered). Returns false once any write has failed. */
bool rk__atomic_file_write(rk__atomic_file *f, const void *data, size_t n);
/** Flushes, fsyncs and closes the temporary file (not yet renamed). Fails with RK_ERROR_IO (disk
 * full, I/O error); the file stays open for rk__atomic_file_abort. Calling it twice is harmless. */
bool rk__atomic_file_finish(rk__atomic_file *f, GError **error);
/** Finishes (when not yet done) and renames the temporary over the destination, then frees f. On
 * failure the temporary is removed and f freed too. */
bool rk__atomic_file_commit(rk__atomic_file *f, GError **error);
/** Removes the temporary file and frees f; NULL is a no-op. */
void rk__atomic_file_abort(rk__atomic_file *f);

/** A run of bytes of an output file (borrowed). */
typedef struct rk__atomic_piece {
  const void *data;
  size_t size;
} rk__atomic_piece;

/** One output file: its destination and its contents, the pieces in order (borrowed). */
typedef struct rk__atomic_output {
  const char *path;
  const rk__atomic_piece *pieces;
  size_t n_pieces;
} rk__atomic_output;

/** Writes n files that belong together (a .gltf and the files it refers to): every temporary is
 * complete on disk before any is renamed, and they are renamed in reverse order, so the first
 * file (the one referring to the others) appears last. Fails with RK_ERROR_IO naming the file;
 * nothing is renamed unless every file was written. */
bool rk__atomic_write_files(const rk__atomic_output *files, size_t n, GError **error);

#endif
