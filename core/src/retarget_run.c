/* The state of one retarget run shared by its passes: frame times, the current source frame's
 * joint positions, the result's contact intervals and freeing (see retarget_run.h). */
#include "retarget_run.h"

#include <math.h>

double rk__rt_frame_time(const rk__rt_run *c, size_t f) {
  return fmin((double)f / c->fps, c->duration);
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

void rk__rt_run_clear(rk__rt_run *c) {
  g_clear_pointer(&c->src_locals, g_free);
  g_clear_pointer(&c->src_models, g_free);
  g_clear_pointer(&c->src_world, g_free);
  g_clear_pointer(&c->src_cache_q, g_free);
  g_clear_pointer(&c->src_cache_p, g_free);
  g_clear_pointer(&c->src_cache_d, g_free);
  g_clear_pointer(&c->src_moves, g_free);
  g_clear_pointer(&c->hips_lift, g_free);
  g_clear_pointer(&c->tgt_cache, g_free);
  g_clear_pointer(&c->tgt_world_cache, g_free);
  g_clear_pointer(&c->tgt_world, g_free);
  g_clear_pointer(&c->tgt_locals, g_free);
  g_clear_pointer(&c->tgt_models, g_free);
  g_clear_pointer(&c->src_p, g_free);
  g_clear_pointer(&c->src_sole, g_free);
  g_clear_pointer(&c->tgt_sole, g_free);
  for (size_t k = 0; k < RK__RT_MAX_FEET; k++)
    g_clear_pointer(&c->pins[k], g_array_unref);
  g_clear_pointer(&c->ik.q, g_free);
  g_clear_pointer(&c->ik.q_fk, g_free);
  g_clear_pointer(&c->ik.q_prev, g_free);
  g_clear_pointer(&c->ik.locked, g_free);
  g_clear_pointer(&c->ik.tree_models, g_free);
  g_clear_pointer(&c->ik.ws, rk_ik_ws_free);
  g_clear_pointer(&c->tally.limb_angles, g_free);
  g_clear_pointer(&c->keys.times, g_free);
  g_clear_pointer(&c->keys.rot, g_free);
  g_clear_pointer(&c->keys.trans, g_free);
  g_clear_pointer(&c->keys.rot_used, g_free);
  g_clear_pointer(&c->keys.trans_used, g_free);
}
