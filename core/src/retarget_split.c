/* Retargeting on two threads: the passes of a run that go frame by frame (the source's sampling,
 * the transfer, the solve with its figures and keys) over a long clip in two fixed halves of
 * frames, the second on a thread with its own copy of the run's per-frame scratch, merged in
 * frame order so the result is the same bits as one pass (see rk_retarget_options.threads).
 *
 * What the solve carries from frame to frame, and how the second half stands without it:
 * - the loop's last configuration (ik.q_prev: Euler angles unwrapped from the last frame with
 *   both feet held), read by the pelvis solve and by the loop's closure. The second half starts
 *   a little before its first output frame, at a frame before the last two where the loop closes
 *   there, with that state estimated from the transferred poses (seed_state); the state it has
 *   at its output frame is checked against the one the first half left (same_state) and the
 *   half is solved again after the first when they differ (a solved leg on another Euler
 *   branch than its transferred pose: CMU 01_01 onto the 91-joint MakeHuman rig);
 * - the directions of legs of one bone at the last frame (ik.stiff_dir), from which a free one
 *   turns at a bounded rate: compared at the output frame as the loop's state is;
 * - the ankle's correction at the last frame of a planted interval, read by the frames fading
 *   out of it: the second half starts at a frame no fade-out crosses, and keeps its own;
 * - each key's hemisphere, taken from the key before: the second half keys its first frame as
 *   it is and the join turns its keys over where the first half's last key says;
 * - the sums of the figures: the pin errors of the second half are listed and added after the
 *   first half's in frame order; counts add, maxima take the larger. */
#include "retarget_run.h"

#include <rigkit/halves.h>
#include "math_internal.h"
#include "tree_internal.h"

#include <rigkit/error.h>

#include <stddef.h>
#include <string.h>

/* A clip shorter than this stays on one thread: the thread and the copies would cost more than
 * the half they save. */
#define SPLIT_FRAMES 512

/* The second half's run: a copy of the run (its read-only state and the per-frame arrays both
 * halves write, each its own frames) with per-frame scratch of its own, kept in `own`. */
struct rk__rt_split {
  rk__rt_run run, own;
};

/* The fields of a run that are its per-frame scratch (pointers to arrays the copy has its own
 * of; own.src_keys sized for the clip's tracks). */
static const size_t own_fields[] = {
    offsetof(rk__rt_run, src_keys),   offsetof(rk__rt_run, src_locals), offsetof(rk__rt_run, src_models),
    offsetof(rk__rt_run, src_world),  offsetof(rk__rt_run, tgt_world),  offsetof(rk__rt_run, limb_world),
    offsetof(rk__rt_run, redo),       offsetof(rk__rt_run, tgt_locals), offsetof(rk__rt_run, tgt_models)};

/* The field at offset off of run r (one of own_fields: each a pointer). */
static void **own_field(rk__rt_run *r, size_t off) {
  return (void **)(void *)((char *)r + off);
}

/* The copy of run a for the second half of the next pass (the passes before it set a's state). */
static rk__rt_run *copy_of(rk__rt_split *s, const rk__rt_run *a) {
  rk__rt_run *b = &s->run;
  *b = *a;
  b->scratch = NULL;
  for (size_t i = 0; i < G_N_ELEMENTS(own_fields); i++)
    *own_field(b, own_fields[i]) = *own_field(&s->own, own_fields[i]);
  const size_t tracks = rk_clip_track_count(a->clip);
  memset(b->src_keys, 0, (tracks + 1) * sizeof(uint32_t));
  b->src_cursor = (rk_clip_cursor)RK_CLIP_CURSOR_INIT(b->src_keys, tracks);
  memset(&b->ik, 0, sizeof b->ik);
  memset(&b->tally, 0, sizeof b->tally);
  b->tally.limb_cos = a->tally.limb_cos; /* each half its own frames' slots */
  memset(b->weight_at, 0, sizeof b->weight_at);
  return b;
}

rk__rt_split *rk__rt_split_new(const rk__rt_run *c) {
  const int threads = c->opts->threads;
  if (!c->cached || c->frames < SPLIT_FRAMES ||
      !(threads == 2 || (threads == 0 && g_get_num_processors() > 1)))
    return NULL;
  const rk_retargeter *rt = c->rt;
  rk__rt_split *s = g_new0(rk__rt_split, 1);
  rk__rt_run *o = &s->own;
  o->src_keys = g_new0(uint32_t, rk_clip_track_count(c->clip) + 1);
  o->src_locals = g_memdup2(rk_skeleton_rest_locals(rt->src), rt->ns * sizeof(rk_transform));
  o->src_models = g_new(rk_mat4, rt->ns);
  o->src_world = g_new(rk_quat, rt->ns);
  o->tgt_world = g_new(rk_quat, rt->nt);
  o->limb_world = g_new(rk_quat, rt->nt);
  o->redo = g_new(int, rt->nt);
  /* Only the translations and scales of t_joints ever leave their rest's (as the run's). */
  o->tgt_locals = g_memdup2(rk_skeleton_rest_locals(rt->tgt), rt->nt * sizeof(rk_transform));
  o->tgt_models = g_new(rk_mat4, rt->nt);
  return s;
}

void rk__rt_split_free(rk__rt_split *s) {
  if (!s)
    return;
  for (size_t i = 0; i < G_N_ELEMENTS(own_fields); i++)
    g_free(*own_field(&s->own, own_fields[i]));
  g_free(s);
}

/* ---- sampling and transfer ------------------------------------------------------------------- */

/* One half of a pass: its run (or copy) and its frames; for the solve, the frame its output
 * starts at (the frames before it lead in: solved for the loop state only) and that state there. */
typedef struct half {
  rk__rt_run *run;
  size_t first, end, out;
  bool copy; /* the second half's: its frames before `out` lead in */
  bool ok;
  GError *error;
  bool at_out, had_prev; /* reached `out`, and whether a loop had closed by then */
  double *q_prev;        /* the last closed loop's angles then */
  rk_vec3 stiff_dir[2];  /* legs of one bone: their directions then (ik.stiff_dir) */
  bool stiff_have;
} half;

static gpointer scan_half(gpointer data) {
  half *h = data;
  rk__rt_scan_frames(h->run, h->first, h->end);
  return NULL;
}

static gpointer transfer_half(gpointer data) {
  half *h = data;
  rk__rt_transfer_frames(h->run, h->first, h->end);
  return NULL;
}

/* Pass fn (scan_half or transfer_half) over every frame of c: in halves with s. */
static void frames_pass(rk__rt_run *c, rk__rt_split *s, GThreadFunc fn) {
  half h[2] = {{.run = c, .first = 0, .end = s ? c->frames / 2 : c->frames},
               {.run = NULL, .first = c->frames / 2, .end = c->frames}};
  if (!s) {
    fn(&h[0]);
    return;
  }
  h[1].run = copy_of(s, c);
  rk_halves_run(fn, &h[0], &h[1], true);
}

void rk__rt_split_scan(rk__rt_run *c, rk__rt_split *s) {
  frames_pass(c, s, scan_half);
}

void rk__rt_split_transfer(rk__rt_run *c, rk__rt_split *s) {
  frames_pass(c, s, transfer_half);
}

/* ---- the pelvis eased to what the legs reach ---------------------------------------------- */

/* One half of the reach's needs: its run, frames and the arrays both halves fill (each its own
 * frames). */
typedef struct reach_half {
  rk__rt_run *run;
  size_t first, end;
  double *down, *up;
  bool any;
} reach_half;

static gpointer reach_half_run(gpointer data) {
  reach_half *h = data;
  h->any = rk__rt_reach_needs(h->run, h->first, h->end, h->down, h->up);
  return NULL;
}

void rk__rt_split_reach(rk__rt_run *c, rk__rt_split *s) {
  if (!rk__rt_reach_wanted(c))
    return;
  const size_t n = c->frames;
  g_autofree double *down = g_new0(double, n), *up = g_new0(double, n);
  reach_half h[2] = {{c, 0, s ? n / 2 : n, down, up, false}, {NULL, n / 2, n, down, up, false}};
  if (s) {
    /* The copy reads the goals' fade and the solve's tolerance as the run does (its own IK is
     * the solve's to set up). */
    h[1].run = copy_of(s, c);
    h[1].run->ik.blend = c->ik.blend;
    h[1].run->ik.iko = c->ik.iko;
    rk_halves_run(reach_half_run, &h[0], &h[1], true);
  } else {
    reach_half_run(&h[0]);
  }
  if (h[0].any || h[1].any)
    rk__rt_reach_ease(c, down, up);
}

/* ---- the solve ------------------------------------------------------------------------------- */

/* Whether every component of x[0..n) is finite (rk_transform_is_finite of each). */
static bool finite_locals(const rk_transform *x, size_t n) {
  G_STATIC_ASSERT(sizeof(rk_transform) == 10 * sizeof(double));
  return rk__all_finite(x, n * 10);
}

/* At the half's first output frame: its loop state noted, the figures of the lead-in dropped. */
static void start_output(half *h) {
  rk__rt_run *c = h->run;
  h->at_out = true;
  h->had_prev = c->ik.have_prev;
  h->q_prev = g_memdup2(c->ik.q_prev, c->ik.ndof * sizeof(double));
  h->stiff_have = c->ik.stiff_have;
  memcpy(h->stiff_dir, c->ik.stiff_dir, sizeof h->stiff_dir);
  double *limb = c->tally.limb_cos, *errs = c->tally.goal_errs;
  memset(&c->tally, 0, sizeof c->tally);
  c->tally.limb_cos = limb;
  c->tally.goal_errs = errs;
  c->tally.limb_n = h->out * 8;
  c->res->unreachable_frames = c->res->pelvis_frames = 0;
  c->res->pelvis_max = 0;
}

/* Frame f: the transferred pose, the IK, the checks; from the half's output frame on, the
 * figures and the keys. */
static bool solve_frame(half *h, size_t f, GError **error) {
  rk__rt_run *c = h->run;
  if (h->copy && f == h->out)
    start_output(h);
  rk__rt_pose_frame(c, f);
  if (!rk__rt_solve_frame(c, f, error))
    return false;
  rk__rt_parts_frame(c);
  rk__rt_controls_frame(c);
  if (!finite_locals(c->tgt_locals, c->rt->nt)) {
    g_set_error(error, RK_ERROR, RK_ERROR_FAILED,
                "clip '%s' frame %zu: the retargeted pose is not finite", rk_clip_name(c->clip), f);
    return false;
  }
  if (f >= h->out) {
    rk__rt_measure_frame(c, f);
    rk__rt_key_frame(c, f);
  }
  return true;
}

/* Whether both feet are held at frame f (a sole point of each fully planted): the loop closes. */
static bool both_held(const rk__rt_run *c, size_t f) {
  return c->opts->foot_ik && rk__rt_side_held(c->res, 0, f) && rk__rt_side_held(c->res, 1, f);
}

/* The second half's loop state where its lead-in starts, from the transferred poses of the frames
 * before where the loop closes: the angles of the joints that carry the feet unwrapped as one pass
 * unwraps them from its final poses (the hips' turn is the transferred one; the legs' move little),
 * so that a clip whose hips turned round, or whose knees read on the other Euler branch, reaches
 * the second half's output in one pass's state (same_state checks). */
static void seed_state(rk__rt_run *c, size_t lead) {
  const rk_retargeter *rt = c->rt;
  rk__rt_ik *ik = &c->ik;
  for (size_t f = 0; f < lead; f++) {
    if (!both_held(c, f))
      continue;
    rk__rt_pose_frame_joints(c, f, NULL, 0);
    rk__tree_q_from_locals_links(rt->tree, c->tgt_locals, ik->have_prev ? ik->q_prev : NULL,
                                 rt->feet_links, rt->feet_link_count, ik->q);
    memcpy(ik->q_prev, ik->q, ik->ndof * sizeof(double));
    ik->have_prev = true;
  }
}

static gpointer solve_half(gpointer data) {
  half *h = data;
  h->ok = true;
  if (h->copy)
    seed_state(h->run, h->first);
  for (size_t f = h->first; f < h->end && h->ok; f++)
    h->ok = solve_frame(h, f, &h->error);
  return NULL;
}

/* Frames no fade out of a planted interval crosses (a frame within `blend` frames after an
 * interval's last reads the ankle correction that last frame sets): where a half may start. */
static bool *uncrossed(const rk__rt_run *c) {
  const size_t n = c->frames;
  bool *ok = g_new(bool, n + 1);
  memset(ok, true, (n + 1) * sizeof(bool));
  const size_t reach = (size_t)MAX(c->ik.blend, 0) + 1;
  for (int side = 0; side < 2; side++)
    for (int p = 0; p < RK__RT_POINTS; p++) {
      const GArray *iv = c->res->points[side][p];
      for (guint i = 0; i < iv->len; i++) {
        const int last = g_array_index(iv, rk_contact_interval, i).last;
        for (size_t f = (size_t)MAX(last, -1) + 1; f <= MIN(n, (size_t)(last + 1) + reach); f++)
          ok[f] = false;
      }
    }
  return ok;
}


/* Where the second half starts solving for its output from m (the latest frame no fade crosses
 * at or before the last two frames before m where the loop closes, or all of them when fewer
 * close before m: by m it has closed the loop from a state of its own as one pass has; the first
 * closure made without a state may differ from one pass's in the sign of a zero angle, the next
 * one not); ok: uncrossed's. */
static size_t lead_for(const rk__rt_run *c, const bool *ok, size_t m) {
  size_t f = m, last = m; /* last: the first loop found going back (m: none) */
  int loops = 0;
  for (; loops < 2 && f > 0; f--)
    if (both_held(c, f - 1) && loops++ == 0)
      last = f - 1;
  if (loops < 2)
    f = last; /* one closed loop before m, or none (no state to carry) */
  while (f > 0 && !ok[f])
    f--;
  return f;
}

/* Where the second half's output starts (m) and where it starts solving (*lead, lead_for's); 0
 * when the lead-in would be longer than a quarter. The second half does more than its output
 * frames: the lead-in's frames solved, and seed_state's pose of each frame before the lead where
 * the loop closes (about half a solved frame each; CMU 01_01 onto RiggedFigure: 24 and 246 of
 * 2,752, so that the first half waited ~0.5 ms for it when m was the middle). m moves past the
 * middle by half that extra, the halves then about as long. */
static size_t solve_split(const rk__rt_run *c, size_t *lead) {
  const size_t n = c->frames, mid = n / 2;
  g_autofree bool *ok = uncrossed(c);
  size_t f = lead_for(c, ok, mid), seeds = 0;
  for (size_t g = 0; g < f; g++)
    seeds += both_held(c, g);
  const size_t m = MIN(mid + ((mid - f) + seeds / 2) / 2, n - n / 4);
  const size_t fm = lead_for(c, ok, m);
  if (m - fm <= n / 4 && ok[fm]) {
    *lead = fm;
    return m;
  }
  *lead = f;
  return mid - f <= n / 4 && ok[f] ? mid : 0;
}

/* The second half's keys turned into the hemisphere one pass gives them: from frame m, each key
 * with its predecessor's turn, while their product is not zero (one pass and the half then take
 * the same sign whichever way the key before points). */
static void join_keys(rk__rt_run *a, const rk__rt_run *b, size_t m) {
  for (size_t j = 0; j < a->rt->nt; j++) {
    double *k = a->keys.rot[j];
    a->keys.rot_used[j] |= b->keys.rot_used[j];
    if (a->keys.trans[j])
      a->keys.trans_used[j] |= b->keys.trans_used[j];
    bool turn = k[m * 4] * k[m * 4 - 4] + k[m * 4 + 1] * k[m * 4 - 3] + k[m * 4 + 2] * k[m * 4 - 2] +
                    k[m * 4 + 3] * k[m * 4 - 1] < 0;
    for (size_t f = m; f < a->frames && turn; f++) {
      double *q = k + f * 4;
      const double next = f + 1 < a->frames ? q[4] * q[0] + q[5] * q[1] + q[6] * q[2] + q[7] * q[3] : 0;
      q[0] = -q[0], q[1] = -q[1], q[2] = -q[2], q[3] = -q[3];
      turn = next != 0 && !isnan(next);
    }
  }
}

/* The second half's figures after the first's, in frame order. */
static void join_figures(rk__rt_run *a, const rk__rt_run *b, size_t m) {
  rk__rt_tally *t = &a->tally;
  const rk__rt_tally *u = &b->tally;
  for (size_t i = 0; i < u->goal_err_n; i++)
    t->goal_err_sum += u->goal_errs[i];
  t->goal_err_n += u->goal_err_n;
  t->goal_err_max = fmax(t->goal_err_max, u->goal_err_max);
  t->closure_max = fmax(t->closure_max, u->closure_max);
  t->limit_violations += u->limit_violations;
  t->loop_frames += u->loop_frames;
  memmove(t->limb_cos + t->limb_n, u->limb_cos + m * 8, (u->limb_n - m * 8) * sizeof(double));
  t->limb_n += u->limb_n - m * 8;
  a->res->unreachable_frames += b->res->unreachable_frames;
  a->res->pelvis_frames += b->res->pelvis_frames;
  a->res->pelvis_max = fmax(a->res->pelvis_max, b->res->pelvis_max);
  join_keys(a, b, m);
}

/* Whether the second half reached its output with the loop state the first half left, in the
 * angles of the joints that carry the feet (the root down to each foot): then every frame it
 * keyed is the same bits as one pass's. Those angles are all the state decides: the pelvis
 * solve keeps only the hips' translation of a solve whose loops end at the feet (the other
 * joints locked, its columns the DOFs that move a foot), and the closure is the feet's; each
 * joint's angles follow from its own last ones alone (the closure keeps only these:
 * rt->feet_links). Legs of one bone carry their last directions too. */
static bool same_state(const rk__rt_run *a, const half *hb) {
  if (!hb->at_out || hb->had_prev != a->ik.have_prev || hb->stiff_have != a->ik.stiff_have ||
      (hb->stiff_have && memcmp(hb->stiff_dir, a->ik.stiff_dir, sizeof hb->stiff_dir) != 0))
    return false;
  if (!hb->had_prev)
    return true;
  const rk_retargeter *rt = a->rt;
  for (size_t i = 0; i < rt->feet_link_count; i++) {
    const rk_joint *jt = rk_tree_joint(rt->tree, (size_t)rt->feet_links[i]);
    if (jt->dof_count > 0 && memcmp(hb->q_prev + jt->dof_offset, a->ik.q_prev + jt->dof_offset,
                                    (size_t)jt->dof_count * sizeof(double)) != 0)
      return false;
  }
  return true;
}

/* Frees what the second half's solve made for its copy. */
static void clear_copy(rk__rt_run *b) {
  rk__rt_ik_clear(&b->ik);
  g_clear_pointer(&b->tally.goal_errs, g_free);
  g_clear_pointer(&b->keys.rot_used, g_free);
  g_clear_pointer(&b->keys.trans_used, g_free);
  for (int side = 0; side < 2; side++)
    for (int p = 0; p < RK__RT_POINTS; p++)
      g_clear_pointer(&b->edges[side][p], g_array_unref);
}

/* The copy's own figures, keys' flags and ankle corrections for a solve from `lead`, its output
 * from m; false with error when its IK cannot be set up. */
static bool prepare_copy(rk__rt_run *b, rk_retarget_result *res, size_t m, GError **error) {
  const size_t nt = b->rt->nt;
  b->res = res;
  b->tally.goal_errs = g_new(double, (b->frames - m) * RK__RT_SOLE_SLOTS);
  b->keys.first = m;
  b->keys.rot_used = g_new0(bool, nt);
  b->keys.trans_used = g_new0(bool, nt);
  for (int side = 0; side < 2; side++)
    for (int p = 0; p < RK__RT_POINTS; p++)
      b->edges[side][p] = g_array_copy(b->edges[side][p]);
  return rk__rt_ik_init(b, error);
}

/* The solve in two halves: frames [0, m) on a, the rest on the copy from `lead`; joined when the
 * copy reached m in the first half's loop state, else solved again on a after the first half. */
static bool solve_two(rk__rt_run *a, rk__rt_split *s, size_t lead, size_t m, GError **error) {
  rk__rt_run *b = copy_of(s, a);
  rk_retarget_result res = *a->res;
  if (!prepare_copy(b, &res, m, error)) {
    clear_copy(b);
    return false;
  }
  half h[2] = {{.run = a, .first = 0, .end = m, .out = 0},
               {.run = b, .first = lead, .end = a->frames, .out = m, .copy = true}};
  rk_halves_run(solve_half, &h[0], &h[1], true);
  half *last = &h[1];
  if (!h[0].ok) {
    last = &h[0];
  } else if (same_state(a, &h[1])) {
    if (h[1].ok)
      join_figures(a, b, m);
  } else {
    g_debug("retarget '%s': frames %zu-%zu solved again after frame %zu (the loop's state "
            "differs there)", rk_clip_name(a->clip), m, a->frames - 1, m - 1);
    h[0].first = m;
    h[0].end = a->frames;
    solve_half(&h[0]);
    last = &h[0];
  }
  const bool ok = last->ok;
  if (!ok)
    g_propagate_error(error, g_steal_pointer(&last->error));
  g_clear_error(&h[0].error);
  g_clear_error(&h[1].error);
  g_free(h[1].q_prev);
  clear_copy(b);
  return ok;
}

bool rk__rt_split_solve(rk__rt_run *a, rk__rt_split *s, GError **error) {
  size_t lead = 0;
  const size_t m = s ? solve_split(a, &lead) : 0;
  if (m > 0) {
    g_debug("retarget '%s': frames %zu-%zu solved beside the first half, from frame %zu",
            rk_clip_name(a->clip), m, a->frames - 1, lead);
    return solve_two(a, s, lead, m, error);
  }
  half h = {.run = a, .first = 0, .end = a->frames, .out = 0};
  solve_half(&h);
  if (!h.ok)
    g_propagate_error(error, h.error);
  g_free(h.q_prev);
  return h.ok;
}
