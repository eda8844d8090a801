/* rigkit/skin.h: building a skin support (each vertex skinned once at rest, grouped under its
 * dominant joint, reduced to candidates by skin_hull.c, bounded per weighted joint) and the
 * lowest-point queries. The sole points live in skin_sole.c. */
#include "skin_internal.h"

#include "skin_hull.h"

#include <rigkit/error.h>

#include <math.h>
#include <string.h>

/* One vertex at build time: ready to skin, its rest position and how far it can move in its
 * dominant joint's frame. */
typedef struct gathered {
  rk__skin_cand cand;
  rk_vec3 rest;
  double reach;
} gathered;

/* What gathering vertices needs of the skeleton. */
typedef struct build_ctx {
  const rk_skeleton *skeleton;
  size_t n;
  rk__skin_frames frames; /* rest models, inverse binds, rest inverses */
  rk_vec3 *pivot;         /* rest positions */
  int *path;              /* scratch, n entries */
} build_ctx;

/* How far a point r carried by joint k can move in joint j's rest frame when the joints between
 * them turn about their rest positions: each turn about o moves it by at most 2 |r' - o| <=
 * 2 (|r - o| + e), e how far it has moved already. The turns apply from k up to the common
 * ancestor, then from below the common ancestor down to j (undoing j's). INFINITY without a
 * common ancestor. */
static double chain_reach(const build_ctx *b, int j, int k, rk_vec3 r) {
  if (j == k)
    return 0;
  int top = k;
  while (top >= 0 && !rk_skeleton_is_ancestor(b->skeleton, (size_t)top, (size_t)j))
    top = rk_skeleton_parent(b->skeleton, (size_t)top);
  if (top < 0)
    return INFINITY;
  double e = 0;
  for (int a = k; a != top; a = rk_skeleton_parent(b->skeleton, (size_t)a))
    e = 3 * e + 2 * rk_vec3_norm(rk_vec3_sub(r, b->pivot[a]));
  size_t len = 0;
  for (int a = j; a != top; a = rk_skeleton_parent(b->skeleton, (size_t)a))
    b->path[len++] = a;
  while (len > 0)
    e = 3 * e + 2 * rk_vec3_norm(rk_vec3_sub(r, b->pivot[b->path[--len]]));
  return e;
}

/* Vertex v of mesh d (index mi) as a candidate: its influences (the attach joint for a rigid
 * mesh), the dominant one, its rest position and reach. */
static void gather_vertex(const build_ctx *b, const rk_mesh_data *d, size_t mi, size_t v,
                          gathered *g) {
  rk_skin_vertex sv;
  const int dom = rk__skin_vertex(&b->frames, d, v, &sv);
  memset(g, 0, sizeof *g);
  g->cand.mesh = (uint32_t)mi;
  g->cand.vertex = (uint32_t)v;
  g->cand.dominant = sv.joint[dom];
  g->cand.count = sv.count;
  rk_vec3 r[4];
  for (int k = 0; k < 4; k++) {
    g->cand.joint[k] = k < sv.count ? sv.joint[k] : sv.joint[dom];
    if (k >= sv.count)
      continue;
    const rk_vec3 q = sv.local[k];
    const double w = sv.weight[k];
    r[k] = rk_mat4_transform_point(&b->frames.rest[sv.joint[k]], q);
    g->rest = rk_vec3_add(g->rest, rk_vec3_scale(r[k], w));
    g->cand.wq[k][0] = w * q.x, g->cand.wq[k][1] = w * q.y, g->cand.wq[k][2] = w * q.z;
    g->cand.wq[k][3] = w;
  }
  for (int k = 0; k < sv.count; k++)
    if (k != dom)
      g->reach += sv.weight[k] * chain_reach(b, sv.joint[dom], sv.joint[k], r[k]);
}

/* Every vertex of the skinned and attached meshes, gathered; NULL with the error. */
static GArray *gather_meshes(const build_ctx *b, const rk_mesh *const *meshes, size_t mesh_count,
                             GError **error) {
  GArray *all = g_array_new(FALSE, FALSE, sizeof(gathered));
  for (size_t mi = 0; mi < mesh_count; mi++) {
    const rk_mesh_data *d = rk_mesh_data_get(meshes[mi]);
    if (!rk__skin_mesh_check(d, mi, b->n, error)) {
      g_array_free(all, TRUE);
      return NULL;
    }
    if (!d->joints && d->attach_joint < 0)
      continue;
    const guint at = all->len;
    g_array_set_size(all, at + (guint)d->vertex_count);
    for (size_t v = 0; v < d->vertex_count; v++)
      gather_vertex(b, d, mi, v, &g_array_index(all, gathered, at + (guint)v));
  }
  return all;
}

/* The index of weighted joint k's bound among bounds[first..), appended (empty) if new. */
static guint bound_of(GArray *bounds, guint first, int k) {
  guint bi = first;
  while (bi < bounds->len && g_array_index(bounds, rk__skin_bound, bi).joint != k)
    bi++;
  if (bi == bounds->len) {
    const rk__skin_bound fresh = {k, {INFINITY, INFINITY, INFINITY}, -INFINITY};
    g_array_append_val(bounds, fresh);
  }
  return bi;
}

/* The bounds of joint j's candidates: per weighted joint, a sphere around their positions in its
 * frame, centred on their bounding box (the first pass keeps its low corner in centre, its high
 * corner in hi). */
static void add_bounds(const rk_skin_support *s, size_t j, GArray *bounds) {
  const guint first = bounds->len;
  g_autoptr(GArray) hi = g_array_new(FALSE, FALSE, sizeof(rk_vec3));
  for (int pass = 0; pass < 2; pass++) {
    for (size_t c = s->cand_start[j]; c < s->cand_start[j + 1]; c++) {
      const rk__skin_cand *cd = &s->cands[c];
      for (int k = 0; k < 4; k++) {
        const double w = cd->wq[k][3];
        if (!(w > 0))
          continue;
        const rk_vec3 q = rk_vec3_make(cd->wq[k][0] / w, cd->wq[k][1] / w, cd->wq[k][2] / w);
        const guint bi = bound_of(bounds, first, cd->joint[k]);
        rk__skin_bound *bd = &g_array_index(bounds, rk__skin_bound, bi);
        if (pass == 1) {
          bd->radius = fmax(bd->radius, rk_vec3_norm(rk_vec3_sub(q, bd->centre)));
          continue;
        }
        const rk_vec3 lowest = {-INFINITY, -INFINITY, -INFINITY};
        if (hi->len <= bi - first)
          g_array_append_val(hi, lowest);
        rk_vec3 *h = &g_array_index(hi, rk_vec3, bi - first);
        bd->centre =
            rk_vec3_make(fmin(bd->centre.x, q.x), fmin(bd->centre.y, q.y), fmin(bd->centre.z, q.z));
        *h = rk_vec3_make(fmax(h->x, q.x), fmax(h->y, q.y), fmax(h->z, q.z));
      }
    }
    for (guint bi = first; pass == 0 && bi < bounds->len; bi++) {
      rk__skin_bound *bd = &g_array_index(bounds, rk__skin_bound, bi);
      bd->centre =
          rk_vec3_scale(rk_vec3_add(bd->centre, g_array_index(hi, rk_vec3, bi - first)), 0.5);
      bd->radius = 0;
    }
  }
}

/* The skeleton's frames for gathering: inverse binds, rest inverses, pivots. */
static void ctx_init(build_ctx *b, rk_skin_support *s) {
  b->skeleton = s->skeleton;
  b->n = s->joint_count;
  rk__skin_frames_init(&b->frames, s->skeleton, s->rest_models);
  b->pivot = g_new(rk_vec3, b->n);
  b->path = g_new(int, b->n);
  for (size_t j = 0; j < b->n; j++)
    b->pivot[j] = rk_mat4_get_translation(&s->rest_models[j]);
}

static void ctx_clear(build_ctx *b) {
  rk__skin_frames_clear(&b->frames);
  g_free(b->pivot);
  g_free(b->path);
}

/* Vertices that skin identically (the copies meshes make at seams and hard edges): the same
 * weighted positions in the same joints' frames. */
static guint cand_hash(gconstpointer p) {
  const rk__skin_cand *c = p;
  const unsigned char *bytes[2] = {(const unsigned char *)c->wq, (const unsigned char *)c->joint};
  const size_t len[2] = {sizeof c->wq, sizeof c->joint};
  guint h = 2166136261u;
  for (int part = 0; part < 2; part++)
    for (size_t i = 0; i < len[part]; i++)
      h = (h ^ bytes[part][i]) * 16777619u;
  return h;
}

static gboolean cand_equal(gconstpointer a, gconstpointer b) {
  const rk__skin_cand *x = a, *y = b;
  return memcmp(x->wq, y->wq, sizeof x->wq) == 0 &&
         memcmp(x->joint, y->joint, sizeof x->joint) == 0;
}

/* Sorts the gathered vertices by dominant joint: vert_start, their rest positions in vert_rest,
 * and order[i], the gathered vertex at sorted place i. */
static void group_vertices(rk_skin_support *s, const GArray *all, size_t *order) {
  const size_t n = s->joint_count, nv = all->len;
  s->vert_start = g_new0(size_t, n + 1);
  for (size_t v = 0; v < nv; v++)
    s->vert_start[g_array_index(all, gathered, v).cand.dominant + 1]++;
  for (size_t j = 0; j < n; j++)
    s->vert_start[j + 1] += s->vert_start[j];
  g_autofree size_t *fill = g_memdup2(s->vert_start, (n + 1) * sizeof(size_t));
  for (size_t v = 0; v < nv; v++)
    order[fill[g_array_index(all, gathered, v).cand.dominant]++] = v;
  s->vert_rest = g_new(rk_vec3, nv + 1);
  for (size_t i = 0; i < nv; i++)
    s->vert_rest[i] = g_array_index(all, gathered, order[i]).rest;
}

/* Appends to cands the candidates among the gathered vertices order[0..m) of one joint: one of
 * each set of copies, then those skin_hull.c keeps; those weighted to one joint first, the others
 * from *multi_start on. */
static void reduce_joint(const GArray *all, const size_t *order, size_t m, GArray *cands,
                         size_t *multi_start) {
  g_autoptr(GHashTable) seen = g_hash_table_new(cand_hash, cand_equal);
  g_autofree size_t *unique = g_new(size_t, m + 1);
  g_autofree rk_vec3 *rest = g_new(rk_vec3, m + 1);
  g_autofree double *reach = g_new(double, m + 1);
  g_autofree bool *keep = g_new(bool, m + 1);
  size_t u = 0;
  for (size_t i = 0; i < m; i++) {
    const gathered *g = &g_array_index(all, gathered, order[i]);
    if (!g_hash_table_add(seen, (gpointer)&g->cand))
      continue;
    unique[u] = order[i], rest[u] = g->rest, reach[u] = g->reach;
    u++;
  }
  rk__skin_hull_keep(rest, reach, u, keep);
  for (int multi = 0; multi < 2; multi++) {
    if (multi)
      *multi_start = cands->len;
    for (size_t i = 0; i < u; i++) {
      const rk__skin_cand *c = &g_array_index(all, gathered, unique[i]).cand;
      if (keep[i] && (c->wq[1][3] > 0 || c->wq[2][3] > 0 || c->wq[3][3] > 0) == multi)
        g_array_append_val(cands, *c);
    }
  }
}

/* Groups the gathered vertices by dominant joint, keeps each joint's candidates and bounds
 * them. */
static void group_and_reduce(rk_skin_support *s, const GArray *all) {
  const size_t n = s->joint_count;
  g_autofree size_t *order = g_new(size_t, all->len + 1);
  group_vertices(s, all, order);
  GArray *cands = g_array_new(FALSE, FALSE, sizeof(rk__skin_cand));
  s->cand_start = g_new0(size_t, n + 1);
  s->cand_multi = g_new0(size_t, n + 1);
  for (size_t j = 0; j < n; j++) {
    const size_t a = s->vert_start[j];
    reduce_joint(all, order + a, s->vert_start[j + 1] - a, cands, &s->cand_multi[j]);
    s->cand_start[j + 1] = cands->len;
  }
  s->cands = (rk__skin_cand *)(void *)g_array_free(cands, FALSE);
  GArray *bounds = g_array_new(FALSE, FALSE, sizeof(rk__skin_bound));
  s->bound_start = g_new0(size_t, n + 1);
  for (size_t j = 0; j < n; j++) {
    add_bounds(s, j, bounds);
    s->bound_start[j + 1] = bounds->len;
  }
  s->bounds = (rk__skin_bound *)(void *)g_array_free(bounds, FALSE);
}

rk_skin_support *rk_skin_support_new(rk_skeleton *skeleton, const rk_mesh *const *meshes,
                                     size_t mesh_count, GError **error) {
  g_return_val_if_fail(skeleton != NULL && (meshes != NULL || mesh_count == 0), NULL);
  rk_skin_support *s = g_new0(rk_skin_support, 1);
  s->skeleton = rk_skeleton_ref(skeleton);
  s->joint_count = rk_skeleton_joint_count(skeleton);
  s->rest_models = g_new(rk_mat4, s->joint_count);
  rk_skeleton_rest_models(skeleton, s->rest_models);
  build_ctx b;
  ctx_init(&b, s);
  GArray *all = gather_meshes(&b, meshes, mesh_count, error);
  ctx_clear(&b);
  if (!all) {
    rk_skin_support_free(s);
    return NULL;
  }
  group_and_reduce(s, all);
  g_array_free(all, TRUE);
  return s;
}

rk_skin_support *rk_skin_support_from_asset(const rk_asset *asset, GError **error) {
  g_return_val_if_fail(asset != NULL, NULL);
  size_t nm;
  g_autofree const rk_mesh **meshes = rk__skin_asset_meshes(asset, &nm);
  return rk_skin_support_new(rk_asset_skeleton(asset), meshes, nm, error);
}

void rk_skin_support_free(rk_skin_support *s) {
  if (!s)
    return;
  rk_skeleton_unref(s->skeleton);
  g_free(s->rest_models);
  g_free(s->vert_start);
  g_free(s->vert_rest);
  g_free(s->cand_start);
  g_free(s->cand_multi);
  g_free(s->cands);
  g_free(s->bound_start);
  g_free(s->bounds);
  g_free(s);
}

const rk_skeleton *rk_skin_support_skeleton(const rk_skin_support *s) {
  return s->skeleton;
}

/* The count in a joint-indexed start array for joint (-1: all), 0 out of range. */
static size_t count_of(const rk_skin_support *s, const size_t *start, int joint) {
  if (joint == -1)
    return start[s->joint_count];
  if (joint < 0 || (size_t)joint >= s->joint_count)
    return 0;
  return start[joint + 1] - start[joint];
}

size_t rk_skin_support_vertex_count(const rk_skin_support *s, int joint) {
  return count_of(s, s->vert_start, joint);
}

size_t rk_skin_support_candidate_count(const rk_skin_support *s, int joint) {
  return count_of(s, s->cand_start, joint);
}

/* ---- lowest points ----------------------------------------------------------------------------
 */

/* The candidate's height at the pose: row y of each weighted joint's model matrix applied to its
 * weighted position. The unused influences are left out: each would add a zero (of either sign),
 * which moves no height but the sign of a zero one, and heights are only compared. */
static inline double cand_height(const rk__skin_cand *c, const rk_mat4 *models) {
  double y = 0;
  for (int k = 0; k < c->count; k++) {
    const double *m = models[c->joint[k]].m, *w = c->wq[k];
    y += m[1] * w[0] + m[5] * w[1] + m[9] * w[2] + m[13] * w[3];
  }
  return y;
}

/* A lower bound of joint j's candidates' heights: a candidate's height is a weighted mean of its
 * weighted joints' heights of it, each above that joint's sphere's lowest point (the sphere's
 * radius scaled by the L1 norm of the matrix's y row, no less than its length). Comparisons, not
 * fmin: fmin is a libm call without -ffast-math. */
static inline double joint_floor(const rk_skin_support *s, const rk_mat4 *models, size_t j) {
  double lb = INFINITY;
  for (size_t b = s->bound_start[j]; b < s->bound_start[j + 1]; b++) {
    const rk__skin_bound *bd = &s->bounds[b];
    const double *m = models[bd->joint].m;
    const double row = fabs(m[1]) + fabs(m[5]) + fabs(m[9]);
    const double y =
        m[1] * bd->centre.x + m[5] * bd->centre.y + m[9] * bd->centre.z + m[13] - bd->radius * row;
    lb = y < lb ? y : lb;
  }
  return lb;
}

/* How many joints' bounds a query keeps on its stack between its two passes (more are computed
 * twice). */
#define SKIN_FLOORS_KEPT 256

typedef struct lowest {
  double y;
  const rk__skin_cand *cand;
} lowest;

static inline void joint_lowest(const rk_skin_support *s, const rk_mat4 *models, size_t j,
                                lowest *best) {
  const double *m = models[j].m;
  for (size_t c = s->cand_start[j]; c < s->cand_multi[j]; c++) {
    const double *w = s->cands[c].wq[0];
    const double y = m[1] * w[0] + m[5] * w[1] + m[9] * w[2] + m[13] * w[3];
    if (y < best->y)
      best->y = y, best->cand = &s->cands[c];
  }
  for (size_t c = s->cand_multi[j]; c < s->cand_start[j + 1]; c++) {
    const double y = cand_height(&s->cands[c], models);
    if (y < best->y)
      best->y = y, best->cand = &s->cands[c];
  }
}

/* The joints a query visits: list[0..n) when list is set, else lo .. hi - 1. */
typedef struct joint_set {
  const int *list;
  size_t n, lo, hi;
} joint_set;

/* The i-th joint of the set if it has candidates, else -1. */
static inline long set_joint(const rk_skin_support *s, const joint_set *set, size_t i) {
  const long j = set->list ? set->list[i] : (long)(set->lo + i);
  if (j < 0 || (size_t)j >= s->joint_count || s->cand_start[j] == s->cand_start[j + 1])
    return -1;
  return j;
}

/* The lowest candidate of the set's joints: the joint with the lowest bound first, then every
 * joint whose bound is below the best height found. */
static bool set_lowest(const rk_skin_support *s, const rk_mat4 *models, const joint_set *set,
                       rk_skin_point *out) {
  const size_t count = set->list ? set->n : set->hi - set->lo;
  double floors[SKIN_FLOORS_KEPT]; /* the bounds of the first joints, computed once */
  long first = -1;
  double first_lb = INFINITY;
  for (size_t i = 0; i < count; i++) {
    const long j = set_joint(s, set, i);
    if (j < 0)
      continue;
    const double lb = joint_floor(s, models, (size_t)j);
    if (i < SKIN_FLOORS_KEPT)
      floors[i] = lb;
    if (first < 0 || lb < first_lb)
      first = j, first_lb = lb;
  }
  if (first < 0)
    return false;
  lowest best = {INFINITY, NULL};
  joint_lowest(s, models, (size_t)first, &best);
  for (size_t i = 0; i < count; i++) {
    const long j = set_joint(s, set, i);
    if (j < 0 || j == first)
      continue;
    const double lb = i < SKIN_FLOORS_KEPT ? floors[i] : joint_floor(s, models, (size_t)j);
    if (lb < best.y)
      joint_lowest(s, models, (size_t)j, &best);
  }
  if (!best.cand)
    return false;
  rk_vec3 p = {0, 0, 0};
  for (int k = 0; k < 4; k++) {
    const double *w = best.cand->wq[k];
    rk_vec3 t = rk_mat4_transform_dir(&models[best.cand->joint[k]], rk_vec3_make(w[0], w[1], w[2]));
    p = rk_vec3_add(
        p,
        rk_vec3_add(t, rk_vec3_scale(rk_mat4_get_translation(&models[best.cand->joint[k]]), w[3])));
  }
  out->position = p;
  out->joint = best.cand->dominant;
  out->mesh = best.cand->mesh;
  out->vertex = best.cand->vertex;
  return true;
}

bool rk_skin_lowest(const rk_skin_support *s, const rk_mat4 *models, const int *joints,
                    size_t n_joints, rk_skin_point *out) {
  g_return_val_if_fail(s != NULL && models != NULL && out != NULL, false);
  const joint_set set = {joints, n_joints, 0, s->joint_count};
  return set_lowest(s, models, &set, out);
}

bool rk_skin_lowest_subtree(const rk_skin_support *s, const rk_mat4 *models, int joint,
                            rk_skin_point *out) {
  g_return_val_if_fail(s != NULL && models != NULL && out != NULL, false);
  if (joint < 0 || (size_t)joint >= s->joint_count)
    return false;
  const joint_set set = {NULL, 0, (size_t)joint,
                         rk_skeleton_subtree_end(s->skeleton, (size_t)joint)};
  return set_lowest(s, models, &set, out);
}

double rk_skin_bound_subtree(const rk_skin_support *s, const rk_mat4 *models, int joint) {
  g_return_val_if_fail(s != NULL && models != NULL, -INFINITY);
  if (joint < 0 || (size_t)joint >= s->joint_count)
    return -INFINITY;
  const joint_set set = {NULL, 0, (size_t)joint,
                         rk_skeleton_subtree_end(s->skeleton, (size_t)joint)};
  double lb = INFINITY;
  for (size_t i = 0; i < set.hi - set.lo; i++) {
    const long j = set_joint(s, &set, i);
    if (j < 0)
      continue;
    const double y = joint_floor(s, models, (size_t)j);
    if (isnan(y))
      return -INFINITY;
    lb = y < lb ? y : lb;
  }
  return isinf(lb) ? -INFINITY : lb;
}
