/* Thread safety: the library used from several threads at once gives exactly what one thread
 * gives. Four threads at once, each in its own order and twice over:
 *  - rk_import_file of glTF, GLB, FBX, BVH and DH files, good and malformed (Assimp imports are
 *    serialised inside rigkit by a mutex, rigkit's own readers are not);
 *  - rk_retargeter_run of three clips with three option sets on ONE shared retargeter (the
 *    MakeHuman walk onto RiggedFigure; the third set at 1000 fps, each run's frames in two
 *    halves on two threads);
 *  - rk_export_file of different assets to glb, gltf and bvh files (each thread its own files).
 * Each result is reduced to a SHA-256 of its bytes (rest poses, sampled poses, quality figures,
 * contacts, file bytes, error messages) and must equal the one-thread result bit for bit.
 * A plain program rather than a Criterion suite because Criterion's runner crashes under
 * ThreadSanitizer; CTest runs it in every build (test threads/thread_check), and built with
 * -DRK_TSAN=ON under ThreadSanitizer (.ci/run; tests/fuzz/README.md "Thread safety").
 * Exit code 0 = every result equal, 1 = a difference or a failed fixture (printed). */
#include <glib/gstdio.h>
#include <rigkit/importers.h>
#include <rigkit/rigkit.h>
#include <stdio.h>
#include <string.h>
#include <rigkit/exporters.h>
#include <rigkit/humanoid.h>
#include <rigkit/retarget.h>

#define THREADS 4
#define ROUNDS 2

static int failures;

/* Records a failure (main thread only) and returns whether cond held. */
#define CHECK(cond, ...)                                                                          \
  ((cond) ? true : (fprintf(stderr, "thread_check: " __VA_ARGS__), fputc('\n', stderr),         \
                    failures++, false))

static char *data_path(const char *name) {
  return g_build_filename(RK_TEST_DATA_DIR, name, NULL);
}

/* A fixture that must import; exits with the error otherwise. */
static rk_asset *import_ok(const char *name) {
  g_autofree char *path = data_path(name);
  g_autoptr(GError) error = NULL;
  rk_asset *a = rk_import_file(path, NULL, &error);
  if (!a) {
    fprintf(stderr, "thread_check: cannot import %s: %s\n", path, error ? error->message : "?");
    exit(1);
  }
  return a;
}

static const char *const import_files[] = {
    "makehuman_walk1.bvh",          "RiggedFigure.glb",
    "SimpleSkin.gltf",              "Fox.glb",
    "assimp_huesitos.fbx",          "huesitos_prerotation_pivots.fbx",
    "iiwa14.dh",                    "crafted/planar_rrp.dh",
    "crafted/interpolation.gltf",   "crafted/human_zup_in_offset_root.bvh",
    "crafted/dup_names.gltf",       "bad/bvh_nan.bvh",
    "bad/truncated.glb",            "bad/gltf_child_cycle.gltf",
    "bad/fbx_garbage.fbx",          "bad/dh_frame_mismatch.dh",
};
#define N_IMPORTS G_N_ELEMENTS(import_files)

/* ---- fingerprints ------------------------------------------------------------------------------ */

static void hash_clip(GChecksum *h, const rk_skeleton *s, const rk_clip *clip, double fps,
                      size_t frames) {
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_transform *locals = g_new(rk_transform, n);
  for (size_t f = 0; f < frames; f++) {
    rk_clip_sample_frame(clip, rk_skeleton_rest_locals(s), fps, f, locals, n);
    g_checksum_update(h, (const guchar *)locals, (gssize)(n * sizeof *locals));
  }
}

static char *fingerprint_import(const char *name) {
  g_autofree char *path = data_path(name);
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_asset) a = rk_import_file(path, NULL, &error);
  if (!a)
    return g_strdup_printf("error %d: %s", error ? error->code : -1, error ? error->message : "");
  GChecksum *h = g_checksum_new(G_CHECKSUM_SHA256);
  const rk_skeleton *s = rk_asset_skeleton(a);
  for (size_t j = 0; j < rk_skeleton_joint_count(s); j++) {
    g_checksum_update(h, (const guchar *)rk_skeleton_joint_name(s, j), -1);
    const int parent = rk_skeleton_parent(s, j);
    g_checksum_update(h, (const guchar *)&parent, sizeof parent);
    g_checksum_update(h, (const guchar *)rk_skeleton_rest(s, j), sizeof(rk_transform));
  }
  for (size_t c = 0; c < rk_asset_clip_count(a); c++) {
    const rk_clip *clip = rk_asset_clip(a, c);
    g_checksum_update(h, (const guchar *)rk_clip_name(clip), -1);
    hash_clip(h, s, clip, 60, (size_t)(rk_clip_duration(clip) * 60) + 1);
  }
  for (size_t m = 0; m < rk_asset_mesh_count(a); m++) {
    const rk_mesh_data *d = rk_mesh_data_get(rk_asset_mesh(a, m));
    g_checksum_update(h, (const guchar *)d->positions, (gssize)(d->vertex_count * 3 * sizeof(float)));
    if (d->weights)
      g_checksum_update(h, (const guchar *)d->weights, (gssize)(d->vertex_count * 4 * sizeof(float)));
  }
  for (size_t k = 0; k < rk_asset_note_count(a); k++)
    g_checksum_update(h, (const guchar *)rk_asset_note(a, k), -1);
  char *out = g_strdup(g_checksum_get_string(h));
  g_checksum_free(h);
  return out;
}

/* ---- retargeting ------------------------------------------------------------------------------- */

typedef struct retarget_fixture {
  rk_asset *source, *target;
  rk_retargeter *rt; /* shared by every thread */
  rk_clip *clips[3];
  rk_retarget_options opts[3];
} retarget_fixture;

#define N_RETARGETS 9

static char *fingerprint_retarget(const retarget_fixture *fx, size_t job) {
  const rk_clip *clip = fx->clips[job % 3];
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_retarget_result) r = rk_retargeter_run(fx->rt, clip, &fx->opts[job / 3], &error);
  if (!r)
    return g_strdup_printf("error: %s", error ? error->message : "");
  GChecksum *h = g_checksum_new(G_CHECKSUM_SHA256);
  const rk_skeleton *ts = rk_asset_skeleton(fx->target);
  hash_clip(h, ts, rk_retarget_result_clip(r), rk_retarget_result_fps(r),
            rk_retarget_result_frames(r));
  g_checksum_update(h, (const guchar *)rk_retarget_result_quality(r), sizeof(rk_retarget_quality));
  for (size_t c = 0; c < rk_retarget_result_contact_count(r); c++) {
    const rk_foot_contacts fc = rk_retarget_result_contacts(r, c);
    g_checksum_update(h, (const guchar *)&fc.joint, sizeof fc.joint);
    g_checksum_update(h, (const guchar *)fc.intervals,
                      (gssize)(fc.count * sizeof(rk_contact_interval)));
  }
  char *out = g_strdup(g_checksum_get_string(h));
  g_checksum_free(h);
  return out;
}

static bool retarget_fixture_init(retarget_fixture *fx) {
  fx->source = import_ok("makehuman_walk1.bvh");
  fx->target = import_ok("RiggedFigure.glb");
  rk_humanoid_map sm, tm;
  g_autoptr(GError) error = NULL;
  if (!CHECK(rk_humanoid_map_build(rk_asset_skeleton(fx->source), NULL, &sm, &error) &&
                 rk_humanoid_map_build(rk_asset_skeleton(fx->target), NULL, &tm, &error),
             "map: %s", error ? error->message : ""))
    return false;
  fx->rt = rk_retargeter_new(rk_asset_skeleton(fx->source), &sm, rk_asset_skeleton(fx->target),
                             &tm, &error);
  if (!CHECK(fx->rt, "retargeter: %s", error ? error->message : ""))
    return false;
  const rk_clip *walk = rk_asset_clip(fx->source, 0);
  const rk_transform *rest = rk_skeleton_rest_locals(rk_asset_skeleton(fx->source));
  fx->clips[0] = rk_clip_copy(walk);
  fx->clips[1] = rk_clip_bake(walk, rest, 30, NULL);
  fx->clips[2] = rk_clip_bake(walk, rest, 50, NULL);
  if (!CHECK(fx->clips[1] && fx->clips[2], "bake"))
    return false;
  for (int k = 0; k < 3; k++)
    fx->opts[k] = (rk_retarget_options)RK_RETARGET_OPTIONS_INIT;
  fx->opts[1].foot_ik = false;
  fx->opts[2].hand_ik = true;
  fx->opts[2].root_motion = true;
  /* 542 frames and more: each run's frames in two halves on two threads of its own. */
  fx->opts[2].fps = 1000;
  fx->opts[2].threads = 2;
  return true;
}

static void retarget_fixture_clear(retarget_fixture *fx) {
  for (int k = 0; k < 3; k++)
    rk_clip_free(fx->clips[k]);
  rk_retargeter_free(fx->rt);
  rk_asset_free(fx->source);
  rk_asset_free(fx->target);
}

/* ---- export ------------------------------------------------------------------------------------ */

static const char *const export_exts[] = {"glb", "gltf", "bvh"};
#define N_EXPORTS (2 * G_N_ELEMENTS(export_exts))

/* Writes asset (job / 3) of the fixture as format (job % 3) into dir; returns the SHA-256 of
 * the file (and of the .bin beside a .gltf). */
static char *fingerprint_export(const retarget_fixture *fx, size_t job, const char *dir) {
  const rk_asset *a = job / 3 ? fx->target : fx->source;
  const char *ext = export_exts[job % 3];
  g_autofree char *path = g_strdup_printf("%s/asset%zu.%s", dir, job / 3, ext);
  rk_export_options o = RK_EXPORT_OPTIONS_INIT;
  o.clip = "0";
  g_autoptr(GError) error = NULL;
  if (!rk_export_file(a, path, &o, &error))
    return g_strdup_printf("error: %s", error ? error->message : "");
  GChecksum *h = g_checksum_new(G_CHECKSUM_SHA256);
  g_autofree char *bin = g_strdup_printf("%s/asset%zu.bin", dir, job / 3);
  const char *files[] = {path, job % 3 == 1 ? bin : NULL};
  for (size_t f = 0; f < 2 && files[f]; f++) {
    g_autofree char *bytes = NULL;
    gsize len = 0;
    if (g_file_get_contents(files[f], &bytes, &len, NULL))
      g_checksum_update(h, (const guchar *)bytes, (gssize)len);
    g_remove(files[f]);
  }
  char *out = g_strdup(g_checksum_get_string(h));
  g_checksum_free(h);
  return out;
}

/* ---- threads ----------------------------------------------------------------------------------- */

/* First use: before anything else has touched the library (lazily initialised state such as the
 * error quark or CPU dispatch), threads import a good and a malformed file at once. */
static const char *const cold_files[] = {"bad/dh_frame_mismatch.dh", "iiwa14.dh",
                                         "bad/bvh_nan.bvh"};
#define N_COLD G_N_ELEMENTS(cold_files)

typedef struct cold_worker {
  char *results[N_COLD];
} cold_worker;

static gpointer cold_work(gpointer data) {
  cold_worker *w = data;
  for (size_t k = 0; k < N_COLD; k++)
    w->results[k] = fingerprint_import(cold_files[k]);
  return NULL;
}

typedef struct worker {
  int id;
  const retarget_fixture *fx;
  char *dir;
  char *imports[ROUNDS][N_IMPORTS];
  char *retargets[ROUNDS][N_RETARGETS];
  char *exports[ROUNDS][N_EXPORTS];
} worker;

/* Each worker interleaves the three kinds of work, starting at a different place. */
static gpointer work(gpointer data) {
  worker *w = data;
  for (int round = 0; round < ROUNDS; round++) {
    const size_t total = N_IMPORTS + N_RETARGETS + N_EXPORTS;
    for (size_t step = 0; step < total; step++) {
      const size_t k = (step * 7 + (size_t)w->id * 5 + (size_t)round) % total;
      if (k < N_IMPORTS)
        w->imports[round][k] = fingerprint_import(import_files[k]);
      else if (k < N_IMPORTS + N_RETARGETS)
        w->retargets[round][k - N_IMPORTS] = fingerprint_retarget(w->fx, k - N_IMPORTS);
      else
        w->exports[round][k - N_IMPORTS - N_RETARGETS] =
            fingerprint_export(w->fx, k - N_IMPORTS - N_RETARGETS, w->dir);
    }
  }
  return NULL;
}

int main(void) {
  cold_worker cold[THREADS] = {0};
  GThread *ct[THREADS];
  for (int i = 0; i < THREADS; i++)
    ct[i] = g_thread_new("rigkit-cold", cold_work, &cold[i]);
  for (int i = 0; i < THREADS; i++)
    g_thread_join(ct[i]);
  for (size_t k = 0; k < N_COLD; k++) {
    g_autofree char *ref = fingerprint_import(cold_files[k]);
    for (int i = 0; i < THREADS; i++) {
      CHECK(!strcmp(cold[i].results[k], ref), "thread %d: first-use import of %s differs", i,
            cold_files[k]);
      g_free(cold[i].results[k]);
    }
  }
  retarget_fixture fx = {0};
  if (!retarget_fixture_init(&fx))
    return 1;
  g_autoptr(GError) error = NULL;
  /* One thread: the reference. */
  g_autofree char *ref_dir = g_dir_make_tmp("rigkit-threads-XXXXXX", &error);
  if (!CHECK(ref_dir, "tmpdir: %s", error ? error->message : ""))
    return 1;
  char *ref_imports[N_IMPORTS], *ref_retargets[N_RETARGETS], *ref_exports[N_EXPORTS];
  for (size_t k = 0; k < N_IMPORTS; k++)
    ref_imports[k] = fingerprint_import(import_files[k]);
  for (size_t k = 0; k < N_RETARGETS; k++)
    ref_retargets[k] = fingerprint_retarget(&fx, k);
  for (size_t k = 0; k < N_EXPORTS; k++)
    ref_exports[k] = fingerprint_export(&fx, k, ref_dir);
  size_t failed_imports = 0;
  for (size_t k = 0; k < N_IMPORTS; k++)
    failed_imports += g_str_has_prefix(ref_imports[k], "error");
  CHECK(failed_imports == 5, "%zu imports failed; only the 5 malformed files should",
        failed_imports);
  for (size_t k = 0; k < N_RETARGETS; k++)
    CHECK(!g_str_has_prefix(ref_retargets[k], "error"), "retarget %zu: %s", k, ref_retargets[k]);
  for (size_t k = 0; k < N_EXPORTS; k++)
    CHECK(!g_str_has_prefix(ref_exports[k], "error"), "export %zu: %s", k, ref_exports[k]);

  /* THREADS at once. */
  worker *w = g_new0(worker, THREADS);
  GThread *t[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i].id = i;
    w[i].fx = &fx;
    w[i].dir = g_dir_make_tmp("rigkit-threads-XXXXXX", NULL);
    if (!CHECK(w[i].dir, "tmpdir"))
      return 1;
    t[i] = g_thread_new("rigkit-test", work, &w[i]);
  }
  for (int i = 0; i < THREADS; i++)
    g_thread_join(t[i]);
  for (int i = 0; i < THREADS; i++) {
    for (int r = 0; r < ROUNDS; r++) {
      for (size_t k = 0; k < N_IMPORTS; k++)
        CHECK(!strcmp(w[i].imports[r][k], ref_imports[k]), "thread %d: import of %s differs", i,
              import_files[k]);
      for (size_t k = 0; k < N_RETARGETS; k++)
        CHECK(!strcmp(w[i].retargets[r][k], ref_retargets[k]),
              "thread %d: retarget of clip %zu with options %zu differs", i, k % 3, k / 3);
      for (size_t k = 0; k < N_EXPORTS; k++)
        CHECK(!strcmp(w[i].exports[r][k], ref_exports[k]), "thread %d: .%s export differs", i,
              export_exts[k % 3]);
      for (size_t k = 0; k < N_IMPORTS; k++)
        g_free(w[i].imports[r][k]);
      for (size_t k = 0; k < N_RETARGETS; k++)
        g_free(w[i].retargets[r][k]);
      for (size_t k = 0; k < N_EXPORTS; k++)
        g_free(w[i].exports[r][k]);
    }
    g_rmdir(w[i].dir);
    g_free(w[i].dir);
  }
  g_free(w);
  for (size_t k = 0; k < N_IMPORTS; k++)
    g_free(ref_imports[k]);
  for (size_t k = 0; k < N_RETARGETS; k++)
    g_free(ref_retargets[k]);
  for (size_t k = 0; k < N_EXPORTS; k++)
    g_free(ref_exports[k]);
  g_rmdir(ref_dir);
  retarget_fixture_clear(&fx);
  printf("thread_check: %d threads x %d rounds of %zu imports, %d retargets on one retargeter, "
         "%zu exports: %s\n", THREADS, ROUNDS, N_IMPORTS, N_RETARGETS, N_EXPORTS,
         failures ? "DIFFERENCES" : "all equal to one thread");
  return failures ? 1 : 0;
}
