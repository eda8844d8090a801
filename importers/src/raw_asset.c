/* The editable raw asset every reader fills, the conversions to canonical space, and the build
 * into an immutable rk_asset. */
#include "raw_asset.h"

#include <stdarg.h>
#include <string.h>

static void raw_joint_clear(gpointer p) {
  g_free(((rk__raw_joint *)p)->name);
}

static void raw_track_free(gpointer p) {
  rk__raw_track *t = p;
  g_free(t->times);
  g_free(t->values);
  g_free(t);
}

static void raw_clip_free(gpointer p) {
  rk__raw_clip *c = p;
  g_free(c->name);
  g_ptr_array_unref(c->tracks);
  g_free(c);
}

static void raw_mesh_free(gpointer p) {
  rk__raw_mesh *m = p;
  g_free(m->name);
  g_free(m->positions);
  g_free(m->normals);
  g_free(m->texcoords);
  g_free(m->indices);
  g_free(m->joints);
  g_free(m->weights);
  g_free((char *)m->material.name);
  g_free((uint8_t *)m->texture.data);
  g_free((char *)m->texture.mime_type);
  g_free((char *)m->texture.path);
  g_free(m);
}

rk__raw_asset *rk__raw_asset_new(void) {
  rk__raw_asset *r = g_new0(rk__raw_asset, 1);
  r->joints = g_array_new(FALSE, TRUE, sizeof(rk__raw_joint));
  g_array_set_clear_func(r->joints, raw_joint_clear);
  r->clips = g_ptr_array_new_with_free_func(raw_clip_free);
  r->meshes = g_ptr_array_new_with_free_func(raw_mesh_free);
  r->notes = g_ptr_array_new_with_free_func(g_free);
  r->repairs = g_array_new(FALSE, FALSE, sizeof(guint));
  r->unit = g_strdup("m");
  r->unit_scale = 1.0;
  r->up_axis = g_strdup("Y");
  return r;
}

void rk__raw_asset_free(rk__raw_asset *r) {
  if (!r)
    return;
  g_array_unref(r->joints);
  g_ptr_array_unref(r->clips);
  g_ptr_array_unref(r->meshes);
  g_ptr_array_unref(r->notes);
  g_array_unref(r->repairs);
  g_free(r->unit);
  g_free(r->up_axis);
  g_free(r->digest);
  if (r->source_tree)
    json_node_unref(r->source_tree);
  g_free(r);
}

size_t rk__raw_joint_count(const rk__raw_asset *raw) {
  return raw->joints->len;
}

rk__raw_joint *rk__raw_joint_at(const rk__raw_asset *raw, size_t i) {
  return &g_array_index(raw->joints, rk__raw_joint, i);
}

int rk__raw_add_joint(rk__raw_asset *raw, const char *name, int parent, const rk_transform *rest,
                      unsigned flags) {
  rk__raw_joint j = {0};
  j.name = g_strdup(name ? name : "");
  j.parent = parent;
  j.rest = rest ? *rest : rk_transform_identity();
  j.flags = flags;
  j.source_node = -1;
  g_array_append_val(raw->joints, j);
  return (int)raw->joints->len - 1;
}

rk__raw_clip *rk__raw_add_clip(rk__raw_asset *raw, const char *name) {
  rk__raw_clip *c = g_new0(rk__raw_clip, 1);
  c->name = g_strdup(name ? name : "");
  c->duration = -1.0;
  c->tracks = g_ptr_array_new_with_free_func(raw_track_free);
  g_ptr_array_add(raw->clips, c);
  return c;
}

rk__raw_track *rk__raw_clip_add_track(rk__raw_clip *clip, int joint, rk_channel channel,
                                      rk_interp interp) {
  rk__raw_track *t = g_new0(rk__raw_track, 1);
  t->joint = joint;
  t->channel = channel;
  t->interp = interp;
  g_ptr_array_add(clip->tracks, t);
  return t;
}

int rk__raw_track_stride(const rk__raw_track *t) {
  return rk_channel_components(t->channel) * (t->interp == RK_INTERP_CUBIC ? 3 : 1);
}

void rk__raw_track_reserve(rk__raw_track *t, size_t keys) {
  if (keys <= t->capacity)
    return;
  t->times = g_renew(double, t->times, keys);
  t->values = g_renew(double, t->values, keys * (size_t)rk__raw_track_stride(t));
  t->capacity = keys;
}

void rk__raw_track_push(rk__raw_track *t, double time, const double *values) {
  if (t->keys == t->capacity)
    rk__raw_track_reserve(t, t->capacity ? 2 * t->capacity : 16);
  const size_t stride = (size_t)rk__raw_track_stride(t);
  double *dst = t->values + t->keys * stride;
  t->times[t->keys] = time;
  /* A key is copied per call, tens of thousands of times an import: the usual sizes as fixed
   * copies the compiler inlines, not a call to memcpy. */
  if (stride == 3)
    memcpy(dst, values, 3 * sizeof(double));
  else if (stride == 4)
    memcpy(dst, values, 4 * sizeof(double));
  else
    memcpy(dst, values, stride * sizeof(double));
  t->keys++;
}

rk__raw_mesh *rk__raw_add_mesh(rk__raw_asset *raw) {
  rk__raw_mesh *m = g_new0(rk__raw_mesh, 1);
  m->attach_joint = -1;
  g_ptr_array_add(raw->meshes, m);
  return m;
}

static void raw_note_v(rk__raw_asset *raw, bool repair, const char *format, va_list ap) {
  const guint i = raw->notes->len;
  g_ptr_array_add(raw->notes, g_strdup_vprintf(format, ap));
  if (repair)
    g_array_append_val(raw->repairs, i);
}

void rk__raw_note(rk__raw_asset *raw, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  raw_note_v(raw, false, format, ap);
  va_end(ap);
}

void rk__raw_repair(rk__raw_asset *raw, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  raw_note_v(raw, true, format, ap);
  va_end(ap);
}

void rk__raw_set_unit(rk__raw_asset *raw, const char *unit, double metres_per_unit) {
  char *u = g_strdup(unit);
  g_free(raw->unit);
  raw->unit = u;
  raw->unit_scale = metres_per_unit;
}

void rk__raw_set_up_axis(rk__raw_asset *raw, const char *axis) {
  char *a = g_strdup(axis);
  g_free(raw->up_axis);
  raw->up_axis = a;
}

rk_mat4 *rk__raw_rest_models(const rk__raw_asset *raw) {
  const size_t n = raw->joints->len;
  rk_mat4 *models = g_new(rk_mat4, n);
  g_autofree guint8 *done = g_new0(guint8, n);
  g_autofree int *stack = g_new(int, n + 1);
  for (size_t i = 0; i < n; i++) {
    /* Walk up to a computed ancestor (or a root), then compute back down. */
    size_t top = 0;
    int j = (int)i;
    while (j >= 0 && !done[j]) {
      if (top > n) {
        g_free(models);
        return NULL; /* longer than the joint count: a cycle */
      }
      stack[top++] = j;
      j = rk__raw_joint_at(raw, (size_t)j)->parent;
      if (j >= (int)n) {
        g_free(models);
        return NULL;
      }
    }
    while (top > 0) {
      int k = stack[--top];
      const rk__raw_joint *jk = rk__raw_joint_at(raw, (size_t)k);
      rk_mat4 local = rk_transform_to_mat4(&jk->rest);
      models[k] = jk->parent >= 0 ? rk_mat4_mul_affine(&models[jk->parent], &local) : local;
      done[k] = 1;
    }
  }
  return models;
}

/* ---- conversions ------------------------------------------------------------------------------ */

/* Calls fn on every key value (and cubic tangent) of every track of `channel` whose joint passes
 * `want`; fn receives a pointer to `components` doubles. */
typedef void (*value_fn)(double *v, const void *ctx);

static void for_each_value(rk__raw_asset *raw, rk_channel channel, const guint8 *want, value_fn fn,
                           const void *ctx) {
  for (guint c = 0; c < raw->clips->len; c++) {
    rk__raw_clip *clip = g_ptr_array_index(raw->clips, c);
    for (guint k = 0; k < clip->tracks->len; k++) {
      rk__raw_track *t = g_ptr_array_index(clip->tracks, k);
      if (t->channel != channel || (want && !want[t->joint]))
        continue;
      const int nc = rk_channel_components(channel);
      double *v = t->values;
      const size_t total = t->keys * (size_t)rk__raw_track_stride(t) / (size_t)nc;
      for (size_t i = 0; i < total; i++)
        fn(v + i * (size_t)nc, ctx);
    }
  }
}

static void scale_vec3(double *v, const void *ctx) {
  const double s = *(const double *)ctx;
  v[0] *= s, v[1] *= s, v[2] *= s;
}

void rk__raw_scale_lengths(rk__raw_asset *raw, double s) {
  if (s == 1.0)
    return;
  for (guint i = 0; i < raw->joints->len; i++) {
    rk__raw_joint *j = rk__raw_joint_at(raw, i);
    j->rest.t = rk_vec3_scale(j->rest.t, s);
    if (j->has_mechanics && j->mechanics.motion == RK_JOINT_PRISMATIC) {
      j->mechanics.lower *= s;
      j->mechanics.upper *= s;
    }
    if (j->has_ibm)
      for (int r = 0; r < 3; r++)
        j->ibm.m[12 + r] *= s;
  }
  for_each_value(raw, RK_CHANNEL_TRANSLATION, NULL, scale_vec3, &s);
  for (guint m = 0; m < raw->meshes->len; m++) {
    rk__raw_mesh *mesh = g_ptr_array_index(raw->meshes, m);
    for (size_t i = 0; i < 3 * mesh->vertex_count; i++)
      mesh->positions[i] = (float)(mesh->positions[i] * s);
  }
}

/* Cubic tracks store (in-tangent, value, out-tangent): tangents are derivatives and must not
 * receive the affine offset of a premultiplied translation. */
static void premultiply_track(rk__raw_track *t, const rk_transform *m) {
  const int nc = rk_channel_components(t->channel);
  const bool cubic = t->interp == RK_INTERP_CUBIC;
  double *v = t->values;
  const size_t per_key = (size_t)rk__raw_track_stride(t), keys = t->keys;
  for (size_t k = 0; k < keys; k++)
    for (int part = 0; part < (cubic ? 3 : 1); part++) {
      double *x = v + k * per_key + (size_t)(part * nc);
      const bool is_value = !cubic || part == 1;
      switch (t->channel) {
      case RK_CHANNEL_TRANSLATION: {
        rk_vec3 p = rk_quat_rotate(m->r, rk_vec3_scale(rk_vec3_make(x[0], x[1], x[2]), m->s.x));
        if (is_value)
          p = rk_vec3_add(p, m->t);
        x[0] = p.x, x[1] = p.y, x[2] = p.z;
        break;
      }
      case RK_CHANNEL_ROTATION: {
        rk_quat q = rk_quat_mul(m->r, rk_quat_make(x[0], x[1], x[2], x[3]));
        x[0] = q.x, x[1] = q.y, x[2] = q.z, x[3] = q.w;
        break;
      }
      case RK_CHANNEL_SCALE:
        x[0] *= m->s.x, x[1] *= m->s.y, x[2] *= m->s.z;
        break;
      }
    }
}

static void transform_mesh(rk__raw_mesh *mesh, const rk_mat4 *m, bool flip_winding) {
  const rk_mat3 r3 = rk_mat4_get_rotation(m);
  for (size_t i = 0; i < mesh->vertex_count; i++) {
    float *p = mesh->positions + 3 * i;
    rk_vec3 q = rk_mat4_transform_point(m, rk_vec3_make(p[0], p[1], p[2]));
    p[0] = (float)q.x, p[1] = (float)q.y, p[2] = (float)q.z;
    if (mesh->normals) {
      float *n = mesh->normals + 3 * i;
      rk_vec3 nn = rk_vec3_normalize(rk_mat3_mul_vec(&r3, rk_vec3_make(n[0], n[1], n[2])));
      n[0] = (float)nn.x, n[1] = (float)nn.y, n[2] = (float)nn.z;
    }
  }
  if (flip_winding) {
    for (size_t i = 0; i + 2 < mesh->index_count; i += 3) {
      uint32_t t = mesh->indices[i + 1];
      mesh->indices[i + 1] = mesh->indices[i + 2];
      mesh->indices[i + 2] = t;
    }
  }
}

void rk__raw_premultiply_roots(rk__raw_asset *raw, const rk_transform *m) {
  for (guint i = 0; i < raw->joints->len; i++) {
    rk__raw_joint *j = rk__raw_joint_at(raw, i);
    if (j->parent < 0)
      j->rest = rk_transform_mul(m, &j->rest);
  }
  for (guint c = 0; c < raw->clips->len; c++) {
    rk__raw_clip *clip = g_ptr_array_index(raw->clips, c);
    for (guint k = 0; k < clip->tracks->len; k++) {
      rk__raw_track *t = g_ptr_array_index(clip->tracks, k);
      if (rk__raw_joint_at(raw, (size_t)t->joint)->parent < 0)
        premultiply_track(t, m);
    }
  }
  rk_mat4 mm = rk_transform_to_mat4(m), inv;
  if (!rk_mat4_inverse_affine(&mm, &inv))
    return; /* callers pass invertible transforms (non-zero scale) */
  for (guint i = 0; i < raw->joints->len; i++) {
    rk__raw_joint *j = rk__raw_joint_at(raw, i);
    if (j->has_ibm)
      j->ibm = rk_mat4_mul_affine(&j->ibm, &inv);
  }
  for (guint i = 0; i < raw->meshes->len; i++)
    transform_mesh(g_ptr_array_index(raw->meshes, i), &mm, false);
}

typedef struct basis_ctx {
  rk_mat3 a;
  rk_quat q; /* rotation part of det(A) * A */
  int perm[3]; /* scale component i comes from component perm[i] */
} basis_ctx;

static void basis_vec3(double *v, const void *ctx) {
  const basis_ctx *b = ctx;
  rk_vec3 p = rk_mat3_mul_vec(&b->a, rk_vec3_make(v[0], v[1], v[2]));
  v[0] = p.x, v[1] = p.y, v[2] = p.z;
}

static void basis_quat(double *v, const void *ctx) {
  const basis_ctx *b = ctx;
  rk_quat q = rk_quat_mul(rk_quat_mul(b->q, rk_quat_make(v[0], v[1], v[2], v[3])),
                          rk_quat_conj(b->q));
  v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
}

static void basis_scale(double *v, const void *ctx) {
  const basis_ctx *b = ctx;
  double s[3] = {v[b->perm[0]], v[b->perm[1]], v[b->perm[2]]};
  v[0] = s[0], v[1] = s[1], v[2] = s[2];
}

static double mat3_det(const rk_mat3 *a) {
  const double *m = a->m;
  return m[0] * (m[4] * m[8] - m[7] * m[5]) - m[3] * (m[1] * m[8] - m[7] * m[2]) +
         m[6] * (m[1] * m[5] - m[4] * m[2]);
}

void rk__raw_change_basis(rk__raw_asset *raw, const rk_mat3 *a) {
  basis_ctx b;
  b.a = *a;
  const double det = mat3_det(a);
  rk_mat3 proper = *a;
  if (det < 0)
    for (int i = 0; i < 9; i++)
      proper.m[i] = -proper.m[i];
  b.q = rk_quat_from_mat3(&proper);
  for (int r = 0; r < 3; r++) {
    b.perm[r] = r;
    for (int c = 0; c < 3; c++)
      if (fabs(rk_mat3_at(a, r, c)) > 0.5)
        b.perm[r] = c;
  }
  for (guint i = 0; i < raw->joints->len; i++) {
    rk__raw_joint *j = rk__raw_joint_at(raw, i);
    double t[3] = {j->rest.t.x, j->rest.t.y, j->rest.t.z};
    double q[4] = {j->rest.r.x, j->rest.r.y, j->rest.r.z, j->rest.r.w};
    double s[3] = {j->rest.s.x, j->rest.s.y, j->rest.s.z};
    basis_vec3(t, &b);
    basis_quat(q, &b);
    basis_scale(s, &b);
    j->rest.t = rk_vec3_make(t[0], t[1], t[2]);
    j->rest.r = rk_quat_make(q[0], q[1], q[2], q[3]);
    j->rest.s = rk_vec3_make(s[0], s[1], s[2]);
    if (j->has_ibm) {
      rk_mat4 a4 = rk_mat4_from_rt(a, rk_vec3_make(0, 0, 0));
      rk_mat3 at = rk_mat3_transpose(a);
      rk_mat4 at4 = rk_mat4_from_rt(&at, rk_vec3_make(0, 0, 0));
      rk_mat4 tmp = rk_mat4_mul_affine(&a4, &j->ibm);
      j->ibm = rk_mat4_mul_affine(&tmp, &at4);
    }
  }
  for_each_value(raw, RK_CHANNEL_TRANSLATION, NULL, basis_vec3, &b);
  for_each_value(raw, RK_CHANNEL_ROTATION, NULL, basis_quat, &b);
  for_each_value(raw, RK_CHANNEL_SCALE, NULL, basis_scale, &b);
  rk_mat4 a4 = rk_mat4_from_rt(a, rk_vec3_make(0, 0, 0));
  for (guint i = 0; i < raw->meshes->len; i++)
    transform_mesh(g_ptr_array_index(raw->meshes, i), &a4, det < 0);
}

/* Root of each raw joint (or -1 on a cycle). */
static int *raw_roots(const rk__raw_asset *raw) {
  const size_t n = raw->joints->len;
  int *root = g_new(int, n);
  for (size_t i = 0; i < n; i++) {
    int j = (int)i;
    size_t steps = 0;
    while (rk__raw_joint_at(raw, (size_t)j)->parent >= 0 && steps++ <= n)
      j = rk__raw_joint_at(raw, (size_t)j)->parent;
    root[i] = steps > n ? -1 : j;
  }
  return root;
}

void rk__raw_normalize_root_scale(rk__raw_asset *raw) {
  const size_t n = raw->joints->len;
  g_autofree int *root = raw_roots(raw);
  for (size_t r = 0; r < n; r++) {
    rk__raw_joint *jr = rk__raw_joint_at(raw, r);
    if (jr->parent >= 0)
      continue;
    const double k = jr->rest.s.x;
    if (!(k > 0) || fabs(k - 1.0) < 1e-6 || fabs(jr->rest.s.y - k) > 1e-5 * k ||
        fabs(jr->rest.s.z - k) > 1e-5 * k)
      continue;
    g_autofree guint8 *below = g_new0(guint8, n); /* strict descendants of r */
    g_autofree guint8 *self = g_new0(guint8, n);
    self[r] = 1;
    for (size_t i = 0; i < n; i++)
      if (root[i] == (int)r && i != r)
        below[i] = 1;
    jr->rest.s = rk_vec3_make(1, 1, 1);
    const double inv_k = 1.0 / k;
    for_each_value(raw, RK_CHANNEL_SCALE, self, scale_vec3, &inv_k);
    for_each_value(raw, RK_CHANNEL_TRANSLATION, below, scale_vec3, &k);
    for (size_t i = 0; i < n; i++) {
      rk__raw_joint *j = rk__raw_joint_at(raw, i);
      if (!below[i] && i != r)
        continue;
      if (below[i])
        j->rest.t = rk_vec3_scale(j->rest.t, k);
      if (j->has_ibm) /* W' = W K^-1, so IBM' = K IBM */
        for (int c = 0; c < 4; c++)
          for (int row = 0; row < 3; row++)
            j->ibm.m[c * 4 + row] *= k;
    }
    rk__raw_note(raw,
                 "root joint '%s' carried a uniform scale of %g (from its parent nodes): moved it "
                 "into the translations of its descendants",
                 jr->name, k);
  }
}

char *rk__raw_fresh_name(const char *name, GHashTable *taken) {
  for (unsigned k = 1;; k++) {
    char *fresh = g_strdup_printf("%s.%03u", name, k);
    if (!g_hash_table_contains(taken, fresh))
      return fresh;
    g_free(fresh);
  }
}

void rk__raw_uniquify_names(rk__raw_asset *raw) {
  g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < raw->joints->len; i++)
    g_hash_table_add(seen, g_strdup(rk__raw_joint_at(raw, i)->name));
  g_autoptr(GHashTable) used = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint i = 0; i < raw->joints->len; i++) {
    rk__raw_joint *j = rk__raw_joint_at(raw, i);
    if (g_hash_table_add(used, j->name))
      continue;
    char *fresh = rk__raw_fresh_name(j->name, seen);
    rk__raw_note(raw, "duplicate joint name '%s' (joint %u) renamed to '%s'", j->name, i, fresh);
    g_hash_table_add(seen, g_strdup(fresh));
    g_free(j->name);
    j->name = fresh;
    g_hash_table_add(used, j->name);
  }
}

/* ---- build ------------------------------------------------------------------------------------ */

rk_asset *rk__raw_asset_finish(rk__raw_asset *raw, const char *format, const char *path,
                               GError **error) {
  const size_t n = raw->joints->len;
  if (n > RK_SKELETON_MAX_JOINTS) {
    g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "%zu joints (limit %d)", n,
                RK_SKELETON_MAX_JOINTS);
    return NULL;
  }
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  for (size_t i = 0; i < n; i++) {
    const rk__raw_joint *j = rk__raw_joint_at(raw, i);
    rk_transform rest = j->rest;
    rest.r = rk_quat_normalize(rest.r);
    int id = rk_skeleton_builder_add_joint(b, j->name, j->parent, &rest, j->flags);
    if (j->has_ibm)
      rk_skeleton_builder_set_inverse_bind(b, id, &j->ibm);
  }
  g_autofree int *remap = g_new(int, n ? n : 1);
  g_autoptr(rk_skeleton) skel = rk_skeleton_builder_build(b, remap, error);
  if (!skel)
    return NULL;
  /* Offsets that are finite one by one can add up to infinity (1e308 + 1e308) in model space. */
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  rk_skeleton_rest_models(skel, models);
  for (size_t i = 0; i < n; i++)
    if (!rk_mat4_is_finite(&models[i])) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                  "joint '%s' lies at a non-finite position in the rest pose (offsets too large)",
                  rk_skeleton_joint_name(skel, i));
      return NULL;
    }
  g_autoptr(rk_asset) asset = rk_asset_new(skel);
  for (size_t i = 0; i < n; i++) {
    const rk__raw_joint *j = rk__raw_joint_at(raw, i);
    if (j->has_mechanics && !rk_asset_set_joint_mechanics(asset, (size_t)remap[i], &j->mechanics)) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "joint '%s': invalid axis or limits", j->name);
      return NULL;
    }
    if (j->source_node >= 0)
      rk_asset_set_joint_source_node(asset, (size_t)remap[i], j->source_node);
  }
  for (guint c = 0; c < raw->clips->len; c++) {
    const rk__raw_clip *rc = g_ptr_array_index(raw->clips, c);
    g_autoptr(rk_clip) clip = rk_clip_new(rc->name, n);
    g_autofree rk_track *tracks = g_new(rk_track, rc->tracks->len + 1);
    g_autofree int *raw_joint = g_new(int, rc->tracks->len + 1);
    g_autofree bool *computed = g_new(bool, rc->tracks->len + 1);
    size_t nt = 0;
    for (guint k = 0; k < rc->tracks->len; k++) {
      rk__raw_track *rt = g_ptr_array_index(rc->tracks, k);
      if (rt->keys == 0)
        continue;
      /* The clip takes the keys' arrays (the raw asset is freed after this): an imported clip is
       * not held twice while the asset is made. */
      if (rt->capacity > rt->keys) { /* the growth's slack returned */
        rt->times = g_renew(double, rt->times, rt->keys);
        rt->values = g_renew(double, rt->values, rt->keys * (size_t)rk__raw_track_stride(rt));
      }
      tracks[nt] = (rk_track){remap[rt->joint], rt->channel, rt->interp, rt->keys, rt->times,
                              rt->values};
      computed[nt] = rt->computed;
      raw_joint[nt++] = rt->joint;
      rt->times = rt->values = NULL;
      rt->keys = rt->capacity = 0;
    }
    size_t failed = 0;
    if (!rk_clip_take_tracks_trusted(clip, tracks, computed, nt, &failed, error)) {
      g_prefix_error(error, "clip '%s', joint '%s': ", rc->name,
                     rk__raw_joint_at(raw, (size_t)raw_joint[failed])->name);
      return NULL;
    }
    rk_clip_set_fps(clip, rc->fps);
    if (rc->duration >= 0)
      rk_clip_set_duration(clip, rc->duration);
    rk_asset_add_clip(asset, g_steal_pointer(&clip));
  }
  for (guint m = 0; m < raw->meshes->len; m++) {
    const rk__raw_mesh *rm = g_ptr_array_index(raw->meshes, m);
    g_autofree uint16_t *joints = NULL;
    if (rm->joints) {
      joints = g_new(uint16_t, 4 * rm->vertex_count);
      for (size_t i = 0; i < 4 * rm->vertex_count; i++)
        joints[i] = rm->joints[i] < n ? (uint16_t)remap[rm->joints[i]] : rm->joints[i];
    }
    rk_mesh_data d = {0};
    d.name = rm->name;
    d.vertex_count = rm->vertex_count;
    d.positions = rm->positions;
    d.normals = rm->normals;
    d.texcoords = rm->texcoords;
    d.index_count = rm->index_count;
    d.indices = rm->indices;
    d.joints = joints;
    d.weights = rm->weights;
    d.attach_joint = rm->attach_joint >= 0 && (size_t)rm->attach_joint < n
                         ? remap[rm->attach_joint]
                         : rm->attach_joint;
    d.material = rm->material;
    d.material.base_color_texture = rm->has_texture ? &rm->texture : NULL;
    rk_mesh *mesh = rk_mesh_new(&d, n, error);
    if (!mesh) {
      g_prefix_error(error, "mesh %u: ", m);
      return NULL;
    }
    rk_asset_add_mesh(asset, mesh);
  }
  rk_asset_set_source(asset, format, path);
  if (raw->digest)
    rk_asset_set_source_digest(asset, raw->digest);
  if (raw->source_tree)
    rk_asset_set_source_tree(asset, g_steal_pointer(&raw->source_tree),
                             (GDestroyNotify)json_node_unref);
  rk_asset_set_unit(asset, raw->unit, raw->unit_scale);
  rk_asset_set_up_axis(asset, raw->up_axis);
  for (guint i = 0, k = 0; i < raw->notes->len; i++) {
    const bool repair = k < raw->repairs->len && g_array_index(raw->repairs, guint, k) == i;
    k += repair;
    if (repair)
      rk_asset_add_repair(asset, "%s", (const char *)g_ptr_array_index(raw->notes, i));
    else
      rk_asset_add_note(asset, "%s", (const char *)g_ptr_array_index(raw->notes, i));
  }
  return g_steal_pointer(&asset);
}
