/* Shared pieces of the libFuzzer targets (tests/fuzz/fuzz_*.c, built with RK_FUZZ=ON).
 *
 * A target feeds its input to one of rigkit's input paths and then checks the contract every
 * reader promises: on failure a GError in the RK_ERROR domain with a non-empty one-line UTF-8
 * message and no result; on success no error and a result made only of finite numbers. A broken
 * contract aborts, which libFuzzer records as a crash (with the input that caused it). GLib
 * criticals and warnings (a failed g_return_if_fail: rigkit called wrongly by itself) abort too.
 * Fixed inputs (the target rig, ...) come from tests/data. */
#ifndef RK_FUZZ_SUPPORT_H
#define RK_FUZZ_SUPPORT_H

#include <rigkit/importers.h>
#include <rigkit/rigkit.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The harness itself went wrong (a missing fixture): not a finding about the input. */
#define RK_FUZZ_REQUIRE(cond, ...)                                                                \
  do {                                                                                            \
    if (!(cond)) {                                                                                \
      fprintf(stderr, "fuzz harness: " __VA_ARGS__);                                              \
      fputc('\n', stderr);                                                                        \
      exit(2);                                                                                    \
    }                                                                                             \
  } while (0)

/* A broken contract: print why and abort so that libFuzzer saves the input. */
#define RK_FUZZ_CHECK(cond, ...)                                                                  \
  do {                                                                                            \
    if (!(cond)) {                                                                                \
      fprintf(stderr, "contract broken (%s:%d): ", __FILE__, __LINE__);                          \
      fprintf(stderr, __VA_ARGS__);                                                               \
      fputc('\n', stderr);                                                                        \
      abort();                                                                                    \
    }                                                                                             \
  } while (0)

/* GLib warnings, criticals and errors abort() from the handler: GLib's own fatal path raises
 * SIGTRAP, which libFuzzer does not catch, so the input would not be saved. */
static inline void rk_fuzz_log(const gchar *domain, GLogLevelFlags level, const gchar *message,
                               gpointer user) {
  (void)user;
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING)) {
    fprintf(stderr, "rk_fuzz: GLib %s from %s: %s\n",
            level & G_LOG_LEVEL_ERROR      ? "error"
            : level & G_LOG_LEVEL_CRITICAL ? "critical"
                                           : "warning",
            domain ? domain : "(no domain)", message);
    abort();
  }
}

static inline void rk_fuzz_setup(void) {
  g_log_set_default_handler(rk_fuzz_log, NULL);
}

/* ok: what the call returned; error: what it set. */
static inline void rk_fuzz_check_outcome(bool ok, const GError *error, const char *what) {
  if (ok) {
    RK_FUZZ_CHECK(error == NULL, "%s succeeded but set an error: %s", what, error->message);
    return;
  }
  RK_FUZZ_CHECK(error != NULL, "%s failed without an error", what);
  RK_FUZZ_CHECK(error->domain == RK_ERROR, "%s failed in domain %s: %s", what,
                g_quark_to_string(error->domain), error->message);
  RK_FUZZ_CHECK(error->message && *error->message, "%s failed with an empty message", what);
  RK_FUZZ_CHECK(g_utf8_validate(error->message, -1, NULL), "%s: message is not UTF-8", what);
}

/* Same, plus the importers' promise of a single-line message. */
static inline void rk_fuzz_check_import(const rk_asset *asset, const GError *error) {
  rk_fuzz_check_outcome(asset != NULL, error, "import");
  if (!asset)
    RK_FUZZ_CHECK(!strchr(error->message, '\n'), "import message spans lines: %s",
                  error->message);
}

static inline bool rk_fuzz_transform_finite(const rk_transform *x) {
  const double v[] = {x->t.x, x->t.y, x->t.z, x->r.x, x->r.y,
                      x->r.z, x->r.w, x->s.x, x->s.y, x->s.z};
  for (size_t i = 0; i < G_N_ELEMENTS(v); i++)
    if (!isfinite(v[i]))
      return false;
  return true;
}

/* Samples a clip at its start, a few inner times and its end: every local must be finite. */
static inline void rk_fuzz_check_clip(const rk_skeleton *s, const rk_clip *clip) {
  const size_t n = rk_skeleton_joint_count(s);
  RK_FUZZ_CHECK(rk_clip_joint_count(clip) == n, "clip '%s' has %zu joints, skeleton %zu",
                rk_clip_name(clip), rk_clip_joint_count(clip), n);
  const double d = rk_clip_duration(clip);
  RK_FUZZ_CHECK(isfinite(d) && d >= 0, "clip '%s' duration %g", rk_clip_name(clip), d);
  rk_transform *locals = g_new(rk_transform, n);
  for (int k = 0; k <= 4; k++) {
    const double t = d * k / 4.0;
    RK_FUZZ_CHECK(rk_clip_sample(clip, rk_skeleton_rest_locals(s), t, locals, n), "sample");
    for (size_t j = 0; j < n; j++)
      RK_FUZZ_CHECK(rk_fuzz_transform_finite(&locals[j]),
                    "clip '%s' at %g s: joint %zu not finite", rk_clip_name(clip), t, j);
  }
  g_free(locals);
}

/* An imported asset: a non-empty skeleton with finite rest locals and parents before children,
 * clips that sample to finite poses. */
static inline void rk_fuzz_check_asset(const rk_asset *asset) {
  const rk_skeleton *s = rk_asset_skeleton(asset);
  RK_FUZZ_CHECK(s != NULL, "asset without skeleton");
  const size_t n = rk_skeleton_joint_count(s);
  RK_FUZZ_CHECK(n > 0 && n <= RK_SKELETON_MAX_JOINTS, "%zu joints", n);
  for (size_t j = 0; j < n; j++) {
    RK_FUZZ_CHECK(rk_skeleton_parent(s, j) < (int)j, "joint %zu: parent %d", j,
                  rk_skeleton_parent(s, j));
    RK_FUZZ_CHECK(rk_fuzz_transform_finite(rk_skeleton_rest(s, j)), "joint %zu rest not finite",
                  j);
    RK_FUZZ_CHECK(g_utf8_validate(rk_skeleton_joint_name(s, j), -1, NULL),
                  "joint %zu name not UTF-8", j);
  }
  for (size_t c = 0; c < rk_asset_clip_count(asset); c++)
    rk_fuzz_check_clip(s, rk_asset_clip(asset, c));
}

/* Imports a file of tests/data for a fixed input of a target; exits when it cannot. */
static inline rk_asset *rk_fuzz_load_fixture(const char *name) {
  g_autofree char *path = g_build_filename(RK_FUZZ_DATA_DIR, name, NULL);
  GError *error = NULL;
  rk_asset *a = rk_import_file(path, NULL, &error);
  RK_FUZZ_REQUIRE(a, "cannot load %s: %s", path, error ? error->message : "?");
  return a;
}

/* rk_import_memory of the input (name gives the format when opts does not) with every check of
 * the import contract: NULL after a clean failure, else a checked asset the caller frees. */
static inline rk_asset *rk_fuzz_import(const uint8_t *data, size_t size, const char *name,
                                       const rk_import_options *opts) {
  GError *error = NULL;
  rk_asset *a = rk_import_memory(data, size, name, opts, &error);
  rk_fuzz_check_import(a, error);
  g_clear_error(&error);
  if (a)
    rk_fuzz_check_asset(a);
  return a;
}

#endif
