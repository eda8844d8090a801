/* Internal: core's name for rk_halves_run (rigkit/halves.h), the one helper for work in two fixed
 * halves; the passes inside the library call it by this name. */
#ifndef RK_HALVES_H
#define RK_HALVES_H

#include <rigkit/halves.h>

/* rk_halves_run itself: the same function under core's internal name. */
static inline bool rk__halves_run(GThreadFunc fn, gpointer first, gpointer second, bool two) {
  return rk_halves_run(fn, first, second, two);
}

#endif
