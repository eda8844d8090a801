/* Shared by the plugin ABI suites: load the real librigkit_plugin.so with dlopen (as a host does)
 * and a few helpers over its table. The suites include only rigkit/plugin.h of the plugin. */
#ifndef RK_PLUGIN_FIXTURE_H
#define RK_PLUGIN_FIXTURE_H

#include "rk_test.h"

#include "../../plugin/abi/include/rigkit/plugin.h"

#include <dlfcn.h>

#define RK_PLUGIN_SO RK_BINARY_DIR "/lib/librigkit_plugin.so"

static void *plugin_so;
static rk_plugin_get_api_fn plugin_get_api;
static const rk_plugin_api *rk;

static inline void plugin_load(void) {
  plugin_so = dlopen(RK_PLUGIN_SO, RTLD_NOW | RTLD_LOCAL);
  cr_assert(plugin_so, "cannot load %s: %s", RK_PLUGIN_SO, dlerror());
  plugin_get_api = (rk_plugin_get_api_fn)dlsym(plugin_so, RK_PLUGIN_ENTRY_POINT);
  cr_assert(plugin_get_api, "no %s in %s", RK_PLUGIN_ENTRY_POINT, RK_PLUGIN_SO);
  rk = plugin_get_api(RK_PLUGIN_ABI_VERSION);
  cr_assert(rk, "%s", plugin_get_api(RK_PLUGIN_ABI_QUERY)->info.message);
}

/* Opens tests/data/<name> through the plugin. */
static inline rk_plugin_asset *plugin_open(const char *name) {
  g_autofree char *path = rk_test_data(name);
  char err[512] = "";
  rk_plugin_asset *a = NULL;
  int st = rk->asset_open_file(path, NULL, &a, err, sizeof err);
  cr_assert_eq(st, RK_PLUGIN_OK, "%s: %s: %s", name, rk->status_name(st), err);
  cr_assert(a);
  return a;
}

/* A host skeleton copied from an asset's joints in `space`, optionally in reversed order
 * (children before parents), as a host with its own joint order would pass it. */
typedef struct host_skeleton {
  rk_plugin_skeleton k;
  const char **names;
  int32_t *parents;
  float *rest;
  uint32_t *order; /* host index -> asset joint */
} host_skeleton;

static inline host_skeleton host_skeleton_from(const rk_plugin_asset *a, rk_plugin_space space,
                                               bool reversed) {
  rk_plugin_asset_info ai;
  char err[256] = "";
  cr_assert_eq(rk->asset_info(a, &ai, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  const uint32_t n = ai.joint_count;
  g_autofree const char **names = g_new(const char *, n);
  g_autofree int32_t *parents = g_new(int32_t, n);
  g_autofree float *rest = g_new(float, (size_t)n *RK_PLUGIN_TRS_FLOATS);
  cr_assert_eq(rk->asset_joints(a, &space, n, names, parents, rest, NULL, err, sizeof err),
               RK_PLUGIN_OK, "%s", err);
  host_skeleton h;
  h.names = g_new(const char *, n);
  h.parents = g_new(int32_t, n);
  h.rest = g_new(float, (size_t)n *RK_PLUGIN_TRS_FLOATS);
  h.order = g_new(uint32_t, n);
  g_autofree int32_t *host_of = g_new(int32_t, n);
  for (uint32_t i = 0; i < n; i++) {
    h.order[i] = reversed ? n - 1 - i : i;
    host_of[h.order[i]] = (int32_t)i;
  }
  for (uint32_t i = 0; i < n; i++) {
    const uint32_t j = h.order[i];
    h.names[i] = names[j];
    h.parents[i] = parents[j] < 0 ? -1 : host_of[parents[j]];
    memcpy(h.rest + (size_t)i * RK_PLUGIN_TRS_FLOATS, rest + (size_t)j * RK_PLUGIN_TRS_FLOATS,
           RK_PLUGIN_TRS_FLOATS * sizeof(float));
  }
  h.k = (rk_plugin_skeleton){
      .joint_count = n, .names = h.names, .parents = h.parents, .rest = h.rest};
  return h;
}

static inline void host_skeleton_clear(host_skeleton *h) {
  g_free(h->names), g_free(h->parents), g_free(h->rest), g_free(h->order);
}

/* Builds and runs a session; fails the test with the plugin's message. */
static inline rk_plugin_session *plugin_run(const rk_plugin_session_desc *d) {
  char err[1024] = "";
  rk_plugin_session *s = NULL;
  int st = rk->session_new(d, &s, err, sizeof err);
  cr_assert_eq(st, RK_PLUGIN_OK, "session_new: %s: %s", rk->status_name(st), err);
  st = rk->session_run(s, err, sizeof err);
  cr_assert_eq(st, RK_PLUGIN_OK, "session_run: %s: %s", rk->status_name(st), err);
  return s;
}

static inline rk_plugin_result plugin_result(const rk_plugin_session *s) {
  rk_plugin_result r;
  char err[256] = "";
  cr_assert_eq(rk->session_result(s, &r, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  return r;
}

/* Every key of a session in one form: frames * joints * (3 + 4 + 3) floats. */
typedef struct plugin_keys {
  uint32_t frames, joints;
  float *t, *r, *s;
} plugin_keys;

static inline plugin_keys plugin_read_keys(const rk_plugin_session *s, int32_t form) {
  rk_plugin_result r = plugin_result(s);
  plugin_keys k = {r.frames, r.joint_count, NULL, NULL, NULL};
  const size_t n = (size_t)r.frames * r.joint_count;
  k.t = g_new(float, n * 3);
  k.r = g_new(float, n * 4);
  k.s = g_new(float, n * 3);
  char err[256] = "";
  cr_assert_eq(rk->session_keys(s, form, 0, r.frames, k.t, k.r, k.s, err, sizeof err), RK_PLUGIN_OK,
               "%s", err);
  return k;
}

static inline void plugin_keys_clear(plugin_keys *k) { g_free(k->t), g_free(k->r), g_free(k->s); }

/* Angle between two float quaternions (q and -q equal). */
static inline double quat_angle_f(const float *a, const float *b) {
  rk_quat qa = rk_quat_normalize(rk_quat_make(a[0], a[1], a[2], a[3]));
  rk_quat qb = rk_quat_normalize(rk_quat_make(b[0], b[1], b[2], b[3]));
  return rk_quat_angle_between(qa, qb);
}

#endif
