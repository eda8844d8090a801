/* Two fixed halves of a piece of work (core/src/halves.c): both halves run, each once, whether
 * the second goes to the kept worker, a thread of its own or the caller, and the call returns
 * only once both are done. */
#include "rk_test.h"
#include "../../core/src/halves.h"

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
    const bool threaded = rk__halves_run(count, &a, &b, two);
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
    rk__halves_run(count, &a, &b, true);
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
