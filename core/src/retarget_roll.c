/* Retargeting, legs whose foot is in the last bone's mesh (no foot bone): their one sole point is
 * the leg's end, the centre the sole rolls about, standing above the floor by its rest height
 * over the mesh's lowest point (a rocker sole's radius). The source's such points are measured
 * on its sole (their height less that drop), so the clip's ground is the floor the meshes stand
 * on, not the ends' height. Where both rigs' legs end so, the end of a planted leg rolls with
 * the leg as the source's does: its pin moves as the source's point moves over the contact
 * (scaled and turned as the transfer scales and turns), so a source that stands still the way
 * the target would is left as it is and only what the proportions add is taken out. */
#include "retarget_run.h"

#include "stats.h"

/* Sole slot k of frame f of a per-frame sole array. */
#define SOLE(arr, f, k) ((arr)[(size_t)(f) * RK__RT_SOLE_SLOTS + (size_t)(k)])

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
        SOLE(c->src_pts, f, side * RK__RT_POINTS + p).y -= drop;
  }
}

/* The source's point p of side at frame f as the transfer carries it onto the target (turned and
 * scaled; heights above the clip's ground). */
static rk_vec3 carried(const rk__rt_run *c, int side, int p, size_t f) {
  rk_vec3 s = SOLE(c->src_pts, f, side * RK__RT_POINTS + p);
  s.y -= c->src_floor;
  return rk_vec3_scale(rk_quat_rotate(c->rt->align, s), c->rt->scale);
}

void rk__rt_roll_pins(rk__rt_run *c) {
  g_autofree double *axis = g_new(double, c->frames);
  for (int side = 0; side < 2; side++) {
    if (!rk__rt_rolls(c->rt, side))
      continue;
    /* The end stands as high above the floor as it stands above its mesh's lowest point at rest,
     * plus what the source's sole stands above the clip's ground. */
    const double stand = rk__rt_end_stand(c, side);
    for (int p = 0; p < RK__RT_POINTS; p++) {
      const GArray *ivs = c->res->points[side][p];
      for (guint i = 0; i < ivs->len; i++) {
        const rk_contact_interval *iv = &g_array_index(ivs, rk_contact_interval, i);
        const size_t len = (size_t)(iv->last - iv->first + 1);
        rk_vec3 *pin = &g_array_index(c->pins[side][p], rk_vec3, i);
        /* Stored less the carried source point's median (per axis, as the pin's own): the pin at
         * a frame adds that frame's carried point (rk__rt_pin_at). */
        double med[2];
        for (int a = 0; a < 2; a++) {
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
  return rk__rt_rolls(c->rt, side) ? rk_vec3_add(pin, carried(c, side, p, f)) : pin;
}
