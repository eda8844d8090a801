/* The parts of an FBX 7 document rigkit reads itself: Models and their transform properties,
 * connections, animation stacks, layers, curve nodes and curves; and the local transform of a
 * Model with the full FBX chain (FBX SDK documentation, "Computing transformation matrix"):
 *
 *   L = T * Roff * Rp * Rpre * R * Rpost^-1 * Rp^-1 * Soff * Sp * S * Sp^-1
 *
 * T, Roff, Rp, Soff, Sp are translations ("Lcl Translation", RotationOffset, RotationPivot,
 * ScalingOffset, ScalingPivot), S the scale ("Lcl Scaling"), R the rotation "Lcl Rotation" in
 * degrees composed in the Model's RotationOrder (eEulerXYZ rotates about X first: R = Rz Ry Rx),
 * Rpre / Rpost the PreRotation / PostRotation, always in XYZ order (Maya's joint orient and
 * rotate axis, which they carry, are XYZ whatever the rotate order; Assimp reads them so too).
 * As in the FBX SDK and Blender, pre/post-rotations and the rotation order only apply when the
 * Model's RotationActive is set; Assimp 5.2.5 ignores RotationActive.
 *
 * Unset properties take the Definitions' PropertyTemplate "FbxNode" values, then FBX's defaults
 * (zero, scale one). Curves are evaluated at their keys: linear between keys, or held for keys
 * flagged constant (KeyAttrFlags); cubic keys are read as linear, as Assimp reads every key. */
#include "fbx_internal.h"

#include <string.h>

/* KeyAttrFlags bits (FbxAnimCurveDef). */
enum {
  FLAG_CONSTANT = 0x00000002,
  FLAG_CONSTANT_NEXT = 0x00000100,
};

typedef struct fbx_object {
  int64_t id;
  const rk__fbx_node *node; /* node->name is the object type: Model, AnimationCurve, ... */
  char *name;               /* without its class */
} fbx_object;

typedef struct fbx_conn {
  int64_t src, dst;
  const rk__fbx_prop *prop; /* property name of OP/PP connections, else NULL */
} fbx_conn;

struct rk__fbx_doc {
  rk__fbx_tree tree;
  GArray *objects;                    /* fbx_object */
  GHashTable *by_id;                  /* int64 id -> index + 1 into objects */
  GArray *conns;                      /* fbx_conn, in file order */
  GHashTable *by_dst;                 /* int64 dst id -> GArray of conn indices (guint) */
  GHashTable *by_src;                 /* int64 src id -> GArray of conn indices (guint) */
  GArray *models;                     /* guint object indices of Model objects */
  GHashTable *by_name;                /* model name -> index + 1 into models, or -1 when shared */
  const rk__fbx_node *model_template; /* Properties70 of the "FbxNode" template, or NULL */
  const rk__fbx_node *stack_template; /* Properties70 of the "FbxAnimStack" template, or NULL */
};

/* The transform properties of the chain, in the order of vals[] below. */
enum { P_T, P_ROFF, P_RP, P_PRE, P_R, P_POST, P_SOFF, P_SP, P_S, P_COUNT };
static const char *const chain_props[P_COUNT] = {
    "Lcl Translation", "RotationOffset", "RotationPivot", "PreRotation", "Lcl Rotation",
    "PostRotation",    "ScalingOffset",  "ScalingPivot",  "Lcl Scaling"};

static bool is_rotation_prop(int p) { return p == P_PRE || p == P_R || p == P_POST; }

/* ---- building the document --------------------------------------------------------------------
 */

static bool prop_id(const rk__fbx_prop *p, int64_t *id) {
  double d;
  if (rk__fbx_prop_int(p, id))
    return true;
  if (rk__fbx_prop_number(p, &d) && d == floor(d) && fabs(d) < 9e18) {
    *id = (int64_t)d;
    return true;
  }
  return false;
}

static const fbx_object *object_by_id(const rk__fbx_doc *doc, int64_t id) {
  gpointer v = g_hash_table_lookup(doc->by_id, &id);
  return v ? &g_array_index(doc->objects, fbx_object, GPOINTER_TO_UINT(v) - 1) : NULL;
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

static void object_clear(gpointer p) { g_free(((fbx_object *)p)->name); }

/* Indexes the objects and connections of doc->tree (parsed); false with an error when the tree is
 * not an FBX 7 document (doc is then freed by the caller). */
static bool doc_build(rk__fbx_doc *doc, const char *name, GError **error) {
  doc->objects = g_array_new(FALSE, TRUE, sizeof(fbx_object));
  g_array_set_clear_func(doc->objects, object_clear);
  doc->by_id = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  doc->conns = g_array_new(FALSE, FALSE, sizeof(fbx_conn));
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
    if (!prop_id(rk__fbx_node_prop(n, 0), &id))
      continue; /* FBX 6 style objects (named, not numbered) are not read */
    fbx_object o = {id, n, NULL};
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
      const char *mname = g_array_index(doc->objects, fbx_object, oi).name;
      if (g_hash_table_contains(doc->by_name, mname))
        g_hash_table_replace(doc->by_name, g_strdup(mname), GINT_TO_POINTER(-1));
      else
        g_hash_table_insert(doc->by_name, g_strdup(mname), GINT_TO_POINTER((int)doc->models->len));
    }
  }
  for (size_t i = 0; i < conns->n_children; i++) {
    const rk__fbx_node *c = &conns->children[i];
    fbx_conn fc = {0, 0, NULL};
    if (strcmp(c->name, "C") != 0 || !prop_id(rk__fbx_node_prop(c, 1), &fc.src) ||
        !prop_id(rk__fbx_node_prop(c, 2), &fc.dst))
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
  if (!doc_build(doc, name, error)) {
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

static const fbx_object *model_object(const rk__fbx_doc *doc, int model) {
  return &g_array_index(doc->objects, fbx_object, g_array_index(doc->models, guint, (guint)model));
}

bool rk__fbx_doc_model_is_skeleton(const rk__fbx_doc *doc, int model) {
  const rk__fbx_prop *type = rk__fbx_node_prop(model_object(doc, model)->node, 2);
  return rk__fbx_prop_is(type, "LimbNode") || rk__fbx_prop_is(type, "Limb") ||
         rk__fbx_prop_is(type, "Root");
}

/* ---- properties -------------------------------------------------------------------------------
 */

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

static const rk__fbx_node *object_p(const rk__fbx_node *obj, const rk__fbx_node *tmpl,
                                    const char *name) {
  const rk__fbx_node *p = find_p(rk__fbx_node_child(obj, "Properties70"), name);
  return p ? p : find_p(tmpl, name);
}

static rk_vec3 p_vec3(const rk__fbx_node *p, rk_vec3 fallback) {
  double v[3];
  for (int k = 0; k < 3; k++)
    if (!rk__fbx_prop_number(rk__fbx_node_prop(p, 4 + (size_t)k), &v[k]) || !isfinite(v[k]))
      return fallback;
  return rk_vec3_make(v[0], v[1], v[2]);
}

static double p_number(const rk__fbx_node *p, double fallback) {
  double v;
  return rk__fbx_prop_number(rk__fbx_node_prop(p, 4), &v) && isfinite(v) ? v : fallback;
}

typedef struct model_info {
  rk_vec3 vals[P_COUNT]; /* static values */
  int order;             /* FBX RotationOrder 0..6 */
  bool rotation_active;
  int inherit;
} model_info;

static void model_read(const rk__fbx_doc *doc, int model, model_info *mi) {
  const rk__fbx_node *obj = model_object(doc, model)->node;
  for (int p = 0; p < P_COUNT; p++) {
    const rk_vec3 def = p == P_S ? rk_vec3_make(1, 1, 1) : rk_vec3_make(0, 0, 0);
    mi->vals[p] = p_vec3(object_p(obj, doc->model_template, chain_props[p]), def);
  }
  mi->order = (int)p_number(object_p(obj, doc->model_template, "RotationOrder"), 0);
  if (mi->order < 0 || mi->order > 6)
    mi->order = 0;
  mi->rotation_active = p_number(object_p(obj, doc->model_template, "RotationActive"), 0) != 0;
  mi->inherit = (int)p_number(object_p(obj, doc->model_template, "InheritType"), 0);
}

/* Rotation of FBX Euler angles (degrees) in FBX order 0..5 (eEulerXYZ .. eEulerZYX; 6, spheric,
 * is read as XYZ). FBX's eEulerABC rotates about A first, so it is R = R_C R_B R_A: rigkit's
 * order CBA with the angles reversed. */
static rk_mat3 fbx_euler(int order, rk_vec3 deg) {
  static const char *const names[6] = {"XYZ", "XZY", "YZX", "YXZ", "ZXY", "ZYX"};
  const char *n = names[order >= 0 && order < 6 ? order : 0];
  const double v[3] = {deg.x * RK_DEG, deg.y * RK_DEG, deg.z * RK_DEG};
  char rev[4] = {n[2], n[1], n[0], '\0'};
  rk_euler_order o = RK_EULER_ZYX;
  rk_euler_order_parse(rev, &o);
  const double a[3] = {v[n[2] - 'X'], v[n[1] - 'X'], v[n[0] - 'X']};
  return rk_euler_to_mat3(o, a);
}

static rk_mat4 translation(rk_vec3 v) { return rk_mat4_translation(v); }

static rk_mat4 compose(const rk_vec3 *vals, int order, bool rotation_active) {
  const rk_mat3 id3 = rk_mat3_identity();
  const rk_mat3 pre = rotation_active ? fbx_euler(0, vals[P_PRE]) : id3;
  const rk_mat3 post = rotation_active ? fbx_euler(0, vals[P_POST]) : id3;
  const rk_mat3 r = fbx_euler(rotation_active ? order : 0, vals[P_R]);
  const rk_mat3 post_inv = rk_mat3_transpose(&post);
  rk_mat3 rot = rk_mat3_mul(&pre, &r);
  rot = rk_mat3_mul(&rot, &post_inv);
  const rk_vec3 zero = rk_vec3_make(0, 0, 0);
  const rk_mat4 rot4 = rk_mat4_from_rt(&rot, zero);
  rk_mat4 s = rk_mat4_identity();
  s.m[0] = vals[P_S].x, s.m[5] = vals[P_S].y, s.m[10] = vals[P_S].z;
  const rk_mat4 parts[] = {
      translation(vals[P_T]),
      translation(vals[P_ROFF]),
      translation(vals[P_RP]),
      rot4,
      translation(rk_vec3_scale(vals[P_RP], -1)),
      translation(vals[P_SOFF]),
      translation(vals[P_SP]),
      s,
      translation(rk_vec3_scale(vals[P_SP], -1)),
  };
  rk_mat4 m = rk_mat4_identity();
  for (size_t i = 0; i < G_N_ELEMENTS(parts); i++)
    m = rk_mat4_mul(&m, &parts[i]);
  return m;
}

static void model_notes(const rk__fbx_doc *doc, int model, const model_info *mi, GPtrArray *notes) {
  if (!notes)
    return;
  const char *name = model_object(doc, model)->name;
  if (mi->rotation_active && mi->order == 6)
    g_ptr_array_add(notes,
                    g_strdup_printf("FBX Model '%s': spheric rotation order read as XYZ", name));
  if (mi->inherit == 2)
    g_ptr_array_add(notes, g_strdup_printf("FBX Model '%s': InheritType 2 (parent scale not "
                                           "inherited) read as a plain parent transform",
                                           name));
  if (!mi->rotation_active &&
      (rk_vec3_norm(mi->vals[P_PRE]) > 0 || rk_vec3_norm(mi->vals[P_POST]) > 0))
    g_ptr_array_add(notes, g_strdup_printf("FBX Model '%s': PreRotation/PostRotation ignored "
                                           "because RotationActive is off (as the FBX SDK does)",
                                           name));
}

rk_mat4 rk__fbx_doc_model_rest(const rk__fbx_doc *doc, int model, GPtrArray *notes) {
  model_info mi;
  model_read(doc, model, &mi);
  model_notes(doc, model, &mi, notes);
  return compose(mi.vals, mi.order, mi.rotation_active);
}

/* ---- animation --------------------------------------------------------------------------------
 */

typedef struct curve {
  size_t n;
  int64_t *t;
  double *v;
  guint8 *hold; /* 0 linear, 1 hold this key's value, 2 jump to the next key's value */
} curve;

static void curve_clear(curve *c) {
  g_free(c->t);
  g_free(c->v);
  g_free(c->hold);
  memset(c, 0, sizeof *c);
}

/* Decodes an AnimationCurve; keys outside [lo, hi] and keys whose time does not increase are
 * dropped. False (with no keys) when the curve is unreadable. */
static bool curve_read(const rk__fbx_node *node, int64_t lo, int64_t hi, curve *c) {
  memset(c, 0, sizeof *c);
  g_autofree int64_t *t = NULL;
  g_autofree double *v = NULL;
  g_autofree int64_t *flags = NULL, *refs = NULL;
  size_t nt = 0, nv = 0, nf = 0, nr = 0;
  const rk__fbx_node *kt = rk__fbx_node_child(node, "KeyTime");
  const rk__fbx_node *kv = rk__fbx_node_child(node, "KeyValueFloat");
  if (!kt || !kv || !rk__fbx_prop_int64s(rk__fbx_node_prop(kt, 0), &t, &nt, NULL) ||
      !rk__fbx_prop_doubles(rk__fbx_node_prop(kv, 0), &v, &nv, NULL) || nt != nv || nt == 0)
    return false;
  const rk__fbx_node *kf = rk__fbx_node_child(node, "KeyAttrFlags");
  const rk__fbx_node *kr = rk__fbx_node_child(node, "KeyAttrRefCount");
  /* Hold flags only when both arrays decode and agree in length (refs is NULL otherwise). */
  if (!(kf && kr && rk__fbx_prop_int64s(rk__fbx_node_prop(kf, 0), &flags, &nf, NULL) &&
        rk__fbx_prop_int64s(rk__fbx_node_prop(kr, 0), &refs, &nr, NULL) && nf == nr))
    nf = 0;
  c->t = g_new(int64_t, nt);
  c->v = g_new(double, nt);
  c->hold = g_new0(guint8, nt);
  size_t group = 0, left = nf ? (size_t)MAX(refs[0], 0) : 0;
  for (size_t k = 0; k < nt; k++) {
    guint8 hold = 0;
    while (nf && left == 0 && group + 1 < nf)
      left = (size_t)MAX(refs[++group], 0);
    if (nf && left > 0) {
      const int64_t f = flags[group];
      hold = (f & FLAG_CONSTANT) ? ((f & FLAG_CONSTANT_NEXT) ? 2 : 1) : 0;
      left--;
    }
    if (t[k] < lo || t[k] > hi || !isfinite(v[k]) || (c->n > 0 && t[k] <= c->t[c->n - 1]))
      continue;
    c->t[c->n] = t[k];
    c->v[c->n] = v[k];
    c->hold[c->n] = hold;
    c->n++;
  }
  return c->n > 0;
}

static double curve_eval(const curve *c, int64_t t) {
  if (t <= c->t[0])
    return c->v[0];
  if (t >= c->t[c->n - 1])
    return c->v[c->n - 1];
  size_t lo = 0, hi = c->n - 1;
  while (hi - lo > 1) {
    const size_t mid = (lo + hi) / 2;
    if (c->t[mid] <= t)
      lo = mid;
    else
      hi = mid;
  }
  if (c->hold[lo] == 1)
    return c->v[lo];
  if (c->hold[lo] == 2)
    return c->v[hi];
  const double s = (double)(t - c->t[lo]) / (double)(c->t[hi] - c->t[lo]);
  return c->v[lo] + (c->v[hi] - c->v[lo]) * s;
}

/* Indices of the connections into dst / out of src, in file order (NULL when none). */
static GArray *sources_of(const rk__fbx_doc *doc, int64_t dst) {
  return g_hash_table_lookup(doc->by_dst, &dst);
}

static GArray *targets_of(const rk__fbx_doc *doc, int64_t src) {
  return g_hash_table_lookup(doc->by_src, &src);
}

typedef struct stack_info {
  int64_t id;
  int64_t start, stop;
  bool has_range;
} stack_info;

static bool find_stack(const rk__fbx_doc *doc, const char *name, stack_info *si) {
  for (guint i = 0; i < doc->objects->len; i++) {
    const fbx_object *o = &g_array_index(doc->objects, fbx_object, i);
    if (strcmp(o->node->name, "AnimationStack") != 0 || strcmp(o->name, name) != 0)
      continue;
    si->id = o->id;
    int64_t v;
    const rk__fbx_node *ls = object_p(o->node, doc->stack_template, "LocalStart");
    const rk__fbx_node *le = object_p(o->node, doc->stack_template, "LocalStop");
    si->start = ls && prop_id(rk__fbx_node_prop(ls, 4), &v) ? v : 0;
    si->stop = le && prop_id(rk__fbx_node_prop(le, 4), &v) ? v : 0;
    si->has_range = si->start != 0 || si->stop != 0;
    return true;
  }
  return false;
}

bool rk__fbx_doc_has_stack(const rk__fbx_doc *doc, const char *name) {
  stack_info si;
  return find_stack(doc, name, &si);
}

/* Calls fn for every (curve node, target object, target property) in the stack's layers, layers
 * in connection order. */
typedef void (*curve_node_fn)(const rk__fbx_doc *doc, const fbx_object *cn, int64_t target,
                              const rk__fbx_prop *prop, void *user);

static void for_each_curve_node(const rk__fbx_doc *doc, const stack_info *si, curve_node_fn fn,
                                void *user) {
  GArray *layers = sources_of(doc, si->id);
  for (guint a = 0; layers && a < layers->len; a++) {
    const fbx_conn *lc = &g_array_index(doc->conns, fbx_conn, g_array_index(layers, guint, a));
    const fbx_object *layer = object_by_id(doc, lc->src);
    if (!layer || lc->prop || strcmp(layer->node->name, "AnimationLayer") != 0)
      continue;
    GArray *cns = sources_of(doc, layer->id);
    for (guint b = 0; cns && b < cns->len; b++) {
      const fbx_conn *cc = &g_array_index(doc->conns, fbx_conn, g_array_index(cns, guint, b));
      const fbx_object *cn = object_by_id(doc, cc->src);
      if (!cn || cc->prop || strcmp(cn->node->name, "AnimationCurveNode") != 0)
        continue;
      /* The curve node's target: its OP connection to an object property. */
      GArray *outs = targets_of(doc, cn->id);
      for (guint k = 0; outs && k < outs->len; k++) {
        const fbx_conn *t = &g_array_index(doc->conns, fbx_conn, g_array_index(outs, guint, k));
        if (t->prop)
          fn(doc, cn, t->dst, t->prop, user);
      }
    }
  }
}

/* The three component curves (d|X, d|Y, d|Z) of a curve node, as curve objects or NULL. */
static void curve_node_curves(const rk__fbx_doc *doc, const fbx_object *cn,
                              const fbx_object *out[3]) {
  out[0] = out[1] = out[2] = NULL;
  GArray *src = sources_of(doc, cn->id);
  for (guint i = 0; src && i < src->len; i++) {
    const fbx_conn *c = &g_array_index(doc->conns, fbx_conn, g_array_index(src, guint, i));
    const fbx_object *o = object_by_id(doc, c->src);
    if (!o || !c->prop || strcmp(o->node->name, "AnimationCurve") != 0)
      continue;
    for (int k = 0; k < 3; k++) {
      static const char *const comp[3] = {"d|X", "d|Y", "d|Z"};
      if (rk__fbx_prop_is(c->prop, comp[k]))
        out[k] = o;
    }
  }
}

typedef struct bind_ctx {
  int64_t model_id;
  const fbx_object *curves[P_COUNT][3];
  bool any;
  /* earliest key of any Lcl curve in the stack (Assimp's time origin without a time span),
   * searched only when want_min */
  bool want_min;
  int64_t min_tick;
  bool has_min;
} bind_ctx;

static void bind_curve_node(const rk__fbx_doc *doc, const fbx_object *cn, int64_t target,
                            const rk__fbx_prop *prop, void *user) {
  bind_ctx *b = user;
  int p = -1;
  for (int k = 0; k < P_COUNT; k++)
    if (rk__fbx_prop_is(prop, chain_props[k]))
      p = k;
  if (p < 0)
    return;
  const fbx_object *cs[3];
  curve_node_curves(doc, cn, cs);
  const fbx_object *tgt = object_by_id(doc, target);
  if (b->want_min && (p == P_T || p == P_R || p == P_S) && tgt &&
      strcmp(tgt->node->name, "Model") == 0)
    for (int k = 0; k < 3; k++) {
      curve c;
      if (cs[k] && curve_read(cs[k]->node, INT64_MIN, INT64_MAX, &c)) {
        if (!b->has_min || c.t[0] < b->min_tick)
          b->min_tick = c.t[0];
        b->has_min = true;
        curve_clear(&c);
      }
    }
  if (target != b->model_id)
    return;
  for (int k = 0; k < 3; k++)
    if (cs[k]) { /* later layers override earlier ones, component by component */
      b->curves[p][k] = cs[k];
      b->any = true;
    }
}

static int cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

void rk__fbx_samples_clear(rk__fbx_samples *s) {
  g_free(s->times);
  g_free(s->locals);
  memset(s, 0, sizeof *s);
}

bool rk__fbx_doc_sample(const rk__fbx_doc *doc, int model, const char *stack_name,
                        rk__fbx_samples *out, GPtrArray *notes) {
  memset(out, 0, sizeof *out);
  stack_info si;
  if (model < 0 || (guint)model >= doc->models->len || !find_stack(doc, stack_name, &si))
    return false;
  bind_ctx b;
  memset(&b, 0, sizeof b);
  b.model_id = model_object(doc, model)->id;
  b.want_min = !si.has_range;
  for_each_curve_node(doc, &si, bind_curve_node, &b);
  if (!b.any)
    return false;
  /* Assimp keeps keys within the stack's span (with 10000 ticks of slack) and counts time from
   * LocalStart, or from the earliest key of the stack when no span is given. */
  const int64_t lo = si.has_range ? si.start - 10000 : INT64_MIN;
  const int64_t hi = si.has_range ? si.stop + 10000 : INT64_MAX;
  const int64_t origin = si.has_range ? si.start : (b.has_min ? b.min_tick : 0);
  model_info mi;
  model_read(doc, model, &mi);
  model_notes(doc, model, &mi, notes);
  curve curves[P_COUNT][3];
  memset(curves, 0, sizeof curves);
  GArray *ticks = g_array_new(FALSE, FALSE, sizeof(int64_t));
  for (int p = 0; p < P_COUNT; p++)
    for (int k = 0; k < 3; k++)
      if (b.curves[p][k] && curve_read(b.curves[p][k]->node, lo, hi, &curves[p][k]))
        g_array_append_vals(ticks, curves[p][k].t, (guint)curves[p][k].n);
  g_array_sort(ticks, cmp_i64);
  guint m = 0;
  for (guint i = 0; i < ticks->len; i++) {
    const int64_t t = g_array_index(ticks, int64_t, i);
    if (m == 0 || t != g_array_index(ticks, int64_t, m - 1))
      g_array_index(ticks, int64_t, m++) = t;
  }
  g_array_set_size(ticks, m);
  /* Extra samples where a rotation component turns by more than 90 degrees between two sample
   * times, so that interpolating the composed rotations follows the Euler curves. */
  GArray *all = g_array_sized_new(FALSE, FALSE, sizeof(int64_t), m);
  for (guint i = 0; i < m; i++) {
    const int64_t t1 = g_array_index(ticks, int64_t, i);
    if (i > 0) {
      const int64_t t0 = g_array_index(ticks, int64_t, i - 1);
      double turn = 0;
      for (int p = 0; p < P_COUNT; p++)
        for (int k = 0; k < 3 && is_rotation_prop(p); k++)
          if (curves[p][k].n)
            turn = fmax(turn, fabs(curve_eval(&curves[p][k], t1) - curve_eval(&curves[p][k], t0)));
      const double pieces = ceil(turn / 90.0);
      if (pieces > 1 && pieces < 1e6)
        for (int64_t s = 1; s < (int64_t)pieces; s++) {
          const int64_t t = t0 + (int64_t)((double)(t1 - t0) * ((double)s / pieces));
          if (t > t0 && t < t1)
            g_array_append_val(all, t);
        }
    }
    g_array_append_val(all, t1);
  }
  g_array_unref(ticks);
  out->count = all->len;
  out->times = g_new(double, all->len ? all->len : 1);
  out->locals = g_new(rk_mat4, all->len ? all->len : 1);
  for (guint i = 0; i < all->len; i++) {
    const int64_t t = g_array_index(all, int64_t, i);
    rk_vec3 vals[P_COUNT];
    memcpy(vals, mi.vals, sizeof vals);
    for (int p = 0; p < P_COUNT; p++) {
      if (curves[p][0].n)
        vals[p].x = curve_eval(&curves[p][0], t);
      if (curves[p][1].n)
        vals[p].y = curve_eval(&curves[p][1], t);
      if (curves[p][2].n)
        vals[p].z = curve_eval(&curves[p][2], t);
    }
    out->times[i] = (double)(t - origin) / (double)RK__FBX_TICKS_PER_SECOND;
    out->locals[i] = compose(vals, mi.order, mi.rotation_active);
  }
  g_array_unref(all);
  for (int p = 0; p < P_COUNT; p++)
    for (int k = 0; k < 3; k++)
      curve_clear(&curves[p][k]);
  if (out->count == 0) {
    rk__fbx_samples_clear(out);
    return false;
  }
  return true;
}

/* ---- checks before Assimp ---------------------------------------------------------------------
 */

/* True when object o is a Deformer of the given class ("Skin", "Cluster"; the class is the
 * object's third property). */
static bool is_deformer(const fbx_object *o, const char *cls) {
  return strcmp(o->node->name, "Deformer") == 0 && rk__fbx_prop_is(rk__fbx_node_prop(o->node, 2), cls);
}

/* 'name' of an object for messages, or its id when it has no name (g_free). */
static char *object_label(const fbx_object *o) {
  return *o->name ? g_strdup_printf("'%s'", o->name) : g_strdup_printf("%" G_GINT64_FORMAT, o->id);
}

/* Control points of a Geometry object (Vertices holds x, y, z each), or -1 when unreadable. */
static int64_t geometry_points(const fbx_object *g) {
  const rk__fbx_node *v = rk__fbx_node_child(g->node, "Vertices");
  const rk__fbx_prop *p = v ? rk__fbx_node_prop(v, 0) : NULL;
  return p && p->type != 'S' ? (int64_t)(p->count / 3) : -1;
}

/* Every vertex index of every skin cluster must be a control point of each geometry the cluster's
 * skin deforms: Assimp 5.2.5 asserts it (abort()) in FBXConverter::ConvertWeights. */
static bool check_skin_clusters(const rk__fbx_doc *doc, GError **error) {
  for (guint i = 0; i < doc->objects->len; i++) {
    const fbx_object *cl = &g_array_index(doc->objects, fbx_object, i);
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
    const GArray *skins = targets_of(doc, cl->id);
    for (guint a = 0; skins && a < skins->len; a++) {
      const fbx_object *sk =
          object_by_id(doc, g_array_index(doc->conns, fbx_conn, g_array_index(skins, guint, a)).dst);
      if (!sk || !is_deformer(sk, "Skin"))
        continue;
      const GArray *geos = targets_of(doc, sk->id);
      for (guint b = 0; geos && b < geos->len; b++) {
        const fbx_object *g =
            object_by_id(doc, g_array_index(doc->conns, fbx_conn, g_array_index(geos, guint, b)).dst);
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
    const fbx_object *cn = &g_array_index(doc->objects, fbx_object, i);
    if (strcmp(cn->node->name, "AnimationCurveNode") != 0)
      continue;
    const GArray *outs = targets_of(doc, cn->id);
    bool rotation = false;
    for (guint k = 0; outs && k < outs->len; k++) {
      const fbx_conn *t = &g_array_index(doc->conns, fbx_conn, g_array_index(outs, guint, k));
      rotation = rotation || (t->prop && rk__fbx_prop_is(t->prop, "Lcl Rotation"));
    }
    if (!rotation)
      continue;
    const fbx_object *cs[3];
    curve_node_curves(doc, cn, cs);
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
    const fbx_object *m =
        &g_array_index(doc->objects, fbx_object, g_array_index(doc->models, guint, i));
    const GArray *outs = targets_of(doc, m->id);
    bool bone = false;
    for (guint k = 0; outs && k < outs->len && !bone; k++) {
      const fbx_conn *c = &g_array_index(doc->conns, fbx_conn, g_array_index(outs, guint, k));
      const fbx_object *d = object_by_id(doc, c->dst);
      bone = d && !c->prop && is_deformer(d, "Cluster");
    }
    if (!bone)
      continue;
    const fbx_object *other = g_hash_table_lookup(seen, m->name);
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
  const fbx_conn *c = &g_array_index(doc->conns, fbx_conn, ci);
  const guint index = GPOINTER_TO_UINT(g_hash_table_lookup(doc->by_id, &c->src)); /* + 1 */
  return c->prop || index == 0 ? -1 : model_of[index - 1];
}

/* Object-object connections into node x of check_model_hierarchy (a model, or the root). */
static const GArray *hierarchy_kids(const rk__fbx_doc *doc, guint x) {
  return sources_of(doc, x == doc->models->len ? 0 : model_object(doc, (int)x)->id);
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
      g_autofree char *a = object_label(model_object(doc, c));
      g_autofree char *b =
          x == root ? g_strdup("the root") : object_label(model_object(doc, (int)x));
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
      g_autofree char *a = object_label(model_object(doc, (int)x));
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
  if (!doc_build(doc, name, doc_error)) {
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
