/* What the format writers share (export_shared.c): the axes and units they write, the clips an
 * export writes, the rate and frame count of a clip sampled into frames, unique names, the
 * extension of a path, and the two value rules every binary or text encoding follows (no negative
 * zero, float32 range).
 *
 * Index: RK__EXPORT_UP_AXIS, rk__export_units_per_metre, rk__export_select_clips,
 *        rk__export_clip_fps, rk__export_frame_count, rk__export_unique_name,
 *        rk__export_path_extension, rk__export_clean_zero, rk__export_fits_float
 */
#ifndef RK_EXPORT_SHARED_H
#define RK_EXPORT_SHARED_H

#include <rigkit/error.h>
#include <rigkit/exporters.h>

#include <float.h>
#include <math.h>

/** The up axis of every file rigkit writes: rigkit's canonical Y-up frame, written unturned. */
#define RK__EXPORT_UP_AXIS "Y"

/** Length units per metre in the formats whose usual unit is the centimetre (BVH, FBX): 1 with
 * RK_EXPORT_UNIT_METRES, else 100. */
double rk__export_units_per_metre(const rk_export_options *opts);

/** Clips to write, in asset order (borrowed pointers): every clip, or the one opts->clip names.
 * Fails with RK_ERROR_NOT_FOUND naming the clip and the asset's clip names. */
GPtrArray *rk__export_select_clips(const rk_asset *asset, const rk_export_options *opts,
                                   const char *path, GError **error);
/** Frame rate a clip is sampled at by the formats that store frames (BVH, FBX): opts->fps when
 * set, else the clip's own or inferred rate (rk_clip_infer_fps), else 30. clip may be NULL. */
double rk__export_clip_fps(const rk_clip *clip, const rk_export_options *opts);
/** Frames of a clip sampled at fps: one every 1/fps from 0 up to the duration rounded to the
 * nearest frame, plus frame 0 (1 for a NULL clip). Fails with RK_ERROR_LIMIT, naming path and
 * clip, beyond RK_CLIP_MAX_KEYS frames. */
bool rk__export_frame_count(const rk_clip *clip, double fps, const char *path, size_t *frames,
                            GError **error);
/** Makes `name` unique within `used` (a set of owned strings): returns name itself or
 * "name.001", "name.002", ... (newly allocated; the set keeps its own copy). */
char *rk__export_unique_name(GHashTable *used, const char *name);
/** The extension of path's file name, from its last '.' (borrowed from path), or NULL when the
 * file name has none. */
const char *rk__export_path_extension(const char *path);

/** v, with a negative zero made positive: equal poses give equal bytes and text. */
static inline double rk__export_clean_zero(double v) {
  return v == 0.0 ? 0.0 : v;
}

/** Whether v is finite and within float32 range (what single-precision fields can hold). */
static inline bool rk__export_fits_float(double v) {
  return isfinite(v) && fabs(v) <= FLT_MAX;
}

#endif
