/* Retargeting: the retargeter (how each target joint is driven, the feet of both rigs, the
 * target's floor and meshes, the target as a mechanism) and rk_retargeter_run, the sequence of
 * passes over a clip: pose transfer (retarget_transfer.c), the source's contacts and the pins
 * (retarget_contacts.c), the ground offset and the floor under the body (retarget_floor.c), the
 * feet as rigid soles (retarget_feet.c), IK (retarget_ik.c), quality (retarget_quality.c) and
 * the baked result (retarget_result.c). */
#include "retarget_run.h"

#include "humanoid_internal.h"
#include "math_internal.h"

#include <rigkit/error.h>

#include <string.h>

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

/* Rest directions of a bone on the two rigs closer than this (radians) are the same: the bone
 * takes its counterpart's world rotation alone, which then gives the direction exactly. */
#define RK__RT_SAME_DIRECTION (0.25 * RK_DEG)

/* ---- construction ---------------------------------------------------------------------------- */

/* Rest world rotations, positions and (optional) uniform scales of a skeleton's joints. */
static void rest_world(const rk_skeleton *s, rk_quat *q, rk_vec3 *p, double *scale) {
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_mat4 *m = g_new(rk_mat4, n);
  rk_skeleton_rest_models(s, m);
  for (size_t j = 0; j < n; j++) {
    int par = rk_skeleton_parent(s, j);
    q[j] = rk_quat_normalize(par < 0 ? rk_skeleton_rest(s, j)->r
                                     : rk_quat_mul(q[par], rk_skeleton_rest(s, j)->r));
    p[j] = rk_mat4_get_translation(&m[j]);
    if (scale)
      scale[j] = rk_vec3_norm(rk_vec3_make(m[j].m[0], m[j].m[1], m[j].m[2]));
  }
}

/* Whether bone t -> te of the target points, at rest, where bone s -> se of the source points
 * (turned onto the target's facing); false when either bone has no length. */
static bool same_rest_direction(const rk_retargeter *rt, int t, int te, int s, int se) {
  const rk_vec3 bt = rk_vec3_sub(rt->pt0[te], rt->pt0[t]);
  const rk_vec3 bs = rk_quat_rotate(rt->align, rk_vec3_sub(rt->ps0[se], rt->ps0[s]));
  const double lt = rk_vec3_norm(bt), ls = rk_vec3_norm(bs);
  return lt > 1e-6 * rt->tmap.height && ls > 1e-6 * rt->smap.height &&
         rk_vec3_dot(bt, bs) >= cos(RK__RT_SAME_DIRECTION) * lt * ls;
}

/* How each target joint is driven: rest (no counterpart), its counterpart's world rotation, or,
 * for a canonical limb or spine bone whose rest direction differs from the source's (an A-pose
 * onto a T-pose), the source bone's direction. */
static void set_rules(rk_retargeter *rt) {
  const rk_humanoid_map *sm = &rt->smap, *tm = &rt->tmap;
  rt->rules = g_new0(rk__rt_rule, rt->nt);
  for (size_t j = 0; j < rt->nt; j++)
    rt->rules[j] = rt->match[j] >= 0 ? (rk__rt_rule){RK__RULE_ROTATION, rt->match[j], -1, -1}
                                     : (rk__rt_rule){RK__RULE_REST, -1, -1, -1};
  for (size_t i = 0; i < G_N_ELEMENTS(direction_bones); i++) {
    rk_bone b = direction_bones[i].bone;
    int t = tm->joint[b], s = sm->joint[b];
    if (t < 0 || s < 0 || rt->match[t] != s)
      continue;
    for (int e = 0; e < 3; e++) {
      rk_bone end = direction_bones[i].ends[e];
      int te = tm->joint[end], se = sm->joint[end];
      /* Both bones must have length: a zero-length bone has no direction. */
      if (te >= 0 && se >= 0 && rk_vec3_norm(rk_vec3_sub(rt->pt0[te], rt->pt0[t])) > 1e-6 * tm->height &&
          rk_vec3_norm(rk_vec3_sub(rt->ps0[se], rt->ps0[s])) > 1e-6 * sm->height) {
        if (!same_rest_direction(rt, t, te, s, se))
          rt->rules[t] = (rk__rt_rule){RK__RULE_DIRECTION, s, se, te};
        break;
      }
    }
  }
}

/* Mean rest length of the two legs, hip to knee to ankle: the scale of root motion, exactly 1
 * between two rigs of one skeleton whatever their feet. */
static double leg_length(const rk_humanoid_map *map, const rk_vec3 *rest) {
  double len = 0;
  for (int side = 0; side < 2; side++) {
    const rk_bone u = side ? RK_BONE_RIGHT_UPPER_LEG : RK_BONE_LEFT_UPPER_LEG;
    const rk_vec3 a = rest[map->joint[u]], b = rest[rk__humanoid_leg_knee(map, u)];
    const rk_vec3 c = map->joint[u + 2] >= 0 ? rest[map->joint[u + 2]] : map->leg_end[side];
    len += rk_vec3_norm(rk_vec3_sub(b, a)) + rk_vec3_norm(rk_vec3_sub(c, b));
  }
  return 0.5 * len;
}

/* Whether a leg of the map has no foot joint. */
static bool footless(const rk_humanoid_map *map) {
  return map->joint[RK_BONE_LEFT_FOOT] < 0 || map->joint[RK_BONE_RIGHT_FOOT] < 0;
}

/* A foot's sole when none can be made (no toe and no joint ahead of the ankle): its three points
 * at the ankle joint itself. */
static void joint_sole(const rk_vec3 *rest, int foot, rk_sole *out) {
  memset(out, 0, sizeof *out);
  out->foot = foot;
  out->toe = -1;
  out->source = RK_SOLE_FROM_BONES;
  for (int k = 0; k < RK_SOLE_POINTS; k++) {
    out->joint[k] = foot;
    out->rest[k] = rest[foot];
  }
}

/* The sole of a leg without a foot bone: its three points at the leg's end, carried by its lower
 * leg (rest_models: the rig's rest model matrices). */
static void end_sole(const rk_mat4 *rest_models, int knee, rk_vec3 end, rk_sole *out) {
  memset(out, 0, sizeof *out);
  out->foot = knee;
  out->toe = -1;
  out->source = RK_SOLE_FROM_BONES;
  rk_mat4 inv = rk_mat4_identity();
  if (!rk_mat4_inverse_affine(&rest_models[knee], &inv))
    inv = rk_mat4_identity();
  for (int k = 0; k < RK_SOLE_POINTS; k++) {
    out->joint[k] = knee;
    out->rest[k] = end;
    out->local[k] = rk_mat4_transform_point(&inv, end);
  }
}

/* The feet of both rigs: their sole points (the source's from its bones, the target's from its
 * meshes when it has them), the target joints that report contacts and its leg chains. */
static void set_feet(rk_retargeter *rt) {
  const rk_humanoid_map *sm = &rt->smap, *tm = &rt->tmap;
  g_autofree rk_mat4 *rest = g_new(rk_mat4, rt->nt);
  g_autofree rk_mat4 *src_rest = g_new(rk_mat4, rt->ns);
  rk_skeleton_rest_models(rt->tgt, rest);
  rk_skeleton_rest_models(rt->src, src_rest);
  for (int side = 0; side < 2; side++) {
    const rk_bone up = side ? RK_BONE_RIGHT_UPPER_LEG : RK_BONE_LEFT_UPPER_LEG;
    rk__rt_side *sd = &rt->side[side];
    sd->upper = tm->joint[up];
    sd->knee = rk__humanoid_leg_knee(tm, up);
    sd->foot = tm->joint[up + 2];
    sd->toe = tm->joint[up + 3];
    sd->footless = sd->foot < 0;
    if (sd->footless) {
      sd->foot = sd->knee;
      end_sole(rest, sd->knee, tm->leg_end[side], &sd->tgt_bones);
      sd->ankle_local = sd->tgt_bones.local[0];
      /* The end of the skin is where the mesh's sole is. */
      if (tm->leg_end_from_skin[side] && rk_skin_support_vertex_count(rt->skin, sd->knee) > 0)
        sd->tgt_bones.source = RK_SOLE_FROM_MESH;
    }
    sd->src_footless = sm->joint[up + 2] < 0;
    if (sd->src_footless)
      end_sole(src_rest, rk__humanoid_leg_knee(sm, up), sm->leg_end[side], &sd->src);
    else if (!rk_sole_from_bones(rt->src, sm->joint[up + 2], sm->joint[up + 3], sm->forward,
                                 &sd->src, NULL))
      joint_sole(rt->ps0, sm->joint[up + 2], &sd->src);
    /* A detached foot stands where the clip puts it, which need not be the leg's end. */
    sd->src_stand.foot = -1;
    const int stand = sm->detached_foot[side];
    if (sd->src_footless && stand >= 0 && (size_t)stand < rt->ns)
      end_sole(src_rest, stand, sm->leg_end[side], &sd->src_stand);
    /* The target's foot stands where the source's does, unless it is a detached one placed as
     * the source's (retarget_parts.c): then its leg follows the source's leg alike. */
    const int tf = tm->detached_foot[side];
    sd->stand_apart = sd->src_stand.foot >= 0 &&
                      !(sd->footless && tf >= 0 && (size_t)tf < rt->nt && rt->match[tf] == stand &&
                        rk__rt_follows_source(rt, tf, sd->knee));
    if (!sd->footless && !rk_sole_from_bones(rt->tgt, sd->foot, sd->toe, tm->forward, &sd->tgt_bones, NULL))
      joint_sole(rt->pt0, sd->foot, &sd->tgt_bones);
    if (sd->footless || !rk_sole_build(rt->skin, rt->tgt, sd->foot, sd->toe, tm->forward, &sd->tgt, NULL))
      sd->tgt = sd->tgt_bones;
    sd->low_bones = fmin(sd->tgt_bones.rest[0].y, fmin(sd->tgt_bones.rest[1].y, sd->tgt_bones.rest[2].y));
    sd->low = fmin(sd->tgt.rest[0].y, fmin(sd->tgt.rest[1].y, sd->tgt.rest[2].y));
    rk_skin_point p;
    if (sd->tgt.source == RK_SOLE_FROM_MESH && rk_skin_lowest_subtree(rt->skin, rest, sd->foot, &p))
      sd->low = fmin(sd->low, p.position.y);
    /* A detached foot is the leg's end: its skin is the sole's. */
    const int loose = tm->detached_foot[side];
    if (sd->tgt.source == RK_SOLE_FROM_MESH && loose >= 0 && (size_t)loose < rt->nt &&
        rk_skin_lowest_subtree(rt->skin, rest, loose, &p))
      sd->low = fmin(sd->low, p.position.y);
    rt->contact_side[rt->foot_count] = side;
    rt->contact_joint[rt->foot_count++] = sd->foot;
    if (sd->toe >= 0) {
      rt->contact_side[rt->foot_count] = side;
      rt->contact_joint[rt->foot_count++] = sd->toe;
    }
    rt->leg_joints[side] = g_new(int, rt->nt);
    rt->leg_count[side] = rk_humanoid_chain(rt->tgt, sd->upper, sd->toe >= 0 ? sd->toe : sd->foot,
                                            0, rt->leg_joints[side]);
  }
  /* The floor: where the soles stand at rest; y = 0 when soles of a mesh stand within 1% of the
   * height of it (a character modelled on the ground; bones only estimate the sole). */
  double floor = INFINITY, bones = INFINITY;
  rt->meshes = true;
  for (int side = 0; side < 2; side++) {
    rt->meshes &= rt->side[side].tgt.source == RK_SOLE_FROM_MESH;
    floor = fmin(floor, rt->side[side].low);
    bones = fmin(bones, rt->side[side].low_bones);
  }
  rt->tgt_floor = rt->meshes && fabs(floor) <= 0.01 * tm->height ? 0.0 : floor;
  rt->tgt_floor_bones = bones;
  /* The body the pelvis lifts off the floor: every joint outside the feet and the arms (the
   * arms keep themselves out of it, retarget_ik.c: by the hand, or by the forearm's lowest point
   * when no hand is mapped, as on a rig whose fingers hang from the forearm). */
  rt->body_joints = g_new(int, rt->nt);
  for (size_t j = 0; j < rt->nt; j++) {
    bool limb_end = false;
    for (int side = 0; side < 2; side++) {
      const rk_bone ua = side ? RK_BONE_RIGHT_UPPER_ARM : RK_BONE_LEFT_UPPER_ARM;
      const int arm = tm->joint[ua + 1] >= 0 ? tm->joint[ua] : -1;
      limb_end |= rk_skeleton_is_ancestor(rt->tgt, (size_t)rt->side[side].foot, j) ||
                  (arm >= 0 && rk_skeleton_is_ancestor(rt->tgt, (size_t)arm, j));
    }
    if (!limb_end)
      rt->body_joints[rt->body_count++] = (int)j;
  }
}

/* The source joints a frame's transfer reads (rotations, bone ends, hips, feet, arms for the
 * hand goals): a run keeps only these per frame. */
static void set_source_slots(rk_retargeter *rt) {
  rt->src_slot = g_new(int, rt->ns);
  for (size_t j = 0; j < rt->ns; j++)
    rt->src_slot[j] = -1;
  for (size_t j = 0; j < rt->nt; j++)
    if (rt->rules[j].kind != RK__RULE_REST) {
      rt->src_slot[rt->rules[j].src] = 0;
      if (rt->rules[j].src_child >= 0)
        rt->src_slot[rt->rules[j].src_child] = 0;
    }
  rt->src_slot[rt->src_hips] = 0;
  for (int b = 0; b < RK_BONE_COUNT; b++)
    if (rt->smap.joint[b] >= 0 && rt->tmap.joint[b] >= 0)
      rt->src_slot[rt->smap.joint[b]] = 0;
  for (size_t j = 0; j < rt->ns; j++)
    if (rt->src_slot[j] == 0)
      rt->src_slot[j] = (int)rt->src_used++;
}

/* Marks the joints from `end` up to the parent of its ancestor `top` (inclusive). */
static void keep_chain(const rk_retargeter *rt, bool *keep, int top, int end) {
  const int stop = rk_skeleton_parent(rt->tgt, (size_t)top);
  for (int j = end; j >= 0; j = rk_skeleton_parent(rt->tgt, (size_t)j)) {
    keep[j] = true;
    if (j == stop)
      break;
  }
}

/* The target joints whose transferred world rotations are read after the transfer: the hips
 * (facing), the joints of both soles, and the limbs IK turns with their parents (legs from the
 * hips to the toes, arms from the shoulders to the hands, or to the forearms of arms without
 * one: the solve starts from them). */
static void set_kept_worlds(rk_retargeter *rt) {
  g_autofree bool *keep = g_new0(bool, rt->nt);
  keep[rt->tgt_hips] = true;
  for (int side = 0; side < 2; side++) {
    const rk__rt_side *sd = &rt->side[side];
    keep_chain(rt, keep, sd->upper, sd->toe >= 0 ? sd->toe : sd->foot);
    for (int p = 0; p < RK__RT_POINTS; p++)
      keep[sd->tgt.joint[p]] = keep[sd->tgt_bones.joint[p]] = true;
    const rk_bone ua = side ? RK_BONE_RIGHT_UPPER_ARM : RK_BONE_LEFT_UPPER_ARM;
    const int tu = rt->tmap.joint[ua], fore = rt->tmap.joint[ua + 1], hand = rt->tmap.joint[ua + 2];
    if (tu >= 0 && fore >= 0)
      keep_chain(rt, keep, tu, hand >= 0 ? hand : fore);
  }
  rt->world_kept = g_new(int, rt->nt);
  for (size_t j = 0; j < rt->nt; j++)
    if (keep[j])
      rt->world_kept[rt->kept_count++] = (int)j;
}

/* The target as a mechanism: every joint as the tree builds it without motion (balls), the hips
 * free so the pelvis can translate when both feet hold it. */
static rk_tree *target_tree(const rk_retargeter *rt, GError **error) {
  rk_tree_options topts;
  rk_tree_options_init(&topts);
  rk_joint_spec hips_spec = {0};
  hips_spec.name = rk_skeleton_joint_name(rt->tgt, (size_t)rt->tgt_hips);
  hips_spec.type = RK_JOINT_FREE;
  hips_spec.order = RK_EULER_N_ORDERS;
  topts.joints = &hips_spec;
  topts.joint_count = 1;
  return rk_tree_from_skeleton(rt->tgt, NULL, &topts, error);
}

/* rk_retargeter_new with the support of the target's meshes (taken: freed on failure too). */
static rk_retargeter *retargeter_new(rk_skeleton *source, const rk_humanoid_map *source_map,
                                     rk_skeleton *target, const rk_humanoid_map *target_map,
                                     rk_skin_support *skin, GError **error) {
  if (!rk_humanoid_map_validate(source_map, source, error)) {
    g_prefix_error(error, "source rig: ");
    rk_skin_support_free(skin);
    return NULL;
  }
  if (!rk_humanoid_map_validate(target_map, target, error)) {
    g_prefix_error(error, "target rig: ");
    rk_skin_support_free(skin);
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
  rest_world(source, rt->qs0, rt->ps0, NULL);
  rt->tgt_wscale = g_new(double, rt->nt);
  rest_world(target, rt->qt0, rt->pt0, rt->tgt_wscale);
  rt->align = rk_quat_from_to(source_map->forward, target_map->forward);
  const double src_leg = leg_length(source_map, rt->ps0);
  rt->scale = src_leg > 0 ? leg_length(target_map, rt->pt0) / src_leg : 1.0;
  /* A leg without a foot bone ends at its sole, one with a foot at its ankle: such lengths do
   * not compare, the hips' heights above the ground do. */
  if (footless(source_map) || footless(target_map))
    rt->scale = source_map->hip_height > 0 ? target_map->hip_height / source_map->hip_height : 1.0;
  rt->src_hips = source_map->joint[RK_BONE_HIPS];
  rt->tgt_hips = target_map->joint[RK_BONE_HIPS];
  for (int b = 0; b < RK_BONE_COUNT; b++)
    rt->mapped += source_map->joint[b] >= 0 && target_map->joint[b] >= 0;
  rt->match = g_new(int, rt->nt);
  rt->matched_joints = rk__rt_match(source, source_map, target, target_map, rt->match);
  rt->rests_agree = rk__rt_rests_agree(rt);
  rt->skin = skin;
  set_rules(rt);
  set_feet(rt);
  {
    g_auto(rk__rt_census) cs = {0}; /* the target's meshes, counted once for both */
    const bool skinned = rk__rt_census_take(rt, &cs);
    rk__rt_parts_init(rt, skinned ? &cs : NULL);
    rk__rt_controls_init(rt, skinned ? &cs : NULL);
  }
  set_source_slots(rt);
  set_kept_worlds(rt);
  rt->lanes = rk__rt_lanes_new(rt);
  const int feet[2] = {rt->side[0].foot, rt->side[1].foot};
  rt->feet_links = g_new(int, rt->nt);
  rt->feet_link_count = rk_skeleton_ancestor_closure(rt->tgt, feet, 2, rt->feet_links);
  rt->tree = target_tree(rt, error);
  if (!rt->tree) {
    g_prefix_error(error, "target rig: ");
    rk_retargeter_free(rt);
    return NULL;
  }
  return rt;
}

rk_retargeter *rk_retargeter_new(rk_skeleton *source, const rk_humanoid_map *source_map,
                                 rk_skeleton *target, const rk_humanoid_map *target_map,
                                 GError **error) {
  g_return_val_if_fail(source && source_map && target && target_map, NULL);
  return retargeter_new(source, source_map, target, target_map,
                        rk_skin_support_new(target, NULL, 0, NULL), error);
}

rk_retargeter *rk_retargeter_new_onto(rk_skeleton *source, const rk_humanoid_map *source_map,
                                      const rk_asset *target, const rk_humanoid_map *target_map,
                                      GError **error) {
  g_return_val_if_fail(source && source_map && target && target_map, NULL);
  rk_skin_support *skin = rk_skin_support_from_asset(target, error);
  if (!skin) {
    g_prefix_error(error, "target meshes: ");
    return NULL;
  }
  return retargeter_new(source, source_map, rk_asset_skeleton(target), target_map, skin, error);
}

rk_retargeter *rk_retargeter_new_between(const rk_asset *source, const rk_humanoid_map *source_map,
                                         const rk_asset *target, const rk_humanoid_map *target_map,
                                         GError **error) {
  g_return_val_if_fail(source, NULL);
  rk_retargeter *rt = rk_retargeter_new_onto(rk_asset_skeleton(source), source_map, target, target_map, error);
  if (rt)
    rt->src_meshes = rk_asset_mesh_count(source) > 0;
  return rt;
}

void rk_retargeter_free(rk_retargeter *rt) {
  if (!rt)
    return;
  rk_skeleton_unref(rt->src);
  rk_skeleton_unref(rt->tgt);
  g_free(rt->qs0);
  g_free(rt->ps0);
  g_free(rt->qt0);
  g_free(rt->pt0);
  g_free(rt->rules);
  g_free(rt->match);
  g_free(rt->tgt_wscale);
  g_free(rt->src_slot);
  for (int s = 0; s < 2; s++)
    g_free(rt->leg_joints[s]);
  g_free(rt->body_joints);
  g_free(rt->parts);
  g_free(rt->controls);
  rk_skin_support_free(rt->skin);
  rk_tree_unref(rt->tree);
  rk__rt_scratch_free(rt->spare);
  rk__rt_lanes_free(rt->lanes);
  g_free(rt->world_kept);
  g_free(rt->feet_links);
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

int rk_retargeter_counterpart(const rk_retargeter *rt, size_t target_joint) {
  return target_joint < rt->nt ? rt->match[target_joint] : -1;
}

/* ---- the run --------------------------------------------------------------------------------- */

/* Output frame count of a clip at fps; false with error beyond RK_CLIP_MAX_KEYS. */
static bool count_frames(const rk_clip *clip, double fps, size_t *frames, GError **error) {
  const double frames_d = rk_clip_bake_frame_count(rk_clip_duration(clip), fps);
  if (!isfinite(frames_d) || frames_d > RK_CLIP_MAX_KEYS) {
    g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "clip '%s': %.0f frames at %g fps exceed the limit of %u",
                rk_clip_name(clip), frames_d, fps, RK_CLIP_MAX_KEYS);
    return false;
  }
  *frames = (size_t)frames_d;
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
  rk__rt_run run = {.rt = rt, .clip = clip, .opts = opts};
  run.fps = opts->fps > 0 ? opts->fps : rk_clip_fps(clip) > 0 ? rk_clip_fps(clip) : 30.0;
  run.duration = rk_clip_duration(clip);
  if (!count_frames(clip, run.fps, &run.frames, error))
    return NULL;
  run.res = rk__rt_result_new(&run);
  rk__rt_transfer_init(&run);
  /* The source's sole points and the clip's ground decide the contacts; the transferred target
   * stands on its floor by one offset, its body lifted where it would go through the floor; its
   * sole points decide the pins. */
  rk__rt_split *half = rk__rt_split_new(&run);
  rk__rt_split_scan(&run, half);
  rk__rt_find_contacts(&run);
  rk__rt_split_transfer(&run, half);
  rk__rt_fit_ground(&run);
  rk__rt_fit_floor(&run);
  rk__rt_place_pins(&run);
  /* Frame by frame: IK from the transferred pose, quality figures, keys; then the clip. */
  run.tally.limb_cos = g_new(double, run.frames * 8);
  rk__rt_keys_init(&run);
  bool ok = rk__rt_ik_init(&run, error);
  if (ok) {
    /* The pelvis eased down ahead of where planted legs fall short (the poses the feet's
     * corrections and the solve start from). */
    rk__rt_split_reach(&run, half);
    rk__rt_feet_prepare(&run);
    ok = rk__rt_split_solve(&run, half, error);
    if (ok)
      rk__rt_bake(&run);
  }
  rk__rt_split_free(half);
  if (!ok) {
    rk__rt_run_clear(&run);
    rk_retarget_result_free(run.res);
    return NULL;
  }
  rk__rt_finish_quality(&run);
  rk__rt_run_clear(&run);
  return run.res;
}
