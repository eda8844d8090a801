/* The FBX 7 document (fbx_document.h): the objects of the Objects section indexed by id, the
 * connections indexed both ways, the Models by name, the Definitions' property templates, and
 * property lookup with the templates' defaults. */
#include "fbx_document.h"

#include <string.h>

bool rk__fbx_prop_id(const rk__fbx_prop *p, int64_t *id) {
  double d;
  if (rk__fbx_prop_int(p, id))
    return true;
  if (rk__fbx_prop_number(p, &d) && d == floor(d) && fabs(d) < 9e18) {
    *id = (int64_t)d;
    return true;
  }
  return false;
}

const rk__fbx_object *rk__fbx_object_by_id(const rk__fbx_doc *doc, int64_t id) {
  gpointer v = g_hash_table_lookup(doc->by_id, &id);
  return v ? &g_array_index(doc->objects, rk__fbx_object, GPOINTER_TO_UINT(v) - 1) : NULL;
}

static const rk__fbx_node *template_props(const rk__fbx_node *defs, const char *type) {
  if (!defs)
    return NULL;
  for (size_t i = 0; i < defs->n_children; i++) {
    const rk__fbx_node *ot = &defs->children[i];
    if (strcmp(ot->name, "ObjectType") != 0 || !rk__fbx_prop_is(rk__fbx_node_prop(ot, 0), type))
      continue;
    const rk__fbx_node *pt = rk__fbx_node_child(ot, "PropertyTemplate");
    return pt ? rk__fbx_node_child(pt, "Properties70") : NULL;
  }
  return NULL;
}

static void index_conn(GHashTable *index, int64_t id, guint ci) {
  GArray *list = g_hash_table_lookup(index, &id);
  if (!list) {
    list = g_array_new(FALSE, FALSE, sizeof(guint));
    g_hash_table_insert(index, g_memdup2(&id, sizeof id), list);
  }
  g_array_append_val(list, ci);
}

static void object_clear(gpointer p) { g_free(((rk__fbx_object *)p)->name); }

bool rk__fbx_doc_build(rk__fbx_doc *doc, const char *name, GError **error) {
  doc->objects = g_array_new(FALSE, TRUE, sizeof(rk__fbx_object));
  g_array_set_clear_func(doc->objects, object_clear);
  doc->by_id = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  doc->conns = g_array_new(FALSE, FALSE, sizeof(rk__fbx_conn));
  doc->by_dst =
      g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, (GDestroyNotify)g_array_unref);
  doc->by_src =
      g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, (GDestroyNotify)g_array_unref);
  doc->models = g_array_new(FALSE, FALSE, sizeof(guint));
  doc->by_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

  const rk__fbx_node *objects = rk__fbx_node_child(&doc->tree.root, "Objects");
  const rk__fbx_node *conns = rk__fbx_node_child(&doc->tree.root, "Connections");
  if (!objects || !conns) {
    g_set_error(error, RK_ERROR, RK_ERROR_UNSUPPORTED,
                "%s: no Objects or Connections section (not an FBX 7 document)", name);
    return false;
  }
  const rk__fbx_node *defs = rk__fbx_node_child(&doc->tree.root, "Definitions");
  doc->model_template = template_props(defs, "Model");
  doc->stack_template = template_props(defs, "AnimationStack");

  for (size_t i = 0; i < objects->n_children; i++) {
    const rk__fbx_node *n = &objects->children[i];
    int64_t id;
    if (!rk__fbx_prop_id(rk__fbx_node_prop(n, 0), &id))
      continue; /* FBX 6 style objects (named, not numbered) are not read */
    rk__fbx_object o = {id, n, NULL};
    if (!rk__fbx_prop_object_name(rk__fbx_node_prop(n, 1), NULL, &o.name))
      o.name = g_strdup("");
    if (g_hash_table_contains(doc->by_id, &id)) {
      g_free(o.name);
      continue; /* the first object with an id wins */
    }
    g_array_append_val(doc->objects, o);
    const guint index = doc->objects->len;
    g_hash_table_insert(doc->by_id, g_memdup2(&id, sizeof id), GUINT_TO_POINTER(index));
    if (strcmp(n->name, "Model") == 0) {
      const guint oi = index - 1;
      g_array_append_val(doc->models, oi);
      const char *mname = g_array_index(doc->objects, rk__fbx_object, oi).name;
      if (g_hash_table_contains(doc->by_name, mname))
        g_hash_table_replace(doc->by_name, g_strdup(mname), GINT_TO_POINTER(-1));
      else
        g_hash_table_insert(doc->by_name, g_strdup(mname), GINT_TO_POINTER((int)doc->models->len));
    }
  }
  for (size_t i = 0; i < conns->n_children; i++) {
    const rk__fbx_node *c = &conns->children[i];
    rk__fbx_conn fc = {0, 0, NULL};
    if (strcmp(c->name, "C") != 0 || !rk__fbx_prop_id(rk__fbx_node_prop(c, 1), &fc.src) ||
        !rk__fbx_prop_id(rk__fbx_node_prop(c, 2), &fc.dst))
      continue;
    const rk__fbx_prop *kind = rk__fbx_node_prop(c, 0);
    if (rk__fbx_prop_is(kind, "OP") || rk__fbx_prop_is(kind, "PP"))
      fc.prop = rk__fbx_node_prop(c, 3);
    g_array_append_val(doc->conns, fc);
    const guint ci = doc->conns->len - 1;
    index_conn(doc->by_dst, fc.dst, ci);
    index_conn(doc->by_src, fc.src, ci);
  }
  return true;
}

rk__fbx_doc *rk__fbx_doc_parse(const uint8_t *data, size_t size, const char *name, GError **error) {
  rk__fbx_doc *doc = g_new0(rk__fbx_doc, 1);
  if (!rk__fbx_tree_parse(data, size, name, &doc->tree, error)) {
    g_free(doc);
    return NULL;
  }
  if (!rk__fbx_doc_build(doc, name, error)) {
    rk__fbx_doc_free(doc);
    return NULL;
  }
  return doc;
}

void rk__fbx_doc_free(rk__fbx_doc *doc) {
  if (!doc)
    return;
  if (doc->objects)
    g_array_unref(doc->objects);
  if (doc->by_id)
    g_hash_table_unref(doc->by_id);
  if (doc->conns)
    g_array_unref(doc->conns);
  if (doc->by_dst)
    g_hash_table_unref(doc->by_dst);
  if (doc->by_src)
    g_hash_table_unref(doc->by_src);
  if (doc->models)
    g_array_unref(doc->models);
  if (doc->by_name)
    g_hash_table_unref(doc->by_name);
  rk__fbx_tree_free(&doc->tree);
  g_free(doc);
}

int rk__fbx_doc_find_model(const rk__fbx_doc *doc, const char *name) {
  const int v = GPOINTER_TO_INT(g_hash_table_lookup(doc->by_name, name));
  return v > 0 ? v - 1 : v < 0 ? -2 : -1;
}

const rk__fbx_object *rk__fbx_model_object(const rk__fbx_doc *doc, int model) {
  return &g_array_index(doc->objects, rk__fbx_object,
                        g_array_index(doc->models, guint, (guint)model));
}

bool rk__fbx_doc_model_is_skeleton(const rk__fbx_doc *doc, int model) {
  const rk__fbx_prop *type = rk__fbx_node_prop(rk__fbx_model_object(doc, model)->node, 2);
  return rk__fbx_prop_is(type, "LimbNode") || rk__fbx_prop_is(type, "Limb") ||
         rk__fbx_prop_is(type, "Root");
}

GArray *rk__fbx_sources_of(const rk__fbx_doc *doc, int64_t dst) {
  return g_hash_table_lookup(doc->by_dst, &dst);
}

GArray *rk__fbx_targets_of(const rk__fbx_doc *doc, int64_t src) {
  return g_hash_table_lookup(doc->by_src, &src);
}

/* ---- properties ------------------------------------------------------------------------------ */

/* The "P" entry called name in a Properties70 node, or NULL. */
static const rk__fbx_node *find_p(const rk__fbx_node *props70, const char *name) {
  if (!props70)
    return NULL;
  for (size_t i = 0; i < props70->n_children; i++) {
    const rk__fbx_node *p = &props70->children[i];
    if (strcmp(p->name, "P") == 0 && rk__fbx_prop_is(rk__fbx_node_prop(p, 0), name))
      return p;
  }
  return NULL;
}

const rk__fbx_node *rk__fbx_object_p(const rk__fbx_node *obj, const rk__fbx_node *tmpl,
                                    const char *name) {
  const rk__fbx_node *p = find_p(rk__fbx_node_child(obj, "Properties70"), name);
  return p ? p : find_p(tmpl, name);
}
