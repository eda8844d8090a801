/* What every file of the plugin shares, at the bottom of its layers: error text and status names,
 * the structure sizes bindings check, the registry of live handles, and the conversions between a
 * host's space and rigkit's canonical one. It calls no other file of the plugin. */
#include "plugin_internal.h"

#include <stdarg.h>
#include <string.h>

/* ---- error text --------------------------------------------------------------------------- */

void rk__plugin_copy_text(char *buf, size_t size, const char *text) {
  if (!buf || size == 0)
    return;
  if (!text)
    text = "";
  size_t n = strlen(text);
  if (n >= size) {
    n = size - 1;
    /* Do not cut a multi-byte UTF-8 character: back up over continuation bytes. */
    while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
      n--;
  }
  memcpy(buf, text, n);
  buf[n] = '\0';
}

int rk__plugin_fail(char *err, size_t err_size, int status, const char *format, ...) {
  if (err && err_size > 0) {
    va_list ap;
    va_start(ap, format);
    g_autofree char *text = g_strdup_vprintf(format, ap);
    va_end(ap);
    rk__plugin_copy_text(err, err_size, text);
  }
  return status;
}

int rk__plugin_fail_gerror(char *err, size_t err_size, const GError *error) {
  int status = RK_PLUGIN_ERR_FAILED;
  if (error && error->domain == RK_ERROR && error->code >= 0 && error->code < RK_ERROR_N_CODES)
    status = RK_PLUGIN_ERR_FAILED + error->code; /* the plugin's codes follow RK_ERROR_CODES */
  else if (error && error->domain == G_FILE_ERROR)
    status = RK_PLUGIN_ERR_IO;
  else if (error && error->domain == G_KEY_FILE_ERROR)
    status = RK_PLUGIN_ERR_PARSE;
  rk__plugin_copy_text(err, err_size, error ? error->message : "unknown error");
  return status;
}

/* The plugin's status numbers mirror RK_ERROR_CODES, in the same order. */
G_STATIC_ASSERT(RK_PLUGIN_ERR_IO - RK_PLUGIN_ERR_FAILED == RK_ERROR_IO - RK_ERROR_FAILED);
G_STATIC_ASSERT(RK_PLUGIN_ERR_CANCELLED - RK_PLUGIN_ERR_FAILED ==
                RK_ERROR_CANCELLED - RK_ERROR_FAILED);
G_STATIC_ASSERT(RK_ERROR_N_CODES == 9);

const char *rk__plugin_status_name(int status) {
  switch (status) {
  case RK_PLUGIN_OK:
    return "ok";
  case RK_PLUGIN_ERR_ARGUMENT:
    return "argument";
  case RK_PLUGIN_ERR_STATE:
    return "state";
  case RK_PLUGIN_ERR_CAPACITY:
    return "capacity";
  case RK_PLUGIN_ERR_CRASHED:
    return "crashed";
  default:
    if (status >= RK_PLUGIN_ERR_FAILED && status <= RK_PLUGIN_ERR_CANCELLED)
      return rk_error_code_name(status - RK_PLUGIN_ERR_FAILED);
    return "unknown";
  }
}

size_t rk__plugin_struct_size(const char *name) {
  if (!name)
    return 0;
#define RK__SIZE(t)                                                                                \
  if (!strcmp(name, #t))                                                                           \
    return sizeof(t);
  RK__SIZE(rk_plugin_api)
  RK__SIZE(rk_plugin_info)
  RK__SIZE(rk_plugin_space)
  RK__SIZE(rk_plugin_import_options)
  RK__SIZE(rk_plugin_asset_info)
  RK__SIZE(rk_plugin_clip_info)
  RK__SIZE(rk_plugin_skeleton)
  RK__SIZE(rk_plugin_settings)
  RK__SIZE(rk_plugin_session_desc)
  RK__SIZE(rk_plugin_result)
  RK__SIZE(rk_plugin_host_clip)
  RK__SIZE(rk_plugin_mesh)
#undef RK__SIZE
  return 0;
}

/* ---- handle registry ---------------------------------------------------------------------- */

static GMutex registry_lock;
static GHashTable *registry; /* handle -> kind */

void rk__plugin_register(void *handle, rk__plugin_kind kind) {
  g_mutex_lock(&registry_lock);
  if (!registry)
    registry = g_hash_table_new(g_direct_hash, g_direct_equal);
  g_hash_table_insert(registry, handle, GUINT_TO_POINTER((guint)kind));
  g_mutex_unlock(&registry_lock);
}

bool rk__plugin_unregister(void *handle, rk__plugin_kind kind) {
  bool found = false;
  g_mutex_lock(&registry_lock);
  if (registry && GPOINTER_TO_UINT(g_hash_table_lookup(registry, handle)) == (guint)kind)
    found = g_hash_table_remove(registry, handle);
  g_mutex_unlock(&registry_lock);
  return found;
}

bool rk__plugin_is_live(const void *handle, rk__plugin_kind kind) {
  if (!handle)
    return false;
  g_mutex_lock(&registry_lock);
  bool live = registry && GPOINTER_TO_UINT(g_hash_table_lookup(registry, handle)) == (guint)kind;
  g_mutex_unlock(&registry_lock);
  return live;
}

/* ---- spaces ------------------------------------------------------------------------------- */

/* Z-up (Blender) to Y-up (canonical): (x, y, z) -> (x, z, -y), a turn of -90 degrees about X. */
static const rk_quat z_to_y = {-0.70710678118654752440, 0, 0, 0.70710678118654752440};

int rk__plugin_space_check(const rk_plugin_space *space, double *mpu, char *err, size_t err_size) {
  if (!space) {
    *mpu = 1.0;
    return RK_PLUGIN_OK;
  }
  if (space->up_axis != RK_PLUGIN_UP_Y && space->up_axis != RK_PLUGIN_UP_Z)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "space.up_axis = %d: must be RK_PLUGIN_UP_Y (0) or RK_PLUGIN_UP_Z (1)",
                           (int)space->up_axis);
  const float m = space->metres_per_unit; /* bounds as floats: 1e-9f is below 1e-9 */
  if (!(isfinite(m) && m >= 0 && (m == 0 || (m >= 1e-9f && m <= 1e9f))))
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "space.metres_per_unit = %g: must be 0 (metres) or within [1e-9, 1e9]",
                           (double)m);
  *mpu = m == 0 ? 1.0 : m;
  return RK_PLUGIN_OK;
}

rk_transform rk__plugin_to_canonical(const float *trs, const rk_plugin_space *space, double mpu,
                                     bool root) {
  rk_transform x;
  x.t = rk_vec3_make(trs[0] * mpu, trs[1] * mpu, trs[2] * mpu);
  x.r = rk_quat_normalize(rk_quat_make(trs[3], trs[4], trs[5], trs[6]));
  x.s = rk_vec3_make(trs[7], trs[8], trs[9]);
  if (root && space && space->up_axis == RK_PLUGIN_UP_Z) {
    x.t = rk_quat_rotate(z_to_y, x.t);
    x.r = rk_quat_mul(z_to_y, x.r);
  }
  return x;
}

void rk__plugin_from_canonical(const rk_transform *x, const rk_plugin_space *space, double mpu,
                               bool root, float *trs) {
  rk_vec3 t = x->t;
  rk_quat r = x->r;
  if (root && space && space->up_axis == RK_PLUGIN_UP_Z) {
    t = rk_quat_rotate(rk_quat_conj(z_to_y), t);
    r = rk_quat_mul(rk_quat_conj(z_to_y), r);
  }
  trs[0] = (float)(t.x / mpu), trs[1] = (float)(t.y / mpu), trs[2] = (float)(t.z / mpu);
  trs[3] = (float)r.x, trs[4] = (float)r.y, trs[5] = (float)r.z, trs[6] = (float)r.w;
  trs[7] = (float)x->s.x, trs[8] = (float)x->s.y, trs[9] = (float)x->s.z;
}
