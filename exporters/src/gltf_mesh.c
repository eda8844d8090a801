/* Meshes in glTF: vertex data, skin weights, indices, materials and mesh nodes (see
 * gltf_mesh.h). */
#include "gltf_mesh.h"

#include "gltf_buffer.h"
#include "gltf_texture.h"

#include <rigkit/fk.h>

/* The default material of the asset model (all fields zero, no name) means "none". A texture
 * goes with the UVs it is mapped by: a mesh without UVs is written without it. Returns the
 * material's index, -1 for none, -2 on failure (c->error set). */
static int add_material(rk__gltf_ctx *c, const rk_material *m, bool has_uv) {
  const bool unset = !m->name && m->base_color[0] == 0 && m->base_color[1] == 0 &&
                     m->base_color[2] == 0 && m->base_color[3] == 0 && m->metallic == 0 &&
                     m->roughness == 0 && !m->double_sided && !m->base_color_texture;
  if (unset)
    return -1;
  const int texture = has_uv ? rk__gltf_add_texture(c, m->base_color_texture) : -1;
  if (texture == -2)
    return -2;
  JsonObject *o = json_object_new();
  if (m->name && *m->name)
    json_object_set_string_member(o, "name", m->name);
  JsonObject *pbr = json_object_new();
  JsonArray *col = json_array_new();
  for (int k = 0; k < 4; k++) {
    double v = m->base_color[k];
    json_array_add_double_element(col, isfinite(v) ? fmin(fmax(v, 0.0), 1.0) : 1.0);
  }
  json_object_set_array_member(pbr, "baseColorFactor", col);
  if (texture >= 0) {
    JsonObject *info = json_object_new();
    json_object_set_int_member(info, "index", texture);
    json_object_set_object_member(pbr, "baseColorTexture", info);
  }
  json_object_set_double_member(pbr, "metallicFactor",
                                isfinite(m->metallic) ? fmin(fmax(m->metallic, 0.0), 1.0) : 1.0);
  json_object_set_double_member(pbr, "roughnessFactor",
                                isfinite(m->roughness) ? fmin(fmax(m->roughness, 0.0), 1.0) : 1.0);
  json_object_set_object_member(o, "pbrMetallicRoughness", pbr);
  if (m->base_color[3] < 1.0f)
    json_object_set_string_member(o, "alphaMode", "BLEND");
  if (m->double_sided)
    json_object_set_boolean_member(o, "doubleSided", TRUE);
  json_array_add_object_element(c->materials, o);
  return (int)json_array_get_length(c->materials) - 1;
}

/* Up to 4 influences of one vertex: duplicates merged, zero weights dropped, sorted by weight,
 * normalised so that the float32 sum is as close to 1 as float32 allows. */
static void vertex_weights(const uint16_t *jin, const float *win, uint16_t *jout, float *wout) {
  double w[4];
  uint16_t j[4];
  int n = 0;
  for (int k = 0; k < 4; k++) {
    if (!(win[k] > 0))
      continue;
    int found = -1;
    for (int m = 0; m < n; m++)
      if (j[m] == jin[k])
        found = m;
    if (found >= 0) {
      w[found] += win[k];
    } else {
      j[n] = jin[k];
      w[n++] = win[k];
    }
  }
  if (n == 0) { /* rk_mesh_new gives such a vertex to its first joint */
    j[0] = jin[0];
    w[0] = 1;
    n = 1;
  }
  for (int a = 1; a < n; a++) /* insertion sort, heaviest first, ties by joint index */
    for (int b = a; b > 0 && (w[b] > w[b - 1] || (w[b] == w[b - 1] && j[b] < j[b - 1])); b--) {
      double tw = w[b];
      w[b] = w[b - 1];
      w[b - 1] = tw;
      uint16_t tj = j[b];
      j[b] = j[b - 1];
      j[b - 1] = tj;
    }
  double sum = 0;
  for (int k = 0; k < n; k++)
    sum += w[k];
  float fsum = 0;
  for (int k = 0; k < 4; k++) {
    jout[k] = k < n ? j[k] : 0;
    wout[k] = k < n ? (float)(w[k] / sum) : 0.0f;
  }
  for (int k = 1; k < n; k++)
    fsum += wout[k];
  wout[0] = 1.0f - fsum; /* the heaviest weight absorbs the rounding */
}

/* Positions (in the joint's rest space for a rigid mesh) and unit normals of d in float32. */
static bool mesh_vertices(rk__gltf_ctx *c, const rk_mesh_data *d, bool attached, float *pos,
                          float *nrm) {
  const size_t nv = d->vertex_count;
  rk_mat4 to_local = rk_mat4_identity(), model = rk_mat4_identity();
  if (attached) {
    /* A rigid mesh is stored in model space at bind time; under its joint's node it must be in
     * that joint's space. */
    g_autofree rk_mat4 *models = g_new(rk_mat4, rk_skeleton_joint_count(c->s));
    rk_skeleton_rest_models(c->s, models);
    model = models[d->attach_joint];
    if (!rk_mat4_inverse_affine(&model, &to_local)) {
      g_set_error(c->error, RK_ERROR, RK_ERROR_INVALID,
                  "%s: mesh '%s' is attached to joint '%s' whose rest pose is singular", c->path,
                  d->name, rk_skeleton_joint_name(c->s, (size_t)d->attach_joint));
      return false;
    }
  }
  for (size_t v = 0; v < nv; v++) {
    rk_vec3 p = rk_vec3_make(d->positions[3 * v], d->positions[3 * v + 1], d->positions[3 * v + 2]);
    if (attached)
      p = rk_mat4_transform_point(&to_local, p);
    bool ok = rk__gltf_to_float(p.x, &pos[3 * v]) && rk__gltf_to_float(p.y, &pos[3 * v + 1]) &&
              rk__gltf_to_float(p.z, &pos[3 * v + 2]);
    if (!ok) {
      g_set_error(c->error, RK_ERROR, RK_ERROR_INVALID,
                  "%s: mesh '%s' vertex %zu has a position out of single-precision range", c->path,
                  d->name, v);
      return false;
    }
    if (nrm) {
      rk_vec3 q = rk_vec3_make(d->normals[3 * v], d->normals[3 * v + 1], d->normals[3 * v + 2]);
      if (attached) /* normals transform with the inverse transpose of to_local: model^T */
        q = rk_vec3_make(model.m[0] * q.x + model.m[1] * q.y + model.m[2] * q.z,
                         model.m[4] * q.x + model.m[5] * q.y + model.m[6] * q.z,
                         model.m[8] * q.x + model.m[9] * q.y + model.m[10] * q.z);
      q = rk_vec3_normalize(q);
      if (rk_vec3_norm(q) == 0) /* glTF requires unit normals; a degenerate one points up */
        q = rk_vec3_make(0, 1, 0);
      nrm[3 * v] = (float)q.x, nrm[3 * v + 1] = (float)q.y, nrm[3 * v + 2] = (float)q.z;
    }
  }
  return true;
}

/* The primitive's attributes: POSITION, NORMAL, TEXCOORD_0, JOINTS_0 and WEIGHTS_0 as d has them,
 * in that order. */
static bool add_attributes(rk__gltf_ctx *c, const rk_mesh_data *d, const float *pos,
                           const float *nrm, JsonObject *prim) {
  const size_t nv = d->vertex_count;
  const bool skinned = d->joints != NULL;
  g_autofree uint16_t *joints = skinned ? g_new(uint16_t, 4 * nv) : NULL;
  g_autofree float *weights = skinned ? g_new(float, 4 * nv) : NULL;
  JsonObject *attrs = json_object_new();
  int a = rk__gltf_add_accessor(c, RK__GL_FLOAT, pos, nv, 3, RK__GL_ARRAY_BUFFER, true);
  if (a < 0)
    goto fail;
  json_object_set_int_member(attrs, "POSITION", a);
  if (nrm) {
    if ((a = rk__gltf_add_accessor(c, RK__GL_FLOAT, nrm, nv, 3, RK__GL_ARRAY_BUFFER, true)) < 0)
      goto fail;
    json_object_set_int_member(attrs, "NORMAL", a);
  }
  if (d->texcoords) {
    if ((a = rk__gltf_add_accessor(c, RK__GL_FLOAT, d->texcoords, nv, 2, RK__GL_ARRAY_BUFFER,
                                   true)) < 0)
      goto fail;
    json_object_set_int_member(attrs, "TEXCOORD_0", a);
  }
  if (skinned) {
    for (size_t v = 0; v < nv; v++)
      vertex_weights(d->joints + 4 * v, d->weights + 4 * v, joints + 4 * v, weights + 4 * v);
    if ((a = rk__gltf_add_accessor(c, RK__GL_UNSIGNED_SHORT, joints, nv, 4, RK__GL_ARRAY_BUFFER,
                                   true)) < 0)
      goto fail;
    json_object_set_int_member(attrs, "JOINTS_0", a);
    if ((a = rk__gltf_add_accessor(c, RK__GL_FLOAT, weights, nv, 4, RK__GL_ARRAY_BUFFER, true)) < 0)
      goto fail;
    json_object_set_int_member(attrs, "WEIGHTS_0", a);
  }
  json_object_set_object_member(prim, "attributes", attrs);
  return true;
fail:
  json_object_unref(attrs);
  return false;
}

/* The primitive's indices, when d has any. */
static bool add_indices(rk__gltf_ctx *c, const rk_mesh_data *d, JsonObject *prim) {
  if (!d->indices || d->index_count == 0)
    return true;
  int a;
  /* 16-bit indices when they fit (65535 is the primitive-restart value, never an index). */
  if (d->vertex_count < 65535) {
    uint16_t *idx = g_new(uint16_t, d->index_count);
    for (size_t i = 0; i < d->index_count; i++)
      idx[i] = (uint16_t)d->indices[i];
    a = rk__gltf_add_accessor(c, RK__GL_UNSIGNED_SHORT, idx, d->index_count, 1,
                              RK__GL_ELEMENT_ARRAY_BUFFER, true);
    g_free(idx);
  } else {
    a = rk__gltf_add_accessor(c, RK__GL_UNSIGNED_INT, d->indices, d->index_count, 1,
                              RK__GL_ELEMENT_ARRAY_BUFFER, true);
  }
  if (a < 0)
    return false;
  json_object_set_int_member(prim, "indices", a);
  return true;
}

bool rk__gltf_add_mesh(rk__gltf_ctx *c, const rk_mesh *mesh, size_t mesh_index) {
  const rk_mesh_data *d = rk_mesh_data_get(mesh);
  const size_t nv = d->vertex_count;
  const bool skinned = d->joints != NULL;
  const bool attached = !skinned && d->attach_joint >= 0;
  g_autofree char *name =
      d->name && *d->name ? g_strdup(d->name) : g_strdup_printf("mesh_%zu", mesh_index);
  g_autofree float *pos = g_new(float, 3 * nv);
  g_autofree float *nrm = d->normals ? g_new(float, 3 * nv) : NULL;
  if (!mesh_vertices(c, d, attached, pos, nrm))
    return false;
  JsonObject *prim = json_object_new();
  if (!add_attributes(c, d, pos, nrm, prim) || !add_indices(c, d, prim)) {
    json_object_unref(prim);
    return false;
  }
  int mat = add_material(c, &d->material, d->texcoords != NULL);
  if (mat == -2) {
    json_object_unref(prim);
    return false;
  }
  if (mat >= 0)
    json_object_set_int_member(prim, "material", mat);
  JsonObject *m = json_object_new();
  json_object_set_string_member(m, "name", name);
  JsonArray *prims = json_array_new();
  json_array_add_object_element(prims, prim);
  json_object_set_array_member(m, "primitives", prims);
  json_array_add_object_element(c->meshes, m);
  const int mesh_idx = (int)json_array_get_length(c->meshes) - 1;

  int node = rk__gltf_add_node(c, name);
  rk__gltf_node_at(c, node)->mesh = mesh_idx;
  if (skinned)
    rk__gltf_node_at(c, node)->skin = 0;
  if (attached)
    g_array_append_val(rk__gltf_node_at(c, d->attach_joint)->children, node);
  return true;
}
