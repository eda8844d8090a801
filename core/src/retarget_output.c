/* Retargeting, what a person sees in an output: figures measured on a clip of the target (the
 * written output read back), against the source clip; all of them in one pass over its frames
 * (rk_retarget_measure_output, with retarget_quality.c's limb directions and contact positions). */
#include "retarget_output.h"

#include "retarget_quality.h"
#include "stats.h"

#include <string.h>

/* Where the source's joint positions put a target joint: turned onto the target's facing and
 * scaled about the hips horizontally, scaled heights plus the ground offset. */
static rk_vec3 expected_position(const rk_retargeter *rt, const rk_retarget_result *r, rk_vec3 src) {
  const rk_vec3 d = rk_vec3_scale(rk_quat_rotate(rt->align, rk_vec3_sub(src, rt->ps0[rt->src_hips])),
                                  rt->scale);
  const rk_vec3 h = rt->pt0[rt->tgt_hips];
  return rk_vec3_make(h.x + d.x, rt->scale * src.y + r->ground_offset, h.z + d.z);
}

/* The identity-style pose error as a measure of a pass (measure_pass.h). */
typedef struct pose_measure {
  const rk_retargeter *rt;
  const rk_retarget_result *r;
  size_t n, used;
  int *src;      /* per measured joint: its counterpart in the source, or -1 */
  int *out_read; /* the measured joints with a counterpart */
  bool *leg;     /* per measured joint: at or below either upper leg */
  double *err;   /* frames x used */
  double dur;    /* the source clip's */
  rk_retarget_pose_error e[RK__MEASURE_PARTS];
  rk__measure m;
} pose_measure;

static void pose_frame(void *ctx, int part, size_t f, const rk_mat4 *om, const rk_mat4 *sm) {
  pose_measure *pm = ctx;
  const rk_retarget_result *r = pm->r;
  rk_retarget_pose_error *e = &pm->e[part];
  const double t = fmin((double)f / r->fps, pm->dur);
  const rk_vec3 travel = rk_vec3_scale(r->travel, t);
  double *err = pm->err + f * pm->used;
  size_t ne = 0;
  for (size_t j = 0; j < pm->n; j++) {
    if (pm->src[j] < 0)
      continue;
    const rk_vec3 p = rk_vec3_add(rk_mat4_get_translation(&sm[pm->src[j]]), travel);
    const double d = 1000.0 * rk_vec3_norm(rk_vec3_sub(rk_mat4_get_translation(&om[j]),
                                                       expected_position(pm->rt, r, p)));
    err[ne++] = d;
    if (!pm->leg[j] && !(r->lift && r->lift[f] > 0))
      e->body_max_mm = fmax(e->body_max_mm, d);
    if (d > e->max_mm) {
      e->max_mm = d;
      e->worst_joint = (int)j;
      e->worst_frame = (int)f;
    }
  }
}

static void pose_clear(pose_measure *pm) {
  g_free(pm->src);
  g_free(pm->out_read);
  g_free(pm->leg);
  g_free(pm->err);
}

/* Prepares pm for a pass; false (nothing held) when the pose error is not computable. */
static bool pose_init(pose_measure *pm, const rk_retargeter *rt, const rk_retarget_result *r,
                      const rk_clip *source_clip, const rk_skeleton *skeleton,
                      const rk_clip *clip) {
  memset(pm, 0, sizeof *pm);
  const size_t n = rk_skeleton_joint_count(skeleton), frames = r->frames;
  if (!rt->rests_agree || frames == 0 || rk_clip_joint_count(clip) != n ||
      rk_clip_joint_count(source_clip) != rt->ns)
    return false;
  /* Each measured joint's counterpart in the source, through the target joint of its name. */
  pm->src = g_new(int, n);
  for (size_t j = 0; j < n; j++) {
    const int t = rk_skeleton_find_joint(rt->tgt, rk_skeleton_joint_name(skeleton, j));
    pm->src[j] = t >= 0 ? rt->match[t] : -1;
    pm->used += pm->src[j] >= 0;
  }
  if (pm->used == 0) {
    pose_clear(pm);
    return false;
  }
  /* The measured joints of both clips: the output's, and their counterparts in the source. */
  pm->out_read = g_new(int, n);
  size_t nr = 0;
  for (size_t j = 0; j < n; j++)
    if (pm->src[j] >= 0)
      pm->out_read[nr++] = (int)j;
  /* The legs: joints at or below either upper leg. */
  pm->leg = g_new0(bool, n);
  for (size_t j = 0; j < n; j++)
    for (int side = 0; side < 2; side++) {
      const int up = rk_skeleton_find_joint(skeleton, rk_skeleton_joint_name(rt->tgt, (size_t)rt->side[side].upper));
      pm->leg[j] |= up >= 0 && rk_skeleton_is_ancestor(skeleton, (size_t)up, j);
    }
  pm->rt = rt;
  pm->r = r;
  pm->n = n;
  pm->err = g_new(double, frames * pm->used);
  pm->dur = rk_clip_duration(source_clip);
  for (int p = 0; p < RK__MEASURE_PARTS; p++)
    pm->e[p] = (rk_retarget_pose_error){0, 0, -1, -1, 0};
  pm->m = (rk__measure){false, pm->out_read, nr, pm->src, n, pose_frame, pm};
  return true;
}

/* The figures after the pass (the parts merged as one pass in frame order would find them);
 * frees pm's buffers. */
static void pose_finish(pose_measure *pm, rk_retarget_pose_error *out) {
  rk_retarget_pose_error e = pm->e[0];
  for (int p = 1; p < RK__MEASURE_PARTS; p++) {
    e.body_max_mm = fmax(e.body_max_mm, pm->e[p].body_max_mm);
    if (pm->e[p].max_mm > e.max_mm) {
      e.max_mm = pm->e[p].max_mm;
      e.worst_joint = pm->e[p].worst_joint;
      e.worst_frame = pm->e[p].worst_frame;
    }
  }
  e.median_mm = rk__select_median(pm->err, pm->r->frames * pm->used, false); /* no sort */
  *out = e;
  pose_clear(pm);
}

bool rk_retarget_measure_pose(const rk_retargeter *rt, const rk_retarget_result *r,
                              const rk_clip *source_clip, const rk_skeleton *skeleton,
                              const rk_clip *clip, rk_retarget_pose_error *out) {
  pose_measure pm;
  if (!pose_init(&pm, rt, r, source_clip, skeleton, clip))
    return false;
  rk__measure *m = &pm.m;
  const rk__measure_clips c = rk__rt_measure_clips(rt, r, source_clip, skeleton, clip);
  rk__measure_run(&c, &m, 1, RK__MEASURE_PARTS);
  pose_finish(&pm, out);
  return true;
}

/* ---- what a person sees -------------------------------------------------------------------- */

/* The joints of a measured skeleton for the result's soles and feet (found by the target's
 * names), the body without each foot, and the measured clip's state per frame; a measure of a
 * pass (measure_pass.h) with its sums per part. */
typedef struct look_ctx {
  const rk_retargeter *rt;
  const rk_retarget_result *r;
  const rk_skeleton *skel;
  rk_skin_support *skin;           /* the output's meshes, or NULL */
  rk_sole sole[2];                 /* the target's soles on the measured skeleton */
  int foot[2];
  int loose[2];                    /* each leg's detached foot (retarget_parts.c), or -1 */
  rk_sole loose_sole[2];           /* and its sole (on the measured skeleton): what pitches */
  int *body[4];                    /* joints outside: no foot, the left, the right, both feet */
  size_t body_n[4];
  double rest_pitch[2], src_rest_pitch[2];
  int src_read[2 * RK_SOLE_POINTS]; /* the source's sole joints */
  rk_vec3 *pts;                    /* frames x RK__RT_SOLE_SLOTS: the measured sole points */
  double *foot_low;                /* frames x 2, or NULL */
  GArray *low[RK__MEASURE_PARTS];  /* per part: planted feet's lowest points (mm) */
  GArray *pitch[RK__MEASURE_PARTS]; /* per part: pitch differences (degrees) */
  size_t planted[RK__MEASURE_PARTS];
  double depth[RK__MEASURE_PARTS];
  int leg[2];                      /* legs of one bone: each leg's joint (-1: not measured) */
  rk_vec3 leg_end[2];              /* and its end in that joint's frame */
  double leg_widths;               /* the two legs' half-widths (m) */
  double overlap[RK__MEASURE_PARTS]; /* per part: the legs' worst overlap (m) */
  rk__measure m;
} look_ctx;

/* The pitch (radians, up positive) of a foot from its heel to its ball. */
static double pitch_of(const rk_vec3 *pts) {
  const rk_vec3 d = rk_vec3_sub(pts[RK_SOLE_BALL], pts[RK_SOLE_HEEL]);
  return atan2(d.y, rk_vec3_norm(rk__rt_horizontal(d)));
}

/* Whether joint j of the measured skeleton belongs to side's foot (its detached foot too). */
static bool in_foot(const look_ctx *x, int side, size_t j) {
  return rk_skeleton_is_ancestor(x->skel, (size_t)x->foot[side], j) ||
         (x->loose[side] >= 0 && rk_skeleton_is_ancestor(x->skel, (size_t)x->loose[side], j));
}

/* The sole of the target's detached foot lf (its mesh, else its bones) with its joints on the
 * measured skeleton: a leg that ends at the shin pitches its foot there. False when there is
 * none. */
static bool loose_sole(const look_ctx *x, int lf, rk_sole *out) {
  const rk_skeleton *t = x->rt->tgt;
  if (!rk_sole_build(x->rt->skin, t, lf, -1, x->rt->tmap.forward, out, NULL))
    return false;
  for (int p = 0; p < RK_SOLE_POINTS; p++) {
    out->joint[p] = rk_skeleton_find_joint(x->skel, rk_skeleton_joint_name(t, (size_t)out->joint[p]));
    if (out->joint[p] < 0)
      return false;
  }
  return true;
}

/* Legs of one bone can only pass each other by going through each other (no knee lets a foot
 * by): each leg's joint on the measured skeleton, its end in that joint's frame and, once at
 * rest, how far each leg's mesh reaches from its end toward the other leg. Nothing (leg -1) on
 * legs with knees or without a skin on them. */
static void legs_init(look_ctx *x) {
  const rk_retargeter *rt = x->rt;
  x->leg[0] = x->leg[1] = -1;
  if (!rk__rt_stiff_legs(rt))
    return;
  g_autofree rk_mat4 *rest = g_new(rk_mat4, rt->nt);
  rk_skeleton_rest_models(rt->tgt, rest);
  int leg[2];
  double widths = 0;
  for (int side = 0; side < 2; side++) {
    const int up = rt->side[side].upper;
    rk_vec3 t = rk_vec3_sub(rt->pt0[rt->side[!side].upper], rt->pt0[up]);
    t.y = 0;
    double reach;
    leg[side] = rk_skeleton_find_joint(x->skel, rk_skeleton_joint_name(rt->tgt, (size_t)up));
    if (leg[side] < 0 || !(rk_vec3_norm(t) > 0) ||
        !rk__rt_leg_reach(rt, rest, up, rt->tmap.leg_end[side], rk_vec3_normalize(t), &reach))
      return;
    widths += reach;
    rk_mat4 inv;
    rk_mat4_inverse_affine(&rest[up], &inv);
    x->leg_end[side] = rk_mat4_transform_point(&inv, rt->tmap.leg_end[side]);
  }
  x->leg[0] = leg[0], x->leg[1] = leg[1];
  x->leg_widths = widths;
}

/* The measured skeleton's joints for the result's soles and the body lists; false when a foot
 * joint is missing. */
static bool look_init(look_ctx *x) {
  const size_t n = rk_skeleton_joint_count(x->skel);
  for (int side = 0; side < 2; side++) {
    x->sole[side] = x->r->tsole[side];
    for (int p = 0; p < RK_SOLE_POINTS; p++) {
      const int j = rk_skeleton_find_joint(x->skel, rk_skeleton_joint_name(x->rt->tgt, (size_t)x->r->tsole[side].joint[p]));
      if (j < 0)
        return false;
      x->sole[side].joint[p] = j;
    }
    x->foot[side] = rk_skeleton_find_joint(x->skel, rk_skeleton_joint_name(x->rt->tgt, (size_t)x->r->tsole[side].foot));
    if (x->foot[side] < 0)
      return false;
    const int lf = x->rt->tmap.detached_foot[side];
    x->loose[side] = x->rt->side[side].loose_foot
                         ? rk_skeleton_find_joint(x->skel, rk_skeleton_joint_name(x->rt->tgt, (size_t)lf))
                         : -1;
    x->rest_pitch[side] = pitch_of(x->r->tsole[side].rest);
    if (x->loose[side] >= 0 && !loose_sole(x, lf, &x->loose_sole[side]))
      x->loose[side] = -1;
    if (x->loose[side] >= 0)
      x->rest_pitch[side] = pitch_of(x->loose_sole[side].rest);
    x->src_rest_pitch[side] = pitch_of(x->r->ssole[side].rest);
  }
  for (int m = 0; m < 4; m++) {
    x->body[m] = g_new(int, n);
    for (size_t j = 0; j < n; j++) {
      const bool left = (m & 1) && in_foot(x, 0, j);
      const bool right = (m & 2) && in_foot(x, 1, j);
      if (!left && !right)
        x->body[m][x->body_n[m]++] = (int)j;
    }
  }
  return true;
}

static void look_clear(look_ctx *x) {
  rk_skin_support_free(x->skin);
  for (int m = 0; m < 4; m++)
    g_free(x->body[m]);
  g_free(x->pts);
  for (int p = 0; p < RK__MEASURE_PARTS; p++) {
    if (x->low[p])
      g_array_unref(x->low[p]);
    if (x->pitch[p])
      g_array_unref(x->pitch[p]);
  }
}

/* The lowest point (y) among joints[n] at models: skinned, else the joints themselves. */
static double lowest_of(const look_ctx *x, const rk_mat4 *models, const int *joints, size_t n) {
  rk_skin_point p;
  if (x->skin && rk_skin_lowest(x->skin, models, joints, n, &p))
    return p.position.y;
  double low = INFINITY;
  for (size_t i = 0; i < n; i++)
    low = fmin(low, models[joints[i]].m[13]);
  return low;
}

/* The lowest point (y) of a foot at models: its mesh, else its sole points. */
static double foot_lowest(const look_ctx *x, const rk_mat4 *models, int side, const rk_vec3 *pts) {
  rk_skin_point p;
  if (x->skin && rk_skin_lowest_subtree(x->skin, models, x->foot[side], &p)) {
    double low = p.position.y;
    if (x->loose[side] >= 0 && rk_skin_lowest_subtree(x->skin, models, x->loose[side], &p))
      low = fmin(low, p.position.y);
    return low;
  }
  return fmin(pts[0].y, fmin(pts[1].y, pts[2].y));
}

/* Skate of the planted sole points of the measured clip (pts: frames x 6). */
static void look_skate(const rk_retarget_result *r, const rk_vec3 *pts, rk_retarget_look *out) {
  double sum = 0, mx = 0;
  size_t n = 0;
  for (int side = 0; side < 2; side++)
    for (int p = 0; p < RK_SOLE_POINTS; p++) {
      const GArray *iv = r->points[side][p];
      for (guint i = 0; i < iv->len; i++) {
        const rk_contact_interval *ci = &g_array_index(iv, rk_contact_interval, i);
        const rk_vec3 p0 = pts[(size_t)ci->first * RK__RT_SOLE_SLOTS + (size_t)(side * 3 + p)];
        for (int f = ci->first; f <= ci->last; f++) {
          const double d = 1000.0 * rk_vec3_norm(rk__rt_horizontal(
                                        rk_vec3_sub(pts[(size_t)f * RK__RT_SOLE_SLOTS + (size_t)(side * 3 + p)], p0)));
          sum += d, n++, mx = fmax(mx, d);
        }
      }
    }
  out->skate_mean_mm = n ? sum / (double)n : 0.0; /* nothing planted: nothing slid */
  out->skate_max_mm = mx;
}

/* Frame f: the planted feet's lowest points, the body's, the pitches, and the sole points for
 * the skate; om: every joint of the output, sm: the source's soles. */
static void look_frame(void *ctx, int part, size_t f, const rk_mat4 *om, const rk_mat4 *sm) {
  look_ctx *x = ctx;
  const rk_retargeter *rt = x->rt;
  const rk_retarget_result *r = x->r;
  const double floor_y = r->tgt_floor;
  int planted = 0;
  for (int side = 0; side < 2; side++) {
    rk_vec3 *tp = x->pts + f * RK__RT_SOLE_SLOTS + (size_t)side * 3, sp[RK_SOLE_POINTS];
    rk_sole_at(&x->sole[side], om, tp);
    rk_sole_at(&r->ssole[side], sm, sp);
    const double y = foot_lowest(x, om, side, tp);
    if (x->foot_low)
      x->foot_low[f * 2 + (size_t)side] = y;
    if (rk__rt_side_held(r, side, f)) {
      const double mm = 1000.0 * (y - (r->look_feet_floor ? r->look_feet_floor[f * 2 + (size_t)side] : floor_y));
      g_array_append_val(x->low[part], mm);
      planted |= 1 << side;
    }
    rk_vec3 lp[RK_SOLE_POINTS];
    if (x->loose[side] >= 0)
      rk_sole_at(&x->loose_sole[side], om, lp);
    const double d = fabs((pitch_of(x->loose[side] >= 0 ? lp : tp) - x->rest_pitch[side]) -
                          (pitch_of(sp) - x->src_rest_pitch[side])) / RK_DEG;
    /* A leg without a foot bone has no foot to pitch (or to pitch as), unless its foot is a
     * detached one. */
    if (isfinite(d) && (!rt->side[side].footless || x->loose[side] >= 0) && !rt->side[side].src_footless)
      g_array_append_val(x->pitch[part], d);
  }
  if (x->leg[0] >= 0) {
    rk_vec3 hip[2], end[2];
    for (int side = 0; side < 2; side++) {
      hip[side] = rk_mat4_get_translation(&om[x->leg[side]]);
      end[side] = rk_mat4_transform_point(&om[x->leg[side]], x->leg_end[side]);
    }
    x->overlap[part] = fmax(x->overlap[part], x->leg_widths - rk__rt_segments_distance(hip[0], end[0], hip[1], end[1]));
  }
  x->planted[part] += planted != 0;
  x->depth[part] = fmax(x->depth[part], (r->look_floor ? r->look_floor[f] : floor_y) - lowest_of(x, om, x->body[planted], x->body_n[planted]));
}

/* Prepares x (rt and r set) to measure `output` in a pass: false (x to clear) when it cannot be
 * measured (no clip of its joints, no frames, a foot joint missing). */
static bool look_begin(look_ctx *x, const rk_clip *source_clip, const rk_asset *output,
                       double *foot_low) {
  const rk_retarget_result *r = x->r;
  x->skel = rk_asset_skeleton(output);
  const rk_clip *clip = rk_asset_clip_count(output) ? rk_asset_clip(output, 0) : NULL;
  if (!clip || r->frames == 0 || rk_clip_joint_count(clip) != rk_skeleton_joint_count(x->skel) ||
      rk_clip_joint_count(source_clip) != x->rt->ns || !look_init(x))
    return false;
  x->skin = rk_asset_mesh_count(output) ? rk_skin_support_from_asset(output, NULL) : NULL;
  x->pts = g_new(rk_vec3, r->frames * RK__RT_SOLE_SLOTS);
  x->foot_low = foot_low;
  legs_init(x);
  for (int p = 0; p < RK__MEASURE_PARTS; p++) {
    x->overlap[p] = -INFINITY;
    x->low[p] = g_array_new(FALSE, FALSE, sizeof(double));
    x->pitch[p] = g_array_new(FALSE, FALSE, sizeof(double));
  }
  for (int side = 0; side < 2; side++)
    for (int p = 0; p < RK_SOLE_POINTS; p++)
      x->src_read[side * RK_SOLE_POINTS + p] = r->ssole[side].joint[p];
  x->m = (rk__measure){true, NULL, 0, x->src_read, 2 * RK_SOLE_POINTS, look_frame, x};
  return true;
}

/* The parts' values one after the other (frame order) in parts[0]. */
static GArray *joined(GArray **parts) {
  for (int p = 1; p < RK__MEASURE_PARTS; p++)
    g_array_append_vals(parts[0], parts[p]->data, parts[p]->len);
  return parts[0];
}

/* What v[0] and v[n - 1] (n > 0) are once v is sorted (rk__sort_doubles: stable), without the
 * sort: the first of the smallest values and the last of the largest, so a -0 and a +0 come out
 * as the sort leaves them. False (nothing set) when v holds a NaN: only the sort says then. */
static bool sorted_ends(const double *v, size_t n, double *lo, double *hi) {
  double a = v[0], b = v[0];
  bool nan = false;
  for (size_t i = 0; i < n; i++) {
    nan |= isnan(v[i]);
    if (v[i] < a)
      a = v[i];
    if (v[i] >= b)
      b = v[i];
  }
  *lo = a;
  *hi = b;
  return !nan;
}

/* The figures after the pass; soles (NULL, or frames x 6) takes the sole points. */
static void look_end(look_ctx *x, rk_retarget_look *out, rk_vec3 *soles) {
  const rk_retarget_result *r = x->r;
  out->meshes = x->skin && rk_skin_support_vertex_count(x->skin, -1) > 0;
  double depth = 0, overlap = -INFINITY;
  for (int p = 0; p < RK__MEASURE_PARTS; p++) {
    out->planted_frames += x->planted[p];
    depth = fmax(depth, x->depth[p]);
    overlap = fmax(overlap, x->overlap[p]);
  }
  out->legs_overlap_mm = x->leg[0] >= 0 && isfinite(overlap) ? 1000.0 * overlap : NAN;
  out->penetration_mm = 1000.0 * fmax(0.0, depth);
  GArray *low = joined(x->low), *pitch = joined(x->pitch);
  if (low->len) {
    double *v = (double *)(void *)low->data;
    double lo, hi;
    if (sorted_ends(v, low->len, &lo, &hi)) {
      out->planted_low_min_mm = lo;
      out->planted_low_max_mm = hi;
      out->planted_low_median_mm = rk__select_median(v, low->len, false);
    } else {
      out->planted_low_median_mm = rk__median(v, low->len); /* sorts v */
      out->planted_low_min_mm = v[0];
      out->planted_low_max_mm = v[low->len - 1];
    }
  }
  if (pitch->len) {
    double *v = (double *)(void *)pitch->data;
    const size_t p95 = (size_t)floor(0.95 * (double)(pitch->len - 1));
    double lo, hi;
    if (sorted_ends(v, pitch->len, &lo, &hi)) {
      out->foot_pitch_max_deg = hi;
      out->foot_pitch_p95_deg = rk__select(v, pitch->len, p95);
    } else {
      rk__median(v, pitch->len); /* sorts v */
      out->foot_pitch_p95_deg = v[p95];
      out->foot_pitch_max_deg = v[pitch->len - 1];
    }
  }
  look_skate(r, x->pts, out);
  if (soles)
    memcpy(soles, x->pts, r->frames * RK__RT_SOLE_SLOTS * sizeof(rk_vec3));
}

static const rk_retarget_look no_look = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, 0, false, NAN};

void rk_retarget_measure_look(const rk_retargeter *rt, const rk_retarget_result *r,
                              const rk_clip *source_clip, const rk_asset *output,
                              rk_retarget_look *out, double *foot_low, rk_vec3 *soles) {
  *out = no_look;
  look_ctx x = {.rt = rt, .r = r};
  if (look_begin(&x, source_clip, output, foot_low)) {
    rk__measure *m = &x.m;
    const rk__measure_clips c = rk__rt_measure_clips(rt, r, source_clip, x.skel, rk_asset_clip(output, 0));
    rk__measure_run(&c, &m, 1, RK__MEASURE_PARTS);
    look_end(&x, out, soles);
  }
  look_clear(&x);
}

void rk__rt_measure_output(const rk_retargeter *rt, const rk_retarget_result *r,
                           const rk_clip *source_clip, const rk_asset *output, double *foot_low,
                           rk_vec3 *soles, int parts, rk_retarget_output_figures *out) {
  const rk_skeleton *skel = rk_asset_skeleton(output);
  const rk_clip *clip = rk_asset_clip_count(output) ? rk_asset_clip(output, 0) : NULL;
  *out = (rk_retarget_output_figures){no_look, false, {NAN, NAN, -1, -1, NAN}, NAN, NULL};
  rk__measure *m[4];
  size_t n = 0;
  look_ctx x = {.rt = rt, .r = r};
  const bool look = look_begin(&x, source_clip, output, foot_low);
  if (look)
    m[n++] = &x.m;
  pose_measure pm;
  const bool pose = clip && pose_init(&pm, rt, r, source_clip, skel, clip);
  if (pose)
    m[n++] = &pm.m;
  rk__limb_measure lm;
  const bool limbs = clip && rk__limb_measure_init(&lm, rt, r, skel);
  if (limbs)
    m[n++] = &lm.m;
  rk__contact_measure cm;
  rk__contact_measure_init(&cm, rt, r, skel);
  m[n++] = &cm.m;
  if (clip) {
    const rk__measure_clips c = rk__rt_measure_clips(rt, r, source_clip, skel, clip);
    rk__measure_run(&c, m, n, parts);
  }
  if (look)
    look_end(&x, &out->look, soles);
  look_clear(&x);
  if (pose)
    pose_finish(&pm, &out->pose);
  out->pose_measured = pose;
  if (limbs)
    out->limb_direction_median_deg = rk__limb_measure_finish(&lm);
  out->contact_positions = cm.positions;
}

void rk_retarget_measure_output(const rk_retargeter *rt, const rk_retarget_result *r,
                                const rk_clip *source_clip, const rk_asset *output,
                                double *foot_low, rk_vec3 *soles,
                                rk_retarget_output_figures *out) {
  rk__rt_measure_output(rt, r, source_clip, output, foot_low, soles, RK__MEASURE_PARTS, out);
}
