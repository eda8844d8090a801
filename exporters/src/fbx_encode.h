/* Binary FBX node-record encoder (internal to librigkit_exporters; fbx_encode.c).
 *
 * Builds a whole binary FBX file in memory: the header, node records opened with
 * rk__fbx_enc_begin and closed with rk__fbx_enc_end (properties first, then child records), and at
 * rk__fbx_enc_finish the top-level null record and the footer. Record offsets are 32-bit for
 * versions below 7500 (FBX 7.4) and 64-bit from 7500. Arrays are stored raw (encoding 0), which
 * every reader accepts and keeps the bytes independent of a zlib version.
 *
 * Misuse (a property after a child record, end without begin) is a programming error, reported
 * with g_return_if_fail and ignored.
 *
 * Index: rk__fbx_enc, rk__fbx_enc_new/free/begin/end/end_block/finish, property adders
 *        rk__fbx_enc_i16/bool/i32/f32/f64/i64/str/strn/object_name/raw, array adders
 *        rk__fbx_enc_f32v/f64v/i32v/i64v
 */
#ifndef RK_FBX_ENCODE_H
#define RK_FBX_ENCODE_H

#include <rigkit/error.h>

#include <stdbool.h>
#include <stdint.h>

typedef struct rk__fbx_enc rk__fbx_enc;

/** A new file of FBX version `version` (7400 for FBX 7.4); its header is written. */
rk__fbx_enc *rk__fbx_enc_new(uint32_t version);
void rk__fbx_enc_free(rk__fbx_enc *e);

/** Opens a record called name (at most 255 bytes) inside the current one (or at top level). */
void rk__fbx_enc_begin(rk__fbx_enc *e, const char *name);
/** Closes the current record. A null record closes its child list when it has children, and is
 * also written when it has no properties (as FBX SDK files have it, e.g. "References"). */
void rk__fbx_enc_end(rk__fbx_enc *e);
/** Closes the current record, always with a null record (FBX SDK files write one for
 * AnimationStack and AnimationLayer records even without children). */
void rk__fbx_enc_end_block(rk__fbx_enc *e);

/* Properties of the current record, in order. */
void rk__fbx_enc_i16(rk__fbx_enc *e, int16_t v); /* 'Y' */
void rk__fbx_enc_bool(rk__fbx_enc *e, bool v);   /* 'C' */
void rk__fbx_enc_i32(rk__fbx_enc *e, int32_t v); /* 'I' */
void rk__fbx_enc_f32(rk__fbx_enc *e, float v);   /* 'F' */
void rk__fbx_enc_f64(rk__fbx_enc *e, double v);  /* 'D' */
void rk__fbx_enc_i64(rk__fbx_enc *e, int64_t v); /* 'L' */
/** 'S' from a NUL-terminated string. */
void rk__fbx_enc_str(rk__fbx_enc *e, const char *s);
/** 'S' from n bytes (may hold NUL bytes, as object names "Name\0\1Class" do). */
void rk__fbx_enc_strn(rk__fbx_enc *e, const void *s, size_t n);
/** 'S' holding an object name: name, "\0\1", cls. */
void rk__fbx_enc_object_name(rk__fbx_enc *e, const char *name, const char *cls);
/** 'R' raw bytes. */
void rk__fbx_enc_raw(rk__fbx_enc *e, const void *data, size_t n);
void rk__fbx_enc_f32v(rk__fbx_enc *e, const float *v, size_t n);   /* 'f' */
void rk__fbx_enc_f64v(rk__fbx_enc *e, const double *v, size_t n);  /* 'd' */
void rk__fbx_enc_i32v(rk__fbx_enc *e, const int32_t *v, size_t n); /* 'i' */
void rk__fbx_enc_i64v(rk__fbx_enc *e, const int64_t *v, size_t n); /* 'l' */

/** Closes the top level, appends the footer and returns the file's bytes (the caller frees them
 * with g_byte_array_unref); frees e. Fails with RK_ERROR_LIMIT when the file would exceed what
 * its record offsets can address (4 GiB for FBX 7.4), naming `path`. */
GByteArray *rk__fbx_enc_finish(rk__fbx_enc *e, const char *path, GError **error);

#endif
