/* ASCII FBX -> binary FBX 7.4 for the tests: rigkit's FBX reader (importers) gives the tree of an
 * ASCII file, rigkit's record encoder (exporters) writes it in binary. ASCII numbers carry no
 * type, so the binary types follow what readers expect of each record (Assimp is strict: object
 * ids and KTime int64, int/enum/bool properties int32, vectors and numbers double, KeyTime int64
 * arrays, KeyValueFloat float arrays, index arrays int32), and object names "Class::Name" become
 * "Name\0\1Class". Good enough for the ASCII files in tests/data, not a general converter. */
#ifndef RK_FBX_TRANSCODE_H
#define RK_FBX_TRANSCODE_H

#include "../../exporters/src/fbx_encode.h"
#include "../../importers/src/fbx_internal.h"

#include <criterion/criterion.h>
#include <string.h>

static inline bool transcode_in(const char *name, const char *const *list) {
  for (size_t i = 0; list[i]; i++)
    if (strcmp(name, list[i]) == 0)
      return true;
  return false;
}

/* The P record's type (second property) decides the binary type of its values. */
static inline char transcode_p_type(const rk__fbx_node *p) {
  g_autofree char *type = rk__fbx_prop_string(rk__fbx_node_prop(p, 1));
  if (!type)
    return 'D';
  static const char *const ints[] = {"int", "Int", "Integer", "enum", "Enum", "bool", "Bool", NULL};
  static const char *const longs[] = {"KTime", "ULongLong", NULL};
  return transcode_in(type, ints) ? 'I' : transcode_in(type, longs) ? 'L' : 'D';
}

static inline void transcode_node(rk__fbx_enc *e, const rk__fbx_node *n, const char *parent,
                                  const uint8_t *text) {
  static const char *const long_nodes[] = {"RootNode", "Node", "LocalTime", "ReferenceTime", NULL};
  static const char *const int_arrays[] = {
      "PolygonVertexIndex", "Edges",        "Indexes",         "Materials", "UVIndex",
      "NormalsIndex",       "KeyAttrFlags", "KeyAttrRefCount", "Smoothing", NULL};
  static const char *const float_arrays[] = {"KeyValueFloat", "KeyAttrDataFloat", NULL};
  const bool is_p = strcmp(n->name, "P") == 0;
  const bool is_object = parent && strcmp(parent, "Objects") == 0;
  rk__fbx_enc_begin(e, n->name);
  for (size_t i = 0; i < n->n_props; i++) {
    const rk__fbx_prop *p = &n->props[i];
    if (p->type == 'S') {
      const bool quoted = p->data > text && p->data[-1] == '"';
      if (!quoted && p->len == 1 && strchr("TYFN", p->data[0])) {
        rk__fbx_enc_bool(e, p->data[0] == 'T' || p->data[0] == 'Y');
        continue;
      }
      const bool object_name =
          (is_object && i == 1) || (strcmp(n->name, "SceneInfo") == 0 && i == 0);
      const void *sep =
          p->len >= 2 ? g_strstr_len((const char *)p->data, (gssize)p->len, "::") : NULL;
      if (object_name && sep) {
        g_autofree char *cls = NULL, *name = NULL;
        cr_assert(rk__fbx_prop_object_name(p, &cls, &name));
        rk__fbx_enc_object_name(e, name, cls);
      } else {
        rk__fbx_enc_strn(e, p->data, p->len);
      }
    } else if (p->type == 'L' || p->type == 'D') {
      char t = p->type == 'D' ? 'D' : 'I';
      if (is_p && i >= 4)
        t = transcode_p_type(n);
      else if (p->type == 'L' &&
               ((strcmp(n->name, "C") == 0 && (i == 1 || i == 2)) || (is_object && i == 0) ||
                transcode_in(n->name, long_nodes) || p->i > G_MAXINT32 || p->i < G_MININT32))
        t = 'L';
      if (t == 'I')
        rk__fbx_enc_i32(e, (int32_t)(p->type == 'L' ? p->i : (int64_t)p->d));
      else if (t == 'L')
        rk__fbx_enc_i64(e, p->type == 'L' ? p->i : (int64_t)p->d);
      else
        rk__fbx_enc_f64(e, p->d);
    } else if (p->encoding == RK__FBX_ENCODING_TEXT) {
      if (strcmp(n->name, "KeyTime") == 0 || transcode_in(n->name, int_arrays)) {
        g_autofree int64_t *v = NULL;
        size_t count = 0;
        cr_assert(rk__fbx_prop_int64s(p, &v, &count, NULL), "array %s", n->name);
        if (strcmp(n->name, "KeyTime") == 0) {
          rk__fbx_enc_i64v(e, v, count);
        } else {
          g_autofree int32_t *w = g_new(int32_t, count + 1);
          for (size_t k = 0; k < count; k++)
            w[k] = (int32_t)v[k];
          rk__fbx_enc_i32v(e, w, count);
        }
      } else {
        g_autofree double *v = NULL;
        size_t count = 0;
        cr_assert(rk__fbx_prop_doubles(p, &v, &count, NULL), "array %s", n->name);
        if (transcode_in(n->name, float_arrays)) {
          g_autofree float *f = g_new(float, count + 1);
          for (size_t k = 0; k < count; k++)
            f[k] = (float)v[k];
          rk__fbx_enc_f32v(e, f, count);
        } else {
          rk__fbx_enc_f64v(e, v, count);
        }
      }
    } else {
      cr_assert_fail("unexpected ASCII property type '%c' in %s", p->type, n->name);
    }
  }
  for (size_t c = 0; c < n->n_children; c++)
    transcode_node(e, &n->children[c], n->name, text);
  if (n->scope) /* "{ }": Assimp requires the scope of an AnimationLayer, even empty */
    rk__fbx_enc_end_block(e);
  else
    rk__fbx_enc_end(e);
}

/* Reads the ASCII FBX at src and writes it as binary FBX 7.4 at dst. */
static inline void transcode_ascii_to_binary(const char *src, const char *dst) {
  gchar *text = NULL;
  gsize size = 0;
  cr_assert(g_file_get_contents(src, &text, &size, NULL), "cannot read %s", src);
  rk__fbx_tree t;
  g_autoptr(GError) err = NULL;
  cr_assert(rk__fbx_tree_parse((const uint8_t *)text, size, src, &t, &err), "%s",
            err ? err->message : "");
  cr_assert(!t.binary);
  rk__fbx_enc *e = rk__fbx_enc_new(7400);
  for (size_t i = 0; i < t.root.n_children; i++) {
    const rk__fbx_node *n = &t.root.children[i];
    transcode_node(e, n, NULL, (const uint8_t *)text);
    if (strcmp(n->name, "FBXHeaderExtension") == 0) {
      /* binary files carry FileId and CreationTime at the top level */
      static const uint8_t id[16] = {0x28, 0xb3, 0x2a, 0xeb, 0xb6, 0x24, 0xcc, 0xc2,
                                     0xbf, 0xc8, 0xb0, 0x2a, 0xa9, 0x2b, 0xfc, 0xf1};
      rk__fbx_enc_begin(e, "FileId");
      rk__fbx_enc_raw(e, id, sizeof id);
      rk__fbx_enc_end(e);
      rk__fbx_enc_begin(e, "CreationTime");
      rk__fbx_enc_str(e, "1970-01-01 10:00:00:000");
      rk__fbx_enc_end(e);
    }
  }
  GByteArray *bin = rk__fbx_enc_finish(e, dst, &err);
  cr_assert_not_null(bin, "%s", err ? err->message : "");
  cr_assert(g_file_set_contents(dst, (const char *)bin->data, bin->len, NULL));
  g_byte_array_unref(bin);
  rk__fbx_tree_free(&t);
  g_free(text);
}

#endif
