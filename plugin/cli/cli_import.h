/* Import options shared by the subcommands that read a file (info, fk, ...): --unit, --up,
 * --root-offset, --format. */
#ifndef RK_CLI_IMPORT_H
#define RK_CLI_IMPORT_H

#include <glib.h>
#include <rigkit/importers.h>

typedef struct rk__cli_import {
  char *unit;        /* --unit: name or metres per unit */
  char *up;          /* --up: file up axis */
  char *root_offset; /* --root-offset: auto | add | replace */
  char *format;      /* --format: bvh | gltf | glb | fbx | dh */
} rk__cli_import;

/* GOptionEntry lines for an rk__cli_import named `var` (to put inside an entry array). */
#define RK__CLI_IMPORT_ENTRIES(var)                                                              \
  {"unit", 0, 0, G_OPTION_ARG_STRING, &(var).unit,                                               \
   "Length unit of the file: m, dm, cm, mm, in, ft, cmu, or metres per unit (default: from the " \
   "file, or detected from the skeleton height for BVH)",                                        \
   "UNIT"},                                                                                      \
      {"up", 0, 0, G_OPTION_ARG_STRING, &(var).up,                                               \
       "Up axis of a BVH file or DH table: X, Y, Z, -X, -Y, -Z (default: detected)", "AXIS"},    \
      {"root-offset", 0, 0, G_OPTION_ARG_STRING, &(var).root_offset,                             \
       "BVH root position channels: auto, add (OFFSET + channels) or replace (default auto)",    \
       "MODE"},                                                                                  \
  {                                                                                              \
    "format", 0, 0, G_OPTION_ARG_STRING, &(var).format,                                          \
        "Read the file as bvh, gltf, glb, fbx or dh (default: from the name and content)",       \
        "FORMAT"                                                                                 \
  }

/** Fills *opts from the parsed command-line values; on a bad value prints a usage error for
 * `command` and returns false. */
bool rk__cli_import_options(const char *command, const rk__cli_import *in,
                            rk_import_options *opts);
/** Frees the strings GOption allocated. */
void rk__cli_import_clear(rk__cli_import *in);

#endif
