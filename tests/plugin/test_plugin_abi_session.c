/* Retarget sessions through the plugin ABI (librigkit_plugin.so loaded with dlopen): the MakeHuman
 * walk onto RiggedFigure given as an asset or as a host skeleton in another space and joint order,
 * the two key forms, reduced tracks, contacts, profiles (text and file, the [settings], [source]
 * and [target] groups), exports read back, and sessions on several threads. */
#include "glb_json.h"
#include "plugin_fixture.h"

#include <rigkit/importers.h>

#include <glib/gstdio.h>
#include <pthread.h>

TestSuite(plugin_session, .init = plugin_load);

static const rk_plugin_space canonical = {RK_PLUGIN_UP_Y, 1.0f};
static const rk_plugin_space blender_cm = {RK_PLUGIN_UP_Z, 0.01f};

/* The walk onto the figure with root motion (the walk is in place), target as an asset. */
static rk_plugin_session_desc walk_onto(rk_plugin_asset *clip, rk_plugin_asset *fig) {
  rk_plugin_session_desc d = {
      .source = clip, .target_asset = fig, .space = canonical, .settings = RK_PLUGIN_SETTINGS_INIT};
  d.settings.root_motion = 1;
  return d;
}

/* (x, y, z) in Z-up is (x, -z, y)... inverse: a Y-up vector seen in Z-up coordinates. */
static rk_vec3 y_to_z(rk_vec3 v) { return rk_vec3_make(v.x, -v.z, v.y); }

Test(plugin_session, a_host_skeleton_in_its_own_space_and_order_moves_like_the_asset) {
  rk_plugin_asset *clip = plugin_open("makehuman_walk1.bvh");
  rk_plugin_asset *fig = plugin_open("RiggedFigure.glb");
  rk_plugin_session_desc da = walk_onto(clip, fig);
  /* A host skeleton has no meshes: the asset's soles from its bones too, to compare alike. */
  da.profile_text = "[settings]\nroot_motion=true\nsoles=bones\n";
  rk_plugin_session *sa = plugin_run(&da);
  /* The same figure as a Blender-like host hands it over: Z-up centimetres, children first. */
  host_skeleton h = host_skeleton_from(fig, blender_cm, true);
  rk_plugin_session_desc db = da;
  db.target_asset = NULL;
  db.target_skeleton = &h.k;
  db.space = blender_cm;
  rk_plugin_session *sb = plugin_run(&db);
  rk_plugin_result ra = plugin_result(sa), rb = plugin_result(sb);
  cr_assert_eq(ra.frames, 14);
  cr_assert_eq(rb.frames, ra.frames);
  cr_assert_eq(rb.joint_count, 19);
  cr_assert_eq(rb.mapped_bones, ra.mapped_bones);
  cr_assert_eq(rb.contact_count, ra.contact_count);
  rk_assert_near(rb.foot_skate_max_mm, ra.foot_skate_max_mm, 0.05);

  /* The session lists the host's joints in the host's order and space. */
  const char *names[19];
  int32_t parents[19];
  float rest[19 * RK_PLUGIN_TRS_FLOATS];
  char err[256] = "";
  cr_assert_eq(rk->session_joints(sb, 19, names, parents, rest, NULL, err, sizeof err),
               RK_PLUGIN_OK, "%s", err);
  for (uint32_t i = 0; i < 19; i++) {
    cr_assert_str_eq(names[i], h.names[i]);
    cr_assert_eq(parents[i], h.parents[i]);
    for (int c = 0; c < RK_PLUGIN_TRS_FLOATS; c++)
      rk_assert_near(rest[i * RK_PLUGIN_TRS_FLOATS + c], h.rest[i * RK_PLUGIN_TRS_FLOATS + c],
                     1e-4);
  }

  plugin_keys ka = plugin_read_keys(sa, RK_PLUGIN_KEYS_LOCAL);
  plugin_keys kb = plugin_read_keys(sb, RK_PLUGIN_KEYS_LOCAL);
  plugin_keys ra_rel = plugin_read_keys(sa, RK_PLUGIN_KEYS_REST_RELATIVE);
  plugin_keys rb_rel = plugin_read_keys(sb, RK_PLUGIN_KEYS_REST_RELATIVE);
  double worst_angle = 0, worst_cm = 0;
  for (uint32_t f = 0; f < ra.frames; f++)
    for (uint32_t hb = 0; hb < 19; hb++) {
      const uint32_t ja = h.order[hb]; /* the asset's joint for host joint hb */
      const size_t a = (size_t)f * 19 + ja, b = (size_t)f * 19 + hb;
      rk_vec3 ta = rk_vec3_make(ka.t[a * 3], ka.t[a * 3 + 1], ka.t[a * 3 + 2]);
      rk_vec3 tb = rk_vec3_make(kb.t[b * 3], kb.t[b * 3 + 1], kb.t[b * 3 + 2]);
      const bool root = h.parents[hb] < 0;
      /* Local form: roots turn into Z-up, every translation is in centimetres. */
      rk_vec3 expect = rk_vec3_scale(root ? y_to_z(ta) : ta, 100.0);
      worst_cm = fmax(worst_cm, rk_vec3_norm(rk_vec3_sub(tb, expect)));
      if (!root)
        worst_angle = fmax(worst_angle, quat_angle_f(ka.r + a * 4, kb.r + b * 4));
      /* Rest-relative form: the same numbers in any space but for the unit. */
      worst_angle = fmax(worst_angle, quat_angle_f(ra_rel.r + a * 4, rb_rel.r + b * 4));
      rk_vec3 da_ = rk_vec3_make(ra_rel.t[a * 3], ra_rel.t[a * 3 + 1], ra_rel.t[a * 3 + 2]);
      rk_vec3 db_ = rk_vec3_make(rb_rel.t[b * 3], rb_rel.t[b * 3 + 1], rb_rel.t[b * 3 + 2]);
      worst_cm = fmax(worst_cm, rk_vec3_norm(rk_vec3_sub(db_, rk_vec3_scale(da_, 100.0))));
    }
  cr_assert(worst_angle < 2e-4, "rotations differ by %g rad", worst_angle);
  cr_assert(worst_cm < 0.02, "translations differ by %g cm", worst_cm);
  /* The root walks forward: -Y in Z-up (Blender's front), +Z in Y-up; its height stays. */
  uint32_t root = 0;
  while (h.parents[root] != -1)
    root++;
  const size_t r0 = root, r1 = (size_t)(ra.frames - 1) * 19 + root;
  cr_assert(kb.t[r1 * 3 + 1] - kb.t[r0 * 3 + 1] < -50, "walked %g cm along -Y",
            kb.t[r1 * 3 + 1] - kb.t[r0 * 3 + 1]);
  rk_assert_near(kb.t[r1 * 3 + 2], kb.t[r0 * 3 + 2], 5.0);
  plugin_keys_clear(&ka), plugin_keys_clear(&kb), plugin_keys_clear(&ra_rel),
      plugin_keys_clear(&rb_rel);
  host_skeleton_clear(&h);
  rk->session_close(sa);
  rk->session_close(sb);
  rk->asset_close(clip);
  rk->asset_close(fig);
}

Test(plugin_session, rest_relative_keys_compose_with_the_rest_into_local_keys) {
  rk_plugin_asset *clip = plugin_open("makehuman_walk1.bvh");
  rk_plugin_asset *fig = plugin_open("RiggedFigure.glb");
  host_skeleton h = host_skeleton_from(fig, blender_cm, false);
  /* Non-unit uniform rest scales, as some rigs have. */
  for (uint32_t i = 0; i < h.k.joint_count; i += 4)
    for (int c = 7; c < 10; c++)
      h.rest[i * RK_PLUGIN_TRS_FLOATS + c] = 1.25f;
  rk_plugin_session_desc d = walk_onto(clip, fig);
  d.target_asset = NULL;
  d.target_skeleton = &h.k;
  d.space = blender_cm;
  rk_plugin_session *s = plugin_run(&d);
  plugin_keys loc = plugin_read_keys(s, RK_PLUGIN_KEYS_LOCAL);
  plugin_keys rel = plugin_read_keys(s, RK_PLUGIN_KEYS_REST_RELATIVE);
  const uint32_t n = loc.joints;
  double worst_t = 0, worst_r = 0, worst_s = 0;
  for (uint32_t f = 0; f < loc.frames; f++)
    for (uint32_t j = 0; j < n; j++) {
      const float *x = h.rest + j * RK_PLUGIN_TRS_FLOATS;
      const size_t k = (size_t)f * n + j;
      rk_quat rr = rk_quat_normalize(rk_quat_make(x[3], x[4], x[5], x[6]));
      rk_quat br = rk_quat_make(rel.r[k * 4], rel.r[k * 4 + 1], rel.r[k * 4 + 2], rel.r[k * 4 + 3]);
      rk_vec3 bt =
          rk_vec3_make(rel.t[k * 3] * x[7], rel.t[k * 3 + 1] * x[8], rel.t[k * 3 + 2] * x[9]);
      /* local = rest * basis: t = rest.t + rest.r (rest.s * b.t), r = rest.r b.r, s = rest.s b.s */
      rk_vec3 t = rk_vec3_add(rk_vec3_make(x[0], x[1], x[2]), rk_quat_rotate(rr, bt));
      rk_quat q = rk_quat_mul(rr, br);
      float qf[4] = {(float)q.x, (float)q.y, (float)q.z, (float)q.w};
      worst_r = fmax(worst_r, quat_angle_f(qf, loc.r + k * 4));
      worst_t =
          fmax(worst_t, rk_vec3_norm(rk_vec3_sub(
                            t, rk_vec3_make(loc.t[k * 3], loc.t[k * 3 + 1], loc.t[k * 3 + 2]))));
      for (int c = 0; c < 3; c++)
        worst_s = fmax(worst_s, fabs(x[7 + c] * rel.s[k * 3 + c] - loc.s[k * 3 + c]));
      /* Sign-continuous rotations from frame to frame (hosts interpolate components). */
      if (f > 0) {
        const float *p = rel.r + (k - n) * 4, *c = rel.r + k * 4;
        cr_assert(p[0] * c[0] + p[1] * c[1] + p[2] * c[2] + p[3] * c[3] >= 0, "frame %u joint %u",
                  f, j);
      }
    }
  cr_assert(worst_r < 1e-5, "rotation %g rad", worst_r);
  cr_assert(worst_t < 1e-3, "translation %g cm", worst_t);
  cr_assert(worst_s < 1e-5, "scale %g", worst_s);
  plugin_keys_clear(&loc), plugin_keys_clear(&rel);
  host_skeleton_clear(&h);
  rk->session_close(s);
  rk->asset_close(clip);
  rk->asset_close(fig);
}

Test(plugin_session, key_ranges_are_slices_of_the_whole_and_checked) {
  rk_plugin_asset *clip = plugin_open("makehuman_walk1.bvh");
  rk_plugin_asset *fig = plugin_open("RiggedFigure.glb");
  rk_plugin_session_desc d = walk_onto(clip, fig);
  rk_plugin_session *s = plugin_run(&d);
  plugin_keys all = plugin_read_keys(s, RK_PLUGIN_KEYS_LOCAL);
  float t[5 * 19 * 3], q[5 * 19 * 4];
  char err[256] = "";
  cr_assert_eq(rk->session_keys(s, RK_PLUGIN_KEYS_LOCAL, 6, 5, t, q, NULL, err, sizeof err),
               RK_PLUGIN_OK, "%s", err);
  cr_assert_eq(memcmp(t, all.t + 6 * 19 * 3, sizeof t), 0);
  for (size_t i = 0; i < 5 * 19; i++)
    cr_assert(quat_angle_f(q + i * 4, all.r + 6 * 19 * 4 + i * 4) < 1e-6);
  cr_assert_eq(rk->session_keys(s, RK_PLUGIN_KEYS_LOCAL, 10, 5, t, q, NULL, err, sizeof err),
               RK_PLUGIN_ERR_ARGUMENT);
  cr_assert(strstr(err, "0..13"), "%s", err);
  cr_assert_eq(
      rk->session_keys(s, RK_PLUGIN_KEYS_LOCAL, UINT32_MAX, 2, t, q, NULL, err, sizeof err),
      RK_PLUGIN_ERR_ARGUMENT);
  cr_assert_eq(rk->session_keys(s, 5, 0, 1, t, q, NULL, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert(strstr(err, "keys = 5"), "%s", err);
  /* Zero frames, and no arrays at all, are fine. */
  cr_assert_eq(rk->session_keys(s, RK_PLUGIN_KEYS_LOCAL, 14, 0, NULL, NULL, NULL, err, sizeof err),
               RK_PLUGIN_OK, "%s", err);
  plugin_keys_clear(&all);
  rk->session_close(s);
  rk->asset_close(clip);
  rk->asset_close(fig);
}

/* Reads a track, growing the arrays on RK_PLUGIN_ERR_CAPACITY as a host would. */
static uint32_t read_track(const rk_plugin_session *s, uint32_t joint, int32_t channel,
                           int32_t form, float **frames, float **values) {
  uint32_t count = 0;
  char err[256] = "";
  int st = rk->session_track(s, joint, channel, form, 0, NULL, NULL, &count, err, sizeof err);
  cr_assert_eq(st, RK_PLUGIN_ERR_CAPACITY, "%s", err);
  cr_assert_gt(count, 0);
  *frames = g_new(float, count);
  *values = g_new(float, count * 4);
  uint32_t again = 0;
  st = rk->session_track(s, joint, channel, form, count, *frames, *values, &again, err, sizeof err);
  cr_assert_eq(st, RK_PLUGIN_OK, "%s", err);
  cr_assert_eq(again, count);
  return count;
}

Test(plugin_session, reduced_tracks_keep_a_subset_of_the_baked_frames) {
  rk_plugin_asset *clip = plugin_open("makehuman_walk1.bvh");
  rk_plugin_asset *fig = plugin_open("RiggedFigure.glb");
  rk_plugin_session_desc d = walk_onto(clip, fig);
  d.space = blender_cm;
  rk_plugin_session *full = plugin_run(&d);
  d.settings.reduce_tolerance_m = 0.002;
  rk_plugin_session *red = plugin_run(&d);
  rk_plugin_result rf = plugin_result(full), rr = plugin_result(red);
  cr_assert_eq(rf.keys_output, rf.keys_baked);
  cr_assert_eq(rr.keys_baked, rf.keys_baked);
  cr_assert_lt(rr.keys_output, rr.keys_baked, "reduction kept every key");
  cr_assert(rr.reduce_max_error_m <= 0.002 + 1e-9, "%g", rr.reduce_max_error_m);
  printf("reduction at 2 mm: %llu -> %llu keys, max error %.3f mm\n",
         (unsigned long long)rr.keys_baked, (unsigned long long)rr.keys_output,
         rr.reduce_max_error_m * 1e3);
  plugin_keys dense = plugin_read_keys(full, RK_PLUGIN_KEYS_REST_RELATIVE);
  uint64_t total_full = 0, total_red = 0;
  for (uint32_t j = 0; j < rf.joint_count; j++)
    for (int32_t ch = RK_PLUGIN_CHANNEL_TRANSLATION; ch <= RK_PLUGIN_CHANNEL_SCALE; ch++) {
      const int nc = ch == RK_PLUGIN_CHANNEL_ROTATION ? 4 : 3;
      g_autofree float *ff = NULL, *fv = NULL, *rfr = NULL, *rv = NULL;
      const uint32_t nfull = read_track(full, j, ch, RK_PLUGIN_KEYS_REST_RELATIVE, &ff, &fv);
      const uint32_t nred = read_track(red, j, ch, RK_PLUGIN_KEYS_REST_RELATIVE, &rfr, &rv);
      cr_assert(nfull == 1 || nfull == rf.frames, "joint %u channel %d: %u keys", j, ch, nfull);
      cr_assert_leq(nred, nfull);
      if (ch == RK_PLUGIN_CHANNEL_SCALE) {
        /* The retarget never scales: one key holding the rest, i.e. 1 relative to it. */
        cr_assert_eq(nfull, 1);
        cr_assert(fv[0] == 1.0f && fv[1] == 1.0f && fv[2] == 1.0f);
        continue;
      }
      if (ch != RK_PLUGIN_CHANNEL_SCALE) {
        total_full += nfull > 1 ? nfull : 0;
        total_red += nfull > 1 ? nred : 0;
      }
      for (uint32_t k = 0; k < nred; k++) {
        cr_assert_eq(rfr[k], nearbyintf(rfr[k]), "integer frames");
        cr_assert(rfr[k] >= 0 && rfr[k] <= (float)(rf.frames - 1));
        if (k > 0)
          cr_assert_gt(rfr[k], rfr[k - 1]);
        /* A kept key holds the baked value of its frame. */
        const size_t o = (size_t)rfr[k] * rf.joint_count + j;
        const float *want = ch == RK_PLUGIN_CHANNEL_ROTATION ? dense.r + o * 4 : dense.t + o * 3;
        if (ch == RK_PLUGIN_CHANNEL_ROTATION)
          cr_assert(quat_angle_f(rv + k * 4, want) < 1e-5);
        else
          for (int c = 0; c < nc; c++)
            rk_assert_near(rv[k * nc + c], want[c], 1e-3);
      }
      cr_assert_eq(rfr[0], 0);
      if (nred > 1) /* a track within the tolerance of a constant keeps one key */
        cr_assert(rfr[0] == 0 && rfr[nred - 1] == (float)(rf.frames - 1),
                  "joint %u channel %d: keys at frames %g .. %g of %u", j, ch, rfr[0],
                  rfr[nred - 1], rf.frames);
    }
  cr_assert_eq(total_full, rf.keys_baked, "tracks hold every baked key");
  cr_assert_lt(total_red, total_full);
  /* Argument checks. */
  char err[256] = "";
  uint32_t count;
  float f1[1], v1[4];
  cr_assert_eq(rk->session_track(red, 19, 0, 0, 1, f1, v1, &count, err, sizeof err),
               RK_PLUGIN_ERR_ARGUMENT);
  cr_assert_eq(rk->session_track(red, 0, 3, 0, 1, f1, v1, &count, err, sizeof err),
               RK_PLUGIN_ERR_ARGUMENT);
  cr_assert_eq(rk->session_track(red, 0, 0, 0, 1, f1, v1, NULL, err, sizeof err),
               RK_PLUGIN_ERR_ARGUMENT);
  plugin_keys_clear(&dense);
  rk->session_close(full);
  rk->session_close(red);
  rk->asset_close(clip);
  rk->asset_close(fig);
}

Test(plugin_session, contacts_are_target_joints_with_frame_intervals) {
  rk_plugin_asset *clip = plugin_open("makehuman_walk1.bvh");
  rk_plugin_asset *fig = plugin_open("RiggedFigure.glb");
  rk_plugin_session_desc d = walk_onto(clip, fig);
  rk_plugin_session *s = plugin_run(&d);
  rk_plugin_result r = plugin_result(s);
  cr_assert_geq(r.contact_count, 2, "both feet have contact joints");
  cr_assert_gt(r.contact_frames, 0);
  const char *names[19];
  char err[256] = "";
  cr_assert_eq(rk->session_joints(s, 19, names, NULL, NULL, NULL, err, sizeof err), RK_PLUGIN_OK);
  size_t planted = 0;
  for (uint32_t c = 0; c < r.contact_count; c++) {
    int32_t joint = -1, iv[64];
    uint32_t count = 0;
    cr_assert_eq(rk->session_contact(s, c, &joint, 32, iv, &count, err, sizeof err), RK_PLUGIN_OK,
                 "%s", err);
    cr_assert(joint >= 0 && joint < 19);
    cr_assert(strstr(names[joint], "leg_joint"), "contact on %s", names[joint]);
    for (uint32_t k = 0; k < count; k++) {
      cr_assert(iv[2 * k] >= 0 && iv[2 * k] <= iv[2 * k + 1] && iv[2 * k + 1] < (int)r.frames);
      planted++;
    }
    if (count > 0) {
      uint32_t needed = 0;
      cr_assert_eq(rk->session_contact(s, c, &joint, 0, iv, &needed, err, sizeof err),
                   RK_PLUGIN_ERR_CAPACITY);
      cr_assert_eq(needed, count);
    }
  }
  cr_assert_gt(planted, 0);
  int32_t joint;
  uint32_t count;
  cr_assert_eq(rk->session_contact(s, r.contact_count, &joint, 32, NULL, &count, err, sizeof err),
               RK_PLUGIN_ERR_ARGUMENT);
  rk->session_close(s);
  rk->asset_close(clip);
  rk->asset_close(fig);
}

/* ---- profiles ------------------------------------------------------------------------------- */

/* The walk onto the figure with a profile (file or text), settings_text (ABI 2) and typed
 * settings; *out receives the result of a successful run. */
static int try_settings(const char *path, const char *text, const char *settings_text,
                        rk_plugin_settings st, char *err, size_t size, rk_plugin_result *out) {
  rk_plugin_asset *clip = plugin_open("makehuman_walk1.bvh");
  rk_plugin_asset *fig = plugin_open("RiggedFigure.glb");
  rk_plugin_session_desc d = {.source = clip,
                              .target_asset = fig,
                              .profile_path = path,
                              .profile_text = text,
                              .settings = st,
                              .settings_text = settings_text};
  rk_plugin_session *s = NULL;
  int rc = rk->session_new(&d, &s, err, size);
  if (rc == RK_PLUGIN_OK) {
    rc = rk->session_run(s, err, size);
    if (rc == RK_PLUGIN_OK && out)
      *out = plugin_result(s);
    rk->session_close(s);
  }
  rk->asset_close(clip);
  rk->asset_close(fig);
  return rc;
}

static int try_profile(const char *path, const char *text, rk_plugin_settings st, char *err,
                       size_t size, rk_plugin_result *out) {
  return try_settings(path, text, NULL, st, err, size, out);
}

Test(plugin_session, the_profile_settings_apply_and_the_host_overrides_them) {
  char err[512] = "";
  const rk_plugin_settings deflt = RK_PLUGIN_SETTINGS_INIT;
  rk_plugin_result base, no_ik, forced, fps30, fps48;
  cr_assert_eq(try_profile(NULL, "[settings]\nroot_motion=true\n", deflt, err, sizeof err, &base),
               RK_PLUGIN_OK, "%s", err);
  cr_assert_lt(base.foot_skate_max_mm, 1.0, "IK on by default");
  cr_assert_eq(try_profile(NULL, "[settings]\nroot_motion=true\nfoot_ik=false\n", deflt, err,
                           sizeof err, &no_ik),
               RK_PLUGIN_OK, "%s", err);
  /* IK off: the written feet are the transferred ones (their skate is the FK-only skate), and
   * they slide where IK held them within 1 mm. */
  rk_assert_near(no_ik.foot_skate_max_mm, no_ik.foot_skate_fk_max_mm, 0.01);
  cr_assert_gt(no_ik.foot_skate_max_mm, 5.0, "the profile turned IK off");
  rk_plugin_settings host = deflt;
  host.foot_ik = 1;
  cr_assert_eq(try_profile(NULL, "[settings]\nroot_motion=true\nfoot_ik=false\n", host, err,
                           sizeof err, &forced),
               RK_PLUGIN_OK, "%s", err);
  cr_assert_lt(forced.foot_skate_max_mm, 1.0, "the host's setting wins over the profile's");
  /* fps: the walk is 0.5417 s long. */
  cr_assert_eq(try_profile(NULL, "[settings]\nfps=30\n", deflt, err, sizeof err, &fps30),
               RK_PLUGIN_OK, "%s", err);
  cr_assert_eq(fps30.frames, 17);
  rk_assert_near(fps30.fps, 30, 1e-9);
  host = deflt;
  host.fps = 48;
  cr_assert_eq(try_profile(NULL, "[settings]\nfps=30\n", host, err, sizeof err, &fps48),
               RK_PLUGIN_OK, "%s", err);
  cr_assert_eq(fps48.frames, 27);

  /* The same text from a file. */
  g_autofree char *dir = g_dir_make_tmp("rk_profile_XXXXXX", NULL);
  g_autofree char *path = g_build_filename(dir, "walk.map", NULL);
  cr_assert(g_file_set_contents(path, "# a profile\n[settings]\nfps=30\n", -1, NULL));
  rk_plugin_result from_file;
  cr_assert_eq(try_profile(path, NULL, deflt, err, sizeof err, &from_file), RK_PLUGIN_OK, "%s",
               err);
  cr_assert_eq(from_file.frames, 17);
  g_unlink(path);
  g_rmdir(dir);
}

Test(plugin_session, settings_text_lies_over_the_profile_and_under_the_typed_settings) {
  char err[512] = "";
  const rk_plugin_settings deflt = RK_PLUGIN_SETTINGS_INIT;
  rk_plugin_result r;
  /* fps: the walk is 0.5417 s long; the profile says 30, the text 48, the typed field 12. */
  cr_assert_eq(try_settings(NULL, "[settings]\nfps=30\n", "fps=48", deflt, err, sizeof err, &r),
               RK_PLUGIN_OK, "%s", err);
  cr_assert_eq(r.frames, 27);
  rk_plugin_settings typed = deflt;
  typed.fps = 12;
  cr_assert_eq(try_settings(NULL, "[settings]\nfps=30\n", "fps=48", typed, err, sizeof err, &r),
               RK_PLUGIN_OK, "%s", err);
  cr_assert_eq(r.frames, 8);
  /* Keys the text does not name keep the profile's. */
  cr_assert_eq(try_settings(NULL, "[settings]\nfps=30\nroot_motion=true\n", "foot_ik=false\n",
                                 deflt, err, sizeof err, &r),
               RK_PLUGIN_OK, "%s", err);
  cr_assert_eq(r.frames, 17);
  cr_assert_gt(r.foot_skate_max_mm, 5.0, "the text turned IK off");
  /* Several keys, with comments and blank lines, and no profile at all. */
  cr_assert_eq(try_settings(NULL, NULL, "# from the add-on\ncontact_height=0.05\n\nik_iterations=5\n",
                                 deflt, err, sizeof err, &r),
               RK_PLUGIN_OK, "%s", err);
  /* Refused, naming settings_text: an unknown key, a bad value, a group, a line that is no key. */
  const struct {
    const char *text;
    int status;
    const char *says;
  } bad[] = {{"speed=3", RK_PLUGIN_ERR_INVALID, "speed"},
             {"foot_ik=maybe", RK_PLUGIN_ERR_INVALID, "foot_ik"},
             {"fps=-2", RK_PLUGIN_ERR_INVALID, "fps"},
             {"[source]\nhips=Hips", RK_PLUGIN_ERR_INVALID, "[source]"},
             {"fps", RK_PLUGIN_ERR_PARSE, "fps"}};
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    cr_assert_eq(try_settings(NULL, NULL, bad[i].text, deflt, err, sizeof err, NULL), bad[i].status,
                 "%s: %s", bad[i].text, err);
    cr_assert(strstr(err, "settings_text") && strstr(err, bad[i].says), "%s: %s", bad[i].text, err);
  }
}

Test(plugin_session, bad_profiles_name_the_file_group_and_key) {
  char err[512] = "";
  const rk_plugin_settings deflt = RK_PLUGIN_SETTINGS_INIT;
  cr_assert_eq(try_profile("/nonexistent/walk.map", NULL, deflt, err, sizeof err, NULL),
               RK_PLUGIN_ERR_IO);
  cr_assert(strstr(err, "/nonexistent/walk.map"), "%s", err);
  cr_assert_eq(try_profile(NULL, "[settings\nfps=30\n", deflt, err, sizeof err, NULL),
               RK_PLUGIN_ERR_PARSE);
  cr_assert(strstr(err, "profile text"), "%s", err);
  cr_assert_eq(try_profile(NULL, "[settings]\nspeed=3\n", deflt, err, sizeof err, NULL),
               RK_PLUGIN_ERR_INVALID);
  cr_assert(strstr(err, "speed") && strstr(err, "unknown key"), "%s", err);
  cr_assert_eq(try_profile(NULL, "[settings]\nfps=-3\n", deflt, err, sizeof err, NULL),
               RK_PLUGIN_ERR_INVALID);
  cr_assert_eq(try_profile(NULL, "[target]\nleft_foot=NoSuchFoot\n", deflt, err, sizeof err, NULL),
               RK_PLUGIN_ERR_NOT_FOUND);
  cr_assert(strstr(err, "NoSuchFoot") && strstr(err, "[target]"), "%s", err);
  cr_assert_eq(try_profile(NULL, "[source]\nleft_wing=LeftArm\n", deflt, err, sizeof err, NULL),
               RK_PLUGIN_ERR_INVALID);
  cr_assert(strstr(err, "left_wing") && strstr(err, "[source]"), "%s", err);
  cr_assert_eq(try_profile(NULL, "[setings]\nfps=30\n", deflt, err, sizeof err, NULL),
               RK_PLUGIN_ERR_INVALID);
  cr_assert(strstr(err, "unknown group [setings]"), "%s", err);
  /* A map that breaks the rig: the hips on a foot. */
  cr_assert_eq(try_profile(NULL, "[target]\nhips=leg_joint_L_3\n", deflt, err, sizeof err, NULL),
               RK_PLUGIN_ERR_MAPPING);
}

Test(plugin_session, the_profile_maps_bones_and_rescues_a_rig_the_automatic_map_refuses) {
  char err[1024] = "";
  rk_plugin_asset *clip = plugin_open("makehuman_walk1.bvh");
  rk_plugin_asset *fig = plugin_open("RiggedFigure.glb");
  rk_plugin_asset *fox = plugin_open("Fox.glb");
  /* [target] unmaps the toes; the map text shows it. */
  rk_plugin_session_desc d = {.source = clip,
                              .target_asset = fig,
                              .profile_text = "[target]\nleft_toes=\nright_toes=\n",
                              .settings = RK_PLUGIN_SETTINGS_INIT};
  rk_plugin_session *s = NULL;
  cr_assert_eq(rk->session_new(&d, &s, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  size_t needed = 0;
  char text[4096];
  cr_assert_eq(rk->session_map_text(s, text, sizeof text, &needed, err, sizeof err), RK_PLUGIN_OK);
  cr_assert_eq(strlen(text) + 1, needed);
  cr_assert(strstr(text, "leg_joint_L_3 (topology)"), "%s", text);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (size_t i = 0; lines[i]; i++)
    if (g_str_has_prefix(lines[i], "left_toes "))
      cr_assert(g_str_has_suffix(g_strstrip(lines[i]), " -"), "%s", lines[i]);
  char tiny[8];
  cr_assert_eq(rk->session_map_text(s, tiny, sizeof tiny, &needed, err, sizeof err), RK_PLUGIN_OK);
  cr_assert_eq(strlen(tiny), 7);
  rk->session_close(s);

  /* A quadruped is refused as a target... */
  d = (rk_plugin_session_desc){
      .source = clip, .target_asset = fox, .settings = RK_PLUGIN_SETTINGS_INIT};
  cr_assert_eq(rk->session_new(&d, &s, err, sizeof err), RK_PLUGIN_ERR_MAPPING);
  cr_assert(strstr(err, "target") && strstr(err, "quadruped"), "%s", err);
  /* ...unless the profile maps its hind legs. */
  d.profile_text = RK_TEST_FOX_HIND_LEGS_MAP;
  cr_assert_eq(rk->session_new(&d, &s, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  cr_assert_eq(rk->session_map_text(s, text, sizeof text, NULL, err, sizeof err), RK_PLUGIN_OK);
  cr_assert(strstr(text, "b_LeftFoot01_017 (map-file)"), "%s", text);
  rk->session_close(s);
  rk->asset_close(clip);
  rk->asset_close(fig);
  rk->asset_close(fox);
}

Test(plugin_session, a_gltf_character_exports_as_it_came_in) {
  /* The Fox's texture, image and binary data survive: the export edits its own document. */
  rk_plugin_asset *clip = plugin_open("makehuman_walk1.bvh");
  rk_plugin_asset *fox = plugin_open("Fox.glb");
  rk_plugin_session_desc d = {.source = clip,
                              .target_asset = fox,
                              .profile_text = RK_TEST_FOX_HIND_LEGS_MAP,
                              .settings = RK_PLUGIN_SETTINGS_INIT};
  rk_plugin_session *s = plugin_run(&d);
  g_autofree char *dir = g_dir_make_tmp("rk_plugin_XXXXXX", NULL);
  g_autofree char *glb = g_build_filename(dir, "fox_walk.glb", NULL);
  char err[512] = "";
  cr_assert_eq(rk->session_export(s, glb, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  g_autofree char *src = rk_test_data("Fox.glb");
  g_autoptr(JsonParser) pin = NULL, pout = NULL;
  g_autoptr(GBytes) bin_in = NULL, bin_out = NULL;
  JsonObject *in = glb_json(src, &pin, &bin_in), *o = glb_json(glb, &pout, &bin_out);
  const char *kept[] = {"images", "textures", "materials", "samplers", "meshes", "skins"};
  for (size_t i = 0; i < G_N_ELEMENTS(kept); i++)
    cr_assert(json_node_equal(json_object_get_member(in, kept[i]),
                              json_object_get_member(o, kept[i])),
              "'%s' changed", kept[i]);
  gsize nin = 0, nout = 0;
  const guint8 *din = g_bytes_get_data(bin_in, &nin), *dout = g_bytes_get_data(bin_out, &nout);
  cr_assert_gt(nout, nin, "the clip's keys are appended");
  cr_assert(memcmp(din, dout, nin) == 0, "the input's buffer bytes are kept");
  JsonArray *anims = json_object_get_array_member(o, "animations");
  cr_assert_eq(json_array_get_length(anims), 1, "the fox's own clips are replaced by the walk");
  rk->session_close(s);
  rk->asset_close(clip);
  rk->asset_close(fox);
  g_unlink(glb);
  g_rmdir(dir);
}

/* ---- lifetime, memory, export, threads ------------------------------------------------------ */

Test(plugin_session, a_session_outlives_its_assets_and_runs_again) {
  rk_plugin_asset *clip = plugin_open("makehuman_walk1.bvh");
  rk_plugin_asset *fig = plugin_open("RiggedFigure.glb");
  rk_plugin_session_desc d = walk_onto(clip, fig);
  char err[512] = "";
  rk_plugin_session *s = NULL;
  cr_assert_eq(rk->session_new(&d, &s, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  cr_assert_eq(rk->asset_close(clip), RK_PLUGIN_OK);
  cr_assert_eq(rk->asset_close(fig), RK_PLUGIN_OK);
  cr_assert_eq(rk->session_run(s, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  plugin_keys a = plugin_read_keys(s, RK_PLUGIN_KEYS_LOCAL);
  cr_assert_eq(rk->session_run(s, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  plugin_keys b = plugin_read_keys(s, RK_PLUGIN_KEYS_LOCAL);
  const size_t n = (size_t)a.frames * a.joints;
  cr_assert_eq(memcmp(a.t, b.t, n * 3 * sizeof(float)), 0, "deterministic");
  cr_assert_eq(memcmp(a.r, b.r, n * 4 * sizeof(float)), 0);
  plugin_keys_clear(&a), plugin_keys_clear(&b);
  /* The exporter still has the figure's mesh. */
  g_autofree char *dir = g_dir_make_tmp("rk_plugin_XXXXXX", NULL);
  g_autofree char *glb = g_build_filename(dir, "walk_on_figure.glb", NULL);
  cr_assert_eq(rk->session_export(s, glb, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  rk_plugin_asset *back = NULL;
  cr_assert_eq(rk->asset_open_file(glb, NULL, &back, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  rk_plugin_asset_info ai;
  rk->asset_info(back, &ai, err, sizeof err);
  cr_assert_eq(ai.mesh_count, 1);
  cr_assert_eq(ai.joint_count, 19);
  rk->asset_close(back);
  g_unlink(glb);
  g_rmdir(dir);
  rk->session_close(s);
}

Test(plugin_session, bytes_in_memory_give_the_same_result_as_the_file) {
  g_autofree char *path = rk_test_data("makehuman_walk1.bvh");
  g_autofree char *bytes = NULL;
  gsize size = 0;
  cr_assert(g_file_get_contents(path, &bytes, &size, NULL));
  char err[512] = "";
  rk_plugin_asset *mem = NULL;
  cr_assert_eq(rk->asset_open_memory(bytes, size, "walk.bvh", NULL, &mem, err, sizeof err),
               RK_PLUGIN_OK, "%s", err);
  rk_plugin_asset_info ai;
  rk->asset_info(mem, &ai, err, sizeof err);
  cr_assert_str_eq(ai.path, "walk.bvh");
  rk_plugin_asset *file = plugin_open("makehuman_walk1.bvh");
  rk_plugin_asset *fig = plugin_open("RiggedFigure.glb");
  rk_plugin_session_desc d = walk_onto(mem, fig);
  rk_plugin_session *sm = plugin_run(&d);
  d.source = file;
  rk_plugin_session *sf = plugin_run(&d);
  plugin_keys a = plugin_read_keys(sm, RK_PLUGIN_KEYS_LOCAL),
              b = plugin_read_keys(sf, RK_PLUGIN_KEYS_LOCAL);
  cr_assert_eq(memcmp(a.t, b.t, (size_t)a.frames * a.joints * 3 * sizeof(float)), 0);
  cr_assert_eq(memcmp(a.r, b.r, (size_t)a.frames * a.joints * 4 * sizeof(float)), 0);
  plugin_keys_clear(&a), plugin_keys_clear(&b);
  rk->session_close(sm), rk->session_close(sf);
  rk->asset_close(mem), rk->asset_close(file), rk->asset_close(fig);
}

Test(plugin_session, exports_of_a_host_skeleton_read_back_as_glb_and_bvh) {
  rk_plugin_asset *clip = plugin_open("makehuman_walk1.bvh");
  rk_plugin_asset *fig = plugin_open("RiggedFigure.glb");
  host_skeleton h = host_skeleton_from(fig, blender_cm, true);
  rk_plugin_session_desc d = walk_onto(clip, fig);
  d.target_asset = NULL;
  d.target_skeleton = &h.k;
  d.space = blender_cm;
  d.settings.reduce_tolerance_m = 0.001;
  rk_plugin_session *s = plugin_run(&d);
  rk_plugin_result r = plugin_result(s);
  g_autofree char *dir = g_dir_make_tmp("rk_plugin_XXXXXX", NULL);
  const char *exts[] = {"glb", "bvh"};
  for (int i = 0; i < 2; i++) {
    g_autofree char *name = g_strdup_printf("out.%s", exts[i]);
    g_autofree char *path = g_build_filename(dir, name, NULL);
    char err[512] = "";
    cr_assert_eq(rk->session_export(s, path, err, sizeof err), RK_PLUGIN_OK, "%s", err);
    /* Read back with rigkit's importer: the same skeleton and the retargeted root path. */
    g_autoptr(GError) e = NULL;
    /* rigkit writes BVH Y-up; the reader's up-axis guess from this figure's rest pose says -Y. */
    rk_import_options io = RK_IMPORT_OPTIONS_INIT;
    io.up_axis = "Y";
    g_autoptr(rk_asset) back = rk_import_file(path, &io, &e);
    cr_assert(back, "%s", e ? e->message : "");
    const rk_skeleton *sk = rk_asset_skeleton(back);
    cr_assert_eq(rk_asset_clip_count(back), 1);
    const rk_clip *c = rk_asset_clip(back, 0);
    rk_assert_near(rk_clip_duration(c), r.duration_s, 1e-3);
    int hips = rk_skeleton_find_joint(sk, "torso_joint_1");
    cr_assert(hips >= 0, "%s has no torso_joint_1", path);
    if (i == 0)
      cr_assert_eq(rk_skeleton_joint_count(sk), 19);
    /* The hips at the last frame against the plugin's own keys (Z-up cm -> Y-up m). */
    g_autofree rk_transform *pose = g_new(rk_transform, rk_skeleton_joint_count(sk));
    g_autofree rk_mat4 *models = g_new(rk_mat4, rk_skeleton_joint_count(sk));
    rk_clip_sample(c, rk_skeleton_rest_locals(sk), rk_clip_duration(c), pose,
                   rk_skeleton_joint_count(sk));
    const size_t nj = rk_skeleton_joint_count(sk);
    rk_fk_job job = {
        .skeleton = sk, .locals = pose, .locals_count = nj, .models = models, .models_count = nj};
    cr_assert(rk_fk_job_run(&job));
    uint32_t hroot = 0;
    while (strcmp(h.names[hroot], "torso_joint_1"))
      hroot++;
    float t[19 * 3];
    cr_assert_eq(
        rk->session_keys(s, RK_PLUGIN_KEYS_LOCAL, r.frames - 1, 1, t, NULL, NULL, err, sizeof err),
        RK_PLUGIN_OK);
    rk_vec3 want =
        rk_vec3_make(t[hroot * 3] * 0.01, t[hroot * 3 + 2] * 0.01, -t[hroot * 3 + 1] * 0.01);
    rk_assert_vec3_near(rk_mat4_get_translation(&models[hips]), want, 0.003);
    g_unlink(path);
  }
  /* An unwritable place: an error naming it, nothing written. */
  char err[512] = "";
  cr_assert_neq(rk->session_export(s, "/nonexistent/dir/out.glb", err, sizeof err), RK_PLUGIN_OK);
  cr_assert(strstr(err, "/nonexistent/dir/out.glb"), "%s", err);
  cr_assert_neq(rk->session_export(s, "/tmp/out.xyz", err, sizeof err), RK_PLUGIN_OK);
  g_rmdir(dir);
  host_skeleton_clear(&h);
  rk->session_close(s);
  rk->asset_close(clip);
  rk->asset_close(fig);
}

typedef struct thread_job {
  rk_plugin_session_desc desc;
  plugin_keys keys;
  int status;
  char err[512];
} thread_job;

static void *run_on_thread(void *arg) {
  thread_job *j = arg;
  rk_plugin_session *s = NULL;
  j->status = rk->session_new(&j->desc, &s, j->err, sizeof j->err);
  if (j->status == RK_PLUGIN_OK)
    j->status = rk->session_run(s, j->err, sizeof j->err);
  if (j->status == RK_PLUGIN_OK) {
    rk_plugin_result r;
    rk->session_result(s, &r, j->err, sizeof j->err);
    j->keys.frames = r.frames, j->keys.joints = r.joint_count;
    j->keys.t = g_new(float, (size_t)r.frames *r.joint_count * 3);
    j->keys.r = g_new(float, (size_t)r.frames *r.joint_count * 4);
    j->status = rk->session_keys(s, RK_PLUGIN_KEYS_REST_RELATIVE, 0, r.frames, j->keys.t, j->keys.r,
                                 NULL, j->err, sizeof j->err);
  }
  rk->session_close(s);
  return NULL;
}

Test(plugin_session, sessions_on_several_threads_match_one_thread) {
  rk_plugin_asset *clip = plugin_open("makehuman_walk1.bvh");
  rk_plugin_asset *fig = plugin_open("RiggedFigure.glb");
  host_skeleton h = host_skeleton_from(fig, blender_cm, false);
  thread_job jobs[5];
  for (int i = 0; i < 5; i++) {
    memset(&jobs[i], 0, sizeof jobs[i]);
    jobs[i].desc = walk_onto(clip, fig);
    if (i % 2) { /* half of them on the host skeleton */
      jobs[i].desc.target_asset = NULL;
      jobs[i].desc.target_skeleton = &h.k;
      jobs[i].desc.space = blender_cm;
    }
  }
  run_on_thread(&jobs[0]);
  run_on_thread(&jobs[1]);
  pthread_t th[3];
  for (int i = 0; i < 3; i++)
    cr_assert_eq(pthread_create(&th[i], NULL, run_on_thread, &jobs[2 + i]), 0);
  for (int i = 0; i < 3; i++)
    pthread_join(th[i], NULL);
  for (int i = 0; i < 5; i++) {
    cr_assert_eq(jobs[i].status, RK_PLUGIN_OK, "job %d: %s", i, jobs[i].err);
    const thread_job *ref = &jobs[i % 2];
    const size_t n = (size_t)ref->keys.frames * ref->keys.joints;
    cr_assert_eq(jobs[i].keys.frames, ref->keys.frames);
    cr_assert_eq(memcmp(jobs[i].keys.t, ref->keys.t, n * 3 * sizeof(float)), 0, "job %d", i);
    cr_assert_eq(memcmp(jobs[i].keys.r, ref->keys.r, n * 4 * sizeof(float)), 0, "job %d", i);
  }
  for (int i = 0; i < 5; i++)
    plugin_keys_clear(&jobs[i].keys);
  host_skeleton_clear(&h);
  rk->asset_close(clip);
  rk->asset_close(fig);
}

/* RiggedFigure's meshes as a host holds them beside its skeleton h (host order, h.order[i] = the
 * asset's joint of host joint i): positions in Z-up centimetres, joints in the host's order. */
typedef struct host_meshes {
  rk_plugin_mesh *m;
  size_t count;
  GPtrArray *arrays; /* what they point into */
} host_meshes;

static host_meshes host_meshes_of(const rk_asset *a, const host_skeleton *h) {
  const size_t nj = h->k.joint_count;
  g_autofree uint16_t *host_of = g_new(uint16_t, nj);
  for (uint32_t i = 0; i < nj; i++)
    host_of[h->order[i]] = (uint16_t)i;
  host_meshes hm = {g_new0(rk_plugin_mesh, rk_asset_mesh_count(a)), rk_asset_mesh_count(a),
                    g_ptr_array_new_with_free_func(g_free)};
  for (size_t k = 0; k < hm.count; k++) {
    const rk_mesh_data *d = rk_mesh_data_get(rk_asset_mesh(a, k));
    float *pos = g_new(float, 3 * d->vertex_count);
    uint16_t *joints = g_new(uint16_t, 4 * d->vertex_count);
    for (size_t v = 0; v < d->vertex_count; v++) {
      const float *p = d->positions + 3 * v; /* Y-up metres -> Z-up centimetres */
      pos[3 * v] = p[0] * 100, pos[3 * v + 1] = -p[2] * 100, pos[3 * v + 2] = p[1] * 100;
      for (int c = 0; c < 4; c++)
        joints[4 * v + c] = host_of[d->joints[4 * v + c]];
    }
    g_ptr_array_add(hm.arrays, pos), g_ptr_array_add(hm.arrays, joints);
    hm.m[k] = (rk_plugin_mesh){.name = d->name,
                               .vertex_count = (uint32_t)d->vertex_count,
                               .index_count = (uint32_t)d->index_count,
                               .positions = pos,
                               .indices = d->indices,
                               .joints = joints,
                               .weights = d->weights};
  }
  return hm;
}

static void host_meshes_clear(host_meshes *hm) {
  g_free(hm->m);
  g_ptr_array_unref(hm->arrays);
}

Test(plugin_session, a_host_skeleton_with_its_meshes_exports_the_character) {
  g_autofree char *fig_path = rk_test_data("RiggedFigure.glb");
  g_autoptr(GError) e = NULL;
  g_autoptr(rk_asset) ref = rk_import_file(fig_path, NULL, &e);
  cr_assert(ref, "%s", e ? e->message : "");
  rk_plugin_asset *clip = plugin_open("makehuman_walk1.bvh");
  rk_plugin_asset *fig = plugin_open("RiggedFigure.glb");
  host_skeleton h = host_skeleton_from(fig, blender_cm, true);
  host_meshes hm = host_meshes_of(ref, &h);
  rk_plugin_session_desc d = walk_onto(clip, fig);
  d.target_asset = NULL;
  d.target_skeleton = &h.k;
  d.space = blender_cm;
  d.target_meshes = hm.m;
  d.target_mesh_count = (uint32_t)hm.count;
  rk_plugin_session *s = plugin_run(&d);
  g_autofree char *dir = g_dir_make_tmp("rk_plugin_XXXXXX", NULL);
  g_autofree char *glb = g_build_filename(dir, "host_with_meshes.glb", NULL);
  char err[512] = "";
  cr_assert_eq(rk->session_export(s, glb, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  g_autoptr(rk_asset) back = rk_import_file(glb, NULL, &e);
  cr_assert(back, "%s", e ? e->message : "");
  cr_assert_eq(rk_asset_mesh_count(back), rk_asset_mesh_count(ref));
  const rk_mesh_data *x = rk_mesh_data_get(rk_asset_mesh(ref, 0));
  const rk_mesh_data *y = rk_mesh_data_get(rk_asset_mesh(back, 0));
  cr_assert_eq(y->vertex_count, x->vertex_count);
  cr_assert_eq(y->index_count, x->index_count);
  double worst = 0;
  size_t same_joint = 0;
  for (size_t v = 0; v < x->vertex_count; v++) {
    for (int c = 0; c < 3; c++)
      worst = fmax(worst, fabs(x->positions[3 * v + c] - y->positions[3 * v + c]));
    /* The heaviest joint of each vertex, by name (the written skeleton has its own order). */
    int bx = 0, by = 0;
    for (int k = 1; k < 4; k++) {
      bx = x->weights[4 * v + k] > x->weights[4 * v + bx] ? k : bx;
      by = y->weights[4 * v + k] > y->weights[4 * v + by] ? k : by;
    }
    same_joint += !strcmp(rk_skeleton_joint_name(rk_asset_skeleton(ref), x->joints[4 * v + bx]),
                          rk_skeleton_joint_name(rk_asset_skeleton(back), y->joints[4 * v + by]));
  }
  cr_assert(worst < 1e-5, "vertices %g m from the character's", worst);
  cr_assert_eq(same_joint, x->vertex_count, "%zu of %zu vertices on the same joint", same_joint,
               x->vertex_count);
  rk->session_close(s);

  /* Refused: meshes without a host skeleton, a count without meshes, and broken meshes. */
  rk_plugin_session *none = NULL;
  rk_plugin_session_desc bad = d;
  bad.target_skeleton = NULL;
  bad.target_asset = fig;
  cr_assert_eq(rk->session_new(&bad, &none, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert(strstr(err, "target_mesh_count"), "%s", err);
  bad = d;
  bad.target_meshes = NULL;
  cr_assert_eq(rk->session_new(&bad, &none, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  rk_plugin_mesh broken = hm.m[0];
  bad = d;
  bad.target_meshes = &broken;
  bad.target_mesh_count = 1;
  broken.positions = NULL;
  cr_assert_eq(rk->session_new(&bad, &none, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  cr_assert(strstr(err, "target mesh 0") && strstr(err, "no positions"), "%s", err);
  broken = hm.m[0];
  broken.weights = NULL;
  cr_assert_eq(rk->session_new(&bad, &none, err, sizeof err), RK_PLUGIN_ERR_ARGUMENT);
  broken = hm.m[0];
  const uint16_t saved = ((uint16_t *)broken.joints)[5];
  ((uint16_t *)broken.joints)[5] = 19;
  cr_assert_eq(rk->session_new(&bad, &none, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  cr_assert(strstr(err, "target mesh 0") && strstr(err, "vertex 1"), "%s", err);
  ((uint16_t *)broken.joints)[5] = saved;
  const float p0 = broken.positions[4];
  ((float *)broken.positions)[4] = NAN;
  cr_assert_eq(rk->session_new(&bad, &none, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  cr_assert(strstr(err, "non-finite"), "%s", err);
  ((float *)broken.positions)[4] = p0;
  broken.index_count = 3;
  broken.indices = (const uint32_t[]){0, 1, 100000};
  cr_assert_eq(rk->session_new(&bad, &none, err, sizeof err), RK_PLUGIN_ERR_INVALID);
  cr_assert(strstr(err, "index 100000"), "%s", err);
  cr_assert_null(none);
  g_unlink(glb);
  g_rmdir(dir);
  host_meshes_clear(&hm);
  host_skeleton_clear(&h);
  rk->asset_close(clip);
  rk->asset_close(fig);
}

/* A game rig as the target of a session (the robot: IK-control feet, legs without a foot bone)
 * maps through its meshes as on the command line, and runs. */
Test(plugin_session, a_game_rig_target_maps_by_its_skin) {
  char err[1024] = "";
  rk_plugin_asset *clip = plugin_open("generated/cmu_walk.bvh");
  rk_plugin_asset *robot = plugin_open("generated/game_robot.glb");
  rk_plugin_session_desc d = {.source = clip,
                              .target_asset = robot,
                              .settings = RK_PLUGIN_SETTINGS_INIT};
  rk_plugin_session *s = NULL;
  cr_assert_eq(rk->session_new(&d, &s, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  char text[4096];
  cr_assert_eq(rk->session_map_text(s, text, sizeof text, NULL, err, sizeof err), RK_PLUGIN_OK);
  cr_assert(strstr(text, "LowerLeg.L") && !strstr(text, "Foot.L"), "%s", text);
  cr_assert_eq(rk->session_run(s, err, sizeof err), RK_PLUGIN_OK, "%s", err);
  rk->session_close(s);
  rk->asset_close(clip);
  rk->asset_close(robot);
}
