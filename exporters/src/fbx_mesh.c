/* Meshes in FBX: geometry in file units, materials, skins and their clusters (see fbx_mesh.h). */
#include "fbx_mesh.h"

#include "export_shared.h"
#include "fbx_props.h"
#include "fbx_skeleton.h"
#include "fbx_texture.h"

/* Vertices in file units, normals, UVs and triangles of m. */
static bool mesh_geometry(rk__fbx_ctx *c, rk__fbx_mesh *m) {
  const rk_mesh_data *d = m->d;
  /* Rigid meshes are written in their joint's frame (their Model has no transform). */
  rk_mat4 to_local = rk_mat4_identity();
  if (m->parent_joint >= 0 && !rk_mat4_inverse_affine(&c->rest_world[m->parent_joint], &to_local)) {
    g_set_error(c->error, RK_ERROR, RK_ERROR_INVALID,
                "%s: mesh '%s' follows joint '%s', whose rest pose cannot be inverted", c->path,
                d->name ? d->name : "", rk_skeleton_joint_name(c->s, (size_t)m->parent_joint));
    return false;
  }
  const rk_mat3 lin =
      rk_mat4_get_rotation(&c->rest_world[m->parent_joint >= 0 ? m->parent_joint : 0]);
  m->nv = d->vertex_count;
  m->vertices = g_new(double, 3 * m->nv);
  for (size_t v = 0; v < m->nv; v++) {
    const float *p = d->positions + 3 * v;
    const rk_vec3 q = rk_mat4_transform_point(&to_local, rk_vec3_make(p[0], p[1], p[2]));
    m->vertices[3 * v] = rk__export_clean_zero(q.x * c->k);
    m->vertices[3 * v + 1] = rk__export_clean_zero(q.y * c->k);
    m->vertices[3 * v + 2] = rk__export_clean_zero(q.z * c->k);
    if (!rk__export_fits_float(m->vertices[3 * v]) ||
        !rk__export_fits_float(m->vertices[3 * v + 1]) ||
        !rk__export_fits_float(m->vertices[3 * v + 2])) {
      g_set_error(c->error, RK_ERROR, RK_ERROR_INVALID,
                  "%s: mesh '%s', vertex %zu does not fit in single precision", c->path,
                  d->name ? d->name : "", v);
      return false;
    }
  }
  if (d->normals) {
    /* Normals move by the inverse transpose of to_local's linear part: the joint's L^T. */
    const rk_mat3 lt = rk_mat3_transpose(&lin);
    m->normals = g_new(double, 3 * m->nv);
    for (size_t v = 0; v < m->nv; v++) {
      const float *p = d->normals + 3 * v;
      rk_vec3 q = rk_vec3_make(p[0], p[1], p[2]);
      if (m->parent_joint >= 0)
        q = rk_vec3_normalize(rk_mat3_mul_vec(&lt, q));
      m->normals[3 * v] = rk__export_clean_zero(q.x);
      m->normals[3 * v + 1] = rk__export_clean_zero(q.y);
      m->normals[3 * v + 2] = rk__export_clean_zero(q.z);
    }
  }
  if (d->texcoords) { /* rigkit's origin is top-left (glTF), FBX's bottom-left */
    m->uv = g_new(double, 2 * m->nv);
    for (size_t v = 0; v < m->nv; v++) {
      m->uv[2 * v] = rk__export_clean_zero(d->texcoords[2 * v]);
      m->uv[2 * v + 1] = rk__export_clean_zero(1.0 - (double)d->texcoords[2 * v + 1]);
    }
  }
  m->ntri = d->indices ? d->index_count / 3 : m->nv / 3;
  m->poly = g_new(int32_t, 3 * m->ntri + 1);
  for (size_t t = 0; t < 3 * m->ntri; t++) {
    const uint32_t i = d->indices ? d->indices[t] : (uint32_t)t;
    /* The last index of a polygon is stored as -1 - index. */
    m->poly[t] = t % 3 == 2 ? -1 - (int32_t)i : (int32_t)i;
  }
  return true;
}

/* One cluster per joint with weights, joints ascending: the vertices it moves and their weights,
 * duplicate joints of a vertex merged. */
static void mesh_clusters(rk__fbx_ctx *c, rk__fbx_mesh *m) {
  const rk_mesh_data *d = m->d;
  g_autofree GArray **idx = g_new0(GArray *, c->n);
  g_autofree GArray **w = g_new0(GArray *, c->n);
  for (size_t v = 0; v < m->nv; v++) {
    double sum[4] = {0, 0, 0, 0};
    int js[4] = {-1, -1, -1, -1};
    int used = 0;
    for (int k = 0; k < 4; k++) { /* duplicated joints of one vertex are merged */
      const float wk = d->weights[4 * v + (size_t)k];
      if (!(wk > 0))
        continue;
      const int j = d->joints[4 * v + (size_t)k];
      int slot = -1;
      for (int s = 0; s < used; s++)
        if (js[s] == j)
          slot = s;
      if (slot < 0) {
        slot = used++;
        js[slot] = j;
      }
      sum[slot] += wk;
    }
    for (int s = 0; s < used; s++) {
      const int j = js[s];
      if (!idx[j]) {
        idx[j] = g_array_new(FALSE, FALSE, sizeof(int32_t));
        w[j] = g_array_new(FALSE, FALSE, sizeof(double));
      }
      const int32_t vi = (int32_t)v;
      g_array_append_val(idx[j], vi);
      g_array_append_val(w[j], sum[s]);
    }
  }
  m->cl_joint = g_array_new(FALSE, FALSE, sizeof(int));
  m->cl_idx = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
  m->cl_w = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
  for (size_t j = 0; j < c->n; j++)
    if (idx[j]) {
      const int jj = (int)j;
      g_array_append_val(m->cl_joint, jj);
      g_ptr_array_add(m->cl_idx, idx[j]);
      g_ptr_array_add(m->cl_w, w[j]);
    }
}

bool rk__fbx_prepare_meshes(rk__fbx_ctx *c) {
  if (c->opts->skip_meshes)
    return true;
  for (size_t mi = 0; mi < rk_asset_mesh_count(c->asset); mi++) {
    const rk_mesh_data *d = rk_mesh_data_get(rk_asset_mesh(c->asset, mi));
    if (d->vertex_count == 0)
      continue;
    rk__fbx_mesh m = {0};
    m.d = d;
    m.model_name = rk__export_unique_name(c->used, d->name && *d->name ? d->name : "mesh");
    const bool skinned = d->joints && d->weights;
    m.parent_joint =
        !skinned && d->attach_joint >= 0 && (size_t)d->attach_joint < c->n ? d->attach_joint : -1;
    if (!mesh_geometry(c, &m)) {
      rk__fbx_mesh_clear(&m);
      return false;
    }
    if (skinned)
      mesh_clusters(c, &m);
    m.textured = rk__fbx_texture_written(d);
    g_array_append_val(c->meshes, m);
  }
  return true;
}

static void layer_element(rk__fbx_enc *e, const char *type) {
  rk__fbx_enc_begin(e, "LayerElement");
  rk__fbx_node_str(e, "Type", type);
  rk__fbx_node_i32(e, "TypedIndex", 0);
  rk__fbx_enc_end(e);
}

/* Geometry: vertices, triangles, normals and UVs by vertex, one material for all. */
static void write_geometry(rk__fbx_enc *e, const rk__fbx_mesh *m) {
  rk__fbx_enc_begin(e, "Geometry");
  rk__fbx_enc_i64(e, m->geom_id);
  rk__fbx_enc_object_name(e, m->model_name, "Geometry");
  rk__fbx_enc_str(e, "Mesh");
  rk__fbx_node_i32(e, "GeometryVersion", 124);
  rk__fbx_enc_begin(e, "Vertices");
  rk__fbx_enc_f64v(e, m->vertices, 3 * m->nv);
  rk__fbx_enc_end(e);
  rk__fbx_enc_begin(e, "PolygonVertexIndex");
  rk__fbx_enc_i32v(e, m->poly, 3 * m->ntri);
  rk__fbx_enc_end(e);
  if (m->normals)
    rk__fbx_vertex_layer(e, "LayerElementNormal", "", "Normals", m->normals, 3 * m->nv);
  if (m->uv)
    rk__fbx_vertex_layer(e, "LayerElementUV", "UVMap", "UV", m->uv, 2 * m->nv);
  rk__fbx_enc_begin(e, "LayerElementMaterial");
  rk__fbx_enc_i32(e, 0);
  rk__fbx_node_i32(e, "Version", 101);
  rk__fbx_node_str(e, "Name", "");
  rk__fbx_node_str(e, "MappingInformationType", "AllSame");
  rk__fbx_node_str(e, "ReferenceInformationType", "IndexToDirect");
  const int32_t zero = 0;
  rk__fbx_enc_begin(e, "Materials");
  rk__fbx_enc_i32v(e, &zero, 1);
  rk__fbx_enc_end(e);
  rk__fbx_enc_end(e);
  rk__fbx_enc_begin(e, "Layer");
  rk__fbx_enc_i32(e, 0);
  rk__fbx_node_i32(e, "Version", 100);
  if (m->normals)
    layer_element(e, "LayerElementNormal");
  layer_element(e, "LayerElementMaterial");
  if (m->uv)
    layer_element(e, "LayerElementUV");
  rk__fbx_enc_end(e);
  rk__fbx_enc_end(e); /* Geometry */
}

/* A Lambert Material with the mesh's base colour and opacity. */
static void write_material(rk__fbx_enc *e, const rk__fbx_mesh *m) {
  const rk_mesh_data *d = m->d;
  g_autofree char *mat_name =
      g_strdup(d->material.name && *d->material.name ? d->material.name : m->model_name);
  const float *bc = d->material.base_color;
  rk__fbx_enc_begin(e, "Material");
  rk__fbx_enc_i64(e, m->mat_id);
  rk__fbx_enc_object_name(e, mat_name, "Material");
  rk__fbx_enc_str(e, "");
  rk__fbx_node_i32(e, "Version", 102);
  rk__fbx_node_str(e, "ShadingModel", "lambert");
  rk__fbx_node_i32(e, "MultiLayer", 0);
  rk__fbx_enc_begin(e, "Properties70");
  rk__fbx_p_vec(e, "DiffuseColor", "Color", "", "A", rk_vec3_make(bc[0], bc[1], bc[2]));
  rk__fbx_p_number(e, "DiffuseFactor", "A", 1);
  rk__fbx_p_number(e, "TransparencyFactor", "A", rk__export_clean_zero(1.0 - bc[3]));
  rk__fbx_p_double(e, "Opacity", bc[3]);
  rk__fbx_enc_end(e);
  rk__fbx_enc_end(e);
}

/* The Skin deformer and one Cluster per joint with weights; the mesh sits at the origin. */
static void write_skin(rk__fbx_ctx *c, const rk__fbx_mesh *m) {
  rk__fbx_enc *e = c->e;
  rk__fbx_enc_begin(e, "Deformer");
  rk__fbx_enc_i64(e, m->skin_id);
  rk__fbx_enc_object_name(e, m->model_name, "Deformer");
  rk__fbx_enc_str(e, "Skin");
  rk__fbx_node_i32(e, "Version", 101);
  rk__fbx_node_f64(e, "Link_DeformAcuracy", 50);
  rk__fbx_enc_end(e);
  rk__fbx_connect(c, m->skin_id, m->geom_id, NULL);
  for (guint k = 0; k < m->cl_joint->len; k++) {
    const int j = g_array_index(m->cl_joint, int, k);
    const GArray *idx = g_ptr_array_index(m->cl_idx, k), *w = g_ptr_array_index(m->cl_w, k);
    const int64_t id = m->cl_first_id + k;
    rk__fbx_enc_begin(e, "Deformer");
    rk__fbx_enc_i64(e, id);
    rk__fbx_enc_object_name(e, c->names[j], "SubDeformer");
    rk__fbx_enc_str(e, "Cluster");
    rk__fbx_node_i32(e, "Version", 100);
    rk__fbx_enc_begin(e, "UserData");
    rk__fbx_enc_str(e, "");
    rk__fbx_enc_str(e, "");
    rk__fbx_enc_end(e);
    rk__fbx_enc_begin(e, "Indexes");
    rk__fbx_enc_i32v(e, (const int32_t *)(const void *)idx->data, idx->len);
    rk__fbx_enc_end(e);
    rk__fbx_node_f64v(e, "Weights", (const double *)(const void *)w->data, w->len);
    /* TransformLink: the joint's world matrix at bind time; Transform: the mesh's world
     * matrix (identity) in the joint's bind frame, i.e. the inverse bind matrix. */
    const rk_mat4 link = rk__fbx_bind_matrix(c, (size_t)j);
    rk_mat4 inv;
    if (!rk_mat4_inverse_affine(&link, &inv))
      inv = rk_mat4_identity();
    rk__fbx_node_mat4(e, "Transform", &inv);
    rk__fbx_node_mat4(e, "TransformLink", &link);
    rk__fbx_enc_end(e);
    rk__fbx_connect(c, id, m->skin_id, NULL);
    rk__fbx_connect(c, c->model_id[j], id, NULL);
  }
}

void rk__fbx_write_meshes(rk__fbx_ctx *c) {
  rk__fbx_enc *e = c->e;
  for (guint i = 0; i < c->meshes->len; i++) {
    const rk__fbx_mesh *m = &g_array_index(c->meshes, rk__fbx_mesh, i);
    write_geometry(e, m);
    write_material(e, m);
    rk__fbx_model_begin(e, m->model_id, m->model_name, "Mesh");
    rk__fbx_model_end(e);
    rk__fbx_connect(c, m->model_id, m->parent_joint >= 0 ? c->model_id[m->parent_joint] : 0, NULL);
    rk__fbx_connect(c, m->geom_id, m->model_id, NULL);
    rk__fbx_connect(c, m->mat_id, m->model_id, NULL);
    if (m->textured)
      rk__fbx_write_texture(c, m);
    if (m->cl_joint)
      write_skin(c, m);
  }
}
