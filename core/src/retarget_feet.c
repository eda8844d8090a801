/* Retargeting, the feet as rigid soles: per frame, where each target ankle goes and how the foot
 * and toes turn so that the planted sole points (heel, ball, tip) hold their pins. The foot keeps
 * the source's orientation (its rotation from rest) except where the floor decides: heel and
 * ball planted, the sole lies flat; the ball planted, the toes lie flat and the foot turns about
 * them as the source's heel rises; the heel planted alone, the foot turns about it. Around a
 * contact the ankle's correction at the contact's end fades in and out; a sliding foot is kept on
 * the floor, not held. */
#include "retarget_run.h"

static const rk_vec3 up = {0, 1, 0};

/* R with the tilt it has from joint j's rest taken out (the yaw kept): flat as at rest. */
static rk_quat flatten(const rk_retargeter *rt, int j, rk_quat r) {
  const rk_vec3 u = rk_quat_rotate(rk_quat_mul(r, rk_quat_conj(rt->qt0[j])), up);
  return rk_quat_normalize(rk_quat_mul(rk_quat_from_to(u, up), r));
}

/* Rotation by weight w of the way from a to b. */
static rk_quat toward(rk_quat a, rk_quat b, double w) {
  return w >= 1 ? b : w <= 0 ? a : rk_quat_slerp(a, b, w);
}

/* What the transferred pose holds of a side's sole (its models current): the ankle, the toe
 * joint's offset from it, each sole point's offset from its joint (its ankle) and the world
 * rotations those offsets are held in. */
typedef struct sole_pose {
  rk_vec3 a0, toe_off;
  rk_quat rf0;
  rk_vec3 held[RK__RT_POINTS];
  rk_quat r0[RK__RT_POINTS];
  int joint[RK__RT_POINTS];
  bool on_toe[RK__RT_POINTS];
  bool toe;
} sole_pose;

static void sole_pose_of(const rk__rt_run *c, int side, sole_pose *sp) {
  const rk__rt_side *sd = &c->rt->side[side];
  const rk_mat4 *m = c->tgt_models;
  sp->rf0 = c->tgt_world[sd->foot];
  sp->a0 = rk__rt_ankle(sd, m);
  sp->toe = sd->toe >= 0;
  if (sp->toe)
    sp->toe_off = rk_vec3_sub(rk_mat4_get_translation(&m[sd->toe]), sp->a0);
  for (int p = 0; p < RK__RT_POINTS; p++) {
    const int j = c->tsole[side]->joint[p];
    sp->joint[p] = j;
    sp->on_toe[p] = j == sd->toe && sd->toe >= 0;
    sp->r0[p] = c->tgt_world[j];
    sp->held[p] = rk_vec3_sub(rk_mat4_transform_point(&m[j], c->tsole[side]->local[p]),
                              sp->on_toe[p] ? rk_mat4_get_translation(&m[j]) : sp->a0);
  }
}

/* The side's sole points with the ankle at `ankle` and the foot and toes turned to rf and rt_,
 * the toe joint where the transferred pose holds it relative to the foot (the turn of a joint
 * computed once for the points it carries). */
static void sole_points(const sole_pose *sp, rk_vec3 ankle, rk_quat rf, rk_quat rt_,
                        rk_vec3 out[RK__RT_POINTS]) {
  rk_vec3 toe = ankle;
  if (sp->toe)
    toe = rk_vec3_add(ankle, rk_quat_rotate(rk_quat_mul(rf, rk_quat_conj(sp->rf0)), sp->toe_off));
  rk_quat turn[RK__RT_POINTS];
  for (int p = 0; p < RK__RT_POINTS; p++) {
    int same = -1;
    for (int q = 0; q < p; q++)
      if (sp->joint[q] == sp->joint[p] && sp->on_toe[q] == sp->on_toe[p])
        same = q;
    turn[p] = same >= 0 ? turn[same] : rk_quat_mul(sp->on_toe[p] ? rt_ : rf, rk_quat_conj(sp->r0[p]));
    out[p] = rk_vec3_add(sp->on_toe[p] ? toe : ankle, rk_quat_rotate(turn[p], sp->held[p]));
  }
}

/* The foot's and toes' rotations for the points the goal holds (fully planted: around a contact
 * the foot turns as the source's does): toes flat while the ball holds, the sole flat and turned
 * onto its pins while heel and front both hold. */
static void orient(const rk__rt_run *c, int side, const sole_pose *sp, rk__rt_foot_goal *g) {
  const rk_retargeter *rt = c->rt;
  const rk__rt_side *sd = &rt->side[side];
  const double heel = g->w[RK_SOLE_HEEL] >= 1, ball = g->w[RK_SOLE_BALL] >= 1,
               tip = g->w[RK_SOLE_TIP] >= 1;
  const double flat = fmin(heel, fmax(ball, tip));
  /* The toes lie flat while the ball holds, or the heel and the tip (the whole sole down). */
  const double toes_flat = fmax(ball, fmin(heel, tip));
  /* (A rotation given no weight is not computed: the weights are mostly 0 or 1.) */
  const rk_quat foot = c->tgt_world[sd->foot];
  g->foot = flat > 0 ? toward(foot, flatten(rt, sd->foot, foot), flat) : foot;
  g->toe = g->foot;
  if (sd->toe >= 0) {
    const rk_quat toe = c->tgt_world[sd->toe];
    g->toe = toe;
    if (toes_flat > 0) {
      rk_quat flat_toe = flat < 1 ? flatten(rt, sd->toe, toe) : toe;
      if (flat > 0) {
        /* Flat toes take the foot's heading as the whole sole comes down (no twist of their
         * own). */
        const rk_quat with_foot =
            rk_quat_mul(rk_quat_mul(g->foot, rk_quat_conj(rt->qt0[sd->foot])), rt->qt0[sd->toe]);
        flat_toe = toward(flat_toe, flatten(rt, sd->toe, with_foot), flat);
      }
      g->toe = toward(toe, flat_toe, toes_flat);
    }
  }
  /* Two planted points hold the foot's heading: the line between the firmer pair (heel to front,
   * or ball to tip) onto their pins' (a turn about the vertical). */
  const double toes = fmin(ball, tip);
  const bool heel_pair = flat >= toes;
  const int a = heel_pair ? RK_SOLE_HEEL : RK_SOLE_BALL;
  const int b = heel_pair && ball >= tip ? RK_SOLE_BALL : RK_SOLE_TIP;
  const double hold = heel_pair ? flat : toes;
  if (hold <= 0)
    return;
  rk_vec3 pts[RK__RT_POINTS];
  sole_points(sp, rk_vec3_make(0, 0, 0), g->foot, g->toe, pts);
  const rk_vec3 have = rk__rt_horizontal(rk_vec3_sub(pts[b], pts[a]));
  const rk_vec3 want = rk__rt_horizontal(rk_vec3_sub(g->pin[b], g->pin[a]));
  if (rk_vec3_norm(have) < 1e-9 || rk_vec3_norm(want) < 1e-9)
    return;
  const rk_quat yaw = toward(rk_quat_identity(), rk_quat_from_to(have, want), hold);
  g->foot = rk_quat_normalize(rk_quat_mul(yaw, g->foot));
  g->toe = rk_quat_normalize(rk_quat_mul(yaw, g->toe));
}

/* The ankle that puts every fully planted point of the goal on its pin (their mean). */
static bool exact_ankle(const sole_pose *sp, const rk__rt_foot_goal *g, rk_vec3 *ankle) {
  bool any = false;
  for (int p = 0; p < RK__RT_POINTS; p++)
    any |= g->w[p] >= 1;
  if (!any) /* a swinging foot (most frames of a walk's other foot) */
    return false;
  const rk_vec3 a0 = sp->a0;
  rk_vec3 pts[RK__RT_POINTS], sum = rk_vec3_make(0, 0, 0);
  sole_points(sp, a0, g->foot, g->toe, pts);
  int n = 0;
  for (int p = 0; p < RK__RT_POINTS; p++)
    if (g->w[p] >= 1) {
      sum = rk_vec3_add(sum, rk_vec3_sub(g->pin[p], pts[p]));
      n++;
    }
  if (n)
    *ankle = rk_vec3_add(a0, rk_vec3_scale(sum, 1.0 / n));
  return n > 0;
}

/* The goal of one side at frame f without the fades (weights, pins, rotations, the exact ankle
 * when a point is fully planted), and what the pose holds of its sole (sp). */
static void hold(rk__rt_run *c, int side, size_t f, rk__rt_foot_goal *g, int index[RK__RT_POINTS],
                 sole_pose *sp) {
  for (int p = 0; p < RK__RT_POINTS; p++) {
    const GArray *iv = c->res->points[side][p];
    g->w[p] = rk__rt_interval_weight(iv, (int)f, c->ik.blend, &c->weight_at[side][p], &index[p]);
    g->pin[p] = index[p] >= 0 ? rk__rt_pin_at(c, side, p, index[p], f) : rk_vec3_make(0, 0, 0);
  }
  sole_pose_of(c, side, sp);
  orient(c, side, sp, g);
  g->ankle = sp->a0;
  g->held = exact_ankle(sp, g, &g->ankle);
}

bool rk__rt_held_ankle(rk__rt_run *c, int side, size_t f, rk_vec3 *ankle) {
  rk__rt_foot_goal g;
  int index[RK__RT_POINTS];
  sole_pose sp;
  hold(c, side, f, &g, index, &sp);
  *ankle = g.ankle;
  return g.held;
}


/* An interval start whose ankle correction rk__rt_feet_prepare sets. */
typedef struct edge_ref {
  int frame, side, point;
  guint index;
} edge_ref;

static int by_frame(const void *a, const void *b) {
  const edge_ref *x = a, *y = b;
  return (x->frame > y->frame) - (x->frame < y->frame);
}

void rk__rt_feet_prepare(rk__rt_run *c) {
  const rk_retargeter *rt = c->rt;
  size_t n = 0;
  for (int side = 0; side < 2; side++)
    for (int p = 0; p < RK__RT_POINTS; p++) {
      const GArray *iv = c->res->points[side][p];
      c->edges[side][p] = g_array_sized_new(FALSE, TRUE, sizeof(rk__rt_edge), iv->len);
      g_array_set_size(c->edges[side][p], iv->len);
      n += iv->len;
    }
  if (!c->opts->foot_ik)
    return;
  /* The last frames' corrections come from the frames' own goals (rk__rt_feet_goals): they are
   * read after them. The goals at a start read the posed feet only (hold): each frame is posed
   * once for the points that start there, through the chains down to the feet. */
  g_autofree edge_ref *refs = g_new(edge_ref, n ? n : 1);
  n = 0;
  for (int side = 0; side < 2; side++)
    for (int p = 0; p < RK__RT_POINTS; p++) {
      const GArray *iv = c->res->points[side][p];
      for (guint i = 0; i < iv->len; i++)
        refs[n++] = (edge_ref){g_array_index(iv, rk_contact_interval, i).first, side, p, i};
    }
  qsort(refs, n, sizeof *refs, by_frame);
  g_autofree int *chains = g_new(int, rt->nt);
  const size_t nc = rk__rt_feet_chains(c, chains);
  int posed = -1;
  for (size_t k = 0; k < n; k++) {
    const edge_ref *e = &refs[k];
    if (e->frame != posed)
      rk__rt_pose_frame_joints(c, (size_t)e->frame, chains, nc);
    posed = e->frame;
    rk__rt_foot_goal g;
    int index[RK__RT_POINTS];
    sole_pose sp;
    hold(c, e->side, (size_t)e->frame, &g, index, &sp);
    g_array_index(c->edges[e->side][e->point], rk__rt_edge, e->index).first =
        rk_vec3_sub(g.ankle, rk__rt_ankle(&rt->side[e->side], c->tgt_models));
  }
}

/* A sliding foot kept on the floor: where its lowest sole point floats higher above the floor than
 * the source's (scaled) by more than half the contact height, it comes down to that (by weight
 * w); through the floor it is lifted anyway. */
static void keep_on_floor(const rk__rt_run *c, int side, size_t f, double w, const sole_pose *sp,
                          rk__rt_foot_goal *g) {
  double src = INFINITY, have = INFINITY;
  for (int p = 0; p < RK__RT_POINTS; p++)
    src = fmin(src, RK__RT_SOLE(c->src_pts, f, side * RK__RT_POINTS + p).y);
  rk_vec3 pts[RK__RT_POINTS];
  sole_points(sp, g->ankle, g->foot, g->toe, pts);
  /* A leg without a foot bone, or of one bone: its sole points stand as high above its foot's
   * lowest point as at rest (the one point of a foot in the leg's mesh rolls above the sole; the
   * pelvis of a leg of one bone rides on this goal). Measured at the point, a rocker sole's
   * swinging foot was pulled onto the floor while the source's swung above it. */
  const rk__rt_side *sd = &c->rt->side[side];
  const bool above = sd->knee == sd->upper || sd->footless;
  for (int p = 0; p < RK__RT_POINTS; p++)
    have = fmin(have, pts[p].y - (above ? c->tsole[side]->rest[p].y - c->tlow[side] : 0.0));
  const double want = c->tgt_floor + c->rt->scale * fmax(0.0, src - c->src_floor) +
                      0.5 * c->opts->contact_height * c->rt->tmap.height;
  if (have > want)
    g->ankle.y += w * (want - have);
}

void rk__rt_feet_goals(rk__rt_run *c, size_t f) {
  for (int side = 0; side < 2; side++) {
    rk__rt_foot_goal *g = &c->ik.goal[side];
    g->active = g->held = g->lifted = false;
    g->lift = 0;
    if (!c->opts->foot_ik)
      continue;
    int index[RK__RT_POINTS];
    sole_pose sp;
    hold(c, side, f, g, index, &sp);
    /* The ankle's correction at the last frame of a contact, for the frames that fade out of it. */
    for (int p = 0; p < RK__RT_POINTS; p++)
      if (index[p] >= 0 &&
          g_array_index(c->res->points[side][p], rk_contact_interval, index[p]).last == (int)f)
        g_array_index(c->edges[side][p], rk__rt_edge, index[p]).last =
            rk_vec3_sub(g->ankle, rk__rt_ankle(&c->rt->side[side], c->tgt_models));
    if (!g->held) {
      /* Fading in or out: the ankle's correction at the nearest end of the firmest contact. */
      int best = -1;
      for (int p = 0; p < RK__RT_POINTS; p++)
        if (g->w[p] > 0 && (best < 0 || g->w[p] > g->w[best]))
          best = p;
      if (best >= 0) {
        const rk_contact_interval *ci =
            &g_array_index(c->res->points[side][best], rk_contact_interval, index[best]);
        const rk__rt_edge *e = &g_array_index(c->edges[side][best], rk__rt_edge, index[best]);
        g->ankle = rk__rt_stiff_fade(c, side, rk_vec3_add(g->ankle, rk_vec3_scale((int)f < ci->first ? e->first : e->last, g->w[best])),
                                     g->w[best]);
      }
    }
    int si;
    const double ws = rk__rt_interval_weight(c->res->slides[side], (int)f, c->ik.blend,
                                             &c->weight_at[side][RK__RT_POINTS], &si);
    if (ws > 0 && !g->held)
      keep_on_floor(c, side, f, ws, &sp, g);
    g->active = true;
  }
}

bool rk__rt_foot_tilt(rk__rt_run *c, int side, rk__rt_foot_goal *g) {
  const rk__rt_side *sd = &c->rt->side[side];
  int held = -1, joint;
  for (int p = RK__RT_POINTS - 1; p >= 0; p--)
    if (g->w[p] >= 1)
      held = p;
  const bool front = g->w[RK_SOLE_BALL] >= 1 || g->w[RK_SOLE_TIP] >= 1;
  if (held < 0 || (g->w[RK_SOLE_HEEL] >= 1 && front))
    return false;
  const rk_vec3 q = rk__rt_foot_low(c, side, &joint);
  /* Held at the toes and through the floor behind them: the foot turns about the toe joint, the
   * toes stay flat. Held at the heel, or through the floor with the toes: the whole foot turns
   * about its held pin. */
  const bool foot_only = front && sd->toe >= 0 &&
                         !rk_skeleton_is_ancestor(c->rt->tgt, (size_t)sd->toe, (size_t)joint);
  const rk_vec3 pivot = foot_only ? rk_mat4_get_translation(&c->tgt_models[sd->toe]) : g->pin[held];
  const rk_vec3 r = rk_vec3_sub(q, pivot), along = rk__rt_horizontal(r);
  const double floor = rk__rt_floor_for(c, RK__RT_FOOT + side, q.y);
  const double d = rk_vec3_norm(along), h = floor - pivot.y;
  const double radius = rk_vec3_norm(r);
  if (floor - q.y <= 0 || d < 1e-6 || fabs(h) >= radius)
    return false;
  /* The turn about the horizontal line through the pivot, across the lowest point's direction,
   * that brings that point to the floor: d sin(a) + dy cos(a) = h. */
  const rk_vec3 axis = rk_vec3_normalize(rk_vec3_cross(along, rk_vec3_make(0, 1, 0)));
  const double angle = asin(h / radius) - atan2(r.y, d);
  const rk_quat turn = rk_quat_from_axis_angle(axis, angle);
  g->foot = rk_quat_normalize(rk_quat_mul(turn, g->foot));
  if (!foot_only)
    g->toe = rk_quat_normalize(rk_quat_mul(turn, g->toe));
  g->ankle = rk_vec3_add(pivot, rk_quat_rotate(turn, rk_vec3_sub(g->ankle, pivot)));
  return true;
}
