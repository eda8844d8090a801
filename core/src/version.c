/* Version of the loaded library. */
#include <rigkit/version.h>

const char *rk_version_string(void) {
  return RK_VERSION_STRING;
}
