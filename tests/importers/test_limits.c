/* Resource bounds: files that declare or contain absurd sizes are refused with a clear error
 * before anything of that size is allocated, and files at the limits still import, all with
 * memory bounded. Each file is read by the `rigkit info` command line in a child process limited
 * to 512 MB of address space (RLIMIT_AS; under AddressSanitizer, which reserves terabytes of
 * address space, ASan's own hard_rss_limit_mb=512 and max_allocation_size_mb=512 instead): a
 * refused file must exit with code 1 and the expected message, never crash or run out of memory.
 * The big files are generated here (a few MB each, not kept in git); every file of
 * tests/data/bad is run under the same limit. Limits: README "Limits", tests/fuzz/README.md. */
#include "import_test.h"

#include <glib/gstdio.h>
#include <sys/resource.h>
#include <unistd.h>

#define MEMORY_LIMIT_MB 512

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static void limit_memory(gpointer data) {
#ifndef UNDER_ASAN
  const struct rlimit r = {(rlim_t)MEMORY_LIMIT_MB << 20, (rlim_t)MEMORY_LIMIT_MB << 20};
  if (setrlimit(RLIMIT_AS, &r) != 0)
    _exit(99);
#endif
}

/* Runs `rigkit info PATH` under the memory limit; returns the exit code (the test fails on a
 * signal: a crash or an out-of-memory abort) and the captured stderr (g_free). */
static int info_limited(const char *path, char **err) {
  const char *argv[] = {RK_CLI_PATH, "info", path, NULL};
  g_auto(GStrv) env = g_get_environ();
#ifdef UNDER_ASAN
  const char *old = g_environ_getenv(env, "ASAN_OPTIONS");
  g_autofree char *asan = g_strdup_printf("%s%shard_rss_limit_mb=%d:max_allocation_size_mb=%d",
                                          old ? old : "", old ? ":" : "", MEMORY_LIMIT_MB,
                                          MEMORY_LIMIT_MB);
  env = g_environ_setenv(env, "ASAN_OPTIONS", asan, TRUE);
#endif
  g_autofree char *out = NULL;
  int status = -1;
  g_autoptr(GError) error = NULL;
  cr_assert(g_spawn_sync(NULL, (char **)argv, env, G_SPAWN_DEFAULT, limit_memory, NULL, &out, err,
                         &status, &error),
            "%s", error ? error->message : "");
  cr_assert(WIFEXITED(status), "%s: rigkit info died (status %d) under a %d MB limit: %s", path,
            status, MEMORY_LIMIT_MB, *err);
  cr_assert_neq(WEXITSTATUS(status), 99, "could not set RLIMIT_AS");
  return WEXITSTATUS(status);
}

static void expect_refused(const char *path, const char *fragment) {
  g_autofree char *err = NULL;
  const int rc = info_limited(path, &err);
  cr_assert_eq(rc, 1, "%s: exit code %d (stderr: %s)", path, rc, err);
  cr_assert(strstr(err, fragment), "%s: message lacks '%s': %s", path, fragment, err);
}

static void expect_read(const char *path) {
  g_autofree char *err = NULL;
  const int rc = info_limited(path, &err);
  cr_assert_eq(rc, 0, "%s: exit code %d under a %d MB limit (stderr: %s)", path, rc,
               MEMORY_LIMIT_MB, err);
}

/* A temporary directory for the generated files, removed with its files by cleanup_dir. */
static char *make_dir(void) {
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp("rigkit-limits-XXXXXX", &error);
  cr_assert(dir, "%s", error ? error->message : "");
  return dir;
}

static void cleanup_dir(const char *dir) {
  GDir *d = g_dir_open(dir, 0, NULL);
  for (const char *n; d && (n = g_dir_read_name(d));) {
    g_autofree char *p = g_build_filename(dir, n, NULL);
    g_remove(p);
  }
  if (d)
    g_dir_close(d);
  g_rmdir(dir);
}

static char *write_file(const char *dir, const char *name, const GString *text) {
  char *path = g_build_filename(dir, name, NULL);
  cr_assert(g_file_set_contents(path, text->str, (gssize)text->len, NULL), "%s", path);
  return path;
}

/* A BVH chain of n nested joints with 3 rotation channels each and two frames. */
static GString *bvh_chain(size_t n) {
  GString *s = g_string_new("HIERARCHY\n");
  for (size_t i = 0; i < n; i++)
    g_string_append_printf(s, "%s j%zu\n{\nOFFSET 0 1 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n",
                           i == 0 ? "ROOT" : "JOINT", i);
  for (size_t i = 0; i < n; i++)
    g_string_append(s, "}\n");
  g_string_append(s, "MOTION\nFrames: 2\nFrame Time: 0.04\n");
  for (int f = 0; f < 2; f++) {
    for (size_t i = 0; i < 3 * n; i++)
      g_string_append(s, "0 ");
    g_string_append_c(s, '\n');
  }
  return s;
}

Test(limits, joint_counts_at_and_beyond_the_limit, .timeout = 600) {
  g_autofree char *dir = make_dir();
  g_autoptr(GString) at = bvh_chain(RK_SKELETON_MAX_JOINTS);
  g_autofree char *p1 = write_file(dir, "at_limit.bvh", at);
  expect_read(p1);
  g_autoptr(GString) over = bvh_chain(RK_SKELETON_MAX_JOINTS + 1);
  g_autofree char *p2 = write_file(dir, "over_limit.bvh", over);
  expect_refused(p2, "more than 65535 joints");
  /* A DH table: base and tool joints come with the rows. */
  g_autoptr(GString) dh = g_string_new("rigkit-dh 1\n");
  for (size_t i = 0; i < RK_SKELETON_MAX_JOINTS; i++)
    g_string_append_printf(dh, "joint J%zu revolute 0.001 0 0 0\n", i);
  g_autofree char *p3 = write_file(dir, "many_rows.dh", dh);
  expect_refused(p3, "more than 65533 joints");
  /* glTF: 700000 empty nodes (the pre-pass allows 10 nodes per possible joint). */
  g_autoptr(GString) gltf = g_string_new("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}");
  for (int i = 1; i < 700000; i++)
    g_string_append(gltf, ",{}");
  g_string_append(gltf, "]}");
  g_autofree char *p4 = write_file(dir, "many_nodes.gltf", gltf);
  expect_refused(p4, "700000 nodes (limit 655350)");
  cleanup_dir(dir);
}

Test(limits, long_names_lines_and_files) {
  g_autofree char *dir = make_dir();
  /* A 10 MB glTF node name and BVH joint name. */
  g_autoptr(GString) gltf = g_string_new("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"");
  for (int i = 0; i < 10 << 20; i++)
    g_string_append_c(gltf, 'n');
  g_string_append(gltf, "\"}]}");
  g_autofree char *p1 = write_file(dir, "long_name.gltf", gltf);
  expect_refused(p1, "10485760-byte name (limit 1024)");
  g_autoptr(GString) bvh = g_string_new("HIERARCHY\nROOT ");
  for (int i = 0; i < 10 << 20; i++)
    g_string_append_c(bvh, 'j');
  g_string_append(bvh, "\n{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation\n}\nMOTION\nFrames: 1\n"
                       "Frame Time: 0.04\n0\n");
  g_autofree char *p2 = write_file(dir, "long_name.bvh", bvh);
  expect_refused(p2, "10485760-byte");
  /* A 2 MiB line in a DH table. */
  g_autoptr(GString) dh = g_string_new("rigkit-dh 1\nname ");
  for (int i = 0; i < 2 << 20; i++)
    g_string_append_c(dh, 'x');
  g_string_append(dh, "\njoint J1 revolute 0 0 0 0\n");
  g_autofree char *p3 = write_file(dir, "long_line.dh", dh);
  expect_refused(p3, "line longer than 1048576 bytes");
  /* A file one byte over the 1 GiB limit (sparse: it takes no disk space) is refused unread. */
  g_autofree char *p4 = g_build_filename(dir, "too_big.glb", NULL);
  FILE *f = fopen(p4, "wb");
  cr_assert(f);
  cr_assert_eq(ftruncate(fileno(f), (off_t)(1 << 30) + 1), 0);
  fclose(f);
  expect_refused(p4, "1073741825 bytes (limit 1 GiB)");
  cleanup_dir(dir);
}

Test(limits, every_malformed_file_fails_within_the_memory_limit) {
  g_autoptr(GPtrArray) cases = bad_cases("expected.txt");
  for (guint i = 0; i < cases->len; i++) {
    char **f = g_ptr_array_index(cases, i);
    expect_refused(f[0], f[1]);
  }
  cr_assert_geq(cases->len, 40);
}
