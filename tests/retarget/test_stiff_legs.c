/* Legs of one bone (game_blocky.glb: leg_L/R hang from the body, the foot in each leg's mesh)
 * from the bundled walk, hop and turn, measured on the written outputs (stiff_figures.h): each
 * leg's end and the pelvis move from frame to frame no more than twice the source's own foot and
 * hips nearby (scaled) plus a tenth (the pelvis a twentieth) of the leg's length, the planted feet
 * still (<= 5 mm) and their meshes on the floor, not through it (before, the swing foot's end
 * jumped up to 30 cm in a frame as its goal passed under the hip, and the pelvis dropped up to
 * 11 cm when support changed); the walk and turn with no foot ever planted, whose free legs
 * turn at a bounded rate with their feet out of the floor; a foot planting beside a held one
 * (cmu_cross) arriving on its pin rather than leaping onto it; and the blocky walk, used as a
 * source, plants its feet onto a human (it planted none). */
#include "stiff_test.h"

static const char *const clips[] = {"generated/cmu_walk.bvh", "generated/cmu_hop.bvh",
                                    "generated/cmu_turn.bvh", NULL};

/* The report of a run of the source clips (CMU units, NULL-terminated) onto game_blocky, its
 * outputs in dir. */
static JsonParser *onto_blocky(const char *dir, const char *const *sources) {
  static const char *const cmu[] = {"--unit", "cmu", NULL};
  return rt_run_report(dir, dir, "generated/game_blocky.glb", cmu, sources, 0, NULL);
}

/* The figures of report entry i of p (a run onto game_blocky of source clip `path`). */
static JsonObject *measured(JsonParser *p, guint i, const char *path, const char **clip,
                            stiff_figures *f) {
  return stiff_entry_measured(p, i, "game_blocky", path, clip, f);
}

Test(stiff_legs, ends_and_pelvis_move_with_the_source_and_planted_feet_hold) {
  g_autofree char *dir = rt_tmpdir();
  JsonParser *p = onto_blocky(dir, clips);
  for (guint i = 0; i < rt_entry_count(p); i++) {
    const char *clip;
    stiff_figures f;
    JsonObject *c = measured(p, i, clips[i], &clip, &f);
    cr_log_info("%s onto game_blocky: leg ends move up to %.1f / %.1f cm a frame (source feet "
                "%.1f / %.1f), beyond twice the source's %.1f / %.1f cm; pelvis %.1f cm (source "
                "%.1f), beyond %.1f cm; %zu frames with a foot jump over 5 cm; planted mesh %.1f mm, "
                "swinging %.1f mm; splay %.0f deg",
                clip, 100 * f.end_move[0], 100 * f.end_move[1], 100 * f.src_move[0],
                100 * f.src_move[1], 100 * f.end_excess[0], 100 * f.end_excess[1],
                100 * f.pelvis_move, 100 * f.src_pelvis_move, 100 * f.pelvis_excess, f.jumps,
                f.low_planted_mm, f.low_swing_mm, f.splay_deg);
    for (int side = 0; side < 2; side++)
      cr_assert_leq(f.end_excess[side], 0.1 * f.leg,
                    "%s: a leg's end jumps %.1f cm beyond twice the source foot's move", clip,
                    100 * f.end_excess[side]);
    cr_assert_leq(f.pelvis_excess, 0.05 * f.leg,
                  "%s: the pelvis jumps %.1f cm beyond twice the source hips' move", clip,
                  100 * f.pelvis_excess);
    cr_assert_eq(f.jumps, 0, "%s: %zu frames with a foot jump over 5 cm", clip, f.jumps);
    /* Planted: still, and on the floor (a held foot's mesh may dip 0.2% of the height). */
    const rt_planted pf = rt_planted_of(c);
    rt_assert_planted(pf, clip, "game_blocky", -3);
    cr_assert_geq(f.low_planted_mm, -3, "%s: a planted foot %.1f mm through the floor", clip,
                  -f.low_planted_mm);
  }
  g_object_unref(p);
  rt_rmtree(dir);
}

Test(stiff_legs, the_blocky_walk_as_a_source_plants_its_feet) {
  g_autofree char *dir = rt_tmpdir();
  static const char *const walk[] = {"generated/cmu_walk.bvh", NULL};
  JsonParser *p = onto_blocky(dir, walk);
  const char *clip;
  g_autofree char *blocky = g_strdup(rt_str(rt_ok_entry(p, 0, "game_blocky", &clip), "output"));
  g_object_unref(p);
  g_autofree char *back = g_build_filename(dir, "back", NULL);
  g_autofree char *report = g_build_filename(dir, "back.json", NULL);
  g_autofree char *human = rt_data("generated/cmu_char.glb");
  const char *args[] = {"retarget", "--target", human, "--out-dir", back, "--report", report,
                        "--no-progress", blocky, NULL};
  cli_run r = rt_cli(NULL, args);
  cr_assert_eq(r.code, 0, "%s", r.err);
  rt_cli_clear(&r);
  JsonParser *parser;
  JsonObject *c = rt_clip(rt_json(report, &parser), 0);
  const double planted = rt_num(c, "contact_frames", NULL);
  cr_log_info("the blocky walk onto cmu_char: %.0f contact frames, verdict %s", planted,
              rt_str(c, "verdict"));
  /* Both feet plant for much of the walk (601 frames: 306 contact frames). */
  cr_assert_geq(planted, 150, "the blocky walk as a source plants %.0f frames", planted);
  cr_assert_str_neq(rt_str(c, "verdict"), "failed");
  g_object_unref(parser);
  rt_rmtree(dir);
}

/* Feet that never plant (a profile whose contacts must last a minute: the source stands on feet
 * that slide too much to hold, as the real jumps' crouches do): every leg is free, the body on
 * the transferred pelvis. A free leg turns from its last frame's direction at a bounded rate
 * (a radian in a tenth of a second), its foot's mesh still out of the floor (before, a leg that
 * kept a flat foot out of a low floor leapt in one frame from out to the side to straight down:
 * the walk's ends moved up to 11.8 cm a frame, 18 frames over 5 cm; the turn's 8). A free leg
 * hangs toward where the source's foot is under its hip, not along the thigh: through the hop's
 * crouches the feet stay under the body as the source's do, the body sinking only as far as
 * the stiff legs let the feet stay out of the floor (before, the legs leant back along the
 * crouching thighs, the ends 33 cm farther from under the hips than the source's ankles). */
Test(stiff_legs, free_legs_turn_at_a_bounded_rate_out_of_the_floor) {
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *map = g_build_filename(dir, "free.map", NULL);
  cr_assert(g_file_set_contents(map, "[settings]\ncontact_min_time = 60\n", -1, NULL));
  const char *const args[] = {"--unit", "cmu", "--map", map, NULL};
  static const char *const free_clips[] = {"generated/cmu_walk.bvh", "generated/cmu_turn.bvh",
                                           "generated/cmu_hop.bvh", NULL};
  JsonParser *p = rt_run_report(dir, dir, "generated/game_blocky.glb", args, free_clips, 0, NULL);
  for (guint i = 0; i < rt_entry_count(p); i++) {
    const char *clip;
    stiff_figures f;
    measured(p, i, free_clips[i], &clip, &f);
    cr_log_info("%s onto game_blocky, no foot planted: leg ends move up to %.1f / %.1f cm a frame, "
                "%zu frames over 5 cm; swinging mesh %.1f mm; splay %.0f deg; ends up to %.1f cm "
                "farther from under the hips than the source's",
                clip, 100 * f.end_move[0], 100 * f.end_move[1], f.jumps, f.low_swing_mm, f.splay_deg,
                100 * f.under_excess);
    /* The feet where the source's are (scaled) over the ground: within 15% of the leg's length. */
    cr_assert_leq(f.under_excess, 0.15 * f.leg, "%s: a free leg's end stands %.1f cm farther from under "
                  "its hip than the source's ankle", clip, 100 * f.under_excess);
    /* A radian in a tenth of a second at 120 fps: 0.083 of the leg's length, plus the hips'. */
    for (int side = 0; side < 2; side++)
      cr_assert_leq(f.end_move[side], 0.1 * f.leg + 2 * f.src_pelvis_move,
                    "%s: a free leg's end moves %.1f cm in a frame", clip, 100 * f.end_move[side]);
    cr_assert_eq(f.jumps, 0, "%s: %zu frames with a foot jump over 5 cm", clip, f.jumps);
    cr_assert_leq(f.splay_deg, 35, "%s: a free leg splays %.0f deg", clip, f.splay_deg);
    /* Both feet's meshes, never planted, out of the floor (a graze of 0.2% of the height). */
    cr_assert_geq(f.low_swing_mm, -3, "%s: a foot %.1f mm through the floor", clip, -f.low_swing_mm);
  }
  g_object_unref(p);
  rt_rmtree(dir);
}

/* A foot that plants beside a held one: cmu_cross draws each foot across the floor in front of
 * the other (a sliding foot is not pinned) and plants it while the other holds, its pin inward of
 * its hip on game_blocky's wide hips. The free leg turns round the hip toward that pin ahead of
 * the contact and arrives there on the contact's first frame; before, it was held out to the
 * side to keep its flat foot out of the floor and met its pin only then (a 5.2 cm leap on this
 * clip; 29 and 44.5 cm on the CMU jumps 01_01 and 01_03). */
Test(stiff_legs, a_foot_planting_beside_a_held_one_arrives_on_its_pin) {
  g_autofree char *dir = rt_tmpdir();
  static const char *const cross[] = {"generated/cmu_cross.bvh", NULL};
  JsonParser *p = onto_blocky(dir, cross);
  const char *clip;
  stiff_figures f;
  measured(p, 0, cross[0], &clip, &f);
  cr_log_info("%s onto game_blocky: %zu contacts start beside a held foot, the leg's end moving up "
              "to %.1f cm on their first frames (source feet %.1f / %.1f cm a frame)",
              clip, f.arrivals, 100 * f.arrive_move, 100 * f.src_move[0], 100 * f.src_move[1]);
  cr_assert_geq(f.arrivals, 2, "%s: %zu contacts start beside a held foot", clip, f.arrivals);
  /* No more than a slow step: 2% of the leg (1 cm on game_blocky; 0.8 cm before the leg fading
   * in beside a held one stopped reaching out of the floor sideways in the blend's last frames,
   * now 0.1). */
  cr_assert_leq(f.arrive_move, 0.02 * f.leg, "%s: a leg's end leaps %.1f cm onto its pin", clip,
                100 * f.arrive_move);
  /* Both feet held about as far apart as the hips (the standing phases): the two legs of one
   * bone and the pelvis make a near parallelogram, which sways sideways almost freely; standing
   * exactly where both legs reach put the pelvis 8 cm to the side for a millimetre between the
   * pins (the legs leant, their flat feet 8.4 mm into the floor), back in one frame when a foot
   * let go (9.1 cm beyond the source hips' move). Now it stays by the transferred pelvis there.
   * As the crossing foot's contact fades in or out the pelvis moves toward the stance on both
   * legs by the contact's weight (before, a spring of stiffness w / (1 - w) moved it there in
   * the blend's last frames: 3.5 cm each); within 1.5 cm of the source's per frame (1.2 cm). */
  cr_log_info("%s onto game_blocky: the pelvis moves up to %.1f cm a frame (source %.1f), %.1f cm "
              "beyond twice the source's; planted feet's meshes %.1f mm above the floor at the lowest",
              clip, 100 * f.pelvis_move, 100 * f.src_pelvis_move, 100 * f.pelvis_excess, f.low_planted_mm);
  cr_assert_leq(f.pelvis_beyond, 0.015, "%s: the pelvis moves %.1f cm a frame beyond the source "
                "hips' move", clip, 100 * f.pelvis_beyond);
  cr_assert_leq(f.pelvis_excess, 0.03 * f.leg, "%s: the pelvis jumps %.1f cm beyond twice the source "
                "hips' move", clip, 100 * f.pelvis_excess);
  cr_assert_eq(f.jumps, 0, "%s: %zu frames with a foot jump over 5 cm", clip, f.jumps);
  cr_assert_geq(f.low_planted_mm, -6.5, "%s: a planted foot %.1f mm through the floor", clip,
                -f.low_planted_mm);
  g_object_unref(p);
  rt_rmtree(dir);
}

/* A clip of 512 frames or more is solved in two halves on two threads; a free stiff leg's turn
 * starts from its direction at the last frame, which the second half must have at the join, and
 * its approach to its next pin reads only the frame and the contacts: the walk, the hop and the
 * feet drawn across onto game_blocky give the same bits on one thread and on two. */
Test(stiff_legs, two_halves_give_the_one_pass_result) {
  static const char *const two_clips[] = {"generated/cmu_walk.bvh", "generated/cmu_hop.bvh",
                                          "generated/cmu_cross.bvh"};
  g_autofree char *target = rt_data("generated/game_blocky.glb");
  rk_import_options io = RK_IMPORT_OPTIONS_INIT;
  g_autoptr(rk_asset) tgt = rk_import_file(target, &io, NULL);
  cr_assert_not_null(tgt);
  io.unit_scale = 0.0254 / 0.45;
  for (size_t i = 0; i < G_N_ELEMENTS(two_clips); i++) {
    g_autofree char *path = rt_data(two_clips[i]);
    g_autoptr(rk_asset) src = rk_import_file(path, &io, NULL);
    rk_humanoid_map sm, tm;
    cr_assert(src && rk_profile_map_rig(NULL, rk_asset_skeleton(src), RK_PROFILE_SOURCE, &sm, NULL) &&
              rk_profile_map_asset(NULL, tgt, RK_PROFILE_TARGET, &tm, NULL));
    g_autoptr(rk_retargeter) rt = rk_retargeter_new_onto(rk_asset_skeleton(src), &sm, tgt, &tm, NULL);
    cr_assert_not_null(rt);
    rk_retarget_options one = RK_RETARGET_OPTIONS_INIT, two = RK_RETARGET_OPTIONS_INIT;
    one.threads = 1;
    two.threads = 2;
    g_autoptr(rk_retarget_result) a = rk_retargeter_run(rt, rk_asset_clip(src, 0), &one, NULL);
    g_autoptr(rk_retarget_result) b = rk_retargeter_run(rt, rk_asset_clip(src, 0), &two, NULL);
    cr_assert(a && b);
    const size_t frames = rk_retarget_result_frames(a), n = rk_skeleton_joint_count(rk_asset_skeleton(tgt));
    cr_assert_geq(frames, 512, "%s: too short to split", two_clips[i]);
    g_autofree rk_transform *la = g_new(rk_transform, n), *lb = g_new(rk_transform, n);
    const rk_transform *rest = rk_skeleton_rest_locals(rk_asset_skeleton(tgt));
    for (size_t f = 0; f < frames; f++) {
      rk_clip_sample_frame(rk_retarget_result_clip(a), rest, rk_retarget_result_fps(a), f, la, n);
      rk_clip_sample_frame(rk_retarget_result_clip(b), rest, rk_retarget_result_fps(b), f, lb, n);
      cr_assert(memcmp(la, lb, n * sizeof *la) == 0, "%s frame %zu: two halves differ", two_clips[i], f);
    }
  }
}

