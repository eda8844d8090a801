/* Round trips on every shared third-party file: import -> export (glb, gltf, bvh) -> import gives
 * the same joint names and count, the same clip durations and world joint positions within 1e-5
 * of the skeleton's height at every baked frame; every glTF/GLB written passes the Khronos
 * validator with 0 errors; outputs are byte-identical across runs. */
#include "shared_files.h"

#include <rigkit/reduce.h>

/* The rate the clip is compared at: its own, the one its keys sit on, else 30 fps. */
static double compare_fps(const rk_clip *c) {
  double f = rk_clip_infer_fps(c);
  return f > 0 ? f : 30;
}

/* Largest world distance between joints of the same name, over every frame of clip a at fps. */
static double max_error(const rk_asset *a, const rk_clip *ca, const rk_asset *b, const rk_clip *cb,
                        double fps) {
  const rk_skeleton *sa = rk_asset_skeleton(a), *sb = rk_asset_skeleton(b);
  const size_t na = rk_skeleton_joint_count(sa), nb = rk_skeleton_joint_count(sb);
  g_autofree rk_vec3 *pa = g_new(rk_vec3, na);
  g_autofree rk_vec3 *pb = g_new(rk_vec3, nb);
  g_autofree int *map = g_new(int, na);
  for (size_t j = 0; j < na; j++)
    map[j] = rk_skeleton_find_joint(sb, rk_skeleton_joint_name(sa, j));
  const double dur = rk_clip_duration(ca);
  const size_t frames = (size_t)llround(dur * fps) + 1;
  double worst = 0;
  for (size_t f = 0; f < frames; f++) {
    /* Frame f of each clip; a BVH's last frame may lie past a duration off its frame grid. */
    const double t = (double)f / fps;
    fixture_world_positions(sa, ca, fmin(t, dur), pa);
    fixture_world_positions(sb, cb, fmin(t, rk_clip_duration(cb)), pb);
    for (size_t j = 0; j < na; j++)
      worst = fmax(worst, rk_vec3_norm(rk_vec3_sub(pa[j], pb[map[j]])));
  }
  return worst;
}

static void same_joints(const rk_asset *a, const rk_asset *b, const char *what) {
  const rk_skeleton *sa = rk_asset_skeleton(a), *sb = rk_asset_skeleton(b);
  cr_assert_eq(rk_skeleton_joint_count(sb), rk_skeleton_joint_count(sa),
               "%s: %zu joints after the round trip, %zu before", what,
               rk_skeleton_joint_count(sb), rk_skeleton_joint_count(sa));
  for (size_t j = 0; j < rk_skeleton_joint_count(sa); j++)
    cr_assert(rk_skeleton_find_joint(sb, rk_skeleton_joint_name(sa, j)) >= 0,
              "%s: joint '%s' lost", what, rk_skeleton_joint_name(sa, j));
}

/* Largest angle between world rotations of joints of the same name (glTF keeps rest rotations,
 * so orientations must survive too, not only positions). */
static double max_rotation_error(const rk_asset *a, const rk_clip *ca, const rk_asset *b,
                                 const rk_clip *cb, double fps) {
  const rk_skeleton *sa = rk_asset_skeleton(a), *sb = rk_asset_skeleton(b);
  const size_t na = rk_skeleton_joint_count(sa), nb = rk_skeleton_joint_count(sb);
  g_autofree rk_transform *la = g_new(rk_transform, na), *lb = g_new(rk_transform, nb);
  g_autofree rk_mat4 *ma = g_new(rk_mat4, na), *mb = g_new(rk_mat4, nb);
  const double dur = rk_clip_duration(ca);
  const size_t frames = (size_t)llround(dur * fps) + 1;
  double worst = 0;
  for (size_t f = 0; f < frames; f++) {
    const double t = (double)f / fps;
    rk_clip_sample(ca, rk_skeleton_rest_locals(sa), fmin(t, dur), la, na);
    rk_clip_sample(cb, rk_skeleton_rest_locals(sb), fmin(t, rk_clip_duration(cb)), lb, nb);
    rk_fk_models(sa, la, ma);
    rk_fk_models(sb, lb, mb);
    for (size_t j = 0; j < na; j++) {
      rk_transform xa, xb;
      int k = rk_skeleton_find_joint(sb, rk_skeleton_joint_name(sa, j));
      cr_assert(rk_transform_from_mat4(&ma[j], &xa) && rk_transform_from_mat4(&mb[k], &xb));
      worst = fmax(worst, rk_quat_angle_between(xa.r, xb.r));
    }
  }
  return worst;
}

/* One file through one format; returns the largest relative error over its clips. */
static double round_trip(const char *name, const char *ext, const char *dir, GPtrArray *gltf_out) {
  g_autofree char *src = shared_path(name);
  g_autoptr(rk_asset) a = import_or_fail(src, NULL);
  const double height = fixture_reference_length(rk_asset_skeleton(a));
  cr_assert(height > 0, "%s: all joints at the origin", name);
  const bool bvh = strcmp(ext, "bvh") == 0;
  const size_t runs = bvh ? MAX(rk_asset_clip_count(a), 1) : 1;
  double worst_rel = 0;
  for (size_t r = 0; r < runs; r++) {
    g_autofree char *stem = g_path_get_basename(src);
    *strrchr(stem, '.') = '\0';
    g_autofree char *out = g_strdup_printf("%s/%s.%zu.%s", dir, stem, r, ext);
    rk_export_options eo = RK_EXPORT_OPTIONS_INIT;
    g_autofree char *clip_index = g_strdup_printf("%zu", r);
    if (bvh && rk_asset_clip_count(a) > 0)
      eo.clip = clip_index;
    g_autoptr(GError) e = NULL;
    cr_assert(rk_export_file(a, out, &eo, &e), "%s -> %s: %s", name, ext, e ? e->message : "");
    if (!bvh)
      g_ptr_array_add(gltf_out, g_strdup(out));
    rk_import_options io = RK_IMPORT_OPTIONS_INIT;
    if (bvh) { /* what the writer wrote: centimetres, Y up, absolute root position */
      io.unit_scale = 0.01;
      io.up_axis = "Y";
      io.bvh_root_offset = RK_BVH_ROOT_OFFSET_REPLACE;
    }
    g_autoptr(rk_asset) b = import_or_fail(out, &io);
    g_autofree char *what = g_strdup_printf("%s -> %s", name, ext);
    same_joints(a, b, what);
    if (rk_asset_clip_count(a) == 0) {
      cr_assert(bvh || rk_asset_clip_count(b) == 0);
      double err = 0;
      const size_t n = rk_skeleton_joint_count(rk_asset_skeleton(a));
      g_autofree rk_vec3 *pa = g_new(rk_vec3, n), *pb = g_new(rk_vec3, n);
      fixture_world_positions(rk_asset_skeleton(a), NULL, 0, pa);
      fixture_world_positions(rk_asset_skeleton(b), NULL, 0, pb);
      for (size_t j = 0; j < n; j++)
        err = fmax(err, rk_vec3_norm(rk_vec3_sub(
                            pa[j], pb[rk_skeleton_find_joint(rk_asset_skeleton(b),
                                                             rk_skeleton_joint_name(rk_asset_skeleton(a), j))])));
      worst_rel = fmax(worst_rel, err / height);
      continue;
    }
    const size_t first = bvh ? r : 0, count = bvh ? 1 : rk_asset_clip_count(a);
    cr_assert_eq(rk_asset_clip_count(b), count, "%s: %zu clips back, %zu written", what,
                 rk_asset_clip_count(b), count);
    for (size_t k = 0; k < count; k++) {
      const rk_clip *ca = rk_asset_clip(a, first + k), *cb = rk_asset_clip(b, k);
      const double fps = bvh ? rk_clip_fps(cb) : compare_fps(ca);
      /* glTF keeps times in float32; BVH keeps whole frames of the written rate. */
      const double dur_tol = bvh ? 0.5 / fps + 1e-6 : 1e-6 * fmax(1, rk_clip_duration(ca));
      cr_assert(fabs(rk_clip_duration(cb) - rk_clip_duration(ca)) <= dur_tol,
                "%s clip '%s': duration %.9g s back, %.9g s before", what, rk_clip_name(ca),
                rk_clip_duration(cb), rk_clip_duration(ca));
      if (!bvh)
        cr_assert_str_eq(rk_clip_name(cb), rk_clip_name(ca));
      const double err = max_error(a, ca, b, cb, fps);
      printf("roundtrip %-34s %-4s clip %-24s %5zu frames @ %6.2f fps: max error %.3g m = %.3g "
             "of size %.4g m\n",
             name, ext, rk_clip_name(ca), (size_t)llround(rk_clip_duration(ca) * fps) + 1, fps,
             err, err / height, height);
      cr_assert(err <= 1e-5 * height, "%s clip '%s': world positions off by %g m (height %g m)",
                what, rk_clip_name(ca), err, height);
      worst_rel = fmax(worst_rel, err / height);
      if (!bvh) {
        const double rot = max_rotation_error(a, ca, b, cb, fps);
        cr_assert(rot <= 1e-5, "%s clip '%s': world rotations off by %g rad", what,
                  rk_clip_name(ca), rot);
      }
    }
  }
  return worst_rel;
}

Test(roundtrip, every_shared_file_through_glb_gltf_bvh_and_the_validator) {
  g_autofree char *dir = fixture_tmpdir();
  g_autoptr(GPtrArray) gltf_out = g_ptr_array_new_with_free_func(g_free);
  static const char *const exts[] = {"glb", "gltf", "bvh"};
  for (size_t i = 0; i < G_N_ELEMENTS(shared_files); i++)
    for (size_t k = 0; k < G_N_ELEMENTS(exts); k++)
      round_trip(shared_files[i], exts[k], dir, gltf_out);
  g_ptr_array_add(gltf_out, NULL);
  g_autofree char *out = NULL;
  int status = fixture_validate((const char *const *)gltf_out->pdata, &out);
  printf("%s", out);
  cr_assert_eq(status, 0, "the validator found errors:\n%s", out);
  fixture_rmdir(dir);
}

Test(roundtrip, shared_file_outputs_are_deterministic) {
  g_autofree char *d1 = fixture_tmpdir();
  g_autofree char *d2 = fixture_tmpdir();
  static const char *const exts[] = {"glb", "gltf", "bin", "bvh"};
  for (size_t i = 0; i < G_N_ELEMENTS(shared_files); i++) {
    g_autofree char *src = shared_path(shared_files[i]);
    rk_export_options eo = RK_EXPORT_OPTIONS_INIT;
    eo.clip = "0";
    for (int pass = 0; pass < 2; pass++) {
      /* a fresh import each time: nothing may depend on addresses or hash order */
      g_autoptr(rk_asset) a = import_or_fail(src, NULL);
      const char *dir = pass ? d2 : d1;
      for (size_t k = 0; k < 3; k++) {
        if (k == 2 && rk_asset_clip_count(a) == 0)
          continue;
        g_autofree char *out = g_strdup_printf("%s/%zu.%s", dir, i, k == 2 ? "bvh" : exts[k]);
        rk_export_options o = eo;
        if (k < 2 || rk_asset_clip_count(a) == 0)
          o.clip = NULL;
        g_autoptr(GError) e = NULL;
        cr_assert(rk_export_file(a, out, &o, &e), "%s", e ? e->message : "");
      }
    }
    for (size_t k = 0; k < G_N_ELEMENTS(exts); k++) {
      g_autofree char *f1 = g_strdup_printf("%s/%zu.%s", d1, i, exts[k]);
      g_autofree char *f2 = g_strdup_printf("%s/%zu.%s", d2, i, exts[k]);
      g_autofree char *c1 = NULL, *c2 = NULL;
      gsize l1 = 0, l2 = 0;
      if (!g_file_get_contents(f1, &c1, &l1, NULL))
        continue;
      cr_assert(g_file_get_contents(f2, &c2, &l2, NULL));
      cr_assert(l1 == l2 && memcmp(c1, c2, l1) == 0, "%s: .%s differs between runs",
                shared_files[i], exts[k]);
    }
  }
  fixture_rmdir(d1);
  fixture_rmdir(d2);
}
