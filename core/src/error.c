/* The rigkit error domain. */
#include <rigkit/error.h>

G_DEFINE_QUARK(rigkit-error-quark, rk_error)

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
