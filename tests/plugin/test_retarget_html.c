/* The review page of `rigkit retarget --html` (retarget_html.c) in a real browser: headless
 * Chromium (Debian's chromium package) with the network blocked loads it, every clip of the
 * batch is a row of the rendered table, the player draws different pictures at two times, the
 * target's silhouette is filled (pixels of its colour) for a skinned character and not for a bare
 * skeleton, a failed clip shows its error, and a clip a --resume skipped has a player too. The
 * page itself names nothing outside it. Skipped when no Chromium is installed. */
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

/* The player of page#hash: its picture's checksum and how many pixels have the silhouette's colour
 * (data-checksum and data-mesh-pixels of the view canvas). */
typedef struct picture {
  char *checksum;
  long mesh_pixels;
  char *dom;
} picture;

static char *attribute(const char *dom, const char *name);

static picture player(const char *chromium, const char *dir, const char *page, const char *hash) {
  picture p = {0};
  p.dom = rendered(chromium, dir, page, hash);
  p.checksum = attribute(p.dom, "data-checksum");
  g_autofree char *pixels = attribute(p.dom, "data-mesh-pixels");
  cr_assert(*p.checksum && *pixels, "the player drew nothing at %s", hash);
  p.mesh_pixels = atol(pixels);
  return p;
}

static void picture_clear(picture *p) {
  g_free(p->checksum);
  g_free(p->dom);
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

/* A batch's page to render: the browser, a scratch directory, the batch's output directory and
 * the page's path in it. Skips the test when no Chromium is installed. */
typedef struct page_case {
  char *chromium, *dir, *out, *page;
} page_case;

static page_case page_case_new(void) {
  page_case c = {find_chromium(), NULL, NULL, NULL};
  if (!c.chromium)
    cr_skip("no chromium installed");
  c.dir = rt_tmpdir();
  c.out = g_build_filename(c.dir, "out", NULL);
  c.page = g_build_filename(c.dir, "review.html", NULL);
  return c;
}

static void page_case_clear(page_case *c) {
  rt_rmtree(c->dir);
  g_free(c->chromium);
  g_free(c->dir);
  g_free(c->out);
  g_free(c->page);
}

Test(retarget_html, the_page_works_offline_in_chromium) {
  page_case c = page_case_new();
  const char *chromium = c.chromium, *dir = c.dir, *out = c.out, *page = c.page;
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
  /* The player at two times: two different pictures, each with RiggedFigure's silhouette (a few
   * thousand pixels of its colour: the figure is some 330 pixels tall). */
  picture at0 = player(chromium, dir, page, "clip=0&frame=0");
  picture at1 = player(chromium, dir, page, "clip=0&frame=50");
  cr_assert_str_neq(at0.checksum, at1.checksum, "the same picture at frames 0 and 50");
  cr_assert_gt(at0.mesh_pixels, 3000, "no silhouette: %ld pixels", at0.mesh_pixels);
  cr_assert_gt(at1.mesh_pixels, 3000, "no silhouette: %ld pixels", at1.mesh_pixels);
  cr_assert(strstr(at0.dom, "<p id=\"silhouette\">the target's silhouette: its mesh (256 triangles)"),
            "the page does not say what it draws");
  picture_clear(&at0);
  picture_clear(&at1);
  /* The failed clip shows its error in the player, with its code; its row shows the code. */
  g_autofree char *failed = rendered(chromium, dir, page, "clip=2");
  cr_assert(strstr(failed, "<p id=\"error\">error: "), "no error shown");
  cr_assert(strstr(failed, "channel 2 is not one of"), "the error is not the clip's");
  cr_assert(strstr(failed, "<p id=\"error\">error: [source-unreadable] cannot read the clip"),
            "the error's code is not shown");
  cr_assert(strstr(dom, ">source-unreadable</td>"), "the failed clip's row lacks its code");
  page_case_clear(&c);
}

/* A target without a mesh (a BVH skeleton): the skeleton alone, and the page says so. */
Test(retarget_html, a_bare_skeleton_has_no_silhouette) {
  page_case c = page_case_new();
  const char *more[] = {"--unit", "cmu", "--html", c.page, NULL};
  const char *clips[] = {"generated/cmu_walk.bvh", NULL};
  g_object_unref(rt_run_report(c.dir, c.out, "makehuman_walk1.bvh", more, clips, 0, NULL));
  picture p = player(c.chromium, c.dir, c.page, "clip=0&frame=30");
  cr_assert_eq(p.mesh_pixels, 0, "%ld pixels of the silhouette's colour", p.mesh_pixels);
  cr_assert(strstr(p.dom, "no skinned mesh: skeleton only"), "the page does not say why");
  picture_clear(&p);
  page_case_clear(&c);
}

/* Clips a --resume skipped get a player: the batch run without a page, then again with --resume
 * and --html, runs nothing and still draws each clip, moving, with its silhouette. */
Test(retarget_html, resumed_clips_have_a_player) {
  page_case c = page_case_new();
  const char *first[] = {"--unit", "cmu", NULL};
  const char *again[] = {"--unit", "cmu", "--resume", "--html", c.page, NULL};
  const char *clips[] = {"generated/cmu_walk.bvh", "generated/cmu_hop.bvh", NULL};
  g_object_unref(rt_run_report(c.dir, c.out, "RiggedFigure.glb", first, clips, 0, NULL));
  g_autofree char *table = NULL;
  g_object_unref(rt_run_report(c.dir, c.out, "RiggedFigure.glb", again, clips, 0, &table));
  cr_assert(strstr(table, "2 already done (--resume)"), "%s", table);
  for (int clip = 0; clip < 2; clip++) {
    g_autofree char *h0 = g_strdup_printf("clip=%d&frame=0", clip);
    g_autofree char *h1 = g_strdup_printf("clip=%d&frame=60", clip);
    picture a = player(c.chromium, c.dir, c.page, h0), b = player(c.chromium, c.dir, c.page, h1);
    cr_assert_str_neq(a.checksum, b.checksum, "clip %d: the same picture at two times", clip);
    cr_assert_gt(a.mesh_pixels, 3000, "clip %d: no silhouette", clip);
    cr_assert(strstr(a.dom, "<p id=\"error\"></p>"), "clip %d: the player says something is wrong",
              clip);
    picture_clear(&a);
    picture_clear(&b);
  }
  page_case_clear(&c);
}

/* A clip's player data as the page holds it (the JSON of <script id="rk-motion-K">). */
static JsonNode *page_motion(const char *page, int clip) {
  g_autofree char *text = NULL;
  cr_assert(g_file_get_contents(page, &text, NULL, NULL));
  g_autofree char *open = g_strdup_printf("<script type=\"application/json\" id=\"rk-motion-%d\">", clip);
  const char *start = strstr(text, open);
  cr_assert(start, "no motion for clip %d on the page", clip);
  start += strlen(open);
  g_autoptr(GString) json = g_string_new_len(start, strstr(start, "</script>") - start);
  g_string_replace(json, "<\\/", "</", 0);
  g_autoptr(GError) e = NULL;
  JsonNode *node = json_from_string(json->str, &e);
  cr_assert(node, "%s", e ? e->message : "");
  return node;
}

/* The player of a game rig: the joints drawn are every one but `hidden` (its root and the
 * controls); `parts` of them hang from joints not drawn (the hips and any detached feet); the view
 * follows `hips`; the silhouette fills more than `pixels` at sample 60. */
static void check_game_rig(const char *target, const char *hips, const char *const *hidden,
                           size_t parts, long pixels) {
  page_case c = page_case_new();
  const char *more[] = {"--unit", "cmu", "--html", c.page, NULL};
  const char *clips[] = {"generated/cmu_walk.bvh", NULL};
  g_object_unref(rt_run_report(c.dir, c.out, target, more, clips, 0, NULL));
  g_autofree char *output = g_build_filename(c.out, "cmu_walk.glb", NULL);
  rk_asset *back = rt_read_output(output);
  const rk_skeleton *sk = rk_asset_skeleton(back);
  JsonNode *motion = page_motion(c.page, 0);
  JsonObject *rig = json_object_get_object_member(json_node_get_object(motion), "target");
  JsonArray *drawn = json_object_get_array_member(rig, "drawn");
  JsonArray *parents = json_object_get_array_member(rig, "parents");
  cr_assert_eq(json_array_get_length(drawn), rk_skeleton_joint_count(sk));
  const int center = (int)json_object_get_int_member(rig, "center");
  cr_assert_str_eq(rk_skeleton_joint_name(sk, (size_t)center), hips);
  size_t roots = 0;
  for (size_t j = 0; j < rk_skeleton_joint_count(sk); j++) {
    const char *name = rk_skeleton_joint_name(sk, j);
    const bool on = json_array_get_int_element(drawn, (guint)j) != 0;
    cr_assert_eq(json_array_get_int_element(parents, (guint)j), rk_skeleton_parent(sk, j));
    cr_assert_eq(on, !g_strv_contains(hidden, name), "%s: joint '%s' is %sdrawn", target, name,
                 on ? "" : "not ");
    const int p = rk_skeleton_parent(sk, j);
    roots += on && (p < 0 || json_array_get_int_element(drawn, (guint)p) == 0);
  }
  cr_assert_eq(roots, parts, "%s: %zu parts drawn apart", target, roots);
  picture pic = player(c.chromium, c.dir, c.page, "clip=0&frame=60");
  cr_assert_gt(pic.mesh_pixels, pixels, "%s: the silhouette is %ld pixels", target, pic.mesh_pixels);
  picture_clear(&pic);
  json_node_unref(motion);
  rk_asset_free(back);
  page_case_clear(&c);
}

/* Game rigs whose controls (foot IK targets, poles, sockets) hang from a root left at the origin:
 * the player draws the body and the detached feet, not a line from the origin to each control,
 * and the view follows the hips, so the character fills the view as a plain rig does (before, the
 * view spanned the origin and the walk, and the robot's silhouette was some 3,000 pixels). */
Test(retarget_html, a_game_rigs_controls_are_not_drawn) {
  const char *robot[] = {"Root", "Foot.L", "Foot.R", "PoleLeg.L", "PoleLeg.R", NULL};
  check_game_rig("generated/game_robot.glb", "Hips", robot, 1, 12000);
  const char *soldier[] = {"Root", "FootControl.L", "FootControl.R", "IKLegTarget.L",
                           "IKLegTarget.R", "IKLegPole.L", "IKLegPole.R", "HelmetSlot",
                           "ShieldSlot", NULL};
  check_game_rig("generated/game_soldier.glb", "Pelvis", soldier, 3, 12000);
}
