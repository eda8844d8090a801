/* Internal: SHA-256 of bytes in memory as 64 lower-case hex digits (sha256.c), for the digest an
 * import records of a glTF source. x86 processors with the SHA extensions hash in their SHA
 * instructions (about ten times GLib's portable code: a read-back output of a few megabytes took
 * milliseconds); elsewhere GLib's GChecksum does. Both give the same digest. */
#ifndef RK_SHA256_H
#define RK_SHA256_H

#include <glib.h>

#include <stdbool.h>
#include <stddef.h>

G_BEGIN_DECLS

/** The SHA-256 of data[0..size) as a new string of 64 lower-case hex digits (g_free). */
char *rk__sha256_hex(const void *data, size_t size);
/** True when rk__sha256_hex uses the processor's SHA instructions (for tests). */
bool rk__sha256_uses_cpu(void);

G_END_DECLS

#endif
