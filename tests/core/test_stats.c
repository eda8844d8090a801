/* Sorting and medians of double arrays (core/src/stats.c). */
#include "rk_test.h"

#include "../../core/src/stats.h"

Test(stats, comparator_sorts_ascending_with_ties_and_signs) {
  double v[] = {3.0, -1.0, 0.0, -0.0, 2.5, -1.0, 1e300, -1e-300};
  qsort(v, G_N_ELEMENTS(v), sizeof(double), rk__cmp_double);
  for (size_t i = 1; i < G_N_ELEMENTS(v); i++)
    cr_assert_leq(v[i - 1], v[i], "v[%zu] = %g before v[%zu] = %g", i - 1, v[i - 1], i, v[i]);
  cr_assert_eq(rk__cmp_double(&v[0], &v[1]), 0, "equal values compare equal");
}

Test(stats, median_of_odd_and_even_counts) {
  double odd[] = {5, 1, 4, 2, 3};
  cr_assert_eq(rk__median(odd, 5), 3.0);
  cr_assert_eq(odd[0], 1.0, "sorted in place");
  cr_assert_eq(odd[4], 5.0);
  double even[] = {4, 1, 3, 2};
  cr_assert_eq(rk__median(even, 4), 2.5, "mean of the two middle values");
  double one = 7;
  cr_assert_eq(rk__median(&one, 1), 7.0);
  cr_assert(isnan(rk__median(NULL, 0)));
}

Test(stats, upper_median_takes_the_element_at_half) {
  double even[] = {4, 1, 3, 2};
  cr_assert_eq(rk__median_upper(even, 4), 3.0, "the upper middle value");
  double odd[] = {9, -2, 0};
  cr_assert_eq(rk__median_upper(odd, 3), 0.0);
  cr_assert(isnan(rk__median_upper(NULL, 0)));
}

Test(stats, sort_gives_the_bits_a_stable_qsort_gives) {
  GRand *rng = g_rand_new_with_seed(7);
  const size_t sizes[] = {0, 1, 2, 15, 16, 17, 33, 100, 1000, 4097};
  for (size_t s = 0; s < G_N_ELEMENTS(sizes); s++) {
    for (int rep = 0; rep < 20; rep++) {
      const size_t n = sizes[s];
      g_autofree double *a = g_new(double, n + 1), *b = g_new(double, n + 1);
      for (size_t i = 0; i < n; i++) {
        /* few distinct values, signed zeros among them, sometimes already in order */
        const int k = g_rand_int_range(rng, -4, 5);
        a[i] = k == 0 ? (g_rand_boolean(rng) ? 0.0 : -0.0) : rep % 5 == 0 ? (double)i : k * 0.25;
      }
      memcpy(b, a, n * sizeof *a);
      /* insertion sort: the stable reference */
      for (size_t i = 1; i < n; i++)
        for (size_t k = i; k > 0 && b[k] < b[k - 1]; k--) {
          const double t = b[k];
          b[k] = b[k - 1];
          b[k - 1] = t;
        }
      rk__sort_doubles(a, n);
      cr_assert(n == 0 || memcmp(a, b, n * sizeof *a) == 0, "n %zu rep %d", n, rep);
    }
  }
  g_rand_free(rng);
}

/* rk__select and rk__select_median against the sort, bit for bit: few distinct values, signed
 * zeros where the middle falls, a NaN, sorted and reversed inputs. */
Test(stats, selection_gives_the_bits_the_sort_gives) {
  GRand *rng = g_rand_new_with_seed(11);
  const size_t sizes[] = {1, 2, 3, 4, 5, 16, 17, 100, 101, 1000, 4097};
  for (size_t s = 0; s < G_N_ELEMENTS(sizes); s++) {
    for (int rep = 0; rep < 40; rep++) {
      const size_t n = sizes[s];
      g_autofree double *a = g_new(double, n), *b = g_new(double, n), *c = g_new(double, n);
      for (size_t i = 0; i < n; i++) {
        const int k = g_rand_int_range(rng, -4, 5);
        a[i] = rep % 7 == 0   ? (double)i
               : rep % 7 == 1 ? -(double)i
               : rep % 7 == 2 ? g_rand_double_range(rng, -1, 1)
               : k == 0       ? (g_rand_boolean(rng) ? 0.0 : -0.0)
                              : k * 0.25;
      }
      if (rep == 39)
        a[n / 2] = NAN;
      for (int kind = 0; kind < 3; kind++) {
        memcpy(b, a, n * sizeof *a);
        memcpy(c, a, n * sizeof *a);
        double want, got;
        if (kind == 2) {
          const size_t k = (size_t)g_rand_int_range(rng, 0, (gint32)n);
          rk__sort_doubles(b, n);
          want = b[k];
          got = rk__select(c, n, k);
        } else {
          want = kind ? rk__median_upper(b, n) : rk__median(b, n);
          got = rk__select_median(c, n, kind == 1);
        }
        cr_assert(memcmp(&want, &got, sizeof want) == 0 || (isnan(want) && isnan(got)),
                  "n %zu rep %d kind %d: %a, not %a", n, rep, kind, got, want);
      }
    }
  }
  g_rand_free(rng);
}
