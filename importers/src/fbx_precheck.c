/* The checks of an FBX file before Assimp 5.2.5 reads it (rk__fbx_precheck, fbx_internal.h):
 * rigkit reads the records itself and refuses what makes Assimp abort, crash, leak or allocate
 * without bound: records it cannot read, compressed arrays that do not inflate to their size,
 * model hierarchies with cycles or without bound, skin clusters weighting vertices their geometry
 * lacks, bones sharing a name, rotation curves that turn without bound. */
#include "fbx_animation.h"
#include "fbx_document.h"

#include <string.h>

/* True when object o is a Deformer of the given class ("Skin", "Cluster"; the class is the
 * object's third property). */
static bool is_deformer(const rk__fbx_object *o, const char *cls) {
  return strcmp(o->node->name, "Deformer") == 0 &&
         rk__fbx_prop_is(rk__fbx_node_prop(o->node, 2), cls);
}

/* 'name' of an object for messages, or its id when it has no name (g_free). */
static char *object_label(const rk__fbx_object *o) {
  return *o->name ? g_strdup_printf("'%s'", o->name) : g_strdup_printf("%" G_GINT64_FORMAT, o->id);
}

/* Control points of a Geometry object (Vertices holds x, y, z each), or -1 when unreadable. */
static int64_t geometry_points(const rk__fbx_object *g) {
  const rk__fbx_node *v = rk__fbx_node_child(g->node, "Vertices");
  const rk__fbx_prop *p = v ? rk__fbx_node_prop(v, 0) : NULL;
  return p && p->type != 'S' ? (int64_t)(p->count / 3) : -1;
}

/* Every vertex index of every skin cluster must be a control point of each geometry the cluster's
 * skin deforms: Assimp 5.2.5 asserts it (abort()) in FBXConverter::ConvertWeights. */
static bool check_skin_clusters(const rk__fbx_doc *doc, GError **error) {
  for (guint i = 0; i < doc->objects->len; i++) {
    const rk__fbx_object *cl = &g_array_index(doc->objects, rk__fbx_object, i);
    if (!is_deformer(cl, "Cluster"))
      continue;
    const rk__fbx_node *ix = rk__fbx_node_child(cl->node, "Indexes");
    g_autofree int64_t *idx = NULL;
    size_t n = 0;
    GError *e = NULL;
    if (!ix)
      continue;
    if (!rk__fbx_prop_int64s(rk__fbx_node_prop(ix, 0), &idx, &n, &e)) {
      g_autofree char *label = object_label(cl);
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "FBX skin cluster %s: %s", label,
                  e ? e->message : "Indexes is not an integer array");
      g_clear_error(&e);
      return false;
    }
    const GArray *skins = rk__fbx_targets_of(doc, cl->id);
    for (guint a = 0; skins && a < skins->len; a++) {
      const rk__fbx_object *sk = rk__fbx_object_by_id(doc, rk__fbx_conn_at(doc, skins, a)->dst);
      if (!sk || !is_deformer(sk, "Skin"))
        continue;
      const GArray *geos = rk__fbx_targets_of(doc, sk->id);
      for (guint b = 0; geos && b < geos->len; b++) {
        const rk__fbx_object *g = rk__fbx_object_by_id(doc, rk__fbx_conn_at(doc, geos, b)->dst);
        if (!g || strcmp(g->node->name, "Geometry") != 0)
          continue;
        const int64_t points = geometry_points(g);
        for (size_t k = 0; points >= 0 && k < n; k++)
          if (idx[k] < 0 || idx[k] >= points) {
            g_autofree char *cn = object_label(cl), *gn = object_label(g);
            g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                        "FBX skin cluster %s weights vertex %" G_GINT64_FORMAT
                        " but geometry %s has %" G_GINT64_FORMAT " vertices",
                        cn, idx[k], gn, points);
            return false;
          }
      }
    }
  }
  return true;
}

/* Total turn a rotation curve may make, in degrees: Assimp 5.2.5 inserts a key every 180 degrees
 * of a rotation curve's change (FBXConverter's rotation key list), so a key of 6e11 degrees in a
 * 100 KB file made it allocate 23 GB. 2^20 inserted keys at most. */
#define MAX_ROTATION_TURN (180.0 * 1048576.0)

/* The values of every curve of every curve node animating "Lcl Rotation" must be finite and turn
 * at most MAX_ROTATION_TURN degrees in all. */
static bool check_rotation_curves(const rk__fbx_doc *doc, GError **error) {
  for (guint i = 0; i < doc->objects->len; i++) {
    const rk__fbx_object *cn = &g_array_index(doc->objects, rk__fbx_object, i);
    if (strcmp(cn->node->name, "AnimationCurveNode") != 0)
      continue;
    const GArray *outs = rk__fbx_targets_of(doc, cn->id);
    bool rotation = false;
    for (guint k = 0; outs && k < outs->len; k++) {
      const rk__fbx_conn *t = rk__fbx_conn_at(doc, outs, k);
      rotation = rotation || (t->prop && rk__fbx_prop_is(t->prop, "Lcl Rotation"));
    }
    if (!rotation)
      continue;
    const rk__fbx_object *cs[3];
    rk__fbx_curve_node_curves(doc, cn, cs);
    for (int k = 0; k < 3; k++) {
      const rk__fbx_node *kv = cs[k] ? rk__fbx_node_child(cs[k]->node, "KeyValueFloat") : NULL;
      g_autofree double *v = NULL;
      size_t n = 0;
      GError *e = NULL;
      if (!kv)
        continue;
      /* Values rigkit cannot read are refused: Assimp reads numbers leniently ("1e11-15" as
       * 1e11), so it could still see an enormous turn. */
      if (!rk__fbx_prop_doubles(rk__fbx_node_prop(kv, 0), &v, &n, &e)) {
        g_autofree char *label = object_label(cs[k]);
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "FBX rotation curve %s: %s", label,
                    e ? e->message : "KeyValueFloat is not a number array");
        g_clear_error(&e);
        return false;
      }
      double turn = 0.0;
      for (size_t j = 0; j < n; j++) {
        turn += j ? fabs(v[j] - v[j - 1]) : 0.0;
        if (!isfinite(v[j]) || !(turn <= MAX_ROTATION_TURN)) {
          g_autofree char *label = object_label(cs[k]);
          if (isfinite(v[j]))
            g_set_error(error, RK_ERROR, RK_ERROR_LIMIT,
                        "FBX rotation curve %s turns more than 2^20 half turns in all (key %zu: "
                        "%g degrees after %g)",
                        label, j, v[j], v[j - 1]);
          else
            g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                        "FBX rotation curve %s: key %zu is not finite", label, j);
          return false;
        }
      }
    }
  }
  return true;
}

/* Two models that skin clusters bind to (bones) may not share a name: Assimp 5.2.5 then frees
 * one of its bone nodes twice (heap corruption, then an abort; `assimp info` too). Unskinned
 * nodes may share names. */
static bool check_bone_names(const rk__fbx_doc *doc, GError **error) {
  g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal); /* name -> model */
  for (guint i = 0; i < doc->models->len; i++) {
    const rk__fbx_object *m =
        &g_array_index(doc->objects, rk__fbx_object, g_array_index(doc->models, guint, i));
    const GArray *outs = rk__fbx_targets_of(doc, m->id);
    bool bone = false;
    for (guint k = 0; outs && k < outs->len && !bone; k++) {
      const rk__fbx_conn *c = rk__fbx_conn_at(doc, outs, k);
      const rk__fbx_object *d = rk__fbx_object_by_id(doc, c->dst);
      bone = d && !c->prop && is_deformer(d, "Cluster");
    }
    if (!bone)
      continue;
    const rk__fbx_object *other = g_hash_table_lookup(seen, m->name);
    if (other && other->id != m->id) {
      g_set_error(error, RK_ERROR, RK_ERROR_UNSUPPORTED,
                  "FBX bones %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT
                  " are both named '%s': skinned bones need distinct names (Assimp 5.2.5 "
                  "corrupts its heap on such files); rename one in the DCC and export again",
                  other->id, m->id, m->name);
      return false;
    }
    g_hash_table_insert(seen, (gpointer)m->name, (gpointer)m);
  }
  return true;
}

/* Assimp 5.2.5 converts the Model hierarchy recursively from the root (id 0) along object-object
 * connections, once per path: a cycle recursed until the stack overflowed (a 136 KB file,
 * fuzz_fbx); a chain of 8000 models overflows the 8 MB main-thread stack too (about 1 KB per
 * level; 4000 passed), and host threads may have far less; a model under several parents is
 * copied under each (a ladder of such models multiplies the copies at every rung). Limits: 1024
 * levels and RK_SKELETON_MAX_JOINTS copies, more nodes than rigkit accepts later anyway. */
#define MAX_MODEL_DEPTH 1024

/* Model index (into doc->models) of the source of connection ci when it is an object-object
 * connection from a Model, else -1. model_of maps object indices to model indices. */
static int model_child(const rk__fbx_doc *doc, const int *model_of, guint ci) {
  const rk__fbx_conn *c = &g_array_index(doc->conns, rk__fbx_conn, ci);
  const guint index = GPOINTER_TO_UINT(g_hash_table_lookup(doc->by_id, &c->src)); /* + 1 */
  return c->prop || index == 0 ? -1 : model_of[index - 1];
}

/* Object-object connections into node x of check_model_hierarchy (a model, or the root). */
static const GArray *hierarchy_kids(const rk__fbx_doc *doc, guint x) {
  return rk__fbx_sources_of(doc, x == doc->models->len ? 0 : rk__fbx_model_object(doc, (int)x)->id);
}

static bool check_model_hierarchy(const rk__fbx_doc *doc, GError **error) {
  const guint nm = doc->models->len, root = nm; /* nodes: the models, then the root */
  g_autofree int *model_of = g_new(int, doc->objects->len + 1);
  for (guint i = 0; i < doc->objects->len; i++)
    model_of[i] = -1;
  for (guint m = 0; m < nm; m++)
    model_of[g_array_index(doc->models, guint, m)] = (int)m;
  /* Depth-first from the root without recursion: color 1 = on the path, 2 = done; a child on the
   * path closes a cycle. order gets the nodes in postorder. */
  g_autofree guchar *color = g_new0(guchar, nm + 1);
  g_autofree guint *order = g_new(guint, nm + 1), *stack = g_new(guint, nm + 1),
                   *next = g_new0(guint, nm + 1);
  size_t no = 0, top = 0;
  stack[top++] = root;
  color[root] = 1;
  while (top > 0) {
    const guint x = stack[top - 1];
    const GArray *kids = hierarchy_kids(doc, x);
    int c = -1;
    while (kids && next[x] < kids->len && c < 0)
      c = model_child(doc, model_of, g_array_index(kids, guint, next[x]++));
    if (c < 0) {
      color[x] = 2;
      order[no++] = x;
      top--;
    } else if (color[c] == 1) {
      g_autofree char *a = object_label(rk__fbx_model_object(doc, c));
      g_autofree char *b =
          x == root ? g_strdup("the root") : object_label(rk__fbx_model_object(doc, (int)x));
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                  "FBX model hierarchy has a cycle: Model %s is a child of %s, its own descendant",
                  a, b);
      return false;
    } else if (color[c] == 0) {
      color[c] = 1;
      stack[top++] = (guint)c;
    }
  }
  /* Parents before children (reverse postorder): each model's depth and copy count. */
  g_autofree guint *depth = g_new0(guint, nm + 1);
  g_autofree double *copies = g_new0(double, nm + 1);
  copies[root] = 1;
  double total = 0;
  for (size_t i = no; i-- > 0;) {
    const guint x = order[i];
    if (x != root)
      total += copies[x];
    if (depth[x] > MAX_MODEL_DEPTH || total > RK_SKELETON_MAX_JOINTS) {
      g_autofree char *a = object_label(rk__fbx_model_object(doc, (int)x));
      if (depth[x] > MAX_MODEL_DEPTH)
        g_set_error(error, RK_ERROR, RK_ERROR_LIMIT,
                    "FBX model hierarchy is deeper than %d levels (Model %s)", MAX_MODEL_DEPTH, a);
      else
        g_set_error(error, RK_ERROR, RK_ERROR_LIMIT,
                    "FBX model hierarchy makes more than %d nodes (models under several parents "
                    "are copied under each; Model %s)",
                    RK_SKELETON_MAX_JOINTS, a);
      return false;
    }
    const GArray *kids = hierarchy_kids(doc, x);
    for (guint k = 0; kids && k < kids->len; k++) {
      const int c = model_child(doc, model_of, g_array_index(kids, guint, k));
      if (c >= 0) {
        depth[c] = MAX(depth[c], depth[x] + 1);
        copies[c] += copies[x];
      }
    }
  }
  return true;
}

bool rk__fbx_precheck(const uint8_t *data, size_t size, const char *name, rk__fbx_doc **out,
                      GError **doc_error, GError **error) {
  *out = NULL;
  rk__fbx_doc *doc = g_new0(rk__fbx_doc, 1);
  /* A file whose records rigkit cannot read is refused: Assimp's FBX importer asserts (aborting
   * the process) on some malformed files, so it only gets files whose structure rigkit checked. */
  GError *e = NULL;
  if (!rk__fbx_tree_parse(data, size, name, &doc->tree, &e)) {
    /* The reader's messages start with the name, which the importer's caller adds too. */
    const size_t n = strlen(name);
    const bool named = strncmp(e->message, name, n) == 0 && strncmp(e->message + n, ": ", 2) == 0;
    g_set_error(error, e->domain, e->code, "%s", e->message + (named ? n + 2 : 0));
    g_error_free(e);
    g_free(doc);
    return false;
  }
  if (!rk__fbx_tree_check_arrays(&doc->tree, error)) {
    rk__fbx_doc_free(doc);
    return false;
  }
  if (!rk__fbx_doc_build(doc, name, doc_error)) {
    rk__fbx_doc_free(doc);
    return true; /* records fine, not an FBX 7 document: no objects to check */
  }
  if (!check_model_hierarchy(doc, error) || !check_skin_clusters(doc, error) ||
      !check_bone_names(doc, error) || !check_rotation_curves(doc, error)) {
    rk__fbx_doc_free(doc);
    return false;
  }
  *out = doc;
  return true;
}
