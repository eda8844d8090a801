/* libFuzzer target: FBX, binary and ASCII. rigkit reads FBX records itself (importers/src/
 * fbx_records.c; the document layer fbx_document.c, fbx_transform.c, fbx_animation.c:
 * pre-rotations, pivots and curves that Assimp gets wrong) after Assimp has read the scene. The
 * target first parses the bytes with rigkit's record reader and decodes every array property (raw
 * and zlib-compressed), then the document layer, then imports the bytes through rk_import_memory
 * (Assimp + the helper fold). */
#include "fuzz_support.h"

#include "fbx_internal.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  rk_fuzz_setup();
  return 0;
}

static void decode_arrays(const rk__fbx_node *n, int depth) {
  RK_FUZZ_CHECK(depth <= RK__FBX_MAX_DEPTH + 1, "node nesting %d beyond the limit", depth);
  for (size_t i = 0; i < n->n_props; i++) {
    const rk__fbx_prop *p = &n->props[i];
    if (!strchr("fdlib", p->type) || p->type == '\0')
      continue;
    double *d = NULL;
    int64_t *l = NULL;
    size_t count = 0;
    GError *error = NULL;
    bool ok = rk__fbx_prop_doubles(p, &d, &count, &error);
    rk_fuzz_check_outcome(ok, error, "rk__fbx_prop_doubles");
    RK_FUZZ_CHECK(!ok || count == p->count, "array of %u decoded to %zu", p->count, count);
    g_clear_error(&error);
    g_free(d);
    ok = rk__fbx_prop_int64s(p, &l, &count, &error);
    rk_fuzz_check_outcome(ok, error, "rk__fbx_prop_int64s");
    g_clear_error(&error);
    g_free(l);
  }
  for (size_t c = 0; c < n->n_children; c++)
    decode_arrays(&n->children[c], depth + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rk__fbx_tree tree;
  GError *error = NULL;
  bool ok = rk__fbx_tree_parse(data, size, "fuzz.fbx", &tree, &error);
  rk_fuzz_check_outcome(ok, error, "rk__fbx_tree_parse");
  g_clear_error(&error);
  if (ok) {
    decode_arrays(&tree.root, 0);
    rk__fbx_tree_free(&tree);
  }
  rk__fbx_doc *doc = rk__fbx_doc_parse(data, size, "fuzz.fbx", &error);
  rk_fuzz_check_outcome(doc != NULL, error, "rk__fbx_doc_parse");
  g_clear_error(&error);
  rk__fbx_doc_free(doc);

  rk_asset_free(rk_fuzz_import(data, size, "fuzz.fbx", NULL));
  return 0;
}
