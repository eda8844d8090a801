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
