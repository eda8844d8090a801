/* Sorting and medians of double arrays (see stats.h). */
#include "stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int rk__cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Stable merge of the sorted runs a[0..na) and b[0..nb) into out (a's element first on ties). */
static void merge_runs(const double *a, size_t na, const double *b, size_t nb, double *out) {
  size_t i = 0, j = 0, k = 0;
  while (i < na && j < nb)
    out[k++] = b[j] < a[i] ? b[j++] : a[i++];
  while (i < na)
    out[k++] = a[i++];
  while (j < nb)
    out[k++] = b[j++];
}

/* Bottom-up stable merge sort of v[0..n) through tmp[0..n): runs of 16 by insertion first. */
static void merge_sort(double *v, double *tmp, size_t n) {
  enum { RUN = 16 };
  for (size_t s = 0; s < n; s += RUN) {
    const size_t e = s + RUN < n ? s + RUN : n;
    for (size_t i = s + 1; i < e; i++) {
      const double x = v[i];
      size_t k = i;
      for (; k > s && x < v[k - 1]; k--)
        v[k] = v[k - 1];
      v[k] = x;
    }
  }
  double *from = v, *to = tmp;
  for (size_t w = RUN; w < n; w *= 2) {
    for (size_t s = 0; s < n; s += 2 * w) {
      const size_t m = s + w < n ? s + w : n, e = s + 2 * w < n ? s + 2 * w : n;
      merge_runs(from + s, m - s, from + m, e - m, to + s);
    }
    double *t = from;
    from = to;
    to = t;
  }
  if (from != v)
    memcpy(v, from, n * sizeof *v);
}

void rk__sort_doubles(double *v, size_t n) {
  bool sorted = true, nan = false;
  for (size_t i = 0; i < n; i++) {
    nan |= isnan(v[i]);
    if (i > 0 && v[i] < v[i - 1])
      sorted = false;
  }
  if (nan) {
    qsort(v, n, sizeof(double), rk__cmp_double);
    return;
  }
  if (sorted)
    return;
  double *tmp = malloc(n * sizeof *tmp);
  if (!tmp) {
    qsort(v, n, sizeof(double), rk__cmp_double);
    return;
  }
  merge_sort(v, tmp, n);
  free(tmp);
}

double rk__median(double *v, size_t n) {
  if (n == 0)
    return NAN;
  rk__sort_doubles(v, n);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double rk__median_upper(double *v, size_t n) {
  if (n == 0)
    return NAN;
  rk__sort_doubles(v, n);
  return v[n / 2];
}
