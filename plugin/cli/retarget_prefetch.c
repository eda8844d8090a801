/* The first source file imported beside the target (see retarget_prefetch.h). */
#include "retarget_prefetch.h"

#include <string.h>

struct rk__rt_prefetch {
  char *path;
  rk_import_options opts;
  GThread *thread; /* joined by the taker or by rk__rt_prefetch_free */
  gint taken;      /* atomic: 1 once joined */
  rk_asset *asset;
  GError *error;
};

static gpointer import(gpointer data) {
  rk__rt_prefetch *p = data;
  p->asset = rk_import_file(p->path, &p->opts, &p->error);
  return NULL;
}

rk__rt_prefetch *rk__rt_prefetch_start(const char *path, const rk_import_options *opts) {
  rk__rt_prefetch *p = g_new0(rk__rt_prefetch, 1);
  p->path = g_strdup(path);
  p->opts = *opts;
  p->thread = g_thread_try_new("rigkit-prefetch", import, p, NULL);
  if (!p->thread) {
    g_free(p->path);
    g_free(p);
    return NULL;
  }
  return p;
}

bool rk__rt_prefetch_take(rk__rt_prefetch *p, const char *path, rk_asset **asset, GError **error) {
  if (!p || !path || strcmp(p->path, path) != 0 || !g_atomic_int_compare_and_exchange(&p->taken, 0, 1))
    return false;
  g_thread_join(p->thread);
  p->thread = NULL;
  *asset = g_steal_pointer(&p->asset);
  if (p->error)
    g_propagate_error(error, g_steal_pointer(&p->error));
  return true;
}

void rk__rt_prefetch_free(rk__rt_prefetch *p) {
  if (!p)
    return;
  if (g_atomic_int_compare_and_exchange(&p->taken, 0, 1))
    g_thread_join(p->thread);
  rk_asset_free(p->asset);
  g_clear_error(&p->error);
  g_free(p->path);
  g_free(p);
}
