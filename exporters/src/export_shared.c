/* What the format writers share: units, clip selection, the frames of a sampled clip, unique
 * names and path extensions (see export_shared.h). */
#include "export_shared.h"

#include <string.h>

double rk__export_units_per_metre(const rk_export_options *opts) {
  return opts->unit == RK_EXPORT_UNIT_METRES ? 1.0 : 100.0;
}

GPtrArray *rk__export_select_clips(const rk_asset *asset, const rk_export_options *opts,
                                   const char *path, GError **error) {
  GPtrArray *clips = g_ptr_array_new();
  const size_t n = rk_asset_clip_count(asset);
  if (opts->clip) {
    int i = rk_asset_find_clip(asset, opts->clip);
    if (i < 0) {
      GString *names = g_string_new(NULL);
      for (size_t k = 0; k < n; k++)
        g_string_append_printf(names, "%s'%s'", k ? ", " : "",
                               rk_clip_name(rk_asset_clip(asset, k)));
      g_set_error(error, RK_ERROR, RK_ERROR_NOT_FOUND, "%s: no clip '%s' in the asset (clips: %s)",
                  path, opts->clip, n ? names->str : "none");
      g_string_free(names, TRUE);
      g_ptr_array_unref(clips);
      return NULL;
    }
    g_ptr_array_add(clips, (gpointer)rk_asset_clip(asset, (size_t)i));
    return clips;
  }
  for (size_t k = 0; k < n; k++)
    g_ptr_array_add(clips, (gpointer)rk_asset_clip(asset, k));
  return clips;
}

double rk__export_clip_fps(const rk_clip *clip, const rk_export_options *opts) {
  if (opts->fps > 0 && isfinite(opts->fps))
    return opts->fps;
  const double f = clip ? rk_clip_infer_fps(clip) : 0.0;
  return f > 0 ? f : 30.0;
}

bool rk__export_frame_count(const rk_clip *clip, double fps, const char *path, size_t *frames,
                            GError **error) {
  const double n = clip ? floor(rk_clip_duration(clip) * fps + 0.5) + 1 : 1;
  if (n > RK_CLIP_MAX_KEYS) {
    g_set_error(error, RK_ERROR, RK_ERROR_LIMIT,
                "%s: clip '%s' would have %.0f frames at %g fps (limit %u)", path,
                rk_clip_name(clip), n, fps, RK_CLIP_MAX_KEYS);
    return false;
  }
  *frames = (size_t)n;
  return true;
}

char *rk__export_unique_name(GHashTable *used, const char *name) {
  char *candidate = g_strdup(name);
  for (unsigned k = 1; g_hash_table_contains(used, candidate); k++) {
    g_free(candidate);
    candidate = g_strdup_printf("%s.%03u", name, k);
  }
  g_hash_table_add(used, g_strdup(candidate));
  return candidate;
}

const char *rk__export_path_extension(const char *path) {
  const char *dot = strrchr(path, '.');
  const char *slash = strrchr(path, '/');
  return dot && (!slash || dot > slash) ? dot : NULL;
}
