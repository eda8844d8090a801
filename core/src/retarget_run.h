/* Internal: the retargeter, its result and the state of one run (retarget_run.c), shared by the
 * passes of rk_retargeter_run (retarget.c): pose transfer (retarget_transfer.c, its rotations
 * four joints at a time in retarget_lanes.c), the source's contacts and pins
 * (retarget_contacts.c), the ground offset and the floor under the body (retarget_floor.c), the
 * feet as rigid soles (retarget_feet.c), the pelvis eased down where planted legs are short
 * (retarget_reach.c), IK (retarget_ik.c; legs of one bone in retarget_stiff.c), the baked result
 * (retarget_result.c) and quality (retarget_quality.c); the correspondence of the two rigs
 * (retarget_match.c) and the transfer's groups of joints are made once when the retargeter is
 * built. A long clip's per-frame passes go in two halves of frames on two threads
 * (retarget_split.c). The passes call down this list and into this header only, never back up:
 * retarget.c -> split -> quality -> result -> ik -> stiff -> reach -> feet -> floor -> contacts ->
 * transfer -> roll -> lanes -> run, and
 * retarget.c -> match, lanes. What a person sees in an output (retarget_output.c) and the verdict
 * on it (retarget_verdict.c) read a finished result through this header and call nothing here. */
#ifndef RK_RETARGET_RUN_H
#define RK_RETARGET_RUN_H

#include <rigkit/ik.h>
#include <rigkit/loop.h>
#include <rigkit/retarget.h>
#include <rigkit/skin.h>
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

/* Target joints that report contacts (per side the foot, then the toes when mapped). */
#define RK__RT_MAX_FEET 4
/* Sole points per foot (heel, ball, tip) and their slots in per-frame arrays: side * 3 + point. */
#define RK__RT_POINTS RK_SOLE_POINTS
#define RK__RT_SOLE_SLOTS (2 * RK__RT_POINTS)
/* Sole slot k of frame f of a per-frame sole array (frames x RK__RT_SOLE_SLOTS). */
#define RK__RT_SOLE(arr, f, k) ((arr)[(size_t)(f) * RK__RT_SOLE_SLOTS + (size_t)(k)])

/* One foot of the two rigs (0 left, 1 right). */
typedef struct rk__rt_side {
  rk_sole src, tgt;        /* sole points: the source's from its bones, the target's from its
                              meshes (or bones) */
  rk_sole tgt_bones;       /* the target's from its bones (options.soles = bones) */
  double low, low_bones;   /* the foot's lowest point at rest: of its mesh (else its sole), of
                              its bones' sole */
  int upper, knee, foot;   /* target leg joints; a leg of one bone has knee = upper (the bone
                              turns about the hip); a leg without a foot bone (its foot in the
                              last bone's mesh) has foot = knee, the ankle at ankle_local */
  int toe;                 /* target toe joint or -1 */
  rk_vec3 ankle_local;     /* the ankle in foot's frame: zero, or the end of a footless leg */
  bool footless;
  bool src_footless;       /* the source's leg has no foot bone either (its sole one point) */
  rk_sole src_stand;       /* where the source's leg stands when its foot is a detached part: the
                              sole carried by that part (the leg's end at rest), whose clip
                              keys (or node pose) may leave it away from the leg; foot -1 when
                              the leg carries its own sole */
  bool stand_apart;        /* the target's foot goes where the source's detached foot stands (the
                              source's contacts are that foot's), not to its leg's end: the
                              target's own foot is not a detached one placed as the source's */
  bool loose_foot;         /* its foot is a detached one (retarget_parts.c), posed at the leg's
                              end: level, its lowest point loose_drop below the ankle, while
                              the source's heel is planted; pitched as the source's foot else */
  double loose_drop;
} rk__rt_side;

/* Where side sd's ankle is in models (the foot joint, or the end of a footless leg). */
static inline rk_vec3 rk__rt_ankle(const rk__rt_side *sd, const rk_mat4 *models) {
  return sd->footless ? rk_mat4_transform_point(&models[sd->foot], sd->ankle_local)
                      : rk_mat4_get_translation(&models[sd->foot]);
}

/* A loose part of the target (retarget_parts.c): a deforming bone hanging from a root-level
 * control, posed on the body part it belongs to. */
typedef struct rk__rt_part {
  int joint;           /* the part's top deforming joint */
  int keyed;           /* the joint keyed to move it: its highest control, or joint itself */
  int leader;          /* the joint it follows */
  bool level;          /* a detached foot: turned with the leader's heading, pitched as the
                          source's foot (level while its heel is planted) */
  rk_mat4 offset;      /* the part's rest model in the leader's rest frame */
  rk_mat4 below;       /* the keyed joint's rest model in the part's rest frame */
  rk_mat4 part_rest;   /* the part's rest model without its translation */
} rk__rt_part;

/* A control of the target (retarget_controls.c): a joint outside the hips' subtree that weights no
 * vertex and carries none that does (an IK target, a pole, a socket at the root). */
typedef struct rk__rt_control {
  int joint;
  int leader;     /* the deforming bone it belongs to: the nearest at rest */
  bool as_source; /* placed on the leader as its counterpart is on the source's (rests agree) */
  rk_mat4 offset; /* else: its rest model in the leader's rest frame */
} rk__rt_control;

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
  bool rests_agree;   /* every target joint has a counterpart standing where it does at rest,
                         turned and scaled (rk__rt_rests_agree): the rigs correspond, the
                         transfer poses the target as the source stands */
  bool src_meshes;    /* the source carries meshes of its own (rk_retargeter_new_between): where
                         the rests agree, what the target's do in the transferred pose is the
                         source's doing */
  double *tgt_wscale; /* target rest world scale per joint (uniform part) */
  rk__rt_rule *rules;
  int src_hips, tgt_hips;
  rk__rt_side side[2];
  int contact_joint[RK__RT_MAX_FEET]; /* target joints reporting contacts: foot, toe per side */
  int contact_side[RK__RT_MAX_FEET];
  size_t foot_count;                  /* how many */
  rk_skin_support *skin;  /* the target's skinned meshes (no vertices without meshes) */
  double tgt_floor;       /* the target's floor: its soles' rest height (0 for a mesh's within
                             1% of the height from it) */
  double tgt_floor_bones; /* the same from the soles of its bones */
  bool meshes;            /* both soles come from meshes */
  int *body_joints;       /* target joints outside the feet: the body the floor holds */
  size_t body_count;
  rk__rt_part *parts;     /* loose parts (retarget_parts.c) */
  size_t part_count;
  int root_tgt, root_src; /* the root above the hips that carries the travel (both maps name it,
                             retarget_controls.c), or -1 */
  rk__rt_control *controls; /* the target's controls (retarget_controls.c), parents first */
  size_t control_count;
  rk_tree *tree;      /* the target as a mechanism: hips free, everything else as built */
  int *leg_joints[2]; /* target joints (links) from upper leg to toes (or foot), per side */
  size_t leg_count[2];
  size_t mapped;
  int *src_slot;   /* source joint -> index among the joints the transfer reads, or -1 */
  size_t src_used; /* how many */
  struct rk__rt_scratch *spare; /* the last run's per-frame arrays, for the next run (taken and
                                   given back atomically: runs on several threads share rt) */
  gint runs_ended;              /* runs finished so far (atomic): the first keeps no spare */
  struct rk__rt_lanes *lanes;   /* the target joints in groups for the transfer (retarget_lanes.c) */
  int *feet_links;      /* the target joints that carry the feet: the root down to each foot joint
                           (ascending), all the loop's closure reads of a configuration */
  size_t feet_link_count;
  int *world_kept;      /* the target joints whose transferred world rotations the passes after the
                           transfer read (hips, legs, soles, hands), ascending */
  size_t kept_count;
};

/* The per-frame arrays of a run in one block: a run takes the retargeter's spare block when it
 * is large enough (its pages already mapped: fresh arrays cost a page fault every 4 KB, 12% of a
 * run) and gives it back when done, from the retargeter's second run on (a retargeter run once,
 * one clip onto one character, holds no memory after it). */
typedef struct rk__rt_scratch {
  size_t capacity, used; /* bytes */
  unsigned char *data;
} rk__rt_scratch;

struct rk_retarget_result {
  rk_clip *clip;
  size_t frames;
  double fps;
  size_t contact_count;
  int contact_joint[RK__RT_MAX_FEET];
  GArray *intervals[RK__RT_MAX_FEET]; /* rk_contact_interval: any point of the joint planted */
  GArray *points[2][RK__RT_POINTS];   /* rk_contact_interval: each sole point's planted frames */
  int sole_joint[2][RK__RT_POINTS];   /* the target joint each sole point moves with */
  rk_sole tsole[2], ssole[2];         /* the soles the run used: target's, source's */
  GArray *slides[2];                  /* rk_contact_interval: a foot low and moving (sliding) */
  guint8 *phase;                      /* frames x 2: rk_foot_phase */
  rk_retarget_quality quality, quality_fk;
  double *heights_fk, *heights_ik; /* frames x contact_count */
  rk_vec3 *fk_positions;           /* frames x contact_count: the transferred pose, before IK */
  rk_vec3 *sole_fk, *sole_ik;      /* frames x RK__RT_SOLE_SLOTS: sole points before/after IK */
  rk_vec3 ground_velocity;         /* source space, units per second */
  bool in_place;
  double ground_offset;            /* the one vertical offset of the target's hips (metres) */
  double src_floor;                /* the clip's ground (source units) */
  double tgt_floor;                /* the target's floor (metres) */
  rk_vec3 travel;                  /* velocity added to the source (source units per second) */
  size_t lifted_frames;            /* frames the body was lifted off the floor */
  double *lift;                    /* per frame, how much (metres), or NULL when never */
  double *look_floor;              /* per frame, the floor the output's body depth is measured
                                      from (looser than the run's body_floor: the measure cannot
                                      tell regions apart), or NULL: the target's floor */
  double *look_feet_floor;         /* frames x 2: the floor a planted foot's mesh is measured
                                      from where the rigs correspond (as deep as the source's own
                                      foot goes), or NULL: the target's floor */
  bool foot_ik;                    /* made with foot IK */
  size_t pelvis_frames;            /* frames the pelvis moved so the legs reach their pins */
  double pelvis_max;               /* and the most it moved (metres) */
  size_t unreachable_frames;       /* frames a pin stayed out of reach */
};

/* Key storage of the baked clip, per joint: the arrays the clip's tracks take over. */
typedef struct rk__rt_keys {
  double *times;
  double **rot;   /* per target joint: frames * 4 */
  double **inv;   /* per target joint: frames, the rotation keys' inverse norms (the clip's) */
  double **trans; /* per target joint the run translates (tgt_moves): frames * 3, else NULL */
  bool *rot_used, *trans_used;
  size_t first; /* the first frame this run (or its copy) keys: that key is not turned into the
                   hemisphere of the one before (retarget_split.c joins the halves' keys) */
} rk__rt_keys;

/* What the feet want at the current frame (retarget_feet.c), per side. */
typedef struct rk__rt_foot_goal {
  bool active;              /* the leg is solved this frame */
  bool held;                /* a sole point is fully planted: the leg must reach */
  bool lifted;              /* lifted out of the floor: the leg must reach too */
  double lift;              /* how far it was lifted (the pins' height then stands that much
                               higher: a stiff leg rolled onto its sole's edge) */
  rk_vec3 ankle;            /* where the ankle goes */
  rk_quat foot, toe;        /* world rotations of the foot and the toe joint */
  double w[RK__RT_POINTS];  /* how firmly each sole point holds its pin (0..1) */
  rk_vec3 pin[RK__RT_POINTS];
} rk__rt_foot_goal;

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
  rk__rt_foot_goal goal[2];   /* the current frame's, read by the quality figures */
  rk_vec3 stiff_dir[2];       /* legs of one bone: each leg's direction at the last frame */
  bool stiff_have;            /* stiff_dir holds a frame's (a free leg turns from there) */
} rk__rt_ik;

/* Running sums of the quality figures measured frame by frame. */
typedef struct rk__rt_tally {
  double goal_err_sum, goal_err_max, closure_max;
  size_t goal_err_n, limit_violations, loop_frames;
  double *limb_cos; /* frames * 8: cosines of the limb angles, clamped into [-1, 1] */
  size_t limb_n;
  double *goal_errs; /* NULL: the pin errors are summed into goal_err_sum; else (a run's second
                        half) listed here, goal_err_n of them, for the sum in frame order */
} rk__rt_tally;

/* The ankle correction at the two ends of a planted interval (retarget_feet.c), faded in before
 * it and out after it. */
typedef struct rk__rt_edge {
  rk_vec3 first, last;
} rk__rt_edge;

/* The regions whose floor follows the source's own (retarget_depth.c): the body outside the
 * feet, each arm (left, right), each foot (left, right). */
enum { RK__RT_BODY = 0, RK__RT_ARM = 1, RK__RT_FOOT = 3, RK__RT_REGIONS = 5 };

/* One run (one thread): the clip, the options, per-frame scratch and what the passes hand on. */
typedef struct rk__rt_run {
  const rk_retargeter *rt;
  const rk_clip *clip;
  const rk_retarget_options *opts;
  rk__rt_scratch *scratch; /* the block the per-frame arrays below are carved from */
  double fps, duration;
  size_t frames;
  rk_retarget_result *res;
  /* Sampling and transfer (retarget_transfer.c): the source joints the transfer and the soles
   * read and their ancestors (ascending), sampled with a key cursor; locals, models and world
   * rotations of the last sampled frame (of those joints only: the other locals stay at rest). */
  int *src_joints;
  size_t src_joint_count;
  uint32_t *src_keys;
  rk_clip_cursor src_cursor;
  rk_transform *src_locals;
  rk_mat4 *src_models;
  rk_quat *src_world;
  /* The used source joints' world rotations and positions (without travel), per frame when
   * cached (src_cache_q/p: frames x rt->src_used), else of the current frame only. */
  rk_quat *src_cache_q;
  rk_vec3 *src_cache_p;
  rk_vec3 *src_cache_d; /* world displacement of each used joint by its animated translation */
  bool *src_moves;      /* per source joint: the clip animates its translation (hips aside) */
  bool *tgt_moves;      /* per target joint: the run may move its translation off its rest (the
                           hips, joints whose counterparts the clip translates, and the keyed
                           joints of loose parts, the moving root, the joints hanging from it and
                           the controls) */
  bool root_moves;      /* the clip translates the source's root: the target's root follows */
  bool cached;
  const rk_quat *cur_q; /* the current frame's slice */
  const rk_vec3 *cur_p;
  const rk_vec3 *cur_d;
  double cur_t;
  size_t cur_f;
  /* The transferred target per frame (cached runs): every joint's local rotation (frames x nt),
   * the translations of the joints in t_joints (frames x t_count; the others keep their rest's)
   * and the world rotations of rt->world_kept (frames x rt->kept_count). */
  rk_quat *tgt_rot_cache;
  rk_vec3 *tgt_t_cache;
  rk_quat *tgt_world_cache;
  int *t_joints; /* the target joints tgt_moves marks (ascending) */
  size_t t_count;
  size_t hips_t;   /* the hips' place in t_joints */
  rk_quat *tgt_world; /* after rk__rt_pose_frame, current for rt->world_kept only */
  rk_quat *limb_world; /* the world rotations IK turns limbs from (retarget_ik.c): the transferred
                          ones of rt->world_kept after rk__rt_pose_frame, then as IK sets them */
  int *redo;       /* the joints the lanes left to the scalar transfer (rk__rt_world_lanes) */
  int *hips_chain; /* the target hips' ancestors (ascending): placed before the hips */
  size_t hips_chain_count;
  rk_transform *tgt_locals;
  rk_mat4 *tgt_models;
  double src_floor;     /* the clip's ground (retarget_contacts.c), source units */
  double tgt_floor;     /* the target's floor */
  const rk_sole *tsole[2];     /* the target's soles this run uses (meshes or bones) */
  double tlow[2];              /* and each foot's lowest point at rest */
  const rk_skin_support *skin; /* the target's meshes, or NULL (bones only) */
  double ground_offset; /* added to the target hips' height (0 until the ground pass sets it) */
  double *lift;         /* per frame: the pelvis lift that keeps the body above the floor, less
                           the lowering that lets planted legs reach (reach_drop) */
  double *reach_drop;   /* per frame: that lowering (retarget_reach.c), or NULL when none */
  rk_vec3 *hips_lift;   /* per cached frame: the hips' local translation that lifts them 1 m */
  rk_vec3 travel;       /* velocity added to the source (in-place clips with root_motion) */
  /* Per frame: the sole points of the source (travel included once known) and of the
   * transferred target (frames x RK__RT_SOLE_SLOTS), the lowest point of the target's body
   * outside the feet (frames). */
  rk_vec3 *src_pts, *tgt_pts;
  double *tgt_body;
  /* Per frame x RK__RT_REGIONS (retarget_depth.c): how far (target metres) the source's own
   * joints of each region go below the clip's ground, scaled (<= 0: not through); NULL when no
   * region of any frame goes through (the floor is the target's everywhere). body_floor: per
   * frame, the level the body outside the feet may reach down to (NULL: the target's floor). */
  double *src_below;
  double *body_floor;
  /* Per frame x RK__RT_REGIONS, when the rigs correspond (rests_agree) and the target has
   * meshes: how far each region's mesh goes below the floor as the transfer poses it, which is
   * the source's own pose (<= 0: not through); else NULL. */
  double *own_below;
  /* The target joints of each region that have counterparts (retarget_depth.c): region r's are
   * region_joints[region_at[r] .. region_at[r + 1]); src_low, per frame x RK__RT_REGIONS, the
   * lowest y of their counterparts in the source (without travel; INFINITY when none), taken as
   * the scan samples the frame. */
  int *region_joints;
  size_t region_at[RK__RT_REGIONS + 1];
  double *src_low;
  rk_vec3 *src_stand; /* frames x RK__RT_SOLE_SLOTS: the source's sole points as its feet stand
                         (rk__rt_side.src_stand; drop and travel as src_pts), filled for the
                         sides with a detached foot; NULL when no side has one */
  rk_vec3 *tgt_apart; /* frames x RK__RT_SOLE_SLOTS: for the sides that stand apart, how far the
                         source's foot stands from its leg's end, carried onto the target (turned
                         and scaled); NULL when no side does */
  bool apart[2];      /* the clip leaves that side's foot apart from its leg's end (further than
                         the contact height somewhere): its sole points are the foot's
                         (src_pts), the target's carried by tgt_apart (retarget_contacts.c) */
  rk_quat *src_shin; /* per frame x 2: the world rotation of the source's last leg bone where the
                        sole rolls (retarget_roll.c), or NULL when no side does */
  GArray *pins[2][RK__RT_POINTS];  /* rk_vec3 per interval of res->points */
  double stiff_width;  /* legs of one bone with a skin: their blocks' widths toward each other
                          (m, summed; rk__rt_stiff_apart), else 0 */
  GArray *rolling[2][RK__RT_POINTS]; /* gboolean per interval: its pin rolls (retarget_roll.c);
                                        NULL where the side does not roll */
  GArray *edges[2][RK__RT_POINTS]; /* rk__rt_edge per interval of res->points */
  guint weight_at[2][RK__RT_POINTS + 1]; /* rk__rt_interval_weight's cursors: each side's points'
                                            intervals and its slides */
  rk__rt_ik ik;
  rk__rt_tally tally;
  rk__rt_keys keys;
} rk__rt_run;

/* The horizontal part of v (y = 0). */
static inline rk_vec3 rk__rt_horizontal(rk_vec3 v) {
  return rk_vec3_make(v.x, 0, v.z);
}

/* ---- retarget_run.c ---- */
/* Sets target joint j's local rotation so that its world rotation becomes w: from its parent's
 * world rotation in limb_world (current), which then holds w for j. */
void rk__rt_set_world_rotation(rk__rt_run *c, int j, rk_quat w);
/* After joint `from` turned: the world rotations (limb_world) of the joints below it on the way
 * down to its descendant `to` (a twist joint or two), parents first. Their models wait for the
 * caller's one pass over the limb once its last turn is set (rk__rt_fk_below from its top: each
 * model is made once, from its final local, as a pass along the way would make it). */
void rk__rt_turned_path(rk__rt_run *c, int from, int to);
/* The target pelvis' facing in the current pose. */
rk_vec3 rk__rt_pelvis_forward(const rk__rt_run *c);
/* Moves the target's pelvis (translation only) so that its world position becomes p, and redoes
 * the models. */
void rk__rt_set_pelvis_position(rk__rt_run *c, rk_vec3 p);
/* World position (travel included) of a used source joint in the current frame. */
rk_vec3 rk__rt_src_pos(const rk__rt_run *run, int j);
/* Time of output frame f in the clip. */
double rk__rt_frame_time(const rk__rt_run *run, size_t f);
/* Frames [first, last] of contact joint k's planted intervals (borrowed from the result). */
rk_foot_contacts rk__rt_contacts(const rk_retarget_result *res, size_t k);
/* Whether frame f lies in one of the intervals (rk_contact_interval) of iv: in frame order and
 * disjoint, as a run finds them (O(log n)). */
bool rk__rt_in_intervals(const GArray *iv, int f);
/* Whether a sole point of side is (fully) planted at frame f of result r. */
bool rk__rt_side_held(const rk_retarget_result *r, int side, size_t f);
/* How firmly frame f belongs to the intervals of iv (in frame order, disjoint): 1 inside one, a
 * smoothstep ramp over `blend` frames before and after, 0 elsewhere; *index the interval (-1 when
 * none). *at is a cursor into iv kept between calls for nearby frames (start it at 0). */
double rk__rt_interval_weight(const GArray *iv, int f, int blend, guint *at, int *index);
/* Models of joint j of s and of its descendants from locals, the strict ancestors of `last`
 * among them aside (last = j: the whole subtree): what rk_fk_models gives when the other models
 * are current (only locals in j's subtree changed since, and those ancestors' models are current
 * already, rk__rt_fk_path). Allocates nothing. */
void rk__rt_fk_below(const rk_skeleton *s, const rk_transform *locals, rk_mat4 *models, int j,
                     int last);
/* Models of the joints from `from` down to its descendant `to` (inclusive) from locals, their
 * parents' models current: what a limb's next turn needs before its subtree is redone
 * (rk__rt_fk_below). Allocates nothing. */
void rk__rt_fk_path(const rk_skeleton *s, const rk_transform *locals, rk_mat4 *models, int from,
                    int to);

/* Poses the loose parts on the solved frame: their keyed joints' locals and the models below. */
void rk__rt_parts_frame(rk__rt_run *c);
/* Poses side's detached foot on the current models as rk__rt_parts_frame will (its keyed joint's
 * local and the models below: the run's arrays) and gives its mesh's lowest point; false (low
 * untouched) when side has no detached foot or no mesh. */
bool rk__rt_loose_foot_low(rk__rt_run *c, int side, rk_vec3 *low);
/* The lowest point (y) of the meshes of the loose parts (not detached feet) that ride on joint top
 * or a joint below it, each posed on its leader's current model (the run's pose arrays: its
 * keyed joint's local and the models below); INFINITY when none has a mesh. */
double rk__rt_parts_low_on(rk__rt_run *c, int top);
/* Whether the skinned mesh of joint top and the joints below it is surely above the target's floor
 * at the current models (its bound, rk_skin_bound_subtree, above it by a millionth of the
 * height), with no loose part riding on them (rk__rt_parts_low_on poses those): false without a
 * mesh there. */
bool rk__rt_surely_above(const rk__rt_run *c, int top);
/* The deforming joint of the target's body (the hips' subtree; count: vertices per joint) whose
 * bone or skin is nearest to where joint j stands at rest. */
int rk__rt_nearest_bone(const rk_retargeter *rt, const size_t *count, int j);

/* What the loose parts and the controls are found from: the vertices weighted to each target
 * joint (count), to it and its descendants (below), and the joints' rest models. */
typedef struct rk__rt_census {
  size_t *count, *below;
  rk_mat4 *rest;
} rk__rt_census;
/* Takes the target's census (owned by cs, freed by rk__rt_census_clear); false (nothing held)
 * when the target has no meshes. */
bool rk__rt_census_take(const rk_retargeter *rt, rk__rt_census *cs);
/* Frees what cs holds. */
void rk__rt_census_clear(rk__rt_census *cs);
/* Whether target joint j stands to its leader at rest as its counterpart stands to the leader's
 * counterpart on the source (turned, scaled, within 0.5% of the height). */
bool rk__rt_follows_source(const rk_retargeter *rt, int j, int leader);
/* The model of target joint j on its leader's current model as its counterpart is on the leader's
 * counterpart in the current source frame (rk__rt_follows_source holds). */
rk_mat4 rk__rt_place_as_source(const rk__rt_run *c, int j, int leader);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(rk__rt_census, rk__rt_census_clear)
/* Whether target joint j lies in the subtree of a loose part's keyed joint (those are posed by
 * retarget_parts.c). */
bool rk__rt_in_part(const rk_retargeter *rt, size_t j);
/* Finds the target's loose parts (retarget_parts.c) once its feet are set, and takes them out of
 * the body the floor holds; cs is the target's census (NULL: no meshes, so none). */
void rk__rt_parts_init(rk_retargeter *rt, const rk__rt_census *cs);

/* ---- retarget_controls.c ---- */
/* Finds the root that carries the travel and the target's controls (after the loose parts; cs as
 * for rk__rt_parts_init: no controls without meshes). */
void rk__rt_controls_init(rk_retargeter *rt, const rk__rt_census *cs);
/* Marks in tgt_moves the joints whose translations the controls' pass sets. */
void rk__rt_controls_moves(rk__rt_run *c);
/* Places the root and keys the controls on the solved frame (after the loose parts). */
void rk__rt_controls_frame(rk__rt_run *c);

/* Makes the run's scratch hold at least bytes[0..n) (each rounded up to a cache line), from the
 * retargeter's spare block when it is large enough. */
void rk__rt_scratch_reserve(rk__rt_run *run, const size_t *bytes, size_t n);
/* The next `bytes` of the run's scratch (within what was reserved; NULL for 0 bytes). */
void *rk__rt_scratch_carve(rk__rt_run *run, size_t bytes);
/* Frees a scratch block (NULL-safe). */
void rk__rt_scratch_free(rk__rt_scratch *s);
/* Frees a run's IK state (NULL-safe fields). */
void rk__rt_ik_clear(rk__rt_ik *ik);
/* Frees everything a run allocated (NULL-safe fields) and gives its scratch back to the
 * retargeter. */
void rk__rt_run_clear(rk__rt_run *run);

/* ---- retarget_match.c ---- */
/* Fills t2s (one entry per target joint) with each target joint's counterpart in the source or
 * -1, and returns how many target joints have one. */
size_t rk__rt_match(const rk_skeleton *source, const rk_humanoid_map *smap,
                    const rk_skeleton *target, const rk_humanoid_map *tmap, int *t2s);
/* Whether every target joint of rt (matched, rests, facing and scale set) has a counterpart
 * standing where it does at rest relative to the hips, turned and scaled (within 0.5% of the
 * target's height): a clip onto its own rig, or onto one of its proportions. */
bool rk__rt_rests_agree(const rk_retargeter *rt);

/* ---- retarget_lanes.c ---- */
typedef struct rk__rt_lanes rk__rt_lanes;
/* The target joints in groups of four for the transfer's rotations (rules and slots set). */
rk__rt_lanes *rk__rt_lanes_new(const rk_retargeter *rt);
/* Frees the groups (NULL-safe). */
void rk__rt_lanes_free(rk__rt_lanes *lanes);
/* The normalised world rotations of the target joints driven by a source joint (ROTATION and
 * DIRECTION rules) for the current source frame into world, as the transfer's scalar rotation
 * gives them; returns how many joints it left to redo that way (the rare opposite bone
 * directions), listed in redo (room for every target joint). */
size_t rk__rt_world_lanes(const rk__rt_run *run, rk_quat *world, int *redo);
/* The local rotation normalize(conj(world[parent]) world[j]) of every target joint with a parent,
 * into locals[j].r. */
void rk__rt_local_lanes(const rk_retargeter *rt, const rk_quat *world, rk_transform *locals);

/* ---- retarget_transfer.c ---- */
/* Allocates the run's sampling and transfer scratch (cached when the frames fit the budget) and
 * carves the per-frame arrays of the run (the keys' times too) from its scratch block. */
void rk__rt_transfer_init(rk__rt_run *run);
/* The normalised world rotation of target joint j for the current source frame, turned into the
 * target's facing (a joint at rest: its parent's world rotation current), one joint at a time:
 * what rk__rt_world_lanes gives four at a time. */
rk_quat rk__rt_transfer_rotation(const rk__rt_run *run, size_t j);
/* Samples frames [first, end) of the source: its sole points (src_pts, without travel; a
 * detached foot's in src_stand, on the sides that may stand apart its offset from the leg's end
 * in tgt_apart). Each
 * frame's figures depend on that frame alone (a run's copy may do another range meanwhile). */
void rk__rt_scan_frames(rk__rt_run *run, size_t first, size_t end);
/* Transfers frames [first, end): caches the poses, the FK-only foot joints (res->fk_positions,
 * heights), the target's sole points (tgt_pts) and the lowest point of its body (tgt_body). Each
 * frame depends on that frame alone (a run's copy may do another range meanwhile). */
void rk__rt_transfer_frames(rk__rt_run *run, size_t first, size_t end);
/* Makes frame f the current frame with its transferred target pose (ground offset and lift
 * included): locals, models, and the world rotations of rt->world_kept. From the cache it sets
 * every local rotation and the translations (and rest scales) of t_joints: the other joints'
 * translations and scales are their rest's already (the transfer set them; IK turns joints and
 * moves the hips, and a loose part's keyed joint, in t_joints, takes a whole transform). */
void rk__rt_pose_frame(rk__rt_run *run, size_t f);
/* rk__rt_pose_frame with the models of `joints` only (an ancestor closure, ascending) from the
 * cache: the others' are stale until the next rk__rt_pose_frame (all of them when not cached). */
void rk__rt_pose_frame_joints(rk__rt_run *run, size_t f, const int *joints, size_t count);
/* Raises what the transfer recorded of frame f by dy (metres): the FK-only foot joints and sole
 * points, the body's lowest point (the pose itself is raised where it is made). */
void rk__rt_raise_frame(rk__rt_run *run, size_t f, double dy);
/* Lifts the transferred target of every frame by `offset` (metres; the ground offset): the
 * cached poses and what rk__rt_raise_frame raises. */
void rk__rt_shift_ground(rk__rt_run *run, double offset);
/* The lowest point (y) of the target's body outside the feet in models: skinned, or its joints
 * without meshes. */
double rk__rt_body_low(const rk__rt_run *run, const rk_mat4 *models);

/* ---- retarget_contacts.c ---- */
/* The sides whose foot the clip leaves apart from the leg (run->apart: their sole points become
 * the foot's), the clip's ground from its planted sole points, the ground's own velocity (in-place cycles,
 * travel with root_motion), the planted intervals of every sole point (low and still), the
 * slides (low and moving), the phases and the contact joints' intervals. */
void rk__rt_find_contacts(rk__rt_run *run);
/* Pins of every planted interval: the transferred target point's median place on the floor, a
 * point planted while another of its foot holds fitted to it at the foot's own distance. */
void rk__rt_place_pins(rk__rt_run *run);

/* ---- retarget_roll.c ---- */
/* Lowers the source's sole points of a leg without a foot bone by their rest height above its
 * mesh's sole: they then stand on the clip's ground as the target's planted points do. */
void rk__rt_roll_soles(rk__rt_run *run);
/* How high side's target sole point stands above its foot's lowest point at rest: 0 for a foot
 * bone, the end's rest height above its mesh's sole for a leg without one. */
double rk__rt_end_stand(const rk__rt_run *run, int side);
/* Whether side's pins roll with the source's point: both rigs' legs end in a mesh's sole. */
bool rk__rt_rolls(const rk_retargeter *rt, int side);
/* How many bytes of scratch the run's src_shin takes (0: no side rolls). */
size_t rk__rt_roll_bytes(const rk_retargeter *rt, size_t frames);
/* Notes the sampled source frame f's shin rotations into src_shin (when it is not NULL). */
void rk__rt_roll_scan(rk__rt_run *run, size_t f);
/* Where both rigs' legs end in a mesh's sole: each interval's pin stored so that the pin at a
 * frame (rk__rt_pin_at) moves with the source's point where the source's shin rolls the sole that
 * far (its roll kept), else stays (a slide taken out); marks which in run->rolling. */
void rk__rt_roll_pins(rk__rt_run *run);
/* The pin of interval index of side's sole point p at frame f. */
rk_vec3 rk__rt_pin_at(const rk__rt_run *run, int side, int p, int index, size_t f);

/* ---- retarget_depth.c ---- */
/* The regions whose floor follows the source's own (defined above rk__rt_run). */
/* How far the source's own regions go below the clip's ground, per frame (run->src_below, and
 * the measure's floor per frame in run->res->look_floor), from the scan's src_low and, where the
 * rigs correspond, run->own_below (set before it by rk__rt_fit_floor); both left NULL when none
 * ever does. */
void rk__rt_source_below(rk__rt_run *run);
/* Lists each region's target joints that have counterparts (run->region_joints, region_at),
 * into region_joints (room for RK__RT_REGIONS x the target's joints, run's scratch). */
void rk__rt_regions_init(rk__rt_run *run, int *region_joints);
/* The source's region lows at frame f (run->src_low) from the scan's models of it (src_models:
 * every counterpart is among the joints the scan samples). */
void rk__rt_source_low(rk__rt_run *run, size_t f);
/* The level (y) region's mesh may reach down to in the current frame and models, its lowest
 * point now at low: the target's floor, lowered as far as the source's own joints of the region
 * go through the clip's ground (scaled), plus the margin by which the mesh reaches below those
 * joints, up to that depth again (the target's floor when the source's stay above it); where the
 * rigs correspond, at least as far as the region's mesh goes through as transferred. */
double rk__rt_floor_for(const rk__rt_run *run, int region, double low);
/* Whether the source's own region goes through the floor at frame f (its joints, or where the
 * rigs correspond its mesh as transferred): the region's floor is lowered there. */
bool rk__rt_own_through(const rk__rt_run *run, size_t f, int region);
/* The level the body outside the feet may reach down to at frame f (rk__rt_fit_floor's). */
double rk__rt_body_floor(const rk__rt_run *run, size_t f);

/* ---- retarget_floor.c ---- */
/* The ground offset of the clip (none with ground = keep): the one lift of the target's hips
 * that stands its soles on its floor where the source's stand on the clip's ground (median over
 * the planted frames), applied to the transferred frames. */
void rk__rt_fit_ground(rk__rt_run *run);
/* The body over the floor (with foot IK): per frame, the pelvis lift (smooth over blend_time)
 * that keeps the lowest point of the body outside the feet above the floor. */
void rk__rt_fit_floor(rk__rt_run *run);
/* A smooth envelope over need (per frame, >= 0) into out (per frame, as zeroed or raised
 * before): each frame's need held and faded out over blend_time on either side with a
 * smoothstep, out never less than it. */
void rk__rt_ease_envelope(const rk__rt_run *run, const double *need, double *out);

/* ---- retarget_stiff.c ---- */
/* Whether both legs of the target are of one bone (no knee) and its hips move freely. */
bool rk__rt_stiff_legs(const rk_retargeter *rt);
/* Turns side's leg of one bone (its end point pc) about its hip onto goal g (held: at it; in its
 * swing: over it, hanging, reaching out of the floor); updates its local and limb_world, not
 * the models. Returns whether the end reaches the goal. */
bool rk__rt_aim_stiff_leg(rk__rt_run *run, int side, rk_vec3 pc, const rk__rt_foot_goal *g);
/* The pelvis moved onto legs of one bone as firmly as their feet hold (redoing the models);
 * returns whether any leg weighs on it. */
bool rk__rt_stand_on_stiff_legs(rk__rt_run *run);
/* Whether a leg of one bone fading into or out of a contact was lifted out of the floor (the
 * pelvis and the legs are solved again). */
bool rk__rt_stiff_lifted(const rk__rt_run *run);
/* Free legs of one bone turned from the last frame's directions at a bounded rate, their feet
 * kept out of the floor (the pelvis lifted while no foot holds, else the leg turned further);
 * redoes the models it changes. */
void rk__rt_pace_stiff_legs(rk__rt_run *run);
/* Notes the legs' directions of this frame for the next one's pacing (legs of one bone only). */
void rk__rt_remember_stiff_legs(rk__rt_run *run);
/* Legs of one bone, before the pins: pts (the transferred sole points, frames x sole slots)
 * moved over the ground at every planted frame so that each sole's middle stands where the
 * source's foot does relative to its hip (turned and scaled), from the transferred hip: the pins'
 * places. The transferred leg along a crouching thigh put the foot far ahead and across. */
void rk__rt_stiff_places(rk__rt_run *run, rk_vec3 *pts);
/* Legs of one bone: the goal `ankle` of side's foot fading into or out of a contact by weight w
 * (the transferred leg's end corrected by w toward its pin) taken from the transferred leg's end
 * over to where the source's foot stands from the hip (as a free leg of one bone hangs) by
 * 1 - w: so that the pelvis riding on it moves from the free stance to the held one, not by way
 * of where the transferred thigh points. Unchanged on other legs, and at w >= 1. */
rk_vec3 rk__rt_stiff_fade(const rk__rt_run *run, int side, rk_vec3 ankle, double w);
/* Legs of one bone with a skin, after the pins are placed: a foot planted while the other one
 * holds has its pins (the sole's, as one) moved out along the hips' line until the blocks of
 * the two legs standing on them keep apart (a cross step's foot stops beside the other leg),
 * fixed over the contact. Contacts are taken by start: the later one yields. */
void rk__rt_stiff_apart(rk__rt_run *run);

/* ---- retarget_leg_blocks.c ---- */
/* How far the mesh of the target's leg `leg` (the joint and those below it) reaches from the
 * point `from` along the unit t at rest: the lowest skinned vertex once the rest models `rest`
 * are turned so that t points down (the models restored to rest). False (*reach 0) when that
 * leg dominates no vertex or there is no skin. */
bool rk__rt_leg_reach(const rk_retargeter *rt, rk_mat4 *rest, int leg, rk_vec3 from, rk_vec3 t, double *reach);
/* The closest distance between segments p0-p1 and q0-q1 (the closest points' parameters by
 * clamping, each clamp followed by the other's best answer). */
double rk__rt_segments_distance(rk_vec3 p0, rk_vec3 p1, rk_vec3 q0, rk_vec3 q1);

/* ---- retarget_reach.c ---- */
/* The pelvis eased to what the legs reach, before the solve (retarget_split.c runs it): whether
 * the run needs it (foot IK, legs with knees, free hips). */
bool rk__rt_reach_wanted(const rk__rt_run *run);
/* Frames [first, end) posed on the run's scratch: how far the pelvis must come straight down for
 * the fully planted legs to reach their pins (raised into down[f], zeroed by the caller) and go up
 * for a kneeling shin or a folded free leg (up[f]). Each frame stands alone, so two runs may
 * take the two halves of the frames. Returns whether any frame needs a move. */
bool rk__rt_reach_needs(rk__rt_run *run, size_t first, size_t end, double *down, double *up);
/* The moves down and up of every frame eased in and out over blend_time into the frames' lift
 * (reach_drop holds the lowering), never taking the body through the floor. */
void rk__rt_reach_ease(rk__rt_run *run, const double *down, const double *up);

/* ---- retarget_foot_low.c ---- */
/* The target joints that carry the feet, toes and sole points and their ancestors (ascending)
 * into chains (room for every target joint); returns how many. */
size_t rk__rt_feet_chains(const rk__rt_run *run, int *chains);
/* The lowest point of side's foot (its mesh, else its sole points) in the current models, and
 * the joint it moves with (*joint). */
rk_vec3 rk__rt_foot_low(rk__rt_run *run, int side, int *joint);
/* How far (m, >= 0) the mesh of side's foot is below the floor in the current models, a slight
 * dip of the toes' mesh at the crease of a foot the goal holds at its toes aside. */
double rk__rt_foot_depth(rk__rt_run *run, int side, const rk__rt_foot_goal *g);

/* ---- retarget_feet.c ---- */
/* Where side's ankle goes at frame f (its models posed: the chains of rk__rt_feet_chains) for
 * its fully planted sole points to hold their pins; false when none is fully planted. */
bool rk__rt_held_ankle(rk__rt_run *run, int side, size_t f, rk_vec3 *ankle);
/* The ankle corrections at the first frames of every planted interval (from the exact solve
 * there); rk__rt_feet_goals sets those at the last frames. */
void rk__rt_feet_prepare(rk__rt_run *run);
/* What each foot wants at frame f (the current frame, transferred pose): ik->goal; and the ankle
 * correction at f where f ends a planted interval (read from the frames after it). */
void rk__rt_feet_goals(rk__rt_run *run, size_t f);
/* A foot held at one end (the heel, or the ball and tip) whose mesh goes through the floor in
 * the current models: turns the goal (foot, toes and ankle) about the held pin so that its lowest
 * point comes up to the floor; false when that does not apply. */
bool rk__rt_foot_tilt(rk__rt_run *run, int side, rk__rt_foot_goal *g);

/* ---- retarget_ik.c ---- */
/* Sets up the IK of a run; false with error when its workspace cannot be made. */
bool rk__rt_ik_init(rk__rt_run *run, GError **error);
/* Solves frame f (the current frame): pelvis, legs, feet, hands, and the loop's closure. */
bool rk__rt_solve_frame(rk__rt_run *run, size_t f, GError **error);

/* ---- retarget_quality.c ---- */
/* Adds frame f's figures: pin errors, sole points and heights after IK, knees, limb
 * directions. */
void rk__rt_measure_frame(rk__rt_run *run, size_t f);
/* The result's quality and FK-only quality, once the clip is baked. */
void rk__rt_finish_quality(rk__rt_run *run);

/* ---- retarget_split.c ---- */
typedef struct rk__rt_split rk__rt_split;
/* The second half of a run that goes in two halves of frames (rk_retarget_options.threads: a long
 * cached clip), or NULL: one pass. Made once the run's caches are set up. */
rk__rt_split *rk__rt_split_new(const rk__rt_run *run);
/* Frees it (NULL-safe). */
void rk__rt_split_free(rk__rt_split *s);
/* rk__rt_scan_frames over every frame, in halves with s (NULL: one pass). */
void rk__rt_split_scan(rk__rt_run *run, rk__rt_split *s);
/* rk__rt_transfer_frames over every frame, in halves with s (NULL: one pass). */
void rk__rt_split_transfer(rk__rt_run *run, rk__rt_split *s);
/* The pelvis eased to what the legs reach (retarget_reach.c), each frame's need found in halves
 * with s (NULL: one pass); nothing when the run does not need it. */
void rk__rt_split_reach(rk__rt_run *run, rk__rt_split *s);
/* Per output frame: the transferred pose, the IK, the checks and figures, the keys; in halves
 * with s, the same bits as one pass. False with the error of the earliest frame that fails. */
bool rk__rt_split_solve(rk__rt_run *run, rk__rt_split *s, GError **error);

/* ---- retarget_result.c ---- */
/* A new result for the run's frames and contact joints. */
rk_retarget_result *rk__rt_result_new(const rk__rt_run *run);
/* Sets up the key storage of every frame (the times carved by rk__rt_transfer_init). */
void rk__rt_keys_init(rk__rt_run *run);
/* Stores frame f's pose as keys. */
void rk__rt_key_frame(rk__rt_run *run, size_t f);
/* The baked clip from the keys (the clip takes their arrays). */
void rk__rt_bake(rk__rt_run *run);

#endif
