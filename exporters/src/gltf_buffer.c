/* The glTF binary buffer: bufferViews and accessors (see gltf_buffer.h). */
#include "gltf_buffer.h"

#include <string.h>

/* The binary buffer must stay addressable by GLB's 32-bit lengths (and by GByteArray). */
#define MAX_BUFFER_BYTES ((size_t)G_MAXUINT32 - (64u << 20))

int rk__gltf_reserve_view(rk__gltf_ctx *c, size_t bytes, int target, size_t *offset) {
  static const guint8 zeros[4] = {0};
  if (c->bin->len + bytes + 4 > MAX_BUFFER_BYTES) {
    g_set_error(c->error, RK_ERROR, RK_ERROR_LIMIT,
                "%s: the binary data would exceed %zu bytes, the most a glTF buffer written by "
                "rigkit may hold",
                c->path, MAX_BUFFER_BYTES);
    return -1;
  }
  if (c->bin->len % 4)
    g_byte_array_append(c->bin, zeros, 4 - c->bin->len % 4);
  *offset = c->bin->len;
  g_byte_array_set_size(c->bin, (guint)(*offset + bytes));
  JsonObject *v = json_object_new();
  json_object_set_int_member(v, "buffer", c->buffer);
  json_object_set_int_member(v, "byteOffset", (gint64)*offset);
  json_object_set_int_member(v, "byteLength", (gint64)bytes);
  if (target)
    json_object_set_int_member(v, "target", target);
  json_array_add_object_element(c->views, v);
  return (int)json_array_get_length(c->views) - 1;
}

int rk__gltf_add_view(rk__gltf_ctx *c, const void *data, size_t bytes, int target) {
  size_t offset = 0;
  const int view = rk__gltf_reserve_view(c, bytes, target, &offset);
  if (view >= 0 && bytes)
    memcpy(c->bin->data + offset, data, bytes);
  return view;
}

static const char *type_name(int ncomp) {
  switch (ncomp) {
  case 1:
    return "SCALAR";
  case 2:
    return "VEC2";
  case 3:
    return "VEC3";
  case 4:
    return "VEC4";
  case 16:
    return "MAT4";
  }
  return "?";
}

static size_t component_size(int type) {
  return type == RK__GL_FLOAT || type == RK__GL_UNSIGNED_INT ? 4
         : type == RK__GL_UNSIGNED_SHORT                     ? 2
                                                             : 1;
}

static double component_at(int type, const void *data, size_t i) {
  switch (type) {
  case RK__GL_FLOAT:
    return ((const float *)data)[i];
  case RK__GL_UNSIGNED_INT:
    return ((const guint32 *)data)[i];
  case RK__GL_UNSIGNED_SHORT:
    return ((const guint16 *)data)[i];
  default:
    return ((const guint8 *)data)[i];
  }
}

/* Comparisons, not fmin and fmax (calls into libm, per value): the same bounds but for the sign
 * of a zero bound, which the accessor writes as 0 either way (rk__export_clean_zero); a NaN is
 * passed over as fmin passes it over. Floats (every accessor of an animation) are read directly. */
void rk__gltf_bounds(int comp_type, const void *data, size_t count, int ncomp, double *lo,
                     double *hi) {
  const float *f = comp_type == RK__GL_FLOAT ? data : NULL;
  for (int k = 0; k < ncomp; k++) {
    double a = INFINITY, b = -INFINITY;
    for (size_t i = 0, at = (size_t)k; i < count; i++, at += (size_t)ncomp) {
      const double v = f ? (double)f[at] : component_at(comp_type, data, at);
      a = v < a ? v : a;
      b = v > b ? v : b;
    }
    lo[k] = a, hi[k] = b;
  }
}

int rk__gltf_accessor_of(rk__gltf_ctx *c, int view, int comp_type, size_t count, int ncomp) {
  JsonObject *a = json_object_new();
  json_object_set_int_member(a, "bufferView", view);
  json_object_set_int_member(a, "componentType", comp_type);
  json_object_set_int_member(a, "count", (gint64)count);
  json_object_set_string_member(a, "type", type_name(ncomp));
  json_array_add_object_element(c->accessors, a);
  return (int)json_array_get_length(c->accessors) - 1;
}

void rk__gltf_accessor_set_bounds(rk__gltf_ctx *c, int accessor, int comp_type, int ncomp,
                                  const double *lo, const double *hi) {
  JsonObject *a = json_array_get_object_element(c->accessors, (guint)accessor);
  JsonArray *mn = json_array_new(), *mx = json_array_new();
  for (int k = 0; k < ncomp; k++) {
    if (comp_type == RK__GL_FLOAT) {
      json_array_add_double_element(mn, rk__export_clean_zero(lo[k]));
      json_array_add_double_element(mx, rk__export_clean_zero(hi[k]));
    } else {
      json_array_add_int_element(mn, (gint64)lo[k]);
      json_array_add_int_element(mx, (gint64)hi[k]);
    }
  }
  json_object_set_array_member(a, "min", mn);
  json_object_set_array_member(a, "max", mx);
}

int rk__gltf_add_accessor(rk__gltf_ctx *c, int comp_type, const void *data, size_t count, int ncomp,
                          int target, bool minmax) {
  const size_t n = count * (size_t)ncomp;
  int view = rk__gltf_add_view(c, data, n * component_size(comp_type), target);
  if (view < 0)
    return -1;
  const int a = rk__gltf_accessor_of(c, view, comp_type, count, ncomp);
  if (minmax && count > 0) {
    double lo[16], hi[16];
    rk__gltf_bounds(comp_type, data, count, ncomp, lo, hi);
    rk__gltf_accessor_set_bounds(c, a, comp_type, ncomp, lo, hi);
  }
  return a;
}
