/* Retargeting onto legs of one bone (a blocky game character's leg turning about its hip, the
 * foot in its mesh or on a foot bone): the leg aimed at its goal, the pelvis riding on the legs
 * by contact weight, and free legs paced from frame to frame (a bounded turn per frame, the
 * pelvis lifted while no foot holds) so that a leg never leaps across as the hip passes the
 * height where its foot stands straight, and turned round the hip toward the pin of their next
 * contact ahead of it so that they arrive there rather than snap onto it; a foot planted while
 * the other holds, and a free leg, kept beside the other leg's block (no knee lets a foot pass
 * it). Called by the frame's IK (retarget_ik.c) and the pins' placing (retarget_contacts.c). */
#include "retarget_run.h"
#include "tree_internal.h"

#include <rigkit/fk.h>

/* Whether both legs of the target are of one bone (no knee). */
bool rk__rt_stiff_legs(const rk_retargeter *rt) {
  return rt->side[0].knee == rt->side[0].upper && rt->side[1].knee == rt->side[1].upper &&
         rk_tree_joint(rt->tree, (size_t)rt->tgt_hips)->dof_count == 6;
}

/* x solving the symmetric 3 x 3 system m x = v (Cramer's rule); false when m is singular. */
static bool solve3(const double m[3][3], const double v[3], double x[3]) {
  const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                     m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  if (!(fabs(det) > 0))
    return false;
  for (int k = 0; k < 3; k++) {
    double t[3][3];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        t[i][j] = j == k ? v[i] : m[i][j];
    x[k] = (t[0][0] * (t[1][1] * t[2][2] - t[1][2] * t[2][1]) -
            t[0][1] * (t[1][0] * t[2][2] - t[1][2] * t[2][0]) +
            t[0][2] * (t[1][0] * t[2][1] - t[1][1] * t[2][0])) / det;
  }
  return true;
}

/* How firmly a foot holds: 1 while held, else its firmest sole point's contact weight. */
static double stiff_hold(const rk__rt_foot_goal *g) {
  double w = g->held ? 1.0 : 0.0;
  for (int p = 0; p < RK__RT_POINTS; p++)
    w = fmax(w, g->w[p]);
  return w;
}

/* How far apart (sqrt(1 - cos) of the angle between them: 0.1 is about 8 degrees) two held legs
 * of one bone must point for the pelvis to stand exactly where both reach their pins. Legs nearly
 * parallel (feet about as far apart as the hips) make a parallelogram with the pelvis and the
 * floor, which sways sideways almost freely: where exactly both reach is then set by a millimetre
 * between the pins' heights or depths (the source's feet, each foot's own lift out of the floor),
 * and stood there the pelvis swayed 8 cm sideways for a 0.9 mm difference while both feet held
 * (leaning the legs so that their flat feet dug into the floor), to come back in one frame when
 * one let go. Under this spread the pelvis moves no more than 1 / STIFF_SPREAD times the
 * difference, which the legs then miss by (each by less than half of it). */
#define STIFF_SPREAD 0.1

/* The 2 x 2 stiffness w of two legs (unit directions u[0], u[1] from goal to hip, stiffnesses
 * k[0], k[1]) with their difference mode's softened below STIFF_SPREAD: the inverse of
 * diag(1 / k) + lambda P, P the projection on r[0] - r[1], lambda = s (STIFF_SPREAD - s) for
 * the spread s, so that the pelvis moves by that difference / STIFF_SPREAD at most. Leaves w
 * as it is when the legs are spread enough (each leg on its own stiffness). */
static void pair_stiffness(const rk_vec3 u[2], const double k[2], double w[2][2]) {
  const double s = sqrt(fmax(0.0, 1 - rk_vec3_dot(u[0], u[1])));
  if (!(s < STIFF_SPREAD))
    return;
  const double lambda = s * (STIFF_SPREAD - s);
  const double a = 1 / k[0] + 0.5 * lambda, d = 1 / k[1] + 0.5 * lambda, b = -0.5 * lambda;
  const double det = a * d - b * b;
  w[0][0] = d / det;
  w[1][1] = a / det;
  w[0][1] = w[1][0] = -b / det;
}

/* A leg of one bone that the pelvis stands on: its hip's offset from the pelvis, its goal (the
 * ankle's), its length and how firmly its foot holds. */
typedef struct stiff_stance {
  rk_vec3 off, goal;
  double len, w;
} stiff_stance;

/* The point nearest `anchor` where the pelvis meets each of legs[0 .. n) exactly (on both
 * spheres' circle when n is 2; near it when the legs are nearly parallel: pair_stiffness).
 * Solved by Gauss-Newton from the anchor. */
static rk_vec3 stand_held(const stiff_stance *legs, int n, rk_vec3 anchor) {
  const double k[2] = {1e8, 1e8};
  rk_vec3 p = anchor;
  for (int it = 0; it < 30 && n > 0; it++) {
    double m[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, v[3] = {anchor.x - p.x, anchor.y - p.y, anchor.z - p.z};
    rk_vec3 u[2];
    double r[2], w[2][2] = {{0, 0}, {0, 0}};
    for (int i = 0; i < n; i++) {
      const rk_vec3 to = rk_vec3_sub(rk_vec3_add(p, legs[i].off), legs[i].goal);
      const double d = rk_vec3_norm(to);
      u[i] = rk_vec3_make(to.x / d, to.y / d, to.z / d);
      r[i] = d - legs[i].len;
      w[i][i] = d > 1e-9 * legs[i].len ? k[i] : 0.0; /* no direction to pull along */
    }
    if (n == 2 && w[0][0] > 0 && w[1][1] > 0)
      pair_stiffness(u, k, w);
    for (int i = 0; i < n; i++)
      for (int l = 0; l < n; l++) {
        if (!(w[i][l] != 0))
          continue;
        const double ui[3] = {u[i].x, u[i].y, u[i].z}, ul[3] = {u[l].x, u[l].y, u[l].z};
        for (int a = 0; a < 3; a++) {
          v[a] -= w[i][l] * ui[a] * r[l];
          for (int b = 0; b < 3; b++)
            m[a][b] += w[i][l] * ui[a] * ul[b];
        }
      }
    double x[3];
    if (!solve3(m, v, x))
      break;
    p = rk_vec3_add(p, rk_vec3_make(x[0], x[1], x[2]));
    if (sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) <= 1e-9 * legs[0].len)
      break;
  }
  return p;
}

/* The pelvis of legs of one bone. A stiff leg reaches its goal only at its length: the pelvis
 * stands on a sphere about each planted goal (less the hip's offset from the pelvis), on both
 * spheres' circle when both feet hold (stand_held). A foot fading into or out of a contact (by
 * its weight w) moves the pelvis by w of the way from where it stands without that leg to where
 * it stands held on it (legs in order of weight: the transferred pelvis, the firmer leg's stance,
 * both legs' stance, blended as layers of 1 - w0, w0 - w1 and w1), then onto the legs that hold
 * outright: so that the pelvis moves as evenly as the weight does. (A spring of stiffness
 * w / (1 - w) against the pelvis' own of 1 moved it there along the one direction the held leg
 * left free, nearly across the fading leg on legs nearly parallel: almost all of the move came in
 * the blend's last 3 frames, 3.5 cm each on a walk crossing its feet.) Returns whether any leg
 * weighs on the pelvis. */
bool rk__rt_stand_on_stiff_legs(rk__rt_run *c) {
  const rk_retargeter *rt = c->rt;
  const rk_vec3 p0 = rk_mat4_get_translation(&c->tgt_models[rt->tgt_hips]);
  stiff_stance legs[2];
  int n = 0;
  for (int side = 0; side < 2; side++) {
    const rk__rt_foot_goal *g = &c->ik.goal[side];
    const double w = stiff_hold(g);
    if (!g->active || w <= 0)
      continue;
    const rk__rt_side *sd = &rt->side[side];
    const rk_vec3 hip = rk_mat4_get_translation(&c->tgt_models[sd->upper]);
    legs[n++] = (stiff_stance){rk_vec3_sub(hip, p0), g->ankle,
                               rk_vec3_norm(rk_vec3_sub(rk__rt_ankle(sd, c->tgt_models), hip)), fmin(w, 1.0)};
  }
  if (!n)
    return false;
  if (n == 2 && legs[1].w > legs[0].w) {
    const stiff_stance t = legs[0];
    legs[0] = legs[1];
    legs[1] = t;
  }
  int held = 0;
  while (held < n && legs[held].w >= 1)
    held++;
  rk_vec3 p;
  if (held == n) {
    p = stand_held(legs, n, p0);
  } else {
    const double w1 = n == 2 ? legs[1].w : 0.0;
    p = rk_vec3_add(rk_vec3_scale(p0, 1 - legs[0].w),
                    rk_vec3_scale(stand_held(legs, 1, p0), legs[0].w - w1));
    if (n == 2)
      p = rk_vec3_add(p, rk_vec3_scale(stand_held(legs, 2, p0), w1));
    if (held)
      p = stand_held(legs, held, p);
  }
  rk__rt_set_pelvis_position(c, p);
  return true;
}

/* The horizontal direction away from the body on side's side (from the pelvis to the hip, else
 * across the pelvis' facing): the way a leg of one bone swings out to clear the floor. */
static rk_vec3 outward(const rk__rt_run *c, int side) {
  const rk_retargeter *rt = c->rt;
  const rk_vec3 off = rk__rt_horizontal(rk_vec3_sub(rk_mat4_get_translation(&c->tgt_models[rt->side[side].upper]),
                                                    rk_mat4_get_translation(&c->tgt_models[rt->tgt_hips])));
  if (rk_vec3_norm(off) > 1e-3 * rt->tmap.height)
    return rk_vec3_normalize(off);
  const rk_vec3 across = rk_vec3_cross(rk_vec3_make(0, 1, 0), rk__rt_horizontal(rk__rt_pelvis_forward(c)));
  return rk_vec3_norm(across) > 0 ? rk_vec3_scale(rk_vec3_normalize(across), side ? -1.0 : 1.0) : across;
}

/* The middle of side's sole (between heel and tip) among the sole points pts. */
static rk_vec3 sole_middle(const rk_vec3 pts[RK__RT_POINTS]) {
  return rk_vec3_scale(rk_vec3_add(pts[RK_SOLE_HEEL], pts[RK_SOLE_TIP]), 0.5);
}

/* Where the source's foot (the middle of side's sole) stands relative to its hip at the loaded
 * frame, turned and scaled onto the target. */
static rk_vec3 source_foot(const rk__rt_run *c, int side) {
  const rk_retargeter *rt = c->rt;
  const rk_vec3 *src = &c->src_pts[c->cur_f * RK__RT_SOLE_SLOTS + (size_t)side * RK__RT_POINTS];
  const int hip = rt->smap.joint[side ? RK_BONE_RIGHT_UPPER_LEG : RK_BONE_LEFT_UPPER_LEG];
  return rk_vec3_scale(rk_quat_rotate(rt->align, rk_vec3_sub(sole_middle(src), rk__rt_src_pos(c, hip))), rt->scale);
}

/* Where side's free leg of one bone puts its end relative to its hip: the source's foot
 * (source_foot) less the target sole's own offset from its ankle, not the transferred thigh's
 * direction (a stiff leg along a crouching thigh leans far back and out). With no source sole
 * points, the goal's ankle less the hip pa. */
static rk_vec3 free_place(const rk__rt_run *c, int side, rk_vec3 pa, const rk__rt_foot_goal *g) {
  const rk__rt_side *sd = &c->rt->side[side];
  if (!c->src_pts)
    return rk_vec3_sub(g->ankle, pa);
  rk_vec3 pts[RK__RT_POINTS];
  rk_sole_at(c->tsole[side], c->tgt_models, pts);
  const rk_vec3 own = rk_vec3_sub(sole_middle(pts), rk__rt_ankle(sd, c->tgt_models));
  return rk_vec3_sub(source_foot(c, side), own);
}

/* How far (of a leg's length) the transferred hip stands below its rest height where a leg of
 * one bone starts to stand where the source's foot does rather than along the transferred thigh
 * (STIFF_DIP), and where it does so fully (STIFF_CROUCH): a walk's hips dip a few per cent in its
 * stance, its thigh pointing about where its foot is (a walk round a circle stood 2 mm off its
 * pins on the feet's places); a crouch drops them a fifth, its thighs pointing far ahead of the
 * feet and across (the knees together: the blocks stood through each other, 15 cm on CMU 01_01).
 * Beyond STIFF_CROUCH, a planted foot also stands out to the side as far as the leg must reach
 * to come down that far less STIFF_CROUCH (splayed): a crouch on stiff legs splays them. */
#define STIFF_DIP 0.035
#define STIFF_CROUCH 0.05

/* How far (m) side's hip, now at height y, stands below its rest height over the floor. */
static double hip_drop(const rk__rt_run *c, int side, double y) {
  return c->tgt_floor + c->rt->pt0[c->rt->side[side].upper].y - c->tlow[side] - y;
}

/* How deep side's leg of one bone (length len, its hip now at height y) crouches: 0 up to
 * STIFF_DIP of its length below its rest height, 1 from STIFF_CROUCH, linear between. */
static double crouch(const rk__rt_run *c, int side, double y, double len) {
  const double drop = hip_drop(c, side, y) / len;
  return fmin(1.0, fmax(0.0, (drop - STIFF_DIP) / (STIFF_CROUCH - STIFF_DIP)));
}

rk_vec3 rk__rt_stiff_fade(const rk__rt_run *c, int side, rk_vec3 ankle, double w) {
  if (!rk__rt_stiff_legs(c->rt) || !c->src_pts || !(w < 1))
    return ankle;
  const rk__rt_side *sd = &c->rt->side[side];
  const rk_vec3 hip = rk_mat4_get_translation(&c->tgt_models[sd->upper]), end = rk__rt_ankle(sd, c->tgt_models);
  const double k = crouch(c, side, hip.y, rk_vec3_norm(rk_vec3_sub(end, hip)));
  if (!(k > 0))
    return ankle;
  const rk__rt_foot_goal none = {.ankle = end};
  const rk_vec3 place = rk_vec3_add(hip, free_place(c, side, hip, &none));
  return rk_vec3_add(ankle, rk_vec3_scale(rk_vec3_sub(place, end), k * (1 - w)));
}

/* Side's sole middle at `at` (the source's foot, from the transferred hip) moved outward (away
 * from the body: out) until the leg (length len) reaches it from the transferred hip's height
 * (above the floor by h at its ankle) less STIFF_CROUCH of its length: a crouch on stiff legs
 * splays them, the pelvis coming down as the source's does. `own` is the sole middle's offset
 * from the leg's end. */
static rk_vec3 splayed(rk_vec3 hip, rk_vec3 at, rk_vec3 own, rk_vec3 out, double len, double h) {
  const double up = h + STIFF_CROUCH * len;
  if (!(up < len) || !(rk_vec3_norm(out) > 0))
    return at;
  const double reach = sqrt(len * len - up * up);
  const rk_vec3 o = rk__rt_horizontal(rk_vec3_sub(rk_vec3_sub(at, own), hip));
  if (!(rk_vec3_norm(o) < reach))
    return at;
  const double along = rk_vec3_dot(o, out);
  const double s = -along + sqrt(fmax(0.0, along * along - rk_vec3_dot(o, o) + reach * reach));
  return rk_vec3_add(at, rk_vec3_scale(out, s));
}

void rk__rt_stiff_places(rk__rt_run *c, rk_vec3 *pts) {
  const rk_retargeter *rt = c->rt;
  g_autofree int *chains = g_new(int, rt->nt);
  const size_t nc = rk__rt_feet_chains(c, chains);
  for (size_t f = 0; f < c->frames; f++) {
    bool planted = false;
    for (int k = 0; k < RK__RT_SOLE_SLOTS && !planted; k++)
      planted = rk__rt_in_intervals(c->res->points[k / RK__RT_POINTS][k % RK__RT_POINTS], (int)f);
    if (!planted)
      continue;
    rk__rt_pose_frame_joints(c, f, chains, nc);
    for (int side = 0; side < 2; side++) {
      rk_vec3 *own = &RK__RT_SOLE(pts, f, side * RK__RT_POINTS);
      const rk__rt_side *sd = &rt->side[side];
      const rk_vec3 hip = rk_mat4_get_translation(&c->tgt_models[sd->upper]), end = rk__rt_ankle(sd, c->tgt_models);
      const double len = rk_vec3_norm(rk_vec3_sub(end, hip)), k = crouch(c, side, hip.y, len);
      if (!(k > 0))
        continue;
      const double h = len - hip_drop(c, side, hip.y);
      const rk_vec3 at = splayed(hip, rk_vec3_add(hip, source_foot(c, side)), rk_vec3_sub(sole_middle(own), end),
                                 outward(c, side), len, h);
      const rk_vec3 by = rk_vec3_scale(rk_vec3_sub(at, sole_middle(own)), k);
      for (int p = 0; p < RK__RT_POINTS; p++)
        own[p] = rk_vec3_add(own[p], rk_vec3_make(by.x, 0, by.z));
    }
  }
}

/* The angle about the vertical (right-handed about +y) that turns the horizontal bearing of
 * `from` onto that of `to` the way round that does not pass `inward` (the horizontal unit from
 * the hip toward the other leg): the short way unless that sweeps past inward, else the long
 * way. A leg of one bone whose end swings round its hip (a hip too low for it to pass under)
 * cannot pass the other leg as a knee would let a foot pass: taken the short way from behind
 * the hip to a pin ahead and inward, the end went through the other leg (13.5 cm, a walk round
 * a circle). Continuous but where an end itself points inward (through the other leg anyway).
 * No inward (a zero vector): the short way. */
static double outer_turn(rk_vec3 from, rk_vec3 to, rk_vec3 inward) {
  const double turn = atan2(rk_vec3_cross(from, to).y, rk_vec3_dot(from, to));
  if (!(rk_vec3_norm(inward) > 0))
    return turn;
  const double at = atan2(rk_vec3_cross(from, inward).y, rk_vec3_dot(from, inward));
  if ((turn > 0 && at > 0 && at < turn) || (turn < 0 && at < 0 && at > turn))
    return turn > 0 ? turn - 2 * M_PI : turn + 2 * M_PI;
  return turn;
}

/* The end of a leg of one bone (length len; from and to its end's offsets from the hip) turned
 * from `from` toward `to` by weight a. Over the ground it goes the straight way (under the hip)
 * where that stays `clear` out from under the hip (the reach a stiff leg needs to keep its foot
 * out of the floor: 0 for a hip high enough to hang straight), else round the hip at that
 * reach: its distance from under the hip is the straight way's, at least `clear` (no more than
 * the two ends' own, blended), and its bearing about the vertical turns the short way round
 * unless that passes `inward`, toward the other leg (outer_turn), by each end's share of that
 * distance (an end under the hip has no say in it: continuous as an end passes under it). Its
 * height follows from the leg's length (below the hip unless both ends are above). */
static rk_vec3 round_hip(rk_vec3 from, rk_vec3 to, double a, double len, double clear, rk_vec3 inward) {
  if (!(a > 0))
    return from;
  if (a >= 1)
    return to;
  const rk_vec3 hf = rk__rt_horizontal(from), ht = rk__rt_horizontal(to);
  const double rf = rk_vec3_norm(hf), rt = rk_vec3_norm(ht);
  const double straight = rk_vec3_norm(rk_vec3_add(rk_vec3_scale(hf, 1 - a), rk_vec3_scale(ht, a)));
  const double r = fmin(len, fmax(straight, fmin(clear, rf + a * (rt - rf))));
  rk_vec3 h = rk_vec3_make(0, 0, 0);
  if (rf + rt > 0) {
    const rk_vec3 u = rf > 0 ? rk_vec3_scale(hf, 1 / rf) : rk_vec3_scale(ht, 1 / rt);
    const double turn = rf > 0 && rt > 0 ? outer_turn(hf, ht, inward) : 0.0;
    const double share = a * rt / ((1 - a) * rf + a * rt);
    h = rk_vec3_scale(rk_quat_rotate(rk_quat_from_axis_angle(rk_vec3_make(0, 1, 0), share * turn), u), r);
  }
  const double up = (1 - a) * from.y + a * to.y > 0 ? 1.0 : -1.0;
  return rk_vec3_add(h, rk_vec3_make(0, up * sqrt(fmax(0.0, len * len - r * r)), 0));
}

/* How far out from under its hip pa a leg of one bone (length len) must reach for its end to
 * stand as high as y (0 when it hangs that high straight down). */
static double clear_reach(rk_vec3 pa, double len, double y) {
  const double drop = pa.y - y;
  return drop < len ? sqrt(len * len - fmax(0.0, drop) * fmax(0.0, drop)) : 0.0;
}

/* The longest a free leg of one bone takes to turn toward the pin of its next contact (seconds
 * before the contact): from the source's foot's highest point in that time, and never less than
 * the blend into the pin. */
#define STIFF_AHEAD 0.5

/* Where side's sole point p's next contact (interval i of its intervals iv, starting at
 * frame `first`) begins its approach: the source point's highest frame in the STIFF_AHEAD before
 * it, after the point's last contact and at least the blend before `first` (when there is room). */
static int approach_start(const rk__rt_run *c, int side, int p, const GArray *iv, guint i, int first) {
  const int lo = MAX(MAX(0, first - (int)lround(STIFF_AHEAD * c->fps)),
                     i > 0 ? g_array_index(iv, rk_contact_interval, i - 1).last + 1 : 0);
  const int hi = first - MAX(c->ik.blend, 1);
  if (!c->src_pts || lo >= hi)
    return MIN(lo, hi);
  const size_t k = (size_t)side * RK__RT_POINTS + (size_t)p;
  int top = hi;
  for (int f = hi - 1; f >= lo; f--)
    if (c->src_pts[(size_t)f * RK__RT_SOLE_SLOTS + k].y > c->src_pts[(size_t)top * RK__RT_SOLE_SLOTS + k].y)
      top = f;
  return top;
}

/* How far side's free leg of one bone has come toward the pin of its foot's next contact (0 until
 * the approach_start of the first sole point to plant, 1 at its first frame, eased in and out),
 * and in *at where its end stands then (the pin less the sole point's offset from the leg's end
 * now). Of the frame and the contacts only: the same in any half of a split clip. */
static double approach(const rk__rt_run *c, int side, rk_vec3 *at) {
  const int f = (int)c->cur_f;
  double best = 0;
  int point = -1;
  guint index = 0;
  for (int p = 0; p < RK__RT_POINTS; p++) {
    const GArray *iv = c->res->points[side][p];
    guint lo = 0, hi = iv ? iv->len : 0;
    while (lo < hi) {
      const guint mid = lo + (hi - lo) / 2;
      if (g_array_index(iv, rk_contact_interval, mid).first <= f)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (!iv || lo >= iv->len)
      continue;
    const int first = g_array_index(iv, rk_contact_interval, lo).first;
    const int start = approach_start(c, side, p, iv, lo, first);
    if (f <= start)
      continue;
    double w = (double)(f - start) / (double)(first - start);
    w = w * w * (3 - 2 * w);
    if (w > best) {
      best = w;
      point = p;
      index = lo;
    }
  }
  if (point < 0)
    return 0;
  rk_vec3 pts[RK__RT_POINTS];
  rk_sole_at(c->tsole[side], c->tgt_models, pts);
  const rk_vec3 off = rk_vec3_sub(pts[point], rk__rt_ankle(&c->rt->side[side], c->tgt_models));
  *at = rk_vec3_sub(g_array_index(c->pins[side][point], rk_vec3, index), off);
  return best;
}

/* Where side's free leg of one bone (length len, from its hip pa) points. In its swing a stiff
 * leg cannot shorten, so its end follows its place over the ground (free_place), not its
 * height: it hangs from the hip as a pendulum would (below it, or above it when that place is
 * above the hip). Where the end must stand at least as high as `rise_to` (its foot's mesh out of
 * the floor, the hip too low for the hanging leg), it reaches out just far enough to stay that
 * high: along `side_dir` (out to the side, or toward the pin it is turning to) when its place is
 * under the hip, turning toward the place's own direction as it lies farther out (not at all
 * when the hip is high enough, as in a hop's flight). Each step is continuous in the hip and the
 * place, so the end follows them without leaping from behind the hip to in front of it. */
static rk_vec3 hang_toward(rk_vec3 pa, double len, rk_vec3 want, double rise_to, rk_vec3 side_dir) {
  rk_vec3 h = rk__rt_horizontal(want);
  if (rk_vec3_norm(h) > len)
    h = rk_vec3_scale(rk_vec3_normalize(h), len);
  double dy = (want.y > 0 ? 1.0 : -1.0) * sqrt(fmax(0.0, len * len - rk_vec3_dot(h, h)));
  if (rise_to - (pa.y + dy) > 0) {
    /* The reach over the ground that leaves the end at that height (farther than the place's
     * own), straight out along the place's direction once the place lies half that reach out,
     * along side_dir for a place under the hip, and between the two in between (continuous as
     * the place passes under the hip). Leaning out sideways from a place in front of the hip
     * (as a reach along outward turned only partly toward the place did) lifts a flat foot
     * least for the distance: the leg swung far out for a millimetre. */
    const double rise = fmax(0.0, pa.y - rise_to), reach = sqrt(fmax(0.0, len * len - rise * rise));
    const double near = 0.5 * reach;
    const rk_vec3 dir = rk_vec3_normalize(
        rk_vec3_add(rk_vec3_scale(h, 1 / near), rk_vec3_scale(side_dir, fmax(0.0, 1 - rk_vec3_norm(h) / near))));
    const double along = rk_vec3_dot(h, dir);
    const double s = -along + sqrt(fmax(0.0, along * along - rk_vec3_dot(h, h) + reach * reach));
    h = rk_vec3_add(h, rk_vec3_scale(dir, s));
    dy = -sqrt(fmax(0.0, len * len - rk_vec3_dot(h, h)));
  }
  return rk_vec3_add(h, rk_vec3_make(0, dy, 0));
}

/* The horizontal direction of v, or no vector when v is vertical. */
static rk_vec3 bearing(rk_vec3 v) {
  const rk_vec3 h = rk__rt_horizontal(v);
  return rk_vec3_norm(h) > 0 ? rk_vec3_normalize(h) : h;
}

/* The end offset d of side's free leg of one bone (length len, from its hip pa) turned round
 * the hip toward the pin of its next contact as that contact nears (approach), then toward its
 * goal g as the foot fades into or out of a contact (by how firmly it holds): so that it arrives
 * on its pin at the contact's first frame rather than leap there. With `turn_only`, d is a
 * horizontal direction turned by the same weights toward theirs. */
static rk_vec3 toward_pins(const rk__rt_run *c, int side, rk_vec3 pa, rk_vec3 d, double len,
                           const rk__rt_foot_goal *g, bool turn_only) {
  rk_vec3 pin = pa;
  const double a = approach(c, side, &pin), w = stiff_hold(g);
  const rk_vec3 in = rk_vec3_scale(outward(c, side), -1.0);
  if (turn_only) {
    d = round_hip(d, bearing(rk_vec3_sub(pin, pa)), a, 1.0, 1.0, in);
    return bearing(round_hip(d, bearing(rk_vec3_sub(g->ankle, pa)), w, 1.0, 1.0, in));
  }
  d = round_hip(d, rk_vec3_sub(pin, pa), a, len, clear_reach(pa, len, pin.y), in);
  return round_hip(d, rk_vec3_sub(g->ankle, pa), w, len, clear_reach(pa, len, g->ankle.y), in);
}

/* The way side's free leg of one bone (its hip pa, goal g) reaches out to clear the floor from
 * under its hip: outward, turned round the hip toward its next pin and its goal as it nears
 * them. */
static rk_vec3 reach_side(const rk__rt_run *c, int side, rk_vec3 pa, const rk__rt_foot_goal *g) {
  const rk_vec3 d = toward_pins(c, side, pa, outward(c, side), 1.0, g, true);
  return rk_vec3_norm(d) > 0 ? d : outward(c, side);
}

/* Where side's free leg of one bone points: hung toward its place (free_place), turned toward
 * its pins (toward_pins), then reaching out as far as `rise_to` needs (hang_toward). */
static rk_vec3 free_want(const rk__rt_run *c, int side, rk_vec3 pa, double len, const rk__rt_foot_goal *g,
                         double rise_to) {
  const rk_vec3 d = hang_toward(pa, len, free_place(c, side, pa, g), -INFINITY, outward(c, side));
  return hang_toward(pa, len, toward_pins(c, side, pa, d, len, g, false), rise_to, reach_side(c, side, pa, g));
}

/* Turns side's leg of one bone (its end point pc) about its hip. A held foot's leg points at its
 * goal (the pelvis stands where the leg reaches it); a free one as free_want says, rising to a
 * goal lifted out of the floor. Updates the leg's local and limb_world (not the models); returns
 * whether the end reaches the goal. */
bool rk__rt_aim_stiff_leg(rk__rt_run *c, int side, rk_vec3 pc, const rk__rt_foot_goal *g) {
  const int a = c->rt->side[side].upper;
  const rk_vec3 pa = rk_mat4_get_translation(&c->tgt_models[a]);
  const rk_vec3 now = rk_vec3_sub(pc, pa);
  const double len = rk_vec3_norm(now);
  if (!(len > 0))
    return false;
  const rk_vec3 want = g->held ? rk_vec3_sub(g->ankle, pa) : free_want(c, side, pa, len, g, g->lifted ? g->ankle.y : -INFINITY);
  if (!(rk_vec3_norm(want) > 0))
    return false;
  rk__rt_set_world_rotation(c, a, rk_quat_mul(rk_quat_from_to(now, want), c->limb_world[a]));
  const rk_vec3 end = rk_vec3_add(pa, rk_vec3_scale(rk_vec3_normalize(want), len));
  return rk_vec3_norm(rk_vec3_sub(end, g->ankle)) <= 1e-6 * len;
}

/* Whether a leg of one bone fading into or out of a contact was lifted out of the floor: the
 * pelvis, which that leg pulls on as firmly as it holds, rises with its goal (as it does for a
 * held one) rather than leave the leg to reach out for it. */
bool rk__rt_stiff_lifted(const rk__rt_run *c) {
  if (!rk__rt_stiff_legs(c->rt))
    return false;
  for (int side = 0; side < 2; side++) {
    const rk__rt_foot_goal *g = &c->ik.goal[side];
    for (int p = 0; p < RK__RT_POINTS; p++)
      if (g->lifted && g->w[p] > 0)
        return true;
  }
  return false;
}

/* The fastest a free leg of one bone turns (radians per second): a radian in a tenth of a
 * second, faster than a walk swings it. */
#define STIFF_TURN 10.0

/* How far (of the rig's height) a free leg of one bone leaning out of the floor may leave its
 * foot's edge through the floor for a frame rather than leap out (ease_reach). */
#define STIFF_GRAZE 0.0025

/* How far (of the rig's height, times its weight) the foot of a leg of one bone fading into or
 * out of a contact beside a held foot may go through the floor before the leg reaches out
 * sideways to clear it: the pelvis, moved by that weight toward where the leg stands on its
 * (lifted) goal, comes there only at the contact, and the leg reached out 4 cm sideways in the
 * blend's last frames to snap back onto its pin as it held (a walk crossing its feet). Small
 * enough that the body stays within the floor bounds on the CMU jumps. */
#define STIFF_SINK 0.004

/* Turns side's leg of one bone (its top `upper`) from direction d to direction to, its foot
 * bone, if any, keeping its world rotation, and redoes the leg's models. */
static void turn_stiff_leg(rk__rt_run *c, int side, rk_vec3 d, rk_vec3 to) {
  const rk_retargeter *rt = c->rt;
  const rk__rt_side *sd = &rt->side[side];
  rk__rt_set_world_rotation(c, sd->upper, rk_quat_mul(rk_quat_from_to(d, to), c->limb_world[sd->upper]));
  if (!sd->footless) {
    rk__rt_turned_path(c, sd->upper, rk_skeleton_parent(rt->tgt, (size_t)sd->foot));
    rk__rt_set_world_rotation(c, sd->foot, c->limb_world[sd->foot]);
  }
  rk__rt_fk_below(rt->tgt, c->tgt_locals, c->tgt_models, sd->upper, sd->upper);
}

/* The unit direction of side's leg of one bone (hip to end) in the current models, its hip in
 * *hip and its length in *len. */
static rk_vec3 leg_direction(const rk__rt_run *c, int side, rk_vec3 *hip, double *len) {
  const rk__rt_side *sd = &c->rt->side[side];
  *hip = rk_mat4_get_translation(&c->tgt_models[sd->upper]);
  const rk_vec3 d = rk_vec3_sub(rk__rt_ankle(sd, c->tgt_models), *hip);
  *len = rk_vec3_norm(d);
  return rk_vec3_normalize(d);
}

/* Side's free leg of one bone hung from its hip (free_want, no rise). */
static void hang_free_leg(rk__rt_run *c, int side) {
  rk_vec3 hip;
  double len;
  const rk_vec3 now = leg_direction(c, side, &hip, &len);
  turn_stiff_leg(c, side, now, rk_vec3_normalize(free_want(c, side, hip, len, &c->ik.goal[side], -INFINITY)));
}

/* Side's free leg of one bone, its foot's mesh through the floor, reaching out from where it
 * points until it clears (hang_toward its own place over the ground, rising to the height that
 * takes it out): continuous in the leg's direction, which turns at a bounded rate. A foot fading
 * into or out of a contact beside a held one clears the floor only past STIFF_SINK times its
 * weight (0 when free, as a held foot at 1). */
static void reach_out_of_floor(rk__rt_run *c, int side) {
  const rk__rt_foot_goal *other = &c->ik.goal[!side];
  const double tol = 1e-3 * c->rt->tmap.height,
               sink = other->active && other->held ? STIFF_SINK * c->rt->tmap.height * stiff_hold(&c->ik.goal[side]) : 0.0;
  double depth = rk__rt_foot_depth(c, side, &c->ik.goal[side]) - sink;
  rk_vec3 hip;
  double len;
  const rk_vec3 from = leg_direction(c, side, &hip, &len);
  rk_vec3 at = from;
  const rk_vec3 toward = reach_side(c, side, hip, &c->ik.goal[side]);
  double rise_to = rk__rt_ankle(&c->rt->side[side], c->tgt_models).y;
  for (int pass = 0; pass < 4 && depth > tol; pass++) {
    rise_to += depth;
    const rk_vec3 to = rk_vec3_normalize(hang_toward(hip, len, rk_vec3_scale(from, len), rise_to, toward));
    turn_stiff_leg(c, side, at, to);
    at = to;
    depth = rk__rt_foot_depth(c, side, &c->ik.goal[side]) - sink;
  }
}

/* The pelvis raised by as much as the free legs' feet (free) go through the floor, as firmly as
 * no foot holds (support). */
static void raise_on_free_legs(rk__rt_run *c, const bool free[2], double support) {
  const double tol = 1e-3 * c->rt->tmap.height;
  for (int pass = 0; pass < 4 && support < 1; pass++) {
    double depth = 0;
    for (int side = 0; side < 2; side++)
      if (free[side])
        depth = fmax(depth, rk__rt_foot_depth(c, side, &c->ik.goal[side]));
    if (depth <= tol)
      break;
    rk__rt_set_pelvis_position(c, rk_vec3_add(rk_mat4_get_translation(&c->tgt_models[c->rt->tgt_hips]),
                                              rk_vec3_make(0, depth * (1 - support), 0)));
  }
}

/* Whether side's free leg of one bone points (*now) further from its direction at the last frame
 * than STIFF_TURN allows in a frame, and where that bound turns it (*bound). */
static bool beyond_turn(const rk__rt_run *c, int side, rk_vec3 *now, rk_vec3 *bound) {
  rk_vec3 hip;
  double len;
  *now = leg_direction(c, side, &hip, &len);
  const rk_vec3 was = c->ik.stiff_dir[side], axis = rk_vec3_cross(was, *now);
  const double angle = acos(fmin(1.0, fmax(-1.0, rk_vec3_dot(was, *now)))), most = STIFF_TURN / c->fps;
  if (!(angle > most && rk_vec3_norm(axis) > 0))
    return false;
  *bound = rk_quat_rotate(rk_quat_from_axis_angle(rk_vec3_normalize(axis), most), was);
  return true;
}

/* Side's free leg of one bone turned from its direction at the last frame toward where it
 * points by no more than STIFF_TURN allows in a frame. */
static void pace_free_leg(rk__rt_run *c, int side) {
  rk_vec3 now, bound;
  if (beyond_turn(c, side, &now, &bound))
    turn_stiff_leg(c, side, now, bound);
}

/* Side's free leg of one bone, reached out of the floor by more than STIFF_TURN allows from its
 * last frame's direction, turned back to that bound where its foot then only grazes the floor
 * (its mesh through it by no more than STIFF_GRAZE of the height): a flat foot under a leg near
 * the vertical clears the floor only with the leg leant out by about the foot's width, so a
 * hip sinking a millimetre below where that foot stands flat sent the leg out there in one
 * frame; it leans out over the next frames instead, its foot's edge grazing the floor. */
static void ease_reach(rk__rt_run *c, int side) {
  rk_vec3 now, bound;
  if (!beyond_turn(c, side, &now, &bound))
    return;
  turn_stiff_leg(c, side, now, bound);
  if (rk__rt_foot_depth(c, side, &c->ik.goal[side]) > STIFF_GRAZE * c->rt->tmap.height)
    turn_stiff_leg(c, side, bound, now);
}

/* Side's free leg of one bone turned out about its hip (its end along the hips' line, level, at
 * the leg's length) until its block stands beside the other leg's as that stands now (their
 * closest distance at least the blocks' widths): without a knee a foot cannot pass the other
 * leg, so a cross step's foot stops at its side, as its pin does (rk__rt_stiff_apart). */
static void keep_beside(rk__rt_run *c, int side) {
  const rk__rt_side *other = &c->rt->side[!side];
  const rk_vec3 ho = rk_mat4_get_translation(&c->tgt_models[other->upper]), eo = rk__rt_ankle(other, c->tgt_models);
  rk_vec3 hip;
  double len;
  const rk_vec3 now = leg_direction(c, side, &hip, &len);
  rk_vec3 out = rk__rt_horizontal(rk_vec3_sub(hip, ho));
  if (!(c->stiff_width > 0) || !(rk_vec3_norm(out) > 0) ||
      !(rk__rt_segments_distance(hip, rk_vec3_add(hip, rk_vec3_scale(now, len)), ho, eo) < c->stiff_width))
    return;
  out = rk_vec3_normalize(out);
  double lo = 0, hi = 2 * c->stiff_width;
  rk_vec3 to = now;
  for (int step = 0; step < 20; step++) {
    const double by = 0.5 * (lo + hi);
    const rk_vec3 d = rk_vec3_normalize(rk_vec3_add(rk_vec3_scale(now, len), rk_vec3_scale(out, by)));
    if (rk__rt_segments_distance(hip, rk_vec3_add(hip, rk_vec3_scale(d, len)), ho, eo) < c->stiff_width) {
      lo = by;
    } else {
      hi = by;
      to = d;
    }
  }
  turn_stiff_leg(c, side, now, to);
}

/* Free legs of one bone (no sole point fully planted) posed after the frame's solve: each hung
 * where the source's foot is (free_want); where a foot then goes through the floor, the pelvis
 * rises as firmly as no foot holds (support: the body sinks only as far as its legs allow, as
 * in a crouch), and the leg reaches out for what the pelvis does not take. Then each turns from
 * its last frame's direction at a bounded rate, further only as far as keeps its foot out of
 * the floor (and that further turn too spread over frames while its foot only grazes the floor:
 * ease_reach): the pose that keeps a flat foot out of a low floor leaps from out to the side to
 * straight down as the hip passes the height where the foot stands straight, and from the
 * reach to the source's own swing as the foot leaves the floor; the leg swings across instead.
 * Ahead of a contact the leg turns round the hip toward its pin (free_want, toward_pins). */
void rk__rt_pace_stiff_legs(rk__rt_run *c) {
  if (!rk__rt_stiff_legs(c->rt))
    return;
  double support = 0;
  bool free[2];
  for (int side = 0; side < 2; side++) {
    const rk__rt_foot_goal *g = &c->ik.goal[side];
    support = fmax(support, g->active ? stiff_hold(g) : 0.0);
    free[side] = g->active && !g->held;
    if (free[side])
      hang_free_leg(c, side);
  }
  raise_on_free_legs(c, free, support);
  for (int side = 0; side < 2; side++)
    if (free[side]) {
      if (c->ik.stiff_have)
        pace_free_leg(c, side);
      reach_out_of_floor(c, side);
      if (c->ik.stiff_have)
        ease_reach(c, side);
      keep_beside(c, side);
    }
}

/* The directions of legs of one bone at this frame, for the next one's turns. */
void rk__rt_remember_stiff_legs(rk__rt_run *c) {
  const rk_retargeter *rt = c->rt;
  if (!rk__rt_stiff_legs(rt) || !c->ik.goal[0].active || !c->ik.goal[1].active)
    return;
  for (int side = 0; side < 2; side++) {
    const rk_vec3 hip = rk_mat4_get_translation(&c->tgt_models[rt->side[side].upper]);
    c->ik.stiff_dir[side] = rk_vec3_normalize(rk_vec3_sub(rk__rt_ankle(&rt->side[side], c->tgt_models), hip));
  }
  c->ik.stiff_have = true;
}

/* ---- a planted foot kept beside the other leg ------------------------------------------------- */

/* How far apart (of the rig's height) the blocks of two held legs of one bone are planned to
 * stand at least: the pelvis comes to stand a few millimetres from where the plan puts it. */
#define STIFF_APART 0.005

/* The rest stance a planted foot is kept apart with: the legs' blocks' widths (each leg's mesh
 * from its end toward the other leg, at rest, summed) and each sole point's offset from its
 * leg's end. */
typedef struct apart_plan {
  double width;
  rk_vec3 sole_off[2][RK__RT_POINTS];
} apart_plan;

/* The widths and offsets of pl; false without a skin on both legs or with one hip above the
 * other. */
static bool apart_rest(const rk__rt_run *c, apart_plan *pl) {
  const rk_retargeter *rt = c->rt;
  g_autofree rk_mat4 *rest = g_new(rk_mat4, rt->nt);
  rk_skeleton_rest_models(rt->tgt, rest);
  pl->width = 0;
  for (int side = 0; side < 2; side++) {
    const rk__rt_side *sd = &rt->side[side];
    const rk_vec3 t = rk__rt_horizontal(rk_vec3_sub(rt->pt0[rt->side[!side].upper], rt->pt0[sd->upper]));
    double reach;
    if (!(rk_vec3_norm(t) > 0) ||
        !rk__rt_leg_reach(rt, rest, sd->upper, rt->tmap.leg_end[side], rk_vec3_normalize(t), &reach))
      return false;
    pl->width += reach;
    const rk_vec3 end = rk__rt_ankle(sd, rest);
    for (int p = 0; p < RK__RT_POINTS; p++)
      pl->sole_off[side][p] = rk_vec3_sub(c->tsole[side]->rest[p], end);
  }
  return true;
}

/* One sole point's contact: its side, point, index, frames and pin. */
typedef struct apart_ref {
  int side, point, first, last;
  rk_vec3 *pin;
} apart_ref;

static gint apart_by_start(gconstpointer a, gconstpointer b) {
  const apart_ref *x = a, *y = b;
  if (x->first != y->first)
    return (x->first > y->first) - (x->first < y->first);
  return x->side != y->side ? x->side - y->side : x->point - y->point;
}

/* How far the blocks of the legs stand apart (less the widths) with the pelvis where both reach
 * their ends end[] from the posed frame's pelvis (stand_held), their hips as posed about it. */
static double held_gap(const rk__rt_run *c, const apart_plan *pl, const rk_vec3 end[2]) {
  const rk_retargeter *rt = c->rt;
  const rk_vec3 p0 = rk_mat4_get_translation(&c->tgt_models[rt->tgt_hips]);
  stiff_stance legs[2];
  for (int side = 0; side < 2; side++) {
    const rk__rt_side *sd = &rt->side[side];
    const rk_vec3 hip = rk_mat4_get_translation(&c->tgt_models[sd->upper]);
    legs[side] = (stiff_stance){rk_vec3_sub(hip, p0), end[side],
                                rk_vec3_norm(rk_vec3_sub(rk__rt_ankle(sd, c->tgt_models), hip)), 1.0};
  }
  const rk_vec3 p = stand_held(legs, 2, p0);
  return rk__rt_segments_distance(rk_vec3_add(p, legs[0].off), end[0], rk_vec3_add(p, legs[1].off), end[1]) -
         pl->width;
}

/* How far (m, along *out: level, from the other hip toward side's) side's leg's end `mine` must
 * move at the posed frame for its block to stand STIFF_APART beside the other leg's on `theirs`
 * (0 when it does). */
static double apart_move(const rk__rt_run *c, const apart_plan *pl, int side, rk_vec3 mine, rk_vec3 theirs,
                         rk_vec3 *out) {
  const rk_retargeter *rt = c->rt;
  *out = rk__rt_horizontal(rk_vec3_sub(rk_mat4_get_translation(&c->tgt_models[rt->side[side].upper]),
                                       rk_mat4_get_translation(&c->tgt_models[rt->side[!side].upper])));
  if (!(rk_vec3_norm(*out) > 0))
    return 0;
  *out = rk_vec3_normalize(*out);
  const double margin = STIFF_APART * rt->tmap.height;
  rk_vec3 end[2];
  end[side] = mine;
  end[!side] = theirs;
  if (!(held_gap(c, pl, end) < margin))
    return 0;
  double lo = 0, hi = 2 * pl->width;
  for (int step = 0; step < 20; step++) {
    const double by = 0.5 * (lo + hi);
    end[side] = rk_vec3_add(mine, rk_vec3_scale(*out, by));
    if (held_gap(c, pl, end) < margin)
      lo = by;
    else
      hi = by;
  }
  return hi;
}

void rk__rt_stiff_apart(rk__rt_run *c) {
  const rk_retargeter *rt = c->rt;
  apart_plan pl;
  c->stiff_width = 0;
  if (!rk__rt_stiff_legs(rt) || !rt->skin || !apart_rest(c, &pl))
    return;
  c->stiff_width = pl.width;
  g_autoptr(GArray) refs = g_array_new(FALSE, FALSE, sizeof(apart_ref));
  for (int side = 0; side < 2; side++)
    for (int p = 0; p < RK__RT_POINTS; p++)
      for (guint i = 0; i < c->res->points[side][p]->len; i++) {
        const rk_contact_interval *iv = &g_array_index(c->res->points[side][p], rk_contact_interval, i);
        const apart_ref r = {side, p, iv->first, iv->last, &g_array_index(c->pins[side][p], rk_vec3, i)};
        g_array_append_val(refs, r);
      }
  g_array_sort(refs, apart_by_start);
  g_autofree int *chains = g_new(int, rt->nt);
  const size_t nc = rk__rt_feet_chains(c, chains);
  /* In order of start, each contact against the other foot's contacts held before it (already
   * kept apart themselves): at the first, middle and last of their common frames its leg's end
   * moves out until the blocks stand apart; its foot's contacts held with it move by the largest
   * of these, as one sole. */
  for (guint i = 0; i < refs->len; i++) {
    const apart_ref *r = &g_array_index(refs, apart_ref, i);
    double most = 0;
    rk_vec3 along = rk_vec3_make(0, 0, 0);
    for (guint j = 0; j < i; j++) {
      const apart_ref *o = &g_array_index(refs, apart_ref, j);
      if (o->side == r->side || o->last < r->first)
        continue;
      const int span[3] = {r->first, (r->first + MIN(r->last, o->last)) / 2, MIN(r->last, o->last)};
      for (int k = 0; k < 3; k++) {
        rk__rt_pose_frame_joints(c, (size_t)span[k], chains, nc);
        rk_vec3 out;
        const double by = apart_move(c, &pl, r->side, rk_vec3_sub(*r->pin, pl.sole_off[r->side][r->point]),
                                     rk_vec3_sub(*o->pin, pl.sole_off[o->side][o->point]), &out);
        if (by > most) {
          most = by;
          along = out;
        }
      }
    }
    if (!(most > 0))
      continue;
    const rk_vec3 by = rk_vec3_scale(along, most);
    for (guint j = 0; j < refs->len; j++) {
      apart_ref *s = &g_array_index(refs, apart_ref, j);
      if (s->side == r->side && s->first <= r->last && r->first <= s->last)
        *s->pin = rk_vec3_add(*s->pin, by);
    }
  }
}
