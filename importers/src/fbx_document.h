/* The FBX 7 document's objects and connections (internal; fbx_document.c), shared by the files
 * that read the document: fbx_transform.c (a Model's transform chain), fbx_animation.c (stacks,
 * curves, sampling) and fbx_precheck.c (the checks before Assimp). The document's interface for
 * the rest of the importers is in fbx_internal.h. */
#ifndef RK_FBX_DOCUMENT_H
#define RK_FBX_DOCUMENT_H

#include "fbx_internal.h"

G_BEGIN_DECLS

/** An object of the Objects section. */
typedef struct rk__fbx_object {
  int64_t id;
  const rk__fbx_node *node; /* node->name is the object type: Model, AnimationCurve, ... */
  char *name;               /* without its class */
} rk__fbx_object;

/** A connection (C record): OO between objects, OP/PP into an object's property. */
typedef struct rk__fbx_conn {
  int64_t src, dst;
  const rk__fbx_prop *prop; /* property name of OP/PP connections, else NULL */
} rk__fbx_conn;

struct rk__fbx_doc {
  rk__fbx_tree tree;
  GArray *objects;                    /* rk__fbx_object */
  GHashTable *by_id;                  /* int64 id -> index + 1 into objects */
  GArray *conns;                      /* rk__fbx_conn, in file order */
  GHashTable *by_dst;                 /* int64 dst id -> GArray of conn indices (guint) */
  GHashTable *by_src;                 /* int64 src id -> GArray of conn indices (guint) */
  GArray *models;                     /* guint object indices of Model objects */
  GHashTable *by_name;                /* model name -> index + 1 into models, or -1 when shared */
  const rk__fbx_node *model_template; /* Properties70 of the "FbxNode" template, or NULL */
  const rk__fbx_node *stack_template; /* Properties70 of the "FbxAnimStack" template, or NULL */
};

/** Indexes the objects and connections of doc->tree (parsed); false with RK_ERROR_UNSUPPORTED
 * naming the file when the tree is not an FBX 7 document (no Objects or Connections; the caller
 * frees doc with rk__fbx_doc_free). */
bool rk__fbx_doc_build(rk__fbx_doc *doc, const char *name, GError **error);

/** An object id property: an integer, or a double holding an integer; false otherwise. */
bool rk__fbx_prop_id(const rk__fbx_prop *p, int64_t *id);
/** The object with that id, or NULL. */
const rk__fbx_object *rk__fbx_object_by_id(const rk__fbx_doc *doc, int64_t id);
/** The object of Model `model` (an index into doc->models). */
const rk__fbx_object *rk__fbx_model_object(const rk__fbx_doc *doc, int model);
/** Indices into doc->conns of the connections into dst / out of src, in file order (NULL when
 * none). */
GArray *rk__fbx_sources_of(const rk__fbx_doc *doc, int64_t dst);
GArray *rk__fbx_targets_of(const rk__fbx_doc *doc, int64_t src);
/** Connection k of a list from rk__fbx_sources_of or rk__fbx_targets_of. */
static inline const rk__fbx_conn *rk__fbx_conn_at(const rk__fbx_doc *doc, const GArray *list,
                                                  guint k) {
  return &g_array_index(doc->conns, rk__fbx_conn, g_array_index(list, guint, k));
}
/** The "P" entry called name among an object's Properties70, else in its type's template
 * Properties70 (tmpl, may be NULL), else NULL. */
const rk__fbx_node *rk__fbx_object_p(const rk__fbx_node *obj, const rk__fbx_node *tmpl,
                                     const char *name);

G_END_DECLS

#endif
