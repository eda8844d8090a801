/* FBX animation (fbx_animation.h): a stack's layers, their curve nodes bound to a Model's chain
 * properties (later layers override earlier ones, component by component), and the curves
 * evaluated at their keys: linear between keys, or held for keys flagged constant
 * (KeyAttrFlags); cubic keys are read as linear, as Assimp reads every key. Times count from the
 * stack's LocalStart, or from its earliest key when it declares no span, as Assimp counts them. */
#include "fbx_animation.h"

#include "fbx_transform.h"

#include <string.h>

/* KeyAttrFlags bits (FbxAnimCurveDef). */
enum {
  FLAG_CONSTANT = 0x00000002,
  FLAG_CONSTANT_NEXT = 0x00000100,
};

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

/* ---- stacks and curve nodes ------------------------------------------------------------------ */

typedef struct stack_info {
  int64_t id;
  int64_t start, stop;
  bool has_range;
} stack_info;

static bool find_stack(const rk__fbx_doc *doc, const char *name, stack_info *si) {
  for (guint i = 0; i < doc->objects->len; i++) {
    const rk__fbx_object *o = &g_array_index(doc->objects, rk__fbx_object, i);
    if (strcmp(o->node->name, "AnimationStack") != 0 || strcmp(o->name, name) != 0)
      continue;
    si->id = o->id;
    int64_t v;
    const rk__fbx_node *ls = rk__fbx_object_p(o->node, doc->stack_template, "LocalStart");
    const rk__fbx_node *le = rk__fbx_object_p(o->node, doc->stack_template, "LocalStop");
    si->start = ls && rk__fbx_prop_id(rk__fbx_node_prop(ls, 4), &v) ? v : 0;
    si->stop = le && rk__fbx_prop_id(rk__fbx_node_prop(le, 4), &v) ? v : 0;
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
typedef void (*curve_node_fn)(const rk__fbx_doc *doc, const rk__fbx_object *cn, int64_t target,
                              const rk__fbx_prop *prop, void *user);

static void for_each_curve_node(const rk__fbx_doc *doc, const stack_info *si, curve_node_fn fn,
                                void *user) {
  GArray *layers = rk__fbx_sources_of(doc, si->id);
  for (guint a = 0; layers && a < layers->len; a++) {
    const rk__fbx_conn *lc = rk__fbx_conn_at(doc, layers, a);
    const rk__fbx_object *layer = rk__fbx_object_by_id(doc, lc->src);
    if (!layer || lc->prop || strcmp(layer->node->name, "AnimationLayer") != 0)
      continue;
    GArray *cns = rk__fbx_sources_of(doc, layer->id);
    for (guint b = 0; cns && b < cns->len; b++) {
      const rk__fbx_conn *cc = rk__fbx_conn_at(doc, cns, b);
      const rk__fbx_object *cn = rk__fbx_object_by_id(doc, cc->src);
      if (!cn || cc->prop || strcmp(cn->node->name, "AnimationCurveNode") != 0)
        continue;
      /* The curve node's target: its OP connection to an object property. */
      GArray *outs = rk__fbx_targets_of(doc, cn->id);
      for (guint k = 0; outs && k < outs->len; k++) {
        const rk__fbx_conn *t = rk__fbx_conn_at(doc, outs, k);
        if (t->prop)
          fn(doc, cn, t->dst, t->prop, user);
      }
    }
  }
}

void rk__fbx_curve_node_curves(const rk__fbx_doc *doc, const rk__fbx_object *cn,
                              const rk__fbx_object *out[3]) {
  out[0] = out[1] = out[2] = NULL;
  GArray *src = rk__fbx_sources_of(doc, cn->id);
  for (guint i = 0; src && i < src->len; i++) {
    const rk__fbx_conn *c = rk__fbx_conn_at(doc, src, i);
    const rk__fbx_object *o = rk__fbx_object_by_id(doc, c->src);
    if (!o || !c->prop || strcmp(o->node->name, "AnimationCurve") != 0)
      continue;
    for (int k = 0; k < 3; k++) {
      static const char *const comp[3] = {"d|X", "d|Y", "d|Z"};
      if (rk__fbx_prop_is(c->prop, comp[k]))
        out[k] = o;
    }
  }
}

/* ---- sampling -------------------------------------------------------------------------------- */

typedef struct bind_ctx {
  int64_t model_id;
  const rk__fbx_object *curves[RK__FBX_P_COUNT][3];
  bool any;
  /* earliest key of any Lcl curve in the stack (Assimp's time origin without a time span),
   * searched only when want_min */
  bool want_min;
  int64_t min_tick;
  bool has_min;
} bind_ctx;

static void bind_curve_node(const rk__fbx_doc *doc, const rk__fbx_object *cn, int64_t target,
                            const rk__fbx_prop *prop, void *user) {
  bind_ctx *b = user;
  const int p = rk__fbx_chain_index(prop);
  if (p < 0)
    return;
  const rk__fbx_object *cs[3];
  rk__fbx_curve_node_curves(doc, cn, cs);
  const rk__fbx_object *tgt = rk__fbx_object_by_id(doc, target);
  if (b->want_min && (p == RK__FBX_P_T || p == RK__FBX_P_R || p == RK__FBX_P_S) && tgt &&
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

/* The sample times of the curves: every key time once, in order, plus extra samples where a
 * rotation component turns by more than 90 degrees between two of them, so that interpolating
 * the composed rotations follows the Euler curves. A new array of int64 ticks. */
static GArray *sample_ticks(const curve curves[RK__FBX_P_COUNT][3]) {
  GArray *ticks = g_array_new(FALSE, FALSE, sizeof(int64_t));
  for (int p = 0; p < RK__FBX_P_COUNT; p++)
    for (int k = 0; k < 3; k++)
      if (curves[p][k].n)
        g_array_append_vals(ticks, curves[p][k].t, (guint)curves[p][k].n);
  g_array_sort(ticks, cmp_i64);
  guint m = 0;
  for (guint i = 0; i < ticks->len; i++) {
    const int64_t t = g_array_index(ticks, int64_t, i);
    if (m == 0 || t != g_array_index(ticks, int64_t, m - 1))
      g_array_index(ticks, int64_t, m++) = t;
  }
  g_array_set_size(ticks, m);
  GArray *all = g_array_sized_new(FALSE, FALSE, sizeof(int64_t), m);
  for (guint i = 0; i < m; i++) {
    const int64_t t1 = g_array_index(ticks, int64_t, i);
    if (i > 0) {
      const int64_t t0 = g_array_index(ticks, int64_t, i - 1);
      double turn = 0;
      for (int p = 0; p < RK__FBX_P_COUNT; p++)
        for (int k = 0; k < 3 && rk__fbx_chain_is_rotation(p); k++)
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
  return all;
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
  b.model_id = rk__fbx_model_object(doc, model)->id;
  b.want_min = !si.has_range;
  for_each_curve_node(doc, &si, bind_curve_node, &b);
  if (!b.any)
    return false;
  /* Assimp keeps keys within the stack's span (with 10000 ticks of slack) and counts time from
   * LocalStart, or from the earliest key of the stack when no span is given. */
  const int64_t lo = si.has_range ? si.start - 10000 : INT64_MIN;
  const int64_t hi = si.has_range ? si.stop + 10000 : INT64_MAX;
  const int64_t origin = si.has_range ? si.start : (b.has_min ? b.min_tick : 0);
  rk__fbx_model_info mi;
  rk__fbx_model_read(doc, model, &mi);
  rk__fbx_model_notes(doc, model, &mi, notes);
  curve curves[RK__FBX_P_COUNT][3];
  memset(curves, 0, sizeof curves);
  for (int p = 0; p < RK__FBX_P_COUNT; p++)
    for (int k = 0; k < 3; k++)
      if (b.curves[p][k])
        curve_read(b.curves[p][k]->node, lo, hi, &curves[p][k]);
  GArray *all = sample_ticks(curves);
  out->count = all->len;
  out->times = g_new(double, all->len ? all->len : 1);
  out->locals = g_new(rk_mat4, all->len ? all->len : 1);
  for (guint i = 0; i < all->len; i++) {
    const int64_t t = g_array_index(all, int64_t, i);
    rk_vec3 vals[RK__FBX_P_COUNT];
    memcpy(vals, mi.vals, sizeof vals);
    for (int p = 0; p < RK__FBX_P_COUNT; p++) {
      if (curves[p][0].n)
        vals[p].x = curve_eval(&curves[p][0], t);
      if (curves[p][1].n)
        vals[p].y = curve_eval(&curves[p][1], t);
      if (curves[p][2].n)
        vals[p].z = curve_eval(&curves[p][2], t);
    }
    out->times[i] = (double)(t - origin) / (double)RK__FBX_TICKS_PER_SECOND;
    out->locals[i] = rk__fbx_compose(vals, mi.order, mi.rotation_active);
  }
  g_array_unref(all);
  for (int p = 0; p < RK__FBX_P_COUNT; p++)
    for (int k = 0; k < 3; k++)
      curve_clear(&curves[p][k]);
  if (out->count == 0) {
    rk__fbx_samples_clear(out);
    return false;
  }
  return true;
}
