/* The raw asset (internal; raw_asset.c): the editable asset every reader fills in its file's own
 * conventions, the conversions that take it to canonical space (metres, Y-up, right-handed,
 * seconds), and the build of the immutable rk_asset. */
#ifndef RK_RAW_ASSET_H
#define RK_RAW_ASSET_H

#include <rigkit/rigkit.h>

#include <json-glib/json-glib.h>

#include <stdint.h>

G_BEGIN_DECLS

typedef struct rk__raw_joint {
  char *name;
  int parent;        /* raw index or -1 */
  rk_transform rest; /* local, relative to the parent */
  unsigned flags;    /* rk_skeleton_flags */
  bool has_ibm;
  rk_mat4 ibm; /* model space -> joint space at bind time */
  bool has_mechanics;
  rk_joint_mechanics mechanics; /* declared by the file (DH tables): axis in the local frame */
  int source_node; /* index of the document node it was read from (glTF), -1 for none */
} rk__raw_joint;

typedef struct rk__raw_track {
  int joint; /* raw joint index */
  rk_channel channel;
  rk_interp interp;
  size_t keys;     /* keys in times and values */
  size_t capacity; /* keys they have room for (exact once reserved: no slack to hold) */
  double *times;   /* seconds, strictly increasing */
  double *values;  /* components per key (x3 for cubic: in-tangent, value, out-tangent) */
  bool computed;   /* keys the reader computed itself (not copied from the file): times finite,
                      >= 0 and increasing, values finite, no zero rotation; the clip skips their
                      checks (rk_clip_take_tracks_trusted) */
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
  rk_material material; /* name owned; base_color_texture set by rk__raw_asset_finish */
  bool has_texture;
  rk_texture texture; /* the base-colour texture (data, mime_type and path owned) */
} rk__raw_mesh;

typedef struct rk__raw_asset {
  GArray *joints;   /* rk__raw_joint */
  GPtrArray *clips; /* rk__raw_clip */
  GPtrArray *meshes; /* rk__raw_mesh */
  GPtrArray *notes; /* char * */
  GArray *repairs;  /* guint: indices in notes of the repairs (rk__raw_repair) */
  char *unit;
  double unit_scale; /* metres per source unit applied */
  char *up_axis;
  char *digest; /* SHA-256 of the source file's bytes (hex), or NULL when not recorded */
  JsonNode *source_tree; /* the source's JSON tree as in the file (glTF), or NULL; the asset takes it */
} rk__raw_asset;

rk__raw_asset *rk__raw_asset_new(void);
void rk__raw_asset_free(rk__raw_asset *raw);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(rk__raw_asset, rk__raw_asset_free)
size_t rk__raw_joint_count(const rk__raw_asset *raw);
rk__raw_joint *rk__raw_joint_at(const rk__raw_asset *raw, size_t i);
/** Appends a joint (name copied, no source node) and returns its raw index. */
int rk__raw_add_joint(rk__raw_asset *raw, const char *name, int parent, const rk_transform *rest,
                      unsigned flags);
rk__raw_clip *rk__raw_add_clip(rk__raw_asset *raw, const char *name);
/** Adds an empty track to a clip; keys are appended with rk__raw_track_push. */
rk__raw_track *rk__raw_clip_add_track(rk__raw_clip *clip, int joint, rk_channel channel,
                                      rk_interp interp);
/** Appends one key (values: components, or 3 * components for cubic tracks). */
void rk__raw_track_push(rk__raw_track *t, double time, const double *values);
/** Makes room for `keys` keys in all (a reader that knows its key count reserves it first: the
 * arrays are then exactly that size). */
void rk__raw_track_reserve(rk__raw_track *t, size_t keys);
/** Number of doubles per key of a track. */
int rk__raw_track_stride(const rk__raw_track *t);
rk__raw_mesh *rk__raw_add_mesh(rk__raw_asset *raw);
void rk__raw_note(rk__raw_asset *raw, const char *format, ...) G_GNUC_PRINTF(2, 3);
/* A note on a repair of what the file got wrong (rk_asset_add_repair on the asset). */
void rk__raw_repair(rk__raw_asset *raw, const char *format, ...) G_GNUC_PRINTF(2, 3);
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
/** The first of "<name>.001", "<name>.002", ... that is not a key of taken (a set of strings): a
 * new string (g_free). */
char *rk__raw_fresh_name(const char *name, GHashTable *taken);
/** Makes joint names unique by appending ".001", ".002", ... to later duplicates and records a
 * note for each renamed joint. */
void rk__raw_uniquify_names(rk__raw_asset *raw);
/** Builds the immutable asset (skeleton in preorder, clips, meshes, provenance); the clips take
 * the raw tracks' key arrays (the raw asset is only freed after this). Fails with the skeleton's,
 * clip's or mesh's GError. */
rk_asset *rk__raw_asset_finish(rk__raw_asset *raw, const char *format, const char *path,
                               GError **error);

G_END_DECLS

#endif
