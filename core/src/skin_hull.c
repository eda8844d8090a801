/* The candidate reduction of rigkit/skin.h (skin_hull.h): an incremental convex hull of the points
 * that hardly move in their joint's frame, checked closed and convex, and the depth of every point
 * inside it. A point deeper than its own reach plus the hull points' reach can never be extreme;
 * of the points that do not move at all, only the hull's corners can. A point the hull leaves out
 * as inside is at most eps outside it (1e-6 of the points' extent or distance from the origin,
 * whichever is larger: above the rounding of float positions, so the hull makes no slivers of
 * rounding noise): the lowest candidate is at most that far above the lowest vertex. */
#include "skin_hull.h"

#include "stats.h"

#include <glib.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* A hull triangle: vertices counter-clockwise seen from outside, unit outward normal n, plane
 * n.x = c. */
typedef struct face {
  int v[3];
  rk_vec3 n;
  double c;
} face;

/* A point index and a sort key. */
typedef struct keyed {
  double key;
  int i;
} keyed;

static int cmp_keyed_desc(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  if (x->key != y->key)
    return x->key < y->key ? 1 : -1;
  return (x->i > y->i) - (x->i < y->i);
}

static int cmp_edge(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static bool face_make(const rk_vec3 *p, int a, int b, int c, face *f) {
  rk_vec3 n = rk_vec3_cross(rk_vec3_sub(p[b], p[a]), rk_vec3_sub(p[c], p[a]));
  const double len = rk_vec3_norm(n);
  if (!(len > 0))
    return false;
  f->v[0] = a, f->v[1] = b, f->v[2] = c;
  f->n = rk_vec3_scale(n, 1.0 / len);
  f->c = rk_vec3_dot(f->n, p[a]);
  return true;
}

static double dist_to_line(rk_vec3 p, rk_vec3 a, rk_vec3 b) {
  rk_vec3 u = rk_vec3_normalize(rk_vec3_sub(b, a));
  return rk_vec3_norm(rk_vec3_cross(rk_vec3_sub(p, a), u));
}

/* The first tetrahedron: four of the points idx[0..m) far apart (an extreme point, the farthest
 * from it, the farthest from their line, the farthest from their plane), its faces outward.
 * False when the points span no volume (within eps). */
static bool hull_start(const rk_vec3 *p, const int *idx, size_t m, double eps, GArray *faces,
                       int t[4]) {
  int a = idx[0], b = -1, c = -1, d = -1;
  for (size_t k = 1; k < m; k++)
    if (p[idx[k]].x < p[a].x)
      a = idx[k];
  double best = eps;
  for (size_t k = 0; k < m; k++) {
    double dd = rk_vec3_norm(rk_vec3_sub(p[idx[k]], p[a]));
    if (dd > best)
      best = dd, b = idx[k];
  }
  if (b < 0)
    return false;
  best = eps;
  for (size_t k = 0; k < m; k++) {
    double dd = dist_to_line(p[idx[k]], p[a], p[b]);
    if (dd > best)
      best = dd, c = idx[k];
  }
  face base;
  if (c < 0 || !face_make(p, a, b, c, &base))
    return false;
  best = eps;
  for (size_t k = 0; k < m; k++) {
    double dd = fabs(rk_vec3_dot(base.n, p[idx[k]]) - base.c);
    if (dd > best)
      best = dd, d = idx[k];
  }
  if (d < 0)
    return false;
  t[0] = a, t[1] = b, t[2] = c, t[3] = d;
  const rk_vec3 centre =
      rk_vec3_scale(rk_vec3_add(rk_vec3_add(p[a], p[b]), rk_vec3_add(p[c], p[d])), 0.25);
  const int tri[4][3] = {{a, b, c}, {a, d, b}, {b, d, c}, {c, d, a}};
  for (int k = 0; k < 4; k++) {
    face f;
    if (!face_make(p, tri[k][0], tri[k][1], tri[k][2], &f))
      return false;
    if (rk_vec3_dot(f.n, centre) > f.c && !face_make(p, tri[k][0], tri[k][2], tri[k][1], &f))
      return false;
    g_array_append_val(faces, f);
  }
  return true;
}

static uint64_t edge_key(int a, int b) {
  return (uint64_t)(uint32_t)a << 32 | (uint32_t)b;
}

/* True when the horizon edges (the new faces' first two vertices) form loops: every vertex starts
 * one edge and ends one. keys is scratch. */
static bool horizon_loops(const GArray *fresh, GArray *keys) {
  const guint h = fresh->len;
  g_array_set_size(keys, 2 * h);
  uint64_t *k = (uint64_t *)(void *)keys->data;
  for (guint e = 0; e < h; e++) {
    k[e] = (uint32_t)g_array_index(fresh, face, e).v[0];
    k[h + e] = (uint32_t)g_array_index(fresh, face, e).v[1];
  }
  qsort(k, h, sizeof *k, cmp_edge);
  qsort(k + h, h, sizeof *k, cmp_edge);
  for (guint e = 0; e < h; e++)
    if (k[e] != k[h + e] || (e > 0 && k[e] == k[e - 1]))
      return false;
  return true;
}

/* Adds point i to the hull: the faces it sees (more than eps in front of them) go, a cone of new
 * faces from their horizon to it comes. Returns false, the hull unchanged, when the horizon is not
 * made of loops or a new face would be degenerate (the point is within rounding of the hull's
 * edges): the caller then keeps the point whatever the hull says. vis, keys, fresh: scratch. */
static bool hull_add(const rk_vec3 *p, int i, double eps, GArray *faces, GArray *vis, GArray *keys,
                     GArray *fresh) {
  g_array_set_size(vis, 0);
  g_array_set_size(keys, 0);
  for (guint f = 0; f < faces->len; f++) {
    const face *fc = &g_array_index(faces, face, f);
    if (rk_vec3_dot(fc->n, p[i]) - fc->c > eps) {
      const int fi = (int)f;
      g_array_append_val(vis, fi);
      for (int e = 0; e < 3; e++) {
        const uint64_t key = edge_key(fc->v[e], fc->v[(e + 1) % 3]);
        g_array_append_val(keys, key);
      }
    }
  }
  if (vis->len == 0)
    return true;
  qsort(keys->data, keys->len, sizeof(uint64_t), cmp_edge);
  g_array_set_size(fresh, 0);
  const int *vi = (const int *)(void *)vis->data;
  for (guint w = 0; w < vis->len; w++) {
    const face *f = &g_array_index(faces, face, vi[w]);
    for (int e = 0; e < 3; e++) {
      const int a = f->v[e], b = f->v[(e + 1) % 3];
      const uint64_t rev = edge_key(b, a);
      if (bsearch(&rev, keys->data, keys->len, sizeof(uint64_t), cmp_edge))
        continue;
      face nf;
      if (!face_make(p, a, b, i, &nf))
        return false;
      g_array_append_val(fresh, nf);
    }
  }
  if (!horizon_loops(fresh, keys))
    return false;
  /* Visible faces are listed in ascending order: remove from the back. */
  for (guint w = vis->len; w-- > 0;)
    g_array_remove_index_fast(faces, (guint)vi[w]);
  g_array_append_vals(faces, fresh->data, fresh->len);
  return true;
}

/* True when the faces close up (every directed edge once, with its reverse once) and every hull
 * vertex lies behind every face plane within tol: then the faces bound the convex hull of their
 * vertices, and a point's least distance to their planes is its depth inside it. */
static bool hull_check(const rk_vec3 *p, const GArray *faces, double tol) {
  const guint nf = faces->len;
  g_autofree uint64_t *edges = g_new(uint64_t, 3 * (size_t)nf + 1);
  GHashTable *verts = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (guint f = 0; f < nf; f++) {
    const face *fc = &g_array_index(faces, face, f);
    for (int e = 0; e < 3; e++) {
      edges[3 * f + (guint)e] = (uint64_t)(uint32_t)fc->v[e] << 32 | (uint32_t)fc->v[(e + 1) % 3];
      g_hash_table_add(verts, GINT_TO_POINTER(fc->v[e] + 1));
    }
  }
  qsort(edges, 3 * (size_t)nf, sizeof *edges, cmp_edge);
  bool ok = nf >= 4;
  for (size_t k = 0; ok && k < 3 * (size_t)nf; k++) {
    const uint64_t rev = edges[k] << 32 | edges[k] >> 32;
    ok = (k + 1 == 3 * (size_t)nf || edges[k + 1] != edges[k]) &&
         bsearch(&rev, edges, 3 * (size_t)nf, sizeof *edges, cmp_edge) != NULL;
  }
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init(&it, verts);
  while (ok && g_hash_table_iter_next(&it, &key, NULL)) {
    const rk_vec3 q = p[GPOINTER_TO_INT(key) - 1];
    for (guint f = 0; ok && f < nf; f++) {
      const face *fc = &g_array_index(faces, face, f);
      ok = rk_vec3_dot(fc->n, q) - fc->c <= tol;
    }
  }
  g_hash_table_destroy(verts);
  return ok;
}

/* The hull of the points idx[0..m) into faces, setting forced[i] for the points it could not take
 * in; false when they span no volume, the faces outnumber what a hull of m points has, or the
 * hull fails hull_check. */
static bool hull_build(const rk_vec3 *p, const int *idx, size_t m, double eps, double tol,
                       GArray *faces, bool *forced) {
  g_array_set_size(faces, 0);
  int t[4];
  if (m < 4 || !hull_start(p, idx, m, eps, faces, t))
    return false;
  /* Far points first: they take most of the others inside at once. */
  const rk_vec3 centre = rk_vec3_scale(
      rk_vec3_add(rk_vec3_add(p[t[0]], p[t[1]]), rk_vec3_add(p[t[2]], p[t[3]])), 0.25);
  g_autofree keyed *order = g_new(keyed, m);
  for (size_t k = 0; k < m; k++)
    order[k] = (keyed){rk_vec3_norm(rk_vec3_sub(p[idx[k]], centre)), idx[k]};
  qsort(order, m, sizeof *order, cmp_keyed_desc);
  g_autoptr(GArray) vis = g_array_new(FALSE, FALSE, sizeof(int));
  g_autoptr(GArray) keys = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  g_autoptr(GArray) fresh = g_array_new(FALSE, FALSE, sizeof(face));
  for (size_t k = 0; k < m; k++) {
    const int i = order[k].i;
    if (i == t[0] || i == t[1] || i == t[2] || i == t[3])
      continue;
    if (!hull_add(p, i, eps, faces, vis, keys, fresh))
      forced[i] = true;
    if (faces->len > 2 * m + 8)
      return false;
  }
  return hull_check(p, faces, tol);
}

/* Marks the points that may be extreme when the hull is that of the points with reach <= beta:
 * depth inside it <= own reach + beta + tol. When beta is 0, a point that does not move either
 * is kept only if it is a corner of the hull: the others lie in it (or within eps outside),
 * convex combinations of corners that do not move, never lower than all of them. Points the hull
 * could not take in are kept. Returns the count. */
static size_t keep_by_depth(const rk_vec3 *p, const double *reach, size_t n, const GArray *faces,
                            double beta, double tol, const bool *forced, bool *keep) {
  for (size_t i = 0; i < n; i++)
    keep[i] = forced[i];
  if (beta == 0)
    for (guint f = 0; f < faces->len; f++)
      for (int k = 0; k < 3; k++)
        keep[g_array_index(faces, face, f).v[k]] = true;
  size_t kept = 0;
  for (size_t i = 0; i < n; i++) {
    if (keep[i] || (beta == 0 && reach[i] == 0)) {
      kept += keep[i];
      continue;
    }
    double depth = INFINITY;
    for (guint f = 0; f < faces->len && depth > reach[i] + beta + tol; f++) {
      const face *fc = &g_array_index(faces, face, f);
      depth = fmin(depth, fc->c - rk_vec3_dot(fc->n, p[i]));
    }
    keep[i] = depth <= reach[i] + beta + tol;
    kept += keep[i];
  }
  return kept;
}

size_t rk__skin_hull_keep(const rk_vec3 *pts, const double *reach, size_t n, bool *keep) {
  for (size_t i = 0; i < n; i++)
    keep[i] = true;
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t i = 0; i < n; i++) {
    const double c[3] = {pts[i].x, pts[i].y, pts[i].z};
    for (int a = 0; a < 3; a++)
      lo[a] = fmin(lo[a], c[a]), hi[a] = fmax(hi[a], c[a]);
  }
  const double extent = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
  if (n < 5 || !(extent > 0) || !isfinite(extent))
    return n;
  /* Float positions round in proportion to their distance from the origin, not to the set's size.
   */
  double far = 0;
  for (int a = 0; a < 3; a++)
    far = fmax(far, fmax(fabs(lo[a]), fabs(hi[a])));
  const double eps = 1e-6 * fmax(extent, far), tol = 4 * eps;
  /* The hull's own points: those that move least. beta among reach's quantiles. */
  g_autofree double *sorted = g_new(double, n);
  size_t finite = 0;
  for (size_t i = 0; i < n; i++)
    if (isfinite(reach[i]))
      sorted[finite++] = reach[i];
  rk__sort_doubles(sorted, finite);
  g_autofree int *idx = g_new(int, n);
  g_autofree bool *trial = g_new(bool, n);
  g_autofree bool *forced = g_new(bool, n);
  g_autoptr(GArray) faces = g_array_new(FALSE, FALSE, sizeof(face));
  size_t best = n;
  double last = -1;
  for (int q = 0; q <= 4 && finite > 0; q++) {
    const double beta = sorted[(finite - 1) * (size_t)q / 4];
    if (beta == last)
      continue;
    last = beta;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
      if (reach[i] <= beta)
        idx[m++] = (int)i;
    for (size_t i = 0; i < n; i++)
      forced[i] = false;
    if (!hull_build(pts, idx, m, eps, tol, faces, forced))
      continue;
    const size_t kept = keep_by_depth(pts, reach, n, faces, beta, tol, forced, trial);
    if (kept < best) {
      best = kept;
      for (size_t i = 0; i < n; i++)
        keep[i] = trial[i];
    }
  }
  return best;
}
