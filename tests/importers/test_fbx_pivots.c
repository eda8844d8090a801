/* FBX pre-rotations and pivots: rigkit's import of huesitos_prerotation_pivots.fbx against the FBX
 * transform chain computed here by hand, independently of the importer.
 *
 * The test reads the ASCII file with its own few regular expressions (Models and their P: lines,
 * connections, curves), evaluates every Model's local transform as the FBX SDK documents it,
 *   L = T * Roff * Rp * Rpre * R * Rpost^-1 * Rp^-1 * Soff * Sp * S * Sp^-1,
 * R = Rz Ry Rx for the default rotation order eEulerXYZ, pre/post-rotations in the same XYZ order,
 * curves linear between keys, and multiplies the locals from the root Model down with rk_mat4
 * products. The file is in centimetres (UnitScaleFactor 1) and Y-up, so rigkit's world positions
 * in metres are the FBX world positions times 0.01. */
#include "import_test.h"

#define TICKS 46186158000.0

enum { P_T, P_ROFF, P_RP, P_PRE, P_R, P_POST, P_SOFF, P_SP, P_S, P_COUNT };
static const char *const prop_names[P_COUNT] = {
    "Lcl Translation", "RotationOffset", "RotationPivot", "PreRotation", "Lcl Rotation",
    "PostRotation",    "ScalingOffset",  "ScalingPivot",  "Lcl Scaling"};

typedef struct ref_curve {
  char *id;
  GArray *t; /* double ticks */
  GArray *v;
} ref_curve;

typedef struct ref_model {
  char *id, *name, *parent; /* parent Model id, or NULL under the scene root */
  rk_vec3 vals[P_COUNT];
  const ref_curve *curves[P_COUNT][3];
} ref_model;

typedef struct ref_file {
  char *text;
  GPtrArray *models; /* ref_model */
  GPtrArray *curves; /* ref_curve */
} ref_file;

static GArray *numbers(const char *list) {
  GArray *a = g_array_new(FALSE, FALSE, sizeof(double));
  g_auto(GStrv) parts = g_strsplit_set(list, ", \t\r\n", -1);
  for (size_t i = 0; parts[i]; i++)
    if (*parts[i]) {
      double v = g_ascii_strtod(parts[i], NULL);
      g_array_append_val(a, v);
    }
  return a;
}

static ref_model *model_by_id(ref_file *f, const char *id) {
  for (guint i = 0; i < f->models->len; i++) {
    ref_model *m = g_ptr_array_index(f->models, i);
    if (strcmp(m->id, id) == 0)
      return m;
  }
  return NULL;
}

static ref_model *model_by_name(ref_file *f, const char *name) {
  for (guint i = 0; i < f->models->len; i++) {
    ref_model *m = g_ptr_array_index(f->models, i);
    if (strcmp(m->name, name) == 0)
      return m;
  }
  cr_assert_fail("no Model '%s' in the file", name);
  return NULL;
}

static ref_file *ref_load(void) {
  ref_file *f = g_new0(ref_file, 1);
  g_autofree char *path = rk_test_data("huesitos_prerotation_pivots.fbx");
  cr_assert(g_file_get_contents(path, &f->text, NULL, NULL));
  f->models = g_ptr_array_new();
  f->curves = g_ptr_array_new();
  /* The template every Model here relies on keeps FBX's defaults (no offsets, pivots or pre/post
   * rotation, rotation order XYZ): assert that rather than reading it. */
  cr_assert(strstr(f->text, "P: \"RotationOrder\", \"enum\", \"\", \"\", 0\n"));
  cr_assert(strstr(f->text, "P: \"LocalStart\", \"KTime\", \"Time\", \"\", 0\n"));
  g_autoptr(GRegex) model_re =
      g_regex_new("\\tModel: (\\d+), \"Model::([^\"]*)\", \"[^\"]*\" \\{\\n(.*?)\\n\\t\\}",
                  G_REGEX_DOTALL, 0, NULL);
  g_autoptr(GRegex) p_re = g_regex_new(
      "P: \"([^\"]+)\", \"[^\"]*\", \"[^\"]*\", \"[^\"]*\",\\s*([-+0-9.e, ]+)\\n", 0, 0, NULL);
  g_autoptr(GMatchInfo) mi = NULL;
  for (g_regex_match(model_re, f->text, 0, &mi); g_match_info_matches(mi);
       g_match_info_next(mi, NULL)) {
    ref_model *m = g_new0(ref_model, 1);
    m->id = g_match_info_fetch(mi, 1);
    m->name = g_match_info_fetch(mi, 2);
    m->vals[P_S] = rk_vec3_make(1, 1, 1);
    g_autofree char *body = g_match_info_fetch(mi, 3);
    cr_assert(!strstr(body, "\"RotationOrder\""), "Model %s sets a rotation order", m->name);
    g_autoptr(GMatchInfo) pi = NULL;
    for (g_regex_match(p_re, body, 0, &pi); g_match_info_matches(pi); g_match_info_next(pi, NULL)) {
      g_autofree char *pname = g_match_info_fetch(pi, 1);
      g_autofree char *list = g_match_info_fetch(pi, 2);
      for (int p = 0; p < P_COUNT; p++)
        if (strcmp(pname, prop_names[p]) == 0) {
          GArray *v = numbers(list);
          cr_assert_eq(v->len, 3u, "%s of %s", pname, m->name);
          m->vals[p] = rk_vec3_make(g_array_index(v, double, 0), g_array_index(v, double, 1),
                                    g_array_index(v, double, 2));
          g_array_unref(v);
        }
      if (strcmp(pname, "RotationActive") == 0)
        cr_assert(strstr(list, "1"), "Model %s: RotationActive off", m->name);
    }
    g_ptr_array_add(f->models, m);
  }
  cr_assert(f->models->len >= 11);
  g_autoptr(GRegex) oo_re = g_regex_new("C: \"OO\", (\\d+), (\\d+)\\n", 0, 0, NULL);
  g_autoptr(GMatchInfo) oi = NULL;
  for (g_regex_match(oo_re, f->text, 0, &oi); g_match_info_matches(oi);
       g_match_info_next(oi, NULL)) {
    g_autofree char *src = g_match_info_fetch(oi, 1), *dst = g_match_info_fetch(oi, 2);
    ref_model *child = model_by_id(f, src);
    if (child && model_by_id(f, dst))
      child->parent = g_strdup(dst);
  }
  g_autoptr(GRegex) curve_re = g_regex_new(
      "AnimationCurve: (\\d+), \"AnimCurve::\", \"\" \\{.*?KeyTime: \\*\\d+ \\{\\s*a: ([^}]*)\\}"
      ".*?KeyValueFloat: \\*\\d+ \\{\\s*a: ([^}]*)\\}",
      G_REGEX_DOTALL, 0, NULL);
  g_autoptr(GMatchInfo) ci = NULL;
  for (g_regex_match(curve_re, f->text, 0, &ci); g_match_info_matches(ci);
       g_match_info_next(ci, NULL)) {
    ref_curve *c = g_new0(ref_curve, 1);
    c->id = g_match_info_fetch(ci, 1);
    g_autofree char *t = g_match_info_fetch(ci, 2), *v = g_match_info_fetch(ci, 3);
    c->t = numbers(t);
    c->v = numbers(v);
    cr_assert_eq(c->t->len, c->v->len);
    g_ptr_array_add(f->curves, c);
  }
  /* curve -> curve node ("d|X"), curve node -> Model property. */
  g_autoptr(GRegex) op_re = g_regex_new("C: \"OP\", (\\d+), (\\d+), \"([^\"]*)\"", 0, 0, NULL);
  g_autoptr(GMatchInfo) pi = NULL;
  for (g_regex_match(op_re, f->text, 0, &pi); g_match_info_matches(pi);
       g_match_info_next(pi, NULL)) {
    g_autofree char *cn = g_match_info_fetch(pi, 1), *model = g_match_info_fetch(pi, 2);
    g_autofree char *prop = g_match_info_fetch(pi, 3);
    ref_model *m = model_by_id(f, model);
    int p = -1;
    for (int k = 0; k < P_COUNT; k++)
      if (strcmp(prop, prop_names[k]) == 0)
        p = k;
    if (!m || p < 0)
      continue; /* e.g. "Lcl Scale", which is not a property of a Model */
    g_autoptr(GMatchInfo) qi = NULL;
    for (g_regex_match(op_re, f->text, 0, &qi); g_match_info_matches(qi);
         g_match_info_next(qi, NULL)) {
      g_autofree char *curve = g_match_info_fetch(qi, 1), *dst = g_match_info_fetch(qi, 2);
      g_autofree char *axis = g_match_info_fetch(qi, 3);
      if (strcmp(dst, cn) != 0 || strlen(axis) != 3)
        continue;
      for (guint i = 0; i < f->curves->len; i++) {
        const ref_curve *c = g_ptr_array_index(f->curves, i);
        if (strcmp(c->id, curve) == 0)
          m->curves[p][axis[2] - 'X'] = c;
      }
    }
  }
  return f;
}

static void ref_free(ref_file *f) {
  for (guint i = 0; i < f->models->len; i++) {
    ref_model *m = g_ptr_array_index(f->models, i);
    g_free(m->id), g_free(m->name), g_free(m->parent), g_free(m);
  }
  for (guint i = 0; i < f->curves->len; i++) {
    ref_curve *c = g_ptr_array_index(f->curves, i);
    g_free(c->id), g_array_unref(c->t), g_array_unref(c->v), g_free(c);
  }
  g_ptr_array_unref(f->models);
  g_ptr_array_unref(f->curves);
  g_free(f->text);
  g_free(f);
}

static double curve_at(const ref_curve *c, double tick) {
  const double *t = (const double *)(void *)c->t->data, *v = (const double *)(void *)c->v->data;
  const guint n = c->t->len;
  if (tick <= t[0])
    return v[0];
  if (tick >= t[n - 1])
    return v[n - 1];
  guint k = 0;
  while (t[k + 1] < tick)
    k++;
  return v[k] + (v[k + 1] - v[k]) * (tick - t[k]) / (t[k + 1] - t[k]);
}

/* R = Rz Ry Rx (eEulerXYZ: X first), angles in degrees. */
static rk_mat4 euler_xyz(rk_vec3 deg) {
  rk_mat4 x = rk_mat4_rot_x(deg.x * RK_DEG), y = rk_mat4_rot_y(deg.y * RK_DEG),
          z = rk_mat4_rot_z(deg.z * RK_DEG);
  rk_mat4 zy = rk_mat4_mul(&z, &y);
  return rk_mat4_mul(&zy, &x);
}

static rk_mat4 mul(rk_mat4 a, rk_mat4 b) { return rk_mat4_mul(&a, &b); }

/* The Model's local transform at tick (tick < 0: its static properties only). */
static rk_mat4 local_at(const ref_model *m, double tick, bool with_chain) {
  rk_vec3 v[P_COUNT];
  memcpy(v, m->vals, sizeof v);
  for (int p = 0; p < P_COUNT && tick >= 0; p++) {
    if (m->curves[p][0])
      v[p].x = curve_at(m->curves[p][0], tick);
    if (m->curves[p][1])
      v[p].y = curve_at(m->curves[p][1], tick);
    if (m->curves[p][2])
      v[p].z = curve_at(m->curves[p][2], tick);
  }
  if (!with_chain) /* what the Model would be without pre/post-rotations, offsets and pivots */
    for (int p = 0; p < P_COUNT; p++)
      if (p != P_T && p != P_R && p != P_S)
        v[p] = rk_vec3_make(0, 0, 0);
  rk_mat4 s = rk_mat4_identity();
  s.m[0] = v[P_S].x, s.m[5] = v[P_S].y, s.m[10] = v[P_S].z;
  const rk_mat4 post = euler_xyz(v[P_POST]);
  rk_mat4 post_inv;
  cr_assert(rk_mat4_inverse_affine(&post, &post_inv));
  rk_mat4 l = rk_mat4_translation(v[P_T]);
  l = mul(l, rk_mat4_translation(v[P_ROFF]));
  l = mul(l, rk_mat4_translation(v[P_RP]));
  l = mul(l, euler_xyz(v[P_PRE]));
  l = mul(l, euler_xyz(v[P_R]));
  l = mul(l, post_inv);
  l = mul(l, rk_mat4_translation(rk_vec3_scale(v[P_RP], -1)));
  l = mul(l, rk_mat4_translation(v[P_SOFF]));
  l = mul(l, rk_mat4_translation(v[P_SP]));
  l = mul(l, s);
  l = mul(l, rk_mat4_translation(rk_vec3_scale(v[P_SP], -1)));
  return l;
}

/* World position in metres of a Model at tick (< 0: rest). */
static rk_vec3 world_at(ref_file *f, const ref_model *m, double tick, bool with_chain) {
  rk_mat4 w = local_at(m, tick, with_chain);
  for (const ref_model *p = m->parent ? model_by_id(f, m->parent) : NULL; p;
       p = p->parent ? model_by_id(f, p->parent) : NULL)
    w = mul(local_at(p, tick, with_chain), w);
  return rk_vec3_scale(rk_mat4_get_translation(&w), 0.01);
}

/* True when the Model's rotation at tick is the same whether its Euler curves or the rotations at
 * their keys are interpolated (what Assimp stores and rigkit slerps): every rotation curve has a
 * key at tick, or at most one of them changes around it (a turn about one axis). */
static bool rotation_exact_at(const ref_model *m, double tick) {
  int keyed = 0, varying = 0, curves = 0;
  for (int k = 0; k < 3; k++) {
    const ref_curve *c = m->curves[P_R][k];
    if (!c)
      continue;
    curves++;
    const double *t = (const double *)(void *)c->t->data, *v = (const double *)(void *)c->v->data;
    bool key = false, varies = false;
    for (guint i = 0; i < c->t->len; i++) {
      key |= t[i] == tick;
      if (i > 0 && t[i - 1] < tick && tick < t[i])
        varies = v[i - 1] != v[i];
    }
    keyed += key;
    varying += varies;
  }
  return keyed == curves || varying <= 1;
}

static bool chain_exact_at(ref_file *f, const ref_model *m, double tick) {
  for (; m; m = m->parent ? model_by_id(f, m->parent) : NULL)
    if (!rotation_exact_at(m, tick))
      return false;
  return true;
}

/* Compares rigkit's world positions with the chain's, for every joint at rest (clip NULL), and at
 * a key time for the joints whose rotations (and their ancestors') are exact there; the joints
 * named in `must` must be among them. Returns the number of joints compared. */
static size_t assert_matches(ref_file *f, const rk_asset *a, const rk_clip *clip, double tick,
                             const char *const *must, double *worst) {
  const rk_skeleton *s = rk_asset_skeleton(a);
  g_autofree rk_vec3 *got = world_positions(a, clip, clip ? tick / TICKS : 0);
  /* "Relative" to the size of the coordinates: the farthest joint from the origin (the armature
   * stands about 3 m from it; Assimp hands over single-precision matrices, about 1e-7 of that). */
  double scale = 0;
  for (size_t j = 0; j < rk_skeleton_joint_count(s); j++)
    scale = fmax(scale, rk_vec3_norm(world_at(f, model_by_name(f, rk_skeleton_joint_name(s, j)),
                                              clip ? tick : -1, true)));
  size_t compared = 0;
  for (size_t j = 0; j < rk_skeleton_joint_count(s); j++) {
    const ref_model *m = model_by_name(f, rk_skeleton_joint_name(s, j));
    const bool required = must && g_strv_contains(must, m->name);
    if (clip && !chain_exact_at(f, m, tick)) {
      cr_assert(!required, "%s: interpolation makes the comparison inexact at %g s", m->name,
                tick / TICKS);
      continue;
    }
    compared++;
    const rk_vec3 want = world_at(f, m, clip ? tick : -1, true);
    const double err = rk_vec3_norm(rk_vec3_sub(got[j], want));
    const double tol = 1e-6 * scale;
    *worst = fmax(*worst, err / scale);
    cr_assert(err <= tol,
              "%s at %s %.4f s: rigkit (%.9f, %.9f, %.9f), FBX chain (%.9f, %.9f, "
              "%.9f): off by %.3g m (tolerance %.3g m)",
              m->name, clip ? "time" : "rest", clip ? tick / TICKS : 0, got[j].x, got[j].y,
              got[j].z, want.x, want.y, want.z, err, tol);
  }
  return compared;
}

Test(fbx_pivots, rest_pose_follows_the_fbx_transform_chain) {
  ref_file *f = ref_load();
  g_autoptr(rk_asset) a = import_ok("huesitos_prerotation_pivots.fbx", NULL);
  double worst = 0;
  cr_assert_eq(assert_matches(f, a, NULL, -1, NULL, &worst), 11u);
  /* Not a vacuous check: the pivots and pre-rotations move Bone.004 by centimetres. */
  const ref_model *b4 = model_by_name(f, "Bone.004");
  cr_assert(rk_vec3_norm(rk_vec3_sub(world_at(f, b4, -1, true), world_at(f, b4, -1, false))) >
            0.05);
  /* Bone.001's pre-rotation turns its children, not the joint: it stays 0.70501 m above Bone. */
  const rk_skeleton *s = rk_asset_skeleton(a);
  g_autofree rk_vec3 *p = world_positions(a, NULL, 0);
  rk_assert_near(rk_vec3_norm(rk_vec3_sub(p[joint(a, "Bone.001")], p[joint(a, "Bone")])), 0.70501,
                 1e-6);
  cr_assert_eq(rk_skeleton_joint_count(s), 11u);
  ref_free(f);
}

Test(fbx_pivots, every_key_follows_the_fbx_transform_chain) {
  ref_file *f = ref_load();
  g_autoptr(rk_asset) a = import_ok("huesitos_prerotation_pivots.fbx", NULL);
  const rk_clip *clip = clip_named(a, "Armature|Action");
  /* The key times of Bone.004's rotation (and of Bone.001's: both have 40 keys at 25 fps). The
   * parents of both turn about one axis between their own keys (Bone) or hardly turn (Bone.002),
   * so rigkit's slerp between keys and FBX's linear Euler curves agree there. */
  const ref_model *b4 = model_by_name(f, "Bone.004"), *b1 = model_by_name(f, "Bone.001");
  const ref_curve *keys = b4->curves[P_R][0];
  cr_assert_not_null(keys);
  cr_assert_eq(keys->t->len, 40u);
  cr_assert_not_null(b1->curves[P_R][2]);
  static const char *const must[] = {"Bone.001", "Bone.004", NULL};
  double worst = 0, moved = 0;
  size_t compared = 0;
  for (guint k = 0; k < keys->t->len; k++) {
    const double tick = g_array_index(keys->t, double, k);
    compared += assert_matches(f, a, clip, tick, must, &worst);
    moved =
        fmax(moved,
             rk_vec3_norm(rk_vec3_sub(world_at(f, b4, tick, true), world_at(f, b4, tick, false))));
  }
  cr_assert(moved > 0.05, "the chain hardly matters (%g m)", moved);
  cr_log_info("%zu joint positions at %u keys, largest relative error %.3g", compared, keys->t->len,
              worst);
  ref_free(f);
}

Test(fbx_pivots, notes_say_where_the_chain_came_from) {
  g_autoptr(rk_asset) a = import_ok("huesitos_prerotation_pivots.fbx", NULL);
  cr_assert(has_note(a, "joint 'Bone.001': FBX pre/post-rotation, pivots and offsets evaluated "
                        "from the file"));
  cr_assert(has_note(a, "joint 'Bone.004': FBX pre/post-rotation, pivots and offsets evaluated "
                        "from the file"));
  cr_assert(!has_note(a, "composed from Assimp's helper nodes"));
}
