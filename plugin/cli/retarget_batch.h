/* Internal interface of `rigkit retarget`: the batch runner (retarget_batch.c), the report and
 * journal (retarget_report.c) and the SVG plots (retarget_plot.c). cmd_retarget.c parses the
 * command line into an rk__rt_config, lists the inputs and calls rk__rt_batch_run.
 *
 * Unit of work: one source FILE (imported once, its clips retargeted one after the other by the
 * same worker). Files run in parallel on a GThreadPool; the target is imported once and shared
 * read-only; retargeters are cached by source skeleton (identical skeletons share one). Every
 * output depends only on its own inputs, so outputs and report are the same bytes whatever -j
 * and --shard are (the report's `seconds` fields aside). */
#ifndef RK_RETARGET_BATCH_H
#define RK_RETARGET_BATCH_H

#include <json-glib/json-glib.h>
#include <rigkit/exporters.h>
#include <rigkit/gltf_edit.h>
#include <rigkit/importers.h>
#include <rigkit/rigkit.h>
#include <signal.h>

#include "retarget_errors.h"
#include "retarget_prefetch.h"

typedef struct rk__rt_journal rk__rt_journal;
typedef struct rk__rt_silhouette rk__rt_silhouette;

/** Everything a batch needs, read-only while it runs. */
typedef struct rk__rt_config {
  const char *target_path;    /* as given on the command line */
  rk_asset *target;           /* imported target, or NULL when target_error is set */
  rk_humanoid_map target_map; /* valid when target is set */
  char *target_error;         /* why the target cannot be used (every clip fails with it) */
  char *target_guess;         /* when it cannot be mapped: the best guess of its map (text) */
  const char *map_path;       /* --map, or NULL */
  const rk_profile *profile;  /* its contents, or NULL */
  rk_retarget_options ropts;  /* [settings] of the profile, then the command line */
  rk_quality_bounds bounds;   /* the verdict's bounds: rigkit's, then the profile's [quality] */
  rk_import_options source_import; /* --unit --up --root-offset --source-format */
  rk_import_options target_import; /* --target-unit --target-up ... (an edit of the target's
                                      document reads back as the target did) */
  rk_export_options export_opts;   /* format resolved (never AUTO) */
  const char *ext;                 /* output extension with its dot (".glb") */
  double reduce_tol;               /* --reduce in metres, < 0 = no reduction */
  char *const *clip_select;        /* --clip NAME|INDEX..., or NULL = every clip of each file */
  const char *out_file;            /* --out FILE (one clip), or NULL */
  const char *out_dir;             /* --out-dir DIR, or NULL */
  const char *plot_dir;            /* --plot DIR, or NULL */
  const char *html_path;           /* --html FILE, or NULL */
  const rk__rt_silhouette *silhouette; /* with --html: the target's silhouette on the page */
  bool resume;                     /* --resume */
  char *fingerprint;               /* SHA-256 of everything that decides an output's bytes */
  int jobs;                        /* worker threads */
  bool progress;                   /* draw a progress bar (stderr is a terminal) */
  const char *shard;               /* --shard K/N as given, or NULL */
  rk__rt_prefetch *prefetch;       /* the first source file's import, begun beside the target's,
                                      or NULL */
} rk__rt_config;

/** One contact joint of a report entry: its name in the output and its planted intervals. */
typedef struct rk__rt_entry_contact {
  char *joint;
  GArray *intervals; /* rk_contact_interval, output frames */
} rk__rt_entry_contact;

/** One warning of a report entry (rk_retarget_judge's). */
typedef struct rk__rt_entry_warning {
  char *code, *message;
} rk__rt_entry_warning;

/** What the report says about one clip, typed until it is written (a journal line, the report):
 * absent values are NULL strings, -1 counts and NAN numbers (null in JSON). Figures measured on
 * the written output read back: foot skate, limb directions, planted heights, contact frames;
 * from the retargeter's own solve (they need the pins and the loop): goal error, loop closure,
 * joint limits, and the FK-only skate. */
typedef struct rk__rt_entry {
  char *source;           /* source path as given */
  char *clip;             /* clip name, NULL when the file could not be read */
  int clip_index;         /* index in the source file, -1 for a failure of the whole file */
  char *target;           /* --target as given */
  char *output;           /* output path, NULL when none was planned */
  char *error;            /* NULL = ok */
  char *error_code;       /* rk__rt_error_name of why it failed, NULL = ok */
  gint64 frames;          /* output frames */
  double fps;
  gint64 mapped_joints;   /* canonical bones mapped in both rigs */
  GPtrArray *joints;      /* char*, two per target joint in order: its name, then the name of the
                             source joint that drives it or NULL (at rest); NULL = no result */
  double source_height_m, target_height_m; /* the rigs' rest heights (the verdict's scale) */
  GPtrArray *contacts;    /* rk__rt_entry_contact*, joints with intervals; NULL = no result */
  double skate_mean_mm, skate_max_mm;
  double goal_error_mean_mm, goal_error_max_mm;
  double closure_max_mm;
  gint64 limit_violations;
  double skate_fk_mean_mm, skate_fk_max_mm;
  double limb_direction_median_deg;
  double planted_height_mean_mm, planted_height_max_mm; /* vs the rest height, while planted */
  double pose_error_median_mm, pose_error_max_mm; /* identity-style, where the rigs correspond */
  double low_median_mm, low_min_mm, low_max_mm;   /* planted feet's mesh above the floor */
  double penetration_mm;                          /* the body through the floor */
  double pitch_p95_deg, pitch_max_deg;            /* foot pitch against the source's */
  double legs_overlap_mm;                         /* legs of one bone through each other */
  gint64 lifted_frames, pelvis_frames, unreachable_frames;
  char *verdict;          /* rk_retarget_verdict_name, NULL when the clip failed */
  GPtrArray *warnings;    /* rk__rt_entry_warning* */
  gint64 contact_frames;
  int in_place;           /* the clip is an in-place cycle: 0, 1, -1 = unknown */
  double ground_offset_mm; /* the one height offset of the target's hips */
  double ground_speed_m_s;
  double duration_s;      /* of the output clip as read back */
  gint64 keys;            /* keys written */
  char *plot;             /* SVG path */
  GPtrArray *notes;       /* char* */
  double seconds;
  char *motion;           /* the review page's player data (rk__rt_html_motion), or NULL: not
                             asked for (no --html), failed, or resumed and its output could not
                             be read back */
} rk__rt_entry;

/** One source file of the batch and, once run, the report entries of its clips. */
typedef struct rk__rt_input {
  const char *path;   /* as given */
  GPtrArray *entries; /* rk__rt_entry* in clip order (owned), filled by the run */
  bool run;           /* false: never started (interrupted before its turn) */
} rk__rt_input;

/** The outcome of a batch. */
typedef struct rk__rt_outcome {
  size_t clips, ok, failed, resumed; /* resumed: skipped because the journal had them */
  size_t frames;                     /* output frames written in this run */
  int signal;                        /* SIGINT/SIGTERM that stopped the batch, 0 = none */
  double seconds;                    /* wall time */
} rk__rt_outcome;

/** Runs the batch over inputs[n] (in this order in the report), filling each input's entries.
 * Installs SIGINT/SIGTERM handlers for its duration: the first signal stops new clips from
 * starting, lets running ones finish, and returns (outcome->signal set); a second one kills. */
void rk__rt_batch_run(const rk__rt_config *cfg, rk__rt_input *inputs, size_t n,
                      rk__rt_journal *journal, rk__rt_outcome *outcome);

/** Output path of clip `clip_index` named clip_name of a source file holding clip_count clips
 * (stem, plus "_<clip name>" when the file holds several clips, plus cfg->ext). */
char *rk__rt_output_path(const rk__rt_config *cfg, const char *source, const char *clip_name,
                         size_t clip_count);
/** Stem of a source path: its base name without the last extension. */
char *rk__rt_stem(const char *path);

/** Hex SHA-256 of a skeleton's structure and rest pose (names, parents, flags, rests). */
char *rk__rt_skeleton_fingerprint(const rk_skeleton *s);

/* ---- report and journal (retarget_report.c) ------------------------------------------------ */

/** A new report entry of a clip with every figure absent (ok until an error is set). */
rk__rt_entry *rk__rt_entry_new(const rk__rt_config *cfg, const char *source, const char *clip_name,
                               int clip_index, const char *output);
/** Fills the figures of an entry that come from the retargeting itself: frames, rate, mapped
 * bones, which source joint drives each target joint, contacts (named as in the target), goal
 * error, closure, limits, FK-only skate and the ground's motion. */
void rk__rt_entry_set_result(rk__rt_entry *e, const rk__rt_config *cfg, const rk_retargeter *rt,
                             const rk_retarget_result *r);
/** Copies the figures of what a person sees in the output (rk_retarget_measure_look's). */
void rk__rt_entry_set_look(rk__rt_entry *e, const rk_retarget_look *look);
/** Sets an entry's verdict and copies the warnings (rk_retarget_warning) of rk_retarget_judge. */
void rk__rt_entry_set_verdict(rk__rt_entry *e, rk_retarget_verdict verdict, const GArray *warnings);
/** Report entry of a clip that failed with `code`, saying `error` (NULL: "failed").
 * clip_name/output may be NULL; clip_index -1 for a failure of the whole file. */
rk__rt_entry *rk__rt_entry_error(const rk__rt_config *cfg, const char *source, const char *clip_name,
                                 int clip_index, const char *output, rk__rt_error code,
                                 const char *error, double seconds);
void rk__rt_entry_free(rk__rt_entry *e);
/** An entry as the report and the journal write it (the same members in the same order for
 * every clip). The caller owns the object. */
JsonObject *rk__rt_entry_json(const rk__rt_entry *e);
/** Writes the report (atomically): every input's entries in input order, the summary and, after
 * an interruption, the files never run. Returns false with error on failure. */
bool rk__rt_report_write(const rk__rt_config *cfg, const char *path, const rk__rt_input *inputs,
                         size_t n, const rk__rt_outcome *outcome, GError **error);

/** Opens the journal of this run in the output directory: `.rigkit-retarget.journal`, or
 * `.rigkit-retarget.shard-K-of-N.journal` for a shard (shard NULL = unsharded). With resume,
 * first reads every `.rigkit-retarget*.journal` of the directory and keeps the entries whose
 * settings fingerprint matches and whose files are still there with the recorded SHA-256; without
 * resume the journal starts empty. Returns NULL with error when it cannot be created. */
rk__rt_journal *rk__rt_journal_open(const rk__rt_config *cfg, const char *dir, const char *shard,
                                    GError **error);
/** The report entry (new) of a completed clip recorded in the journal for this source file (its
 * size and modification time unchanged), clip index and name, or NULL. Thread-safe. */
rk__rt_entry *rk__rt_journal_lookup(rk__rt_journal *j, const char *source, int clip_index,
                                    const char *clip_name);
/** Appends a completed clip (its report entry and the files written) and syncs it to disk.
 * known_path/known_sha256 (or NULLs): a written file whose SHA-256 is already known (the output
 * as its read-back import digested it), not hashed again. Thread-safe. Returns false with error
 * when the journal cannot be written. */
bool rk__rt_journal_append(rk__rt_journal *j, const char *source, int clip_index,
                           const char *clip_name, const rk__rt_entry *entry,
                           const char *const *files, const char *known_path,
                           const char *known_sha256, GError **error);
/** Path of the journal file. */
const char *rk__rt_journal_path(const rk__rt_journal *j);
void rk__rt_journal_free(rk__rt_journal *j);

/* ---- plots (retarget_plot.c) ------------------------------------------------------------------ */

/** One foot of a plot: the lowest point of its sole over time, how its planted points drift,
 * its phases. */
typedef struct rk__rt_plot_track {
  const char *label;                /* e.g. "left foot (LeftFoot)" */
  const double *low_fk, *low_ik;    /* per frame, y (metres): the lowest sole point as the transfer
                                       leaves it; the lowest point of the written output's foot
                                       (its mesh) */
  const double *drift_fk, *drift_ik; /* per frame, mm: the planted points' largest horizontal drift
                                        from their contacts' first frames (NAN when none is
                                        planted) */
  const guint8 *phase;              /* per frame: rk_foot_phase */
} rk__rt_plot_track;

/** What one plot shows. */
typedef struct rk__rt_plot {
  const char *title;     /* e.g. "walk.bvh: clip 'walk' -> RiggedFigure.glb" */
  size_t frames;
  double fps;
  double floor;          /* height (y) of the target's floor */
  const rk__rt_plot_track *tracks;
  size_t track_count;
  const char *verdict;   /* rk_retarget_verdict_name */
  const char *warnings;  /* the warnings' codes, comma-separated ("" when none) */
  double skate_fk_max_mm, skate_ik_max_mm, goal_error_max_mm; /* for the caption */
  double planted_low_median_mm, foot_pitch_p95_deg;
} rk__rt_plot;

/** SVG text of a plot: per foot, the height of its sole's lowest point above the floor over time
 * (FK-only dashed, the written output's mesh solid, the floor a red line) and the drift of its
 * planted points, shaded by phase (heel strike, flat, toe-off, pivot, slide); the caption gives
 * the verdict and the warnings. The caller frees it. Deterministic (fixed decimals, no
 * locale). */
char *rk__rt_plot_svg(const rk__rt_plot *p);

#endif
