/* Public entry points of the importers: reading the file, choosing the reader, error context. */
#include "assimp_scene.h"
#include "bvh.h"
#include "dh_table.h"
#include "fbx_helpers.h"
#include "fbx_internal.h"
#include "format.h"
#include "gltf_prepass.h"
#include "raw_asset.h"
#include "scene_import.h"
#include "scene_textures.h"
#include "sha256.h"
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The SHA-256 of an import's bytes, computed on a thread of its own while Assimp reads them. */
typedef struct digest_job {
  const rk__source *src;
  GThread *thread;
  char *hex;
} digest_job;

static gpointer digest_run(gpointer data) {
  digest_job *d = data;
  d->hex = rk__sha256_hex(d->src->data, d->src->size);
  return NULL;
}

/* Bytes under this are hashed where they are read: a thread would cost more than it saves. */
#define DIGEST_THREAD_BYTES (256 * 1024)

static void digest_start(digest_job *d, const rk__source *src) {
  *d = (digest_job){src, NULL, NULL};
  if (src->size >= DIGEST_THREAD_BYTES)
    d->thread = g_thread_try_new("rigkit-digest", digest_run, d, NULL);
}

/* The digest (g_free), once the thread is done. */
static char *digest_finish(digest_job *d) {
  if (d->thread)
    g_thread_join(g_steal_pointer(&d->thread));
  else if (!d->hex)
    digest_run(d);
  return g_steal_pointer(&d->hex);
}

static rk__raw_asset *read_assimp(const rk__source *src, const char *format,
                                  const rk_import_options *opts, GError **error) {
  rk__gltf_info gltf = {0};
  rk__source main = *src;
  const bool is_gltf = strcmp(format, "gltf") == 0 || strcmp(format, "glb") == 0;
  /* What was imported, for writers that edit the source file itself (rigkit/gltf_edit.h). */
  digest_job digest = {0};
  if (is_gltf)
    digest_start(&digest, src);
  g_autofree char *hex = NULL;
  if (is_gltf) {
    if (!rk__gltf_prepare(src, strcmp(format, "glb") == 0, &gltf, error)) {
      rk__gltf_info_clear(&gltf);
      hex = digest_finish(&digest);
      return NULL;
    }
    if (gltf.rewritten) {
      main.data = gltf.rewritten;
      main.size = gltf.rewritten_size;
    }
  }
  const bool is_fbx = strcmp(format, "fbx") == 0;
  rk__fbx_doc *doc = NULL; /* rigkit's reading of an FBX file, for the helper fold */
  g_autoptr(GError) doc_error = NULL;
  if (is_fbx && !rk__fbx_precheck(src->data, src->size, src->name, &doc, &doc_error, error))
    return NULL;
  rk__scene scene;
  if (!rk__assimp_read(&main, format, &scene, error)) {
    rk__fbx_doc_free(doc);
    rk__gltf_info_clear(&gltf);
    if (is_gltf)
      hex = digest_finish(&digest);
    return NULL;
  }
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func(g_free);
  if (is_fbx)
    rk__fbx_fold_helpers(&scene, doc, doc_error, notes);
  if (!opts->skip_meshes)
    rk__scene_load_textures(&scene, src->dir, notes);
  rk__fbx_doc_free(doc);
  rk__raw_asset *raw = rk__scene_to_raw(&scene, format, is_gltf ? &gltf : NULL, opts, error);
  if (raw)
    for (guint i = 0; i < notes->len; i++)
      rk__raw_note(raw, "%s", (const char *)g_ptr_array_index(notes, i));
  if (is_gltf)
    hex = digest_finish(&digest);
  if (raw && is_gltf) {
    raw->digest = g_steal_pointer(&hex);
    raw->source_tree = g_steal_pointer(&gltf.tree);
  }
  rk__scene_clear(&scene);
  rk__gltf_info_clear(&gltf);
  return raw;
}

/* Messages stay on one line of valid UTF-8 without control characters: the CLI prints them as
 * "rigkit info: <path>: <fault>", reports carry them in JSON, and readers quote bytes of the
 * file, which may be anything (invalid UTF-8 becomes U+FFFD, control bytes spaces). */
static void one_line(GError *e) {
  if (!e)
    return;
  if (!g_utf8_validate(e->message, -1, NULL)) {
    char *valid = g_utf8_make_valid(e->message, -1);
    g_free(e->message);
    e->message = valid;
  }
  for (char *p = e->message; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f)
      *p = ' ';
}

static rk_asset *import_source(const rk__source *src, const rk_import_options *opts_in,
                               GError **error) {
  rk_import_options defaults = RK_IMPORT_OPTIONS_INIT;
  const rk_import_options *opts = opts_in ? opts_in : &defaults;
  GError *err = NULL;
  rk_asset *asset = NULL;
  const char *format = NULL;
  if (opts->format) {
    if (!rk__format_known(opts->format)) {
      g_set_error(&err, RK_ERROR, RK_ERROR_UNSUPPORTED, "unknown format '%s'", opts->format);
      goto out;
    }
    format = opts->format;
  }
  if (!(opts->unit_scale >= 0) || !isfinite(opts->unit_scale)) {
    g_set_error(&err, RK_ERROR, RK_ERROR_INVALID, "invalid unit scale %g", opts->unit_scale);
    goto out;
  }
  if (src->size == 0) {
    g_set_error(&err, RK_ERROR, RK_ERROR_PARSE, "empty file");
    goto out;
  }
  const char *by_content = rk__format_sniff(src->data, src->size);
  if (!format)
    format = rk_import_format_from_path(src->name);
  if (!format)
    format = by_content;
  /* .gltf and .glb are told apart by the bytes, whatever the extension says. */
  if (format && (strcmp(format, "gltf") == 0 || strcmp(format, "glb") == 0) && by_content &&
      (strcmp(by_content, "gltf") == 0 || strcmp(by_content, "glb") == 0))
    format = by_content;
  if (!format) {
    const char *dot = src->name ? strrchr(src->name, '.') : NULL;
    g_set_error(&err, RK_ERROR, RK_ERROR_UNSUPPORTED,
                "unknown file format (extension '%s'; rigkit reads .bvh .gltf .glb .fbx .dh)",
                dot ? dot : "");
    goto out;
  }
  rk__raw_asset *raw = NULL;
  if (strcmp(format, "bvh") == 0)
    raw = rk__bvh_read(src, opts, &err);
  else if (strcmp(format, "dh") == 0)
    raw = rk__dh_read(src, opts, &err);
  else
    raw = read_assimp(src, format, opts, &err);
  if (raw) {
    asset = rk__raw_asset_finish(raw, format, src->name, &err);
    rk__raw_asset_free(raw);
  }
out:
  if (err) {
    g_prefix_error(&err, "%s: ", src->name);
    one_line(err);
    g_propagate_error(error, err);
  }
  return asset;
}

/* Files from this size are read into pages set up in one call (MAP_POPULATE), not faulted in one
 * at a time as the read fills a fresh buffer (a 2 MB BVH: 512 faults). */
#define POPULATE_BYTES (256 * 1024)

/* The whole of a regular file of at least POPULATE_BYTES in an anonymous mapping of *size + 1
 * bytes (a NUL after them, as g_file_get_contents leaves), or NULL when it is smaller, changes
 * size while read, or anything goes wrong (g_file_get_contents then reads it and words the
 * failure). */
static void *read_populated(const char *path, size_t *size) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  struct stat st;
  void *buf = MAP_FAILED;
  size_t n = 0;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= POPULATE_BYTES &&
      (guint64)st.st_size <= RK__IMPORT_MAX_FILE_SIZE) {
    n = (size_t)st.st_size;
    int flags = MAP_PRIVATE | MAP_ANONYMOUS;
#ifdef MAP_POPULATE
    flags |= MAP_POPULATE;
#endif
    buf = mmap(NULL, n + 1, PROT_READ | PROT_WRITE, flags, -1, 0);
  }
  size_t got = 0;
  while (buf != MAP_FAILED && got < n) {
    const ssize_t r = read(fd, (char *)buf + got, n - got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0) /* an error, or the file shrank: the careful path decides */
      break;
    got += (size_t)r;
  }
  if (buf != MAP_FAILED && got == n) { /* the file grew since fstat: the careful path reads it all */
    char more;
    ssize_t r;
    while ((r = read(fd, &more, 1)) < 0 && errno == EINTR)
      ;
    if (r != 0)
      got = 0;
  }
  close(fd);
  if (buf == MAP_FAILED)
    return NULL;
  if (got < n) {
    munmap(buf, n + 1);
    return NULL;
  }
  *size = n;
  return buf;
}

rk_asset *rk_import_file(const char *path, const rk_import_options *opts, GError **error) {
  g_return_val_if_fail(path != NULL, NULL);
  GStatBuf st;
  if (g_stat(path, &st) != 0) {
    int e = errno;
    g_set_error(error, RK_ERROR, RK_ERROR_IO, "%s: cannot open: %s", path, g_strerror(e));
    return NULL;
  }
  if (S_ISDIR(st.st_mode)) {
    g_set_error(error, RK_ERROR, RK_ERROR_IO, "%s: is a directory, not a file", path);
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) {
    g_set_error(error, RK_ERROR, RK_ERROR_IO, "%s: not a regular file", path);
    return NULL;
  }
  if ((guint64)st.st_size > RK__IMPORT_MAX_FILE_SIZE) {
    g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "%s: %" G_GUINT64_FORMAT " bytes (limit 1 GiB)",
                path, (guint64)st.st_size);
    return NULL;
  }
  size_t size = 0;
  void *mapped = read_populated(path, &size);
  if (mapped) {
    g_autofree char *dir = g_path_get_dirname(path);
    rk__source src = {path, dir, mapped, size};
    rk_asset *asset = import_source(&src, opts, error);
    munmap(mapped, size + 1);
    return asset;
  }
  gchar *data = NULL;
  g_autoptr(GError) read_error = NULL;
  if (!g_file_get_contents(path, &data, &size, &read_error)) {
    /* GLib's message already names the file and the reason (e.g. permission denied). */
    g_set_error(error, RK_ERROR, RK_ERROR_IO, "%s: cannot read: %s", path,
                read_error->code == (gint)G_FILE_ERROR_ACCES ? "permission denied"
                                                             : read_error->message);
    return NULL;
  }
  g_autofree char *dir = g_path_get_dirname(path);
  rk__source src = {path, dir, (const uint8_t *)data, size};
  rk_asset *asset = import_source(&src, opts, error);
  g_free(data);
  return asset;
}

rk_asset *rk_import_file_bytes(const void *data, size_t size, const char *path,
                               const rk_import_options *opts, GError **error) {
  g_return_val_if_fail(path != NULL && (data != NULL || size == 0), NULL);
  if (size > RK__IMPORT_MAX_FILE_SIZE) {
    g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "%s: %zu bytes (limit 1 GiB)", path, size);
    return NULL;
  }
  g_autofree char *dir = g_path_get_dirname(path);
  rk__source src = {path, dir, data ? data : (const uint8_t *)"", size};
  return import_source(&src, opts, error);
}

rk_asset *rk_import_memory(const void *data, size_t size, const char *name,
                           const rk_import_options *opts, GError **error) {
  g_return_val_if_fail(data != NULL || size == 0, NULL);
  if (size > RK__IMPORT_MAX_FILE_SIZE) {
    g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "%s: %zu bytes (limit 1 GiB)",
                name ? name : "(memory)", size);
    return NULL;
  }
  rk__source src = {name ? name : "(memory)", NULL, data ? data : (const uint8_t *)"", size};
  return import_source(&src, opts, error);
}
