/* The review page of `rigkit retarget --html` (retarget_html.c) in a real browser: headless
 * Chromium (Debian's chromium package) with the network blocked loads it, every clip of the
 * batch is a row of the rendered table, the player draws different pictures at two times, and a
 * failed clip shows its error. The page itself names nothing outside it. Skipped when no
 * Chromium is installed. */
#include "retarget_test.h"

static char *find_chromium(void) {
  const char *names[] = {"chromium", "chromium-browser", "google-chrome"};
  for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
    char *p = g_find_program_in_path(names[i]);
    if (p)
      return p;
  }
  return NULL;
}

/* The DOM of page#hash after its scripts ran, in a browser that cannot reach any network. */
static char *rendered(const char *chromium, const char *dir, const char *page, const char *hash) {
  g_autofree char *profile = g_build_filename(dir, "profile", NULL);
  g_autofree char *profile_arg = g_strconcat("--user-data-dir=", profile, NULL);
  g_autofree char *url = g_strconcat("file://", page, "#", hash, NULL);
  const char *argv[] = {chromium, "--headless", "--no-sandbox", "--disable-gpu",
                        "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
                        profile_arg, "--virtual-time-budget=3000", "--dump-dom", url, NULL};
  char *out = NULL;
  int status = 0;
  g_autoptr(GError) e = NULL;
  cr_assert(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out,
                         NULL, &status, &e),
            "%s", e ? e->message : "");
  cr_assert(g_spawn_check_wait_status(status, NULL), "chromium failed on %s", url);
  cr_assert(strstr(out, "data-ready=\"1\""), "the page's script did not finish: %.300s", out);
  return out;
}

/* The value of attribute `name` on the first element that has it ("" when none). */
static char *attribute(const char *dom, const char *name) {
  g_autofree char *key = g_strconcat(name, "=\"", NULL);
  const char *p = strstr(dom, key);
  if (!p)
    return g_strdup("");
  p += strlen(key);
  return g_strndup(p, (gsize)(strchr(p, '"') - p));
}

Test(retarget_html, the_page_works_offline_in_chromium) {
  g_autofree char *chromium = find_chromium();
  if (!chromium)
    cr_skip("no chromium installed");
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *out = g_build_filename(dir, "out", NULL);
  g_autofree char *page = g_build_filename(dir, "review.html", NULL);
  const char *more[] = {"--unit", "cmu", "--html", page, NULL};
  const char *clips[] = {"generated/cmu_walk.bvh", "generated/cmu_hop.bvh",
                         "bad/bvh_bad_channel.bvh", NULL};
  /* The bad clip fails the batch. */
  g_object_unref(rt_run_report(dir, out, "RiggedFigure.glb", more, clips, 1, NULL));
  /* Self-contained: no element loads anything (scripts inline, no links, no URLs). */
  g_autofree char *text = NULL;
  cr_assert(g_file_get_contents(page, &text, NULL, NULL));
  cr_assert_null(strstr(text, "http://"));
  cr_assert_null(strstr(text, "https://"));
  cr_assert_null(strstr(text, "<link"));
  cr_assert_null(strstr(text, " src="));
  /* Every clip is a row; the table is filterable by verdict. */
  g_autofree char *dom = rendered(chromium, dir, page, "");
  for (int i = 0; i < 3; i++) {
    g_autofree char *row = g_strdup_printf("data-index=\"%d\"", i);
    cr_assert(strstr(dom, row), "clip %d is not on the page", i);
  }
  cr_assert(strstr(dom, "data-verdict=\"failed\""));
  cr_assert(strstr(dom, "<option>check</option>"));
  /* The player at two times: two different pictures. */
  g_autofree char *at0 = rendered(chromium, dir, page, "clip=0&frame=0");
  g_autofree char *at1 = rendered(chromium, dir, page, "clip=0&frame=50");
  g_autofree char *sum0 = attribute(at0, "data-checksum");
  g_autofree char *sum1 = attribute(at1, "data-checksum");
  cr_assert(*sum0 && *sum1, "the player drew nothing");
  cr_assert_str_neq(sum0, sum1, "the same picture at frames 0 and 50");
  /* The failed clip shows its error in the player. */
  g_autofree char *failed = rendered(chromium, dir, page, "clip=2");
  cr_assert(strstr(failed, "<p id=\"error\">error: "), "no error shown");
  cr_assert(strstr(failed, "channel 2 is not one of"), "the error is not the clip's");
  rt_rmtree(dir);
}
