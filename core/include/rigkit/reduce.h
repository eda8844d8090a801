/* rigkit/reduce.h: key reduction with a world-space error bound, and frame-rate inference.
 *
 * rk_clip_reduce removes keys from a clip while no joint's world (model-space) position moves more
 * than a tolerance away from where the unreduced clip puts it, checked at every frame of the clip
 * baked at a fixed rate, not only at the keys that are kept. The result has LINEAR tracks whose
 * keys are a subset of the baked frames (rotations slerp between kept keys).
 *
 * Index: rk_reduce_stats, rk_clip_reduce, rk_reduce_stats_summary, rk_clip_infer_fps
 */
#ifndef RIGKIT_REDUCE_H
#define RIGKIT_REDUCE_H

#include <rigkit/clip.h>
#include <rigkit/skeleton.h>

G_BEGIN_DECLS

/** Rounding slack added to every tolerance (metres), so that a zero tolerance still drops keys
 * that are exactly redundant (e.g. the inner keys of a straight line). */
#define RK_REDUCE_SLACK_M 1e-12

/** What a reduction did. */
typedef struct rk_reduce_stats {
  size_t keys_input;   /* keys of the clip as given (rk_clip_key_count_total) */
  size_t keys_baked;   /* keys after baking at the checking rate (the "before" of a report) */
  size_t keys_output;  /* keys of the reduced clip */
  size_t frames;       /* baked frames checked */
  double fps;          /* rate of the baked frames */
  double max_error_m;  /* largest world position error of any joint at any frame
                          (<= tol_m + RK_REDUCE_SLACK_M) */
  int max_error_joint; /* joint of that error, or -1 when nothing moved */
  size_t max_error_frame;
} rk_reduce_stats;

/** Returns a reduced copy of clip (the caller frees it with rk_clip_free): the clip is baked at fps
 * (<= 0: the clip's own rate, else rk_clip_infer_fps), then each track keeps the fewest keys for
 * which every joint's model-space position (FK with the skeleton's rest pose under untracked
 * channels), and for leaf joints also points one bone length along their local axes so end bones
 * keep their orientation, stays within tol_m metres (+ RK_REDUCE_SLACK_M) of the unreduced clip at
 * every baked frame.
 * stats (optional) receives the counts and the largest error. Fails with RK_ERROR_INVALID (tol_m
 * negative or not finite, the clip's joint count differs from the skeleton's, no frame rate known)
 * or RK_ERROR_LIMIT (the frames x joints working set would exceed 1 GiB, see rk_clip_bake). */
RK_API rk_clip *rk_clip_reduce(const rk_clip *clip, const rk_skeleton *skeleton, double tol_m,
                               double fps, rk_reduce_stats *stats, GError **error);

/** One line on what a reduction did, e.g. "keys 74,000 -> 9,100 at 1 mm (checked at 4000 frames
 * at 120 fps; largest error 0.982 mm at joint 'LeftHand', frame 2051)"; the keys baked are named
 * when they differ from the keys given; joint names come from skeleton (NULL: indices). The caller
 * frees the text with g_free. */
RK_API char *rk_reduce_stats_summary(const rk_reduce_stats *stats, double tol_m,
                                     const rk_skeleton *skeleton);
/** The frame rate a clip's keys sit on: its own fps when set, else the lowest of the usual rates
 * (24, 25, 30, 48, 50, 60, 100, 120) whose frame grid holds every key time within 1e-4 s, else 0.
 * Never fails. */
RK_API double rk_clip_infer_fps(const rk_clip *clip);

G_END_DECLS

#endif
