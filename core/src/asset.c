/* Assets (skeleton + clips + meshes + provenance) and meshes. */
#include <rigkit/asset.h>
#include <rigkit/error.h>

#include <stdarg.h>
#include <string.h>

struct rk_mesh {
  rk_mesh_data data;  /* all pointers owned */
  rk_texture texture; /* data.material.base_color_texture points here when there is one */
};

struct rk_asset {
  rk_skeleton *skeleton;
  GPtrArray *clips;  /* rk_clip */
  GPtrArray *meshes; /* rk_mesh */
  GPtrArray *notes;  /* char * */
  GArray *repairs;   /* guint: indices in notes of the repairs (rk_asset_add_repair) */
  char *format;
  char *path;
  char *unit;
  double unit_scale;
  char *up_axis;
  rk_joint_mechanics *mechanics; /* joint count entries, or NULL when no joint has any */
  bool *has_mechanics;
  int *source_nodes; /* joint count entries (-1 = none), or NULL when none was recorded */
  char *digest;      /* of the source file, or NULL */
  gpointer source_tree; /* a reader's parse of the source document, or NULL (taken atomically) */
  GDestroyNotify free_tree;
};

static bool floats_finite(const float *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isfinite(v[i]))
      return false;
  return true;
}

rk_mesh *rk_mesh_new(const rk_mesh_data *d, size_t joint_count, GError **error) {
  g_return_val_if_fail(d != NULL, NULL);
  const char *name = d->name ? d->name : "";
  if (!d->positions || d->vertex_count == 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "mesh '%s' has no vertices", name);
    return NULL;
  }
  if (d->vertex_count > RK_MESH_MAX_VERTICES || d->index_count > 3 * (size_t)RK_MESH_MAX_VERTICES) {
    g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "mesh '%s' has %zu vertices and %zu indices (limit %u vertices)",
                name, d->vertex_count, d->index_count, RK_MESH_MAX_VERTICES);
    return NULL;
  }
  const size_t n = d->vertex_count;
  if (!floats_finite(d->positions, 3 * n) || (d->normals && !floats_finite(d->normals, 3 * n)) ||
      (d->texcoords && !floats_finite(d->texcoords, 2 * n)) ||
      (d->weights && !floats_finite(d->weights, 4 * n))) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "mesh '%s' has non-finite vertex data", name);
    return NULL;
  }
  if (d->index_count % 3 != 0 || (d->index_count > 0 && !d->indices)) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "mesh '%s': %zu indices is not a triangle list",
                name, d->index_count);
    return NULL;
  }
  for (size_t i = 0; i < d->index_count; i++)
    if (d->indices[i] >= n) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "mesh '%s': index %u out of range (%zu vertices)",
                  name, d->indices[i], n);
      return NULL;
    }
  if (!d->indices && n % 3 != 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "mesh '%s': %zu vertices is not a non-indexed triangle list", name, n);
    return NULL;
  }
  if ((d->joints == NULL) != (d->weights == NULL)) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "mesh '%s' has joints without weights or weights without joints", name);
    return NULL;
  }
  if (d->joints)
    for (size_t i = 0; i < 4 * n; i++)
      if (d->joints[i] >= joint_count || d->weights[i] < 0) {
        g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                    "mesh '%s': vertex %zu has joint %u or weight %g out of range (%zu joints)",
                    name, i / 4, d->joints[i], d->weights[i], joint_count);
        return NULL;
      }
  const rk_texture *tex = d->material.base_color_texture;
  if (tex && !(tex->data && tex->size > 0) && !tex->path) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "mesh '%s': its base-colour texture has neither image bytes nor a path", name);
    return NULL;
  }
  if (d->attach_joint < -1 || d->attach_joint >= (int)joint_count) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "mesh '%s' is attached to joint %d of %zu", name,
                d->attach_joint, joint_count);
    return NULL;
  }
  rk_mesh *m = g_new0(rk_mesh, 1);
  m->data = *d;
  m->data.name = g_strdup(name);
  m->data.positions = g_memdup2(d->positions, 3 * n * sizeof(float));
  m->data.normals = d->normals ? g_memdup2(d->normals, 3 * n * sizeof(float)) : NULL;
  m->data.texcoords = d->texcoords ? g_memdup2(d->texcoords, 2 * n * sizeof(float)) : NULL;
  m->data.indices = d->indices ? g_memdup2(d->indices, d->index_count * sizeof(uint32_t)) : NULL;
  m->data.material.name = g_strdup(d->material.name);
  if (tex) {
    m->texture = *tex;
    m->texture.data = tex->data && tex->size ? g_memdup2(tex->data, tex->size) : NULL;
    m->texture.size = m->texture.data ? tex->size : 0;
    m->texture.mime_type = g_strdup(tex->mime_type);
    m->texture.path = g_strdup(tex->path);
    m->data.material.base_color_texture = &m->texture;
  }
  if (d->joints) {
    uint16_t *j = g_memdup2(d->joints, 4 * n * sizeof(uint16_t));
    float *w = g_memdup2(d->weights, 4 * n * sizeof(float));
    for (size_t v = 0; v < n; v++) {
      float sum = w[4 * v] + w[4 * v + 1] + w[4 * v + 2] + w[4 * v + 3];
      if (sum > 0) {
        for (int k = 0; k < 4; k++)
          w[4 * v + k] /= sum;
      } else {
        w[4 * v] = 1.0f;
      }
      for (int k = 0; k < 4; k++)
        if (w[4 * v + k] == 0)
          j[4 * v + k] = 0; /* unused slots point at joint 0, as glTF recommends */
    }
    m->data.joints = j;
    m->data.weights = w;
  }
  return m;
}

void rk_mesh_free(rk_mesh *m) {
  if (!m)
    return;
  g_free((char *)m->data.name);
  g_free((char *)m->data.material.name);
  g_free((uint8_t *)m->texture.data);
  g_free((char *)m->texture.mime_type);
  g_free((char *)m->texture.path);
  g_free((float *)m->data.positions);
  g_free((float *)m->data.normals);
  g_free((float *)m->data.texcoords);
  g_free((uint32_t *)m->data.indices);
  g_free((uint16_t *)m->data.joints);
  g_free((float *)m->data.weights);
  g_free(m);
}

const rk_mesh_data *rk_mesh_data_get(const rk_mesh *mesh) {
  return &mesh->data;
}

rk_asset *rk_asset_new(rk_skeleton *skeleton) {
  g_return_val_if_fail(skeleton != NULL, NULL);
  rk_asset *a = g_new0(rk_asset, 1);
  a->skeleton = rk_skeleton_ref(skeleton);
  a->clips = g_ptr_array_new_with_free_func((GDestroyNotify)rk_clip_free);
  a->meshes = g_ptr_array_new_with_free_func((GDestroyNotify)rk_mesh_free);
  a->notes = g_ptr_array_new_with_free_func(g_free);
  a->repairs = g_array_new(FALSE, FALSE, sizeof(guint));
  a->format = g_strdup("");
  a->path = g_strdup("");
  a->unit = g_strdup("m");
  a->unit_scale = 1.0;
  a->up_axis = g_strdup("Y");
  return a;
}

void rk_asset_free(rk_asset *a) {
  if (!a)
    return;
  g_ptr_array_unref(a->clips);
  g_ptr_array_unref(a->meshes);
  g_ptr_array_unref(a->notes);
  g_array_unref(a->repairs);
  rk_skeleton_unref(a->skeleton);
  g_free(a->format);
  g_free(a->path);
  g_free(a->unit);
  g_free(a->up_axis);
  g_free(a->mechanics);
  g_free(a->has_mechanics);
  g_free(a->source_nodes);
  g_free(a->digest);
  if (a->source_tree)
    a->free_tree(a->source_tree);
  g_free(a);
}

rk_skeleton *rk_asset_skeleton(const rk_asset *a) {
  return a->skeleton;
}

bool rk_asset_add_clip(rk_asset *a, rk_clip *clip) {
  g_return_val_if_fail(a && clip, false);
  if (rk_clip_joint_count(clip) != rk_skeleton_joint_count(a->skeleton))
    return false;
  g_ptr_array_add(a->clips, clip);
  return true;
}

rk_clip *rk_asset_take_clip(rk_asset *a, size_t i) {
  if (i >= a->clips->len)
    return NULL;
  return g_ptr_array_steal_index(a->clips, (guint)i);
}

size_t rk_asset_clip_count(const rk_asset *a) {
  return a->clips->len;
}

const rk_clip *rk_asset_clip(const rk_asset *a, size_t i) {
  return i < a->clips->len ? g_ptr_array_index(a->clips, i) : NULL;
}

int rk_asset_find_clip(const rk_asset *a, const char *name_or_index) {
  if (!name_or_index)
    return -1;
  for (guint i = 0; i < a->clips->len; i++)
    if (strcmp(rk_clip_name(g_ptr_array_index(a->clips, i)), name_or_index) == 0)
      return (int)i;
  guint64 idx;
  if (g_ascii_string_to_unsigned(name_or_index, 10, 0, G_MAXUINT, &idx, NULL) &&
      idx < a->clips->len)
    return (int)idx;
  return -1;
}

void rk_asset_remove_clips(rk_asset *a) {
  g_ptr_array_set_size(a->clips, 0);
}

void rk_asset_add_mesh(rk_asset *a, rk_mesh *mesh) {
  g_return_if_fail(a && mesh);
  g_ptr_array_add(a->meshes, mesh);
}

size_t rk_asset_mesh_count(const rk_asset *a) {
  return a->meshes->len;
}

const rk_mesh *rk_asset_mesh(const rk_asset *a, size_t i) {
  return i < a->meshes->len ? g_ptr_array_index(a->meshes, i) : NULL;
}

static void replace_string(char **slot, const char *value) {
  char *v = g_strdup(value ? value : "");
  g_free(*slot);
  *slot = v;
}

void rk_asset_set_source(rk_asset *a, const char *format, const char *path) {
  replace_string(&a->format, format);
  replace_string(&a->path, path);
}

const char *rk_asset_source_format(const rk_asset *a) {
  return a->format;
}

const char *rk_asset_source_path(const rk_asset *a) {
  return a->path;
}

void rk_asset_set_source_digest(rk_asset *a, const char *digest) {
  char *d = g_strdup(digest);
  g_free(a->digest);
  a->digest = d;
}

const char *rk_asset_source_digest(const rk_asset *a) {
  return a->digest;
}

void rk_asset_set_source_tree(rk_asset *a, gpointer tree, GDestroyNotify free_tree) {
  gpointer old = g_atomic_pointer_exchange(&a->source_tree, NULL);
  if (old)
    a->free_tree(old);
  a->free_tree = free_tree;
  g_atomic_pointer_set(&a->source_tree, tree);
}

gpointer rk_asset_take_source_tree(const rk_asset *a, GDestroyNotify *free_tree) {
  /* The one slot a const asset gives up: a cache of the reader's work, not part of the asset's
   * value (copies do not carry it), and the exchange lets only one taker have it. */
  gpointer t = g_atomic_pointer_exchange(&((rk_asset *)a)->source_tree, NULL);
  if (free_tree)
    *free_tree = t ? a->free_tree : NULL;
  return t;
}

void rk_asset_set_unit(rk_asset *a, const char *unit, double metres_per_unit) {
  replace_string(&a->unit, unit);
  a->unit_scale = metres_per_unit;
}

const char *rk_asset_unit_name(const rk_asset *a) {
  return a->unit;
}

double rk_asset_unit_scale(const rk_asset *a) {
  return a->unit_scale;
}

void rk_asset_set_up_axis(rk_asset *a, const char *axis) {
  replace_string(&a->up_axis, axis);
}

const char *rk_asset_up_axis(const rk_asset *a) {
  return a->up_axis;
}

bool rk_asset_set_joint_mechanics(rk_asset *a, size_t joint, const rk_joint_mechanics *m) {
  const size_t n = rk_skeleton_joint_count(a->skeleton);
  const bool one_axis = m && (m->motion == RK_JOINT_REVOLUTE || m->motion == RK_JOINT_PRISMATIC);
  if (joint >= n || !m || !(m->lower <= m->upper || !m->has_limits) ||
      (m->motion != RK_JOINT_FIXED && !one_axis) || (one_axis && !(rk_vec3_norm(m->axis) > 0)))
    return false;
  if (!a->mechanics) {
    a->mechanics = g_new0(rk_joint_mechanics, n);
    a->has_mechanics = g_new0(bool, n);
  }
  a->mechanics[joint] = *m;
  if (m->motion != RK_JOINT_FIXED)
    a->mechanics[joint].axis = rk_vec3_normalize(m->axis);
  a->has_mechanics[joint] = true;
  return true;
}

bool rk_asset_joint_mechanics(const rk_asset *a, size_t joint, rk_joint_mechanics *out) {
  if (!a->mechanics || joint >= rk_skeleton_joint_count(a->skeleton) || !a->has_mechanics[joint])
    return false;
  if (out)
    *out = a->mechanics[joint];
  return true;
}

bool rk_asset_set_joint_source_node(rk_asset *a, size_t joint, int node) {
  const size_t n = rk_skeleton_joint_count(a->skeleton);
  if (joint >= n || node < -1)
    return false;
  if (!a->source_nodes) {
    a->source_nodes = g_new(int, n);
    for (size_t i = 0; i < n; i++)
      a->source_nodes[i] = -1;
  }
  a->source_nodes[joint] = node;
  return true;
}

int rk_asset_joint_source_node(const rk_asset *a, size_t joint) {
  if (!a->source_nodes || joint >= rk_skeleton_joint_count(a->skeleton))
    return -1;
  return a->source_nodes[joint];
}

static void add_note_v(rk_asset *a, bool repair, const char *format, va_list ap) {
  const guint i = a->notes->len;
  g_ptr_array_add(a->notes, g_strdup_vprintf(format, ap));
  if (repair)
    g_array_append_val(a->repairs, i);
}

void rk_asset_add_note(rk_asset *a, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  add_note_v(a, false, format, ap);
  va_end(ap);
}

void rk_asset_add_repair(rk_asset *a, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  add_note_v(a, true, format, ap);
  va_end(ap);
}

bool rk_asset_note_is_repair(const rk_asset *a, size_t i) {
  for (guint k = 0; k < a->repairs->len; k++)
    if (g_array_index(a->repairs, guint, k) == i)
      return true;
  return false;
}

size_t rk_asset_note_count(const rk_asset *a) {
  return a->notes->len;
}

const char *rk_asset_note(const rk_asset *a, size_t i) {
  return i < a->notes->len ? g_ptr_array_index(a->notes, i) : NULL;
}
