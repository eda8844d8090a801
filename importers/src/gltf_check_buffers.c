/* The pre-pass's checks of a glTF file's bytes (gltf_check_buffers.h): every byte range Assimp
 * 5.2.5 would follow must lie in the file (it trusts them and can crash on a malformed file), and
 * declared sizes are bounded before anything is allocated for them. */
#include "gltf_check_buffers.h"

#include <string.h>

/* Largest element count rigkit accepts in one accessor (keys, vertices, indices). */
#define MAX_ACCESSOR_COUNT ((gint64)RK_MESH_MAX_VERTICES * 3)
/* Largest accessor without a bufferView (all zeros, or sparse): no bytes of the file back its
 * declared size, yet Assimp materialises it (a 3 KB file could claim gigabytes). */
#define MAX_ZERO_ACCESSOR_BYTES ((double)(64u << 20))

/* Whether `count` elements of `elem` bytes from byteOffset of the object's bufferView lie in it. */
static bool view_holds(rk__gltf_doc *c, JsonObject *o, double count, double elem) {
  gint64 view;
  double off = 0, vlen = 0;
  if (!rk__gltf_index(c, o, "bufferView", rk__gltf_len(c->views), &view, "", NULL) || view < 0 ||
      rk__gltf_number(o, "byteOffset", &off) < 0 || off < 0)
    return false;
  rk__gltf_number(rk__gltf_element(c->views, (guint)view), "byteLength", &vlen);
  return off + count * elem <= vlen;
}

/* A sparse accessor: its count of replaced elements, their indices and values must lie in their
 * bufferViews (Assimp reads them without checking). */
static bool check_sparse(rk__gltf_doc *c, JsonObject *a, double count, double elem,
                         const char *what, GError **error) {
  JsonObject *sp = rk__gltf_object(a, "sparse");
  JsonObject *ind = rk__gltf_object(sp, "indices"), *val = rk__gltf_object(sp, "values");
  double n = 0, itype = 0;
  const bool ok =
      sp && ind && val && rk__gltf_number(sp, "count", &n) == 1 && n >= 1 && n == floor(n) &&
      n <= count && rk__gltf_number(ind, "componentType", &itype) == 1 &&
      (itype == 5121 || itype == 5123 || itype == 5125) &&
      view_holds(c, ind, n, rk__gltf_component_size((int)itype)) && view_holds(c, val, n, elem);
  if (!ok)
    g_set_error(
        error, RK_ERROR, RK_ERROR_PARSE,
        "%s: invalid sparse count, indices or values (or they do not fit their bufferViews)", what);
  return ok;
}

/* A data URI must be what Assimp 5.2.5 parses safely. Its parser keeps the offsets of the media
 * type, parameters and data in signed `char`s written into the string, so with a header (up to
 * the comma) longer than 127 bytes they wrap negative and it decodes from before the data, up to
 * 128 bytes before the string (found by fuzz_gltf: it then threw, leaking memory); its base64
 * decoder throws, leaking, on a byte >= 0x80 or a length that is not a multiple of 4. So: a
 * header of at most 100 bytes, strict padded base64. *holds = decoded bytes, computed without
 * decoding (0 for URIs that are not base64 data URIs). */
static bool check_data_uri(const char *uri, const char *what, guint i, size_t *holds,
                           GError **error) {
  *holds = 0;
  if (!g_str_has_prefix(uri, "data:"))
    return true;
  const char *comma = strchr(uri, ',');
  if (!comma || comma - uri > 100) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                "%s %u: data URI without a comma in its first 100 bytes (media type and "
                "parameters)", what, i);
    return false;
  }
  if (!g_strstr_len(uri, comma - uri, ";base64"))
    return true;
  const char *b = comma + 1;
  const size_t chars = strlen(b);
  size_t pad = 0;
  while (pad < 2 && chars > pad && b[chars - 1 - pad] == '=')
    pad++;
  for (size_t k = 0; k < chars - pad; k++)
    if (!g_ascii_isalnum(b[k]) && b[k] != '+' && b[k] != '/') {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                  "%s %u: the data URI is not base64 (character %zu)", what, i, k + 1);
      return false;
    }
  if (chars % 4 != 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                "%s %u: the data URI's base64 is %zu characters, not a multiple of 4", what, i,
                chars);
    return false;
  }
  *holds = chars / 4 * 3 - pad;
  return true;
}

/* Images and buffers: data URIs Assimp can decode safely, buffers of a valid size backed by
 * their URI or the GLB BIN chunk. */
static bool check_buffer_list(rk__gltf_doc *c, GError **error) {
  JsonArray *images = rk__gltf_array(c->root, "images");
  for (guint i = 0; i < rk__gltf_len(images); i++) {
    const char *uri = rk__gltf_string(rk__gltf_element(images, i), "uri");
    size_t holds;
    if (uri && !check_data_uri(uri, "image", i, &holds, error))
      return false;
  }
  for (guint i = 0; i < rk__gltf_len(c->buffers); i++) {
    JsonObject *b = rk__gltf_element(c->buffers, i);
    double len;
    if (!b || rk__gltf_number(b, "byteLength", &len) != 1 || len < 0 || len != floor(len)) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "buffer %u has no valid byteLength", i);
      return false;
    }
    if (len > (double)RK__IMPORT_MAX_FILE_SIZE) {
      g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "buffer %u declares %.0f bytes (limit 1 GiB)",
                  i, len);
      return false;
    }
    const char *uri = rk__gltf_string(b, "uri");
    if (!uri && (!c->glb || i != 0)) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "buffer %u has no uri", i);
      return false;
    }
    size_t holds = 0;
    if (uri && !check_data_uri(uri, "buffer", i, &holds, error))
      return false;
    if (uri && g_str_has_prefix(uri, "data:") && (double)holds < len) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                  "buffer %u declares %.0f bytes but its data URI holds %zu", i, len, holds);
      return false;
    }
    if (!uri && (size_t)len > c->bin_size) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                  "buffer 0 declares %.0f bytes but the GLB BIN chunk has %zu (truncated?)", len,
                  c->bin_size);
      return false;
    }
  }
  return true;
}

/* Every bufferView lies inside its buffer. */
static bool check_views(rk__gltf_doc *c, GError **error) {
  for (guint i = 0; i < rk__gltf_len(c->views); i++) {
    JsonObject *v = rk__gltf_element(c->views, i);
    g_autofree char *what = g_strdup_printf("bufferView %u", i);
    gint64 buf;
    double off = 0, len = -1, stride = 0;
    if (!rk__gltf_need_object(v, what, error) ||
        !rk__gltf_index(c, v, "buffer", rk__gltf_len(c->buffers), &buf, what, error))
      return false;
    if (buf < 0 || rk__gltf_number(v, "byteLength", &len) != 1 || len < 0 ||
        rk__gltf_number(v, "byteOffset", &off) < 0 || off < 0 ||
        rk__gltf_number(v, "byteStride", &stride) < 0 ||
        (stride != 0 && (stride < 4 || stride > 252))) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: missing or invalid buffer, byteOffset, "
                  "byteLength or byteStride", what);
      return false;
    }
    double blen = 0;
    rk__gltf_number(rk__gltf_element(c->buffers, (guint)buf), "byteLength", &blen);
    if (off + len > blen) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                  "%s: bytes %.0f..%.0f lie outside buffer %" G_GINT64_FORMAT " (%.0f bytes)", what,
                  off, off + len, buf, blen);
      return false;
    }
  }
  return true;
}

/* Every accessor is well typed and its elements (or its sparse sections) lie inside their
 * bufferViews; an accessor without one declares a bounded number of zeros. */
static bool check_accessors(rk__gltf_doc *c, GError **error) {
  for (guint i = 0; i < rk__gltf_len(c->accessors); i++) {
    JsonObject *a = rk__gltf_element(c->accessors, i);
    g_autofree char *what = g_strdup_printf("accessor %u", i);
    gint64 view;
    double count = -1, off = 0, ctype = 0;
    if (!rk__gltf_need_object(a, what, error) ||
        !rk__gltf_index(c, a, "bufferView", rk__gltf_len(c->views), &view, what, error))
      return false;
    const int comps = rk__gltf_type_components(rk__gltf_string(a, "type"));
    if (rk__gltf_number(a, "count", &count) != 1 || count < 1 || count != floor(count) ||
        rk__gltf_number(a, "componentType", &ctype) != 1 ||
        rk__gltf_component_size((int)ctype) == 0 || comps == 0 ||
        rk__gltf_number(a, "byteOffset", &off) < 0 || off < 0) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                  "%s: missing or invalid count, componentType, type or byteOffset", what);
      return false;
    }
    if (count > (double)MAX_ACCESSOR_COUNT) {
      g_set_error(error, RK_ERROR, RK_ERROR_LIMIT,
                  "%s declares %.0f elements (limit %" G_GINT64_FORMAT ")", what, count,
                  MAX_ACCESSOR_COUNT);
      return false;
    }
    const double elem = (double)rk__gltf_component_size((int)ctype) * comps;
    if (json_object_has_member(a, "sparse") && !check_sparse(c, a, count, elem, what, error))
      return false;
    if (view < 0) {
      if (count * elem > MAX_ZERO_ACCESSOR_BYTES) {
        g_set_error(error, RK_ERROR, RK_ERROR_LIMIT,
                    "%s has no bufferView and declares %.0f bytes of zeros (limit %.0f)", what,
                    count * elem, MAX_ZERO_ACCESSOR_BYTES);
        return false;
      }
      continue; /* all zeros (or sparse): no bytes to check */
    }
    JsonObject *v = rk__gltf_element(c->views, (guint)view);
    double vlen = 0, stride = 0;
    rk__gltf_number(v, "byteLength", &vlen);
    rk__gltf_number(v, "byteStride", &stride);
    const double step = stride > 0 ? stride : elem;
    if (off + (count - 1) * step + elem > vlen) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                  "%s: %.0f elements do not fit in bufferView %" G_GINT64_FORMAT " (%.0f bytes)",
                  what, count, view, vlen);
      return false;
    }
  }
  return true;
}

bool rk__gltf_check_buffers(rk__gltf_doc *c, GError **error) {
  return check_buffer_list(c, error) && check_views(c, error) && check_accessors(c, error);
}
