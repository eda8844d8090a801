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

/* Runs the one bundled clip `path` (CMU units) onto generated/<stem>.glb, outputs in dir, and
 * measures it: its entry, *p owning it (g_object_unref). */
static inline JsonObject *stiff_run_measured(const char *dir, const char *stem, const char *path,
                                             JsonParser **p, const char **clip,
                                             stiff_figures *f) {
  static const char *const cmu[] = {"--unit", "cmu", NULL};
  const char *const sources[] = {path, NULL};
  g_autofree char *rel = g_strdup_printf("generated/%s.glb", stem);
  *p = rt_run_report(dir, dir, rel, cmu, sources, 0, NULL);
  return stiff_entry_measured(*p, 0, stem, path, clip, f);
}

#endif
