/* The glTF binary buffer (gltf_buffer.c): data appended as bufferViews, each on a 4-byte
 * boundary, and accessors over them with min/max computed from the stored values.
 *
 * Index: RK__GL_* component types and targets, rk__gltf_to_float, rk__gltf_add_view,
 *        rk__gltf_reserve_view, rk__gltf_add_accessor, rk__gltf_bounds, rk__gltf_accessor_of,
 *        rk__gltf_accessor_set_bounds
 */
#ifndef RK_GLTF_BUFFER_H
#define RK_GLTF_BUFFER_H

#include "export_shared.h"
#include "gltf_scene.h"

/* Accessor component types and bufferView targets (the OpenGL enum values glTF uses). */
enum {
  RK__GL_UNSIGNED_BYTE = 5121,
  RK__GL_UNSIGNED_SHORT = 5123,
  RK__GL_UNSIGNED_INT = 5125,
  RK__GL_FLOAT = 5126,
  RK__GL_ARRAY_BUFFER = 34962,
  RK__GL_ELEMENT_ARRAY_BUFFER = 34963,
};

/** Stores v in *out as float32; false (and *out untouched) when v is not finite or beyond float32
 * range. */
static inline bool rk__gltf_to_float(double v, float *out) {
  if (!rk__export_fits_float(v))
    return false;
  *out = (float)v;
  return true;
}

/** Adds a bufferView holding `bytes` bytes of data with target (0: none); returns its index, or
 * -1 with c->error set (RK_ERROR_LIMIT, as rk__gltf_add_accessor). */
int rk__gltf_add_view(rk__gltf_ctx *c, const void *data, size_t bytes, int target);
/** Adds a bufferView of `bytes` bytes with target (0: none) whose bytes the caller fills in
 * later at c->bin->data + *offset (the buffer grows by them now, uninitialised; a later view
 * moves c->bin->data). Returns its index, or -1 with c->error set as rk__gltf_add_view. */
int rk__gltf_reserve_view(rk__gltf_ctx *c, size_t bytes, int target, size_t *offset);
/** The per-component min (lo) and max (hi) of count elements of ncomp (<= 16) components of
 * comp_type in data, as rk__gltf_add_accessor writes them. */
void rk__gltf_bounds(int comp_type, const void *data, size_t count, int ncomp, double *lo,
                     double *hi);
/** Adds an accessor over `view` (count elements of ncomp components of comp_type) without
 * min/max; returns its index. */
int rk__gltf_accessor_of(rk__gltf_ctx *c, int view, int comp_type, size_t count, int ncomp);
/** Gives accessor its "min" and "max" (rk__gltf_bounds' lo and hi), after its other members. */
void rk__gltf_accessor_set_bounds(rk__gltf_ctx *c, int accessor, int comp_type, int ncomp,
                                  const double *lo, const double *hi);
/** Adds a bufferView holding count elements of ncomp components of comp_type (RK__GL_*) from
 * data, with target (0: none), and an accessor over it, with min/max when minmax. Returns the
 * accessor index, or -1 with c->error set (RK_ERROR_LIMIT: the buffer would pass what GLB's 32-bit
 * lengths hold). */
int rk__gltf_add_accessor(rk__gltf_ctx *c, int comp_type, const void *data, size_t count,
                          int ncomp, int target, bool minmax);

#endif
