/* The FBX writer's scene: setting up and freeing what one file's writing shares, object ids and
 * connections (see fbx_scene.h). */
#include "fbx_scene.h"

#include "export_shared.h"

#include <rigkit/fk.h>

/* Object ids start here (0 is the scene root): fixed, so the same asset gives the same bytes. */
#define FIRST_ID 1000000LL

static int64_t new_id(rk__fbx_ctx *c) { return c->next_id++; }

void rk__fbx_connect(rk__fbx_ctx *c, int64_t src, int64_t dst, const char *prop) {
  rk__fbx_conn x = {src, dst, prop};
  g_array_append_val(c->conns, x);
}

void rk__fbx_mesh_clear(rk__fbx_mesh *m) {
  g_free(m->model_name);
  g_free(m->vertices);
  g_free(m->normals);
  g_free(m->uv);
  g_free(m->poly);
  if (m->cl_joint)
    g_array_unref(m->cl_joint);
  if (m->cl_idx)
    g_ptr_array_unref(m->cl_idx);
  if (m->cl_w)
    g_ptr_array_unref(m->cl_w);
}

static void mesh_clear(gpointer p) { rk__fbx_mesh_clear(p); }

static void clip_clear(gpointer p) {
  rk__fbx_clip *co = p;
  g_free(co->ticks);
  if (co->chans) {
    for (guint i = 0; i < co->chans->len; i++)
      g_free(g_array_index(co->chans, rk__fbx_chan, i).v);
    g_array_unref(co->chans);
  }
}

void rk__fbx_scene_init(rk__fbx_ctx *c, const rk_asset *asset, const char *path,
                        const rk_export_options *opts, const rk_euler_order *orders,
                        const GPtrArray *clips, GError **error) {
  *c = (rk__fbx_ctx){0};
  c->asset = asset;
  c->s = rk_asset_skeleton(asset);
  c->opts = opts;
  c->path = path;
  c->error = error;
  c->n = rk_skeleton_joint_count(c->s);
  c->k = rk__export_units_per_metre(opts);
  c->usf = 100.0 / c->k;
  c->orders = orders;
  c->next_id = FIRST_ID;
  c->model_id = g_new(int64_t, c->n);
  c->attr_id = g_new(int64_t, c->n);
  c->names = g_new0(char *, c->n + 1);
  c->used = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  c->conns = g_array_new(FALSE, FALSE, sizeof(rk__fbx_conn));
  c->rest_world = g_new(rk_mat4, c->n);
  c->bind_world = g_new(rk_mat4, c->n);
  c->meshes = g_array_new(FALSE, TRUE, sizeof(rk__fbx_mesh));
  g_array_set_clear_func(c->meshes, mesh_clear);
  c->clips = g_array_new(FALSE, TRUE, sizeof(rk__fbx_clip));
  g_array_set_clear_func(c->clips, clip_clear);
  for (size_t j = 0; j < c->n; j++) /* joint names are unique: the skeleton guarantees it */
    c->names[j] = rk__export_unique_name(c->used, rk_skeleton_joint_name(c->s, j));
  rk_skeleton_rest_models(c->s, c->rest_world);
  for (guint i = 0; i < clips->len; i++) {
    rk__fbx_clip co = {0};
    co.clip = g_ptr_array_index(clips, i);
    co.fps = rk__export_clip_fps(co.clip, opts);
    g_array_append_val(c->clips, co);
  }
}

void rk__fbx_scene_clear(rk__fbx_ctx *c) {
  rk__fbx_enc_free(c->e);
  g_free(c->model_id);
  g_free(c->attr_id);
  g_strfreev(c->names);
  g_hash_table_unref(c->used);
  g_array_unref(c->conns);
  g_free(c->rest_world);
  g_free(c->bind_world);
  g_array_unref(c->meshes);
  g_array_unref(c->clips);
}

void rk__fbx_assign_ids(rk__fbx_ctx *c) {
  c->doc_id = new_id(c);
  for (size_t j = 0; j < c->n; j++) {
    c->model_id[j] = new_id(c);
    c->attr_id[j] = new_id(c);
  }
  for (guint i = 0; i < c->meshes->len; i++) {
    rk__fbx_mesh *m = &g_array_index(c->meshes, rk__fbx_mesh, i);
    m->model_id = new_id(c);
    m->geom_id = new_id(c);
    m->mat_id = new_id(c);
    if (m->cl_joint) {
      m->skin_id = new_id(c);
      m->cl_first_id = c->next_id;
      c->next_id += m->cl_joint->len;
    }
  }
  c->pose_id = new_id(c);
  for (guint i = 0; i < c->clips->len; i++) {
    rk__fbx_clip *co = &g_array_index(c->clips, rk__fbx_clip, i);
    co->stack_id = new_id(c);
    co->layer_id = new_id(c);
    for (guint k = 0; k < co->chans->len; k++) {
      rk__fbx_chan *x = &g_array_index(co->chans, rk__fbx_chan, k);
      x->node_id = new_id(c);
      for (int a = 0; a < 3; a++)
        x->curve_id[a] = new_id(c);
    }
  }
  /* Last, so that files without textures keep the ids they always had. */
  for (guint i = 0; i < c->meshes->len; i++) {
    rk__fbx_mesh *m = &g_array_index(c->meshes, rk__fbx_mesh, i);
    if (m->textured) {
      m->tex_id = new_id(c);
      m->video_id = new_id(c);
    }
  }
}
