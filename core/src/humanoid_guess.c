/* Maps as text: the best guess of a map for a rig the automatic mapping refuses (what the topology
 * found before it failed, completed by what the joint names say, control bones aside), written as
 * an editable map file with a commented line for every bone or chain not found; and a map as the
 * table --print-map shows. */
#include "humanoid_internal.h"

#include <rigkit/skin.h>

#include <string.h>

/* The bone a name class plays on a side, or -1. A sided "hip" is the upper leg, a "shoulder" the
 * clavicle (MotionBuilder naming): the topology or the user decides otherwise. */
static int bone_of_name(rk__name_info info) {
  static const struct {
    rk__name_class cls;
    rk_bone left, centre;
  } table[] = {
      {NC_HIPS, RK_BONE_HIPS, RK_BONE_HIPS},
      {NC_NECK, RK_BONE_NECK, RK_BONE_NECK},
      {NC_HEAD, RK_BONE_HEAD, RK_BONE_HEAD},
      {NC_CLAVICLE, RK_BONE_LEFT_SHOULDER, RK_BONE_COUNT},
      {NC_SHOULDER, RK_BONE_LEFT_SHOULDER, RK_BONE_COUNT},
      {NC_UPPER_ARM, RK_BONE_LEFT_UPPER_ARM, RK_BONE_COUNT},
      {NC_FOREARM, RK_BONE_LEFT_FOREARM, RK_BONE_COUNT},
      {NC_HAND, RK_BONE_LEFT_HAND, RK_BONE_COUNT},
      {NC_HIP_SIDED, RK_BONE_LEFT_UPPER_LEG, RK_BONE_COUNT},
      {NC_UPPER_LEG, RK_BONE_LEFT_UPPER_LEG, RK_BONE_COUNT},
      {NC_LOWER_LEG, RK_BONE_LEFT_LOWER_LEG, RK_BONE_COUNT},
      {NC_FOOT, RK_BONE_LEFT_FOOT, RK_BONE_COUNT},
      {NC_TOES, RK_BONE_LEFT_TOES, RK_BONE_COUNT},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(table); i++) {
    if (table[i].cls != info.cls)
      continue;
    if (table[i].centre == table[i].left)
      return info.side == SIDE_NONE ? (int)table[i].centre : -1;
    if (info.side == SIDE_NONE)
      return -1;
    return info.side == SIDE_LEFT ? (int)table[i].left : (int)rk_bone_mirror(table[i].left);
  }
  return -1;
}

/* Fills the bones the topology left unmapped from the names of joints it did not use (the first
 * spine-named joint is the spine, the last the chest). */
static void guess_from_names(const rk_skeleton *s, const bool *control, rk_humanoid_map *map) {
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree bool *used = g_new0(bool, n);
  for (int b = 0; b < RK_BONE_COUNT; b++)
    if (map->joint[b] >= 0)
      used[map->joint[b]] = true;
  int spine_first = -1, spine_last = -1;
  for (size_t j = 0; j < n; j++) {
    if (used[j] || control[j])
      continue;
    const rk__name_info info = rk__humanoid_classify_name(rk_skeleton_joint_name(s, j));
    if (info.cls == NC_SPINE) {
      spine_first = spine_first < 0 ? (int)j : spine_first;
      spine_last = (int)j;
      continue;
    }
    const int b = bone_of_name(info);
    if (b >= 0 && map->joint[b] < 0) {
      map->joint[b] = (int)j;
      map->source[b] = RK_BONE_BY_NAME;
      used[j] = true;
    }
  }
  const int trunk[2][2] = {{RK_BONE_SPINE, spine_first}, {RK_BONE_CHEST, spine_last}};
  for (int k = 0; k < 2; k++)
    if (trunk[k][1] >= 0 && map->joint[trunk[k][0]] < 0 && !used[trunk[k][1]]) {
      map->joint[trunk[k][0]] = trunk[k][1];
      map->source[trunk[k][0]] = RK_BONE_BY_NAME;
      used[trunk[k][1]] = true;
    }
}

/* One limb as a chain line when its mapped bones read back as that chain (the chain rules of
 * rigkit/humanoid.h: legs upper [+ lower leg [+ foot [+ toes]]], arms upper arm [+ forearm [+ hand]]
 * or all four), else as bone lines; commented when nothing of it is mapped. */
static void write_limb(GString *out, const rk_humanoid_map *map, const rk_skeleton *s,
                       rk_bone first, bool leg, const char *chain) {
  unsigned mask = 0;
  for (int k = 0; k < 4; k++)
    mask |= map->joint[first + k] >= 0 ? 1u << k : 0u;
  const bool as_chain = leg ? mask == 0x1 || mask == 0x3 || mask == 0x7 || mask == 0xf
                            : mask == 0x2 || mask == 0x6 || mask == 0xe || mask == 0xf;
  if (mask == 0) {
    g_string_append_printf(out, "# %s = %s    (not found)\n", chain,
                           leg ? "UPPER_LEG [LOWER_LEG [FOOT [TOES]]]"
                               : "[CLAVICLE] UPPER_ARM [FOREARM [HAND]]");
    return;
  }
  if (as_chain)
    g_string_append_printf(out, "%s =", chain);
  for (int k = 0; k < 4; k++) {
    const int j = map->joint[first + k];
    if (j < 0)
      continue;
    if (as_chain)
      g_string_append_printf(out, " %s", rk_skeleton_joint_name(s, (size_t)j));
    else
      g_string_append_printf(out, "%s = %s\n", rk_bone_name(first + k),
                             rk_skeleton_joint_name(s, (size_t)j));
  }
  if (as_chain)
    g_string_append_c(out, '\n');
}

char *rk_humanoid_map_guess(const rk_skeleton *s, const rk_humanoid_options *opts,
                            const char *group, const char *why) {
  rk_humanoid_map map;
  rk__humanoid_map_topology(s, opts, &map, NULL);
  rk__humanoid_marks mk;
  rk__humanoid_marks_at_rest(s, opts ? opts->skin : NULL, &mk);
  guess_from_names(s, mk.control, &map);
  rk__humanoid_marks_clear(&mk);
  GString *out = g_string_new(NULL);
  g_string_append_printf(out,
                         "# rigkit map: the best guess for this rig (it could not be mapped: "
                         "%s).\n# Check each line, fill in the commented ones with joint names "
                         "(rigkit info lists them), and pass\n# the file with --map. A chain lists "
                         "joints from the body outwards; bones not listed stay at rest.\n[%s]\n",
                         why ? why : "-", group);
  for (int b = RK_BONE_ROOT; b <= RK_BONE_HEAD; b++) {
    if (map.joint[b] >= 0)
      g_string_append_printf(out, "%s = %s\n", rk_bone_name((rk_bone)b),
                             rk_skeleton_joint_name(s, (size_t)map.joint[b]));
    else if (b == RK_BONE_HIPS)
      g_string_append(out, "# hips = JOINT    (not found: the joint the legs and spine leave)\n");
  }
  write_limb(out, &map, s, RK_BONE_LEFT_UPPER_LEG, true, "left_leg");
  write_limb(out, &map, s, RK_BONE_RIGHT_UPPER_LEG, true, "right_leg");
  for (int side = 0; side < 2; side++)
    if (map.detached_foot[side] >= 0 && map.joint[side ? RK_BONE_RIGHT_FOOT : RK_BONE_LEFT_FOOT] < 0)
      g_string_append_printf(out, "# a foot hanging from an IK control: it follows the lower leg\n%s = %s\n",
                             rk_bone_name(side ? RK_BONE_RIGHT_FOOT : RK_BONE_LEFT_FOOT),
                             rk_skeleton_joint_name(s, (size_t)map.detached_foot[side]));
  write_limb(out, &map, s, RK_BONE_LEFT_SHOULDER, false, "left_arm");
  write_limb(out, &map, s, RK_BONE_RIGHT_SHOULDER, false, "right_arm");
  return g_string_free(out, FALSE);
}

char *rk_humanoid_map_to_string(const rk_humanoid_map *map, const rk_skeleton *s) {
  GString *out = g_string_new(NULL);
  for (int b = 0; b < RK_BONE_COUNT; b++) {
    int j = map->joint[b];
    const int side = b == RK_BONE_LEFT_FOOT ? 0 : b == RK_BONE_RIGHT_FOOT ? 1 : -1;
    const bool detached = j < 0 && side >= 0 && map->detached_foot[side] >= 0 &&
                          (size_t)map->detached_foot[side] < rk_skeleton_joint_count(s);
    if (detached)
      j = map->detached_foot[side];
    g_string_append_printf(out, "  %-16s %-28s %s\n", rk_bone_name((rk_bone)b),
                           j >= 0 ? rk_skeleton_joint_name(s, (size_t)j) : "-",
                           detached ? "detached (follows the lower leg)"
                                    : rk_bone_source_name(map->source[b]));
  }
  return g_string_free(out, FALSE);
}
