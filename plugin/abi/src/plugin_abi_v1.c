/* What a host built against ABI 1 gets from rk_plugin_get_api(1): ABI 1's table, i.e. ABI 2's
 * functions without the one ABI 2 appended, struct_size answering ABI 1's sizes, and the three
 * functions whose argument structs grew in ABI 2 reading only the fields ABI 1 had. Every ABI 1
 * struct is the leading part of its ABI 2 counterpart, so the host's struct is copied into a
 * zeroed ABI 2 one; imports then run in the host's process, as ABI 1 documented. */
#include "plugin_internal.h"

#include <stddef.h>
#include <string.h>

#define V1_API_SIZE offsetof(rk_plugin_api, asset_from_host)
#define V1_IMPORT_OPTIONS_SIZE offsetof(rk_plugin_import_options, isolation)
#define V1_SESSION_DESC_SIZE offsetof(rk_plugin_session_desc, settings_text)

/* ABI 1's layouts as released: two pointers and a double; the settings struct last. */
G_STATIC_ASSERT(V1_IMPORT_OPTIONS_SIZE == 2 * sizeof(const char *) + sizeof(double));
G_STATIC_ASSERT(V1_SESSION_DESC_SIZE ==
                offsetof(rk_plugin_session_desc, settings) + sizeof(rk_plugin_settings));
G_STATIC_ASSERT(V1_API_SIZE == offsetof(rk_plugin_api, session_export) + sizeof(void (*)(void)));

static size_t struct_size_v1(const char *name) {
  if (!name)
    return 0;
  if (!strcmp(name, "rk_plugin_api"))
    return V1_API_SIZE;
  if (!strcmp(name, "rk_plugin_import_options"))
    return V1_IMPORT_OPTIONS_SIZE;
  if (!strcmp(name, "rk_plugin_session_desc"))
    return V1_SESSION_DESC_SIZE;
  if (!strcmp(name, "rk_plugin_host_clip") || !strcmp(name, "rk_plugin_mesh"))
    return 0; /* new in ABI 2 */
  return rk__plugin_struct_size(name);
}

/* ABI 1 import options (or NULL) as ABI 2 ones: in the host's process. */
static const rk_plugin_import_options *options_v2(const rk_plugin_import_options *v1,
                                                  rk_plugin_import_options *v2) {
  memset(v2, 0, sizeof *v2);
  if (v1)
    memcpy(v2, v1, V1_IMPORT_OPTIONS_SIZE);
  v2->isolation = RK_PLUGIN_ISOLATION_NONE;
  return v2;
}

static int asset_open_file_v1(const char *path, const rk_plugin_import_options *opts,
                              rk_plugin_asset **out, char *err, size_t err_size) {
  rk_plugin_import_options o;
  return rk__plugin_asset_open_file(path, options_v2(opts, &o), out, err, err_size);
}

static int asset_open_memory_v1(const void *data, size_t size, const char *name,
                                const rk_plugin_import_options *opts, rk_plugin_asset **out,
                                char *err, size_t err_size) {
  rk_plugin_import_options o;
  return rk__plugin_asset_open_memory(data, size, name, options_v2(opts, &o), out, err, err_size);
}

static int session_new_v1(const rk_plugin_session_desc *desc, rk_plugin_session **out, char *err,
                          size_t err_size) {
  if (!desc)
    return rk__plugin_session_new(NULL, out, err, err_size);
  rk_plugin_session_desc d;
  memset(&d, 0, sizeof d);
  memcpy(&d, desc, V1_SESSION_DESC_SIZE);
  return rk__plugin_session_new(&d, out, err, err_size);
}

static const rk_plugin_api api_v1 = {
    .info = {1, V1_API_SIZE, RK_VERSION_STRING, ""},
    RK__PLUGIN_API_SHARED,
    .struct_size = struct_size_v1,
    .asset_open_file = asset_open_file_v1,
    .asset_open_memory = asset_open_memory_v1,
    .session_new = session_new_v1,
};

const rk_plugin_api *rk__plugin_api_v1(void) { return &api_v1; }
