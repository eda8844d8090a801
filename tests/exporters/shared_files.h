/* The shared third-party files (tests/data, see its README) as the exporter and Blender tests read
 * them, and what `rigkit retarget` makes of two of them. Header-only (static functions); needs
 * rigkit's importers. */
#ifndef RK_SHARED_FILES_H
#define RK_SHARED_FILES_H

#include "export_fixtures.h"

#include <rigkit/importers.h>
#include <rigkit/retarget.h>

/* Every shared third-party file the round trips and the Blender checks run on. */
static const char *const shared_files[] = {
    "SimpleSkin.gltf",     "RiggedFigure.glb",    "Fox.glb",
    "makehuman_walk1.bvh", "assimp_huesitos.fbx", "huesitos_prerotation_pivots.fbx",
};

/** Path of the shared file `name` in tests/data (the caller g_frees it); fails the test when it is
 * missing. */
static inline char *shared_path(const char *name) {
  char *p = rk_test_data(name);
  cr_assert(g_file_test(p, G_FILE_TEST_IS_REGULAR), "shared test file %s not found", p);
  return p;
}

/** The asset read from path with options o (NULL: the defaults), owned by the caller; fails the
 * test naming the file when it does not import. */
static inline rk_asset *import_or_fail(const char *path, const rk_import_options *o) {
  g_autoptr(GError) e = NULL;
  rk_asset *a = rk_import_file(path, o, &e);
  cr_assert_not_null(a, "import of %s failed: %s", path, e ? e->message : "");
  return a;
}

/** What `rigkit retarget` writes for the shared files source and target: the target character
 * (its meshes) with source's first clip retargeted, root motion on or off; owned by the caller. */
static inline rk_asset *retarget_output(const char *source, const char *target, bool root_motion) {
  g_autofree char *sp = shared_path(source), *tp = shared_path(target);
  g_autoptr(rk_asset) src = import_or_fail(sp, NULL);
  g_autoptr(rk_asset) tgt = import_or_fail(tp, NULL);
  rk_humanoid_map sm, tm;
  g_autoptr(GError) e = NULL;
  cr_assert(rk_humanoid_map_build(rk_asset_skeleton(src), NULL, &sm, &e), "%s",
            e ? e->message : "");
  cr_assert(rk_humanoid_map_build(rk_asset_skeleton(tgt), NULL, &tm, &e), "%s",
            e ? e->message : "");
  g_autoptr(rk_retargeter) rt =
      rk_retargeter_new(rk_asset_skeleton(src), &sm, rk_asset_skeleton(tgt), &tm, &e);
  cr_assert_not_null(rt, "%s", e ? e->message : "");
  rk_retarget_options o = RK_RETARGET_OPTIONS_INIT;
  o.root_motion = root_motion;
  g_autoptr(rk_retarget_result) r = rk_retargeter_run(rt, rk_asset_clip(src, 0), &o, &e);
  cr_assert_not_null(r, "%s", e ? e->message : "");
  rk_asset *out = rk_asset_new(rk_asset_skeleton(tgt));
  for (size_t i = 0; i < rk_asset_mesh_count(tgt); i++)
    rk_asset_add_mesh(out, rk_mesh_new(rk_mesh_data_get(rk_asset_mesh(tgt, i)),
                                       rk_skeleton_joint_count(rk_asset_skeleton(tgt)), NULL));
  cr_assert(rk_asset_add_clip(out, rk_retarget_result_take_clip(r)));
  return out;
}

#endif
