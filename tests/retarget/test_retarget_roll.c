/* Rolling soles (retarget_roll.c) on the written outputs of a footless game rig's clip: a leg
 * whose foot is its shin's mesh rolls its pin with the source's leg end only as far as the
 * source's shin turn explains; an end that creeps further while in contact slides, and its pin
 * stays put as any foot's. */
#include "../plugin/retarget_test.h"

/* The robot's idle (game_robot_idle.glb) onto `target`: its left foot, in contact for the whole
 * clip, creeps 2 cm forward and back (frames 36-87) while the body sways and the shins pitch
 * (about 0.02 rad: the rocker sole's roll explains 2 mm of it). The output's planted points
 * stay within 0.5 mm (0.13-0.23 mm); a pin that followed the creep slid 11-20 mm. Returns the
 * entry's verdict, newly allocated. */
static char *creeping_foot_stays(const char *target) {
  static const char *const sources[] = {"generated/game_robot_idle.glb", NULL};
  g_autofree char *dir = rt_tmpdir();
  JsonParser *p = rt_run_report(dir, dir, target, NULL, sources, 0, NULL);
  const char *clip;
  JsonObject *c = rt_ok_entry(p, 0, target, &clip);
  const double source_skate = rt_num(c, "foot_skate_fk_mm", "max"), skate = rt_num(c, "foot_skate_mm", "max");
  cr_log_info("%s onto %s: %s; the source's end creeps %.2f mm, the output's planted points %.3f mm",
              clip, target, rt_str(c, "verdict"), source_skate, skate);
  cr_assert_gt(source_skate, 8, "%s onto %s: the source's foot creeps %.2f mm only: not the case tested",
               clip, target, source_skate);
  /* The creeping foot is in contact through its creep (else nothing is pinned). */
  JsonObject *contacts = json_object_get_object_member(c, "contacts");
  bool spans = false;
  GList *legs = json_object_get_members(contacts);
  for (GList *l = legs; l; l = l->next) {
    JsonArray *iv = json_object_get_array_member(contacts, l->data);
    for (guint i = 0; i < json_array_get_length(iv); i++) {
      JsonArray *r = json_array_get_array_element(iv, i);
      spans |= json_array_get_int_element(r, 0) <= 36 && json_array_get_int_element(r, 1) >= 87;
    }
  }
  g_list_free(legs);
  cr_assert(spans, "%s onto %s: no contact spans the creep (frames 36-87)", clip, target);
  cr_assert_leq(skate, 0.5, "%s onto %s: the planted points slide %.2f mm with the source's creep", clip,
                target, skate);
  char *verdict = g_strdup(rt_str(c, "verdict"));
  g_object_unref(p);
  rt_rmtree(dir);
  return verdict;
}

/* Onto another footless rig (two-bone legs, no foot bone): pinned, and clean. */
Test(retarget_roll, a_creeping_leg_end_is_pinned_on_a_footless_rig) {
  g_autofree char *verdict = creeping_foot_stays("generated/game_stylised.glb");
  cr_assert_str_eq(verdict, "clean", "verdict %s", verdict);
}

/* Onto the robot itself: pinned too (the joints then stand up to 10 mm from the sliding source's,
 * which the verdict reports). */
Test(retarget_roll, a_creeping_leg_end_is_pinned_on_its_own_rig) {
  g_autofree char *verdict = creeping_foot_stays("generated/game_robot.glb");
  cr_assert_str_neq(verdict, "failed", "verdict %s", verdict);
}
