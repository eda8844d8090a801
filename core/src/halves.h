/* Internal: work split into two fixed halves, the second on a thread of its own. The halves are
 * fixed by the caller (ranges of frames or tracks, merged in order afterwards), so what they
 * compute does not depend on whether the thread could be had, on the machine's load or on its
 * processor count: only the time does. */
#ifndef RK_HALVES_H
#define RK_HALVES_H

#include <glib.h>
#include <stdbool.h>

/* Runs fn(first) on the calling thread and fn(second) on another at the same time when `two` is
 * true, the process may use more than one processor and a thread can be had (the worker the
 * process keeps for second halves, or a thread of its own when another caller has it); else
 * fn(second) after fn(first) on the calling thread. Returns once both are done; whether
 * fn(second) ran on another thread. fn's return value is ignored. */
bool rk__halves_run(GThreadFunc fn, gpointer first, gpointer second, bool two);

#endif
