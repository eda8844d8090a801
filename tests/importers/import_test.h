/* Helpers shared by the importer suites: importing test files, world positions, running the CLI. */
#ifndef RK_IMPORT_TEST_H
#define RK_IMPORT_TEST_H

#include "rk_test.h"

#include <rigkit/importers.h>
#include <string.h>
#include <sys/wait.h>

/* Imports tests/data/<name> (opts may be NULL) and fails the test with the error otherwise. */
static inline rk_asset *import_ok(const char *name, const rk_import_options *opts) {
  g_autofree char *path = rk_test_data(name);
  g_autoptr(GError) error = NULL;
  rk_asset *a = rk_import_file(path, opts, &error);
  cr_assert(a != NULL, "import of %s failed: %s", name, error ? error->message : "?");
  return a;
}

/* Imports text from memory; returns NULL and the error on failure. */
static inline rk_asset *import_text(const char *text, const char *name,
                                    const rk_import_options *opts, GError **error) {
  return rk_import_memory(text, strlen(text), name, opts, error);
}

/* World positions of every joint of the asset at time t of clip (NULL = rest pose). The caller
 * frees the array with g_free. */
static inline rk_vec3 *world_positions(const rk_asset *a, const rk_clip *clip, double t) {
  const rk_skeleton *s = rk_asset_skeleton(a);
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_transform *locals = g_new(rk_transform, n);
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  if (clip)
    cr_assert(rk_clip_sample(clip, rk_skeleton_rest_locals(s), t, locals, n));
  else
    memcpy(locals, rk_skeleton_rest_locals(s), n * sizeof *locals);
  rk_fk_models(s, locals, models);
  rk_vec3 *p = g_new(rk_vec3, n);
  for (size_t i = 0; i < n; i++)
    p[i] = rk_mat4_get_translation(&models[i]);
  return p;
}

/* Index of a joint that must exist. */
static inline size_t joint(const rk_asset *a, const char *name) {
  int j = rk_skeleton_find_joint(rk_asset_skeleton(a), name);
  cr_assert(j >= 0, "no joint '%s'", name);
  return (size_t)j;
}

/* Clip that must exist. */
static inline const rk_clip *clip_named(const rk_asset *a, const char *name) {
  int c = rk_asset_find_clip(a, name);
  cr_assert(c >= 0, "no clip '%s'", name);
  return rk_asset_clip(a, (size_t)c);
}

/** Fills m, the caller's, with the Fox skeleton s's humanoid map from RK_TEST_FOX_HIND_LEGS_MAP
 * (hips and hind legs by name); fails the test when the map does not load or finish. */
static inline void fox_hind_legs_map(const rk_skeleton *s, rk_humanoid_map *m) {
  g_autoptr(GKeyFile) kf = g_key_file_new();
  cr_assert(g_key_file_load_from_data(kf, RK_TEST_FOX_HIND_LEGS_MAP, (gsize)-1, 0, NULL));
  rk_humanoid_map_clear(m);
  cr_assert(rk_humanoid_map_apply_keyfile(m, s, kf, "target", "fox.map", NULL));
  g_autoptr(GError) error = NULL;
  cr_assert(rk_humanoid_map_finish(m, s, &error), "%s", error ? error->message : "");
}

/* True when some note contains the text. */
static inline bool has_note(const rk_asset *a, const char *text) {
  for (size_t i = 0; i < rk_asset_note_count(a); i++)
    if (strstr(rk_asset_note(a, i), text))
      return true;
  return false;
}

/** The cases of the list tests/data/bad/<list> (lines "<file>\t<piece of the message it must
 * produce>", '#' comments): a new array, owned by the caller, of NULL-terminated string vectors
 * {path of tests/data/bad/<file>, piece of the message}. */
static inline GPtrArray *bad_cases(const char *list) {
  g_autofree char *list_name = g_strdup_printf("bad/%s", list);
  g_autofree char *list_path = rk_test_data(list_name);
  g_autofree char *text = NULL;
  cr_assert(g_file_get_contents(list_path, &text, NULL, NULL), "cannot read %s", list_path);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  GPtrArray *cases = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
  for (char **l = lines; *l; l++) {
    if (**l == '\0' || **l == '#')
      continue;
    g_auto(GStrv) f = g_strsplit(*l, "\t", 2);
    cr_assert(f[0] && f[1], "bad line in %s: %s", list, *l);
    g_autofree char *name = g_strdup_printf("bad/%s", f[0]);
    char **c = g_new0(char *, 3);
    c[0] = rk_test_data(name);
    c[1] = g_strdup(f[1]);
    g_ptr_array_add(cases, c);
  }
  return cases;
}

/* Runs the rigkit binary with argv (NULL-terminated, without the program); returns the exit
 * status and the captured outputs (free with g_free). */
static inline int run_cli(const char *const *args, char **out, char **err) {
  GPtrArray *argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)RK_CLI_PATH);
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add(argv, (gpointer)*a);
  g_ptr_array_add(argv, NULL);
  int status = -1;
  g_autoptr(GError) error = NULL;
  gboolean ok = g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, out,
                             err, &status, &error);
  g_ptr_array_free(argv, TRUE);
  cr_assert(ok, "could not run %s: %s", RK_CLI_PATH, error ? error->message : "?");
  cr_assert(WIFEXITED(status), "rigkit did not exit normally (status %d): %s", status,
            err && *err ? *err : "");
  return WEXITSTATUS(status);
}

#endif
