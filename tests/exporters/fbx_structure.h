/* The structure every FBX file rigkit writes must have, checked on its record tree: the
 * sections in order, object counts against Definitions, unique object ids, connections between
 * existing objects, curves with one key time per value. Header-only, for the FBX tests. */
#ifndef RK_TEST_FBX_STRUCTURE_H
#define RK_TEST_FBX_STRUCTURE_H

#include "../../importers/src/fbx_internal.h"

#include <criterion/criterion.h>
#include <string.h>

/** Children of n called name. */
static inline size_t fbx_count_named(const rk__fbx_node *n, const char *name) {
  size_t k = 0;
  for (size_t i = 0; i < n->n_children; i++)
    k += strcmp(n->children[i].name, name) == 0;
  return k;
}

static inline void fbx_assert_definitions(const rk__fbx_node *defs, const rk__fbx_node *objects) {
  int64_t total = 0, declared = 0;
  cr_assert(rk__fbx_prop_int(rk__fbx_node_prop(rk__fbx_node_child(defs, "Count"), 0), &declared));
  for (size_t i = 0; i < defs->n_children; i++) {
    const rk__fbx_node *ot = &defs->children[i];
    if (strcmp(ot->name, "ObjectType") != 0)
      continue;
    g_autofree char *type = rk__fbx_prop_string(rk__fbx_node_prop(ot, 0));
    int64_t count = 0;
    cr_assert(rk__fbx_prop_int(rk__fbx_node_prop(rk__fbx_node_child(ot, "Count"), 0), &count));
    total += count;
    if (strcmp(type, "GlobalSettings") != 0)
      cr_assert_eq((size_t)count, fbx_count_named(objects, type),
                   "%s: %" G_GINT64_FORMAT " declared, %zu written", type, count,
                   fbx_count_named(objects, type));
  }
  cr_assert_eq(total, declared);
}

/** Asserts the structure of a parsed FBX file rigkit wrote (binary 7.4). */
static inline void fbx_assert_structure(const rk__fbx_tree *t) {
  cr_assert(t->binary);
  cr_assert_eq(t->version, 7400u);
  static const char *const sections[] = {"FBXHeaderExtension",
                                         "FileId",
                                         "CreationTime",
                                         "Creator",
                                         "GlobalSettings",
                                         "Documents",
                                         "References",
                                         "Definitions",
                                         "Objects",
                                         "Connections",
                                         "Takes"};
  cr_assert_eq(t->root.n_children, G_N_ELEMENTS(sections));
  for (size_t i = 0; i < G_N_ELEMENTS(sections); i++)
    cr_assert_str_eq(t->root.children[i].name, sections[i]);
  const rk__fbx_node *objects = rk__fbx_node_child(&t->root, "Objects");
  fbx_assert_definitions(rk__fbx_node_child(&t->root, "Definitions"), objects);
  g_autoptr(GHashTable) ids = g_hash_table_new(g_int64_hash, g_int64_equal);
  for (size_t i = 0; i < objects->n_children; i++) {
    const rk__fbx_prop *id = rk__fbx_node_prop(&objects->children[i], 0);
    cr_assert_eq(id->type, 'L');
    cr_assert(!g_hash_table_contains(ids, &id->i), "id %" G_GINT64_FORMAT " used twice", id->i);
    g_hash_table_add(ids, (gpointer)&id->i);
    if (strcmp(objects->children[i].name, "AnimationCurve") == 0) {
      const rk__fbx_node *c = &objects->children[i];
      const rk__fbx_prop *kt = rk__fbx_node_prop(rk__fbx_node_child(c, "KeyTime"), 0);
      const rk__fbx_prop *kv = rk__fbx_node_prop(rk__fbx_node_child(c, "KeyValueFloat"), 0);
      int64_t refs = 0;
      g_autofree int64_t *r = NULL;
      size_t nr = 0;
      cr_assert(rk__fbx_prop_int64s(rk__fbx_node_prop(rk__fbx_node_child(c, "KeyAttrRefCount"), 0),
                                    &r, &nr, NULL));
      refs = r[0];
      cr_assert(kt->type == 'l' && kv->type == 'f' && kt->count == kv->count && refs == kt->count);
    }
  }
  const rk__fbx_node *conns = rk__fbx_node_child(&t->root, "Connections");
  for (size_t i = 0; i < conns->n_children; i++) {
    const rk__fbx_node *c = &conns->children[i];
    int64_t src = 0, dst = 0;
    cr_assert(rk__fbx_prop_int(rk__fbx_node_prop(c, 1), &src) &&
              rk__fbx_prop_int(rk__fbx_node_prop(c, 2), &dst));
    cr_assert(g_hash_table_contains(ids, &src), "connection from unknown object %" G_GINT64_FORMAT,
              src);
    cr_assert(dst == 0 || g_hash_table_contains(ids, &dst),
              "connection to unknown object %" G_GINT64_FORMAT, dst);
  }
}

#endif
