/* A clip played forward for the joints a caller reads (see clip_player.h). */
#include "clip_player.h"

#include "fk_pass.h"

#include <string.h>

void rk__clip_player_init(rk__clip_player *p, const rk_skeleton *s, const rk_clip *clip,
                          const int *read, size_t n_read) {
  const size_t n = rk_skeleton_joint_count(s);
  memset(p, 0, sizeof *p);
  p->skel = s;
  p->clip = clip;
  p->joints = g_new(int, n ? n : 1);
  if (read) {
    p->n = rk_skeleton_ancestor_closure(s, read, n_read, p->joints);
  } else {
    for (size_t j = 0; j < n; j++)
      p->joints[j] = (int)j;
    p->n = n;
  }
  p->cursor.keys_count = rk_clip_track_count(clip);
  p->cursor.keys = g_new0(uint32_t, p->cursor.keys_count + 1);
  p->locals = g_new(rk_transform, n ? n : 1);
  memcpy(p->locals, rk_skeleton_rest_locals(s), n * sizeof(rk_transform));
  p->models = g_new0(rk_mat4, n ? n : 1);
}

bool rk__clip_player_at(rk__clip_player *p, double t) {
  if (!rk_clip_sample_joints(p->clip, t, p->joints, p->n, &p->cursor, p->locals,
                             rk_skeleton_joint_count(p->skel)))
    return false;
  /* rk_fk_models' kernel, over the subset: the same bits for those joints. */
  const size_t n = rk_skeleton_joint_count(p->skel);
  rk__fk_pass(rk_skeleton_parents(p->skel), p->locals, NULL, p->n == n ? NULL : p->joints, p->n,
              p->models);
  return true;
}

void rk__clip_player_clear(rk__clip_player *p) {
  g_free(p->joints);
  g_free(p->cursor.keys);
  g_free(p->locals);
  g_free(p->models);
  memset(p, 0, sizeof *p);
}
