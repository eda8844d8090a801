/* Which format a file is: by its extension (rk_import_format_from_path) or by its first bytes. */
#include "format.h"

#include <rigkit/importers.h>

#include <string.h>

typedef struct format_entry {
  const char *ext;
  const char *format;
} format_entry;

static const format_entry formats[] = {
    {".bvh", "bvh"}, {".gltf", "gltf"}, {".glb", "glb"}, {".fbx", "fbx"}, {".dh", "dh"},
};

const char *rk_import_format_from_path(const char *path) {
  if (!path)
    return NULL;
  const char *dot = strrchr(path, '.');
  const char *slash = strrchr(path, '/');
  if (!dot || (slash && dot < slash))
    return NULL;
  for (size_t i = 0; i < G_N_ELEMENTS(formats); i++)
    if (g_ascii_strcasecmp(dot, formats[i].ext) == 0)
      return formats[i].format;
  return NULL;
}

const char *rk__format_sniff(const uint8_t *d, size_t n) {
  if (n >= 4 && memcmp(d, "glTF", 4) == 0)
    return "glb";
  if (n >= 18 && memcmp(d, "Kaydara FBX Binary", 18) == 0)
    return "fbx";
  size_t i = 0;
  if (n >= 3 && d[0] == 0xEF && d[1] == 0xBB && d[2] == 0xBF)
    i = 3; /* UTF-8 byte order mark */
  while (i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n'))
    i++;
  if (n - i >= 9 && g_ascii_strncasecmp((const char *)d + i, "HIERARCHY", 9) == 0)
    return "bvh";
  if (n - i >= 9 && memcmp(d + i, "rigkit-dh", 9) == 0)
    return "dh";
  if (n - i >= 1 && d[i] == '{')
    return "gltf";
  if (n - i >= 5 && memcmp(d + i, "; FBX", 5) == 0)
    return "fbx";
  return NULL;
}

bool rk__format_known(const char *f) {
  for (size_t i = 0; i < G_N_ELEMENTS(formats); i++)
    if (strcmp(formats[i].format, f) == 0)
      return true;
  return false;
}
