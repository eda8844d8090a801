/* Loose parts on the arms and the floor: game_soldier.glb's tall shield hangs from a socket at the
 * root and rides on the left forearm; its spear is a socket under the right hand. With hand IK,
 * the MakeHuman floor clip sits the figure down with both hands flat on the floor behind the hips:
 * the arms' floor check must count the shield (it went 30.1 mm through the floor when only the
 * arm's own subtree was counted, the spear's butt 14.8 mm), and a raise of the hand that sinks a
 * broad part deeper (its edge turning down as the forearm turns) is taken back. What is left is a
 * shield edge under a hand that is itself on the floor: lifting the hand cannot lift it. */
#include "../plugin/retarget_test.h"

Test(arm_parts, a_shield_on_the_forearm_is_kept_out_of_the_floor_by_the_arm) {
  g_autofree char *dir = rt_tmpdir();
  static const char *const hands[] = {"--hands", NULL};
  static const char *const clips[] = {"generated/mh_floor.bvh", NULL};
  JsonParser *p = rt_run_report(dir, dir, "generated/game_soldier.glb", hands, clips, 0, NULL);
  const char *clip;
  JsonObject *c = rt_ok_entry(p, 0, "game_soldier", &clip);
  rt_assert_planted(rt_planted_of(c), clip, "game_soldier", -5);
  const double through = rt_num(c, "floor_penetration_mm", NULL);
  cr_log_info("%s: the body goes %.1f mm through the floor", clip, through);
  cr_assert_lt(through, 20.0, "%s: the body goes %.1f mm through the floor (30.1 without the shield "
               "in the arms' check)", clip, through);
  g_object_unref(p);
  rt_rmtree(dir);
}
