/* The rigkit error domain. */
#include <rigkit/error.h>

/* Not G_DEFINE_QUARK: its lazily set plain static is a data race when a process raises its first
 * errors on several threads at once (found by ThreadSanitizer, tests/threads/thread_check). */
GQuark rk_error_quark(void) {
  static gsize quark;
  if (g_once_init_enter(&quark))
    g_once_init_leave(&quark, g_quark_from_static_string("rigkit-error-quark"));
  return (GQuark)quark;
}

const char *rk_error_code_name(int code) {
  switch (code) {
#define RK__ERROR_NAME(c, name, meaning)                                                          \
  case c:                                                                                        \
    return name;
    RK_ERROR_CODES(RK__ERROR_NAME)
#undef RK__ERROR_NAME
  default:
    return "unknown";
  }
}

const char *rk_error_code_meaning(int code) {
  switch (code) {
#define RK__ERROR_MEANING(c, name, meaning)                                                       \
  case c:                                                                                        \
    return meaning;
    RK_ERROR_CODES(RK__ERROR_MEANING)
#undef RK__ERROR_MEANING
  default:
    return "unknown error";
  }
}
