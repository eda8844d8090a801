/* The scene Assimp read, as plain C in rigkit conventions (internal; scene.c frees it):
 * column-major matrices, quaternions x, y, z, w, key times in seconds. assimp_scene.c fills it,
 * fbx_helpers.c repairs FBX helper chains in it, scene_import.c turns it into a raw asset (with
 * scene_clips.c and scene_meshes.c). */
#ifndef RK_SCENE_H
#define RK_SCENE_H

#include <rigkit/rigkit.h>

#include <stdint.h>

G_BEGIN_DECLS

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
  /* The base-colour texture (when texture_path): Assimp's path for it, and the image's bytes
   * when the file embeds them; scene_textures.c reads the others and finds the MIME type. */
  char *texture_path;    /* a file name relative to the source file, or "*<n>" (embedded) */
  unsigned texture_uv;   /* its UV set */
  uint8_t *texture_data; /* the image file's bytes, or NULL */
  size_t texture_size;
  char *texture_hint;    /* Assimp's format hint of embedded bytes ("png", "jpg"), or NULL */
  char *texture_file;    /* the file the image was read from (scene_textures.c), or NULL */
  char *texture_mime;    /* MIME type (scene_textures.c), or NULL */
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

/** True when node n holds a mesh, a camera or a light. */
bool rk__scene_node_has_payload(const rk__scene_node *n);
/** The node a channel or bone name binds to, or -1. Names are unique for glTF (the pre-pass
 * renames duplicates); elsewhere a shared name binds to the candidate that holds no mesh, camera
 * or light, the first in preorder otherwise. *ambiguous (may be NULL) tells whether there was a
 * choice. */
int rk__scene_bind_name(const rk__scene *s, const char *name, bool *ambiguous);
/** World transform of node i (the product of its ancestors' local transforms and its own). */
rk_mat4 rk__scene_node_world(const rk__scene *s, int i);

/** Frees a channel's arrays and zeroes it. */
void rk__scene_channel_clear(rk__scene_channel *ch);
/** Frees everything a scene holds and zeroes it. */
void rk__scene_clear(rk__scene *scene);

G_END_DECLS

#endif
