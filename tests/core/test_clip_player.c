/* The clip player (core/src/clip_player.c): the joints it reads come out with the bits of
 * rk_clip_sample followed by rk_fk_models, in playback order, after a jump back and past the
 * clip's end, for a subset and for every joint. */
#include "rk_rigs.h"
#include "rk_test.h"
#include "../../core/src/clip_player.h"

#include <rigkit/fk.h>
#include <string.h>

/* Plays c at times[n] with a player reading read[nr] (NULL: all) and checks each read joint's
 * model matrix against rk_clip_sample + rk_fk_models bit for bit. */
static void check_times(const rk_skeleton *s, const rk_clip *c, const int *read, size_t nr,
                        const double *times, size_t n) {
  const size_t nj = rk_skeleton_joint_count(s);
  rk__clip_player p;
  rk__clip_player_init(&p, s, c, read, nr);
  g_autofree rk_transform *locals = g_new(rk_transform, nj);
  g_autofree rk_mat4 *models = g_new(rk_mat4, nj);
  for (size_t i = 0; i < n; i++) {
    cr_assert(rk__clip_player_at(&p, times[i]));
    cr_assert(rk_clip_sample(c, rk_skeleton_rest_locals(s), times[i], locals, nj));
    rk_fk_models(s, locals, models);
    for (size_t k = 0; k < (read ? nr : nj); k++) {
      const size_t j = read ? (size_t)read[k] : k;
      cr_assert(memcmp(&p.models[j], &models[j], sizeof(rk_mat4)) == 0,
                "joint %zu at t=%g differs", j, times[i]);
    }
  }
  rk__clip_player_clear(&p);
}

Test(clip_player, same_bits_as_sampling_every_joint) {
  g_autoptr(rk_skeleton) s = rk_rig_kdl_humanoid_skeleton(NULL);
  g_autoptr(rk_clip) c = rk_rig_kdl_humanoid_clip(4.0, 120.0, NULL);
  cr_assert(s && c);
  /* 60 Hz playback, then a jump back, then times past the end. */
  double times[300];
  size_t n = 0;
  for (; n < 250; n++)
    times[n] = (double)n / 60.0;
  times[n++] = 0.5;
  for (size_t k = 0; n < 300; n++, k++)
    times[n] = 0.5 + 0.1 * (double)k;
  const int ends[] = {7, 13, 22, 30};
  check_times(s, c, ends, G_N_ELEMENTS(ends), times, n);
  check_times(s, c, NULL, 0, times, n);
  const int odd[] = {-1, 3, 99999, 3};
  check_times(s, c, odd + 1, 1, times, n);
  rk__clip_player p;
  rk__clip_player_init(&p, s, c, odd, G_N_ELEMENTS(odd));
  size_t chain = 0; /* joint 3 and its ancestors */
  for (int j = 3; j >= 0; j = rk_skeleton_parent(s, (size_t)j))
    chain++;
  cr_assert_eq(p.n, chain, "joint 3 and its ancestors only: %zu joints, not %zu", chain, p.n);
  cr_assert(chain < rk_skeleton_joint_count(s));
  rk__clip_player_clear(&p);
}

Test(clip_player, refuses_a_clip_of_another_skeleton) {
  g_autoptr(rk_skeleton) s = rk_rig_kdl_humanoid_skeleton(NULL);
  g_autoptr(rk_clip) c = rk_clip_new("other", rk_skeleton_joint_count(s) + 1);
  rk__clip_player p;
  rk__clip_player_init(&p, s, c, NULL, 0);
  cr_assert_not(rk__clip_player_at(&p, 0.0));
  rk__clip_player_clear(&p);
}
