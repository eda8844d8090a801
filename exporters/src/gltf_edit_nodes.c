/* A document's node tree, and the clip as keys of its nodes (see gltf_edit_nodes.h).
 *
 * Joint j of the asset was read from node n. Its canonical rest model matrix M_j and the node's
 * rest world matrix W_n differ by what the import did (parents folded into the root joint, a
 * root's scale moved into translations, the unit): a fixed correction B_j = (K M_j)^-1 W_n, K
 * taking canonical metres to the document's unit. At frame t, W_n(t) = K M_j(t) B_j, and the keys
 * of n are its local transform W_parent(n)(t)^-1 W_n(t), the parent's world matrix from the
 * document's nodes (a joint node's as just computed, any other node's from its rest transform).
 * When joint nodes hang from their parent joints' nodes, that local is B_i^-1 L_j B_j (i the
 * parent joint, L_j the joint's sampled local): the short way, with no FK and no inverse per
 * frame (choose_short); the keys move by the rounding of the products only. */
#include "gltf_edit_nodes.h"

#include "node_pair.h"

#include <rigkit/fk.h>
#include <rigkit/halves.h>
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

/* What the frames are computed with: the joint each node was read from and the corrections
 * (read only while frames are posed), and the keys they produce. */
typedef struct node_keys {
  const rk__gltf_nodes *d;
  const rk_asset *asset;
  const rk_clip *clip;
  double fps;
  size_t frames;
  size_t nj;
  double k;        /* K: document units per canonical metre */
  int *joint_of;   /* per node: the joint read from it, or -1 */
  rk_mat4 *fix;    /* per joint: B_j */
  /* The short way (choose_short), when every frame can take it: per joint node its way, per
   * joint B_j as a transform and B_j^-1 (both ways), per root joint node the inverse of its
   * parent node's rest world matrix. */
  bool short_way;
  unsigned char *way; /* per node: WAY_* */
  rk_transform *fix_x; /* per joint: B_j and B_j^-1 as transforms, when B_j's scale is even */
  bool *fix_even;      /* per joint */
  rk_mat4 *fix_inv;    /* per joint: B_j^-1 */
  rk_mat4 *parent_inv; /* per node of a root joint */
  double **t, **r, **s; /* per node a joint was read from: frames x 3, 4, 3 values (else NULL) */
  const char *path;
} node_keys;

static void node_keys_clear(node_keys *nk) {
  for (guint n = 0; nk->t && n < nk->d->count; n++) {
    g_free(nk->t[n]);
    g_free(nk->r[n]);
    g_free(nk->s[n]);
  }
  g_free(nk->t);
  g_free(nk->r);
  g_free(nk->s);
  g_free(nk->joint_of);
  g_free(nk->fix);
  g_free(nk->way);
  g_free(nk->fix_x);
  g_free(nk->fix_even);
  g_free(nk->fix_inv);
  g_free(nk->parent_inv);
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

/* Binds joints to nodes, computes B_j and allocates the joint nodes' keys. */
static bool bind_joints(node_keys *nk, GError **error) {
  const rk_skeleton *sk = rk_asset_skeleton(nk->asset);
  const guint nn = nk->d->count;
  nk->joint_of = g_new(int, nn ? nn : 1);
  for (guint i = 0; i < nn; i++)
    nk->joint_of[i] = -1;
  nk->fix = g_new(rk_mat4, nk->nj);
  g_autofree rk_mat4 *models = g_new(rk_mat4, nk->nj);
  rk_skeleton_rest_models(sk, models);
  nk->t = g_new0(double *, nn ? nn : 1);
  nk->r = g_new0(double *, nn ? nn : 1);
  nk->s = g_new0(double *, nn ? nn : 1);
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
    const rk_mat4 km = in_document_units(nk, &models[j]);
    rk_mat4 inv;
    if (!rk_mat4_inverse_affine(&km, &inv)) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "%s: joint '%s' has a singular rest pose",
                  nk->path, rk_skeleton_joint_name(sk, j));
      return false;
    }
    nk->fix[j] = rk_mat4_mul(&inv, &nk->d->world[n]);
    nk->t[n] = g_new(double, 3 * nk->frames + 1);
    nk->r[n] = g_new(double, 4 * nk->frames + 1);
    nk->s[n] = g_new(double, 3 * nk->frames + 1);
    bound++;
  }
  if (bound == 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "%s: no joint of the character was read from this document", nk->path);
    return false;
  }
  return true;
}

/* How a joint node's keys are computed the short way, from the joint's sampled local L_j. */
enum {
  WAY_NONE,  /* not a joint node */
  WAY_TRS,   /* B_i^-1 L_j B_j as products of transforms (B_i, B_j scaled evenly) */
  WAY_MAT,   /* B_i^-1 L_j B_j as 4x4 products, decomposed */
  WAY_ROOT,  /* a root joint: (parent's rest world)^-1 K L_j B_j, decomposed */
};

/* Whether scale s is even (its components positive and equal to 1e-7 relative): products of
 * transforms then hold the products of their matrices, to that relative error. */
static bool scale_even(rk_vec3 s) {
  return s.x > 0 && fabs(s.y - s.x) <= 1e-7 * s.x && fabs(s.z - s.x) <= 1e-7 * s.x;
}

/* The joint node n's way, and what it needs; false when it needs the long way. The local of node
 * n(j) under n(i), i the parent joint, is W_n(i)^-1 W_n(j) = B_i^-1 (K M_i)^-1 K M_j B_j =
 * B_i^-1 L_j B_j: no FK of every joint and no 4x4 inverse per parent each frame. A root joint
 * whose node hangs from nodes that are not joints has a fixed parent world. */
static bool choose_way(node_keys *nk, const int *parents, const bool *inv_ok, guint n) {
  const rk__gltf_nodes *d = nk->d;
  const int j = nk->joint_of[n], p = d->parent[n], i = parents[j];
  if (!inv_ok[j])
    return false;
  if (i >= 0 && p >= 0 && nk->joint_of[p] == i && inv_ok[i]) {
    nk->way[n] = nk->fix_even[i] && nk->fix_even[j] ? WAY_TRS : WAY_MAT;
    return true;
  }
  for (int a = p; a >= 0; a = d->parent[a])
    if (nk->joint_of[a] >= 0)
      return false;
  nk->way[n] = WAY_ROOT;
  nk->parent_inv[n] = rk_mat4_identity();
  return i < 0 && (p < 0 || rk_mat4_inverse_affine(&d->world[p], &nk->parent_inv[n]));
}

/* Decides whether the frames take the short way (choose_way for every joint node). */
static void choose_short(node_keys *nk) {
  const guint nn = nk->d->count;
  nk->way = g_new0(unsigned char, nn ? nn : 1);
  nk->parent_inv = g_new(rk_mat4, nn ? nn : 1);
  nk->fix_x = g_new(rk_transform, 2 * nk->nj);
  nk->fix_even = g_new0(bool, nk->nj);
  nk->fix_inv = g_new(rk_mat4, nk->nj);
  g_autofree bool *inv_ok = g_new0(bool, nk->nj);
  for (size_t j = 0; j < nk->nj; j++) {
    if (rk_asset_joint_source_node(nk->asset, j) < 0)
      continue;
    const rk_mat4 *b = &nk->fix[j]; /* products below take bottom rows (0, 0, 0, 1) as read */
    inv_ok[j] = b->m[3] == 0 && b->m[7] == 0 && b->m[11] == 0 && b->m[15] == 1 &&
                rk_mat4_inverse_affine(b, &nk->fix_inv[j]);
    nk->fix_even[j] = inv_ok[j] && rk_transform_from_mat4(&nk->fix[j], &nk->fix_x[2 * j]) &&
                      scale_even(nk->fix_x[2 * j].s);
    if (nk->fix_even[j])
      nk->fix_x[2 * j + 1] = rk_transform_inverse(&nk->fix_x[2 * j]);
  }
  const int *parents = rk_skeleton_parents(rk_asset_skeleton(nk->asset));
  nk->short_way = true;
  guint count[4] = {0};
  for (guint n = 0; n < nn && nk->short_way; n++) {
    nk->short_way = nk->joint_of[n] < 0 || choose_way(nk, parents, inv_ok, n);
    count[nk->way[n]]++;
  }
  if (nk->short_way)
    g_debug("%s: joint nodes posed from the joints' locals: %u by transforms, %u by matrices, %u "
            "roots", nk->path, count[WAY_TRS], count[WAY_MAT], count[WAY_ROOT]);
  else
    g_debug("%s: joint nodes posed from world matrices", nk->path);
}

/* A run of frames [first, end) posed by one thread, with its own work arrays (allocated once). */
typedef struct pose_run {
  const node_keys *nk;
  size_t first, end;
  rk_transform *locals, *next; /* the joints' locals of a frame, and of the next one (pairs) */
  rk_mat4 *models; /* per joint, canonical */
  rk_mat4 *world;  /* per node, this frame */
  rk_mat4 *inv;    /* per node: the inverse of world, once a child asked for it this frame */
  size_t *inv_at;  /* per node: the frame + 1 its inv is of (0: none yet) */
  bool *inv_ok;    /* per node: whether world was invertible */
  rk_clip_cursor cursor; /* frames are sampled in order: each track's key found from the last */
  GError *error;   /* the run's first failure (it stops there) */
} pose_run;

/* The joints' locals of frame f into locals (as rk_clip_sample_frame: time f / fps, clamped to
 * the clip; the rest pose where nothing is sampled, which a clip without a rate keeps). */
static void sample_locals(pose_run *w, size_t f, rk_transform *locals) {
  const node_keys *nk = w->nk;
  if (nk->fps > 0)
    rk_clip_sample_cursor(nk->clip, rk_skeleton_rest_locals(rk_asset_skeleton(nk->asset)),
                          (double)f / nk->fps, &w->cursor, locals, nk->nj);
}

/* Node n's key of frame f: x into its translation, rotation and scale tracks. */
static void store_key(const node_keys *nk, guint n, size_t f, const rk_transform *x) {
  memcpy(nk->t[n] + 3 * f, &x->t, 3 * sizeof(double));
  memcpy(nk->r[n] + 4 * f, &x->r, 4 * sizeof(double));
  memcpy(nk->s[n] + 3 * f, &x->s, 3 * sizeof(double));
}

/* The world matrices and the joint nodes' local transforms of frame f (allocates nothing). */
static bool pose_frame(pose_run *w, size_t f, GError **error) {
  const node_keys *nk = w->nk;
  const rk_skeleton *sk = rk_asset_skeleton(nk->asset);
  const rk__gltf_nodes *d = nk->d;
  sample_locals(w, f, w->locals);
  rk_fk_models(sk, w->locals, w->models);
  for (guint k = 0; k < d->count; k++) {
    const guint n = d->order[k];
    const int j = nk->joint_of[n], p = d->parent[n];
    if (j < 0) {
      w->world[n] = p < 0 ? d->local[n] : rk_mat4_mul(&w->world[p], &d->local[n]);
      continue;
    }
    const rk_mat4 km = in_document_units(nk, &w->models[j]);
    w->world[n] = rk_mat4_mul(&km, &nk->fix[j]);
    /* A parent's inverse once per frame, however many joint nodes hang from it. */
    if (p >= 0 && w->inv_at[p] != f + 1) {
      w->inv[p] = rk_mat4_identity();
      w->inv_ok[p] = rk_mat4_inverse_affine(&w->world[p], &w->inv[p]);
      w->inv_at[p] = f + 1;
    }
    const rk_mat4 inv = p < 0 ? rk_mat4_identity() : w->inv[p];
    rk_transform x;
    bool ok = p < 0 || w->inv_ok[p];
    const rk_mat4 local = rk_mat4_mul(&inv, &w->world[n]);
    ok = ok && rk_transform_from_mat4(&local, &x) && rk_transform_is_finite(&x);
    if (!ok) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                  "%s: node '%s' (joint '%s'), frame %zu: the transform is singular or not finite",
                  nk->path, (const char *)g_ptr_array_index(d->names, n),
                  rk_skeleton_joint_name(sk, (size_t)j), f);
      return false;
    }
    store_key(nk, n, f, &x);
  }
  return true;
}

/* Whether joint node n takes its key of a frame whose joint local is x by matrices (through
 * its parent joint's correction: not a root's): its way's corrections, or this frame's uneven
 * scale. */
static bool by_matrices(const node_keys *nk, guint n, const rk_transform *x) {
  return nk->way[n] == WAY_MAT || (nk->way[n] == WAY_TRS && !scale_even(x->s));
}

/* Joint node n's key the short way (choose_short) from joint j's local x (i its parent joint)
 * into *out; false when it is not finite or its scale not positive. */
static bool short_key(const node_keys *nk, guint n, int j, int i, const rk_transform *x,
                      rk_transform *out) {
  if (nk->way[n] == WAY_TRS && scale_even(x->s)) {
    const rk_transform lb = rk_transform_mul(x, &nk->fix_x[2 * j]);
    *out = rk_transform_mul(&nk->fix_x[2 * i + 1], &lb);
    if (out->r.w < 0) /* as rk_transform_from_mat4 gives it */
      out->r = rk_quat_make(-out->r.x, -out->r.y, -out->r.z, -out->r.w);
    return rk_transform_is_finite(out);
  }
  if (nk->way[n] != WAY_ROOT)
    return rk__node_mat_key(x, &nk->fix[j], &nk->fix_inv[i], out);
  rk_mat4 l, lb, local;
  rk_transform_to_mat4_to(x, &l);
  l = in_document_units(nk, &l);
  rk_mat4_mul_affine_to(&l, &nk->fix[j], &lb);
  rk_mat4_mul_affine_to(&nk->parent_inv[n], &lb, &local);
  return rk_transform_from_mat4(&local, out) && rk_transform_is_finite(out);
}

/* Frame f the short way (choose_short); false when a key is not finite or a scale not
 * positive, and then the long way (pose_frame) redoes the frame and names the failure. */
static bool pose_frame_short(pose_run *w, size_t f) {
  const node_keys *nk = w->nk;
  const int *parents = rk_skeleton_parents(rk_asset_skeleton(nk->asset));
  sample_locals(w, f, w->locals);
  for (guint n = 0; n < nk->d->count; n++) {
    const int j = nk->joint_of[n];
    rk_transform x;
    if (j < 0)
      continue;
    if (!short_key(nk, n, j, parents[j], &w->locals[j], &x))
      return false;
    store_key(nk, n, f, &x);
  }
  return true;
}

/* Frames f and f + 1 the short way, the nodes that take both keys by matrices in the lanes of
 * rk__node_mat_pair (the same bits as one frame at a time); ok[k] false where frame f + k has a
 * key pose_frame_short would refuse (the long way redoes that frame). */
static void pose_pair_short(pose_run *w, size_t f, bool ok[2]) {
  const node_keys *nk = w->nk;
  const int *parents = rk_skeleton_parents(rk_asset_skeleton(nk->asset));
  sample_locals(w, f, w->locals);
  sample_locals(w, f + 1, w->next);
  ok[0] = ok[1] = true;
  for (guint n = 0; n < nk->d->count; n++) {
    const int j = nk->joint_of[n];
    if (j < 0)
      continue;
    const int i = parents[j];
    const rk_transform *x[2] = {&w->locals[j], &w->next[j]};
    rk_transform key[2];
    bool good[2];
    if (by_matrices(nk, n, x[0]) && by_matrices(nk, n, x[1])) {
      rk__node_mat_pair(x, &nk->fix[j], &nk->fix_inv[i], key, good);
    } else {
      for (int k = 0; k < 2; k++)
        good[k] = short_key(nk, n, j, i, x[k], &key[k]);
    }
    for (int k = 0; k < 2; k++) {
      ok[k] = ok[k] && good[k];
      if (good[k])
        store_key(nk, n, f + (size_t)k, &key[k]);
    }
  }
}

static gpointer pose_frames(gpointer data) {
  pose_run *w = data;
  for (size_t f = w->first; f < w->end;) {
    const size_t n = w->nk->short_way && f + 1 < w->end ? 2 : 1;
    bool ok[2] = {false, false};
    if (n == 2)
      pose_pair_short(w, f, ok);
    else if (w->nk->short_way)
      ok[0] = pose_frame_short(w, f);
    for (size_t k = 0; k < n; k++)
      if (!ok[k] && !pose_frame(w, f + k, &w->error))
        return NULL;
    f += n;
  }
  return NULL;
}

/* Frames a thread of its own is worth starting for (the frames of a short clip take less time
 * than the thread's start). */
#define POSE_THREAD_FRAMES 256

/* Poses every frame: the frames in two halves on two threads when the clip is long and the
 * machine has two processors (each frame depends only on the clip, so the keys are the same
 * bits); the failure of the earliest frame, as one thread would find it. */
static bool pose_all(const node_keys *nk, GError **error) {
  const size_t runs = nk->frames >= 2 * POSE_THREAD_FRAMES && g_get_num_processors() > 1 ? 2 : 1;
  pose_run w[2];
  for (size_t i = 0; i < runs; i++) {
    w[i] = (pose_run){.nk = nk, .first = nk->frames * i / runs, .end = nk->frames * (i + 1) / runs};
    w[i].locals = g_new(rk_transform, nk->nj);
    w[i].next = g_new(rk_transform, nk->nj);
    w[i].models = g_new(rk_mat4, nk->nj);
    w[i].world = g_new(rk_mat4, nk->d->count ? nk->d->count : 1);
    w[i].inv = g_new(rk_mat4, nk->d->count ? nk->d->count : 1);
    w[i].inv_at = g_new0(size_t, nk->d->count ? nk->d->count : 1);
    w[i].inv_ok = g_new0(bool, nk->d->count ? nk->d->count : 1);
    w[i].cursor.keys_count = rk_clip_track_count(nk->clip);
    w[i].cursor.keys = g_new0(uint32_t, w[i].cursor.keys_count + 1);
  }
  if (runs > 1)
    rk_halves_run(pose_frames, &w[0], &w[1], true);
  else
    pose_frames(&w[0]);
  bool ok = true;
  for (size_t i = 0; i < runs; i++) {
    if (ok && w[i].error) {
      g_propagate_error(error, w[i].error);
      w[i].error = NULL;
      ok = false;
    }
    g_clear_error(&w[i].error);
    g_free(w[i].locals);
    g_free(w[i].next);
    g_free(w[i].models);
    g_free(w[i].world);
    g_free(w[i].inv);
    g_free(w[i].inv_at);
    g_free(w[i].inv_ok);
    g_free(w[i].cursor.keys);
  }
  return ok;
}

/* Whether node n's scale leaves its rest scale in some frame. */
static bool scale_moves(const node_keys *nk, guint n) {
  rk_transform rest;
  if (!rk_transform_from_mat4(&nk->d->local[n], &rest))
    return true;
  const double r[3] = {rest.s.x, rest.s.y, rest.s.z};
  for (size_t f = 0; f < nk->frames; f++)
    for (int c = 0; c < 3; c++)
      if (fabs(nk->s[n][3 * f + (size_t)c] - r[c]) > 1e-6 * fabs(r[c]))
        return true;
  return false;
}

/* Node n's keys as tracks (nk's pointers cleared) appended to tracks[*count], each with the
 * joint j it moves in joints: translation and rotation, and the scale when it moves. */
static void node_tracks(node_keys *nk, guint n, size_t j, const double *times, rk_track *tracks,
                        size_t *joints, size_t *count) {
  const size_t frames = nk->frames, bytes = frames * sizeof(double);
  if (!scale_moves(nk, n))
    g_clear_pointer(&nk->s[n], g_free);
  double **keys[3] = {&nk->t[n], &nk->r[n], &nk->s[n]};
  static const rk_channel channels[3] = {RK_CHANNEL_TRANSLATION, RK_CHANNEL_ROTATION,
                                         RK_CHANNEL_SCALE};
  for (int c = 0; c < 3; c++) {
    if (!*keys[c])
      continue;
    tracks[*count] = (rk_track){(int)n, channels[c], RK_INTERP_LINEAR, frames,
                                g_memdup2(times, bytes), g_steal_pointer(keys[c])};
    joints[(*count)++] = j;
  }
}

rk_clip *rk__gltf_edit_node_clip(const rk__gltf_nodes *d, const rk_asset *asset,
                                 const rk_clip *clip, double fps, size_t frames,
                                 bool **animated, const char *path, GError **error) {
  node_keys nk = {0};
  nk.d = d;
  nk.asset = asset;
  nk.clip = clip;
  nk.fps = fps;
  nk.frames = frames;
  nk.nj = rk_skeleton_joint_count(rk_asset_skeleton(asset));
  *animated = NULL;
  const double unit = rk_asset_unit_scale(asset);
  nk.k = unit > 0 && isfinite(unit) ? 1.0 / unit : 1.0;
  nk.path = path;
  rk_clip *out = NULL;
  g_autofree double *times = g_new(double, frames ? frames : 1);
  for (size_t f = 0; f < frames; f++)
    times[f] = fmin((double)f / fps, rk_clip_duration(clip));
  bool ok = bind_joints(&nk, error);
  if (ok)
    choose_short(&nk);
  ok = ok && pose_all(&nk, error);
  if (ok) {
    out = rk_clip_new(rk_clip_name(clip), d->count);
    rk_clip_set_fps(out, fps);
    rk_clip_set_duration(out, rk_clip_duration(clip));
    *animated = g_new0(bool, d->count ? d->count : 1);
    const rk_skeleton *sk = rk_asset_skeleton(asset);
    g_autofree rk_track *tracks = g_new(rk_track, 3 * nk.nj + 1);
    g_autofree size_t *joints = g_new(size_t, 3 * nk.nj + 1);
    size_t count = 0, failed = 0;
    for (size_t j = 0; j < nk.nj; j++) {
      const int n = rk_asset_joint_source_node(asset, j);
      if (n < 0)
        continue;
      (*animated)[n] = true;
      node_tracks(&nk, (guint)n, j, times, tracks, joints, &count);
    }
    /* The keys' checks of every track at once (on two threads for a long clip), in order. */
    ok = rk_clip_take_tracks(out, tracks, count, &failed, error);
    if (!ok)
      g_prefix_error(error, "%s: joint '%s': ", path, rk_skeleton_joint_name(sk, joints[failed]));
  }
  if (!ok) {
    g_clear_pointer(&out, rk_clip_free);
    g_clear_pointer(animated, g_free);
  }
  node_keys_clear(&nk);
  return out;
}
