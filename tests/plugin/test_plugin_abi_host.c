/* A source clip given as the host's own data (asset_from_host, ABI 2): the MakeHuman walk handed
 * over as a host would hand an armature's animation (its joints in the host's space and order,
 * a key per frame, local or relative to the rest) retargets onto RiggedFigure like the BVH file
 * itself; every argument and every bad value is refused with a status and a message naming the
 * joint and frame. */
#include "plugin_fixture.h"

#include <rigkit/importers.h>

TestSuite(plugin_host, .init = plugin_load);

static const rk_plugin_space blender_cm = {RK_PLUGIN_UP_Z, 0.01f};

/* The walk's skeleton and every frame's local pose, as a host holds them: joints in host order
 * (reversed: children first), rest and LOCAL keys in Z-up centimetres, or REST_RELATIVE keys. */
typedef struct host_walk {
  host_skeleton h;
  rk_plugin_host_clip clip;
  float *t, *r, *s;
  uint32_t frames;
} host_walk;

static void walk_as_host(host_walk *out, rk_plugin_asset *walk, int32_t form, bool reversed) {
  host_walk w;
  w.h = host_skeleton_from(walk, blender_cm, reversed);
  /* The frames themselves, read with rigkit (a host has them in its own scene). */
  g_autofree char *path = rk_test_data("makehuman_walk1.bvh");
  g_autoptr(GError) e = NULL;
  g_autoptr(rk_asset) a = rk_import_file(path, NULL, &e);
  cr_assert(a, "%s", e ? e->message : "");
  const rk_skeleton *sk = rk_asset_skeleton(a);
  const rk_clip *c = rk_asset_clip(a, 0);
  const uint32_t n = w.h.k.joint_count, frames = (uint32_t)rk_clip_frame_count(c);
  w.frames = frames;
  w.t = g_new(float, (size_t)frames * n * 3);
  w.r = g_new(float, (size_t)frames * n * 4);
  w.s = g_new(float, (size_t)frames * n * 3);
  g_autofree rk_transform *pose = g_new(rk_transform, n);
  for (uint32_t f = 0; f < frames; f++) {
    cr_assert(rk_clip_sample_frame(c, rk_skeleton_rest_locals(sk), rk_clip_fps(c), f, pose, n));
    for (uint32_t i = 0; i < n; i++) {
      const uint32_t j = w.h.order[i];
      const bool root = rk_skeleton_parent(sk, j) < 0;
      rk_transform x = pose[j];
      if (form == RK_PLUGIN_KEYS_REST_RELATIVE) { /* rest^-1 * local */
        const rk_transform *rest = rk_skeleton_rest(sk, j);
        const rk_quat ri = rk_quat_conj(rest->r);
        x.t = rk_vec3_scale(rk_quat_rotate(ri, rk_vec3_sub(x.t, rest->t)), 1.0 / rest->s.x);
        x.r = rk_quat_mul(ri, x.r);
        x.s = rk_vec3_make(x.s.x / rest->s.x, x.s.y / rest->s.y, x.s.z / rest->s.z);
      } else if (root) { /* Y-up to Z-up: (x, y, z) -> (x, -z, y), a turn of +90 deg about X */
        const rk_quat y_to_z = {0.70710678118654752440, 0, 0, 0.70710678118654752440};
        x.t = rk_quat_rotate(y_to_z, x.t);
        x.r = rk_quat_mul(y_to_z, x.r);
      }
      const size_t o = (size_t)f * n + i;
      const double tv[3] = {x.t.x * 100, x.t.y * 100, x.t.z * 100};
      for (int k = 0; k < 3; k++)
        w.t[o * 3 + k] = (float)tv[k];
      w.r[o * 4] = (float)x.r.x, w.r[o * 4 + 1] = (float)x.r.y;
      w.r[o * 4 + 2] = (float)x.r.z, w.r[o * 4 + 3] = (float)x.r.w;
      w.s[o * 3] = (float)x.s.x, w.s[o * 3 + 1] = (float)x.s.y, w.s[o * 3 + 2] = (float)x.s.z;
    }
  }
  *out = w;
  out->clip = (rk_plugin_host_clip){.skeleton = &out->h.k,
                                 .space = blender_cm,
                                 .keys = form,
                                 .frame_count = frames,
                                 .fps = rk_clip_fps(c),
                                 .translations = w.t,
                                 .rotations = w.r,
                                 .scales = w.s,
                                 .name = "walk",
                                 .label = "Armature 'walk'"};
}

static void host_walk_clear(host_walk *w) {
  host_skeleton_clear(&w->h);
  g_free(w->t), g_free(w->r), g_free(w->s);
}

static rk_plugin_asset *from_host(const rk_plugin_host_clip *c) {
  char err[512] = "";
  rk_plugin_asset *a = NULL;
  const int st = rk->asset_from_host(c, &a, err, sizeof err);
  cr_assert_eq(st, RK_PLUGIN_OK, "%s: %s", rk->status_name(st), err);
  return a;
}

/* Retargets source onto the figure (root motion on, Blender's space) and returns every key. */
static plugin_keys onto_figure(rk_plugin_asset *source, rk_plugin_asset *fig, rk_plugin_result *r) {
  rk_plugin_session_desc d = {.source = source,
                              .target_asset = fig,
                              .space = blender_cm,
                              .settings = RK_PLUGIN_SETTINGS_INIT};
  d.settings.root_motion = 1;
  rk_plugin_session *s = plugin_run(&d);
  *r = plugin_result(s);
  plugin_keys k = plugin_read_keys(s, RK_PLUGIN_KEYS_LOCAL);
  rk->session_close(s);
  return k;
}

static void assert_same_motion(const plugin_keys *a, const plugin_keys *b, const char *what) {
  cr_assert_eq(a->frames, b->frames, "%s", what);
  cr_assert_eq(a->joints, b->joints, "%s", what);
  double cm = 0, rad = 0;
  for (size_t i = 0; i < (size_t)a->frames * a->joints; i++) {
    for (int c = 0; c < 3; c++)
      cm = fmax(cm, fabs(a->t[i * 3 + c] - b->t[i * 3 + c]));
    rad = fmax(rad, quat_angle_f(a->r + i * 4, b->r + i * 4));
  }
  printf("%s: keys within %.2g cm and %.2g rad of the file's retarget\n", what, cm, rad);
  cr_assert(cm < 1e-3 && rad < 1e-4, "%s: %g cm, %g rad", what, cm, rad);
}

Test(plugin_host, the_host_s_keys_retarget_like_the_file_they_came_from) {
  rk_plugin_asset *walk = plugin_open("makehuman_walk1.bvh");
  rk_plugin_asset *fig = plugin_open("RiggedFigure.glb");
  rk_plugin_result rf, rh;
  plugin_keys from_file = onto_figure(walk, fig, &rf);
  const struct {
    int32_t form;
    bool reversed;
    const char *what;
  } cases[] = {{RK_PLUGIN_KEYS_LOCAL, false, "local keys"},
               {RK_PLUGIN_KEYS_LOCAL, true, "local keys, children first"},
               {RK_PLUGIN_KEYS_REST_RELATIVE, true, "rest-relative keys, children first"}};
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    host_walk w;
  walk_as_host(&w, walk, cases[i].form, cases[i].reversed);
    rk_plugin_asset *src = from_host(&w.clip);
    plugin_keys from_keys = onto_figure(src, fig, &rh);
    cr_assert_eq(rh.mapped_bones, rf.mapped_bones);
    cr_assert_eq(rh.contact_count, rf.contact_count);
    rk_assert_near(rh.fps, rf.fps, 1e-9);
    assert_same_motion(&from_file, &from_keys, cases[i].what);
    plugin_keys_clear(&from_keys);
    rk->asset_close(src);
    host_walk_clear(&w);
  }
  plugin_keys_clear(&from_file);
  rk->asset_close(walk);
  rk->asset_close(fig);
}

Test(plugin_host, the_asset_describes_the_host_clip) {
  rk_plugin_asset *walk = plugin_open("makehuman_walk1.bvh");
  host_walk w;
  walk_as_host(&w, walk, RK_PLUGIN_KEYS_LOCAL, false);
  rk_plugin_asset *src = from_host(&w.clip);
  char err[256] = "";
  rk_plugin_asset_info ai;
  cr_assert_eq(rk->asset_info(src, &ai, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  cr_assert_eq(ai.joint_count, 91);
  cr_assert_eq(ai.clip_count, 1);
  cr_assert_eq(ai.mesh_count, 0);
  cr_assert_eq(ai.isolated, 0);
  cr_assert_str_eq(ai.format, "host");
  cr_assert_str_eq(ai.path, "Armature 'walk'");
  cr_assert_str_eq(ai.unit, "0.01 m");
  rk_assert_near(ai.metres_per_unit, 0.01, 1e-9);
  cr_assert_str_eq(ai.up_axis, "Z");
  rk_plugin_clip_info ci;
  cr_assert_eq(rk->asset_clip(src, 0, &ci, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  cr_assert_str_eq(ci.name, "walk");
  cr_assert_eq(ci.frames, 14);
  rk_assert_near(ci.fps, 24, 1e-6);
  rk_assert_near(ci.duration_s, 13 / 24.0, 1e-6);
  /* The joints come back in rigkit's order, rest poses as given (asked for in the host's space). */
  const char *names[91];
  float rest[91 * RK_PLUGIN_TRS_FLOATS];
  cr_assert_eq(rk->asset_joints(src, &blender_cm, 91, names, NULL, rest, NULL, err, sizeof err),
               RK_PLUGIN_OK, "%s", err);
  for (uint32_t i = 0; i < 91; i++) {
    uint32_t hi = 0;
    while (strcmp(w.h.names[hi], names[i]))
      hi++;
    for (int c = 0; c < RK_PLUGIN_TRS_FLOATS; c++)
      rk_assert_near(rest[i * RK_PLUGIN_TRS_FLOATS + c], w.h.rest[hi * RK_PLUGIN_TRS_FLOATS + c],
                     1e-4);
  }
  /* The asset outlives its session's needs: close it right after session_new. */
  rk_plugin_asset *fig = plugin_open("RiggedFigure.glb");
  rk_plugin_session_desc d = {.source = src, .target_asset = fig, .settings = RK_PLUGIN_SETTINGS_INIT};
  rk_plugin_session *s = NULL;
  cr_assert_eq(rk->session_new(&d, &s, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  rk->asset_close(src);
  cr_assert_eq(rk->session_run(s, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  rk->session_close(s);
  rk->asset_close(fig);
  rk->asset_close(walk);
  host_walk_clear(&w);
}

Test(plugin_host, absent_channels_and_still_joints_hold_the_rest) {
  rk_plugin_asset *walk = plugin_open("makehuman_walk1.bvh");
  rk_plugin_asset *fig = plugin_open("RiggedFigure.glb");
  host_walk w;
  walk_as_host(&w, walk, RK_PLUGIN_KEYS_LOCAL, false);
  /* Rotations only: the root stands at its rest translation (an in-place walk without root
   * motion gives the same hips path as a walk whose root never moves). */
  w.clip.translations = NULL;
  w.clip.scales = NULL;
  rk_plugin_asset *rot_only = from_host(&w.clip);
  /* One frame: a pose, not a clip. */
  w.clip.frame_count = 1;
  rk_plugin_asset *one = from_host(&w.clip);
  char err[256] = "";
  rk_plugin_clip_info ci;
  cr_assert_eq(rk->asset_clip(one, 0, &ci, err, sizeof err), RK_PLUGIN_OK);
  cr_assert_eq(ci.frames, 1);
  cr_assert_eq(ci.duration_s, 0);
  rk_plugin_result r;
  plugin_keys k = onto_figure(rot_only, fig, &r);
  cr_assert_eq(k.frames, 14);
  plugin_keys_clear(&k);
  k = onto_figure(one, fig, &r);
  cr_assert_eq(k.frames, 1);
  plugin_keys_clear(&k);
  rk->asset_close(rot_only);
  rk->asset_close(one);
  rk->asset_close(walk);
  rk->asset_close(fig);
  host_walk_clear(&w);
}

static int try_host(const rk_plugin_host_clip *c, char *err, size_t size) {
  rk_plugin_asset *a = (rk_plugin_asset *)0x1;
  const int st = rk->asset_from_host(c, &a, err, size);
  if (st == RK_PLUGIN_OK)
    rk->asset_close(a);
  else
    cr_assert_null(a, "*out is cleared on failure");
  return st;
}

Test(plugin_host, every_bad_argument_is_refused_naming_the_field) {
  rk_plugin_asset *walk = plugin_open("makehuman_walk1.bvh");
  host_walk w;
  walk_as_host(&w, walk, RK_PLUGIN_KEYS_LOCAL, true);
  char err[512] = "";
  cr_assert_eq(try_host(&w.clip, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  rk_plugin_asset *a = NULL;
  cr_assert_eq(rk->asset_from_host(&w.clip, NULL, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert(strstr(err, "out is NULL"), "%s", err);
  cr_assert_eq(rk->asset_from_host(NULL, &a, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert(strstr(err, "clip is NULL"), "%s", err);
  cr_assert_eq(rk->asset_from_host(NULL, &a, NULL, 0), RK_PLUGIN_ERR_ARGUMENT, "no buffer");
  rk_plugin_host_clip c = w.clip;
  c.skeleton = NULL;
  cr_assert_eq(try_host(&c, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert(strstr(err, "clip.skeleton"), "%s", err);
  c = w.clip;
  c.keys = 2;
  cr_assert_eq(try_host(&c, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert(strstr(err, "clip.keys = 2"), "%s", err);
  const double bad_fps[] = {0, -24, NAN, INFINITY, 1e5};
  for (size_t i = 0; i < G_N_ELEMENTS(bad_fps); i++) {
    c = w.clip;
    c.fps = bad_fps[i];
    cr_assert_eq(try_host(&c, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT, "fps %g", bad_fps[i]);
    cr_assert(strstr(err, "clip.fps"), "%s", err);
  }
  const uint32_t bad_frames[] = {0, (1u << 24) + 1, UINT32_MAX};
  for (size_t i = 0; i < G_N_ELEMENTS(bad_frames); i++) {
    c = w.clip;
    c.frame_count = bad_frames[i];
    cr_assert_eq(try_host(&c, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
    cr_assert(strstr(err, "clip.frame_count"), "%s", err);
  }
  c = w.clip;
  c.space = (rk_plugin_space){3, 1};
  cr_assert_eq(try_host(&c, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert(strstr(err, "up_axis"), "%s", err);
  c.space = (rk_plugin_space){RK_PLUGIN_UP_Z, -1};
  cr_assert_eq(try_host(&c, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  c = w.clip;
  c.name = "walk\xff";
  cr_assert_eq(try_host(&c, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  cr_assert(strstr(err, "clip.name") && strstr(err, "UTF-8"), "%s", err);
  c = w.clip;
  c.label = "\xc3";
  cr_assert_eq(try_host(&c, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  cr_assert(strstr(err, "clip.label"), "%s", err);
  /* NULL name and label have defaults. */
  c = w.clip;
  c.name = c.label = NULL;
  cr_assert_eq(try_host(&c, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  rk->asset_close(walk);
  host_walk_clear(&w);
}

Test(plugin_host, a_bad_skeleton_or_key_is_refused_naming_the_joint_and_frame) {
  rk_plugin_asset *walk = plugin_open("makehuman_walk1.bvh");
  host_walk w;
  walk_as_host(&w, walk, RK_PLUGIN_KEYS_LOCAL, false);
  char err[512] = "";
  const uint32_t n = w.h.k.joint_count;
  /* The skeleton goes through the target skeleton's checks, its messages naming the label. */
  const char *saved = w.h.names[3];
  w.h.names[3] = w.h.names[4];
  cr_assert_eq(try_host(&w.clip, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  cr_assert(strstr(err, "Armature 'walk' skeleton") && strstr(err, "duplicate"), "%s", err);
  w.h.names[3] = saved;
  w.h.k.joint_count = 0;
  cr_assert_eq(try_host(&w.clip, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  w.h.k.joint_count = 70000;
  cr_assert_eq(try_host(&w.clip, err, sizeof err), RK_PLUGIN_ERR_LIMIT);
  w.h.k.joint_count = n;
  const int32_t parent = w.h.parents[5];
  w.h.parents[5] = (int32_t)n;
  cr_assert_eq(try_host(&w.clip, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  cr_assert(strstr(err, "out of range"), "%s", err);
  w.h.parents[5] = parent;
  cr_assert_eq(try_host(&w.clip, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  /* Keys: frame 6 of joint 2, one value at a time. */
  const size_t o = 6 * (size_t)n + 2;
  const float t0 = w.t[o * 3 + 1];
  w.t[o * 3 + 1] = NAN;
  cr_assert_eq(try_host(&w.clip, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  g_autofree char *where = g_strdup_printf("joint '%s' frame 6", w.h.names[2]);
  cr_assert(strstr(err, where) && strstr(err, "not finite"), "%s", err);
  w.t[o * 3 + 1] = t0;
  float r0[4];
  memcpy(r0, w.r + o * 4, sizeof r0);
  memset(w.r + o * 4, 0, sizeof r0);
  cr_assert_eq(try_host(&w.clip, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  cr_assert(strstr(err, where) && strstr(err, "zero rotation"), "%s", err);
  w.r[o * 4 + 3] = INFINITY;
  cr_assert_eq(try_host(&w.clip, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  cr_assert(strstr(err, "not finite"), "%s", err);
  memcpy(w.r + o * 4, r0, sizeof r0);
  w.s[o * 3 + 2] = 0;
  cr_assert_eq(try_host(&w.clip, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  cr_assert(strstr(err, where) && strstr(err, "zero scale"), "%s", err);
  w.s[o * 3 + 2] = 1;
  cr_assert_eq(try_host(&w.clip, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  /* The same checks on rest-relative keys. */
  w.clip.keys = RK_PLUGIN_KEYS_REST_RELATIVE;
  w.r[o * 4 + 0] = NAN;
  cr_assert_eq(try_host(&w.clip, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  cr_assert(strstr(err, where), "%s", err);
  rk->asset_close(walk);
  host_walk_clear(&w);
}

Test(plugin_host, a_host_clip_that_is_no_humanoid_is_refused_by_the_session) {
  const char *names[] = {"a", "b", "c"};
  const int32_t parents[] = {-1, 0, 1};
  const float rest[] = {0, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0.5f, 0, 0, 0,
                        0, 1, 1, 1, 1, 0, 0.5f, 0, 0, 0, 0, 1, 1, 1, 1};
  const rk_plugin_skeleton k = {.joint_count = 3, .names = names, .parents = parents, .rest = rest};
  const float rot[3 * 4 * 2] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1,
                                0, 0, 0.1f, 0.995f, 0, 0, 0, 1, 0, 0, 0, 1};
  const rk_plugin_host_clip c = {.skeleton = &k,
                                 .space = {RK_PLUGIN_UP_Y, 1},
                                 .keys = RK_PLUGIN_KEYS_REST_RELATIVE,
                                 .frame_count = 2,
                                 .fps = 30,
                                 .rotations = rot,
                                 .label = "chain"};
  rk_plugin_asset *src = from_host(&c);
  rk_plugin_asset *fig = plugin_open("RiggedFigure.glb");
  rk_plugin_session_desc d = {.source = src, .target_asset = fig, .settings = RK_PLUGIN_SETTINGS_INIT};
  rk_plugin_session *s = NULL;
  char err[512] = "";
  cr_assert_eq(rk->session_new(&d, &s, err, sizeof err), RK_PLUGIN_ERR_MAPPING);
  cr_assert(strstr(err, "source 'chain'"), "%s", err);
  rk->asset_close(src);
  rk->asset_close(fig);
}
