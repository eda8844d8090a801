/* An Assimp scene (already in rigkit conventions, see assimp_scene.c) -> a raw asset in canonical
 * space: which nodes are joints, folding of the parents above the skeleton root, channel binding,
 * frame rates, meshes with at most four normalised weights and inverse bind matrices, units and
 * axes. */
#include "scene_import.h"
#include "conventions.h"

#include <string.h>

/* Node roles. */
enum {
  ROLE_SKIN = 1 << 0,     /* a bone of some skinned mesh */
  ROLE_ANIMATED = 1 << 1, /* a channel moves it away from its rest pose */
  ROLE_JOINT = 1 << 2,    /* ends up in the skeleton */
};

static bool node_has_payload(const rk__scene_node *n) {
  return n->mesh_count > 0 || n->is_camera || n->is_light;
}

static rk_transform node_rest(const rk__scene_node *n) {
  rk_transform t;
  if (!rk_transform_from_mat4(&n->local, &t))
    t = rk_transform_identity();
  return t;
}

/* True when a key value differs from the rest component. */
static bool vec3_differs(const double *v, rk_vec3 rest) {
  const double tol = 1e-6 * (1.0 + rk_vec3_norm(rest));
  return fabs(v[0] - rest.x) > tol || fabs(v[1] - rest.y) > tol || fabs(v[2] - rest.z) > tol;
}

static bool quat_differs(const double *v, rk_quat rest) {
  rk_quat q = rk_quat_normalize(rk_quat_make(v[0], v[1], v[2], v[3]));
  return rk_quat_angle_between(q, rk_quat_normalize(rest)) > 1e-6;
}

static bool channel_moves(const rk__scene_channel *c, const rk_transform *rest) {
  for (unsigned k = 0; k < c->n_pos; k++)
    if (vec3_differs(c->pos_values + 3 * k, rest->t))
      return true;
  for (unsigned k = 0; k < c->n_rot; k++)
    if (quat_differs(c->rot_values + 4 * k, rest->r))
      return true;
  for (unsigned k = 0; k < c->n_scale; k++)
    if (vec3_differs(c->scale_values + 3 * k, rest->s))
      return true;
  return false;
}

/* Binds a channel or bone name to a node. Names are unique for glTF (the JSON pre-pass renames
 * duplicates); elsewhere a shared name binds to the candidate that is not a mesh, camera or light
 * holder, the first in preorder otherwise. *ambiguous tells whether there was a choice. */
static int bind_name(const rk__scene *s, const char *name, bool *ambiguous) {
  int first = -1, best = -1, count = 0;
  for (unsigned i = 0; i < s->node_count; i++) {
    if (strcmp(s->nodes[i].name, name) != 0)
      continue;
    count++;
    if (first < 0)
      first = (int)i;
    if (best < 0 && !node_has_payload(&s->nodes[i]))
      best = (int)i;
  }
  if (ambiguous)
    *ambiguous = count > 1;
  return best >= 0 ? best : first;
}

static int lca(const rk__scene *s, int a, int b) {
  /* Preorder: a parent always has a smaller index, so walk the larger index up. */
  while (a != b) {
    if (a > b)
      a = s->nodes[a].parent;
    else
      b = s->nodes[b].parent;
    if (a < 0 || b < 0)
      return 0;
  }
  return a;
}

static rk_mat4 node_world(const rk__scene *s, int i) {
  rk_mat4 w = rk_mat4_identity();
  for (int j = i; j >= 0; j = s->nodes[j].parent) {
    rk_mat4 t = rk_mat4_mul(&s->nodes[j].local, &w);
    w = t;
  }
  return w;
}

/* ---- clips -------------------------------------------------------------------------------------- */

static const rk__gltf_interp *find_interp(const rk__gltf_info *g, unsigned anim, const char *node,
                                          rk_channel ch) {
  if (!g || !g->interps)
    return NULL;
  for (guint i = 0; i < g->interps->len; i++) {
    const rk__gltf_interp *e = g_ptr_array_index(g->interps, i);
    if (e->anim == anim && e->channel == ch && strcmp(e->node_name, node) == 0)
      return e;
  }
  return NULL;
}

/* Adds one channel component as a track; drops keys whose time does not increase. Returns the
 * number of dropped keys. */
static unsigned add_keys(rk__raw_clip *clip, int joint, rk_channel ch, rk_interp interp,
                         const double *times, const double *values, size_t n, double shift) {
  const int stride = rk_channel_components(ch) * (interp == RK_INTERP_CUBIC ? 3 : 1);
  rk__raw_track *t = rk__raw_clip_add_track(clip, joint, ch, interp);
  unsigned dropped = 0;
  double last = -INFINITY;
  double prev_q[4] = {0, 0, 0, 1};
  for (size_t k = 0; k < n; k++) {
    const double time = times[k] - shift;
    if (!(time > last)) {
      dropped++;
      continue;
    }
    double v[12];
    memcpy(v, values + k * (size_t)stride, (size_t)stride * sizeof(double));
    if (ch == RK_CHANNEL_ROTATION && interp != RK_INTERP_CUBIC) {
      /* Sign-continuous quaternions, so slerp between keys takes the short way. */
      if (k > 0 && v[0] * prev_q[0] + v[1] * prev_q[1] + v[2] * prev_q[2] + v[3] * prev_q[3] < 0)
        for (int c = 0; c < 4; c++)
          v[c] = -v[c];
      memcpy(prev_q, v, sizeof prev_q);
    }
    rk__raw_track_push(t, time, v);
    last = time;
  }
  return dropped;
}

static bool single_key_is_rest(size_t n, const double *v, rk_channel ch, const rk_transform *rest) {
  if (n != 1)
    return false;
  switch (ch) {
  case RK_CHANNEL_TRANSLATION:
    return !vec3_differs(v, rest->t);
  case RK_CHANNEL_ROTATION:
    return !quat_differs(v, rest->r);
  case RK_CHANNEL_SCALE:
    return !vec3_differs(v, rest->s);
  }
  return false;
}

/* The name of clip a: the animation's own, "clip<a>" when it has none, with ".001", ... when the
 * name is taken (taken: the names so far). */
static char *clip_name(const rk__scene_anim *an, unsigned a, GHashTable *taken,
                       rk__raw_asset *raw) {
  char *name = *an->name ? g_strdup(an->name) : g_strdup_printf("clip%u", a);
  if (!*an->name)
    rk__raw_note(raw, "animation %u has no name: called it '%s'", a, name);
  if (g_hash_table_contains(taken, name)) {
    char *fresh = NULL;
    for (unsigned k = 1;; k++) {
      fresh = g_strdup_printf("%s.%03u", name, k);
      if (!g_hash_table_contains(taken, fresh))
        break;
      g_free(fresh);
    }
    rk__raw_note(raw, "duplicate animation name '%s' (animation %u) renamed to '%s'", name, a,
                 fresh);
    g_free(name);
    name = fresh;
  }
  g_hash_table_add(taken, g_strdup(name));
  return name;
}

/* Times before 0 (FBX takes may start early): the earliest key time when it is negative, else 0;
 * subtracted from every key so that the clip starts at 0. */
static double clip_shift(const rk__scene_anim *an) {
  double t_min = INFINITY;
  for (unsigned c = 0; c < an->channel_count; c++) {
    const rk__scene_channel *ch = &an->channels[c];
    if (ch->n_pos)
      t_min = fmin(t_min, ch->pos_times[0]);
    if (ch->n_rot)
      t_min = fmin(t_min, ch->rot_times[0]);
    if (ch->n_scale)
      t_min = fmin(t_min, ch->scale_times[0]);
  }
  return isfinite(t_min) && t_min < 0 ? t_min : 0.0;
}

/* The tracks of channel ch of animation a, bound to joint (rest: its rest pose), with the
 * interpolation the glTF pre-pass recovered; appends their key times to all_times. Returns the
 * number of keys dropped because their time did not increase. */
static unsigned add_channel(const rk__scene_channel *ch, unsigned a, int joint,
                            const rk_transform *rest, const char *format,
                            const rk__gltf_info *gltf, double shift, rk__raw_clip *clip,
                            GArray *all_times) {
  const bool gltf_format = strcmp(format, "gltf") == 0 || strcmp(format, "glb") == 0;
  unsigned dropped = 0;
  struct {
    rk_channel ch;
    unsigned n;
    const double *times, *values;
  } parts[3] = {{RK_CHANNEL_TRANSLATION, ch->n_pos, ch->pos_times, ch->pos_values},
                {RK_CHANNEL_ROTATION, ch->n_rot, ch->rot_times, ch->rot_values},
                {RK_CHANNEL_SCALE, ch->n_scale, ch->scale_times, ch->scale_values}};
  for (int p = 0; p < 3; p++) {
    if (parts[p].n == 0)
      continue;
    const rk__gltf_interp *gi = find_interp(gltf, a, ch->node_name, parts[p].ch);
    /* Assimp gives an unanimated path of an animated glTF node one static rest key. */
    if (gltf_format && !gi && single_key_is_rest(parts[p].n, parts[p].values, parts[p].ch, rest))
      continue;
    rk_interp interp = gi ? gi->interp : RK_INTERP_LINEAR;
    if (interp == RK_INTERP_CUBIC && gi->values && gi->key_count > 0) {
      dropped += add_keys(clip, joint, parts[p].ch, interp, gi->times, gi->values, gi->key_count,
                          shift);
      g_array_append_vals(all_times, gi->times, (guint)gi->key_count);
    } else {
      if (interp == RK_INTERP_CUBIC)
        interp = RK_INTERP_LINEAR;
      dropped += add_keys(clip, joint, parts[p].ch, interp, parts[p].times, parts[p].values,
                          parts[p].n, shift);
      g_array_append_vals(all_times, parts[p].times, parts[p].n);
    }
  }
  return dropped;
}

static void build_clips(const rk__scene *s, const char *format, const rk__gltf_info *gltf,
                        const int *joint_of_node, const rk_transform *rests, rk__raw_asset *raw) {
  const bool gltf_format = strcmp(format, "gltf") == 0 || strcmp(format, "glb") == 0;
  g_autoptr(GHashTable) clip_names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (unsigned a = 0; a < s->anim_count; a++) {
    const rk__scene_anim *an = &s->anims[a];
    g_autofree char *name = clip_name(an, a, clip_names, raw);
    rk__raw_clip *clip = rk__raw_add_clip(raw, name);
    const double shift = clip_shift(an);
    if (shift < 0)
      rk__raw_note(raw, "clip '%s' starts at %g s: shifted to start at 0", name, shift);
    unsigned dropped = 0, ignored = 0;
    GArray *all_times = g_array_new(FALSE, FALSE, sizeof(double));
    for (unsigned c = 0; c < an->channel_count; c++) {
      const rk__scene_channel *ch = &an->channels[c];
      int node = bind_name(s, ch->node_name, NULL);
      int joint = node >= 0 ? joint_of_node[node] : -1;
      if (joint < 0) {
        /* Channels of folded parents carry their rest pose (else they would be joints);
         * cameras and lights are not part of a skeleton. */
        if (node < 0 || node_has_payload(&s->nodes[node]))
          ignored++;
        continue;
      }
      dropped += add_channel(ch, a, joint, &rests[joint], format, gltf, shift, clip, all_times);
    }
    if (dropped)
      rk__raw_note(raw, "clip '%s': dropped %u keys whose time did not increase", name, dropped);
    if (ignored)
      rk__raw_note(raw, "clip '%s': ignored %u channels of nodes outside the skeleton", name,
                   ignored);
    const double last = an->duration - shift;
    clip->duration = isfinite(last) && last > 0 ? last : -1.0;
    if (!gltf_format && !(an->ticks_per_second > 0))
      rk__raw_note(raw, "clip '%s' has no tick rate: read at %g ticks per second", name,
                   1.0 / an->tick_seconds);
    if (strcmp(format, "fbx") == 0 && an->ticks_per_second > 0) {
      clip->fps = an->ticks_per_second;
    } else {
      bool regular = false;
      clip->fps = rk__fps_from_times((const double *)(void *)all_times->data, all_times->len,
                                     &regular);
      if (clip->fps > 0 && !regular)
        rk__raw_note(raw, "clip '%s': frame rate %g fps from the key spacing, but not every key "
                          "lies on its frame grid", name, clip->fps);
    }
    g_array_unref(all_times);
  }
}

/* ---- meshes ------------------------------------------------------------------------------------- */

typedef struct influence {
  int joint;
  float weight;
} influence;

static int cmp_influence(const void *a, const void *b) {
  const float x = ((const influence *)a)->weight, y = ((const influence *)b)->weight;
  return x > y ? -1 : x < y;
}

/* What build_meshes repaired or approximated, for its notes. */
typedef struct mesh_counts {
  unsigned over_four, ibm_conflicts, unbound, skin_moved, bind_differs;
} mesh_counts;

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
    int bn = bind_name(s, bone->name, NULL);
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

static void build_meshes(const rk__scene *s, const char *format, const int *joint_of_node,
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
      rk_mat4 to_world = (skinned && gltf) ? rk_mat4_identity() : node_world(s, (int)ni);
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

/* ---- the whole scene ---------------------------------------------------------------------------- */

/* Marks the skin joints (bones of meshes; FBX skeleton nodes) and the animated nodes in role, and
 * notes names that bind ambiguously and channels that bind to nothing. */
static void mark_skin_and_animated(const rk__scene *s, const rk_transform *node_rests,
                                   unsigned *role, rk__raw_asset *raw) {
  const unsigned n = s->node_count;
  unsigned ambiguous = 0;
  for (unsigned m = 0; m < s->mesh_count; m++)
    for (unsigned b = 0; b < s->meshes[m].bone_count; b++) {
      bool amb = false;
      int node = bind_name(s, s->meshes[m].bones[b].name, &amb);
      ambiguous += amb;
      if (node >= 0)
        role[node] |= ROLE_SKIN;
    }
  /* FBX skeleton nodes are bones even when no mesh weights them and no clip moves them (an
   * unanimated root above the hips); leaves are left to the bone-tip rule below. */
  for (unsigned i = 0; i < n; i++)
    if (s->nodes[i].fbx_skeleton)
      role[i] |= ROLE_SKIN;
  unsigned unknown_channels = 0;
  for (unsigned a = 0; a < s->anim_count; a++)
    for (unsigned c = 0; c < s->anims[a].channel_count; c++) {
      const rk__scene_channel *ch = &s->anims[a].channels[c];
      bool amb = false;
      int node = bind_name(s, ch->node_name, &amb);
      ambiguous += amb;
      if (node < 0) {
        unknown_channels++;
        continue;
      }
      if (!s->nodes[node].is_camera && !s->nodes[node].is_light &&
          channel_moves(ch, &node_rests[node]))
        role[node] |= ROLE_ANIMATED;
    }
  if (ambiguous)
    rk__raw_note(raw, "%u bone or channel names match several nodes: bound to the node that "
                      "holds no mesh, camera or light", ambiguous);
  if (unknown_channels)
    rk__raw_note(raw, "%u animation channels name no node and were ignored", unknown_channels);
}

/* The skeleton's root: the lowest common ancestor of the skin joints and animated nodes, or -1
 * when there are none. */
static int skeleton_root(const rk__scene *s, const unsigned *role) {
  int root = -1;
  for (unsigned i = 0; i < s->node_count; i++)
    if (role[i] & (ROLE_SKIN | ROLE_ANIMATED))
      root = root < 0 ? (int)i : lca(s, root, (int)i);
  return root;
}

/* Marks as joints the skin joints, the animated nodes and their ancestors up to the root, and
 * the bone tips below joints (e.g. Blender's "_end" leaf bones): whole subtrees without meshes,
 * cameras or lights. Returns the number of bone tips. */
static unsigned mark_joints(const rk__scene *s, int root, unsigned *role) {
  const unsigned n = s->node_count;
  for (unsigned i = 0; i < n; i++)
    if (role[i] & (ROLE_SKIN | ROLE_ANIMATED))
      for (int j = (int)i; j >= 0 && !(role[j] & ROLE_JOINT); j = s->nodes[j].parent) {
        role[j] |= ROLE_JOINT;
        if (j == root)
          break;
      }
  /* Preorder lets one backward pass find payload-free subtrees. */
  g_autofree guint8 *has_payload_below = g_new0(guint8, n);
  for (unsigned i = n; i-- > 0;) {
    if (node_has_payload(&s->nodes[i]))
      has_payload_below[i] = 1;
    if (has_payload_below[i] && s->nodes[i].parent >= 0)
      has_payload_below[s->nodes[i].parent] = 1;
  }
  unsigned tips = 0;
  for (unsigned i = 0; i < n; i++) {
    const int p = s->nodes[i].parent;
    if (!(role[i] & ROLE_JOINT) && p >= 0 && (role[p] & ROLE_JOINT) && (int)i != root &&
        !has_payload_below[i]) {
      /* Only below the root: parents of the root are folded, not joints. */
      bool under_root = false;
      for (int j = p; j >= 0; j = s->nodes[j].parent)
        if (j == root) {
          under_root = true;
          break;
        }
      if (under_root) {
        role[i] |= ROLE_JOINT;
        tips++;
      }
    }
  }
  return tips;
}

/* Adds the joint nodes to raw in preorder (joint_of_node: each node's raw joint or -1) and
 * returns their rest transforms (a GArray of rk_transform, in raw joint order). */
static GArray *add_joints(const rk__scene *s, const unsigned *role, int root,
                          const rk_transform *node_rests, int *joint_of_node, rk__raw_asset *raw) {
  const unsigned n = s->node_count;
  GArray *rests = g_array_new(FALSE, FALSE, sizeof(rk_transform));
  for (unsigned i = 0; i < n; i++) {
    joint_of_node[i] = -1;
    if (!(role[i] & ROLE_JOINT))
      continue;
    const rk__scene_node *node = &s->nodes[i];
    const int parent = (int)i == root ? -1 : joint_of_node[node->parent];
    bool leaf = true;
    for (unsigned c = i + 1; c < n && leaf; c++)
      if (s->nodes[c].parent == (int)i && (role[c] & ROLE_JOINT))
        leaf = false;
    unsigned flags = 0;
    if (leaf && !(role[i] & (ROLE_SKIN | ROLE_ANIMATED)))
      flags |= RK_JOINT_END_SITE;
    if ((int)i == root && i == 0 && !(role[i] & (ROLE_SKIN | ROLE_ANIMATED)))
      flags |= RK_JOINT_HELPER;
    joint_of_node[i] = rk__raw_add_joint(raw, node->name, parent, &node_rests[i], flags);
    g_array_append_val(rests, node_rests[i]);
    /* Shear cannot live in a TRS rest pose: say so when the decomposition loses it. */
    rk_mat4 back = rk_transform_to_mat4(&node_rests[i]);
    if (rk_mat4_max_abs_diff(&back, &node->local) > 1e-5 * (1.0 + fabs(node->local.m[12]) +
                                                            fabs(node->local.m[13]) +
                                                            fabs(node->local.m[14])))
      rk__raw_note(raw, "node '%s' has a sheared transform: approximated by translation, "
                        "rotation and scale", node->name);
  }
  return rests;
}

/* Folds the parents above the root into it: model space = the file's world space. */
static void fold_above_root(const rk__scene *s, int root, const char *format, rk__raw_asset *raw) {
  if (s->nodes[root].parent < 0)
    return;
  rk_mat4 above = node_world(s, s->nodes[root].parent);
  rk_transform fold;
  if (!rk_transform_from_mat4(&above, &fold))
    return;
  GString *names = g_string_new(NULL);
  for (int j = s->nodes[root].parent; j >= 0; j = s->nodes[j].parent)
    g_string_append_printf(names, "%s'%s'", names->len ? ", " : "", s->nodes[j].name);
  const bool uniform = fabs(fold.s.y - fold.s.x) <= 1e-6 * fabs(fold.s.x) &&
                       fabs(fold.s.z - fold.s.x) <= 1e-6 * fabs(fold.s.x);
  if (!uniform)
    rk__raw_note(raw, "parents of the root have a non-uniform scale (%g, %g, %g): "
                      "root animation approximated", fold.s.x, fold.s.y, fold.s.z);
  const rk_mat4 id4 = rk_mat4_identity();
  const bool identity = rk_mat4_max_abs_diff(&above, &id4) < 1e-9;
  if (!identity) {
    rk__raw_premultiply_roots(raw, &fold);
    rk__raw_note(raw, "transform of the nodes above the skeleton root (%s) folded into root "
                      "joint '%s'", names->str, s->nodes[root].name);
    /* A parent that turns Z-up content into glTF's Y-up world (a "Z_UP" node). */
    rk_vec3 z = rk_quat_rotate(fold.r, rk_vec3_make(0, 0, 1));
    if (strcmp(format, "fbx") != 0 && rk_vec3_norm(rk_vec3_sub(z, rk_vec3_make(0, 1, 0))) < 1e-3) {
      rk__raw_set_up_axis(raw, "Z");
      rk__raw_note(raw, "the skeleton is authored Z-up under a rotating parent: folded into "
                        "the canonical Y-up conversion");
    }
  }
  g_string_free(names, TRUE);
}

/* The unit: FBX's UnitScaleFactor (Assimp's GlobalScale already took the scene to metres), glTF's
 * metres; the caller's unit overrides either. */
static void set_unit(const rk__scene *s, const char *format, const rk_import_options *opts,
                     rk__raw_asset *raw) {
  if (strcmp(format, "fbx") == 0) {
    const double usf = s->unit_scale_factor > 0 ? s->unit_scale_factor : 1.0;
    const double m = usf * 0.01;
    const char *name = rk__unit_name(m);
    rk__raw_set_unit(raw, name ? name : "custom", m);
    rk__raw_note(raw, "FBX UnitScaleFactor %g (%g m per unit)%s", usf, m,
                 s->global_scale_applied ? ": scaled to metres by Assimp's GlobalScale" : "");
  } else {
    rk__raw_set_unit(raw, "m", 1.0);
  }
  if (opts->unit_scale > 0) {
    const double cur = raw->unit_scale;
    rk__raw_scale_lengths(raw, opts->unit_scale / cur);
    const char *name = rk__unit_name(opts->unit_scale);
    rk__raw_set_unit(raw, name ? name : "custom", opts->unit_scale);
    rk__raw_note(raw, "unit overridden: %g m per file unit (instead of %g)", opts->unit_scale, cur);
  }
}

/* FBX global axes (Assimp 5.2.5 does not apply them): a rotation folded into the roots, or a
 * mirror (re-expressing everything) for left-handed axes. */
static void apply_fbx_axes(const rk__scene *s, rk__raw_asset *raw) {
  if (!s->has_axes)
    return;
  rk_mat3 a = rk__basis_from_axes(s->up_axis, s->up_sign, s->front_axis, s->front_sign,
                                  s->coord_axis, s->coord_sign);
  rk_mat3 id = rk_mat3_identity();
  double diff = 0;
  for (int i = 0; i < 9; i++)
    diff = fmax(diff, fabs(a.m[i] - id.m[i]));
  rk__raw_set_up_axis(raw, rk__axis_name(s->up_axis, s->up_sign));
  if (!(diff > 0.5))
    return;
  const double det = a.m[0] * (a.m[4] * a.m[8] - a.m[7] * a.m[5]) -
                     a.m[3] * (a.m[1] * a.m[8] - a.m[7] * a.m[2]) +
                     a.m[6] * (a.m[1] * a.m[5] - a.m[4] * a.m[2]);
  if (det > 0) {
    rk_transform fold = rk_transform_identity();
    fold.r = rk_quat_from_mat3(&a);
    rk__raw_premultiply_roots(raw, &fold);
  } else {
    rk__raw_change_basis(raw, &a);
  }
  rk__raw_note(raw, "FBX axes: up %s, front %s, right %s%s: converted to Y-up",
               rk__axis_name(s->up_axis, s->up_sign), rk__axis_name(s->front_axis, s->front_sign),
               rk__axis_name(s->coord_axis, s->coord_sign),
               det < 0 ? " (left-handed: mirrored)" : "");
}

/* Plausibility: glTF says metres, but not every exporter listens. */
static void note_implausible_height(rk__raw_asset *raw) {
  g_autofree rk_mat4 *models = rk__raw_rest_models(raw);
  if (!models || raw->joints->len <= 1)
    return;
  double lo = INFINITY, hi = -INFINITY;
  for (guint i = 0; i < raw->joints->len; i++) {
    lo = fmin(lo, models[i].m[13]);
    hi = fmax(hi, models[i].m[13]);
  }
  if (hi - lo > 20.0 || (hi - lo > 0 && hi - lo < 0.02))
    rk__raw_note(raw, "the rest skeleton is %.3g m tall: the file's unit may not be metres "
                      "(see --unit)", hi - lo);
}

rk__raw_asset *rk__scene_to_raw(const rk__scene *s, const char *format, const rk__gltf_info *gltf,
                                const rk_import_options *opts, GError **error) {
  const unsigned n = s->node_count;
  if (n == 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "the scene has no nodes");
    return NULL;
  }
  g_autoptr(rk__raw_asset) raw = rk__raw_asset_new();
  if (gltf && gltf->notes)
    for (guint i = 0; i < gltf->notes->len; i++)
      rk__raw_note(raw, "%s", (const char *)g_ptr_array_index(gltf->notes, i));
  g_autofree unsigned *role = g_new0(unsigned, n);
  g_autofree rk_transform *node_rests = g_new(rk_transform, n);
  for (unsigned i = 0; i < n; i++)
    node_rests[i] = node_rest(&s->nodes[i]);
  mark_skin_and_animated(s, node_rests, role, raw);
  /* Skin joints and animated nodes, connected through their ancestors to one root. */
  const int root = skeleton_root(s, role);
  if (root < 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_UNSUPPORTED,
                "no skeleton: no skinned joints and no animated nodes");
    return NULL;
  }
  const unsigned tips = mark_joints(s, root, role);
  g_autofree int *joint_of_node = g_new(int, n);
  GArray *rests = add_joints(s, role, root, node_rests, joint_of_node, raw);
  if (tips)
    rk__raw_note(raw, "%u unskinned, unanimated nodes below joints kept as joints (bone tips)",
                 tips);
  build_clips(s, format, gltf, joint_of_node, (const rk_transform *)(void *)rests->data, raw);
  g_array_unref(rests);
  fold_above_root(s, root, format, raw);
  if (!opts->skip_meshes)
    build_meshes(s, format, joint_of_node, raw);
  rk__raw_normalize_root_scale(raw);
  set_unit(s, format, opts, raw);
  apply_fbx_axes(s, raw);
  rk__raw_uniquify_names(raw);
  note_implausible_height(raw);
  return g_steal_pointer(&raw);
}
