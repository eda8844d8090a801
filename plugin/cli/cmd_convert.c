/* `rigkit convert IN OUT [--clip NAME] [--fps F] [--reduce TOL_M]`: imports IN, optionally bakes
 * every clip at a fixed rate and reduces its keys within a world-space tolerance, and writes OUT in
 * the format of its extension (.glb .gltf .bvh .fbx) or of --to. Prints one line per clip with its
 * key counts (and, when reducing, "keys 74,000 -> 9,100 at 1 mm") and a summary line. */
#include "cli.h"
#include "cli_import.h"

#include <rigkit/exporters.h>
#include <rigkit/importers.h>
#include <rigkit/reduce.h>
#include <rigkit/rigkit.h>
#include <string.h>

static bool parse_positive(const char *text, const char *what, double *out, bool allow_zero) {
  if (!text)
    return true;
  char *end = NULL;
  double v = g_ascii_strtod(text, &end);
  if (!end || *end != '\0' || !isfinite(v) || v < 0 || (!allow_zero && v == 0)) {
    rk__cli_usage("convert", "%s must be a %s number, not '%s'", what,
                  allow_zero ? "non-negative" : "positive", text);
    return false;
  }
  *out = v;
  return true;
}

static bool parse_output_options(const char *to, const char *units, const char *order,
                                 const char *root_order, const char *bvh_root,
                                 rk_export_options *o) {
  if (to) {
    static const struct {
      const char *name;
      rk_export_format f;
    } fmts[] = {{"glb", RK_EXPORT_GLB}, {"gltf", RK_EXPORT_GLTF}, {"bvh", RK_EXPORT_BVH},
                {"fbx", RK_EXPORT_FBX}};
    bool found = false;
    for (size_t i = 0; i < G_N_ELEMENTS(fmts); i++)
      if (g_ascii_strcasecmp(to, fmts[i].name) == 0) {
        o->format = fmts[i].f;
        found = true;
      }
    if (!found) {
      rk__cli_usage("convert", "--to must be glb, gltf, bvh or fbx, not '%s'", to);
      return false;
    }
  }
  if (units) {
    if (strcmp(units, "m") == 0)
      o->unit = RK_EXPORT_UNIT_METRES;
    else if (strcmp(units, "cm") == 0)
      o->unit = RK_EXPORT_UNIT_CENTIMETRES;
    else {
      rk__cli_usage("convert", "--out-unit must be m or cm, not '%s'", units);
      return false;
    }
  }
  if (order && !rk_euler_order_parse(order, &o->bvh_order)) {
    rk__cli_usage("convert", "--bvh-order must be an Euler order such as ZXY, not '%s'", order);
    return false;
  }
  o->bvh_root_order = o->bvh_order;
  if (root_order && !rk_euler_order_parse(root_order, &o->bvh_root_order)) {
    rk__cli_usage("convert", "--bvh-root-order must be an Euler order such as ZXY, not '%s'",
                  root_order);
    return false;
  }
  if (bvh_root) {
    if (strcmp(bvh_root, "rest") == 0)
      o->bvh_root = RK_BVH_ROOT_REST;
    else if (strcmp(bvh_root, "zero") == 0)
      o->bvh_root = RK_BVH_ROOT_ZERO;
    else {
      rk__cli_usage("convert", "--bvh-root must be rest or zero, not '%s'", bvh_root);
      return false;
    }
  }
  return true;
}

/* Bakes (fps > 0) and reduces (tol >= 0) the clips to write, in place in the asset, printing what
 * was done per clip. Clips not selected by `only` are dropped. */
static bool process_clips(rk_asset *a, const char *only, double fps, double tol, GError **error) {
  const rk_skeleton *s = rk_asset_skeleton(a);
  const rk_transform *rest = rk_skeleton_rest_locals(s);
  g_autoptr(GPtrArray) clips = g_ptr_array_new_with_free_func((GDestroyNotify)rk_clip_free);
  int keep = -1;
  if (only) {
    keep = rk_asset_find_clip(a, only);
    if (keep < 0) {
      GString *names = g_string_new(NULL);
      for (size_t k = 0; k < rk_asset_clip_count(a); k++)
        g_string_append_printf(names, "%s'%s'", k ? ", " : "", rk_clip_name(rk_asset_clip(a, k)));
      g_set_error(error, RK_ERROR, RK_ERROR_NOT_FOUND, "no clip '%s' (clips: %s)", only,
                  names->len ? names->str : "none");
      g_string_free(names, TRUE);
      return false;
    }
  }
  for (size_t i = rk_asset_clip_count(a); i-- > 0;) {
    rk_clip *c = rk_asset_take_clip(a, i);
    if (keep >= 0 && (size_t)keep != i)
      rk_clip_free(c);
    else
      g_ptr_array_insert(clips, 0, c);
  }
  for (guint i = 0; i < clips->len; i++) {
    rk_clip *c = g_ptr_array_index(clips, i);
    const size_t keys_in = rk_clip_key_count_total(c);
    if (fps > 0 && tol < 0) {
      rk_clip *b = rk_clip_bake(c, rest, fps, error);
      if (!b)
        return false;
      printf("clip '%s': baked at %g fps: keys %zu -> %zu\n", rk_clip_name(c), fps, keys_in,
             rk_clip_key_count_total(b));
      g_ptr_array_index(clips, i) = b;
      rk_clip_free(c);
    } else if (tol >= 0) {
      rk_reduce_stats st;
      rk_clip *r = rk_clip_reduce(c, s, tol, fps, &st, error);
      if (!r)
        return false;
      g_autofree char *summary = rk_reduce_stats_summary(&st, tol, s);
      printf("clip '%s': %s\n", rk_clip_name(c), summary);
      g_ptr_array_index(clips, i) = r;
      rk_clip_free(c);
    }
  }
  while (clips->len > 0)
    rk_asset_add_clip(a, g_ptr_array_steal_index(clips, 0));
  return true;
}

int rk__cmd_convert(int argc, char **argv) {
  g_autofree char *clip = NULL, *fps_text = NULL, *reduce_text = NULL, *to = NULL;
  g_autofree char *out_unit = NULL, *order = NULL, *root_order = NULL, *bvh_root = NULL;
  gboolean no_meshes = FALSE;
  rk__cli_import imp = {0};
  GOptionEntry entries[] = {
      {"clip", 0, 0, G_OPTION_ARG_STRING, &clip,
       "Convert only this clip (name or index); BVH holds one clip", "NAME"},
      {"fps", 0, 0, G_OPTION_ARG_STRING, &fps_text,
       "Bake every clip at this rate (keys on every frame); with --reduce, the rate the error is "
       "checked at (default: the clip's own)",
       "F"},
      {"reduce", 0, 0, G_OPTION_ARG_STRING, &reduce_text,
       "Remove keys while no joint moves more than TOL_M metres from the unreduced clip at any "
       "frame (e.g. 0.001)",
       "TOL_M"},
      {"to", 0, 0, G_OPTION_ARG_STRING, &to,
       "Output format glb, gltf, bvh or fbx (default: from OUT's extension)", "FORMAT"},
      {"out-unit", 0, 0, G_OPTION_ARG_STRING, &out_unit,
       "Length unit written: m or cm (default: glTF m, BVH cm)", "UNIT"},
      {"bvh-order", 0, 0, G_OPTION_ARG_STRING, &order,
       "BVH rotation channel order of every joint (default ZXY)", "ORDER"},
      {"bvh-root-order", 0, 0, G_OPTION_ARG_STRING, &root_order,
       "BVH rotation channel order of the root (default: --bvh-order)", "ORDER"},
      {"bvh-root", 0, 0, G_OPTION_ARG_STRING, &bvh_root,
       "BVH root OFFSET: rest (the rest position, default) or zero (0 0 0, the same for every "
       "reader)",
       "rest|zero"},
      {"no-meshes", 0, 0, G_OPTION_ARG_NONE, &no_meshes, "Write skeleton and clips only", NULL},
      RK__CLI_IMPORT_ENTRIES(imp),
      G_OPTION_ENTRY_NULL,
  };
  int rc = rk__cli_parse(
      "convert", "IN OUT",
      "Converts between glTF/GLB, FBX and BVH, keeping the skeleton, every clip and, where the "
      "format holds them, meshes with skin weights. Outputs are written atomically (never a "
      "partial file) and are the same bytes for the same input.",
      entries, &argc, &argv);
  if (rc != RK_EXIT_OK) {
    rk__cli_import_clear(&imp);
    return rc;
  }
  if (argc != 3) {
    rk__cli_import_clear(&imp);
    return rk__cli_usage("convert", "expected IN and OUT (see rigkit convert --help)");
  }
  const char *in = argv[1], *out = argv[2];
  double fps = 0, tol = -1;
  rk_export_options eo = RK_EXPORT_OPTIONS_INIT;
  rk_import_options io;
  if (!parse_positive(fps_text, "--fps", &fps, false) ||
      !parse_positive(reduce_text, "--reduce", &tol, true) ||
      !parse_output_options(to, out_unit, order, root_order, bvh_root, &eo) ||
      !rk__cli_import_options("convert", &imp, &io)) {
    rk__cli_import_clear(&imp);
    return RK_EXIT_USAGE;
  }
  if (eo.format == RK_EXPORT_AUTO && rk_export_format_from_path(out) == RK_EXPORT_AUTO) {
    rk__cli_import_clear(&imp);
    return rk__cli_usage("convert", "%s: unknown output format; use .glb, .gltf, .bvh or .fbx, "
                         "or --to", out);
  }
  io.skip_meshes = no_meshes;
  eo.skip_meshes = no_meshes;
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_asset) asset = rk_import_file(in, &io, &error);
  rk__cli_import_clear(&imp);
  if (!asset)
    return rk__cli_fail("convert", error);
  const rk_export_format fmt =
      eo.format != RK_EXPORT_AUTO ? eo.format : rk_export_format_from_path(out);
  if (fmt == RK_EXPORT_BVH && !clip && rk_asset_clip_count(asset) > 1) {
    GString *names = g_string_new(NULL);
    for (size_t k = 0; k < rk_asset_clip_count(asset); k++)
      g_string_append_printf(names, "%s'%s'", k ? ", " : "", rk_clip_name(rk_asset_clip(asset, k)));
    fprintf(stderr, "rigkit convert: %s: BVH holds one clip and %s has %zu (%s): choose one with "
                    "--clip NAME\n",
            out, in, rk_asset_clip_count(asset), names->str);
    g_string_free(names, TRUE);
    return RK_EXIT_FAILED;
  }
  if (!process_clips(asset, clip, fps, tol, &error)) {
    g_prefix_error(&error, "%s: ", in);
    return rk__cli_fail("convert", error);
  }
  if (!rk_export_file(asset, out, &eo, &error))
    return rk__cli_fail("convert", error);
  const rk_skeleton *s = rk_asset_skeleton(asset);
  size_t keys = 0;
  for (size_t i = 0; i < rk_asset_clip_count(asset); i++)
    keys += rk_clip_key_count_total(rk_asset_clip(asset, i));
  printf("wrote %s (%s): %zu joints, %zu clips, %zu keys, %zu meshes\n", out,
         rk_export_format_name(fmt), rk_skeleton_joint_count(s), rk_asset_clip_count(asset),
         keys, no_meshes || fmt == RK_EXPORT_BVH ? (size_t)0 : rk_asset_mesh_count(asset));
  return fflush(stdout) == 0 ? RK_EXIT_OK : RK_EXIT_FAILED;
}
