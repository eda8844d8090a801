/* What the pre-pass collects for the import (gltf_collect.h): interpolation modes and CUBICSPLINE
 * keys, read from the buffers (GLB BIN chunk, data URIs, or files next to the .gltf). */
#include "gltf_collect.h"

#include "gltf_doc.h"

#include <glib/gstdio.h>
#include <string.h>

/* ---- buffer data ----------------------------------------------------------------------------- */

static GBytes *load_buffer(rk__gltf_doc *c, guint i, GError **error) {
  if (i < c->buffer_data->len && g_ptr_array_index(c->buffer_data, i))
    return g_ptr_array_index(c->buffer_data, i);
  JsonObject *b = rk__gltf_element(c->buffers, i);
  const char *uri = rk__gltf_string(b, "uri");
  GBytes *bytes = NULL;
  if (!uri) {
    bytes = g_bytes_new_static(c->bin, c->bin_size);
  } else if (g_str_has_prefix(uri, "data:")) {
    const char *comma = strchr(uri, ',');
    if (!comma || !g_strstr_len(uri, comma - uri, ";base64")) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "buffer %u: unsupported data URI", i);
      return NULL;
    }
    gsize len = 0;
    guchar *d = g_base64_decode(comma + 1, &len);
    bytes = g_bytes_new_take(d, len);
  } else {
    if (!c->src->dir) {
      g_set_error(error, RK_ERROR, RK_ERROR_IO,
                  "buffer %u refers to '%s', which an in-memory import cannot open", i, uri);
      return NULL;
    }
    g_autofree char *unescaped = g_uri_unescape_string(uri, NULL);
    g_autofree char *path = g_build_filename(c->src->dir, unescaped ? unescaped : uri, NULL);
    GStatBuf st;
    if (g_stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
        (guint64)st.st_size > RK__IMPORT_MAX_FILE_SIZE) {
      g_set_error(error, RK_ERROR, RK_ERROR_IO, "buffer %u: '%s' is missing or not a file", i,
                  path);
      return NULL;
    }
    gchar *d = NULL;
    gsize len = 0;
    if (!g_file_get_contents(path, &d, &len, error))
      return NULL;
    bytes = g_bytes_new_take(d, len);
  }
  double declared = 0;
  rk__gltf_number(b, "byteLength", &declared);
  if (g_bytes_get_size(bytes) < (gsize)declared) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "buffer %u has %zu bytes, declares %.0f", i,
                g_bytes_get_size(bytes), declared);
    g_bytes_unref(bytes);
    return NULL;
  }
  if (c->buffer_data->len <= i)
    g_ptr_array_set_size(c->buffer_data, i + 1);
  g_ptr_array_index(c->buffer_data, i) = bytes;
  return bytes;
}

/* Reads accessor i as doubles (float, or normalised integers); returns count * components values
 * or NULL. */
static double *read_accessor(rk__gltf_doc *c, gint64 i, size_t *count, int *components,
                             GError **error) {
  JsonObject *a = rk__gltf_element(c->accessors, (guint)i);
  double n = 0, ctype = 0, off = 0;
  rk__gltf_number(a, "count", &n);
  rk__gltf_number(a, "componentType", &ctype);
  rk__gltf_number(a, "byteOffset", &off);
  const int comps = rk__gltf_type_components(rk__gltf_string(a, "type"));
  gint64 view = -1;
  rk__gltf_index(c, a, "bufferView", rk__gltf_len(c->views), &view, "accessor", NULL);
  const bool normalized = json_object_has_member(a, "normalized") &&
                          json_object_get_boolean_member(a, "normalized");
  *count = (size_t)n;
  *components = comps;
  /* Without a bufferView the accessor is zeros (or sparse): its declared count is backed by no
   * bytes of the file, so a few bytes could claim gigabytes. Assimp 5.2.5 refuses such accessors
   * too ("data is null"). */
  if (view < 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_UNSUPPORTED,
                "accessor %" G_GINT64_FORMAT " has no bufferView (zero or sparse accessors are not "
                "supported for animation keys)", i);
    return NULL;
  }
  double *out = g_new0(double, (size_t)n * (size_t)comps + 1);
  JsonObject *v = rk__gltf_element(c->views, (guint)view);
  double voff = 0, stride = 0;
  gint64 buf = -1;
  rk__gltf_number(v, "byteOffset", &voff);
  rk__gltf_number(v, "byteStride", &stride);
  rk__gltf_index(c, v, "buffer", rk__gltf_len(c->buffers), &buf, "bufferView", NULL);
  GBytes *bytes = load_buffer(c, (guint)buf, error);
  if (!bytes) {
    g_free(out);
    return NULL;
  }
  const uint8_t *base = (const uint8_t *)g_bytes_get_data(bytes, NULL) + (size_t)voff + (size_t)off;
  const int cs = rk__gltf_component_size((int)ctype);
  const size_t step = stride > 0 ? (size_t)stride : (size_t)(cs * comps);
  if ((int)ctype != 5126 && !normalized) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "accessor %" G_GINT64_FORMAT
                " holds integers that are not normalised", i);
    g_free(out);
    return NULL;
  }
  for (size_t e = 0; e < (size_t)n; e++)
    for (int k = 0; k < comps; k++) {
      const uint8_t *p = base + e * step + (size_t)(k * cs);
      double x;
      switch ((int)ctype) {
      case 5126: {
        guint32 u = rk__gltf_rd32(p);
        float f;
        memcpy(&f, &u, 4);
        x = f;
        break;
      }
      case 5120:
        x = fmax((double)(int8_t)p[0] / 127.0, -1.0);
        break;
      case 5121:
        x = p[0] / 255.0;
        break;
      case 5122:
        x = fmax((double)(int16_t)(p[0] | p[1] << 8) / 32767.0, -1.0);
        break;
      case 5123:
        x = (double)(p[0] | p[1] << 8) / 65535.0;
        break;
      default:
        x = (double)rk__gltf_rd32(p) / 4294967295.0;
        break;
      }
      out[e * (size_t)comps + (size_t)k] = x;
    }
  return out;
}

/* ---- interpolation --------------------------------------------------------------------------- */

void rk__gltf_interp_free(gpointer p) {
  rk__gltf_interp *e = p;
  g_free(e->node_name);
  g_free(e->times);
  g_free(e->values);
  g_free(e);
}

bool rk__gltf_collect_interps(rk__gltf_doc *c, GPtrArray *names, GPtrArray *interps,
                              GError **error) {
  const guint n = rk__gltf_len(c->nodes);
  for (guint a = 0; a < rk__gltf_len(c->anims); a++) {
    JsonObject *anim = rk__gltf_element(c->anims, a);
    JsonArray *samplers = rk__gltf_array(anim, "samplers"),
              *channels = rk__gltf_array(anim, "channels");
    for (guint k = 0; k < rk__gltf_len(channels); k++) {
      JsonObject *ch = rk__gltf_element(channels, k);
      JsonObject *target = rk__gltf_object(ch, "target");
      gint64 node, smp;
      rk__gltf_index(c, target, "node", n, &node, "", NULL);
      rk__gltf_index(c, ch, "sampler", rk__gltf_len(samplers), &smp, "", NULL);
      bool ok;
      rk_channel channel = rk__gltf_path_channel(rk__gltf_string(target, "path"), &ok);
      if (!ok || node < 0 || smp < 0)
        continue;
      JsonObject *so = rk__gltf_element(samplers, (guint)smp);
      const char *interp = rk__gltf_string(so, "interpolation");
      if (!interp || strcmp(interp, "LINEAR") == 0)
        continue;
      rk__gltf_interp *e = g_new0(rk__gltf_interp, 1);
      e->anim = a;
      e->node_name = g_strdup(g_ptr_array_index(names, (guint)node));
      e->channel = channel;
      e->interp = strcmp(interp, "STEP") == 0 ? RK_INTERP_STEP : RK_INTERP_CUBIC;
      g_ptr_array_add(interps, e);
      if (e->interp != RK_INTERP_CUBIC)
        continue;
      gint64 in, out;
      rk__gltf_index(c, so, "input", rk__gltf_len(c->accessors), &in, "", NULL);
      rk__gltf_index(c, so, "output", rk__gltf_len(c->accessors), &out, "", NULL);
      size_t nt, nv;
      int ct, cv;
      e->times = read_accessor(c, in, &nt, &ct, error);
      if (!e->times)
        return false;
      e->values = read_accessor(c, out, &nv, &cv, error);
      if (!e->values)
        return false;
      if (ct != 1 || cv != rk_channel_components(channel) || nv < 3 * nt) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                    "animation %u channel %u: CUBICSPLINE output does not match its input", a, k);
        return false;
      }
      e->key_count = nt;
    }
  }
  return true;
}
