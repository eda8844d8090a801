/* Assets through the plugin ABI: import from a path or bytes (in the host's process or the
 * helper's), list clips and joints. */
#include "plugin_internal.h"

#include <rigkit/importers.h>

#include <string.h>

rk_plugin_asset *rk__plugin_asset_ref(rk_plugin_asset *a) {
  g_atomic_int_inc(&a->refs);
  return a;
}

void rk__plugin_asset_unref(rk_plugin_asset *a) {
  if (a && g_atomic_int_dec_and_test(&a->refs)) {
    rk_asset_free(a->asset);
    a->kind = 0;
    g_free(a);
  }
}

static int import_options(const rk_plugin_import_options *in, rk_import_options *out, char *err,
                          size_t err_size) {
  const rk_import_options defaults = RK_IMPORT_OPTIONS_INIT;
  *out = defaults;
  if (!in)
    return RK_PLUGIN_OK;
  if (!(isfinite(in->metres_per_unit) && in->metres_per_unit >= 0 && in->metres_per_unit <= 1e9))
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "import options: metres_per_unit = %g must be 0 (from the file) or a "
                           "positive number of metres",
                           in->metres_per_unit);
  if (in->format && !*in->format)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "import options: format is empty (NULL = detect)");
  if (in->isolation < RK_PLUGIN_ISOLATION_AUTO || in->isolation > RK_PLUGIN_ISOLATION_ALWAYS)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "import options: isolation = %d: must be RK_PLUGIN_ISOLATION_AUTO (0), "
                           "_NONE (1) or _ALWAYS (2)",
                           (int)in->isolation);
  if (in->bvh_root_offset < RK_PLUGIN_BVH_ROOT_OFFSET_AUTO ||
      in->bvh_root_offset > RK_PLUGIN_BVH_ROOT_OFFSET_REPLACE)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "import options: bvh_root_offset = %d: must be "
                           "RK_PLUGIN_BVH_ROOT_OFFSET_AUTO (0), _ADD (1) or _REPLACE (2)",
                           (int)in->bvh_root_offset);
  static const rk_bvh_root_offset readings[] = {
      RK_BVH_ROOT_OFFSET_AUTO, RK_BVH_ROOT_OFFSET_ADD, RK_BVH_ROOT_OFFSET_REPLACE};
  out->format = in->format;
  out->unit_scale = in->metres_per_unit;
  out->up_axis = in->bvh_up_axis;
  out->bvh_root_offset = readings[in->bvh_root_offset];
  return RK_PLUGIN_OK;
}

rk_plugin_asset *rk__plugin_asset_wrap(rk_asset *asset, bool isolated) {
  rk_plugin_asset *a = g_new0(rk_plugin_asset, 1);
  a->kind = RK__PLUGIN_ASSET;
  a->refs = 1;
  a->asset = asset;
  a->isolated = isolated;
  rk__plugin_register(a, RK__PLUGIN_ASSET);
  return a;
}

/* Whether a file goes to the helper process: AUTO sends every format but rigkit's own BVH and DH
 * readers (by the options' format, else the name's extension, as the importer decides). */
static bool isolate(const rk_plugin_import_options *opts, const char *name) {
  const int32_t mode = opts ? opts->isolation : RK_PLUGIN_ISOLATION_AUTO;
  if (mode != RK_PLUGIN_ISOLATION_AUTO)
    return mode == RK_PLUGIN_ISOLATION_ALWAYS;
  const char *format = opts && opts->format ? opts->format : rk_import_format_from_path(name);
  return !format || (strcmp(format, "bvh") != 0 && strcmp(format, "dh") != 0);
}

/* Imports path, or the bytes named path, where the options say; wraps the asset into *out. */
static int open_asset(const char *path, const void *data, size_t size,
                      const rk_plugin_import_options *opts, rk_plugin_asset **out, char *err,
                      size_t err_size) {
  rk_import_options o;
  int st = import_options(opts, &o, err, err_size);
  if (st != RK_PLUGIN_OK)
    return st;
  rk_asset *asset = NULL;
  const bool isolated = isolate(opts, path);
  if (isolated) {
    st = rk__plugin_import_isolated(path, data, size, opts, &asset, err, err_size);
    if (st != RK_PLUGIN_OK)
      return st;
  } else {
    g_autoptr(GError) e = NULL;
    asset = data ? rk_import_memory(data, size, path, &o, &e) : rk_import_file(path, &o, &e);
    if (!asset)
      return rk__plugin_fail_gerror(err, err_size, e);
  }
  *out = rk__plugin_asset_wrap(asset, isolated);
  return RK_PLUGIN_OK;
}

int rk__plugin_asset_open_file(const char *path, const rk_plugin_import_options *opts,
                               rk_plugin_asset **out, char *err, size_t err_size) {
  if (!out)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT, "asset_open_file: out is NULL");
  *out = NULL;
  if (!path || !*path)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "asset_open_file: the path is NULL or empty");
  return open_asset(path, NULL, 0, opts, out, err, err_size);
}

int rk__plugin_asset_open_memory(const void *data, size_t size, const char *name,
                                 const rk_plugin_import_options *opts, rk_plugin_asset **out,
                                 char *err, size_t err_size) {
  if (!out)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT, "asset_open_memory: out is NULL");
  *out = NULL;
  const char *label = name && *name ? name : "<memory>";
  if (!data || size == 0)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "asset_open_memory: %s: no bytes (data NULL or size 0)", label);
  return open_asset(label, data, size, opts, out, err, err_size);
}

int rk__plugin_asset_close(rk_plugin_asset *asset) {
  if (!asset)
    return RK_PLUGIN_OK;
  if (!rk__plugin_unregister(asset, RK__PLUGIN_ASSET))
    return RK_PLUGIN_ERR_ARGUMENT;
  rk__plugin_asset_unref(asset);
  return RK_PLUGIN_OK;
}

static int check_asset(const rk_plugin_asset *asset, const char *fn, char *err, size_t err_size) {
  if (!rk__plugin_is_live(asset, RK__PLUGIN_ASSET))
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "%s: %s is not an open asset handle", fn, asset ? "the asset" : "NULL");
  return RK_PLUGIN_OK;
}

int rk__plugin_asset_info(const rk_plugin_asset *asset, rk_plugin_asset_info *out, char *err,
                          size_t err_size) {
  int st = check_asset(asset, "asset_info", err, err_size);
  if (st != RK_PLUGIN_OK)
    return st;
  if (!out)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT, "asset_info: out is NULL");
  const rk_asset *a = asset->asset;
  memset(out, 0, sizeof *out);
  out->joint_count = (uint32_t)rk_skeleton_joint_count(rk_asset_skeleton(a));
  out->clip_count = (uint32_t)rk_asset_clip_count(a);
  out->mesh_count = (uint32_t)rk_asset_mesh_count(a);
  out->isolated = asset->isolated;
  out->format = rk_asset_source_format(a) ? rk_asset_source_format(a) : "";
  out->path = rk_asset_source_path(a) ? rk_asset_source_path(a) : "";
  out->unit = rk_asset_unit_name(a) ? rk_asset_unit_name(a) : "m";
  out->metres_per_unit = rk_asset_unit_scale(a) > 0 ? rk_asset_unit_scale(a) : 1.0;
  out->up_axis = rk_asset_up_axis(a) ? rk_asset_up_axis(a) : "Y";
  return RK_PLUGIN_OK;
}

int rk__plugin_asset_clip(const rk_plugin_asset *asset, uint32_t index, rk_plugin_clip_info *out,
                          char *err, size_t err_size) {
  int st = check_asset(asset, "asset_clip", err, err_size);
  if (st != RK_PLUGIN_OK)
    return st;
  if (!out)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT, "asset_clip: out is NULL");
  const rk_asset *a = asset->asset;
  const size_t n = rk_asset_clip_count(a);
  if (index >= n)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "%s: clip %u does not exist (the file has %zu clip%s)",
                           rk_asset_source_path(a) ? rk_asset_source_path(a) : "asset", index, n,
                           n == 1 ? "" : "s");
  const rk_clip *c = rk_asset_clip(a, index);
  memset(out, 0, sizeof *out);
  out->name = rk_clip_name(c);
  out->duration_s = rk_clip_duration(c);
  out->fps = rk_clip_fps(c);
  out->frames = (uint32_t)MIN(rk_clip_frame_count(c), (size_t)UINT32_MAX);
  return RK_PLUGIN_OK;
}

int rk__plugin_asset_joints(const rk_plugin_asset *asset, const rk_plugin_space *space,
                            uint32_t capacity, const char **names, int32_t *parents, float *rest,
                            uint32_t *flags, char *err, size_t err_size) {
  int st = check_asset(asset, "asset_joints", err, err_size);
  if (st != RK_PLUGIN_OK)
    return st;
  double mpu;
  if ((st = rk__plugin_space_check(space, &mpu, err, err_size)) != RK_PLUGIN_OK)
    return st;
  const rk_skeleton *s = rk_asset_skeleton(asset->asset);
  const size_t n = rk_skeleton_joint_count(s);
  if (capacity < n)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_CAPACITY,
                           "asset_joints: capacity %u is less than the %zu joints", capacity, n);
  for (size_t i = 0; i < n; i++) {
    const int p = rk_skeleton_parent(s, i);
    if (names)
      names[i] = rk_skeleton_joint_name(s, i);
    if (parents)
      parents[i] = p;
    if (rest)
      rk__plugin_from_canonical(rk_skeleton_rest(s, i), space, mpu, p < 0,
                                rest + i * RK_PLUGIN_TRS_FLOATS);
    if (flags)
      flags[i] = (rk_skeleton_joint_flags(s, i) & RK_SKELETON_END_SITE) ? RK_PLUGIN_JOINT_END_SITE : 0;
  }
  return RK_PLUGIN_OK;
}
