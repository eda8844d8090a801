/* The canonical humanoid profile and automatic mapping of rigs onto it (names + topology). */
#include "humanoid_internal.h"

#include <rigkit/error.h>
#include <rigkit/fk.h>

#include <string.h>

/* ---- topology -------------------------------------------------------------------------------- */

typedef struct mapper {
  const rk_skeleton *s;
  size_t n;
  rk_vec3 *pos;       /* rest model positions */
  double *min_y;      /* lowest y in each subtree */
  double *max_y;      /* highest y in each subtree */
  rk__name_info *names;
  bool *control;      /* control and helper bones of a skinned rig (humanoid_chains.c) */
  rk_vec3 *tip;       /* where a chain ending at the joint ends (its skin; else the joint) */
  bool *has_tip;
  double *drop;       /* how far the skin reaches below tip */
  int *foot_at;       /* the detached foot standing at the end of the chain ending here, or -1 */
  double height, ground, min_len;
  bool use_names;
} mapper;

static bool is_helper(const mapper *m, int j) {
  return m->names[j].cls == NC_HELPER;
}

static double bone_length(const mapper *m, int j) {
  int p = rk_skeleton_parent(m->s, (size_t)j);
  return p < 0 ? 0.0 : rk_vec3_norm(rk_vec3_sub(m->pos[j], m->pos[p]));
}

/* Children of j as an array (caller frees). */
static GArray *children_of(const mapper *m, int j) {
  GArray *c = g_array_new(FALSE, FALSE, sizeof(int));
  size_t end = rk_skeleton_subtree_end(m->s, (size_t)j);
  for (size_t k = (size_t)j + 1; k < end; k = rk_skeleton_subtree_end(m->s, k)) {
    int v = (int)k;
    if (!m->control[k])
      g_array_append_val(c, v);
  }
  return c;
}

/* Largest horizontal distance from point o of any joint in j's subtree. */
static double horizontal_reach(const mapper *m, int j, rk_vec3 o) {
  double r = 0;
  size_t end = rk_skeleton_subtree_end(m->s, (size_t)j);
  for (size_t k = (size_t)j; k < end; k++)
    r = fmax(r, hypot(m->pos[k].x - o.x, m->pos[k].z - o.z));
  return r;
}

/* Joints of j's subtree that are not control bones (end sites count: a BVH hand's fingertips). */
static size_t body_joint_count(const mapper *m, int j) {
  size_t n = 0;
  const size_t end = rk_skeleton_subtree_end(m->s, (size_t)j);
  for (size_t k = (size_t)j; k < end; k++)
    n += !m->control[k];
  return n;
}

/* Follows the chain from j by repeatedly taking the child chosen by `pick` (lowest reach for
 * legs, highest for the spine; for arms the child carrying the most joints, then the widest: a
 * hand with its fingers, not a prop socket beside it that happens to stick out further) and
 * writes the joints that are neither helpers nor too close to their parent. Returns the count. */
typedef enum chain_dir { CHAIN_DOWN, CHAIN_UP, CHAIN_OUT } chain_dir;

static size_t follow_chain(const mapper *m, int j, chain_dir dir, rk_vec3 origin, int *out,
                           size_t cap) {
  size_t k = 0;
  while (j >= 0 && k < cap) {
    if (!is_helper(m, j) && (bone_length(m, j) > m->min_len || k == 0))
      out[k++] = j;
    g_autoptr(GArray) ch = children_of(m, j);
    int best = -1;
    double best_v = -INFINITY;
    for (guint i = 0; i < ch->len; i++) {
      int c = g_array_index(ch, int, i);
      double v = dir == CHAIN_DOWN ? -m->min_y[c]
                 : dir == CHAIN_UP ? m->max_y[c]
                                   : horizontal_reach(m, c, origin) +
                                         100 * m->height * (double)body_joint_count(m, c);
      /* Prefer real joints over end sites when they reach as far. */
      if ((rk_skeleton_joint_flags(m->s, (size_t)c) & RK_SKELETON_END_SITE) == 0)
        v += 1e-9 * m->height;
      if (rk__humanoid_is_prop(m->s, m->pos, m->tip, m->has_tip, m->control, c))
        v -= 10 * m->height;
      if (v > best_v) {
        best_v = v;
        best = c;
      }
    }
    j = best;
  }
  return k;
}

static bool is_end_site(const mapper *m, int j) {
  return (rk_skeleton_joint_flags(m->s, (size_t)j) & RK_SKELETON_END_SITE) != 0;
}

/* No child but control bones. */
static bool is_leaf(const mapper *m, int j) {
  g_autoptr(GArray) ch = children_of(m, j);
  return ch->len == 0;
}

/* Counts the limbs whose lowest joints reach the ground (within 15% of the height: a quadruped's
 * front paws; a human's hands hang far higher): walking up from each near-ground leaf to the
 * first ancestor that branches above 20% of the height gives the limb it belongs to. */
static int count_ground_limbs(const mapper *m) {
  g_autoptr(GHashTable) limbs = g_hash_table_new(NULL, NULL);
  for (size_t j = 0; j < m->n; j++) {
    if (m->control[j] || !is_leaf(m, (int)j) || m->min_y[j] > m->ground + 0.15 * m->height)
      continue;
    int c = (int)j, p = rk_skeleton_parent(m->s, j);
    while (p >= 0) {
      if (rk_skeleton_child_count(m->s, (size_t)p) >= 2 && m->pos[p].y > m->ground + 0.2 * m->height)
        break;
      c = p;
      p = rk_skeleton_parent(m->s, (size_t)p);
    }
    g_hash_table_add(limbs, GINT_TO_POINTER(c + 1));
  }
  return (int)g_hash_table_size(limbs);
}

/* Joints under j whose subtrees go down to the ground (leg candidates). */
static GArray *leg_children(const mapper *m, int j) {
  GArray *legs = g_array_new(FALSE, FALSE, sizeof(int));
  g_autoptr(GArray) ch = children_of(m, j);
  for (guint i = 0; i < ch->len; i++) {
    int c = g_array_index(ch, int, i);
    if (m->min_y[c] < m->pos[j].y - 0.25 * m->height && m->min_y[c] < m->ground + 0.1 * m->height)
      g_array_append_val(legs, c);
  }
  return legs;
}

/* A leg whose last bone carries the foot in its mesh (game rigs: thigh and shin, or one bone
 * from the hip, no foot bone): upper leg [and lower leg], the leg's end where its skin ends near
 * the ground. */
static bool map_short_leg(const mapper *m, const int *chain, size_t n, rk_humanoid_map *map,
                          bool left, GError **error) {
  const rk_bone upper = left ? RK_BONE_LEFT_UPPER_LEG : RK_BONE_RIGHT_UPPER_LEG;
  const char *side = left ? "left" : "right";
  while (n > 0 && is_end_site(m, chain[n - 1]))
    n--;
  const int last = n > 0 ? chain[n - 1] : -1;
  if (n < 1 || n > 2 || !m->has_tip[last] || m->tip[last].y > m->ground + 0.12 * m->height) {
    g_set_error(error, RK_ERROR, RK_ERROR_MAPPING,
                "%s leg: the chain from '%s' (%zu bone%s) has no ankle: no joint near the ground "
                "below a knee%s",
                side, n > 0 ? rk_skeleton_joint_name(m->s, (size_t)chain[0]) : "?", n,
                n == 1 ? "" : "s",
                n == 1 || n == 2 ? ", and no skinned mesh ends near the ground below its last bone"
                                 : "");
    return false;
  }
  for (size_t b = 0; b < n; b++) {
    map->joint[upper + b] = chain[b];
    static const rk__name_class leg_class[2] = {NC_UPPER_LEG, NC_LOWER_LEG};
    const bool named = m->use_names && m->names[chain[b]].cls == leg_class[b];
    map->source[upper + b] = named ? RK_BONE_BY_NAME : RK_BONE_BY_TOPOLOGY;
  }
  map->leg_end[left ? 0 : 1] = m->tip[last];
  map->leg_end_drop[left ? 0 : 1] = m->drop[last];
  map->leg_end_from_skin[left ? 0 : 1] = true;
  map->detached_foot[left ? 0 : 1] = m->foot_at[last];
  return true;
}

/* Whether joint j, near the ground right below a leg's first bone, is a foot (a leg of one bone
 * and a foot) rather than a short leg's knee: named so, or its bone (to its first child, else to
 * where its skin ends) runs more along the ground than down. */
static bool foot_below_hip(const mapper *m, int j) {
  if (is_end_site(m, j) || m->pos[j].y > m->ground + 0.12 * m->height)
    return false;
  if (m->use_names && m->names[j].cls == NC_FOOT)
    return true;
  g_autoptr(GArray) ch = children_of(m, j);
  const rk_vec3 end = ch->len ? m->pos[g_array_index(ch, int, 0)] : m->has_tip[j] ? m->tip[j] : m->pos[j];
  const rk_vec3 d = rk_vec3_sub(end, m->pos[j]);
  return hypot(d.x, d.z) > fabs(d.y) && hypot(d.x, d.z) > 0.02 * m->height;
}

/* Assigns the bones of one leg chain: upper leg, lower leg, foot (the first joint in the chain
 * within 12% of the height above the ground, at least two joints down), toes. Names win when they
 * fall on the chain in the right order. */
static bool map_leg(const mapper *m, const int *chain, size_t n, rk_humanoid_map *map, bool left,
                    GError **error) {
  const rk_bone upper = left ? RK_BONE_LEFT_UPPER_LEG : RK_BONE_RIGHT_UPPER_LEG;
  int ankle = -1;
  for (size_t k = 2; k < n; k++)
    if (!is_end_site(m, chain[k]) && m->pos[chain[k]].y < m->ground + 0.12 * m->height) {
      ankle = (int)k;
      break;
    }
  /* A leg of one bone and a foot: no lower leg. */
  const bool one_bone = ankle < 0 && n >= 2 && foot_below_hip(m, chain[1]);
  if (one_bone)
    ankle = 1;
  if (ankle < 0)
    return map_short_leg(m, chain, n, map, left, error);
  int idx[4] = {one_bone ? 0 : ankle - 2, one_bone ? -1 : ankle - 1, ankle, -1};
  if ((size_t)ankle + 1 < n && !is_end_site(m, chain[ankle + 1]))
    idx[3] = ankle + 1;
  /* Names inside this chain override the positional guess. */
  if (m->use_names) {
    /* A sided "hip" is the upper leg only when no joint is named thigh/upleg ("LHipJoint"
     * above "LeftUpLeg" in CMU files is a helper). */
    const rk__name_class want[5] = {NC_UPPER_LEG, NC_LOWER_LEG, NC_FOOT, NC_TOES, NC_HIP_SIDED};
    int found[5] = {-1, -1, -1, -1, -1};
    for (int b = 0; b < 5; b++)
      for (size_t k = 0; k < n; k++)
        if (m->names[chain[k]].cls == want[b]) {
          found[b] = (int)k;
          break;
        }
    if (found[0] < 0)
      found[0] = found[4];
    if (one_bone)
      found[1] = -1; /* "leg_L" names the only bone, which plays the upper leg */
    for (int b = 0; b < 4; b++)
      if (found[b] >= 0)
        idx[b] = found[b];
  }
  for (int b = 0; b < 4; b++) {
    if (idx[b] < 0)
      continue;
    int j = chain[idx[b]];
    map->joint[upper + b] = j;
    static const rk__name_class leg_class[4] = {NC_UPPER_LEG, NC_LOWER_LEG, NC_FOOT, NC_TOES};
    rk__name_class c = m->names[j].cls;
    bool named = m->use_names && (c == leg_class[b] || (b == 0 && c == NC_HIP_SIDED));
    map->source[upper + b] = named ? RK_BONE_BY_NAME : RK_BONE_BY_TOPOLOGY;
  }
  return true;
}

/* Children that are not helpers (end sites count: fingertips of a BVH hand). */
static size_t branch_count(const mapper *m, int j) {
  size_t n = 0;
  g_autoptr(GArray) ch = children_of(m, j);
  for (guint i = 0; i < ch->len; i++)
    n += !is_helper(m, g_array_index(ch, int, i));
  return n;
}

/* Assigns one arm chain: hand = the last joint that branches (into fingers; a forearm may branch
 * earlier into a socket or a twist bone), else the last real joint; forearm and upper arm above
 * it, shoulder (clavicle) above those when it is not the chest. */
static void map_arm(const mapper *m, const int *chain, size_t n, rk_humanoid_map *map, bool left) {
  const rk_bone shoulder = left ? RK_BONE_LEFT_SHOULDER : RK_BONE_RIGHT_SHOULDER;
  int last = -1;
  for (size_t k = 0; k < n; k++)
    if (!is_end_site(m, chain[k]))
      last = (int)k;
  int hand = last;
  for (int k = last; k >= 2; k--) {
    if (branch_count(m, chain[k]) >= 2) {
      hand = k;
      break;
    }
  }
  int idx[4] = {hand - 3, hand - 2, hand - 1, hand};
  /* One bone (a stylised arm, no forearm or hand bone): the upper arm, whatever its name says (a
   * one-bone arm is often called "hand"): it carries the whole arm. */
  const bool short_arm = last == 0;
  if (short_arm) {
    idx[0] = idx[2] = idx[3] = -1;
    idx[1] = 0;
  }
  if (m->use_names && !short_arm) {
    /* Clavicle names first; "shoulder" is the clavicle unless a clavicle/collar joint exists. */
    int clav = -1, shoulder_named = -1;
    for (size_t k = 0; k < n; k++) {
      rk__name_class c = m->names[chain[k]].cls;
      if (c == NC_CLAVICLE && clav < 0)
        clav = (int)k;
      if (c == NC_SHOULDER && shoulder_named < 0)
        shoulder_named = (int)k;
    }
    const rk__name_class want[4] = {NC_CLAVICLE, NC_UPPER_ARM, NC_FOREARM, NC_HAND};
    int named[4] = {-1, -1, -1, -1};
    for (int b = 0; b < 4; b++)
      for (size_t k = 0; k < n; k++)
        if (m->names[chain[k]].cls == want[b]) {
          named[b] = (int)k;
          break;
        }
    if (shoulder_named >= 0) {
      if (clav >= 0 && named[1] < 0)
        named[1] = shoulder_named; /* 3ds Max: Collar, Shoulder (= upper arm), Elbow, Wrist */
      else if (named[0] < 0)
        named[0] = shoulder_named; /* MotionBuilder/Mixamo: Shoulder (= clavicle), Arm, ... */
    }
    for (int b = 0; b < 4; b++)
      for (int o = 0; o < 4 && named[b] >= 0; o++)
        idx[o] = o == b ? named[b] : idx[o] == named[b] ? -1 : idx[o];
  }
  for (int b = 0; b < 4; b++) {
    if (idx[b] < 0 || idx[b] > last)
      continue;
    int j = chain[idx[b]];
    map->joint[shoulder + b] = j;
    static const rk__name_class arm_class[4] = {NC_CLAVICLE, NC_UPPER_ARM, NC_FOREARM, NC_HAND};
    rk__name_class c = m->names[j].cls;
    bool by_name = m->use_names && !short_arm && (c == arm_class[b] || (c == NC_SHOULDER && b <= 1));
    map->source[shoulder + b] = by_name ? RK_BONE_BY_NAME : RK_BONE_BY_TOPOLOGY;
  }
}

/* Side of a chain from its names (majority vote), or SIDE_NONE. */
static rk__side_kind chain_side(const mapper *m, const int *chain, size_t n) {
  int l = 0, r = 0;
  for (size_t k = 0; k < n; k++) {
    l += m->names[chain[k]].side == SIDE_LEFT;
    r += m->names[chain[k]].side == SIDE_RIGHT;
  }
  return l > r ? SIDE_LEFT : r > l ? SIDE_RIGHT : SIDE_NONE;
}

#define MAX_CHAIN 256

/* What the automatic mapping finds on its way, step by step. */
typedef struct found {
  int hips;
  int leg[2]; /* the two leg chains' first joints */
  int leg_chain[2][MAX_CHAIN];
  size_t leg_n[2];
  int spine_chain[MAX_CHAIN]; /* up from the hips */
  size_t spine_n;
  int chest, arm_root[2];
  bool quadruped; /* hips and legs found, but four limbs reach the ground */
} found;

static void mapper_clear(mapper *m) {
  g_clear_pointer(&m->pos, g_free);
  g_clear_pointer(&m->min_y, g_free);
  g_clear_pointer(&m->max_y, g_free);
  g_clear_pointer(&m->names, g_free);
  g_clear_pointer(&m->control, g_free);
  g_clear_pointer(&m->tip, g_free);
  g_clear_pointer(&m->has_tip, g_free);
  g_clear_pointer(&m->drop, g_free);
  g_clear_pointer(&m->foot_at, g_free);
}

/* The rest pose of a skeleton as the mapping reads it: positions, each subtree's vertical extent,
 * what the names say, height and ground. Fails when the rest pose has no height. */
static bool mapper_init(mapper *m, const rk_skeleton *s, const rk_humanoid_options *opts,
                        GError **error) {
  m->s = s;
  m->n = rk_skeleton_joint_count(s);
  m->use_names = opts->use_names;
  g_autofree rk_mat4 *models = g_new(rk_mat4, m->n);
  rk_skeleton_rest_models(s, models);
  m->pos = g_new(rk_vec3, m->n);
  m->min_y = g_new(double, m->n);
  m->max_y = g_new(double, m->n);
  m->names = g_new(rk__name_info, m->n);
  m->control = g_new(bool, m->n);
  m->tip = g_new(rk_vec3, m->n);
  m->has_tip = g_new(bool, m->n);
  m->drop = g_new(double, m->n);
  m->foot_at = g_new(int, m->n);
  for (size_t j = 0; j < m->n; j++)
    m->pos[j] = rk_mat4_get_translation(&models[j]);
  rk__humanoid_skin_marks(s, opts->skin, m->pos, m->control, m->tip, m->has_tip, m->drop, m->foot_at);
  /* The height spans all joints (and the ends of skinned chains); the ground is the lowest LEAF
   * (root joints often sit at the origin, which says nothing about where the feet stand). */
  double lo = INFINITY, hi = -INFINITY, all_lo = INFINITY;
  for (size_t j = 0; j < m->n; j++) {
    const bool reach = rk__humanoid_tip_extends(s, m->pos, m->tip, m->has_tip, (int)j);
    m->min_y[j] = reach ? fmin(m->pos[j].y, m->tip[j].y - m->drop[j]) : m->pos[j].y;
    m->max_y[j] = reach ? fmax(m->pos[j].y, m->tip[j].y) : m->pos[j].y;
    all_lo = fmin(all_lo, m->min_y[j]);
    hi = fmax(hi, m->max_y[j]);
    if (!m->control[j] && is_leaf(m, (int)j))
      lo = fmin(lo, m->min_y[j]);
    m->names[j] = rk__humanoid_classify_name(rk_skeleton_joint_name(s, j));
  }
  for (size_t j = m->n; j-- > 0;) {
    int p = rk_skeleton_parent(s, j);
    if (p >= 0 && !m->control[j]) {
      m->min_y[p] = fmin(m->min_y[p], m->min_y[j]);
      m->max_y[p] = fmax(m->max_y[p], m->max_y[j]);
    }
  }
  m->height = hi - all_lo;
  m->ground = lo;
  m->min_len = opts->min_bone_fraction * m->height;
  if (!(m->height > 0)) {
    g_set_error(error, RK_ERROR, RK_ERROR_MAPPING,
                "the rest pose has no height (all joints at one level): not a standing humanoid");
    return false;
  }
  return true;
}

/* The hips carry both the legs and the spine: when the leg branch has no chain going up
 * (MakeHuman: Root -> {Spine1, Hips -> legs}), the hips are the ancestor where the spine leaves,
 * and the leg branch joint is an intermediate that follows it. */
static int hips_above_branch(const mapper *m, int branch) {
  for (int j = branch; j >= 0; j = rk_skeleton_parent(m->s, (size_t)j)) {
    bool has_up = false;
    g_autoptr(GArray) ch = children_of(m, j);
    for (guint i = 0; i < ch->len; i++) {
      int c = g_array_index(ch, int, i);
      if (!rk_skeleton_is_ancestor(m->s, (size_t)c, (size_t)branch) &&
          m->max_y[c] > m->pos[j].y + 0.15 * m->height)
        has_up = true;
    }
    if (has_up)
      return j;
  }
  return branch;
}

/* Why no joint is the hips, naming the closest: the joint whose two lowest child chains end
 * lowest, and how high above the ground the higher of them ends. */
static void no_hips_error(const mapper *m, GError **error) {
  int best = -1, pair[2] = {-1, -1};
  double best_y = INFINITY;
  bool skin = false;
  for (size_t j = 0; j < m->n; j++) {
    skin |= m->has_tip[j];
    g_autoptr(GArray) ch = children_of(m, (int)j);
    int lo[2] = {-1, -1};
    for (guint i = 0; i < ch->len; i++) {
      const int c = g_array_index(ch, int, i);
      if (lo[0] < 0 || m->min_y[c] < m->min_y[lo[0]]) {
        lo[1] = lo[0];
        lo[0] = c;
      } else if (lo[1] < 0 || m->min_y[c] < m->min_y[lo[1]]) {
        lo[1] = c;
      }
    }
    if (lo[1] >= 0 && m->min_y[lo[1]] < best_y) {
      best_y = m->min_y[lo[1]];
      best = (int)j;
      pair[0] = lo[0];
      pair[1] = lo[1];
    }
  }
  if (best < 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_MAPPING,
                "no hips: no joint has two child chains (not a standing biped in its rest pose)");
    return;
  }
  g_set_error(error, RK_ERROR, RK_ERROR_MAPPING,
              "no hips: no joint has two child chains reaching down to the ground (not a standing "
              "biped in its rest pose); the closest, '%s', has the chains from '%s' and '%s', one "
              "ending %.0f%% of the rig's height above the ground%s",
              rk_skeleton_joint_name(m->s, (size_t)best),
              rk_skeleton_joint_name(m->s, (size_t)pair[0]),
              rk_skeleton_joint_name(m->s, (size_t)pair[1]),
              100.0 * (best_y - m->ground) / m->height,
              skin ? "" : " (a leg whose foot is part of its lower leg's mesh ends where that mesh "
                          "does: read the character with its meshes)");
}

/* Hips: a joint with two (or more) children whose subtrees reach down to the ground; a named
 * hips joint wins when it qualifies; otherwise the highest qualifying one. When more than two
 * children go down (a tail, a skirt), the legs are the pair reaching lowest. Fails without hips
 * and for a quadruped. */
static bool find_hips_and_legs(const mapper *m, found *f, GError **error) {
  const rk__name_info *names = m->names;
  int hips = -1;
  g_autoptr(GArray) legs = NULL;
  for (size_t j = 0; j < m->n; j++) {
    GArray *lc = leg_children(m, (int)j);
    bool named = m->use_names && names[j].cls == NC_HIPS;
    bool better = hips < 0 || (named && names[hips].cls != NC_HIPS) ||
                  (!(names[hips].cls == NC_HIPS && m->use_names) && m->pos[j].y > m->pos[hips].y);
    if (lc->len >= 2 && better) {
      hips = (int)j;
      if (legs)
        g_array_unref(legs);
      legs = lc;
    } else {
      g_array_unref(lc);
    }
  }
  if (hips < 0) {
    no_hips_error(m, error);
    return false;
  }
  f->hips = hips_above_branch(m, hips);
  f->leg[0] = g_array_index(legs, int, 0);
  f->leg[1] = g_array_index(legs, int, 1);
  for (guint i = 2; i < legs->len; i++) {
    int c = g_array_index(legs, int, i);
    int worst = m->min_y[f->leg[0]] > m->min_y[f->leg[1]] ? 0 : 1;
    if (m->min_y[c] < m->min_y[f->leg[worst]])
      f->leg[worst] = c;
  }
  for (int k = 0; k < 2; k++)
    f->leg_n[k] = follow_chain(m, f->leg[k], CHAIN_DOWN, m->pos[f->hips], f->leg_chain[k], MAX_CHAIN);
  /* Found, but refused: what was found still makes the best guess of a map (humanoid_guess.c). */
  const int ground_limbs = count_ground_limbs(m);
  f->quadruped = ground_limbs >= 4;
  if (f->quadruped)
    g_set_error(error, RK_ERROR, RK_ERROR_MAPPING,
                "the rig looks like a quadruped (%d limbs reach the ground); the humanoid profile "
                "maps two legs and two arms: give a map file to map it anyway",
                ground_limbs);
  return !f->quadruped;
}

/* The hips, and the root of the hierarchy above them. */
static void map_hips(const mapper *m, const found *f, rk_humanoid_map *map) {
  map->joint[RK_BONE_HIPS] = f->hips;
  map->source[RK_BONE_HIPS] =
      m->use_names && m->names[f->hips].cls == NC_HIPS ? RK_BONE_BY_NAME : RK_BONE_BY_TOPOLOGY;
  int root = rk_skeleton_parent(m->s, (size_t)f->hips);
  if (root >= 0) {
    while (rk_skeleton_parent(m->s, (size_t)root) >= 0)
      root = rk_skeleton_parent(m->s, (size_t)root);
    map->joint[RK_BONE_ROOT] = root;
    map->source[RK_BONE_ROOT] = RK_BONE_BY_TOPOLOGY;
  }
}

/* Whether two side chains (arms) branch at j, apart from the chain through `next` (the spine
 * going on) and the legs: then j is the chest and they are the arms. */
static void arms_at(const mapper *m, found *f, int j, int next) {
  g_autoptr(GArray) ch = children_of(m, j);
  int found_arm[2] = {-1, -1}, nf = 0;
  for (guint i = 0; i < ch->len && nf < 3; i++) {
    int c = g_array_index(ch, int, i);
    if ((next >= 0 && rk_skeleton_is_ancestor(m->s, (size_t)c, (size_t)next)) || c == f->leg[0] ||
        c == f->leg[1])
      continue;
    /* Arms reach sideways (T/A-pose) or hang down (I-pose), but not to the ground. */
    double reach = fmax(horizontal_reach(m, c, m->pos[j]), m->pos[j].y - m->min_y[c]);
    if (reach > 0.15 * m->height && m->min_y[c] > m->ground + 0.1 * m->height) {
      if (nf < 2)
        found_arm[nf] = c;
      nf++;
    }
  }
  if (nf >= 2) {
    f->chest = j;
    f->arm_root[0] = found_arm[0];
    f->arm_root[1] = found_arm[1];
  }
}

/* The spine up from the hips, to the joint where two side chains (arms) branch: the chest. */
static void find_spine(const mapper *m, found *f) {
  const rk_skeleton *s = m->s;
  g_autoptr(GArray) hc = children_of(m, f->hips);
  int up = -1;
  for (guint i = 0; i < hc->len; i++) {
    int c = g_array_index(hc, int, i);
    if (!rk_skeleton_is_ancestor(s, (size_t)c, (size_t)f->leg[0]) &&
        !rk_skeleton_is_ancestor(s, (size_t)c, (size_t)f->leg[1]) &&
        m->max_y[c] > m->pos[f->hips].y + 0.15 * m->height && (up < 0 || m->max_y[c] > m->max_y[up]))
      up = c;
  }
  f->spine_n = up >= 0 ? follow_chain(m, up, CHAIN_UP, m->pos[f->hips], f->spine_chain, MAX_CHAIN) : 0;
  f->chest = f->arm_root[0] = f->arm_root[1] = -1;
  for (size_t k = 0; k < f->spine_n && f->chest < 0; k++)
    arms_at(m, f, f->spine_chain[k], k + 1 < f->spine_n ? f->spine_chain[k + 1] : -1);
  /* A figure without a spine bone: the arms hang from the body joint that carries the legs. */
  if (f->chest < 0)
    arms_at(m, f, f->hips, up);
}

/* Neck and head above the chest: the head is where the chain above the chest branches (jaw, eyes,
 * ...), else its top; a joint named head wins. */
static void map_neck_and_head(const mapper *m, const found *f, rk_humanoid_map *map) {
  const int *chain = f->spine_chain;
  size_t k0 = 0;
  while (k0 < f->spine_n && chain[k0] != f->chest)
    k0++;
  if (f->chest == f->hips)
    k0 = (size_t)-1; /* every joint of the chain is above the arms */
  int top = -1;
  for (size_t k = k0 + 1; k < f->spine_n; k++)
    if (!is_end_site(m, chain[k]))
      top = (int)k;
  if (top < 0)
    return;
  int head_k = top;
  for (size_t k = k0 + 1; k <= (size_t)top; k++)
    if (branch_count(m, chain[k]) >= 2) {
      head_k = (int)k;
      break;
    }
  for (size_t k = k0 + 1; k <= (size_t)top; k++)
    if (m->use_names && m->names[chain[k]].cls == NC_HEAD) {
      head_k = (int)k;
      break;
    }
  map->joint[RK_BONE_HEAD] = chain[head_k];
  map->source[RK_BONE_HEAD] =
      m->use_names && m->names[chain[head_k]].cls == NC_HEAD ? RK_BONE_BY_NAME : RK_BONE_BY_TOPOLOGY;
  if ((size_t)head_k > k0 + 1) {
    map->joint[RK_BONE_NECK] = chain[k0 + 1];
    map->source[RK_BONE_NECK] =
        m->use_names && m->names[chain[k0 + 1]].cls == NC_NECK ? RK_BONE_BY_NAME : RK_BONE_BY_TOPOLOGY;
  }
}

/* Spine, chest, neck and head; names confirm what the topology found. */
static void map_trunk(const mapper *m, const found *f, rk_humanoid_map *map) {
  if (f->chest >= 0 && f->chest == f->hips) {
    map_neck_and_head(m, f, map);
  } else if (f->chest >= 0) {
    map->joint[RK_BONE_CHEST] = f->chest;
    map->source[RK_BONE_CHEST] = RK_BONE_BY_TOPOLOGY;
    if (f->spine_chain[0] != f->chest) {
      map->joint[RK_BONE_SPINE] = f->spine_chain[0];
      map->source[RK_BONE_SPINE] = RK_BONE_BY_TOPOLOGY;
    }
    map_neck_and_head(m, f, map);
  } else if (f->spine_n > 0) {
    /* No arms found: map the spine and head only. */
    map->joint[RK_BONE_SPINE] = f->spine_chain[0];
    map->source[RK_BONE_SPINE] = RK_BONE_BY_TOPOLOGY;
  }
  if (m->use_names)
    for (int b = RK_BONE_SPINE; b <= RK_BONE_HEAD; b++) {
      int j = map->joint[b];
      rk__name_class want = b == RK_BONE_NECK ? NC_NECK : b == RK_BONE_HEAD ? NC_HEAD : NC_SPINE;
      if (j >= 0 && m->names[j].cls == want)
        map->source[b] = RK_BONE_BY_NAME;
    }
}

/* Facing: toes point forward; else the glTF convention (+Z). */
static rk_vec3 leg_facing(const mapper *m, const found *f) {
  rk_vec3 fwd = rk_vec3_make(0, 0, 0);
  for (int k = 0; k < 2; k++) {
    size_t n = f->leg_n[k];
    if (n >= 2) {
      rk_vec3 d = rk_vec3_sub(m->pos[f->leg_chain[k][n - 1]], m->pos[f->leg_chain[k][n - 2]]);
      fwd = rk_vec3_add(fwd, rk_vec3_make(d.x, 0, d.z));
    }
  }
  return rk_vec3_norm(fwd) > 0.02 * m->height ? rk_vec3_normalize(fwd) : rk_vec3_make(0, 0, 1);
}

/* Which of two chains is the left one: names when they agree between the chains, else which of
 * joints ja and jb (one per chain) lies further along left_dir. */
static bool first_is_left(const mapper *m, const int *a, size_t na, const int *b, size_t nb, int ja,
                          int jb, rk_vec3 left_dir) {
  rk__side_kind sa = chain_side(m, a, na), sb = chain_side(m, b, nb);
  if (m->use_names && sa != SIDE_NONE && sb != SIDE_NONE && sa != sb)
    return sa == SIDE_LEFT;
  if (ja < 0 || jb < 0)
    return true;
  return rk_vec3_dot(m->pos[ja], left_dir) > rk_vec3_dot(m->pos[jb], left_dir);
}

/* Both legs and both arms on their sides. */
static bool map_limbs(const mapper *m, const found *f, rk_humanoid_map *map, GError **error) {
  const rk_vec3 left_dir = rk_vec3_cross(map->up, map->forward);
  const bool l0 = first_is_left(m, f->leg_chain[0], f->leg_n[0], f->leg_chain[1], f->leg_n[1],
                                f->leg[0], f->leg[1], left_dir);
  if (!map_leg(m, f->leg_chain[l0 ? 0 : 1], f->leg_n[l0 ? 0 : 1], map, true, error) ||
      !map_leg(m, f->leg_chain[l0 ? 1 : 0], f->leg_n[l0 ? 1 : 0], map, false, error))
    return false;
  if (f->arm_root[0] < 0)
    return true;
  int arm_chain[2][MAX_CHAIN];
  size_t arm_n[2];
  for (int k = 0; k < 2; k++)
    arm_n[k] = follow_chain(m, f->arm_root[k], CHAIN_OUT, m->pos[f->chest], arm_chain[k], MAX_CHAIN);
  const bool a0 = first_is_left(m, arm_chain[0], arm_n[0], arm_chain[1], arm_n[1],
                                arm_n[0] ? arm_chain[0][arm_n[0] - 1] : -1,
                                arm_n[1] ? arm_chain[1][arm_n[1] - 1] : -1, left_dir);
  map_arm(m, arm_chain[a0 ? 0 : 1], arm_n[a0 ? 0 : 1], map, true);
  map_arm(m, arm_chain[a0 ? 1 : 0], arm_n[a0 ? 1 : 0], map, false);
  return true;
}

bool rk__humanoid_map_topology(const rk_skeleton *s, const rk_humanoid_options *opts,
                               rk_humanoid_map *map, GError **error) {
  const rk_humanoid_options defaults = RK_HUMANOID_OPTIONS_INIT;
  if (!opts)
    opts = &defaults;
  rk_humanoid_map_clear(map);
  mapper m = {0};
  found f = {.quadruped = false};
  bool ok = mapper_init(&m, s, opts, error);
  if (ok && (find_hips_and_legs(&m, &f, error) || f.quadruped)) {
    map_hips(&m, &f, map);
    find_spine(&m, &f);
    map_trunk(&m, &f, map);
    map->forward = leg_facing(&m, &f);
    ok = map_limbs(&m, &f, map, f.quadruped ? NULL : error) && !f.quadruped;
  } else {
    ok = false;
  }
  mapper_clear(&m);
  return ok;
}

bool rk_humanoid_map_build(const rk_skeleton *s, const rk_humanoid_options *opts,
                           rk_humanoid_map *map, GError **error) {
  return rk__humanoid_map_topology(s, opts, map, error) && rk_humanoid_map_finish(map, s, error);
}

void rk_humanoid_map_clear(rk_humanoid_map *map) {
  memset(map, 0, sizeof *map);
  for (int b = 0; b < RK_BONE_COUNT; b++)
    map->joint[b] = -1;
  map->up = rk_vec3_make(0, 1, 0);
  map->forward = rk_vec3_make(0, 0, 1);
  map->detached_foot[0] = map->detached_foot[1] = -1;
}

bool rk_humanoid_map_finish(rk_humanoid_map *map, const rk_skeleton *s, GError **error) {
  if (!rk_humanoid_map_validate(map, s, error))
    return false;
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  rk_skeleton_rest_models(s, models);
#define P(b) rk_mat4_get_translation(&models[map->joint[b]])
  map->up = rk_vec3_make(0, 1, 0);
  double lo = INFINITY, hi = -INFINITY;
  for (size_t j = 0; j < n; j++) {
    lo = fmin(lo, models[j].m[13]);
    hi = fmax(hi, models[j].m[13]);
  }
  map->height = hi - lo;
  /* Facing: the feet point forward (toes, else the horizontal foot direction is unknown and the
   * glTF convention +Z is assumed). */
  rk_vec3 fwd = rk_vec3_make(0, 0, 0);
  for (int side = 0; side < 2; side++) {
    rk_bone foot = side ? RK_BONE_RIGHT_FOOT : RK_BONE_LEFT_FOOT;
    if (map->joint[foot] >= 0 && map->joint[foot + 1] >= 0) { /* toes without a foot: no facing */
      rk_vec3 d = rk_vec3_sub(P(foot + 1), P(foot));
      fwd = rk_vec3_add(fwd, rk_vec3_make(d.x, 0, d.z));
    }
  }
  map->forward = rk_vec3_norm(fwd) > 1e-3 * map->height ? rk_vec3_normalize(fwd) : rk_vec3_make(0, 0, 1);
  /* Each leg's end: its foot joint; without one, where its skin ends (as the mapping found it). */
  for (int side = 0; side < 2; side++) {
    const rk_bone u = side ? RK_BONE_RIGHT_UPPER_LEG : RK_BONE_LEFT_UPPER_LEG;
    if (map->joint[u + 2] >= 0) {
      map->leg_end[side] = P(u + 2);
      map->leg_end_drop[side] = 0;
      map->leg_end_from_skin[side] = false;
    } else if (!map->leg_end_from_skin[side]) {
      /* Its last bone carries more of the leg (a chain cut short), or nothing ends it. */
      const int last = rk__humanoid_leg_knee(map, u);
      const size_t below = (size_t)last + 1;
      if (below < rk_skeleton_subtree_end(s, (size_t)last))
        g_set_error(error, RK_ERROR, RK_ERROR_MAPPING,
                    "the %s leg ends at '%s', which carries '%s' below it: list the leg's bones "
                    "down to the foot (upper leg[, lower leg[, foot[, toes]]]) or map %s_foot",
                    side ? "right" : "left", rk_skeleton_joint_name(s, (size_t)last),
                    rk_skeleton_joint_name(s, below), side ? "right" : "left");
      else
        g_set_error(error, RK_ERROR, RK_ERROR_MAPPING,
                    "the %s leg ('%s' -> '%s') has no foot joint and no skinned mesh below its "
                    "last bone to end it: map %s_foot, or read the rig with its meshes",
                    side ? "right" : "left", rk_skeleton_joint_name(s, (size_t)map->joint[u]),
                    rk_skeleton_joint_name(s, (size_t)last), side ? "right" : "left");
      return false;
    }
  }
  /* The ground under the feet: the lowest joint of either leg (feet, toes and their tips) or
   * end of its skin. */
  double ground = INFINITY;
  for (int side = 0; side < 2; side++) {
    int up = map->joint[side ? RK_BONE_RIGHT_UPPER_LEG : RK_BONE_LEFT_UPPER_LEG];
    for (size_t j = (size_t)up; j < rk_skeleton_subtree_end(s, (size_t)up); j++)
      ground = fmin(ground, models[j].m[13]);
    ground = fmin(ground, map->leg_end[side].y - map->leg_end_drop[side]);
  }
  map->ground = ground;
  map->hip_height = P(RK_BONE_HIPS).y - ground;
  double len = 0;
  for (int side = 0; side < 2; side++) {
    rk_bone u = side ? RK_BONE_RIGHT_UPPER_LEG : RK_BONE_LEFT_UPPER_LEG;
    const rk_vec3 end = map->leg_end[side];
    const rk_vec3 knee = rk_mat4_get_translation(&models[rk__humanoid_leg_knee(map, u)]);
    len += rk_vec3_norm(rk_vec3_sub(knee, P(u))) + rk_vec3_norm(rk_vec3_sub(end, knee)) +
           (end.y - ground);
  }
#undef P
  map->leg_length = 0.5 * len;
  if (!(map->hip_height > 0)) {
    g_set_error(error, RK_ERROR, RK_ERROR_MAPPING, "the hips ('%s') are not above the feet",
                rk_skeleton_joint_name(s, (size_t)map->joint[RK_BONE_HIPS]));
    return false;
  }
  return true;
}
