/* Retarget profiles: loading from text and files, the one set of checks and messages (file, group,
 * key), settings applied and written back as canonical text, rigs mapped automatically and by the
 * profile's groups (including a rig the automatic mapping refuses). */
#include "rig_fixture.h"

#include <glib/gstdio.h>
#include <math.h>
#include <rigkit/profile.h>

static rk_profile *load_ok(const char *text) {
  g_autoptr(GError) e = NULL;
  rk_profile *p = rk_profile_load_text(text, "my.map", &e);
  cr_assert(p, "%s", e ? e->message : "");
  return p;
}

/* Loading text fails with code; the message starts with the name and contains every part. */
static void expect_refused(const char *text, int code, const char *const *parts) {
  g_autoptr(GError) e = NULL;
  g_autoptr(rk_profile) p = rk_profile_load_text(text, "my.map", &e);
  cr_assert_null(p, "accepted: %s", text);
  cr_assert(g_error_matches(e, RK_ERROR, code), "%s: %s", text, e->message);
  cr_assert(g_str_has_prefix(e->message, "my.map: "), "%s", e->message);
  cr_assert(g_utf8_validate(e->message, -1, NULL));
  for (size_t i = 0; parts[i]; i++)
    cr_assert(strstr(e->message, parts[i]), "'%s' lacks '%s'", e->message, parts[i]);
}

#define PARTS(...) ((const char *const[]){__VA_ARGS__, NULL})

Test(profile, settings_apply_over_the_options_and_absent_keys_keep_theirs) {
  g_autoptr(rk_profile) p =
      load_ok("# comment\n[settings]\nfps = 30 \nfoot_ik=false\nroot_motion=1\nik_iterations=12\n"
              "ground=keep\n");
  cr_assert_str_eq(rk_profile_name(p), "my.map");
  rk_retarget_options o = RK_RETARGET_OPTIONS_INIT;
  o.contact_height = 0.07;
  rk_profile_apply_settings(p, &o);
  rk_assert_near(o.fps, 30, 0);
  cr_assert_not(o.foot_ik);
  cr_assert(o.root_motion);
  cr_assert_eq(o.ik_iterations, 12);
  cr_assert_eq(o.ground, RK_RETARGET_GROUND_KEEP);
  rk_assert_near(o.contact_height, 0.07, 0);
  rk_profile_apply_settings(NULL, &o);
  rk_assert_near(o.fps, 30, 0);
  g_autoptr(rk_profile) unnamed = rk_profile_load_text("[settings]\n", NULL, NULL);
  cr_assert_str_eq(rk_profile_name(unnamed), "profile text");
}

Test(profile, every_mistake_is_refused_naming_file_group_and_key) {
  expect_refused("[setings]\nfps=30\n", RK_ERROR_INVALID, PARTS("unknown group [setings]"));
  expect_refused("[source]\nleft_wing=LeftArm\n", RK_ERROR_INVALID,
                 PARTS("[source] left_wing: unknown bone", "left_upper_leg"));
  expect_refused("[settings]\nspeed=3\n", RK_ERROR_INVALID,
                 PARTS("[settings] speed: unknown key", "ik_iterations"));
  expect_refused("[settings]\nfps=fast\n", RK_ERROR_INVALID, PARTS("fps = fast", "not a number"));
  expect_refused("[settings]\ncontact_height=2\n", RK_ERROR_INVALID,
                 PARTS("contact_height = 2", "must be within [0, 1]"));
  expect_refused("[settings]\nblend_time=nan\n", RK_ERROR_INVALID, PARTS("blend_time = nan"));
  expect_refused("[settings]\nik_iterations=0\n", RK_ERROR_INVALID, PARTS("must be 1..10000"));
  expect_refused("[settings]\nik_iterations=2.5\n", RK_ERROR_INVALID, PARTS("not a whole number"));
  expect_refused("[settings]\nhand_ik=maybe\n", RK_ERROR_INVALID,
                 PARTS("hand_ik = maybe", "not a boolean"));
  expect_refused("[settings]\nground=floor\n", RK_ERROR_INVALID,
                 PARTS("ground = floor", "must be auto or keep"));
  expect_refused("[settings]\nsoles=mesh\n", RK_ERROR_INVALID,
                 PARTS("soles = mesh", "must be auto or bones"));
  expect_refused("[target]\nleft_foot=Foot\\q\n", RK_ERROR_INVALID,
                 PARTS("[target] left_foot: the value has an invalid escape sequence"));
  expect_refused("[settings]\nfps=30\\\n", RK_ERROR_INVALID,
                 PARTS("[settings] fps: the value has an invalid escape sequence"));
  expect_refused("[source]\nleft_f\xff" "oot=Foot\n", RK_ERROR_INVALID,
                 PARTS("[source] a key is not UTF-8 text"));
  expect_refused("[source]\nleft_foot=F\xffoot\n", RK_ERROR_INVALID,
                 PARTS("[source] left_foot: the value is not UTF-8 text"));
  expect_refused("[settings\nfps=30\n", RK_ERROR_PARSE, PARTS("my.map"));
}

Test(profile, files_load_and_a_missing_file_is_an_io_error) {
  g_autofree char *dir = g_dir_make_tmp("rk_profile_XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "p.map", NULL);
  cr_assert(g_file_set_contents(path, "[settings]\r\nfps=24\r\n", -1, NULL));
  g_autoptr(GError) e = NULL;
  g_autoptr(rk_profile) p = rk_profile_load_file(path, &e);
  cr_assert(p, "%s", e ? e->message : "");
  cr_assert_str_eq(rk_profile_name(p), path);
  rk_retarget_options o = RK_RETARGET_OPTIONS_INIT;
  rk_profile_apply_settings(p, &o);
  rk_assert_near(o.fps, 24, 0);
  g_unlink(path);
  cr_assert_null(rk_profile_load_file(path, &e));
  cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_IO), "%s", e->message);
  cr_assert(g_str_has_prefix(e->message, path), "%s", e->message);
  g_rmdir(dir);
}

static void expect_same_options(const rk_retarget_options *a, const rk_retarget_options *b) {
  cr_assert(a->fps == b->fps && a->foot_ik == b->foot_ik && a->hand_ik == b->hand_ik &&
            a->root_motion == b->root_motion && a->contact_height == b->contact_height &&
            a->contact_speed == b->contact_speed && a->contact_min_time == b->contact_min_time &&
            a->blend_time == b->blend_time && a->ik_iterations == b->ik_iterations &&
            a->ground == b->ground && a->soles == b->soles);
}

Test(profile, settings_text_reads_back_to_the_same_options) {
  rk_retarget_options a = RK_RETARGET_OPTIONS_INIT;
  g_autofree char *deflt = rk_profile_settings_text(&a);
  cr_assert_str_eq(deflt, "[settings]\nfps=0\nfoot_ik=true\nhand_ik=false\nroot_motion=false\n"
                          "contact_height=0.01\ncontact_speed=0.04\ncontact_min_time=0.06\n"
                          "blend_time=0.1\nik_iterations=30\nground=auto\nsoles=auto\n");
  a.fps = 1.0 / 3.0;
  a.ground = RK_RETARGET_GROUND_KEEP;
  a.soles = RK_RETARGET_SOLES_BONES;
  a.hand_ik = true;
  a.contact_speed = 0.1 + 0.2;
  a.blend_time = 1e-7;
  a.ik_iterations = 10000;
  g_autofree char *text = rk_profile_settings_text(&a);
  g_autoptr(rk_profile) p = load_ok(text);
  rk_retarget_options b = RK_RETARGET_OPTIONS_INIT;
  rk_profile_apply_settings(p, &b);
  expect_same_options(&a, &b);
}

Test(profile, rigs_map_automatically_then_by_their_group) {
  g_autoptr(rk_skeleton) s = make_rig(NULL, 0, false);
  rk_humanoid_map automatic, with_null, mapped;
  cr_assert(rk_humanoid_map_build(s, NULL, &automatic, NULL));
  cr_assert(rk_profile_map_rig(NULL, s, RK_PROFILE_SOURCE, &with_null, NULL));
  cr_assert(memcmp(automatic.joint, with_null.joint, sizeof automatic.joint) == 0);
  /* [target] applies to the target only. */
  g_autoptr(rk_profile) p = load_ok("[target]\nleft_toes=\n");
  cr_assert(rk_profile_map_rig(p, s, RK_PROFILE_SOURCE, &mapped, NULL));
  cr_assert_eq(mapped.joint[RK_BONE_LEFT_TOES], automatic.joint[RK_BONE_LEFT_TOES]);
  cr_assert(rk_profile_map_rig(p, s, RK_PROFILE_TARGET, &mapped, NULL));
  cr_assert_eq(mapped.joint[RK_BONE_LEFT_TOES], -1);
  cr_assert_eq(mapped.source[RK_BONE_LEFT_TOES], RK_BONE_UNMAPPED);
  /* A joint the rig lacks. */
  g_autoptr(rk_profile) missing = load_ok("[target]\nhips=Pelvis2\n");
  g_autoptr(GError) e = NULL;
  cr_assert_not(rk_profile_map_rig(missing, s, RK_PROFILE_TARGET, &mapped, &e));
  cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_NOT_FOUND));
  cr_assert(strstr(e->message, "my.map: [target] hips = Pelvis2: no joint 'Pelvis2'"), "%s",
            e->message);
  /* A group that breaks the map: the hips on a foot. */
  g_autoptr(rk_profile) broken = load_ok("[target]\nhips=j21\n");
  g_autoptr(GError) e2 = NULL;
  cr_assert_not(rk_profile_map_rig(broken, s, RK_PROFILE_TARGET, &mapped, &e2));
  cr_assert(g_error_matches(e2, RK_ERROR, RK_ERROR_MAPPING), "%s", e2->message);
  cr_assert(g_str_has_prefix(e2->message, "my.map [target]: "), "%s", e2->message);
}

Test(profile, a_group_maps_a_rig_the_automatic_mapping_refuses) {
  g_autoptr(rk_skeleton) q = fx_quadruped();
  rk_humanoid_map map;
  g_autoptr(GError) e = NULL;
  cr_assert_not(rk_profile_map_rig(NULL, q, RK_PROFILE_TARGET, &map, &e));
  cr_assert(strstr(e->message, "quadruped") && !strstr(e->message, "group"), "%s", e->message);
  g_autoptr(rk_profile) other = load_ok("[source]\nhips=hip\n");
  g_autoptr(GError) e2 = NULL;
  cr_assert_not(rk_profile_map_rig(other, q, RK_PROFILE_TARGET, &map, &e2));
  cr_assert(g_str_has_prefix(e2->message, "(my.map has no [target] group to map it) "), "%s",
            e2->message);
  g_autoptr(rk_profile) hind = load_ok("[target]\nhips=hip\nleft_upper_leg=hl1\nleft_lower_leg=hl2\n"
                                       "left_foot=hl3\nright_upper_leg=hr1\nright_lower_leg=hr2\n"
                                       "right_foot=hr3\n");
  g_autoptr(GError) e3 = NULL;
  cr_assert(rk_profile_map_rig(hind, q, RK_PROFILE_TARGET, &map, &e3), "%s",
            e3 ? e3->message : "");
  cr_assert_eq(map.joint[RK_BONE_LEFT_FOOT], rk_skeleton_find_joint(q, "hl3"));
  cr_assert_eq(map.source[RK_BONE_LEFT_FOOT], RK_BONE_BY_MAP_FILE);
  cr_assert_eq(map.joint[RK_BONE_HEAD], -1);
  cr_assert_gt(map.hip_height, 0);
  /* Incomplete: the automatic error and the group are both named. */
  g_autoptr(rk_profile) half = load_ok("[target]\nhips=hip\n");
  g_autoptr(GError) e4 = NULL;
  cr_assert_not(rk_profile_map_rig(half, q, RK_PROFILE_TARGET, &map, &e4));
  cr_assert(strstr(e4->message, "automatic mapping failed (") &&
                strstr(e4->message, "quadruped") &&
                strstr(e4->message, "my.map [target] does not complete it: "),
            "%s", e4->message);
}

Test(profile, options_from_a_profile_key_file) {
  g_autoptr(GKeyFile) kf = g_key_file_new();
  cr_assert(g_key_file_load_from_data(kf, "[settings]\nfps=30\nfoot_ik=false\nroot_motion=true\ncontact_height=0.05\n",
                                      (gsize)-1, 0, NULL));
  rk_retarget_options o = RK_RETARGET_OPTIONS_INIT;
  cr_assert(rk_retarget_options_from_keyfile(&o, kf, "p.map", NULL));
  rk_assert_near(o.fps, 30, 0);
  cr_assert_not(o.foot_ik);
  cr_assert(o.root_motion);
  rk_assert_near(o.contact_height, 0.05, 0);
  const char *bad[] = {"[settings]\nfps=fast\n", "[settings]\nspeed=3\n", "[settings]\ncontact_height=7\n",
                       "[settings]\nfoot_ik=maybe\n"};
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autoptr(GKeyFile) k = g_key_file_new();
    cr_assert(g_key_file_load_from_data(k, bad[i], (gsize)-1, 0, NULL));
    g_autoptr(GError) e = NULL;
    cr_assert_not(rk_retarget_options_from_keyfile(&o, k, "p.map", &e), "%s accepted", bad[i]);
    cr_assert(strstr(e->message, "p.map"), "%s", e->message);
  }
}

Test(profile, map_groups_of_a_key_file_share_the_checks) {
  g_autoptr(GKeyFile) kf = g_key_file_new();
  cr_assert(g_key_file_load_from_data(kf, "[target]\nleft_tail=j3\n", (gsize)-1, 0, NULL));
  g_autoptr(rk_skeleton) s = make_rig(NULL, 0, false);
  rk_humanoid_map map;
  rk_humanoid_map_clear(&map);
  cr_assert(rk_humanoid_map_apply_keyfile(&map, s, kf, "source", "k.map", NULL), "no group");
  g_autoptr(GError) e = NULL;
  cr_assert_not(rk_humanoid_map_apply_keyfile(&map, s, kf, "target", "k.map", &e));
  cr_assert(strstr(e->message, "k.map: [target] left_tail: unknown bone (bones: root, hips"), "%s",
            e->message);
}

/* [quality]: a code's CHECK [FAILED] bounds over rigkit's defaults, codes not named keep theirs. */
Test(profile, quality_sets_the_bounds_it_names) {
  g_autoptr(rk_profile) p =
      load_ok("[quality]\nskate = 8 30\nfoot-pitch = 25\nimport-repaired = 0 none\n");
  rk_quality_bounds d, b;
  rk_quality_bounds_init(&d);
  rk_quality_bounds_init(&b);
  rk_profile_apply_quality(p, &b);
  rk_assert_near(b.check[RK_QUALITY_SKATE], 8, 0);
  rk_assert_near(b.failed[RK_QUALITY_SKATE], 30, 0);
  rk_assert_near(b.check[RK_QUALITY_FOOT_PITCH], 25, 0);
  rk_assert_near(b.failed[RK_QUALITY_FOOT_PITCH], d.failed[RK_QUALITY_FOOT_PITCH], 0);
  cr_assert(isinf(b.failed[RK_QUALITY_IMPORT_REPAIRED]));
  for (int c = 0; c < RK_QUALITY_CODES; c++) {
    cr_assert_eq(rk_quality_code_parse(rk_quality_code_name((rk_quality_code)c)), c);
    if (c != RK_QUALITY_SKATE && c != RK_QUALITY_FOOT_PITCH && c != RK_QUALITY_IMPORT_REPAIRED)
      cr_assert(b.check[c] == d.check[c] && b.failed[c] == d.failed[c], "%d", c);
  }
  cr_assert_eq(rk_quality_code_parse("skating"), -1);
  cr_assert_null(rk_quality_code_name(RK_QUALITY_CODES));
  rk_profile_apply_quality(NULL, &b);
  rk_assert_near(b.check[RK_QUALITY_SKATE], 8, 0);
  expect_refused("[quality]\nskating = 3\n", RK_ERROR_INVALID,
                 PARTS("[quality] skating: unknown code", "mesh-through-floor"));
  expect_refused("[quality]\nskate = fast\n", RK_ERROR_INVALID,
                 PARTS("skate = fast", "not a non-negative number"));
  expect_refused("[quality]\nskate = 8 4\n", RK_ERROR_INVALID, PARTS("below the check bound"));
  expect_refused("[quality]\nskate = 1 2 3\n", RK_ERROR_INVALID, PARTS("more than two numbers"));
  expect_refused("[quality]\nskate =\n", RK_ERROR_INVALID, PARTS("no bound"));
  expect_refused("[quality]\nskate = none\n", RK_ERROR_INVALID, PARTS("'none'"));
}
