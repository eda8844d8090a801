/* Retargeting, the pose transfer's rotations four joints at a time: the world rotations of the
 * target joints driven by a source joint (its rotation, and for a bone with its own direction the
 * turn onto the source bone) and every joint's local rotation, in the lanes of quat_lanes.h. A
 * lane does what the scalar transfer (retarget_transfer.c) does for its joint, operation for
 * operation, so the results are the same bits on every CPU level; the groups of joints are made
 * once per retargeter. */
#include "retarget_run.h"

#include "cpu.h"
#include "quat_lanes.h"

/* Four joints whose rotations are computed together (the last one repeated in unused lanes). */
typedef struct rk__rt_group {
  int joint[4];       /* target joints */
  int parent[4];      /* their parents (local rotations) */
  int slot[4];        /* their counterparts' slots among the used source joints */
  int child[4];       /* DIRECTION: the slots of the source bones' far ends */
  int count;          /* lanes in use */
  double qs0[4][4];   /* [component][lane]: the counterparts' rest world rotations */
  double qt0[4][4];   /* the target joints' rest world rotations */
  double bone[3][4];  /* DIRECTION: the target bone in its joint's rest frame */
} rk__rt_group;

struct rk__rt_lanes {
  rk__rt_group *rot, *dir, *local; /* ROTATION joints, DIRECTION joints, joints with a parent */
  size_t rot_count, dir_count, local_count;
};

/* Fills group g's lane l with target joint j. */
static void set_lane(const rk_retargeter *rt, rk__rt_group *g, int l, int j) {
  const rk__rt_rule *r = &rt->rules[j];
  g->joint[l] = j;
  g->parent[l] = rk_skeleton_parent(rt->tgt, (size_t)j);
  g->slot[l] = r->kind == RK__RULE_REST ? 0 : rt->src_slot[r->src];
  g->child[l] = r->kind == RK__RULE_DIRECTION ? rt->src_slot[r->src_child] : g->slot[l];
  const rk_quat qs = r->kind == RK__RULE_REST ? rk_quat_identity() : rt->qs0[r->src];
  const rk_quat qt = rt->qt0[j];
  const double s4[4] = {qs.x, qs.y, qs.z, qs.w}, t4[4] = {qt.x, qt.y, qt.z, qt.w};
  for (int k = 0; k < 4; k++) {
    g->qs0[k][l] = s4[k];
    g->qt0[k][l] = t4[k];
  }
  /* As the scalar transfer turns it, once. */
  const rk_vec3 b = r->kind == RK__RULE_DIRECTION
                        ? rk_quat_rotate(rk_quat_conj(rt->qt0[j]),
                                         rk_vec3_sub(rt->pt0[r->tgt_child], rt->pt0[j]))
                        : rk_vec3_make(0, 0, 0);
  g->bone[0][l] = b.x, g->bone[1][l] = b.y, g->bone[2][l] = b.z;
}

/* The joints that pass `keep` in groups of four; *count the groups. */
static rk__rt_group *make_groups(const rk_retargeter *rt, bool (*keep)(const rk_retargeter *, size_t),
                                 size_t *count) {
  size_t n = 0;
  for (size_t j = 0; j < rt->nt; j++)
    n += keep(rt, j);
  *count = (n + 3) / 4;
  rk__rt_group *g = g_new0(rk__rt_group, *count ? *count : 1);
  size_t k = 0;
  for (size_t j = 0; j < rt->nt; j++) {
    if (!keep(rt, j))
      continue;
    rk__rt_group *gr = &g[k / 4];
    for (int l = (int)(k % 4); l < 4; l++) /* this joint fills the rest until the next comes */
      set_lane(rt, gr, l, (int)j);
    gr->count = (int)(k % 4) + 1;
    k++;
  }
  return g;
}

static bool is_rotation(const rk_retargeter *rt, size_t j) {
  return rt->rules[j].kind == RK__RULE_ROTATION;
}

static bool is_direction(const rk_retargeter *rt, size_t j) {
  return rt->rules[j].kind == RK__RULE_DIRECTION;
}

static bool has_parent(const rk_retargeter *rt, size_t j) {
  return rk_skeleton_parent(rt->tgt, j) >= 0;
}

rk__rt_lanes *rk__rt_lanes_new(const rk_retargeter *rt) {
  rk__rt_lanes *x = g_new0(rk__rt_lanes, 1);
  x->rot = make_groups(rt, is_rotation, &x->rot_count);
  x->dir = make_groups(rt, is_direction, &x->dir_count);
  x->local = make_groups(rt, has_parent, &x->local_count);
  return x;
}

void rk__rt_lanes_free(rk__rt_lanes *x) {
  if (x) {
    g_free(x->rot);
    g_free(x->dir);
    g_free(x->local);
    g_free(x);
  }
}

/* Component k of a group's constant quaternion table as lanes. */
static inline __attribute__((always_inline)) void load_q(rk__q4 *o, const double t[4][4]) {
  memcpy(&o->x, t[0], sizeof o->x);
  memcpy(&o->y, t[1], sizeof o->y);
  memcpy(&o->z, t[2], sizeof o->z);
  memcpy(&o->w, t[3], sizeof o->w);
}

/* World positions (travel included) of used source joints at slots at[] in the current frame:
 * rk__rt_src_pos in lanes. */
static inline __attribute__((always_inline)) void src_pos4(const rk__rt_run *c, const int at[4],
                                                           rk__p4 *o) {
  rk__p4_gather(o, c->cur_p, at);
  const double t = c->cur_t;
  o->x = o->x + c->travel.x * t;
  o->y = o->y + c->travel.y * t;
  o->z = o->z + c->travel.z * t;
}

/* The bones' direction turns of a DIRECTION group, w the rotations before them (transfer_rotation
 * in retarget_transfer.c): lanes whose source bone has length turn; those whose from-to rotation
 * is the opposite case are set in *redo. */
static inline __attribute__((always_inline)) void turn_bones(const rk__rt_run *c,
                                                             const rk__rt_group *g, const rk__q4 *A,
                                                             rk__q4 *w, rk__v4i *redo) {
  rk__p4 ps, pc, sd, bone, cur, want;
  src_pos4(c, g->child, &pc);
  src_pos4(c, g->slot, &ps);
  sd.x = pc.x - ps.x, sd.y = pc.y - ps.y, sd.z = pc.z - ps.z;
  rk__v4d d2, len;
  rk__p4_dot(&d2, &sd, &sd);
  rk__v4d_sqrt(&len, &d2);
  const rk__v4i moves = len > 1e-9;
  memcpy(&bone.x, g->bone[0], sizeof bone.x);
  memcpy(&bone.y, g->bone[1], sizeof bone.y);
  memcpy(&bone.z, g->bone[2], sizeof bone.z);
  rk__q4_rotate(&cur, w, &bone);
  rk__q4_rotate(&want, A, &sd);
  rk__q4 turn, turned;
  rk__v4i opposite;
  rk__q4_from_to(&turn, &cur, &want, &opposite);
  rk__q4_mul(&turned, &turn, w);
  w->x = RK__V4D_PICK(moves, turned.x, w->x);
  w->y = RK__V4D_PICK(moves, turned.y, w->y);
  w->z = RK__V4D_PICK(moves, turned.z, w->z);
  w->w = RK__V4D_PICK(moves, turned.w, w->w);
  *redo = moves & opposite;
}

/* The normalised world rotations of one group into world; the joints whose lanes could not be
 * done appended to redo. */
static inline __attribute__((always_inline)) void world_group(const rk__rt_run *c,
                                                              const rk__rt_group *g, bool direction,
                                                              rk_quat *world, int *redo,
                                                              size_t *nredo) {
  rk__q4 A, Ai, s, q0, t0, w;
  rk__q4_splat(&A, c->rt->align);
  rk__q4_conj(&Ai, &A);
  rk__q4_gather(&s, c->cur_q, g->slot);
  load_q(&q0, g->qs0);
  load_q(&t0, g->qt0);
  /* World rotation relative to rest, turned into the target's facing. */
  rk__q4_conj(&q0, &q0);
  rk__q4_mul(&s, &s, &q0);
  rk__q4_mul(&w, &A, &s);
  rk__q4_mul(&w, &w, &Ai);
  rk__q4_mul(&w, &w, &t0);
  rk__v4i bad = {0, 0, 0, 0};
  if (direction)
    turn_bones(c, g, &A, &w, &bad);
  rk__q4_normalize(&w, &w);
  rk__q4_scatter(&w, world, g->joint, g->count);
  for (int l = 0; l < g->count; l++)
    if (bad[l])
      redo[(*nredo)++] = g->joint[l];
}

/* Local rotations of one group: normalize(conj(world[parent]) world[joint]). */
static inline __attribute__((always_inline)) void local_group(const rk__rt_group *g,
                                                              const rk_quat *world,
                                                              rk_transform *locals) {
  rk__q4 p, q;
  rk__q4_gather(&p, world, g->parent);
  rk__q4_gather(&q, world, g->joint);
  rk__q4_conj(&p, &p);
  rk__q4_mul(&q, &p, &q);
  rk__q4_normalize(&q, &q);
  for (int l = 0; l < g->count; l++)
    locals[g->joint[l]].r = rk_quat_make(q.x[l], q.y[l], q.z[l], q.w[l]);
}

RK__MULTIVERSION_EXACT(size_t, world_lanes, (const rk__rt_run *c, rk_quat *world, int *redo),
                       (c, world, redo), {
                         const rk__rt_lanes *x = c->rt->lanes;
                         size_t n = 0;
                         for (size_t i = 0; i < x->rot_count; i++)
                           world_group(c, &x->rot[i], false, world, redo, &n);
                         for (size_t i = 0; i < x->dir_count; i++)
                           world_group(c, &x->dir[i], true, world, redo, &n);
                         return n;
                       })

RK__MULTIVERSION_EXACT(void, local_lanes,
                       (const rk__rt_lanes *x, const rk_quat *world, rk_transform *locals),
                       (x, world, locals), {
                         for (size_t i = 0; i < x->local_count; i++)
                           local_group(&x->local[i], world, locals);
                       })

size_t rk__rt_world_lanes(const rk__rt_run *c, rk_quat *world, int *redo) {
  return world_lanes(c, world, redo);
}

void rk__rt_local_lanes(const rk_retargeter *rt, const rk_quat *world, rk_transform *locals) {
  local_lanes(rt->lanes, world, locals);
}
