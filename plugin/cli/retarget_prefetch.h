/* Internal to `rigkit retarget`: the first source file imported on a thread of its own while the
 * command imports and maps the target (retarget_prefetch.c). The batch takes the asset (or the
 * import's error) instead of importing that file itself: the same call with the same options, so
 * the same asset and the same message. */
#ifndef RK_RETARGET_PREFETCH_H
#define RK_RETARGET_PREFETCH_H

#include <rigkit/importers.h>

typedef struct rk__rt_prefetch rk__rt_prefetch;

/** Starts importing path with *opts (copied; its strings borrowed until rk__rt_prefetch_free) on
 * a new thread; NULL when no thread can start (the
 * batch then imports the file itself). */
rk__rt_prefetch *rk__rt_prefetch_start(const char *path, const rk_import_options *opts);
/** When p holds the import of path (the same string) not yet taken: waits for it and moves the
 * asset into *asset, or the import's error into *error (*asset NULL), and returns true. Else
 * returns false and changes nothing. Safe from any thread; one caller takes it. */
bool rk__rt_prefetch_take(rk__rt_prefetch *p, const char *path, rk_asset **asset, GError **error);
/** Waits for the thread and frees p with whatever was not taken; NULL is a no-op. */
void rk__rt_prefetch_free(rk__rt_prefetch *p);

#endif
