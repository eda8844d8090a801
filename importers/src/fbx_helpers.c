/* FBX transform chains: Assimp (AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, the default) splits a
 * joint whose FBX transform uses offsets, pivots or pre/post-rotations into a chain of helper
 * nodes "<joint>_$AssimpFbx$_<Kind>" above the joint itself (and, for geometric transforms,
 * "..._Geometric*Inverse" helpers between the joint and its children). rigkit removes every
 * helper so joint names and counts match the authoring tool.
 *
 * Assimp 5.2.5's chains cannot be trusted (measured on huesitos_prerotation_pivots.fbx and read in
 * its FBXConverter): a Model with only Pre/PostRotation gets helper nodes for its translation and
 * pre-rotation *and* an animation channel on the joint that already holds T * Rpre * R * Rpost,
 * so both apply; that channel multiplies by Rpost instead of Rpost^-1; everything is in single
 * precision; RotationActive is ignored. So where the file can be read by rigkit's
 * own FBX reader (fbx_internal.h), a joint's local transform, rest and keys, is evaluated from the
 * Model's properties and curves with FBX's chain
 *   T * Roff * Rp * Rpre * R * Rpost^-1 * Rp^-1 * Soff * Sp * S * Sp^-1
 * and Assimp's helper nodes and their channels are dropped. Otherwise (a Model name shared by
 * several Models, a file rigkit cannot read) the chain is composed from Assimp's helper nodes as
 * a fallback, and a note says so. */
#include "fbx_helpers.h"

#include <string.h>

#define HELPER_TAG "_$AssimpFbx$_"

static bool is_helper(const char *name) {
  return strstr(name, HELPER_TAG) != NULL;
}

/** Local transform of a joint from a chain of Assimp nodes: locals[0] is the top helper, the last
 * entry the joint itself (the fallback when the file's own properties cannot be read). */
static rk_mat4 compose_chain(const rk_mat4 *locals, size_t count) {
  rk_mat4 m = rk_mat4_identity();
  for (size_t i = 0; i < count; i++) {
    rk_mat4 t = rk_mat4_mul(&m, &locals[i]);
    m = t;
  }
  return m;
}

static size_t find_key_index(const double *times, unsigned n, double t) {
  size_t lo = 0, hi = n;
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (times[mid] <= t)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

static rk_vec3 sample_vec3(const double *times, const double *values, unsigned n, double t,
                           rk_vec3 fallback) {
  if (n == 0)
    return fallback;
  if (n == 1 || t <= times[0])
    return rk_vec3_make(values[0], values[1], values[2]);
  if (t >= times[n - 1])
    return rk_vec3_make(values[3 * (n - 1)], values[3 * (n - 1) + 1], values[3 * (n - 1) + 2]);
  size_t k = find_key_index(times, n, t);
  const double dt = times[k + 1] - times[k], s = dt > 0 ? (t - times[k]) / dt : 0;
  const double *a = values + 3 * k, *b = a + 3;
  return rk_vec3_make(a[0] + (b[0] - a[0]) * s, a[1] + (b[1] - a[1]) * s, a[2] + (b[2] - a[2]) * s);
}

static rk_quat sample_quat(const double *times, const double *values, unsigned n, double t,
                           rk_quat fallback) {
  if (n == 0)
    return fallback;
  if (n == 1 || t <= times[0])
    return rk_quat_normalize(rk_quat_make(values[0], values[1], values[2], values[3]));
  if (t >= times[n - 1]) {
    const double *v = values + 4 * (n - 1);
    return rk_quat_normalize(rk_quat_make(v[0], v[1], v[2], v[3]));
  }
  size_t k = find_key_index(times, n, t);
  const double dt = times[k + 1] - times[k], s = dt > 0 ? (t - times[k]) / dt : 0;
  const double *a = values + 4 * k, *b = a + 4;
  return rk_quat_slerp(rk_quat_normalize(rk_quat_make(a[0], a[1], a[2], a[3])),
                       rk_quat_normalize(rk_quat_make(b[0], b[1], b[2], b[3])), s);
}

static rk_mat4 channel_local(const rk__scene_channel *ch, const rk_mat4 *rest_m, double t) {
  if (!ch)
    return *rest_m;
  rk_transform rest;
  if (!rk_transform_from_mat4(rest_m, &rest))
    rest = rk_transform_identity();
  rk_transform x;
  x.t = sample_vec3(ch->pos_times, ch->pos_values, ch->n_pos, t, rest.t);
  x.r = sample_quat(ch->rot_times, ch->rot_values, ch->n_rot, t, rest.r);
  x.s = sample_vec3(ch->scale_times, ch->scale_values, ch->n_scale, t, rest.s);
  return rk_transform_to_mat4(&x);
}

static rk__scene_channel *find_channel(rk__scene_anim *a, const char *node, unsigned *index) {
  for (unsigned c = 0; c < a->channel_count; c++)
    if (a->channels[c].node_name && strcmp(a->channels[c].node_name, node) == 0) {
      if (index)
        *index = c;
      return &a->channels[c];
    }
  return NULL;
}


static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Replaces the animation of the chain (helpers + joint) in one animation by one channel on the
 * joint, sampled at the union of the chain's key times. */
static void fold_chain_animation(rk__scene *s, rk__scene_anim *a, const int *chain, size_t len) {
  rk__scene_channel **chs = g_new0(rk__scene_channel *, len);
  bool any = false;
  GArray *times = g_array_new(FALSE, FALSE, sizeof(double));
  for (size_t i = 0; i < len; i++) {
    chs[i] = find_channel(a, s->nodes[chain[i]].name, NULL);
    if (!chs[i])
      continue;
    any = true;
    g_array_append_vals(times, chs[i]->pos_times, chs[i]->n_pos);
    g_array_append_vals(times, chs[i]->rot_times, chs[i]->n_rot);
    g_array_append_vals(times, chs[i]->scale_times, chs[i]->n_scale);
  }
  if (!any) {
    g_free(chs);
    g_array_unref(times);
    return;
  }
  g_array_sort(times, cmp_double);
  guint m = 0;
  for (guint i = 0; i < times->len; i++) {
    double t = g_array_index(times, double, i);
    if (m == 0 || t - g_array_index(times, double, m - 1) > 1e-9)
      g_array_index(times, double, m++) = t;
  }
  g_array_set_size(times, m);

  rk__scene_channel out = {0};
  out.node_name = g_strdup(s->nodes[chain[len - 1]].name);
  out.n_pos = out.n_rot = out.n_scale = m;
  out.pos_times = g_memdup2(times->data, m * sizeof(double) + 1);
  out.rot_times = g_memdup2(times->data, m * sizeof(double) + 1);
  out.scale_times = g_memdup2(times->data, m * sizeof(double) + 1);
  out.pos_values = g_new(double, 3 * (size_t)m + 1);
  out.rot_values = g_new(double, 4 * (size_t)m + 1);
  out.scale_values = g_new(double, 3 * (size_t)m + 1);
  rk_mat4 *locals = g_new(rk_mat4, len);
  rk_quat prev = rk_quat_identity();
  for (guint k = 0; k < m; k++) {
    const double t = g_array_index(times, double, k);
    for (size_t i = 0; i < len; i++)
      locals[i] = channel_local(chs[i], &s->nodes[chain[i]].local, t);
    rk_mat4 joint = compose_chain(locals, len);
    rk_transform x;
    if (!rk_transform_from_mat4(&joint, &x))
      x = rk_transform_identity();
    if (k > 0 && rk_quat_dot(x.r, prev) < 0)
      x.r = rk_quat_make(-x.r.x, -x.r.y, -x.r.z, -x.r.w);
    prev = x.r;
    out.pos_values[3 * k] = x.t.x, out.pos_values[3 * k + 1] = x.t.y;
    out.pos_values[3 * k + 2] = x.t.z;
    out.rot_values[4 * k] = x.r.x, out.rot_values[4 * k + 1] = x.r.y;
    out.rot_values[4 * k + 2] = x.r.z, out.rot_values[4 * k + 3] = x.r.w;
    out.scale_values[3 * k] = x.s.x, out.scale_values[3 * k + 1] = x.s.y;
    out.scale_values[3 * k + 2] = x.s.z;
  }
  g_free(locals);
  g_array_unref(times);

  /* Drop the chain's channels, then store the composed one. */
  for (size_t i = 0; i < len; i++)
    if (chs[i])
      rk__scene_channel_clear(chs[i]);
  g_free(chs);
  unsigned w = 0;
  for (unsigned c = 0; c < a->channel_count; c++)
    if (a->channels[c].node_name)
      a->channels[w++] = a->channels[c];
  a->channels = g_renew(rk__scene_channel, a->channels, w + 1);
  a->channels[w] = out;
  a->channel_count = w + 1;
}

/* The translation part of a matrix in file units, scaled to Assimp's (GlobalScale) units. */
static rk_mat4 scale_translation(rk_mat4 m, double k) {
  m.m[12] *= k, m.m[13] *= k, m.m[14] *= k;
  return m;
}

/* Replaces the animation of a joint evaluated from the file: the channels of the joint and its
 * own helpers (chain, len) are dropped and, when the stack animates the Model, one channel is
 * stored with prefix * (sampled local). */
static void doc_chain_animation(rk__scene *s, rk__scene_anim *a, const int *chain, size_t len,
                                const rk_mat4 *prefix, const rk__fbx_doc *doc, int model,
                                double k) {
  for (size_t i = 0; i < len; i++) {
    rk__scene_channel *ch = find_channel(a, s->nodes[chain[i]].name, NULL);
    if (ch)
      rk__scene_channel_clear(ch);
  }
  unsigned w = 0;
  for (unsigned c = 0; c < a->channel_count; c++)
    if (a->channels[c].node_name)
      a->channels[w++] = a->channels[c];
  a->channel_count = w;
  rk__fbx_samples smp;
  if (!rk__fbx_doc_sample(doc, model, a->name, &smp, NULL))
    return;
  const size_t m = smp.count;
  rk__scene_channel out = {0};
  out.node_name = g_strdup(s->nodes[chain[len - 1]].name);
  out.n_pos = out.n_rot = out.n_scale = (unsigned)m;
  out.pos_times = g_memdup2(smp.times, m * sizeof(double));
  out.rot_times = g_memdup2(smp.times, m * sizeof(double));
  out.scale_times = g_memdup2(smp.times, m * sizeof(double));
  out.pos_values = g_new(double, 3 * m);
  out.rot_values = g_new(double, 4 * m);
  out.scale_values = g_new(double, 3 * m);
  rk_quat prev = rk_quat_identity();
  for (size_t i = 0; i < m; i++) {
    const rk_mat4 local = scale_translation(smp.locals[i], k);
    const rk_mat4 joint = rk_mat4_mul(prefix, &local);
    rk_transform x;
    if (!rk_transform_from_mat4(&joint, &x))
      x = rk_transform_identity();
    if (i > 0 && rk_quat_dot(x.r, prev) < 0)
      x.r = rk_quat_make(-x.r.x, -x.r.y, -x.r.z, -x.r.w);
    prev = x.r;
    memcpy(out.pos_values + 3 * i, &x.t, 3 * sizeof(double));
    out.rot_values[4 * i] = x.r.x, out.rot_values[4 * i + 1] = x.r.y;
    out.rot_values[4 * i + 2] = x.r.z, out.rot_values[4 * i + 3] = x.r.w;
    memcpy(out.scale_values + 3 * i, &x.s, 3 * sizeof(double));
  }
  rk__fbx_samples_clear(&smp);
  a->channels = g_renew(rk__scene_channel, a->channels, a->channel_count + 1);
  a->channels[a->channel_count++] = out;
}

/* The joint a helper belongs to: its name up to the helper tag. */
static bool helper_owned_by(const char *helper, const char *owner) {
  const char *tag = strstr(helper, HELPER_TAG);
  const size_t n = strlen(owner);
  return tag && (size_t)(tag - helper) == n && strncmp(helper, owner, n) == 0;
}

static const char *helper_kind(const char *helper) {
  return strstr(helper, HELPER_TAG) + strlen(HELPER_TAG);
}

/* Marks the nodes whose Model is an FBX skeleton node and has children (leaves are bone tips,
 * which the importer finds by itself and flags as end sites). */
static void mark_skeleton(rk__scene *s, const rk__fbx_doc *doc) {
  g_autofree bool *has_child = g_new0(bool, s->node_count);
  for (unsigned i = 0; i < s->node_count; i++)
    if (s->nodes[i].parent >= 0)
      has_child[s->nodes[i].parent] = true;
  for (unsigned i = 0; i < s->node_count; i++) {
    const int m = has_child[i] ? rk__fbx_doc_find_model(doc, s->nodes[i].name) : -1;
    s->nodes[i].fbx_skeleton = m >= 0 && rk__fbx_doc_model_is_skeleton(doc, m);
  }
}

/* Joint i's rest and animation evaluated from the FBX file (Model `model` of doc) below the
 * prefix of its parent's geometric inverses; its own helpers' channels give way to the file's
 * curves (k: Assimp's GlobalScale factor). */
static void fold_from_file(rk__scene *s, unsigned i, const GArray *own, const rk_mat4 *prefix,
                           const rk__fbx_doc *doc, int model, double k, GArray *chain,
                           GPtrArray *notes) {
  const rk_mat4 local = scale_translation(rk__fbx_doc_model_rest(doc, model, notes), k);
  /* The joint's own helpers and the joint: their channels give way to the file's curves. */
  g_array_set_size(chain, 0);
  g_array_append_vals(chain, own->data, own->len);
  int me = (int)i;
  g_array_append_val(chain, me);
  for (unsigned a = 0; a < s->anim_count; a++) {
    if (rk__fbx_doc_has_stack(doc, s->anims[a].name))
      doc_chain_animation(s, &s->anims[a], (const int *)(void *)chain->data, chain->len,
                          prefix, doc, model, k);
    else /* a take Assimp found but rigkit did not: keep Assimp's composition */
      fold_chain_animation(s, &s->anims[a], (const int *)(void *)chain->data, chain->len);
  }
  s->nodes[i].local = rk_mat4_mul(prefix, &local);
  g_ptr_array_add(notes, g_strdup_printf(
                             "joint '%s': FBX pre/post-rotation, pivots and offsets evaluated "
                             "from the file (T * Roff * Rp * Rpre * R * Rpost^-1 * Rp^-1 * "
                             "Soff * Sp * S * Sp^-1), not from Assimp's helper nodes",
                             s->nodes[i].name));
}

/* Joint i's rest and animation composed from Assimp's helper chain (its parent's geometric
 * inverses unless drop_post, its own helpers, itself), with a note when the file could be read
 * but has no single Model of that name (model -1 or -2). */
static void fold_from_helpers(rk__scene *s, unsigned i, const GArray *own, const GArray *post,
                              bool drop_post, const rk__fbx_doc *doc, int model, GArray *chain,
                              GPtrArray *notes) {
  /* Top helper first. */
  g_array_set_size(chain, 0);
  if (!drop_post)
    g_array_append_vals(chain, post->data, post->len);
  g_array_append_vals(chain, own->data, own->len);
  int me = (int)i;
  g_array_append_val(chain, me);
  const int *c = (const int *)(void *)chain->data;
  for (unsigned a = 0; a < s->anim_count; a++)
    fold_chain_animation(s, &s->anims[a], c, chain->len);
  rk_mat4 *locals = g_new(rk_mat4, chain->len);
  for (guint h = 0; h < chain->len; h++)
    locals[h] = s->nodes[c[h]].local;
  s->nodes[i].local = compose_chain(locals, chain->len);
  g_free(locals);
  if (doc)
    g_ptr_array_add(notes, g_strdup_printf(
                               "joint '%s' uses FBX pre/post-rotation or pivots but %s: composed "
                               "from Assimp's helper nodes, which Assimp 5.2.5 may build wrongly "
                               "(upstream 5759, 1068)",
                               s->nodes[i].name,
                               model == -2 ? "several FBX Models have its name"
                                           : "no FBX Model has its name"));
}

/* Drops every helper node; the others move to their nearest real ancestor (new_parent; preorder
 * holds: that ancestor comes before them). Channels left on helpers are dropped too. Returns the
 * number of nodes dropped. */
static unsigned drop_helpers(rk__scene *s, const int *new_parent) {
  const unsigned n = s->node_count;
  g_autofree int *map = g_new(int, n);
  unsigned w = 0, folded = 0;
  for (unsigned i = 0; i < n; i++) {
    if (is_helper(s->nodes[i].name)) {
      map[i] = -1;
      for (unsigned a = 0; a < s->anim_count; a++) {
        rk__scene_channel *ch = find_channel(&s->anims[a], s->nodes[i].name, NULL);
        if (ch)
          rk__scene_channel_clear(ch);
      }
      g_free(s->nodes[i].name);
      g_free(s->nodes[i].meshes);
      folded++;
      continue;
    }
    const int p = new_parent[i]; /* a real node, before i */
    map[i] = (int)w;
    rk__scene_node node = s->nodes[i];
    node.parent = p >= 0 ? map[p] : -1;
    s->nodes[w++] = node;
  }
  s->node_count = w;
  for (unsigned a = 0; a < s->anim_count; a++) {
    rk__scene_anim *an = &s->anims[a];
    unsigned cw = 0;
    for (unsigned c = 0; c < an->channel_count; c++)
      if (an->channels[c].node_name)
        an->channels[cw++] = an->channels[c];
    an->channel_count = cw;
  }
  return folded;
}

static unsigned fold(rk__scene *s, const rk__fbx_doc *doc, GPtrArray *notes) {
  const unsigned n = s->node_count;
  /* Assimp's GlobalScale multiplies translations by UnitScaleFactor * 0.01 (in float). */
  const float usf = s->unit_scale_factor > 0 ? (float)s->unit_scale_factor : 1.0f;
  const double k = s->global_scale_applied ? (double)(usf * 0.01f) : 1.0;

  g_autofree bool *from_doc = g_new0(bool, n);
  g_autofree int *new_parent = g_new(int, n);
  GArray *own = g_array_new(FALSE, FALSE, sizeof(int));
  GArray *post = g_array_new(FALSE, FALSE, sizeof(int));
  GArray *chain = g_array_new(FALSE, FALSE, sizeof(int));
  for (unsigned i = 0; i < n; i++) {
    new_parent[i] = s->nodes[i].parent;
    if (is_helper(s->nodes[i].name))
      continue;
    /* Helper ancestors up to the first real node P: the joint's own (above it) and P's geometric
     * inverses (below P, above P's children). */
    g_array_set_size(own, 0);
    g_array_set_size(post, 0);
    int p = s->nodes[i].parent;
    for (; p >= 0 && is_helper(s->nodes[p].name); p = s->nodes[p].parent) {
      const bool of_parent = !helper_owned_by(s->nodes[p].name, s->nodes[i].name);
      g_array_prepend_val(of_parent ? post : own, p);
    }
    if (own->len == 0 && post->len == 0)
      continue;
    new_parent[i] = p;
    /* P's geometric inverses apply to its children unless P itself was evaluated from the file
     * (then its local never held the geometric transform). */
    rk_mat4 prefix = rk_mat4_identity();
    const bool drop_post = p >= 0 && from_doc[p];
    for (guint h = 0; h < post->len && !drop_post; h++) {
      rk_mat4 t = rk_mat4_mul(&prefix, &s->nodes[g_array_index(post, int, h)].local);
      prefix = t;
    }
    if (own->len == 0) {
      rk_mat4 t = rk_mat4_mul(&prefix, &s->nodes[i].local);
      s->nodes[i].local = t;
      if (!drop_post && post->len > 0) {
        g_array_set_size(chain, 0);
        g_array_append_vals(chain, post->data, post->len);
        int me = (int)i;
        g_array_append_val(chain, me);
        for (unsigned a = 0; a < s->anim_count; a++)
          fold_chain_animation(s, &s->anims[a], (const int *)(void *)chain->data, chain->len);
      }
      continue;
    }
    GString *kinds = g_string_new(NULL);
    for (guint h = 0; h < own->len; h++)
      g_string_append_printf(kinds, "%s%s", h ? ", " : "",
                             helper_kind(s->nodes[g_array_index(own, int, h)].name));
    g_ptr_array_add(notes, g_strdup_printf("FBX helper nodes of joint '%s' (%s) folded into it",
                                           s->nodes[i].name, kinds->str));
    g_string_free(kinds, TRUE);
    const int model = doc ? rk__fbx_doc_find_model(doc, s->nodes[i].name) : -1;
    if (model >= 0) {
      from_doc[i] = true;
      fold_from_file(s, i, own, &prefix, doc, model, k, chain, notes);
    } else {
      fold_from_helpers(s, i, own, post, drop_post, doc, model, chain, notes);
    }
  }
  g_array_unref(own);
  g_array_unref(post);
  g_array_unref(chain);
  return drop_helpers(s, new_parent);
}

unsigned rk__fbx_fold_helpers(rk__scene *s, const rk__fbx_doc *doc, const GError *doc_error,
                              GPtrArray *notes) {
  unsigned helpers = 0;
  for (unsigned i = 0; i < s->node_count; i++)
    helpers += is_helper(s->nodes[i].name);
  /* rigkit's own reading of the file: node types, and the joints whose chain Assimp split. */
  if (!doc && helpers)
    g_ptr_array_add(notes, g_strdup_printf("rigkit could not read the FBX file's transform "
                                           "properties itself (%s): pre/post-rotations and pivots "
                                           "composed from Assimp's helper nodes",
                                           doc_error->message));
  const unsigned folded = helpers ? fold(s, doc, notes) : 0;
  if (doc)
    mark_skeleton(s, doc);
  return folded;
}
