/* retarget_clip: the library API end to end, in one page.
 *
 *   retarget_clip SOURCE_CLIP TARGET_CHARACTER OUTPUT
 *
 * Imports a clip and a character, maps both onto the humanoid profile, retargets the clip's first
 * animation with foot IK, and writes the character with that animation (format from OUTPUT's
 * extension: .glb .gltf .bvh .fbx). Prints the quality figures. */
#include <rigkit/exporters.h>
#include <rigkit/importers.h>
#include <rigkit/rigkit.h>
#include <stdio.h>

static int fail(const char *what, GError *error) {
  fprintf(stderr, "retarget_clip: %s: %s\n", what, error ? error->message : "failed");
  g_clear_error(&error);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: retarget_clip SOURCE_CLIP TARGET_CHARACTER OUTPUT\n");
    return 2;
  }
  GError *error = NULL;
  g_autoptr(rk_asset) source = rk_import_file(argv[1], NULL, &error);
  if (!source)
    return fail(argv[1], error);
  g_autoptr(rk_asset) target = rk_import_file(argv[2], NULL, &error);
  if (!target)
    return fail(argv[2], error);
  if (rk_asset_clip_count(source) == 0)
    return fail(argv[1], NULL);

  /* Which joint plays which bone, on each rig (names and topology). */
  rk_humanoid_map source_map, target_map;
  if (!rk_humanoid_map_build(rk_asset_skeleton(source), NULL, &source_map, &error))
    return fail(argv[1], error);
  if (!rk_humanoid_map_build(rk_asset_skeleton(target), NULL, &target_map, &error))
    return fail(argv[2], error);

  /* One retargeter per pair of rigs serves any number of clips, on any number of threads. */
  g_autoptr(rk_retargeter) rt = rk_retargeter_new(rk_asset_skeleton(source), &source_map,
                                                  rk_asset_skeleton(target), &target_map, &error);
  if (!rt)
    return fail("retargeter", error);
  rk_retarget_options opts = RK_RETARGET_OPTIONS_INIT; /* foot IK on */
  g_autoptr(rk_retarget_result) result =
      rk_retargeter_run(rt, rk_asset_clip(source, 0), &opts, &error);
  if (!result)
    return fail("retarget", error);

  /* The character keeps its meshes and skin; its own clips make way for the retargeted one. */
  rk_asset_remove_clips(target);
  rk_asset_add_clip(target, rk_retarget_result_take_clip(result));
  if (!rk_export_file(target, argv[3], NULL, &error))
    return fail(argv[3], error);

  const rk_retarget_quality *q = rk_retarget_result_quality(result);
  const rk_retarget_quality *fk = rk_retarget_result_quality_fk(result);
  printf("%s: %zu frames at %g fps, %zu bones mapped\n", argv[3], rk_retarget_result_frames(result),
         rk_retarget_result_fps(result), rk_retargeter_mapped_joints(rt));
  printf("foot skate max %.2f mm with IK (%.2f mm without), pins within %.3f mm, "
         "limb directions within %.2f deg (median)\n",
         q->foot_skate_max_mm, fk->foot_skate_max_mm, q->ik_goal_error_max_mm,
         q->limb_direction_median_deg);
  return 0;
}
