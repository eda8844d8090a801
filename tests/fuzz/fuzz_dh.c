/* libFuzzer target: the DH-table reader (importers/src/dh_table.c) through rk_import_memory, then
 * the up-axis override, which the reader applies to the whole chain. */
#include "fuzz_support.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  rk_fuzz_setup();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rk_import_options opts = RK_IMPORT_OPTIONS_INIT;
  opts.format = "dh";
  rk_asset *a = rk_fuzz_import(data, size, "fuzz.dh", &opts);
  if (!a)
    return 0;
  const rk_skeleton *s = rk_asset_skeleton(a);
  for (size_t j = 0; j < rk_skeleton_joint_count(s); j++) {
    rk_joint_mechanics m;
    if (rk_asset_joint_mechanics(a, j, &m))
      RK_FUZZ_CHECK(isfinite(m.axis.x) && isfinite(m.axis.y) && isfinite(m.axis.z),
                    "joint %zu: axis not finite", j);
    if (rk_asset_joint_mechanics(a, j, &m) && m.has_limits)
      RK_FUZZ_CHECK(!isnan(m.lower) && !isnan(m.upper) && m.lower <= m.upper,
                    "joint %zu: limits [%g, %g]", j, m.lower, m.upper);
  }
  rk_asset_free(a);

  opts.up_axis = "-X";
  rk_asset_free(rk_fuzz_import(data, size, "fuzz.dh", &opts));
  return 0;
}
