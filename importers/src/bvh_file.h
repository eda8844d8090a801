/* A BVH file as the reader holds it (internal; bvh_file.c): the joints with their OFFSETs and
 * channels (bvh_hierarchy.c), the frames as rows of channel values in degrees and file units
 * (bvh_motion.c), and what a frame says about a joint under either reading of position channels
 * (bvh_decide.c and bvh.c use it). */
#ifndef RK_BVH_FILE_H
#define RK_BVH_FILE_H

#include "bvh_lexer.h"

#include <rigkit/rigkit.h>

G_BEGIN_DECLS

#define RK__BVH_MAX_CHANNELS 6

/** A channel of a CHANNELS line (the order of a joint's rotation channels is its Euler order). */
typedef enum rk__bvh_channel {
  RK__BVH_XPOS,
  RK__BVH_YPOS,
  RK__BVH_ZPOS,
  RK__BVH_XROT,
  RK__BVH_YROT,
  RK__BVH_ZROT,
} rk__bvh_channel;

/** A joint, or an End Site (a leaf named "<parent>_End"). */
typedef struct rk__bvh_joint {
  char *name;
  int parent;
  unsigned line; /* of its ROOT, JOINT or End line */
  bool end_site;
  bool has_offset;
  double offset[3];
  int n_channels;
  rk__bvh_channel channels[RK__BVH_MAX_CHANNELS];
  size_t first_channel; /* column of the first channel in a frame line */
} rk__bvh_joint;

/** The file being read: the lexer over its text, then what was read. */
typedef struct rk__bvh_file {
  rk__bvh_lexer lx;
  GArray *joints; /* rk__bvh_joint */
  size_t columns; /* channels per frame */
  gint64 declared_frames;
  double frame_time;
  int frame_time_decimals; /* digits after the point, -1 with an exponent */
  size_t frames;
  double *data; /* frames * columns, degrees and file units */
} rk__bvh_file;

/** Starts reading text (size bytes; a UTF-8 byte order mark is skipped) at line 1 with no joints;
 * free with rk__bvh_file_clear. */
void rk__bvh_file_init(rk__bvh_file *b, const char *text, size_t size);
void rk__bvh_file_clear(rk__bvh_file *b);

/** Joint i of the file. */
static inline rk__bvh_joint *rk__bvh_joint_at(const rk__bvh_file *b, size_t i) {
  return &g_array_index(b->joints, rk__bvh_joint, i);
}

/** Sets *error to code and "line N: " and the message, N the lexer's line; returns false. */
bool rk__bvh_fail(rk__bvh_file *b, GError **error, int code, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);

/** True when the joint has position channels. */
bool rk__bvh_has_position(const rk__bvh_joint *j);
/** Local translation of joint j in frame f: with add, OFFSET + channels; else each position
 * channel replaces its component of the OFFSET. */
rk_vec3 rk__bvh_joint_translation(const rk__bvh_file *b, const rk__bvh_joint *j, size_t f,
                                  bool add);
/** Local rotation of joint j from its values in a frame row (degrees): the product of the
 * elementary rotations in channel order (rk_euler_axes_deg_to_quat). */
rk_quat rk__bvh_joint_rotation(const rk__bvh_joint *j, const double *row);
/** True when j's rotation channels are its last three channels and name an Euler order: then
 * *order is it and *column the first of them in j's channels (rk__bvh_joint_rotation is then
 * rk_euler_deg_to_quats of that order over those columns). */
bool rk__bvh_joint_euler(const rk__bvh_joint *j, rk_euler_order *order, size_t *column);

G_END_DECLS

#endif
