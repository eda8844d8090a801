/* `rigkit info FILE [--json]`: format, conversions applied, joints (name, parent, rest) and clips
 * (name, duration_s, fps, frames) of a file, as text or JSON. */
#include "cli.h"
#include "cli_import.h"
#include "cli_json.h"

#include <rigkit/importers.h>
#include <rigkit/rigkit.h>

static void add_flags(JsonBuilder *b, unsigned flags) {
  json_builder_set_member_name(b, "flags");
  json_builder_begin_array(b);
  if (flags & RK_SKELETON_END_SITE)
    json_builder_add_string_value(b, "end_site");
  if (flags & RK_SKELETON_HELPER)
    json_builder_add_string_value(b, "helper");
  json_builder_end_array(b);
}

static bool print_json(const char *path, const rk_asset *a) {
  const rk_skeleton *s = rk_asset_skeleton(a);
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "file");
  json_builder_add_string_value(b, path);
  json_builder_set_member_name(b, "format");
  json_builder_add_string_value(b, rk_asset_source_format(a));

  json_builder_set_member_name(b, "conversions");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "unit");
  json_builder_add_string_value(b, rk_asset_unit_name(a));
  rk__json_add_double(b, "scale", rk_asset_unit_scale(a));
  json_builder_set_member_name(b, "up_axis");
  json_builder_add_string_value(b, rk_asset_up_axis(a));
  json_builder_set_member_name(b, "notes");
  json_builder_begin_array(b);
  for (size_t i = 0; i < rk_asset_note_count(a); i++)
    json_builder_add_string_value(b, rk_asset_note(a, i));
  json_builder_end_array(b);
  json_builder_end_object(b);

  json_builder_set_member_name(b, "joints");
  json_builder_begin_array(b);
  for (size_t i = 0; i < rk_skeleton_joint_count(s); i++) {
    const int p = rk_skeleton_parent(s, i);
    const rk_transform *rest = rk_skeleton_rest(s, i);
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "index");
    json_builder_add_int_value(b, (gint64)i);
    json_builder_set_member_name(b, "name");
    json_builder_add_string_value(b, rk_skeleton_joint_name(s, i));
    json_builder_set_member_name(b, "parent");
    if (p >= 0)
      json_builder_add_string_value(b, rk_skeleton_joint_name(s, (size_t)p));
    else
      json_builder_add_null_value(b);
    json_builder_set_member_name(b, "parent_index");
    json_builder_add_int_value(b, p);
    add_flags(b, rk_skeleton_joint_flags(s, i));
    json_builder_set_member_name(b, "rest");
    json_builder_begin_object(b);
    rk__json_add_vec3(b, "translation", rest->t);
    rk__json_add_quat(b, "rotation", rest->r);
    rk__json_add_vec3(b, "scale", rest->s);
    json_builder_end_object(b);
    json_builder_end_object(b);
  }
  json_builder_end_array(b);

  json_builder_set_member_name(b, "clips");
  json_builder_begin_array(b);
  for (size_t i = 0; i < rk_asset_clip_count(a); i++) {
    const rk_clip *c = rk_asset_clip(a, i);
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "name");
    json_builder_add_string_value(b, rk_clip_name(c));
    rk__json_add_double(b, "duration_s", rk_clip_duration(c));
    rk__json_add_double(b, "fps", rk_clip_fps(c));
    json_builder_set_member_name(b, "frames");
    json_builder_add_int_value(b, (gint64)rk_clip_frame_count(c));
    json_builder_set_member_name(b, "tracks");
    json_builder_add_int_value(b, (gint64)rk_clip_track_count(c));
    json_builder_set_member_name(b, "keys");
    json_builder_add_int_value(b, (gint64)rk_clip_key_count_total(c));
    json_builder_end_object(b);
  }
  json_builder_end_array(b);

  json_builder_set_member_name(b, "meshes");
  json_builder_begin_array(b);
  for (size_t i = 0; i < rk_asset_mesh_count(a); i++) {
    const rk_mesh_data *m = rk_mesh_data_get(rk_asset_mesh(a, i));
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "name");
    json_builder_add_string_value(b, m->name);
    json_builder_set_member_name(b, "vertices");
    json_builder_add_int_value(b, (gint64)m->vertex_count);
    json_builder_set_member_name(b, "triangles");
    json_builder_add_int_value(b, (gint64)(m->index_count / 3));
    json_builder_set_member_name(b, "skinned");
    json_builder_add_boolean_value(b, m->joints != NULL);
    json_builder_set_member_name(b, "attach_joint");
    if (m->attach_joint >= 0)
      json_builder_add_string_value(b, rk_skeleton_joint_name(s, (size_t)m->attach_joint));
    else
      json_builder_add_null_value(b);
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  json_builder_end_object(b);
  return rk__json_print(b, stdout, true);
}

static bool print_text(const char *path, const rk_asset *a) {
  const rk_skeleton *s = rk_asset_skeleton(a);
  printf("file:    %s\nformat:  %s\nunit:    %s (%g m per file unit)\nup axis: %s\n", path,
         rk_asset_source_format(a), rk_asset_unit_name(a), rk_asset_unit_scale(a),
         rk_asset_up_axis(a));
  if (rk_asset_note_count(a) > 0) {
    printf("conversions and repairs:\n");
    for (size_t i = 0; i < rk_asset_note_count(a); i++)
      printf("  - %s\n", rk_asset_note(a, i));
  }
  const size_t n = rk_skeleton_joint_count(s);
  printf("joints:  %zu\n", n);
  for (size_t i = 0; i < n; i++) {
    const int p = rk_skeleton_parent(s, i);
    const rk_transform *r = rk_skeleton_rest(s, i);
    const unsigned f = rk_skeleton_joint_flags(s, i);
    printf("  %4zu %-28s parent %-24s t (%.6g, %.6g, %.6g) r (%.6g, %.6g, %.6g, %.6g)%s%s\n", i,
           rk_skeleton_joint_name(s, i), p >= 0 ? rk_skeleton_joint_name(s, (size_t)p) : "-",
           r->t.x, r->t.y, r->t.z, r->r.x, r->r.y, r->r.z, r->r.w,
           (f & RK_SKELETON_END_SITE) ? " [end site]" : "", (f & RK_SKELETON_HELPER) ? " [helper]" : "");
  }
  printf("clips:   %zu\n", rk_asset_clip_count(a));
  for (size_t i = 0; i < rk_asset_clip_count(a); i++) {
    const rk_clip *c = rk_asset_clip(a, i);
    printf("  %4zu %-28s %.6g s, %.6g fps, %zu frames, %zu tracks\n", i, rk_clip_name(c),
           rk_clip_duration(c), rk_clip_fps(c), rk_clip_frame_count(c), rk_clip_track_count(c));
  }
  printf("meshes:  %zu\n", rk_asset_mesh_count(a));
  for (size_t i = 0; i < rk_asset_mesh_count(a); i++) {
    const rk_mesh_data *m = rk_mesh_data_get(rk_asset_mesh(a, i));
    printf("  %4zu %-28s %zu vertices, %zu triangles%s\n", i, m->name, m->vertex_count,
           m->index_count / 3, m->joints ? ", skinned" : "");
  }
  return fflush(stdout) == 0 && !ferror(stdout);
}

int rk__cmd_info(int argc, char **argv) {
  gboolean json = FALSE;
  rk__cli_import imp = {0};
  GOptionEntry entries[] = {
      {"json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON instead of text", NULL},
      RK__CLI_IMPORT_ENTRIES(imp),
      G_OPTION_ENTRY_NULL,
  };
  int rc = rk__cli_parse("info", "FILE",
                         "Shows the format, the conversions applied on import (unit, scale, up "
                         "axis, repairs), the joints (name, parent, rest pose in metres, Y-up) "
                         "and the clips (name, duration, frame rate, frames) of a file.",
                         entries, &argc, &argv);
  if (rc != RK_EXIT_OK) {
    rk__cli_import_clear(&imp);
    return rc;
  }
  if (argc != 2) {
    rk__cli_import_clear(&imp);
    return rk__cli_usage("info", "expected one FILE (see rigkit info --help)");
  }
  rk_import_options opts;
  if (!rk__cli_import_options("info", &imp, &opts)) {
    rk__cli_import_clear(&imp);
    return RK_EXIT_USAGE;
  }
  opts.skip_meshes = FALSE;
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_asset) asset = rk_import_file(argv[1], &opts, &error);
  rk__cli_import_clear(&imp);
  if (!asset)
    return rk__cli_fail("info", error);
  if (!(json ? print_json(argv[1], asset) : print_text(argv[1], asset))) {
    fprintf(stderr, "rigkit info: could not write the output\n");
    return RK_EXIT_FAILED;
  }
  return RK_EXIT_OK;
}
