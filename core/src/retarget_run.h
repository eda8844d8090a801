/* Internal: the retargeter, its result and the state of one run (retarget_run.c), shared by the
 * passes of rk_retargeter_run (retarget.c): pose transfer (retarget_transfer.c), ground and
 * contacts (retarget_contacts.c), IK (retarget_ik.c), the baked result (retarget_result.c) and
 * quality (retarget_quality.c); the correspondence of the two rigs (retarget_match.c) is made
 * once when the retargeter is built. The passes call down this list and into this header only,
 * never back up: retarget.c -> quality -> result -> ik -> contacts -> transfer -> run, and
 * retarget.c -> match. */
#ifndef RK_RETARGET_RUN_H
#define RK_RETARGET_RUN_H

#include <rigkit/ik.h>
#include <rigkit/loop.h>
#include <rigkit/retarget.h>
#include <rigkit/tree.h>

/* How a target joint is driven. */
typedef enum rk__rt_rule_kind {
  RK__RULE_REST,      /* keeps its rest local rotation */
  RK__RULE_ROTATION,  /* world rotation relative to rest, from the source joint (every joint
                         with a counterpart, canonical or not) */
  RK__RULE_DIRECTION, /* bone direction from the source bone, twist from the source's rotation
                         (canonical limb and spine bones whose rest directions differ) */
} rk__rt_rule_kind;

typedef struct rk__rt_rule {
  rk__rt_rule_kind kind;
  int src;       /* source joint */
  int src_child; /* DIRECTION: source joint at the far end of the bone */
  int tgt_child; /* DIRECTION: target joint at the far end of the bone */
} rk__rt_rule;

/* A foot joint that may be planted: source and target joints. */
#define RK__RT_MAX_FEET 4
typedef struct rk__rt_foot {
  rk_bone bone;
  int src, tgt;
  int side;               /* 0 left, 1 right */
  double src_rest_height; /* above the source's rest ground */
} rk__rt_foot;

struct rk_retargeter {
  rk_skeleton *src, *tgt;
  rk_humanoid_map smap, tmap;
  size_t ns, nt;
  rk_quat *qs0;  /* source rest world rotations */
  rk_vec3 *ps0;  /* source rest world positions */
  rk_quat *qt0;  /* target rest world rotations */
  rk_vec3 *pt0;  /* target rest world positions */
  rk_quat align; /* turns the source's facing onto the target's (about the up axis) */
  double scale;  /* target leg length / source leg length */
  int *match;    /* target joint -> its counterpart in the source, or -1 (retarget_match.c) */
  size_t matched_joints;
  double *tgt_wscale; /* target rest world scale per joint (uniform part) */
  rk__rt_rule *rules;
  int src_hips, tgt_hips;
  rk__rt_foot feet[RK__RT_MAX_FEET];
  size_t foot_count;
  rk_tree *tree;      /* the target as a mechanism: hips free, everything else as built */
  int *leg_joints[2]; /* target joints (links) from upper leg to toes (or foot), per side */
  size_t leg_count[2];
  size_t mapped;
  int *src_slot;   /* source joint -> index among the joints the transfer reads, or -1 */
  size_t src_used; /* how many */
};

struct rk_retarget_result {
  rk_clip *clip;
  size_t frames;
  double fps;
  size_t contact_count;
  int contact_joint[RK__RT_MAX_FEET];
  GArray *intervals[RK__RT_MAX_FEET]; /* rk_contact_interval */
  rk_retarget_quality quality, quality_fk;
  double *heights_fk, *heights_ik; /* frames x contact_count */
  rk_vec3 *fk_positions;           /* frames x contact_count: the transferred pose, before IK */
  rk_vec3 ground_velocity;         /* source space, units per second */
  bool in_place;
  double ground_offset;            /* the one vertical offset of the target's hips (metres) */
  rk_vec3 travel;                  /* velocity added to the source (source units per second) */
};

/* Key storage of the baked clip, per frame and joint. */
typedef struct rk__rt_keys {
  double *times;
  double *rot;   /* frames * nt * 4 */
  double *trans; /* frames * nt * 3 */
  bool *rot_used, *trans_used;
} rk__rt_keys;

/* The IK of one run: the target tree's problem and its state from frame to frame. */
typedef struct rk__rt_ik {
  size_t ndof;
  double *q, *q_fk, *q_prev;
  bool *locked;
  bool have_prev;        /* q_prev holds the last closed loop's configuration */
  rk_mat4 *tree_models;
  rk_loop loops[2];
  rk_ik_problem prob;
  rk_ik_options iko;
  rk_ik_ws *ws;
  int blend;                  /* frames of blending into and out of a pin */
  int ankle_k[2], toes_k[2];  /* per side: index into rt->feet of the ankle and the toes, or -1 */
  /* The current frame's goals of the foot joints, read by the quality figures. */
  rk_vec3 goal_pos[RK__RT_MAX_FEET];
  double goal_w[RK__RT_MAX_FEET];
} rk__rt_ik;

/* Running sums of the quality figures measured frame by frame. */
typedef struct rk__rt_tally {
  double goal_err_sum, goal_err_max, closure_max;
  size_t goal_err_n, limit_violations, loop_frames;
  double *limb_angles; /* frames * 8 */
  size_t limb_n;
} rk__rt_tally;

/* One run (one thread): the clip, the options, per-frame scratch and what the passes hand on. */
typedef struct rk__rt_run {
  const rk_retargeter *rt;
  const rk_clip *clip;
  const rk_retarget_options *opts;
  double fps, duration;
  size_t frames;
  rk_retarget_result *res;
  /* Sampling and transfer (retarget_transfer.c). */
  rk_transform *src_locals;
  rk_mat4 *src_models;
  rk_quat *src_world; /* source world rotations (all joints, of the last sampled frame) */
  /* The used source joints' world rotations and positions (without travel), per frame when
   * cached (src_cache_q/p: frames x rt->src_used), else of the current frame only. */
  rk_quat *src_cache_q;
  rk_vec3 *src_cache_p;
  rk_vec3 *src_cache_d; /* world displacement of each used joint by its animated translation */
  bool *src_moves;      /* per source joint: the clip animates its translation (hips aside) */
  bool cached;
  const rk_quat *cur_q; /* the current frame's slice */
  const rk_vec3 *cur_p;
  const rk_vec3 *cur_d;
  double cur_t;
  size_t cur_f;
  rk_transform *tgt_cache;  /* transferred target locals per frame (cached runs) */
  rk_quat *tgt_world_cache; /* and the world rotations they came from */
  rk_quat *tgt_world;
  rk_transform *tgt_locals;
  rk_mat4 *tgt_models;
  double src_ground; /* the clip's ground (retarget_contacts.c) */
  double tgt_ground;
  double ground_offset; /* added to the target hips' height (0 until the ground pass sets it) */
  rk_vec3 *hips_lift;   /* per cached frame: the hips' local translation that lifts them 1 m */
  rk_vec3 travel; /* velocity added to the source (in-place clips with root_motion) */
  /* Per frame: the source's foot joints (frames x RK__RT_MAX_FEET, travel included once known)
   * and per side the lowest point of each foot (the ankle's subtree), source and transferred
   * target (frames x 2). */
  rk_vec3 *src_p;
  double *src_sole, *tgt_sole;
  GArray *pins[RK__RT_MAX_FEET]; /* rk_vec3 per contact interval */
  rk__rt_ik ik;
  rk__rt_tally tally;
  rk__rt_keys keys;
} rk__rt_run;

/* The horizontal part of v (y = 0). */
static inline rk_vec3 rk__rt_horizontal(rk_vec3 v) {
  return rk_vec3_make(v.x, 0, v.z);
}

/* ---- retarget_run.c ---- */
/* World position (travel included) of a used source joint in the current frame. */
rk_vec3 rk__rt_src_pos(const rk__rt_run *run, int j);
/* Time of output frame f in the clip. */
double rk__rt_frame_time(const rk__rt_run *run, size_t f);
/* Frames [first, last] of contact joint k's planted intervals (borrowed from the result). */
rk_foot_contacts rk__rt_contacts(const rk_retarget_result *res, size_t k);
/* Frees everything a run allocated (NULL-safe fields). */
void rk__rt_run_clear(rk__rt_run *run);

/* ---- retarget_match.c ---- */
/* Fills t2s (one entry per target joint) with each target joint's counterpart in the source or
 * -1, and returns how many target joints have one. */
size_t rk__rt_match(const rk_skeleton *source, const rk_humanoid_map *smap,
                    const rk_skeleton *target, const rk_humanoid_map *tmap, int *t2s);

/* ---- retarget_transfer.c ---- */
/* Allocates the run's sampling and transfer scratch (cached when the frames fit the budget). */
void rk__rt_transfer_init(rk__rt_run *run);
/* Samples every frame of the source: its foot joints (src_p) and soles (src_sole). */
void rk__rt_scan_source(rk__rt_run *run);
/* Transfers every frame: caches the poses, the FK-only foot joints (res->fk_positions, heights)
 * and the target's soles (tgt_sole). */
void rk__rt_transfer_all(rk__rt_run *run);
/* Makes frame f the current frame with its transferred target pose. */
void rk__rt_pose_frame(rk__rt_run *run, size_t f);
/* Lifts the transferred target of every frame by `offset` (metres; the ground offset): the
 * cached poses, the FK-only foot joints and the target's soles. */
void rk__rt_shift_ground(rk__rt_run *run, double offset);

/* ---- retarget_contacts.c ---- */
/* The clip's ground, the ground's own velocity (in-place cycles, travel with root_motion) and
 * the contact intervals of every foot joint. */
void rk__rt_find_contacts(rk__rt_run *run);
/* The ground offset of the clip (none with ground = keep): the one lift of the target's hips
 * that stands its soles on its floor where the source's stand on the clip's ground (median over
 * the contact frames), applied to the transferred frames. */
void rk__rt_fit_ground(rk__rt_run *run);
/* Pins of every contact interval, the toes' fitted to their ankle's. */
void rk__rt_place_pins(rk__rt_run *run);
/* Pin weight of contact joint k at frame f and *pin_index, the interval it belongs to. */
double rk__rt_pin_weight(const rk__rt_run *run, size_t k, int f, int *pin_index);

/* ---- retarget_ik.c ---- */
/* Sets up the IK of a run; false with error when its workspace cannot be made. */
bool rk__rt_ik_init(rk__rt_run *run, GError **error);
/* Solves frame f (the current frame): pelvis, legs, hands, and the loop's closure. */
bool rk__rt_solve_frame(rk__rt_run *run, size_t f, GError **error);

/* ---- retarget_quality.c ---- */
/* Adds frame f's figures: pin errors, heights after IK, knees, limb directions. */
void rk__rt_measure_frame(rk__rt_run *run, size_t f);
/* The result's quality and FK-only quality, once the clip is baked. */
void rk__rt_finish_quality(rk__rt_run *run);

/* ---- retarget_result.c ---- */
/* A new result for the run's frames and contact joints. */
rk_retarget_result *rk__rt_result_new(const rk__rt_run *run);
/* Allocates the key storage of every frame. */
void rk__rt_keys_init(rk__rt_run *run);
/* Stores frame f's pose as keys. */
void rk__rt_key_frame(rk__rt_run *run, size_t f);
/* The baked clip from the keys; false with error. */
bool rk__rt_bake(rk__rt_run *run, GError **error);

#endif
