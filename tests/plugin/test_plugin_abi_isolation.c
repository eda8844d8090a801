/* Imports in the helper process (ABI 2's rk_plugin_import_options.isolation): every shared glTF,
 * GLB and FBX file gives the same asset there as in the host's process, and every malformed one
 * the same status and message; a helper that aborts, crashes, exits or answers garbage is refused
 * with RK_PLUGIN_ERR_CRASHED naming the file while this process carries on (the helper's test
 * hook RIGKIT_IMPORT_HELPER_FAULT stands in for Assimp aborting); a missing helper is an IO error
 * saying where it was looked for; an ABI 1 host keeps ABI 1's table and imports in its own
 * process. Prints what an isolated import costs (tests/bench/README.md quotes it). */
#include "plugin_fixture.h"

#include <rigkit/importers.h>

#include <glib/gstdio.h>
#include <stddef.h>

TestSuite(plugin_isolation, .init = plugin_load);

static const rk_plugin_import_options in_process = {.isolation = RK_PLUGIN_ISOLATION_NONE};
static const rk_plugin_import_options in_helper = {.isolation = RK_PLUGIN_ISOLATION_ALWAYS};

static int open_with(const char *path, const rk_plugin_import_options *o, rk_plugin_asset **a,
                     char *err, size_t size) {
  *a = NULL;
  return rk->asset_open_file(path, o, a, err, size);
}

/* Everything the ABI shows of two assets is the same, bit for bit. */
static void assert_same_asset(const rk_plugin_asset *a, const rk_plugin_asset *b, const char *what) {
  char err[256] = "";
  rk_plugin_asset_info ia, ib;
  cr_assert_eq(rk->asset_info(a, &ia, err, sizeof err), RK_PLUGIN_OK);
  cr_assert_eq(rk->asset_info(b, &ib, err, sizeof err), RK_PLUGIN_OK);
  cr_assert(ia.joint_count == ib.joint_count && ia.clip_count == ib.clip_count &&
                ia.mesh_count == ib.mesh_count,
            "%s: counts", what);
  cr_assert(!strcmp(ia.format, ib.format) && !strcmp(ia.path, ib.path) &&
                !strcmp(ia.unit, ib.unit) && !strcmp(ia.up_axis, ib.up_axis) &&
                ia.metres_per_unit == ib.metres_per_unit,
            "%s: provenance", what);
  for (uint32_t c = 0; c < ia.clip_count; c++) {
    rk_plugin_clip_info ca, cb;
    rk->asset_clip(a, c, &ca, err, sizeof err), rk->asset_clip(b, c, &cb, err, sizeof err);
    cr_assert(!strcmp(ca.name, cb.name) && ca.duration_s == cb.duration_s && ca.fps == cb.fps &&
                  ca.frames == cb.frames,
              "%s: clip %u", what, c);
  }
  const uint32_t n = ia.joint_count;
  g_autofree const char **na = g_new(const char *, n), **nb = g_new(const char *, n);
  g_autofree int32_t *pa = g_new(int32_t, n), *pb = g_new(int32_t, n);
  g_autofree float *ra = g_new(float, (size_t)n *RK_PLUGIN_TRS_FLOATS),
                   *rb = g_new(float, (size_t)n *RK_PLUGIN_TRS_FLOATS);
  g_autofree uint32_t *fa = g_new(uint32_t, n), *fb = g_new(uint32_t, n);
  cr_assert_eq(rk->asset_joints(a, NULL, n, na, pa, ra, fa, err, sizeof err), RK_PLUGIN_OK);
  cr_assert_eq(rk->asset_joints(b, NULL, n, nb, pb, rb, fb, err, sizeof err), RK_PLUGIN_OK);
  for (uint32_t i = 0; i < n; i++)
    cr_assert(!strcmp(na[i], nb[i]) && pa[i] == pb[i] && fa[i] == fb[i], "%s: joint %u", what, i);
  cr_assert_eq(memcmp(ra, rb, (size_t)n * RK_PLUGIN_TRS_FLOATS * sizeof(float)), 0,
               "%s: rest poses", what);
}

/* Two files rigkit wrote hold the same skeleton (rest poses within 1e-12: the skeleton builder
 * normalises rest rotations again, which may move their last bit), the same meshes, skin and
 * textures bit for bit, and the same clip. Returns how many meshes have a texture. */
static size_t assert_same_output(const char *pa, const char *pb) {
  g_autoptr(GError) e = NULL;
  g_autoptr(rk_asset) a = rk_import_file(pa, NULL, &e);
  g_autoptr(rk_asset) b = rk_import_file(pb, NULL, &e);
  cr_assert(a && b, "%s", e ? e->message : "");
  const rk_skeleton *sa = rk_asset_skeleton(a), *sb = rk_asset_skeleton(b);
  cr_assert_eq(rk_skeleton_joint_count(sa), rk_skeleton_joint_count(sb));
  for (size_t j = 0; j < rk_skeleton_joint_count(sa); j++) {
    const rk_transform *x = rk_skeleton_rest(sa, j), *y = rk_skeleton_rest(sb, j);
    cr_assert(rk_vec3_norm(rk_vec3_sub(x->t, y->t)) < 1e-12 &&
                  fabs(rk_quat_dot(x->r, y->r)) > 1 - 1e-12 &&
                  rk_vec3_norm(rk_vec3_sub(x->s, y->s)) < 1e-12,
              "joint %zu", j);
  }
  cr_assert_eq(rk_asset_mesh_count(a), rk_asset_mesh_count(b));
  size_t textured = 0;
  for (size_t m = 0; m < rk_asset_mesh_count(a); m++) {
    const rk_mesh_data *x = rk_mesh_data_get(rk_asset_mesh(a, m));
    const rk_mesh_data *y = rk_mesh_data_get(rk_asset_mesh(b, m));
    const size_t n = x->vertex_count;
    cr_assert(n == y->vertex_count && x->index_count == y->index_count);
    cr_assert(!memcmp(x->positions, y->positions, 12 * n) && !memcmp(x->joints, y->joints, 8 * n) &&
                  !memcmp(x->weights, y->weights, 16 * n) &&
                  !memcmp(x->indices, y->indices, 4 * x->index_count),
              "mesh %zu", m);
    const rk_texture *tx = x->material.base_color_texture, *ty = y->material.base_color_texture;
    cr_assert(!tx == !ty, "mesh %zu: a texture on one side only", m);
    if (tx)
      cr_assert(tx->size == ty->size && !memcmp(tx->data, ty->data, tx->size) &&
                    !g_strcmp0(tx->mime_type, ty->mime_type),
                "mesh %zu: the textures differ", m);
    textured += tx != NULL;
  }
  cr_assert_eq(rk_asset_clip_count(a), rk_asset_clip_count(b));
  cr_assert_eq(rk_clip_key_count_total(rk_asset_clip(a, 0)),
               rk_clip_key_count_total(rk_asset_clip(b, 0)));
  return textured;
}

/* The character with a walk (profile: its map, or NULL), written by the plugin's exporter from
 * each asset: the same output (skeleton, inverse binds, meshes, skin, material and texture all
 * went through the helper). */
static size_t assert_same_export(rk_plugin_asset *a, rk_plugin_asset *b, const char *dir,
                                 const char *profile) {
  rk_plugin_asset *walk = plugin_open("makehuman_walk1.bvh");
  rk_plugin_asset *targets[2] = {a, b};
  char *paths[2];
  for (int i = 0; i < 2; i++) {
    rk_plugin_session_desc d = {.source = walk,
                                .target_asset = targets[i],
                                .profile_text = profile,
                                .settings = RK_PLUGIN_SETTINGS_INIT};
    rk_plugin_session *s = plugin_run(&d);
    paths[i] = g_strdup_printf("%s/out%d.glb", dir, i);
    char err[512] = "";
    cr_assert_eq(rk->session_export(s, paths[i], err, sizeof err), RK_PLUGIN_OK, "%s", err);
    rk->session_close(s);
  }
  const size_t textured = assert_same_output(paths[0], paths[1]);
  for (int i = 0; i < 2; i++)
    g_unlink(paths[i]), g_free(paths[i]);
  rk->asset_close(walk);
  return textured;
}

Test(plugin_isolation, the_helper_gives_the_same_assets_and_errors_as_this_process) {
  static const char *const dirs[] = {"", "derived", "generated", "crafted", "bad"};
  g_autofree char *tmp = g_dir_make_tmp("rk_isolation_XXXXXX", NULL);
  size_t same = 0, same_errors = 0;
  for (size_t d = 0; d < G_N_ELEMENTS(dirs); d++) {
    g_autofree char *dir = rk_test_data(dirs[d]);
    g_autoptr(GDir) it = g_dir_open(dir, 0, NULL);
    const char *name;
    while (it && (name = g_dir_read_name(it))) {
      if (!g_str_has_suffix(name, ".glb") && !g_str_has_suffix(name, ".gltf") &&
          !g_str_has_suffix(name, ".fbx"))
        continue;
      g_autofree char *path = g_build_filename(dir, name, NULL);
      char ea[1024] = "", eb[1024] = "";
      rk_plugin_asset *a, *b;
      const int sa = open_with(path, &in_process, &a, ea, sizeof ea);
      const int sb = open_with(path, &in_helper, &b, eb, sizeof eb);
      cr_assert_eq(sa, sb, "%s: %s in this process (%s), %s in the helper (%s)", path,
                   rk->status_name(sa), ea, rk->status_name(sb), eb);
      if (sa != RK_PLUGIN_OK) {
        cr_assert_str_eq(ea, eb, "%s: the messages differ", path);
        same_errors++;
        continue;
      }
      rk_plugin_asset_info ib;
      rk->asset_info(b, &ib, eb, sizeof eb);
      cr_assert_eq(ib.isolated, 1, "%s", path);
      assert_same_asset(a, b, path);
      if (!strcmp(name, "RiggedFigure.glb") || !strcmp(name, "mh_char.fbx"))
        assert_same_export(a, b, tmp, NULL);
      if (!strcmp(name, "Fox.glb")) /* textured: the texture crosses the pipe too */
        cr_assert_gt(assert_same_export(a, b, tmp, RK_TEST_FOX_HIND_LEGS_MAP), 0);
      rk->asset_close(a), rk->asset_close(b);
      same++;
    }
  }
  printf("through the helper: %zu files gave the same asset, %zu the same error\n", same,
         same_errors);
  cr_assert_geq(same, 10);
  cr_assert_geq(same_errors, 10);
  g_rmdir(tmp);
}

Test(plugin_isolation, auto_sends_assimp_formats_to_the_helper_and_bytes_through_a_pipe) {
  char err[512] = "";
  const struct {
    const char *file;
    uint32_t isolated;
  } cases[] = {{"makehuman_walk1.bvh", 0}, {"iiwa14.dh", 0}, {"RiggedFigure.glb", 1},
               {"SimpleSkin.gltf", 1},     {"assimp_huesitos.fbx", 1}};
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    rk_plugin_asset *a = plugin_open(cases[i].file); /* NULL options: AUTO */
    rk_plugin_asset_info ai;
    rk->asset_info(a, &ai, err, sizeof err);
    cr_assert_eq(ai.isolated, cases[i].isolated, "%s", cases[i].file);
    rk->asset_close(a);
  }
  /* Fox.glb's 160 KB through the helper's standard input (more than a pipe buffer) give the
   * asset the file gives. */
  g_autofree char *path = rk_test_data("Fox.glb");
  g_autofree char *bytes = NULL;
  gsize size = 0;
  cr_assert(g_file_get_contents(path, &bytes, &size, NULL));
  rk_plugin_asset *mem = NULL, *file = NULL;
  cr_assert_eq(rk->asset_open_memory(bytes, size, path, NULL, &mem, err, sizeof err), RK_PLUGIN_OK,
               "%s", err);
  cr_assert_eq(open_with(path, &in_process, &file, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  rk_plugin_asset_info ai;
  rk->asset_info(mem, &ai, err, sizeof err);
  cr_assert_eq(ai.isolated, 1);
  assert_same_asset(mem, file, "Fox.glb from memory");
  rk->asset_close(mem), rk->asset_close(file);
  /* A truncated GLB from memory: the importer's own error, named as given. */
  cr_assert_eq(rk->asset_open_memory(bytes, 100, "cut.glb", NULL, &mem, err, sizeof err),
               RK_PLUGIN_ERR_PARSE);
  cr_assert(g_str_has_prefix(err, "cut.glb: "), "%s", err);
  /* A bad isolation value. */
  rk_plugin_import_options o = {.isolation = 3};
  cr_assert_eq(rk->asset_open_file(path, &o, &mem, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert(strstr(err, "isolation = 3"), "%s", err);
  o.isolation = -1;
  cr_assert_eq(rk->asset_open_memory(bytes, size, path, &o, &mem, err, sizeof err),
               RK_PLUGIN_ERR_ARGUMENT);
}

Test(plugin_isolation, options_reach_the_helper) {
  /* Unit, format and up axis: the helper reads the file as this process does. */
  g_autofree char *walk = rk_test_data("makehuman_walk1.bvh");
  rk_plugin_import_options o = {.format = "bvh", .metres_per_unit = 0.0254, .bvh_up_axis = "Z"};
  rk_plugin_asset *a, *b;
  char err[512] = "";
  o.isolation = RK_PLUGIN_ISOLATION_NONE;
  cr_assert_eq(open_with(walk, &o, &a, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  o.isolation = RK_PLUGIN_ISOLATION_ALWAYS;
  cr_assert_eq(open_with(walk, &o, &b, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  assert_same_asset(a, b, "the walk in inches, Z up");
  rk_plugin_asset_info ai;
  rk->asset_info(b, &ai, err, sizeof err);
  rk_assert_near(ai.metres_per_unit, 0.0254, 1e-12);
  rk->asset_close(a), rk->asset_close(b);
  o.format = "nope";
  cr_assert_eq(open_with(walk, &o, &b, err, sizeof err), RK_PLUGIN_ERR_UNSUPPORTED, "%s", err);
  cr_assert(strstr(err, "nope"), "%s", err);
  /* The BVH root offset reading: Blender's (replace) moves the walk's root path by the OFFSET's
   * horizontal part against the reading rigkit picks (add), the same in either process. */
  rk_plugin_asset *fig = plugin_open("RiggedFigure.glb");
  float root[2][3];
  const int32_t readings[2] = {RK_PLUGIN_BVH_ROOT_OFFSET_ADD, RK_PLUGIN_BVH_ROOT_OFFSET_REPLACE};
  for (int i = 0; i < 2; i++) {
    rk_plugin_import_options r = {.bvh_root_offset = readings[i]};
    r.isolation = RK_PLUGIN_ISOLATION_NONE;
    cr_assert_eq(open_with(walk, &r, &a, err, sizeof err), RK_PLUGIN_OK, "%s", err);
    r.isolation = RK_PLUGIN_ISOLATION_ALWAYS;
    cr_assert_eq(open_with(walk, &r, &b, err, sizeof err), RK_PLUGIN_OK, "%s", err);
    assert_same_asset(a, b, i ? "the walk read with replace" : "the walk read with add");
    rk_plugin_session_desc d = {
        .source = a, .target_asset = fig, .settings = RK_PLUGIN_SETTINGS_INIT};
    d.settings.root_motion = 1;
    rk_plugin_session *s = plugin_run(&d);
    float t[19 * 3];
    cr_assert_eq(rk->session_keys(s, RK_PLUGIN_KEYS_LOCAL, 0, 1, t, NULL, NULL, err, sizeof err),
                 RK_PLUGIN_OK, "%s", err);
    memcpy(root[i], t, sizeof root[i]);
    rk->session_close(s);
    rk->asset_close(a), rk->asset_close(b);
  }
  const double moved = hypot(root[1][0] - root[0][0], root[1][2] - root[0][2]);
  cr_assert(moved > 0.05, "the readings give the same root path (%g m apart)", moved);
  rk_plugin_import_options bad = {.bvh_root_offset = 3};
  cr_assert_eq(open_with(walk, &bad, &a, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert(strstr(err, "bvh_root_offset = 3"), "%s", err);
  rk->asset_close(fig);
}

Test(plugin_isolation, a_helper_that_dies_is_refused_and_this_process_carries_on) {
  g_autofree char *fig = rk_test_data("RiggedFigure.glb");
  const struct {
    const char *fault, *says;
  } cases[] = {{"abort", "signal 6, SIGABRT"},
               {"segv", "signal 11, SIGSEGV"},
               {"exit", "exited with status 3"},
               {"truncate", "cut short"},
               {"garbage", "bad magic"}};
  char err[1024] = "";
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_setenv("RIGKIT_IMPORT_HELPER_FAULT", cases[i].fault, TRUE);
    rk_plugin_asset *a = (rk_plugin_asset *)0x1;
    const int st = rk->asset_open_file(fig, NULL, &a, err, sizeof err);
    cr_assert_eq(st, RK_PLUGIN_ERR_CRASHED, "%s: %s: %s", cases[i].fault, rk->status_name(st), err);
    cr_assert_null(a);
    cr_assert(g_str_has_prefix(err, fig), "names the file: %s", err);
    cr_assert(strstr(err, cases[i].says) && strstr(err, "the file is refused"), "%s: %s",
              cases[i].fault, err);
    printf("%s: %s\n", cases[i].fault, err);
  }
  /* Only the files whose name holds the text: the others import. */
  g_setenv("RIGKIT_IMPORT_HELPER_FAULT", "abort:Fox", TRUE);
  rk_plugin_asset *ok = plugin_open("RiggedFigure.glb");
  rk->asset_close(ok);
  rk_plugin_asset *fox = NULL;
  g_autofree char *fox_path = rk_test_data("Fox.glb");
  cr_assert_eq(rk->asset_open_file(fox_path, NULL, &fox, err, sizeof err), RK_PLUGIN_ERR_CRASHED);
  /* In this process nothing is injected: a file read here is unaffected by the hook. */
  cr_assert_eq(open_with(fox_path, &in_process, &fox, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  rk->asset_close(fox);
  g_unsetenv("RIGKIT_IMPORT_HELPER_FAULT");
  ok = plugin_open("Fox.glb");
  rk->asset_close(ok);
  cr_assert_str_eq(rk->status_name(RK_PLUGIN_ERR_CRASHED), "crashed");
}

Test(plugin_isolation, a_missing_helper_is_an_io_error_saying_where_it_was_looked_for) {
  g_autofree char *fig = rk_test_data("RiggedFigure.glb");
  char err[1024] = "";
  rk_plugin_asset *a = NULL;
  g_setenv("RIGKIT_IMPORT_HELPER", "/nonexistent/rigkit-import-helper", TRUE);
  cr_assert_eq(rk->asset_open_file(fig, NULL, &a, err, sizeof err), RK_PLUGIN_ERR_IO);
  cr_assert(strstr(err, "cannot start the import helper /nonexistent/rigkit-import-helper"), "%s",
            err);
  /* BVH is read here whatever the helper: AUTO does not need it. */
  rk_plugin_asset *walk = plugin_open("makehuman_walk1.bvh");
  rk->asset_close(walk);
  cr_assert_eq(open_with(fig, &in_process, &a, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  rk->asset_close(a);
  g_unsetenv("RIGKIT_IMPORT_HELPER");
  /* A copy of the plugin in a folder without the helper looks beside itself, then in the
   * installed place, and says so. */
  g_autofree char *dir = g_dir_make_tmp("rk_nohelper_XXXXXX", NULL);
  g_autofree char *copy = g_build_filename(dir, "librigkit_plugin.so", NULL);
  g_autofree char *so = NULL;
  gsize size = 0;
  cr_assert(g_file_get_contents(RK_PLUGIN_SO, &so, &size, NULL));
  cr_assert(g_file_set_contents(copy, so, (gssize)size, NULL));
  void *h = dlopen(copy, RTLD_NOW | RTLD_LOCAL);
  cr_assert(h, "%s", dlerror());
  const rk_plugin_api *other = ((rk_plugin_get_api_fn)dlsym(h, RK_PLUGIN_ENTRY_POINT))(2);
  cr_assert(other && other != rk, "a second copy of the plugin");
  cr_assert_eq(other->asset_open_file(fig, NULL, &a, err, sizeof err), RK_PLUGIN_ERR_IO);
  g_autofree char *beside = g_build_filename(dir, "rigkit-import-helper", NULL);
  cr_assert(strstr(err, beside) && strstr(err, "RIGKIT_IMPORT_HELPER is not set") &&
                strstr(err, "RK_PLUGIN_ISOLATION_NONE"),
            "%s", err);
  g_unlink(copy);
  g_rmdir(dir);
}

Test(plugin_isolation, an_abi_1_host_gets_abi_1_and_imports_in_its_own_process) {
  const rk_plugin_api *v1 = plugin_get_api(1);
  cr_assert(v1 && v1 != rk);
  cr_assert_eq(v1->info.abi_version, 1);
  /* ABI 1's sizes as released (LP64): the table ended with session_export, the import options
   * had three fields, the session description ended with its settings. */
  cr_assert_eq(v1->info.api_size, offsetof(rk_plugin_api, asset_from_host));
  cr_assert_eq(v1->struct_size("rk_plugin_api"), 168);
  cr_assert_eq(v1->struct_size("rk_plugin_import_options"), 24);
  cr_assert_eq(v1->struct_size("rk_plugin_session_desc"), 88);
  cr_assert_eq(v1->struct_size("rk_plugin_result"), sizeof(rk_plugin_result));
  cr_assert_eq(v1->struct_size("rk_plugin_asset_info"), sizeof(rk_plugin_asset_info));
  cr_assert_eq(v1->struct_size("rk_plugin_host_clip"), 0, "new in ABI 2");
  cr_assert_eq(rk->struct_size("rk_plugin_import_options"), sizeof(rk_plugin_import_options));
  cr_assert_eq(rk->struct_size("rk_plugin_session_desc"), sizeof(rk_plugin_session_desc));
  cr_assert_eq(rk->struct_size("rk_plugin_host_clip"), sizeof(rk_plugin_host_clip));
  /* ABI 1's structs, exactly as large as an ABI 1 host allocates them (past them is not ours):
   * filled as ABI 2 ones, their ABI 1 part copied into blocks of ABI 1's size. */
  const rk_plugin_import_options o2 = {.format = "glb"};
  const rk_plugin_import_options *o = g_memdup2(&o2, 24);
  g_autofree char *fig = rk_test_data("RiggedFigure.glb");
  g_setenv("RIGKIT_IMPORT_HELPER", "/nonexistent/rigkit-import-helper", TRUE);
  char err[512] = "";
  rk_plugin_asset *a = NULL, *walk = NULL;
  cr_assert_eq(v1->asset_open_file(fig, o, &a, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  cr_assert_eq(v1->asset_open_file(fig, NULL, &walk, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  v1->asset_close(walk);
  g_unsetenv("RIGKIT_IMPORT_HELPER");
  rk_plugin_asset_info ai;
  v1->asset_info(a, &ai, err, sizeof err);
  cr_assert_eq(ai.isolated, 0, "ABI 1 imports in the host's process");
  g_autofree char *walk_path = rk_test_data("makehuman_walk1.bvh");
  cr_assert_eq(v1->asset_open_memory("x", 1, "x.bvh", o, &walk, err, sizeof err),
               RK_PLUGIN_ERR_PARSE, "format glb from the options: %s", err);
  cr_assert_eq(v1->asset_open_file(walk_path, NULL, &walk, err, sizeof err), RK_PLUGIN_OK);
  rk_plugin_session_desc d2 = {.source = walk, .target_asset = a,
                               .settings = RK_PLUGIN_SETTINGS_INIT};
  d2.settings.root_motion = 1;
  const rk_plugin_session_desc *d = g_memdup2(&d2, 88);
  rk_plugin_session *s = NULL;
  cr_assert_eq(v1->session_new(d, &s, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  cr_assert_eq(v1->session_run(s, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  rk_plugin_result r;
  cr_assert_eq(v1->session_result(s, &r, err, sizeof err), RK_PLUGIN_OK);
  cr_assert_eq(r.frames, 14);
  v1->session_close(s);
  cr_assert_eq(v1->session_new(NULL, &s, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  v1->asset_close(walk), v1->asset_close(a);
  g_free((void *)d), g_free((void *)o);
}

/* Median of n doubles (sorts them). */
static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static double median(double *v, size_t n) {
  qsort(v, n, sizeof *v, cmp_double);
  return v[n / 2];
}

Test(plugin_isolation, cost_of_an_isolated_import) {
  static const char *const files[] = {"RiggedFigure.glb", "Fox.glb", "generated/mh_char.fbx"};
  enum { RUNS = 15 };
  for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
    g_autofree char *path = rk_test_data(files[i]);
    double t[2][RUNS];
    for (int run = -1; run < RUNS; run++) /* run -1 warms the page cache up, untimed */
      for (int mode = 0; mode < 2; mode++) {
        char err[512] = "";
        rk_plugin_asset *a = NULL;
        const gint64 t0 = g_get_monotonic_time();
        cr_assert_eq(open_with(path, mode ? &in_helper : &in_process, &a, err, sizeof err),
                     RK_PLUGIN_OK, "%s", err);
        if (run >= 0)
          t[mode][run] = (double)(g_get_monotonic_time() - t0) * 1e-3;
        rk->asset_close(a);
      }
    const double here = median(t[0], RUNS), there = median(t[1], RUNS);
    printf("isolated import of %s: %.1f ms in the helper, %.1f ms in this process: +%.1f ms "
           "(median of %d)\n",
           files[i], there, here, there - here, RUNS);
  }
}
