/* The FBX writer's scene (fbx_scene.c): everything the FBX files (fbx_writer.c, fbx_sections.c,
 * fbx_skeleton.c, fbx_mesh.c, fbx_anim.c) share while one file is written. Joints, meshes with
 * their skin clusters and clips baked into curves are prepared first, then object ids are given
 * out in one fixed order (so the same asset gives the same bytes), then the records are written
 * and the connections between objects collected for the Connections section.
 *
 * Index: RK__FBX_VERSION, rk__fbx_conn, rk__fbx_mesh, rk__fbx_chan, rk__fbx_clip, rk__fbx_ctx,
 *        rk__fbx_scene_init, rk__fbx_mesh_clear, rk__fbx_scene_clear, rk__fbx_assign_ids,
 *        rk__fbx_connect
 */
#ifndef RK_FBX_SCENE_H
#define RK_FBX_SCENE_H

#include "fbx_encode.h"

#include <rigkit/exporters.h>

/** The FBX version written: 7.4, 32-bit record offsets. */
#define RK__FBX_VERSION 7400u

/** A connection: OO (object to object) or OP (object to a property of an object). */
typedef struct rk__fbx_conn {
  int64_t src, dst;
  const char *prop; /* static string for OP connections, NULL for OO */
} rk__fbx_conn;

/** A mesh as written: Model, Geometry, Material and, when skinned, a Skin with its clusters. */
typedef struct rk__fbx_mesh {
  const rk_mesh_data *d;
  char *model_name;
  int parent_joint; /* -1: scene root */
  size_t nv, ntri;
  double *vertices, *normals, *uv; /* file units; normals and uv may be NULL */
  int32_t *poly;
  GArray *cl_joint;  /* int: joints with weights, ascending */
  GPtrArray *cl_idx; /* GArray int32 per cluster */
  GPtrArray *cl_w;   /* GArray double per cluster */
  bool textured;     /* its base-colour texture is written (fbx_texture.c) */
  int64_t model_id, geom_id, mat_id, skin_id, cl_first_id;
  int64_t tex_id, video_id; /* when textured */
} rk__fbx_mesh;

/** One animated channel of a joint: an AnimationCurveNode with three curves. */
typedef struct rk__fbx_chan {
  int joint;
  rk_channel ch;
  bool step;
  float *v; /* 3 per frame */
  int64_t node_id, curve_id[3];
} rk__fbx_chan;

/** A clip as written: an AnimationStack with one layer, baked at fps into `frames` keys. */
typedef struct rk__fbx_clip {
  const rk_clip *clip;
  double fps;
  size_t frames;
  int64_t *ticks;
  int64_t stop;
  GArray *chans; /* rk__fbx_chan */
  int64_t stack_id, layer_id;
} rk__fbx_clip;

/** One FBX file being written. */
typedef struct rk__fbx_ctx {
  const rk_asset *asset;
  const rk_skeleton *s;
  const rk_export_options *opts;
  const char *path;
  GError **error;
  rk__fbx_enc *e;
  size_t n;
  double k;                     /* file units per metre (rk__export_units_per_metre) */
  double usf;                   /* UnitScaleFactor: centimetres per file unit */
  const rk_euler_order *orders; /* per joint, rigkit convention */
  int64_t next_id;
  int64_t *model_id, *attr_id;
  char **names; /* Model names of the joints */
  GHashTable *used;
  GArray *conns;
  rk_mat4 *rest_world, *bind_world;
  GArray *meshes; /* rk__fbx_mesh */
  GArray *clips;  /* rk__fbx_clip */
  int64_t pose_id, doc_id;
} rk__fbx_ctx;

/** Sets c up for writing asset to path: units, joint names, rest world matrices, room for the
 * bind matrices (rk__fbx_bind_pose fills them) and one rk__fbx_clip with its rate per clip of
 * `clips` (borrowed). orders (one per joint) is borrowed too. Free with rk__fbx_scene_clear. */
void rk__fbx_scene_init(rk__fbx_ctx *c, const rk_asset *asset, const char *path,
                        const rk_export_options *opts, const rk_euler_order *orders,
                        const GPtrArray *clips, GError **error);
/** Frees what m holds (not m). */
void rk__fbx_mesh_clear(rk__fbx_mesh *m);
/** Frees what c holds (the encoder too, when still open). */
void rk__fbx_scene_clear(rk__fbx_ctx *c);
/** Gives every object its id, counted from a constant in a fixed order: document, joints (Model,
 * NodeAttribute), meshes (Model, Geometry, Material, Skin, clusters), bind pose, clips (stack,
 * layer, per channel a curve node and three curves), textures (Texture, Video). */
void rk__fbx_assign_ids(rk__fbx_ctx *c);
/** Records a connection src -> dst (on property prop, a static string, or NULL). */
void rk__fbx_connect(rk__fbx_ctx *c, int64_t src, int64_t dst, const char *prop);

#endif
