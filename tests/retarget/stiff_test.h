/* Criterion side of the stiff-leg figures (stiff_figures.h): a report entry of a run of bundled
 * clips (CMU units) onto a generated game rig, checked ok and its written output measured. */
#ifndef RK_TEST_STIFF_TEST_H
#define RK_TEST_STIFF_TEST_H

#include "../plugin/retarget_test.h"
#include "stiff_figures.h"

/* The figures of report entry i of p (a run onto generated/<stem>.glb of source clip `path`,
 * CMU units) into f; its clip's name into *clip. Fails the test when the entry is not ok or its
 * output cannot be measured. */
static inline JsonObject *stiff_entry_measured(JsonParser *p, guint i, const char *stem,
                                               const char *path, const char **clip,
                                               stiff_figures *f) {
  g_autofree char *rel = g_strdup_printf("generated/%s.glb", stem);
  g_autofree char *target = rt_data(rel);
  JsonObject *c = rt_ok_entry(p, i, stem, clip);
  g_autofree char *source = rt_data(path);
  g_autoptr(GError) e = NULL;
  cr_assert(stiff_measure(target, source, 0.0254 / 0.45, rt_str(c, "output"), f, &e), "%s: %s",
            *clip, e ? e->message : "");
  return c;
}

/* One bundled clip (CMU units) run onto a generated game rig and measured: the run's directory,
 * report, entry, clip name and figures. */
typedef struct stiff_case {
  char *dir;
  JsonParser *p;
  JsonObject *c;
  const char *clip;
  stiff_figures f;
} stiff_case;

/* Runs `path` onto generated/<stem>.glb in a new directory with the options `args` (NULL ended,
 * the unit among them) and measures the output; release with stiff_case_clear. */
static inline stiff_case stiff_case_run_with(const char *stem, const char *path, const char *const *args) {
  const char *const sources[] = {path, NULL};
  g_autofree char *rel = g_strdup_printf("generated/%s.glb", stem);
  stiff_case k = {.dir = rt_tmpdir()};
  k.p = rt_run_report(k.dir, k.dir, rel, args, sources, 0, NULL);
  k.c = stiff_entry_measured(k.p, 0, stem, path, &k.clip, &k.f);
  return k;
}

/* Runs `path` (CMU units) onto generated/<stem>.glb in a new directory and measures the output;
 * release with stiff_case_clear. */
static inline stiff_case stiff_case_run(const char *stem, const char *path) {
  static const char *const cmu[] = {"--unit", "cmu", NULL};
  return stiff_case_run_with(stem, path, cmu);
}

/* Frees the report and removes the run's directory. */
static inline void stiff_case_clear(stiff_case *k) {
  g_object_unref(k->p);
  rt_rmtree(k->dir);
  g_free(k->dir);
}

#endif
