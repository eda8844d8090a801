/* Atomic output files (atomic_file.c): every writer puts its bytes in a temporary file beside the
 * destination and renames it over the destination only once it is complete on disk, so a failed
 * or interrupted export leaves no partial output and any previous file untouched.
 *
 * Index: rk__atomic_file, rk__atomic_file_open, rk__atomic_file_write, rk__atomic_file_finish,
 *        rk__atomic_file_commit, rk__atomic_file_abort, rk__atomic_piece, rk__atomic_output,
 *        rk__atomic_write_files, rk__atomic_set, rk__atomic_stage_files, rk__atomic_set_sync_start,
 *        rk__atomic_set_read, rk__atomic_set_commit, rk__atomic_set_abort
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
 * failure the temporary is removed and f freed too; fails as well (RK_ERROR_IO) when the
 * destination is then not the temporary's file (something replaced the temporary meanwhile). */
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

/** Files that belong together written to their temporaries, complete but not yet synced or
 * renamed: rk__atomic_write_files in two halves, so that the caller can read the bytes back (and
 * the disk can sync them) before they take their names. */
typedef struct rk__atomic_set rk__atomic_set;

/** Writes every file of files[n] to its temporary (rk__atomic_write_files' first half). NULL with
 * RK_ERROR_IO naming the file when one cannot be written; then no temporary is left. */
rk__atomic_set *rk__atomic_stage_files(const rk__atomic_output *files, size_t n, GError **error);
/** Starts fsyncing the temporaries on a thread of their own (when one can be made; else commit
 * syncs them). */
void rk__atomic_set_sync_start(rk__atomic_set *s);
/** The bytes of file i as its temporary holds them (its pages mapped read-only, else read from
 * it; g_bytes_unref), or NULL with RK_ERROR_IO. Safe while the set syncs; the bytes stay valid
 * after the commit or abort. */
GBytes *rk__atomic_set_read(const rk__atomic_set *s, size_t i, GError **error);
/** Waits for the sync, then syncs, closes and renames like rk__atomic_write_files (the first file
 * last; each name checked to hold its temporary's file), and frees s, also on failure (RK_ERROR_IO,
 * no temporary left). */
bool rk__atomic_set_commit(rk__atomic_set *s, GError **error);
/** Waits for the sync, removes every temporary and frees s; NULL is a no-op. */
void rk__atomic_set_abort(rk__atomic_set *s);

#endif
