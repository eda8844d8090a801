/* Retargeting, the source's contacts: where the clip's ground is, whether the ground itself moves
 * (in-place cycles), which sole points (heel, ball, tip) are planted frame by frame (low AND still:
 * a foot that slides or pivots keeps its motion), the slides (low and moving), the phase of each
 * foot (heel strike, flat, toe-off, pivot, slide), and where the target's planted points are
 * pinned. */
#include "retarget_run.h"

#include <rigkit/halves.h>
#include "stats.h"

#include <math.h>
#include <string.h>

/* Values per median worth a second thread. */
#define MEDIAN_THREAD_VALUES 4096

/* The upper median of v[n] (reordered). */
typedef struct median_job {
  double *v, median;
  size_t n;
} median_job;

static gpointer median_of(gpointer data) {
  median_job *j = data;
  j->median = rk__select_median(j->v, j->n, true);
  return NULL;
}

/* The source's points where its feet stand, for sole slot k: a detached foot's own (its clip may
 * leave the leg's end away from it), else the sole's. */
static const rk_vec3 *standing(const rk__rt_run *c, size_t k) {
  return c->src_stand && c->rt->side[k / RK__RT_POINTS].src_stand.foot >= 0 ? c->src_stand
                                                                          : c->src_pts;
}

/* The ground's own motion: the median horizontal velocity of the low sole points. About zero for
 * a clip that travels; the treadmill speed for an in-place cycle, whose stance feet slide back by
 * design. Such a clip either keeps no planted feet, or (root_motion) travels by the opposite
 * velocity so that its stance feet stand still. */
static void ground_motion(rk__rt_run *c, double floor) {
  const rk_retargeter *rt = c->rt;
  rk_retarget_result *res = c->res;
  const size_t frames = c->frames;
  const double H = rt->smap.height;
  g_autofree double *vx = g_new(double, frames * RK__RT_SOLE_SLOTS + 1);
  g_autofree double *vz = g_new(double, frames * RK__RT_SOLE_SLOTS + 1);
  size_t n = 0;
  for (size_t k = 0; k < RK__RT_SOLE_SLOTS; k++)
    for (size_t f = 0; f < frames; f++) {
      if (RK__RT_SOLE(c->src_pts, f, k).y - floor > c->opts->contact_height * H)
        continue;
      size_t a = f > 0 ? f - 1 : f, b = f + 1 < frames ? f + 1 : f;
      if (a == b)
        continue;
      const rk_vec3 d = rk_vec3_sub(RK__RT_SOLE(c->src_pts, b, k), RK__RT_SOLE(c->src_pts, a, k));
      rk_vec3 v = rk_vec3_scale(d, c->fps / (double)(b - a));
      vx[n] = v.x;
      vz[n++] = v.z;
    }
  if (n > 0) {
    /* The two medians at once on a long clip (each its own array: the same bits). */
    median_job mx = {vx, 0, n}, mz = {vz, 0, n};
    rk_halves_run(median_of, &mx, &mz, n >= MEDIAN_THREAD_VALUES);
    res->ground_velocity = rk_vec3_make(mx.median, 0, mz.median);
  }
  /* In place when the ground slides faster than 10% of the height per second (a walk's
   * stance moves back at 60-90%; a planted foot drifts well under 10%). */
  res->in_place = rk_vec3_norm(res->ground_velocity) > 0.1 * H;
  if (res->in_place && c->opts->root_motion) {
    c->travel = rk_vec3_scale(res->ground_velocity, -1.0);
    res->travel = c->travel;
    for (size_t f = 0; f < frames; f++)
      for (size_t k = 0; k < RK__RT_SOLE_SLOTS; k++) {
        const rk_vec3 d = rk_vec3_scale(c->travel, rk__rt_frame_time(c, f));
        RK__RT_SOLE(c->src_pts, f, k) = rk_vec3_add(RK__RT_SOLE(c->src_pts, f, k), d);
        if (standing(c, k) == c->src_stand) /* the slots of a side without a stand are unset */
          RK__RT_SOLE(c->src_stand, f, k) = rk_vec3_add(RK__RT_SOLE(c->src_stand, f, k), d);
      }
  }
}

/* Frames over which a point's stillness is judged: 0.04 s. */
static size_t still_window(const rk__rt_run *c) {
  return (size_t)MAX(1, lround(0.04 * c->fps));
}

/* The speed below which a point is still: contact_speed, or on a treadmill made to travel, still
 * on the moving ground: within a fifth of its speed (the stance feet of an in-place cycle never
 * slide back quite evenly). */
static double still_speed(const rk__rt_run *c) {
  return fmax(c->opts->contact_speed * c->rt->smap.height, 0.2 * rk_vec3_norm(c->travel));
}

/* Whether sole slot k is still at frame f on a ground moving at velocity `ground` (w:
 * still_window, limit: still_speed): its mean speed relative to the ground over the 0.04 s
 * before f or the 0.04 s after it (a touching-down point is still from its first frame on the
 * floor, a lifting one until it leaves; capture noise averages out, a pivot's slow sweep does
 * not) below the threshold. */
static bool still_in(const rk__rt_run *c, const rk_vec3 *pts, size_t k, size_t f, size_t w,
                     double limit, rk_vec3 ground) {
  const rk_vec3 p = RK__RT_SOLE(pts, f, k), carried = rk_vec3_scale(ground, (double)w / c->fps);
  if (f >= w && rk_vec3_norm(rk_vec3_sub(rk_vec3_sub(p, RK__RT_SOLE(pts, f - w, k)), carried)) *
                        c->fps / (double)w <=
                    limit)
    return true;
  return f + w < c->frames &&
         rk_vec3_norm(rk_vec3_sub(rk_vec3_sub(RK__RT_SOLE(pts, f + w, k), p), carried)) * c->fps /
                 (double)w <=
             limit;
}

static bool is_still(const rk__rt_run *c, size_t k, size_t f, size_t w, double limit) {
  return still_in(c, c->src_pts, k, f, w, limit, rk_vec3_make(0, 0, 0));
}

/* The clip's ground: first the typical height of the lowest sole point (some point of a foot
 * stands on the ground in most frames of any clip), then the median height of the points that
 * are low and still on it (without any, the soles' lowest level over the clip); the source's y = 0 when that is within 0.3% of its height (the mocap
 * convention, capture noise aside). A leg whose foot is a detached part is measured where that
 * foot stands: a leg the clip leaves above its foot is not the ground. The stance feet of an
 * in-place cycle kept in place stand on its moving ground: still on it where they move with it
 * (within a fifth of its speed, as a treadmill made to travel). Judged still on a fixed ground,
 * none was, and the soles' lowest level over the clip (one foot sinking 30 mm deeper than the
 * other at its lowest) floated a robot's walk 28.7 mm over the floor its other stance stood on. */
static double clip_floor(rk__rt_run *c) {
  const size_t frames = c->frames;
  const double H = c->rt->smap.height;
  g_autofree double *v = g_new(double, frames * RK__RT_SOLE_SLOTS);
  for (size_t f = 0; f < frames; f++) {
    v[f] = INFINITY;
    for (size_t k = 0; k < RK__RT_SOLE_SLOTS; k++)
      v[f] = fmin(v[f], RK__RT_SOLE(standing(c, k), f, k).y);
  }
  const double first = rk__select_median(v, frames, false);
  ground_motion(c, first);
  size_t n = 0;
  const size_t w = still_window(c);
  const bool treadmill = c->res->in_place && !c->opts->root_motion;
  const rk_vec3 ground = treadmill ? c->res->ground_velocity : rk_vec3_make(0, 0, 0);
  const double limit = treadmill ? fmax(still_speed(c), 0.2 * rk_vec3_norm(ground)) : still_speed(c);
  for (size_t f = 0; f < frames; f++)
    for (size_t k = 0; k < RK__RT_SOLE_SLOTS; k++) {
      const rk_vec3 *pts = standing(c, k);
      const double y = RK__RT_SOLE(pts, f, k).y;
      if (y - first <= c->opts->contact_height * H && still_in(c, pts, k, f, w, limit, ground))
        v[n++] = y;
    }
  /* No point low and still (a run in place is in the air half the time, its stance soles slide):
   * the soles' lowest level over the clip, the 5th percentile of the frames' lowest so that a
   * glitch frame in twenty is not the ground (the median of a run is mid-stride, far above it).
   * v[0..frames) still holds the frames' lowest then, permuted. */
  const double floor = n ? rk__select_median(v, n, false) : rk__select(v, frames, frames / 20);
  return fabs(floor) <= 0.003 * H ? 0.0 : floor;
}

/* Runs of on[] closed over one-frame gaps (noise) and kept when at least min_frames long. */
static GArray *runs_of(bool *on, size_t frames, int min_frames) {
  GArray *out = g_array_new(FALSE, FALSE, sizeof(rk_contact_interval));
  for (size_t f = 1; f + 1 < frames; f++)
    if (!on[f] && on[f - 1] && on[f + 1])
      on[f] = true;
  for (size_t f = 0; f < frames;) {
    if (!on[f]) {
      f++;
      continue;
    }
    size_t g = f;
    while (g + 1 < frames && on[g + 1])
      g++;
    if ((int)(g - f + 1) >= min_frames) {
      rk_contact_interval iv = {(int)f, (int)g};
      g_array_append_val(out, iv);
    }
    f = g + 1;
  }
  return out;
}

/* Drops from each end of a planted interval of sole slot k the frames where the point is already
 * (or still) farther from its median place than 0.1% of the source's height (or half what the
 * stillness test lets it move): a point starting or stopping to move is still slow there, but
 * pinned it would pull the foot back. An interval left shorter than min_frames goes. */
static void trim_ends(const rk__rt_run *c, size_t k, GArray *iv, int min_frames) {
  const double tol = fmax(0.001 * c->rt->smap.height,
                          0.5 * still_speed(c) * (double)still_window(c) / c->fps);
  g_autofree double *axis = g_new(double, c->frames);
  for (guint i = iv->len; i-- > 0;) {
    rk_contact_interval *ci = &g_array_index(iv, rk_contact_interval, i);
    const size_t len = (size_t)(ci->last - ci->first + 1);
    double med[3];
    for (int a = 0; a < 3; a++) {
      for (size_t u = 0; u < len; u++) {
        const rk_vec3 q = RK__RT_SOLE(c->src_pts, (size_t)ci->first + u, k);
        axis[u] = a == 0 ? q.x : a == 1 ? q.y : q.z;
      }
      med[a] = rk__select_median(axis, len, false);
    }
    const rk_vec3 m = rk_vec3_make(med[0], med[1], med[2]);
    while (ci->first < ci->last &&
           rk_vec3_norm(rk_vec3_sub(RK__RT_SOLE(c->src_pts, ci->first, k), m)) > tol)
      ci->first++;
    while (ci->last > ci->first &&
           rk_vec3_norm(rk_vec3_sub(RK__RT_SOLE(c->src_pts, ci->last, k), m)) > tol)
      ci->last--;
    if (ci->last - ci->first + 1 < min_frames)
      g_array_remove_index(iv, i);
  }
}

/* Intervals of a per-frame flag array (copied: runs_of closes gaps in place). */
static GArray *runs_of_copy(const bool *on, size_t frames, int min_frames) {
  g_autofree bool *tmp = g_memdup2(on, frames * sizeof(bool));
  return runs_of(tmp, frames, min_frames);
}

/* Marks flags[f * stride] for every frame f of the intervals iv (in [0, frames)). */
static void mark_intervals(const GArray *iv, bool *flags, size_t stride, size_t frames) {
  for (guint i = 0; i < iv->len; i++) {
    const rk_contact_interval *ci = &g_array_index(iv, rk_contact_interval, i);
    for (int f = MAX(ci->first, 0); f <= ci->last && (size_t)f < frames; f++)
      flags[(size_t)f * stride] = true;
  }
}

/* The phase of a foot at frame f from its planted points (planted: frame f's row, per sole
 * slot), whether it slides, and which low points move across the floor about the planted ones. */
static rk_foot_phase phase_at(const rk__rt_run *c, int side, size_t f, const bool *low,
                              const bool *planted_row, bool sliding) {
  bool planted[RK__RT_POINTS], sweeping[RK__RT_POINTS];
  const double sweep = c->opts->contact_speed * c->rt->smap.height;
  for (int p = 0; p < RK__RT_POINTS; p++) {
    const size_t k = (size_t)(side * RK__RT_POINTS + p);
    planted[p] = planted_row[k];
    const size_t a = f > 0 ? f - 1 : f, b = f + 1 < c->frames ? f + 1 : f;
    const rk_vec3 sa = RK__RT_SOLE(c->src_pts, a, k), sb = RK__RT_SOLE(c->src_pts, b, k);
    const rk_vec3 d = rk__rt_horizontal(rk_vec3_sub(sb, sa));
    sweeping[p] = low[f * RK__RT_SOLE_SLOTS + k] && !planted[p] && b > a &&
                  rk_vec3_norm(d) * c->fps / (double)(b - a) > sweep;
  }
  const bool heel = planted[RK_SOLE_HEEL], front = planted[RK_SOLE_BALL] || planted[RK_SOLE_TIP];
  if (heel && front)
    return RK_FOOT_FLAT;
  if (heel)
    return sweeping[RK_SOLE_BALL] || sweeping[RK_SOLE_TIP] ? RK_FOOT_PIVOT : RK_FOOT_HEEL_STRIKE;
  if (front)
    return sweeping[RK_SOLE_HEEL] ? RK_FOOT_PIVOT : RK_FOOT_TOE_OFF;
  return sliding ? RK_FOOT_SLIDE : RK_FOOT_SWING;
}

/* Whether joint j of a foot is held still at frame f by the sole points planted there: the toe
 * joint by its ball (the toes flat under it), the foot by its heel and its ball or tip (the sole
 * flat), a foot without toes by any two points, a leg without a foot bone by its one point. */
static bool joint_held(const rk__rt_run *c, int side, int j, const bool *planted_row) {
  const bool *on = planted_row + side * RK__RT_POINTS;
  if (c->rt->side[side].footless)
    return on[RK_SOLE_HEEL];
  if (c->rt->side[side].toe < 0)
    return on[RK_SOLE_HEEL] + on[RK_SOLE_BALL] + on[RK_SOLE_TIP] >= 2;
  if (j == c->rt->side[side].toe)
    return on[RK_SOLE_BALL];
  return on[RK_SOLE_HEEL] && (on[RK_SOLE_BALL] || on[RK_SOLE_TIP]);
}

/* The contact joints' intervals: the frames their planted sole points (planted: per frame and
 * sole slot) hold them still. */
static void joint_intervals(rk__rt_run *c, size_t frames, const bool *planted) {
  const rk_retargeter *rt = c->rt;
  rk_retarget_result *res = c->res;
  g_autofree bool *on = g_new(bool, frames);
  for (size_t k = 0; k < rt->foot_count; k++) {
    for (size_t f = 0; f < frames; f++)
      on[f] = joint_held(c, rt->contact_side[k], rt->contact_joint[k],
                         planted + f * RK__RT_SOLE_SLOTS);
    res->contact_joint[k] = rt->contact_joint[k];
    res->intervals[k] = runs_of(on, frames, 1);
  }
}

/* The sides whose detached foot stands apart from the leg's end (rk__rt_side.stand_apart) and
 * that the clip leaves further from it than the contact height at some frame: the source stands
 * on that foot, so its sole points are the foot's (both measured on the sole: after
 * rk__rt_roll_soles). A clip that keys the foot where its leg ends changes nothing. */
static void stand_apart(rk__rt_run *c) {
  const rk_retargeter *rt = c->rt;
  const double tol = c->opts->contact_height * rt->smap.height;
  for (int side = 0; side < 2; side++) {
    c->apart[side] = false;
    for (size_t f = 0; f < c->frames && rt->side[side].stand_apart && !c->apart[side]; f++)
      for (int p = 0; p < RK__RT_POINTS; p++) {
        const size_t k = (size_t)(side * RK__RT_POINTS + p);
        if (rk_vec3_norm(rk_vec3_sub(RK__RT_SOLE(c->src_stand, f, k), RK__RT_SOLE(c->src_pts, f, k))) > tol)
          c->apart[side] = true;
      }
    for (size_t f = 0; f < c->frames && c->apart[side]; f++)
      memcpy(&RK__RT_SOLE(c->src_pts, f, side * RK__RT_POINTS), &RK__RT_SOLE(c->src_stand, f, side * RK__RT_POINTS),
             RK__RT_POINTS * sizeof(rk_vec3));
  }
}

void rk__rt_find_contacts(rk__rt_run *c) {
  const rk_retargeter *rt = c->rt;
  rk_retarget_result *res = c->res;
  const size_t frames = c->frames;
  rk__rt_roll_soles(c);
  stand_apart(c);
  c->src_floor = clip_floor(c);
  res->src_floor = c->src_floor;
  const double H = rt->smap.height;
  const int min_frames = MAX(1, (int)ceil(c->opts->contact_min_time * c->fps));
  const bool plant = !res->in_place || c->opts->root_motion;
  /* Per sole point and frame: low (near the ground) and still (3D speed: a heel lifting off
   * rises). */
  g_autofree bool *low = g_new(bool, frames * RK__RT_SOLE_SLOTS);
  g_autofree bool *planted = g_new0(bool, frames * RK__RT_SOLE_SLOTS);
  g_autofree bool *sliding = g_new0(bool, frames);
  g_autofree bool *on = g_new(bool, frames);
  const size_t w = still_window(c);
  const double limit = still_speed(c);
  for (size_t f = 0; f < frames; f++)
    for (size_t k = 0; k < RK__RT_SOLE_SLOTS; k++)
      low[f * RK__RT_SOLE_SLOTS + k] =
          RK__RT_SOLE(c->src_pts, f, k).y - c->src_floor <= c->opts->contact_height * H;
  for (int side = 0; side < 2; side++) {
    /* A target leg without a foot bone stands on one point under its ankle: it holds while the
     * source's heel does; on the source's ball alone (the heel rising) it is already swinging. */
    const int points = rt->side[side].footless ? 1 : RK__RT_POINTS;
    for (int p = 0; p < RK__RT_POINTS; p++) {
      const size_t k = (size_t)(side * RK__RT_POINTS + p);
      for (size_t f = 0; f < frames; f++)
        on[f] = plant && p < points && low[f * RK__RT_SOLE_SLOTS + k] && is_still(c, k, f, w, limit);
      res->points[side][p] = runs_of(on, frames, min_frames);
      /* (A rolling point's pin moves with it: nothing to pull back.) */
      if (!rk__rt_rolls(rt, side))
        trim_ends(c, k, res->points[side][p], min_frames);
      res->sole_joint[side][p] = c->tsole[side]->joint[p];
      /* Per frame, whether the point is planted (the passes below ask at every frame). */
      mark_intervals(res->points[side][p], planted + k, RK__RT_SOLE_SLOTS, frames);
    }
    /* Sliding: low but no point planted. */
    for (size_t f = 0; f < frames; f++) {
      bool any_low = false, any_planted = false;
      for (int p = 0; p < points; p++) {
        const size_t k = (size_t)(side * RK__RT_POINTS + p);
        any_low |= low[f * RK__RT_SOLE_SLOTS + k];
        any_planted |= planted[f * RK__RT_SOLE_SLOTS + k];
      }
      on[f] = plant && any_low && !any_planted;
    }
    res->slides[side] = runs_of_copy(on, frames, min_frames);
    memset(sliding, 0, frames * sizeof *sliding);
    mark_intervals(res->slides[side], sliding, 1, frames);
    for (size_t f = 0; f < frames; f++)
      res->phase[f * 2 + (size_t)side] =
          (guint8)phase_at(c, side, f, low, planted + f * RK__RT_SOLE_SLOTS, sliding[f]);
  }
  joint_intervals(c, frames, planted);
}

/* ---- pins ------------------------------------------------------------------------------------ */

/* The pin of interval iv of sole point p of a side: the transferred target point's median place
 * horizontally (per axis: robust to the first and last frames), on the floor. axis has room for
 * the interval's frames. */
static rk_vec3 interval_pin(const rk__rt_run *c, const rk_vec3 *pts, int side, int p,
                            const rk_contact_interval *iv, double *axis) {
  const size_t k = (size_t)(side * RK__RT_POINTS + p);
  const size_t len = (size_t)(iv->last - iv->first + 1);
  double med[2];
  for (int a = 0; a < 2; a++) {
    for (size_t u = 0; u < len; u++) {
      const rk_vec3 q = RK__RT_SOLE(pts, (size_t)iv->first + u, k);
      axis[u] = a == 0 ? q.x : q.z;
    }
    med[a] = rk__select_median(axis, len, false);
  }
  /* On the floor, as high above it as the point stands above the foot's lowest point at rest (a
   * flat foot stands as its rest shape has it, its mesh touching the floor). */
  return rk_vec3_make(med[0], c->tgt_floor + c->tsole[side]->rest[p].y - c->tlow[side], med[1]);
}

/* An interval of one sole point, for ordering a foot's intervals by their start. */
typedef struct pin_ref {
  int point, first, last;
  rk_vec3 *pin;
} pin_ref;

static gint by_start(gconstpointer a, gconstpointer b) {
  const pin_ref *x = a, *y = b;
  return x->first != y->first ? (x->first > y->first) - (x->first < y->first) : x->point - y->point;
}

/* The turn about the vertical (as cos, sin) that takes horizontal direction `from` onto `to`. */
static void turn_of(rk_vec3 from, rk_vec3 to, double *cs, double *sn) {
  const double a = atan2(to.x, to.z) - atan2(from.x, from.z);
  *cs = cos(a);
  *sn = sin(a);
}

/* v (horizontal) turned by (cs, sn) about the vertical. */
static rk_vec3 turned(rk_vec3 v, double cs, double sn) {
  return rk_vec3_make(cs * v.x + sn * v.z, 0, -sn * v.x + cs * v.z);
}

/* A point planted while other points of its foot already hold is fitted to them: the sole is
 * rigid (the toes flat), so its pin is where the foot's rest shape puts it, laid onto the
 * earliest holding pin and turned onto the line to the next one (or onto its own median's
 * direction). Intervals are taken by start; at the same frame the heel leads the ball, the ball
 * the tip. */
static void fit_pins(rk__rt_run *c, int side) {
  const rk_sole *sole = c->tsole[side];
  g_autoptr(GArray) refs = g_array_new(FALSE, FALSE, sizeof(pin_ref));
  for (int p = 0; p < RK__RT_POINTS; p++)
    for (guint i = 0; i < c->res->points[side][p]->len; i++) {
      const rk_contact_interval *iv = &g_array_index(c->res->points[side][p], rk_contact_interval, i);
      pin_ref r = {p, iv->first, iv->last, &g_array_index(c->pins[side][p], rk_vec3, i)};
      g_array_append_val(refs, r);
    }
  g_array_sort(refs, by_start);
  /* The holding intervals of each point are its seen ones from the earliest not yet ended: the
   * starts only grow and a point's intervals are disjoint, so that earliest one only moves on
   * (a scan of every earlier interval per interval was quadratic in the clip's length). */
  g_autofree guint *seen = g_new(guint, RK__RT_POINTS * (refs->len + 1));
  guint count[RK__RT_POINTS] = {0}, head[RK__RT_POINTS] = {0};
  for (guint i = 0; i < refs->len; i++) {
    pin_ref *r = &g_array_index(refs, pin_ref, i);
    /* The two leads: the earliest holding interval of another point, then of the third. */
    const pin_ref *lead[2] = {NULL, NULL};
    guint at[2] = {0, 0};
    for (int p = 0; p < RK__RT_POINTS; p++) {
      const guint *mine = seen + (size_t)p * (refs->len + 1);
      while (head[p] < count[p] && g_array_index(refs, pin_ref, mine[head[p]]).last < r->first)
        head[p]++;
      if (p == r->point || head[p] == count[p])
        continue;
      const guint k = mine[head[p]];
      if (!lead[0] || k < at[0]) {
        lead[1] = lead[0], at[1] = at[0];
        lead[0] = &g_array_index(refs, pin_ref, k), at[0] = k;
      } else if (!lead[1] || k < at[1]) {
        lead[1] = &g_array_index(refs, pin_ref, k), at[1] = k;
      }
    }
    seen[(size_t)r->point * (refs->len + 1) + count[r->point]++] = i;
    if (!lead[0])
      continue;
    const rk_vec3 a = *lead[0]->pin, rest_a = sole->rest[lead[0]->point];
    /* The same place of the sole (a leg that ends in one point): the same pin. */
    if (rk_vec3_norm(rk__rt_horizontal(rk_vec3_sub(sole->rest[r->point], rest_a))) < 1e-9) {
      *r->pin = a;
      r->pin->y = a.y + sole->rest[r->point].y - rest_a.y;
      continue;
    }
    const rk_vec3 want = lead[1] ? rk_vec3_sub(*lead[1]->pin, a) : rk_vec3_sub(*r->pin, a);
    const rk_vec3 have = lead[1] ? rk_vec3_sub(sole->rest[lead[1]->point], rest_a)
                                 : rk_vec3_sub(sole->rest[r->point], rest_a);
    if (rk_vec3_norm(rk__rt_horizontal(want)) < 1e-9 || rk_vec3_norm(rk__rt_horizontal(have)) < 1e-9)
      continue;
    double cs, sn;
    turn_of(rk__rt_horizontal(have), rk__rt_horizontal(want), &cs, &sn);
    *r->pin = rk_vec3_add(a, turned(rk__rt_horizontal(rk_vec3_sub(sole->rest[r->point], rest_a)), cs, sn));
    r->pin->y = a.y + sole->rest[r->point].y - rest_a.y;
  }
}

void rk__rt_place_pins(rk__rt_run *c) {
  const rk_retarget_result *res = c->res;
  g_autofree double *axis = g_new(double, c->frames);
  /* Legs of one bone stand where the source's feet do, not where the transferred thighs point. */
  g_autofree rk_vec3 *placed = NULL;
  const rk_vec3 *pts = c->tgt_pts;
  if (rk__rt_stiff_legs(c->rt) && c->src_pts) {
    placed = g_memdup2(c->tgt_pts, c->frames * RK__RT_SOLE_SLOTS * sizeof(rk_vec3));
    rk__rt_stiff_places(c, placed);
    pts = placed;
  }
  for (int side = 0; side < 2; side++) {
    for (int p = 0; p < RK__RT_POINTS; p++) {
      c->pins[side][p] = g_array_new(FALSE, FALSE, sizeof(rk_vec3));
      for (guint i = 0; i < res->points[side][p]->len; i++) {
        rk_vec3 m = interval_pin(c, pts, side, p, &g_array_index(res->points[side][p], rk_contact_interval, i),
                                 axis);
        g_array_append_val(c->pins[side][p], m);
      }
    }
    fit_pins(c, side);
  }
  rk__rt_stiff_apart(c);
  rk__rt_roll_pins(c);
  /* The sole points the transfer leaves (the plots' FK-only tracks). */
  memcpy(c->res->sole_fk, c->tgt_pts, c->frames * RK__RT_SOLE_SLOTS * sizeof(rk_vec3));
}
