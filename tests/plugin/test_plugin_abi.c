/* The plugin ABI as a host sees it (librigkit_plugin.so loaded with dlopen): one exported symbol,
 * the version check and its message, the struct layouts, and bad input of every kind returning a
 * status and a message instead of aborting the host. */
#include "plugin_fixture.h"

#include <glib/gstdio.h>
#include <pthread.h>

TestSuite(plugin_abi, .init = plugin_load);

/* ---- exports and versions ------------------------------------------------------------------- */

Test(plugin_abi, exports_only_the_entry_point) {
  g_autofree char *nm = g_find_program_in_path("nm");
  g_autofree char *readelf = g_find_program_in_path("readelf");
  cr_assert(nm || readelf, "neither nm nor readelf (binutils) is installed");
  g_autofree char *out = NULL, *errs = NULL;
  int status = 0;
  g_autoptr(GError) e = NULL;
  const char *argv_nm[] = {nm, "-D", "--defined-only", RK_PLUGIN_SO, NULL};
  const char *argv_re[] = {readelf, "--dyn-syms", "-W", RK_PLUGIN_SO, NULL};
  cr_assert(g_spawn_sync(NULL, (char **)(nm ? argv_nm : argv_re), NULL, G_SPAWN_DEFAULT, NULL, NULL,
                         &out, &errs, &status, &e),
            "%s", e ? e->message : "");
  cr_assert(g_spawn_check_wait_status(status, NULL), "%s", errs);
  g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
  size_t exported = 0;
  for (size_t i = 0; lines[i]; i++) {
    g_auto(GStrv) f = g_strsplit_set(g_strstrip(lines[i]), " \t", -1);
    const guint nf = g_strv_length(f);
    if (nf == 0 || !*f[0])
      continue;
    const char *name = f[nf - 1];
    if (nm) {
      /* "address type name": every defined dynamic symbol. */
      cr_assert(nf >= 3, "unexpected nm line '%s'", lines[i]);
    } else {
      /* readelf: "Num: Value Size Type Bind Vis Ndx Name"; skip UND and the header lines. */
      if (nf < 8 || !g_str_has_suffix(f[0], ":") || !strcmp(f[6], "UND") || !strcmp(f[0], "Num:"))
        continue;
      if (!strcmp(f[3], "SECTION") || !strcmp(f[3], "FILE") || !*name)
        continue;
    }
    cr_assert_str_eq(name, "rk_plugin_get_api", "%s exports '%s' (only the entry point may be)",
                     RK_PLUGIN_SO, name);
    exported++;
  }
  cr_assert_eq(exported, 1, "the entry point is not exported:\n%s", out);
}

Test(plugin_abi, a_host_of_another_abi_version_is_refused_with_a_clear_message) {
  const uint32_t wrong[] = {RK_PLUGIN_ABI_VERSION + 1, 2, 1000, UINT32_MAX};
  for (size_t i = 0; i < G_N_ELEMENTS(wrong); i++) {
    if (wrong[i] == RK_PLUGIN_ABI_VERSION)
      continue;
    cr_assert_null(plugin_get_api(wrong[i]), "ABI %u accepted", wrong[i]);
    const rk_plugin_api *q = plugin_get_api(RK_PLUGIN_ABI_QUERY);
    cr_assert(q);
    cr_assert_eq(q->info.abi_version, RK_PLUGIN_ABI_VERSION);
    cr_assert_eq(q->info.api_size, 0, "a query result is not a usable table");
    cr_assert_str_eq(q->info.rigkit_version, rk->info.rigkit_version);
    g_autofree char *asked = g_strdup_printf("host asked for ABI %u", wrong[i]);
    g_autofree char *has = g_strdup_printf("implements plugin ABI %u", RK_PLUGIN_ABI_VERSION);
    cr_assert(strstr(q->info.message, asked), "message: %s", q->info.message);
    cr_assert(strstr(q->info.message, has), "message: %s", q->info.message);
    cr_assert(strstr(q->info.message, "rebuild the host"), "message: %s", q->info.message);
    /* The query table carries no functions a mismatched host could call by mistake. */
    cr_assert_null(q->session_new);
    cr_assert_null(q->asset_open_file);
    cr_assert_null(q->status_name);
  }
  /* The right version still works after refusals, and is the same static table. */
  cr_assert_eq(plugin_get_api(RK_PLUGIN_ABI_VERSION), rk);
  cr_assert_eq(rk->info.api_size, sizeof(rk_plugin_api));
  cr_assert_str_eq(rk->info.message, "");
}

static void *query_on_fresh_thread(void *arg) {
  /* The message lives in this thread's storage: copy it before the thread ends. */
  g_strlcpy(arg, plugin_get_api(RK_PLUGIN_ABI_QUERY)->info.message, 512);
  return NULL;
}

Test(plugin_abi, refusal_messages_are_per_thread) {
  cr_assert_null(plugin_get_api(77));
  char other[512] = "";
  pthread_t th;
  cr_assert_eq(pthread_create(&th, NULL, query_on_fresh_thread, other), 0);
  pthread_join(th, NULL);
  cr_assert(strstr(other, "no request was refused on this thread"), "%s", other);
  const char *mine = plugin_get_api(RK_PLUGIN_ABI_QUERY)->info.message;
  cr_assert(strstr(mine, "asked for ABI 77"), "%s", mine);
}

Test(plugin_abi, struct_sizes_and_status_names) {
  cr_assert_eq(rk->struct_size("rk_plugin_api"), sizeof(rk_plugin_api));
  cr_assert_eq(rk->struct_size("rk_plugin_info"), sizeof(rk_plugin_info));
  cr_assert_eq(rk->struct_size("rk_plugin_space"), sizeof(rk_plugin_space));
  cr_assert_eq(rk->struct_size("rk_plugin_import_options"), sizeof(rk_plugin_import_options));
  cr_assert_eq(rk->struct_size("rk_plugin_asset_info"), sizeof(rk_plugin_asset_info));
  cr_assert_eq(rk->struct_size("rk_plugin_clip_info"), sizeof(rk_plugin_clip_info));
  cr_assert_eq(rk->struct_size("rk_plugin_skeleton"), sizeof(rk_plugin_skeleton));
  cr_assert_eq(rk->struct_size("rk_plugin_settings"), sizeof(rk_plugin_settings));
  cr_assert_eq(rk->struct_size("rk_plugin_session_desc"), sizeof(rk_plugin_session_desc));
  cr_assert_eq(rk->struct_size("rk_plugin_result"), sizeof(rk_plugin_result));
  cr_assert_eq(rk->struct_size("rk_plugin_host_clip"), sizeof(rk_plugin_host_clip));
  cr_assert_eq(rk->struct_size("rk_skeleton"), 0);
  cr_assert_eq(rk->struct_size(NULL), 0);
  cr_assert_str_eq(rk->status_name(RK_PLUGIN_OK), "ok");
  cr_assert_str_eq(rk->status_name(RK_PLUGIN_ERR_IO), "io");
  cr_assert_str_eq(rk->status_name(RK_PLUGIN_ERR_MAPPING), "mapping");
  cr_assert_str_eq(rk->status_name(RK_PLUGIN_ERR_ARGUMENT), "argument");
  cr_assert_str_eq(rk->status_name(RK_PLUGIN_ERR_CAPACITY), "capacity");
  cr_assert_str_eq(rk->status_name(RK_PLUGIN_ERR_CRASHED), "crashed");
  cr_assert_str_eq(rk->status_name(14), "unknown");
  cr_assert_str_eq(rk->status_name(-3), "unknown");
  cr_assert_str_eq(rk->status_name(999), "unknown");
}

/* ---- bad arguments: statuses and messages, never an abort ------------------------------------ */

Test(plugin_abi, null_arguments_return_argument_errors) {
  char err[256];
  rk_plugin_asset *a = (rk_plugin_asset *)0x1;
  cr_assert_eq(rk->asset_open_file(NULL, NULL, &a, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert_null(a, "*out is cleared on failure");
  cr_assert(strstr(err, "path"), "%s", err);
  cr_assert_eq(rk->asset_open_file("", NULL, &a, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert_eq(rk->asset_open_file("x.bvh", NULL, NULL, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert_eq(rk->asset_open_memory(NULL, 10, "x.bvh", NULL, &a, err, sizeof err),
               RK_PLUGIN_ERR_ARGUMENT);
  cr_assert_eq(rk->asset_open_memory("HIER", 0, "x.bvh", NULL, &a, err, sizeof err),
               RK_PLUGIN_ERR_ARGUMENT);
  cr_assert(strstr(err, "x.bvh"), "%s", err);
  rk_plugin_asset_info ai;
  rk_plugin_clip_info ci;
  cr_assert_eq(rk->asset_info(NULL, &ai, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert_eq(rk->asset_clip(NULL, 0, &ci, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert_eq(rk->asset_joints(NULL, NULL, 10, NULL, NULL, NULL, NULL, err, sizeof err),
               RK_PLUGIN_ERR_ARGUMENT);
  rk_plugin_session *s = (rk_plugin_session *)0x1;
  cr_assert_eq(rk->session_new(NULL, &s, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert_null(s);
  rk_plugin_session_desc d = {.settings = RK_PLUGIN_SETTINGS_INIT};
  cr_assert_eq(rk->session_new(&d, &s, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert(strstr(err, "desc.source"), "%s", err);
  cr_assert_eq(rk->session_run(NULL, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  rk_plugin_result r;
  cr_assert_eq(rk->session_result(NULL, &r, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert_eq(rk->session_keys(NULL, 0, 0, 1, NULL, NULL, NULL, err, sizeof err),
               RK_PLUGIN_ERR_ARGUMENT);
  uint32_t count;
  float f[8];
  cr_assert_eq(rk->session_track(NULL, 0, 0, 0, 1, f, f, &count, err, sizeof err),
               RK_PLUGIN_ERR_ARGUMENT);
  int32_t j, iv[2];
  cr_assert_eq(rk->session_contact(NULL, 0, &j, 1, iv, &count, err, sizeof err),
               RK_PLUGIN_ERR_ARGUMENT);
  cr_assert_eq(rk->session_map_text(NULL, err, sizeof err, NULL, err, sizeof err),
               RK_PLUGIN_ERR_ARGUMENT);
  cr_assert_eq(rk->session_export(NULL, "/tmp/x.glb", err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert_eq(rk->asset_from_host(NULL, &a, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert_null(a);
  cr_assert_eq(rk->asset_close(NULL), RK_PLUGIN_OK);
  cr_assert_eq(rk->session_close(NULL), RK_PLUGIN_OK);
}

Test(plugin_abi, stale_foreign_and_double_closed_handles_are_refused) {
  char err[256] = "";
  rk_plugin_asset *a = plugin_open("makehuman_walk1.bvh");
  cr_assert_eq(rk->asset_close(a), RK_PLUGIN_OK);
  cr_assert_eq(rk->asset_close(a), RK_PLUGIN_ERR_ARGUMENT, "closed twice");
  rk_plugin_asset_info ai;
  cr_assert_eq(rk->asset_info(a, &ai, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert(strstr(err, "not an open asset handle"), "%s", err);
  /* A pointer that was never a handle, and a handle of the wrong kind. */
  int not_a_handle = 42;
  cr_assert_eq(rk->asset_info((rk_plugin_asset *)&not_a_handle, &ai, err, sizeof err),
               RK_PLUGIN_ERR_ARGUMENT);
  rk_plugin_asset *clip = plugin_open("makehuman_walk1.bvh");
  rk_plugin_asset *fig = plugin_open("RiggedFigure.glb");
  rk_plugin_session_desc d = {
      .source = clip, .target_asset = fig, .settings = RK_PLUGIN_SETTINGS_INIT};
  rk_plugin_session *s = NULL;
  cr_assert_eq(rk->session_new(&d, &s, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  cr_assert_eq(rk->asset_info((rk_plugin_asset *)s, &ai, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert_eq(rk->session_run((rk_plugin_session *)clip, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert_eq(rk->session_close((rk_plugin_session *)clip), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert_eq(rk->asset_close((rk_plugin_asset *)s), RK_PLUGIN_ERR_ARGUMENT);
  /* Reading before running. */
  rk_plugin_result r;
  cr_assert_eq(rk->session_result(s, &r, err, sizeof err), RK_PLUGIN_ERR_STATE);
  cr_assert(strstr(err, "session_run"), "%s", err);
  float t[3];
  cr_assert_eq(rk->session_keys(s, 0, 0, 1, t, NULL, NULL, err, sizeof err), RK_PLUGIN_ERR_STATE);
  cr_assert_eq(rk->session_export(s, "/tmp/never.glb", err, sizeof err), RK_PLUGIN_ERR_STATE);
  cr_assert_eq(rk->session_close(s), RK_PLUGIN_OK);
  cr_assert_eq(rk->session_close(s), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert_eq(rk->session_run(s, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  rk->asset_close(clip);
  rk->asset_close(fig);
}

Test(plugin_abi, messages_fit_any_buffer) {
  rk_plugin_asset *a = NULL;
  /* err NULL: only the status. */
  cr_assert_eq(rk->asset_open_file("/nonexistent/dir/walk.bvh", NULL, &a, NULL, 0),
               RK_PLUGIN_ERR_IO);
  cr_assert_eq(rk->asset_open_file("/nonexistent/dir/walk.bvh", NULL, &a, NULL, 100),
               RK_PLUGIN_ERR_IO);
  char big[512];
  cr_assert_eq(rk->asset_open_file("/nonexistent/dir/walk.bvh", NULL, &a, big, sizeof big),
               RK_PLUGIN_ERR_IO);
  cr_assert(strstr(big, "/nonexistent/dir/walk.bvh"), "the message names the file: %s", big);
  for (size_t size = 1; size < 24; size++) {
    char buf[32];
    memset(buf, 'X', sizeof buf);
    cr_assert_eq(rk->asset_open_file("/nonexistent/dir/walk.bvh", NULL, &a, buf, size),
                 RK_PLUGIN_ERR_IO);
    cr_assert_eq(strlen(buf), size - 1, "size %zu: '%s'", size, buf);
    cr_assert_eq(strncmp(buf, big, size - 1), 0);
    cr_assert_eq(buf[size], 'X', "wrote past the buffer at size %zu", size);
  }
  /* Truncation never splits a UTF-8 character. */
  g_autofree char *dir = g_dir_make_tmp("rk_plugin_XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "\xc3\xa9\xc3\xa9\xc3\xa9.bvh", NULL);
  char msg[512];
  cr_assert_eq(rk->asset_open_file(path, NULL, &a, msg, sizeof msg), RK_PLUGIN_ERR_IO);
  const char *e = strstr(msg, "\xc3\xa9");
  cr_assert(e, "%s", msg);
  const size_t cut = (size_t)(e - msg) + 3; /* 3 bytes: one é and half of the next */
  char small[256];
  cr_assert_eq(rk->asset_open_file(path, NULL, &a, small, cut + 1), RK_PLUGIN_ERR_IO);
  cr_assert(g_utf8_validate(small, -1, NULL), "'%s' is not valid UTF-8", small);
  cr_assert_eq(strlen(small), cut - 1, "cut before the partial character");
  g_rmdir(dir);
}

Test(plugin_abi, malformed_files_and_bytes_give_parse_errors) {
  char err[512] = "";
  rk_plugin_asset *a = NULL;
  static const char junk[] = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0\n";
  int st = rk->asset_open_memory(junk, sizeof junk - 1, "junk.bvh", NULL, &a, err, sizeof err);
  cr_assert(st == RK_PLUGIN_ERR_PARSE || st == RK_PLUGIN_ERR_INVALID, "%s: %s", rk->status_name(st),
            err);
  cr_assert(strstr(err, "junk.bvh"), "%s", err);
  cr_assert_null(a);
  static const unsigned char glb_head[] = {'g', 'l', 'T', 'F', 2, 0, 0, 0, 0xff, 0xff, 0, 0};
  st = rk->asset_open_memory(glb_head, sizeof glb_head, "cut.glb", NULL, &a, err, sizeof err);
  cr_assert_neq(st, RK_PLUGIN_OK);
  cr_assert(strstr(err, "cut.glb"), "%s", err);
  /* Bad import options. */
  rk_plugin_import_options o = {.metres_per_unit = -1};
  g_autofree char *walk = rk_test_data("makehuman_walk1.bvh");
  cr_assert_eq(rk->asset_open_file(walk, &o, &a, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  o = (rk_plugin_import_options){.metres_per_unit = NAN};
  cr_assert_eq(rk->asset_open_file(walk, &o, &a, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  o = (rk_plugin_import_options){.format = ""};
  cr_assert_eq(rk->asset_open_file(walk, &o, &a, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  o = (rk_plugin_import_options){.format = "bvh", .bvh_up_axis = "sideways"};
  st = rk->asset_open_file(walk, &o, &a, err, sizeof err);
  cr_assert_neq(st, RK_PLUGIN_OK, "an unknown up axis is refused");
}

Test(plugin_abi, asset_listing_checks_indices_and_capacity) {
  char err[256] = "";
  rk_plugin_asset *a = plugin_open("makehuman_walk1.bvh");
  rk_plugin_asset_info ai;
  cr_assert_eq(rk->asset_info(a, &ai, err, sizeof err), RK_PLUGIN_OK);
  cr_assert_eq(ai.joint_count, 91, "75 joints + 16 End Sites");
  cr_assert_eq(ai.clip_count, 1);
  cr_assert_str_eq(ai.format, "bvh");
  cr_assert(g_str_has_suffix(ai.path, "makehuman_walk1.bvh"), "%s", ai.path);
  cr_assert_eq(rk->asset_info(a, NULL, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  rk_plugin_clip_info ci;
  cr_assert_eq(rk->asset_clip(a, 0, &ci, err, sizeof err), RK_PLUGIN_OK);
  cr_assert_eq(ci.frames, 14);
  rk_assert_near(ci.fps, 24, 1e-3);
  cr_assert_eq(rk->asset_clip(a, 1, &ci, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert(strstr(err, "clip 1 does not exist"), "%s", err);
  const char *names[91];
  int32_t parents[91];
  uint32_t flags[91];
  cr_assert_eq(rk->asset_joints(a, NULL, 90, names, parents, NULL, flags, err, sizeof err),
               RK_PLUGIN_ERR_CAPACITY);
  cr_assert(strstr(err, "91"), "%s", err);
  cr_assert_eq(rk->asset_joints(a, NULL, 91, names, parents, NULL, flags, err, sizeof err),
               RK_PLUGIN_OK);
  cr_assert_eq(parents[0], -1);
  size_t end_sites = 0;
  for (int i = 0; i < 91; i++) {
    cr_assert(parents[i] < i, "parents before children");
    end_sites += (flags[i] & RK_PLUGIN_JOINT_END_SITE) != 0;
  }
  cr_assert_eq(end_sites, 16);
  rk_plugin_space bad = {7, 1};
  cr_assert_eq(rk->asset_joints(a, &bad, 91, names, NULL, NULL, NULL, err, sizeof err),
               RK_PLUGIN_ERR_ARGUMENT);
  cr_assert(strstr(err, "up_axis"), "%s", err);
  bad = (rk_plugin_space){RK_PLUGIN_UP_Z, -2};
  cr_assert_eq(rk->asset_joints(a, &bad, 91, names, NULL, NULL, NULL, err, sizeof err),
               RK_PLUGIN_ERR_ARGUMENT);
  bad = (rk_plugin_space){RK_PLUGIN_UP_Z, INFINITY};
  cr_assert_eq(rk->asset_joints(a, &bad, 91, names, NULL, NULL, NULL, err, sizeof err),
               RK_PLUGIN_ERR_ARGUMENT);
  rk->asset_close(a);
}

/* ---- bad target skeletons -------------------------------------------------------------------- */

static int try_skeleton(const rk_plugin_skeleton *k, char *err, size_t size) {
  rk_plugin_asset *clip = plugin_open("makehuman_walk1.bvh");
  rk_plugin_session_desc d = {
      .source = clip, .target_skeleton = k, .settings = RK_PLUGIN_SETTINGS_INIT};
  rk_plugin_session *s = NULL;
  int st = rk->session_new(&d, &s, err, size);
  if (st == RK_PLUGIN_OK)
    rk->session_close(s);
  else
    cr_assert_null(s);
  rk->asset_close(clip);
  return st;
}

Test(plugin_abi, bad_target_skeletons_are_refused_naming_the_joint) {
  rk_plugin_asset *fig = plugin_open("RiggedFigure.glb");
  host_skeleton h = host_skeleton_from(fig, (rk_plugin_space){RK_PLUGIN_UP_Z, 1}, true);
  char err[512] = "";
  cr_assert_eq(try_skeleton(&h.k, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  const uint32_t n = h.k.joint_count;

  rk_plugin_skeleton k = h.k;
  k.joint_count = 0;
  cr_assert_eq(try_skeleton(&k, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  k.joint_count = 70000;
  cr_assert_eq(try_skeleton(&k, err, sizeof err), RK_PLUGIN_ERR_LIMIT);
  cr_assert(strstr(err, "70000"), "%s", err);
  k = h.k;
  k.names = NULL;
  cr_assert_eq(try_skeleton(&k, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert(strstr(err, "names"), "%s", err);
  k = h.k;
  k.rest = NULL;
  cr_assert_eq(try_skeleton(&k, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);

  /* One field broken at a time, then restored. */
  const char *saved_name = h.names[3];
  h.names[3] = h.names[5];
  cr_assert_eq(try_skeleton(&h.k, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  cr_assert(strstr(err, h.names[5]) && strstr(err, "duplicate"), "%s", err);
  h.names[3] = NULL;
  cr_assert_eq(try_skeleton(&h.k, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  cr_assert(strstr(err, "joint 3"), "%s", err);
  h.names[3] = "";
  cr_assert_eq(try_skeleton(&h.k, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  h.names[3] = "bad\xff\xfe";
  cr_assert_eq(try_skeleton(&h.k, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  cr_assert(strstr(err, "UTF-8"), "%s", err);
  h.names[3] = saved_name;

  const int32_t saved_parent = h.parents[2];
  h.parents[2] = (int32_t)n;
  cr_assert_eq(try_skeleton(&h.k, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  cr_assert(strstr(err, h.names[2]) && strstr(err, "out of range"), "%s", err);
  h.parents[2] = 2;
  cr_assert_eq(try_skeleton(&h.k, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  h.parents[2] = -7;
  cr_assert_eq(try_skeleton(&h.k, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  h.parents[2] = saved_parent;
  /* A cycle: the root's parent set to one of its descendants. */
  uint32_t root = 0;
  while (h.parents[root] != -1)
    root++;
  h.parents[root] = (int32_t)(root == 0 ? 1 : 0);
  cr_assert_eq(try_skeleton(&h.k, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  cr_assert(strstr(err, "target skeleton"), "%s", err);
  h.parents[root] = -1;

  float *x = h.rest + 4 * RK_PLUGIN_TRS_FLOATS;
  float saved[RK_PLUGIN_TRS_FLOATS];
  memcpy(saved, x, sizeof saved);
  x[1] = NAN;
  cr_assert_eq(try_skeleton(&h.k, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  cr_assert(strstr(err, h.names[4]) && strstr(err, "not finite"), "%s", err);
  x[1] = saved[1];
  x[3] = x[4] = x[5] = x[6] = 0;
  cr_assert_eq(try_skeleton(&h.k, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  cr_assert(strstr(err, "quaternion"), "%s", err);
  memcpy(x, saved, sizeof saved);
  x[8] = 0;
  cr_assert_eq(try_skeleton(&h.k, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  cr_assert(strstr(err, "scale"), "%s", err);
  memcpy(x, saved, sizeof saved);

  g_autofree uint32_t *flags = g_new0(uint32_t, n);
  flags[1] = 0x80;
  h.k.flags = flags;
  cr_assert_eq(try_skeleton(&h.k, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert(strstr(err, "flags"), "%s", err);
  h.k.flags = NULL;

  /* Structurally valid, not a humanoid: a single joint, and a chain of three. */
  const char *one_name[] = {"only"};
  const int32_t one_parent[] = {-1};
  const float one_rest[] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
  k = (rk_plugin_skeleton){
      .joint_count = 1, .names = one_name, .parents = one_parent, .rest = one_rest};
  cr_assert_eq(try_skeleton(&k, err, sizeof err), RK_PLUGIN_ERR_MAPPING);
  cr_assert(strstr(err, "target"), "%s", err);
  const char *chain_names[] = {"a", "b", "c"};
  const int32_t chain_parents[] = {-1, 0, 1};
  const float chain_rest[] = {0, 1, 0, 0, 0, 0, 1,    1, 1, 1, 0, 0.5f, 0, 0, 0,
                              0, 1, 1, 1, 1, 0, 0.5f, 0, 0, 0, 0, 1,    1, 1, 1};
  k = (rk_plugin_skeleton){
      .joint_count = 3, .names = chain_names, .parents = chain_parents, .rest = chain_rest};
  cr_assert_eq(try_skeleton(&k, err, sizeof err), RK_PLUGIN_ERR_MAPPING);

  host_skeleton_clear(&h);
  rk->asset_close(fig);
}

Test(plugin_abi, bad_session_descriptions_name_the_field) {
  char err[512] = "";
  rk_plugin_asset *clip = plugin_open("makehuman_walk1.bvh");
  rk_plugin_asset *fig = plugin_open("RiggedFigure.glb");
  rk_plugin_session *s = NULL;
  const rk_plugin_session_desc good = {
      .source = clip, .target_asset = fig, .settings = RK_PLUGIN_SETTINGS_INIT};
  rk_plugin_session_desc d = good;
  d.target_asset = NULL;
  cr_assert_eq(rk->session_new(&d, &s, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert(strstr(err, "neither"), "%s", err);
  host_skeleton h = host_skeleton_from(fig, (rk_plugin_space){0, 1}, false);
  d = good;
  d.target_skeleton = &h.k;
  cr_assert_eq(rk->session_new(&d, &s, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert(strstr(err, "both"), "%s", err);
  d = good;
  d.source_clip = 3;
  cr_assert_eq(rk->session_new(&d, &s, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert(strstr(err, "clip 3"), "%s", err);
  d = good;
  d.profile_path = "/tmp/a.map";
  d.profile_text = "[settings]\n";
  cr_assert_eq(rk->session_new(&d, &s, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  d = good;
  d.space.up_axis = 2;
  cr_assert_eq(rk->session_new(&d, &s, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  /* Settings, one field at a time. */
  const struct {
    rk_plugin_settings st;
    const char *field;
  } bad[] = {
      {{2, -1, -1, 0, 0, 0}, "foot_ik"},
      {{-1, -5, -1, 0, 0, 0}, "hand_ik"},
      {{-1, -1, 9, 0, 0, 0}, "root_motion"},
      {{-1, -1, -1, 0, -24, 0}, "fps"},
      {{-1, -1, -1, 0, NAN, 0}, "fps"},
      {{-1, -1, -1, 0, 1e6, 0}, "fps"},
      {{-1, -1, -1, 0, 0, -0.001}, "reduce_tolerance_m"},
      {{-1, -1, -1, 0, 0, INFINITY}, "reduce_tolerance_m"},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    d = good;
    d.settings = bad[i].st;
    cr_assert_eq(rk->session_new(&d, &s, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT, "%s",
                 bad[i].field);
    cr_assert(strstr(err, bad[i].field), "%s: %s", bad[i].field, err);
    cr_assert_null(s);
  }
  /* A closed asset as source. */
  rk_plugin_asset *gone = plugin_open("makehuman_walk1.bvh");
  rk->asset_close(gone);
  d = good;
  d.source = gone;
  cr_assert_eq(rk->session_new(&d, &s, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert(strstr(err, "desc.source"), "%s", err);
  host_skeleton_clear(&h);
  rk->asset_close(clip);
  rk->asset_close(fig);
}

/* ---- random input: statuses only, never a crash ---------------------------------------------- */

/* Runs a full session on a host skeleton; any status is fine, a crash or an abort is not. */
static int session_status(rk_plugin_asset *clip, const rk_plugin_skeleton *k, const char *profile,
                          rk_plugin_settings st, rk_plugin_space space, char *err, size_t size) {
  rk_plugin_session_desc d = {.source = clip,
                              .target_skeleton = k,
                              .space = space,
                              .profile_text = profile,
                              .settings = st};
  rk_plugin_session *s = NULL;
  int rc = rk->session_new(&d, &s, err, size);
  if (rc == RK_PLUGIN_OK) {
    rc = rk->session_run(s, err, size);
    rk_plugin_result r;
    if (rc == RK_PLUGIN_OK) {
      cr_assert_eq(rk->session_result(s, &r, err, size), RK_PLUGIN_OK, "%s", err);
      g_autofree float *t = g_new(float, (size_t)r.frames *r.joint_count * 3);
      g_autofree float *q = g_new(float, (size_t)r.frames *r.joint_count * 4);
      cr_assert_eq(
          rk->session_keys(s, RK_PLUGIN_KEYS_REST_RELATIVE, 0, r.frames, t, q, NULL, err, size),
          RK_PLUGIN_OK, "%s", err);
      for (size_t i = 0; i < (size_t)r.frames * r.joint_count * 3; i++)
        cr_assert(isfinite(t[i]), "a successful run returned a non-finite key");
    }
    cr_assert_eq(rk->session_close(s), RK_PLUGIN_OK);
  } else {
    cr_assert(err[0], "status %s without a message", rk->status_name(rc));
  }
  return rc;
}

Test(plugin_abi, random_rigs_settings_and_profiles_return_statuses) {
  rk_plugin_asset *clip = plugin_open("makehuman_walk1.bvh");
  rk_plugin_asset *fig = plugin_open("RiggedFigure.glb");
  const rk_plugin_space spaces[] = {{RK_PLUGIN_UP_Y, 1},
                                    {RK_PLUGIN_UP_Z, 0.01f},
                                    {RK_PLUGIN_UP_Z, 1e-9f},
                                    {RK_PLUGIN_UP_Y, 1e9f}};
  static const char *const profiles[] = {
      NULL,
      "",
      "[settings]\nik_iterations=1\n",
      "[settings]\nfoot_ik=maybe\n",
      "[target]\nhips=leg_joint_L_1\n",
      "[target]\nhips=\n",
      "[source]\nhips=LeftFoot\n",
      "[settings]\ncontact_height=1\ncontact_speed=100\ncontact_min_time=0\nblend_time=0\n",
      "[settings]\nfps=10000\n",
      "\xff\xfe[\x01\n=",
      "[target]\nleft_foot=leg_joint_R_3\n"};
  guint64 rng = 0x9e3779b97f4a7c15ull;
  size_t ok = 0, refused = 0;
  for (int round = 0; round < 60; round++) {
    host_skeleton h = host_skeleton_from(fig, spaces[round % 4], round % 2);
    const uint32_t n = h.k.joint_count;
    /* Perturb a few joints: collapse a bone to zero length, stretch it, scale, twist, reparent. */
    const int changes = round % 4;
    for (int c0 = 0; c0 < changes; c0++) {
      const uint32_t i = (uint32_t)rk_test_uniform(&rng, 0, n) % n;
      float *x = h.rest + (size_t)i * RK_PLUGIN_TRS_FLOATS;
      const double u = rk_test_uniform(&rng, 0, 0.4);
      if (u < 0.1)
        x[0] = x[1] = x[2] = 0;
      else if (u < 0.2)
        for (int c = 0; c < 3; c++)
          x[c] *= (float)rk_test_uniform(&rng, -1e3, 1e3);
      else if (u < 0.3)
        for (int c = 3; c < 7; c++)
          x[c] = (float)rk_test_uniform(&rng, -1, 1);
      else if (u < 0.35)
        x[7] = x[8] = x[9] = (float)rk_test_uniform(&rng, 1e-6, 1e3);
      else if (u < 0.4 && h.parents[i] >= 0)
        h.parents[i] = (int32_t)(rk_test_uniform(&rng, 0, 1) * n) % (int32_t)n;
    }
    rk_plugin_settings st = RK_PLUGIN_SETTINGS_INIT;
    st.foot_ik = round % 3 - 1;
    st.hand_ik = (round / 3) % 3 - 1;
    st.root_motion = (round / 2) % 3 - 1;
    st.fps = round % 5 == 0 ? 0 : rk_test_uniform(&rng, 0.5, 240);
    st.reduce_tolerance_m = round % 4 == 0 ? rk_test_uniform(&rng, 0, 0.05) : 0;
    char err[512] = "";
    const int rc = session_status(clip, &h.k, profiles[round % G_N_ELEMENTS(profiles)], st,
                                  spaces[round % 4], err, sizeof err);
    rc == RK_PLUGIN_OK ? ok++ : refused++;
    if (g_getenv("RK_VERBOSE"))
      printf("round %d: %s %s\n", round, rk->status_name(rc), rc ? err : "");
    host_skeleton_clear(&h);
  }
  printf("random rigs: %zu retargeted, %zu refused with a message\n", ok, refused);
  cr_assert_gt(ok, 0);
  cr_assert_gt(refused, 0);
  rk->asset_close(clip);
  rk->asset_close(fig);
}
