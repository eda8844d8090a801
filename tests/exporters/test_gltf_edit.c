/* rigkit/gltf_edit.h: a clip written into a character's own glTF document. Every member other
 * than the animations and every buffer byte of the input stays; the output's joints move as the
 * clip says (read back by rigkit); the Khronos validator finds no error; bad input is refused
 * with no file left. */
#include "../../importers/src/gltf_doc.h"
#include "gltf_read.h"
#include "shared_files.h"

#include <rigkit/gltf_edit.h>
#include <rigkit/importers.h>

/* ---- JSON comparison ------------------------------------------------------------------------ */

static bool json_same(JsonNode *a, JsonNode *b, GString *where);

/* Objects with the same members in the same order, each the same. */
static bool object_same(JsonObject *a, JsonObject *b, GString *where) {
  g_autoptr(GList) ma = json_object_get_members(a), mb = json_object_get_members(b);
  if (g_list_length(ma) != g_list_length(mb)) {
    g_string_append(where, " (member count)");
    return false;
  }
  for (GList *x = ma, *y = mb; x; x = x->next, y = y->next) {
    if (strcmp(x->data, y->data) != 0) {
      g_string_append_printf(where, " (member '%s' vs '%s')", (char *)x->data, (char *)y->data);
      return false;
    }
    const gsize len = where->len;
    g_string_append_printf(where, "/%s", (char *)x->data);
    if (!json_same(json_object_get_member(a, x->data), json_object_get_member(b, x->data), where))
      return false;
    g_string_truncate(where, len);
  }
  return true;
}

/* Same JSON value; numbers compare by value (1.0 is written back as 1). */
static bool json_same(JsonNode *a, JsonNode *b, GString *where) {
  double x, y;
  if (rk__gltf_node_number(a, &x) && rk__gltf_node_number(b, &y))
    return x == y || (g_string_append_printf(where, " (%.17g vs %.17g)", x, y), false);
  if (JSON_NODE_TYPE(a) != JSON_NODE_TYPE(b))
    return g_string_append(where, " (type)"), false;
  if (JSON_NODE_HOLDS_OBJECT(a))
    return object_same(json_node_get_object(a), json_node_get_object(b), where);
  if (JSON_NODE_HOLDS_ARRAY(a)) {
    JsonArray *p = json_node_get_array(a), *q = json_node_get_array(b);
    if (json_array_get_length(p) != json_array_get_length(q))
      return g_string_append(where, " (length)"), false;
    for (guint i = 0; i < json_array_get_length(p); i++) {
      const gsize len = where->len;
      g_string_append_printf(where, "/%u", i);
      if (!json_same(json_array_get_element(p, i), json_array_get_element(q, i), where))
        return false;
      g_string_truncate(where, len);
    }
    return true;
  }
  return json_node_equal(a, b) || (g_string_append(where, " (value)"), false);
}

static void assert_same(JsonNode *a, JsonNode *b, const char *what) {
  g_autoptr(GString) where = g_string_new(what);
  cr_assert(json_same(a, b, where), "changed: %s", where->str);
}

/* Node n of the output keeps every member of the input's, except that an animated node's matrix
 * may have become the same translation, rotation and scale. */
static void assert_node_kept(JsonObject *in, JsonObject *out, guint n) {
  g_autofree char *what = g_strdup_printf("nodes/%u", n);
  if (!json_object_has_member(in, "matrix") || json_object_has_member(out, "matrix")) {
    JsonNode *a = json_node_init_object(json_node_alloc(), in);
    JsonNode *b = json_node_init_object(json_node_alloc(), out);
    assert_same(a, b, what);
    json_node_unref(a);
    json_node_unref(b);
    return;
  }
  JsonArray *m = json_object_get_array_member(in, "matrix");
  rk_transform x = rk_transform_identity();
  JsonArray *t = json_object_get_array_member(out, "translation");
  JsonArray *r = json_object_get_array_member(out, "rotation");
  JsonArray *s = json_object_get_array_member(out, "scale");
  x.t = rk_vec3_make(json_array_get_double_element(t, 0), json_array_get_double_element(t, 1),
                     json_array_get_double_element(t, 2));
  x.r = (rk_quat){json_array_get_double_element(r, 0), json_array_get_double_element(r, 1),
                  json_array_get_double_element(r, 2), json_array_get_double_element(r, 3)};
  x.s = rk_vec3_make(json_array_get_double_element(s, 0), json_array_get_double_element(s, 1),
                     json_array_get_double_element(s, 2));
  const rk_mat4 back = rk_transform_to_mat4(&x);
  for (int k = 0; k < 16; k++)
    rk_assert_near(back.m[k], json_array_get_double_element(m, (guint)k), 1e-9);
  g_autoptr(GList) names = json_object_get_members(in);
  for (GList *l = names; l; l = l->next)
    if (strcmp(l->data, "matrix") != 0) {
      g_autofree char *w = g_strdup_printf("%s/%s", what, (char *)l->data);
      assert_same(json_object_get_member(in, l->data), json_object_get_member(out, l->data), w);
    }
}

/* Every member of the input document other than its animations is in the output as it was:
 * arrays the edit appends to (accessors, bufferViews, buffers) start with the input's elements,
 * and only the host buffer's byteLength and uri change; every byte of every input buffer is the
 * start of the output's buffer. */
static void assert_document_kept(test_gltf *in, test_gltf *out, guint host) {
  g_autoptr(GList) members = json_object_get_members(in->root);
  for (GList *l = members; l; l = l->next) {
    const char *m = l->data;
    cr_assert(json_object_has_member(out->root, m), "the output lost '%s'", m);
    JsonNode *a = json_object_get_member(in->root, m), *b = json_object_get_member(out->root, m);
    if (strcmp(m, "animations") == 0)
      continue;
    if (strcmp(m, "accessors") == 0 || strcmp(m, "bufferViews") == 0 ||
        strcmp(m, "buffers") == 0 || strcmp(m, "nodes") == 0) {
      JsonArray *p = json_node_get_array(a), *q = json_node_get_array(b);
      cr_assert(json_array_get_length(q) >= json_array_get_length(p), "%s shrank", m);
      if (strcmp(m, "nodes") == 0)
        cr_assert_eq(json_array_get_length(q), json_array_get_length(p), "nodes added");
      for (guint i = 0; i < json_array_get_length(p); i++) {
        JsonObject *x = json_array_get_object_element(p, i), *y = json_array_get_object_element(q, i);
        if (strcmp(m, "nodes") == 0) {
          assert_node_kept(x, y, i);
          continue;
        }
        g_autoptr(JsonObject) xc = json_object_new(), yc = json_object_new();
        g_autoptr(GList) keys = json_object_get_members(x);
        for (GList *k = keys; k; k = k->next)
          if (strcmp(m, "buffers") != 0 || i != host ||
              (strcmp(k->data, "byteLength") != 0 && strcmp(k->data, "uri") != 0))
            json_object_set_member(xc, k->data, json_node_copy(json_object_get_member(x, k->data)));
        g_autoptr(GList) ykeys = json_object_get_members(y);
        for (GList *k = ykeys; k; k = k->next)
          if (strcmp(m, "buffers") != 0 || i != host ||
              (strcmp(k->data, "byteLength") != 0 && strcmp(k->data, "uri") != 0))
            json_object_set_member(yc, k->data, json_node_copy(json_object_get_member(y, k->data)));
        JsonNode *xn = json_node_init_object(json_node_alloc(), xc);
        JsonNode *yn = json_node_init_object(json_node_alloc(), yc);
        g_autofree char *what = g_strdup_printf("%s/%u", m, i);
        assert_same(xn, yn, what);
        json_node_unref(xn);
        json_node_unref(yn);
      }
      continue;
    }
    assert_same(a, b, m);
  }
  JsonArray *buffers = test_gltf_array(in, "buffers");
  for (guint i = 0; buffers && i < json_array_get_length(buffers); i++) {
    const gsize n = (gsize)json_object_get_int_member(json_array_get_object_element(buffers, i),
                                                       "byteLength");
    gsize na = 0, nb = 0;
    const guint8 *a = g_bytes_get_data(test_gltf_buffer(in, i), &na);
    const guint8 *b = g_bytes_get_data(test_gltf_buffer(out, i), &nb);
    cr_assert(nb >= n && memcmp(a, b, n) == 0, "buffer %u: the input's bytes changed", i);
  }
  JsonArray *anims = test_gltf_array(out, "animations");
  cr_assert(anims && json_array_get_length(anims) == 1, "the output has one animation");
}

/* ---- clips ---------------------------------------------------------------------------------- */

/* A clip of `frames` frames at 30 fps moving every joint: the roots translate, every joint turns
 * about its rest rotation. */
static rk_clip *wiggle(const rk_skeleton *s, size_t frames) {
  const size_t n = rk_skeleton_joint_count(s);
  rk_clip *c = rk_clip_new("wiggle", n);
  rk_clip_set_fps(c, 30);
  g_autofree double *times = g_new(double, frames), *v = g_new(double, 4 * frames);
  for (size_t f = 0; f < frames; f++)
    times[f] = (double)f / 30;
  const double h = fixture_reference_length(s);
  for (size_t j = 0; j < n; j++) {
    const rk_transform *rest = rk_skeleton_rest(s, j);
    if (rk_skeleton_parent(s, j) < 0) {
      for (size_t f = 0; f < frames; f++) {
        v[3 * f] = rest->t.x + 0.2 * h * sin(times[f]);
        v[3 * f + 1] = rest->t.y + 0.05 * h * sin(5 * times[f]);
        v[3 * f + 2] = rest->t.z + 0.3 * h * times[f];
      }
      const rk_track t = {(int)j, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, frames, times, v};
      cr_assert(rk_clip_add_track(c, &t, NULL));
    }
    for (size_t f = 0; f < frames; f++) {
      const double ph = 0.7 * (double)j, t = times[f];
      rk_vec3 axis = rk_vec3_make(sin(ph + t), cos(ph + 2 * t), 0.4 + 0.3 * sin(3 * t));
      rk_quat q = rk_quat_mul(rest->r, rk_quat_from_axis_angle(axis, 0.6 * sin(4 * t + ph)));
      v[4 * f] = q.x, v[4 * f + 1] = q.y, v[4 * f + 2] = q.z, v[4 * f + 3] = q.w;
    }
    const rk_track r = {(int)j, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, frames, times, v};
    cr_assert(rk_clip_add_track(c, &r, NULL));
  }
  return c;
}

static rk_clip *baked(const rk_asset *a, const rk_clip *clip) {
  g_autoptr(GError) e = NULL;
  rk_clip *b = rk_clip_bake(clip, rk_skeleton_rest_locals(rk_asset_skeleton(a)), 30, &e);
  cr_assert_not_null(b, "%s", e ? e->message : "");
  return b;
}

/* ---- the edit and its checks ---------------------------------------------------------------- */

/* Largest distance (metres) over every frame of clip and every joint of `a` between where
 * rigkit's FK of the clip puts it and where the written file, read back by rigkit, puts the joint
 * of the same name. */
static double fk_error(const rk_asset *a, const rk_clip *clip, const char *written) {
  g_autoptr(rk_asset) b = import_or_fail(written, NULL);
  const rk_skeleton *sa = rk_asset_skeleton(a), *sb = rk_asset_skeleton(b);
  const size_t na = rk_skeleton_joint_count(sa);
  cr_assert_eq(rk_skeleton_joint_count(sb), na, "%s: joint count", written);
  cr_assert_eq(rk_asset_clip_count(b), 1, "%s: clip count", written);
  const rk_clip *cb = rk_asset_clip(b, 0);
  cr_assert_str_eq(rk_clip_name(cb), rk_clip_name(clip));
  g_autofree rk_vec3 *pa = g_new(rk_vec3, na), *pb = g_new(rk_vec3, na);
  double worst = 0;
  const size_t frames = rk_clip_frame_count(clip);
  for (size_t f = 0; f < frames; f++) {
    const double t = fmin((double)f / rk_clip_fps(clip), rk_clip_duration(clip));
    fixture_world_positions(sa, clip, t, pa);
    fixture_world_positions(sb, cb, t, pb);
    for (size_t j = 0; j < na; j++) {
      const int k = rk_skeleton_find_joint(sb, rk_skeleton_joint_name(sa, j));
      cr_assert(k >= 0, "%s: no joint %s", written, rk_skeleton_joint_name(sa, j));
      worst = fmax(worst, rk_vec3_norm(rk_vec3_sub(pa[j], pb[k])));
    }
  }
  return worst;
}

/* The index the host buffer has in the output: 0 in a GLB, and in a .gltf written from a GLB
 * whose buffer 0 is its BIN chunk; otherwise a new last buffer. */
static guint host_of(test_gltf *in, bool glb_out) {
  JsonArray *b = test_gltf_array(in, "buffers");
  const guint nb = b ? json_array_get_length(b) : 0;
  if (glb_out)
    return 0;
  return in->bin && nb > 0 && !json_object_has_member(json_array_get_object_element(b, 0), "uri")
             ? 0
             : nb;
}

/* Writes clip into tests/data/<name> as .glb and .gltf, checks what stays, what moves and what
 * the validator says; returns the worst FK error of both. */
static double edit_and_check(const char *name, const rk_asset *a, const rk_clip *clip) {
  g_autofree char *in_path = rk_test_data(name);
  g_autofree char *dir = fixture_tmpdir();
  double worst = 0;
  static const char *const exts[] = {"glb", "gltf"};
  for (int k = 0; k < 2; k++) {
    g_autofree char *out = g_strdup_printf("%s/edited.%s", dir, exts[k]);
    g_autoptr(GError) e = NULL;
    g_auto(GStrv) listed = rk_gltf_edit_output_files(in_path, out, &e);
    cr_assert_not_null(listed, "%s: %s", name, e ? e->message : "");
    cr_assert(rk_gltf_edit_write(in_path, a, clip, out, &e), "%s -> %s: %s", name, exts[k],
              e ? e->message : "");
    cr_assert_eq(fixture_dir_count(dir), g_strv_length(listed), "%s: files written != listed",
                 out);
    for (size_t i = 0; listed[i]; i++)
      cr_assert(g_file_test(listed[i], G_FILE_TEST_IS_REGULAR), "%s not written", listed[i]);
    test_gltf din, dout;
    test_gltf_load(&din, in_path);
    test_gltf_load(&dout, out);
    assert_document_kept(&din, &dout, host_of(&din, k == 0));
    test_gltf_clear(&din);
    test_gltf_clear(&dout);
    g_autofree char *report = NULL;
    const char *files[] = {out, NULL};
    cr_assert_eq(fixture_validate(files, &report), 0, "%s -> %s: validator:\n%s", name, exts[k],
                 report);
    const double err = fk_error(a, clip, out);
    printf("%s -> %s: worst joint error %.3g mm\n", name, exts[k], 1000 * err);
    worst = fmax(worst, err);
    fixture_rmdir(dir);
    cr_assert(g_mkdir_with_parents(dir, 0700) == 0);
  }
  fixture_rmdir(dir);
  return worst;
}

static void edit_wiggle(const char *name, size_t frames) {
  g_autofree char *path = rk_test_data(name);
  g_autoptr(rk_asset) a = import_or_fail(path, NULL);
  g_autoptr(rk_clip) clip = wiggle(rk_asset_skeleton(a), frames);
  const double err = edit_and_check(name, a, clip);
  cr_assert(err < 1e-5 * fmax(1.0, fixture_reference_length(rk_asset_skeleton(a))),
            "%s: joints off by %g m", name, err);
}

Test(gltf_edit, fox_keeps_everything_and_moves_as_its_run) {
  g_autofree char *path = shared_path("Fox.glb");
  g_autoptr(rk_asset) a = import_or_fail(path, NULL);
  g_autoptr(rk_clip) run = baked(a, rk_asset_clip(a, (size_t)rk_asset_find_clip(a, "Run")));
  const double err = edit_and_check("Fox.glb", a, run);
  cr_assert(err < 1e-5 * fixture_reference_length(rk_asset_skeleton(a)), "%g m", err);
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *out = g_build_filename(dir, "fox.glb", NULL);
  cr_assert(rk_gltf_edit_write(path, a, run, out, NULL));
  test_gltf d;
  test_gltf_load(&d, out);
  cr_assert_eq(json_array_get_length(test_gltf_array(&d, "textures")), 1);
  cr_assert_eq(json_array_get_length(test_gltf_array(&d, "images")), 1);
  test_gltf_clear(&d);
  fixture_rmdir(dir);
}

Test(gltf_edit, rigged_figure_takes_a_retargeted_walk) {
  g_autofree char *path = shared_path("RiggedFigure.glb");
  g_autoptr(rk_asset) a = import_or_fail(path, NULL);
  g_autoptr(rk_asset) r = retarget_output("makehuman_walk1.bvh", "RiggedFigure.glb", true);
  g_autoptr(rk_clip) walk = baked(a, rk_asset_clip(r, 0));
  cr_assert(edit_and_check("RiggedFigure.glb", a, walk) < 1e-5);
}

Test(gltf_edit, every_joint_moving_in_the_shared_and_crafted_files) {
  edit_wiggle("Fox.glb", 40);
  edit_wiggle("RiggedFigure.glb", 40);
  edit_wiggle("SimpleSkin.gltf", 40);
  edit_wiggle("crafted/external_buffer.gltf", 20);
  edit_wiggle("crafted/dup_names.gltf", 20);
  edit_wiggle("crafted/zup_scale100.glb", 40);
  edit_wiggle("crafted/textured_morph.gltf", 40);
}

/* ---- files and refusals --------------------------------------------------------------------- */

static void copy_file(const char *from, const char *to) {
  gchar *data = NULL;
  gsize n = 0;
  cr_assert(g_file_get_contents(from, &data, &n, NULL), "cannot read %s", from);
  cr_assert(g_file_set_contents(to, data, (gssize)n, NULL), "cannot write %s", to);
  g_free(data);
}

static char *file_text(const char *path) {
  gchar *data = NULL;
  cr_assert(g_file_get_contents(path, &data, NULL, NULL), "cannot read %s", path);
  return data;
}

/* tests/data/crafted/textured_morph.gltf and its two files copied into dir. */
static char *copy_textured(const char *dir) {
  static const char *const parts[] = {"textured_morph.gltf", "textured_morph.bin",
                                      "textured_morph.png"};
  for (size_t i = 0; i < G_N_ELEMENTS(parts); i++) {
    g_autofree char *name = g_strdup_printf("crafted/%s", parts[i]);
    g_autofree char *from = rk_test_data(name);
    g_autofree char *to = g_build_filename(dir, parts[i], NULL);
    copy_file(from, to);
  }
  return g_build_filename(dir, "textured_morph.gltf", NULL);
}

static void assert_listed(char **listed, const char *dir, const char *const *names) {
  size_t n = 0;
  for (; names[n]; n++) {
    cr_assert_not_null(listed[n], "only %zu files listed, expected %s", n, names[n]);
    g_autofree char *expected = g_build_filename(dir, names[n], NULL);
    cr_assert_str_eq(listed[n], expected);
    cr_assert(g_file_test(listed[n], G_FILE_TEST_IS_REGULAR), "%s not written", listed[n]);
  }
  cr_assert_null(listed[n], "more files listed: %s", listed[n]);
}

Test(gltf_edit, gltf_outputs_bring_their_files_and_glb_outputs_embed_buffer_0) {
  g_autofree char *src = fixture_tmpdir(), *out = fixture_tmpdir();
  g_autofree char *doc = copy_textured(src);
  g_autoptr(rk_asset) a = import_or_fail(doc, NULL);
  g_autoptr(rk_clip) clip = wiggle(rk_asset_skeleton(a), 10);
  g_autoptr(GError) e = NULL;
  g_autofree char *gltf = g_build_filename(out, "a.gltf", NULL);
  cr_assert(rk_gltf_edit_write(doc, a, clip, gltf, &e), "%s", e ? e->message : "");
  g_auto(GStrv) l1 = rk_gltf_edit_output_files(doc, gltf, &e);
  static const char *const want1[] = {"a.gltf", "a.bin", "textured_morph.bin",
                                      "textured_morph.png", NULL};
  assert_listed(l1, out, want1);
  cr_assert_eq(fixture_dir_count(out), 4);
  g_autofree char *glb = g_build_filename(out, "b.glb", NULL);
  cr_assert(rk_gltf_edit_write(doc, a, clip, glb, &e), "%s", e ? e->message : "");
  g_auto(GStrv) l2 = rk_gltf_edit_output_files(doc, glb, &e);
  static const char *const want2[] = {"b.glb", "textured_morph.png", NULL};
  assert_listed(l2, out, want2);
  test_gltf d;
  test_gltf_load(&d, glb);
  cr_assert_not(json_object_has_member(test_gltf_element(&d, "buffers", 0), "uri"),
                "buffer 0 of a GLB is its BIN chunk");
  test_gltf_clear(&d);
  /* Over the source itself: its buffer file is in use, so the clip's data gets another name;
   * the document's own files stay as they are. */
  g_autofree char *bin_path = g_build_filename(src, "textured_morph.bin", NULL);
  g_autofree char *bin_before = file_text(bin_path);
  g_auto(GStrv) l3 = rk_gltf_edit_output_files(doc, doc, &e);
  cr_assert(rk_gltf_edit_write(doc, a, clip, doc, &e), "%s", e ? e->message : "");
  static const char *const want3[] = {"textured_morph.gltf", "textured_morph.1.bin", NULL};
  assert_listed(l3, src, want3);
  g_autofree char *bin_after = file_text(bin_path);
  cr_assert_str_eq(bin_after, bin_before);
  const char *files[] = {doc, gltf, glb, NULL};
  g_autofree char *report = NULL;
  cr_assert_eq(fixture_validate(files, &report), 0, "%s", report);
  fixture_rmdir(src);
  fixture_rmdir(out);
}

Test(gltf_edit, same_input_same_bytes) {
  g_autofree char *path = shared_path("RiggedFigure.glb");
  g_autoptr(rk_asset) a = import_or_fail(path, NULL);
  g_autoptr(rk_clip) clip = wiggle(rk_asset_skeleton(a), 30);
  g_autofree char *d1 = fixture_tmpdir(), *d2 = fixture_tmpdir();
  static const char *const names[] = {"x.glb", "x.gltf", "x.bin"};
  for (int k = 0; k < 2; k++) {
    g_autofree char *o1 = g_build_filename(d1, names[k], NULL);
    g_autofree char *o2 = g_build_filename(d2, names[k], NULL);
    cr_assert(rk_gltf_edit_write(path, a, clip, o1, NULL));
    cr_assert(rk_gltf_edit_write(path, a, clip, o2, NULL));
  }
  for (size_t k = 0; k < G_N_ELEMENTS(names); k++) {
    g_autofree char *o1 = g_build_filename(d1, names[k], NULL);
    g_autofree char *o2 = g_build_filename(d2, names[k], NULL);
    gchar *b1 = NULL, *b2 = NULL;
    gsize n1 = 0, n2 = 0;
    cr_assert(g_file_get_contents(o1, &b1, &n1, NULL) && g_file_get_contents(o2, &b2, &n2, NULL));
    cr_assert(n1 == n2 && memcmp(b1, b2, n1) == 0, "%s differs between two writes", names[k]);
    g_free(b1);
    g_free(b2);
  }
  fixture_rmdir(d1);
  fixture_rmdir(d2);
}

/* The first edit of a character takes the import's parse of its document instead of parsing the
 * file again (same_input_same_bytes compares that write with the next, which parses): the asset
 * holds it after the import and not after the edit. */
Test(gltf_edit, the_first_edit_takes_the_imports_parse) {
  g_autofree char *path = shared_path("RiggedFigure.glb");
  g_autoptr(rk_asset) a = import_or_fail(path, NULL), b = import_or_fail(path, NULL);
  GDestroyNotify free_tree = NULL;
  JsonNode *tree = rk_asset_take_source_tree(b, &free_tree);
  cr_assert(tree && free_tree);
  free_tree(tree);
  g_autoptr(rk_clip) clip = wiggle(rk_asset_skeleton(a), 30);
  g_autofree char *d = fixture_tmpdir();
  g_autofree char *o1 = g_build_filename(d, "taken.glb", NULL);
  g_autofree char *o2 = g_build_filename(d, "parsed.glb", NULL);
  cr_assert(rk_gltf_edit_write(path, a, clip, o1, NULL));
  cr_assert_null(rk_asset_take_source_tree(a, NULL), "the edit took it");
  cr_assert(rk_gltf_edit_write(path, b, clip, o2, NULL));
  gchar *b1 = NULL, *b2 = NULL;
  gsize n1 = 0, n2 = 0;
  cr_assert(g_file_get_contents(o1, &b1, &n1, NULL) && g_file_get_contents(o2, &b2, &n2, NULL));
  cr_assert(n1 == n2 && memcmp(b1, b2, n1) == 0);
  g_free(b1);
  g_free(b2);
  fixture_rmdir(d);
}

/* A staged edit: nothing under its name until the commit, the bytes read back from the
 * temporary are the file's, the files listed are rk_gltf_edit_output_files'; an abort leaves the
 * previous file alone and no temporary; rk_import_file_bytes reads those bytes as the file. */
Test(gltf_edit, staged_edit_reads_back_before_it_takes_its_name) {
  g_autofree char *path = shared_path("RiggedFigure.glb");
  g_autoptr(rk_asset) a = import_or_fail(path, NULL);
  g_autoptr(rk_clip) clip = wiggle(rk_asset_skeleton(a), 30);
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *out = g_build_filename(dir, "s.glb", NULL);
  g_autoptr(GError) e = NULL;
  rk_gltf_edit_staged *st = rk_gltf_edit_stage(path, a, clip, out, &e);
  cr_assert_not_null(st, "%s", e ? e->message : "");
  cr_assert_not(g_file_test(out, G_FILE_TEST_EXISTS), "the name is taken before the commit");
  g_auto(GStrv) listed = rk_gltf_edit_output_files(path, out, NULL);
  const char *const *files = rk_gltf_edit_staged_files(st);
  for (size_t i = 0; listed[i] || files[i]; i++)
    cr_assert(listed[i] && files[i] && !strcmp(listed[i], files[i]), "file %zu listed apart", i);
  g_autoptr(GBytes) mapped = rk_gltf_edit_staged_read(st, &e);
  cr_assert_not_null(mapped, "%s", e ? e->message : "");
  size_t size = 0;
  const void *bytes = g_bytes_get_data(mapped, &size);
  g_autoptr(rk_asset) early = rk_import_file_bytes(bytes, size, out, NULL, &e);
  cr_assert_not_null(early, "%s", e ? e->message : "");
  cr_assert(rk_gltf_edit_commit(st, &e), "%s", e ? e->message : "");
  cr_assert_eq(fixture_dir_count(dir), 1);
  gchar *written = NULL;
  gsize n = 0;
  cr_assert(g_file_get_contents(out, &written, &n, NULL));
  cr_assert(n == size && memcmp(written, bytes, n) == 0, "the bytes read back are not the file's");
  g_free(written);
  g_autoptr(rk_asset) late = import_or_fail(out, NULL);
  cr_assert_str_eq(rk_asset_source_path(early), rk_asset_source_path(late));
  cr_assert_str_eq(rk_asset_source_digest(early), rk_asset_source_digest(late));
  /* An abort: the committed file stays as it is, and only it. */
  g_autoptr(rk_clip) other = wiggle(rk_asset_skeleton(a), 12);
  st = rk_gltf_edit_stage(path, a, other, out, &e);
  cr_assert_not_null(st, "%s", e ? e->message : "");
  rk_gltf_edit_abort(st);
  cr_assert_eq(fixture_dir_count(dir), 1);
  cr_assert(g_file_get_contents(out, &written, &n, NULL));
  cr_assert(n == size && memcmp(written, bytes, n) == 0, "an abort changed the file");
  g_free(written);
  /* The document opened before the clip is known: the same bytes as one call. */
  rk_gltf_edit_doc *doc = rk_gltf_edit_open(path, a, out);
  st = rk_gltf_edit_stage_doc(doc, clip, &e);
  cr_assert_not_null(st, "%s", e ? e->message : "");
  g_autoptr(GBytes) mapped2 = rk_gltf_edit_staged_read(st, &e);
  size_t size2 = 0;
  const void *bytes2 = mapped2 ? g_bytes_get_data(mapped2, &size2) : NULL;
  cr_assert(bytes2 && size2 == size && memcmp(bytes2, bytes, size) == 0);
  cr_assert(rk_gltf_edit_commit(st, &e), "%s", e ? e->message : "");
  /* Its failures come in rk_gltf_edit_stage's order: a clip of another skeleton before a document
   * that is not the character's. */
  g_autofree char *fox = shared_path("Fox.glb");
  g_autoptr(rk_asset) fox_asset = import_or_fail(fox, NULL);
  g_autoptr(rk_clip) fox_clip = wiggle(rk_asset_skeleton(fox_asset), 5);
  cr_assert_null(rk_gltf_edit_stage_doc(rk_gltf_edit_open(fox, a, out), fox_clip, &e));
  cr_assert(e && strstr(e->message, "another skeleton"), "%s", e ? e->message : "");
  g_clear_error(&e);
  cr_assert_null(rk_gltf_edit_stage_doc(rk_gltf_edit_open(fox, a, out), clip, &e));
  cr_assert(e && strstr(e->message, "changed since the import"), "%s", e ? e->message : "");
  rk_gltf_edit_doc_free(rk_gltf_edit_open(path, a, out));
  cr_assert_eq(fixture_dir_count(dir), 1);
  fixture_rmdir(dir);
}

/* The write fails with `code`, its message holding `text`, and the output folder keeps only
 * the previous file, untouched. */
static void assert_refused(const char *target, const rk_asset *a, const rk_clip *clip,
                           const char *out_dir, const char *out_name, int code, const char *text) {
  g_autofree char *out = g_build_filename(out_dir, out_name, NULL);
  g_autofree char *old = g_build_filename(out_dir, "previous.glb", NULL);
  cr_assert(g_file_set_contents(old, "previous", -1, NULL));
  g_autoptr(GError) e = NULL;
  cr_assert_not(rk_gltf_edit_write(target, a, clip, out, &e), "%s was written", out);
  cr_assert(e && e->domain == RK_ERROR && e->code == code, "%s: code %d, expected %d: %s", out,
            e ? e->code : -1, code, e ? e->message : "");
  cr_assert(strstr(e->message, text), "'%s' does not say '%s'", e->message, text);
  cr_assert_eq(fixture_dir_count(out_dir), 1, "%s: files left beside the previous one", out);
  g_autofree char *kept = file_text(old);
  cr_assert_str_eq(kept, "previous");
}

Test(gltf_edit, refuses_bad_input_and_leaves_no_file) {
  g_autofree char *src = fixture_tmpdir(), *out = fixture_tmpdir();
  g_autofree char *fox_data = shared_path("Fox.glb");
  g_autofree char *fox = g_build_filename(src, "fox.glb", NULL);
  copy_file(fox_data, fox);
  g_autoptr(rk_asset) a = import_or_fail(fox, NULL);
  g_autoptr(rk_clip) clip = wiggle(rk_asset_skeleton(a), 10);
  g_autofree char *fig_path = shared_path("RiggedFigure.glb");
  g_autoptr(rk_asset) fig = import_or_fail(fig_path, NULL);
  g_autoptr(rk_clip) fig_clip = wiggle(rk_asset_skeleton(fig), 10);
  assert_refused(fox, a, fig_clip, out, "x.glb", RK_ERROR_INVALID, "another skeleton");
  assert_refused(fox, a, clip, out, "x.fbx", RK_ERROR_UNSUPPORTED, ".glb or .gltf");
  assert_refused(fox, a, clip, out, "x", RK_ERROR_UNSUPPORTED, ".glb or .gltf");
  g_autofree char *bvh_path = shared_path("makehuman_walk1.bvh");
  g_autoptr(rk_asset) bvh = import_or_fail(bvh_path, NULL);
  assert_refused(bvh_path, bvh, rk_asset_clip(bvh, 0), out, "x.glb", RK_ERROR_INVALID,
                 "not imported from a glTF file");
  /* Another glTF file than the character's. */
  assert_refused(fig_path, a, clip, out, "x.glb", RK_ERROR_INVALID, "changed since the import");
  /* The file changed on disk since the import: one byte, then cut in half. */
  gchar *bytes = NULL;
  gsize n = 0;
  cr_assert(g_file_get_contents(fox, &bytes, &n, NULL));
  bytes[n - 1] ^= 1;
  cr_assert(g_file_set_contents(fox, bytes, (gssize)n, NULL));
  assert_refused(fox, a, clip, out, "x.glb", RK_ERROR_INVALID, "changed since the import");
  cr_assert(g_file_set_contents(fox, bytes, (gssize)(n / 2), NULL));
  g_free(bytes);
  assert_refused(fox, a, clip, out, "x.gltf", RK_ERROR_INVALID, "changed since the import");
  g_autofree char *x = g_build_filename(out, "x.glb", NULL);
  g_autoptr(GError) e = NULL;
  cr_assert_null(rk_gltf_edit_output_files(fox, x, &e));
  cr_assert(e && e->code == RK_ERROR_PARSE, "%s", e ? e->message : "no error");
  g_clear_error(&e);
  g_unlink(fox);
  assert_refused(fox, a, clip, out, "x.glb", RK_ERROR_IO, "missing");
  fixture_rmdir(src);
  fixture_rmdir(out);
}

Test(gltf_edit, refuses_files_outside_the_documents_folder) {
  g_autofree char *top = fixture_tmpdir(), *out = fixture_tmpdir();
  g_autofree char *inner = g_build_filename(top, "inner", NULL);
  cr_assert(g_mkdir(inner, 0700) == 0);
  g_autofree char *doc = copy_textured(inner);
  /* The image one folder up, referred to as ../textured_morph.png. */
  g_autofree char *png = g_build_filename(inner, "textured_morph.png", NULL);
  g_autofree char *up = g_build_filename(top, "textured_morph.png", NULL);
  cr_assert(g_rename(png, up) == 0);
  g_autofree char *text = file_text(doc);
  g_autofree char *moved = NULL;
  {
    g_auto(GStrv) parts = g_strsplit(text, "\"uri\": \"textured_morph.png\"", -1);
    cr_assert_eq(g_strv_length(parts), 2);
    moved = g_strjoinv("\"uri\": \"../textured_morph.png\"", parts);
  }
  cr_assert(g_file_set_contents(doc, moved, -1, NULL));
  g_autoptr(rk_asset) a = import_or_fail(doc, NULL);
  g_autoptr(rk_clip) clip = wiggle(rk_asset_skeleton(a), 5);
  assert_refused(doc, a, clip, out, "x.gltf", RK_ERROR_UNSUPPORTED, "image 0");
  g_unlink(up);
  fixture_rmdir(inner);
  fixture_rmdir(top);
  fixture_rmdir(out);
}
