/* Batch mistakes of `rigkit retarget` found before any clip runs: clip arguments that are
 * directories (expanded, --recursive for their subdirectories), output files and directories
 * that cannot be created or written, outputs that would overwrite a source. Each is one line on
 * stderr and exit 2, with nothing created. */
#ifndef RK_RETARGET_PREFLIGHT_H
#define RK_RETARGET_PREFLIGHT_H

#include <glib.h>
#include <stdbool.h>

/** Replaces every directory in paths (char*, owned) by the clip files it holds (.bvh, .glb,
 * .gltf, .fbx, any case), sorted by name, those of its subdirectories too when `recursive`.
 * Returns false after one line on stderr ("rigkit <cmd>: ...") when a directory holds no clip
 * file or cannot be read. */
bool rk__rt_expand_dirs(const char *cmd, GPtrArray *paths, bool recursive);

/** Whether `path` can be created (or written when it exists) as a file (`dir` false) or a
 * directory (`dir` true) without creating anything: the nearest existing ancestor of a new path
 * must be a writable directory, an existing path must be of the right kind and writable. A new
 * file may also go into one of `made` (NULL-terminated, may be NULL) or a parent of one:
 * directories the run creates with their parents (--out-dir, --plot), already checked. NULL path: true. Returns false after one line on stderr
 * naming the option and the path. */
bool rk__rt_can_write(const char *cmd, const char *option, const char *path, bool dir,
                      const char *const *made);

#endif
