/* libFuzzer target: glTF and GLB bytes in memory through rk_import_memory: rigkit's container and
 * JSON checks (gltf_prepass.c), Assimp's reader (assimp_scene.c, not instrumented: Assimp's own
 * faults show as crashes without coverage) and the scene-to-asset conversion (scene_import.c,
 * scene_clips.c, scene_meshes.c, raw_asset.c). The name ends in .gltf; the content decides between
 * glTF JSON and GLB. In-memory imports open no companion files. Meshes are imported (their skins
 * and weights are an input path too). */
#include "fuzz_support.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  rk_fuzz_setup();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rk_asset *a = rk_fuzz_import(data, size, "fuzz.gltf", NULL);
  if (!a)
    return 0;
  const size_t joints = rk_skeleton_joint_count(rk_asset_skeleton(a));
  for (size_t m = 0; m < rk_asset_mesh_count(a); m++) {
    const rk_mesh_data *d = rk_mesh_data_get(rk_asset_mesh(a, m));
    for (size_t v = 0; v < d->vertex_count * 3; v++)
      RK_FUZZ_CHECK(isfinite(d->positions[v]), "mesh %zu: position %zu not finite", m, v);
    for (size_t i = 0; i < d->index_count; i++)
      RK_FUZZ_CHECK(d->indices[i] < d->vertex_count, "mesh %zu: index %zu out of range", m, i);
    if (d->joints)
      for (size_t v = 0; v < d->vertex_count * 4; v++)
        RK_FUZZ_CHECK(d->joints[v] < joints, "mesh %zu: joint %u out of range", m, d->joints[v]);
  }
  rk_asset_free(a);
  return 0;
}
