/* Retargeting, legs whose foot is in the last bone's mesh (no foot bone): their one sole point is
 * the leg's end, the centre the sole rolls about, standing above the floor by its rest height
 * over the mesh's lowest point (a rocker sole's radius). The source's such points are measured
 * on its sole (their height less that drop), so the clip's ground is the floor the meshes stand
 * on, not the ends' height. Where both rigs' legs end so, the end of a planted leg rolls with
 * the leg as the source's does: over a contact the source's shin turns (pitches about its
 * lateral axis), and where the source's point moves no further than that turn rolls the sole
 * (the drop times the turn), the pin moves as the source's point does (scaled and turned as the
 * transfer scales and turns), so a source that stands the way the target would is left as it
 * is. A point that moves further (it slides: creeping under the stillness limit, a body swaying
 * or falling over a planted foot) or whose shin does not turn keeps a fixed pin, as any foot. */
#include "retarget_run.h"

#include "stats.h"

static const rk_vec3 UP = {0, 1, 0};

/* How far the source's sole point of a side stands above its mesh's lowest point at rest (0 for
 * a foot bone, or an end that no mesh gave). */
static double src_drop(const rk_retargeter *rt, int side) {
  return rt->side[side].src_footless && rt->smap.leg_end_from_skin[side] ? rt->smap.leg_end_drop[side]
                                                                         : 0.0;
}

double rk__rt_end_stand(const rk__rt_run *c, int side) {
  if (!c->rt->side[side].footless)
    return 0.0;
  /* Measured as the source's drop is (the same vertices), so that identical rigs stand alike to
   * the bit: the lowest point of the whole subtree at rest is skinned through other matrices. */
  if (c->skin && c->rt->tmap.leg_end_from_skin[side])
    return c->rt->tmap.leg_end_drop[side];
  return c->tsole[side]->rest[0].y - c->tlow[side];
}

bool rk__rt_rolls(const rk_retargeter *rt, int side) {
  return rt->side[side].footless && rt->side[side].src_footless;
}

void rk__rt_roll_soles(rk__rt_run *c) {
  for (int side = 0; side < 2; side++) {
    const double drop = src_drop(c->rt, side);
    if (drop == 0.0)
      continue;
    for (size_t f = 0; f < c->frames; f++)
      for (int p = 0; p < RK__RT_POINTS; p++)
        RK__RT_SOLE(c->src_pts, f, side * RK__RT_POINTS + p).y -= drop;
  }
}

/* A vector of the source (source units) as the transfer carries it onto the target: turned and
 * scaled. */
static rk_vec3 carry(const rk__rt_run *c, rk_vec3 v) {
  return rk_vec3_scale(rk_quat_rotate(c->rt->align, v), c->rt->scale);
}

/* The source's point p of side at frame f as the transfer carries it onto the target (heights
 * above the clip's ground). */
static rk_vec3 carried(const rk__rt_run *c, int side, int p, size_t f) {
  rk_vec3 s = RK__RT_SOLE(c->src_pts, f, side * RK__RT_POINTS + p);
  s.y -= c->src_floor;
  return carry(c, s);
}

void rk__rt_roll_scan(rk__rt_run *c, size_t f) {
  if (!c->src_shin)
    return;
  for (int side = 0; side < 2; side++)
    c->src_shin[f * 2 + (size_t)side] = c->src_world[c->rt->side[side].src.joint[0]];
}

size_t rk__rt_roll_bytes(const rk_retargeter *rt, size_t frames) {
  return rk__rt_rolls(rt, 0) || rk__rt_rolls(rt, 1) ? frames * 2 * sizeof(rk_quat) : 0;
}

/* The source shin's turn about its lateral axis (the rig's, as the shin carried it at frame
 * `first`) from frame `first` to f, in (-pi, pi] (0 when the shin carried that axis upright). */
static double pitch(const rk__rt_run *c, int side, size_t first, size_t f) {
  const rk_retargeter *rt = c->rt;
  const rk_quat q0 = c->src_shin[first * 2 + (size_t)side], q = c->src_shin[f * 2 + (size_t)side];
  const rk_quat since_rest = rk_quat_mul(q0, rk_quat_conj(rt->qs0[rt->side[side].src.joint[0]]));
  const rk_vec3 l = rk__rt_horizontal(rk_quat_rotate(since_rest, rk_vec3_cross(rt->smap.forward, UP)));
  const double n = rk_vec3_norm(l);
  if (n < 1e-9)
    return 0.0;
  rk_quat d = rk_quat_mul(q, rk_quat_conj(q0));
  if (d.w < 0)
    d = rk_quat_make(-d.x, -d.y, -d.z, -d.w);
  return 2.0 * atan2((d.x * l.x + d.y * l.y + d.z * l.z) / n, d.w);
}

/* Whether the source's point p of side rolls over interval iv: its shin turns, and at every frame
 * the point has moved (horizontally) no further from where the contact began than that turn
 * rolls the sole (drop |pitch|, with a millionth of the height for rounding). A sole rolling on
 * its arc carries its centre that far forward; one turning about an ankle above the end carries
 * the end back by less; further is a slide. All or nothing per contact: a pin that followed
 * the point partly would slide where the source's does not. */
static bool rolls_over(const rk__rt_run *c, int side, int p, const rk_contact_interval *iv) {
  const double drop = src_drop(c->rt, side), tol = 1e-6 * c->rt->smap.height;
  const size_t first = (size_t)iv->first;
  const rk_vec3 from = RK__RT_SOLE(c->src_pts, first, side * RK__RT_POINTS + p);
  double most = 0;
  for (size_t f = first + 1; f <= (size_t)iv->last; f++) {
    const rk_vec3 at = RK__RT_SOLE(c->src_pts, f, side * RK__RT_POINTS + p);
    const rk_vec3 moved = rk__rt_horizontal(rk_vec3_sub(at, from));
    const double roll = drop * fabs(pitch(c, side, first, f));
    if (rk_vec3_norm(moved) > roll + tol)
      return false;
    most = fmax(most, roll);
  }
  return most > tol;
}

void rk__rt_roll_pins(rk__rt_run *c) {
  if (!rk__rt_rolls(c->rt, 0) && !rk__rt_rolls(c->rt, 1))
    return;
  g_autofree double *axis = g_new(double, c->frames);
  for (int side = 0; side < 2; side++) {
    if (!rk__rt_rolls(c->rt, side))
      continue;
    /* The end stands as high above the floor as it stands above its mesh's lowest point at rest,
     * plus what the source's sole stands above the clip's ground. */
    const double stand = rk__rt_end_stand(c, side);
    for (int p = 0; p < RK__RT_POINTS; p++) {
      const GArray *ivs = c->res->points[side][p];
      c->rolling[side][p] = g_array_sized_new(FALSE, FALSE, sizeof(gboolean), ivs->len);
      for (guint i = 0; i < ivs->len; i++) {
        const rk_contact_interval *iv = &g_array_index(ivs, rk_contact_interval, i);
        const size_t len = (size_t)(iv->last - iv->first + 1);
        rk_vec3 *pin = &g_array_index(c->pins[side][p], rk_vec3, i);
        const gboolean rolling = rolls_over(c, side, p, iv);
        g_array_append_val(c->rolling[side][p], rolling);
        /* A rolling pin is stored less the carried source point's median (per axis, as the
         * pin's own): the pin at a frame adds that frame's carried point (rk__rt_pin_at). A
         * sliding one stays where it is, on the floor. */
        double med[2] = {0, 0};
        for (int a = 0; rolling && a < 2; a++) {
          for (size_t u = 0; u < len; u++) {
            const rk_vec3 q = carried(c, side, p, (size_t)iv->first + u);
            axis[u] = a ? q.z : q.x;
          }
          med[a] = rk__select_median(axis, len, false);
        }
        *pin = rk_vec3_make(pin->x - med[0], c->tgt_floor + stand, pin->z - med[1]);
      }
    }
  }
}

rk_vec3 rk__rt_pin_at(const rk__rt_run *c, int side, int p, int index, size_t f) {
  const rk_vec3 pin = g_array_index(c->pins[side][p], rk_vec3, index);
  if (!rk__rt_rolls(c->rt, side) || !g_array_index(c->rolling[side][p], gboolean, index))
    return pin;
  return rk_vec3_add(pin, carried(c, side, p, f));
}
