/* Shared test helpers (see rk_test.h). */
#include "rk_test.h"

#include <stdio.h>

const char *rk_test_mat4_diff_text(const rk_mat4 *a, const rk_mat4 *b) {
  static char buf[1024];
  size_t n = 0;
  for (int r = 0; r < 4 && n < sizeof buf; r++)
    n += (size_t)snprintf(buf + n, sizeof buf - n,
                          "  [%10.6f %10.6f %10.6f %10.6f]   [%10.6f %10.6f %10.6f %10.6f]\n",
                          rk_mat4_at(a, r, 0), rk_mat4_at(a, r, 1), rk_mat4_at(a, r, 2),
                          rk_mat4_at(a, r, 3), rk_mat4_at(b, r, 0), rk_mat4_at(b, r, 1),
                          rk_mat4_at(b, r, 2), rk_mat4_at(b, r, 3));
  return buf;
}

double rk_test_uniform(guint64 *state, double lo, double hi) {
  guint64 x = *state ? *state : 0x9E3779B97F4A7C15ull;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  double u = (double)((x * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0;
  return lo + (hi - lo) * u;
}

double rk_test_loop_residual(const rk_tree *t, const rk_loop *loops, size_t n, const double *q) {
  const size_t rows = rk_loops_rows(loops, n);
  rk_mat4 *m = g_new(rk_mat4, rk_tree_link_count(t));
  double *F = g_new(double, rows ? rows : 1), worst = 0;
  rk_tree_fk(t, q, NULL, m);
  rk_loops_residual(t, loops, n, m, F);
  for (size_t i = 0; i < rows; i++)
    worst = fmax(worst, fabs(F[i]));
  g_free(F);
  g_free(m);
  return worst;
}

rk_tree *rk_test_tree_or_fail(const rk_skeleton *s, const rk_clip *c, const rk_tree_options *o) {
  g_autoptr(GError) error = NULL;
  rk_tree *t = rk_tree_from_skeleton(s, c, o, &error);
  cr_assert(t, "%s", error ? error->message : "");
  return t;
}

const rk_joint *rk_test_joint_named(const rk_tree *t, const char *name) {
  int j = rk_tree_find_link(t, name);
  cr_assert_geq(j, 0, "no link %s", name);
  return rk_tree_joint(t, (size_t)j);
}

rk_mat4 rk_test_mat4_rows(const double r[16]) {
  rk_mat4 m;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      m.m[j * 4 + i] = r[i * 4 + j];
  return m;
}
