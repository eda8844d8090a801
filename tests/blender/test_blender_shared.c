/* Headless Blender imports rigkit's GLB and BVH outputs of every shared third-party file (read by
 * rigkit's importers): bone count, frame range and bone heads vs rigkit's FK. */
#include "blender_check.h"
#include "bvh_eval.h"
#include "shared_files.h"

#include <rigkit/reduce.h>

/* Up to `max` joints spread over the skeleton (every k-th), as probe bones. */
static size_t pick_probes(const rk_skeleton *s, const bvh_file *bvh, const char **out, size_t max) {
  const size_t n = rk_skeleton_joint_count(s);
  size_t k = 0;
  for (size_t j = 0; j < n && k < max; j += MAX(1, n / max)) {
    const char *name = rk_skeleton_joint_name(s, j);
    if (bvh) { /* an End Site is a bone's tail in Blender, not a bone */
      int b = bvh_find(bvh, name);
      if (b < 0 || g_array_index(bvh->nodes, bvh_node, b).end_site)
        continue;
    }
    out[k++] = name;
  }
  return k;
}

Test(blender, imports_rigkit_outputs_of_the_shared_files) {
  g_autofree char *blender = blender_or_skip("import check");
  g_autofree char *dir = fixture_tmpdir();
  g_autoptr(JsonBuilder) jb = manifest_new();
  g_autoptr(GPtrArray) assets = g_ptr_array_new_with_free_func((GDestroyNotify)rk_asset_free);
  for (size_t i = 0; i < G_N_ELEMENTS(shared_files); i++) {
    g_autofree char *src = shared_path(shared_files[i]);
    g_autoptr(GError) e = NULL;
    rk_asset *a = rk_import_file(src, NULL, &e);
    cr_assert_not_null(a, "%s: %s", src, e ? e->message : "");
    g_ptr_array_add(assets, a);
    const rk_skeleton *s = rk_asset_skeleton(a);
    const rk_clip *clip = rk_asset_clip(a, 0);
    cr_assert_not_null(clip, "%s has no clip", src);
    double fps = rk_clip_infer_fps(clip);
    fps = fps > 0 ? fps : 30;
    g_autofree char *stem = g_path_get_basename(src);
    *strrchr(stem, '.') = '\0';
    g_autofree char *glb = g_strdup_printf("%s/%s.glb", dir, stem);
    g_autofree char *bvh = g_strdup_printf("%s/%s.bvh", dir, stem);
    rk_export_options o = RK_EXPORT_OPTIONS_INIT;
    o.clip = "0"; /* Blender plays one action per armature */
    cr_assert(rk_export_file(a, glb, &o, &e), "%s", e ? e->message : "");
    cr_assert(rk_export_file(a, bvh, &o, &e), "%s", e ? e->message : "");
    const char *probe[8];
    size_t np = pick_probes(s, NULL, probe, G_N_ELEMENTS(probe));
    add_entry(jb, glb, "glb", s, clip, fps, 1.0, rk_skeleton_joint_count(s), probe, np);
    bvh_file *b = bvh_load(bvh);
    size_t bones = 0;
    for (guint k = 0; k < b->nodes->len; k++)
      bones += !g_array_index(b->nodes, bvh_node, k).end_site;
    np = pick_probes(s, b, probe, G_N_ELEMENTS(probe));
    add_entry(jb, bvh, "bvh", s, clip, 1.0 / b->frame_time, 0.01, bones, probe, np);
    bvh_file_free(b);
  }
  run_manifest(blender, jb, dir);
  fixture_rmdir(dir);
}
