/* `rigkit retarget`: the batch runner. One task per source file on a GThreadPool; per clip:
 * retarget, reduce (optional), export atomically, read the output back and measure it, plot
 * (optional), journal. See retarget_batch.h. */
#include "retarget_batch.h"
#include "retarget_html.h"

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
  rk__rt_error code;   /* with error: why */
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
static rig *rig_for(batch *b, const rk_asset *src) {
  rk_skeleton *s = rk_asset_skeleton(src);
  g_autofree char *fp = rk__rt_skeleton_fingerprint(s);
  g_mutex_lock(&b->lock);
  rig *r = g_hash_table_lookup(b->rigs, fp);
  if (!r) {
    r = g_new0(rig, 1);
    g_autoptr(GError) e = NULL;
    if (!rk_profile_map_asset(b->cfg->profile, src, RK_PROFILE_SOURCE, &r->map, &e)) {
      r->error = g_strdup_printf("source rig cannot be mapped: %s", e->message);
      r->code = RK__RT_ERROR_SOURCE_UNMAPPED;
      /* Once per rig: the map to start from. */
      g_autofree char *guess = rk_profile_map_guess(src, RK_PROFILE_SOURCE, e->message);
      fprintf(stderr,
              "rigkit retarget: a source rig cannot be mapped automatically; the best guess of "
              "its map, to edit and pass with --map:\n%s",
              guess);
    } else {
      r->rt = rk_retargeter_new_between(src, &r->map, b->cfg->target, &b->cfg->target_map, &e);
      if (!r->rt) {
        r->error = g_strdup(e->message);
        r->code = RK__RT_ERROR_RETARGET_FAILED;
      }
    }
    g_hash_table_insert(b->rigs, g_steal_pointer(&fp), r);
  }
  g_mutex_unlock(&b->lock);
  return r;
}

/* How the written output is read back: as its writer says it wrote it. */
/* Whether outputs are edits of the target's own glTF document (a glTF/GLB character written as
 * glTF/GLB: everything but its animations goes out as it came in) rather than exports of the
 * asset model. */
static bool edits_target_document(const rk__rt_config *cfg) {
  return rk_gltf_edit_applies(cfg->target, NULL, cfg->export_opts.format);
}

static rk_import_options readback_options(const rk__rt_config *cfg, const char *output) {
  rk_export_readback rb;
  rk_export_readback_of(output, &cfg->export_opts, &rb);
  rk_import_options o = RK_IMPORT_OPTIONS_INIT; /* meshes too: measured as a person sees them */
  if (edits_target_document(cfg)) {
    /* The target's own document, in its own units and axes: read back as the target was. */
    o = cfg->target_import;
    o.skip_meshes = false;
    o.format = NULL;
  } else if (!rb.self_describing) {
    o.format = rk_export_format_name(rb.format);
    o.unit_scale = rb.metres_per_unit;
    o.up_axis = rb.up_axis;
    if (rb.bvh_root_absolute)
      o.bvh_root_offset = RK_BVH_ROOT_OFFSET_REPLACE;
  }
  return o;
}


/* The files an export wrote, as the writer lists them (a .gltf has its .bin); an edit of the
 * target's document lists its own as it stages them. */
static GPtrArray *written_files(const rk__rt_config *cfg, const char *output) {
  GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
  g_auto(GStrv) list = rk_export_output_files(output, &cfg->export_opts);
  for (char **f = list; f && *f; f++)
    g_ptr_array_add(files, g_strdup(*f));
  if (files->len == 0)
    g_ptr_array_add(files, g_strdup(output));
  return files;
}

/* One clip on its way through the steps of run_clip. */
typedef struct clip_job {
  batch *b;
  const rig *rg;
  const rk_asset *src; /* the source file as imported (its repairs) */
  const rk_clip *src_clip;
  const char *source, *output, *clip_name;
  size_t index;
  rk_retarget_result *r;
  rk_clip *reduced;   /* with --reduce: the result's keys reduced, until written */
  GThread *opening;   /* reading the target's document for the edit while the clip is made */
  rk_gltf_edit_doc *doc; /* what it read (opening's result) */
  rk_gltf_edit_staged *staged; /* an edit of the target's document written but not yet renamed */
  bool write_failed;  /* read_back's failure is the write's (the staged files did not commit) */
  GPtrArray *notes;   /* char* */
  size_t keys;        /* keys written */
  GPtrArray *files;   /* char*: the files written, the plot included */
  rk_asset *back;     /* the written output read back */
  double limb_median_deg;
  double planted_mean, planted_max;
  rk_retarget_look look;          /* what a person sees in the output */
  double *foot_low;               /* per frame and foot: its lowest point in the output */
  rk_vec3 *soles;                 /* per frame: the output's sole points */
  GArray *warnings;               /* rk_retarget_warning */
  rk_retarget_verdict verdict;
  rk_retarget_pose_error pose; /* worst_joint -1: not computable */
  char *plot;
} clip_job;

/* The document an edit of the target needs, read while the clip is retargeted. */
static gpointer open_document(gpointer data) {
  clip_job *j = data;
  j->doc = rk_gltf_edit_open(j->b->cfg->target_path, j->b->cfg->target, j->output);
  return NULL;
}

/* The edit's document, once open_document is done (on this thread when it had none). */
static rk_gltf_edit_doc *opened_document(clip_job *j) {
  if (j->opening)
    g_thread_join(g_steal_pointer(&j->opening));
  else if (!j->doc)
    open_document(j);
  return g_steal_pointer(&j->doc);
}

static void clip_job_clear(clip_job *j) {
  if (j->opening)
    g_thread_join(g_steal_pointer(&j->opening));
  rk_gltf_edit_doc_free(j->doc);
  g_free(j->foot_low);
  g_free(j->soles);
  if (j->warnings)
    g_array_unref(j->warnings);
  rk_retarget_result_free(j->r);
  rk_clip_free(j->reduced);
  rk_gltf_edit_abort(j->staged);
  g_ptr_array_unref(j->notes);
  if (j->files)
    g_ptr_array_unref(j->files);
  rk_asset_free(j->back);
  g_free(j->plot);
}

/* Retargets the clip and notes what the result says about it; NULL or why it failed. */
static char *retarget_clip(clip_job *j) {
  const rk__rt_config *cfg = j->b->cfg;
  g_autoptr(GError) e = NULL;
  j->r = rk_retargeter_run(j->rg->rt, j->src_clip, &cfg->ropts, &e);
  if (!j->r)
    return g_strdup_printf("retargeting failed: %s", e->message);
  bool in_place = false;
  const rk_vec3 gv = rk_retarget_result_ground_velocity(j->r, &in_place);
  if (in_place)
    g_ptr_array_add(j->notes,
                    cfg->ropts.root_motion
                        ? g_strdup_printf("in-place cycle (the stance feet slide back at %.2f m/s): "
                                          "made to travel forward so its feet plant (--root-motion)",
                                          hypot(gv.x, gv.z))
                        : g_strdup_printf("in-place cycle (the stance feet slide back at %.2f m/s): "
                                          "no planted feet; --root-motion makes it travel so they "
                                          "can plant",
                                          hypot(gv.x, gv.z)));
  size_t planted = 0;
  for (size_t c = 0; c < rk_retarget_result_contact_count(j->r); c++)
    planted += rk_retarget_result_contacts(j->r, c).count;
  if (planted == 0 && !in_place)
    g_ptr_array_add(j->notes, g_strdup("no foot contacts detected: feet follow the source, "
                                       "nothing pinned"));
  return NULL;
}

/* With --reduce, the result's keys reduced into j->reduced; NULL or why it failed. */
static char *reduce_keys(clip_job *j) {
  const rk__rt_config *cfg = j->b->cfg;
  if (cfg->reduce_tol < 0)
    return NULL;
  g_autoptr(GError) e = NULL;
  rk_reduce_stats st;
  j->reduced = rk_clip_reduce(rk_retarget_result_clip(j->r), rk_asset_skeleton(cfg->target),
                              cfg->reduce_tol, rk_retarget_result_fps(j->r), &st, &e);
  if (!j->reduced)
    return g_strdup_printf("key reduction failed: %s", e->message);
  rk_clip_set_name(j->reduced, j->clip_name);
  return NULL;
}

/* Writes the output: the target character with this one clip (reduced with --reduce); NULL or
 * why it failed. An edit of the target's document is staged (commit_output puts it under its
 * names): it is read back from its temporary while the disk syncs it. */
static char *write_output(clip_job *j) {
  const rk__rt_config *cfg = j->b->cfg;
  rk_skeleton *ts = rk_asset_skeleton(cfg->target);
  g_autoptr(GError) e = NULL;
  rk_clip *clip = g_steal_pointer(&j->reduced);
  if (edits_target_document(cfg)) {
    /* The editor only reads the clip: the result's own, unless reduced (no copy of every key). */
    const rk_clip *written = clip ? clip : rk_retarget_result_clip(j->r);
    j->keys = rk_clip_key_count_total(written);
    j->staged = rk_gltf_edit_stage_doc(opened_document(j), written, &e);
    rk_clip_free(clip);
    if (!j->staged)
      return g_strdup_printf("export failed: %s", e->message);
    j->files = g_ptr_array_new_with_free_func(g_free);
    for (const char *const *f = rk_gltf_edit_staged_files(j->staged); *f; f++)
      g_ptr_array_add(j->files, g_strdup(*f));
    return NULL;
  }
  if (!clip)
    clip = rk_clip_copy(rk_retarget_result_clip(j->r)); /* the output asset takes it */
  const bool meshes = cfg->export_opts.format != RK_EXPORT_BVH;
  g_autoptr(rk_asset) out = rk_retarget_output_asset(ts, meshes ? cfg->target : NULL, clip, &e);
  if (!out)
    return g_strdup(e->message);
  j->keys = rk_clip_key_count_total(rk_asset_clip(out, 0));
  if (!rk_export_file(out, j->output, &cfg->export_opts, &e))
    return g_strdup_printf("export failed: %s", e->message);
  return NULL;
}

/* Imports the written output into j->back; NULL or why it is not one clip of the target's
 * joints. */
static char *import_output(clip_job *j) {
  const rk__rt_config *cfg = j->b->cfg;
  const size_t nt = rk_skeleton_joint_count(rk_asset_skeleton(cfg->target));
  g_autoptr(GError) e = NULL;
  const rk_import_options ro = readback_options(cfg, j->output);
  if (j->staged) {
    g_autoptr(GBytes) b = rk_gltf_edit_staged_read(j->staged, &e);
    j->back = b ? rk_import_file_bytes(g_bytes_get_data(b, NULL), g_bytes_get_size(b), j->output,
                                       &ro, &e) : NULL;
  } else {
    j->back = rk_import_file(j->output, &ro, &e);
  }
  if (!j->back)
    return g_strdup_printf("the written output cannot be read back: %s", e->message);
  if (rk_skeleton_joint_count(rk_asset_skeleton(j->back)) != nt)
    return g_strdup_printf("the written output reads back with %zu joints, the target has %zu",
                           rk_skeleton_joint_count(rk_asset_skeleton(j->back)), nt);
  if (rk_asset_clip_count(j->back) != 1)
    return g_strdup_printf("the written output reads back with %zu clips, not 1",
                           rk_asset_clip_count(j->back));
  return NULL;
}

/* Puts a staged output under its names; NULL or why that failed (a failure of the write). */
static char *commit_output(clip_job *j) {
  if (!j->staged)
    return NULL;
  g_autoptr(GError) e = NULL;
  return rk_gltf_edit_commit(g_steal_pointer(&j->staged), &e)
             ? NULL
             : g_strdup_printf("export failed: %s", e->message);
}

/* Reads the written file back: everything after it is measured on what a user gets (a staged
 * output of one file from its temporary: the same bytes). An output that does not read back as
 * one clip of the target's joints is removed (nothing unverified is left under its name); NULL
 * or why it is not usable, or why the write failed (j->write_failed). */
static char *read_back(clip_job *j) {
  if (!j->files)
    j->files = written_files(j->b->cfg, j->output);
  /* A .gltf's read reaches for the files beside it under their names: those must be in place. */
  char *bad = j->files->len > 1 ? commit_output(j) : NULL;
  if (bad) {
    j->write_failed = true;
    return bad;
  }
  bad = import_output(j);
  if (bad) {
    /* As when the output was in place before it was read: a failure to place it is the write's. */
    char *unplaced = commit_output(j);
    if (unplaced) {
      g_free(bad);
      j->write_failed = true;
      return unplaced;
    }
    for (guint i = 0; i < j->files->len; i++)
      g_unlink(g_ptr_array_index(j->files, i));
  }
  return bad;
}

/* The planted sole points' largest horizontal drift (mm) of one foot at each frame from their
 * contacts' first frames in soles (frames x 6), NAN where none is planted. */
static void foot_drift(const rk_retarget_result *r, int side, const rk_vec3 *soles, double *out) {
  const size_t frames = rk_retarget_result_frames(r);
  for (size_t f = 0; f < frames; f++)
    out[f] = NAN;
  for (int p = 0; p < RK_SOLE_POINTS; p++) {
    const rk_foot_contacts fc = rk_retarget_result_sole_contacts(r, side, (rk_sole_point)p);
    for (size_t i = 0; i < fc.count; i++) {
      const size_t k = (size_t)(side * RK_SOLE_POINTS + p), a = (size_t)fc.intervals[i].first;
      for (size_t f = a; f <= (size_t)fc.intervals[i].last && f < frames; f++) {
        const rk_vec3 d = rk_vec3_sub(soles[f * 6 + k], soles[a * 6 + k]);
        const double mm = 1000.0 * hypot(d.x, d.z);
        out[f] = isnan(out[f]) ? mm : fmax(out[f], mm);
      }
    }
  }
}

/* Writes the plot of a clip: per foot, its sole as the transfer leaves it and the written
 * output's (its mesh, read back); the path, or NULL with error. */
static char *write_plot(const clip_job *j, GError **error) {
  const rk__rt_config *cfg = j->b->cfg;
  const rk_retarget_result *r = j->r;
  const size_t frames = rk_retarget_result_frames(r), n = frames ? frames : 1;
  const rk_vec3 *fk = rk_retarget_result_soles(r, false);
  rk__rt_plot_track tracks[2];
  g_autofree double *series = g_new(double, 8 * n);
  g_autofree guint8 *phase = g_new(guint8, 2 * n);
  char *labels[2];
  for (int side = 0; side < 2; side++) {
    double *low_fk = series + (size_t)side * 4 * n, *low_ik = low_fk + n, *d_fk = low_ik + n,
           *d_ik = d_fk + n;
    guint8 *ph = phase + (size_t)side * n;
    for (size_t f = 0; f < frames; f++) {
      low_fk[f] = fmin(fk[f * 6 + (size_t)side * 3].y,
                       fmin(fk[f * 6 + (size_t)side * 3 + 1].y, fk[f * 6 + (size_t)side * 3 + 2].y));
      low_ik[f] = j->foot_low[f * 2 + (size_t)side];
      ph[f] = (guint8)rk_retarget_result_phase(r, side, f);
    }
    foot_drift(r, side, fk, d_fk);
    foot_drift(r, side, j->soles, d_ik);
    const int foot = rk_retarget_result_sole_contacts(r, side, RK_SOLE_HEEL).joint;
    labels[side] = g_strdup_printf("%s foot (%s)", side ? "right" : "left",
                                   rk_skeleton_joint_name(rk_asset_skeleton(cfg->target), (size_t)foot));
    tracks[side] = (rk__rt_plot_track){labels[side], low_fk, low_ik, d_fk, d_ik, ph};
  }
  g_autofree char *src_base = g_path_get_basename(j->source);
  g_autofree char *out_base = g_path_get_basename(j->output);
  g_autofree char *title = g_strdup_printf("%s, clip '%s' -> %s", src_base,
                                           rk_clip_name(j->src_clip), out_base);
  GString *codes = g_string_new(NULL);
  for (guint i = 0; i < j->warnings->len; i++)
    g_string_append_printf(codes, "%s%s", i ? ", " : "",
                           g_array_index(j->warnings, rk_retarget_warning, i).code);
  rk__rt_plot p = {title, frames, rk_retarget_result_fps(r), rk_retarget_result_floor(r), tracks, 2,
                   rk_retarget_verdict_name(j->verdict), codes->str,
                   rk_retarget_result_quality_fk(r)->foot_skate_max_mm, j->look.skate_max_mm,
                   rk_retarget_result_quality(r)->ik_goal_error_max_mm,
                   j->look.planted_low_median_mm, j->look.foot_pitch_p95_deg};
  g_autofree char *svg = rk__rt_plot_svg(&p);
  g_string_free(codes, TRUE);
  g_free(labels[0]);
  g_free(labels[1]);
  g_autofree char *stem = rk__rt_stem(j->output);
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

/* Measures the output read back with its meshes (what a person sees, the pose error, limb
 * directions, planted joints' heights: one pass over its frames on two threads, the same figures
 * as each measure alone) and judges it; never fails (NULL). */
static char *measure_output(clip_job *j) {
  const rk__rt_config *cfg = j->b->cfg;
  const rk_retargeter *rt = j->rg->rt;
  const size_t frames = rk_retarget_result_frames(j->r);
  j->foot_low = g_new(double, 2 * (frames ? frames : 1));
  j->soles = g_new(rk_vec3, 6 * (frames ? frames : 1));
  rk_retarget_output_figures fig;
  rk_retarget_measure_output(rt, j->r, j->src_clip, j->back, j->foot_low, j->soles, &fig);
  g_autofree rk_vec3 *positions = fig.contact_positions;
  j->look = fig.look;
  j->pose = fig.pose;
  j->limb_median_deg = fig.limb_direction_median_deg;
  const rk_retarget_judge_input in = {&j->look, fig.pose_measured ? &j->pose : NULL, j->src,
                                      &cfg->bounds};
  j->warnings = rk_retarget_judge(rt, j->r, &in, &j->verdict);
  j->planted_mean = j->planted_max = NAN;
  rk_retarget_planted_height(rt, j->r, rk_asset_skeleton(j->back), positions, &j->planted_mean,
                             &j->planted_max);
  return NULL;
}

/* Plots the output (--plot); NULL or why the plot failed. */
static char *plot_output(clip_job *j) {
  if (!j->b->cfg->plot_dir)
    return NULL;
  g_autoptr(GError) e = NULL;
  j->plot = write_plot(j, &e);
  if (!j->plot)
    return g_strdup(e->message);
  g_ptr_array_add(j->files, g_strdup(j->plot));
  return NULL;
}

/* The review page's player data of a clip (--html): the source clip and the output read back,
 * sampled alike, with the feet's lowest points measured on it. */
static char *clip_motion(const clip_job *j) {
  const rk__rt_config *cfg = j->b->cfg;
  rk__rt_html_clip hc = {rk_asset_skeleton(j->src), j->src_clip,
                         rk_asset_skeleton(j->back), rk_asset_clip(j->back, 0),
                         rk_retarget_result_fps(j->r), rk_retarget_result_frames(j->r),
                         rk_retarget_result_floor(j->r), j->foot_low, cfg->silhouette, {0}, {0}};
  rk__rt_html_body(&j->rg->map, rk_retargeter_source(j->rg->rt), hc.source, hc.source_body);
  rk__rt_html_body(&cfg->target_map, rk_asset_skeleton(cfg->target), hc.target, hc.target_body);
  return rk__rt_html_motion(&hc);
}

/* The report entry of a clip that went through every step, recorded in the journal. */
static rk__rt_entry *clip_entry(clip_job *j, double seconds) {
  const rk__rt_config *cfg = j->b->cfg;
  rk__rt_entry *e = rk__rt_entry_new(cfg, j->source, j->clip_name, (int)j->index, j->output);
  rk__rt_entry_set_result(e, cfg, j->rg->rt, j->r);
  rk_retargeter_heights(j->rg->rt, &e->source_height_m, &e->target_height_m);
  rk__rt_entry_set_look(e, &j->look);
  rk__rt_entry_set_verdict(e, j->verdict, j->warnings);
  e->limb_direction_median_deg = j->limb_median_deg;
  e->planted_height_mean_mm = j->planted_mean;
  e->planted_height_max_mm = j->planted_max;
  e->pose_error_median_mm = j->pose.median_mm;
  e->pose_error_max_mm = j->pose.max_mm;
  e->contact_frames = (gint64)rk_retarget_result_quality(j->r)->contact_frames;
  e->duration_s = rk_clip_duration(rk_asset_clip(j->back, 0));
  e->keys = (gint64)j->keys;
  e->plot = g_strdup(j->plot);
  for (guint i = 0; i < j->notes->len; i++)
    g_ptr_array_add(e->notes, g_strdup(g_ptr_array_index(j->notes, i)));
  e->seconds = seconds;
  if (cfg->html_path)
    e->motion = clip_motion(j);
  g_ptr_array_add(j->files, NULL);
  g_autoptr(GError) err = NULL;
  /* A glTF output read back carries its bytes' SHA-256: the journal need not read them again. */
  if (!rk__rt_journal_append(j->b->journal, j->source, (int)j->index, j->clip_name, e,
                             (const char *const *)j->files->pdata,
                             rk_asset_source_path(j->back), rk_asset_source_digest(j->back),
                             &err)) {
    g_mutex_lock(&j->b->lock);
    say_locked(j->b, "rigkit retarget: warning: %s (--resume will redo this clip)", err->message);
    g_mutex_unlock(&j->b->lock);
  }
  return e;
}

/* Retargets, writes, reads back and measures one clip; returns its report entry. */
static rk__rt_entry *run_clip(batch *b, const rig *rg, const rk_asset *src, size_t k,
                              const char *source, const char *output, size_t *frames_out) {
  const gint64 t_start = g_get_monotonic_time();
  clip_job j = {.b = b, .rg = rg, .src = src, .src_clip = rk_asset_clip(src, k), .source = source,
                .output = output, .index = k};
  j.clip_name = rk_clip_name(j.src_clip);
  j.notes = g_ptr_array_new_with_free_func(g_free);
  if (edits_target_document(b->cfg))
    j.opening = g_thread_try_new("rigkit-open", open_document, &j, NULL);
  /* The steps, each with the code of its failure (measure_output never fails; a staged output
   * takes its names once measured, while the disk synced it). */
  static const struct {
    char *(*run)(clip_job *j);
    rk__rt_error code;
  } steps[] = {{retarget_clip, RK__RT_ERROR_RETARGET_FAILED},
               {reduce_keys, RK__RT_ERROR_RETARGET_FAILED},
               {write_output, RK__RT_ERROR_WRITE_FAILED},
               {read_back, RK__RT_ERROR_READBACK_FAILED},
               {measure_output, RK__RT_ERROR_WRITE_FAILED},
               {commit_output, RK__RT_ERROR_WRITE_FAILED},
               {plot_output, RK__RT_ERROR_WRITE_FAILED}};
  g_autofree char *failure = NULL;
  rk__rt_error code = RK__RT_ERROR_RETARGET_FAILED;
  for (size_t s = 0; !failure && s < G_N_ELEMENTS(steps); s++) {
    failure = steps[s].run(&j);
    code = j.write_failed ? RK__RT_ERROR_WRITE_FAILED : steps[s].code;
  }
  const double seconds = (double)(g_get_monotonic_time() - t_start) / G_USEC_PER_SEC;
  rk__rt_entry *entry = failure ? rk__rt_entry_error(b->cfg, source, j.clip_name, (int)k, output,
                                                     code, failure, seconds)
                                : clip_entry(&j, seconds);
  *frames_out = failure ? 0 : rk_retarget_result_frames(j.r);
  clip_job_clear(&j);
  return entry;
}

/* The player of a clip --resume skipped (--html): its output read back and measured as a run
 * measures it, the clip retargeted again for the floor and contacts that needs (nothing is
 * written). NULL when that fails: the journal found the output's bytes unchanged, so only a read
 * error can. */
static char *resumed_motion(batch *b, const rig *rg, const rk_asset *src, size_t k,
                            const char *output) {
  clip_job j = {.b = b, .rg = rg, .src = src, .src_clip = rk_asset_clip(src, k), .output = output,
                .index = k};
  j.notes = g_ptr_array_new_with_free_func(g_free);
  char *motion = NULL;
  g_autofree char *failure = retarget_clip(&j);
  if (!failure)
    failure = import_output(&j);
  if (!failure) {
    const size_t frames = rk_retarget_result_frames(j.r);
    j.foot_low = g_new(double, 2 * (frames ? frames : 1));
    rk_retarget_measure_look(rg->rt, j.r, j.src_clip, j.back, &j.look, j.foot_low, NULL);
    motion = clip_motion(&j);
  }
  clip_job_clear(&j);
  return motion;
}

/* True when both paths name one existing file (same device and inode). */
static bool same_file(const char *a, const char *b) {
  GStatBuf sa, sb;
  return a && b && g_stat(a, &sa) == 0 && g_stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

/* Records an entry of an input and reports it. */
static void finish_clip(batch *b, rk__rt_input *in, rk__rt_entry *entry, bool resumed,
                        size_t frames) {
  g_ptr_array_add(in->entries, entry);
  g_mutex_lock(&b->lock);
  b->clips_done++;
  b->frames += frames;
  if (resumed)
    b->resumed++;
  if (!entry->error)
    b->ok++;
  else
    b->failed++;
  g_autofree char *what = entry->clip ? g_strdup_printf("%s: clip '%s'", in->path, entry->clip)
                                      : g_strdup(in->path);
  if (entry->error)
    say_locked(b, "rigkit retarget: %s: [%s] %s", what,
               entry->error_code ? entry->error_code : "failed", entry->error);
  else if (!resumed) {
    for (guint i = 0; i < entry->notes->len; i++)
      say_locked(b, "rigkit retarget: note: %s: %s", what, (const char *)g_ptr_array_index(entry->notes, i));
    /* A file repaired on import is news about the file, not a figure: said as it happens. */
    for (guint i = 0; i < entry->warnings->len; i++) {
      const rk__rt_entry_warning *w = g_ptr_array_index(entry->warnings, i);
      if (!strcmp(w->code, rk_quality_code_name(RK_QUALITY_IMPORT_REPAIRED)))
        say_locked(b, "rigkit retarget: warning: %s: %s", what, w->message);
    }
  }
  g_cond_broadcast(&b->changed);
  g_mutex_unlock(&b->lock);
}

/* The clips of a source file to run (all, or --clip's), or NULL with *problem saying why the
 * file cannot run (g_free) and *code its kind. */
static GArray *clips_to_run(const rk__rt_config *cfg, const rk_asset *src, char **problem,
                            rk__rt_error *code) {
  GArray *clips = g_array_new(FALSE, FALSE, sizeof(size_t));
  const size_t count = rk_asset_clip_count(src);
  g_autofree bool *wanted = g_new0(bool, count + 1);
  const char *missing = NULL;
  for (char *const *name = cfg->clip_select; name && *name; name++) {
    int i = rk_asset_find_clip(src, *name);
    if (i >= 0)
      wanted[i] = true; /* a clip named twice (or by name and index) runs once */
    else if (!missing)
      missing = *name;
  }
  for (size_t i = 0; i < count; i++)
    if (!cfg->clip_select || wanted[i])
      g_array_append_val(clips, i);
  *problem = NULL;
  *code = RK__RT_ERROR_NO_CLIP;
  if (count == 0)
    *problem = g_strdup("the file holds a skeleton but no clip");
  else if (missing)
    *problem = g_strdup_printf("no clip '%s' in the file (it has %zu)", missing, count);
  else if (cfg->out_file && clips->len > 1) {
    *code = RK__RT_ERROR_OUTPUT_CONFLICT;
    *problem = g_strdup_printf(
        "the file holds %u clips and --out writes one: choose one with --clip or use --out-dir",
        clips->len);
  }
  if (*problem)
    g_clear_pointer(&clips, g_array_unref);
  return clips;
}

/* Why clip k (clip_name) of a source file must not run, or NULL (g_free), and *code its kind:
 * its rig cannot be retargeted, its output would replace an input (same directory, stem and
 * extension as its own source or the target), or another clip already writes that output (else
 * this clip claims it). */
static char *clip_blocked(batch *b, const rig *rg, const char *source, const char *clip_name,
                          const char *output, rk__rt_error *code) {
  const rk__rt_config *cfg = b->cfg;
  *code = rg->code;
  if (!rg->rt)
    return g_strdup(rg->error);
  *code = RK__RT_ERROR_OUTPUT_CONFLICT;
  const char *input_hit = same_file(output, source)            ? source
                          : same_file(output, cfg->target_path) ? cfg->target_path
                                                                : NULL;
  if (input_hit)
    return g_strdup_printf("output %s would overwrite the input %s: choose another --out-dir or "
                           "--format",
                           output, input_hit);
  g_autofree char *owner = NULL;
  g_mutex_lock(&b->lock);
  const char *prev_owner = g_hash_table_lookup(b->claimed, output);
  if (prev_owner)
    owner = g_strdup(prev_owner);
  else
    g_hash_table_insert(b->claimed, g_strdup(output),
                        g_strdup_printf("%s: clip '%s'", source, clip_name));
  g_mutex_unlock(&b->lock);
  return owner ? g_strdup_printf("output %s is already written by %s", output, owner) : NULL;
}

/* Imports one source file and runs its clips. */
static void process_file(batch *b, rk__rt_input *in) {
  const rk__rt_config *cfg = b->cfg;
  const gint64 t_start = g_get_monotonic_time();
  if (!cfg->target) {
    finish_clip(b, in,
                rk__rt_entry_error(cfg, in->path, NULL, -1, NULL, RK__RT_ERROR_TARGET_UNUSABLE,
                                   cfg->target_error, 0),
                false, 0);
    return;
  }
  g_autoptr(GError) e = NULL;
  g_autoptr(rk_asset) src = NULL;
  if (!rk__rt_prefetch_take(cfg->prefetch, in->path, &src, &e))
    src = rk_import_file(in->path, &cfg->source_import, &e);
  g_autofree char *problem = src ? NULL : g_strdup_printf("cannot read the clip: %s", e->message);
  rk__rt_error code = RK__RT_ERROR_SOURCE_UNREADABLE;
  g_autoptr(GArray) clips = src ? clips_to_run(cfg, src, &problem, &code) : NULL;
  if (problem) {
    const double seconds = (double)(g_get_monotonic_time() - t_start) / G_USEC_PER_SEC;
    finish_clip(b, in, rk__rt_entry_error(cfg, in->path, NULL, -1, NULL, code, problem, seconds),
                false, 0);
    return;
  }
  if (clips->len > 1) {
    g_mutex_lock(&b->lock);
    b->clips_known += clips->len - 1;
    g_mutex_unlock(&b->lock);
  }
  const size_t count = rk_asset_clip_count(src);
  const rig *rg = rig_for(b, src);
  for (guint c = 0; c < clips->len; c++) {
    const size_t k = g_array_index(clips, size_t, c);
    const char *clip_name = rk_clip_name(rk_asset_clip(src, k));
    g_autofree char *output =
        rk__rt_output_path(cfg, in->path, clip_name, cfg->clip_select ? clips->len : count);
    rk__rt_entry *prev = cfg->resume && rg->rt
                             ? rk__rt_journal_lookup(b->journal, in->path, (int)k, clip_name)
                             : NULL;
    if (prev) {
      if (cfg->html_path)
        prev->motion = resumed_motion(b, rg, src, k, prev->output);
      finish_clip(b, in, prev, true, 0);
      continue;
    }
    rk__rt_error blocked_code;
    g_autofree char *blocked = clip_blocked(b, rg, in->path, clip_name, output, &blocked_code);
    size_t frames = 0;
    rk__rt_entry *entry =
        blocked ? rk__rt_entry_error(cfg, in->path, clip_name, (int)k, output, blocked_code,
                                     blocked, 0)
                : run_clip(b, rg, src, k, in->path, output, &frames);
    finish_clip(b, in, entry, false, frames);
  }
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
    inputs[i].entries = g_ptr_array_new_with_free_func((GDestroyNotify)rk__rt_entry_free);
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
