/* rigkit/retarget.h: moving a clip from one humanoid skeleton to another, with foot and hand IK.
 *
 * A rk_retargeter holds two rigs (source and target skeletons with their humanoid maps,
 * rigkit/humanoid.h) and everything derived from them once: rest poses, the turn between the
 * rigs' facings, the scale of root motion (ratio of hip heights), how each target joint is driven,
 * the target's kinematic tree and IK workspaces. It is immutable once built: one retargeter serves
 * any number of clips, on any number of threads at once (each run allocates its own scratch).
 *
 * Every target joint gets a counterpart in the source or none: the canonical bones of the two maps,
 * then every other joint by name (normalised: case, separators, namespaces, sides) where the
 * topology agrees, joints between two matched ones in order, and subtrees below matched joints by
 * shape (rk_retargeter_counterpart). Per output frame (at the source's rate or options.fps):
 *  1. pose transfer: every joint with a counterpart takes its world rotation relative to its own
 *     rest, turned onto the target's facing (independent of bone axes and rolls); canonical limb
 *     and spine bones whose rest directions differ between the rigs (an A-pose onto a T-pose)
 *     take the source's bone directions instead, with the twist of that rotation carried over and
 *     never invented; animated translations of non-root joints carry over as world displacements
 *     (turned and scaled); joints without a counterpart keep their rest;
 *  2. root motion: the hips follow the source's hips turned and scaled by the ratio of leg lengths,
 *     their heights the source's scaled plus one ground offset per clip (options.ground), so the
 *     hip bob is the source's. A clip onto a character built on its own skeleton comes back
 *     unchanged;
 *  3. contacts: per foot, three sole points (heel, ball, toe tip: rigkit/skin.h), the source's from
 *     its bones; a point is planted while it is low (within contact_height * source height of the
 *     clip's ground, which is where the planted points stand) AND still (slower than
 *     contact_speed * source height per second) for at least contact_min_time: a foot that slides
 *     or pivots keeps its motion. Per frame a foot is in a phase (rk_foot_phase): heel strike,
 *     flat, toe-off, pivot, slide (low and moving: kept on the floor, never held) or swing. An
 *     in-place cycle (the stance feet slide back at a common speed: a treadmill) has no planted
 *     feet unless root_motion makes it travel;
 *  4. the floor: one ground offset per clip stands the target's soles (from its skinned meshes
 *     with rk_retargeter_new_onto, else its bones) on its floor where the source's stand on the
 *     clip's ground; with foot IK, a frame whose body (everything outside the feet: hands, knees,
 *     seat) would go through the floor lifts the pelvis, smoothly over blend_time;
 *  5. IK: each planted point is pinned at its transferred median place on the floor; the foot is
 *     a rigid sole: it keeps the source's orientation (from rest), lies flat when heel and ball
 *     hold, turns about the ball with its toes flat when the heel rises (toe-off), about the heel
 *     at heel strike; the ankle follows, the leg reaches it with analytic two-bone IK, and the
 *     correction fades in and out over blend_time around each contact. A foot whose mesh goes
 *     through the floor is turned about its held end or lifted; where a planted leg cannot
 *     reach its pin the pelvis comes down, eased in and out over blend_time ahead of the solve
 *     (and up where a leg whose foot is in its shin's mesh kneels through the floor); a leg
 *     still out of reach moves the pelvis within the frame (both feet planted close a loop
 *     through the ground, solved with rigkit/ik.h).
 *     Optional hand goals follow the source's hands relative to the shoulders, scaled by arm
 *     length.
 *
 * The options can come from a profile's [settings] (rigkit/profile.h).
 *
 * Measuring a result as a person sees it, on the written output read back with its meshes:
 * rk_retarget_measure_look (planted soles against the floor, the body through it, the feet's pitch
 * against the source's, skate of the planted points), rk_retarget_measure_pose (the identity-style
 * error where the rigs correspond) and rk_retarget_judge (a verdict and warnings from all the
 * figures).
 *
 * Index: rk_retarget_options, RK_RETARGET_OPTIONS_INIT, rk_contact_interval, rk_foot_contacts,
 *        rk_retarget_quality, rk_retarget_ground, rk_retarget_soles, rk_retargeter_new,
 *        rk_retargeter_new_onto, rk_retargeter_new_between,
 *        rk_retargeter_free,
 *        rk_retargeter_source, rk_retargeter_target, rk_retargeter_mapped_joints,
 *        rk_retargeter_counterpart, rk_retargeter_run, rk_retarget_result_free,
 *        rk_retarget_result_clip, rk_retarget_result_take_clip, rk_retarget_result_frames,
 *        rk_retarget_result_fps, rk_retarget_result_ground_offset, rk_retarget_result_contact_count,
 *        rk_retarget_result_contacts, rk_retarget_result_quality, rk_retarget_result_quality_fk,
 *        rk_retarget_result_ground_velocity, rk_foot_phase, RK_FOOT_PHASES, rk_foot_phase_name,
 *        rk_retarget_result_phase, rk_retarget_result_sole_contacts, rk_retarget_result_soles,
 *        rk_retarget_result_floor, rk_retarget_result_heights,
 *        rk_retarget_result_fk_positions, rk_retarget_output_asset, rk_retarget_measure,
 *        rk_retarget_contact_positions, rk_retarget_planted_height, rk_retarget_limb_direction,
 *        rk_retarget_pose_error, rk_retarget_measure_pose, rk_retarget_look,
 *        rk_retarget_measure_look, rk_retarget_output_figures, rk_retarget_measure_output,
 *        rk_retarget_verdict, rk_retarget_verdict_name,
 *        rk_quality_code, rk_quality_code_name, rk_quality_code_parse, rk_quality_bounds,
 *        rk_quality_bounds_init, rk_retarget_warning, rk_retarget_judge_input, rk_retarget_judge,
 *        rk_retargeter_heights
 */
#ifndef RIGKIT_RETARGET_H
#define RIGKIT_RETARGET_H

#include <rigkit/asset.h>
#include <rigkit/clip.h>
#include <rigkit/humanoid.h>
#include <rigkit/skeleton.h>
#include <rigkit/skin.h>

G_BEGIN_DECLS

/** How the target's hips are placed vertically (rk_retarget_options.ground). */
typedef enum rk_retarget_ground {
  RK_RETARGET_GROUND_AUTO, /* the source's hip heights, scaled, plus one offset per clip that
                              stands the target's soles on its floor where the source's soles
                              stand on the clip's ground (rk_retarget_result_ground_offset) */
  RK_RETARGET_GROUND_KEEP, /* the source's hip heights, scaled, untouched (both floors y = 0) */
} rk_retarget_ground;

/** Where the target's soles and the lowest points of its body come from
 * (rk_retarget_options.soles). */
typedef enum rk_retarget_soles {
  RK_RETARGET_SOLES_AUTO,  /* its skinned meshes when it has them (rk_retargeter_new_onto), else
                              its bones */
  RK_RETARGET_SOLES_BONES, /* its bones (rigkit/skin.h, rk_sole_from_bones), meshes or not */
} rk_retarget_soles;

/** Retargeting options (start from RK_RETARGET_OPTIONS_INIT). */
typedef struct rk_retarget_options {
  double fps;              /* output frame rate; 0 = the source clip's (or 30 when it has none) */
  bool foot_ik;            /* pin planted feet (default true) */
  bool hand_ik;            /* hand goals from the source, scaled by arm length (default false) */
  double contact_height;   /* a sole point is low within this fraction of the source's height
                              above the clip's ground (default 0.01) */
  double contact_speed;    /* and still below this fraction of the source's height per second
                              (default 0.04) */
  double contact_min_time; /* seconds (default 0.06) */
  double blend_time;       /* seconds to blend into and out of a pin (default 0.1) */
  int ik_iterations;       /* most solver iterations per frame (default 30) */
  bool root_motion;        /* in-place clips (the stance feet slide back: a treadmill) travel by
                              the ground's speed so their feet can be planted (default false:
                              an in-place clip stays in place and has no planted feet) */
  rk_retarget_ground ground; /* vertical placement of the hips (default AUTO) */
  rk_retarget_soles soles;   /* where the target's soles come from (default AUTO) */
  size_t cache_bytes;      /* memory a run may keep to sample and transfer each frame once
                              (0 = 256 MiB; about 2-10 KB per frame); a clip that needs more is
                              sampled again in each pass: slower, same result */
  int threads;             /* threads a run works on: 0 = two for a clip of 512 frames or more
                              when the process may use two processors (and its frames fit
                              cache_bytes), else one; 1 = one; 2 = two halves of frames even on
                              one processor (then one after the other). The result is the same
                              bits whatever the count (default 0) */
} rk_retarget_options;

#define RK_RETARGET_OPTIONS_INIT \
  {0.0, true, false, 0.01, 0.04, 0.06, 0.1, 30, false, RK_RETARGET_GROUND_AUTO, \
   RK_RETARGET_SOLES_AUTO, 0, 0}

/** Frames [first, last] (inclusive, output frames) during which a foot joint (or a sole point) is
 * planted. A joint is planted while its planted sole points hold it still: the toes by the ball,
 * the foot by the heel with the ball or tip (rk_retarget_result_sole_contacts lists the points'
 * own intervals). */
typedef struct rk_contact_interval {
  int first, last;
} rk_contact_interval;

/** The planted intervals of one target joint. */
typedef struct rk_foot_contacts {
  int joint;                            /* target skeleton joint */
  size_t count;
  const rk_contact_interval *intervals; /* borrowed */
} rk_foot_contacts;

/** The phase of a foot's contact with the floor at a frame, as the source's sole shows it: its
 * points (heel, ball, tip: rigkit/skin.h) planted where they are low and still. */
typedef enum rk_foot_phase {
  RK_FOOT_SWING,       /* off the floor */
  RK_FOOT_HEEL_STRIKE, /* the heel planted, the ball not (yet) */
  RK_FOOT_FLAT,        /* the heel and the ball (or tip) planted */
  RK_FOOT_TOE_OFF,     /* the ball or tip planted, the heel raised */
  RK_FOOT_PIVOT,       /* one end planted, the other low and sweeping about it */
  RK_FOOT_SLIDE,       /* low and moving, nothing planted: kept on the floor, not held */
  RK_FOOT_PHASES
} rk_foot_phase;

/** Static name of a phase ("swing", "heel-strike", "flat", "toe-off", "pivot", "slide"), "?" out
 * of range. */
RK_API const char *rk_foot_phase_name(rk_foot_phase phase);

/** Quality figures of a retargeted clip (millimetres, counts). */
typedef struct rk_retarget_quality {
  double foot_skate_mean_mm, foot_skate_max_mm; /* horizontal drift of planted points from their
                                                   position at each interval's first frame (a
                                                   result's: its sole points; rk_retarget_measure:
                                                   the joints it is given) */
  double ik_goal_error_mean_mm, ik_goal_error_max_mm; /* planted sole points vs their pins */
  double loop_closure_residual_max_mm;          /* both feet planted: closure equations */
  size_t joint_limit_violations;                /* (frame, knee) pairs bent backwards, the
                                                   humanoid profile's anatomical limit (the target
                                                   tree of an animation rig declares no other) */
  double limb_direction_median_deg;             /* target limb directions vs the source's */
  size_t contact_frames;                        /* frames with at least one planted point */
  size_t loop_frames;                           /* frames where both feet closed the loop */
  size_t lifted_frames;     /* frames the pelvis was lifted to keep the body above the floor */
  size_t pelvis_frames;     /* frames the pelvis moved so that planted legs reach their pins
                               (eased down ahead of them, or moved by the solve) */
  double pelvis_max_mm;     /* the most the solve moved it within a frame, beyond the eased
                               lowering (0 when the lowering sufficed) */
  size_t unreachable_frames; /* frames a planted leg could not reach even so */
} rk_retarget_quality;

typedef struct rk_retargeter rk_retargeter;
typedef struct rk_retarget_result rk_retarget_result;

/** Prepares retargeting from a source rig to a target rig (both in canonical space) with their
 * humanoid maps (copied). Keeps references to both skeletons. Fails with RK_ERROR_MAPPING when a
 * map is invalid for its skeleton (rk_humanoid_map_validate) and with the tree/IK errors when the
 * target cannot be made a kinematic tree. The caller frees it with rk_retargeter_free. */
RK_API rk_retargeter *rk_retargeter_new(rk_skeleton *source, const rk_humanoid_map *source_map,
                                        rk_skeleton *target, const rk_humanoid_map *target_map,
                                        GError **error);
/** rk_retargeter_new onto a character: the target is the asset's skeleton, and its skinned meshes
 * (rigkit/skin.h) give its soles (heel, ball, tip) and the lowest points of its body, which
 * otherwise come from its bones. Fails as rk_retargeter_new, and with RK_ERROR_INVALID (prefixed
 * "target meshes: ") when a mesh does not belong to the skeleton. The caller frees the result
 * with rk_retargeter_free. */
RK_API rk_retargeter *rk_retargeter_new_onto(rk_skeleton *source, const rk_humanoid_map *source_map,
                                             const rk_asset *target,
                                             const rk_humanoid_map *target_map, GError **error);
/** rk_retargeter_new_onto from a source asset: where the two rigs correspond (a clip onto its own
 * rig) and the source carries meshes, what those meshes do through the floor in the clip is its
 * own and kept (a swinging foot's edge, a broad fist), not lifted out. Fails as
 * rk_retargeter_new_onto; the caller frees the result with rk_retargeter_free. */
RK_API rk_retargeter *rk_retargeter_new_between(const rk_asset *source,
                                                const rk_humanoid_map *source_map,
                                                const rk_asset *target,
                                                const rk_humanoid_map *target_map, GError **error);
/** Frees a retargeter; NULL is a no-op. */
RK_API void rk_retargeter_free(rk_retargeter *rt);
/** The source skeleton (borrowed). */
RK_API const rk_skeleton *rk_retargeter_source(const rk_retargeter *rt);
/** The target skeleton (borrowed). */
RK_API const rk_skeleton *rk_retargeter_target(const rk_retargeter *rt);
/** Number of canonical bones mapped in both rigs. */
RK_API size_t rk_retargeter_mapped_joints(const rk_retargeter *rt);
/** The source joint that drives target joint `target_joint` (its counterpart: the canonical bones
 * of the two maps, every other joint matched by name and topology), or -1 when it has none (it
 * keeps its rest rotation) or is out of range. */
RK_API int rk_retargeter_counterpart(const rk_retargeter *rt, size_t target_joint);

/** Retargets a clip of the source skeleton (its joint count must match): the result holds the
 * baked target clip (one key per output frame, named after the source clip), the contacts and the
 * quality figures measured on that clip. opts NULL = defaults. Fails with RK_ERROR_INVALID when the
 * clip does not belong to the source skeleton or has no frames, RK_ERROR_LIMIT beyond
 * RK_CLIP_MAX_KEYS frames; a NaN produced anywhere is reported as RK_ERROR_FAILED naming the frame.
 * Thread-safe on a shared retargeter (each run has its own scratch); a long clip's frames go in
 * two halves on two threads (opts->threads), merged in frame order. The caller frees the result
 * with rk_retarget_result_free. */
RK_API rk_retarget_result *rk_retargeter_run(const rk_retargeter *rt, const rk_clip *clip,
                                             const rk_retarget_options *opts, GError **error);
/** Frees a result and everything it still holds; NULL is a no-op. */
RK_API void rk_retarget_result_free(rk_retarget_result *r);
/** Borrowed baked clip of the target skeleton. */
RK_API const rk_clip *rk_retarget_result_clip(const rk_retarget_result *r);
/** Takes the clip out of the result (the caller owns it; the result keeps its other data). */
RK_API rk_clip *rk_retarget_result_take_clip(rk_retarget_result *r);
/** Number of output frames. */
RK_API size_t rk_retarget_result_frames(const rk_retarget_result *r);
/** Output frame rate. */
RK_API double rk_retarget_result_fps(const rk_retarget_result *r);
/** The clip's ground offset: the one height (metres, target space) added to the target's hips
 * at every frame on top of the source's scaled heights; 0 with RK_RETARGET_GROUND_KEEP. */
RK_API double rk_retarget_result_ground_offset(const rk_retarget_result *r);
/** Number of target joints with contact intervals, and each one's intervals (borrowed). */
RK_API size_t rk_retarget_result_contact_count(const rk_retarget_result *r);
RK_API rk_foot_contacts rk_retarget_result_contacts(const rk_retarget_result *r, size_t i);
/** Quality measured on the baked clip (as rk_retarget_measure) plus the IK's own figures. */
RK_API const rk_retarget_quality *rk_retarget_result_quality(const rk_retarget_result *r);
/** Quality of the same clip without IK (feet as the pose transfer leaves them). */
RK_API const rk_retarget_quality *rk_retarget_result_quality_fk(const rk_retarget_result *r);
/** The ground's horizontal velocity seen in the source clip (source units per second: the median
 * velocity of its low foot joints) and, through *in_place (optional), whether that makes the clip
 * an in-place cycle (the ground slides faster than 10% of the source's height per second). */
RK_API rk_vec3 rk_retarget_result_ground_velocity(const rk_retarget_result *r, bool *in_place);
/** The phase of foot `side` (0 left, 1 right) at output frame `frame`; RK_FOOT_SWING out of
 * range. */
RK_API rk_foot_phase rk_retarget_result_phase(const rk_retarget_result *r, int side, size_t frame);
/** The planted intervals of one sole point of foot `side` (joint: the target joint the point
 * moves with; borrowed intervals); an empty list out of range. */
RK_API rk_foot_contacts rk_retarget_result_sole_contacts(const rk_retarget_result *r, int side,
                                                         rk_sole_point point);
/** Per-frame positions (target model space) of the target's sole points, as the transfer leaves
 * them (after_ik false) or as written (true): frames * 6 entries, per frame left heel, ball, tip,
 * then right (borrowed). */
RK_API const rk_vec3 *rk_retarget_result_soles(const rk_retarget_result *r, bool after_ik);
/** The height (y, metres) of the target's floor: where its soles stand at rest, 0 when that is
 * within 1% of its height. */
RK_API double rk_retarget_result_floor(const rk_retarget_result *r);
/** Per-frame heights above the target's ground of each contact joint, before and after IK
 * (frames * contact_count entries each, frame-major), for plots. */
RK_API const double *rk_retarget_result_heights(const rk_retarget_result *r, bool after_ik);
/** Per-frame world positions (target model space) of each contact joint in the transferred pose,
 * before IK: the FK-only foot tracks, what the feet do without IK (frames * contact_count entries,
 * frame-major; borrowed). They are the pose the run baked when foot and hand IK are off, before
 * baking: a run with both off, its clip sampled again, gives them to within rounding (1e-14 m). */
RK_API const rk_vec3 *rk_retarget_result_fk_positions(const rk_retarget_result *r);

/** The output asset: the target character carrying one retargeted clip. It holds `skeleton` (a
 * new reference), `clip` (taken: freed on failure too), and copies of the meshes of meshes_from
 * (NULL: none; e.g. the imported target, or NULL for BVH) with its source format and path. Fails
 * with RK_ERROR_INVALID when the clip does not fit the skeleton and with the mesh copy's error
 * prefixed "target mesh N: ". The caller frees it with rk_asset_free. */
RK_API rk_asset *rk_retarget_output_asset(rk_skeleton *skeleton, const rk_asset *meshes_from,
                                          rk_clip *clip, GError **error);

/** Measures foot skate and pin errors of any clip of a skeleton (e.g. the retargeted clip read
 * back from the written file) over contact intervals given per joint NAME, at rate fps:
 * skate = horizontal distance of the joint from its position at the interval's first frame.
 * limb/limit figures are left 0 (they need the source). Joints not in the skeleton are skipped. */
RK_API void rk_retarget_measure(const rk_skeleton *skeleton, const rk_clip *clip, double fps,
                                const char *const *joint_names, const rk_foot_contacts *contacts,
                                size_t contact_count, rk_retarget_quality *out);

/** Per-frame world positions of the result's contact joints in a clip of the target (e.g. the
 * written output read back: joints found by name, one the skeleton lacks stays at the origin),
 * sampled at the result's rate over its frames: frames * contact_count entries, frame-major. The
 * caller frees it with g_free. Never fails. */
RK_API rk_vec3 *rk_retarget_contact_positions(const rk_retargeter *rt, const rk_retarget_result *r,
                                              const rk_skeleton *skeleton, const rk_clip *clip);
/** How far planted joints stand from their rest height (the height at which the target's rest
 * pose stands them) during their contacts, in `positions` of a clip of `skeleton` (as
 * rk_retarget_contact_positions gives them): mean and max of the vertical distance in mm. A foot
 * that floats or sinks while planted shows here; skate sees only horizontal drift. Returns false,
 * leaving *mean_mm and *max_mm alone, when no planted frame can be measured. */
RK_API bool rk_retarget_planted_height(const rk_retargeter *rt, const rk_retarget_result *r,
                                       const rk_skeleton *skeleton, const rk_vec3 *positions,
                                       double *mean_mm, double *max_mm);
/** Median angle (degrees) between the limbs (upper and lower arm and leg, each side) of a clip of
 * the target (e.g. the written output read back, joints found by name) and the same limbs of the
 * source clip, the source turned onto the target's facing, at every frame of the result. NAN when
 * no limb is mapped in both rigs and present in the skeleton. Never fails. */
RK_API double rk_retarget_limb_direction(const rk_retargeter *rt, const rk_retarget_result *r,
                                         const rk_clip *source_clip, const rk_skeleton *skeleton,
                                         const rk_clip *clip);

/** How far the joints of a clip of the target stand from where the source's joints put them, for
 * rigs that correspond joint for joint (a clip onto a character built on its own skeleton). */
typedef struct rk_retarget_pose_error {
  double median_mm, max_mm; /* over every frame and joint */
  int worst_joint;          /* joint of the measured skeleton at the largest error */
  int worst_frame;          /* output frame of the largest error */
  double body_max_mm;       /* the largest outside the legs, at frames the floor did not lift
                               the body: what foot IK leaves alone */
} rk_retarget_pose_error;

/** Identity-style pose error of a clip of the target (e.g. the written output read back, joints
 * found by name) against the source clip, at every frame of the result: each joint's world
 * position against its counterpart's, turned onto the target's facing and scaled as the hips
 * are, with the result's ground offset (and travel) added. Computable only when every target
 * joint has a counterpart and the two rest poses agree (each joint within 0.5% of the target's
 * height of its counterpart, relative to the hips); returns false otherwise, leaving *out alone.
 * Never fails. */
RK_API bool rk_retarget_measure_pose(const rk_retargeter *rt, const rk_retarget_result *r,
                                     const rk_clip *source_clip, const rk_skeleton *skeleton,
                                     const rk_clip *clip, rk_retarget_pose_error *out);

/** What a person sees in a clip of the target, measured on its skinned meshes (millimetres at the
 * character's scale, degrees; NAN where nothing could be measured). */
typedef struct rk_retarget_look {
  double planted_low_median_mm; /* the lowest point of a planted foot's mesh above the floor,
                                   median over the planted feet and frames (< 0: through it) */
  double planted_low_min_mm;    /* the deepest of those (the worst penetration while planted) */
  double planted_low_max_mm;    /* the highest (the worst float while planted) */
  double penetration_mm;        /* the deepest the body (planted feet aside) goes through the
                                   floor beyond the source's own depth, at any frame, >= 0 */
  double foot_pitch_p95_deg;    /* how far each foot's pitch (heel to ball, from rest) differs
                                   from the source's: 95th percentile over feet and frames */
  double foot_pitch_max_deg;
  double skate_mean_mm, skate_max_mm; /* horizontal drift of the planted sole points from each
                                         contact's first frame */
  size_t planted_frames;        /* frames with a planted foot */
  bool meshes;                  /* measured on meshes (else on the sole points alone) */
  double legs_overlap_mm;       /* legs of one bone with a skin: how far their meshes go through
                                   each other at worst (the two half-widths at rest, each the
                                   farthest its mesh reaches toward the other leg, less the
                                   closest distance between the legs, hip to end, per frame; < 0:
                                   they stay that far apart); NAN on legs with knees (a knee lets
                                   a foot pass the other leg) or without a skin */
} rk_retarget_look;

/** Measures what a person sees in `output` (a clip of the target with its meshes: e.g. the
 * written output read back with them; joints found by name): the result's contacts, floor and
 * soles, the source clip for the feet's pitch. foot_low (NULL, or frames * 2 doubles) receives
 * each foot's lowest point per frame (y, metres: its mesh, else its sole points), soles (NULL, or
 * frames * 6) the sole points as rk_retarget_result_soles orders them. Without meshes the sole
 * points stand in for them. Never fails: what cannot be measured stays NAN. */
RK_API void rk_retarget_measure_look(const rk_retargeter *rt, const rk_retarget_result *r,
                                     const rk_clip *source_clip, const rk_asset *output,
                                     rk_retarget_look *out, double *foot_low, rk_vec3 *soles);

/** Every figure of an output read back that rk_retarget_measure_output measures. */
typedef struct rk_retarget_output_figures {
  rk_retarget_look look;          /* rk_retarget_measure_look's */
  bool pose_measured;             /* rk_retarget_measure_pose's answer */
  rk_retarget_pose_error pose;    /* its figures when measured, else NAN (worst joint, frame -1) */
  double limb_direction_median_deg; /* rk_retarget_limb_direction's */
  rk_vec3 *contact_positions;     /* rk_retarget_contact_positions' (the caller g_frees it) */
} rk_retarget_output_figures;

/** rk_retarget_measure_look, rk_retarget_measure_pose, rk_retarget_limb_direction and
 * rk_retarget_contact_positions of `output` (its skeleton and first clip) at once, in one pass
 * over the frames that samples the output and the source once per frame, the frames split over
 * two threads: the same figures as those four. foot_low and soles as for
 * rk_retarget_measure_look. Never fails: what cannot be measured stays NAN. */
RK_API void rk_retarget_measure_output(const rk_retargeter *rt, const rk_retarget_result *r,
                                       const rk_clip *source_clip, const rk_asset *output,
                                       double *foot_low, rk_vec3 *soles,
                                       rk_retarget_output_figures *out);

/** The verdict on a retargeted clip. */
typedef enum rk_retarget_verdict {
  RK_RETARGET_CLEAN,  /* every figure within its bounds */
  RK_RETARGET_CHECK,  /* something a person may see: look at it */
  RK_RETARGET_FAILED, /* something a person will see */
} rk_retarget_verdict;

/** Static name of a verdict ("clean", "check", "failed"), "?" out of range. */
RK_API const char *rk_retarget_verdict_name(rk_retarget_verdict verdict);

/** The warnings rk_retarget_judge can give, each with a stable code (rk_quality_code_name) and a
 * figure compared with two bounds (rk_quality_bounds): above `check` the verdict is at least
 * check, above `failed` it is failed. Lengths are millimetres for a 1.75 m character and scale
 * with the character's height. */
typedef enum rk_quality_code {
  RK_QUALITY_MESH_THROUGH_FLOOR,  /* "mesh-through-floor": mm a planted foot's mesh goes through
                                     the floor (the deepest planted frame) */
  RK_QUALITY_FEET_FLOAT,          /* "feet-float": mm planted feet float (median) */
  RK_QUALITY_BODY_THROUGH_FLOOR,  /* "body-through-floor": mm the body goes through the floor */
  RK_QUALITY_FOOT_PITCH,          /* "foot-pitch": degrees the feet pitch away from the source's
                                     (95th percentile) */
  RK_QUALITY_SKATE,               /* "skate": mm planted sole points slide */
  RK_QUALITY_GOAL_MISSED,         /* "goal-missed": mm planted sole points miss their pins */
  RK_QUALITY_POSE_ERROR,          /* "pose-error": mm joints stand from the source's where the
                                     rigs correspond joint for joint */
  RK_QUALITY_LEG_CANNOT_REACH,    /* "leg-cannot-reach": % of frames a planted leg cannot reach
                                     its pin, even with the pelvis moved */
  RK_QUALITY_HIP_BOB_CHANGED,     /* "hip-bob-changed": mm the pelvis moved so legs reach */
  RK_QUALITY_ALL_FRAMES_PLANTED,  /* "all-frames-planted": % of the character's height a foot
                                     planted at nearly every frame (98%) of a clip longer than 2 s
                                     travels as the transfer moves it (held where it slides) */
  RK_QUALITY_IMPLAUSIBLE_SCALE,   /* "implausible-scale": how many times a rig's height is away
                                     from a human's 1.75 m (max(h, 1.75 m) / min(h, 1.75 m)),
                                     the source's or the character's, the larger */
  RK_QUALITY_IMPORT_REPAIRED,     /* "import-repaired": repairs the importer made to the source
                                     file (rk_asset_note_is_repair: a truncated frame line dropped,
                                     a frame count that disagrees with the header) */
  RK_QUALITY_LEGS_INTERSECT,      /* "legs-intersect": mm legs of one bone go through each other
                                     (rk_retarget_look.legs_overlap_mm, the worst frame) */
  RK_QUALITY_CODES
} rk_quality_code;

/** Static stable code of a warning ("mesh-through-floor", ...), NULL out of range. */
RK_API const char *rk_quality_code_name(rk_quality_code code);
/** The code named `name`, or -1 when there is none. */
RK_API int rk_quality_code_parse(const char *name);

/** The bounds of rk_retarget_judge, per code: a figure above check[code] gives a warning of
 * severity check, above failed[code] of severity failed (INFINITY: never). */
typedef struct rk_quality_bounds {
  double check[RK_QUALITY_CODES];
  double failed[RK_QUALITY_CODES];
} rk_quality_bounds;

/** Fills *bounds with rigkit's defaults (the one table, retarget_verdict.c; a profile's [quality]
 * group changes them: rk_profile_apply_quality). Never fails. */
RK_API void rk_quality_bounds_init(rk_quality_bounds *bounds);

/** One finding of rk_retarget_judge. */
typedef struct rk_retarget_warning {
  const char *code;            /* static: rk_quality_code_name */
  rk_retarget_verdict severity;
  char *message;               /* owned by the array (freed with it) */
} rk_retarget_warning;

/** What rk_retarget_judge looks at besides the retargeter and the result (any member may be
 * NULL: not measured, not computable, the defaults). */
typedef struct rk_retarget_judge_input {
  const rk_retarget_look *look;       /* what a person sees in the output */
  const rk_retarget_pose_error *pose; /* the identity-style pose error */
  const rk_asset *source;             /* the source file as imported: its repairs */
  const rk_quality_bounds *bounds;    /* NULL: rk_quality_bounds_init's */
} rk_retarget_judge_input;

/** Judges a retargeted clip from all its figures: the result's own (pins, reach, contacts, the
 * rigs' heights), what a person sees in the output, the identity-style pose error and the source
 * file's import repairs, against the bounds (lengths at the character's scale). Messages give
 * lengths in mm and as a percentage of the character's height. Returns a new array of
 * rk_retarget_warning in code order (the caller frees it with g_array_unref) and the verdict,
 * the worst severity found, through *verdict. in may be NULL. Never fails. */
RK_API GArray *rk_retarget_judge(const rk_retargeter *rt, const rk_retarget_result *r,
                                 const rk_retarget_judge_input *in, rk_retarget_verdict *verdict);

/** The rest heights (metres) of the source and target rigs as their humanoid maps measure them
 * (either pointer may be NULL). Never fails. */
RK_API void rk_retargeter_heights(const rk_retargeter *rt, double *source_m, double *target_m);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(rk_retargeter, rk_retargeter_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(rk_retarget_result, rk_retarget_result_free)

G_END_DECLS

#endif
