/* Two fixed halves of a piece of work (rigkit/halves.h, core/src/halves.c): both halves run, each
 * once, whether the second goes to the kept worker, a thread of its own or the caller, and the
 * call returns only once both are done; a list splits by weight where the running sum first
 * reaches half the total. */
#include "rk_test.h"
#include <rigkit/halves.h>

#include <rigkit/rigkit.h>

typedef struct half_job {
  gint runs;
  GThread *thread;
} half_job;

static gpointer count(gpointer data) {
  half_job *j = data;
  g_usleep(1000);
  j->thread = g_thread_self();
  g_atomic_int_inc(&j->runs);
  return NULL;
}

Test(halves, both_halves_run_once_before_the_call_returns) {
  for (int two = 0; two < 2; two++) {
    half_job a = {0, NULL}, b = {0, NULL};
    const bool threaded = rk_halves_run(count, &a, &b, two);
    cr_assert_eq(g_atomic_int_get(&a.runs), 1);
    cr_assert_eq(g_atomic_int_get(&b.runs), 1);
    cr_assert_eq(a.thread, g_thread_self(), "the first half runs on the caller's thread");
    cr_assert_eq(b.thread != g_thread_self(), threaded);
    if (!two || g_get_num_processors() < 2)
      cr_assert_not(threaded);
  }
}

/* Several callers at once: one gets the kept worker, the others threads of their own (or run
 * both halves themselves); every half runs once. */
static gpointer caller(gpointer data) {
  half_job *j = data;
  for (int round = 0; round < 20; round++) {
    half_job a = {0, NULL}, b = {0, NULL};
    rk_halves_run(count, &a, &b, true);
    if (g_atomic_int_get(&a.runs) == 1 && g_atomic_int_get(&b.runs) == 1)
      g_atomic_int_inc(&j->runs);
  }
  return NULL;
}

Test(halves, callers_at_once_each_get_both_halves_done) {
  half_job ok[4] = {{0, NULL}};
  GThread *t[4];
  for (int i = 0; i < 4; i++)
    t[i] = g_thread_new("caller", caller, &ok[i]);
  for (int i = 0; i < 4; i++) {
    g_thread_join(t[i]);
    cr_assert_eq(g_atomic_int_get(&ok[i].runs), 20, "caller %d", i);
  }
}

Test(halves, the_public_name_and_the_internal_one_run_the_same_halves) {
  half_job a = {0, NULL}, b = {0, NULL}, c = {0, NULL}, d = {0, NULL};
  rk_halves_run(count, &a, &b, true);
  rk_halves_run(count, &c, &d, true);
  cr_assert(a.runs == 1 && b.runs == 1 && c.runs == 1 && d.runs == 1);
  cr_assert_eq(a.thread, g_thread_self());
  cr_assert_eq(c.thread, g_thread_self());
}

/* A half that splits again (an importer's pass inside a retarget's half): the worker is busy with
 * the outer second half, so the inner one gets a thread of its own or runs inline; all four run. */
typedef struct nested_job {
  half_job inner[2];
} nested_job;

static gpointer split_again(gpointer data) {
  nested_job *n = data;
  rk_halves_run(count, &n->inner[0], &n->inner[1], true);
  return NULL;
}

Test(halves, a_half_that_splits_again_gets_all_its_halves_done) {
  nested_job outer[2] = {{{{0, NULL}, {0, NULL}}}, {{{0, NULL}, {0, NULL}}}};
  rk_halves_run(split_again, &outer[0], &outer[1], true);
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 2; k++)
      cr_assert_eq(g_atomic_int_get(&outer[i].inner[k].runs), 1, "outer %d inner %d", i, k);
}

static size_t weight_of(const void *data, size_t i) {
  return ((const size_t *)data)[i];
}

Test(halves, a_list_splits_where_the_running_sum_reaches_half) {
  size_t total = 0;
  const size_t even[4] = {1, 1, 1, 1}, heavy_first[3] = {10, 1, 1}, heavy_last[3] = {1, 1, 10},
               zeros[3] = {0, 0, 0};
  cr_assert_eq(rk_halves_split(4, weight_of, even, &total), 2);
  cr_assert_eq(total, 4);
  cr_assert_eq(rk_halves_split(3, weight_of, heavy_first, &total), 1);
  cr_assert_eq(total, 12);
  cr_assert_eq(rk_halves_split(3, weight_of, heavy_last, NULL), 3, "no second half");
  cr_assert_eq(rk_halves_split(3, weight_of, zeros, &total), 1);
  cr_assert_eq(total, 0);
  cr_assert_eq(rk_halves_split(0, weight_of, NULL, &total), 0);
  cr_assert_eq(total, 0);
}

/* The use it is made for: sums over two halves split by weight, merged in order, are the same
 * bits as one pass, with or without the second thread. */
typedef struct sum_run {
  const double *v;
  size_t first, end;
  double sum;
} sum_run;

static gpointer sum_range(gpointer data) {
  sum_run *r = data;
  r->sum = 0;
  for (size_t i = r->first; i < r->end; i++)
    r->sum += r->v[i];
  return NULL;
}

static size_t unit_weight(const void *data, size_t i) {
  (void)data, (void)i;
  return 1;
}

Test(halves, halves_split_by_weight_give_the_same_parts_on_one_thread_or_two) {
  enum { N = 4097 };
  double v[N];
  for (size_t i = 0; i < N; i++)
    v[i] = 1.0 / (double)(i + 1);
  const size_t split = rk_halves_split(N, unit_weight, NULL, NULL);
  cr_assert_eq(split, N / 2 + 1);
  double got[2][2];
  for (int two = 0; two < 2; two++) {
    sum_run r[2] = {{v, 0, split, 0}, {v, split, N, 0}};
    rk_halves_run(sum_range, &r[0], &r[1], two);
    got[two][0] = r[0].sum;
    got[two][1] = r[1].sum;
  }
  cr_assert(got[0][0] == got[1][0] && got[0][1] == got[1][1]);
}
