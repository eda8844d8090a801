/* The frame lines of a BVH (importers/src/bvh_motion.c): a long file of nothing but rows is read
 * in two halves on two threads, and gives the rows one pass gives. Checked against the one pass
 * the reader falls back to for the same rows (a truncated line after them), with CRLF line ends,
 * a header that disagrees with the data, and a fault in the second half (named by its line). */
#include "import_test.h"

/* tests/data/generated/cmu_floor.bvh (1501 frames, about 1 MB: past the two-thread size). */
static char *long_text(void) {
  g_autofree char *path = rk_test_data("generated/cmu_floor.bvh");
  char *text = NULL;
  cr_assert(g_file_get_contents(path, &text, NULL, NULL));
  cr_assert_gt(strlen(text), 512 * 1024);
  return text;
}

/* Every frame of a and b samples to the same bits. */
static void assert_same_frames(const rk_asset *a, const rk_asset *b) {
  const rk_skeleton *s = rk_asset_skeleton(a);
  const size_t n = rk_skeleton_joint_count(s);
  const rk_clip *ca = rk_asset_clip(a, 0), *cb = rk_asset_clip(b, 0);
  cr_assert_eq(rk_clip_frame_count(ca), rk_clip_frame_count(cb));
  g_autofree rk_transform *la = g_new(rk_transform, n), *lb = g_new(rk_transform, n);
  for (size_t f = 0; f < rk_clip_frame_count(ca); f++) {
    cr_assert(rk_clip_sample_frame(ca, rk_skeleton_rest_locals(s), rk_clip_fps(ca), f, la, n));
    cr_assert(rk_clip_sample_frame(cb, rk_skeleton_rest_locals(s), rk_clip_fps(cb), f, lb, n));
    cr_assert_eq(memcmp(la, lb, n * sizeof *la), 0, "frame %zu differs", f);
  }
}

static rk_asset *import_or_fail(const char *text, const char *name) {
  g_autoptr(GError) e = NULL;
  rk_asset *a = import_text(text, name, NULL, &e);
  cr_assert(a, "%s: %s", name, e ? e->message : "");
  return a;
}

Test(bvh_motion, two_halves_read_the_rows_one_pass_reads) {
  g_autofree char *text = long_text();
  g_autoptr(rk_asset) halves = import_or_fail(text, "long.bvh");
  cr_assert_eq(rk_clip_frame_count(rk_asset_clip(halves, 0)), 1501u);
  /* A cut line at the end: one pass reads it all (and drops that line). */
  g_autofree char *cut = g_strconcat(text, "0.5 1.5 2", NULL);
  g_autoptr(rk_asset) one = import_or_fail(cut, "cut.bvh");
  cr_assert(has_note(one, "truncated"));
  assert_same_frames(halves, one);
  /* CRLF line ends: the split falls between a CR and its LF or after it alike. */
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  g_autofree char *crlf = g_strjoinv("\r\n", lines);
  g_autoptr(rk_asset) dos = import_or_fail(crlf, "crlf.bvh");
  assert_same_frames(halves, dos);
}

Test(bvh_motion, the_header_count_and_faults_are_said_as_one_pass_says_them) {
  g_autofree char *text = long_text();
  char *frames = strstr(text, "Frames:");
  cr_assert(frames);
  g_autofree char *head = g_strndup(text, (gsize)(frames - text));
  const char *eol = strchr(frames, '\n');
  g_autofree char *fewer = g_strdup_printf("%sFrames: 1400%s", head, eol);
  g_autoptr(rk_asset) a = import_or_fail(fewer, "fewer.bvh");
  cr_assert(has_note(a, "header declares 1400 frames, the file has 1501: using 1501"));
  /* A word in place of a number three quarters in: the error names its line. */
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  const guint n = g_strv_length(lines), bad = n * 3 / 4;
  char *sp = strchr(lines[bad], ' ');
  cr_assert(sp);
  g_autofree char *rest = g_strdup(sp);
  g_free(lines[bad]);
  lines[bad] = g_strconcat("oops", rest, NULL);
  g_autofree char *broken = g_strjoinv("\n", lines);
  g_autoptr(GError) e = NULL;
  g_autoptr(rk_asset) none = import_text(broken, "broken.bvh", NULL, &e);
  cr_assert_null(none);
  g_autofree char *want = g_strdup_printf("line %u ", bad + 1);
  cr_assert(e && strstr(e->message, want) && strstr(e->message, "'oops' is not a number"), "%s",
            e ? e->message : "");
}
