/* Line ends and whitespace that must not matter: the crafted variants of a BVH (CR only; UTF-8
 * byte order mark, CRLF and tab indentation) and of a DH table (CRLF, tabs between fields,
 * trailing tabs) import to exactly the same skeleton and motion as their plain originals
 * (written by crafted/make_crafted.py). Malformed variants of each format are in bad/. */
#include "import_test.h"

/* Same joints, rest poses and poses at every frame (bit for bit: the numbers are the same text). */
static void assert_same_asset(const char *a_name, const char *b_name) {
  g_autoptr(rk_asset) a = import_ok(a_name, NULL);
  g_autoptr(rk_asset) b = import_ok(b_name, NULL);
  const rk_skeleton *sa = rk_asset_skeleton(a), *sb = rk_asset_skeleton(b);
  const size_t n = rk_skeleton_joint_count(sa);
  cr_assert_eq(rk_skeleton_joint_count(sb), n, "%s vs %s", a_name, b_name);
  for (size_t j = 0; j < n; j++) {
    cr_assert_str_eq(rk_skeleton_joint_name(sa, j), rk_skeleton_joint_name(sb, j));
    cr_assert_eq(rk_skeleton_parent(sa, j), rk_skeleton_parent(sb, j));
    cr_assert_eq(memcmp(rk_skeleton_rest(sa, j), rk_skeleton_rest(sb, j), sizeof(rk_transform)),
                 0, "%s: rest of joint %zu differs", b_name, j);
  }
  cr_assert_eq(rk_asset_clip_count(a), 1);
  cr_assert_eq(rk_asset_clip_count(b), 1);
  const rk_clip *ca = rk_asset_clip(a, 0), *cb = rk_asset_clip(b, 0);
  cr_assert_eq(rk_clip_frame_count(ca), rk_clip_frame_count(cb));
  rk_assert_near(rk_clip_fps(ca), rk_clip_fps(cb), 0);
  g_autofree rk_transform *la = g_new(rk_transform, n);
  g_autofree rk_transform *lb = g_new(rk_transform, n);
  for (size_t f = 0; f < rk_clip_frame_count(ca); f++) {
    cr_assert(rk_clip_sample_frame(ca, rk_skeleton_rest_locals(sa), rk_clip_fps(ca), f, la, n));
    cr_assert(rk_clip_sample_frame(cb, rk_skeleton_rest_locals(sb), rk_clip_fps(cb), f, lb, n));
    cr_assert_eq(memcmp(la, lb, n * sizeof *la), 0, "%s: frame %zu differs", b_name, f);
  }
}

Test(line_ends, bvh_with_cr_only_line_ends) {
  assert_same_asset("crafted/human_yup_m_frames_short.bvh", "crafted/human_cr_only.bvh");
}

Test(line_ends, bvh_with_bom_crlf_and_tabs) {
  assert_same_asset("crafted/human_yup_m_frames_short.bvh", "crafted/human_bom_crlf_tabs.bvh");
}

Test(line_ends, dh_table_with_crlf_and_tabs) {
  assert_same_asset("crafted/planar_rrp.dh", "crafted/planar_rrp_crlf_tabs.dh");
}

Test(line_ends, messages_count_cr_only_lines) {
  /* A CR-only BVH with a bad channel on its 5th line: the message names line 5. */
  const char *text = "HIERARCHY\rROOT Hips\r{\r  OFFSET 0 0 0\r  CHANNELS 1 Wrotation\r}\r";
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_asset) a = import_text(text, "cr.bvh", NULL, &error);
  cr_assert_null(a);
  cr_assert(strstr(error->message, "line 5"), "%s", error->message);
}
