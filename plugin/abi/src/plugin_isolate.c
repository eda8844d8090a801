/* Imports in the helper process (rigkit-import-helper, plugin/abi/helper): an importer that aborts
 * or crashes takes the helper down, never the host. The helper is started with posix_spawn, which
 * execs at once: forking a multi-threaded host (Blender) and running an importer in the copy
 * would not be safe. The file's bytes (for asset_open_memory) go to its standard input, the reply
 * (asset_wire.h) comes back on its standard output, and the tail of its standard error is kept
 * for the message when it dies. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr, pipe2, posix_spawn_file_actions_addclosefrom_np */
#endif
#include "asset_wire.h"
#include "plugin_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define HELPER_NAME "rigkit-import-helper"
#ifndef RK_IMPORT_HELPER_INSTALLED
#define RK_IMPORT_HELPER_INSTALLED "/usr/local/libexec/rigkit/" HELPER_NAME
#endif
/* The most reply bytes a GByteArray holds, with room to spare. */
#define REPLY_MAX (G_MAXUINT - (1u << 20))
#define STDERR_TAIL 2048

static const char anchor; /* an address inside this library, for dladdr */

/* The helper's path: $RIGKIT_IMPORT_HELPER, beside this library, or where it was installed; NULL
 * (the places tried appended to `tried`) when there is none. */
static char *find_helper(GString *tried) {
  const char *env = g_getenv("RIGKIT_IMPORT_HELPER");
  if (env && *env)
    return g_strdup(env);
  Dl_info info;
  if (dladdr(&anchor, &info) && info.dli_fname && strchr(info.dli_fname, '/')) {
    g_autofree char *dir = g_path_get_dirname(info.dli_fname);
    char *beside = g_build_filename(dir, HELPER_NAME, NULL);
    if (g_file_test(beside, G_FILE_TEST_IS_EXECUTABLE))
      return beside;
    g_string_append_printf(tried, "%s, ", beside);
    g_free(beside);
  }
  if (g_file_test(RK_IMPORT_HELPER_INSTALLED, G_FILE_TEST_IS_EXECUTABLE))
    return g_strdup(RK_IMPORT_HELPER_INSTALLED);
  g_string_append(tried, RK_IMPORT_HELPER_INSTALLED);
  return NULL;
}

/* The helper's command line for these options. */
static GPtrArray *helper_argv(const char *helper, const char *path, bool from_stdin,
                              const rk_plugin_import_options *opts) {
  GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(a, g_strdup(helper));
  if (opts && opts->format) {
    g_ptr_array_add(a, g_strdup("--format"));
    g_ptr_array_add(a, g_strdup(opts->format));
  }
  if (opts && opts->metres_per_unit > 0) {
    char num[G_ASCII_DTOSTR_BUF_SIZE];
    g_ptr_array_add(a, g_strdup("--unit"));
    g_ptr_array_add(a, g_strdup(g_ascii_dtostr(num, sizeof num, opts->metres_per_unit)));
  }
  if (opts && opts->bvh_root_offset != RK_PLUGIN_BVH_ROOT_OFFSET_AUTO) {
    g_ptr_array_add(a, g_strdup("--root-offset"));
    g_ptr_array_add(a, g_strdup(opts->bvh_root_offset == RK_PLUGIN_BVH_ROOT_OFFSET_ADD ? "add"
                                                                                    : "replace"));
  }
  if (opts && opts->bvh_up_axis) {
    g_ptr_array_add(a, g_strdup("--up-axis"));
    g_ptr_array_add(a, g_strdup(opts->bvh_up_axis));
  }
  g_ptr_array_add(a, g_strdup(from_stdin ? "--stdin" : "--file"));
  g_ptr_array_add(a, g_strdup(path));
  g_ptr_array_add(a, NULL);
  return a;
}

/* Starts the helper with in, out and err as its standard streams, every other descriptor closed,
 * no signal blocked and the signals a host may ignore back to their defaults. 0 or an errno. */
static int spawn(char **argv, int in, int out, int err, pid_t *pid) {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&fa, out, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&fa, err, STDERR_FILENO);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
  posix_spawn_file_actions_addclosefrom_np(&fa, STDERR_FILENO + 1);
#endif
  posix_spawnattr_init(&at);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  const int reset[] = {SIGPIPE, SIGCHLD, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGABRT, SIGSEGV};
  for (size_t i = 0; i < G_N_ELEMENTS(reset); i++)
    sigaddset(&defaults, reset[i]);
  posix_spawnattr_setsigmask(&at, &none);
  posix_spawnattr_setsigdefault(&at, &defaults);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  const int rc = posix_spawn(pid, argv[0], &fa, &at, argv, environ);
  posix_spawnattr_destroy(&at);
  posix_spawn_file_actions_destroy(&fa);
  return rc;
}

/* The parent's ends while the helper runs. */
typedef struct exchange {
  const uint8_t *in;    /* bytes still to send, or NULL */
  size_t in_left;
  GByteArray *reply;    /* its standard output */
  GString *said;        /* the tail of its standard error */
  bool too_large;
} exchange;

/* Reads what is ready on fd into the exchange; false at the end of the stream. */
static bool drain(int fd, bool is_reply, exchange *x) {
  uint8_t buf[65536];
  const ssize_t r = read(fd, buf, sizeof buf);
  if (r < 0)
    return errno == EINTR || errno == EAGAIN;
  if (r == 0)
    return false;
  if (!is_reply) {
    g_string_append_len(x->said, (const char *)buf, r);
    if (x->said->len > STDERR_TAIL)
      g_string_erase(x->said, 0, (gssize)(x->said->len - STDERR_TAIL));
  } else if (x->reply->len + (size_t)r > REPLY_MAX) {
    x->too_large = true;
  } else {
    g_byte_array_append(x->reply, buf, (guint)r);
  }
  return true;
}

/* Feeds the bytes to the helper and collects its output until both outputs end; false when
 * poll itself fails (the caller then stops the helper, which may be blocked writing). send() with
 * MSG_NOSIGNAL on a socket: a helper that dies early must not raise SIGPIPE in the host. */
static bool converse(int in, int out, int err, exchange *x) {
  struct pollfd p[3] = {{out, POLLIN, 0}, {err, POLLIN, 0}, {x->in ? in : -1, POLLOUT, 0}};
  while (p[0].fd >= 0 || p[1].fd >= 0) {
    if (poll(p, 3, -1) < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    for (int k = 0; k < 2; k++)
      if (p[k].fd >= 0 && p[k].revents && !drain(p[k].fd, k == 0, x))
        p[k].fd = -1;
    if (p[2].fd >= 0 && p[2].revents) {
      const ssize_t w = send(in, x->in, MIN(x->in_left, (size_t)65536), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (w > 0)
        x->in += w, x->in_left -= (size_t)w;
      if ((w < 0 && errno != EINTR && errno != EAGAIN) || x->in_left == 0) {
        shutdown(in, SHUT_WR); /* the end of the file for the helper */
        p[2].fd = -1;
      }
    }
  }
  return true;
}

/* The helper's exit, -1 when it could not be collected (a host reaping every child itself). */
static int wait_helper(pid_t pid) {
  int status;
  for (;;) {
    if (waitpid(pid, &status, 0) == pid)
      return status;
    if (errno != EINTR)
      return -1;
  }
}

static const char *signal_name(int sig) {
  switch (sig) {
  case SIGABRT:
    return "SIGABRT, an abort";
  case SIGSEGV:
    return "SIGSEGV, a bad memory access";
  case SIGBUS:
    return "SIGBUS, a bad memory access";
  case SIGFPE:
    return "SIGFPE, an arithmetic fault";
  case SIGILL:
    return "SIGILL, an illegal instruction";
  case SIGKILL:
    return "SIGKILL, killed (e.g. out of memory)";
  default:
    return "a signal";
  }
}

/* The CRASHED message: the file, how the helper ended, and its last line on standard error. */
static int fail_crashed(const char *path, int status, const GError *why, const GString *said,
                        char *err, size_t err_size) {
  g_autofree char *how =
      status != -1 && WIFSIGNALED(status)
          ? g_strdup_printf("crashed on it (signal %d, %s)", WTERMSIG(status),
                            signal_name(WTERMSIG(status)))
      : status != -1 && WIFEXITED(status) && WEXITSTATUS(status) != 0
          ? g_strdup_printf("exited with status %d without an answer", WEXITSTATUS(status))
          : g_strdup_printf("gave no usable answer (%s)", why ? why->message : "none");
  g_autofree char *last = NULL;
  g_auto(GStrv) lines = g_strsplit(g_strstrip(said->str), "\n", -1);
  const guint nl = g_strv_length(lines);
  if (nl > 0 && *lines[nl - 1])
    last = g_utf8_make_valid(lines[nl - 1], MIN((gssize)strlen(lines[nl - 1]), 240));
  return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_CRASHED,
                         "%s: the importer %s in %s, a separate process: the file is refused and "
                         "this application is unaffected%s%s%s",
                         path, how, HELPER_NAME, last ? " (it said: " : "", last ? last : "",
                         last ? ")" : "");
}

/* What the helper's reply and exit mean: the asset into *out, or a status and message. */
static int take_reply(const char *path, int status, exchange *x, rk_asset **out, char *err,
                      size_t err_size) {
  if (x->too_large)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_LIMIT,
                           "%s: the imported asset is larger than the %u bytes one import may hand "
                           "back",
                           path, REPLY_MAX);
  g_autoptr(GError) e = NULL;
  switch (rk__wire_reply_read(x->reply->data, x->reply->len, out, &e)) {
  case RK__WIRE_ASSET: /* complete: whatever happened after it was written does not matter */
    return RK_PLUGIN_OK;
  case RK__WIRE_ERROR:
    return rk__plugin_fail_gerror(err, err_size, e);
  default:
    if (e && e->code == RK_ERROR_UNSUPPORTED) /* a helper of another build */
      return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_IO, "%s: %s", path, e->message);
    return fail_crashed(path, status, e, x->said, err, err_size);
  }
}

int rk__plugin_import_isolated(const char *path, const void *data, size_t size,
                               const rk_plugin_import_options *opts, rk_asset **out, char *err,
                               size_t err_size) {
  *out = NULL;
  g_autoptr(GString) tried = g_string_new(NULL);
  g_autofree char *helper = find_helper(tried);
  if (!helper)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_IO,
                           "%s: cannot import it in a separate process: no %s at %s, and "
                           "RIGKIT_IMPORT_HELPER is not set (import options isolation = "
                           "RK_PLUGIN_ISOLATION_NONE imports in this process)",
                           path, HELPER_NAME, tried->str);
  int in[2] = {-1, -1}, outp[2] = {-1, -1}, errp[2] = {-1, -1};
  bool ok = pipe2(outp, O_CLOEXEC) == 0 && pipe2(errp, O_CLOEXEC) == 0;
  if (ok && data)
    ok = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) == 0;
  else if (ok)
    ok = (in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;
  int rc = ok ? 0 : errno;
  pid_t pid = -1;
  if (ok) {
    g_autoptr(GPtrArray) argv = helper_argv(helper, path, data != NULL, opts);
    rc = spawn((char **)argv->pdata, in[0], outp[1], errp[1], &pid);
  }
  exchange x = {data, data ? size : 0, g_byte_array_new(), g_string_new(NULL), false};
  int status = -1;
  if (rc == 0) {
    close(in[0]), close(outp[1]), close(errp[1]);
    in[0] = outp[1] = errp[1] = -1;
    if (!converse(in[1], outp[0], errp[0], &x))
      kill(pid, SIGKILL);
    status = wait_helper(pid);
  }
  const int fds[] = {in[0], in[1], outp[0], outp[1], errp[0], errp[1]};
  for (size_t i = 0; i < G_N_ELEMENTS(fds); i++)
    if (fds[i] >= 0)
      close(fds[i]);
  int st = rc != 0 ? rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_IO,
                                     "%s: cannot start the import helper %s: %s", path, helper,
                                     g_strerror(rc))
                   : take_reply(path, status, &x, out, err, err_size);
  g_byte_array_unref(x.reply);
  g_string_free(x.said, TRUE);
  return st;
}
