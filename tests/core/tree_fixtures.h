/* Skeletons and clips built in code for the kinematic-tree suites (test_tree*, test_chain,
 * test_junction, test_loop): a small humanoid with a synthetic walk, the textbook planar trees
 * and the KUKA iiwa 14 of rk_rigs.h. Header-only (static functions). */
#ifndef RK_TREE_FIXTURES_H
#define RK_TREE_FIXTURES_H

#include "rk_rigs.h"
#include "rk_test.h"

static inline rk_transform fx_at(double x, double y, double z) {
  rk_transform t = rk_transform_identity();
  t.t = rk_vec3_make(x, y, z);
  return t;
}

static inline int fx_add(rk_skeleton_builder *b, const char *name, int parent, rk_transform t,
                         unsigned flags) {
  return rk_skeleton_builder_add_joint(b, name, parent, &t, flags);
}

static inline rk_skeleton *fx_build(rk_skeleton_builder *b) {
  g_autoptr(GError) error = NULL;
  rk_skeleton *s = rk_skeleton_builder_build(b, NULL, &error);
  cr_assert(s, "%s", error ? error->message : "");
  rk_skeleton_builder_free(b);
  return s;
}

/* A 26-joint humanoid, Y-up, metres, facing +Z, left = +X. Junctions: Hips (spine, two legs)
 * and Chest (neck, two clavicles). */
static inline rk_skeleton *fx_humanoid(void) {
  rk_skeleton_builder *b = rk_skeleton_builder_new();
  int hips = fx_add(b, "Hips", -1, fx_at(0, 1.0, 0), 0);
  int spine = fx_add(b, "Spine", hips, fx_at(0, 0.1, 0), 0);
  int chest = fx_add(b, "Chest", spine, fx_at(0, 0.25, 0), 0);
  int neck = fx_add(b, "Neck", chest, fx_at(0, 0.2, 0), 0);
  int head = fx_add(b, "Head", neck, fx_at(0, 0.1, 0), 0);
  fx_add(b, "Head_end", head, fx_at(0, 0.2, 0), RK_SKELETON_END_SITE);
  for (int side = 0; side < 2; side++) {
    const double sx = side == 0 ? 1.0 : -1.0;
    const char *S = side == 0 ? "L" : "R";
    char name[64];
    g_snprintf(name, sizeof name, "Clavicle_%s", S);
    int cl = fx_add(b, name, chest, fx_at(sx * 0.05, 0.15, 0), 0);
    g_snprintf(name, sizeof name, "UpArm_%s", S);
    int ua = fx_add(b, name, cl, fx_at(sx * 0.15, 0, 0), 0);
    g_snprintf(name, sizeof name, "LoArm_%s", S);
    int la = fx_add(b, name, ua, fx_at(sx * 0.3, 0, 0), 0);
    g_snprintf(name, sizeof name, "Hand_%s", S);
    int ha = fx_add(b, name, la, fx_at(sx * 0.25, 0, 0), 0);
    g_snprintf(name, sizeof name, "Hand_%s_end", S);
    fx_add(b, name, ha, fx_at(sx * 0.1, 0, 0), RK_SKELETON_END_SITE);
  }
  for (int side = 0; side < 2; side++) {
    const double sx = side == 0 ? 1.0 : -1.0;
    const char *S = side == 0 ? "L" : "R";
    char name[64];
    g_snprintf(name, sizeof name, "UpLeg_%s", S);
    int ul = fx_add(b, name, hips, fx_at(sx * 0.1, -0.05, 0), 0);
    g_snprintf(name, sizeof name, "LoLeg_%s", S);
    int ll = fx_add(b, name, ul, fx_at(0, -0.45, 0), 0);
    g_snprintf(name, sizeof name, "Foot_%s", S);
    int ft = fx_add(b, name, ll, fx_at(0, -0.42, 0), 0);
    g_snprintf(name, sizeof name, "Toe_%s", S);
    int to = fx_add(b, name, ft, fx_at(0, -0.05, 0.12), 0);
    g_snprintf(name, sizeof name, "Toe_%s_end", S);
    fx_add(b, name, to, fx_at(0, 0, 0.05), RK_SKELETON_END_SITE);
  }
  return fx_build(b);
}

/* Elbow axis of the synthetic walk, in the LoArm joint frame (oblique on purpose). */
static inline rk_vec3 fx_elbow_axis(void) {
  return rk_vec3_normalize(rk_vec3_make(0.1, 1.0, 0.25));
}

static inline rk_quat fx_small_noise(guint64 *rng, double amplitude) {
  rk_vec3 v = rk_vec3_make(rk_test_uniform(rng, -1, 1), rk_test_uniform(rng, -1, 1),
                           rk_test_uniform(rng, -1, 1));
  return rk_quat_from_rotvec(rk_vec3_scale(rk_vec3_normalize(v), amplitude));
}

/* A baked 1 s walk at 30 fps: root moves forward and bobs; hips, feet, spine and shoulders turn
 * about all three axes; knees turn about x only and elbows about fx_elbow_axis only, each with
 * noise of knee_noise radians (0 = exact hinges). */
static inline rk_clip *fx_walk(const rk_skeleton *s, double knee_noise) {
  const size_t n = rk_skeleton_joint_count(s), frames = 31;
  rk_clip *clip = rk_clip_new("walk", n);
  rk_clip_set_fps(clip, 30.0);
  double *times = g_new(double, frames), *rot = g_new(double, frames * 4),
         *pos = g_new(double, frames * 3);
  guint64 rng = 12345;
  for (size_t f = 0; f < frames; f++)
    times[f] = (double)f / 30.0;
  for (size_t j = 0; j < n; j++) {
    const char *name = rk_skeleton_joint_name(s, j);
    if (rk_skeleton_joint_flags(s, j) & RK_SKELETON_END_SITE)
      continue;
    const double side = strstr(name, "_R") ? -1.0 : 1.0;
    for (size_t f = 0; f < frames; f++) {
      const double ph = 2.0 * RK_PI * (double)f / 30.0 + (side < 0 ? RK_PI : 0.0);
      rk_quat q = rk_quat_identity();
      if (g_str_has_prefix(name, "LoLeg")) {
        q = rk_quat_from_axis_angle(rk_vec3_make(1, 0, 0), 0.55 + 0.5 * sin(ph));
        q = rk_quat_mul(q, fx_small_noise(&rng, knee_noise));
      } else if (g_str_has_prefix(name, "LoArm")) {
        q = rk_quat_from_axis_angle(fx_elbow_axis(), 0.5 + 0.35 * sin(ph));
        q = rk_quat_mul(q, fx_small_noise(&rng, knee_noise));
      } else {
        double a[3] = {0.4 * sin(ph), 0.15 * sin(2 * ph + 0.3), 0.2 * cos(ph + 0.7)};
        if (g_str_has_prefix(name, "Hips"))
          a[0] *= 0.2, a[1] = 0.1 * sin(ph), a[2] *= 0.2;
        q = rk_euler_to_quat(RK_EULER_XYZ, a);
      }
      rot[f * 4 + 0] = q.x, rot[f * 4 + 1] = q.y, rot[f * 4 + 2] = q.z, rot[f * 4 + 3] = q.w;
      pos[f * 3 + 0] = 0.02 * sin(ph);
      pos[f * 3 + 1] = 1.0 + 0.03 * cos(2 * ph);
      pos[f * 3 + 2] = 1.2 * (double)f / 30.0;
    }
    rk_track tr = {(int)j, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, frames, times, rot};
    cr_assert(rk_clip_add_track(clip, &tr, NULL));
    if (rk_skeleton_parent(s, j) < 0) {
      rk_track tt = {(int)j, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, frames, times, pos};
      cr_assert(rk_clip_add_track(clip, &tt, NULL));
    }
  }
  g_free(times);
  g_free(rot);
  g_free(pos);
  return clip;
}

/* Options for planar/robot trees: every joint (roots too) revolute about local z. */
static inline rk_tree_options fx_revolute_z_options(void) {
  rk_tree_options o = RK_TREE_OPTIONS_INIT;
  o.root_type = RK_JOINT_REVOLUTE;
  o.default_type = RK_JOINT_REVOLUTE;
  o.default_axis = rk_vec3_make(0, 0, 1);
  return o;
}

/* Textbook planar tree of six links: A1 hinged to the ground, A2 a junction carrying a lower
 * chain A5-A6 (added first) and an upper chain A3-A4 whose direction on A2 is 45 degrees above
 * the lower one, so theta_2u = theta_2l + pi/4. Each link ends in an end site. */
static inline rk_skeleton *fx_planar_six(void) {
  rk_skeleton_builder *b = rk_skeleton_builder_new();
  int a1 = fx_add(b, "A1", -1, fx_at(0, 0, 0), 0);
  int a2 = fx_add(b, "A2", a1, fx_at(1.0, 0, 0), 0);
  int a5 = fx_add(b, "A5", a2, fx_at(0.8, 0, 0), 0);
  int a6 = fx_add(b, "A6", a5, fx_at(0.6, 0, 0), 0);
  fx_add(b, "A6_end", a6, fx_at(0.5, 0, 0), RK_SKELETON_END_SITE);
  const double c = cos(RK_PI / 4), s = sin(RK_PI / 4);
  int a3 = fx_add(b, "A3", a2, fx_at(0.7 * c, 0.7 * s, 0), 0);
  int a4 = fx_add(b, "A4", a3, fx_at(0.5 * c, 0.5 * s, 0), 0);
  fx_add(b, "A4_end", a4, fx_at(0.4 * c, 0.4 * s, 0), RK_SKELETON_END_SITE);
  return fx_build(b);
}

/* Vertex k of the regular 11-gon of circumradius 1 used by the closed planar chain. */
static inline rk_vec3 fx_ring_vertex(int k) {
  const double a = 2.0 * RK_PI * (double)k / 11.0;
  return rk_vec3_make(cos(a), sin(a), 0);
}

/* The closed planar chain of ten links and ten revolute joints, broken between A5 and A6: the
 * ground carries A1 (joint at vertex 0) and A10 (joint at vertex 10); A1..A5 and A10..A6 run
 * around the 11-gon and A5's and A6's tips meet at vertex 5 (the cut). With base, the ground is a
 * link of its own, "Base" at the 11-gon's centre (the skeleton's one root); without, A1 and A10
 * are the roots. */
static inline rk_skeleton *fx_ring(bool base) {
  rk_skeleton_builder *b = rk_skeleton_builder_new();
  const int ground = base ? fx_add(b, "Base", -1, fx_at(0, 0, 0), 0) : -1;
  for (int side = 0; side < 2; side++) { /* A1..A5 at vertices 0..4, A10..A6 at 10..6 */
    int prev = ground;
    rk_vec3 at = rk_vec3_make(0, 0, 0);
    for (int i = 0; i < 5; i++) {
      const int k = side == 0 ? i : 10 - i;
      char name[8];
      g_snprintf(name, sizeof name, "A%d", side == 0 ? k + 1 : k);
      rk_vec3 v = fx_ring_vertex(k), d = rk_vec3_sub(v, at);
      prev = fx_add(b, name, prev, fx_at(d.x, d.y, d.z), 0);
      at = v;
    }
    rk_vec3 d = rk_vec3_sub(fx_ring_vertex(5), at);
    fx_add(b, side == 0 ? "A5_tip" : "A6_tip", prev, fx_at(d.x, d.y, d.z), RK_SKELETON_END_SITE);
  }
  return fx_build(b);
}

static inline rk_skeleton *fx_ring_ten(void) { return fx_ring(false); }

/* The iiwa of rk_rigs.h as a skeleton, the way a robot description places its links: joint i's
 * frame is DH frame i-1 at q = 0 (rest local = A_{i-1}(0)), turning about its local z; the flange
 * (an end site) is frame 7. Joint 1 sits on the world origin. */
static inline rk_skeleton *fx_iiwa(void) {
  g_autoptr(GError) error = NULL;
  rk_skeleton *s = rk_rig_iiwa14_skeleton("iiwa_joint_", &error);
  cr_assert(s, "%s", error ? error->message : "");
  return s;
}

/* The tree of s with the joints in specs as given and every other joint, root included, fixed. */
static inline rk_tree *fx_tree_of_specs(const rk_skeleton *s, const rk_joint_spec *specs,
                                        size_t n) {
  rk_tree_options o = RK_TREE_OPTIONS_INIT;
  o.root_type = RK_JOINT_FIXED;
  o.default_type = RK_JOINT_FIXED;
  o.joints = specs;
  o.joint_count = n;
  return rk_test_tree_or_fail(s, NULL, &o);
}

/* A skeleton being built link by link (J0, J1, ...) with the specs of its moving joints. */
enum { FX_MAX_LINKS = 150 };
typedef struct fx_spec_rig {
  rk_skeleton_builder *b;
  rk_joint_spec specs[FX_MAX_LINKS];
  char names[FX_MAX_LINKS][16];
  size_t nspec;
} fx_spec_rig;

/* A random offset from the parent, mostly along +y, for link j (named here). */
static inline rk_transform fx_next_link(fx_spec_rig *r, guint64 *rng, int j) {
  snprintf(r->names[j], sizeof r->names[j], "J%d", j);
  return fx_at(rk_test_uniform(rng, -0.1, 0.1), rk_test_uniform(rng, 0.02, 0.1),
               rk_test_uniform(rng, -0.1, 0.1));
}

/* A new spec for link j: revolute with no Euler order until the test says otherwise. */
static inline rk_joint_spec *fx_add_spec(fx_spec_rig *r, int j) {
  rk_joint_spec *sp = &r->specs[r->nspec++];
  memset(sp, 0, sizeof *sp);
  sp->name = r->names[j];
  sp->type = RK_JOINT_REVOLUTE;
  sp->order = RK_EULER_N_ORDERS;
  return sp;
}

/* A 140-link tree with every form rk_tree_fk composes (translation only, turns about +-x, +-y,
 * +-z, the Rodrigues matrix of rotated and scaled zero frames, ball joints in all Euler orders,
 * free joints, prismatic joints through their local transform), branches, and more than one batch
 * of trigonometry with a tail; kinds[form] counts the links of each of its 10 forms. *skeleton
 * receives the skeleton unless skeleton is NULL (the caller frees what it gets). */
enum { FX_EVERY_FORM_LINKS = 140 };
static inline rk_tree *fx_every_form_tree(guint64 *rng, int kinds[10], rk_skeleton **skeleton) {
  enum { N = FX_EVERY_FORM_LINKS };
  fx_spec_rig r = {.b = rk_skeleton_builder_new()};
  for (int j = 0; j < N; j++) {
    rk_transform x = fx_next_link(&r, rng, j);
    if (j % 11 == 5)
      x.t = rk_vec3_make(0, 0, 0); /* coincident with the parent, as Euler joints split in three */
    const int form = j % 10;
    /* Rotated zero frames: about a coordinate axis, still a matrix (4), fixed (7), and every
     * other ball and free joint (8, 9). */
    if (form == 4 || form == 7 || ((form == 8 || form == 9) && j % 20 >= 10))
      x.r = rk_quat_normalize(rk_quat_make(rk_test_uniform(rng, -1, 1),
                                           rk_test_uniform(rng, -1, 1), 0.3, 1.0));
    if (form == 5 || ((form == 8 || form == 9) && j % 30 >= 20))
      x.s = rk_vec3_make(1.1, 0.9, 1.05);
    /* Mostly chains; every sixth joint branches off further up. */
    const int parent = j == 0 ? -1 : j % 6 == 0 && j >= 3 ? j - 3 : j - 1;
    fx_add(r.b, r.names[j], parent, x, 0);
    kinds[form]++;
    if (j == 0 || form == 6 || form == 7)
      continue; /* fixed: translation only (6) or rotated (7) */
    rk_joint_spec *sp = fx_add_spec(&r, j);
    static const rk_vec3 axes[] = {{1, 0, 0}, {0, -1, 0}, {0, 0, 2.5}, {-1, 0, 0}, {0, 0, 1},
                                   {0, 1, 0}};
    if (form < 6) {
      sp->axis = axes[form];
    } else if (form == 8) {
      sp->type = RK_JOINT_BALL;
      sp->order = (rk_euler_order)(j % RK_EULER_N_ORDERS); /* proper and Tait-Bryan orders */
    } else if (j % 20 == 19) {
      sp->type = RK_JOINT_FREE;
    } else {
      sp->type = RK_JOINT_PRISMATIC;
      sp->axis = rk_vec3_make(0.2, 1, -0.4);
    }
  }
  rk_skeleton *sk = fx_build(r.b);
  rk_tree *t = fx_tree_of_specs(sk, r.specs, r.nspec);
  if (skeleton)
    *skeleton = sk;
  else
    rk_skeleton_unref(sk); /* the tree keeps its own reference */
  return t;
}

/* Deterministic q inside [-amp, amp] (clamped into the tree's limits). */
static inline void fx_random_q(const rk_tree *t, guint64 *rng, double amp, double *q) {
  for (size_t k = 0; k < rk_tree_dof_count(t); k++)
    q[k] = rk_test_uniform(rng, -amp, amp);
  rk_tree_q_clamp(t, q);
}

#endif
