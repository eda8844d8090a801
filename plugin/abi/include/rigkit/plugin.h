/* rigkit/plugin.h: the plugin ABI, the only header a DCC host includes to use rigkit.
 *
 * librigkit_plugin.so exports one symbol, rk_plugin_get_api, which returns a table of functions.
 * Everything crossing the boundary is a plain C type (fixed-width integers, float, double,
 * const char *, opaque handles): no GLib, cglm or Assimp type, so any language with a C FFI
 * (Python ctypes, C#, Rust, Lua) can bind it. rigkit's own libraries are linked into the .so; it
 * needs only the system libraries it was built against (GLib, Assimp, json-glib).
 *
 *   #include <rigkit/plugin.h>
 *   void *so = dlopen("librigkit_plugin.so", RTLD_NOW | RTLD_LOCAL);
 *   rk_plugin_get_api_fn get = (rk_plugin_get_api_fn)dlsym(so, RK_PLUGIN_ENTRY_POINT);
 *   const rk_plugin_api *rk = get(RK_PLUGIN_ABI_VERSION);
 *   if (!rk) fprintf(stderr, "%s\n", get(RK_PLUGIN_ABI_QUERY)->info.message);
 *
 * ---- Version policy ---------------------------------------------------------------------------
 * RK_PLUGIN_ABI_VERSION numbers this header. Any change to a struct, an enum value or a function
 * signature below, including appending a function to rk_plugin_api, makes a new number. A plugin
 * serves exactly the ABI versions it was built for; rk_plugin_get_api(v) for any other v returns
 * NULL and records why. The first four fields of rk_plugin_api (rk_plugin_info) are frozen: they
 * keep this layout in every ABI version, so a host of any version can call
 * rk_plugin_get_api(RK_PLUGIN_ABI_QUERY) and read the plugin's newest ABI version, rigkit version
 * and the refusal message. That query result has every function pointer NULL.
 *
 * This plugin serves ABI 2 (this header) and ABI 1. ABI 2 appended asset_from_host (a source
 * clip given as the host's own skeleton and keys, rk_plugin_host_clip), added
 * rk_plugin_import_options.isolation (imports read by Assimp run in a helper process) and
 * .bvh_root_offset, rk_plugin_asset_info.isolated, rk_plugin_session_desc.settings_text and
 * .target_meshes (rk_plugin_mesh: a host target's skinned meshes) and RK_PLUGIN_ERR_CRASHED. A host built against ABI 1 gets ABI 1's table: the same functions
 * without the appended one, struct_size answering ABI 1's sizes, its smaller import options and
 * session descriptions read as ABI 1 wrote them, and every import in its own process, as
 * ABI 1 did.
 *
 * ---- Errors -----------------------------------------------------------------------------------
 * Every function that can fail returns an int status (rk_plugin_status: 0 = RK_PLUGIN_OK) and
 * takes a caller-supplied message buffer `err` of `err_size` bytes as its last two parameters.
 * On failure the buffer receives a NUL-terminated UTF-8 message naming the file, joint, clip or
 * argument at fault (truncated at a character boundary to fit); on success it is left unchanged.
 * err may be NULL (err_size 0) when the host only wants the status. No function aborts, exits or
 * raises a signal on bad input: NULL pointers, unknown or closed handles, out-of-range indices,
 * non-finite numbers, malformed files and too-small arrays are all reported as statuses.
 * (Running out of memory is not bad input: GLib then aborts, as in the rest of rigkit.)
 *
 * ---- Ownership --------------------------------------------------------------------------------
 * Handles (rk_plugin_asset, rk_plugin_session) are created by *_open / session_new and released
 * with asset_close / session_close. A session keeps what it needs of the assets it was built
 * from, so the host may close those assets right after session_new. Strings returned by the
 * plugin (names in rk_plugin_asset_info, rk_plugin_clip_info, joint name arrays) are borrowed:
 * valid until the handle they came from is closed; the host copies what it keeps. Arrays passed
 * in (names, parents, rest poses, file bytes, profile text) are read during the call only. Output
 * arrays are caller-allocated, with their capacity passed beside them.
 *
 * ---- Threads ----------------------------------------------------------------------------------
 * rk_plugin_get_api and every function may be called from any thread. Different handles may be
 * used on different threads at the same time (one session per clip on a thread pool is fine; the
 * assets they come from may be shared). One handle: read-only calls (asset_info, asset_joints,
 * session_result, session_keys, session_track, session_contact, session_export, session_map_text)
 * may run concurrently; session_run must not overlap any other call on the same session; a
 * handle must not be closed while another thread is using it.
 *
 * ---- Spaces and conventions -------------------------------------------------------------------
 * Transforms cross the boundary as 10 floats "TRS": translation x, y, z; rotation quaternion
 * x, y, z, w (w scalar, unit length); scale x, y, z; the matrix is T * R * S acting on column
 * vectors. A rest or local pose is relative to the joint's parent (the root's to the host's
 * world). The host says which space its numbers are in with rk_plugin_space:
 *  - RK_PLUGIN_UP_Y: right-handed, Y up (rigkit's canonical space, glTF, Maya, Houdini);
 *  - RK_PLUGIN_UP_Z: right-handed, Z up, -Y forward, i.e. (x, y, z)_Z = (x, -z, y)_Y
 *    (Blender, 3ds Max; the mapping Blender's glTF and BVH importers use);
 *  - metres_per_unit scales lengths (1 = metres, 0.01 = centimetres).
 * Only roots are rotated by the axis change (children are relative to their parents) and every
 * translation is scaled. Keys are read in one of two forms (rk_plugin_keys):
 *  - RK_PLUGIN_KEYS_LOCAL: the joint's local pose relative to its parent (same form as rest);
 *  - RK_PLUGIN_KEYS_REST_RELATIVE: the pose relative to the joint's own rest, B = rest^-1 * local:
 *    rotation = rest.r^-1 * local.r, translation = (rest.r^-1 * (local.t - rest.t)) / rest.s,
 *    scale = local.s / rest.s (exact for uniform rest scales). This is what Blender's pose bones
 *    hold (pose_bone.location / rotation_quaternion / scale = matrix_basis), and it does not
 *    depend on the up axis: a root's rest and pose turn together.
 * Times: key frames are numbered from 0 at the session's output rate (rk_plugin_result.fps);
 * frame f is at f / fps seconds after the clip's start.
 *
 * ---- Imports in a helper process --------------------------------------------------------------
 * glTF/GLB and FBX files are read by Assimp, which can abort the process on some malformed files.
 * By default (RK_PLUGIN_ISOLATION_AUTO) asset_open_file and asset_open_memory therefore import
 * those formats in a separate process, rigkit-import-helper (built with the plugin), which reads
 * the file with the same importers and hands the asset (skeleton, clips, meshes, provenance) back
 * over a pipe; a crash there becomes RK_PLUGIN_ERR_CRASHED with a message naming the file, and
 * the host keeps running. The helper is looked up as $RIGKIT_IMPORT_HELPER, then beside
 * librigkit_plugin.so, then in the directory it was installed to; it is started with posix_spawn
 * (no fork of the host's threads). BVH and DH tables are read by rigkit's own readers, which never
 * abort, in the host's process.
 *
 * Index (members of rk_plugin_api): info, status_name, struct_size, asset_open_file,
 *   asset_open_memory, asset_close, asset_info, asset_clip, asset_joints, session_new,
 *   session_close, session_run, session_result, session_joints, session_keys, session_track,
 *   session_contact, session_map_text, session_export, asset_from_host
 */
#ifndef RIGKIT_PLUGIN_H
#define RIGKIT_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The ABI this header describes. */
#define RK_PLUGIN_ABI_VERSION 2u
/** Pass to rk_plugin_get_api to get the frozen rk_plugin_info of any plugin (never NULL). */
#define RK_PLUGIN_ABI_QUERY 0u
/** The name of the only exported symbol, for dlsym / GetProcAddress. */
#define RK_PLUGIN_ENTRY_POINT "rk_plugin_get_api"
/** Floats per transform: translation 3, rotation quaternion 4 (x, y, z, w), scale 3. */
#define RK_PLUGIN_TRS_FLOATS 10
/** A tri-state setting left to the profile's [settings] group, else to rigkit's default. */
#define RK_PLUGIN_DEFAULT (-1)

/** Status codes returned by the functions (values are part of the ABI). */
typedef enum rk_plugin_status {
  RK_PLUGIN_OK = 0,
  RK_PLUGIN_ERR_FAILED = 1,      /* an operation failed (e.g. the retarget produced a NaN) */
  RK_PLUGIN_ERR_IO = 2,          /* a file could not be read or written */
  RK_PLUGIN_ERR_PARSE = 3,       /* malformed file or profile text */
  RK_PLUGIN_ERR_UNSUPPORTED = 4, /* unknown format or an option the format cannot hold */
  RK_PLUGIN_ERR_INVALID = 5,     /* invalid data: NaN, cycle, duplicate name, bad value */
  RK_PLUGIN_ERR_LIMIT = 6,       /* a size beyond rigkit's limits */
  RK_PLUGIN_ERR_NOT_FOUND = 7,   /* a named joint, clip or file does not exist */
  RK_PLUGIN_ERR_MAPPING = 8,     /* the skeletons cannot be mapped onto each other */
  RK_PLUGIN_ERR_CANCELLED = 9,
  RK_PLUGIN_ERR_ARGUMENT = 10, /* a NULL pointer, unknown or closed handle, index out of range */
  RK_PLUGIN_ERR_STATE = 11,    /* e.g. reading keys of a session that has not run */
  RK_PLUGIN_ERR_CAPACITY = 12, /* a caller array is too small (the message says how large) */
  RK_PLUGIN_ERR_CRASHED = 13,  /* the import helper process died on the file (e.g. Assimp
                                  aborted): the file is refused, the host is unaffected */
} rk_plugin_status;

/** How a BVH root OFFSET combines with the root's position channels: readers disagree, so a clip
 * imported by another program (e.g. Blender) is matched by naming its reading. */
typedef enum rk_plugin_bvh_root_offset {
  RK_PLUGIN_BVH_ROOT_OFFSET_AUTO = 0,    /* the reading that puts the feet on the ground plane */
  RK_PLUGIN_BVH_ROOT_OFFSET_ADD = 1,     /* position = OFFSET + channels */
  RK_PLUGIN_BVH_ROOT_OFFSET_REPLACE = 2, /* position = channels (Blender's and Assimp's reading) */
} rk_plugin_bvh_root_offset;

/** Where a file is imported (rk_plugin_import_options.isolation). */
typedef enum rk_plugin_isolation {
  RK_PLUGIN_ISOLATION_AUTO = 0,   /* formats read by Assimp (glTF, GLB, FBX) in the helper
                                     process, BVH and DH tables in the host's */
  RK_PLUGIN_ISOLATION_NONE = 1,   /* every format in the host's process (ABI 1's behaviour) */
  RK_PLUGIN_ISOLATION_ALWAYS = 2, /* every format in the helper process */
} rk_plugin_isolation;

/** Up axis of a host space. */
typedef enum rk_plugin_up {
  RK_PLUGIN_UP_Y = 0, /* right-handed, Y up: rigkit's canonical space */
  RK_PLUGIN_UP_Z = 1, /* right-handed, Z up, -Y forward: (x, y, z)_Z = (x, -z, y)_Y */
} rk_plugin_up;

/** The space of the host's numbers. {RK_PLUGIN_UP_Y, 1} is rigkit's canonical space. */
typedef struct rk_plugin_space {
  int32_t up_axis;       /* rk_plugin_up */
  float metres_per_unit; /* length of one host unit in metres; 0 means 1 */
} rk_plugin_space;

/** Form of the keys read back. */
typedef enum rk_plugin_keys {
  RK_PLUGIN_KEYS_LOCAL = 0,         /* local pose relative to the parent */
  RK_PLUGIN_KEYS_REST_RELATIVE = 1, /* rest^-1 * local (Blender's pose-bone matrix_basis) */
} rk_plugin_keys;

/** Channels of a track. */
typedef enum rk_plugin_channel {
  RK_PLUGIN_CHANNEL_TRANSLATION = 0, /* 3 floats per key */
  RK_PLUGIN_CHANNEL_ROTATION = 1,    /* 4 floats per key: x, y, z, w */
  RK_PLUGIN_CHANNEL_SCALE = 2,       /* 3 floats per key */
} rk_plugin_channel;

/** Joint flags (per joint, optional). */
typedef enum rk_plugin_joint_flags {
  RK_PLUGIN_JOINT_END_SITE = 1u << 0, /* a leaf marking a bone's tip (a Blender bone's tail) */
} rk_plugin_joint_flags;

typedef struct rk_plugin_asset rk_plugin_asset;     /* an imported file: skeleton + clips */
typedef struct rk_plugin_session rk_plugin_session; /* one clip retargeted onto one target */

/** How a file is read (all fields optional: zero them for the defaults). */
typedef struct rk_plugin_import_options {
  const char *format;      /* "bvh", "gltf", "glb", "fbx", "dh"; NULL = from content/extension */
  double metres_per_unit;  /* 0 = from the file, or detected from the skeleton's height (BVH) */
  const char *bvh_up_axis; /* BVH: the file's up axis ("Y", "Z", ...); NULL = detected */
  int32_t isolation;       /* rk_plugin_isolation (ABI 2) */
  int32_t bvh_root_offset; /* rk_plugin_bvh_root_offset (ABI 2) */
} rk_plugin_import_options;

/** What an asset holds. Strings are borrowed (valid until the asset is closed). */
typedef struct rk_plugin_asset_info {
  uint32_t joint_count;
  uint32_t clip_count;
  uint32_t mesh_count;
  uint32_t isolated;      /* 1 when the file was read in the helper process (ABI 2) */
  const char *format;     /* "bvh", "glb", ..., "host" for asset_from_host */
  const char *path;       /* the path or in-memory name it was opened from */
  const char *unit;       /* unit of the file ("cm", "dm", "m", ...) */
  double metres_per_unit; /* the scale applied to reach metres */
  const char *up_axis;    /* the file's up axis as written ("Y", "Z", ...) */
} rk_plugin_asset_info;

/** One clip of an asset. The name is borrowed (valid until the asset is closed). */
typedef struct rk_plugin_clip_info {
  const char *name;
  double duration_s;
  double fps;      /* nominal rate of the file; 0 when the file has none */
  uint32_t frames; /* round(duration * fps) + 1, or 1 when fps is 0 */
  uint32_t reserved;
} rk_plugin_clip_info;

/** A skeleton given by the host (e.g. its armature): a session's target, or a host clip's rig.
 * Joints may come in any order (parents need not precede children); the plugin keeps the host's
 * order in everything it returns. */
typedef struct rk_plugin_skeleton {
  uint32_t joint_count; /* 1 .. 65535 */
  uint32_t reserved;
  const char *const *names; /* joint_count unique, non-empty UTF-8 names */
  const int32_t *parents;   /* joint_count indices into these arrays, -1 for roots */
  const float *rest;        /* joint_count * RK_PLUGIN_TRS_FLOATS: rest pose relative to the parent,
                               in the session's space */
  const uint32_t *flags;    /* joint_count rk_plugin_joint_flags, or NULL */
} rk_plugin_skeleton;

/** Retarget settings. Start from RK_PLUGIN_SETTINGS_INIT: every field then defers to the profile's
 * [settings] group (the same key file the `rigkit retarget --map` command line reads), else to
 * rigkit's defaults; a field set here overrides the profile. */
typedef struct rk_plugin_settings {
  int32_t foot_ik;     /* pin planted feet: RK_PLUGIN_DEFAULT, 0, 1 (rigkit's default: 1) */
  int32_t hand_ik;     /* hand goals from the source: RK_PLUGIN_DEFAULT, 0, 1 (default 0) */
  int32_t root_motion; /* in-place cycles travel: RK_PLUGIN_DEFAULT, 0, 1 (default 0) */
  int32_t reserved;
  double fps;                /* output frame rate, > 0; 0 = the profile's, else the source clip's */
  double reduce_tolerance_m; /* > 0: keep the fewest keys within this many metres of every
                                joint's baked position (rigkit/reduce.h); 0 = one key per frame */
} rk_plugin_settings;

#define RK_PLUGIN_SETTINGS_INIT                                                                    \
  { RK_PLUGIN_DEFAULT, RK_PLUGIN_DEFAULT, RK_PLUGIN_DEFAULT, 0, 0.0, 0.0 }

/** A skinned mesh of a host's target (ABI 2), e.g. a Blender armature's character: its rest
 * vertices let the retarget find the character's soles and lowest points, and session_export
 * writes it. */
typedef struct rk_plugin_mesh {
  const char *name;       /* used in messages; NULL = "" */
  uint32_t vertex_count;  /* 1 .. 2^26 */
  uint32_t index_count;   /* a multiple of 3 (triangles), 0 without indices */
  const float *positions; /* vertex_count * 3 at bind time, in the session's space and in the
                             frame the target skeleton's roots are placed in (for Blender: world
                             positions over the armature's object scale) */
  const uint32_t *indices; /* index_count indices into the vertices, or NULL */
  const uint16_t *joints;  /* vertex_count * 4 joints in the target skeleton's (host) order, or
                              NULL for a mesh that no joint moves */
  const float *weights;    /* vertex_count * 4, >= 0 (normalised by the plugin); with joints */
} rk_plugin_mesh;

/** A source clip given by the host (asset_from_host): its own skeleton and a key per frame, e.g.
 * an armature's action sampled at the scene's rate. ABI 2. */
typedef struct rk_plugin_host_clip {
  const rk_plugin_skeleton *skeleton; /* the joints (any order), rest poses in `space`; checked
                                         like a target skeleton */
  rk_plugin_space space;              /* space of the rest poses and of the keys */
  int32_t keys;                       /* rk_plugin_keys: LOCAL or REST_RELATIVE values below */
  uint32_t frame_count;               /* frames, 1 .. 2^24; frame f is at f / fps seconds */
  double fps;                         /* the frames' rate, > 0 */
  const float *translations; /* frame_count * joint_count * 3, frame-major in the skeleton's
                                order, or NULL: every joint keeps its rest translation */
  const float *rotations;    /* frame_count * joint_count * 4 (x, y, z, w), or NULL (rest) */
  const float *scales;       /* frame_count * joint_count * 3, or NULL (rest) */
  const char *name;          /* the clip's name; NULL = "host clip" */
  const char *label;         /* names the asset in messages and asset_info.path (e.g. the
                                host's object name); NULL = "(host)" */
} rk_plugin_host_clip;

/** What session_new builds. Exactly one of target_asset and target_skeleton is set. At most one
 * of profile_path and profile_text is set: a GLib key file with optional groups [source] and
 * [target] (canonical bone = joint name, overriding the automatic humanoid mapping of that rig)
 * and [settings] (fps, foot_ik, hand_ik, root_motion, contact_height, contact_speed,
 * contact_min_time, blend_time, ik_iterations), read by the same rigkit functions as the CLI;
 * any other group is refused (a misspelt group would otherwise be ignored). Each rig is mapped
 * automatically, then its group overrides bones; a rig the automatic mapping refuses (e.g. a
 * quadruped) is mapped by its group alone. The options are rigkit's defaults, then the profile's
 * [settings], then settings_text, then the fields of settings that are set. */
typedef struct rk_plugin_session_desc {
  const rk_plugin_asset *source; /* the clip's asset (required) */
  uint32_t source_clip;          /* clip index in source */
  uint32_t reserved;
  const rk_plugin_asset *target_asset;       /* target rig from a file, or NULL */
  const rk_plugin_skeleton *target_skeleton; /* target rig from the host, or NULL */
  rk_plugin_space space;    /* space of target_skeleton and of every pose the session returns */
  const char *profile_path; /* profile key file, or NULL */
  const char *profile_text; /* profile key file contents, or NULL */
  rk_plugin_settings settings;
  const char *settings_text; /* key=value lines with the keys of a profile's [settings] group
                                (e.g. "contact_height=0.05\nik_iterations=20"), over the
                                profile's; checked like a profile, messages name "settings_text";
                                NULL = none (ABI 2) */
  const rk_plugin_mesh *target_meshes; /* with target_skeleton: its character's meshes, read
                                          during session_new only (ABI 2); NULL = none */
  uint32_t target_mesh_count;
  uint32_t reserved2;
} rk_plugin_session_desc;

/** Figures of a session that has run. */
typedef struct rk_plugin_result {
  uint32_t frames;      /* output frames (baked keys per joint before reduction) */
  uint32_t joint_count; /* target joints (the host's count for a host skeleton) */
  double fps;           /* output frame rate */
  double duration_s;
  uint32_t mapped_bones;           /* canonical bones mapped in both rigs */
  uint32_t contact_count;          /* target joints with planted intervals (session_contact) */
  uint32_t contact_frames;         /* frames with at least one planted joint */
  uint32_t joint_limit_violations; /* (frame, joint) pairs outside the target's limits */
  uint64_t keys_baked;             /* keys of the baked clip (all tracks) */
  uint64_t keys_output;            /* keys after reduction (== keys_baked without reduction) */
  double reduce_max_error_m;       /* largest position error the reduction introduced */
  double foot_skate_mean_mm, foot_skate_max_mm;       /* planted joints' horizontal drift */
  double ik_goal_error_mean_mm, ik_goal_error_max_mm; /* planted joints vs their pins */
  double loop_closure_residual_max_mm;                /* both feet planted: closure equations */
  double limb_direction_median_deg;                   /* target limb directions vs the source's */
  double foot_skate_fk_max_mm;                        /* the same clip without IK, for comparison */
  double run_seconds;                                 /* wall time of session_run */
} rk_plugin_result;

/** The frozen head of the table (same layout in every ABI version). */
typedef struct rk_plugin_info {
  uint32_t abi_version;       /* the ABI version of this table / this plugin */
  uint32_t api_size;          /* sizeof(rk_plugin_api) of the plugin; 0 in a query result */
  const char *rigkit_version; /* "0.1.0" */
  const char *message;        /* "" in a usable table; in a query result, why the last request
                                 on the calling thread was refused (or that none was) */
} rk_plugin_info;

/** The function table (ABI version 2). Static: never freed, valid while the .so is loaded. */
typedef struct rk_plugin_api {
  rk_plugin_info info;

  /** Static name of a status ("ok", "io", "argument", ...); "unknown" for other values. */
  const char *(*status_name)(int status);
  /** sizeof of the named ABI struct ("rk_plugin_api", "rk_plugin_result", ...) as the plugin
   * was compiled, or 0 for an unknown name: bindings check their own layouts against it. */
  size_t (*struct_size)(const char *struct_name);

  /** Imports a file (glTF/GLB, FBX, BVH, DH table) into a new asset in *out (opts may be NULL),
   * in the helper process as opts->isolation says (see "Imports in a helper process"). Fails
   * with IO, PARSE, UNSUPPORTED, INVALID or LIMIT, the message starting with the path; CRASHED
   * when the helper process died on the file; IO when the helper cannot be found or started
   * (the message names where it was looked for). The host closes the asset with asset_close. */
  int (*asset_open_file)(const char *path, const rk_plugin_import_options *opts,
                         rk_plugin_asset **out, char *err, size_t err_size);
  /** Same from size bytes (read during the call only); name is used in messages and, without
   * opts->format, for the format. */
  int (*asset_open_memory)(const void *data, size_t size, const char *name,
                           const rk_plugin_import_options *opts, rk_plugin_asset **out, char *err,
                           size_t err_size);
  /** Releases the host's handle (sessions built from it keep their own reference). NULL is a
   * no-op (OK); an unknown or already closed handle gives RK_PLUGIN_ERR_ARGUMENT. */
  int (*asset_close)(rk_plugin_asset *asset);
  /** Fills *out with the asset's counts and provenance (borrowed strings). */
  int (*asset_info)(const rk_plugin_asset *asset, rk_plugin_asset_info *out, char *err,
                    size_t err_size);
  /** Fills *out with clip `index` (borrowed name). ARGUMENT when index >= clip_count. */
  int (*asset_clip)(const rk_plugin_asset *asset, uint32_t index, rk_plugin_clip_info *out,
                    char *err, size_t err_size);
  /** Lists the asset's joints in its order (parents before children) into caller arrays of
   * `capacity` joints, any of which may be NULL: names (borrowed), parents (-1 for roots), rest
   * (RK_PLUGIN_TRS_FLOATS per joint, in *space; NULL space = canonical) and flags.
   * CAPACITY when capacity < joint_count. */
  int (*asset_joints)(const rk_plugin_asset *asset, const rk_plugin_space *space, uint32_t capacity,
                      const char **names, int32_t *parents, float *rest, uint32_t *flags, char *err,
                      size_t err_size);

  /** Builds a retarget session (maps both rigs onto rigkit's humanoid profile, applies the
   * profile, prepares the retargeter) into *out; nothing is computed per frame yet. Fails with
   * ARGUMENT (bad desc), IO/PARSE/INVALID/NOT_FOUND (profile), INVALID/LIMIT (target skeleton:
   * duplicate or empty names, parent cycles, non-finite rest; target meshes: a missing or
   * non-finite position, an index or joint out of range, naming the mesh) or MAPPING (a rig is
   * not a humanoid and the profile does not map it). The host closes it with session_close. */
  int (*session_new)(const rk_plugin_session_desc *desc, rk_plugin_session **out, char *err,
                     size_t err_size);
  /** Releases a session; NULL is a no-op, an unknown handle gives RK_PLUGIN_ERR_ARGUMENT. */
  int (*session_close)(rk_plugin_session *session);
  /** Retargets the clip: pose transfer, contacts, IK, baking, optional key reduction. May run
   * again (e.g. after a failure); the results of the previous run are replaced. */
  int (*session_run)(rk_plugin_session *session, char *err, size_t err_size);
  /** Fills *out with the figures of the last run. STATE before a successful run. */
  int (*session_result)(const rk_plugin_session *session, rk_plugin_result *out, char *err,
                        size_t err_size);
  /** Lists the target's joints as session_keys orders them (the host's order for a host
   * skeleton), like asset_joints, rest poses in the session's space. Works before a run. */
  int (*session_joints)(const rk_plugin_session *session, uint32_t capacity, const char **names,
                        int32_t *parents, float *rest, uint32_t *flags, char *err, size_t err_size);
  /** Reads the baked pose of every target joint at frames [first_frame, first_frame +
   * frame_count) into frame-major arrays: translations[(f * joints + j) * 3],
   * rotations[(f * joints + j) * 4] (x, y, z, w, sign-continuous from frame to frame),
   * scales[(f * joints + j) * 3]; each may be NULL. The caller sizes them for frame_count *
   * joint_count. keys is rk_plugin_keys. ARGUMENT when the range passes the last frame. */
  int (*session_keys)(const rk_plugin_session *session, int32_t keys, uint32_t first_frame,
                      uint32_t frame_count, float *translations, float *rotations, float *scales,
                      char *err, size_t err_size);
  /** Reads the keys kept for one joint and channel after reduction (every frame without it):
   * frames[k] (output frame numbers, increasing) and values[k * 3 or 4], for *count keys (at
   * least 1: a joint the retarget does not move gets one key at frame 0 holding its rest).
   * Interpolate linearly between keys (rotations: component-wise then normalised, or slerp).
   * When capacity is too small, *count receives the needed count and CAPACITY is returned. */
  int (*session_track)(const rk_plugin_session *session, uint32_t joint, int32_t channel,
                       int32_t keys, uint32_t capacity, float *frames, float *values,
                       uint32_t *count, char *err, size_t err_size);
  /** Contact `index` (< contact_count): *joint (target joint, host order) and its planted
   * intervals as pairs intervals[2k] = first frame, intervals[2k + 1] = last frame (inclusive),
   * *count pairs. CAPACITY (with *count = needed pairs) when capacity pairs are too few. */
  int (*session_contact)(const rk_plugin_session *session, uint32_t index, int32_t *joint,
                         uint32_t capacity, int32_t *intervals, uint32_t *count, char *err,
                         size_t err_size);
  /** Writes a human-readable table of both rigs' humanoid maps (bone, source joint, target
   * joint, how each was found) into text (NUL-terminated, truncated to text_size); *needed
   * (optional) receives the full length + 1. Works before a run. */
  int (*session_map_text)(const rk_plugin_session *session, char *text, size_t text_size,
                          size_t *needed, char *err, size_t err_size);
  /** Writes the target (its meshes and skin when it came from an asset or with target_meshes)
   * with the retargeted clip (reduced when a tolerance was set) to path, format from the
   * extension (.glb, .gltf, .bvh): for hosts without their own exporter. A target read from a
   * glTF/GLB file that is still there, written as .glb/.gltf, goes out as its own document with
   * the clip as its animation (textures, extensions and extras kept; INVALID when the file
   * changed since it was opened). Leaves no partial file on failure. */
  int (*session_export)(const rk_plugin_session *session, const char *path, char *err,
                        size_t err_size);

  /* ---- ABI 2 ---- */
  /** Builds a source asset from the host's own skeleton and keys (one clip, named clip->name, at
   * clip->fps), e.g. an armature's animation, for session_new's desc.source. The arrays are read
   * during the call only; the host closes the asset with asset_close. Fails with ARGUMENT (clip,
   * out or skeleton NULL, keys or space out of range, fps not finite and positive, frame_count
   * 0 or above 2^24), the target-skeleton checks (INVALID, LIMIT) on clip->skeleton, or INVALID
   * naming the joint and frame of a non-finite value, a zero rotation or a zero scale. */
  int (*asset_from_host)(const rk_plugin_host_clip *clip, rk_plugin_asset **out, char *err,
                         size_t err_size);
} rk_plugin_api;

/** Type of the entry point, for dlsym. */
typedef const rk_plugin_api *(*rk_plugin_get_api_fn)(uint32_t abi_version);

#if defined(RK_PLUGIN_BUILDING) && defined(__GNUC__)
#define RK_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define RK_PLUGIN_EXPORT
#endif

/** The entry point. Returns the function table of abi_version when the plugin serves it (2, the
 * RK_PLUGIN_ABI_VERSION of its build, and 1, see the version policy); for RK_PLUGIN_ABI_QUERY, a
 * table holding only the frozen rk_plugin_info (function pointers NULL) whose message says why
 * this thread's last request was refused; for any other version, NULL (the host then queries for
 * the message). Never fails otherwise; thread-safe. */
RK_PLUGIN_EXPORT const rk_plugin_api *rk_plugin_get_api(uint32_t abi_version);

#ifdef __cplusplus
}
#endif

#endif
