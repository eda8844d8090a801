/* Binary FBX node records, header and footer.
 *
 * Layout (references: Blender's "FBX binary file format specification", A. Gessler 2013; the
 * fbx-book chapter "binary syntax" and the fbxcel crate's FbxFooter documentation, which describe
 * files written by the FBX SDK; checked by reading the output back with Assimp 5.2.5, Blender 3.4
 * and rigkit's own reader):
 *   header   "Kaydara FBX Binary  " NUL 0x1A 0x00, uint32 version
 *   record   end_offset, property_count, property_bytes (uint32 below 7500, uint64 from 7500),
 *            uint8 name length, name, properties, [child records, null record]
 *            end_offset is the absolute file offset just past the record; a null record is the
 *            header alone, all zero (13 bytes for 7.4, 25 from 7500)
 *   property type code then data: Y int16, C bool byte, I int32, F float, D double, L int64,
 *            S/R uint32 length + bytes, f d l i b arrays: uint32 count, uint32 encoding (0 raw),
 *            uint32 byte length, little-endian elements
 *   end      a null record closing the top-level list, then the footer:
 *            16 bytes FA BC AB 09 D0 C8 D4 66 B1 76 FB 83 1C F7 26 7E (the FBX SDK's value for the
 *            fixed FileId / CreationTime written in FBXHeaderExtension, see fbx_sections.c), zero
 *            padding to a 16-byte boundary, 4 zero bytes, uint32 version, 120 zero bytes, and the
 *            16-byte magic F8 5A 8C 6A DE F5 D9 7E EC E9 0C E3 75 8F 29 0B. With the padding the
 *            file length is a multiple of 16, as in FBX SDK files. (Blender and Assimp put the
 *            padding elsewhere; every reader ignores the footer.) */
#include "fbx_encode.h"

#include <string.h>

/* GByteArray lengths are guint: stay below 4 GiB with room for the footer. */
#define MAX_BYTES ((size_t)G_MAXUINT32 - 4096)

static const uint8_t FOOT_ID[16] = {0xfa, 0xbc, 0xab, 0x09, 0xd0, 0xc8, 0xd4, 0x66,
                                    0xb1, 0x76, 0xfb, 0x83, 0x1c, 0xf7, 0x26, 0x7e};
static const uint8_t FOOT_MAGIC[16] = {0xf8, 0x5a, 0x8c, 0x6a, 0xde, 0xf5, 0xd9, 0x7e,
                                       0xec, 0xe9, 0x0c, 0xe3, 0x75, 0x8f, 0x29, 0x0b};

typedef struct open_record {
  size_t header;      /* offset of the record header */
  size_t props_start; /* offset of the first property */
  size_t props_bytes;
  uint64_t props;
  bool props_closed;
  bool children;
} open_record;

struct rk__fbx_enc {
  GByteArray *out;
  GArray *stack; /* open_record */
  uint32_t version;
  bool is64;
  bool overflow;
};

static void put(rk__fbx_enc *e, const void *data, size_t n) {
  if (e->overflow || n > MAX_BYTES - e->out->len) {
    e->overflow = true;
    return;
  }
  g_byte_array_append(e->out, data, (guint)n);
}

static void put_zeros(rk__fbx_enc *e, size_t n) {
  static const uint8_t zeros[128] = {0};
  while (n > 0) {
    const size_t k = MIN(n, sizeof zeros);
    put(e, zeros, k);
    n -= k;
  }
}

static void put_u32(rk__fbx_enc *e, uint32_t v) {
  v = GUINT32_TO_LE(v);
  put(e, &v, 4);
}

static void put_u64(rk__fbx_enc *e, uint64_t v) {
  v = GUINT64_TO_LE(v);
  put(e, &v, 8);
}

static size_t header_bytes(const rk__fbx_enc *e) { return e->is64 ? 25 : 13; }

rk__fbx_enc *rk__fbx_enc_new(uint32_t version) {
  rk__fbx_enc *e = g_new0(rk__fbx_enc, 1);
  e->out = g_byte_array_sized_new(1 << 16);
  e->stack = g_array_new(FALSE, FALSE, sizeof(open_record));
  e->version = version;
  e->is64 = version >= 7500;
  put(e, "Kaydara FBX Binary  \0\x1a\0", 23);
  put_u32(e, version);
  return e;
}

void rk__fbx_enc_free(rk__fbx_enc *e) {
  if (!e)
    return;
  if (e->out)
    g_byte_array_unref(e->out);
  g_array_unref(e->stack);
  g_free(e);
}

static open_record *top(rk__fbx_enc *e) {
  return e->stack->len ? &g_array_index(e->stack, open_record, e->stack->len - 1) : NULL;
}

static void close_props(rk__fbx_enc *e, open_record *r) {
  if (!r->props_closed) {
    r->props_bytes = e->out->len - r->props_start;
    r->props_closed = true;
  }
}

void rk__fbx_enc_begin(rk__fbx_enc *e, const char *name) {
  const size_t len = strlen(name);
  g_return_if_fail(len <= 255);
  open_record *parent = top(e);
  if (parent) {
    close_props(e, parent);
    parent->children = true;
  }
  open_record r = {0};
  r.header = e->out->len;
  put_zeros(e, header_bytes(e) - 1);
  const uint8_t n = (uint8_t)len;
  put(e, &n, 1);
  put(e, name, len);
  r.props_start = e->out->len;
  g_array_append_val(e->stack, r);
}

static void end_record(rk__fbx_enc *e, bool block) {
  open_record *r = top(e);
  g_return_if_fail(r != NULL);
  close_props(e, r);
  if (r->children || r->props == 0 || block)
    put_zeros(e, header_bytes(e));
  if (!e->overflow) {
    uint8_t *h = e->out->data + r->header;
    const uint64_t end = e->out->len;
    if (e->is64) {
      const uint64_t v[3] = {GUINT64_TO_LE(end), GUINT64_TO_LE(r->props),
                             GUINT64_TO_LE((uint64_t)r->props_bytes)};
      memcpy(h, v, 24);
    } else {
      const uint32_t v[3] = {GUINT32_TO_LE((uint32_t)end), GUINT32_TO_LE((uint32_t)r->props),
                             GUINT32_TO_LE((uint32_t)r->props_bytes)};
      memcpy(h, v, 12);
    }
  }
  g_array_set_size(e->stack, e->stack->len - 1);
}

void rk__fbx_enc_end(rk__fbx_enc *e) { end_record(e, false); }

void rk__fbx_enc_end_block(rk__fbx_enc *e) { end_record(e, true); }

/* Starts a property of type code `type`; false (nothing written) on misuse. */
static bool prop(rk__fbx_enc *e, char type) {
  open_record *r = top(e);
  g_return_val_if_fail(r != NULL && !r->props_closed, false);
  r->props++;
  put(e, &type, 1);
  return true;
}

void rk__fbx_enc_i16(rk__fbx_enc *e, int16_t v) {
  if (!prop(e, 'Y'))
    return;
  const uint16_t u = GUINT16_TO_LE((uint16_t)v);
  put(e, &u, 2);
}

void rk__fbx_enc_bool(rk__fbx_enc *e, bool v) {
  if (!prop(e, 'C'))
    return;
  const uint8_t b = v ? 1 : 0;
  put(e, &b, 1);
}

void rk__fbx_enc_i32(rk__fbx_enc *e, int32_t v) {
  if (prop(e, 'I'))
    put_u32(e, (uint32_t)v);
}

void rk__fbx_enc_f32(rk__fbx_enc *e, float v) {
  if (!prop(e, 'F'))
    return;
  uint32_t u;
  memcpy(&u, &v, 4);
  put_u32(e, u);
}

void rk__fbx_enc_f64(rk__fbx_enc *e, double v) {
  if (!prop(e, 'D'))
    return;
  uint64_t u;
  memcpy(&u, &v, 8);
  put_u64(e, u);
}

void rk__fbx_enc_i64(rk__fbx_enc *e, int64_t v) {
  if (prop(e, 'L'))
    put_u64(e, (uint64_t)v);
}

static void bytes_prop(rk__fbx_enc *e, char type, const void *s, size_t n) {
  if (n > G_MAXUINT32) {
    e->overflow = true;
    return;
  }
  if (!prop(e, type))
    return;
  put_u32(e, (uint32_t)n);
  put(e, s, n);
}

void rk__fbx_enc_str(rk__fbx_enc *e, const char *s) { bytes_prop(e, 'S', s, strlen(s)); }

void rk__fbx_enc_strn(rk__fbx_enc *e, const void *s, size_t n) { bytes_prop(e, 'S', s, n); }

void rk__fbx_enc_object_name(rk__fbx_enc *e, const char *name, const char *cls) {
  const size_t a = strlen(name), b = strlen(cls);
  if (a + b + 2 > G_MAXUINT32) {
    e->overflow = true;
    return;
  }
  if (!prop(e, 'S'))
    return;
  put_u32(e, (uint32_t)(a + b + 2));
  put(e, name, a);
  put(e, "\0\1", 2);
  put(e, cls, b);
}

void rk__fbx_enc_raw(rk__fbx_enc *e, const void *data, size_t n) { bytes_prop(e, 'R', data, n); }

/* An uncompressed array of n elements of esize bytes (already little-endian on this host, or
 * swapped element by element). */
static void array_prop(rk__fbx_enc *e, char type, const void *v, size_t n, size_t esize) {
  if (n > G_MAXUINT32 || n * esize > MAX_BYTES) {
    e->overflow = true;
    return;
  }
  if (!prop(e, type))
    return;
  put_u32(e, (uint32_t)n);
  put_u32(e, 0);
  put_u32(e, (uint32_t)(n * esize));
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  put(e, v, n * esize);
#else
  const uint8_t *p = v;
  for (size_t i = 0; i < n; i++) {
    uint8_t tmp[8];
    for (size_t k = 0; k < esize; k++)
      tmp[k] = p[i * esize + esize - 1 - k];
    put(e, tmp, esize);
  }
#endif
}

void rk__fbx_enc_f32v(rk__fbx_enc *e, const float *v, size_t n) { array_prop(e, 'f', v, n, 4); }

void rk__fbx_enc_f64v(rk__fbx_enc *e, const double *v, size_t n) { array_prop(e, 'd', v, n, 8); }

void rk__fbx_enc_i32v(rk__fbx_enc *e, const int32_t *v, size_t n) { array_prop(e, 'i', v, n, 4); }

void rk__fbx_enc_i64v(rk__fbx_enc *e, const int64_t *v, size_t n) { array_prop(e, 'l', v, n, 8); }

GByteArray *rk__fbx_enc_finish(rk__fbx_enc *e, const char *path, GError **error) {
  while (e->stack->len)
    end_record(e, false);
  put_zeros(e, header_bytes(e)); /* closes the top-level list */
  put(e, FOOT_ID, sizeof FOOT_ID);
  put_zeros(e, (16 - e->out->len % 16) % 16);
  put_zeros(e, 4);
  put_u32(e, e->version);
  put_zeros(e, 120);
  put(e, FOOT_MAGIC, sizeof FOOT_MAGIC);
  if (e->overflow || (!e->is64 && e->out->len > G_MAXUINT32)) {
    g_set_error(error, RK_ERROR, RK_ERROR_LIMIT,
                "%s: the FBX file would exceed 4 GiB, the most FBX %u.%u record offsets address",
                path, e->version / 1000, e->version / 100 % 10);
    rk__fbx_enc_free(e);
    return NULL;
  }
  GByteArray *out = e->out;
  e->out = NULL;
  rk__fbx_enc_free(e);
  return out;
}
