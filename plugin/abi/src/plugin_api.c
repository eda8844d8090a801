/* The entry point of librigkit_plugin.so: the version check and the ABI 2 table (ABI 1's is in
 * plugin_abi_v1.c). The functions behind the table live in the files of their concept; what they
 * share is in plugin_support.c. */
#include "plugin_internal.h"

#include <string.h>

/* ---- the table ---------------------------------------------------------------------------- */

static const rk_plugin_api api_v2 = {
    .info = {RK_PLUGIN_ABI_VERSION, sizeof(rk_plugin_api), RK_VERSION_STRING, ""},
    RK__PLUGIN_API_SHARED,
    .struct_size = rk__plugin_struct_size,
    .asset_open_file = rk__plugin_asset_open_file,
    .asset_open_memory = rk__plugin_asset_open_memory,
    .session_new = rk__plugin_session_new,
    .asset_from_host = rk__plugin_asset_from_host,
};

/* The refusal of the last mismatched request, per thread (a query reads its own thread's). */
static _Thread_local char refusal[320];
static _Thread_local rk_plugin_api query_result;

RK_PLUGIN_EXPORT const rk_plugin_api *rk_plugin_get_api(uint32_t abi_version) {
  if (abi_version == RK_PLUGIN_ABI_VERSION)
    return &api_v2;
  if (abi_version == 1)
    return rk__plugin_api_v1();
  if (abi_version != RK_PLUGIN_ABI_QUERY) {
    g_snprintf(refusal, sizeof refusal,
               "rigkit plugin %s implements plugin ABI %u (and still serves ABI 1), but the host "
               "asked for ABI %u: rebuild the host against this rigkit's rigkit/plugin.h, or load "
               "a rigkit plugin built for ABI %u",
               RK_VERSION_STRING, RK_PLUGIN_ABI_VERSION, abi_version, abi_version);
    return NULL;
  }
  memset(&query_result, 0, sizeof query_result);
  query_result.info.abi_version = RK_PLUGIN_ABI_VERSION;
  query_result.info.api_size = 0;
  query_result.info.rigkit_version = RK_VERSION_STRING;
  if (!refusal[0])
    g_snprintf(refusal, sizeof refusal,
               "rigkit plugin %s implements plugin ABI %u and 1 (no request was refused on this "
               "thread)",
               RK_VERSION_STRING, RK_PLUGIN_ABI_VERSION);
  query_result.info.message = refusal;
  return &query_result;
}
