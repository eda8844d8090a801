/* Binary FBX records as rigkit writes them (exporters/src/fbx_encode.c), checked byte by byte and
 * through rigkit's reader; the structure of the writer's files; and an ASCII FBX with
 * pre-rotations and pivots re-encoded in binary, which must import exactly as the ASCII file. */
#include "export_fixtures.h"
#include "fbx_structure.h"
#include "fbx_transcode.h"

#include <rigkit/importers.h>

static uint32_t le32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return GUINT32_FROM_LE(v);
}

Test(fbx_encode, encoder_layout_header_and_footer) {
  rk__fbx_enc *e = rk__fbx_enc_new(7400);
  rk__fbx_enc_begin(e, "A");
  rk__fbx_enc_i32(e, 7);
  rk__fbx_enc_end(e);
  GByteArray *b = rk__fbx_enc_finish(e, "mem", NULL);
  cr_assert_not_null(b);
  const uint8_t *d = b->data;
  cr_assert(memcmp(d, "Kaydara FBX Binary  \0\x1a\0", 23) == 0);
  cr_assert_eq(le32(d + 23), 7400u);
  /* record A: end offset, 1 property of 5 bytes, name length 1, "A", 'I' 7 */
  cr_assert_eq(le32(d + 27), 27u + 13 + 1 + 5);
  cr_assert_eq(le32(d + 31), 1u);
  cr_assert_eq(le32(d + 35), 5u);
  cr_assert_eq(d[39], 1);
  cr_assert_eq(d[40], 'A');
  cr_assert_eq(d[41], 'I');
  cr_assert_eq(le32(d + 42), 7u);
  /* the top-level null record, then the footer */
  const size_t end = 46;
  for (size_t i = 0; i < 13; i++)
    cr_assert_eq(d[end + i], 0);
  static const uint8_t foot_id[16] = {0xfa, 0xbc, 0xab, 0x09, 0xd0, 0xc8, 0xd4, 0x66,
                                      0xb1, 0x76, 0xfb, 0x83, 0x1c, 0xf7, 0x26, 0x7e};
  static const uint8_t magic[16] = {0xf8, 0x5a, 0x8c, 0x6a, 0xde, 0xf5, 0xd9, 0x7e,
                                    0xec, 0xe9, 0x0c, 0xe3, 0x75, 0x8f, 0x29, 0x0b};
  cr_assert(memcmp(d + end + 13, foot_id, 16) == 0);
  cr_assert_eq(b->len % 16, 0u, "file length %u is not a multiple of 16", b->len);
  cr_assert(memcmp(d + b->len - 16, magic, 16) == 0);
  cr_assert_eq(le32(d + b->len - 16 - 120 - 4), 7400u);
  for (size_t i = b->len - 136; i < b->len - 16; i++)
    cr_assert_eq(d[i], 0);
  g_byte_array_unref(b);
}

/* Every property type, nested records, empty records and the 64-bit layout, read back. */
static void write_all_types(rk__fbx_enc *e) {
  static const double dv[3] = {1.5, -2.25, 1e300};
  static const float fv[2] = {0.5f, -3.0f};
  static const int32_t iv[3] = {-1, 0, 2147483647};
  static const int64_t lv[2] = {46186158000LL, -5};
  rk__fbx_enc_begin(e, "Top");
  rk__fbx_enc_i16(e, -12);
  rk__fbx_enc_bool(e, true);
  rk__fbx_enc_i32(e, -70000);
  rk__fbx_enc_f32(e, 0.25f);
  rk__fbx_enc_f64(e, -1.0 / 3.0);
  rk__fbx_enc_i64(e, 1LL << 40);
  rk__fbx_enc_str(e, "text");
  rk__fbx_enc_object_name(e, "Hips", "Model");
  rk__fbx_enc_raw(e, "\0\1\2", 3);
  rk__fbx_enc_f64v(e, dv, 3);
  rk__fbx_enc_f32v(e, fv, 2);
  rk__fbx_enc_i32v(e, iv, 3);
  rk__fbx_enc_i64v(e, lv, 2);
  rk__fbx_enc_begin(e, "Child");
  rk__fbx_enc_begin(e, "Empty");
  rk__fbx_enc_end(e);
  rk__fbx_enc_begin(e, "Block");
  rk__fbx_enc_i32(e, 1);
  rk__fbx_enc_end_block(e);
  rk__fbx_enc_end(e);
  rk__fbx_enc_end(e);
}

static void check_all_types(const GByteArray *b, uint32_t version) {
  rk__fbx_tree t;
  g_autoptr(GError) err = NULL;
  cr_assert(rk__fbx_tree_parse(b->data, b->len, "mem", &t, &err), "%s", err ? err->message : "");
  cr_assert_eq(t.version, version);
  cr_assert_eq(t.root.n_children, 1u);
  const rk__fbx_node *top = &t.root.children[0];
  cr_assert_str_eq(top->name, "Top");
  cr_assert_eq(top->n_props, 13u);
  const char types[] = "YCIFDLSSRdfil";
  for (size_t i = 0; i < 13; i++)
    cr_assert_eq(top->props[i].type, types[i], "property %zu", i);
  int64_t iv;
  double dv;
  cr_assert(rk__fbx_prop_int(&top->props[0], &iv) && iv == -12);
  cr_assert(rk__fbx_prop_int(&top->props[1], &iv) && iv == 1);
  cr_assert(rk__fbx_prop_int(&top->props[2], &iv) && iv == -70000);
  cr_assert(rk__fbx_prop_number(&top->props[3], &dv) && dv == 0.25);
  cr_assert(rk__fbx_prop_number(&top->props[4], &dv) && dv == -1.0 / 3.0);
  cr_assert(rk__fbx_prop_int(&top->props[5], &iv) && iv == 1LL << 40);
  cr_assert(rk__fbx_prop_is(&top->props[6], "text"));
  g_autofree char *cls = NULL, *name = NULL;
  cr_assert(rk__fbx_prop_object_name(&top->props[7], &cls, &name));
  cr_assert_str_eq(cls, "Model");
  cr_assert_str_eq(name, "Hips");
  cr_assert_eq(top->props[8].len, 3u);
  g_autofree double *d = NULL;
  size_t n = 0;
  cr_assert(rk__fbx_prop_doubles(&top->props[9], &d, &n, NULL) && n == 3 && d[2] == 1e300);
  g_autofree double *f = NULL;
  cr_assert(rk__fbx_prop_doubles(&top->props[10], &f, &n, NULL) && n == 2 && f[1] == -3.0);
  g_autofree int64_t *i32 = NULL, *i64 = NULL;
  cr_assert(rk__fbx_prop_int64s(&top->props[11], &i32, &n, NULL) && n == 3 && i32[2] == 2147483647);
  cr_assert(rk__fbx_prop_int64s(&top->props[12], &i64, &n, NULL) && n == 2 &&
            i64[0] == 46186158000LL);
  const rk__fbx_node *child = rk__fbx_node_child(top, "Child");
  cr_assert_not_null(child);
  cr_assert_eq(child->n_children, 2u);
  cr_assert_str_eq(child->children[0].name, "Empty");
  cr_assert_str_eq(child->children[1].name, "Block");
  rk__fbx_tree_free(&t);
}

Test(fbx_encode, every_property_type_reads_back) {
  const uint32_t versions[] = {7400, 7500};
  for (size_t v = 0; v < G_N_ELEMENTS(versions); v++) {
    rk__fbx_enc *e = rk__fbx_enc_new(versions[v]);
    write_all_types(e);
    GByteArray *b = rk__fbx_enc_finish(e, "mem", NULL);
    cr_assert_not_null(b);
    check_all_types(b, versions[v]);
    g_byte_array_unref(b);
  }
}

/* The writer's file: sections, object counts against Definitions, connections between existing
 * objects, curves with one key time per value. */
Test(fbx_encode, writer_output_structure) {
  g_autoptr(rk_asset) a = fixture_character(20);
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *path = g_build_filename(dir, "c.fbx", NULL);
  g_autoptr(GError) err = NULL;
  cr_assert(rk_export_file(a, path, NULL, &err), "%s", err ? err->message : "");
  gchar *bytes = NULL;
  gsize size = 0;
  cr_assert(g_file_get_contents(path, &bytes, &size, NULL));
  cr_assert_eq(size % 16, 0u);
  rk__fbx_tree t;
  cr_assert(rk__fbx_tree_parse((const uint8_t *)bytes, size, path, &t, &err), "%s",
            err ? err->message : "");
  fbx_assert_structure(&t);
  const rk__fbx_node *objects = rk__fbx_node_child(&t.root, "Objects");
  /* 24 joints + 3 meshes; one skin with a cluster per weighted joint (4); 2 clips. */
  cr_assert_eq(fbx_count_named(objects, "Model"), 27u);
  cr_assert_eq(fbx_count_named(objects, "NodeAttribute"), 24u);
  cr_assert_eq(fbx_count_named(objects, "Deformer"), 5u);
  cr_assert_eq(fbx_count_named(objects, "AnimationStack"), 2u);
  rk__fbx_tree_free(&t);
  g_free(bytes);
  fixture_rmdir(dir);
}

/* The Maya/MotionBuilder case in binary: the ASCII pivot file re-encoded imports exactly like the
 * ASCII file (Assimp's binary path, rigkit's binary reader of the same properties). */
Test(fbx_encode, binary_pivot_file_imports_like_the_ascii_one) {
  g_autofree char *src = rk_test_data("huesitos_prerotation_pivots.fbx");
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *bin = g_build_filename(dir, "pivots_binary.fbx", NULL);
  transcode_ascii_to_binary(src, bin);
  g_autoptr(GError) err = NULL;
  g_autoptr(rk_asset) a = rk_import_file(src, NULL, &err);
  cr_assert_not_null(a);
  g_autoptr(rk_asset) b = rk_import_file(bin, NULL, &err);
  cr_assert_not_null(b, "%s", err ? err->message : "");
  const rk_skeleton *sa = rk_asset_skeleton(a), *sb = rk_asset_skeleton(b);
  cr_assert_eq(rk_skeleton_joint_count(sb), rk_skeleton_joint_count(sa));
  bool evaluated = false;
  for (size_t i = 0; i < rk_asset_note_count(b); i++)
    evaluated |= strstr(rk_asset_note(b, i), "joint 'Bone.004': FBX pre/post-rotation") != NULL;
  cr_assert(evaluated, "the binary file's pivots were not read by rigkit");
  const rk_clip *ca = rk_asset_clip(a, 0), *cb = rk_asset_clip(b, 0);
  cr_assert_not_null(cb);
  rk_assert_near(rk_clip_duration(cb), rk_clip_duration(ca), 1e-9);
  const size_t n = rk_skeleton_joint_count(sa);
  g_autofree rk_vec3 *pa = g_new(rk_vec3, n), *pb = g_new(rk_vec3, n);
  const double height = rk_skeleton_rest_height(sa);
  for (int k = 0; k <= 40; k++) {
    const double t = 0.04 * k;
    fixture_world_positions(sa, ca, t, pa);
    fixture_world_positions(sb, cb, t, pb);
    for (size_t j = 0; j < n; j++) {
      const int jb = rk_skeleton_find_joint(sb, rk_skeleton_joint_name(sa, j));
      cr_assert_geq(jb, 0);
      rk_assert_vec3_near(pb[jb], pa[j], 1e-6 * height);
    }
  }
  fixture_rmdir(dir);
}
