/* The measures of an output in one pass (core/src/measure_pass.c, rk_retarget_measure_output):
 * the frames split in two parts give each frame the model matrices one part gives, and the
 * figures of the shared pass, in one part or two, are those of each measure run alone, bit for
 * bit, on a clip long enough to be split (cmu_floor.bvh, 1501 frames, onto cmu_char.glb: every
 * measure applies, the pose error included). */
#include "rk_test.h"
#include "../../core/src/measure_pass.h"
#include "../../core/src/retarget_output.h"

#include <rigkit/importers.h>
#include <rigkit/profile.h>
#include <rigkit/rigkit.h>
#include <string.h>

/* A measure that keeps, per frame, the model matrices of the joints it reads. */
typedef struct recorder {
  const int *read;
  size_t n, src_n;
  const int *src;
  rk_mat4 *out_seen, *src_seen; /* frames x n, frames x src_n */
  rk__measure m;
} recorder;

static void record(void *ctx, int part, size_t f, const rk_mat4 *om, const rk_mat4 *sm) {
  (void)part;
  recorder *r = ctx;
  for (size_t k = 0; k < r->n; k++)
    r->out_seen[f * r->n + k] = om[r->read[k]];
  for (size_t k = 0; k < r->src_n; k++)
    r->src_seen[f * r->src_n + k] = sm[r->src[k]];
}

static void recorder_init(recorder *r, const int *read, size_t n, const int *src, size_t src_n,
                          size_t frames) {
  *r = (recorder){read, n, src_n, src, g_new0(rk_mat4, frames * n), g_new0(rk_mat4, frames * src_n),
                  {false, read, n, src, src_n, record, r}};
  r->m.ctx = r;
}

typedef struct fixture {
  rk_asset *src, *tgt, *out;
  rk_retargeter *rt;
  rk_retarget_result *r;
} fixture;

static void fixture_load(fixture *x) {
  g_autoptr(GError) e = NULL;
  g_autofree char *sp = rk_test_data("generated/cmu_floor.bvh");
  g_autofree char *tp = rk_test_data("generated/cmu_char.glb");
  x->src = rk_import_file(sp, NULL, &e);
  x->tgt = x->src ? rk_import_file(tp, NULL, &e) : NULL;
  cr_assert(x->tgt, "%s", e ? e->message : "");
  rk_humanoid_map sm, tm;
  cr_assert(rk_profile_map_asset(NULL, x->src, RK_PROFILE_SOURCE, &sm, &e) &&
            rk_profile_map_asset(NULL, x->tgt, RK_PROFILE_TARGET, &tm, &e), "%s", e->message);
  x->rt = rk_retargeter_new_onto(rk_asset_skeleton(x->src), &sm, x->tgt, &tm, &e);
  cr_assert(x->rt, "%s", e ? e->message : "");
  const rk_retarget_options o = RK_RETARGET_OPTIONS_INIT;
  x->r = rk_retargeter_run(x->rt, rk_asset_clip(x->src, 0), &o, &e);
  cr_assert(x->r, "%s", e ? e->message : "");
  x->out = rk_retarget_output_asset(rk_asset_skeleton(x->tgt), x->tgt,
                                    rk_clip_copy(rk_retarget_result_clip(x->r)), &e);
  cr_assert(x->out, "%s", e ? e->message : "");
  cr_assert_gt(rk_retarget_result_frames(x->r), 1000);
}

static void fixture_clear(fixture *x) {
  rk_asset_free(x->out);
  rk_retarget_result_free(x->r);
  rk_retargeter_free(x->rt);
  rk_asset_free(x->tgt);
  rk_asset_free(x->src);
}

Test(measure_pass, two_parts_see_the_frames_one_part_sees) {
  fixture x;
  fixture_load(&x);
  const size_t frames = rk_retarget_result_frames(x.r);
  const rk__measure_clips c = {rk_asset_skeleton(x.out), rk_asset_clip(x.out, 0),
                               rk_asset_skeleton(x.src), rk_asset_clip(x.src, 0), 30.0, frames};
  const int a[] = {3, 9}, b[] = {0, 17, 9}, sa[] = {5}, sb[] = {20, 2};
  recorder one[2], two[2];
  recorder_init(&one[0], a, 2, sa, 1, frames);
  recorder_init(&one[1], b, 3, sb, 2, frames);
  recorder_init(&two[0], a, 2, sa, 1, frames);
  recorder_init(&two[1], b, 3, sb, 2, frames);
  rk__measure *m1[] = {&one[0].m, &one[1].m}, *m2[] = {&two[0].m, &two[1].m};
  rk__measure_run(&c, m1, 2, 1);
  rk__measure_run(&c, m2, 2, 2);
  size_t first[RK__MEASURE_PARTS + 1];
  cr_assert_eq(rk__measure_split(frames, 2, first), 2);
  cr_assert_eq(rk__measure_split(100, 2, first), 1, "a short clip is one part");
  for (int k = 0; k < 2; k++) {
    cr_assert(memcmp(one[k].out_seen, two[k].out_seen, frames * one[k].n * sizeof(rk_mat4)) == 0);
    cr_assert(memcmp(one[k].src_seen, two[k].src_seen, frames * one[k].src_n * sizeof(rk_mat4)) == 0);
    g_free(one[k].out_seen), g_free(one[k].src_seen), g_free(two[k].out_seen), g_free(two[k].src_seen);
  }
  fixture_clear(&x);
}

static bool same(double a, double b) {
  return memcmp(&a, &b, sizeof a) == 0;
}

static void assert_same_look(const rk_retarget_look *a, const rk_retarget_look *b) {
  cr_assert(same(a->planted_low_median_mm, b->planted_low_median_mm) &&
            same(a->planted_low_min_mm, b->planted_low_min_mm) &&
            same(a->planted_low_max_mm, b->planted_low_max_mm) &&
            same(a->penetration_mm, b->penetration_mm) &&
            same(a->foot_pitch_p95_deg, b->foot_pitch_p95_deg) &&
            same(a->foot_pitch_max_deg, b->foot_pitch_max_deg) &&
            same(a->skate_mean_mm, b->skate_mean_mm) && same(a->skate_max_mm, b->skate_max_mm) &&
            a->planted_frames == b->planted_frames && a->meshes == b->meshes);
}

Test(measure_pass, one_pass_gives_each_measures_figures) {
  fixture x;
  fixture_load(&x);
  const size_t frames = rk_retarget_result_frames(x.r);
  const rk_clip *sc = rk_asset_clip(x.src, 0), *oc = rk_asset_clip(x.out, 0);
  const rk_skeleton *os = rk_asset_skeleton(x.out);
  /* Each measure alone. */
  rk_retarget_look look;
  g_autofree double *low = g_new(double, 2 * frames);
  g_autofree rk_vec3 *soles = g_new(rk_vec3, 6 * frames);
  rk_retarget_measure_look(x.rt, x.r, sc, x.out, &look, low, soles);
  rk_retarget_pose_error pose = {NAN, NAN, -1, -1, NAN};
  cr_assert(rk_retarget_measure_pose(x.rt, x.r, sc, os, oc, &pose), "the pose error applies");
  const double limbs = rk_retarget_limb_direction(x.rt, x.r, sc, os, oc);
  g_autofree rk_vec3 *pos = rk_retarget_contact_positions(x.rt, x.r, os, oc);
  const size_t nc = rk_retarget_result_contact_count(x.r);
  cr_assert(look.meshes && look.planted_frames > 0 && isfinite(limbs) && nc > 0);
  for (int parts = 1; parts <= 2; parts++) {
    g_autofree double *low2 = g_new(double, 2 * frames);
    g_autofree rk_vec3 *soles2 = g_new(rk_vec3, 6 * frames);
    rk_retarget_output_figures fig;
    if (parts == 2)
      rk_retarget_measure_output(x.rt, x.r, sc, x.out, low2, soles2, &fig);
    else
      rk__rt_measure_output(x.rt, x.r, sc, x.out, low2, soles2, 1, &fig);
    assert_same_look(&fig.look, &look);
    cr_assert(memcmp(low, low2, 2 * frames * sizeof(double)) == 0);
    cr_assert(memcmp(soles, soles2, 6 * frames * sizeof(rk_vec3)) == 0);
    cr_assert(fig.pose_measured && same(fig.pose.median_mm, pose.median_mm) &&
              same(fig.pose.max_mm, pose.max_mm) && same(fig.pose.body_max_mm, pose.body_max_mm) &&
              fig.pose.worst_joint == pose.worst_joint && fig.pose.worst_frame == pose.worst_frame,
              "%d parts: pose error %g at %d/%d, alone %g at %d/%d", parts, fig.pose.max_mm,
              fig.pose.worst_joint, fig.pose.worst_frame, pose.max_mm, pose.worst_joint,
              pose.worst_frame);
    cr_assert(same(fig.limb_direction_median_deg, limbs));
    cr_assert(memcmp(fig.contact_positions, pos, frames * nc * sizeof(rk_vec3)) == 0);
    g_free(fig.contact_positions);
  }
  fixture_clear(&x);
}
