/* rk_export_file: the checks every output passes, then the format's writer (export_format.c). */
#include "export_format.h"

#include <rigkit/error.h>

/* At least one joint, and finite rest poses. */
static bool check_skeleton(const rk_skeleton *s, const char *path, GError **error) {
  const size_t n = rk_skeleton_joint_count(s);
  if (n == 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "%s: nothing to export: the skeleton has no joints", path);
    return false;
  }
  for (size_t j = 0; j < n; j++)
    if (!rk_transform_is_finite(rk_skeleton_rest(s, j))) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "%s: joint '%s' has a non-finite rest pose",
                  path, rk_skeleton_joint_name(s, j));
      return false;
    }
  return true;
}

/* Every value of a clip finite (clips can be corrupted after rk_clip_add_track by writes through
 * the borrowed arrays); the error names the clip, joint, channel and key. */
static bool check_clip(const rk_clip *clip, const rk_skeleton *s, const char *path,
                       GError **error) {
  if (!isfinite(rk_clip_duration(clip))) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "%s: clip '%s' has a non-finite duration", path,
                rk_clip_name(clip));
    return false;
  }
  for (size_t i = 0; i < rk_clip_track_count(clip); i++) {
    const rk_track *t = rk_clip_track(clip, i);
    const size_t per_key =
        (size_t)rk_channel_components(t->channel) * (t->interp == RK_INTERP_CUBIC ? 3 : 1);
    const char *joint = t->joint >= 0 && (size_t)t->joint < rk_skeleton_joint_count(s)
                            ? rk_skeleton_joint_name(s, (size_t)t->joint)
                            : "?";
    for (size_t k = 0; k < t->key_count; k++) {
      bool ok = isfinite(t->times[k]);
      for (size_t c = 0; ok && c < per_key; c++)
        ok = isfinite(t->values[k * per_key + c]);
      if (!ok) {
        g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                    "%s: clip '%s', joint '%s', %s key %zu (t=%g s) is not a finite number", path,
                    rk_clip_name(clip), joint, rk_channel_name(t->channel), k, t->times[k]);
        return false;
      }
    }
  }
  return true;
}

bool rk_export_file(const rk_asset *asset, const char *path, const rk_export_options *opts,
                    GError **error) {
  const rk_export_options defaults = RK_EXPORT_OPTIONS_INIT;
  if (!opts)
    opts = &defaults;
  if (!path || !*path) {
    g_set_error(error, RK_ERROR, RK_ERROR_IO, "no output path given");
    return false;
  }
  if (!asset) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "%s: nothing to export (no asset)", path);
    return false;
  }
  const rk_skeleton *s = rk_asset_skeleton(asset);
  if (!check_skeleton(s, path, error))
    return false;
  for (size_t i = 0; i < rk_asset_clip_count(asset); i++)
    if (!check_clip(rk_asset_clip(asset, i), s, path, error))
      return false;
  const rk__export_writer write = rk__export_writer_for(path, opts);
  if (write)
    return write(asset, path, opts, error);
  g_set_error(error, RK_ERROR, RK_ERROR_UNSUPPORTED,
              "%s: unknown output format (use .gltf, .glb, .bvh or .fbx, or choose a format)",
              path);
  return false;
}
