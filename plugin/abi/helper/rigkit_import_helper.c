/* rigkit-import-helper: imports one file in a process of its own for librigkit_plugin.so, so that
 * an importer that aborts or crashes (Assimp 5.2.5 does on some malformed glTF/FBX files) takes
 * down this process and not the host application. The plugin starts it with posix_spawn
 * (plugin/abi/src/plugin_isolate.c) and reads the reply on its standard output: the asset
 * serialised by asset_wire.c, or the importer's error. It is not meant to be run by hand.
 *
 *   rigkit-import-helper [--format F] [--unit METRES] [--up-axis A] [--root-offset add|replace]
 *                        (--file PATH | --stdin NAME)
 *
 * --stdin reads the file's bytes from standard input (NAME is used in messages and for the
 * format). Exit status 0 when a reply was written (an asset or an import error), 2 on bad
 * arguments. Anything the libraries print goes to standard error, never into the reply.
 *
 * Test hook: RIGKIT_IMPORT_HELPER_FAULT=KIND[:TEXT] makes the helper fail after importing when
 * the file's name contains TEXT (every file without it), the way a crashing importer would:
 * KIND abort (SIGABRT, as Assimp's failed assertions do), segv (SIGSEGV), exit (status 3, no
 * reply), truncate (half a reply) or garbage (bytes that are no reply). The plugin's tests and the
 * Blender add-on's tests use it to show each failure refused with a message. */
#include "../src/asset_wire.h"

#include <rigkit/importers.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Writes all n bytes to fd; false on an error (the plugin then sees a short reply). */
static bool write_all(int fd, const uint8_t *p, size_t n) {
  while (n > 0) {
    const ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return false;
    p += w, n -= (size_t)w;
  }
  return true;
}

/* The injected fault for this file, or NULL (see the opening comment). */
static char *fault_for(const char *name) {
  const char *spec = g_getenv("RIGKIT_IMPORT_HELPER_FAULT");
  if (!spec || !*spec)
    return NULL;
  const char *colon = strchr(spec, ':');
  if (colon && !strstr(name, colon + 1))
    return NULL;
  return colon ? g_strndup(spec, (gsize)(colon - spec)) : g_strdup(spec);
}

/* Fails the way `kind` says, or returns false when kind only changes the reply. */
static bool crash(const char *kind) {
  if (!strcmp(kind, "abort"))
    abort();
  if (!strcmp(kind, "segv")) {
    /* The default action, not a sanitizer's handler (which would report and abort instead). */
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
  }
  if (!strcmp(kind, "exit"))
    _exit(3);
  return false;
}

static int usage(const char *why) {
  fprintf(stderr, "rigkit-import-helper: %s (this program is started by librigkit_plugin.so)\n",
          why);
  return 2;
}

int main(int argc, char **argv) {
  /* The reply goes to a private copy of stdout; stdout itself becomes stderr, so whatever a
   * library prints cannot corrupt the reply. */
  const int reply_fd = dup(STDOUT_FILENO);
  if (reply_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
    return usage("cannot set up its output");
  rk_import_options o = RK_IMPORT_OPTIONS_INIT;
  const char *path = NULL, *name = NULL;
  for (int i = 1; i < argc; i += 2) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v)
      return usage("an option without its value");
    if (!strcmp(a, "--format"))
      o.format = v;
    else if (!strcmp(a, "--unit"))
      o.unit_scale = g_ascii_strtod(v, NULL);
    else if (!strcmp(a, "--up-axis"))
      o.up_axis = v;
    else if (!strcmp(a, "--root-offset"))
      o.bvh_root_offset = !strcmp(v, "add") ? RK_BVH_ROOT_OFFSET_ADD : RK_BVH_ROOT_OFFSET_REPLACE;
    else if (!strcmp(a, "--file"))
      path = v;
    else if (!strcmp(a, "--stdin"))
      name = v;
    else
      return usage("unknown option");
  }
  if (!path == !name)
    return usage("give exactly one of --file and --stdin");

  g_autoptr(GError) e = NULL;
  g_autoptr(rk_asset) asset = NULL;
  if (path) {
    asset = rk_import_file(path, &o, &e);
  } else {
    GByteArray *in = g_byte_array_new();
    uint8_t buf[65536];
    ssize_t r;
    while ((r = read(STDIN_FILENO, buf, sizeof buf)) != 0) {
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return usage("cannot read the bytes on standard input");
      g_byte_array_append(in, buf, (guint)r);
    }
    asset = in->len ? rk_import_memory(in->data, in->len, name, &o, &e) : NULL;
    if (!in->len)
      g_set_error(&e, RK_ERROR, RK_ERROR_PARSE, "%s: empty file", name);
    g_byte_array_unref(in);
  }
  g_autofree char *fault = fault_for(path ? path : name);
  if (fault)
    crash(fault);

  g_autoptr(GByteArray) reply = g_byte_array_new();
  if (asset)
    rk__wire_asset_write(asset, reply);
  else
    rk__wire_error_write(e, reply);
  size_t n = reply->len;
  if (fault && !strcmp(fault, "truncate"))
    n /= 2;
  if (fault && !strcmp(fault, "garbage"))
    memset(reply->data, 0x5a, n = MIN(n, 64));
  write_all(reply_fd, reply->data, n);
  return 0;
}
