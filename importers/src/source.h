/* The input of an import (internal): the bytes of the file being read, its name for messages and
 * its directory for companion files; and the largest inputs rigkit reads. */
#ifndef RK_SOURCE_H
#define RK_SOURCE_H

#include <glib.h>

#include <stdint.h>

G_BEGIN_DECLS

/** Largest file rigkit reads (bytes); see README "Limits". */
#define RK__IMPORT_MAX_FILE_SIZE ((gsize)1 << 30)
/** Longest BVH/DH text line or token rigkit accepts (bytes). */
#define RK__IMPORT_MAX_LINE ((gsize)1 << 20)

/** The bytes of the file being imported and where it lives, for readers that open companion
 * files (glTF buffers): dir is NULL for in-memory imports. */
typedef struct rk__source {
  const char *name; /* path or caller-supplied name, for messages */
  const char *dir;  /* directory of the file, or NULL */
  const uint8_t *data;
  size_t size;
} rk__source;

G_END_DECLS

#endif
