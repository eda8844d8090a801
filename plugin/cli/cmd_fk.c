/* `rigkit fk FILE [--clip NAME|INDEX] (--frame N | --time S) --json`: world positions of every
 * joint (metres, Y-up) at one instant of a clip:
 *   {"joints":[{"name":..., "position":[x,y,z]}, ...]}
 * A file without clips gives its rest pose (at frame 0 / time 0). */
#include "cli.h"
#include "cli_import.h"
#include "cli_json.h"

#include <rigkit/importers.h>
#include <rigkit/rigkit.h>

#include <string.h>

int rk__cmd_fk(int argc, char **argv) {
  gboolean json = FALSE;
  char *clip_arg = NULL, *frame_arg = NULL, *time_arg = NULL;
  rk__cli_import imp = {0};
  GOptionEntry entries[] = {
      {"clip", 0, 0, G_OPTION_ARG_STRING, &clip_arg, "Clip name or index (default: the first)",
       "NAME|INDEX"},
      {"frame", 0, 0, G_OPTION_ARG_STRING, &frame_arg,
       "Frame number at the clip's frame rate (0-based)", "N"},
      {"time", 0, 0, G_OPTION_ARG_STRING, &time_arg, "Time in seconds from the clip's start", "S"},
      {"json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON (default: a text table)", NULL},
      RK__CLI_IMPORT_ENTRIES(imp),
      G_OPTION_ENTRY_NULL,
  };
  int rc = rk__cli_parse("fk", "FILE",
                         "Prints the world position (metres, Y-up) of every joint at one frame "
                         "or time of a clip: {\"joints\":[{\"name\":..., \"position\":[x,y,z]}]}.",
                         entries, &argc, &argv);
  g_autofree char *clip_s = clip_arg, *frame_s = frame_arg, *time_s = time_arg;
  if (rc != RK_EXIT_OK) {
    rk__cli_import_clear(&imp);
    return rc;
  }
  rk_import_options opts;
  if (argc != 2 || (frame_s != NULL) == (time_s != NULL) ||
      !rk__cli_import_options("fk", &imp, &opts)) {
    rk__cli_import_clear(&imp);
    if (argc != 2)
      return rk__cli_usage("fk", "expected one FILE (see rigkit fk --help)");
    if ((frame_s != NULL) == (time_s != NULL))
      return rk__cli_usage("fk", "give exactly one of --frame N and --time S");
    return RK_EXIT_USAGE;
  }
  guint64 frame = 0;
  double time = 0;
  if (frame_s && !g_ascii_string_to_unsigned(frame_s, 10, 0, G_MAXINT32, &frame, NULL)) {
    rk__cli_import_clear(&imp);
    return rk__cli_usage("fk", "--frame %s: not a frame number", frame_s);
  }
  if (time_s) {
    char *end = NULL;
    time = g_ascii_strtod(time_s, &end);
    if (end == time_s || *end != '\0' || !isfinite(time) || time < 0) {
      rk__cli_import_clear(&imp);
      return rk__cli_usage("fk", "--time %s: not a time in seconds", time_s);
    }
  }
  opts.skip_meshes = true;
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_asset) asset = rk_import_file(argv[1], &opts, &error);
  rk__cli_import_clear(&imp);
  if (!asset)
    return rk__cli_fail("fk", error);

  const rk_skeleton *s = rk_asset_skeleton(asset);
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_transform *locals = g_new(rk_transform, n);
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  const rk_clip *clip = NULL;
  if (clip_s) {
    int c = rk_asset_find_clip(asset, clip_s);
    if (c < 0) {
      fprintf(stderr, "rigkit fk: %s: no clip '%s' (the file has %zu clips)\n", argv[1], clip_s,
              rk_asset_clip_count(asset));
      return RK_EXIT_FAILED;
    }
    clip = rk_asset_clip(asset, (size_t)c);
  } else if (rk_asset_clip_count(asset) > 0) {
    clip = rk_asset_clip(asset, 0);
  }
  if (clip) {
    if (frame_s) {
      const size_t frames = rk_clip_frame_count(clip);
      if (rk_clip_fps(clip) <= 0 && frame > 0) {
        fprintf(stderr, "rigkit fk: %s: clip '%s' has no frame rate: use --time\n", argv[1],
                rk_clip_name(clip));
        return RK_EXIT_FAILED;
      }
      if (frame >= frames) {
        fprintf(stderr, "rigkit fk: %s: frame %" G_GUINT64_FORMAT " is out of range (clip '%s' has %zu frames)\n",
                argv[1], frame, rk_clip_name(clip), frames);
        return RK_EXIT_FAILED;
      }
      time = rk_clip_fps(clip) > 0 ? (double)frame / rk_clip_fps(clip) : 0.0;
      time = fmin(time, rk_clip_duration(clip));
    } else if (time > rk_clip_duration(clip) + 1e-9) {
      fprintf(stderr, "rigkit fk: %s: time %g s is past the end of clip '%s' (%g s)\n", argv[1],
              time, rk_clip_name(clip), rk_clip_duration(clip));
      return RK_EXIT_FAILED;
    }
    rk_clip_sample(clip, rk_skeleton_rest_locals(s), time, locals, n);
  } else {
    if ((frame_s && frame > 0) || (time_s && time > 0)) {
      fprintf(stderr, "rigkit fk: %s: the file has no clips: only frame 0 (the rest pose)\n",
              argv[1]);
      return RK_EXIT_FAILED;
    }
    memcpy(locals, rk_skeleton_rest_locals(s), n * sizeof *locals);
  }
  rk_fk_models(s, locals, models);

  bool ok;
  if (json) {
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "joints");
    json_builder_begin_array(b);
    for (size_t i = 0; i < n; i++) {
      json_builder_begin_object(b);
      json_builder_set_member_name(b, "name");
      json_builder_add_string_value(b, rk_skeleton_joint_name(s, i));
      rk__json_add_vec3(b, "position", rk_mat4_get_translation(&models[i]));
      json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
    ok = rk__json_print(b, stdout, false);
  } else {
    for (size_t i = 0; i < n; i++) {
      rk_vec3 p = rk_mat4_get_translation(&models[i]);
      printf("%-32s %12.6f %12.6f %12.6f\n", rk_skeleton_joint_name(s, i), p.x, p.y, p.z);
    }
    ok = fflush(stdout) == 0 && !ferror(stdout);
  }
  if (!ok) {
    fprintf(stderr, "rigkit fk: could not write the output\n");
    return RK_EXIT_FAILED;
  }
  return RK_EXIT_OK;
}
