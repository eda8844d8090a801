/* The canonical bones (names, mirrors, which are required), the checks of a humanoid map against
 * its rig (every required bone, no joint twice, each limb and the trunk in hierarchy order) and
 * the chain of joints between two of them. */
#include "humanoid_internal.h"

#include <rigkit/error.h>

#include <math.h>

/* ---- bone table ------------------------------------------------------------------------------ */

static const char *const bone_names[RK_BONE_COUNT] = {
#define RK__BONE_NAME(e, name, mirror, required) name,
    RK_BONES(RK__BONE_NAME)
#undef RK__BONE_NAME
};

static const rk_bone bone_mirrors[RK_BONE_COUNT] = {
#define RK__BONE_MIRROR(e, name, mirror, required) mirror,
    RK_BONES(RK__BONE_MIRROR)
#undef RK__BONE_MIRROR
};

static const bool bone_required[RK_BONE_COUNT] = {
#define RK__BONE_REQ(e, name, mirror, required) required,
    RK_BONES(RK__BONE_REQ)
#undef RK__BONE_REQ
};

const char *rk_bone_name(rk_bone bone) {
  return (unsigned)bone < RK_BONE_COUNT ? bone_names[bone] : "?";
}

bool rk_bone_parse(const char *name, rk_bone *bone) {
  for (int b = 0; name && b < RK_BONE_COUNT; b++)
    if (g_ascii_strcasecmp(name, bone_names[b]) == 0) {
      *bone = (rk_bone)b;
      return true;
    }
  return false;
}

rk_bone rk_bone_mirror(rk_bone bone) {
  return (unsigned)bone < RK_BONE_COUNT ? bone_mirrors[bone] : bone;
}

bool rk_bone_is_required(rk_bone bone) {
  return (unsigned)bone < RK_BONE_COUNT && bone_required[bone];
}

const char *rk_bone_source_name(rk_bone_source source) {
  switch (source) {
  case RK_BONE_UNMAPPED:
    return "unmapped";
  case RK_BONE_BY_NAME:
    return "name";
  case RK_BONE_BY_TOPOLOGY:
    return "topology";
  case RK_BONE_BY_MAP_FILE:
    return "map-file";
  }
  return "?";
}

int rk__humanoid_leg_knee(const rk_humanoid_map *map, rk_bone upper) {
  return map->joint[upper + 1] >= 0 ? map->joint[upper + 1] : map->joint[upper];
}

/* ---- checks ---------------------------------------------------------------------------------- */

bool rk_humanoid_map_validate(const rk_humanoid_map *map, const rk_skeleton *s, GError **error) {
  const size_t n = rk_skeleton_joint_count(s);
  for (int b = 0; b < RK_BONE_COUNT; b++) {
    int j = map->joint[b];
    if (j >= (int)n || j < -1) {
      g_set_error(error, RK_ERROR, RK_ERROR_MAPPING, "bone %s maps to joint %d out of range",
                  rk_bone_name((rk_bone)b), j);
      return false;
    }
    if (j < 0 && rk_bone_is_required((rk_bone)b)) {
      g_set_error(error, RK_ERROR, RK_ERROR_MAPPING, "required bone %s is not mapped",
                  rk_bone_name((rk_bone)b));
      return false;
    }
    for (int c = 0; c < b && j >= 0; c++)
      if (map->joint[c] == j && !(b == RK_BONE_CHEST && c == RK_BONE_SPINE)) {
        g_set_error(error, RK_ERROR, RK_ERROR_MAPPING, "joint '%s' is mapped to both %s and %s",
                    rk_skeleton_joint_name(s, (size_t)j), rk_bone_name((rk_bone)c),
                    rk_bone_name((rk_bone)b));
        return false;
      }
  }
  /* Each limb and the trunk top-down: every mapped bone below its mapped predecessor. */
  static const rk_bone chains[][5] = {
      {RK_BONE_HIPS, RK_BONE_LEFT_UPPER_LEG, RK_BONE_LEFT_LOWER_LEG, RK_BONE_LEFT_FOOT, RK_BONE_LEFT_TOES},
      {RK_BONE_HIPS, RK_BONE_RIGHT_UPPER_LEG, RK_BONE_RIGHT_LOWER_LEG, RK_BONE_RIGHT_FOOT, RK_BONE_RIGHT_TOES},
      {RK_BONE_CHEST, RK_BONE_LEFT_SHOULDER, RK_BONE_LEFT_UPPER_ARM, RK_BONE_LEFT_FOREARM, RK_BONE_LEFT_HAND},
      {RK_BONE_CHEST, RK_BONE_RIGHT_SHOULDER, RK_BONE_RIGHT_UPPER_ARM, RK_BONE_RIGHT_FOREARM, RK_BONE_RIGHT_HAND},
      {RK_BONE_HIPS, RK_BONE_SPINE, RK_BONE_CHEST, RK_BONE_NECK, RK_BONE_HEAD},
  };
  for (size_t c = 0; c < G_N_ELEMENTS(chains); c++) {
    int prev = -1;
    rk_bone prev_b = chains[c][0];
    for (int k = 0; k < 5; k++) {
      int j = map->joint[chains[c][k]];
      if (j < 0)
        continue;
      if (prev >= 0 && (j == prev ? chains[c][k] != RK_BONE_CHEST
                                  : !rk_skeleton_is_ancestor(s, (size_t)prev, (size_t)j))) {
        g_set_error(error, RK_ERROR, RK_ERROR_MAPPING,
                    "bone %s ('%s') is not below bone %s ('%s') in the hierarchy",
                    rk_bone_name(chains[c][k]), rk_skeleton_joint_name(s, (size_t)j),
                    rk_bone_name(prev_b), rk_skeleton_joint_name(s, (size_t)prev));
        return false;
      }
      prev = j;
      prev_b = chains[c][k];
    }
  }
  return true;
}

size_t rk_humanoid_chain(const rk_skeleton *s, int from, int to, double min_length, int *out) {
  if (from < 0 || to < 0 || !rk_skeleton_is_ancestor(s, (size_t)from, (size_t)to))
    return 0;
  size_t n = 0;
  for (int j = to; j != from; j = rk_skeleton_parent(s, (size_t)j))
    out[n++] = j;
  out[n++] = from;
  /* Reverse to root-first, then drop helpers that coincide with their parent (not the ends). */
  for (size_t a = 0, z = n - 1; a < z; a++, z--) {
    int t = out[a];
    out[a] = out[z];
    out[z] = t;
  }
  if (min_length <= 0 || n <= 2)
    return n;
  g_autofree rk_mat4 *models = g_new(rk_mat4, rk_skeleton_joint_count(s));
  rk_skeleton_rest_models(s, models);
  size_t k = 1;
  for (size_t i = 1; i + 1 < n; i++) {
    rk_vec3 d = rk_vec3_sub(rk_mat4_get_translation(&models[out[i]]),
                            rk_mat4_get_translation(&models[out[k - 1]]));
    if (rk_vec3_norm(d) > min_length)
      out[k++] = out[i];
  }
  out[k++] = out[n - 1];
  return k;
}
