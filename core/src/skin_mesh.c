/* rigkit/skin_mesh.h: meshes as skinning sees them (vertices with their influences, merged where
 * they skin identically; triangles) and their vertices at a pose. Also what every skinning of a
 * vertex shares (skin_internal.h): the frames a skeleton carries vertices in, the mesh check and
 * a vertex's influences, which skin.c's supports build on. */
#include "skin_internal.h"

#include <rigkit/error.h>

#include <string.h>

struct rk_skin_mesh {
  GArray *vertices;  /* rk_skin_vertex */
  GArray *triangles; /* uint32_t, three per triangle */
};

void rk__skin_frames_init(rk__skin_frames *f, const rk_skeleton *s, const rk_mat4 *rest) {
  f->n = rk_skeleton_joint_count(s);
  f->rest = rest;
  f->bind_inv = g_new(rk_mat4, f->n ? f->n : 1);
  f->rest_inv = g_new(rk_mat4, f->n ? f->n : 1);
  for (size_t j = 0; j < f->n; j++) {
    if (!rk_mat4_inverse_affine(&rest[j], &f->rest_inv[j]))
      f->rest_inv[j] = rk_mat4_identity();
    if (!rk_skeleton_inverse_bind(s, j, &f->bind_inv[j]))
      f->bind_inv[j] = f->rest_inv[j];
  }
}

void rk__skin_frames_clear(rk__skin_frames *f) {
  g_free(f->bind_inv);
  g_free(f->rest_inv);
  f->bind_inv = f->rest_inv = NULL;
}

bool rk__skin_mesh_check(const rk_mesh_data *d, size_t mi, size_t n, GError **error) {
  if (!d->joints && d->attach_joint >= (int)n) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "mesh %zu ('%s') is attached to joint %d, beyond the skeleton's %zu joints", mi,
                d->name ? d->name : "", d->attach_joint, n);
    return false;
  }
  for (size_t i = 0; d->joints && i < 4 * d->vertex_count; i++)
    if (d->joints[i] >= n) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                  "mesh %zu ('%s'): vertex %zu is weighted to joint %u, beyond the skeleton's "
                  "%zu joints",
                  mi, d->name ? d->name : "", i / 4, d->joints[i], n);
      return false;
    }
  return true;
}

int rk__skin_vertex(const rk__skin_frames *f, const rk_mesh_data *d, size_t v, rk_skin_vertex *out) {
  const rk_vec3 bind =
      rk_vec3_make(d->positions[3 * v], d->positions[3 * v + 1], d->positions[3 * v + 2]);
  memset(out, 0, sizeof *out);
  int nk = 0;
  if (d->joints) {
    for (int k = 0; k < 4; k++)
      if (d->weights[4 * v + (size_t)k] > 0)
        out->joint[nk] = d->joints[4 * v + (size_t)k], out->weight[nk++] = d->weights[4 * v + (size_t)k];
  }
  if (nk == 0)
    out->joint[0] = d->joints ? d->joints[4 * v] : d->attach_joint, out->weight[nk++] = 1;
  int dom = 0;
  for (int k = 1; k < nk; k++)
    if (out->weight[k] > out->weight[dom])
      dom = k;
  out->count = nk;
  out->dominant = out->joint[dom];
  for (int k = 0; k < nk; k++) {
    const rk_mat4 *to_joint = d->joints ? &f->bind_inv[out->joint[k]] : &f->rest_inv[out->joint[k]];
    out->local[k] = rk_mat4_transform_point(to_joint, bind);
  }
  return dom;
}

/* Vertices that skin identically: the same influences, bit for bit (unused entries are zero). */
static guint vertex_hash(gconstpointer p) {
  const unsigned char *bytes = p;
  guint h = 2166136261u;
  for (size_t i = 0; i < sizeof(rk_skin_vertex); i++)
    h = (h ^ bytes[i]) * 16777619u;
  return h;
}

static gboolean vertex_equal(gconstpointer a, gconstpointer b) {
  return memcmp(a, b, sizeof(rk_skin_vertex)) == 0;
}

/* Appends mesh d's vertices (merged with those seen) and its triangles. */
static void add_mesh(rk_skin_mesh *m, const rk__skin_frames *f, const rk_mesh_data *d,
                     GHashTable *seen) {
  g_autofree uint32_t *index = g_new(uint32_t, d->vertex_count ? d->vertex_count : 1);
  for (size_t v = 0; v < d->vertex_count; v++) {
    rk_skin_vertex sv;
    rk__skin_vertex(f, d, v, &sv);
    gpointer at = NULL;
    if (g_hash_table_lookup_extended(seen, &sv, NULL, &at)) {
      index[v] = GPOINTER_TO_UINT(at) - 1;
      continue;
    }
    index[v] = m->vertices->len;
    g_array_append_val(m->vertices, sv);
    g_hash_table_insert(seen, g_memdup2(&sv, sizeof sv), GUINT_TO_POINTER(index[v] + 1));
  }
  const size_t corners = d->indices ? d->index_count : d->vertex_count;
  for (size_t c = 0; c + 2 < corners; c += 3) {
    uint32_t t[3];
    for (int k = 0; k < 3; k++)
      t[k] = index[d->indices ? d->indices[c + (size_t)k] : c + (size_t)k];
    if (t[0] != t[1] && t[1] != t[2] && t[0] != t[2])
      g_array_append_vals(m->triangles, t, 3);
  }
}

rk_skin_mesh *rk_skin_mesh_new(const rk_skeleton *skeleton, const rk_mesh *const *meshes,
                               size_t mesh_count, GError **error) {
  g_return_val_if_fail(skeleton != NULL && (meshes != NULL || mesh_count == 0), NULL);
  const size_t n = rk_skeleton_joint_count(skeleton);
  for (size_t mi = 0; mi < mesh_count; mi++)
    if (!rk__skin_mesh_check(rk_mesh_data_get(meshes[mi]), mi, n, error))
      return NULL;
  g_autofree rk_mat4 *rest = g_new(rk_mat4, n ? n : 1);
  rk_skeleton_rest_models(skeleton, rest);
  rk__skin_frames f;
  rk__skin_frames_init(&f, skeleton, rest);
  rk_skin_mesh *m = g_new0(rk_skin_mesh, 1);
  m->vertices = g_array_new(FALSE, FALSE, sizeof(rk_skin_vertex));
  m->triangles = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  g_autoptr(GHashTable) seen = g_hash_table_new_full(vertex_hash, vertex_equal, g_free, NULL);
  for (size_t mi = 0; mi < mesh_count; mi++) {
    const rk_mesh_data *d = rk_mesh_data_get(meshes[mi]);
    if (d->joints || d->attach_joint >= 0)
      add_mesh(m, &f, d, seen);
  }
  rk__skin_frames_clear(&f);
  return m;
}

const rk_mesh **rk__skin_asset_meshes(const rk_asset *asset, size_t *n) {
  *n = rk_asset_mesh_count(asset);
  const rk_mesh **meshes = g_new(const rk_mesh *, *n + 1);
  for (size_t i = 0; i < *n; i++)
    meshes[i] = rk_asset_mesh(asset, i);
  return meshes;
}

rk_skin_mesh *rk_skin_mesh_from_asset(const rk_asset *asset, GError **error) {
  g_return_val_if_fail(asset != NULL, NULL);
  size_t nm;
  g_autofree const rk_mesh **meshes = rk__skin_asset_meshes(asset, &nm);
  return rk_skin_mesh_new(rk_asset_skeleton(asset), meshes, nm, error);
}

void rk_skin_mesh_free(rk_skin_mesh *m) {
  if (!m)
    return;
  g_array_unref(m->vertices);
  g_array_unref(m->triangles);
  g_free(m);
}

size_t rk_skin_mesh_vertex_count(const rk_skin_mesh *m) {
  return m->vertices->len;
}

const rk_skin_vertex *rk_skin_mesh_vertices(const rk_skin_mesh *m) {
  return (const rk_skin_vertex *)(const void *)m->vertices->data;
}

size_t rk_skin_mesh_triangle_count(const rk_skin_mesh *m) {
  return m->triangles->len / 3;
}

const uint32_t *rk_skin_mesh_triangles(const rk_skin_mesh *m) {
  return (const uint32_t *)(const void *)m->triangles->data;
}

rk_vec3 rk_skin_vertex_at(const rk_skin_vertex *v, const rk_mat4 *models) {
  rk_vec3 p = {0, 0, 0};
  for (int k = 0; k < v->count; k++)
    p = rk_vec3_add(p, rk_vec3_scale(rk_mat4_transform_point(&models[v->joint[k]], v->local[k]),
                                     v->weight[k]));
  return p;
}

void rk_skin_mesh_pose(const rk_skin_mesh *m, const rk_mat4 *models, rk_vec3 *out) {
  const rk_skin_vertex *v = rk_skin_mesh_vertices(m);
  for (size_t i = 0; i < m->vertices->len; i++)
    out[i] = rk_skin_vertex_at(&v[i], models);
}
