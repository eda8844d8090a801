/* Two fixed halves of a piece of work on two threads (rigkit/halves.h), for the whole tree: core's
 * passes, the importers and the exporters. The second halves go to one worker thread the process
 * keeps once it has started it (a command-line retarget splits its import, its passes, its write
 * and its measures: a thread started for each would cost its start and its stack's first page
 * faults each time); a caller that finds the worker busy (several runs at once, or a half that
 * splits again) starts a thread of its own for its half. A caller done with its half while the
 * other has not started (the thread not yet scheduled: a loaded machine's other processes hold
 * both processors) takes that half back and runs it itself, rather than wait for a processor for
 * it: each half is the same call whichever thread makes it. */
#include <rigkit/halves.h>

#include <pthread.h>
#include <unistd.h>

/* A second half handed to the worker or a thread of its own; claimed (atomic, 0 -> 1) by the
 * thread that runs it. */
typedef struct half_job {
  GThreadFunc fn;
  gpointer data;
  bool done;
  gint claimed;
} half_job;

/* Runs j's half unless another thread claimed it first; whether this one ran it. */
static bool claim_and_run(half_job *j) {
  if (!g_atomic_int_compare_and_exchange(&j->claimed, 0, 1))
    return false;
  j->fn(j->data);
  return true;
}

/* A thread of its own's body: j's half, unless the caller took it back. */
static gpointer own_thread(gpointer data) {
  claim_and_run(data);
  return NULL;
}

/* pthread's, not GLib's: GLib builds GMutex on futexes, whose ordering ThreadSanitizer cannot
 * see (tests/threads). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER, finished = PTHREAD_COND_INITIALIZER;
static GThread *worker;   /* started on first use, then kept */
static pid_t worker_pid;  /* the process it was started in (a forked child has none) */
static bool busy;         /* a caller's half is with the worker, or waiting for it */
static half_job *pending; /* handed over, not yet taken */

static gpointer work(gpointer unused) {
  (void)unused;
  pthread_mutex_lock(&lock);
  for (;;) {
    while (!pending)
      pthread_cond_wait(&wake, &lock);
    half_job *j = pending;
    pending = NULL;
    pthread_mutex_unlock(&lock);
    claim_and_run(j);
    pthread_mutex_lock(&lock);
    j->done = true;
    pthread_cond_broadcast(&finished);
  }
  return NULL;
}

/* Hands j to the kept worker (started if need be); false when it is busy or cannot start. */
static bool hand_over(half_job *j) {
  pthread_mutex_lock(&lock);
  if (worker && worker_pid != getpid()) {
    worker = NULL; /* a child of a fork: the worker stayed in the parent */
    busy = false;
    pending = NULL;
  }
  if (!worker && !busy) {
    worker = g_thread_try_new("rigkit-half", work, NULL, NULL);
    worker_pid = getpid();
  }
  const bool taken = worker && !busy;
  if (taken) {
    busy = true;
    pending = j;
    pthread_cond_signal(&wake);
  }
  pthread_mutex_unlock(&lock);
  return taken;
}

/* The processor count, asked once: g_get_num_processors reads it from /sys (an open, a read and a
 * close) on every call, and a run asks at each of its halves. */
static guint processors(void) {
  static gint known; /* 0: not asked yet; a race asks twice and stores the same count */
  gint n = g_atomic_int_get(&known);
  if (n == 0) {
    n = (gint)g_get_num_processors();
    g_atomic_int_set(&known, n);
  }
  return (guint)n;
}

bool rk_halves_run(GThreadFunc fn, gpointer first, gpointer second, bool two) {
  if (!two || processors() < 2) {
    fn(first);
    fn(second);
    return false;
  }
  half_job j = {fn, second, false, 0};
  if (hand_over(&j)) {
    fn(first);
    const bool here = claim_and_run(&j);
    /* The worker still hands the job back (done) when it took it after the claim. */
    pthread_mutex_lock(&lock);
    if (pending == &j)
      pending = NULL; /* never taken: the worker is not told of it */
    else
      while (!j.done)
        pthread_cond_wait(&finished, &lock);
    busy = false;
    pthread_mutex_unlock(&lock);
    return !here;
  }
  GThread *t = g_thread_try_new("rigkit-half", own_thread, &j, NULL);
  fn(first);
  const bool here = claim_and_run(&j);
  if (t)
    g_thread_join(t);
  return !here;
}

size_t rk_halves_split(size_t n, rk_halves_weight_fn weight, const void *data, size_t *total) {
  size_t sum = 0, half = 0, split = n;
  for (size_t i = 0; i < n; i++)
    sum += weight(data, i);
  for (size_t i = 0; i < n && split == n; i++)
    if (2 * (half += weight(data, i)) >= sum)
      split = i + 1;
  if (total)
    *total = sum;
  return split;
}
