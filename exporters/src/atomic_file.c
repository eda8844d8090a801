/* Atomic output files: write a temporary in the destination's directory, fsync, rename. A reader
 * of the destination sees either the previous file or the complete new one, never a prefix. */
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { BUFFER_SIZE = 256 * 1024 };

struct rk__atomic_file {
  char *path;     /* destination */
  char *tmp_path; /* temporary beside it */
  int fd;         /* -1 once closed; open for reading and writing */
  int error_no;   /* first write error (sticky), 0 = none */
  bool finished;
  bool synced;    /* fsync done (maybe on a set's syncing thread) */
  dev_t dev;      /* the temporary's file, to check that the destination is it once renamed */
  ino_t ino;
  size_t used;
  size_t written; /* bytes handed to write(2) */
  unsigned char buffer[BUFFER_SIZE];
};

rk__atomic_file *rk__atomic_file_open(const char *path, GError **error) {
  if (!path || !*path) {
    g_set_error(error, RK_ERROR, RK_ERROR_IO, "no output path given");
    return NULL;
  }
  if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
    g_set_error(error, RK_ERROR, RK_ERROR_IO, "%s: is a directory, not a file name", path);
    return NULL;
  }
  g_autofree char *dir = g_path_get_dirname(path);
  g_autofree char *base = g_path_get_basename(path);
  /* Keep the temporary's name within NAME_MAX (255) even for a long destination name. */
  if (strlen(base) > 200)
    base[200] = '\0';
  g_autofree char *tmpl_name = g_strdup_printf(".%s.rk-XXXXXX", base);
  char *tmpl = g_build_filename(dir, tmpl_name, NULL);
  int fd = g_mkstemp_full(tmpl, O_RDWR | O_CLOEXEC, 0666);
  if (fd < 0) {
    int e = errno;
    g_set_error(error, RK_ERROR, RK_ERROR_IO, "%s: cannot create a file in '%s': %s", path, dir,
                g_strerror(e));
    g_free(tmpl);
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    g_set_error(error, RK_ERROR, RK_ERROR_IO, "%s: cannot create a file in '%s': %s", path, dir,
                g_strerror(e));
    close(fd);
    g_unlink(tmpl);
    g_free(tmpl);
    return NULL;
  }
  rk__atomic_file *f = g_malloc(sizeof *f);
  f->path = g_strdup(path);
  f->synced = false;
  f->dev = st.st_dev;
  f->ino = st.st_ino;
  f->tmp_path = tmpl;
  f->fd = fd;
  f->error_no = 0;
  f->finished = false;
  f->used = 0;
  f->written = 0;
  return f;
}

static void write_all(rk__atomic_file *f, const unsigned char *p, size_t n) {
  while (n > 0 && f->error_no == 0) {
    ssize_t w = write(f->fd, p, n);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      f->error_no = errno;
      return;
    }
    if (w == 0) {
      f->error_no = EIO;
      return;
    }
    p += w;
    n -= (size_t)w;
    f->written += (size_t)w;
  }
}

static void flush_buffer(rk__atomic_file *f) {
  write_all(f, f->buffer, f->used);
  f->used = 0;
}

bool rk__atomic_file_write(rk__atomic_file *f, const void *data, size_t n) {
  if (f->error_no != 0 || f->finished)
    return false;
  const unsigned char *p = data;
  if (f->used + n > BUFFER_SIZE) {
    flush_buffer(f);
    if (n >= BUFFER_SIZE) {
      write_all(f, p, n);
      return f->error_no == 0;
    }
  }
  memcpy(f->buffer + f->used, p, n);
  f->used += n;
  return f->error_no == 0;
}

/* Writes out the buffer and fsyncs the temporary; the first error stays in f->error_no. */
static void flush_and_sync(rk__atomic_file *f) {
  flush_buffer(f);
  if (f->error_no == 0 && fsync(f->fd) != 0 && errno != EINVAL && errno != EROFS)
    f->error_no = errno;
  f->synced = true;
}

bool rk__atomic_file_finish(rk__atomic_file *f, GError **error) {
  if (f->finished)
    return true;
  if (!f->synced)
    flush_and_sync(f);
  if (f->error_no == 0) {
    int fd = f->fd;
    f->fd = -1;
    if (close(fd) != 0 && errno != EINTR)
      f->error_no = errno;
  }
  if (f->error_no != 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_IO, "%s: write failed: %s (nothing written)", f->path,
                g_strerror(f->error_no));
    return false;
  }
  f->finished = true;
  return true;
}

static void sync_directory(const char *path) {
  g_autofree char *dir = g_path_get_dirname(path);
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    /* Best effort: some file systems refuse fsync on directories; the data itself is synced. */
    (void)fsync(dfd);
    close(dfd);
  }
}

static void free_file(rk__atomic_file *f) {
  if (f->fd >= 0)
    close(f->fd);
  g_free(f->path);
  g_free(f->tmp_path);
  g_free(f);
}

bool rk__atomic_file_commit(rk__atomic_file *f, GError **error) {
  if (!rk__atomic_file_finish(f, error)) {
    rk__atomic_file_abort(f);
    return false;
  }
  if (g_rename(f->tmp_path, f->path) != 0) {
    int e = errno;
    g_set_error(error, RK_ERROR, RK_ERROR_IO, "%s: cannot replace the file: %s", f->path,
                g_strerror(e));
    rk__atomic_file_abort(f);
    return false;
  }
  /* The name now holds the bytes written (and perhaps read back from the temporary) unless
   * something replaced the temporary under the same name meanwhile. */
  GStatBuf st;
  const bool ours = g_stat(f->path, &st) == 0 && st.st_dev == f->dev && st.st_ino == f->ino;
  sync_directory(f->path);
  if (!ours)
    g_set_error(error, RK_ERROR, RK_ERROR_IO,
                "%s: another file took the name while it was being written", f->path);
  free_file(f);
  return ours;
}

void rk__atomic_file_abort(rk__atomic_file *f) {
  if (!f)
    return;
  if (f->fd >= 0) {
    close(f->fd);
    f->fd = -1;
  }
  if (f->tmp_path)
    g_unlink(f->tmp_path);
  free_file(f);
}

struct rk__atomic_set {
  rk__atomic_file **files;
  size_t n;
  GThread *syncer; /* running fsync over files, or NULL */
};

rk__atomic_set *rk__atomic_stage_files(const rk__atomic_output *files, size_t n, GError **error) {
  rk__atomic_set *s = g_new0(rk__atomic_set, 1);
  s->files = g_new0(rk__atomic_file *, n ? n : 1);
  s->n = n;
  for (size_t i = 0; i < n; i++) {
    rk__atomic_file *f = s->files[i] = rk__atomic_file_open(files[i].path, error);
    if (!f) {
      rk__atomic_set_abort(s);
      return NULL;
    }
    for (size_t k = 0; k < files[i].n_pieces; k++)
      rk__atomic_file_write(f, files[i].pieces[k].data, files[i].pieces[k].size);
    flush_buffer(f);
    if (f->error_no != 0) {
      g_set_error(error, RK_ERROR, RK_ERROR_IO, "%s: write failed: %s (nothing written)", f->path,
                  g_strerror(f->error_no));
      rk__atomic_set_abort(s);
      return NULL;
    }
  }
  return s;
}

static gpointer sync_files(gpointer data) {
  rk__atomic_set *s = data;
  for (size_t i = 0; i < s->n; i++)
    flush_and_sync(s->files[i]);
  return NULL;
}

void rk__atomic_set_sync_start(rk__atomic_set *s) {
  if (!s->syncer)
    s->syncer = g_thread_try_new("rigkit-fsync", sync_files, s, NULL);
}

static void sync_wait(rk__atomic_set *s) {
  if (s->syncer)
    g_thread_join(g_steal_pointer(&s->syncer));
}

/* A read-only mapping of a temporary, as a GBytes' free function sees it. */
typedef struct mapping {
  void *addr;
  size_t size;
} mapping;

static void unmap(gpointer data) {
  mapping *m = data;
  munmap(m->addr, m->size);
  g_free(m);
}

/* The temporary's pages mapped as they are in the page cache (no copy, no fresh pages to fault
 * in and clear: a 1.5 MB output was 375 page faults read into a new buffer), or NULL when the
 * system will not map it (then the caller reads it). */
static GBytes *map_file(const rk__atomic_file *f) {
  int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
  flags |= MAP_POPULATE; /* the pages set up in one call, not a fault each */
#endif
  void *addr = f->written ? mmap(NULL, f->written, PROT_READ, flags, f->fd, 0) : MAP_FAILED;
  if (addr == MAP_FAILED)
    return NULL;
  mapping *m = g_new(mapping, 1);
  *m = (mapping){addr, f->written};
  return g_bytes_new_with_free_func(addr, f->written, unmap, m);
}

GBytes *rk__atomic_set_read(const rk__atomic_set *s, size_t i, GError **error) {
  const rk__atomic_file *f = s->files[i];
  GBytes *mapped = map_file(f);
  if (mapped)
    return mapped;
  guint8 *data = g_malloc(f->written ? f->written : 1);
  size_t got = 0;
  while (got < f->written) {
    const ssize_t r = pread(f->fd, data + got, f->written - got, (off_t)got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0) {
      g_set_error(error, RK_ERROR, RK_ERROR_IO, "%s: cannot read back what was written: %s",
                  f->path, r < 0 ? g_strerror(errno) : "the file is shorter");
      g_free(data);
      return NULL;
    }
    got += (size_t)r;
  }
  return g_bytes_new_take(data, got);
}

bool rk__atomic_set_commit(rk__atomic_set *s, GError **error) {
  sync_wait(s);
  bool ok = true;
  for (size_t i = 0; ok && i < s->n; i++)
    ok = rk__atomic_file_finish(s->files[i], error);
  for (size_t i = s->n; ok && i-- > 0;) {
    ok = rk__atomic_file_commit(s->files[i], error);
    s->files[i] = NULL;
  }
  rk__atomic_set_abort(s);
  return ok;
}

void rk__atomic_set_abort(rk__atomic_set *s) {
  if (!s)
    return;
  sync_wait(s);
  for (size_t i = 0; i < s->n; i++)
    rk__atomic_file_abort(s->files[i]);
  g_free(s->files);
  g_free(s);
}

bool rk__atomic_write_files(const rk__atomic_output *files, size_t n, GError **error) {
  rk__atomic_set *s = rk__atomic_stage_files(files, n, error);
  return s && rk__atomic_set_commit(s, error);
}
