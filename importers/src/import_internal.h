/* Internal interface of librigkit_importers (not installed).
 *
 * Every reader fills an editable "raw asset" in its own file's conventions, the shared code in
 * raw_asset.c converts it to canonical space (metres, Y-up, right-handed, seconds) and builds the
 * immutable rk_asset. Only assimp_scene.c includes Assimp headers; it hands over an rk__scene
 * (plain C, rigkit conventions: column-major matrices, quaternions x,y,z,w, seconds) that
 * scene_import.c turns into a raw asset.
 *
 * Index: rk__raw_joint, rk__raw_track, rk__raw_clip, rk__raw_mesh, rk__raw_asset and their
 *        functions; rk__scene and friends; rk__source; the per-format readers; small helpers.
 */
#ifndef RK_IMPORT_INTERNAL_H
#define RK_IMPORT_INTERNAL_H

#include <rigkit/importers.h>
#include <rigkit/rigkit.h>

#include <stdint.h>

G_BEGIN_DECLS

/** Largest file rigkit reads (bytes); see README "Limits". */
#define RK__IMPORT_MAX_FILE_SIZE ((gsize)1 << 30)
/** Longest BVH/DH text line or token rigkit accepts (bytes). */
#define RK__IMPORT_MAX_LINE ((gsize)1 << 20)

/* ---- raw (editable) asset --------------------------------------------------------------------- */

typedef struct rk__raw_joint {
  char *name;
  int parent;        /* raw index or -1 */
  rk_transform rest; /* local, relative to the parent */
  unsigned flags;    /* rk_joint_flags */
  bool has_ibm;
  rk_mat4 ibm; /* model space -> joint space at bind time */
  bool has_mechanics;
  rk_joint_mechanics mechanics; /* declared by the file (DH tables): axis in the local frame */
} rk__raw_joint;

typedef struct rk__raw_track {
  int joint; /* raw joint index */
  rk_channel channel;
  rk_interp interp;
  GArray *times;  /* double, seconds, strictly increasing */
  GArray *values; /* double; components per key (x3 for cubic: in-tangent, value, out-tangent) */
} rk__raw_track;

typedef struct rk__raw_clip {
  char *name;
  double fps;      /* 0 = unknown */
  double duration; /* seconds; < 0 = the last key */
  GPtrArray *tracks; /* rk__raw_track */
} rk__raw_clip;

typedef struct rk__raw_mesh {
  char *name;
  size_t vertex_count;
  float *positions; /* 3 per vertex, model space of the raw skeleton */
  float *normals;   /* or NULL */
  float *texcoords; /* or NULL */
  size_t index_count;
  uint32_t *indices;
  uint16_t *joints; /* 4 raw joint indices per vertex, or NULL */
  float *weights;   /* 4 per vertex, with joints */
  int attach_joint; /* raw joint or -1 */
  rk_material material; /* name owned */
} rk__raw_mesh;

typedef struct rk__raw_asset {
  GArray *joints;   /* rk__raw_joint */
  GPtrArray *clips; /* rk__raw_clip */
  GPtrArray *meshes; /* rk__raw_mesh */
  GPtrArray *notes; /* char * */
  char *unit;
  double unit_scale; /* metres per source unit applied */
  char *up_axis;
} rk__raw_asset;

rk__raw_asset *rk__raw_asset_new(void);
void rk__raw_asset_free(rk__raw_asset *raw);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(rk__raw_asset, rk__raw_asset_free)
size_t rk__raw_joint_count(const rk__raw_asset *raw);
rk__raw_joint *rk__raw_joint_at(const rk__raw_asset *raw, size_t i);
/** Appends a joint (name copied) and returns its raw index. */
int rk__raw_add_joint(rk__raw_asset *raw, const char *name, int parent, const rk_transform *rest,
                      unsigned flags);
rk__raw_clip *rk__raw_add_clip(rk__raw_asset *raw, const char *name);
/** Adds an empty track to a clip; keys are appended with rk__raw_track_push. */
rk__raw_track *rk__raw_clip_add_track(rk__raw_clip *clip, int joint, rk_channel channel,
                                      rk_interp interp);
/** Appends one key (values: components, or 3 * components for cubic tracks). */
void rk__raw_track_push(rk__raw_track *t, double time, const double *values);
/** Number of doubles per key of a track. */
int rk__raw_track_stride(const rk__raw_track *t);
rk__raw_mesh *rk__raw_add_mesh(rk__raw_asset *raw);
void rk__raw_note(rk__raw_asset *raw, const char *format, ...) G_GNUC_PRINTF(2, 3);
void rk__raw_set_unit(rk__raw_asset *raw, const char *unit, double metres_per_unit);
void rk__raw_set_up_axis(rk__raw_asset *raw, const char *axis);

/** Model-space rest matrices of the raw joints (parents may come after children in raw order).
 * Returns a new array (g_free) or NULL when the parent links have a cycle. */
rk_mat4 *rk__raw_rest_models(const rk__raw_asset *raw);

/** Multiplies every length by s (> 0): rest and animated translations, inverse bind matrices
 * (S IBM S^-1) and mesh positions. */
void rk__raw_scale_lengths(rk__raw_asset *raw, double s);
/** Premultiplies every root joint (rest and animation) by m, a transform with uniform scale:
 * model space becomes m * model space. Inverse binds become IBM * m^-1, meshes are moved by m. */
void rk__raw_premultiply_roots(rk__raw_asset *raw, const rk_transform *m);
/** Re-expresses everything in a new basis: x' = A x for a signed permutation matrix A (an axis
 * swap, possibly a mirror). Every local transform L becomes A L A^T; meshes are moved by A and
 * their winding is flipped when det A < 0. */
void rk__raw_change_basis(rk__raw_asset *raw, const rk_mat3 *a);
/** Moves a uniform rest scale of each root joint (e.g. a DCC's 100x armature scale folded into the
 * root) into the translations below it, so every joint has unit scale; records a note. */
void rk__raw_normalize_root_scale(rk__raw_asset *raw);
/** Makes joint names unique by appending ".001", ".002", ... to later duplicates and records a
 * note for each renamed joint. */
void rk__raw_uniquify_names(rk__raw_asset *raw);
/** Builds the immutable asset (skeleton in preorder, clips, meshes, provenance). Fails with the
 * skeleton's, clip's or mesh's GError. */
rk_asset *rk__raw_asset_finish(rk__raw_asset *raw, const char *format, const char *path,
                               GError **error);

/** Signed permutation basis change taking a file's up axis to +Y, right-handed. up: 0..2 with
 * sign +-1; front: the file's forward axis (different from up) and sign. */
rk_mat3 rk__basis_from_axes(int up, int up_sign, int front, int front_sign, int coord,
                            int coord_sign);
/** The proper rotation taking the file axis (axis 0..2, sign +-1) onto +Y by the smallest turn
 * (identity for +Y; Z-up -> Y-up is (x, y, z) -> (x, z, -y)). */
rk_mat3 rk__basis_for_up(int axis, int sign);
/** Static text naming an axis ("X", "-Z", ...). */
const char *rk__axis_name(int axis, int sign);

/* ---- Assimp scene (plain C, rigkit conventions) ----------------------------------------------- */

typedef struct rk__scene_node {
  char *name;
  int parent;        /* index into nodes (preorder: parent < index), -1 for the root */
  rk_mat4 local;     /* relative to the parent, column-major */
  unsigned *meshes;  /* mesh indices attached to this node */
  unsigned mesh_count;
  bool is_camera;
  bool is_light;
  bool fbx_skeleton; /* FBX: a LimbNode, Limb or Root Model with children (rk__fbx_fold_helpers) */
} rk__scene_node;

typedef struct rk__scene_bone {
  char *name;     /* node name */
  rk_mat4 offset; /* mesh space -> bone space at bind time */
  unsigned weight_count;
  uint32_t *vertex;
  float *weight;
} rk__scene_bone;

typedef struct rk__scene_mesh {
  char *name;
  unsigned vertex_count;
  float *positions; /* 3 per vertex */
  float *normals;   /* or NULL */
  float *texcoords; /* 2 per vertex, or NULL */
  unsigned index_count; /* triangles only */
  uint32_t *indices;
  unsigned bone_count;
  rk__scene_bone *bones;
  unsigned material;
} rk__scene_mesh;

typedef struct rk__scene_material {
  char *name;
  float base_color[4];
  float metallic;
  float roughness;
  bool double_sided;
} rk__scene_material;

/** One animation channel of a node: keys already in seconds and rigkit conventions. */
typedef struct rk__scene_channel {
  char *node_name;
  unsigned n_pos, n_rot, n_scale;
  double *pos_times, *pos_values;     /* 3 per key */
  double *rot_times, *rot_values;     /* 4 per key: x, y, z, w */
  double *scale_times, *scale_values; /* 3 per key */
} rk__scene_channel;

typedef struct rk__scene_anim {
  char *name;
  double duration;          /* seconds */
  double ticks_per_second;  /* as Assimp reported it (0 = unspecified) */
  double tick_seconds;      /* seconds per tick actually used */
  unsigned channel_count;
  rk__scene_channel *channels;
} rk__scene_anim;

typedef struct rk__scene {
  unsigned node_count;
  rk__scene_node *nodes; /* preorder, nodes[0] is the root */
  unsigned mesh_count;
  rk__scene_mesh *meshes;
  unsigned material_count;
  rk__scene_material *materials;
  unsigned anim_count;
  rk__scene_anim *anims;
  /* FBX global settings when present (else has_axes = false). */
  bool has_axes;
  int up_axis, up_sign, front_axis, front_sign, coord_axis, coord_sign;
  double unit_scale_factor; /* FBX UnitScaleFactor (cm per file unit), 0 = absent */
  double frame_rate;        /* FBX CustomFrameRate or the time mode's rate, 0 = absent */
  bool global_scale_applied; /* aiProcess_GlobalScale ran */
} rk__scene;

/** The bytes of the file being imported and where it lives, for readers that open companion
 * files (glTF buffers): dir is NULL for in-memory imports. */
typedef struct rk__source {
  const char *name; /* path or caller-supplied name, for messages */
  const char *dir;  /* directory of the file, or NULL */
  const uint8_t *data;
  size_t size;
} rk__source;

/** Reads glTF/GLB ("gltf", "glb") or FBX ("fbx") bytes through Assimp into *scene (cleared first,
 * freed with rk__scene_clear). Fails with RK_ERROR_PARSE carrying Assimp's message. */
bool rk__assimp_read(const rk__source *src, const char *format, rk__scene *scene, GError **error);
/** Frees a channel's arrays and zeroes it. */
void rk__scene_channel_clear(rk__scene_channel *ch);
void rk__scene_clear(rk__scene *scene);

/* ---- per-format readers (each fills a raw asset in canonical space) --------------------------- */

/** Per-channel interpolation recovered from the glTF JSON (Assimp 5.2.5 loses it). */
typedef struct rk__gltf_interp {
  unsigned anim;
  char *node_name; /* unique name as given to Assimp */
  rk_channel channel;
  rk_interp interp;
  /* CUBICSPLINE: the full keys (in-tangent, value, out-tangent) read from the buffers. */
  size_t key_count;
  double *times;
  double *values;
} rk__gltf_interp;

typedef struct rk__gltf_info {
  GPtrArray *interps; /* rk__gltf_interp */
  GPtrArray *notes;   /* char *: renames and other repairs */
  uint8_t *rewritten; /* new file bytes when node names had to be made unique, else NULL */
  size_t rewritten_size;
} rk__gltf_info;

/** Checks the glTF JSON / GLB container, makes node names unique (rewriting the bytes when
 * needed) and collects each animation channel's interpolation. Fails with RK_ERROR_PARSE on a
 * malformed container or JSON, RK_ERROR_LIMIT on absurd sizes. */
bool rk__gltf_prepare(const rk__source *src, bool glb, rk__gltf_info *info, GError **error);
void rk__gltf_info_clear(rk__gltf_info *info);

/** Turns an Assimp scene into a raw asset in canonical space. interps may be NULL. */
rk__raw_asset *rk__scene_to_raw(const rk__scene *scene, const char *format,
                                const rk__gltf_info *gltf, const rk_import_options *opts,
                                GError **error);
/* rigkit's own reading of an FBX file (fbx_internal.h). */
typedef struct rk__fbx_doc rk__fbx_doc;
void rk__fbx_doc_free(rk__fbx_doc *doc);

/** Removes every `<name>_$AssimpFbx$_<kind>` helper node: the joint <name>'s rest and animation
 * are evaluated from the FBX file itself (doc, from rk__fbx_precheck) with FBX's transform chain,
 * or composed from the helper chain when there is no doc (doc_error says why, in a note); and
 * marks the nodes whose FBX Model is a skeleton node (fbx_skeleton). See fbx_helpers.c. Modifies
 * the scene in place and returns the number of helper nodes removed; adds notes. */
unsigned rk__fbx_fold_helpers(rk__scene *scene, const rk__fbx_doc *doc, const GError *doc_error,
                              GPtrArray *notes);

/** Checks an FBX file (name is for messages) for what makes Assimp 5.2.5 abort, crash or leak,
 * before Assimp reads it: compressed arrays that do not inflate to their size (Assimp skips them
 * and leaks) and skin clusters weighting vertices their geometry does not have (an ai_assert:
 * abort()). Fails with RK_ERROR_PARSE naming the record or object, and with the record reader's
 * error when rigkit cannot read the file's records at all (Assimp then never sees it). On success
 * *doc is rigkit's reading of the file for rk__fbx_fold_helpers (the caller frees it with
 * rk__fbx_doc_free), or NULL with *doc_error set when the file is not an FBX 7 document (no
 * Objects/Connections; the object checks are skipped then). See fbx_document.c. */
bool rk__fbx_precheck(const uint8_t *data, size_t size, const char *name, rk__fbx_doc **doc,
                      GError **doc_error, GError **error);

rk__raw_asset *rk__bvh_read(const rk__source *src, const rk_import_options *opts, GError **error);
rk__raw_asset *rk__dh_read(const rk__source *src, const rk_import_options *opts, GError **error);

/* ---- helpers shared by the readers ------------------------------------------------------------ */

/** Unit names the importers know, with metres per unit: "m", "dm", "cm", "mm", "in", "ft",
 * "cmu" (CMU motion capture units, 1/0.45 inch). Returns false for an unknown name. */
bool rk__unit_from_name(const char *name, double *metres_per_unit);
/** Name of a known unit scale ("cm" for 0.01, ...) or NULL. */
const char *rk__unit_name(double metres_per_unit);
/** Picks the unit that makes a human-sized skeleton (height in file units) 1.4-2.1 m tall;
 * *fits is false when no unit gives a human height (the nearest is returned). */
const char *rk__unit_guess_from_height(double height, double *metres_per_unit, bool *fits);
/** Key spacing -> frame rate: the first common rate (24, 25, 30, ...) on which every time lies,
 * else 1 / smallest spacing. times need not be sorted; returns 0 for fewer than 2 distinct times. */
double rk__fps_from_times(const double *times, size_t n, bool *regular);

G_END_DECLS

#endif
