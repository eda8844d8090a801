/* Retargeting, what a person sees in an output: figures measured on a clip of the target (the
 * written output read back), against the source clip. */
#include "retarget_run.h"
#include "stats.h"

#include <rigkit/fk.h>

/* Where the source's joint positions put a target joint: turned onto the target's facing and
 * scaled about the hips horizontally, scaled heights plus the ground offset. */
static rk_vec3 expected_position(const rk_retargeter *rt, const rk_retarget_result *r, rk_vec3 src) {
  const rk_vec3 d = rk_vec3_scale(rk_quat_rotate(rt->align, rk_vec3_sub(src, rt->ps0[rt->src_hips])),
                                  rt->scale);
  const rk_vec3 h = rt->pt0[rt->tgt_hips];
  return rk_vec3_make(h.x + d.x, rt->scale * src.y + r->ground_offset, h.z + d.z);
}

/* Whether every target joint has a counterpart standing where it does at rest (relative to the
 * hips, within 0.5% of the target's height). */
static bool rests_agree(const rk_retargeter *rt) {
  if (rt->matched_joints != rt->nt)
    return false;
  const rk_vec3 sh = rt->ps0[rt->src_hips], th = rt->pt0[rt->tgt_hips];
  for (size_t j = 0; j < rt->nt; j++) {
    const rk_vec3 want =
        rk_vec3_scale(rk_quat_rotate(rt->align, rk_vec3_sub(rt->ps0[rt->match[j]], sh)), rt->scale);
    if (rk_vec3_norm(rk_vec3_sub(want, rk_vec3_sub(rt->pt0[j], th))) > 0.005 * rt->tmap.height)
      return false;
  }
  return true;
}

bool rk_retarget_measure_pose(const rk_retargeter *rt, const rk_retarget_result *r,
                              const rk_clip *source_clip, const rk_skeleton *skeleton,
                              const rk_clip *clip, rk_retarget_pose_error *out) {
  const size_t n = rk_skeleton_joint_count(skeleton), frames = r->frames;
  if (!rests_agree(rt) || frames == 0 || rk_clip_joint_count(clip) != n ||
      rk_clip_joint_count(source_clip) != rt->ns)
    return false;
  /* Each measured joint's counterpart in the source, through the target joint of its name. */
  g_autofree int *src = g_new(int, n);
  size_t used = 0;
  for (size_t j = 0; j < n; j++) {
    const int t = rk_skeleton_find_joint(rt->tgt, rk_skeleton_joint_name(skeleton, j));
    src[j] = t >= 0 ? rt->match[t] : -1;
    used += src[j] >= 0;
  }
  if (used == 0)
    return false;
  g_autofree rk_transform *sl = g_new(rk_transform, rt->ns), *ol = g_new(rk_transform, n);
  g_autofree rk_mat4 *sm = g_new(rk_mat4, rt->ns), *om = g_new(rk_mat4, n);
  g_autofree double *err = g_new(double, frames * used);
  const double dur = rk_clip_duration(source_clip);
  rk_retarget_pose_error e = {0, 0, -1, -1};
  size_t ne = 0;
  for (size_t f = 0; f < frames; f++) {
    const double t = fmin((double)f / r->fps, dur);
    rk_clip_sample(source_clip, rk_skeleton_rest_locals(rt->src), t, sl, rt->ns);
    rk_fk_models(rt->src, sl, sm);
    rk_clip_sample_frame(clip, rk_skeleton_rest_locals(skeleton), r->fps, f, ol, n);
    rk_fk_models(skeleton, ol, om);
    const rk_vec3 travel = rk_vec3_scale(r->travel, t);
    for (size_t j = 0; j < n; j++) {
      if (src[j] < 0)
        continue;
      const rk_vec3 p = rk_vec3_add(rk_mat4_get_translation(&sm[src[j]]), travel);
      const double d =
          1000.0 * rk_vec3_norm(rk_vec3_sub(rk_mat4_get_translation(&om[j]), expected_position(rt, r, p)));
      err[ne++] = d;
      if (d > e.max_mm) {
        e.max_mm = d;
        e.worst_joint = (int)j;
        e.worst_frame = (int)f;
      }
    }
  }
  e.median_mm = rk__median(err, ne);
  *out = e;
  return true;
}
