/* Figures of a retargeted clip on legs of one bone (a blocky game character: the leg turns about
 * its hip, its end carries the foot), measured on a written output read back with its meshes:
 * how far each leg's end and the pelvis move from one frame to the next against the source's
 * own feet and hips (scaled to the target), the feet's meshes against the floor while planted
 * and in swing, how far the legs splay out to the side, and how far apart the two legs' blocks
 * stand (below 0: through each other). Shared by test_stiff_legs.c and the
 * before/after tool stiff_measure.c (which measures any build's output). */
#ifndef RK_STIFF_FIGURES_H
#define RK_STIFF_FIGURES_H

#include <rigkit/importers.h>
#include <rigkit/rigkit.h>

#include <math.h>
#include <stdio.h>

typedef struct stiff_figures {
  size_t frames;
  double end_move[2];    /* the largest per-frame move of each leg's end (m) */
  double src_move[2];    /* the source's foot joint's, scaled to the target (m) */
  double end_excess[2];  /* the largest per-frame move of the leg's end beyond twice the source
                            foot's largest move within two frames of it (scaled), m */
  double pelvis_move, src_pelvis_move, pelvis_excess; /* the same for the hips */
  double pelvis_beyond;  /* the largest per-frame move of the hips beyond the source's hips' in
                            the same frame (scaled), m */
  double leg;            /* the target's leg length (m) */
  size_t jumps;          /* frames x feet whose end moved more than 5 cm in the frame */
  double low_planted_mm; /* the lowest point of a planted foot's mesh above the floor (min) */
  double low_swing_mm;   /* of a swinging foot's */
  double splay_deg;      /* the largest angle of a leg out to the side of the body (from the
                            vertical, in the plane across the hips) */
  double under_excess;   /* with no foot planted: how much farther (m) a leg's end stands from
                            under its hip, over the ground, than the source's ankle from under
                            its hip (scaled), at most */
  size_t contacts;       /* contact joints of the run */
  double arrive_move;    /* the largest move (m) of a leg's end on the first frame of a contact
                            of its foot while the other foot is planted (a snap onto the pin) */
  size_t arrivals;       /* such contact starts */
  double leg_gap;        /* how far apart the two legs' blocks stand at their closest (m, min over
                            the clip): the closest distance between the legs (hip to end) less
                            the two legs' half-widths (each mesh's reach from its end toward the
                            other leg at rest); below 0 they go through each other */
  double half_width[2];  /* those half-widths (m), 0 without a mesh */
} stiff_figures;

/* World models of frame f of clip on skeleton s at fps into m (locals scratch of n). */
static inline void stiff_models(const rk_skeleton *s, const rk_clip *clip, double fps, size_t f,
                                rk_transform *locals, rk_mat4 *m) {
  const size_t n = rk_skeleton_joint_count(s);
  rk_clip_sample_frame(clip, rk_skeleton_rest_locals(s), fps, f, locals, n);
  rk_fk_models(s, locals, m);
}

/* The largest of a[f - 2 .. f + 2]. */
static inline double stiff_near_max(const double *a, size_t n, size_t f) {
  double m = 0;
  for (size_t g = f > 2 ? f - 2 : 0; g < n && g <= f + 2; g++)
    m = fmax(m, a[g]);
  return m;
}

/* The distance from point p to segment a-b. */
static inline double stiff_point_segment(rk_vec3 p, rk_vec3 a, rk_vec3 b) {
  const rk_vec3 ab = rk_vec3_sub(b, a);
  const double l2 = rk_vec3_dot(ab, ab);
  const double t = l2 > 0 ? fmin(1.0, fmax(0.0, rk_vec3_dot(rk_vec3_sub(p, a), ab) / l2)) : 0.0;
  return rk_vec3_norm(rk_vec3_sub(p, rk_vec3_add(a, rk_vec3_scale(ab, t))));
}

/* The closest distance between segments a0-a1 and b0-b1, by sampling a0-a1 finely and refining
 * around the best sample (a measure independent of the library's own solve). */
static inline double stiff_segments(rk_vec3 a0, rk_vec3 a1, rk_vec3 b0, rk_vec3 b1) {
  const rk_vec3 d = rk_vec3_sub(a1, a0);
  double best = INFINITY, at = 0, step = 1.0 / 64;
  for (int round = 0; round < 4; round++, step /= 32) {
    const double half = (round ? 32 : 64) * step, from = fmax(0.0, at - half), to = fmin(1.0, at + half);
    for (double t = from; t <= to + 1e-12; t += step) {
      const double g = stiff_point_segment(rk_vec3_add(a0, rk_vec3_scale(d, t)), b0, b1);
      if (g < best) {
        best = g;
        at = t;
      }
    }
  }
  return best;
}

/* How far side's leg's mesh (leg joint `leg`, the subtree below it) reaches from its end `end`
 * along the horizontal unit t at rest (rest models, turned in place and restored): 0 without
 * skinned vertices. */
static inline double stiff_reach(const rk_skin_support *skin, const rk_skeleton *s, int leg, rk_mat4 *rest,
                                 rk_vec3 end, rk_vec3 t) {
  const size_t top = (size_t)leg, stop = rk_skeleton_subtree_end(s, top);
  const rk_mat3 r = rk_quat_to_mat3(rk_quat_from_to(t, rk_vec3_make(0, -1, 0)));
  const rk_mat4 turn = rk_mat4_from_rt(&r, rk_vec3_make(0, 0, 0));
  g_autofree rk_mat4 *keep = g_new(rk_mat4, stop);
  for (size_t j = top; j < stop; j++) {
    keep[j] = rest[j];
    rest[j] = rk_mat4_mul(&turn, &keep[j]);
  }
  rk_skin_point p;
  const bool found = skin && rk_skin_lowest_subtree(skin, rest, leg, &p);
  for (size_t j = top; j < stop; j++)
    rest[j] = keep[j];
  return found ? fmax(0.0, -p.position.y - rk_vec3_dot(end, t)) : 0.0;
}

/* Whether a sole point of side is planted at frame f. */
static inline bool stiff_planted(const rk_retarget_result *r, int side, size_t f) {
  for (int p = 0; p < RK_SOLE_POINTS; p++) {
    const rk_foot_contacts fc = rk_retarget_result_sole_contacts(r, side, (rk_sole_point)p);
    for (size_t i = 0; i < fc.count; i++)
      if ((int)f >= fc.intervals[i].first && (int)f <= fc.intervals[i].last)
        return true;
  }
  return false;
}

/* Measures `output_path` (a retarget of source_path onto target_path, read back in metres):
 * false with error when a file cannot be read or mapped. */
static inline bool stiff_measure(const char *target_path, const char *source_path, double unit,
                                 const char *output_path, stiff_figures *fig, GError **error) {
  rk_import_options io = RK_IMPORT_OPTIONS_INIT;
  g_autoptr(rk_asset) tgt = rk_import_file(target_path, &io, error);
  g_autoptr(rk_asset) out = tgt ? rk_import_file(output_path, &io, error) : NULL;
  io.unit_scale = unit;
  g_autoptr(rk_asset) src = out ? rk_import_file(source_path, &io, error) : NULL;
  rk_humanoid_map sm, tm;
  if (!src || !rk_profile_map_rig(NULL, rk_asset_skeleton(src), RK_PROFILE_SOURCE, &sm, error) ||
      !rk_profile_map_asset(NULL, tgt, RK_PROFILE_TARGET, &tm, error))
    return false;
  g_autoptr(rk_retargeter) rt = rk_retargeter_new_onto(rk_asset_skeleton(src), &sm, tgt, &tm, error);
  rk_retarget_options o = RK_RETARGET_OPTIONS_INIT;
  g_autoptr(rk_retarget_result) r = rt ? rk_retargeter_run(rt, rk_asset_clip(src, 0), &o, error) : NULL;
  if (!r)
    return false;
  const rk_skeleton *os = rk_asset_skeleton(out), *ss = rk_asset_skeleton(src);
  const rk_clip *oc = rk_asset_clip(out, 0), *sc = rk_asset_clip(src, 0);
  const double fps = rk_retarget_result_fps(r), scale = tm.leg_length / sm.leg_length;
  const size_t frames = rk_retarget_result_frames(r), no = rk_skeleton_joint_count(os),
               ns = rk_skeleton_joint_count(ss);
  *fig = (stiff_figures){.frames = frames, .contacts = rk_retarget_result_contact_count(r), .leg = tm.leg_length,
                         .low_planted_mm = INFINITY, .low_swing_mm = INFINITY, .leg_gap = INFINITY};
  g_autofree double *low = g_new(double, frames * 2);
  rk_retarget_look look;
  rk_retarget_measure_look(rt, r, sc, out, &look, low, NULL);
  g_autofree rk_transform *locals = g_new(rk_transform, MAX(no, ns));
  g_autofree rk_mat4 *rest = g_new(rk_mat4, no), *m = g_new(rk_mat4, no), *sm_ = g_new(rk_mat4, ns);
  rk_skeleton_rest_models(os, rest);
  const int hips = tm.joint[RK_BONE_HIPS], ships = sm.joint[RK_BONE_HIPS];
  int leg[2], sfoot[2], sleg[2];
  rk_vec3 end_local[2];
  for (int side = 0; side < 2; side++) {
    leg[side] = tm.joint[side ? RK_BONE_RIGHT_UPPER_LEG : RK_BONE_LEFT_UPPER_LEG];
    sfoot[side] = sm.joint[side ? RK_BONE_RIGHT_FOOT : RK_BONE_LEFT_FOOT];
    sleg[side] = sm.joint[side ? RK_BONE_RIGHT_UPPER_LEG : RK_BONE_LEFT_UPPER_LEG];
    rk_mat4 inv;
    rk_mat4_inverse_affine(&rest[leg[side]], &inv);
    end_local[side] = rk_mat4_transform_point(&inv, tm.leg_end[side]);
  }
  {
    g_autoptr(GError) skin_error = NULL;
    rk_skin_support *skin = rk_skin_support_from_asset(tgt, &skin_error);
    const rk_skeleton *ts = rk_asset_skeleton(tgt);
    g_autofree rk_mat4 *trest = g_new(rk_mat4, rk_skeleton_joint_count(ts));
    rk_skeleton_rest_models(ts, trest);
    for (int side = 0; side < 2; side++) {
      rk_vec3 t = rk_vec3_sub(rk_mat4_get_translation(&trest[leg[!side]]), rk_mat4_get_translation(&trest[leg[side]]));
      t.y = 0;
      if (rk_vec3_norm(t) > 0)
        fig->half_width[side] = stiff_reach(skin, ts, leg[side], trest, tm.leg_end[side], rk_vec3_normalize(t));
    }
    if (skin)
      rk_skin_support_free(skin);
  }
  /* Per frame: the moves (0 at the first frame). */
  g_autofree double *mv = g_new0(double, frames * 6);
  double *src_foot[2] = {mv + 2 * frames, mv + 3 * frames}, *src_hips = mv + 5 * frames;
  double *end_mv[2] = {mv, mv + frames}, *hips_mv = mv + 4 * frames;
  FILE *dump = g_getenv("STIFF_DUMP") ? fopen(g_getenv("STIFF_DUMP"), "w") : NULL;
  rk_vec3 prev_end[2] = {{0}}, prev_src[2] = {{0}}, prev_hips = {0}, prev_ships = {0};
  for (size_t f = 0; f < frames; f++) {
    stiff_models(os, oc, fps, f, locals, m);
    stiff_models(ss, sc, fps, f, locals, sm_);
    const rk_vec3 ph = rk_mat4_get_translation(&m[hips]);
    const rk_vec3 psh = rk_vec3_scale(rk_mat4_get_translation(&sm_[ships]), scale);
    rk_vec3 e[2], hip[2];
    for (int side = 0; side < 2; side++) {
      e[side] = rk_mat4_transform_point(&m[leg[side]], end_local[side]);
      hip[side] = rk_mat4_get_translation(&m[leg[side]]);
      const rk_vec3 ps = rk_vec3_scale(rk_mat4_get_translation(&sm_[sfoot[side]]), scale);
      if (!stiff_planted(r, 0, f) && !stiff_planted(r, 1, f)) {
        const rk_vec3 sh = rk_vec3_scale(rk_mat4_get_translation(&sm_[sleg[side]]), scale);
        const double t = hypot(e[side].x - hip[side].x, e[side].z - hip[side].z);
        fig->under_excess = fmax(fig->under_excess, t - hypot(ps.x - sh.x, ps.z - sh.z));
      }
      if (f > 0) {
        end_mv[side][f] = rk_vec3_norm(rk_vec3_sub(e[side], prev_end[side]));
        src_foot[side][f] = rk_vec3_norm(rk_vec3_sub(ps, prev_src[side]));
        fig->jumps += end_mv[side][f] > 0.05;
        if (stiff_planted(r, side, f) && !stiff_planted(r, side, f - 1) && stiff_planted(r, !side, f - 1) &&
            stiff_planted(r, !side, f)) {
          fig->arrivals++;
          fig->arrive_move = fmax(fig->arrive_move, end_mv[side][f]);
        }
      }
      prev_end[side] = e[side];
      prev_src[side] = ps;
      const double l = 1000 * (low[f * 2 + (size_t)side] - rk_retarget_result_floor(r));
      if (stiff_planted(r, side, f))
        fig->low_planted_mm = fmin(fig->low_planted_mm, l);
      else
        fig->low_swing_mm = fmin(fig->low_swing_mm, l);
    }
    fig->leg_gap = fmin(fig->leg_gap, stiff_segments(hip[0], e[0], hip[1], e[1]) - fig->half_width[0] -
                                          fig->half_width[1]);
    if (f > 0) {
      hips_mv[f] = rk_vec3_norm(rk_vec3_sub(ph, prev_hips));
      src_hips[f] = rk_vec3_norm(rk_vec3_sub(psh, prev_ships));
    }
    prev_hips = ph;
    prev_ships = psh;
    if (dump)
      fprintf(dump, "%zu %d%d end %.1f %.1f src %.1f %.1f hips %.1f src %.1f y %.3f low %.1f %.1f gap %.1f ends %.1f %.1f\n", f,
              stiff_planted(r, 0, f), stiff_planted(r, 1, f), 100 * end_mv[0][f], 100 * end_mv[1][f],
              100 * src_foot[0][f], 100 * src_foot[1][f], 100 * hips_mv[f], 100 * src_hips[f], ph.y,
              1000 * (low[f * 2] - rk_retarget_result_floor(r)), 1000 * (low[f * 2 + 1] - rk_retarget_result_floor(r)),
              100 * (stiff_segments(hip[0], e[0], hip[1], e[1]) - fig->half_width[0] - fig->half_width[1]),
              100 * (e[0].x - e[1].x), 100 * (e[0].z - e[1].z));
    /* Splay: the leg out of the plane through its hip along the body's facing and the vertical
     * (the hips' line sideways, level). */
    rk_vec3 across = rk_vec3_sub(hip[0], hip[1]);
    across.y = 0;
    if (rk_vec3_norm(across) > 0)
      across = rk_vec3_normalize(across);
    for (int side = 0; side < 2; side++) {
      const rk_vec3 d = rk_vec3_sub(e[side], hip[side]);
      const double aside = rk_vec3_dot(d, across) * (side ? -1.0 : 1.0);
      fig->splay_deg = fmax(fig->splay_deg, atan2(aside, -d.y) * 180 / M_PI);
    }
  }
  if (dump)
    fclose(dump);
  for (size_t f = 1; f < frames; f++) {
    for (int side = 0; side < 2; side++) {
      fig->end_move[side] = fmax(fig->end_move[side], end_mv[side][f]);
      fig->src_move[side] = fmax(fig->src_move[side], src_foot[side][f]);
      fig->end_excess[side] = fmax(fig->end_excess[side],
                                   end_mv[side][f] - 2 * stiff_near_max(src_foot[side], frames, f));
    }
    fig->pelvis_move = fmax(fig->pelvis_move, hips_mv[f]);
    fig->src_pelvis_move = fmax(fig->src_pelvis_move, src_hips[f]);
    fig->pelvis_excess = fmax(fig->pelvis_excess, hips_mv[f] - 2 * stiff_near_max(src_hips, frames, f));
    fig->pelvis_beyond = fmax(fig->pelvis_beyond, hips_mv[f] - src_hips[f]);
  }
  return true;
}

#endif
