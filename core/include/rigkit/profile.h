/* rigkit/profile.h: retarget profiles, the one key file that maps both rigs and sets the options.
 *
 * A profile is a GLib key file (`rigkit retarget --map FILE`, the plugin's profile_path or
 * profile_text) with up to four groups:
 *   [source], [target]  bone=joint lines (bone names of rigkit/humanoid.h) that override or
 *                       complete the automatic mapping of that rig; an empty value unmaps the bone;
 *   [settings]          fps, foot_ik, hand_ik, root_motion, contact_height, contact_speed,
 *                       contact_min_time, blend_time, ik_iterations, ground = auto | keep,
 *                       soles = auto | bones (rk_retarget_options);
 *   [quality]           code = CHECK [FAILED] lines: the bounds of rk_retarget_judge for a warning
 *                       code (rk_quality_code_name), FAILED a number or `none` (never failed);
 *                       codes not named keep rigkit's defaults.
 * Loading checks everything a file can get wrong without a rig, with one set of messages that
 * name the file, the group and the key: unknown groups, bones and settings, keys and values that
 * are not UTF-8 text or hold invalid escapes, and every settings value. Joint names are checked
 * when a rig is mapped. The command line and the plugin read profiles only through here.
 *
 * Index: rk_profile, rk_profile_side, rk_profile_load_file, rk_profile_load_text, rk_profile_free,
 *        rk_profile_name, rk_profile_apply_settings, rk_profile_apply_quality, rk_profile_map_rig,
 *        rk_profile_map_asset, rk_profile_map_guess, rk_profile_settings_text,
 *        rk_retarget_options_from_keyfile, rk_humanoid_map_apply_keyfile
 */
#ifndef RIGKIT_PROFILE_H
#define RIGKIT_PROFILE_H

#include <rigkit/humanoid.h>
#include <rigkit/retarget.h>

G_BEGIN_DECLS

typedef struct rk_profile rk_profile;

/** Which rig a profile group maps. */
typedef enum rk_profile_side {
  RK_PROFILE_SOURCE, /* [source] */
  RK_PROFILE_TARGET, /* [target] */
} rk_profile_side;

/** Loads and checks a profile file. Fails with RK_ERROR_IO when it cannot be read,
 * RK_ERROR_PARSE when it is not a key file, RK_ERROR_INVALID for an unknown group, bone or
 * setting, a bad value or text that is not UTF-8; every message starts with the path. The caller
 * frees the profile with rk_profile_free. */
RK_API rk_profile *rk_profile_load_file(const char *path, GError **error);
/** Loads and checks a profile from text, named `name` in messages (NULL: "profile text"); fails
 * as rk_profile_load_file (RK_ERROR_PARSE, RK_ERROR_INVALID). The caller frees it. */
RK_API rk_profile *rk_profile_load_text(const char *text, const char *name, GError **error);
/** Frees a profile; NULL is a no-op. */
RK_API void rk_profile_free(rk_profile *profile);
/** The path or name the profile was loaded as (borrowed). */
RK_API const char *rk_profile_name(const rk_profile *profile);

/** Sets the options the profile's [settings] names; the others keep their values. NULL profile:
 * nothing changes. Never fails: the values were checked when the profile was loaded. */
RK_API void rk_profile_apply_settings(const rk_profile *profile, rk_retarget_options *opts);

/** Sets the bounds the profile's [quality] group names; the others keep their values. NULL
 * profile: nothing changes. Never fails: the values were checked when the profile was loaded. */
RK_API void rk_profile_apply_quality(const rk_profile *profile, rk_quality_bounds *bounds);

/** The humanoid map of a rig: the automatic mapping (rk_humanoid_map_build), then the profile's
 * group for that side on top, finished (rk_humanoid_map_finish). A rig the automatic mapping
 * refuses (e.g. a quadruped) is mapped by the group alone when the profile has one. profile may be
 * NULL (automatic only). Fails with the automatic mapping's error (saying when the profile has no
 * group to map the rig), RK_ERROR_NOT_FOUND for a joint the rig lacks (naming the profile, group,
 * bone and joint), or RK_ERROR_MAPPING when the group leaves an invalid map. */
RK_API bool rk_profile_map_rig(const rk_profile *profile, const rk_skeleton *skeleton,
                               rk_profile_side side, rk_humanoid_map *out, GError **error);
/** rk_profile_map_rig on a character: its skinned meshes (rigkit/skin.h) tell the automatic
 * mapping which joints are control bones (IK targets, poles, sockets: no vertex, no deforming
 * joint below) and where a chain whose last bone has no child ends. An asset without meshes maps
 * as rk_profile_map_rig on its skeleton. Fails as rk_profile_map_rig, and with the skin's error
 * (a mesh that does not fit the skeleton). */
RK_API bool rk_profile_map_asset(const rk_profile *profile, const rk_asset *asset,
                                 rk_profile_side side, rk_humanoid_map *out, GError **error);
/** The best guess of a map for a character the mapping refuses (rk_humanoid_map_guess with its
 * skin, the group of `side`, `why` in the heading): map file text to edit and pass back as a
 * profile. Never fails (a skin that cannot be built is left out); the caller frees it. */
RK_API char *rk_profile_map_guess(const rk_asset *asset, rk_profile_side side, const char *why);

/** Canonical text of a set of options as a profile's [settings] group: every setting, one
 * `key=value` line each in a fixed order, numbers written to read back exactly. Loading the text
 * and applying it gives the same options (cache_bytes and threads aside: no settings, the result
 * is the same whatever they are). The caller frees it with g_free. Never fails. */
RK_API char *rk_profile_settings_text(const rk_retarget_options *opts);

/** Reads the [settings] group of a profile key file into *opts (absent keys keep opts' values);
 * the checks and messages of rk_profile_load_file. A missing group is not an error. Fails with
 * RK_ERROR_INVALID naming the file (keyfile_name), key and value. */
RK_API bool rk_retarget_options_from_keyfile(rk_retarget_options *opts, GKeyFile *keyfile,
                                             const char *keyfile_name, GError **error);
/** Overrides bones of a map from a profile key file's group (e.g. "target" or "source") whose keys
 * are bone names and values joint names ("left_foot=Foot_L"); an empty value unmaps the bone.
 * Fails with RK_ERROR_INVALID for an unknown bone name or unreadable text and RK_ERROR_NOT_FOUND
 * for a joint the skeleton lacks (the message names the key file, group, key and joint); a
 * missing group is not an error. Call rk_humanoid_map_finish afterwards. */
RK_API bool rk_humanoid_map_apply_keyfile(rk_humanoid_map *map, const rk_skeleton *skeleton,
                                          GKeyFile *keyfile, const char *group,
                                          const char *keyfile_name, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(rk_profile, rk_profile_free)

G_END_DECLS

#endif
