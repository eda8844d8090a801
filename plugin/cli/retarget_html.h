/* The review page of `rigkit retarget --html FILE`: one self-contained HTML file for a whole
 * batch (inline CSS, script and data; nothing fetched), a table of the clips sortable and
 * filterable by verdict, and a player per clip drawing the source and the target side by side. */
#ifndef RK_RETARGET_HTML_H
#define RK_RETARGET_HTML_H

#include "retarget_batch.h"

#define RK__RT_HTML_BODY 3 /* the hips, the left and the right detached foot */

/** What the player of one clip draws, sampled at most RK__RT_HTML_FRAMES times over the clip. */
typedef struct rk__rt_html_clip {
  const rk_skeleton *source;      /* the source rig and its clip (sampled at the output's times) */
  const rk_clip *source_clip;
  const rk_skeleton *target;      /* the written output read back and its clip */
  const rk_clip *target_clip;
  double fps;                     /* the output's rate */
  size_t frames;                  /* output frames */
  double floor;                   /* the target's floor height (metres) */
  const double *foot_low;         /* frames x 2: each foot's lowest point in the output (metres) */
  const rk__rt_silhouette *silhouette; /* the target's, drawn with the target's joints, or NULL */
  /* The joints drawn as each rig's body: the subtrees of its hips and of its detached feet (-1:
   * none); the view follows the hips. Controls, poles and a root left at the origin are not drawn
   * (a line from the origin to each foot control would cross the picture). hips -1: all drawn. */
  int source_body[RK__RT_HTML_BODY];
  int target_body[RK__RT_HTML_BODY];
} rk__rt_html_clip;

#define RK__RT_HTML_FRAMES 120

/** Fills body[] (an rk__rt_html_clip's source_body or target_body) with the hips and detached
 * feet of map (made on skeleton mapped), found by name in skeleton in (-1 where absent). */
void rk__rt_html_body(const rk_humanoid_map *map, const rk_skeleton *mapped, const rk_skeleton *in,
                      int body[RK__RT_HTML_BODY]);

/** The player's data of one clip as JSON text (joint positions in millimetres, parents, foot
 * heights above the floor, the target's joint turns for its silhouette; every frame up to
 * RK__RT_HTML_FRAMES, else a stride). The caller frees it. Allocates per call, never fails. */
char *rk__rt_html_motion(const rk__rt_html_clip *c);

/** Writes the page (atomically): every entry of every input (the report's members, the motion
 * of each clip), the target's mesh for its silhouette, the batch's summary. Returns false with error when it cannot be
 * written. */
bool rk__rt_html_write(const rk__rt_config *cfg, const char *path, const rk__rt_input *inputs,
                       size_t n, const rk__rt_outcome *outcome, GError **error);

#endif
