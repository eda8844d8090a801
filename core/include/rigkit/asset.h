/* rigkit/asset.h: what importers produce and exporters consume: a skeleton, its clips, meshes
 * with skin weights and materials (with their base-colour texture), and a record of where it came
 * from and what was converted.
 *
 * Everything inside is in rigkit's canonical space: metres, Y-up, right-handed, seconds.
 * An asset owns its clips and meshes and holds one reference to its skeleton.
 *
 * Index: rk_texture, rk_material, rk_mesh_data, rk_mesh, rk_asset, rk_joint_mechanics,
 *        rk_mesh_new, rk_mesh_free, rk_mesh_data_get, rk_asset_new, rk_asset_free,
 *        rk_asset_skeleton, rk_asset_add_clip, rk_asset_take_clip, rk_asset_clip_count,
 *        rk_asset_clip, rk_asset_find_clip, rk_asset_remove_clips, rk_asset_add_mesh,
 *        rk_asset_mesh_count, rk_asset_mesh, rk_asset_set_source, rk_asset_source_format,
 *        rk_asset_source_path, rk_asset_set_source_digest, rk_asset_source_digest,
 *        rk_asset_set_source_tree, rk_asset_take_source_tree,
 *        rk_asset_set_unit, rk_asset_unit_name, rk_asset_unit_scale,
 *        rk_asset_set_up_axis, rk_asset_up_axis, rk_asset_set_joint_mechanics,
 *        rk_asset_joint_mechanics, rk_asset_set_joint_source_node, rk_asset_joint_source_node,
 *        rk_asset_add_note, rk_asset_add_repair, rk_asset_note_is_repair, rk_asset_note_count,
 *        rk_asset_note
 */
#ifndef RIGKIT_ASSET_H
#define RIGKIT_ASSET_H

#include <stdint.h>
#include <glib.h>
#include <rigkit/clip.h>
#include <rigkit/joint.h>
#include <rigkit/skeleton.h>

G_BEGIN_DECLS

/** Most vertices or indices of one mesh (see README "Limits"). */
#define RK_MESH_MAX_VERTICES (1u << 26)

/** A texture image: the image file's bytes with their MIME type (embedded in the source, or read
 * from the file at import), and the file it came from when there was one. */
typedef struct rk_texture {
  const uint8_t *data;   /* the image file's bytes (PNG, JPEG, ...), or NULL when only the path is
                            known (the file could not be read at import) */
  size_t size;
  const char *mime_type; /* "image/png", "image/jpeg", ... from the bytes or the source; NULL =
                            unknown */
  const char *path;      /* the file the image was read from, as resolved at import; NULL =
                            embedded in the source */
  unsigned uv_set;       /* the texture coordinate set it is mapped with (meshes hold set 0) */
} rk_texture;

/** A simple PBR material (what glTF and FBX both carry), with its base-colour texture. */
typedef struct rk_material {
  const char *name;      /* NULL = unnamed */
  float base_color[4];   /* linear RGBA; multiplies the texture's colour */
  float metallic;
  float roughness;
  bool double_sided;
  const rk_texture *base_color_texture; /* NULL = none */
} rk_material;

/** Mesh arrays, in the skeleton's model space at bind time (metres). Borrowed by rk_mesh_new,
 * which copies them; returned (borrowed) by rk_mesh_data. */
typedef struct rk_mesh_data {
  const char *name;
  size_t vertex_count;
  const float *positions; /* 3 per vertex, required */
  const float *normals;   /* 3 per vertex, or NULL */
  const float *texcoords; /* 2 per vertex, or NULL */
  size_t index_count;     /* multiple of 3 */
  const uint32_t *indices; /* triangle list, or NULL for a non-indexed list */
  const uint16_t *joints;  /* 4 skeleton joint indices per vertex, or NULL (not skinned) */
  const float *weights;    /* 4 weights per vertex, with joints */
  int attach_joint;        /* unskinned meshes: joint the mesh rigidly follows, or -1 (static) */
  rk_material material;
} rk_mesh_data;

typedef struct rk_mesh rk_mesh;
typedef struct rk_asset rk_asset;

/** A joint's mechanics as the file declares them (robot formats such as DH tables); animation
 * formats leave them to the kinematic tree to infer (rigkit/tree.h). */
typedef struct rk_joint_mechanics {
  rk_joint_type motion; /* RK_JOINT_FIXED, RK_JOINT_REVOLUTE or RK_JOINT_PRISMATIC */
  rk_vec3 axis;      /* unit axis in the joint's own (local, rest) frame */
  bool has_limits;
  double lower, upper; /* radians (revolute) or metres (prismatic), around the rest pose */
} rk_joint_mechanics;

/** Copies and checks mesh data for a skeleton of joint_count joints (the material's texture with
 * its bytes too): weights are renormalised to sum 1 (a vertex with no weight goes to its first
 * joint). Fails with RK_ERROR_INVALID (missing positions, non-finite values, index or joint out of
 * range, index count not a multiple of 3, a texture with neither bytes nor path) or
 * RK_ERROR_LIMIT. The caller frees the mesh with rk_mesh_free. */
RK_API rk_mesh *rk_mesh_new(const rk_mesh_data *data, size_t joint_count, GError **error);
/** Frees a mesh; NULL is a no-op. */
RK_API void rk_mesh_free(rk_mesh *mesh);
/** Borrowed view of the mesh's arrays (valid while the mesh lives). */
RK_API const rk_mesh_data *rk_mesh_data_get(const rk_mesh *mesh);

/** Creates an asset around a skeleton (adds a reference to it); the caller frees the asset with
 * rk_asset_free. Never fails. */
RK_API rk_asset *rk_asset_new(rk_skeleton *skeleton);
/** Frees an asset with its clips and meshes; NULL is a no-op. */
RK_API void rk_asset_free(rk_asset *asset);
/** Borrowed skeleton. */
RK_API rk_skeleton *rk_asset_skeleton(const rk_asset *asset);
/** Adds a clip; the asset takes ownership. Returns false (and frees nothing) when the clip's joint
 * count differs from the skeleton's. */
RK_API bool rk_asset_add_clip(rk_asset *asset, rk_clip *clip);
/** Removes clip i from the asset and returns it; the caller owns it. NULL when out of range. */
RK_API rk_clip *rk_asset_take_clip(rk_asset *asset, size_t i);
/** Number of clips. */
RK_API size_t rk_asset_clip_count(const rk_asset *asset);
/** Borrowed clip i, or NULL when out of range. */
RK_API const rk_clip *rk_asset_clip(const rk_asset *asset, size_t i);
/** Index of the clip with this name, or of the clip whose decimal index this is; -1 otherwise. */
RK_API int rk_asset_find_clip(const rk_asset *asset, const char *name_or_index);
/** Frees and removes every clip. */
RK_API void rk_asset_remove_clips(rk_asset *asset);
/** Adds a mesh; the asset takes ownership. */
RK_API void rk_asset_add_mesh(rk_asset *asset, rk_mesh *mesh);
/** Number of meshes. */
RK_API size_t rk_asset_mesh_count(const rk_asset *asset);
/** Borrowed mesh i, or NULL when out of range. */
RK_API const rk_mesh *rk_asset_mesh(const rk_asset *asset, size_t i);

/** Records the source format ("bvh", "gltf", "glb", "fbx", "dh", ...) and path (both copied). */
RK_API void rk_asset_set_source(rk_asset *asset, const char *format, const char *path);
/** Borrowed source format, "" until one is recorded. */
RK_API const char *rk_asset_source_format(const rk_asset *asset);
/** Borrowed source path, "" until one is recorded. */
RK_API const char *rk_asset_source_path(const rk_asset *asset);
/** Records a digest of the source file's bytes (copied): the importers give glTF and GLB sources
 * the SHA-256 of the file as 64 lower-case hex digits, so a writer that edits the source file can
 * tell whether the file still holds what was imported. NULL clears it. */
RK_API void rk_asset_set_source_digest(rk_asset *asset, const char *digest);
/** The recorded digest of the source file (borrowed), or NULL when none was recorded (sources
 * other than glTF/GLB, assets built in code). */
RK_API const char *rk_asset_source_digest(const rk_asset *asset);
/** Gives the asset a reader's parse of the source document as imported (the glTF importers: its
 * JSON tree, a JsonNode, when no repair changed it), owned and freed with free_tree, so that a
 * writer editing that document need not parse it again; replaces (frees) any held one. Never
 * fails. */
RK_API void rk_asset_set_source_tree(rk_asset *asset, gpointer tree, GDestroyNotify free_tree);
/** Takes the asset's source-document parse (the caller then owns it and frees it with *free_tree,
 * free_tree may be NULL only when the caller knows the type), or NULL when none is held: one taker
 * gets it, also across threads (the one thing a const asset gives up). Never fails. */
RK_API gpointer rk_asset_take_source_tree(const rk_asset *asset, GDestroyNotify *free_tree);
/** Records the source unit ("cm", "dm", "m", "in", ...) and metres per source unit applied. */
RK_API void rk_asset_set_unit(rk_asset *asset, const char *unit, double metres_per_unit);
/** Borrowed source unit name, "m" until one is recorded. */
RK_API const char *rk_asset_unit_name(const rk_asset *asset);
/** Metres per source unit applied at import, 1 until one is recorded. */
RK_API double rk_asset_unit_scale(const rk_asset *asset);
/** Records the source's up axis as written in the file ("Y", "Z", "-Z", ...). */
RK_API void rk_asset_set_up_axis(rk_asset *asset, const char *axis);
/** Borrowed source up axis, "Y" until one is recorded. */
RK_API const char *rk_asset_up_axis(const rk_asset *asset);
/** Records the declared mechanics of joint `joint` (copied); returns false for an index out of
 * range, a type other than fixed, revolute or prismatic, a zero axis or lower > upper. */
RK_API bool rk_asset_set_joint_mechanics(rk_asset *asset, size_t joint, const rk_joint_mechanics *m);
/** Copies joint `joint`'s declared mechanics into *out and returns true, or returns false when the
 * file declared none. */
RK_API bool rk_asset_joint_mechanics(const rk_asset *asset, size_t joint, rk_joint_mechanics *out);
/** Records that joint `joint` was read from node `node` of the source document (glTF: its index
 * in the document's "nodes" array; -1: none, the joint was made by rigkit). Returns false for a
 * joint out of range or a node below -1. */
RK_API bool rk_asset_set_joint_source_node(rk_asset *asset, size_t joint, int node);
/** The source document node joint `joint` was read from, or -1 when none was recorded (another
 * format, a joint rigkit added) or the joint is out of range. */
RK_API int rk_asset_joint_source_node(const rk_asset *asset, size_t joint);
/** Appends a printf-style note on a conversion or repair applied at import. */
RK_API void rk_asset_add_note(rk_asset *asset, const char *format, ...) G_GNUC_PRINTF(2, 3);
/** Appends a printf-style note on a repair made at import: something the file got wrong that the
 * importer fixed or dropped (a truncated frame line, a frame count the header disagrees with). It
 * is a note like the others (rk_asset_note) and rk_asset_note_is_repair tells it apart. */
RK_API void rk_asset_add_repair(rk_asset *asset, const char *format, ...) G_GNUC_PRINTF(2, 3);
/** Whether note i was added as a repair (rk_asset_add_repair); false out of range. */
RK_API bool rk_asset_note_is_repair(const rk_asset *asset, size_t i);
/** Number of notes. */
RK_API size_t rk_asset_note_count(const rk_asset *asset);
/** Borrowed note i (in the order added), or NULL when out of range. */
RK_API const char *rk_asset_note(const rk_asset *asset, size_t i);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(rk_asset, rk_asset_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(rk_mesh, rk_mesh_free)

G_END_DECLS

#endif
