/* rigkit/humanoid.h: the canonical humanoid profile and automatic mapping of real rigs onto it.
 *
 * A rk_humanoid_map says which skeleton joint plays each canonical bone (hips, spine, chest,
 * neck, head and, per side, shoulder/clavicle, upper arm, forearm, hand, upper leg, lower leg,
 * foot, toes). It is built from names AND topology:
 *  - names: every joint name is normalised (case, separators, namespaces such as "mixamorig:",
 *    prefixes such as "Bip01", "DEF-", "ORG-") and split into a side (Left*, *_L, .L, l_, L* ...)
 *    and a base that is looked up in synonym sets covering CMU BVH (both the MotionBuilder and the
 *    3ds Max flavours), MakeHuman, Mixamo, Blender/Rigify, Unreal, and generic conventions;
 *  - topology and geometry of the rest pose (canonical space, Y-up): the legs are the two chains
 *    leaving the hips downward to the ground, the spine the chain going up from the hips to the
 *    joint where the arms branch (the chest), the arms the two chains leaving the chest sideways,
 *    the head the top of the chain above the chest; zero-length helper joints are skipped; the
 *    side of an unnamed chain comes from the rig's facing direction (toes point forward).
 * Names decide only where they agree with the topology (a joint named "LeftFoot" that is not in
 * a leg chain is ignored and reported); topology fills every bone names leave open. A profile's
 * [source] or [target] group (rigkit/profile.h) overrides or completes the result.
 *
 * Index: RK_BONES, rk_bone, rk_bone_source, rk_bone_name, rk_bone_parse, rk_bone_mirror,
 *        rk_bone_is_required, rk_bone_source_name, rk_humanoid_map, rk_humanoid_options,
 *        RK_HUMANOID_OPTIONS_INIT, rk_humanoid_map_build, rk_humanoid_map_clear,
 *        rk_humanoid_map_finish, rk_humanoid_map_validate, rk_humanoid_map_to_string,
 *        rk_humanoid_chain, rk_humanoid_map_guess
 */
#ifndef RIGKIT_HUMANOID_H
#define RIGKIT_HUMANOID_H

#include <glib.h>
#include <rigkit/skeleton.h>

G_BEGIN_DECLS

/** The canonical bones (X-macro: enum name, key-file name, mirror, required). */
#define RK_BONES(X)                                                                              \
  X(RK_BONE_ROOT, "root", RK_BONE_ROOT, false)                                                   \
  X(RK_BONE_HIPS, "hips", RK_BONE_HIPS, true)                                                    \
  X(RK_BONE_SPINE, "spine", RK_BONE_SPINE, false)                                                \
  X(RK_BONE_CHEST, "chest", RK_BONE_CHEST, false)                                                \
  X(RK_BONE_NECK, "neck", RK_BONE_NECK, false)                                                   \
  X(RK_BONE_HEAD, "head", RK_BONE_HEAD, false)                                                   \
  X(RK_BONE_LEFT_SHOULDER, "left_shoulder", RK_BONE_RIGHT_SHOULDER, false)                       \
  X(RK_BONE_LEFT_UPPER_ARM, "left_upper_arm", RK_BONE_RIGHT_UPPER_ARM, false)                    \
  X(RK_BONE_LEFT_FOREARM, "left_forearm", RK_BONE_RIGHT_FOREARM, false)                          \
  X(RK_BONE_LEFT_HAND, "left_hand", RK_BONE_RIGHT_HAND, false)                                   \
  X(RK_BONE_RIGHT_SHOULDER, "right_shoulder", RK_BONE_LEFT_SHOULDER, false)                      \
  X(RK_BONE_RIGHT_UPPER_ARM, "right_upper_arm", RK_BONE_LEFT_UPPER_ARM, false)                   \
  X(RK_BONE_RIGHT_FOREARM, "right_forearm", RK_BONE_LEFT_FOREARM, false)                         \
  X(RK_BONE_RIGHT_HAND, "right_hand", RK_BONE_LEFT_HAND, false)                                  \
  X(RK_BONE_LEFT_UPPER_LEG, "left_upper_leg", RK_BONE_RIGHT_UPPER_LEG, true)                     \
  X(RK_BONE_LEFT_LOWER_LEG, "left_lower_leg", RK_BONE_RIGHT_LOWER_LEG, false)                    \
  X(RK_BONE_LEFT_FOOT, "left_foot", RK_BONE_RIGHT_FOOT, false)                                   \
  X(RK_BONE_LEFT_TOES, "left_toes", RK_BONE_RIGHT_TOES, false)                                   \
  X(RK_BONE_RIGHT_UPPER_LEG, "right_upper_leg", RK_BONE_LEFT_UPPER_LEG, true)                    \
  X(RK_BONE_RIGHT_LOWER_LEG, "right_lower_leg", RK_BONE_LEFT_LOWER_LEG, false)                   \
  X(RK_BONE_RIGHT_FOOT, "right_foot", RK_BONE_LEFT_FOOT, false)                                  \
  X(RK_BONE_RIGHT_TOES, "right_toes", RK_BONE_LEFT_TOES, false)

typedef enum rk_bone {
#define RK__BONE_ENUM(e, name, mirror, required) e,
  RK_BONES(RK__BONE_ENUM)
#undef RK__BONE_ENUM
  RK_BONE_COUNT
} rk_bone;

/** How a bone got its joint. */
typedef enum rk_bone_source {
  RK_BONE_UNMAPPED,
  RK_BONE_BY_NAME,     /* a known name, confirmed by the topology */
  RK_BONE_BY_TOPOLOGY, /* the rest pose's structure */
  RK_BONE_BY_MAP_FILE, /* a profile (map file) said so */
} rk_bone_source;

/** Static key-file name of a bone ("left_upper_leg"), or "?" out of range. */
RK_API const char *rk_bone_name(rk_bone bone);
/** Parses a key-file bone name; false when unknown. */
RK_API bool rk_bone_parse(const char *name, rk_bone *bone);
/** The same bone on the other side (itself for centre bones). */
RK_API rk_bone rk_bone_mirror(rk_bone bone);
/** True for the bones every humanoid map needs (hips and both upper legs: a leg of one bone has
 * no lower leg; a leg without a foot bone ends where its skin does, rk_humanoid_map.leg_end). */
RK_API bool rk_bone_is_required(rk_bone bone);
/** Static name of a source ("unmapped", "name", "topology", "map-file"). */
RK_API const char *rk_bone_source_name(rk_bone_source source);

/** A map of canonical bones onto one skeleton's joints (a plain value). */
typedef struct rk_humanoid_map {
  int joint[RK_BONE_COUNT];              /* skeleton joint index, -1 = unmapped */
  rk_bone_source source[RK_BONE_COUNT];
  rk_vec3 forward;                       /* the rig's facing in its rest pose (unit, horizontal) */
  rk_vec3 up;                            /* (0, 1, 0) in canonical space */
  double height;                         /* rest height of the rig (model units) */
  double hip_height;                     /* rest height of the hips above the lowest foot joint */
  double leg_length;                     /* mean rest length upper leg + lower leg + (foot drop) */
  double ground;                         /* rest height (y) of the ground under the feet */
  rk_vec3 leg_end[2];                    /* rest position of each leg's end (left, right): its
                                            foot joint, or for a leg without one the end of its
                                            lower leg's skin */
  double leg_end_drop[2];                /* how far the leg's skin reaches below leg_end at rest */
  bool leg_end_from_skin[2];             /* leg_end came from the skin (no foot joint): the
                                            point its sole rolls about */
  int detached_foot[2];                  /* a foot bone that does not hang from its leg (a game
                                            rig hangs it from a root-level IK control), or -1:
                                            the leg ends at it (leg_end, leg_end_drop from its
                                            skin) and a retarget keys it to follow the lower leg,
                                            level (rigkit/retarget.h) */
} rk_humanoid_map;

/** Options of the automatic mapping. */
typedef struct rk_humanoid_options {
  bool use_names;            /* let names decide where the topology agrees (default true) */
  double min_bone_fraction;  /* joints closer than this fraction of the height to their parent
                                are helpers, skipped in chains (default 0.005) */
  const struct rk_skin_support *skin; /* the rig's skinned meshes (rigkit/skin.h, borrowed) or
                                NULL: joints that weight no vertex and carry none that does are
                                control bones (IK targets, poles, sockets), left out of chains;
                                a chain whose last bone has no child ends where its skin does */
} rk_humanoid_options;

#define RK_HUMANOID_OPTIONS_INIT {true, 0.005, NULL}

/** Maps a skeleton (canonical space) onto the humanoid profile; opts NULL = defaults. Fails with
 * RK_ERROR_MAPPING when the required bones cannot be found (no two legs leaving a hips joint
 * downward), or when the rig is not a humanoid (e.g. a quadruped: four limbs reach the ground),
 * naming what is missing. Bones that do not exist in the rig (no toes, no clavicles) stay -1. */
RK_API bool rk_humanoid_map_build(const rk_skeleton *skeleton, const rk_humanoid_options *opts,
                                  rk_humanoid_map *map, GError **error);
/** Empties a map (every bone unmapped, facing +Z), to be filled from a profile when the automatic
 * mapping does not apply (a quadruped with a profile's [target] group, rigkit/profile.h). */
RK_API void rk_humanoid_map_clear(rk_humanoid_map *map);
/** Validates a map (rk_humanoid_map_validate) and computes its measurements from the rest pose:
 * facing (feet to toes, else +Z), height, ground (lowest joint of the legs, or leg end from the
 * skin), hip height, leg length and each leg's end (its foot joint; a leg_end from the skin is
 * kept for a leg without one). rk_humanoid_map_build calls it; call it again after applying a key
 * file. Fails with RK_ERROR_MAPPING (invalid map, hips not above the feet, a leg with neither a
 * foot joint nor an end from the skin). */
RK_API bool rk_humanoid_map_finish(rk_humanoid_map *map, const rk_skeleton *skeleton, GError **error);
/** Checks a map: required bones present, each limb's joints in ancestor order (upper leg above
 * lower leg above foot ...), no joint used twice. Fails with RK_ERROR_MAPPING naming the bone. */
RK_API bool rk_humanoid_map_validate(const rk_humanoid_map *map, const rk_skeleton *skeleton,
                                     GError **error);
/** The best guess of a map for a rig (e.g. one rk_humanoid_map_build refuses), as the text of a
 * map file with one group `group` ("target" or "source"): what the topology found before it
 * failed, completed from the joint names (control bones aside when opts has the skin), one line
 * per bone or limb chain found (`left_leg = UpperLeg.L LowerLeg.L`, rigkit/profile.h), a commented
 * line for each not found, `why` (the refusal) in the heading. Never fails; the caller frees the
 * text with g_free. */
RK_API char *rk_humanoid_map_guess(const rk_skeleton *skeleton, const rk_humanoid_options *opts,
                                   const char *group, const char *why);
/** Human-readable table "bone  joint  (how)" of a map; the caller frees it with g_free. */
RK_API char *rk_humanoid_map_to_string(const rk_humanoid_map *map, const rk_skeleton *skeleton);
/** The joints from `from` down to `to` (both included, `from` an ancestor of `to`), root first,
 * skipping helper joints closer than min_length to their parent: out has capacity joint count;
 * returns the count (0 when `from` is not an ancestor of `to`). */
RK_API size_t rk_humanoid_chain(const rk_skeleton *skeleton, int from, int to, double min_length,
                                int *out);

G_END_DECLS

#endif
