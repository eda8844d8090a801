/* Sorting and medians of double arrays (see stats.h). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

int rk__cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double rk__median(double *v, size_t n) {
  if (n == 0)
    return NAN;
  qsort(v, n, sizeof(double), rk__cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double rk__median_upper(double *v, size_t n) {
  if (n == 0)
    return NAN;
  qsort(v, n, sizeof(double), rk__cmp_double);
  return v[n / 2];
}
