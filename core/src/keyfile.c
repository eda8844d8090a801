/* Reading map/profile key file values with their escapes checked first (see keyfile.h). */
#include "keyfile.h"

#include <stdbool.h>
#include <string.h>

/* True when every backslash of a raw GKeyFile value starts one of its escapes (\s \n \t \r \\). */
static bool escapes_valid(const char *raw) {
  for (const char *p = raw; *p; p++) {
    if (*p != '\\')
      continue;
    p++;
    if (!*p || !strchr("sntr\\", *p))
      return false;
  }
  return true;
}

char *rk__keyfile_string(GKeyFile *kf, const char *group, const char *key, const char **why) {
  g_autofree char *raw = g_key_file_get_value(kf, group, key, NULL);
  if (!raw || !g_utf8_validate(raw, -1, NULL)) {
    *why = "the value is not UTF-8 text";
    return NULL;
  }
  if (!escapes_valid(raw)) {
    *why = "the value has an invalid escape sequence";
    return NULL;
  }
  char *value = g_key_file_get_string(kf, group, key, NULL);
  if (!value)
    *why = "the value is not UTF-8 text";
  return value;
}
