/* The MOTION section of a BVH file (internal; bvh_motion.c). */
#ifndef RK_BVH_MOTION_H
#define RK_BVH_MOTION_H

#include "bvh_file.h"
#include "raw_asset.h"

G_BEGIN_DECLS

/** Reads "Frames:", "Frame Time:" and the frame lines after the hierarchy into b (frames, data,
 * frame_time and the digits it was written with), noting on raw a frame count that disagrees
 * with the header or a dropped incomplete last line. Fails with RK_ERROR_PARSE naming the line
 * (and frame), RK_ERROR_INVALID (non-finite values, a frame time <= 0) or RK_ERROR_LIMIT (more
 * than RK_CLIP_MAX_KEYS frames, a frame time over 3600 s). */
bool rk__bvh_parse_motion(rk__bvh_file *b, rk__raw_asset *raw, GError **error);

G_END_DECLS

#endif
