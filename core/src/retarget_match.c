/* Retargeting, the correspondence of two rigs: which source joint drives each target joint. The
 * canonical bones of the humanoid maps first; then every other joint by name (as written, then
 * normalised), accepted only where the topology agrees; then unmatched joints between two matched
 * ones, in order, when both paths hold as many; then the unmatched subtrees below matched joints
 * (fingers, toe ends, twist bones) child by child when their shapes agree. The same skeleton on
 * both sides matches every joint. */
#include "humanoid_internal.h"
#include "retarget_run.h"

#include <string.h>

typedef struct matcher {
  const rk_skeleton *s, *t;
  size_t ns, nt;
  int *t2s, *s2t;
} matcher;

static void link_pair(matcher *m, int j, int s) {
  if (j >= 0 && s >= 0 && m->t2s[j] < 0 && m->s2t[s] < 0) {
    m->t2s[j] = s;
    m->s2t[s] = j;
  }
}

/* How joint b stands to joint a in a skeleton: 0 the same, 1 a descendant, 2 an ancestor, 3 none. */
static int relation(const rk_skeleton *sk, int a, int b) {
  if (a == b)
    return 0;
  if (rk_skeleton_is_ancestor(sk, (size_t)a, (size_t)b))
    return 1;
  return rk_skeleton_is_ancestor(sk, (size_t)b, (size_t)a) ? 2 : 3;
}

/* Whether linking target joint j to source joint s keeps every matched pair in the same relation
 * (ancestor, descendant, neither) on both sides. */
static bool consistent(const matcher *m, int j, int s) {
  for (size_t k = 0; k < m->nt; k++)
    if (m->t2s[k] >= 0 && relation(m->t, j, (int)k) != relation(m->s, s, m->t2s[k]))
      return false;
  return true;
}

static bool is_end_site(const rk_skeleton *sk, int j) {
  return (rk_skeleton_joint_flags(sk, (size_t)j) & RK_SKELETON_END_SITE) != 0;
}

/* By name: the source joint with the same name, else the only one with the same normalised name,
 * where the topology agrees. */
static void match_names(matcher *m) {
  g_autofree char **skeys = g_new0(char *, m->ns);
  for (size_t s = 0; s < m->ns; s++)
    skeys[s] = rk__humanoid_name_key(rk_skeleton_joint_name(m->s, s));
  for (size_t j = 0; j < m->nt; j++) {
    if (m->t2s[j] >= 0)
      continue;
    const char *name = rk_skeleton_joint_name(m->t, j);
    int s = rk_skeleton_find_joint(m->s, name);
    if (s < 0 || m->s2t[s] >= 0 || !consistent(m, (int)j, s)) {
      g_autofree char *key = rk__humanoid_name_key(name);
      s = -1;
      for (size_t k = 0; strlen(key) > 2 && k < m->ns; k++)
        if (m->s2t[k] < 0 && !strcmp(skeys[k], key) && consistent(m, (int)j, (int)k)) {
          if (s >= 0) { /* two candidates: the name decides nothing */
            s = -1;
            break;
          }
          s = (int)k;
        }
    }
    link_pair(m, (int)j, s);
  }
  for (size_t s = 0; s < m->ns; s++)
    g_free(skeys[s]);
}

/* Between a matched joint and its nearest matched ancestor: the unmatched joints of both paths,
 * in order, when there are as many on each side. */
static void match_paths(matcher *m) {
  g_autofree int *tu = g_new(int, m->nt), *su = g_new(int, m->ns);
  for (size_t j = 0; j < m->nt; j++) {
    if (m->t2s[j] < 0)
      continue;
    size_t nt = 0, ns = 0;
    int a = rk_skeleton_parent(m->t, j);
    for (; a >= 0 && m->t2s[a] < 0; a = rk_skeleton_parent(m->t, (size_t)a))
      tu[nt++] = a;
    if (a < 0 || nt == 0)
      continue;
    int b = rk_skeleton_parent(m->s, (size_t)m->t2s[j]);
    for (; b >= 0 && b != m->t2s[a] && m->s2t[b] < 0; b = rk_skeleton_parent(m->s, (size_t)b))
      su[ns++] = b;
    if (b == m->t2s[a] && ns == nt)
      for (size_t i = 0; i < nt; i++)
        link_pair(m, tu[i], su[i]);
  }
}

/* The unmatched children of joint j, End Sites left out when `sites` is false. */
static size_t unmatched_children(const rk_skeleton *sk, const int *matched, int j, bool sites,
                                 int *out) {
  size_t n = 0;
  for (size_t k = (size_t)j + 1; k < rk_skeleton_subtree_end(sk, (size_t)j); k++)
    if (rk_skeleton_parent(sk, k) == j && matched[k] < 0 && (sites || !is_end_site(sk, (int)k)))
      out[n++] = (int)k;
  return n;
}

/* Whether the unmatched subtrees below target joint j and source joint s have one shape (End
 * Sites count only when both rigs have them), and if so, with `apply`, links them child by
 * child. */
static bool same_shape(matcher *m, int j, int s, bool apply) {
  int tc[64], sc[64];
  if (rk_skeleton_child_count(m->t, (size_t)j) > 64 || rk_skeleton_child_count(m->s, (size_t)s) > 64)
    return false;
  bool t_sites = false, s_sites = false;
  for (size_t k = (size_t)j + 1; k < rk_skeleton_subtree_end(m->t, (size_t)j); k++)
    t_sites |= is_end_site(m->t, (int)k);
  for (size_t k = (size_t)s + 1; k < rk_skeleton_subtree_end(m->s, (size_t)s); k++)
    s_sites |= is_end_site(m->s, (int)k);
  const bool sites = t_sites && s_sites;
  const size_t nt = unmatched_children(m->t, m->t2s, j, sites, tc);
  const size_t ns = unmatched_children(m->s, m->s2t, s, sites, sc);
  if (nt != ns)
    return false;
  for (size_t i = 0; i < nt; i++)
    if (!same_shape(m, tc[i], sc[i], false))
      return false;
  for (size_t i = 0; apply && i < nt; i++) {
    link_pair(m, tc[i], sc[i]);
    same_shape(m, tc[i], sc[i], true);
  }
  return true;
}

bool rk__rt_rests_agree(const rk_retargeter *rt) {
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

size_t rk__rt_match(const rk_skeleton *source, const rk_humanoid_map *smap,
                    const rk_skeleton *target, const rk_humanoid_map *tmap, int *t2s) {
  matcher m = {source, target, rk_skeleton_joint_count(source), rk_skeleton_joint_count(target),
               t2s, NULL};
  g_autofree int *s2t = g_new(int, m.ns);
  m.s2t = s2t;
  for (size_t j = 0; j < m.nt; j++)
    t2s[j] = -1;
  for (size_t s = 0; s < m.ns; s++)
    s2t[s] = -1;
  for (int b = 0; b < RK_BONE_COUNT; b++)
    link_pair(&m, tmap->joint[b], smap->joint[b]);
  match_names(&m);
  match_paths(&m);
  for (size_t j = 0; j < m.nt; j++)
    if (t2s[j] >= 0)
      same_shape(&m, (int)j, t2s[j], true);
  size_t n = 0;
  for (size_t j = 0; j < m.nt; j++)
    n += t2s[j] >= 0;
  return n;
}
