/* FBX transform chains: Assimp (AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, the default) splits a
 * joint whose FBX transform uses offsets, pivots or pre/post-rotations into a chain of helper
 * nodes "<joint>_$AssimpFbx$_<Kind>" above the joint itself. rigkit folds each chain back into the
 * joint so joint names and counts match the authoring tool: the joint's local transform (rest and
 * every key) becomes the product of the chain.
 *
 * The product is computed by rk__fbx_compose_chain, the one place that decides how a chain maps
 * onto a joint. Assimp 5.2.5 builds some chains wrongly (a bone with only a PreRotation gets its
 * translation and pre-rotation twice, upstream issue 5759); a reader that follows FBX's own
 * T * Roff * Rp * Rpre * R * Rpost^-1 * Rp^-1 * Soff * Sp * S * Sp^-1 can replace the inputs of
 * that function without touching the rest of the importer. */
#include "import_internal.h"

#include <string.h>

#define HELPER_TAG "_$AssimpFbx$_"

static bool is_helper(const char *name) {
  return strstr(name, HELPER_TAG) != NULL;
}

/** Local transform of a joint from its folded chain: locals[0] is the top helper, the last entry
 * the joint itself. */
static rk_mat4 rk__fbx_compose_chain(const rk_mat4 *locals, size_t count) {
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

static void channel_clear(rk__scene_channel *ch) {
  g_free(ch->node_name);
  g_free(ch->pos_times);
  g_free(ch->pos_values);
  g_free(ch->rot_times);
  g_free(ch->rot_values);
  g_free(ch->scale_times);
  g_free(ch->scale_values);
  memset(ch, 0, sizeof *ch);
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
    rk_mat4 joint = rk__fbx_compose_chain(locals, len);
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
      channel_clear(chs[i]);
  g_free(chs);
  unsigned w = 0;
  for (unsigned c = 0; c < a->channel_count; c++)
    if (a->channels[c].node_name)
      a->channels[w++] = a->channels[c];
  a->channels = g_renew(rk__scene_channel, a->channels, w + 1);
  a->channels[w] = out;
  a->channel_count = w + 1;
}

unsigned rk__fbx_fold_helpers(rk__scene *s, GPtrArray *notes) {
  const unsigned n = s->node_count;
  g_autofree unsigned *children = g_new0(unsigned, n);
  for (unsigned i = 0; i < n; i++)
    if (s->nodes[i].parent >= 0)
      children[s->nodes[i].parent]++;
  g_autofree guint8 *removed = g_new0(guint8, n);
  unsigned folded = 0;
  for (unsigned i = 0; i < n; i++) {
    const int p0 = s->nodes[i].parent;
    if (is_helper(s->nodes[i].name) || p0 < 0 || !is_helper(s->nodes[p0].name))
      continue;
    /* Walk up through single-child helpers. */
    GArray *chain = g_array_new(FALSE, FALSE, sizeof(int));
    for (int p = p0; p >= 0 && is_helper(s->nodes[p].name) && children[p] == 1 && !removed[p];
         p = s->nodes[p].parent)
      g_array_prepend_val(chain, p);
    if (chain->len == 0) {
      g_array_unref(chain);
      continue;
    }
    int me = (int)i;
    g_array_append_val(chain, me);
    const int *c = (const int *)(void *)chain->data;
    const size_t len = chain->len;
    for (unsigned a = 0; a < s->anim_count; a++)
      fold_chain_animation(s, &s->anims[a], c, len);
    rk_mat4 *locals = g_new(rk_mat4, len);
    for (size_t k = 0; k < len; k++)
      locals[k] = s->nodes[c[k]].local;
    s->nodes[i].local = rk__fbx_compose_chain(locals, len);
    g_free(locals);
    s->nodes[i].parent = s->nodes[c[0]].parent;
    GString *kinds = g_string_new(NULL);
    bool pivots = false;
    for (size_t k = 0; k + 1 < len; k++) {
      const char *kind = strstr(s->nodes[c[k]].name, HELPER_TAG) + strlen(HELPER_TAG);
      g_string_append_printf(kinds, "%s%s", k ? ", " : "", kind);
      pivots |= strstr(kind, "Pivot") || strstr(kind, "PreRotation") ||
                strstr(kind, "PostRotation") || strstr(kind, "Offset");
      removed[c[k]] = 1;
      folded++;
    }
    g_ptr_array_add(notes, g_strdup_printf("FBX helper nodes of joint '%s' (%s) folded into it",
                                           s->nodes[i].name, kinds->str));
    if (pivots)
      g_ptr_array_add(notes, g_strdup_printf(
                                 "joint '%s' uses FBX pre/post-rotation or pivots: Assimp 5.2.5 "
                                 "may compose them wrongly (upstream 5759, 1068)",
                                 s->nodes[i].name));
    g_string_free(kinds, TRUE);
    g_array_unref(chain);
  }
  if (!folded)
    return 0;
  /* Compact the node array; preorder survives because only whole chain links disappear. */
  g_autofree int *map = g_new(int, n);
  unsigned w = 0;
  for (unsigned i = 0; i < n; i++) {
    if (removed[i]) {
      map[i] = -1;
      g_free(s->nodes[i].name);
      g_free(s->nodes[i].meshes);
      continue;
    }
    map[i] = (int)w;
    rk__scene_node node = s->nodes[i];
    node.parent = node.parent >= 0 ? map[node.parent] : -1;
    s->nodes[w++] = node;
  }
  s->node_count = w;
  return folded;
}
