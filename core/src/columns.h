/* Internal: a 4x4 frame (column-major, bottom row 0 0 0 1) as four 4-wide column vectors, for the
 * FK passes of fk_pass.c, tree_fk.c and dh.c. GNU vector extension: 4 doubles are one AVX
 * register or two SSE2 registers. Everything is always inlined, so each multiversioned caller
 * (cpu.h) gets its own vector code. Vectors go by pointer: by value, without AVX, they change the
 * ABI (-Wpsabi). Each column is moved on its own: an array of vectors copied at once goes through
 * the stack in halves and stalls on store forwarding. */
#ifndef RK_COLUMNS_H
#define RK_COLUMNS_H

#include <string.h>

typedef double rk__v4d __attribute__((vector_size(32)));

#define RK__COLS_INLINE static inline __attribute__((always_inline))

/* The columns of the frame at m (16 doubles) into c0..c3. */
RK__COLS_INLINE void rk__cols_load(const double *m, rk__v4d *c0, rk__v4d *c1, rk__v4d *c2,
                                   rk__v4d *c3) {
  memcpy(c0, m, sizeof *c0);
  memcpy(c1, m + 4, sizeof *c1);
  memcpy(c2, m + 8, sizeof *c2);
  memcpy(c3, m + 12, sizeof *c3);
}

/* c0..c3 into the frame at m (16 doubles). */
RK__COLS_INLINE void rk__cols_store(double *m, const rk__v4d *c0, const rk__v4d *c1,
                                    const rk__v4d *c2, const rk__v4d *c3) {
  memcpy(m, c0, sizeof *c0);
  memcpy(m + 4, c1, sizeof *c1);
  memcpy(m + 8, c2, sizeof *c2);
  memcpy(m + 12, c3, sizeof *c3);
}

/* Columns *u, *v turned in place by the angle with sine s and cosine c, u towards v: the frame
 * times a rotation about its third axis (u, v = x, y; y, z and z, x for the other two). */
RK__COLS_INLINE void rk__cols_turn(rk__v4d *u, rk__v4d *v, double s, double c) {
  const rk__v4d a = *u, b = *v;
  *u = a * c + b * s;
  *v = b * c - a * s;
}

#endif
