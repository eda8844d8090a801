/* rigkit/clip.h: animation clips: per-joint tracks of keys, sampling, baking.
 *
 * A clip animates the joints of one skeleton (by index; rk_clip_joint_count equals the skeleton's
 * joint count). Each track drives one channel (translation, rotation or scale) of one joint with
 * keys at strictly increasing times in seconds. Channels without a track keep the rest pose.
 * Before the first key a track holds its first value, after the last key its last value.
 * The clip is defined on [0, duration]; duration defaults to the last key time.
 *
 * Values per key: translation and scale 3 doubles, rotation 4 (x, y, z, w; normalised when sampled).
 * Cubic tracks follow glTF's CUBICSPLINE layout: per key (in-tangent, value, out-tangent).
 * LINEAR rotations interpolate along the shorter arc by rk_quat_slerp: keys closer than its
 * threshold (dot > 0.9995, rotations less than 3.6 degrees apart, as consecutive keys of mocap
 * at 30 fps and more mostly are) blend linearly and normalise (nlerp), which departs from
 * constant-speed slerp by at most 1.02e-6 rad (0.016 phi^3 in the 4D angle phi between the keys,
 * doubled for the rotation); farther keys take the exact slerp.
 *
 * Playback: rk_clip_sample_cursor samples like rk_clip_sample (the same values, bit for bit) but
 * finds each track's keys from where the previous call left them, in a cursor the caller keeps per
 * playing instance. rk_clip_sample_joints samples only the joints a caller reads.
 *
 * Index: rk_channel, rk_interp, rk_track, rk_clip, rk_channel_components, rk_channel_name,
 *        rk_channel_apply, rk_interp_name, rk_clip_new, rk_clip_free, rk_clip_copy,
 *        rk_clip_add_track, rk_clip_take_track, rk_clip_take_tracks, rk_clip_take_tracks_trusted,
 *        rk_clip_name, rk_clip_set_name,
 *        rk_clip_duration, rk_clip_set_duration, rk_clip_fps, rk_clip_set_fps, rk_clip_frame_count,
 *        rk_clip_joint_count,
 *        rk_clip_track_count, rk_clip_track, rk_clip_find_track, rk_clip_key_count_total,
 *        rk_clip_sample, rk_clip_sample_frame, rk_clip_cursor, RK_CLIP_CURSOR_INIT,
 *        rk_clip_cursor_reset, rk_clip_sample_cursor, rk_clip_sample_joints, rk_clip_bake,
 *        rk_clip_bake_frame_count, rk_clip_bake_duration, rk_clip_bake_times
 */
#ifndef RIGKIT_CLIP_H
#define RIGKIT_CLIP_H

#include <stddef.h>
#include <stdint.h>
#include <glib.h>
#include <rigkit/math.h>

G_BEGIN_DECLS

/** Most keys a single track may hold (see README "Limits"). */
#define RK_CLIP_MAX_KEYS (1u << 24)
/** Longest clip in seconds. */
#define RK_CLIP_MAX_DURATION (24.0 * 3600.0)

typedef enum rk_interp {
  RK_INTERP_STEP,   /* hold the previous key */
  RK_INTERP_LINEAR, /* lerp for vectors, slerp for rotations */
  RK_INTERP_CUBIC,  /* Hermite spline with explicit tangents (glTF CUBICSPLINE) */
} rk_interp;

typedef enum rk_channel {
  RK_CHANNEL_TRANSLATION,
  RK_CHANNEL_ROTATION,
  RK_CHANNEL_SCALE,
} rk_channel;

/** A track, as passed to rk_clip_add_track and as returned (borrowed) by rk_clip_track. */
typedef struct rk_track {
  int joint;           /* joint index in the clip's skeleton */
  rk_channel channel;
  rk_interp interp;
  size_t key_count;    /* >= 1 */
  const double *times; /* key_count times in seconds, strictly increasing, >= 0 */
  const double *values; /* key_count * components (* 3 for cubic) values, see above */
} rk_track;

typedef struct rk_clip rk_clip;

/** Number of doubles per key value of a channel (3 or 4). */
RK_API int rk_channel_components(rk_channel channel);
/** Static name of a channel ("translation", "rotation", "scale"). */
RK_API const char *rk_channel_name(rk_channel channel);
/** Writes one key value (3 or 4 doubles, per channel) into the channel's part of a local pose;
 * rotations are normalised. */
RK_API void rk_channel_apply(rk_channel channel, const double *value, rk_transform *x);
/** Static name of an interpolation ("STEP", "LINEAR", "CUBICSPLINE", as glTF spells them). */
RK_API const char *rk_interp_name(rk_interp interp);

/** Creates an empty clip (name copied, NULL = "") for a skeleton of joint_count joints; the caller
 * frees it with rk_clip_free. Never fails. */
RK_API rk_clip *rk_clip_new(const char *name, size_t joint_count);
/** Frees a clip; NULL is a no-op. */
RK_API void rk_clip_free(rk_clip *clip);
/** Deep copy; the caller frees it with rk_clip_free. */
RK_API rk_clip *rk_clip_copy(const rk_clip *clip);
/** Copies a track into the clip, replacing any track of the same joint and channel. Fails with
 * RK_ERROR_INVALID (joint out of range, no keys, times not finite / negative / not increasing,
 * non-finite values, a zero rotation) or RK_ERROR_LIMIT (more than RK_CLIP_MAX_KEYS keys, a time
 * beyond RK_CLIP_MAX_DURATION); the clip is unchanged on failure. Extends the duration to the
 * last key when needed. */
RK_API bool rk_clip_add_track(rk_clip *clip, const rk_track *track, GError **error);
/** rk_clip_add_track without the copy: track->times and track->values must be g_malloc'd arrays,
 * which the clip takes (on failure it frees them, and is unchanged). Same checks and errors. For a
 * reader that builds the keys anyway: the clip does not hold them twice. */
RK_API bool rk_clip_take_track(rk_clip *clip, const rk_track *track, GError **error);
/** rk_clip_take_track of tracks[0..n) in order, their checks made on two threads when they hold
 * many keys: the clip takes each track's arrays up to the first that fails the checks (its index
 * in *failed, n when none: failed may be NULL) and frees the arrays of that one and of the rest.
 * The same clip and errors as n calls that stop at the first failure. */
RK_API bool rk_clip_take_tracks(rk_clip *clip, const rk_track *tracks, size_t n, size_t *failed,
                                GError **error);
/** rk_clip_take_tracks where trusted[i] (NULL: none) marks keys the caller computed itself with
 * times finite, >= 0 and increasing, values finite and no zero rotation (never keys read from a file
 * or handed in as they are): those skip the pass over the keys (joint, channel, key count and last
 * time still checked; builds without NDEBUG assert the rest). Same ownership, clip and errors. */
RK_API bool rk_clip_take_tracks_trusted(rk_clip *clip, const rk_track *tracks, const bool *trusted,
                                        size_t n, size_t *failed, GError **error);
/** Borrowed name. */
RK_API const char *rk_clip_name(const rk_clip *clip);
/** Renames the clip (copied; NULL gives ""). */
RK_API void rk_clip_set_name(rk_clip *clip, const char *name);
/** Duration in seconds. */
RK_API double rk_clip_duration(const rk_clip *clip);
/** Sets the duration (clamped up to the last key time). */
RK_API void rk_clip_set_duration(rk_clip *clip, double seconds);
/** Nominal frame rate (frames per second) of the source, or 0 when unknown. */
RK_API double rk_clip_fps(const rk_clip *clip);
/** Sets the nominal frame rate; a value that is not finite and positive means unknown (0). */
RK_API void rk_clip_set_fps(rk_clip *clip, double fps);
/** Frames at the nominal rate: round(duration * fps) + 1, or 1 when fps is 0. */
RK_API size_t rk_clip_frame_count(const rk_clip *clip);
/** Number of joints of the skeleton this clip animates. */
RK_API size_t rk_clip_joint_count(const rk_clip *clip);
/** Number of tracks. */
RK_API size_t rk_clip_track_count(const rk_clip *clip);
/** Borrowed view of track i (valid until the clip is changed or freed). */
RK_API const rk_track *rk_clip_track(const rk_clip *clip, size_t i);
/** Index of the track of this joint and channel, or -1. */
RK_API int rk_clip_find_track(const rk_clip *clip, int joint, rk_channel channel);
/** Sum of key counts of all tracks. */
RK_API size_t rk_clip_key_count_total(const rk_clip *clip);
/** Samples the clip at time t (clamped to [0, duration]) into out[count] local poses: animated
 * channels from their keys, the others from rest[count]. count must equal the clip's joint count
 * (otherwise nothing is written and false is returned). Allocates nothing. */
RK_API bool rk_clip_sample(const rk_clip *clip, const rk_transform *rest, double t,
                           rk_transform *out, size_t count);
/** Samples frame `frame` at rate fps (time frame / fps, clamped to the duration). */
RK_API bool rk_clip_sample_frame(const rk_clip *clip, const rk_transform *rest, double fps,
                                 size_t frame, rk_transform *out, size_t count);

/** Playback state of one instance playing a clip: per track, the key its last sample fell after.
 * The caller owns the struct and the keys buffer (nothing is allocated); one cursor per playing
 * instance, never shared between threads at once. Any content of keys is valid: an entry that is
 * out of range or far from the next time only costs a search. */
typedef struct rk_clip_cursor {
  uint32_t *keys;    /* caller's buffer, one entry per track of the clip */
  size_t keys_count; /* entries in keys: at least rk_clip_track_count */
} rk_clip_cursor;

/** Initialiser for a cursor over the caller's buffer BUF of N entries (zero them first, or call
 * rk_clip_cursor_reset). */
#define RK_CLIP_CURSOR_INIT(buf, n) {(buf), (n)}

/** Points every entry of the cursor at the first key (the start of a clip). NULL is a no-op. */
RK_API void rk_clip_cursor_reset(rk_clip_cursor *cursor);
/** Samples the clip at time t like rk_clip_sample, with the same values bit for bit, finding each
 * track's keys from the cursor: a step or two forward for times that advance as in playback, a
 * search otherwise (a jump, a loop back to the start). Updates the cursor. Returns false (nothing
 * written) when count is not the clip's joint count or the cursor has fewer entries than the clip
 * has tracks. Allocates nothing. */
RK_API bool rk_clip_sample_cursor(const rk_clip *clip, const rk_transform *rest, double t,
                                  rk_clip_cursor *cursor, rk_transform *out, size_t count);
/** Samples at time t (clamped to [0, duration]) only the animated channels of joints[n], as
 * rk_clip_sample gives them (the same bits), into out[count]: every other channel and joint keeps
 * what out holds (fill it from the rest pose once; nothing is copied per call). cursor as for
 * rk_clip_sample_cursor (updated for those joints' tracks), or NULL to search every key. Returns
 * false (nothing written) when count is not the clip's joint count, a joint is out of range or the
 * cursor has fewer entries than the clip has tracks. Allocates nothing. */
RK_API bool rk_clip_sample_joints(const rk_clip *clip, double t, const int *joints, size_t n,
                                  rk_clip_cursor *cursor, rk_transform *out, size_t count);
/** Resamples the clip at a fixed rate: every animated channel gets one LINEAR key per frame on
 * the grid f / fps, frames 0 .. round(duration * fps), rotations made sign-continuous; the result
 * lasts rk_clip_bake_duration (the duration rounded to a whole frame: when it rounds up, the last
 * frame holds the clip's end). fps <= 0 means the clip's own rate. Fails with RK_ERROR_INVALID
 * when no rate is known or the frame count would exceed RK_CLIP_MAX_KEYS. The caller frees the
 * result. */
RK_API rk_clip *rk_clip_bake(const rk_clip *clip, const rk_transform *rest, double fps,
                             GError **error);
/** Number of frames baking `duration` seconds at fps gives: one every 1/fps from 0 to the
 * duration rounded to the nearest frame, floor(duration * fps + 0.5) + 1. A double, so that the
 * caller compares it with RK_CLIP_MAX_KEYS before converting (not finite for a non-finite input).
 * Never fails. */
RK_API double rk_clip_bake_frame_count(double duration, double fps);
/** Duration of a clip of `duration` seconds baked at fps: the time of its last frame on the grid,
 * (rk_clip_bake_frame_count - 1) / fps, the duration rounded to the nearest frame; the duration
 * itself when the two are within a millionth of a frame (the same instant but for rounding). Never
 * fails. */
RK_API double rk_clip_bake_duration(double duration, double fps);
/** Fills times[0..frames) with the times of the baked frames, f / fps capped at
 * rk_clip_bake_duration, and returns how many of them increase strictly: the key count of every
 * baked track (frames past the grid's last are not keys). Every key is on the grid. Never
 * fails. */
RK_API size_t rk_clip_bake_times(double duration, double fps, size_t frames, double *times);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(rk_clip, rk_clip_free)

G_END_DECLS

#endif
