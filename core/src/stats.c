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

/* Puts v[0..n)'s k-th smallest value (k < n, no NaN in v) at v[k], the smaller ones before it and
 * the larger ones after it; false (v only permuted) when the partitions kept coming out lopsided:
 * median-of-three Hoare selection, expected O(n). */
static bool select_kth(double *v, size_t n, size_t k) {
  size_t lo = 0, hi = n - 1;
  for (int rounds = 0; hi > lo; rounds++) {
    if (rounds > 96)
      return false;
    const size_t mid = lo + (hi - lo) / 2;
    /* v[lo] <= v[mid] <= v[hi]: the pivot and two sentinels. */
    double t;
    if (v[mid] < v[lo])
      t = v[mid], v[mid] = v[lo], v[lo] = t;
    if (v[hi] < v[lo])
      t = v[hi], v[hi] = v[lo], v[lo] = t;
    if (v[hi] < v[mid])
      t = v[hi], v[hi] = v[mid], v[mid] = t;
    const double pivot = v[mid];
    size_t i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pivot)
        i++;
      while (pivot < v[j])
        j--;
      if (i <= j) {
        t = v[i], v[i] = v[j], v[j] = t;
        i++;
        if (j == 0)
          break;
        j--;
      }
    }
    /* Now v[lo..j] <= pivot <= v[i..hi], and v[j+1..i-1] == pivot. */
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      return true;
  }
  return true;
}

/* Whether sorted position k of v[0..n) (first) or one of positions first..last falls among the
 * zeros, or v holds a NaN: then only the sort's order says which bits are there (+0 and -0 are
 * the only values that compare equal with different bits). */
static bool needs_sort(const double *v, size_t n, size_t first, size_t last) {
  size_t below = 0, zeros = 0;
  bool nan = false;
  for (size_t i = 0; i < n; i++) {
    nan |= isnan(v[i]);
    below += v[i] < 0;
    zeros += v[i] == 0;
  }
  return nan || (zeros > 0 && last >= below && first < below + zeros);
}

double rk__select(double *v, size_t n, size_t k) {
  if (needs_sort(v, n, k, k) || !select_kth(v, n, k))
    rk__sort_doubles(v, n);
  return v[k];
}

double rk__select_median(double *v, size_t n, bool upper) {
  if (n == 0)
    return NAN;
  const size_t k = n / 2;
  if (upper || n % 2)
    return rk__select(v, n, k);
  if (needs_sort(v, n, k - 1, k) || !select_kth(v, n, k))
    return rk__median(v, n);
  double lo = v[0];
  for (size_t i = 1; i < k; i++)
    lo = v[i] > lo ? v[i] : lo;
  return 0.5 * (lo + v[k]);
}
