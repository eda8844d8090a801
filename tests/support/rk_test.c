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
