/* The run's contact-interval lookups (core/src/retarget_run.c) against a plain scan of the
 * intervals: the same answers, weights and indices on evenly spaced, clustered, single and
 * empty interval lists. */
#include "rk_test.h"
#include "../../core/src/retarget_run.h"

/* Whether f lies in one of the intervals, by a scan. */
static bool scan_in(const GArray *iv, int f) {
  for (guint i = 0; iv && i < iv->len; i++) {
    const rk_contact_interval *ci = &g_array_index(iv, rk_contact_interval, i);
    if (f >= ci->first && f <= ci->last)
      return true;
  }
  return false;
}

/* The weight of f (smoothstep over `blend` frames either side) and its interval, by a scan. */
static double scan_weight(const GArray *iv, int f, int blend, int *index) {
  double best = 0;
  *index = -1;
  for (guint i = 0; iv && i < iv->len; i++) {
    const rk_contact_interval *ci = &g_array_index(iv, rk_contact_interval, i);
    int d = f < ci->first ? ci->first - f : f > ci->last ? f - ci->last : 0;
    if (d > 0 && (blend <= 0 || d > blend))
      continue;
    double w = d == 0 ? 1 : 1.0 - (double)d / (blend + 1);
    w = w * w * (3 - 2 * w);
    if (w > best) {
      best = w;
      *index = (int)i;
    }
  }
  return best;
}

static GArray *intervals(const int *bounds, size_t pairs) {
  GArray *iv = g_array_new(FALSE, FALSE, sizeof(rk_contact_interval));
  for (size_t i = 0; i < pairs; i++) {
    rk_contact_interval ci = {bounds[2 * i], bounds[2 * i + 1]};
    g_array_append_val(iv, ci);
  }
  return iv;
}

/* Every frame around the intervals, with blends from none to wider than the gaps; the weights
 * asked with a cursor carried from frame to frame (as the passes ask), with one carried from a
 * frame far away (every 37th frame, backwards), and with a fresh one. */
static void check_against_scan(const GArray *iv, int last_frame) {
  guint along[11] = {0}, far[11] = {0};
  for (int f = -12; f <= last_frame + 12; f++) {
    cr_assert_eq(rk__rt_in_intervals(iv, f), scan_in(iv, f), "frame %d", f);
    const int g = last_frame - (int)(((long)(f + 12) * 37) % (last_frame + 25));
    for (int blend = -1; blend <= 9; blend++) {
      int got_i, far_i, fresh_i, want_i;
      guint fresh = 0;
      const double got = rk__rt_interval_weight(iv, f, blend, &along[blend + 1], &got_i);
      const double want = scan_weight(iv, f, blend, &want_i);
      cr_assert(got == want && got_i == want_i, "frame %d blend %d: %g (%d), scan %g (%d)", f,
                blend, got, got_i, want, want_i);
      const double got_fresh = rk__rt_interval_weight(iv, f, blend, &fresh, &fresh_i);
      cr_assert(got_fresh == want && fresh_i == want_i, "frame %d blend %d, fresh cursor", f, blend);
      const double got_far = rk__rt_interval_weight(iv, g, blend, &far[blend + 1], &far_i);
      const double want_far = scan_weight(iv, g, blend, &want_i);
      cr_assert(got_far == want_far && far_i == want_i, "frame %d blend %d, far cursor", g, blend);
    }
  }
}

Test(retarget_run, interval_lookups_match_a_scan) {
  /* A gait: evenly spaced stances. */
  g_autoptr(GArray) gait = g_array_new(FALSE, FALSE, sizeof(rk_contact_interval));
  for (int k = 0; k < 300; k++) {
    rk_contact_interval ci = {k * 14 + 2, k * 14 + 9};
    g_array_append_val(gait, ci);
  }
  check_against_scan(gait, 300 * 14);
  /* Clustered: a few long holds, then many short ones, then a long gap. */
  const int clustered[] = {0, 40, 43, 44, 47, 47, 50, 52, 55, 58, 61, 400, 900, 905, 908, 909, 2000, 2500};
  g_autoptr(GArray) c = intervals(clustered, G_N_ELEMENTS(clustered) / 2);
  check_against_scan(c, 2600);
  const int one[] = {5, 9}, point[] = {3, 3}, two[] = {0, 0, 2, 2};
  g_autoptr(GArray) o = intervals(one, 1);
  g_autoptr(GArray) p = intervals(point, 1);
  g_autoptr(GArray) t = intervals(two, 2);
  g_autoptr(GArray) none = intervals(NULL, 0);
  check_against_scan(o, 20);
  check_against_scan(p, 10);
  check_against_scan(t, 10);
  check_against_scan(none, 10);
  check_against_scan(NULL, 10);
}
