/* Retargeting, pose transfer: sampling the source clip and turning each source pose into the
 * target's (rotations, bone directions, translations, root motion at the right height), with the
 * per-frame caches that let a run sample and transfer every frame once; the sole points of both
 * rigs, the source's region lows and the lowest point of the target's body at every frame. */
#include "retarget_run.h"

#include "fk_pass.h"

#include <rigkit/fk.h>

#include <string.h>

/* Default of rk_retarget_options.cache_bytes. */
#define RK__RETARGET_CACHE_BYTES ((size_t)256 << 20)

/* The source joints a frame needs: those the transfer reads, those the sole points move with,
 * and their ancestors; a cursor over the clip's tracks for sampling them in sequence. */
static void source_joints(rk__rt_run *c) {
  const rk_retargeter *rt = c->rt;
  g_autofree int *ends = g_new(int, rt->ns + 4 * RK__RT_POINTS);
  size_t n = 0;
  for (size_t j = 0; j < rt->ns; j++)
    if (rt->src_slot[j] >= 0)
      ends[n++] = (int)j;
  for (int side = 0; side < 2; side++)
    for (int p = 0; p < RK__RT_POINTS; p++) {
      ends[n++] = rt->side[side].src.joint[p];
      if (rt->side[side].src_stand.foot >= 0)
        ends[n++] = rt->side[side].src_stand.joint[p];
    }
  c->src_joints = g_new(int, rt->ns);
  c->src_joint_count = rk_skeleton_ancestor_closure(rt->src, ends, n, c->src_joints);
  const size_t tracks = rk_clip_track_count(c->clip);
  c->src_keys = g_new0(uint32_t, tracks + 1);
  c->src_cursor = (rk_clip_cursor)RK_CLIP_CURSOR_INIT(c->src_keys, tracks);
}

/* Whether the transfer moves target joint j's translation off its rest: its counterpart's is
 * animated (src_moves set). */
static bool translated(const rk__rt_run *c, size_t j) {
  const rk__rt_rule *r = &c->rt->rules[j];
  return r->kind != RK__RULE_REST && rk_skeleton_parent(c->rt->tgt, j) >= 0 && c->src_moves[r->src];
}

void rk__rt_transfer_init(rk__rt_run *c) {
  const rk_retargeter *rt = c->rt;
  const size_t frames = c->frames, nt = rt->nt;
  /* Joints whose translation the clip animates carry it over (the hips have their own rule). */
  c->src_moves = g_new0(bool, rt->ns);
  for (size_t j = 0; j < rt->ns; j++)
    c->src_moves[j] = rt->src_slot[j] >= 0 && (int)j != rt->src_hips &&
                      rk_skeleton_parent(rt->src, j) >= 0 &&
                      rk_clip_find_track(c->clip, (int)j, RK_CHANNEL_TRANSLATION) >= 0;
  c->tgt_moves = g_new0(bool, nt);
  for (size_t j = 0; j < nt; j++)
    c->tgt_moves[j] = (int)j == rt->tgt_hips || translated(c, j);
  /* A loose part's keyed joint is placed where the part belongs (retarget_parts.c). */
  for (size_t k = 0; k < rt->part_count; k++)
    c->tgt_moves[rt->parts[k].keyed] = true;
  rk__rt_controls_moves(c);
  c->t_joints = g_new(int, nt);
  for (size_t j = 0; j < nt; j++) {
    if ((int)j == rt->tgt_hips)
      c->hips_t = c->t_count;
    if (c->tgt_moves[j])
      c->t_joints[c->t_count++] = (int)j;
  }
  /* Sample and transfer each frame once when the per-frame caches fit the budget. */
  const size_t per_frame = rt->src_used * (sizeof(rk_quat) + 2 * sizeof(rk_vec3)) +
                           (nt + rt->kept_count) * sizeof(rk_quat) +
                           (c->t_count + 1) * sizeof(rk_vec3);
  c->cached =
      frames <= (c->opts->cache_bytes ? c->opts->cache_bytes : RK__RETARGET_CACHE_BYTES) / per_frame;
  const size_t slices = c->cached ? frames : 1, kept = c->cached ? frames : 0;
  /* The displacements only where a joint's translation is animated (a BVH's root alone is the
   * hips, which have their own rule): 24 bytes per used joint and frame otherwise untouched. */
  bool moves = false;
  for (size_t j = 0; j < rt->ns; j++)
    moves |= c->src_moves[j];
  /* The per-frame arrays, from one block the retargeter keeps between runs: the source and
   * target caches, the sole points and body heights, the keys' times (rk__rt_keys_init). */
  const size_t bytes[] = {
      (slices * rt->src_used + 1) * sizeof(rk_quat), (slices * rt->src_used + 1) * sizeof(rk_vec3),
      moves ? (slices * rt->src_used + 1) * sizeof(rk_vec3) : 0, kept * sizeof(rk_vec3),
      kept * nt * sizeof(rk_quat), kept * c->t_count * sizeof(rk_vec3),
      kept * rt->kept_count * sizeof(rk_quat),
      frames * RK__RT_SOLE_SLOTS * sizeof(rk_vec3), frames * RK__RT_SOLE_SLOTS * sizeof(rk_vec3),
      frames * sizeof(double), frames * sizeof(double), rk__rt_roll_bytes(rt, frames),
      rt->side[0].src_stand.foot >= 0 || rt->side[1].src_stand.foot >= 0
          ? frames * RK__RT_SOLE_SLOTS * sizeof(rk_vec3)
          : 0,
      rt->side[0].stand_apart || rt->side[1].stand_apart ? frames * RK__RT_SOLE_SLOTS * sizeof(rk_vec3)
                                                         : 0,
      frames * RK__RT_REGIONS * sizeof(double), RK__RT_REGIONS * nt * sizeof(int)};
  rk__rt_scratch_reserve(c, bytes, G_N_ELEMENTS(bytes));
  c->src_cache_q = rk__rt_scratch_carve(c, bytes[0]);
  c->src_cache_p = rk__rt_scratch_carve(c, bytes[1]);
  /* Read only where written: for the joints the clip moves (src_moves). */
  c->src_cache_d = rk__rt_scratch_carve(c, bytes[2]);
  c->hips_lift = rk__rt_scratch_carve(c, bytes[3]);
  c->tgt_rot_cache = rk__rt_scratch_carve(c, bytes[4]);
  c->tgt_t_cache = rk__rt_scratch_carve(c, bytes[5]);
  c->tgt_world_cache = rk__rt_scratch_carve(c, bytes[6]);
  c->src_pts = rk__rt_scratch_carve(c, bytes[7]);
  c->tgt_pts = rk__rt_scratch_carve(c, bytes[8]);
  c->tgt_body = rk__rt_scratch_carve(c, bytes[9]);
  c->keys.times = rk__rt_scratch_carve(c, bytes[10]);
  c->src_shin = rk__rt_scratch_carve(c, bytes[11]);
  c->src_stand = rk__rt_scratch_carve(c, bytes[12]);
  c->tgt_apart = rk__rt_scratch_carve(c, bytes[13]);
  c->src_low = rk__rt_scratch_carve(c, bytes[14]);
  rk__rt_regions_init(c, rk__rt_scratch_carve(c, bytes[15]));
  source_joints(c);
  c->src_locals = g_memdup2(rk_skeleton_rest_locals(rt->src), rt->ns * sizeof(rk_transform));
  c->src_models = g_new(rk_mat4, rt->ns);
  c->src_world = g_new(rk_quat, rt->ns);
  c->tgt_world = g_new(rk_quat, nt);
  c->limb_world = g_new(rk_quat, nt);
  c->redo = g_new(int, nt);
  c->hips_chain = g_new(int, nt);
  const int hp = rk_skeleton_parent(rt->tgt, (size_t)rt->tgt_hips);
  c->hips_chain_count = hp < 0 ? 0 : rk_skeleton_ancestor_closure(rt->tgt, &hp, 1, c->hips_chain);
  /* Only the translations and scales of t_joints ever leave their rest's (transfer_pose). */
  c->tgt_locals = g_memdup2(rk_skeleton_rest_locals(rt->tgt), nt * sizeof(rk_transform));
  c->tgt_models = g_new(rk_mat4, nt);
  /* The target's soles and body from its meshes, unless it has none or the options say bones. */
  const bool meshes = rt->meshes && c->opts->soles != RK_RETARGET_SOLES_BONES;
  for (int side = 0; side < 2; side++) {
    c->tsole[side] = meshes ? &rt->side[side].tgt : &rt->side[side].tgt_bones;
    c->tlow[side] = meshes ? rt->side[side].low : rt->side[side].low_bones;
  }
  c->skin = meshes ? rt->skin : NULL;
  c->tgt_floor = meshes ? rt->tgt_floor : rt->tgt_floor_bones;
  c->res->tgt_floor = c->tgt_floor;
  for (int side = 0; side < 2; side++) {
    c->res->tsole[side] = *c->tsole[side];
    c->res->ssole[side] = rt->side[side].src;
  }
}

/* ---- sampling -------------------------------------------------------------------------------- */

/* Samples the source at frame f: the joints a frame needs (src_locals, src_models, src_world)
 * and the used joints' slice (into the cache at f, or the single-frame slice). */
static void sample_source(rk__rt_run *c, size_t f) {
  const rk_retargeter *rt = c->rt;
  const double t = rk__rt_frame_time(c, f);
  const int *joints = c->src_joints, *parents = rk_skeleton_parents(rt->src);
  const size_t n = c->src_joint_count;
  rk_clip_sample_joints(c->clip, t, joints, n, &c->src_cursor, c->src_locals, rt->ns);
  rk__fk_pass(parents, c->src_locals, NULL, joints, n, c->src_models);
  const size_t base = c->cached ? f * rt->src_used : 0;
  for (size_t u = 0; u < n; u++) {
    const size_t j = (size_t)joints[u];
    const int p = parents[j];
    c->src_world[j] = p < 0 ? c->src_locals[j].r : rk_quat_mul(c->src_world[p], c->src_locals[j].r);
    const int slot = rt->src_slot[j];
    if (slot >= 0) {
      c->src_cache_q[base + (size_t)slot] = c->src_world[j];
      c->src_cache_p[base + (size_t)slot] = rk_mat4_get_translation(&c->src_models[j]);
      /* How far the joint's animated translation moves it from where its rest offset would. */
      if (c->src_moves[j])
        c->src_cache_d[base + (size_t)slot] = rk_vec3_sub(
            c->src_cache_p[base + (size_t)slot],
            rk_mat4_transform_point(&c->src_models[p], rk_skeleton_rest(rt->src, j)->t));
    }
  }
  c->cur_q = c->src_cache_q + base;
  c->cur_p = c->src_cache_p + base;
  c->cur_d = c->src_cache_d ? c->src_cache_d + base : NULL;
  c->cur_t = t;
  c->cur_f = f;
}

/* Makes frame f the current source frame: from the cache, or sampled again. */
static void load_source(rk__rt_run *c, size_t f) {
  if (c->cached) {
    c->cur_q = c->src_cache_q + f * c->rt->src_used;
    c->cur_p = c->src_cache_p + f * c->rt->src_used;
    c->cur_d = c->src_cache_d ? c->src_cache_d + f * c->rt->src_used : NULL;
    c->cur_t = rk__rt_frame_time(c, f);
    c->cur_f = f;
  } else {
    sample_source(c, f);
  }
}

/* World rotation of a used source joint in the current frame. */
static rk_quat src_rot(const rk__rt_run *c, int j) {
  return c->cur_q[c->rt->src_slot[j]];
}

void rk__rt_scan_frames(rk__rt_run *c, size_t first, size_t end) {
  const rk_retargeter *rt = c->rt;
  for (size_t f = first; f < end; f++) {
    sample_source(c, f);
    rk__rt_source_low(c, f);
    for (int side = 0; side < 2; side++) {
      const size_t at = f * RK__RT_SOLE_SLOTS + (size_t)side * RK__RT_POINTS;
      rk_sole_at(&rt->side[side].src, c->src_models, c->src_pts + at);
      const rk_sole *stand = &rt->side[side].src_stand;
      if (stand->foot < 0)
        continue;
      /* Measured on the foot's sole as the leg's end is (retarget_roll.c): less its drop. */
      rk_vec3 *out = c->src_stand + at;
      rk_sole_at(stand, c->src_models, out);
      /* How far the source's foot stands from its leg's end, carried onto the target (the
       * contacts' pass decides whether the clip leaves it apart). */
      if (rt->side[side].stand_apart)
        for (int p = 0; p < RK__RT_POINTS; p++)
          c->tgt_apart[at + (size_t)p] = rk_vec3_scale(
              rk_quat_rotate(rt->align, rk_vec3_sub(out[p], c->src_pts[at + (size_t)p])), rt->scale);
      const double drop = rt->smap.leg_end_from_skin[side] ? rt->smap.leg_end_drop[side] : 0.0;
      for (int p = 0; p < RK__RT_POINTS; p++)
        out[p].y -= drop;
    }
    rk__rt_roll_scan(c, f);
  }
}

double rk__rt_body_low(const rk__rt_run *c, const rk_mat4 *models) {
  const rk_retargeter *rt = c->rt;
  rk_skin_point p;
  if (c->skin && rk_skin_lowest(c->skin, models, rt->body_joints, rt->body_count, &p))
    return p.position.y;
  double low = INFINITY;
  for (size_t i = 0; i < rt->body_count; i++)
    low = fmin(low, models[rt->body_joints[i]].m[13]);
  return low;
}

/* ---- transfer -------------------------------------------------------------------------------- */

rk_quat rk__rt_transfer_rotation(const rk__rt_run *c, size_t j) {
  const rk_retargeter *rt = c->rt;
  const rk_transform *rest = rk_skeleton_rest_locals(rt->tgt);
  const int p = rk_skeleton_parent(rt->tgt, j);
  const rk__rt_rule *r = &rt->rules[j];
  if (r->kind == RK__RULE_REST)
    return rk_quat_normalize(p < 0 ? rest[j].r : rk_quat_mul(c->tgt_world[p], rest[j].r));
  /* World rotation relative to rest, turned into the target's facing. */
  const rk_quat A = rt->align, Ai = rk_quat_conj(A);
  rk_quat delta = rk_quat_mul(src_rot(c, r->src), rk_quat_conj(rt->qs0[r->src]));
  rk_quat w = rk_quat_mul(rk_quat_mul(rk_quat_mul(A, delta), Ai), rt->qt0[j]);
  if (r->kind == RK__RULE_DIRECTION) {
    rk_vec3 sd = rk_vec3_sub(rk__rt_src_pos(c, r->src_child), rk__rt_src_pos(c, r->src));
    if (rk_vec3_norm(sd) > 1e-9) {
      rk_vec3 bone = rk_quat_rotate(rk_quat_conj(rt->qt0[j]),
                                    rk_vec3_sub(rt->pt0[r->tgt_child], rt->pt0[j]));
      rk_vec3 cur = rk_quat_rotate(w, bone);
      rk_vec3 want = rk_quat_rotate(A, sd);
      w = rk_quat_mul(rk_quat_from_to(cur, want), w);
    }
  }
  return rk_quat_normalize(w);
}

/* The local translation of target joint j (its parent's world rotation current): its rest
 * offset plus its counterpart's animated displacement, turned onto the target's facing and
 * scaled. */
static rk_vec3 transfer_translation(const rk__rt_run *c, size_t j, const rk_transform *rest) {
  const rk_retargeter *rt = c->rt;
  const int s = rt->rules[j].src, p = rk_skeleton_parent(rt->tgt, j);
  if (!translated(c, j))
    return rest[j].t;
  const rk_vec3 d = rk_vec3_scale(rk_quat_rotate(rt->align, c->cur_d[rt->src_slot[s]]), rt->scale);
  const rk_vec3 local = rk_quat_rotate(rk_quat_conj(c->tgt_world[p]), d);
  return rk_vec3_add(rest[j].t, rk_vec3_scale(local, 1.0 / rt->tgt_wscale[p]));
}

/* Target pose for the current source pose: locals and models. */
static void transfer_pose(rk__rt_run *c) {
  const rk_retargeter *rt = c->rt;
  const rk_transform *rest = rk_skeleton_rest_locals(rt->tgt);
  const size_t nt = rt->nt;
  /* World rotations: the joints a source joint drives four at a time (independent of their
   * parents), the few the lanes leave, then those at rest (parents first); then the locals. */
  const size_t redo = rk__rt_world_lanes(c, c->tgt_world, c->redo);
  for (size_t i = 0; i < redo; i++)
    c->tgt_world[c->redo[i]] = rk__rt_transfer_rotation(c, (size_t)c->redo[i]);
  for (size_t j = 0; j < nt; j++)
    if (rt->rules[j].kind == RK__RULE_REST)
      c->tgt_world[j] = rk__rt_transfer_rotation(c, j);
  /* Every rotation is set below; translations and scales are their rest's but where tgt_moves
   * marks a joint (the solve moves those: the hips, a loose part's keyed joint). */
  rk__rt_local_lanes(rt, c->tgt_world, c->tgt_locals);
  const int *parents = rk_skeleton_parents(rt->tgt);
  for (size_t j = 0; j < nt; j++)
    if (parents[j] < 0)
      c->tgt_locals[j].r = c->tgt_world[j];
  for (size_t i = 0; i < c->t_count; i++) {
    const size_t j = (size_t)c->t_joints[i];
    c->tgt_locals[j].t = transfer_translation(c, j, rest);
    c->tgt_locals[j].s = rest[j].s;
  }
  /* Root motion: the hips follow the source's, turned onto the target's facing and scaled by
   * the legs; their height is the source's, scaled, plus the clip's one ground offset, so the
   * hip bob is the source's. */
  const int sh = rt->src_hips, th = rt->tgt_hips;
  const rk_vec3 hips = rk__rt_src_pos(c, sh);
  rk_vec3 ds = rk__rt_horizontal(rk_vec3_sub(hips, rt->ps0[sh]));
  rk_vec3 dh = rk_vec3_scale(rk_quat_rotate(rt->align, ds), rt->scale);
  const double lift = c->ground_offset + (c->lift ? c->lift[c->cur_f] : 0.0);
  rk_vec3 want = rk_vec3_make(rt->pt0[th].x + dh.x, rt->scale * hips.y + lift, rt->pt0[th].z + dh.z);
  /* The hips' parent's model first (the whole pose is placed once the hips are). */
  rk__fk_pass(rk_skeleton_parents(rt->tgt), c->tgt_locals, NULL, c->hips_chain, c->hips_chain_count,
              c->tgt_models);
  const int hp = rk_skeleton_parent(rt->tgt, (size_t)th);
  rk_mat4 inv = rk_mat4_identity();
  if (hp >= 0 && !rk_mat4_inverse_affine(&c->tgt_models[hp], &inv))
    inv = rk_mat4_identity();
  c->tgt_locals[th].t = rk_mat4_transform_point(&inv, want);
  if (c->hips_lift)
    c->hips_lift[c->cur_f] = rk_vec3_sub(rk_mat4_transform_point(&inv, rk_vec3_make(0, 1, 0)),
                                         rk_mat4_transform_point(&inv, rk_vec3_make(0, 0, 0)));
  rk_fk_models(rt->tgt, c->tgt_locals, c->tgt_models);
}

void rk__rt_transfer_frames(rk__rt_run *c, size_t first, size_t end) {
  const rk_retargeter *rt = c->rt;
  const size_t nt = rt->nt, nf = rt->foot_count;
  rk_retarget_result *res = c->res;
  for (size_t f = first; f < end; f++) {
    load_source(c, f);
    transfer_pose(c);
    if (c->cached) {
      rk_quat *r = c->tgt_rot_cache + f * nt, *w = c->tgt_world_cache + f * rt->kept_count;
      rk_vec3 *t = c->tgt_t_cache + f * c->t_count;
      for (size_t j = 0; j < nt; j++)
        r[j] = c->tgt_locals[j].r;
      for (size_t i = 0; i < c->t_count; i++)
        t[i] = c->tgt_locals[c->t_joints[i]].t;
      for (size_t i = 0; i < rt->kept_count; i++)
        w[i] = c->tgt_world[rt->world_kept[i]];
    }
    for (int side = 0; side < 2; side++) {
      rk_vec3 *pts = c->tgt_pts + f * RK__RT_SOLE_SLOTS + side * RK__RT_POINTS;
      rk_sole_at(c->tsole[side], c->tgt_models, pts);
      if (c->apart[side])
        for (int p = 0; p < RK__RT_POINTS; p++)
          pts[p] = rk_vec3_add(pts[p], c->tgt_apart[f * RK__RT_SOLE_SLOTS + side * RK__RT_POINTS + p]);
    }
    c->tgt_body[f] = rk__rt_body_low(c, c->tgt_models);
    for (size_t k = 0; k < nf; k++) {
      const rk_vec3 p = rk_mat4_get_translation(&c->tgt_models[rt->contact_joint[k]]);
      res->fk_positions[f * nf + k] = p;
      res->heights_fk[f * nf + k] = p.y - rt->tmap.ground;
    }
  }
}

void rk__rt_raise_frame(rk__rt_run *c, size_t f, double dy) {
  const size_t nf = c->rt->foot_count;
  for (size_t k = 0; k < nf; k++) {
    c->res->fk_positions[f * nf + k].y += dy;
    c->res->heights_fk[f * nf + k] = c->res->fk_positions[f * nf + k].y - c->rt->tmap.ground;
  }
  for (size_t k = 0; k < RK__RT_SOLE_SLOTS; k++)
    c->tgt_pts[f * RK__RT_SOLE_SLOTS + k].y += dy;
  c->tgt_body[f] += dy;
}

void rk__rt_shift_ground(rk__rt_run *c, double offset) {
  c->ground_offset = offset;
  c->res->ground_offset = offset;
  for (size_t f = 0; f < c->frames; f++) {
    if (c->cached) {
      rk_vec3 *hips = &c->tgt_t_cache[f * c->t_count + c->hips_t];
      *hips = rk_vec3_add(*hips, rk_vec3_scale(c->hips_lift[f], offset));
    }
    rk__rt_raise_frame(c, f, offset);
  }
}

/* Prefetches the cache lines of [p, p + bytes). */
static void prefetch_rows(const void *p, size_t bytes) {
  for (size_t o = 0; o < bytes; o += 64)
    __builtin_prefetch((const char *)p + o);
}

/* rk__rt_pose_frame without the models from the cache (the transfer, when not cached, sets them
 * all): whether they are still to be done. */
static bool pose_locals(rk__rt_run *c, size_t f) {
  load_source(c, f);
  if (!c->cached) {
    transfer_pose(c);
    memcpy(c->limb_world, c->tgt_world, c->rt->nt * sizeof(rk_quat));
    return false;
  }
  /* The transferred pose from the cache: locals (the body's lift added), world rotations and
   * models. */
  const rk_retargeter *rt = c->rt;
  const size_t nt = rt->nt, th = (size_t)rt->tgt_hips;
  const rk_quat *r = c->tgt_rot_cache + f * nt, *w = c->tgt_world_cache + f * rt->kept_count;
  const rk_vec3 *t = c->tgt_t_cache + f * c->t_count;
  for (size_t j = 0; j < nt; j++)
    c->tgt_locals[j].r = r[j];
  const rk_transform *rest = rk_skeleton_rest_locals(rt->tgt);
  for (size_t i = 0; i < c->t_count; i++) {
    /* (A loose part's keyed joint took a whole transform the frame before: its scale too.) */
    c->tgt_locals[c->t_joints[i]].t = t[i];
    c->tgt_locals[c->t_joints[i]].s = rest[c->t_joints[i]].s;
  }
  for (size_t i = 0; i < rt->kept_count; i++)
    c->tgt_world[rt->world_kept[i]] = c->limb_world[rt->world_kept[i]] = w[i];
  if (c->lift)
    c->tgt_locals[th].t = rk_vec3_add(c->tgt_locals[th].t, rk_vec3_scale(c->hips_lift[f], c->lift[f]));
  /* The solve poses the frames in order, a frame's work apart: the next frame's cached rows are
   * asked for from memory now (written long before, they are out of the caches). */
  if (f + 1 < c->frames) {
    prefetch_rows(r + nt, nt * sizeof *r);
    prefetch_rows(w + rt->kept_count, rt->kept_count * sizeof *w);
    prefetch_rows(c->src_cache_p + (f + 1) * rt->src_used, rt->src_used * sizeof(rk_vec3));
  }
  return true;
}

void rk__rt_pose_frame(rk__rt_run *c, size_t f) {
  if (pose_locals(c, f))
    rk_fk_models(c->rt->tgt, c->tgt_locals, c->tgt_models);
}

void rk__rt_pose_frame_joints(rk__rt_run *c, size_t f, const int *joints, size_t count) {
  if (pose_locals(c, f))
    rk__fk_pass(rk_skeleton_parents(c->rt->tgt), c->tgt_locals, NULL, joints, count, c->tgt_models);
}
