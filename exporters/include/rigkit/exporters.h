/* rigkit/exporters.h: rk_asset -> files (glTF 2.0 .gltf + .bin, .glb, BVH, binary FBX 7.4),
 * written by rigkit itself (no Assimp on this path).
 *
 * Every writer converts back from rigkit's canonical space (metres, Y-up, right-handed, seconds):
 * glTF is the same space; BVH and FBX are Y-up in centimetres by default. Outputs are deterministic (the
 * same asset and options give the same bytes: no timestamps, no addresses, no locale) and atomic:
 * each file is written to a temporary file in the destination directory, flushed to disk and
 * renamed over the destination, so a failed or interrupted export never leaves a partial output
 * (a leftover temporary is named ".<name>.rk-XXXXXX"). Writers refuse, with a clear error and no
 * file left: an unwritable path, a skeleton without joints, a clip or pose with non-finite values.
 *
 * Index: rk_export_format, rk_export_unit, rk_bvh_export_root, rk_export_options,
 *        RK_EXPORT_OPTIONS_INIT, rk_export_format_from_path, rk_export_format_name,
 *        rk_export_format_available, rk_export_output_files, rk_export_readback,
 *        rk_export_readback_of, rk_export_file
 */
#ifndef RIGKIT_EXPORTERS_H
#define RIGKIT_EXPORTERS_H

#include <rigkit/asset.h>
#include <rigkit/euler.h>
#include <rigkit/reduce.h>

G_BEGIN_DECLS

/** Output formats. */
typedef enum rk_export_format {
  RK_EXPORT_AUTO, /* from the output path's extension */
  RK_EXPORT_GLTF, /* .gltf JSON with a .bin buffer beside it (same stem) */
  RK_EXPORT_GLB,  /* binary glTF, one file */
  RK_EXPORT_BVH,  /* Biovision hierarchy: one skeleton, one clip */
  RK_EXPORT_FBX,  /* binary FBX 7.4: skeleton, every clip baked, meshes with skins */
} rk_export_format;

/** Length unit written to the file. glTF is always metres (its specification says so). */
typedef enum rk_export_unit {
  RK_EXPORT_UNIT_DEFAULT,     /* the format's usual unit: glTF metres, BVH and FBX centimetres */
  RK_EXPORT_UNIT_METRES,
  RK_EXPORT_UNIT_CENTIMETRES,
} rk_export_unit;

/** How the BVH root's OFFSET and its position channels are written (readers disagree on whether
 * position channels replace or add to the root OFFSET). */
typedef enum rk_bvh_export_root {
  RK_BVH_ROOT_REST, /* OFFSET = rest position, channels = absolute position: the reading of
                       Blender, Assimp and rigkit's RK_BVH_ROOT_OFFSET_REPLACE; the rest pose
                       stands where the skeleton's rest pose stands */
  RK_BVH_ROOT_ZERO, /* OFFSET 0 0 0, channels = absolute position: read the same by every tool
                       (as CMU files do), but the rest pose stands at the origin */
} rk_bvh_export_root;

/** Export options. Start from RK_EXPORT_OPTIONS_INIT; every field has a usable default. */
typedef struct rk_export_options {
  rk_export_format format; /* RK_EXPORT_AUTO = from the extension (.gltf .glb .bvh .fbx) */
  const char *clip;        /* only this clip (name, or decimal index); NULL = every clip. BVH
                              holds one clip: with several and no choice the export fails */
  double fps;              /* frame rate for formats that store frames (BVH) when the clip has
                              none; 0 = the clip's rate, else inferred from its key times
                              (rk_clip_infer_fps), else 30 */
  rk_export_unit unit;     /* length unit of the file; glTF accepts only metres */
  bool skip_meshes;        /* write skeleton and clips only */
  /* BVH */
  rk_euler_order bvh_order;          /* rotation channel order of every joint (Tait-Bryan orders
                                        only); default ZXY as most tools write */
  rk_euler_order bvh_root_order;     /* rotation channel order of the root joint(s) */
  const rk_euler_order *bvh_joint_orders; /* optional per-joint orders (joint_count entries,
                                             borrowed); overrides the two above */
  rk_bvh_export_root bvh_root;       /* root OFFSET convention, default RK_BVH_ROOT_REST */
} rk_export_options;

#define RK_EXPORT_OPTIONS_INIT                                                                   \
  {RK_EXPORT_AUTO, NULL, 0.0, RK_EXPORT_UNIT_DEFAULT, false, RK_EULER_ZXY, RK_EULER_ZXY, NULL,    \
   RK_BVH_ROOT_REST}

/** Format of a path from its extension (case-insensitive), RK_EXPORT_AUTO when unknown. */
RK_API rk_export_format rk_export_format_from_path(const char *path);
/** Static lower-case name of a format ("gltf", "glb", "bvh", "fbx", "auto"). */
RK_API const char *rk_export_format_name(rk_export_format format);
/** Whether this build writes format: false for RK_EXPORT_AUTO and values outside the enum. */
RK_API bool rk_export_format_available(rk_export_format format);

/** The files rk_export_file(asset, path, opts, ...) writes when it succeeds, in order: path
 * itself, then the files written beside it (a .gltf's buffer "<stem>.bin"). The format is the one
 * rk_export_file writes (opts->format, else path's extension; opts NULL = defaults). Returns a
 * NULL-terminated array the caller frees with g_strfreev; it is empty (only the NULL) when path is
 * NULL or empty or names no format this build writes. */
RK_API char **rk_export_output_files(const char *path, const rk_export_options *opts);

/** How a file written by rk_export_file reads back as it was written: what a reader must be told
 * for a format that does not state it (BVH states neither unit nor up axis). */
typedef struct rk_export_readback {
  rk_export_format format; /* the format written (opts->format, else path's extension);
                              RK_EXPORT_AUTO when there is none, and every field below is zero */
  bool self_describing;    /* the file states its unit and up axis itself (glTF, GLB, FBX): read it
                              without hints; false for BVH, whose reader must be given the two
                              fields below */
  double metres_per_unit;  /* metres per length unit of the file: 1 (metres) or 0.01
                              (centimetres), an importer's unit_scale */
  const char *up_axis;     /* the file's up axis, a static string: "Y" for every format (rigkit
                              writes its Y-up frame unturned), an importer's up_axis */
  bool bvh_root_absolute;  /* BVH: the root's position channels hold its absolute position, to be
                              read as replacing the root OFFSET (rigkit's BVH reader:
                              RK_BVH_ROOT_OFFSET_REPLACE), for either rk_bvh_export_root; false
                              for the other formats */
} rk_export_readback;

/** Fills *out with how the file rk_export_file(asset, path, opts, ...) writes reads back (opts
 * NULL = defaults; path may be NULL when opts->format names the format). Never fails: without a
 * format, out->format is RK_EXPORT_AUTO and the rest zero. */
RK_API void rk_export_readback_of(const char *path, const rk_export_options *opts,
                                  rk_export_readback *out);

/** Writes the asset to path in the format of opts->format or of the path's extension (opts NULL =
 * defaults). A .gltf output also writes "<stem>.bin" beside it. The asset is only read. Fails,
 * leaving no output file and any previous file at path untouched, with RK_ERROR_IO (directory
 * missing or unwritable, disk full), RK_ERROR_UNSUPPORTED (unknown extension, a format or option
 * that cannot hold the data), RK_ERROR_NOT_FOUND (opts->clip names no clip) or RK_ERROR_INVALID
 * (NULL asset, no joints, non-finite or out-of-range values); the message names the path and,
 * where it applies, the clip, joint and key or frame. */
RK_API bool rk_export_file(const rk_asset *asset, const char *path, const rk_export_options *opts,
                           GError **error);

G_END_DECLS

#endif
