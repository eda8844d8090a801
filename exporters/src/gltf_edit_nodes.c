/* A document's node tree, and the clip as keys of its nodes (see gltf_edit_nodes.h).
 *
 * Joint j of the asset was read from node n. Its canonical rest model matrix M_j and the node's
 * rest world matrix W_n differ by what the import did (parents folded into the root joint, a
 * root's scale moved into translations, the unit): a fixed correction B_j = (K M_j)^-1 W_n, K
 * taking canonical metres to the document's unit. At frame t, W_n(t) = K M_j(t) B_j, and the keys
 * of n are its local transform W_parent(n)(t)^-1 W_n(t), the parent's world matrix from the
 * document's nodes (a joint node's as just computed, any other node's from its rest transform). */
#include "gltf_edit_nodes.h"

#include <rigkit/fk.h>
#include <string.h>

/* Reads n finite numbers of member `name`: 1 = read, 0 = absent, -1 = malformed. */
static int read_numbers(JsonObject *o, const char *name, guint n, double *out) {
  JsonNode *m = json_object_get_member(o, name);
  if (!m)
    return 0;
  JsonArray *a = JSON_NODE_HOLDS_ARRAY(m) ? json_node_get_array(m) : NULL;
  if (!a || json_array_get_length(a) != n)
    return -1;
  for (guint i = 0; i < n; i++) {
    JsonNode *e = json_array_get_element(a, i);
    GType t = JSON_NODE_HOLDS_VALUE(e) ? json_node_get_value_type(e) : G_TYPE_INVALID;
    if (t != G_TYPE_INT64 && t != G_TYPE_DOUBLE)
      return -1;
    out[i] = t == G_TYPE_INT64 ? (double)json_node_get_int(e) : json_node_get_double(e);
    if (!isfinite(out[i]))
      return -1;
  }
  return 1;
}

/* Node o's rest local matrix; false when a transform member is malformed. */
static bool node_local(JsonObject *o, rk_mat4 *out) {
  double v[16];
  int r = read_numbers(o, "matrix", 16, v);
  if (r != 0) {
    memcpy(out->m, v, sizeof v); /* glTF matrices are column-major, as rigkit's */
    return r > 0;
  }
  rk_transform x = rk_transform_identity();
  if ((r = read_numbers(o, "translation", 3, v)) < 0)
    return false;
  if (r > 0)
    x.t = rk_vec3_make(v[0], v[1], v[2]);
  if ((r = read_numbers(o, "rotation", 4, v)) < 0)
    return false;
  if (r > 0)
    x.r = rk_quat_normalize((rk_quat){v[0], v[1], v[2], v[3]});
  if ((r = read_numbers(o, "scale", 3, v)) < 0)
    return false;
  if (r > 0)
    x.s = rk_vec3_make(v[0], v[1], v[2]);
  *out = rk_transform_to_mat4(&x);
  return true;
}

/* Parent links from the children arrays; false on a bad index, two parents or a cycle. */
static bool link_parents(JsonArray *nodes, rk__gltf_nodes *d, const char *path, GError **error) {
  for (guint i = 0; i < d->count; i++) {
    JsonObject *o = json_array_get_object_element(nodes, i);
    JsonNode *cn = json_object_get_member(o, "children");
    JsonArray *ch = cn && JSON_NODE_HOLDS_ARRAY(cn) ? json_node_get_array(cn) : NULL;
    for (guint k = 0; ch && k < json_array_get_length(ch); k++) {
      JsonNode *e = json_array_get_element(ch, k);
      const gint64 c = JSON_NODE_HOLDS_VALUE(e) && json_node_get_value_type(e) == G_TYPE_INT64
                           ? json_node_get_int(e)
                           : -1;
      if (c < 0 || c >= d->count || d->parent[c] >= 0 || c == i) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                    "%s: node %u: child %u is not a node index of its own", path, i, k);
        return false;
      }
      d->parent[c] = (gint)i;
    }
  }
  /* Parents before children: roots first, then breadth-first; a node never reached is in a
   * cycle. */
  guint n = 0;
  for (guint i = 0; i < d->count; i++)
    if (d->parent[i] < 0)
      d->order[n++] = i;
  for (guint k = 0; k < n; k++)
    for (guint i = 0; i < d->count; i++)
      if (d->parent[i] == (gint)d->order[k])
        d->order[n++] = i;
  if (n != d->count) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: the nodes' children form a cycle", path);
    return false;
  }
  return true;
}

bool rk__gltf_nodes_read(JsonArray *nodes, rk__gltf_nodes *d, const char *path,
                         GError **error) {
  memset(d, 0, sizeof *d);
  d->count = nodes ? json_array_get_length(nodes) : 0;
  const guint n = d->count ? d->count : 1;
  d->parent = g_new(gint, n);
  d->order = g_new(guint, n);
  d->local = g_new(rk_mat4, n);
  d->world = g_new(rk_mat4, n);
  d->names = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < d->count; i++) {
    JsonNode *e = json_array_get_element(nodes, i);
    JsonObject *o = JSON_NODE_HOLDS_OBJECT(e) ? json_node_get_object(e) : NULL;
    const char *name = o ? json_object_get_string_member_with_default(o, "name", NULL) : NULL;
    g_ptr_array_add(d->names, name ? g_strdup(name) : g_strdup_printf("nodes[%u]", i));
    d->parent[i] = -1;
    if (!o || !node_local(o, &d->local[i])) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                  "%s: node %u is not an object with a finite transform", path, i);
      return false;
    }
  }
  if (!link_parents(nodes, d, path, error))
    return false;
  for (guint k = 0; k < d->count; k++) {
    const guint i = d->order[k];
    d->world[i] = d->parent[i] < 0 ? d->local[i] : rk_mat4_mul(&d->world[d->parent[i]], &d->local[i]);
  }
  return true;
}

void rk__gltf_nodes_clear(rk__gltf_nodes *d) {
  g_free(d->parent);
  g_free(d->order);
  g_free(d->local);
  g_free(d->world);
  if (d->names)
    g_ptr_array_unref(d->names);
  memset(d, 0, sizeof *d);
}

/* ---- the clip as node keys ------------------------------------------------------------------ */

/* What the frames are computed with: the joint each node was read from, the corrections, and the
 * per-frame work arrays (allocated once). */
typedef struct node_keys {
  const rk__gltf_nodes *d;
  const rk_asset *asset;
  size_t nj;
  double k;        /* K: document units per canonical metre */
  int *joint_of;   /* per node: the joint read from it, or -1 */
  rk_mat4 *fix;    /* per joint: B_j */
  rk_transform *locals;
  rk_mat4 *models; /* per joint, canonical */
  rk_mat4 *world;  /* per node, this frame */
  rk_clip_cursor cursor; /* frames are sampled in order: each track's key found from the last */
  double *t, *r, *s; /* per node, per frame: 3, 4, 3 values */
  const char *path;
} node_keys;

static void node_keys_clear(node_keys *nk) {
  g_free(nk->joint_of);
  g_free(nk->fix);
  g_free(nk->locals);
  g_free(nk->models);
  g_free(nk->world);
  g_free(nk->cursor.keys);
  g_free(nk->t);
  g_free(nk->r);
  g_free(nk->s);
}

/* K m: the canonical model matrix m in document units. */
static rk_mat4 in_document_units(const node_keys *nk, const rk_mat4 *m) {
  rk_mat4 km = *m;
  if (nk->k == 1.0)
    return km; /* a document in metres: x * 1.0 is x */
  for (int c = 0; c < 15; c++)
    km.m[c] *= (c % 4 == 3) ? 1.0 : nk->k; /* not the bottom row */
  return km;
}

/* Binds joints to nodes and computes B_j. */
static bool bind_joints(node_keys *nk, GError **error) {
  const rk_skeleton *sk = rk_asset_skeleton(nk->asset);
  const guint nn = nk->d->count;
  nk->joint_of = g_new(int, nn ? nn : 1);
  for (guint i = 0; i < nn; i++)
    nk->joint_of[i] = -1;
  nk->fix = g_new(rk_mat4, nk->nj);
  rk_skeleton_rest_models(sk, nk->models);
  size_t bound = 0;
  for (size_t j = 0; j < nk->nj; j++) {
    const int n = rk_asset_joint_source_node(nk->asset, j);
    if (n < 0)
      continue;
    if ((guint)n >= nn || nk->joint_of[n] >= 0) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                  "%s: joint '%s' was read from node %d, which this document does not hold "
                  "for it: not the file the character was imported from", nk->path,
                  rk_skeleton_joint_name(sk, j), n);
      return false;
    }
    nk->joint_of[n] = (int)j;
    const rk_mat4 km = in_document_units(nk, &nk->models[j]);
    rk_mat4 inv;
    if (!rk_mat4_inverse_affine(&km, &inv)) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "%s: joint '%s' has a singular rest pose",
                  nk->path, rk_skeleton_joint_name(sk, j));
      return false;
    }
    nk->fix[j] = rk_mat4_mul(&inv, &nk->d->world[n]);
    bound++;
  }
  if (bound == 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "%s: no joint of the character was read from this document", nk->path);
    return false;
  }
  return true;
}

/* The world matrices and the joint nodes' local transforms of frame f (allocates nothing). */
static bool pose_frame(node_keys *nk, const rk_clip *clip, double fps, size_t f, size_t frames,
                       GError **error) {
  const rk_skeleton *sk = rk_asset_skeleton(nk->asset);
  const rk__gltf_nodes *d = nk->d;
  if (fps > 0) /* as rk_clip_sample_frame: time f / fps, clamped to the clip */
    rk_clip_sample_cursor(clip, rk_skeleton_rest_locals(sk), (double)f / fps, &nk->cursor,
                          nk->locals, nk->nj);
  rk_fk_models(sk, nk->locals, nk->models);
  for (guint k = 0; k < d->count; k++) {
    const guint n = d->order[k];
    const int j = nk->joint_of[n], p = d->parent[n];
    if (j < 0) {
      nk->world[n] = p < 0 ? d->local[n] : rk_mat4_mul(&nk->world[p], &d->local[n]);
      continue;
    }
    const rk_mat4 km = in_document_units(nk, &nk->models[j]);
    nk->world[n] = rk_mat4_mul(&km, &nk->fix[j]);
    rk_mat4 inv = rk_mat4_identity(), local;
    rk_transform x;
    bool ok = p < 0 || rk_mat4_inverse_affine(&nk->world[p], &inv);
    local = rk_mat4_mul(&inv, &nk->world[n]);
    ok = ok && rk_transform_from_mat4(&local, &x) && rk_transform_is_finite(&x);
    if (!ok) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                  "%s: node '%s' (joint '%s'), frame %zu: the transform is singular or not finite",
                  nk->path, (const char *)g_ptr_array_index(d->names, n),
                  rk_skeleton_joint_name(sk, (size_t)j), f);
      return false;
    }
    const size_t at = (size_t)n * frames + f;
    memcpy(nk->t + 3 * at, &x.t, 3 * sizeof(double));
    memcpy(nk->r + 4 * at, &x.r, 4 * sizeof(double));
    memcpy(nk->s + 3 * at, &x.s, 3 * sizeof(double));
  }
  return true;
}

/* Whether node n's scale leaves its rest scale in some frame. */
static bool scale_moves(const node_keys *nk, guint n, size_t frames) {
  rk_transform rest;
  if (!rk_transform_from_mat4(&nk->d->local[n], &rest))
    return true;
  const double r[3] = {rest.s.x, rest.s.y, rest.s.z};
  for (size_t f = 0; f < frames; f++)
    for (int c = 0; c < 3; c++)
      if (fabs(nk->s[3 * ((size_t)n * frames + f) + (size_t)c] - r[c]) > 1e-6 * fabs(r[c]))
        return true;
  return false;
}

rk_clip *rk__gltf_edit_node_clip(const rk__gltf_nodes *d, const rk_asset *asset,
                                 const rk_clip *clip, double fps, size_t frames,
                                 bool **animated, const char *path, GError **error) {
  node_keys nk = {0};
  nk.d = d;
  nk.asset = asset;
  nk.nj = rk_skeleton_joint_count(rk_asset_skeleton(asset));
  *animated = NULL;
  const double unit = rk_asset_unit_scale(asset);
  nk.k = unit > 0 && isfinite(unit) ? 1.0 / unit : 1.0;
  nk.path = path;
  nk.locals = g_new(rk_transform, nk.nj);
  nk.models = g_new(rk_mat4, nk.nj);
  nk.world = g_new(rk_mat4, d->count ? d->count : 1);
  nk.cursor.keys_count = rk_clip_track_count(clip);
  nk.cursor.keys = g_new0(uint32_t, nk.cursor.keys_count + 1);
  const size_t cells = (size_t)d->count * frames;
  nk.t = g_new(double, 3 * cells + 1);
  nk.r = g_new(double, 4 * cells + 1);
  nk.s = g_new(double, 3 * cells + 1);
  rk_clip *out = NULL;
  g_autofree double *times = g_new(double, frames);
  for (size_t f = 0; f < frames; f++)
    times[f] = fmin((double)f / fps, rk_clip_duration(clip));
  bool ok = bind_joints(&nk, error);
  for (size_t f = 0; ok && f < frames; f++)
    ok = pose_frame(&nk, clip, fps, f, frames, error);
  if (ok) {
    out = rk_clip_new(rk_clip_name(clip), d->count);
    rk_clip_set_fps(out, fps);
    rk_clip_set_duration(out, rk_clip_duration(clip));
    *animated = g_new0(bool, d->count ? d->count : 1);
    const rk_skeleton *sk = rk_asset_skeleton(asset);
    for (size_t j = 0; ok && j < nk.nj; j++) {
      const int n = rk_asset_joint_source_node(asset, j);
      if (n < 0)
        continue;
      (*animated)[n] = true;
      const size_t at = (size_t)n * frames;
      const rk_track tt = {n, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, frames, times, nk.t + 3 * at};
      const rk_track rt = {n, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, frames, times, nk.r + 4 * at};
      const rk_track st = {n, RK_CHANNEL_SCALE, RK_INTERP_LINEAR, frames, times, nk.s + 3 * at};
      ok = rk_clip_add_track(out, &tt, error) && rk_clip_add_track(out, &rt, error) &&
           (!scale_moves(&nk, (guint)n, frames) || rk_clip_add_track(out, &st, error));
      if (!ok)
        g_prefix_error(error, "%s: joint '%s': ", path, rk_skeleton_joint_name(sk, j));
    }
  }
  if (!ok) {
    g_clear_pointer(&out, rk_clip_free);
    g_clear_pointer(animated, g_free);
  }
  node_keys_clear(&nk);
  return out;
}
