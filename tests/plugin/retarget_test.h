/* Helpers of the `rigkit retarget` suites (test_retarget_*.c): run the built CLI, temporary
 * directories, the JSON report, and checks on written outputs (read back with rigkit). */
#ifndef RK_RETARGET_TEST_H
#define RK_RETARGET_TEST_H

#include "rk_rigs.h"
#include "rk_test.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <rigkit/importers.h>
#include <string.h>
#include <sys/wait.h>

typedef struct cli_run {
  int code; /* exit code, or 128 + signal when killed */
  char *out, *err;
} cli_run;

/* Runs `rigkit ARGS...` (NULL-terminated) in directory cwd (NULL = current). */
static inline cli_run rt_cli(const char *cwd, const char *const *args) {
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)RK_CLI_PATH);
  for (size_t i = 0; args[i]; i++)
    g_ptr_array_add(argv, (gpointer)args[i]);
  g_ptr_array_add(argv, NULL);
  cli_run r = {0};
  int status = 0;
  g_autoptr(GError) e = NULL;
  cr_assert(g_spawn_sync(cwd, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &r.out,
                         &r.err, &status, &e),
            "cannot run rigkit: %s", e ? e->message : "");
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

static inline void rt_cli_clear(cli_run *r) {
  g_free(r->out);
  g_free(r->err);
}

/* Path of a test data file; skips the test when it is missing. */
static inline char *rt_data(const char *name) {
  char *p = rk_test_data(name);
  if (!g_file_test(p, G_FILE_TEST_IS_REGULAR))
    cr_skip("test file %s not found", name);
  return p;
}

static inline char *rt_tmpdir(void) {
  g_autoptr(GError) e = NULL;
  char *d = g_dir_make_tmp("rk-retarget-XXXXXX", &e);
  cr_assert_not_null(d, "%s", e ? e->message : "");
  return d;
}

/* Removes a directory tree (files and subdirectories). */
static inline void rt_rmtree(const char *dir) {
  GDir *d = g_dir_open(dir, 0, NULL);
  if (d) {
    const char *name;
    while ((name = g_dir_read_name(d))) {
      g_autofree char *p = g_build_filename(dir, name, NULL);
      if (g_file_test(p, G_FILE_TEST_IS_DIR) && !g_file_test(p, G_FILE_TEST_IS_SYMLINK))
        rt_rmtree(p);
      else
        g_unlink(p);
    }
    g_dir_close(d);
  }
  g_rmdir(dir);
}

static inline gint rt_cmp_names(gconstpointer a, gconstpointer b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the files in dir; hidden files (journal, temporaries) only when `hidden`. */
static inline GPtrArray *rt_list(const char *dir, bool hidden) {
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  GDir *d = g_dir_open(dir, 0, NULL);
  if (d) {
    const char *name;
    while ((name = g_dir_read_name(d)))
      if (hidden || name[0] != '.')
        g_ptr_array_add(names, g_strdup(name));
    g_dir_close(d);
  }
  g_ptr_array_sort(names, rt_cmp_names);
  return names;
}

/* Number of leftover temporary files (".<name>.rk-XXXXXX") in dir. */
static inline size_t rt_temporaries(const char *dir) {
  g_autoptr(GPtrArray) all = rt_list(dir, true);
  size_t n = 0;
  for (guint i = 0; i < all->len; i++)
    n += strstr(g_ptr_array_index(all, i), ".rk-") != NULL;
  return n;
}

/* Parses a JSON file; the caller unrefs the parser (the root lives in it). */
static inline JsonObject *rt_json(const char *path, JsonParser **parser) {
  *parser = json_parser_new();
  g_autoptr(GError) e = NULL;
  cr_assert(json_parser_load_from_file(*parser, path, &e), "%s: %s", path, e ? e->message : "");
  JsonNode *root = json_parser_get_root(*parser);
  cr_assert(root && JSON_NODE_HOLDS_OBJECT(root), "%s: not a JSON object", path);
  return json_node_get_object(root);
}

/* The report's clip entries. */
static inline JsonArray *rt_clips(JsonObject *report) {
  JsonNode *n = json_object_get_member(report, "clips");
  cr_assert(n && JSON_NODE_HOLDS_ARRAY(n), "report has no clips array");
  return json_node_get_array(n);
}

static inline JsonObject *rt_clip(JsonObject *report, guint i) {
  JsonArray *a = rt_clips(report);
  cr_assert_lt(i, json_array_get_length(a));
  return json_array_get_object_element(a, i);
}

/* A member that must be a number (int or double). */
static inline double rt_num(JsonObject *o, const char *member, const char *sub) {
  JsonNode *n = json_object_get_member(o, member);
  cr_assert(n, "no member %s", member);
  if (sub) {
    cr_assert(JSON_NODE_HOLDS_OBJECT(n), "%s is not an object", member);
    n = json_object_get_member(json_node_get_object(n), sub);
    cr_assert(n, "no member %s.%s", member, sub);
  }
  cr_assert(JSON_NODE_HOLDS_VALUE(n) && (json_node_get_value_type(n) == G_TYPE_DOUBLE ||
                                         json_node_get_value_type(n) == G_TYPE_INT64),
            "%s%s%s is not a number", member, sub ? "." : "", sub ? sub : "");
  return json_node_get_double(n);
}

static inline const char *rt_str(JsonObject *o, const char *member) {
  JsonNode *n = json_object_get_member(o, member);
  cr_assert(n, "no member %s", member);
  if (JSON_NODE_HOLDS_NULL(n))
    return NULL;
  cr_assert(JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING,
            "%s is not a string", member);
  return json_node_get_string(n);
}

/* Number of clip entries of a report. */
static inline guint rt_entry_count(JsonParser *parser) {
  return json_array_get_length(rt_clips(json_node_get_object(json_parser_get_root(parser))));
}

/* Entry i of a report, checked to have status ok (a clip onto target); *clip its clip name. */
static inline JsonObject *rt_ok_entry(JsonParser *parser, guint i, const char *target,
                                      const char **clip) {
  JsonObject *c = rt_clip(json_node_get_object(json_parser_get_root(parser)), i);
  *clip = rt_str(c, "clip");
  cr_assert_str_eq(rt_str(c, "status"), "ok", "%s onto %s", *clip, target);
  return c;
}

/* What a report entry says of its planted feet (mm): the mesh's lowest point while planted
 * (median, worst), the planted points' skate and the pins' error (max). */
typedef struct rt_planted {
  double median, worst, skate, goal;
} rt_planted;

static inline rt_planted rt_planted_of(JsonObject *c) {
  return (rt_planted){rt_num(c, "mesh_lowest_planted_mm", "median"),
                      rt_num(c, "mesh_lowest_planted_mm", "min"), rt_num(c, "foot_skate_mm", "max"),
                      rt_num(c, "ik_goal_error_mm", "max")};
}

/* The planted feet of a clip onto target on the floor (lowest mesh point within -5..+10 mm,
 * median; never lower than `worst_bound`) and still (skate <= 5 mm). */
static inline void rt_assert_planted(rt_planted f, const char *clip, const char *target,
                                     double worst_bound) {
  cr_assert(f.median >= -5 && f.median <= 10, "%s onto %s: planted feet %.2f mm above the floor",
            clip, target, f.median);
  cr_assert_geq(f.worst, worst_bound, "%s onto %s: a planted foot %.2f mm through the floor",
                clip, target, -f.worst);
  cr_assert_leq(f.skate, 5, "%s onto %s: planted points slide %.2f mm", clip, target, f.skate);
}

/* Reads a written output back as rigkit wrote it (BVH: centimetres, Y-up, absolute root). */
static inline rk_asset *rt_read_output(const char *path) {
  rk_import_options o = RK_IMPORT_OPTIONS_INIT;
  if (g_str_has_suffix(path, ".bvh")) {
    o.unit_scale = 0.01;
    o.up_axis = "Y";
    o.bvh_root_offset = RK_BVH_ROOT_OFFSET_REPLACE;
  }
  g_autoptr(GError) e = NULL;
  rk_asset *a = rk_import_file(path, &o, &e);
  cr_assert_not_null(a, "%s does not read back: %s", path, e ? e->message : "");
  return a;
}

/* A report without its time fields (`seconds`), as text, to compare runs. */
static inline char *rt_report_without_seconds(const char *path) {
  g_autofree char *text = NULL;
  cr_assert(g_file_get_contents(path, &text, NULL, NULL), "cannot read %s", path);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  GString *s = g_string_new(NULL);
  for (size_t i = 0; lines[i]; i++)
    if (!strstr(lines[i], "\"seconds\":"))
      g_string_append_printf(s, "%s\n", lines[i]);
  return g_string_free(s, FALSE);
}

/* Byte equality of two files. */
static inline bool rt_same_bytes(const char *a, const char *b) {
  g_autofree char *x = NULL, *y = NULL;
  gsize nx = 0, ny = 0;
  if (!g_file_get_contents(a, &x, &nx, NULL) || !g_file_get_contents(b, &y, &ny, NULL))
    return false;
  return nx == ny && memcmp(x, y, nx) == 0;
}

/* Writes the MakeHuman walk's BVH with its motion lines looped to `frames` frames (a longer
 * in-place walk: the same skeleton, more work). */
static inline void rt_write_long_walk(const char *path, size_t frames) {
  g_autofree char *src = rt_data("makehuman_walk1.bvh");
  cr_assert(rk_test_write_looped_bvh(src, path, frames), "cannot loop %s into %s", src, path);
}

static inline void rt_copy(const char *from, const char *to) {
  g_autofree char *data = NULL;
  gsize n = 0;
  cr_assert(g_file_get_contents(from, &data, &n, NULL), "cannot read %s", from);
  cr_assert(g_file_set_contents(to, data, (gssize)n, NULL), "cannot write %s", to);
}

/* Whether a report entry warns with `code`. */
static inline bool rt_warns(JsonObject *entry, const char *code) {
  JsonArray *w = json_object_get_array_member(entry, "warnings");
  for (guint i = 0; i < json_array_get_length(w); i++)
    if (!strcmp(rt_str(json_array_get_object_element(w, i), "code"), code))
      return true;
  return false;
}

/* Runs `rigkit retarget --target T --out-dir OUT --report DIR/report.json --no-progress` with more
 * arguments (as given) and clips (tests/data names), either list NULL-terminated or NULL; T is a
 * tests/data name. Asserts the exit code; *out (when not NULL) gets stdout. Returns the parser
 * holding the report (the caller unrefs it). */
static inline JsonParser *rt_run_report(const char *dir, const char *out_dir, const char *target,
                                        const char *const *more, const char *const *clips,
                                        int expect_code, char **out) {
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func(g_free);
  g_autofree char *report = g_build_filename(dir, "report.json", NULL);
  const char *fixed[] = {"retarget", "--target", NULL, "--out-dir", out_dir, "--report", report,
                         "--no-progress"};
  for (size_t i = 0; i < G_N_ELEMENTS(fixed); i++)
    g_ptr_array_add(args, i == 2 ? rt_data(target) : g_strdup(fixed[i]));
  for (size_t i = 0; more && more[i]; i++)
    g_ptr_array_add(args, g_strdup(more[i]));
  for (size_t i = 0; clips && clips[i]; i++)
    g_ptr_array_add(args, rt_data(clips[i]));
  g_ptr_array_add(args, NULL);
  cli_run r = rt_cli(NULL, (const char *const *)args->pdata);
  cr_assert_eq(r.code, expect_code, "%s%s", r.out, r.err);
  if (out)
    *out = g_strdup(r.out);
  rt_cli_clear(&r);
  JsonParser *parser = NULL;
  rt_json(report, &parser);
  return parser;
}

#endif
