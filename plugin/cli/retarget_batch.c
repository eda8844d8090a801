/* `rigkit retarget`: the batch runner. One task per source file on a GThreadPool; per clip:
 * retarget, reduce (optional), export atomically, read the output back and measure it, plot
 * (optional), journal. See retarget_batch.h. */
#include "retarget_batch.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

/* Set by the SIGINT/SIGTERM handler, read between clips: the only thing the handler does. */
static volatile sig_atomic_t stop_signal = 0;

static void on_signal(int signo) {
  stop_signal = signo;
}

/* A source rig (by skeleton fingerprint): its retargeter or why there is none. */
typedef struct rig {
  rk_retargeter *rt;
  rk_humanoid_map map; /* the source rig's map */
  char *error;
} rig;

static void rig_free(gpointer p) {
  rig *r = p;
  rk_retargeter_free(r->rt);
  g_free(r->error);
  g_free(r);
}

typedef struct batch {
  const rk__rt_config *cfg;
  rk__rt_input *inputs;
  size_t n;
  rk__rt_journal *journal;
  GMutex lock; /* everything below, and stderr */
  GCond changed;
  size_t files_done, clips_done, clips_known, frames;
  size_t ok, failed, resumed;
  GHashTable *rigs;    /* fingerprint -> rig (built under lock) */
  GHashTable *claimed; /* output path -> "source: clip" that writes it */
  gint64 t0;
  bool bar_shown;
} batch;

/* ---- helpers ---------------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

char *rk__rt_stem(const char *path) {
  char *base = g_path_get_basename(path);
  char *dot = strrchr(base, '.');
  if (dot && dot != base)
    *dot = '\0';
  return base;
}

/* A clip name made safe as part of a file name. */
static char *safe_name(const char *name) {
  char *s = g_strdup(name && *name ? name : "clip");
  for (char *p = s; *p; p++)
    if (*p == '/' || *p == '\\' || *p == ':' || *p == '|' || (unsigned char)*p < 0x20 ||
        *p == '*' || *p == '?' || *p == '"' || *p == '<' || *p == '>')
      *p = '_';
  return s;
}

char *rk__rt_output_path(const rk__rt_config *cfg, const char *source, const char *clip_name,
                         size_t clip_count) {
  if (cfg->out_file)
    return g_strdup(cfg->out_file);
  g_autofree char *stem = rk__rt_stem(source);
  g_autofree char *clip = safe_name(clip_name);
  g_autofree char *name = clip_count > 1 ? g_strdup_printf("%s_%s%s", stem, clip, cfg->ext)
                                         : g_strdup_printf("%s%s", stem, cfg->ext);
  return g_build_filename(cfg->out_dir, name, NULL);
}

char *rk__rt_skeleton_fingerprint(const rk_skeleton *s) {
  g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
  const size_t n = rk_skeleton_joint_count(s);
  guint64 count = n;
  g_checksum_update(sum, (const guchar *)&count, sizeof count);
  for (size_t j = 0; j < n; j++) {
    const char *name = rk_skeleton_joint_name(s, j);
    g_checksum_update(sum, (const guchar *)name, (gssize)strlen(name) + 1);
    gint32 par = rk_skeleton_parent(s, j);
    guint32 flags = rk_skeleton_joint_flags(s, j);
    const rk_transform *r = rk_skeleton_rest(s, j);
    double v[10] = {r->t.x, r->t.y, r->t.z, r->r.x, r->r.y, r->r.z, r->r.w, r->s.x, r->s.y, r->s.z};
    g_checksum_update(sum, (const guchar *)&par, sizeof par);
    g_checksum_update(sum, (const guchar *)&flags, sizeof flags);
    g_checksum_update(sum, (const guchar *)v, sizeof v);
  }
  return g_strdup(g_checksum_get_string(sum));
}

static double now_s(const batch *b) {
  return (double)(g_get_monotonic_time() - b->t0) / G_USEC_PER_SEC;
}

/* Prints a line on stderr (caller holds b->lock), clearing the progress bar first. */
static void say_locked(batch *b, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void say_locked(batch *b, const char *fmt, ...) {
  if (b->bar_shown) {
    fputs("\r\033[K", stderr);
    b->bar_shown = false;
  }
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

static void draw_bar_locked(batch *b) {
  const double t = now_s(b);
  const size_t total = MAX(b->clips_known, b->clips_done);
  const int width = 24;
  const int fill = total ? (int)((double)width * (double)b->clips_done / (double)total) : 0;
  char bar[32];
  for (int i = 0; i < width; i++)
    bar[i] = i < fill ? '#' : '.';
  bar[width] = '\0';
  GString *s = g_string_new(NULL);
  g_string_append_printf(s, "\r\033[K[%s] %zu/%zu clips", bar, b->clips_done, total);
  if (b->failed)
    g_string_append_printf(s, ", %zu failed", b->failed);
  if (t > 0.5 && b->frames > 0)
    g_string_append_printf(s, ", %.0f frames/s", (double)b->frames / t);
  if (b->files_done > 0 && b->files_done < b->n && t > 0.5) {
    const double eta = t * (double)(b->n - b->files_done) / (double)b->files_done;
    g_string_append_printf(s, ", ETA %d:%02d", (int)eta / 60, (int)eta % 60);
  }
  if (stop_signal)
    g_string_append(s, " (stopping)");
  fputs(s->str, stderr);
  fflush(stderr);
  g_string_free(s, TRUE);
  b->bar_shown = true;
}

/* The retargeter for a source skeleton: built once per distinct skeleton (the source map, then the
 * retargeter onto the shared target), under the batch lock. */
static rig *rig_for(batch *b, rk_skeleton *s) {
  g_autofree char *fp = rk__rt_skeleton_fingerprint(s);
  g_mutex_lock(&b->lock);
  rig *r = g_hash_table_lookup(b->rigs, fp);
  if (!r) {
    r = g_new0(rig, 1);
    g_autoptr(GError) e = NULL;
    if (!rk_profile_map_rig(b->cfg->profile, s, RK_PROFILE_SOURCE, &r->map, &e)) {
      r->error = g_strdup_printf("source rig cannot be mapped: %s", e->message);
    } else {
      r->rt = rk_retargeter_new(s, &r->map, rk_asset_skeleton(b->cfg->target), &b->cfg->target_map,
                                &e);
      if (!r->rt)
        r->error = g_strdup(e->message);
    }
    g_hash_table_insert(b->rigs, g_steal_pointer(&fp), r);
  }
  g_mutex_unlock(&b->lock);
  return r;
}

/* World positions of `joints` (-1: origin) at every frame of a clip of skeleton s at rate fps. */
static rk_vec3 *joint_positions(const rk_skeleton *s, const rk_clip *c, double fps, size_t frames,
                                const int *joints, size_t nj) {
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_transform *locals = g_new(rk_transform, n);
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  rk_vec3 *out = g_new0(rk_vec3, frames * (nj ? nj : 1));
  for (size_t f = 0; f < frames; f++) {
    rk_clip_sample_frame(c, rk_skeleton_rest_locals(s), fps, f, locals, n);
    rk_fk_models(s, locals, models);
    for (size_t k = 0; k < nj; k++)
      if (joints[k] >= 0)
        out[f * nj + k] = rk_mat4_get_translation(&models[joints[k]]);
  }
  return out;
}

/* Median angle (degrees) between the limbs of the written output and the source's (upper and
 * lower arm and leg, each side, every output frame), the source turned onto the target's facing.
 * NAN when no limb is mapped in both rigs. */
static double limb_direction_median(const rk__rt_config *cfg, const rig *rg, const rk_clip *src_clip,
                                    const rk_skeleton *out_skel, const rk_clip *out_clip,
                                    size_t frames, double fps) {
  static const rk_bone limbs[8][2] = {
      {RK_BONE_LEFT_UPPER_ARM, RK_BONE_LEFT_FOREARM},   {RK_BONE_LEFT_FOREARM, RK_BONE_LEFT_HAND},
      {RK_BONE_RIGHT_UPPER_ARM, RK_BONE_RIGHT_FOREARM}, {RK_BONE_RIGHT_FOREARM, RK_BONE_RIGHT_HAND},
      {RK_BONE_LEFT_UPPER_LEG, RK_BONE_LEFT_LOWER_LEG}, {RK_BONE_LEFT_LOWER_LEG, RK_BONE_LEFT_FOOT},
      {RK_BONE_RIGHT_UPPER_LEG, RK_BONE_RIGHT_LOWER_LEG}, {RK_BONE_RIGHT_LOWER_LEG, RK_BONE_RIGHT_FOOT}};
  const rk_skeleton *ss = rk_retargeter_source(rg->rt), *ts = rk_asset_skeleton(cfg->target);
  const rk_humanoid_map *sm = &rg->map, *tm = &cfg->target_map;
  int sj[16], oj[16];
  size_t nl = 0;
  for (int l = 0; l < 8; l++) {
    int sa = sm->joint[limbs[l][0]], sb = sm->joint[limbs[l][1]];
    int ta = tm->joint[limbs[l][0]], tb = tm->joint[limbs[l][1]];
    if (sa < 0 || sb < 0 || ta < 0 || tb < 0)
      continue;
    int oa = rk_skeleton_find_joint(out_skel, rk_skeleton_joint_name(ts, (size_t)ta));
    int ob = rk_skeleton_find_joint(out_skel, rk_skeleton_joint_name(ts, (size_t)tb));
    if (oa < 0 || ob < 0)
      continue;
    sj[2 * nl] = sa, sj[2 * nl + 1] = sb;
    oj[2 * nl] = oa, oj[2 * nl + 1] = ob;
    nl++;
  }
  if (nl == 0 || frames == 0)
    return NAN;
  const rk_quat align = rk_quat_from_to(sm->forward, tm->forward);
  const size_t ns = rk_skeleton_joint_count(ss);
  g_autofree rk_transform *locals = g_new(rk_transform, ns);
  g_autofree rk_mat4 *models = g_new(rk_mat4, ns);
  g_autofree rk_vec3 *sp = g_new(rk_vec3, frames * 2 * nl);
  const double dur = rk_clip_duration(src_clip);
  for (size_t f = 0; f < frames; f++) {
    rk_clip_sample(src_clip, rk_skeleton_rest_locals(ss), fmin((double)f / fps, dur), locals, ns);
    rk_fk_models(ss, locals, models);
    for (size_t k = 0; k < 2 * nl; k++)
      sp[f * 2 * nl + k] = rk_mat4_get_translation(&models[sj[k]]);
  }
  g_autofree rk_vec3 *op = joint_positions(out_skel, out_clip, fps, frames, oj, 2 * nl);
  g_autofree double *angles = g_new(double, frames * nl);
  size_t na = 0;
  for (size_t f = 0; f < frames; f++)
    for (size_t l = 0; l < nl; l++) {
      rk_vec3 sd = rk_quat_rotate(align, rk_vec3_sub(sp[f * 2 * nl + 2 * l + 1], sp[f * 2 * nl + 2 * l]));
      rk_vec3 od = rk_vec3_sub(op[f * 2 * nl + 2 * l + 1], op[f * 2 * nl + 2 * l]);
      const double a = rk_vec3_norm(sd), b = rk_vec3_norm(od);
      if (!(a > 0) || !(b > 0))
        continue;
      angles[na++] = acos(fmax(-1.0, fmin(1.0, rk_vec3_dot(sd, od) / (a * b)))) / RK_DEG;
    }
  if (na == 0)
    return NAN;
  qsort(angles, na, sizeof(double), cmp_double);
  return angles[na / 2];
}

/* How far planted joints are from their rest height above the ground (the height at which the
 * rest pose stands them) during their contacts, on the written output: mean and max of the absolute
 * difference in mm (NAN without contacts). A foot that floats or sinks while "planted" shows here;
 * skate only sees horizontal drift. */
static void planted_height(const rk__rt_config *cfg, const rk_retarget_result *r,
                           const rk_skeleton *out_skel, const rk_clip *out_clip, double *mean_mm,
                           double *max_mm) {
  const rk_skeleton *ts = rk_asset_skeleton(cfg->target);
  const size_t nc = rk_retarget_result_contact_count(r), frames = rk_retarget_result_frames(r);
  if (nc == 0)
    return;
  g_autofree rk_mat4 *rest = g_new(rk_mat4, rk_skeleton_joint_count(ts));
  rk_skeleton_rest_models(ts, rest);
  g_autofree int *oj = g_new(int, nc);
  for (size_t k = 0; k < nc; k++)
    oj[k] = rk_skeleton_find_joint(
        out_skel, rk_skeleton_joint_name(ts, (size_t)rk_retarget_result_contacts(r, k).joint));
  g_autofree rk_vec3 *p =
      joint_positions(out_skel, out_clip, rk_retarget_result_fps(r), frames, oj, nc);
  double sum = 0, mx = 0;
  size_t n = 0;
  for (size_t k = 0; k < nc; k++) {
    const rk_foot_contacts fc = rk_retarget_result_contacts(r, k);
    if (oj[k] < 0)
      continue;
    const double rest_y = rk_mat4_get_translation(&rest[fc.joint]).y;
    for (size_t i = 0; i < fc.count; i++)
      for (int f = MAX(fc.intervals[i].first, 0);
           f <= fc.intervals[i].last && (size_t)f < frames; f++) {
        const double d = 1000.0 * fabs(p[(size_t)f * nc + k].y - rest_y);
        sum += d;
        mx = fmax(mx, d);
        n++;
      }
  }
  if (n > 0) {
    *mean_mm = sum / (double)n;
    *max_mm = mx;
  }
}

/* How the written output is read back: as rigkit wrote it (BVH in centimetres, Y-up, root
 * channels holding the absolute position). */
static rk_import_options readback_options(const rk__rt_config *cfg) {
  rk_import_options o = RK_IMPORT_OPTIONS_INIT;
  o.skip_meshes = true;
  if (cfg->export_opts.format == RK_EXPORT_BVH) {
    o.format = "bvh";
    o.unit_scale = cfg->export_opts.unit == RK_EXPORT_UNIT_METRES ? 1.0 : 0.01;
    o.up_axis = "Y";
    o.bvh_root_offset = RK_BVH_ROOT_OFFSET_REPLACE;
  }
  return o;
}

/* The files an export wrote (a .gltf has its .bin). */
static GPtrArray *written_files(const rk__rt_config *cfg, const char *output) {
  GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(files, g_strdup(output));
  if (cfg->export_opts.format == RK_EXPORT_GLTF) {
    g_autofree char *stem = g_strdup(output);
    char *dot = strrchr(stem, '.');
    char *slash = strrchr(stem, '/');
    if (dot && (!slash || dot > slash))
      *dot = '\0';
    g_ptr_array_add(files, g_strconcat(stem, ".bin", NULL));
  }
  return files;
}

/* Writes the plot of a clip: FK-only positions from a second run without IK, output positions
 * from the file read back. */
static char *write_plot(const batch *b, const rk_retargeter *rt, const rk_clip *src_clip,
                        const rk_retarget_result *r, const rk_skeleton *out_skel,
                        const rk_clip *out_clip, const rk_retarget_quality *measured,
                        const char *source, const char *output, GError **error) {
  const rk__rt_config *cfg = b->cfg;
  rk_retarget_options fk_opts = cfg->ropts;
  fk_opts.foot_ik = false;
  fk_opts.hand_ik = false;
  g_autoptr(rk_retarget_result) fk = rk_retargeter_run(rt, src_clip, &fk_opts, error);
  if (!fk)
    return NULL;
  const rk_skeleton *ts = rk_asset_skeleton(cfg->target);
  const size_t frames = rk_retarget_result_frames(r);
  const double fps = rk_retarget_result_fps(r);
  const size_t nc = rk_retarget_result_contact_count(r);
  g_autofree int *tj = g_new(int, nc ? nc : 1);
  g_autofree int *oj = g_new(int, nc ? nc : 1);
  g_autofree rk__rt_plot_track *tracks = g_new0(rk__rt_plot_track, nc ? nc : 1);
  g_autofree rk_mat4 *rest = g_new(rk_mat4, rk_skeleton_joint_count(ts));
  rk_skeleton_rest_models(ts, rest);
  for (size_t k = 0; k < nc; k++) {
    rk_foot_contacts fc = rk_retarget_result_contacts(r, k);
    tj[k] = fc.joint;
    const char *name = rk_skeleton_joint_name(ts, (size_t)fc.joint);
    oj[k] = rk_skeleton_find_joint(out_skel, name);
    tracks[k].joint = name;
    tracks[k].intervals = fc.intervals;
    tracks[k].interval_count = fc.count;
    tracks[k].rest_height = rk_mat4_get_translation(&rest[fc.joint]).y - cfg->target_map.ground;
  }
  g_autofree rk_vec3 *pfk =
      joint_positions(ts, rk_retarget_result_clip(fk), fps, frames, tj, nc);
  g_autofree rk_vec3 *pik = joint_positions(out_skel, out_clip, fps, frames, oj, nc);
  g_autofree rk_vec3 *pfk_k = g_new(rk_vec3, frames * (nc ? nc : 1));
  g_autofree rk_vec3 *pik_k = g_new(rk_vec3, frames * (nc ? nc : 1));
  for (size_t k = 0; k < nc; k++) { /* per-track arrays */
    for (size_t f = 0; f < frames; f++) {
      pfk_k[k * frames + f] = pfk[f * nc + k];
      pik_k[k * frames + f] = pik[f * nc + k];
    }
    tracks[k].fk = pfk_k + k * frames;
    tracks[k].ik = pik_k + k * frames;
  }
  g_autofree char *src_base = g_path_get_basename(source);
  g_autofree char *out_base = g_path_get_basename(output);
  g_autofree char *title = g_strdup_printf("%s, clip '%s' -> %s", src_base,
                                           rk_clip_name(src_clip), out_base);
  const rk_retarget_quality *q = rk_retarget_result_quality(r);
  rk__rt_plot p = {title,
                   frames,
                   fps,
                   cfg->target_map.ground,
                   tracks,
                   nc,
                   rk_retarget_result_quality_fk(r)->foot_skate_max_mm,
                   measured->foot_skate_max_mm,
                   q->ik_goal_error_max_mm,
                   q->joint_limit_violations};
  g_autofree char *svg = rk__rt_plot_svg(&p);
  g_autofree char *stem = rk__rt_stem(output);
  g_autofree char *name = g_strconcat(stem, ".svg", NULL);
  char *path = g_build_filename(cfg->plot_dir, name, NULL);
  if (!g_file_set_contents_full(path, svg, -1,
                                G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE, 0666,
                                error)) {
    g_prefix_error(error, "plot: ");
    g_free(path);
    return NULL;
  }
  return path;
}

/* Retargets, writes and measures one clip; returns its report entry. */
static JsonObject *run_clip(batch *b, const rig *rg, const rk_asset *src, size_t k,
                            const char *source, const char *output, size_t *frames_out) {
  const rk__rt_config *cfg = b->cfg;
  const gint64 t_start = g_get_monotonic_time();
  const rk_clip *src_clip = rk_asset_clip(src, k);
  const char *clip_name = rk_clip_name(src_clip);
  const rk_skeleton *ts = rk_asset_skeleton(cfg->target);
  g_autoptr(GError) e = NULL;
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func(g_free);
  g_autofree char *plot = NULL;
#define SECONDS() ((double)(g_get_monotonic_time() - t_start) / G_USEC_PER_SEC)
#define FAIL(msg_expr)                                                                            \
  do {                                                                                           \
    g_autofree char *rk__msg = (msg_expr);                                                       \
    return rk__rt_entry_error(cfg, source, clip_name, (int)k, output, rk__msg, SECONDS());       \
  } while (0)

  g_autoptr(rk_retarget_result) r = rk_retargeter_run(rg->rt, src_clip, &cfg->ropts, &e);
  if (!r)
    FAIL(g_strdup_printf("retargeting failed: %s", e->message));
  bool in_place = false;
  const rk_vec3 gv = rk_retarget_result_ground_velocity(r, &in_place);
  if (in_place)
    g_ptr_array_add(notes,
                    cfg->ropts.root_motion
                        ? g_strdup_printf("in-place cycle (the stance feet slide back at %.2f m/s): "
                                          "made to travel forward so its feet plant (--root-motion)",
                                          hypot(gv.x, gv.z))
                        : g_strdup_printf("in-place cycle (the stance feet slide back at %.2f m/s): "
                                          "no planted feet; --root-motion makes it travel so they "
                                          "can plant",
                                          hypot(gv.x, gv.z)));
  size_t planted = 0;
  for (size_t c = 0; c < rk_retarget_result_contact_count(r); c++)
    planted += rk_retarget_result_contacts(r, c).count;
  if (planted == 0 && !in_place)
    g_ptr_array_add(notes, g_strdup("no foot contacts detected: feet follow the source, nothing "
                                    "pinned"));

  /* The output: the target character with this one clip (copied meshes, the shared skeleton). */
  g_autoptr(rk_asset) out = rk_asset_new(rk_asset_skeleton(cfg->target));
  {
    rk_clip *baked = rk_clip_copy(rk_retarget_result_clip(r));
    if (cfg->reduce_tol >= 0) {
      rk_reduce_stats st;
      rk_clip *red = rk_clip_reduce(baked, ts, cfg->reduce_tol, rk_retarget_result_fps(r), &st, &e);
      rk_clip_free(baked);
      if (!red)
        FAIL(g_strdup_printf("key reduction failed: %s", e->message));
      rk_clip_set_name(red, clip_name);
      baked = red;
    }
    rk_asset_add_clip(out, baked);
  }
  if (cfg->export_opts.format != RK_EXPORT_BVH)
    for (size_t m = 0; m < rk_asset_mesh_count(cfg->target); m++) {
      rk_mesh *copy = rk_mesh_new(rk_mesh_data_get(rk_asset_mesh(cfg->target, m)),
                                  rk_skeleton_joint_count(ts), &e);
      if (!copy)
        FAIL(g_strdup_printf("target mesh %zu: %s", m, e->message));
      rk_asset_add_mesh(out, copy);
    }
  const size_t keys = rk_clip_key_count_total(rk_asset_clip(out, 0));
  if (!rk_export_file(out, output, &cfg->export_opts, &e))
    FAIL(g_strdup_printf("export failed: %s", e->message));

  /* Read the written file back: everything below is measured on what a user gets. */
  g_autoptr(GPtrArray) files = written_files(cfg, output);
  const rk_import_options ro = readback_options(cfg);
  g_autoptr(rk_asset) back = rk_import_file(output, &ro, &e);
  const char *bad = NULL;
  g_autofree char *bad_text = NULL;
  if (!back)
    bad = bad_text = g_strdup_printf("the written output cannot be read back: %s", e->message);
  else if (rk_skeleton_joint_count(rk_asset_skeleton(back)) != rk_skeleton_joint_count(ts))
    bad = bad_text = g_strdup_printf("the written output reads back with %zu joints, the target "
                                     "has %zu",
                                     rk_skeleton_joint_count(rk_asset_skeleton(back)),
                                     rk_skeleton_joint_count(ts));
  else if (rk_asset_clip_count(back) != 1)
    bad = bad_text = g_strdup_printf("the written output reads back with %zu clips, not 1",
                                     rk_asset_clip_count(back));
  if (bad) {
    /* Not a usable output: remove it so that nothing unverified is left under its name. */
    for (guint i = 0; i < files->len; i++)
      g_unlink(g_ptr_array_index(files, i));
    FAIL(g_strdup(bad));
  }
  const rk_skeleton *bs = rk_asset_skeleton(back);
  const rk_clip *bc = rk_asset_clip(back, 0);
  const size_t nc = rk_retarget_result_contact_count(r);
  g_autofree const char **names = g_new(const char *, nc ? nc : 1);
  g_autofree rk_foot_contacts *fcs = g_new(rk_foot_contacts, nc ? nc : 1);
  for (size_t c = 0; c < nc; c++) {
    fcs[c] = rk_retarget_result_contacts(r, c);
    names[c] = rk_skeleton_joint_name(ts, (size_t)fcs[c].joint);
  }
  rk_retarget_quality measured;
  rk_retarget_measure(bs, bc, rk_retarget_result_fps(r), names, fcs, nc, &measured);
  measured.limb_direction_median_deg =
      limb_direction_median(cfg, rg, src_clip, bs, bc, rk_retarget_result_frames(r),
                            rk_retarget_result_fps(r));
  double planted_mean = NAN, planted_max = NAN;
  planted_height(cfg, r, bs, bc, &planted_mean, &planted_max);
  if (cfg->plot_dir) {
    plot = write_plot(b, rg->rt, src_clip, r, bs, bc, &measured, source, output, &e);
    if (!plot)
      FAIL(g_strdup_printf("%s", e->message));
    g_ptr_array_add(files, g_strdup(plot));
  }
  rk__rt_entry_values v = {0};
  v.source = source;
  v.clip = clip_name;
  v.clip_index = (int)k;
  v.output = output;
  v.result = r;
  v.measured = &measured;
  v.mapped_joints = rk_retargeter_mapped_joints(rg->rt);
  v.duration_s = rk_clip_duration(bc);
  v.keys = keys;
  v.plot = plot;
  v.notes = notes;
  v.planted_height_mean_mm = planted_mean;
  v.planted_height_max_mm = planted_max;
  v.seconds = SECONDS();
  JsonObject *entry = rk__rt_entry_new(cfg, &v);
  g_ptr_array_add(files, NULL);
  if (!rk__rt_journal_append(b->journal, source, (int)k, clip_name, entry,
                             (const char *const *)files->pdata, &e)) {
    g_mutex_lock(&b->lock);
    say_locked(b, "rigkit retarget: warning: %s (--resume will redo this clip)", e->message);
    g_mutex_unlock(&b->lock);
  }
  *frames_out = rk_retarget_result_frames(r);
  return entry;
#undef FAIL
#undef SECONDS
}

/* True when both paths name one existing file (same device and inode). */
static bool same_file(const char *a, const char *b) {
  GStatBuf sa, sb;
  return a && b && g_stat(a, &sa) == 0 && g_stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

/* Records an entry of an input and reports it. */
static void finish_clip(batch *b, rk__rt_input *in, JsonObject *entry, bool resumed,
                        size_t frames) {
  g_ptr_array_add(in->entries, entry);
  const bool ok = g_strcmp0(json_object_get_string_member(entry, "status"), "ok") == 0;
  g_mutex_lock(&b->lock);
  b->clips_done++;
  b->frames += frames;
  if (resumed)
    b->resumed++;
  if (ok)
    b->ok++;
  else
    b->failed++;
  const char *clip = json_object_get_string_member_with_default(entry, "clip", NULL);
  g_autofree char *what = clip ? g_strdup_printf("%s: clip '%s'", in->path, clip)
                               : g_strdup(in->path);
  if (!ok)
    say_locked(b, "rigkit retarget: %s: %s", what,
               json_object_get_string_member_with_default(entry, "error", "failed"));
  else if (!resumed) {
    JsonArray *notes = json_object_get_array_member(entry, "notes");
    for (guint i = 0; notes && i < json_array_get_length(notes); i++)
      say_locked(b, "rigkit retarget: note: %s: %s", what, json_array_get_string_element(notes, i));
  }
  g_cond_broadcast(&b->changed);
  g_mutex_unlock(&b->lock);
}

/* Imports one source file and runs its clips. */
static void process_file(batch *b, rk__rt_input *in) {
  const rk__rt_config *cfg = b->cfg;
  const gint64 t_start = g_get_monotonic_time();
#define FILE_SECONDS() ((double)(g_get_monotonic_time() - t_start) / G_USEC_PER_SEC)
  if (!cfg->target) {
    finish_clip(b, in, rk__rt_entry_error(cfg, in->path, NULL, -1, NULL, cfg->target_error, 0), false,
                0);
    return;
  }
  g_autoptr(GError) e = NULL;
  g_autoptr(rk_asset) src = rk_import_file(in->path, &cfg->source_import, &e);
  if (!src) {
    g_autofree char *msg = g_strdup_printf("cannot read the clip: %s", e->message);
    finish_clip(b, in, rk__rt_entry_error(cfg, in->path, NULL, -1, NULL, msg, FILE_SECONDS()),
                false, 0);
    return;
  }
  /* The clips to run. */
  g_autoptr(GArray) clips = g_array_new(FALSE, FALSE, sizeof(size_t));
  const size_t count = rk_asset_clip_count(src);
  if (cfg->clip_select) {
    int i = rk_asset_find_clip(src, cfg->clip_select);
    if (i >= 0) {
      size_t ci = (size_t)i;
      g_array_append_val(clips, ci);
    }
  } else {
    for (size_t i = 0; i < count; i++)
      g_array_append_val(clips, i);
  }
  const char *problem = NULL;
  g_autofree char *problem_text = NULL;
  if (count == 0)
    problem = "the file holds a skeleton but no clip";
  else if (clips->len == 0)
    problem = problem_text = g_strdup_printf("no clip '%s' in the file (it has %zu)",
                                             cfg->clip_select, count);
  else if (cfg->out_file && clips->len > 1)
    problem = problem_text = g_strdup_printf(
        "the file holds %u clips and --out writes one: choose one with --clip or use --out-dir",
        clips->len);
  if (problem) {
    finish_clip(b, in, rk__rt_entry_error(cfg, in->path, NULL, -1, NULL, problem, FILE_SECONDS()),
                false, 0);
    return;
  }
  if (clips->len > 1) {
    g_mutex_lock(&b->lock);
    b->clips_known += clips->len - 1;
    g_mutex_unlock(&b->lock);
  }
  const rig *rg = rig_for(b, rk_asset_skeleton(src));
  for (guint c = 0; c < clips->len; c++) {
    const size_t k = g_array_index(clips, size_t, c);
    const char *clip_name = rk_clip_name(rk_asset_clip(src, k));
    g_autofree char *output =
        rk__rt_output_path(cfg, in->path, clip_name, cfg->clip_select ? 1 : count);
    if (!rg->rt) {
      finish_clip(b, in, rk__rt_entry_error(cfg, in->path, clip_name, (int)k, output, rg->error, 0),
                  false, 0);
      continue;
    }
    if (cfg->resume) {
      JsonObject *prev = rk__rt_journal_lookup(b->journal, in->path, (int)k, clip_name);
      if (prev) {
        finish_clip(b, in, prev, true, 0);
        continue;
      }
    }
    /* Never replace an input: an output named like its own source or the target (same
     * directory, same stem and extension) would overwrite it. */
    const char *input_hit = same_file(output, in->path)           ? in->path
                            : same_file(output, cfg->target_path) ? cfg->target_path
                                                                  : NULL;
    if (input_hit) {
      g_autofree char *msg =
          g_strdup_printf("output %s would overwrite the input %s: choose another --out-dir or "
                          "--format",
                          output, input_hit);
      finish_clip(b, in, rk__rt_entry_error(cfg, in->path, clip_name, (int)k, output, msg, 0),
                  false, 0);
      continue;
    }
    /* Two clips must never write one file. */
    g_autofree char *owner = NULL;
    g_mutex_lock(&b->lock);
    const char *prev_owner = g_hash_table_lookup(b->claimed, output);
    if (prev_owner)
      owner = g_strdup(prev_owner);
    else
      g_hash_table_insert(b->claimed, g_strdup(output),
                          g_strdup_printf("%s: clip '%s'", in->path, clip_name));
    g_mutex_unlock(&b->lock);
    if (owner) {
      g_autofree char *msg = g_strdup_printf("output %s is already written by %s", output, owner);
      finish_clip(b, in, rk__rt_entry_error(cfg, in->path, clip_name, (int)k, output, msg, 0),
                  false, 0);
      continue;
    }
    size_t frames = 0;
    JsonObject *entry = run_clip(b, rg, src, k, in->path, output, &frames);
    finish_clip(b, in, entry, false, frames);
  }
#undef FILE_SECONDS
}

/* The task of one source file (the pool's function). */
static void run_file(gpointer data, gpointer user) {
  batch *b = user;
  rk__rt_input *in = &b->inputs[GPOINTER_TO_SIZE(data) - 1];
  if (!stop_signal) { /* else never started: listed as not run */
    in->run = true;
    process_file(b, in);
  }
  g_mutex_lock(&b->lock);
  b->files_done++;
  g_cond_broadcast(&b->changed);
  g_mutex_unlock(&b->lock);
}

void rk__rt_batch_run(const rk__rt_config *cfg, rk__rt_input *inputs, size_t n,
                      rk__rt_journal *journal, rk__rt_outcome *outcome) {
  batch b = {0};
  b.cfg = cfg;
  b.inputs = inputs;
  b.n = n;
  b.journal = journal;
  b.clips_known = n;
  g_mutex_init(&b.lock);
  g_cond_init(&b.changed);
  b.rigs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, rig_free);
  b.claimed = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  b.t0 = g_get_monotonic_time();
  for (size_t i = 0; i < n; i++) {
    inputs[i].entries = g_ptr_array_new_with_free_func((GDestroyNotify)json_object_unref);
    inputs[i].run = false;
  }

  /* First signal: stop starting clips (the handler only sets a flag). SA_RESETHAND: a second
   * one terminates at once; outputs are still never partial (temporary + rename). */
  stop_signal = 0;
  struct sigaction sa, old_int, old_term;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND | SA_RESTART;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);

  g_autoptr(GError) e = NULL;
  const int jobs = cfg->jobs > 0 ? cfg->jobs : 1;
  GThreadPool *pool = g_thread_pool_new(run_file, &b, MIN(jobs, (int)MAX(n, 1)), TRUE, &e);
  if (!pool) {
    /* No threads: run in this one. */
    for (size_t i = 0; i < n; i++)
      run_file(GSIZE_TO_POINTER(i + 1), &b);
  } else {
    for (size_t i = 0; i < n; i++)
      g_thread_pool_push(pool, GSIZE_TO_POINTER(i + 1), NULL);
    bool announced = false;
    g_mutex_lock(&b.lock);
    while (b.files_done < n) {
      g_cond_wait_until(&b.changed, &b.lock, g_get_monotonic_time() + G_USEC_PER_SEC / 4);
      if (stop_signal && !announced) {
        announced = true;
        say_locked(&b, "rigkit retarget: %s: finishing the clips in progress, starting no new "
                       "ones (again to abort now)",
                   stop_signal == SIGINT ? "interrupted" : "terminated");
      }
      if (cfg->progress && b.files_done < n)
        draw_bar_locked(&b);
    }
    if (b.bar_shown) {
      fputs("\r\033[K", stderr);
      fflush(stderr);
      b.bar_shown = false;
    }
    g_mutex_unlock(&b.lock);
    g_thread_pool_free(pool, FALSE, TRUE);
  }
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);

  memset(outcome, 0, sizeof *outcome);
  outcome->clips = b.clips_done;
  outcome->ok = b.ok;
  outcome->failed = b.failed;
  outcome->resumed = b.resumed;
  outcome->frames = b.frames;
  outcome->signal = stop_signal;
  outcome->seconds = now_s(&b);
  g_hash_table_unref(b.rigs);
  g_hash_table_unref(b.claimed);
  g_cond_clear(&b.changed);
  g_mutex_clear(&b.lock);
}
