/* FBX round trips: every shared third-party file and the test character -> FBX (rigkit's writer)
 * -> import (rigkit through Assimp) gives the same joints, clips and durations, and world joint
 * positions within 1e-5 of the skeleton's height at every frame; every rotation order; Euler
 * curves without jumps; byte-identical outputs. */
#include "shared_files.h"

#include "../../exporters/src/fbx_writer.h"
#include "../../importers/src/fbx_internal.h"

#include <rigkit/reduce.h>

static void write_or_fail(const rk_asset *a, const char *path, const rk_export_options *o) {
  g_autoptr(GError) e = NULL;
  cr_assert(rk_export_file(a, path, o, &e), "%s: %s", path, e ? e->message : "");
}

/* World positions and rotations of joints of the same name, at every frame of clip ca at fps
 * (NULL clips: the rest pose). */
static void compare_poses(const rk_asset *a, const rk_clip *ca, const rk_asset *b,
                          const rk_clip *cb, double fps, double *pos_err, double *rot_err) {
  const rk_skeleton *sa = rk_asset_skeleton(a), *sb = rk_asset_skeleton(b);
  const size_t na = rk_skeleton_joint_count(sa), nb = rk_skeleton_joint_count(sb);
  g_autofree rk_transform *la = g_new(rk_transform, na), *lb = g_new(rk_transform, nb);
  g_autofree rk_mat4 *ma = g_new(rk_mat4, na), *mb = g_new(rk_mat4, nb);
  g_autofree int *map = g_new(int, na);
  for (size_t j = 0; j < na; j++) {
    map[j] = rk_skeleton_find_joint(sb, rk_skeleton_joint_name(sa, j));
    cr_assert_geq(map[j], 0, "joint '%s' lost", rk_skeleton_joint_name(sa, j));
  }
  const double dur = ca ? rk_clip_duration(ca) : 0;
  const size_t frames = (size_t)llround(dur * fps) + 1;
  *pos_err = *rot_err = 0;
  for (size_t f = 0; f < frames; f++) {
    const double t = fmin((double)f / fps, dur);
    if (ca) {
      rk_clip_sample(ca, rk_skeleton_rest_locals(sa), t, la, na);
      rk_clip_sample(cb, rk_skeleton_rest_locals(sb), fmin(t, rk_clip_duration(cb)), lb, nb);
    } else {
      memcpy(la, rk_skeleton_rest_locals(sa), na * sizeof *la);
      memcpy(lb, rk_skeleton_rest_locals(sb), nb * sizeof *lb);
    }
    rk_fk_models(sa, la, ma);
    rk_fk_models(sb, lb, mb);
    for (size_t j = 0; j < na; j++) {
      rk_transform xa, xb;
      cr_assert(rk_transform_from_mat4(&ma[j], &xa) && rk_transform_from_mat4(&mb[map[j]], &xb));
      *pos_err = fmax(*pos_err, rk_vec3_norm(rk_vec3_sub(xa.t, xb.t)));
      *rot_err = fmax(*rot_err, rk_quat_angle_between(xa.r, xb.r));
    }
  }
}

/* a -> FBX at path -> b; checks joints, clips, durations and poses. Returns the largest position
 * error relative to the skeleton's height. */
static double round_trip(const rk_asset *a, const char *what, const char *path,
                         const rk_export_options *o) {
  write_or_fail(a, path, o);
  g_autoptr(rk_asset) b = import_or_fail(path, NULL);
  const rk_skeleton *sa = rk_asset_skeleton(a), *sb = rk_asset_skeleton(b);
  cr_assert_eq(rk_skeleton_joint_count(sb), rk_skeleton_joint_count(sa),
               "%s: %zu joints back, %zu written", what, rk_skeleton_joint_count(sb),
               rk_skeleton_joint_count(sa));
  const double height = fixture_reference_length(sa);
  double worst = 0, pos = 0, rot = 0;
  compare_poses(a, NULL, b, NULL, 30, &pos, &rot);
  cr_assert(pos <= 1e-5 * height, "%s: rest pose off by %g m", what, pos);
  cr_assert_eq(rk_asset_clip_count(b), rk_asset_clip_count(a), "%s: %zu clips back, %zu written",
               what, rk_asset_clip_count(b), rk_asset_clip_count(a));
  for (size_t k = 0; k < rk_asset_clip_count(a); k++) {
    const rk_clip *ca = rk_asset_clip(a, k), *cb = rk_asset_clip(b, k);
    cr_assert_str_eq(rk_clip_name(cb), rk_clip_name(ca));
    cr_assert(fabs(rk_clip_duration(cb) - rk_clip_duration(ca)) <=
                  1e-9 * fmax(1, rk_clip_duration(ca)),
              "%s clip '%s': duration %.12g s back, %.12g s written", what, rk_clip_name(ca),
              rk_clip_duration(cb), rk_clip_duration(ca));
    double fps = rk_clip_infer_fps(ca);
    fps = fps > 0 ? fps : 30;
    compare_poses(a, ca, b, cb, fps, &pos, &rot);
    printf("fbx roundtrip %-36s clip %-22s %5zu frames @ %6.2f fps: max error %.3g m = %.3g of "
           "height %.4g m, rotation %.3g rad\n",
           what, rk_clip_name(ca), (size_t)llround(rk_clip_duration(ca) * fps) + 1, fps, pos,
           pos / height, height, rot);
    cr_assert(pos <= 1e-5 * height, "%s clip '%s': world positions off by %g m (height %g m)", what,
              rk_clip_name(ca), pos, height);
    cr_assert(rot <= 1e-5, "%s clip '%s': world rotations off by %g rad", what, rk_clip_name(ca),
              rot);
    worst = fmax(worst, pos / height);
  }
  return worst;
}

Test(fbx_roundtrip, every_shared_file) {
  g_autofree char *dir = fixture_tmpdir();
  double worst = 0;
  for (size_t i = 0; i < G_N_ELEMENTS(shared_files); i++) {
    g_autofree char *src = shared_path(shared_files[i]);
    g_autoptr(rk_asset) a = import_or_fail(src, NULL);
    g_autofree char *out = g_strdup_printf("%s/%zu.fbx", dir, i);
    worst = fmax(worst, round_trip(a, shared_files[i], out, NULL));
    /* Metres instead of centimetres: the same poses. */
    rk_export_options m = RK_EXPORT_OPTIONS_INIT;
    m.unit = RK_EXPORT_UNIT_METRES;
    g_autofree char *what = g_strdup_printf("%s (metres)", shared_files[i]);
    worst = fmax(worst, round_trip(a, what, out, &m));
  }
  printf("fbx roundtrip: largest error over the shared files %.3g of the height\n", worst);
  fixture_rmdir(dir);
}

Test(fbx_roundtrip, retarget_outputs) {
  g_autofree char *dir = fixture_tmpdir();
  g_autoptr(rk_asset) a = retarget_output("makehuman_walk1.bvh", "RiggedFigure.glb", true);
  g_autofree char *p1 = g_build_filename(dir, "walk_on_figure.fbx", NULL);
  round_trip(a, "walk -> RiggedFigure", p1, NULL);
  g_autoptr(rk_asset) b = retarget_output("RiggedFigure.glb", "makehuman_walk1.bvh", false);
  g_autofree char *p2 = g_build_filename(dir, "figure_on_makehuman.fbx", NULL);
  round_trip(b, "RiggedFigure -> makehuman", p2, NULL);
  fixture_rmdir(dir);
}

Test(fbx_roundtrip, character_with_meshes_step_and_cubic_tracks) {
  g_autoptr(rk_asset) a = fixture_character(45);
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *out = g_build_filename(dir, "character.fbx", NULL);
  round_trip(a, "character", out, NULL);
  g_autoptr(rk_asset) b = import_or_fail(out, NULL);
  /* Meshes: the skinned body, the rigid hat, the ground quad (renamed: a joint is called Hips). */
  cr_assert_eq(rk_asset_mesh_count(b), 3u);
  size_t skinned = 0;
  for (size_t i = 0; i < rk_asset_mesh_count(b); i++) {
    const rk_mesh_data *d = rk_mesh_data_get(rk_asset_mesh(b, i));
    skinned += d->joints != NULL;
    if (d->joints) { /* positions in model space, as written */
      const rk_mesh_data *o = rk_mesh_data_get(rk_asset_mesh(a, 0));
      cr_assert_str_eq(d->name, "body");
      cr_assert_not_null(d->normals);
      cr_assert_not_null(d->texcoords);
      cr_assert_geq(d->vertex_count, o->vertex_count);
      for (size_t v = 0; v < d->vertex_count; v++) {
        bool found = false;
        for (size_t w = 0; w < o->vertex_count && !found; w++)
          found = fabsf(d->positions[3 * v] - o->positions[3 * w]) < 1e-5f &&
                  fabsf(d->positions[3 * v + 1] - o->positions[3 * w + 1]) < 1e-5f &&
                  fabsf(d->positions[3 * v + 2] - o->positions[3 * w + 2]) < 1e-5f;
        cr_assert(found, "vertex %zu moved", v);
      }
    }
  }
  cr_assert_eq(skinned, 1u);
}

/* Every Tait-Bryan order, through the internal entry point: curves and Lcl Rotation in that
 * order, read back by Assimp with the RotationOrder property. */
Test(fbx_roundtrip, every_rotation_order) {
  g_autoptr(rk_skeleton) s = fixture_humanoid(true);
  g_autoptr(rk_asset) a = rk_asset_new(s);
  cr_assert(rk_asset_add_clip(a, fixture_walk(s, "walk", 40, 30)));
  g_autofree char *dir = fixture_tmpdir();
  static const rk_euler_order orders[] = {RK_EULER_XYZ, RK_EULER_XZY, RK_EULER_YXZ,
                                          RK_EULER_YZX, RK_EULER_ZXY, RK_EULER_ZYX};
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_euler_order *per_joint = g_new(rk_euler_order, n);
  for (size_t k = 0; k <= G_N_ELEMENTS(orders); k++) {
    /* one order for every joint, then a different order per joint */
    for (size_t j = 0; j < n; j++)
      per_joint[j] = k < G_N_ELEMENTS(orders) ? orders[k] : orders[j % G_N_ELEMENTS(orders)];
    g_autofree char *out = g_strdup_printf("%s/order%zu.fbx", dir, k);
    rk_export_options o = RK_EXPORT_OPTIONS_INIT;
    g_autoptr(GError) e = NULL;
    cr_assert(rk__fbx_write_orders(a, out, &o, per_joint, &e), "%s", e ? e->message : "");
    g_autoptr(rk_asset) b = import_or_fail(out, NULL);
    double pos = 0, rot = 0;
    compare_poses(a, rk_asset_clip(a, 0), b, rk_asset_clip(b, 0), 30, &pos, &rot);
    cr_assert(pos <= 1e-5 * rk_skeleton_rest_height(s) && rot <= 1e-5,
              "orders %zu: position error %g m, rotation error %g rad", k, pos, rot);
  }
  /* Proper Euler orders cannot be written. */
  for (size_t j = 0; j < n; j++)
    per_joint[j] = RK_EULER_ZXZ;
  g_autofree char *bad = g_build_filename(dir, "zxz.fbx", NULL);
  g_autoptr(GError) e = NULL;
  rk_export_options o = RK_EXPORT_OPTIONS_INIT;
  cr_assert_not(rk__fbx_write_orders(a, bad, &o, per_joint, &e));
  cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_UNSUPPORTED), "%s", e->message);
  cr_assert_not(g_file_test(bad, G_FILE_TEST_EXISTS));
  fixture_rmdir(dir);
}

/* The rotation curves of a joint spinning three times: no two consecutive keys more than 180
 * degrees apart, read from the file with rigkit's FBX reader. */
Test(fbx_roundtrip, euler_curves_never_jump) {
  g_autoptr(rk_skeleton) s = fixture_humanoid(true);
  g_autoptr(rk_asset) a = rk_asset_new(s);
  const size_t frames = 121;
  rk_clip *c = rk_clip_new("spin", rk_skeleton_joint_count(s));
  rk_clip_set_fps(c, 30);
  g_autofree double *t = g_new(double, frames), *v = g_new(double, 4 * frames);
  for (size_t f = 0; f < frames; f++) {
    t[f] = (double)f / 30;
    /* three turns about a tilted axis, plus a wobble through gimbal-lock territory */
    rk_quat q = rk_quat_from_axis_angle(rk_vec3_make(0.2, 1, 0.3), 6 * RK_PI * (double)f / 120);
    q = rk_quat_mul(q, rk_quat_from_axis_angle(rk_vec3_make(1, 0, 0), 1.5 * sin(t[f] * 5)));
    v[4 * f] = q.x, v[4 * f + 1] = q.y, v[4 * f + 2] = q.z, v[4 * f + 3] = q.w;
  }
  rk_track tr = {0, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, frames, t, v};
  cr_assert(rk_clip_add_track(c, &tr, NULL));
  cr_assert(rk_asset_add_clip(a, c));
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *out = g_build_filename(dir, "spin.fbx", NULL);
  round_trip(a, "spin", out, NULL);
  gchar *bytes = NULL;
  gsize size = 0;
  cr_assert(g_file_get_contents(out, &bytes, &size, NULL));
  rk__fbx_tree tree;
  cr_assert(rk__fbx_tree_parse((const uint8_t *)bytes, size, out, &tree, NULL));
  const rk__fbx_node *objects = rk__fbx_node_child(&tree.root, "Objects");
  size_t curves = 0;
  double total_turn = 0;
  for (size_t i = 0; i < objects->n_children; i++) {
    const rk__fbx_node *o = &objects->children[i];
    if (strcmp(o->name, "AnimationCurve") != 0)
      continue;
    g_autofree double *kv = NULL;
    size_t nk = 0;
    cr_assert(rk__fbx_prop_doubles(rk__fbx_node_prop(rk__fbx_node_child(o, "KeyValueFloat"), 0),
                                   &kv, &nk, NULL));
    cr_assert_eq(nk, frames);
    for (size_t k = 1; k < nk; k++)
      cr_assert_leq(fabs(kv[k] - kv[k - 1]), 180.0, "curve %zu jumps by %g degrees at key %zu",
                    curves, kv[k] - kv[k - 1], k);
    total_turn = fmax(total_turn, fabs(kv[nk - 1] - kv[0]));
    curves++;
  }
  cr_assert_eq(curves, 3u); /* one rotation curve node */
  cr_assert_gt(total_turn, 700.0, "the curves were not unwrapped (%g degrees)", total_turn);
  rk__fbx_tree_free(&tree);
  g_free(bytes);
  fixture_rmdir(dir);
}

Test(fbx_roundtrip, outputs_are_deterministic) {
  g_autofree char *d1 = fixture_tmpdir(), *d2 = fixture_tmpdir();
  for (size_t i = 0; i < G_N_ELEMENTS(shared_files); i++) {
    g_autofree char *src = shared_path(shared_files[i]);
    g_autofree char *p1 = g_strdup_printf("%s/a.fbx", d1), *p2 = g_strdup_printf("%s/b.fbx", d2);
    for (int pass = 0; pass < 2; pass++) { /* a fresh import each time, another path */
      g_autoptr(rk_asset) a = import_or_fail(src, NULL);
      write_or_fail(a, pass ? p2 : p1, NULL);
    }
    g_autofree char *c1 = NULL, *c2 = NULL;
    gsize l1 = 0, l2 = 0;
    cr_assert(g_file_get_contents(p1, &c1, &l1, NULL) && g_file_get_contents(p2, &c2, &l2, NULL));
    cr_assert(l1 == l2 && memcmp(c1, c2, l1) == 0, "%s: FBX output differs between runs",
              shared_files[i]);
  }
  fixture_rmdir(d1);
  fixture_rmdir(d2);
}
