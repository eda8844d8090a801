/* Retargeting, ground and contacts: the clip's ground, the ground's own motion (in-place cycles),
 * the intervals during which each foot joint is planted, where each planted joint is pinned, and
 * how strongly a pin holds around its interval. */
#include "retarget_run.h"
#include "stats.h"

/* The clip's ground: the typical height of the lower sole (the lowest point of either foot:
 * ankle, toes, tips), the median over frames; some foot stands on the ground in most frames of
 * any clip, while its global minimum may be a toe dipping at push-off or a capture glitch. */
static double clip_ground(const rk__rt_run *c) {
  g_autofree double *low = g_new(double, c->frames);
  for (size_t f = 0; f < c->frames; f++)
    low[f] = fmin(c->src_sole[2 * f], c->src_sole[2 * f + 1]);
  return rk__median(low, c->frames);
}

/* The ground's own motion: the median horizontal velocity of low foot joints. About zero for a
 * clip that travels; the treadmill speed for an in-place cycle, whose stance feet slide back by
 * design. Such a clip either keeps no planted feet, or (root_motion) travels by the opposite
 * velocity so that its stance feet stand still. */
static void ground_motion(rk__rt_run *c) {
  const rk_retargeter *rt = c->rt;
  rk_retarget_result *res = c->res;
  const size_t frames = c->frames;
  const double H = rt->smap.height;
  g_autoptr(GArray) vx = g_array_new(FALSE, FALSE, sizeof(double));
  g_autoptr(GArray) vz = g_array_new(FALSE, FALSE, sizeof(double));
  for (size_t k = 0; k < rt->foot_count; k++)
    for (size_t f = 0; f < frames; f++) {
      rk_vec3 p = c->src_p[f * RK__RT_MAX_FEET + k];
      if (p.y - c->src_ground > rt->feet[k].src_rest_height + c->opts->contact_height * H)
        continue;
      size_t a = f > 0 ? f - 1 : f, b = f + 1 < frames ? f + 1 : f;
      if (a == b)
        continue;
      rk_vec3 v = rk_vec3_scale(rk_vec3_sub(c->src_p[b * RK__RT_MAX_FEET + k],
                                            c->src_p[a * RK__RT_MAX_FEET + k]),
                                c->fps / (double)(b - a));
      g_array_append_val(vx, v.x);
      g_array_append_val(vz, v.z);
    }
  if (vx->len > 0) {
    const double mx = rk__median_upper((double *)(void *)vx->data, vx->len);
    res->ground_velocity = rk_vec3_make(mx, 0, rk__median_upper((double *)(void *)vz->data, vz->len));
  }
  /* In place when the ground slides faster than 10% of the height per second (a walk's
   * stance moves back at 60-90%; a planted foot drifts well under 10%). */
  res->in_place = rk_vec3_norm(res->ground_velocity) > 0.1 * H;
  if (res->in_place && c->opts->root_motion) {
    c->travel = rk_vec3_scale(res->ground_velocity, -1.0);
    res->travel = c->travel;
    for (size_t f = 0; f < frames; f++)
      for (size_t k = 0; k < rt->foot_count; k++)
        c->src_p[f * RK__RT_MAX_FEET + k] = rk_vec3_add(
            c->src_p[f * RK__RT_MAX_FEET + k], rk_vec3_scale(c->travel, rk__rt_frame_time(c, f)));
  }
}

/* Planted intervals from per-frame heights above the ground and positions (frame-major). */
static GArray *detect_contacts(const double *height, const rk_vec3 *pos, size_t frames,
                               double fps, double max_height, double max_speed, int min_frames) {
  GArray *out = g_array_new(FALSE, FALSE, sizeof(rk_contact_interval));
  g_autofree bool *on = g_new0(bool, frames);
  for (size_t f = 0; f < frames; f++) {
    size_t a = f > 0 ? f - 1 : f, b = f + 1 < frames ? f + 1 : f;
    double dt = (double)(b - a) / fps;
    double speed = dt > 0 ? rk_vec3_norm(rk__rt_horizontal(rk_vec3_sub(pos[b], pos[a]))) / dt : 0.0;
    on[f] = height[f] <= max_height && speed <= max_speed;
  }
  /* Close one-frame gaps (noise), then keep runs of at least min_frames. */
  for (size_t f = 1; f + 1 < frames; f++)
    if (!on[f] && on[f - 1] && on[f + 1])
      on[f] = true;
  for (size_t f = 0; f < frames;) {
    if (!on[f]) {
      f++;
      continue;
    }
    size_t g = f;
    while (g + 1 < frames && on[g + 1])
      g++;
    if ((int)(g - f + 1) >= min_frames) {
      rk_contact_interval iv = {(int)f, (int)g};
      g_array_append_val(out, iv);
    }
    f = g + 1;
  }
  return out;
}

void rk__rt_find_contacts(rk__rt_run *c) {
  const rk_retargeter *rt = c->rt;
  rk_retarget_result *res = c->res;
  const size_t frames = c->frames;
  c->src_ground = clip_ground(c);
  ground_motion(c);
  const double H = rt->smap.height;
  const int min_frames = (int)ceil(c->opts->contact_min_time * c->fps);
  const bool plant = !res->in_place || c->opts->root_motion;
  g_autofree double *h = g_new(double, frames);
  g_autofree rk_vec3 *p = g_new(rk_vec3, frames);
  for (size_t k = 0; k < rt->foot_count; k++) {
    for (size_t f = 0; f < frames; f++) {
      p[f] = c->src_p[f * RK__RT_MAX_FEET + k];
      h[f] = p[f].y - c->src_ground;
    }
    res->contact_joint[k] = rt->feet[k].tgt;
    res->intervals[k] = detect_contacts(
        h, p, frames, c->fps,
        plant ? rt->feet[k].src_rest_height + c->opts->contact_height * H : -INFINITY,
        c->opts->contact_speed * H, min_frames > 1 ? min_frames : 1);
  }
}

/* ---- the ground offset ----------------------------------------------------------------------- */

/* Whether side `side`'s foot has a planted joint at frame f. */
static bool side_planted(const rk__rt_run *c, int side, size_t f) {
  for (size_t k = 0; k < c->rt->foot_count; k++) {
    if (c->rt->feet[k].side != side)
      continue;
    const GArray *iv = c->res->intervals[k];
    for (guint i = 0; i < iv->len; i++) {
      const rk_contact_interval *ci = &g_array_index(iv, rk_contact_interval, i);
      if ((int)f >= ci->first && (int)f <= ci->last)
        return true;
    }
  }
  return false;
}

void rk__rt_fit_ground(rk__rt_run *c) {
  if (c->opts->ground == RK_RETARGET_GROUND_KEEP)
    return;
  const rk_retargeter *rt = c->rt;
  /* Per planted foot and frame: how far the target's sole must rise to stand as far above its
   * floor as the source's sole above the clip's ground (scaled). Without a planted frame (a
   * jump, an in-place cycle), the lower sole of every frame. */
  g_autofree double *lift = g_new(double, 2 * c->frames);
  size_t n = 0;
  for (size_t f = 0; f < c->frames; f++)
    for (int side = 0; side < 2; side++)
      if (side_planted(c, side, f))
        lift[n++] = c->tgt_ground + rt->scale * (c->src_sole[2 * f + (size_t)side] - c->src_ground) -
                    c->tgt_sole[2 * f + (size_t)side];
  if (n == 0)
    for (size_t f = 0; f < c->frames; f++) {
      const size_t s = c->src_sole[2 * f] <= c->src_sole[2 * f + 1] ? 0 : 1;
      const size_t t = c->tgt_sole[2 * f] <= c->tgt_sole[2 * f + 1] ? 0 : 1;
      lift[n++] = c->tgt_ground + rt->scale * (c->src_sole[2 * f + s] - c->src_ground) -
                  c->tgt_sole[2 * f + t];
    }
  rk__rt_shift_ground(c, n ? rk__median(lift, n) : 0.0);
}

/* ---- pins ------------------------------------------------------------------------------------ */

/* The pin of interval iv of contact joint k: its median transferred position horizontally (per
 * axis: robust to the lift-off and touch-down frames a threshold lets into the interval), its
 * height by contact. axis has room for the interval's frames. */
static rk_vec3 interval_pin(const rk__rt_run *c, size_t k, const rk_contact_interval *iv,
                            double *axis) {
  const rk_retargeter *rt = c->rt;
  const rk_vec3 *fk = c->res->fk_positions;
  const size_t nf = rt->foot_count;
  const size_t len = (size_t)(iv->last - iv->first + 1);
  double med[3];
  for (int a = 0; a < 3; a++) {
    for (size_t u = 0; u < len; u++) {
      rk_vec3 p = fk[((size_t)iv->first + u) * nf + k];
      axis[u] = a == 0 ? p.x : a == 1 ? p.y : p.z;
    }
    med[a] = rk__median(axis, len);
  }
  /* Height by contact: the target's sole (its foot's lowest point, in the transferred
   * orientation) stands as far above the target's ground as the source's sole above the
   * clip's ground, scaled: a foot on the ground stays on it, a step stays a step, a heel
   * raised in the source stays raised. */
  const size_t side = (size_t)rt->feet[k].side;
  for (size_t u = 0; u < len; u++)
    axis[u] = c->src_sole[2 * ((size_t)iv->first + u) + side] - c->src_ground;
  const double clearance = fmax(0.0, rk__median(axis, len));
  for (size_t u = 0; u < len; u++) {
    const size_t f = (size_t)iv->first + u;
    axis[u] = fk[f * nf + k].y - c->tgt_sole[2 * f + side];
  }
  const double above_sole = rk__median(axis, len);
  med[1] = c->tgt_ground + rt->scale * clearance + above_sole;
  return rk_vec3_make(med[0], med[1], med[2]);
}

/* A foot planted by its ankle and its toes at once is one rigid body: where a toe interval
 * overlaps an ankle interval, the toe pin is put at the bone's length from the ankle pin (along
 * their mean direction) so that both pins can hold. */
static void fit_toe_pins(rk__rt_run *c, size_t kt) {
  const rk_retargeter *rt = c->rt;
  const rk_retarget_result *res = c->res;
  const size_t nf = rt->foot_count;
  size_t ka = 0;
  while (ka < nf && rt->feet[ka].bone != rt->feet[kt].bone - 1)
    ka++;
  if (ka == nf)
    return;
  const double len = rk_vec3_norm(rk_vec3_sub(rt->pt0[rt->feet[kt].tgt], rt->pt0[rt->feet[ka].tgt]));
  for (guint i = 0; i < res->intervals[kt]->len; i++) {
    const rk_contact_interval *it = &g_array_index(res->intervals[kt], rk_contact_interval, i);
    int best = -1, best_overlap = 0;
    for (guint a = 0; a < res->intervals[ka]->len; a++) {
      const rk_contact_interval *ia = &g_array_index(res->intervals[ka], rk_contact_interval, a);
      int overlap = MIN(it->last, ia->last) - MAX(it->first, ia->first) + 1;
      if (overlap > best_overlap) {
        best_overlap = overlap;
        best = (int)a;
      }
    }
    if (best < 0)
      continue;
    rk_vec3 pa = g_array_index(c->pins[ka], rk_vec3, best), *pt = &g_array_index(c->pins[kt], rk_vec3, i);
    rk_vec3 d = rk_vec3_sub(*pt, pa);
    if (rk_vec3_norm(d) > 0)
      *pt = rk_vec3_add(pa, rk_vec3_scale(rk_vec3_normalize(d), len));
  }
}

void rk__rt_place_pins(rk__rt_run *c) {
  const rk_retargeter *rt = c->rt;
  const rk_retarget_result *res = c->res;
  g_autofree double *axis = g_new(double, c->frames);
  for (size_t k = 0; k < rt->foot_count; k++) {
    c->pins[k] = g_array_new(FALSE, FALSE, sizeof(rk_vec3));
    for (guint i = 0; i < res->intervals[k]->len; i++) {
      rk_vec3 m = interval_pin(c, k, &g_array_index(res->intervals[k], rk_contact_interval, i), axis);
      g_array_append_val(c->pins[k], m);
    }
  }
  for (size_t kt = 0; kt < rt->foot_count; kt++)
    if (rt->feet[kt].bone == RK_BONE_LEFT_TOES || rt->feet[kt].bone == RK_BONE_RIGHT_TOES)
      fit_toe_pins(c, kt);
}

double rk__rt_pin_weight(const rk__rt_run *c, size_t k, int f, int *pin_index) {
  /* 1 inside an interval, a smoothstep ramp over `blend` frames before and after, 0 elsewhere. */
  const GArray *iv = c->res->intervals[k];
  const int blend = c->ik.blend;
  double best = 0;
  *pin_index = -1;
  for (guint i = 0; i < iv->len; i++) {
    const rk_contact_interval *ci = &g_array_index(iv, rk_contact_interval, i);
    double w;
    if (f >= ci->first && f <= ci->last)
      w = 1;
    else if (blend > 0 && f < ci->first && ci->first - f <= blend)
      w = 1.0 - (double)(ci->first - f) / (blend + 1);
    else if (blend > 0 && f > ci->last && f - ci->last <= blend)
      w = 1.0 - (double)(f - ci->last) / (blend + 1);
    else
      continue;
    w = w * w * (3 - 2 * w);
    if (w > best) {
      best = w;
      *pin_index = (int)i;
    }
  }
  return best;
}
