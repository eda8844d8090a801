/* Retargeting: pose transfer between humanoid rigs, root motion, contacts, foot/hand IK, baking. */
#include <rigkit/error.h>
#include <rigkit/fk.h>
#include <rigkit/ik.h>
#include <rigkit/loop.h>
#include <rigkit/retarget.h>
#include <rigkit/tree.h>

#include <string.h>

/* How a target joint is driven. */
typedef enum rule_kind {
  RULE_REST,      /* keeps its rest local rotation */
  RULE_ROTATION,  /* world rotation relative to rest, from the source joint */
  RULE_DIRECTION, /* bone direction from the source bone, twist from the source's rotation */
} rule_kind;

typedef struct joint_rule {
  rule_kind kind;
  int src;       /* source joint */
  int src_child; /* DIRECTION: source joint at the far end of the bone */
  int tgt_child; /* DIRECTION: target joint at the far end of the bone */
} joint_rule;

/* The bones whose directions are transferred, with the bone at their far end (first mapped of
 * the list wins: a spine without a chest points at the neck, ...). */
static const struct {
  rk_bone bone;
  rk_bone ends[3];
} direction_bones[] = {
    {RK_BONE_SPINE, {RK_BONE_CHEST, RK_BONE_NECK, RK_BONE_HEAD}},
    {RK_BONE_CHEST, {RK_BONE_NECK, RK_BONE_HEAD, RK_BONE_HEAD}},
    {RK_BONE_NECK, {RK_BONE_HEAD, RK_BONE_HEAD, RK_BONE_HEAD}},
    {RK_BONE_LEFT_SHOULDER, {RK_BONE_LEFT_UPPER_ARM, RK_BONE_LEFT_FOREARM, RK_BONE_LEFT_FOREARM}},
    {RK_BONE_LEFT_UPPER_ARM, {RK_BONE_LEFT_FOREARM, RK_BONE_LEFT_HAND, RK_BONE_LEFT_HAND}},
    {RK_BONE_LEFT_FOREARM, {RK_BONE_LEFT_HAND, RK_BONE_LEFT_HAND, RK_BONE_LEFT_HAND}},
    {RK_BONE_RIGHT_SHOULDER, {RK_BONE_RIGHT_UPPER_ARM, RK_BONE_RIGHT_FOREARM, RK_BONE_RIGHT_FOREARM}},
    {RK_BONE_RIGHT_UPPER_ARM, {RK_BONE_RIGHT_FOREARM, RK_BONE_RIGHT_HAND, RK_BONE_RIGHT_HAND}},
    {RK_BONE_RIGHT_FOREARM, {RK_BONE_RIGHT_HAND, RK_BONE_RIGHT_HAND, RK_BONE_RIGHT_HAND}},
    {RK_BONE_LEFT_UPPER_LEG, {RK_BONE_LEFT_LOWER_LEG, RK_BONE_LEFT_FOOT, RK_BONE_LEFT_FOOT}},
    {RK_BONE_LEFT_LOWER_LEG, {RK_BONE_LEFT_FOOT, RK_BONE_LEFT_FOOT, RK_BONE_LEFT_FOOT}},
    {RK_BONE_RIGHT_UPPER_LEG, {RK_BONE_RIGHT_LOWER_LEG, RK_BONE_RIGHT_FOOT, RK_BONE_RIGHT_FOOT}},
    {RK_BONE_RIGHT_LOWER_LEG, {RK_BONE_RIGHT_FOOT, RK_BONE_RIGHT_FOOT, RK_BONE_RIGHT_FOOT}},
};

/* Bones whose world rotation relative to rest is transferred. */
static const rk_bone rotation_bones[] = {RK_BONE_HIPS,       RK_BONE_HEAD,       RK_BONE_LEFT_HAND,
                                         RK_BONE_RIGHT_HAND, RK_BONE_LEFT_FOOT,  RK_BONE_RIGHT_FOOT,
                                         RK_BONE_LEFT_TOES,  RK_BONE_RIGHT_TOES};

/* The limbs whose directions the quality figures compare. */
static const rk_bone limb_bones[8][2] = {
    {RK_BONE_LEFT_UPPER_ARM, RK_BONE_LEFT_FOREARM},   {RK_BONE_LEFT_FOREARM, RK_BONE_LEFT_HAND},
    {RK_BONE_RIGHT_UPPER_ARM, RK_BONE_RIGHT_FOREARM}, {RK_BONE_RIGHT_FOREARM, RK_BONE_RIGHT_HAND},
    {RK_BONE_LEFT_UPPER_LEG, RK_BONE_LEFT_LOWER_LEG}, {RK_BONE_LEFT_LOWER_LEG, RK_BONE_LEFT_FOOT},
    {RK_BONE_RIGHT_UPPER_LEG, RK_BONE_RIGHT_LOWER_LEG}, {RK_BONE_RIGHT_LOWER_LEG, RK_BONE_RIGHT_FOOT}};

/* A foot joint that may be planted: source and target joints. */
#define MAX_FEET 4
typedef struct foot_joint {
  rk_bone bone;
  int src, tgt;
  int side;               /* 0 left, 1 right */
  double src_rest_height; /* above the source's rest ground */
} foot_joint;

struct rk_retargeter {
  rk_skeleton *src, *tgt;
  rk_humanoid_map smap, tmap;
  size_t ns, nt;
  rk_quat *qs0;  /* source rest world rotations */
  rk_vec3 *ps0;  /* source rest world positions */
  rk_quat *qt0;  /* target rest world rotations */
  rk_vec3 *pt0;  /* target rest world positions */
  rk_quat align; /* turns the source's facing onto the target's (about the up axis) */
  double scale;  /* target hip height / source hip height */
  joint_rule *rules;
  int src_hips, tgt_hips;
  foot_joint feet[MAX_FEET];
  size_t foot_count;
  rk_tree *tree;     /* the target as a mechanism: hips free, everything else as built */
  int *leg_joints[2];/* target joints (links) from upper leg to toes (or foot), per side */
  size_t leg_count[2];
  int *arm_joints[2];/* target joints from upper arm to hand, per side */
  size_t arm_count[2];
  size_t mapped;
  int *src_slot;    /* source joint -> index among the joints the transfer reads, or -1 */
  size_t src_used;  /* how many */
};

/* ---- construction ---------------------------------------------------------------------------- */

static void rest_world(const rk_skeleton *s, rk_quat *q, rk_vec3 *p) {
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_mat4 *m = g_new(rk_mat4, n);
  rk_skeleton_rest_models(s, m);
  for (size_t j = 0; j < n; j++) {
    int par = rk_skeleton_parent(s, j);
    q[j] = rk_quat_normalize(par < 0 ? rk_skeleton_rest(s, j)->r
                                     : rk_quat_mul(q[par], rk_skeleton_rest(s, j)->r));
    p[j] = rk_mat4_get_translation(&m[j]);
  }
}

/* Joints from `from` down to `to` (inclusive), root first, into a new array. */
static int *path_down(const rk_skeleton *s, int from, int to, size_t *count) {
  *count = 0;
  if (from < 0 || to < 0 || !rk_skeleton_is_ancestor(s, (size_t)from, (size_t)to))
    return NULL;
  size_t n = 0;
  for (int j = to; j != from; j = rk_skeleton_parent(s, (size_t)j))
    n++;
  n++;
  int *out = g_new(int, n);
  size_t k = n;
  for (int j = to;; j = rk_skeleton_parent(s, (size_t)j)) {
    out[--k] = j;
    if (j == from)
      break;
  }
  *count = n;
  return out;
}

rk_retargeter *rk_retargeter_new(rk_skeleton *source, const rk_humanoid_map *source_map,
                                 rk_skeleton *target, const rk_humanoid_map *target_map,
                                 GError **error) {
  g_return_val_if_fail(source && source_map && target && target_map, NULL);
  if (!rk_humanoid_map_validate(source_map, source, error)) {
    g_prefix_error(error, "source rig: ");
    return NULL;
  }
  if (!rk_humanoid_map_validate(target_map, target, error)) {
    g_prefix_error(error, "target rig: ");
    return NULL;
  }
  rk_retargeter *rt = g_new0(rk_retargeter, 1);
  rt->src = rk_skeleton_ref(source);
  rt->tgt = rk_skeleton_ref(target);
  rt->smap = *source_map;
  rt->tmap = *target_map;
  rt->ns = rk_skeleton_joint_count(source);
  rt->nt = rk_skeleton_joint_count(target);
  rt->qs0 = g_new(rk_quat, rt->ns);
  rt->ps0 = g_new(rk_vec3, rt->ns);
  rt->qt0 = g_new(rk_quat, rt->nt);
  rt->pt0 = g_new(rk_vec3, rt->nt);
  rest_world(source, rt->qs0, rt->ps0);
  rest_world(target, rt->qt0, rt->pt0);
  rt->align = rk_quat_from_to(source_map->forward, target_map->forward);
  rt->scale = source_map->hip_height > 0 ? target_map->hip_height / source_map->hip_height : 1.0;
  rt->src_hips = source_map->joint[RK_BONE_HIPS];
  rt->tgt_hips = target_map->joint[RK_BONE_HIPS];

  rt->rules = g_new0(joint_rule, rt->nt);
  for (size_t j = 0; j < rt->nt; j++)
    rt->rules[j].kind = RULE_REST;
  for (int b = 0; b < RK_BONE_COUNT; b++)
    rt->mapped += source_map->joint[b] >= 0 && target_map->joint[b] >= 0;
  for (size_t i = 0; i < G_N_ELEMENTS(rotation_bones); i++) {
    rk_bone b = rotation_bones[i];
    int t = target_map->joint[b], s = source_map->joint[b];
    if (t >= 0 && s >= 0)
      rt->rules[t] = (joint_rule){RULE_ROTATION, s, -1, -1};
  }
  for (size_t i = 0; i < G_N_ELEMENTS(direction_bones); i++) {
    rk_bone b = direction_bones[i].bone;
    int t = target_map->joint[b], s = source_map->joint[b];
    if (t < 0 || s < 0)
      continue;
    rt->rules[t] = (joint_rule){RULE_ROTATION, s, -1, -1};
    for (int e = 0; e < 3; e++) {
      rk_bone end = direction_bones[i].ends[e];
      int te = target_map->joint[end], se = source_map->joint[end];
      /* Both bones must have length: a zero-length bone has no direction. */
      if (te >= 0 && se >= 0 && rk_vec3_norm(rk_vec3_sub(rt->pt0[te], rt->pt0[t])) > 1e-6 * target_map->height &&
          rk_vec3_norm(rk_vec3_sub(rt->ps0[se], rt->ps0[s])) > 1e-6 * source_map->height) {
        rt->rules[t] = (joint_rule){RULE_DIRECTION, s, se, te};
        break;
      }
    }
  }

  static const rk_bone foot_bones[MAX_FEET] = {RK_BONE_LEFT_FOOT, RK_BONE_LEFT_TOES,
                                               RK_BONE_RIGHT_FOOT, RK_BONE_RIGHT_TOES};
  for (int i = 0; i < MAX_FEET; i++) {
    int s = source_map->joint[foot_bones[i]], t = target_map->joint[foot_bones[i]];
    if (s >= 0 && t >= 0)
      rt->feet[rt->foot_count++] =
          (foot_joint){foot_bones[i], s, t, i >= 2, rt->ps0[s].y - source_map->ground};
  }
  for (int side = 0; side < 2; side++) {
    rk_bone up = side ? RK_BONE_RIGHT_UPPER_LEG : RK_BONE_LEFT_UPPER_LEG;
    int end = target_map->joint[up + 3] >= 0 ? target_map->joint[up + 3] : target_map->joint[up + 2];
    rt->leg_joints[side] = path_down(target, target_map->joint[up], end, &rt->leg_count[side]);
    rk_bone ua = side ? RK_BONE_RIGHT_UPPER_ARM : RK_BONE_LEFT_UPPER_ARM;
    rt->arm_joints[side] = path_down(target, target_map->joint[ua], target_map->joint[ua + 2],
                                     &rt->arm_count[side]);
  }

  /* The target as a mechanism: every joint as the tree builds it without motion (balls), the
   * hips free so the pelvis can translate when both feet hold it. */
  rk_tree_options topts;
  rk_tree_options_init(&topts);
  rk_joint_spec hips_spec = {0};
  hips_spec.name = rk_skeleton_joint_name(target, (size_t)rt->tgt_hips);
  hips_spec.type = RK_JOINT_FREE;
  hips_spec.order = RK_EULER_N_ORDERS;
  topts.joints = &hips_spec;
  topts.joint_count = 1;
  /* The source joints a frame's transfer reads (rotations, bone ends, hips, feet, arms for the
   * hand goals): a run keeps only these per frame. */
  rt->src_slot = g_new(int, rt->ns);
  for (size_t j = 0; j < rt->ns; j++)
    rt->src_slot[j] = -1;
  for (size_t j = 0; j < rt->nt; j++)
    if (rt->rules[j].kind != RULE_REST) {
      rt->src_slot[rt->rules[j].src] = 0;
      if (rt->rules[j].src_child >= 0)
        rt->src_slot[rt->rules[j].src_child] = 0;
    }
  rt->src_slot[rt->src_hips] = 0;
  for (size_t k = 0; k < rt->foot_count; k++)
    rt->src_slot[rt->feet[k].src] = 0;
  for (int b = 0; b < RK_BONE_COUNT; b++)
    if (source_map->joint[b] >= 0 && target_map->joint[b] >= 0)
      rt->src_slot[source_map->joint[b]] = 0;
  for (size_t j = 0; j < rt->ns; j++)
    if (rt->src_slot[j] == 0)
      rt->src_slot[j] = (int)rt->src_used++;
  rt->tree = rk_tree_from_skeleton(target, NULL, &topts, error);
  if (!rt->tree) {
    g_prefix_error(error, "target rig: ");
    rk_retargeter_free(rt);
    return NULL;
  }
  return rt;
}

void rk_retargeter_free(rk_retargeter *rt) {
  if (!rt)
    return;
  rk_skeleton_free(rt->src);
  rk_skeleton_free(rt->tgt);
  g_free(rt->qs0);
  g_free(rt->ps0);
  g_free(rt->qt0);
  g_free(rt->pt0);
  g_free(rt->rules);
  g_free(rt->src_slot);
  for (int s = 0; s < 2; s++) {
    g_free(rt->leg_joints[s]);
    g_free(rt->arm_joints[s]);
  }
  rk_tree_free(rt->tree);
  g_free(rt);
}

const rk_skeleton *rk_retargeter_source(const rk_retargeter *rt) {
  return rt->src;
}

const rk_skeleton *rk_retargeter_target(const rk_retargeter *rt) {
  return rt->tgt;
}

size_t rk_retargeter_mapped_joints(const rk_retargeter *rt) {
  return rt->mapped;
}

/* ---- per-frame pose transfer ----------------------------------------------------------------- */

/* Default of rk_retarget_options.cache_bytes. */
#define RK__RETARGET_CACHE_BYTES ((size_t)256 << 20)

/* Scratch of one run (one thread). */
typedef struct run_ctx {
  const rk_retargeter *rt;
  const rk_clip *clip;
  double fps, duration;
  rk_transform *src_locals;
  rk_mat4 *src_models;
  rk_quat *src_world;  /* source world rotations (all joints, of the last sampled frame) */
  /* The used source joints' world rotations and positions (without travel), per frame when
   * cached (src_cache_q/p: frames x rt->src_used), else of the current frame only. */
  rk_quat *src_cache_q;
  rk_vec3 *src_cache_p;
  bool cached;
  const rk_quat *cur_q; /* the current frame's slice */
  const rk_vec3 *cur_p;
  double cur_t;
  rk_transform *tgt_cache; /* transferred target locals per frame (cached runs) */
  rk_quat *tgt_world_cache; /* and the world rotations they came from */
  rk_quat *tgt_world;
  rk_transform *tgt_locals;
  rk_mat4 *tgt_models;
  double src_ground;
  double tgt_ground;
  rk_vec3 travel; /* velocity added to the source (in-place clips with root_motion) */
  const double *src_sole; /* per frame and side: the source foot's lowest point (pass 1) */
  size_t cur_f;
} run_ctx;

static rk_vec3 horizontal(rk_vec3 v) {
  return rk_vec3_make(v.x, 0, v.z);
}

static double frame_time(const run_ctx *c, size_t f) {
  return fmin((double)f / c->fps, c->duration);
}

/* Samples the source at frame f: the whole pose (src_locals, src_models, src_world) and the used
 * joints' slice (into the cache at f, or the single-frame slice). */
static void sample_source(run_ctx *c, size_t f) {
  const rk_retargeter *rt = c->rt;
  const double t = frame_time(c, f);
  rk_clip_sample(c->clip, rk_skeleton_rest_locals(rt->src), t, c->src_locals, rt->ns);
  rk_fk_models(rt->src, c->src_locals, c->src_models);
  const size_t base = c->cached ? f * rt->src_used : 0;
  for (size_t j = 0; j < rt->ns; j++) {
    int p = rk_skeleton_parent(rt->src, j);
    c->src_world[j] = p < 0 ? c->src_locals[j].r : rk_quat_mul(c->src_world[p], c->src_locals[j].r);
    const int slot = rt->src_slot[j];
    if (slot >= 0) {
      c->src_cache_q[base + (size_t)slot] = c->src_world[j];
      c->src_cache_p[base + (size_t)slot] = rk_mat4_get_translation(&c->src_models[j]);
    }
  }
  c->cur_q = c->src_cache_q + base;
  c->cur_p = c->src_cache_p + base;
  c->cur_t = t;
  c->cur_f = f;
}

/* Makes frame f the current source frame: from the cache, or sampled again. */
static void load_source(run_ctx *c, size_t f) {
  if (c->cached) {
    c->cur_q = c->src_cache_q + f * c->rt->src_used;
    c->cur_p = c->src_cache_p + f * c->rt->src_used;
    c->cur_t = frame_time(c, f);
    c->cur_f = f;
  } else {
    sample_source(c, f);
  }
}

/* World rotation and position (travel included) of a used source joint in the current frame. */
static rk_quat src_rot(const run_ctx *c, int j) {
  return c->cur_q[c->rt->src_slot[j]];
}

static rk_vec3 src_pos(const run_ctx *c, int j) {
  return rk_vec3_add(c->cur_p[c->rt->src_slot[j]], rk_vec3_scale(c->travel, c->cur_t));
}

/* Target pose for the current source pose: locals and models. */
static void transfer_pose(run_ctx *c) {
  const rk_retargeter *rt = c->rt;
  const rk_transform *rest = rk_skeleton_rest_locals(rt->tgt);
  const rk_quat A = rt->align, Ai = rk_quat_conj(A);
  for (size_t j = 0; j < rt->nt; j++) {
    const int p = rk_skeleton_parent(rt->tgt, j);
    const joint_rule *r = &rt->rules[j];
    rk_quat w;
    if (r->kind == RULE_REST) {
      w = p < 0 ? rest[j].r : rk_quat_mul(c->tgt_world[p], rest[j].r);
    } else {
      /* World rotation relative to rest, turned into the target's facing. */
      rk_quat delta = rk_quat_mul(src_rot(c, r->src), rk_quat_conj(rt->qs0[r->src]));
      w = rk_quat_mul(rk_quat_mul(rk_quat_mul(A, delta), Ai), rt->qt0[j]);
      if (r->kind == RULE_DIRECTION) {
        rk_vec3 sd = rk_vec3_sub(src_pos(c, r->src_child), src_pos(c, r->src));
        if (rk_vec3_norm(sd) > 1e-9) {
          rk_vec3 bone = rk_quat_rotate(rk_quat_conj(rt->qt0[j]),
                                        rk_vec3_sub(rt->pt0[r->tgt_child], rt->pt0[j]));
          rk_vec3 cur = rk_quat_rotate(w, bone);
          rk_vec3 want = rk_quat_rotate(A, sd);
          w = rk_quat_mul(rk_quat_from_to(cur, want), w);
        }
      }
    }
    c->tgt_world[j] = rk_quat_normalize(w);
    c->tgt_locals[j] = rest[j];
    c->tgt_locals[j].r =
        p < 0 ? c->tgt_world[j] : rk_quat_normalize(rk_quat_mul(rk_quat_conj(c->tgt_world[p]), c->tgt_world[j]));
  }
  /* Root motion: the hips follow the source's horizontally, scaled by the hip heights; their
   * height puts the target's lower sole as far above its ground as the source's lower sole above
   * the clip's ground (scaled, never below it), so the legs keep the source's directions and the
   * feet neither float nor sink whatever the two rigs' leg proportions. */
  const int sh = rt->src_hips, th = rt->tgt_hips;
  rk_vec3 ds = horizontal(rk_vec3_sub(src_pos(c, sh), rt->ps0[sh]));
  rk_vec3 dh = rk_vec3_scale(rk_quat_rotate(A, ds), rt->scale);
  rk_vec3 want = rk_vec3_make(rt->pt0[th].x + dh.x,
                              c->tgt_ground + rt->scale * (src_pos(c, sh).y - c->src_ground),
                              rt->pt0[th].z + dh.z);
  rk_fk_models(rt->tgt, c->tgt_locals, c->tgt_models);
  const int hp = rk_skeleton_parent(rt->tgt, (size_t)th);
  rk_mat4 inv = rk_mat4_identity();
  if (hp >= 0 && !rk_mat4_inverse_affine(&c->tgt_models[hp], &inv))
    inv = rk_mat4_identity();
  c->tgt_locals[th].t = rk_mat4_transform_point(&inv, want);
  rk_fk_models(rt->tgt, c->tgt_locals, c->tgt_models);
  if (c->src_sole) {
    /* Never below the ground: a source sole dipping under the clip's typical ground (a toe at
     * push-off, capture noise) leaves the target's sole on its ground. */
    const double src_clear =
        fmax(0.0, fmin(c->src_sole[2 * c->cur_f], c->src_sole[2 * c->cur_f + 1]) - c->src_ground);
    double sole = INFINITY;
    for (int side = 0; side < 2; side++) {
      const size_t a = (size_t)rt->tmap.joint[side ? RK_BONE_RIGHT_FOOT : RK_BONE_LEFT_FOOT];
      for (size_t j = a; j < rk_skeleton_subtree_end(rt->tgt, a); j++)
        sole = fmin(sole, c->tgt_models[j].m[13]);
    }
    want.y += c->tgt_ground + rt->scale * src_clear - sole;
    c->tgt_locals[th].t = rk_mat4_transform_point(&inv, want);
    rk_fk_models(rt->tgt, c->tgt_locals, c->tgt_models);
  }
}

/* The transferred pose of frame f from the cache: locals, world rotations and models. */
static void restore_pose(run_ctx *c, size_t f) {
  const rk_retargeter *rt = c->rt;
  memcpy(c->tgt_locals, c->tgt_cache + f * rt->nt, rt->nt * sizeof(rk_transform));
  memcpy(c->tgt_world, c->tgt_world_cache + f * rt->nt, rt->nt * sizeof(rk_quat));
  rk_fk_models(rt->tgt, c->tgt_locals, c->tgt_models);
}

static void run_ctx_clear(run_ctx *c) {
  g_clear_pointer(&c->src_locals, g_free);
  g_clear_pointer(&c->src_models, g_free);
  g_clear_pointer(&c->src_world, g_free);
  g_clear_pointer(&c->src_cache_q, g_free);
  g_clear_pointer(&c->src_cache_p, g_free);
  g_clear_pointer(&c->tgt_cache, g_free);
  g_clear_pointer(&c->tgt_world_cache, g_free);
  g_clear_pointer(&c->tgt_world, g_free);
  g_clear_pointer(&c->tgt_locals, g_free);
  g_clear_pointer(&c->tgt_models, g_free);
}

/* ---- results --------------------------------------------------------------------------------- */

struct rk_retarget_result {
  rk_clip *clip;
  size_t frames;
  double fps;
  size_t contact_count;
  int contact_joint[MAX_FEET];
  GArray *intervals[MAX_FEET]; /* rk_contact_interval */
  rk_retarget_quality quality, quality_fk;
  double *heights_fk, *heights_ik;
  rk_vec3 ground_velocity; /* source space, units per second */
  bool in_place;
};

void rk_retarget_result_free(rk_retarget_result *r) {
  if (!r)
    return;
  rk_clip_free(r->clip);
  for (int i = 0; i < MAX_FEET; i++)
    if (r->intervals[i])
      g_array_unref(r->intervals[i]);
  g_free(r->heights_fk);
  g_free(r->heights_ik);
  g_free(r);
}

const rk_clip *rk_retarget_result_clip(const rk_retarget_result *r) {
  return r->clip;
}

rk_clip *rk_retarget_result_take_clip(rk_retarget_result *r) {
  rk_clip *c = r->clip;
  r->clip = NULL;
  return c;
}

size_t rk_retarget_result_frames(const rk_retarget_result *r) {
  return r->frames;
}

double rk_retarget_result_fps(const rk_retarget_result *r) {
  return r->fps;
}

size_t rk_retarget_result_contact_count(const rk_retarget_result *r) {
  return r->contact_count;
}

rk_foot_contacts rk_retarget_result_contacts(const rk_retarget_result *r, size_t i) {
  rk_foot_contacts fc = {-1, 0, NULL};
  if (i < r->contact_count) {
    fc.joint = r->contact_joint[i];
    fc.count = r->intervals[i]->len;
    fc.intervals = (const rk_contact_interval *)(void *)r->intervals[i]->data;
  }
  return fc;
}

const rk_retarget_quality *rk_retarget_result_quality(const rk_retarget_result *r) {
  return &r->quality;
}

const rk_retarget_quality *rk_retarget_result_quality_fk(const rk_retarget_result *r) {
  return &r->quality_fk;
}

rk_vec3 rk_retarget_result_ground_velocity(const rk_retarget_result *r, bool *in_place) {
  if (in_place)
    *in_place = r->in_place;
  return r->ground_velocity;
}

const double *rk_retarget_result_heights(const rk_retarget_result *r, bool after_ik) {
  return after_ik ? r->heights_ik : r->heights_fk;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* ---- contacts -------------------------------------------------------------------------------- */

/* Planted intervals from per-frame heights above the ground and positions (frame-major). */
static GArray *detect_contacts(const double *height, const rk_vec3 *pos, size_t frames,
                               double fps, double max_height, double max_speed, int min_frames) {
  GArray *out = g_array_new(FALSE, FALSE, sizeof(rk_contact_interval));
  g_autofree bool *on = g_new0(bool, frames);
  for (size_t f = 0; f < frames; f++) {
    size_t a = f > 0 ? f - 1 : f, b = f + 1 < frames ? f + 1 : f;
    double dt = (double)(b - a) / fps;
    double speed = dt > 0 ? rk_vec3_norm(horizontal(rk_vec3_sub(pos[b], pos[a]))) / dt : 0.0;
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

/* Pin weight of a joint at frame f: 1 inside an interval, a smoothstep ramp over `blend` frames
 * before and after, 0 elsewhere; *pin_index receives the interval it belongs to. */
static double pin_weight(const GArray *iv, int f, int blend, int *pin_index) {
  double best = 0;
  *pin_index = -1;
  for (guint i = 0; i < iv->len; i++) {
    const rk_contact_interval *c = &g_array_index(iv, rk_contact_interval, i);
    double w;
    if (f >= c->first && f <= c->last)
      w = 1;
    else if (blend > 0 && f < c->first && c->first - f <= blend)
      w = 1.0 - (double)(c->first - f) / (blend + 1);
    else if (blend > 0 && f > c->last && f - c->last <= blend)
      w = 1.0 - (double)(f - c->last) / (blend + 1);
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

/* ---- quality --------------------------------------------------------------------------------- */

/* Skate of one joint's positions over its intervals: accumulates sum/count/max (mm). */
static void skate_of(const rk_vec3 *pos, size_t stride, const GArray *iv, double *sum, size_t *n,
                     double *max) {
  for (guint i = 0; i < iv->len; i++) {
    const rk_contact_interval *c = &g_array_index(iv, rk_contact_interval, i);
    rk_vec3 p0 = pos[(size_t)c->first * stride];
    for (int f = c->first; f <= c->last; f++) {
      double d = 1000.0 * rk_vec3_norm(horizontal(rk_vec3_sub(pos[(size_t)f * stride], p0)));
      *sum += d;
      (*n)++;
      *max = fmax(*max, d);
    }
  }
}

void rk_retarget_measure(const rk_skeleton *skeleton, const rk_clip *clip, double fps,
                         const char *const *joint_names, const rk_foot_contacts *contacts,
                         size_t contact_count, rk_retarget_quality *out) {
  memset(out, 0, sizeof *out);
  const size_t n = rk_skeleton_joint_count(skeleton);
  if (!(fps > 0) || contact_count == 0 || rk_clip_joint_count(clip) != n)
    return;
  const size_t frames = (size_t)llround(rk_clip_duration(clip) * fps) + 1;
  g_autofree rk_transform *locals = g_new(rk_transform, n);
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  g_autofree rk_vec3 *pos = g_new(rk_vec3, frames * contact_count);
  g_autofree int *joints = g_new(int, contact_count);
  for (size_t k = 0; k < contact_count; k++)
    joints[k] = rk_skeleton_find_joint(skeleton, joint_names[k]);
  g_autofree bool *any = g_new0(bool, frames);
  for (size_t f = 0; f < frames; f++) {
    rk_clip_sample_frame(clip, rk_skeleton_rest_locals(skeleton), fps, f, locals, n);
    rk_fk_models(skeleton, locals, models);
    for (size_t k = 0; k < contact_count; k++)
      pos[f * contact_count + k] =
          joints[k] >= 0 ? rk_mat4_get_translation(&models[joints[k]]) : rk_vec3_make(0, 0, 0);
  }
  double sum = 0;
  size_t cnt = 0;
  for (size_t k = 0; k < contact_count; k++) {
    if (joints[k] < 0)
      continue;
    g_autoptr(GArray) iv = g_array_new(FALSE, FALSE, sizeof(rk_contact_interval));
    for (size_t i = 0; i < contacts[k].count; i++) {
      rk_contact_interval c = contacts[k].intervals[i];
      if (c.first < 0 || c.last >= (int)frames || c.first > c.last)
        continue;
      g_array_append_val(iv, c);
      for (int f = c.first; f <= c.last; f++)
        any[f] = true;
    }
    skate_of(pos + k, contact_count, iv, &sum, &cnt, &out->foot_skate_max_mm);
  }
  out->foot_skate_mean_mm = cnt ? sum / (double)cnt : 0;
  for (size_t f = 0; f < frames; f++)
    out->contact_frames += any[f];
}

/* A knee bends backwards when it sits behind the hip-ankle line (pelvis frame) by more than 1% of
 * the leg while the leg is bent by more than 10 degrees. */
static bool knee_backwards(const rk_mat4 *models, int hip, int knee, int ankle, rk_vec3 forward) {
  rk_vec3 a = rk_mat4_get_translation(&models[hip]), k = rk_mat4_get_translation(&models[knee]),
          c = rk_mat4_get_translation(&models[ankle]);
  rk_vec3 u = rk_vec3_sub(k, a), v = rk_vec3_sub(c, k);
  double lu = rk_vec3_norm(u), lv = rk_vec3_norm(v);
  if (lu <= 0 || lv <= 0)
    return false;
  double bend = acos(fmax(-1.0, fmin(1.0, rk_vec3_dot(u, v) / (lu * lv))));
  if (bend < 10 * RK_DEG)
    return false;
  rk_vec3 line = rk_vec3_normalize(rk_vec3_sub(c, a));
  rk_vec3 off = rk_vec3_sub(u, rk_vec3_scale(line, rk_vec3_dot(u, line)));
  return rk_vec3_dot(off, forward) < -0.01 * (lu + lv);
}

/* ---- limbs ----------------------------------------------------------------------------------- */

/* World rotation of a model matrix (scale removed). */
static rk_quat model_rotation(const rk_mat4 *m) {
  rk_transform x;
  return rk_transform_from_mat4(m, &x) ? x.r : rk_quat_identity();
}

/* Sets joint j's local rotation so that its world rotation becomes w (its parent's model is
 * current). */
static void set_world_rotation(const rk_skeleton *s, rk_transform *locals, const rk_mat4 *models,
                               int j, rk_quat w) {
  const int p = rk_skeleton_parent(s, (size_t)j);
  const rk_quat pw = p < 0 ? rk_quat_identity() : model_rotation(&models[p]);
  locals[j].r = rk_quat_normalize(rk_quat_mul(rk_quat_conj(pw), w));
}

/* Bends the limb a -> b -> c (joints in ancestor order) so that c reaches target, in the bend
 * plane of the current pose (fallback_pole when the limb is straight): analytic two-bone IK
 * (rigkit/ik.h), applied as world rotations of a and b. Updates locals and models; returns
 * whether the target was reached. */
static bool bend_limb(const rk_skeleton *s, rk_transform *locals, rk_mat4 *models, int a, int b,
                      int c, rk_vec3 target, rk_vec3 fallback_pole) {
  const rk_vec3 pa = rk_mat4_get_translation(&models[a]), pb = rk_mat4_get_translation(&models[b]),
                pc = rk_mat4_get_translation(&models[c]);
  const rk_vec3 line = rk_vec3_normalize(rk_vec3_sub(pc, pa)), ab = rk_vec3_sub(pb, pa);
  const rk_vec3 off = rk_vec3_sub(ab, rk_vec3_scale(line, rk_vec3_dot(ab, line)));
  rk_two_bone_job job = RK_TWO_BONE_JOB_INIT;
  job.start = pa;
  job.mid = pb;
  job.end = pc;
  job.target = target;
  job.pole = rk_vec3_norm(off) > 1e-4 * rk_vec3_norm(ab) ? rk_vec3_normalize(off) : fallback_pole;
  if (!rk_two_bone_run(&job))
    return false;
  const rk_quat wa = model_rotation(&models[a]), wb = model_rotation(&models[b]);
  set_world_rotation(s, locals, models, a, rk_quat_mul(job.start_rotation, wa));
  rk_fk_models(s, locals, models);
  set_world_rotation(s, locals, models, b,
                     rk_quat_mul(rk_quat_mul(job.start_rotation, job.mid_rotation), wb));
  rk_fk_models(s, locals, models);
  return job.reached;
}

/* ---- the run --------------------------------------------------------------------------------- */

/* Per-track key storage for the baked clip. */
typedef struct bake_buf {
  double *times;
  double *rot;   /* frames * nt * 4 */
  double *trans; /* frames * nt * 3 */
  bool *rot_used, *trans_used;
} bake_buf;

static void bake_buf_clear(bake_buf *b) {
  g_clear_pointer(&b->times, g_free);
  g_clear_pointer(&b->rot, g_free);
  g_clear_pointer(&b->trans, g_free);
  g_clear_pointer(&b->rot_used, g_free);
  g_clear_pointer(&b->trans_used, g_free);
}

static bool finite_locals(const rk_transform *x, size_t n) {
  for (size_t j = 0; j < n; j++)
    if (!rk_transform_is_finite(&x[j]))
      return false;
  return true;
}

rk_retarget_result *rk_retargeter_run(const rk_retargeter *rt, const rk_clip *clip,
                                      const rk_retarget_options *opts, GError **error) {
  g_return_val_if_fail(rt && clip, NULL);
  const rk_retarget_options defaults = RK_RETARGET_OPTIONS_INIT;
  if (!opts)
    opts = &defaults;
  if (rk_clip_joint_count(clip) != rt->ns) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "clip '%s' animates %zu joints but the source rig has %zu", rk_clip_name(clip),
                rk_clip_joint_count(clip), rt->ns);
    return NULL;
  }
  double fps = opts->fps > 0 ? opts->fps : rk_clip_fps(clip) > 0 ? rk_clip_fps(clip) : 30.0;
  const double frames_d = floor(rk_clip_duration(clip) * fps + 0.5) + 1;
  if (!isfinite(frames_d) || frames_d > RK_CLIP_MAX_KEYS) {
    g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "clip '%s': %.0f frames at %g fps exceed the limit of %u",
                rk_clip_name(clip), frames_d, fps, RK_CLIP_MAX_KEYS);
    return NULL;
  }
  const size_t frames = (size_t)frames_d, nt = rt->nt, nf = rt->foot_count;
  const double dt_clip = rk_clip_duration(clip);

  /* Scratch freed on every path (declared before the first goto). */
  g_autofree double *q = NULL, *q_fk = NULL, *q_prev = NULL, *limb_angles = NULL;
  g_autofree bool *locked = NULL;
  run_ctx c = {0};
  c.rt = rt;
  c.clip = clip;
  c.fps = fps;
  c.duration = dt_clip;
  /* Sample and transfer each frame once when the per-frame caches fit the budget. */
  const size_t per_frame =
      rt->src_used * (sizeof(rk_quat) + sizeof(rk_vec3)) + nt * (sizeof(rk_transform) + sizeof(rk_quat));
  c.cached = frames <= (opts->cache_bytes ? opts->cache_bytes : RK__RETARGET_CACHE_BYTES) / per_frame;
  const size_t slices = c.cached ? frames : 1;
  c.src_cache_q = g_new(rk_quat, slices * rt->src_used + 1);
  c.src_cache_p = g_new(rk_vec3, slices * rt->src_used + 1);
  c.tgt_cache = c.cached ? g_new(rk_transform, frames * nt) : NULL;
  c.tgt_world_cache = c.cached ? g_new(rk_quat, frames * nt) : NULL;
  c.src_locals = g_new(rk_transform, rt->ns);
  c.src_models = g_new(rk_mat4, rt->ns);
  c.src_world = g_new(rk_quat, rt->ns);
  c.tgt_world = g_new(rk_quat, nt);
  c.tgt_locals = g_new(rk_transform, nt);
  c.tgt_models = g_new(rk_mat4, nt);
  c.tgt_ground = rt->tmap.ground;

  rk_retarget_result *res = g_new0(rk_retarget_result, 1);
  res->frames = frames;
  res->fps = fps;
  res->contact_count = nf;

  /* Pass 1: the source's foot joints (ground, contacts) and the transferred target's foot
   * positions (pins). */
  g_autofree rk_vec3 *src_p = g_new(rk_vec3, frames * MAX_FEET);
  g_autofree rk_vec3 *fk_p = g_new(rk_vec3, frames * MAX_FEET);
  /* Per frame and side, the lowest point of the foot (the ankle's subtree: toes, tips): the
   * source's (pass 1) and the transferred target's (pass 1b). */
  g_autofree double *src_sole = g_new(double, frames * 2);
  g_autofree double *tgt_sole = g_new(double, frames * 2);
  const int src_ankle[2] = {rt->smap.joint[RK_BONE_LEFT_FOOT], rt->smap.joint[RK_BONE_RIGHT_FOOT]};
  const int tgt_ankle[2] = {rt->tmap.joint[RK_BONE_LEFT_FOOT], rt->tmap.joint[RK_BONE_RIGHT_FOOT]};
  /* The clip's ground: the typical height of the lower sole (the lowest point of either foot:
   * ankle, toes, tips), the median over frames; some foot stands on the ground in most frames of
   * any clip, while its global minimum may be a toe dipping at push-off or a capture glitch. */
  double ground;
  for (size_t f = 0; f < frames; f++) {
    sample_source(&c, f);
    for (size_t k = 0; k < nf; k++)
      src_p[f * MAX_FEET + k] = src_pos(&c, rt->feet[k].src);
    for (int side = 0; side < 2; side++) {
      double sole = INFINITY;
      for (size_t j = (size_t)src_ankle[side]; j < rk_skeleton_subtree_end(rt->src, (size_t)src_ankle[side]); j++)
        sole = fmin(sole, c.src_models[j].m[13]);
      src_sole[2 * f + (size_t)side] = sole;
    }
  }
  {
    g_autofree double *low = g_new(double, frames);
    for (size_t f = 0; f < frames; f++)
      low[f] = fmin(src_sole[2 * f], src_sole[2 * f + 1]);
    qsort(low, frames, sizeof(double), cmp_double);
    ground = frames % 2 ? low[frames / 2] : 0.5 * (low[frames / 2 - 1] + low[frames / 2]);
  }
  c.src_sole = src_sole;
  c.src_ground = ground;
  const double H = rt->smap.height;
  const int min_frames = (int)ceil(opts->contact_min_time * fps);
  /* The ground's own motion: the median horizontal velocity of low foot joints. About zero for a
   * clip that travels; the treadmill speed for an in-place cycle, whose stance feet slide back by
   * design. Such a clip either keeps no planted feet, or (root_motion) travels by the opposite
   * velocity so that its stance feet stand still. */
  {
    g_autoptr(GArray) vx = g_array_new(FALSE, FALSE, sizeof(double));
    g_autoptr(GArray) vz = g_array_new(FALSE, FALSE, sizeof(double));
    for (size_t k = 0; k < nf; k++)
      for (size_t f = 0; f < frames; f++) {
        rk_vec3 p = src_p[f * MAX_FEET + k];
        if (p.y - ground > rt->feet[k].src_rest_height + opts->contact_height * H)
          continue;
        size_t a = f > 0 ? f - 1 : f, b = f + 1 < frames ? f + 1 : f;
        if (a == b)
          continue;
        rk_vec3 v = rk_vec3_scale(rk_vec3_sub(src_p[b * MAX_FEET + k], src_p[a * MAX_FEET + k]),
                                  fps / (double)(b - a));
        g_array_append_val(vx, v.x);
        g_array_append_val(vz, v.z);
      }
    if (vx->len > 0) {
      qsort(vx->data, vx->len, sizeof(double), cmp_double);
      qsort(vz->data, vz->len, sizeof(double), cmp_double);
      res->ground_velocity = rk_vec3_make(g_array_index(vx, double, vx->len / 2), 0,
                                          g_array_index(vz, double, vz->len / 2));
    }
    /* In place when the ground slides faster than 10% of the height per second (a walk's
     * stance moves back at 60-90%; a planted foot drifts well under 10%). */
    res->in_place = rk_vec3_norm(res->ground_velocity) > 0.1 * H;
    if (res->in_place && opts->root_motion) {
      c.travel = rk_vec3_scale(res->ground_velocity, -1.0);
      for (size_t f = 0; f < frames; f++)
        for (size_t k = 0; k < nf; k++)
          src_p[f * MAX_FEET + k] = rk_vec3_add(src_p[f * MAX_FEET + k],
                                                rk_vec3_scale(c.travel, fmin((double)f / fps, dt_clip)));
    }
  }
  const bool plant = !res->in_place || opts->root_motion;
  for (size_t k = 0; k < nf; k++) {
    g_autofree double *h = g_new(double, frames);
    g_autofree rk_vec3 *p = g_new(rk_vec3, frames);
    for (size_t f = 0; f < frames; f++) {
      p[f] = src_p[f * MAX_FEET + k];
      h[f] = p[f].y - ground;
    }
    res->contact_joint[k] = rt->feet[k].tgt;
    res->intervals[k] = detect_contacts(h, p, frames, fps,
                                        plant ? rt->feet[k].src_rest_height + opts->contact_height * H
                                              : -INFINITY,
                                        opts->contact_speed * H, min_frames > 1 ? min_frames : 1);
  }
  res->heights_fk = g_new(double, frames * (nf ? nf : 1));
  res->heights_ik = g_new(double, frames * (nf ? nf : 1));
  for (size_t f = 0; f < frames; f++) {
    load_source(&c, f);
    transfer_pose(&c);
    if (c.cached) {
      memcpy(c.tgt_cache + f * nt, c.tgt_locals, nt * sizeof(rk_transform));
      memcpy(c.tgt_world_cache + f * nt, c.tgt_world, nt * sizeof(rk_quat));
    }
    for (int side = 0; side < 2; side++) {
      double sole = INFINITY;
      for (size_t j = (size_t)tgt_ankle[side]; j < rk_skeleton_subtree_end(rt->tgt, (size_t)tgt_ankle[side]); j++)
        sole = fmin(sole, c.tgt_models[j].m[13]);
      tgt_sole[2 * f + (size_t)side] = sole;
    }
    for (size_t k = 0; k < nf; k++) {
      fk_p[f * MAX_FEET + k] = rk_mat4_get_translation(&c.tgt_models[rt->feet[k].tgt]);
      res->heights_fk[f * nf + k] = fk_p[f * MAX_FEET + k].y - c.tgt_ground;
    }
  }
  /* Pins: each interval's median transferred position horizontally (per axis: robust to the
   * lift-off and touch-down frames a threshold lets into the interval), its height by contact. */
  GArray *pins[MAX_FEET] = {0};
  {
    g_autofree double *axis = g_new(double, frames);
    for (size_t k = 0; k < nf; k++) {
      pins[k] = g_array_new(FALSE, FALSE, sizeof(rk_vec3));
      for (guint i = 0; i < res->intervals[k]->len; i++) {
        const rk_contact_interval *iv = &g_array_index(res->intervals[k], rk_contact_interval, i);
        const size_t len = (size_t)(iv->last - iv->first + 1);
        double med[3];
        for (int a = 0; a < 3; a++) {
          for (size_t u = 0; u < len; u++) {
            rk_vec3 p = fk_p[((size_t)iv->first + u) * MAX_FEET + k];
            axis[u] = a == 0 ? p.x : a == 1 ? p.y : p.z;
          }
          qsort(axis, len, sizeof(double), cmp_double);
          med[a] = len % 2 ? axis[len / 2] : 0.5 * (axis[len / 2 - 1] + axis[len / 2]);
        }
        /* Height by contact: the target's sole (its foot's lowest point, in the transferred
         * orientation) stands as far above the target's ground as the source's sole above the
         * clip's ground, scaled: a foot on the ground stays on it, a step stays a step, a heel
         * raised in the source stays raised. */
        const size_t side = (size_t)rt->feet[k].side;
        for (size_t u = 0; u < len; u++)
          axis[u] = src_sole[2 * ((size_t)iv->first + u) + side] - ground;
        qsort(axis, len, sizeof(double), cmp_double);
        const double clearance =
            fmax(0.0, len % 2 ? axis[len / 2] : 0.5 * (axis[len / 2 - 1] + axis[len / 2]));
        for (size_t u = 0; u < len; u++) {
          const size_t f = (size_t)iv->first + u;
          axis[u] = fk_p[f * MAX_FEET + k].y - tgt_sole[2 * f + side];
        }
        qsort(axis, len, sizeof(double), cmp_double);
        const double above_sole = len % 2 ? axis[len / 2] : 0.5 * (axis[len / 2 - 1] + axis[len / 2]);
        med[1] = c.tgt_ground + rt->scale * clearance + above_sole;
        rk_vec3 m = rk_vec3_make(med[0], med[1], med[2]);
        g_array_append_val(pins[k], m);
      }
    }
  }

  /* A foot planted by its ankle and its toes at once is one rigid body: where a toe interval
   * overlaps an ankle interval, the toe pin is put at the bone's length from the ankle pin (along
   * their mean direction) so that both pins can hold. */
  for (size_t kt = 0; kt < nf; kt++) {
    if (rt->feet[kt].bone != RK_BONE_LEFT_TOES && rt->feet[kt].bone != RK_BONE_RIGHT_TOES)
      continue;
    size_t ka = 0;
    while (ka < nf && rt->feet[ka].bone != rt->feet[kt].bone - 1)
      ka++;
    if (ka == nf)
      continue;
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
      rk_vec3 pa = g_array_index(pins[ka], rk_vec3, best), *pt = &g_array_index(pins[kt], rk_vec3, i);
      rk_vec3 d = rk_vec3_sub(*pt, pa);
      if (rk_vec3_norm(d) > 0)
        *pt = rk_vec3_add(pa, rk_vec3_scale(rk_vec3_normalize(d), len));
    }
  }

  /* Pass 2: transfer again, solve IK, bake. */
  const size_t ndof = rk_tree_dof_count(rt->tree);
  q = g_new0(double, ndof);
  q_fk = g_new0(double, ndof);
  q_prev = g_new0(double, ndof);
  locked = g_new(bool, ndof);
  limb_angles = g_new(double, frames * 8);
  g_autofree rk_mat4 *tree_models = g_new(rk_mat4, nt);
  rk_loop loops[2];
  const rk_joint *hips_joint = rk_tree_joint(rt->tree, (size_t)rt->tgt_hips);
  rk_ik_problem prob = RK_IK_PROBLEM_INIT;
  prob.tree = rt->tree;
  prob.loops = loops;
  prob.posture = q_fk;
  prob.locked = locked;
  rk_ik_options iko;
  rk_ik_options_init(&iko);
  iko.max_iterations = opts->ik_iterations;
  iko.position_tolerance = 1e-5 * rt->tmap.height;
  iko.closure_tolerance = 1e-6 * rt->tmap.height;
  iko.damping = 1e-5; /* warm starts close to the answer (rigkit/ik.h) */
  rk_ik_ws *ws = NULL;
  bake_buf bb = {0};
  {
    rk_ik_problem sizing = prob;
    sizing.loop_count = 2;
    for (int i = 0; i < 2; i++)
      loops[i] = (rk_loop){RK_LOOP_POSITION, rt->tgt_hips, rk_mat4_identity(), -1, rk_mat4_identity()};
    ws = rk_ik_ws_new(&sizing, 6, error);
    if (!ws)
      goto fail;
  }
  bb.times = g_new(double, frames);
  bb.rot = g_new(double, frames * nt * 4);
  bb.trans = g_new(double, frames * nt * 3);
  bb.rot_used = g_new0(bool, nt);
  bb.trans_used = g_new0(bool, nt);
  const int blend = (int)lround(opts->blend_time * fps);
  double goal_err_sum = 0, goal_err_max = 0, closure_max = 0;
  size_t goal_err_n = 0, limit_violations = 0, loop_frames = 0;
  size_t limb_n = 0;
  const rk_transform *trest = rk_skeleton_rest_locals(rt->tgt);
  bool have_prev = false;
  /* Per side: the foot-joint index (into rt->feet) of the ankle and of the toes, or -1. */
  int ankle_k[2] = {-1, -1}, toes_k[2] = {-1, -1};
  for (size_t k = 0; k < nf; k++) {
    rk_bone b = rt->feet[k].bone;
    int side = b == RK_BONE_RIGHT_FOOT || b == RK_BONE_RIGHT_TOES;
    if (b == RK_BONE_LEFT_FOOT || b == RK_BONE_RIGHT_FOOT)
      ankle_k[side] = (int)k;
    else
      toes_k[side] = (int)k;
  }
  for (size_t f = 0; f < frames; f++) {
    const double t = frame_time(&c, f);
    load_source(&c, f);
    if (c.cached)
      restore_pose(&c, f);
    else
      transfer_pose(&c);
    rk_quat foot_world[2] = {rk_quat_identity(), rk_quat_identity()};
    for (int side = 0; side < 2; side++)
      if (ankle_k[side] >= 0)
        foot_world[side] = c.tgt_world[rt->feet[ankle_k[side]].tgt];

    /* Goals: planted (or blending) foot joints. Inside an interval the goal is the pin; around
     * it the correction the pin makes at the interval's nearest end fades in and out (no
     * correction when the transfer already lands on the pin). */
    rk_vec3 goal_pos[MAX_FEET];
    double goal_w[MAX_FEET];
    for (size_t k = 0; k < nf; k++) {
      int pi;
      goal_w[k] = opts->foot_ik ? pin_weight(res->intervals[k], (int)f, blend, &pi) : 0.0;
      if (goal_w[k] <= 0)
        continue;
      const rk_contact_interval *iv = &g_array_index(res->intervals[k], rk_contact_interval, pi);
      const int edge = (int)f < iv->first ? iv->first : (int)f > iv->last ? iv->last : (int)f;
      rk_vec3 pin = g_array_index(pins[k], rk_vec3, pi);
      rk_vec3 correction = rk_vec3_sub(pin, fk_p[(size_t)edge * MAX_FEET + k]);
      goal_pos[k] = rk_vec3_add(fk_p[f * MAX_FEET + k], rk_vec3_scale(correction, goal_w[k]));
    }
    /* Where each ankle must go: its own goal, or shifted with the foot so the toes reach theirs
     * (heel off: the toes hold, the ankle rises with the foot's transferred angle). */
    bool has_target[2] = {false, false}, planted[2] = {false, false};
    rk_vec3 ankle_target[2];
    for (int side = 0; side < 2; side++) {
      const int ka = ankle_k[side], kt = toes_k[side];
      if (ka >= 0 && goal_w[ka] > 0) {
        ankle_target[side] = goal_pos[ka];
        has_target[side] = true;
        planted[side] = goal_w[ka] >= 1.0;
        /* Toes held more firmly than the ankle (heel off): the ankle goes to the nearest point
         * that keeps the foot's length from the toes' pin, so the foot can pivot onto it. */
        if (kt >= 0 && goal_w[kt] > goal_w[ka]) {
          double len = rk_vec3_norm(rk_vec3_sub(rt->pt0[rt->feet[kt].tgt], rt->pt0[rt->feet[ka].tgt]));
          rk_vec3 d = rk_vec3_sub(ankle_target[side], goal_pos[kt]);
          if (rk_vec3_norm(d) > 0)
            ankle_target[side] = rk_vec3_add(goal_pos[kt], rk_vec3_scale(rk_vec3_normalize(d), len));
        }
      } else if (ka >= 0 && kt >= 0 && goal_w[kt] > 0) {
        rk_vec3 shift = rk_vec3_sub(goal_pos[kt], rk_mat4_get_translation(&c.tgt_models[rt->feet[kt].tgt]));
        ankle_target[side] = rk_vec3_add(rk_mat4_get_translation(&c.tgt_models[rt->feet[ka].tgt]), shift);
        has_target[side] = true;
      }
    }
    /* Both feet planted close a loop through the ground. When a planted leg cannot reach its pin
     * from the transferred pelvis, the closure equations (rigkit/loop.h) of the planted feet are
     * solved with the pelvis free to translate and those legs free (the body dips or shifts as a
     * person's would); small mismatches never move the pelvis. */
    const bool loop_closed = planted[0] && planted[1];
    bool held[2] = {false, false}, reachable = true;
    for (int side = 0; side < 2; side++) {
      held[side] = has_target[side] && (planted[side] || (toes_k[side] >= 0 && goal_w[toes_k[side]] >= 1.0));
      if (!held[side])
        continue;
      rk_bone u = side ? RK_BONE_RIGHT_UPPER_LEG : RK_BONE_LEFT_UPPER_LEG;
      rk_vec3 a = rk_mat4_get_translation(&c.tgt_models[rt->tmap.joint[u]]);
      rk_vec3 b = rk_mat4_get_translation(&c.tgt_models[rt->tmap.joint[u + 1]]);
      rk_vec3 e = rk_mat4_get_translation(&c.tgt_models[rt->tmap.joint[u + 2]]);
      double reach = rk_vec3_norm(rk_vec3_sub(b, a)) + rk_vec3_norm(rk_vec3_sub(e, b));
      reachable &= rk_vec3_norm(rk_vec3_sub(ankle_target[side], a)) < reach * (1.0 - 1e-4);
    }
    if (!reachable && hips_joint->dof_count == 6) {
      rk_tree_q_from_locals(rt->tree, c.tgt_locals, have_prev ? q_prev : NULL, q_fk, NULL);
      memcpy(q, q_fk, ndof * sizeof(double));
      for (size_t j = 0; j < ndof; j++)
        locked[j] = true;
      for (int d = 0; d < 3; d++)
        locked[hips_joint->dof_offset + d] = false;
      size_t nl = 0;
      for (int side = 0; side < 2; side++) {
        if (!held[side])
          continue;
        loops[nl++] = (rk_loop){RK_LOOP_POSITION, rt->feet[ankle_k[side]].tgt, rk_mat4_identity(), -1,
                                rk_mat4_translation(ankle_target[side])};
        for (size_t i = 0; i < rt->leg_count[side]; i++) {
          const rk_joint *jt = rk_tree_joint(rt->tree, (size_t)rt->leg_joints[side][i]);
          for (int d = 0; d < jt->dof_count; d++)
            locked[jt->dof_offset + d] = false;
        }
      }
      prob.loop_count = nl;
      rk_ik_result ir;
      if (!rk_ik_solve(&prob, &iko, q, ws, &ir, error)) {
        g_prefix_error(error, "clip '%s' frame %zu: ", rk_clip_name(clip), f);
        goto fail;
      }
      g_debug("retarget '%s' frame %zu: pelvis solve on %zu loops: %s after %d iterations, "
              "closure %g m", rk_clip_name(clip), f, nl, rk_ik_status_name(ir.status),
              ir.iterations, ir.closure_error);
      /* Keep the solved pelvis; the legs are redone analytically below (stable knees). */
      rk_transform pelvis;
      rk_tree_joint_local(rt->tree, (size_t)rt->tgt_hips, q, &pelvis);
      c.tgt_locals[rt->tgt_hips].t = pelvis.t;
      rk_fk_models(rt->tgt, c.tgt_locals, c.tgt_models);
    }
    /* Legs: analytic two-bone in the bend plane of the transferred pose; then the foot takes
     * its transferred world rotation, or turns about the ankle so its pinned toes hold. */
    for (int side = 0; side < 2; side++) {
      if (!has_target[side])
        continue;
      rk_bone u = side ? RK_BONE_RIGHT_UPPER_LEG : RK_BONE_LEFT_UPPER_LEG;
      const int foot = rt->tmap.joint[u + 2];
      bend_limb(rt->tgt, c.tgt_locals, c.tgt_models, rt->tmap.joint[u], rt->tmap.joint[u + 1], foot,
                ankle_target[side], rk_quat_rotate(c.tgt_world[rt->tgt_hips], rk_quat_rotate(rk_quat_conj(rt->qt0[rt->tgt_hips]), rt->tmap.forward)));
      set_world_rotation(rt->tgt, c.tgt_locals, c.tgt_models, foot, foot_world[side]);
      rk_fk_models(rt->tgt, c.tgt_locals, c.tgt_models);
      const int kt = toes_k[side];
      if (kt >= 0 && goal_w[kt] > 0 && ankle_k[side] >= 0 && goal_w[ankle_k[side]] > 0) {
        rk_vec3 ap = rk_mat4_get_translation(&c.tgt_models[foot]);
        rk_vec3 tp = rk_mat4_get_translation(&c.tgt_models[rt->feet[kt].tgt]);
        rk_quat swing = rk_quat_from_to(rk_vec3_sub(tp, ap), rk_vec3_sub(goal_pos[kt], ap));
        set_world_rotation(rt->tgt, c.tgt_locals, c.tgt_models, foot, rk_quat_mul(swing, foot_world[side]));
        rk_fk_models(rt->tgt, c.tgt_locals, c.tgt_models);
      }
    }
    /* Hands: the source's hand relative to its shoulder, scaled by arm length; the hand keeps its
     * transferred world rotation. */
    if (opts->hand_ik)
      for (int side = 0; side < 2; side++) {
        rk_bone ua = side ? RK_BONE_RIGHT_UPPER_ARM : RK_BONE_LEFT_UPPER_ARM;
        int su = rt->smap.joint[ua], sh = rt->smap.joint[ua + 2];
        int tu = rt->tmap.joint[ua], tf = rt->tmap.joint[ua + 1], th = rt->tmap.joint[ua + 2];
        if (su < 0 || sh < 0 || tu < 0 || tf < 0 || th < 0)
          continue;
        double sl = rk_vec3_norm(rk_vec3_sub(rt->ps0[sh], rt->ps0[su]));
        double tl = rk_vec3_norm(rk_vec3_sub(rt->pt0[tf], rt->pt0[tu])) + rk_vec3_norm(rk_vec3_sub(rt->pt0[th], rt->pt0[tf]));
        if (!(sl > 0))
          continue;
        rk_quat hand_world = c.tgt_world[th];
        rk_vec3 rel = rk_quat_rotate(rt->align, rk_vec3_sub(src_pos(&c, sh), src_pos(&c, su)));
        rk_vec3 target = rk_vec3_add(rk_mat4_get_translation(&c.tgt_models[tu]), rk_vec3_scale(rel, tl / sl));
        rk_vec3 back = rk_vec3_scale(rk_quat_rotate(c.tgt_world[rt->tgt_hips], rk_quat_rotate(rk_quat_conj(rt->qt0[rt->tgt_hips]), rt->tmap.forward)), -1.0);
        bend_limb(rt->tgt, c.tgt_locals, c.tgt_models, tu, tf, th, target, back);
        set_world_rotation(rt->tgt, c.tgt_locals, c.tgt_models, th, hand_world);
        rk_fk_models(rt->tgt, c.tgt_locals, c.tgt_models);
      }
    /* A planted pair: the closure equations on the final pose, as the tree's q. */
    if (loop_closed) {
      rk_tree_q_from_locals(rt->tree, c.tgt_locals, have_prev ? q_prev : NULL, q, NULL);
      memcpy(q_prev, q, ndof * sizeof(double));
      have_prev = true;
      rk_tree_fk(rt->tree, q, NULL, tree_models);
      for (int side = 0; side < 2; side++) {
        rk_loop lp = {RK_LOOP_POSITION, rt->feet[ankle_k[side]].tgt, rk_mat4_identity(), -1,
                      rk_mat4_translation(goal_pos[ankle_k[side]])};
        double r[3];
        rk_loop_residual(rt->tree, &lp, tree_models, r);
        closure_max = fmax(closure_max, sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]));
      }
      loop_frames++;
    }
    if (!finite_locals(c.tgt_locals, nt)) {
      g_set_error(error, RK_ERROR, RK_ERROR_FAILED, "clip '%s' frame %zu: the retargeted pose is not finite",
                  rk_clip_name(clip), f);
      goto fail;
    }
    /* Pin errors (fully planted frames) and heights after IK. */
    for (size_t k = 0; k < nf; k++) {
      rk_vec3 p = rk_mat4_get_translation(&c.tgt_models[rt->feet[k].tgt]);
      res->heights_ik[f * nf + k] = p.y - c.tgt_ground;
      if (goal_w[k] >= 1.0) {
        double e = 1000.0 * rk_vec3_norm(rk_vec3_sub(p, goal_pos[k]));
        goal_err_sum += e;
        goal_err_n++;
        goal_err_max = fmax(goal_err_max, e);
        if (e > 1.0)
          g_debug("retarget '%s' frame %zu: %s misses its pin by %.3f mm", rk_clip_name(clip), f,
                  rk_skeleton_joint_name(rt->tgt, (size_t)rt->feet[k].tgt), e);
      }
    }
    /* Knees bent backwards in the pelvis' facing. */
    rk_vec3 fwd = rk_quat_rotate(rk_quat_mul(c.tgt_world[rt->tgt_hips], rk_quat_conj(rt->qt0[rt->tgt_hips])),
                                 rt->tmap.forward);
    for (int side = 0; side < 2; side++) {
      rk_bone u = side ? RK_BONE_RIGHT_UPPER_LEG : RK_BONE_LEFT_UPPER_LEG;
      limit_violations += knee_backwards(c.tgt_models, rt->tmap.joint[u], rt->tmap.joint[u + 1],
                                         rt->tmap.joint[u + 2], fwd);
    }
    /* Limb directions vs the source's. */
    for (int l = 0; l < 8; l++) {
      int ta = rt->tmap.joint[limb_bones[l][0]], tb = rt->tmap.joint[limb_bones[l][1]];
      int sa = rt->smap.joint[limb_bones[l][0]], sb = rt->smap.joint[limb_bones[l][1]];
      if (ta < 0 || tb < 0 || sa < 0 || sb < 0)
        continue;
      rk_vec3 td = rk_vec3_sub(rk_mat4_get_translation(&c.tgt_models[tb]), rk_mat4_get_translation(&c.tgt_models[ta]));
      rk_vec3 sd = rk_quat_rotate(rt->align, rk_vec3_sub(src_pos(&c, sb), src_pos(&c, sa)));
      double cosang = rk_vec3_dot(rk_vec3_normalize(td), rk_vec3_normalize(sd));
      limb_angles[limb_n++] = acos(fmax(-1.0, fmin(1.0, cosang))) / RK_DEG;
    }
    /* Keys. */
    bb.times[f] = t;
    for (size_t j = 0; j < nt; j++) {
      rk_quat r = c.tgt_locals[j].r;
      if (f > 0) { /* same hemisphere as the previous key */
        const double *pr = &bb.rot[((f - 1) * nt + j) * 4];
        if (r.x * pr[0] + r.y * pr[1] + r.z * pr[2] + r.w * pr[3] < 0)
          r = rk_quat_make(-r.x, -r.y, -r.z, -r.w);
      }
      double *dst = &bb.rot[(f * nt + j) * 4];
      dst[0] = r.x, dst[1] = r.y, dst[2] = r.z, dst[3] = r.w;
      double *tr = &bb.trans[(f * nt + j) * 3];
      tr[0] = c.tgt_locals[j].t.x, tr[1] = c.tgt_locals[j].t.y, tr[2] = c.tgt_locals[j].t.z;
      if (rk_quat_angle_between(r, trest[j].r) > 1e-9)
        bb.rot_used[j] = true;
      if (rk_vec3_norm(rk_vec3_sub(c.tgt_locals[j].t, trest[j].t)) > 1e-9 * rt->tmap.height)
        bb.trans_used[j] = true;
    }
  }
  /* Frame times must increase strictly (the last frame may coincide with the previous one when
   * the duration is not a multiple of the frame time). */
  size_t nkeys = frames;
  while (nkeys > 1 && !(bb.times[nkeys - 1] > bb.times[nkeys - 2]))
    nkeys--;
  res->clip = rk_clip_new(rk_clip_name(clip), nt);
  rk_clip_set_fps(res->clip, fps);
  {
    g_autofree double *vals = g_new(double, nkeys * 4);
    for (size_t j = 0; j < nt; j++) {
      for (int ch = 0; ch < 2; ch++) {
        bool used = ch == 0 ? bb.rot_used[j] : bb.trans_used[j];
        if (!used)
          continue;
        size_t nc = ch == 0 ? 4 : 3;
        const double *src = ch == 0 ? bb.rot : bb.trans;
        for (size_t f = 0; f < nkeys; f++)
          memcpy(vals + f * nc, src + (f * nt + j) * nc, nc * sizeof(double));
        rk_track tr = {(int)j, ch == 0 ? RK_CHANNEL_ROTATION : RK_CHANNEL_TRANSLATION,
                       RK_INTERP_LINEAR, nkeys, bb.times, vals};
        if (!rk_clip_add_track(res->clip, &tr, error)) {
          g_prefix_error(error, "clip '%s': ", rk_clip_name(clip));
          goto fail;
        }
      }
    }
  }
  rk_clip_set_duration(res->clip, dt_clip);
  bake_buf_clear(&bb);

  /* Quality: on the baked clip (what gets written), and the FK-only figures beside it. */
  {
    const char *names[MAX_FEET];
    rk_foot_contacts fcs[MAX_FEET];
    for (size_t k = 0; k < nf; k++) {
      names[k] = rk_skeleton_joint_name(rt->tgt, (size_t)rt->feet[k].tgt);
      fcs[k] = rk_retarget_result_contacts(res, k);
    }
    rk_retarget_measure(rt->tgt, res->clip, fps, names, fcs, nf, &res->quality);
    double sum = 0, mx = 0;
    size_t cnt = 0;
    for (size_t k = 0; k < nf; k++)
      skate_of(fk_p + k, MAX_FEET, res->intervals[k], &sum, &cnt, &mx);
    res->quality_fk.foot_skate_mean_mm = cnt ? sum / (double)cnt : 0;
    res->quality_fk.foot_skate_max_mm = mx;
    res->quality_fk.contact_frames = res->quality.contact_frames;
  }
  res->quality.ik_goal_error_mean_mm = goal_err_n ? goal_err_sum / (double)goal_err_n : 0;
  res->quality.ik_goal_error_max_mm = goal_err_max;
  res->quality.loop_closure_residual_max_mm = 1000.0 * closure_max;
  res->quality.joint_limit_violations = limit_violations;
  res->quality.loop_frames = loop_frames;
  if (limb_n > 0) {
    qsort(limb_angles, limb_n, sizeof(double), cmp_double);
    res->quality.limb_direction_median_deg = limb_angles[limb_n / 2];
  }
  res->quality_fk.limb_direction_median_deg = res->quality.limb_direction_median_deg;

  for (size_t k = 0; k < nf; k++)
    g_array_unref(pins[k]);
  rk_ik_ws_free(ws);
  run_ctx_clear(&c);
  return res;

fail:
  bake_buf_clear(&bb);
  for (size_t k = 0; k < nf; k++)
    if (pins[k])
      g_array_unref(pins[k]);
  rk_ik_ws_free(ws);
  run_ctx_clear(&c);
  rk_retarget_result_free(res);
  return NULL;
}
