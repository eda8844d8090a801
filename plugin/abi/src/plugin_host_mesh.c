/* A host target's skinned meshes (rk_plugin_session_desc.target_meshes) around the canonical
 * skeleton built from the host's arrays: an asset the session uses as an opened target's, for
 * the character's shape and for session_export. Positions are converted like a root's
 * translation (axis and unit), joints from the host's order to the skeleton's. */
#include "plugin_internal.h"

#include <string.h>

/* One host mesh into the skeleton's canonical model space; rk_mesh_new checks the rest. */
static rk_mesh *host_mesh(const rk_plugin_mesh *m, uint32_t index, const rk__plugin_host_rig *rig,
                          const rk_plugin_space *space, double mpu, char *err, size_t err_size,
                          int *status) {
  const char *name = m->name ? m->name : "";
  *status = RK_PLUGIN_ERR_ARGUMENT;
  if (!m->positions || m->vertex_count == 0 || (m->index_count && !m->indices) ||
      !m->joints != !m->weights) {
    rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                    "target mesh %u '%s': %s", index, name,
                    !m->positions || !m->vertex_count ? "no positions"
                    : m->index_count && !m->indices   ? "index_count without indices"
                                                      : "joints and weights go together");
    return NULL;
  }
  const size_t n = m->vertex_count;
  if (n > RK_MESH_MAX_VERTICES) {
    *status = RK_PLUGIN_ERR_LIMIT;
    rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_LIMIT,
                    "target mesh %u '%s': %zu vertices (limit %u)", index, name, n,
                    RK_MESH_MAX_VERTICES);
    return NULL;
  }
  g_autofree float *pos = g_new(float, 3 * n);
  g_autofree uint16_t *joints = m->joints ? g_new(uint16_t, 4 * n) : NULL;
  for (size_t v = 0; v < n; v++) {
    const float *p = m->positions + 3 * v;
    const float trs[RK_PLUGIN_TRS_FLOATS] = {p[0], p[1], p[2], 0, 0, 0, 1, 1, 1, 1};
    const rk_transform x = rk__plugin_to_canonical(trs, space, mpu, true);
    pos[3 * v] = (float)x.t.x, pos[3 * v + 1] = (float)x.t.y, pos[3 * v + 2] = (float)x.t.z;
    for (int k = 0; joints && k < 4; k++) {
      const uint16_t j = m->joints[4 * v + k];
      /* Out of range stays out of range, for rk_mesh_new's message. */
      joints[4 * v + k] = j < rig->n ? (uint16_t)rig->host_to_skel[j] : j;
    }
  }
  const rk_mesh_data d = {.name = name,
                          .vertex_count = n,
                          .positions = pos,
                          .index_count = m->index_count,
                          .indices = m->indices,
                          .joints = joints,
                          .weights = m->weights,
                          .attach_joint = -1,
                          .material = {.base_color = {0.8f, 0.8f, 0.8f, 1}, .roughness = 0.5f}};
  g_autoptr(GError) e = NULL;
  rk_mesh *mesh = rk_mesh_new(&d, rig->n, &e);
  if (!mesh) {
    g_prefix_error(&e, "target mesh %u: ", index);
    *status = rk__plugin_fail_gerror(err, err_size, e);
  }
  return mesh;
}

int rk__plugin_host_target(const rk_plugin_session_desc *desc, const rk__plugin_host_rig *rig,
                           double mpu, rk_plugin_asset **out, char *err, size_t err_size) {
  *out = NULL;
  g_autoptr(rk_asset) a = rk_asset_new(rig->skeleton);
  rk_asset_set_source(a, "host", "(host skeleton)");
  for (uint32_t i = 0; i < desc->target_mesh_count; i++) {
    int st;
    rk_mesh *m = host_mesh(&desc->target_meshes[i], i, rig, &desc->space, mpu, err, err_size, &st);
    if (!m)
      return st;
    rk_asset_add_mesh(a, m);
  }
  rk_plugin_asset *pa = g_new0(rk_plugin_asset, 1); /* the session's own: never registered */
  pa->kind = RK__PLUGIN_ASSET;
  pa->refs = 1;
  pa->asset = g_steal_pointer(&a);
  *out = pa;
  return RK_PLUGIN_OK;
}
