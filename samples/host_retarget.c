/* A minimal DCC host: loads librigkit_plugin.so with dlopen, retargets a mocap clip onto a
 * character through the plugin ABI (rigkit/plugin.h only: no other rigkit header, no GLib), and
 * prints the frames, a few keys and the contacts.
 *
 *   sample_host_retarget [CLIP [CHARACTER [PLUGIN]]]
 *
 * Defaults: tests/data/makehuman_walk1.bvh onto tests/data/RiggedFigure.glb, and the plugin the
 * build made (RK_SAMPLE_PLUGIN; a bare "librigkit_plugin.so" would be searched by the dynamic
 * loader). The character is handed to the plugin the way a host hands over its own
 * armature: as arrays of names, parents and rest transforms in the host's space (here Z-up
 * centimetres), and the keys come back in that space. Then the other direction (ABI 2): those
 * keys on the host's armature become the source of a second retarget (asset_from_host), as a
 * host retargets an animation already in its scene. Exit code 0 on success, 1 on any failure
 * (with the plugin's message). */
#include <rigkit/plugin.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef RK_SAMPLE_DATA_DIR
#define RK_SAMPLE_DATA_DIR "tests/data"
#endif
#ifndef RK_SAMPLE_PLUGIN
#define RK_SAMPLE_PLUGIN "librigkit_plugin.so"
#endif

static int fail(const char *what, const rk_plugin_api *rk, int status, const char *err) {
  fprintf(stderr, "host_retarget: %s failed (%s): %s\n", what, rk ? rk->status_name(status) : "?",
          err);
  return 1;
}

/* The host's armature with its keys t, q (LOCAL, frame-major, in `host` space) as the source of a
 * retarget onto `character`: prints how far the root lands from where the keys put it. */
static int retarget_host_keys(const rk_plugin_api *rk, const rk_plugin_skeleton *armature,
                              rk_plugin_space host, const rk_plugin_result *r, const float *t,
                              const float *q, const char *char_path) {
  char err[512] = "";
  const rk_plugin_host_clip keys = {.skeleton = armature,
                                    .space = host,
                                    .keys = RK_PLUGIN_KEYS_LOCAL,
                                    .frame_count = r->frames,
                                    .fps = r->fps,
                                    .translations = t,
                                    .rotations = q,
                                    .name = "walk on the armature",
                                    .label = "armature"};
  rk_plugin_asset *src = NULL, *character = NULL;
  int st = rk->asset_from_host(&keys, &src, err, sizeof err);
  if (st)
    return fail("taking the armature's keys", rk, st, err);
  if ((st = rk->asset_open_file(char_path, NULL, &character, err, sizeof err)))
    return fail("opening the character", rk, st, err);
  rk_plugin_asset_info ai;
  rk->asset_info(character, &ai, err, sizeof err);
  printf("character read %s (%u joints, %u mesh)\n",
         ai.isolated ? "in the import helper process" : "in this process", ai.joint_count,
         ai.mesh_count);
  rk_plugin_session_desc desc = {.source = src, .target_asset = character, .space = host,
                                 .settings = RK_PLUGIN_SETTINGS_INIT};
  desc.settings.root_motion = 1;
  rk_plugin_session *s = NULL;
  if ((st = rk->session_new(&desc, &s, err, sizeof err)) || (st = rk->session_run(s, err, sizeof err)))
    return fail("retargeting the armature's keys", rk, st, err);
  rk_plugin_result again;
  rk->session_result(s, &again, err, sizeof err);
  const uint32_t n = armature->joint_count;
  float *t2 = malloc((size_t)again.frames * n * 3 * sizeof *t2);
  if (!t2 || again.frames != r->frames)
    return 1;
  if ((st = rk->session_keys(s, RK_PLUGIN_KEYS_LOCAL, 0, again.frames, t2, NULL, NULL, err,
                             sizeof err)))
    return fail("reading keys", rk, st, err);
  /* The armature is the character: its own path comes back (the root is joint 0 of both; Z is
   * up, and the height may move by the one ground offset rigkit fits per clip). */
  double worst = 0;
  for (uint32_t f = 0; f < again.frames; f++) {
    const float *a = t2 + (size_t)f * n * 3, *b = t + (size_t)f * n * 3;
    worst = fmax(worst, hypot(a[0] - b[0], a[1] - b[1]));
  }
  printf("the armature's keys as the source: %u frames at %g fps, %u bones mapped, %s's path "
         "within %.2f cm of its own keys\n",
         again.frames, again.fps, again.mapped_bones, armature->names[0], worst);
  free(t2);
  rk->session_close(s);
  rk->asset_close(src);
  rk->asset_close(character);
  return 0;
}

int main(int argc, char **argv) {
  const char *clip_path = argc > 1 ? argv[1] : RK_SAMPLE_DATA_DIR "/makehuman_walk1.bvh";
  const char *char_path = argc > 2 ? argv[2] : RK_SAMPLE_DATA_DIR "/RiggedFigure.glb";
  const char *plugin = argc > 3 ? argv[3] : RK_SAMPLE_PLUGIN;

  void *so = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
  if (!so) {
    fprintf(stderr, "host_retarget: cannot load %s: %s\n", plugin, dlerror());
    return 1;
  }
  rk_plugin_get_api_fn get_api = (rk_plugin_get_api_fn)dlsym(so, RK_PLUGIN_ENTRY_POINT);
  if (!get_api) {
    fprintf(stderr, "host_retarget: %s has no %s\n", plugin, RK_PLUGIN_ENTRY_POINT);
    return 1;
  }
  const rk_plugin_api *rk = get_api(RK_PLUGIN_ABI_VERSION);
  if (!rk) {
    fprintf(stderr, "host_retarget: %s\n", get_api(RK_PLUGIN_ABI_QUERY)->info.message);
    return 1;
  }
  printf("rigkit plugin %s, ABI %u\n", rk->info.rigkit_version, rk->info.abi_version);

  char err[512] = "";
  rk_plugin_asset *clip = NULL, *character = NULL;
  int st = rk->asset_open_file(clip_path, NULL, &clip, err, sizeof err);
  if (st)
    return fail("opening the clip", rk, st, err);
  if ((st = rk->asset_open_file(char_path, NULL, &character, err, sizeof err)))
    return fail("opening the character", rk, st, err);
  rk_plugin_clip_info ci;
  if ((st = rk->asset_clip(clip, 0, &ci, err, sizeof err)))
    return fail("reading the clip", rk, st, err);
  printf("clip '%s': %.3f s, %u frames at %g fps\n", ci.name, ci.duration_s, ci.frames, ci.fps);

  /* The host's armature: here the character's joints, read back in Z-up centimetres. */
  const rk_plugin_space host = {RK_PLUGIN_UP_Z, 0.01f};
  rk_plugin_asset_info ai;
  if ((st = rk->asset_info(character, &ai, err, sizeof err)))
    return fail("reading the character", rk, st, err);
  const uint32_t n = ai.joint_count;
  const char **names = calloc(n, sizeof *names);
  int32_t *parents = calloc(n, sizeof *parents);
  float *rest = calloc((size_t)n * RK_PLUGIN_TRS_FLOATS, sizeof *rest);
  if (!names || !parents || !rest)
    return 1;
  if ((st = rk->asset_joints(character, &host, n, names, parents, rest, NULL, err, sizeof err)))
    return fail("listing joints", rk, st, err);
  const rk_plugin_skeleton armature = {
      .joint_count = n, .names = names, .parents = parents, .rest = rest};

  rk_plugin_session_desc desc = {.source = clip,
                                 .source_clip = 0,
                                 .target_skeleton = &armature,
                                 .space = host,
                                 .settings = RK_PLUGIN_SETTINGS_INIT};
  desc.settings.root_motion = 1; /* the walk is in place: let it travel so feet can plant */
  rk_plugin_session *s = NULL;
  if ((st = rk->session_new(&desc, &s, err, sizeof err)))
    return fail("building the session", rk, st, err);
  /* The session keeps what it needs: the host may close the assets now. The joint names were
   * borrowed from the character, so take them from the session instead (the host's order). */
  rk->asset_close(clip);
  rk->asset_close(character);
  if ((st = rk->session_joints(s, n, names, NULL, NULL, NULL, err, sizeof err)))
    return fail("listing the session's joints", rk, st, err);
  if ((st = rk->session_run(s, err, sizeof err)))
    return fail("retargeting", rk, st, err);
  rk_plugin_result r;
  if ((st = rk->session_result(s, &r, err, sizeof err)))
    return fail("reading the result", rk, st, err);
  printf("retargeted: %u frames at %g fps, %u joints, %u bones mapped, %.1f ms\n", r.frames, r.fps,
         r.joint_count, r.mapped_bones, r.run_seconds * 1e3);
  printf("quality: foot skate max %.3f mm (without IK %.1f mm), IK goal error max %.4f mm\n",
         r.foot_skate_max_mm, r.foot_skate_fk_max_mm, r.ik_goal_error_max_mm);

  /* Every key, frame-major, in the host's space: local translations (cm) and rotations. */
  const size_t keys = (size_t)r.frames * n;
  float *t = malloc(keys * 3 * sizeof *t), *q = malloc(keys * 4 * sizeof *q);
  if (!t || !q)
    return 1;
  if ((st = rk->session_keys(s, RK_PLUGIN_KEYS_LOCAL, 0, r.frames, t, q, NULL, err, sizeof err)))
    return fail("reading keys", rk, st, err);
  const uint32_t shown[3] = {0, r.frames / 2, r.frames - 1};
  for (int i = 0; i < 3; i++) {
    const float *tr = t + (size_t)shown[i] * n * 3, *ro = q + (size_t)shown[i] * n * 4;
    printf("frame %3u  %s t=(%.2f, %.2f, %.2f) cm  %s q=(%.4f, %.4f, %.4f, %.4f)\n", shown[i],
           names[0], tr[0], tr[1], tr[2], names[n - 1], ro[(n - 1) * 4], ro[(n - 1) * 4 + 1],
           ro[(n - 1) * 4 + 2], ro[(n - 1) * 4 + 3]);
  }
  for (uint32_t c = 0; c < r.contact_count; c++) {
    int32_t joint, iv[64];
    uint32_t count = 0;
    if ((st = rk->session_contact(s, c, &joint, 32, iv, &count, err, sizeof err)))
      return fail("reading contacts", rk, st, err);
    printf("contact %s:", names[joint]);
    for (uint32_t k = 0; k < count; k++)
      printf(" [%d, %d]", iv[2 * k], iv[2 * k + 1]);
    printf("\n");
  }
  if (retarget_host_keys(rk, &armature, host, &r, t, q, char_path))
    return 1;
  rk->session_close(s);
  free(t), free(q), free(names), free(parents), free(rest);
  dlclose(so);
  return 0;
}
