/* rk_retarget_measure: measures a written output of `rigkit retarget` (this build's or another's)
 * as this build's report would, for tests/retarget/quality.sh's before/after table. It retargets
 * the source clip again with this build (for the contacts, the soles and the floor the figures
 * refer to), reads OUTPUT back with its meshes and prints one line of JSON: the identity-style
 * pose error (null where the rigs do not correspond), the planted feet's lowest mesh point
 * (median, worst), the feet's pitch against the source's (p95), the planted points' skate.
 *
 *   rk_retarget_measure --target RIG [--unit U] [--target-unit U] [--output-unit U] [--map FILE]
 *                       [--root-motion] SOURCE OUTPUT
 *
 * Units are metres per file unit or "cmu" (as `rigkit --unit`); OUTPUT reads as its file says
 * unless --output-unit is given. Exit 1 with a message on stderr when a file cannot be read. */
#include <rigkit/importers.h>
#include <rigkit/rigkit.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double unit_of(const char *text) {
  return !text ? 0.0 : !strcmp(text, "cmu") ? 0.0254 / 0.45 : !strcmp(text, "cm") ? 0.01 : atof(text);
}

static rk_asset *load(const char *path, double unit, GError **e) {
  rk_import_options o = RK_IMPORT_OPTIONS_INIT;
  o.unit_scale = unit;
  return rk_import_file(path, &o, e);
}

static void number(const char *name, double v, bool last) {
  if (isfinite(v))
    printf("\"%s\": %.4f%s", name, v, last ? "" : ", ");
  else
    printf("\"%s\": null%s", name, last ? "" : ", ");
}

int main(int argc, char **argv) {
  const char *target = NULL, *map = NULL, *files[2] = {NULL, NULL};
  double unit = 0, target_unit = 0, output_unit = 0;
  bool root_motion = false;
  size_t nf = 0;
  for (int i = 1; i < argc; i++) {
    const char *next = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(argv[i], "--target") && next)
      target = argv[++i];
    else if (!strcmp(argv[i], "--unit") && next)
      unit = unit_of(argv[++i]);
    else if (!strcmp(argv[i], "--target-unit") && next)
      target_unit = unit_of(argv[++i]);
    else if (!strcmp(argv[i], "--output-unit") && next)
      output_unit = unit_of(argv[++i]);
    else if (!strcmp(argv[i], "--map") && next)
      map = argv[++i];
    else if (!strcmp(argv[i], "--root-motion"))
      root_motion = true;
    else if (nf < 2)
      files[nf++] = argv[i];
  }
  if (!target || nf != 2) {
    fprintf(stderr, "usage: rk_retarget_measure --target RIG [options] SOURCE OUTPUT\n");
    return 2;
  }
  g_autoptr(GError) e = NULL;
  g_autoptr(rk_profile) profile = map ? rk_profile_load_file(map, &e) : NULL;
  g_autoptr(rk_asset) tgt = load(target, target_unit, &e);
  g_autoptr(rk_asset) src = tgt ? load(files[0], unit, &e) : NULL;
  g_autoptr(rk_asset) out = src ? load(files[1], output_unit, &e) : NULL;
  rk_humanoid_map sm, tm;
  if (!out || (map && !profile) ||
      !rk_profile_map_rig(profile, rk_asset_skeleton(src), RK_PROFILE_SOURCE, &sm, &e) ||
      !rk_profile_map_rig(profile, rk_asset_skeleton(tgt), RK_PROFILE_TARGET, &tm, &e)) {
    fprintf(stderr, "rk_retarget_measure: %s\n", e ? e->message : "cannot read the files");
    return 1;
  }
  g_autoptr(rk_retargeter) rt = rk_retargeter_new_onto(rk_asset_skeleton(src), &sm, tgt, &tm, &e);
  rk_retarget_options o = RK_RETARGET_OPTIONS_INIT;
  rk_profile_apply_settings(profile, &o);
  o.root_motion |= root_motion;
  g_autoptr(rk_retarget_result) r = rt ? rk_retargeter_run(rt, rk_asset_clip(src, 0), &o, &e) : NULL;
  if (!r || rk_asset_clip_count(out) != 1) {
    fprintf(stderr, "rk_retarget_measure: %s\n", e ? e->message : "the output holds no clip");
    return 1;
  }
  rk_retarget_look look;
  rk_retarget_measure_look(rt, r, rk_asset_clip(src, 0), out, &look, NULL, NULL);
  rk_retarget_pose_error pose = {NAN, NAN, -1, -1, NAN};
  rk_retarget_measure_pose(rt, r, rk_asset_clip(src, 0), rk_asset_skeleton(out),
                           rk_asset_clip(out, 0), &pose);
  printf("{");
  number("pose_error_max_mm", pose.max_mm, false);
  number("low_median_mm", look.planted_low_median_mm, false);
  number("low_min_mm", look.planted_low_min_mm, false);
  number("pitch_p95_deg", look.foot_pitch_p95_deg, false);
  number("skate_max_mm", look.skate_max_mm, true);
  printf("}\n");
  return 0;
}
