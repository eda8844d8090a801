/* What a BVH file leaves open, decided (bvh_decide.h):
 *  - the up axis: the axis along which spine and legs extend, the lateral axis being found by
 *    left/right symmetry;
 *  - the unit: the one that makes the skeleton 1.4-2.1 m tall;
 *  - neither for a planar mechanism (a rest skeleton lying in one plane: the textbook's robots,
 *    rings and junction trees): no body to measure, so BVH's own Y up and one metre per unit,
 *    the file's numbers kept;
 *  - the root OFFSET and position channels: readers disagree (BVH's definition adds them,
 *    Blender and Assimp let the channels replace the OFFSET); the reading that puts the lowest
 *    joints on the ground plane wins. */
#include "bvh_decide.h"

#include "conventions.h"

#include <stdlib.h>

/* Rest positions (zero rotations, OFFSET chain) in file units. */
rk_vec3 *rk__bvh_rest_positions(const rk__bvh_file *b) {
  const size_t n = b->joints->len;
  rk_vec3 *p = g_new(rk_vec3, n);
  for (size_t i = 0; i < n; i++) {
    const rk__bvh_joint *j = rk__bvh_joint_at(b, i);
    rk_vec3 o = rk_vec3_make(j->offset[0], j->offset[1], j->offset[2]);
    p[i] = j->parent >= 0 ? rk_vec3_add(p[j->parent], o) : o;
  }
  return p;
}

static double comp(rk_vec3 v, int a) {
  return a == 0 ? v.x : a == 1 ? v.y : v.z;
}

/* Bounds of the rest positions along each axis; returns the largest extent. */
static double bounds(const rk_vec3 *p, size_t n, double lo[3], double hi[3]) {
  double extent = 0;
  for (int a = 0; a < 3; a++) {
    lo[a] = INFINITY, hi[a] = -INFINITY;
    for (size_t i = 0; i < n; i++) {
      lo[a] = fmin(lo[a], comp(p[i], a));
      hi[a] = fmax(hi[a], comp(p[i], a));
    }
    extent = fmax(extent, hi[a] - lo[a]);
  }
  return extent;
}

/* The left/right mirror axis of the rest positions (p[0] the root), or -1 when none is clear:
 * the skeleton is its own mirror image across the plane through the root, to 2% of its size and
 * clearly better than across the other axes; a plane that holds every joint (a flat chain) is no
 * evidence. */
static int mirror_axis(const rk_vec3 *p, size_t n, const double lo[3], const double hi[3],
                       double extent) {
  double residual[3] = {INFINITY, INFINITY, INFINITY};
  if (n >= 3 && n <= 4000)
    for (int a = 0; a < 3; a++) {
      const double c = comp(p[0], a);
      double sum = 0;
      for (size_t i = 0; i < n; i++) {
        rk_vec3 m = p[i];
        if (a == 0)
          m.x = 2 * c - m.x;
        else if (a == 1)
          m.y = 2 * c - m.y;
        else
          m.z = 2 * c - m.z;
        double best = INFINITY;
        for (size_t k = 0; k < n; k++)
          best = fmin(best, rk_vec3_norm(rk_vec3_sub(m, p[k])));
        sum += best;
      }
      residual[a] = sum / (double)n / extent;
    }
  int lateral = 0;
  for (int a = 1; a < 3; a++)
    if (residual[a] < residual[lateral])
      lateral = a;
  double second = INFINITY;
  for (int a = 0; a < 3; a++)
    if (a != lateral)
      second = fmin(second, residual[a]);
  if (residual[lateral] < 0.02 && residual[lateral] < 0.5 * second &&
      hi[lateral] - lo[lateral] > 0.05 * extent)
    return lateral;
  return -1;
}

/* A planar mechanism: the rest skeleton has extent and lies in one plane (within 1e-9 of its
 * size). Captured bodies never do; textbook rigs drawn in the plane always do, and their mirror
 * symmetry (a ring has one) says nothing about a body. */
static bool planar_mechanism(const rk__bvh_file *b) {
  g_autofree rk_vec3 *p = rk__bvh_rest_positions(b);
  double lo[3], hi[3];
  const double extent = bounds(p, b->joints->len, lo, hi);
  bool flat = false;
  for (int a = 0; a < 3; a++)
    flat |= hi[a] - lo[a] <= 1e-9 * extent;
  return extent > 0 && flat;
}

static rk__bvh_up detect_up(const rk__bvh_file *b) {
  const size_t n = b->joints->len;
  g_autofree rk_vec3 *p = rk__bvh_rest_positions(b);
  rk__bvh_up g = {1, 1, -1};
  double lo[3], hi[3];
  const double extent = bounds(p, n, lo, hi);
  if (!(extent > 0))
    return g;
  g.lateral = mirror_axis(p, n, lo, hi, extent);
  /* Up: the axis carrying the most bone length (spine and legs), lateral excluded. */
  double along[3] = {0, 0, 0};
  for (size_t i = 0; i < n; i++)
    if (rk__bvh_joint_at(b, i)->parent >= 0)
      for (int a = 0; a < 3; a++)
        along[a] += fabs(rk__bvh_joint_at(b, i)->offset[a]);
  int up = -1;
  for (int a = 0; a < 3; a++)
    if (a != g.lateral && (up < 0 || along[a] > along[up]))
      up = a;
  g.axis = up;
  /* Sign, from the two ends of the body along the up axis: the feet end holds a left/right pair
   * off the mirror plane, the head end a joint on it (a raised pair of hands would make both ends
   * pairs: then the centroid decides). */
  if (g.lateral >= 0) {
    const double band = 0.03 * extent, root_lat = comp(p[0], g.lateral);
    double off[2] = {0, 0};
    for (int end = 0; end < 2; end++) {
      const double level = end ? hi[up] : lo[up];
      size_t count = 0;
      for (size_t i = 0; i < n; i++)
        if (fabs(comp(p[i], up) - level) <= band) {
          off[end] += fabs(comp(p[i], g.lateral) - root_lat);
          count++;
        }
      off[end] /= (double)(count ? count : 1);
    }
    const bool low_pair = off[0] > band, high_pair = off[1] > band;
    if (low_pair != high_pair) {
      g.sign = low_pair ? 1 : -1;
      return g;
    }
  }
  /* Otherwise most joints (arms, spine, head) sit above the root; legs hang below it. */
  double centroid = 0;
  for (size_t i = 0; i < n; i++)
    centroid += comp(p[i], up);
  centroid /= (double)n;
  double root_level = 0;
  size_t roots = 0;
  for (size_t i = 0; i < n; i++)
    if (rk__bvh_joint_at(b, i)->parent < 0) {
      root_level += comp(p[i], up);
      roots++;
    }
  root_level /= (double)(roots ? roots : 1);
  g.sign = centroid - root_level >= 0 ? 1 : -1;
  return g;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* In place: the median of v[0..n) (n > 0), v[n / 2] of v sorted by a stable insertion sort, the
 * same bits. Only zeros can be equal with other bits (+0 and -0), so a median among the zeros is
 * the one the stable order puts there, found in v's own order; any other median is the same value
 * however v is sorted (qsort: n log n, where the insertion sort was n^2 / 4 moves). A NaN leaves
 * no order to agree on: then the insertion sort itself. */
static double median_sorted(double *v, size_t n) {
  const size_t k = n / 2;
  size_t below = 0, zeros = 0;
  bool nan = false;
  for (size_t i = 0; i < n; i++) {
    below += v[i] < 0;
    zeros += v[i] == 0;
    nan |= isnan(v[i]);
  }
  if (nan) {
    for (size_t i = 1; i < n; i++)
      for (size_t m = i; m > 0 && v[m - 1] > v[m]; m--) {
        double t = v[m];
        v[m] = v[m - 1];
        v[m - 1] = t;
      }
    return v[k];
  }
  if (k >= below && k < below + zeros)
    for (size_t i = 0, z = 0; i < n; i++)
      if (v[i] == 0 && z++ == k - below)
        return v[i];
  qsort(v, n, sizeof *v, cmp_double);
  return v[k];
}

/* Lowest joint heights of sampled frames [s0, s1) of ground_heights, the two readings into
 * lows[s] and lows[samples + s]; a part of them runs on a thread of its own. */
typedef struct lows_run {
  const rk__bvh_file *b;
  rk_vec3 up;
  bool other_add;
  size_t samples, s0, s1;
  double *lows;
} lows_run;

static gpointer sample_lows(gpointer data) {
  const lows_run *w = data;
  const rk__bvh_file *b = w->b;
  const size_t n = b->joints->len, samples = w->samples;
  g_autofree rk_mat4 *world = g_new(rk_mat4, 2 * n);
  for (size_t s = w->s0; s < w->s1; s++) {
    const size_t f = samples > 1 ? s * (b->frames - 1) / (samples - 1) : 0;
    double low[2] = {INFINITY, INFINITY};
    for (size_t i = 0; i < n; i++) {
      const rk__bvh_joint *j = rk__bvh_joint_at(b, i);
      rk_transform x = rk_transform_identity();
      x.r = rk__bvh_joint_rotation(j, b->data + f * b->columns + j->first_channel);
      rk_mat4 local;
      for (int r = 0; r < 2; r++) {
        if (r == 0 || j->parent < 0) {
          x.t = rk__bvh_joint_translation(b, j, f, j->parent < 0 ? r == 0 : w->other_add);
          local = rk_transform_to_mat4(&x);
        }
        rk_mat4 *wr = world + (size_t)r * n;
        wr[i] = j->parent >= 0 ? rk_mat4_mul_affine(&wr[j->parent], &local) : local;
        low[r] = fmin(low[r], rk_vec3_dot(rk_mat4_get_translation(&wr[i]), w->up));
      }
    }
    w->lows[s] = low[0];
    w->lows[samples + s] = low[1];
  }
  return NULL;
}

/* The median of one reading's lows (the second reading's on a thread of its own). */
typedef struct median_run {
  double *v;
  size_t n;
  double median;
} median_run;

static gpointer median_of(gpointer data) {
  median_run *m = data;
  m->median = median_sorted(m->v, m->n);
  return NULL;
}

/* Samples worth a second thread (a long clip: the samples' FK and the insertion sorts). */
#define GROUND_THREAD_SAMPLES 256

/* Median over (sampled) frames of the lowest joint's height along `up`, with root position
 * channels added to the OFFSET (heights[0]) and replacing it (heights[1]), other joints' read as
 * `other_add`. The two readings share each frame's rotations and every non-root joint's local
 * transform; their world matrices are composed apart. A long clip's samples go in two halves on
 * two threads and each reading's median on its own (each sample's heights and each median the
 * same bits as on one). */
static void ground_heights(const rk__bvh_file *b, rk_vec3 up, bool other_add, double heights[2]) {
  const size_t samples = b->frames < 512 ? b->frames : 512;
  heights[0] = heights[1] = 0;
  if (samples == 0)
    return;
  g_autofree double *lows = g_new(double, 2 * samples);
  const bool two = samples >= GROUND_THREAD_SAMPLES && g_get_num_processors() > 1;
  lows_run w[2] = {{b, up, other_add, samples, 0, two ? samples / 2 : samples, lows},
                   {b, up, other_add, samples, two ? samples / 2 : samples, samples, lows}};
  rk_halves_run(sample_lows, &w[0], &w[1], two);
  median_run m[2] = {{lows, samples, 0}, {lows + samples, samples, 0}};
  rk_halves_run(median_of, &m[0], &m[1], two);
  heights[0] = m[0].median;
  heights[1] = m[1].median;
}

/* Non-root joints with position channels: do the channels carry the whole offset? */
static bool others_replace(const rk__bvh_file *b) {
  double diff = 0, mag = 0;
  size_t count = 0;
  for (guint i = 0; i < b->joints->len; i++) {
    const rk__bvh_joint *j = rk__bvh_joint_at(b, i);
    if (j->parent < 0 || !rk__bvh_has_position(j))
      continue;
    for (size_t f = 0; f < b->frames; f += 1 + b->frames / 256)
      for (int k = 0; k < j->n_channels; k++)
        if (j->channels[k] <= RK__BVH_ZPOS) {
          const double v = b->data[f * b->columns + j->first_channel + (size_t)k];
          diff += fabs(v - j->offset[j->channels[k]]);
          mag += fabs(v);
          count++;
        }
  }
  return count > 0 && diff < 0.5 * mag;
}

/* ---- decisions ------------------------------------------------------------------------------- */

rk_vec3 rk__bvh_up_vector(rk__bvh_up up) {
  return rk_vec3_make(up.axis == 0 ? up.sign : 0, up.axis == 1 ? up.sign : 0,
                      up.axis == 2 ? up.sign : 0);
}

bool rk__bvh_choose_up(const rk__bvh_file *b, const rk_import_options *opts, rk__raw_asset *raw,
                       rk__bvh_up *out, GError **error) {
  rk__bvh_up up = detect_up(b);
  const bool mechanism = planar_mechanism(b);
  if (mechanism)
    up.axis = 1, up.sign = 1;
  if (opts->up_axis) {
    int axis, sign;
    if (!rk_import_parse_axis(opts->up_axis, &axis, &sign)) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "invalid up axis '%s'", opts->up_axis);
      return false;
    }
    rk__raw_note(raw, "up axis %s given by the caller (detected: %s)",
                 rk__axis_name(axis, sign), rk__axis_name(up.axis, up.sign));
    up.axis = axis, up.sign = sign;
  } else if (mechanism) {
    rk__raw_note(raw, "up axis Y, BVH's own: the rest skeleton lies in one plane, a planar "
                      "mechanism rather than a body (see --up)");
  } else {
    rk__raw_note(
        raw, "up axis %s detected from the rest skeleton (bone length along each axis%s%s)",
        rk__axis_name(up.axis, up.sign), up.lateral >= 0 ? "; left/right mirror axis " : "",
        up.lateral >= 0 ? rk__axis_name(up.lateral, 1) : "");
  }
  rk__raw_set_up_axis(raw, rk__axis_name(up.axis, up.sign));
  *out = up;
  return true;
}

double rk__bvh_choose_unit(const rk__bvh_file *b, const rk_import_options *opts, rk_vec3 up_vec,
                           rk__raw_asset *raw) {
  double unit = 1.0;
  g_autofree rk_vec3 *p = rk__bvh_rest_positions(b);
  double lo = INFINITY, hi = -INFINITY;
  for (guint i = 0; i < b->joints->len; i++) {
    lo = fmin(lo, rk_vec3_dot(p[i], up_vec));
    hi = fmax(hi, rk_vec3_dot(p[i], up_vec));
  }
  const double height = hi - lo;
  if (opts->unit_scale > 0) {
    unit = opts->unit_scale;
    const char *name = rk__unit_name(unit);
    rk__raw_set_unit(raw, name ? name : "custom", unit);
    rk__raw_note(raw, "unit given by the caller: %g m per file unit", unit);
  } else if (planar_mechanism(b)) {
    rk__raw_set_unit(raw, "m", 1.0);
    rk__raw_note(raw, "BVH has no unit and the rest skeleton is a planar mechanism, not a body "
                      "with a height: file units taken as metres (see --unit)");
  } else if (height > 0) {
    bool fits = false;
    const char *name = rk__unit_guess_from_height(height, &unit, &fits);
    rk__raw_set_unit(raw, name, unit);
    if (fits)
      rk__raw_note(raw, "BVH has no unit: the rest skeleton is %.4g units tall, a human height "
                        "in %s (%g m per unit)", height, name, unit);
    else
      rk__raw_note(raw, "BVH has no unit: the rest skeleton is %.4g units tall, no human "
                        "height in any known unit; guessed %s (%g m per unit, see --unit)",
                   height, name, unit);
  } else {
    rk__raw_set_unit(raw, "m", 1.0);
    rk__raw_note(raw, "BVH has no unit and the skeleton has no height: assumed metres");
  }
  return unit;
}

void rk__bvh_choose_position_reading(const rk__bvh_file *b, const rk_import_options *opts,
                                     rk_vec3 up_vec, double unit, rk__raw_asset *raw,
                                     bool *root_add_out, bool *other_add_out) {
  bool root_add = true, other_add = true;
  bool any_root = false, any_other = false;
  for (guint i = 0; i < b->joints->len; i++) {
    if (!rk__bvh_has_position(rk__bvh_joint_at(b, i)))
      continue;
    if (rk__bvh_joint_at(b, i)->parent < 0)
      any_root = true;
    else
      any_other = true;
  }
  if (opts->bvh_root_offset != RK_BVH_ROOT_OFFSET_AUTO) {
    root_add = other_add = opts->bvh_root_offset == RK_BVH_ROOT_OFFSET_ADD;
    if (any_root || any_other)
      rk__raw_note(raw, "position channels %s the OFFSET (given by the caller)",
                   root_add ? "add to" : "replace");
  } else {
    if (any_other) {
      other_add = !others_replace(b);
      rk__raw_note(raw, "non-root position channels %s the OFFSET (their values %s it)",
                   other_add ? "add to" : "replace", other_add ? "do not contain" : "contain");
    }
    if (any_root && b->frames > 0) {
      double heights[2];
      ground_heights(b, up_vec, other_add, heights);
      const double g_add = heights[0] * unit, g_rep = heights[1] * unit;
      if (fabs(g_add - g_rep) < 1e-6) {
        rk__raw_note(raw, "root OFFSET has no height: both readings of the root position agree");
      } else {
        root_add = fabs(g_add) <= fabs(g_rep);
        rk__raw_note(raw, "root position channels %s the root OFFSET: lowest joints at %.3f m "
                          "(the other reading: %.3f m)",
                     root_add ? "add to" : "replace", root_add ? g_add : g_rep,
                     root_add ? g_rep : g_add);
      }
    }
  }
  *root_add_out = root_add;
  *other_add_out = other_add;
}
