/* The formats rigkit writes: one table of names, writers, companion files and read-back
 * conventions, and the public questions it answers (see export_format.h). */
#include "export_format.h"

#include "bvh_writer.h"
#include "export_shared.h"
#include "fbx_writer.h"
#include "gltf_files.h"
#include "gltf_writer.h"

static bool write_gltf(const rk_asset *asset, const char *path, const rk_export_options *opts,
                       GError **error) {
  return rk__gltf_write(asset, path, opts, false, error);
}

static bool write_glb(const rk_asset *asset, const char *path, const rk_export_options *opts,
                      GError **error) {
  return rk__gltf_write(asset, path, opts, true, error);
}

typedef struct format_entry {
  rk_export_format format;
  const char *name; /* also the file extension, after its '.' */
  rk__export_writer write;
  char *(*companion)(const char *path); /* the file written beside path, or NULL: none */
  /* fills every field of out but format */
  void (*readback)(const rk_export_options *opts, rk_export_readback *out);
} format_entry;

static const format_entry FORMATS[] = {
    {RK_EXPORT_GLTF, "gltf", write_gltf, rk__gltf_bin_path, rk__gltf_readback},
    {RK_EXPORT_GLB, "glb", write_glb, NULL, rk__gltf_readback},
    {RK_EXPORT_BVH, "bvh", rk__bvh_write, NULL, rk__bvh_readback},
    {RK_EXPORT_FBX, "fbx", rk__fbx_write, NULL, rk__fbx_readback},
};

static const format_entry *entry_of(rk_export_format format) {
  for (size_t i = 0; i < G_N_ELEMENTS(FORMATS); i++)
    if (FORMATS[i].format == format)
      return &FORMATS[i];
  return NULL;
}

/* The entry of the format rk_export_file writes to path with opts (NULL = defaults). */
static const format_entry *entry_for(const char *path, const rk_export_options *opts) {
  if (opts && opts->format != RK_EXPORT_AUTO)
    return entry_of(opts->format);
  return entry_of(rk_export_format_from_path(path));
}

rk_export_format rk_export_format_from_path(const char *path) {
  const char *dot = path ? rk__export_path_extension(path) : NULL;
  if (!dot)
    return RK_EXPORT_AUTO;
  for (size_t i = 0; i < G_N_ELEMENTS(FORMATS); i++)
    if (g_ascii_strcasecmp(dot + 1, FORMATS[i].name) == 0)
      return FORMATS[i].format;
  return RK_EXPORT_AUTO;
}

const char *rk_export_format_name(rk_export_format format) {
  if (format == RK_EXPORT_AUTO)
    return "auto";
  const format_entry *f = entry_of(format);
  return f ? f->name : "?";
}

bool rk_export_format_available(rk_export_format format) { return entry_of(format) != NULL; }

rk__export_writer rk__export_writer_for(const char *path, const rk_export_options *opts) {
  const format_entry *f = entry_for(path, opts);
  return f ? f->write : NULL;
}

char **rk_export_output_files(const char *path, const rk_export_options *opts) {
  GPtrArray *files = g_ptr_array_new();
  const format_entry *f = path && *path ? entry_for(path, opts) : NULL;
  if (f) {
    g_ptr_array_add(files, g_strdup(path));
    if (f->companion)
      g_ptr_array_add(files, f->companion(path));
  }
  g_ptr_array_add(files, NULL);
  return (char **)g_ptr_array_free(files, FALSE);
}

void rk_export_readback_of(const char *path, const rk_export_options *opts,
                           rk_export_readback *out) {
  const rk_export_options defaults = RK_EXPORT_OPTIONS_INIT;
  const format_entry *f = entry_for(path, opts);
  *out = (rk_export_readback){0};
  if (f) {
    f->readback(opts ? opts : &defaults, out);
    out->format = f->format;
  }
}
