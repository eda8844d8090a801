/* The state of one retarget run shared by its passes: frame times, the current source frame's
 * joint positions, the result's contact intervals, the target's limb rotations and pelvis as the
 * IK passes set them, the scratch block the per-frame arrays live in (kept by the retargeter
 * between runs) and freeing (see retarget_run.h). */
#include "retarget_run.h"

#include "fk_pass.h"

#include <rigkit/fk.h>

#include <math.h>
#include <stdlib.h>
#include <sys/mman.h>

double rk__rt_frame_time(const rk__rt_run *c, size_t f) {
  /* fmin's value for a time >= 0 (a comparison: fmin is a call into libm). */
  const double t = (double)f / c->fps;
  return t > c->duration ? c->duration : t;
}

rk_vec3 rk__rt_src_pos(const rk__rt_run *c, int j) {
  return rk_vec3_add(c->cur_p[c->rt->src_slot[j]], rk_vec3_scale(c->travel, c->cur_t));
}

rk_foot_contacts rk__rt_contacts(const rk_retarget_result *res, size_t k) {
  rk_foot_contacts fc = {-1, 0, NULL};
  if (k < res->contact_count) {
    fc.joint = res->contact_joint[k];
    fc.count = res->intervals[k]->len;
    fc.intervals = (const rk_contact_interval *)(void *)res->intervals[k]->data;
  }
  return fc;
}

/* Index of the first interval of iv (in frame order, disjoint) that ends at or after frame f, or
 * iv->len. A scan per frame made the passes over a long clip quadratic; the index is first
 * guessed where evenly spaced intervals (a gait's) put it, its neighbour checked, the rest
 * bisected. */
static guint first_ending_from(const GArray *iv, int f) {
  const rk_contact_interval *a = (const rk_contact_interval *)(const void *)iv->data;
  const guint n = iv->len;
  if (n == 0 || a[0].last >= f)
    return 0;
  if (a[n - 1].last < f)
    return n;
  guint lo = 0, hi = n - 1; /* a[lo].last < f <= a[hi].last */
  const guint g = (guint)((double)(f - a[0].last) / (double)(a[n - 1].last - a[0].last) * (n - 1));
  if (g < n && a[g].last < f) {
    lo = g;
    if (a[lo + 1].last >= f)
      return lo + 1;
  } else if (g < n) {
    hi = g;
    if (a[hi - 1].last < f)
      return hi;
  }
  while (hi - lo > 1) {
    const guint mid = lo + (hi - lo) / 2;
    if (a[mid].last < f)
      lo = mid;
    else
      hi = mid;
  }
  return hi;
}

bool rk__rt_in_intervals(const GArray *iv, int f) {
  if (!iv)
    return false;
  /* Later intervals start after this one's end. */
  const guint i = first_ending_from(iv, f);
  return i < iv->len && g_array_index(iv, rk_contact_interval, i).first <= f;
}

bool rk__rt_side_held(const rk_retarget_result *r, int side, size_t f) {
  for (int p = 0; p < RK__RT_POINTS; p++)
    if (rk__rt_in_intervals(r->points[side][p], (int)f))
      return true;
  return false;
}

/* first_ending_from, walked from *at (its answer for a nearby frame: the passes ask frame after
 * frame) when that is a few intervals away, else looked up; *at becomes the answer. */
static guint first_ending_near(const GArray *iv, int f, guint *at) {
  enum { STEPS = 4 };
  const rk_contact_interval *a = (const rk_contact_interval *)(const void *)iv->data;
  const guint n = iv->len;
  guint i = MIN(*at, n);
  int steps = 0;
  while (i < n && a[i].last < f && steps++ < STEPS)
    i++;
  while (i > 0 && a[i - 1].last >= f && steps++ < STEPS)
    i--;
  if ((i < n && a[i].last < f) || (i > 0 && a[i - 1].last >= f))
    i = first_ending_from(iv, f);
  *at = i;
  return i;
}

double rk__rt_interval_weight(const GArray *iv, int f, int blend, guint *at, int *index) {
  double best = 0;
  *index = -1;
  if (!iv)
    return best;
  /* Only intervals within `blend` frames of f weigh anything: from the first ending at f - blend
   * or later, until one starts after f + blend (the same ones, in the same order, as a scan). */
  const int reach = MAX(blend, 0);
  for (guint i = first_ending_near(iv, f - reach, at); i < iv->len; i++) {
    const rk_contact_interval *ci = &g_array_index(iv, rk_contact_interval, i);
    if (ci->first - f > reach)
      break;
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
      *index = (int)i;
    }
  }
  return best;
}

void rk__rt_fk_below(const rk_skeleton *s, const rk_transform *locals, rk_mat4 *models, int j,
                     int last) {
  /* The subtree is the joints [j, end) (preorder), listed a chunk at a time for the FK pass; the
   * strict ancestors of last are those whose subtrees hold it. */
  enum { CHUNK = 64 };
  int list[CHUNK];
  size_t n = 0;
  const size_t end = rk_skeleton_subtree_end(s, (size_t)j);
  for (size_t k = (size_t)j; k < end; k++) {
    if ((int)k < last && (size_t)last < rk_skeleton_subtree_end(s, k))
      continue;
    list[n++] = (int)k;
    if (n == CHUNK) {
      rk__fk_pass(rk_skeleton_parents(s), locals, NULL, list, n, models);
      n = 0;
    }
  }
  if (n)
    rk__fk_pass(rk_skeleton_parents(s), locals, NULL, list, n, models);
}

void rk__rt_fk_path(const rk_skeleton *s, const rk_transform *locals, rk_mat4 *models, int from,
                    int to) {
  enum { LONGEST = 64 };
  int path[LONGEST];
  size_t n = 0;
  for (int k = to; n < LONGEST; k = rk_skeleton_parent(s, (size_t)k)) {
    path[LONGEST - 1 - n++] = k;
    if (k == from) {
      rk__fk_pass(rk_skeleton_parents(s), locals, NULL, path + LONGEST - n, n, models);
      return;
    }
  }
  /* A longer path: the whole subtree (a superset). */
  rk__rt_fk_below(s, locals, models, from, from);
}

/* Scratch arrays start on cache lines. */
#define SCRATCH_ALIGN ((size_t)64)
/* A retargeter keeps a finished run's block up to this size (about 9,000 frames onto a 91-joint
 * target); larger ones are freed. */
#define SCRATCH_KEEP_MAX ((size_t)64 << 20)

static size_t scratch_round(size_t bytes) {
  return (bytes + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN;
}

/* Blocks from this size on start on a huge page and ask for huge pages: a run walks a dozen
 * per-frame arrays of the block at once, frame by frame, and in pages of 4 KB those walks miss
 * the TLB (and the first run faults each page in). */
#define SCRATCH_HUGE ((size_t)2 << 20)

/* A block of `bytes` (huge pages where the system gives them on request). */
static unsigned char *scratch_alloc(size_t bytes) {
#ifdef MADV_HUGEPAGE
  if (bytes >= 2 * SCRATCH_HUGE) {
    void *p = NULL;
    if (posix_memalign(&p, SCRATCH_HUGE, bytes) == 0) {
      (void)madvise(p, bytes, MADV_HUGEPAGE);
      return p;
    }
  }
#endif
  unsigned char *p = malloc(bytes);
  if (!p)
    g_error("out of memory: %zu bytes", bytes);
  return p;
}

void rk__rt_set_world_rotation(rk__rt_run *c, int j, rk_quat w) {
  const int p = rk_skeleton_parent(c->rt->tgt, (size_t)j);
  const rk_quat pw = p < 0 ? rk_quat_identity() : c->limb_world[p];
  c->tgt_locals[j].r = rk_quat_normalize(rk_quat_mul(rk_quat_conj(pw), w));
  c->limb_world[j] = rk_quat_normalize(w);
}

void rk__rt_turned_path(rk__rt_run *c, int from, int to) {
  const rk_skeleton *s = c->rt->tgt;
  enum { LONGEST = 64 };
  int path[LONGEST];
  int n = 0;
  for (int j = to; j != from && j >= 0 && n < LONGEST; j = rk_skeleton_parent(s, (size_t)j))
    path[n++] = j;
  while (n-- > 0) {
    const int j = path[n];
    c->limb_world[j] =
        rk_quat_normalize(rk_quat_mul(c->limb_world[rk_skeleton_parent(s, (size_t)j)], c->tgt_locals[j].r));
  }
}

rk_vec3 rk__rt_pelvis_forward(const rk__rt_run *c) {
  const rk_retargeter *rt = c->rt;
  return rk_quat_rotate(c->tgt_world[rt->tgt_hips],
                        rk_quat_rotate(rk_quat_conj(rt->qt0[rt->tgt_hips]), rt->tmap.forward));
}

void rk__rt_set_pelvis_position(rk__rt_run *c, rk_vec3 p) {
  const rk_retargeter *rt = c->rt;
  const int hp = rk_skeleton_parent(rt->tgt, (size_t)rt->tgt_hips);
  rk_mat4 inv = rk_mat4_identity();
  if (hp >= 0 && !rk_mat4_inverse_affine(&c->tgt_models[hp], &inv))
    inv = rk_mat4_identity();
  c->tgt_locals[rt->tgt_hips].t = rk_mat4_transform_point(&inv, p);
  rk_fk_models(rt->tgt, c->tgt_locals, c->tgt_models);
}

void rk__rt_scratch_free(rk__rt_scratch *s) {
  if (s) {
    free(s->data);
    g_free(s);
  }
}

void rk__rt_scratch_reserve(rk__rt_run *c, const size_t *bytes, size_t n) {
  size_t need = SCRATCH_ALIGN; /* room to align the start */
  for (size_t i = 0; i < n; i++)
    need += scratch_round(bytes[i]);
  /* The retargeter is shared read-only by concurrent runs; only its spare block changes hands,
   * atomically. */
  rk__rt_scratch *s = g_atomic_pointer_exchange(&((rk_retargeter *)c->rt)->spare, NULL);
  if (s && s->capacity < need)
    g_clear_pointer(&s, rk__rt_scratch_free);
  if (!s) {
    s = g_new0(rk__rt_scratch, 1);
    s->capacity = need;
    s->data = scratch_alloc(need);
  }
  s->used = (size_t)(-(uintptr_t)s->data & (SCRATCH_ALIGN - 1));
  c->scratch = s;
}

void *rk__rt_scratch_carve(rk__rt_run *c, size_t bytes) {
  if (!bytes)
    return NULL;
  rk__rt_scratch *s = c->scratch;
  g_assert(s && s->used + scratch_round(bytes) <= s->capacity);
  void *p = s->data + s->used;
  s->used += scratch_round(bytes);
  return p;
}

/* Gives the run's scratch back to the retargeter (kept when none is there, it is not too large
 * and an earlier run ended: a retargeter that runs once frees it at once). */
static void scratch_give_back(rk__rt_run *c) {
  rk_retargeter *rt = (rk_retargeter *)c->rt;
  rk__rt_scratch *s = c->scratch;
  c->scratch = NULL;
  const bool again = g_atomic_int_add(&rt->runs_ended, 1) > 0;
  if (s && (!again || s->capacity > SCRATCH_KEEP_MAX ||
            !g_atomic_pointer_compare_and_exchange(&rt->spare, NULL, s)))
    rk__rt_scratch_free(s);
}

/* Frees the key storage: what the clip did not take (NULL-safe fields). */
static void keys_clear(rk__rt_keys *bb, size_t nt) {
  for (size_t j = 0; bb->rot && j < nt; j++) {
    g_free(bb->rot[j]);
    g_free(bb->inv[j]);
    g_free(bb->trans[j]);
  }
  g_clear_pointer(&bb->rot, g_free);
  g_clear_pointer(&bb->inv, g_free);
  g_clear_pointer(&bb->trans, g_free);
  g_clear_pointer(&bb->rot_used, g_free);
  g_clear_pointer(&bb->trans_used, g_free);
  bb->times = NULL; /* carved from the scratch */
}

void rk__rt_ik_clear(rk__rt_ik *ik) {
  double **configurations[] = {&ik->q, &ik->q_fk, &ik->q_prev};
  for (size_t i = 0; i < G_N_ELEMENTS(configurations); i++)
    g_clear_pointer(configurations[i], g_free);
  g_clear_pointer(&ik->locked, g_free);
  g_clear_pointer(&ik->tree_models, g_free);
  g_clear_pointer(&ik->ws, rk_ik_ws_free);
}

void rk__rt_run_clear(rk__rt_run *c) {
  g_clear_pointer(&c->src_joints, g_free);
  g_clear_pointer(&c->src_keys, g_free);
  g_clear_pointer(&c->src_locals, g_free);
  g_clear_pointer(&c->src_models, g_free);
  g_clear_pointer(&c->src_world, g_free);
  g_clear_pointer(&c->src_moves, g_free);
  g_clear_pointer(&c->tgt_world, g_free);
  g_clear_pointer(&c->limb_world, g_free);
  g_clear_pointer(&c->redo, g_free);
  g_clear_pointer(&c->hips_chain, g_free);
  g_clear_pointer(&c->tgt_locals, g_free);
  g_clear_pointer(&c->tgt_models, g_free);
  g_clear_pointer(&c->lift, g_free);
  g_clear_pointer(&c->reach_drop, g_free);
  g_clear_pointer(&c->src_below, g_free);
  g_clear_pointer(&c->body_floor, g_free);
  g_clear_pointer(&c->own_below, g_free);
  for (int side = 0; side < 2; side++)
    for (int p = 0; p < RK__RT_POINTS; p++) {
      g_clear_pointer(&c->pins[side][p], g_array_unref);
      g_clear_pointer(&c->rolling[side][p], g_array_unref);
      g_clear_pointer(&c->edges[side][p], g_array_unref);
    }
  rk__rt_ik_clear(&c->ik);
  g_clear_pointer(&c->tally.limb_cos, g_free);
  g_clear_pointer(&c->tgt_moves, g_free);
  g_clear_pointer(&c->t_joints, g_free);
  keys_clear(&c->keys, c->rt->nt);
  /* The per-frame arrays were carved from the scratch. */
  c->src_cache_q = NULL, c->src_cache_p = NULL, c->src_cache_d = NULL, c->hips_lift = NULL;
  c->tgt_rot_cache = NULL, c->tgt_t_cache = NULL, c->tgt_world_cache = NULL;
  c->src_pts = NULL, c->tgt_pts = NULL, c->tgt_body = NULL, c->src_shin = NULL;
  c->src_stand = NULL, c->tgt_apart = NULL, c->src_low = NULL, c->region_joints = NULL;
  scratch_give_back(c);
}
