/* rigkit's own FBX record reader (importers/src/fbx_records.c; the document layer fbx_document.c,
 * fbx_transform.c, fbx_animation.c): binary and ASCII trees, zlib arrays, the document layer, and
 * damaged files (refused with an error, never a crash or a hang; run under ASan in CI). */
#include "import_test.h"

#include "../../importers/src/fbx_internal.h"

#include <gio/gio.h>

static GBytes *load(const char *name) {
  g_autofree char *path = rk_test_data(name);
  gchar *data = NULL;
  gsize size = 0;
  cr_assert(g_file_get_contents(path, &data, &size, NULL), "cannot read %s", name);
  return g_bytes_new_take(data, size);
}

static const rk__fbx_node *objects(const rk__fbx_tree *t) {
  const rk__fbx_node *o = rk__fbx_node_child(&t->root, "Objects");
  cr_assert_not_null(o);
  return o;
}

Test(fbx_records, binary_tree_with_compressed_arrays) {
  g_autoptr(GBytes) b = load("assimp_huesitos.fbx");
  gsize size;
  const uint8_t *d = g_bytes_get_data(b, &size);
  rk__fbx_tree t;
  g_autoptr(GError) e = NULL;
  cr_assert(rk__fbx_tree_parse(d, size, "huesitos", &t, &e), "%s", e ? e->message : "");
  cr_assert(t.binary);
  cr_assert_eq(t.version, 7400u);
  const rk__fbx_node *o = objects(&t);
  size_t models = 0, curves = 0, compressed = 0, vertices = 0;
  for (size_t i = 0; i < o->n_children; i++) {
    const rk__fbx_node *n = &o->children[i];
    models += strcmp(n->name, "Model") == 0;
    if (strcmp(n->name, "Geometry") == 0) {
      const rk__fbx_prop *v = rk__fbx_node_prop(rk__fbx_node_child(n, "Vertices"), 0);
      const rk__fbx_prop *pi = rk__fbx_node_prop(rk__fbx_node_child(n, "PolygonVertexIndex"), 0);
      g_autofree double *vd = NULL;
      g_autofree int64_t *pd = NULL;
      size_t nv = 0, np = 0;
      cr_assert(rk__fbx_prop_doubles(v, &vd, &nv, NULL));
      cr_assert(rk__fbx_prop_int64s(pi, &pd, &np, NULL));
      compressed += v->encoding == 1;
      cr_assert_eq(nv % 3, 0u);
      vertices = nv / 3;
      for (size_t k = 0; k < np; k++) /* the last index of a polygon is stored as -1 - i */
        cr_assert(pd[k] < (int64_t)vertices && pd[k] >= -(int64_t)vertices - 1);
      cr_assert(pd[np - 1] < 0);
    }
    if (strcmp(n->name, "AnimationCurve") == 0) {
      curves++;
      g_autofree int64_t *kt = NULL;
      g_autofree double *kv = NULL;
      size_t nt = 0, nk = 0;
      const rk__fbx_prop *tp = rk__fbx_node_prop(rk__fbx_node_child(n, "KeyTime"), 0);
      cr_assert(rk__fbx_prop_int64s(tp, &kt, &nt, NULL));
      cr_assert(rk__fbx_prop_doubles(rk__fbx_node_prop(rk__fbx_node_child(n, "KeyValueFloat"), 0),
                                     &kv, &nk, NULL));
      compressed += tp->encoding == 1;
      cr_assert_eq(nt, nk);
      for (size_t k = 0; k < nt; k++) /* 25 fps: 1847446320 ticks per frame (Blender rounds) */
        cr_assert_leq((kt[k] + 1) % 1847446320LL, 2, "key %zu at tick %" G_GINT64_FORMAT, k, kt[k]);
    }
  }
  cr_assert_eq(models, 15u); /* Armature, Cylinder, Lamp, Camera, 9 bones, 2 tips */
  cr_assert_gt(curves, 0u);
  cr_assert_gt(vertices, 0u);
  cr_assert_gt(compressed, 0u, "no zlib array read");
  rk__fbx_tree_free(&t);
}

Test(fbx_records, ascii_tree) {
  g_autoptr(GBytes) b = load("huesitos_prerotation_pivots.fbx");
  gsize size;
  const uint8_t *d = g_bytes_get_data(b, &size);
  rk__fbx_tree t;
  cr_assert(rk__fbx_tree_parse(d, size, "pivots", &t, NULL));
  cr_assert(!t.binary);
  cr_assert_eq(t.version, 7500u);
  const rk__fbx_node *o = objects(&t);
  const rk__fbx_node *bone4 = NULL;
  for (size_t i = 0; i < o->n_children; i++) {
    g_autofree char *cls = NULL, *name = NULL;
    if (strcmp(o->children[i].name, "Model") == 0 &&
        rk__fbx_prop_object_name(rk__fbx_node_prop(&o->children[i], 1), &cls, &name) &&
        strcmp(name, "Bone.004") == 0) {
      cr_assert_str_eq(cls, "Model");
      bone4 = &o->children[i];
    }
  }
  cr_assert_not_null(bone4);
  const rk__fbx_node *p70 = rk__fbx_node_child(bone4, "Properties70");
  cr_assert_not_null(p70);
  const rk__fbx_node *pre = &p70->children[0];
  cr_assert(rk__fbx_prop_is(rk__fbx_node_prop(pre, 0), "PreRotation"));
  double z = 0;
  cr_assert(rk__fbx_prop_number(rk__fbx_node_prop(pre, 6), &z));
  rk_assert_near(z, 20.0, 0);
  rk__fbx_tree_free(&t);
}

Test(fbx_records, document_models_and_samples) {
  g_autoptr(GBytes) b = load("huesitos_prerotation_pivots.fbx");
  gsize size;
  const uint8_t *d = g_bytes_get_data(b, &size);
  g_autoptr(GError) e = NULL;
  g_autoptr(rk__fbx_doc) doc = rk__fbx_doc_parse(d, size, "pivots", &e);
  cr_assert_not_null(doc, "%s", e ? e->message : "");
  const int m = rk__fbx_doc_find_model(doc, "Bone.001");
  cr_assert_geq(m, 0);
  cr_assert_eq(rk__fbx_doc_find_model(doc, "Model::Bone.001"), -1);
  cr_assert_eq(rk__fbx_doc_find_model(doc, "nothing"), -1);
  /* Bone.001: Lcl Translation (0, 70.501, 0) then a 30 degree pre-rotation about X. */
  const rk_mat4 rest = rk__fbx_doc_model_rest(doc, m, NULL);
  rk_assert_vec3_near(rk_mat4_get_translation(&rest), rk_vec3_make(0, 0.70501, 3.55271e-15), 1e-12);
  rk_mat4 want = rk_mat4_rot_x(30 * RK_DEG);
  want.m[13] = 0.70501, want.m[14] = 3.55271e-15;
  rk_assert_mat4_near(rest, want, 1e-12);
  cr_assert(rk__fbx_doc_has_stack(doc, "Armature|Action"));
  cr_assert(!rk__fbx_doc_has_stack(doc, "AnimStack::Armature|Action"));
  rk__fbx_samples s;
  cr_assert(rk__fbx_doc_sample(doc, m, "Armature|Action", &s, NULL));
  cr_assert_eq(s.count, 40u);
  rk_assert_near(s.times[1], 0.04, 1e-15);
  rk__fbx_samples_clear(&s);
  cr_assert(!rk__fbx_doc_sample(doc, m, "no such take", &s, NULL));
  cr_assert_eq(s.count, 0u);
}

Test(fbx_records, shared_model_names_are_ambiguous) {
  const char *text = "Objects:  {\n"
                     "  Model: 1, \"Model::Hip\", \"LimbNode\" {\n  }\n"
                     "  Model: 2, \"Model::Hip\", \"LimbNode\" {\n  }\n"
                     "  Model: 3, \"Model::Knee\", \"LimbNode\" {\n  }\n"
                     "}\nConnections:  {\n  C: \"OO\", 1, 0\n}\n";
  g_autoptr(rk__fbx_doc) doc = rk__fbx_doc_parse((const uint8_t *)text, strlen(text), "dup", NULL);
  cr_assert_not_null(doc);
  cr_assert_eq(rk__fbx_doc_find_model(doc, "Hip"), -2);
  cr_assert_geq(rk__fbx_doc_find_model(doc, "Knee"), 0);
}

/* A damaged file must be refused (or read) without a crash; returns whether it was read. */
static bool try_parse(const uint8_t *d, size_t n, int *codes) {
  rk__fbx_tree t;
  GError *e = NULL;
  const bool ok = rk__fbx_tree_parse(d, n, "damaged", &t, &e);
  if (ok) {
    rk__fbx_tree_free(&t);
    /* The document layer must cope with whatever tree came out. */
    rk__fbx_doc *doc = rk__fbx_doc_parse(d, n, "damaged", NULL);
    rk__fbx_doc_free(doc);
  } else {
    cr_assert_not_null(e);
    cr_assert(e->domain == RK_ERROR);
    codes[e->code]++;
    cr_assert(strstr(e->message, "damaged"), "message does not name the file: %s", e->message);
    g_error_free(e);
  }
  return ok;
}

Test(fbx_records, truncated_and_corrupted_binary_files_are_refused) {
  g_autoptr(GBytes) b = load("assimp_huesitos.fbx");
  gsize size;
  const uint8_t *d = g_bytes_get_data(b, &size);
  int codes[RK_ERROR_N_CODES] = {0};
  size_t refused = 0;
  /* Cut anywhere before the top-level null record: refused. */
  for (size_t cut = 0; cut + 200 < size; cut += 97)
    refused += !try_parse(d, cut, codes);
  cr_assert_gt(refused, size / 97 - 5);
  /* Flip bytes of the record headers and payloads. */
  g_autofree uint8_t *copy = g_memdup2(d, size);
  guint64 rng = 12345;
  for (int k = 0; k < 3000; k++) {
    const size_t at = 27 + (size_t)rk_test_uniform(&rng, 0, (double)(size - 27));
    const uint8_t old = copy[at];
    copy[at] = (uint8_t)rk_test_uniform(&rng, 0, 256);
    try_parse(copy, size, codes);
    copy[at] = old;
  }
  cr_assert_gt(codes[RK_ERROR_PARSE], 0);
}

Test(fbx_records, damaged_ascii_files_are_refused) {
  g_autoptr(GBytes) b = load("huesitos_prerotation_pivots.fbx");
  gsize size;
  const uint8_t *d = g_bytes_get_data(b, &size);
  int codes[RK_ERROR_N_CODES] = {0};
  for (size_t cut = 0; cut < size; cut += 501)
    try_parse(d, cut, codes);
  cr_assert_gt(codes[RK_ERROR_PARSE], 10);
  static const char *const bad[] = {
      "A: {\n",                                                /* unclosed */
      "}\n",                                                   /* unbalanced */
      "A: \"unterminated\n",                                   /* string */
      "A: *3 {\n a: 1,2,3\n",                                  /* unterminated array */
      "A: *x {\n a: 1 }\n",                                    /* no count */
      "A: 1,\n",                                               /* value missing after ',' */
      "Objects: {\n Model: 1, \"Model::A\", \"\" {\n } \n}\n", /* no Connections: doc refuses */
  };
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    rk__fbx_tree t;
    g_autoptr(GError) e = NULL;
    if (rk__fbx_tree_parse((const uint8_t *)bad[i], strlen(bad[i]), "bad", &t, &e)) {
      rk__fbx_tree_free(&t);
      g_autoptr(rk__fbx_doc) doc =
          rk__fbx_doc_parse((const uint8_t *)bad[i], strlen(bad[i]), "bad", &e);
      cr_assert_null(doc, "case %zu read", i);
      cr_assert_eq(e->code, RK_ERROR_UNSUPPORTED);
    } else {
      cr_assert_eq(e->code, RK_ERROR_PARSE, "case %zu: %s", i, e->message);
    }
  }
  /* A bad array is only noticed when it is decoded. */
  const char *arr = "A: *3 {\n a: 1,2\n}\n";
  rk__fbx_tree t;
  cr_assert(rk__fbx_tree_parse((const uint8_t *)arr, strlen(arr), "arr", &t, NULL));
  g_autofree double *v = NULL;
  size_t n = 0;
  g_autoptr(GError) e = NULL;
  cr_assert(!rk__fbx_prop_doubles(rk__fbx_node_prop(&t.root.children[0], 0), &v, &n, &e));
  cr_assert(strstr(e->message, "declares 3 elements"), "%s", e->message);
  rk__fbx_tree_free(&t);
}

Test(fbx_records, absurd_sizes_hit_the_limits) {
  /* Nesting deeper than RK__FBX_MAX_DEPTH. */
  GString *deep = g_string_new(NULL);
  for (int i = 0; i < RK__FBX_MAX_DEPTH + 5; i++)
    g_string_append(deep, "A: {\n");
  for (int i = 0; i < RK__FBX_MAX_DEPTH + 5; i++)
    g_string_append(deep, "}\n");
  rk__fbx_tree t;
  g_autoptr(GError) e = NULL;
  cr_assert(!rk__fbx_tree_parse((const uint8_t *)deep->str, deep->len, "deep", &t, &e));
  cr_assert_eq(e->code, RK_ERROR_LIMIT);
  g_string_free(deep, TRUE);
  g_clear_error(&e);
  const char *huge = "A: *4000000000 {\n a: 1\n}\n";
  cr_assert(!rk__fbx_tree_parse((const uint8_t *)huge, strlen(huge), "huge", &t, &e));
  cr_assert_eq(e->code, RK_ERROR_LIMIT);
  g_clear_error(&e);
  /* A binary array header that declares 2^30 floats in a few bytes. */
  uint8_t bin[27 + 13 + 1 + 13 + 13 + 13] = {0};
  memcpy(bin, "Kaydara FBX Binary  \0\x1a\0", 23);
  const uint32_t version = GUINT32_TO_LE(7400);
  memcpy(bin + 23, &version, 4);
  const uint32_t end = GUINT32_TO_LE(27 + 13 + 1 + 13), one = GUINT32_TO_LE(1),
                 plen = GUINT32_TO_LE(13);
  memcpy(bin + 27, &end, 4);
  memcpy(bin + 31, &one, 4);
  memcpy(bin + 35, &plen, 4);
  bin[39] = 1;
  bin[40] = 'A';
  bin[41] = 'f';
  const uint32_t count = GUINT32_TO_LE(1u << 30);
  memcpy(bin + 42, &count, 4);
  cr_assert(!rk__fbx_tree_parse(bin, sizeof bin, "bigarray", &t, &e));
  cr_assert_eq(e->code, RK_ERROR_LIMIT, "%s", e->message);
}

/* zlib (RFC 1950) stream of n bytes, as FBX stores compressed arrays (g_free). */
static uint8_t *zlib_of(const void *bytes, size_t n, size_t *len) {
  g_autoptr(GZlibCompressor) z = g_zlib_compressor_new(G_ZLIB_COMPRESSOR_FORMAT_ZLIB, 6);
  const size_t cap = n + 64;
  uint8_t *out = g_malloc(cap);
  gsize r = 0, w = 0;
  g_autoptr(GError) e = NULL;
  const GConverterResult res =
      g_converter_convert(G_CONVERTER(z), n ? bytes : "", n, out, cap,
                          G_CONVERTER_INPUT_AT_END | G_CONVERTER_FLUSH, &r, &w, &e);
  cr_assert_eq(res, G_CONVERTER_FINISHED, "%s", e ? e->message : "not finished");
  *len = w;
  return out;
}

/* A compressed array decodes only to exactly its declared element count: an empty array is read,
 * a stream holding more or fewer elements than declared fails with a message, and none of them
 * makes GLib complain (criticals are fatal here; fuzz_fbx finding: an empty output buffer). */
Test(fbx_records, compressed_arrays_must_inflate_to_their_declared_count) {
  g_log_set_always_fatal(G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  const double values[3] = {1.5, -2.0, 1e300};
  struct {
    size_t stored;   /* doubles in the stream */
    uint32_t count;  /* declared */
    bool ok;
  } cases[] = {{0, 0, true}, {3, 3, true}, {3, 2, false}, {3, 0, false}, {2, 3, false},
               {0, 1, false}};
  for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
    size_t len = 0;
    g_autofree uint8_t *z = zlib_of(values, cases[k].stored * sizeof(double), &len);
    rk__fbx_prop p = {.type = 'd', .count = cases[k].count, .encoding = 1, .data = z, .len = len};
    g_autofree double *out = NULL;
    size_t n = 99;
    g_autoptr(GError) e = NULL;
    const bool ok = rk__fbx_prop_doubles(&p, &out, &n, &e);
    cr_assert_eq(ok, cases[k].ok, "case %zu: %s", k, e ? e->message : "accepted");
    if (ok) {
      cr_assert_eq(n, cases[k].count);
      for (size_t i = 0; i < n; i++)
        cr_assert_eq(out[i], values[i]);
    } else {
      cr_assert(e && strstr(e->message, "does not inflate to its declared size"), "case %zu: %s",
                k, e ? e->message : "");
    }
  }
}
