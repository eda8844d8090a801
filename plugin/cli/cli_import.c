/* Import options shared by the file-reading subcommands. */
#include "cli_import.h"

#include "cli.h"

#include <string.h>

bool rk__cli_import_options(const char *command, const rk__cli_import *in,
                            rk_import_options *opts) {
  rk_import_options defaults = RK_IMPORT_OPTIONS_INIT;
  *opts = defaults;
  if (in->unit && !rk_import_parse_unit(in->unit, &opts->unit_scale)) {
    rk__cli_usage(command, "--unit %s: not a unit (m, dm, cm, mm, in, ft, cmu) or a positive "
                           "number of metres", in->unit);
    return false;
  }
  int axis, sign;
  if (in->up && !rk_import_parse_axis(in->up, &axis, &sign)) {
    rk__cli_usage(command, "--up %s: not an axis (X, Y, Z, -X, -Y, -Z)", in->up);
    return false;
  }
  opts->up_axis = in->up;
  if (in->root_offset) {
    if (strcmp(in->root_offset, "auto") == 0)
      opts->bvh_root_offset = RK_BVH_ROOT_OFFSET_AUTO;
    else if (strcmp(in->root_offset, "add") == 0)
      opts->bvh_root_offset = RK_BVH_ROOT_OFFSET_ADD;
    else if (strcmp(in->root_offset, "replace") == 0)
      opts->bvh_root_offset = RK_BVH_ROOT_OFFSET_REPLACE;
    else {
      rk__cli_usage(command, "--root-offset %s: expected auto, add or replace", in->root_offset);
      return false;
    }
  }
  if (in->format) {
    static const char *const known[] = {"bvh", "gltf", "glb", "fbx", "dh"};
    bool ok = false;
    for (size_t i = 0; i < G_N_ELEMENTS(known); i++)
      ok |= strcmp(in->format, known[i]) == 0;
    if (!ok) {
      rk__cli_usage(command, "--format %s: expected bvh, gltf, glb, fbx or dh", in->format);
      return false;
    }
    opts->format = in->format;
  }
  return true;
}

void rk__cli_import_clear(rk__cli_import *in) {
  g_free(in->unit);
  g_free(in->up);
  g_free(in->root_offset);
  g_free(in->format);
  memset(in, 0, sizeof *in);
}
