/* libFuzzer target: rigkit's BVH reader (importers/src/bvh*.c) through rk_import_memory, with the
 * default options (root OFFSET and up axis detected) and, when that succeeds, with the other
 * readings forced (OFFSET replaced by the channels, Z up, a fixed unit), which take other paths. */
#include "fuzz_support.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  rk_fuzz_setup();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rk_import_options opts = RK_IMPORT_OPTIONS_INIT;
  opts.format = "bvh";
  rk_asset *a = rk_fuzz_import(data, size, "fuzz.bvh", &opts);
  if (!a)
    return 0;
  rk_asset_free(a);

  /* The forced reading may still fail (a root that becomes a NaN, ...) but only cleanly. */
  opts.bvh_root_offset = RK_BVH_ROOT_OFFSET_REPLACE;
  opts.up_axis = "Z";
  opts.unit_scale = 0.01;
  rk_asset_free(rk_fuzz_import(data, size, "fuzz.bvh", &opts));
  return 0;
}
