/* Batch mistakes of `rigkit retarget` found before any clip runs (retarget_preflight.h): a batch
 * of 500 clips must not run for an hour to find its output directory read-only. */
#include "retarget_preflight.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

static bool is_clip_file(const char *name) {
  static const char *const exts[] = {".bvh", ".glb", ".gltf", ".fbx"};
  g_autofree char *lower = g_ascii_strdown(name, -1);
  for (size_t i = 0; i < G_N_ELEMENTS(exts); i++)
    if (g_str_has_suffix(lower, exts[i]))
      return true;
  return false;
}

static gint by_name(gconstpointer a, gconstpointer b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends the clip files of dir (sorted) to out, recursing when asked; false with error. */
static bool list_dir(const char *dir, bool recursive, GPtrArray *out, GError **error) {
  g_autoptr(GDir) d = g_dir_open(dir, 0, error);
  if (!d)
    return false;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
  for (const char *n; (n = g_dir_read_name(d));)
    if (n[0] != '.')
      g_ptr_array_add(names, g_strdup(n));
  g_ptr_array_sort(names, by_name);
  for (guint i = 0; i < names->len; i++) {
    char *p = g_build_filename(dir, g_ptr_array_index(names, i), NULL);
    if (g_file_test(p, G_FILE_TEST_IS_DIR)) {
      const bool ok = !recursive || list_dir(p, true, out, error);
      g_free(p);
      if (!ok)
        return false;
    } else if (is_clip_file(p)) {
      g_ptr_array_add(out, p);
    } else {
      g_free(p);
    }
  }
  return true;
}

bool rk__rt_expand_dirs(const char *cmd, GPtrArray *paths, bool recursive) {
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < paths->len; i++) {
    const char *p = g_ptr_array_index(paths, i);
    if (!g_file_test(p, G_FILE_TEST_IS_DIR)) {
      g_ptr_array_add(out, g_strdup(p));
      continue;
    }
    g_autoptr(GError) e = NULL;
    const guint before = out->len;
    if (!list_dir(p, recursive, out, &e)) {
      fprintf(stderr, "rigkit %s: %s\n", cmd, e->message);
      return false;
    }
    if (out->len == before) {
      fprintf(stderr, "rigkit %s: %s holds no clip files (.bvh, .glb, .gltf, .fbx)%s\n", cmd, p,
              recursive ? "" : "; --recursive also reads its subdirectories");
      return false;
    }
  }
  g_ptr_array_set_size(paths, 0);
  for (guint i = 0; i < out->len; i++)
    g_ptr_array_add(paths, g_strdup(g_ptr_array_index(out, i)));
  return true;
}

/* The nearest existing ancestor of a path that does not exist ("." or "/" at the end). */
static char *existing_ancestor(const char *path) {
  char *up = g_path_get_dirname(path);
  while (!g_file_test(up, G_FILE_TEST_EXISTS) && strcmp(up, ".") && strcmp(up, "/")) {
    char *next = g_path_get_dirname(up);
    g_free(up);
    up = next;
  }
  return up;
}

/* True when dir is one of the NULL-terminated made directories or a parent of one (created with
 * it), after canonicalisation. */
static bool is_made(const char *dir, const char *const *made) {
  g_autofree char *d = g_canonicalize_filename(dir, NULL);
  const size_t n = strlen(d);
  for (size_t i = 0; made && made[i]; i++) {
    g_autofree char *m = g_canonicalize_filename(made[i], NULL);
    if (!strncmp(d, m, n) && (m[n] == '\0' || m[n] == '/' || (n == 1 && d[0] == '/')))
      return true;
  }
  return false;
}

bool rk__rt_can_write(const char *cmd, const char *option, const char *path, bool dir,
                      const char *const *made) {
  if (!path)
    return true;
  g_autofree char *where = NULL;
  const char *why = NULL;
  if (g_file_test(path, G_FILE_TEST_EXISTS)) {
    if (g_file_test(path, G_FILE_TEST_IS_DIR) != dir)
      why = dir ? "is not a directory" : "is a directory";
    else if (access(path, W_OK | (dir ? X_OK : 0)) != 0)
      why = g_strerror(errno);
  } else {
    /* A directory is created with its parents; a file's directory must be there. */
    where = dir ? existing_ancestor(path) : g_path_get_dirname(path);
    if (!dir && !g_file_test(where, G_FILE_TEST_EXISTS) && is_made(where, made))
      return true; /* its directory is --out-dir or --plot, created before anything is written */
    if (!g_file_test(where, G_FILE_TEST_IS_DIR))
      why = dir ? "is not a directory" : "is not an existing directory";
    else if (access(where, W_OK | X_OK) != 0)
      why = g_strerror(errno);
  }
  if (!why)
    return true;
  if (!where)
    fprintf(stderr, "rigkit %s: %s %s: %s\n", cmd, option, path, why);
  else
    fprintf(stderr, "rigkit %s: %s %s cannot be %s: %s %s\n", cmd, option, path,
            dir ? "created" : "written", where, why);
  return false;
}
