/* The meshes of an Assimp scene (scene_meshes.h): geometry and materials copied, skins bound to
 * joints, moved into the skeleton's model space when their bind is rigid, four influences per
 * vertex. */
#include "scene_meshes.h"

#include <string.h>

typedef struct influence {
  int joint;
  float weight;
} influence;

static int cmp_influence(const void *a, const void *b) {
  const float x = ((const influence *)a)->weight, y = ((const influence *)b)->weight;
  return x > y ? -1 : x < y;
}

/* What rk__scene_build_meshes repaired or approximated, for its notes. */
typedef struct mesh_counts {
  unsigned over_four, ibm_conflicts, unbound, skin_moved, bind_differs;
} mesh_counts;

/* The material's texture on the raw mesh (owned copies); rigkit meshes hold UV set 0 only. */
static void copy_texture(const rk__scene_material *mat, rk__raw_mesh *m, rk__raw_asset *raw) {
  if (!mat->texture_path)
    return;
  if (mat->texture_uv != 0) {
    rk__raw_note(raw, "material '%s': its texture uses UV set %u, rigkit keeps set 0 only: left "
                      "out", mat->name ? mat->name : "", mat->texture_uv);
    return;
  }
  m->has_texture = true;
  m->texture.data = mat->texture_data ? g_memdup2(mat->texture_data, mat->texture_size) : NULL;
  m->texture.size = mat->texture_data ? mat->texture_size : 0;
  m->texture.mime_type = g_strdup(mat->texture_mime);
  m->texture.path = g_strdup(mat->texture_file);
}

/* Mesh sm (of node ni) as a raw mesh: vertices moved by to_world (normals by the inverse
 * transpose of from_world), texture coordinates, triangles and material. */
static rk__raw_mesh *copy_mesh(const rk__scene *s, unsigned ni, const rk__scene_mesh *sm,
                               const rk_mat4 *to_world, const rk_mat4 *from_world,
                               rk__raw_asset *raw) {
  rk__raw_mesh *m = rk__raw_add_mesh(raw);
  m->name = g_strdup(*sm->name ? sm->name : s->nodes[ni].name);
  m->vertex_count = sm->vertex_count;
  m->positions = g_new(float, 3 * (size_t)sm->vertex_count);
  rk_mat3 nrm = rk_mat4_get_rotation(from_world);
  nrm = rk_mat3_transpose(&nrm); /* inverse transpose of the linear part */
  for (unsigned v = 0; v < sm->vertex_count; v++) {
    const float *p = sm->positions + 3 * v;
    rk_vec3 q = rk_mat4_transform_point(to_world, rk_vec3_make(p[0], p[1], p[2]));
    m->positions[3 * v] = (float)q.x;
    m->positions[3 * v + 1] = (float)q.y;
    m->positions[3 * v + 2] = (float)q.z;
  }
  if (sm->normals) {
    m->normals = g_new(float, 3 * (size_t)sm->vertex_count);
    for (unsigned v = 0; v < sm->vertex_count; v++) {
      const float *p = sm->normals + 3 * v;
      rk_vec3 q = rk_vec3_normalize(rk_mat3_mul_vec(&nrm, rk_vec3_make(p[0], p[1], p[2])));
      if (!rk_vec3_is_finite(q) || rk_vec3_norm(q) == 0)
        q = rk_vec3_make(0, 1, 0);
      m->normals[3 * v] = (float)q.x;
      m->normals[3 * v + 1] = (float)q.y;
      m->normals[3 * v + 2] = (float)q.z;
    }
  }
  if (sm->texcoords)
    m->texcoords = g_memdup2(sm->texcoords, 2 * (size_t)sm->vertex_count * sizeof(float));
  m->index_count = sm->index_count;
  m->indices = g_memdup2(sm->indices, sm->index_count * sizeof(uint32_t));
  if (sm->material < s->material_count) {
    const rk__scene_material *mat = &s->materials[sm->material];
    m->material.name = g_strdup(mat->name);
    memcpy(m->material.base_color, mat->base_color, sizeof mat->base_color);
    m->material.metallic = mat->metallic;
    m->material.roughness = mat->roughness;
    m->material.double_sided = mat->double_sided;
    copy_texture(mat, m, raw);
  } else {
    m->material.base_color[0] = m->material.base_color[1] = m->material.base_color[2] = 1;
    m->material.base_color[3] = 1;
    m->material.roughness = 1;
  }
  return m;
}

/* A skin's bones bound to joints (bone_joint, -1 when the bone names no joint node) with their
 * inverse bind matrices in world terms (bone_ibm), and each vertex's influences: inf[start[v]]
 * up to inf[fill[v]]. Returns the number of unbound bones. */
static unsigned bind_bones(const rk__scene *s, const rk__scene_mesh *sm, const int *joint_of_node,
                           const rk_mat4 *from_world, int *bone_joint, rk_mat4 *bone_ibm,
                           influence *inf, size_t *fill) {
  const unsigned nv = sm->vertex_count;
  unsigned unbound = 0;
  for (unsigned b = 0; b < sm->bone_count; b++) {
    const rk__scene_bone *bone = &sm->bones[b];
    int bn = rk__scene_bind_name(s, bone->name, NULL);
    bone_joint[b] = bn >= 0 ? joint_of_node[bn] : -1;
    if (bone_joint[b] < 0) {
      unbound++;
      continue;
    }
    /* Offset: mesh space -> bone space. In world terms IBM = offset * to_world^-1. */
    bone_ibm[b] = rk_mat4_mul(&bone->offset, from_world);
    for (unsigned w = 0; w < bone->weight_count; w++) {
      const unsigned v = bone->vertex[w];
      if (v < nv && isfinite(bone->weight[w]) && bone->weight[w] > 0)
        inf[fill[v]++] = (influence){bone_joint[b], bone->weight[w]};
    }
  }
  return unbound;
}

/* When the rest pose is the bind pose, rest * IBM is one rigid transform M for every bone: the
 * skin's space (a glTF skin's vertices may sit in any space its IBMs expect, e.g. under a Z_UP
 * parent) -> the skeleton's model space. Moving the vertices by M and the IBMs by M^-1 puts the
 * mesh in model space at bind time without changing the skinning. When the bind pose differs
 * from the rest pose, the root-most bone decides: skeleton roots rarely move between bind and
 * rest. */
static void skin_to_model(unsigned bone_count, const int *bone_joint, rk_mat4 *bone_ibm,
                          const rk_mat4 *rest_models, rk__raw_mesh *m, mesh_counts *counts) {
  const size_t nv = m->vertex_count;
  rk_mat4 to_model = rk_mat4_identity();
  bool consistent = rest_models != NULL;
  int root_bone = -1;
  for (unsigned b = 0; b < bone_count && rest_models; b++)
    if (bone_joint[b] >= 0 && (root_bone < 0 || bone_joint[b] < bone_joint[root_bone]))
      root_bone = (int)b;
  if (root_bone >= 0)
    to_model = rk_mat4_mul(&rest_models[bone_joint[root_bone]], &bone_ibm[root_bone]);
  for (unsigned b = 0; b < bone_count && root_bone >= 0 && consistent; b++) {
    if (bone_joint[b] < 0)
      continue;
    rk_mat4 mb = rk_mat4_mul(&rest_models[bone_joint[b]], &bone_ibm[b]);
    consistent = rk_mat4_max_abs_diff(&mb, &to_model) <=
                 1e-5 * (1.0 + fabs(mb.m[12]) + fabs(mb.m[13]) + fabs(mb.m[14]));
  }
  if (!consistent)
    counts->bind_differs++;
  const rk_mat4 id4 = rk_mat4_identity();
  rk_mat4 from_model;
  if (root_bone < 0 || !(rk_mat4_max_abs_diff(&to_model, &id4) > 1e-6) ||
      !rk_mat4_inverse_affine(&to_model, &from_model))
    return;
  rk_mat3 lin = rk_mat4_get_rotation(&from_model);
  lin = rk_mat3_transpose(&lin);
  for (size_t v = 0; v < nv; v++) {
    float *pp = m->positions + 3 * v;
    rk_vec3 q = rk_mat4_transform_point(&to_model, rk_vec3_make(pp[0], pp[1], pp[2]));
    pp[0] = (float)q.x, pp[1] = (float)q.y, pp[2] = (float)q.z;
    if (m->normals) {
      float *nn = m->normals + 3 * v;
      rk_vec3 r = rk_vec3_normalize(rk_mat3_mul_vec(&lin, rk_vec3_make(nn[0], nn[1], nn[2])));
      nn[0] = (float)r.x, nn[1] = (float)r.y, nn[2] = (float)r.z;
    }
  }
  for (unsigned b = 0; b < bone_count; b++)
    if (bone_joint[b] >= 0)
      bone_ibm[b] = rk_mat4_mul(&bone_ibm[b], &from_model);
  if (consistent)
    counts->skin_moved++;
}

/* Each bound bone's inverse bind matrix on its joint; the first mesh's wins when meshes
 * disagree. */
static void record_inverse_binds(unsigned bone_count, const int *bone_joint,
                                 const rk_mat4 *bone_ibm, rk__raw_asset *raw,
                                 mesh_counts *counts) {
  for (unsigned b = 0; b < bone_count; b++) {
    if (bone_joint[b] < 0)
      continue;
    rk__raw_joint *rj = rk__raw_joint_at(raw, (size_t)bone_joint[b]);
    if (!rj->has_ibm) {
      rj->has_ibm = true;
      rj->ibm = bone_ibm[b];
    } else if (rk_mat4_max_abs_diff(&rj->ibm, &bone_ibm[b]) >
               1e-4 * (1.0 + fabs(rj->ibm.m[12]) + fabs(rj->ibm.m[13]) + fabs(rj->ibm.m[14]))) {
      counts->ibm_conflicts++;
    }
  }
}

/* Each vertex's four largest influences, renormalised. */
static void keep_four(influence *inf, const size_t *start, const size_t *fill, rk__raw_mesh *m,
                      mesh_counts *counts) {
  const size_t nv = m->vertex_count;
  m->joints = g_new0(uint16_t, 4 * nv);
  m->weights = g_new0(float, 4 * nv);
  for (size_t v = 0; v < nv; v++) {
    const size_t n = fill[v] - start[v];
    influence *iv = inf + start[v];
    if (n > 4) {
      qsort(iv, n, sizeof *iv, cmp_influence);
      counts->over_four++;
    }
    float sum = 0;
    for (size_t k = 0; k < n && k < 4; k++)
      sum += iv[k].weight;
    for (size_t k = 0; k < n && k < 4; k++) {
      m->joints[4 * v + k] = (uint16_t)iv[k].joint;
      m->weights[4 * v + k] = sum > 0 ? iv[k].weight / sum : 0;
    }
  }
}

/* The skin of mesh sm onto raw mesh m: bones bound to joints, the mesh moved into model space
 * when its bind is rigid, inverse bind matrices on the joints, four influences per vertex. */
static void add_skin(const rk__scene *s, const rk__scene_mesh *sm, const int *joint_of_node,
                     const rk_mat4 *from_world, const rk_mat4 *rest_models, rk__raw_mesh *m,
                     rk__raw_asset *raw, mesh_counts *counts) {
  const unsigned nv = sm->vertex_count;
  g_autofree unsigned *count = g_new0(unsigned, nv);
  for (unsigned b = 0; b < sm->bone_count; b++)
    for (unsigned w = 0; w < sm->bones[b].weight_count; w++)
      if (sm->bones[b].vertex[w] < nv)
        count[sm->bones[b].vertex[w]]++;
  g_autofree size_t *start = g_new(size_t, (size_t)nv + 1);
  start[0] = 0;
  for (unsigned v = 0; v < nv; v++)
    start[v + 1] = start[v] + count[v];
  g_autofree influence *inf = g_new(influence, start[nv] + 1);
  g_autofree size_t *fill = g_memdup2(start, (size_t)nv * sizeof(size_t) + sizeof(size_t));
  g_autofree int *bone_joint = g_new(int, sm->bone_count + 1);
  g_autofree rk_mat4 *bone_ibm = g_new(rk_mat4, sm->bone_count + 1);
  counts->unbound +=
      bind_bones(s, sm, joint_of_node, from_world, bone_joint, bone_ibm, inf, fill);
  skin_to_model(sm->bone_count, bone_joint, bone_ibm, rest_models, m, counts);
  record_inverse_binds(sm->bone_count, bone_joint, bone_ibm, raw, counts);
  keep_four(inf, start, fill, m, counts);
}

void rk__scene_build_meshes(const rk__scene *s, const char *format, const int *joint_of_node,
                         rk__raw_asset *raw) {
  const bool gltf = strcmp(format, "gltf") == 0 || strcmp(format, "glb") == 0;
  mesh_counts counts = {0};
  g_autofree rk_mat4 *rest_models = rk__raw_rest_models(raw);
  for (unsigned ni = 0; ni < s->node_count; ni++) {
    const rk__scene_node *node = &s->nodes[ni];
    for (unsigned mi = 0; mi < node->mesh_count; mi++) {
      if (node->meshes[mi] >= s->mesh_count)
        continue;
      const rk__scene_mesh *sm = &s->meshes[node->meshes[mi]];
      if (sm->vertex_count == 0 || sm->index_count == 0)
        continue;
      const bool skinned = sm->bone_count > 0;
      /* Where the vertices live: glTF skins ignore the mesh node's transform (vertices are in the
       * space the inverse bind matrices expect, i.e. the world at bind time); everything else
       * is in the mesh node's space. */
      rk_mat4 to_world = (skinned && gltf) ? rk_mat4_identity() : rk__scene_node_world(s, (int)ni);
      rk_mat4 from_world;
      if (!rk_mat4_inverse_affine(&to_world, &from_world))
        continue;
      rk__raw_mesh *m = copy_mesh(s, ni, sm, &to_world, &from_world, raw);
      if (skinned) {
        add_skin(s, sm, joint_of_node, &from_world, rest_models, m, raw, &counts);
      } else {
        int j = (int)ni;
        while (j >= 0 && joint_of_node[j] < 0)
          j = s->nodes[j].parent;
        m->attach_joint = j >= 0 ? joint_of_node[j] : -1;
      }
    }
  }
  if (counts.over_four)
    rk__raw_note(raw, "%u vertices had more than 4 joint influences: kept the 4 largest, "
                      "renormalised", counts.over_four);
  if (counts.ibm_conflicts)
    rk__raw_note(raw, "%u bind matrices disagreed between meshes: kept the first",
                 counts.ibm_conflicts);
  if (counts.unbound)
    rk__raw_note(raw, "%u mesh bones name no node: their weights were dropped", counts.unbound);
  if (counts.skin_moved)
    rk__raw_note(raw, "%u skinned meshes moved from their skin's space into the skeleton's "
                      "model space by rest x inverse bind (one rigid transform for all their "
                      "joints)", counts.skin_moved);
  if (counts.bind_differs)
    rk__raw_note(raw, "%u skinned meshes have a bind pose that differs from the rest pose: "
                      "placed in model space by their root-most joint's bind transform",
                 counts.bind_differs);
}
