/* Internal: sorting and medians of double arrays (stats.c), for the core files that take robust
 * statistics over frames: ground heights, contact pins, velocities, quality figures. */
#ifndef RK_STATS_H
#define RK_STATS_H

#include <stdbool.h>
#include <stddef.h>

/* qsort comparator: ascending doubles (a NaN compares equal to everything). */
int rk__cmp_double(const void *a, const void *b);
/* Sorts v[0..n) ascending in place without a call per comparison: a stable sort (+0 and -0 keep
 * their order, as in glibc's merge-sort qsort); an already sorted v costs one pass; a v holding a
 * NaN goes to qsort with rk__cmp_double. */
void rk__sort_doubles(double *v, size_t n);
/* Sorts v[0..n) ascending in place and returns the median: the middle value, or the mean of the
 * two middle values when n is even; NaN when n is 0. */
double rk__median(double *v, size_t n);
/* Sorts v[0..n) ascending in place and returns v[n / 2]: the median, or the upper of the two
 * middle values when n is even; NaN when n is 0. */
double rk__median_upper(double *v, size_t n);
/* What v[k] (k < n) is once v[0..n) is sorted ascending, the same bits, by selection instead of a
 * sort (expected O(n)): v is left permuted, not sorted. */
double rk__select(double *v, size_t n, size_t k);
/* rk__median (upper false) or rk__median_upper (upper true) of v[0..n), the same bits, by
 * selection instead of a sort (expected O(n)): v is left permuted, not sorted. */
double rk__select_median(double *v, size_t n, bool upper);

#endif
