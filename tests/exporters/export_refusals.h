/* What every writer must refuse, and how (test_export_errors for glTF, GLB and BVH, test_fbx_errors
 * for FBX): one check per failure, run on one output path, so that each format is held to the
 * same error codes and messages. Header-only (static functions); the caller owns every argument. */
#ifndef RK_EXPORT_REFUSALS_H
#define RK_EXPORT_REFUSALS_H

#include "export_fixtures.h"

/** Exporting a with o to `ext` files that cannot be written (under a missing directory, under the
 * plain file `file`, in /proc, and the directory dir itself written as dir_format) fails with
 * RK_ERROR_IO naming the path, and creates nothing in /proc. */
static inline void refuse_unwritable_paths(const rk_asset *a, const rk_export_options *o,
                                           const char *dir, const char *file, const char *ext,
                                           rk_export_format dir_format) {
  g_autofree char *missing = g_strdup_printf("%s/no/such/dir/out.%s", dir, ext);
  g_autofree char *under_file = g_strdup_printf("%s/out.%s", file, ext);
  g_autofree char *proc = g_strdup_printf("/proc/rigkit-out.%s", ext);
  const char *paths[] = {missing, under_file, proc, dir};
  for (size_t k = 0; k < G_N_ELEMENTS(paths); k++) {
    g_autoptr(GError) e = NULL;
    rk_export_options ok = *o;
    if (k == 3)
      ok.format = dir_format; /* the directory itself has no extension */
    cr_assert_not(rk_export_file(a, paths[k], &ok, &e), "%s accepted", paths[k]);
    cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_IO), "%s: %s", paths[k], e->message);
    cr_assert(strstr(e->message, paths[k]) != NULL, "message does not name the path: %s",
              e->message);
    cr_log_info("%s", e->message);
  }
  cr_assert(!g_file_test(proc, G_FILE_TEST_EXISTS));
}

/** Exporting a with o (NULL: the defaults) to path, whose directory is read-only, fails with
 * RK_ERROR_IO. */
static inline void refuse_read_only(const rk_asset *a, const rk_export_options *o,
                                    const char *path) {
  g_autoptr(GError) e = NULL;
  cr_assert_not(rk_export_file(a, path, o, &e));
  cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_IO), "%s", e->message);
}

/** Exporting a with o (NULL: the defaults) to path fails with RK_ERROR_INVALID when key 5 of
 * track t of clip "walk" holds a NaN, naming the clip, t's joint and the key. */
static inline void refuse_nan(const rk_asset *a, const rk_export_options *o, const char *path,
                              const rk_track *t) {
  g_autoptr(GError) e = NULL;
  cr_assert_not(rk_export_file(a, path, o, &e));
  cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_INVALID), "%s", e->message);
  const char *joint = rk_skeleton_joint_name(rk_asset_skeleton(a), (size_t)t->joint);
  cr_assert(strstr(e->message, joint) && strstr(e->message, "'walk'") &&
                strstr(e->message, "key 5"),
            "message should name clip, joint and key: %s", e->message);
  cr_log_info("%s", e->message);
}

/** Exporting a to path with o succeeds; exporting it again with an unknown clip
 * fails with RK_ERROR_NOT_FOUND listing the clips and leaves the first file as it was. */
static inline void refuse_unknown_clip_keeping_the_file(const rk_asset *a,
                                                        const rk_export_options *o,
                                                        const char *path) {
  g_autoptr(GError) e = NULL;
  cr_assert(rk_export_file(a, path, o, &e), "%s", e ? e->message : "");
  g_autofree char *before = NULL;
  gsize lb = 0;
  cr_assert(g_file_get_contents(path, &before, &lb, NULL));
  rk_export_options bad = *o;
  bad.clip = "no such clip";
  cr_assert_not(rk_export_file(a, path, &bad, &e));
  cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_NOT_FOUND), "%s", e->message);
  cr_assert(strstr(e->message, "'walk'"), "the message lists the clips: %s", e->message);
  g_autofree char *after = NULL;
  gsize la = 0;
  cr_assert(g_file_get_contents(path, &after, &la, NULL));
  cr_assert(la == lb && memcmp(before, after, la) == 0);
}

/** Exporting a with o (NULL: the defaults) to path under a file size limit (as a full disk)
 * fails with RK_ERROR_IO "write failed". */
static inline void refuse_past_the_size_limit(const rk_asset *a, const rk_export_options *o,
                                              const char *path) {
  g_autoptr(GError) e = NULL;
  cr_assert_not(rk_export_file(a, path, o, &e), "%s written past the size limit", path);
  cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_IO), "%s", e->message);
  cr_assert(strstr(e->message, "write failed"), "%s", e->message);
  cr_log_info("%s", e->message);
}

#endif
