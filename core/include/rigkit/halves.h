/* rigkit/halves.h: a piece of work in two fixed halves on two threads, and the split of a list
 * into two halves of about equal weight. The caller fixes the halves (ranges of frames, tracks or
 * values, merged in order afterwards), so what they compute does not depend on whether a second
 * thread could be had, on the machine's load or on its processor count: only the time does.
 *
 * Index: rk_halves_run, rk_halves_weight_fn, rk_halves_split
 */
#ifndef RIGKIT_HALVES_H
#define RIGKIT_HALVES_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

#include <rigkit/api.h>

G_BEGIN_DECLS

/** Runs fn(first) on the calling thread and fn(second) beside it when `two` is true and the
 * process may use more than one processor: on a worker thread the library starts once and keeps,
 * or on a thread of its own when another caller has that worker. When no thread can be had (or
 * `two` is false, or one processor) fn(second) runs after fn(first) on the calling thread: never
 * an error. Returns once both are done; true when fn(second) ran on another thread. fn's return
 * value is ignored; first and second stay the caller's. Any number of threads may call it at
 * once, and fn may call it again. */
RK_API bool rk_halves_run(GThreadFunc fn, gpointer first, gpointer second, bool two);

/** Item i's weight in rk_halves_split (data is the caller's). */
typedef size_t (*rk_halves_weight_fn)(const void *data, size_t i);

/** The first item of the second half of items [0, n) split by weight: one past the first item
 * at which the running sum reaches half the total (n when n is 0; a list of zero weights splits
 * after its first item). Sets *total (may be NULL) to the sum of the weights. Never fails;
 * allocates nothing. */
RK_API size_t rk_halves_split(size_t n, rk_halves_weight_fn weight, const void *data,
                              size_t *total);

G_END_DECLS

#endif
