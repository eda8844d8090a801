/* rigkit/error.h: the single GError domain of rigkit and its codes.
 *
 * Codes, names and default messages come from one table (RK_ERROR_CODES) so they never disagree.
 *
 * Index: RK_ERROR_CODES, rk_error_code, RK_ERROR, rk_error_quark, rk_error_code_name,
 *        rk_error_code_meaning
 */
#ifndef RIGKIT_ERROR_H
#define RIGKIT_ERROR_H

#include <glib.h>
#include <rigkit/api.h>

G_BEGIN_DECLS

/* X(code, name, meaning) */
#define RK_ERROR_CODES(X)                                                                        \
  X(RK_ERROR_FAILED, "failed", "operation failed")                                               \
  X(RK_ERROR_IO, "io", "file could not be read or written")                                      \
  X(RK_ERROR_PARSE, "parse", "file content is malformed")                                        \
  X(RK_ERROR_UNSUPPORTED, "unsupported", "format or feature is not supported")                   \
  X(RK_ERROR_INVALID, "invalid", "data is invalid (NaN, cycle, duplicate, out of range)")        \
  X(RK_ERROR_LIMIT, "limit", "a declared size exceeds rigkit's resource limits")                 \
  X(RK_ERROR_NOT_FOUND, "not-found", "a named joint, clip or file was not found")                \
  X(RK_ERROR_MAPPING, "mapping", "skeletons could not be mapped onto each other")                \
  X(RK_ERROR_CANCELLED, "cancelled", "operation was cancelled")

typedef enum {
#define RK__ERROR_ENUM(code, name, meaning) code,
  RK_ERROR_CODES(RK__ERROR_ENUM)
#undef RK__ERROR_ENUM
  RK_ERROR_N_CODES
} rk_error_code;

/** The GError domain of every rigkit error. Never fails. */
#define RK_ERROR (rk_error_quark())
/** Returns the quark of the rigkit error domain; thread-safe, never fails. */
RK_API GQuark rk_error_quark(void);
/** Returns the short static name of an error code ("parse", ...), or "unknown" for other values. */
RK_API const char *rk_error_code_name(int code);
/** Returns the static one-line meaning of an error code, or "unknown error" for other values. */
RK_API const char *rk_error_code_meaning(int code);

G_END_DECLS

#endif
