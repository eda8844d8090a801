/* Texture images of the materials of an Assimp scene (see scene_textures.h). Assimp gives a
 * material's texture as a path: "*<n>" or a file name for images the file embeds (their bytes
 * are already on the material), otherwise a file beside the source (glTF: a URI, escaped; FBX:
 * the RelativeFilename). */
#include "scene_textures.h"

#include "source.h"

#include <glib/gstdio.h>
#include <string.h>

const char *rk__image_mime_type(const uint8_t *d, size_t n, const char *name) {
  static const struct {
    const char *magic;
    size_t len, at;
    const char *mime;
  } magics[] = {{"\x89PNG\r\n\x1a\n", 8, 0, "image/png"},   {"\xff\xd8\xff", 3, 0, "image/jpeg"},
                {"GIF8", 4, 0, "image/gif"},               {"BM", 2, 0, "image/bmp"},
                {"WEBP", 4, 8, "image/webp"},              {"II*\0", 4, 0, "image/tiff"},
                {"MM\0*", 4, 0, "image/tiff"},             {"DDS ", 4, 0, "image/vnd-ms.dds"},
                {"\xabKTX 20\xbb", 7, 0, "image/ktx2"}};
  for (size_t i = 0; d && i < G_N_ELEMENTS(magics); i++)
    if (n >= magics[i].at + magics[i].len &&
        memcmp(d + magics[i].at, magics[i].magic, magics[i].len) == 0)
      return magics[i].mime;
  static const struct {
    const char *ext, *mime;
  } exts[] = {{"png", "image/png"},   {"jpg", "image/jpeg"},        {"jpeg", "image/jpeg"},
              {"tga", "image/x-tga"}, {"bmp", "image/bmp"},         {"gif", "image/gif"},
              {"tif", "image/tiff"},  {"tiff", "image/tiff"},       {"webp", "image/webp"},
              {"dds", "image/vnd-ms.dds"}, {"ktx2", "image/ktx2"}};
  const char *dot = name ? strrchr(name, '.') : NULL;
  const char *ext = dot ? dot + 1 : name;
  for (size_t i = 0; ext && i < G_N_ELEMENTS(exts); i++)
    if (g_ascii_strcasecmp(ext, exts[i].ext) == 0)
      return exts[i].mime;
  return NULL;
}

/* The readable regular file path names: as given when absolute, else in dir, else its last
 * component in dir; NULL when none is. */
static char *find_image(const char *dir, const char *path) {
  g_autofree char *name = g_uri_unescape_string(path, NULL);
  if (!name)
    name = g_strdup(path);
  g_autofree char *base = g_path_get_basename(name);
  char *candidates[3] = {g_path_is_absolute(name) ? g_strdup(name) : NULL,
                         dir ? g_build_filename(dir, name, NULL) : NULL,
                         dir ? g_build_filename(dir, base, NULL) : NULL};
  char *found = NULL;
  for (int i = 0; i < 3; i++) {
    GStatBuf st;
    if (!found && candidates[i] && g_stat(candidates[i], &st) == 0 && S_ISREG(st.st_mode) &&
        (guint64)st.st_size <= RK__IMPORT_MAX_FILE_SIZE)
      found = g_steal_pointer(&candidates[i]);
    g_free(candidates[i]);
  }
  return found;
}

static void load_texture(rk__scene_material *m, const char *dir, GPtrArray *notes) {
  const char *what = m->name ? m->name : "";
  if (m->texture_data) {
    m->texture_mime = g_strdup(rk__image_mime_type(m->texture_data, m->texture_size,
                                                   m->texture_hint));
    return;
  }
  if (m->texture_path[0] == '*') {
    g_ptr_array_add(notes, g_strdup_printf("material '%s': texture %s is embedded as raw texels "
                                           "(no image file): left out", what, m->texture_path));
    g_clear_pointer(&m->texture_path, g_free);
    return;
  }
  g_autofree char *file = find_image(dir, m->texture_path);
  gchar *bytes = NULL;
  gsize size = 0;
  if (!file || !g_file_get_contents(file, &bytes, &size, NULL) || size == 0) {
    g_free(bytes);
    g_ptr_array_add(notes, g_strdup_printf("material '%s': texture image '%s' not found beside "
                                           "the file: kept as a path, without its image", what,
                                           m->texture_path));
    m->texture_file = dir ? g_build_filename(dir, m->texture_path, NULL) : g_strdup(m->texture_path);
    m->texture_mime = g_strdup(rk__image_mime_type(NULL, 0, m->texture_path));
    return;
  }
  m->texture_data = (uint8_t *)bytes;
  m->texture_size = size;
  m->texture_file = g_steal_pointer(&file);
  m->texture_mime = g_strdup(rk__image_mime_type(m->texture_data, size, m->texture_file));
}

void rk__scene_load_textures(rk__scene *scene, const char *dir, GPtrArray *notes) {
  for (unsigned i = 0; i < scene->material_count; i++)
    if (scene->materials[i].texture_path)
      load_texture(&scene->materials[i], dir, notes);
}
