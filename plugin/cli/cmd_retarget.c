/* `rigkit retarget --target RIG [--map FILE] (--out FILE | --out-dir DIR) [--report FILE.json]
 * [--no-ik] [-j N] CLIP...`: retargets every clip of every CLIP file onto the target character
 * with foot (and hand) IK, writes one output per clip (the target's meshes and skin carrying the
 * retargeted clip only), measures each output as written, and ends with a summary table and a
 * JSON report (and --html, a review page). One bad clip never stops the batch; exit code 1 when
 * any clip failed (or has a verdict --fail-on names), 2 on bad usage or a batch mistake found
 * before any clip runs (retarget_preflight.c), 128 + signal number when SIGINT/SIGTERM stopped it
 * (`--resume` completes the rest).
 * See README.md, "Retargeting", for the options, the map file, sharding and resuming. */
#include "cli.h"
#include "cli_import.h"
#include "retarget_batch.h"
#include "retarget_html.h"
#include "retarget_preflight.h"
#include "retarget_silhouette.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#define CMD "retarget"

static bool parse_number(const char *text, const char *what, double lo, bool lo_open, double *out) {
  if (!text)
    return true;
  char *end = NULL;
  double v = g_ascii_strtod(text, &end);
  if (!end || end == text || *end != '\0' || !isfinite(v) || v < lo || (lo_open && v == lo)) {
    rk__cli_usage(CMD, "%s must be a %s number, not '%s'", what,
                  lo_open ? "positive" : "non-negative", text);
    return false;
  }
  *out = v;
  return true;
}

static bool parse_shard(const char *text, int *k, int *n) {
  char *end = NULL;
  long a = strtol(text, &end, 10);
  if (end == text || *end != '/')
    return false;
  const char *rest = end + 1;
  long b = strtol(rest, &end, 10);
  if (end == rest || *end != '\0' || b < 1 || b > 1000000 || a < 1 || a > b)
    return false;
  *k = (int)a;
  *n = (int)b;
  return true;
}

static rk_export_format parse_format(const char *text) {
  if (!text)
    return RK_EXPORT_AUTO;
  const char *t = text[0] == '.' ? text + 1 : text;
  if (!g_ascii_strcasecmp(t, "glb"))
    return RK_EXPORT_GLB;
  if (!g_ascii_strcasecmp(t, "gltf"))
    return RK_EXPORT_GLTF;
  if (!g_ascii_strcasecmp(t, "bvh"))
    return RK_EXPORT_BVH;
  if (!g_ascii_strcasecmp(t, "fbx"))
    return RK_EXPORT_FBX;
  return (rk_export_format)-1;
}

/* SHA-256 of a file's bytes ("-" when unreadable). */
static char *file_digest(const char *path) {
  g_autofree char *data = NULL;
  gsize len = 0;
  if (!path || !g_file_get_contents(path, &data, &len, NULL))
    return g_strdup("-");
  return g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)data, len);
}

/* Everything that decides the bytes of an output, hashed: --resume reuses only outputs made with
 * the same fingerprint. */
static char *settings_fingerprint(const rk__rt_config *c) {
  GString *s = g_string_new(NULL);
  g_autofree char *target_sha = file_digest(c->target_path);
  g_autofree char *map_sha = file_digest(c->map_path);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
#define D(v) g_ascii_dtostr(buf, sizeof buf, (v))
  g_string_append_printf(s, "rigkit %s\ntarget %s %s\nmap %s\n", rk_version_string(),
                         c->target_path, target_sha, map_sha);
  g_autofree char *settings = rk_profile_settings_text(&c->ropts);
  g_string_append(s, settings);
  g_string_append_printf(s, "reduce %s\n", D(c->reduce_tol));
  g_string_append_printf(s, "format %s unit %d\n", rk_export_format_name(c->export_opts.format),
                         (int)c->export_opts.unit);
  g_string_append_printf(s, "source import %s %s %d %s\n",
                         c->source_import.format ? c->source_import.format : "-",
                         D(c->source_import.unit_scale), (int)c->source_import.bvh_root_offset,
                         c->source_import.up_axis ? c->source_import.up_axis : "-");
  g_autofree char *clips = c->clip_select ? g_strjoinv("\x1f", (char **)c->clip_select) : g_strdup("-");
  g_string_append_printf(s, "clip %s\nout %s\n", clips, c->out_file ? c->out_file : "(dir)");
  g_string_append_printf(s, "plot %s\n", c->plot_dir ? c->plot_dir : "-");
#undef D
  char *sha = g_compute_checksum_for_string(G_CHECKSUM_SHA256, s->str, (gssize)s->len);
  g_string_free(s, TRUE);
  return sha;
}

/* Reads a list of clip paths, one per line ('-' = standard input); empty lines and lines starting
 * with '#' are skipped. */
static bool read_list(const char *path, GPtrArray *into) {
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr(GError) e = NULL;
  if (strcmp(path, "-") == 0) {
    GString *s = g_string_new(NULL);
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, stdin)) > 0)
      g_string_append_len(s, buf, (gssize)got);
    text = g_string_free(s, FALSE);
  } else if (!g_file_get_contents(path, &text, &len, &e)) {
    fprintf(stderr, "rigkit " CMD ": --files-from: %s\n", e->message);
    return false;
  }
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (size_t i = 0; lines[i]; i++) {
    g_strchomp(lines[i]);
    if (*lines[i] && lines[i][0] != '#')
      g_ptr_array_add(into, g_strdup(lines[i]));
  }
  return true;
}

static gint cmp_str(gconstpointer a, gconstpointer b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* --print-map: the target's map and each distinct source skeleton's. */
static int print_maps(const rk__rt_config *cfg, char **clips, size_t n) {
  int rc = RK_EXIT_OK;
  printf("target %s:\n", cfg->target_path);
  if (!cfg->target) {
    printf("  error: %s\n", cfg->target_error);
    if (cfg->target_guess)
      printf("\n%s", cfg->target_guess);
    rc = RK_EXIT_FAILED;
  } else {
    g_autofree char *t = rk_humanoid_map_to_string(&cfg->target_map, rk_asset_skeleton(cfg->target));
    fputs(t, stdout);
  }
  g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  for (size_t i = 0; i < n; i++) {
    g_autoptr(GError) e = NULL;
    rk_import_options io = cfg->source_import;
    g_autoptr(rk_asset) a = rk_import_file(clips[i], &io, &e);
    printf("\nsource %s:\n", clips[i]);
    if (!a) {
      printf("  error: %s\n", e->message);
      rc = RK_EXIT_FAILED;
      continue;
    }
    g_autofree char *fp = rk__rt_skeleton_fingerprint(rk_asset_skeleton(a));
    const char *first = g_hash_table_lookup(seen, fp);
    if (first) {
      printf("  the same skeleton as %s\n", first);
      continue;
    }
    g_hash_table_insert(seen, g_strdup(fp), g_strdup(clips[i]));
    rk_humanoid_map m;
    if (!rk_profile_map_asset(cfg->profile, a, RK_PROFILE_SOURCE, &m, &e)) {
      g_autofree char *guess = rk_profile_map_guess(a, RK_PROFILE_SOURCE, e->message);
      printf("  error: %s\n\n%s", e->message, guess);
      rc = RK_EXIT_FAILED;
      continue;
    }
    g_autofree char *t = rk_humanoid_map_to_string(&m, rk_asset_skeleton(a));
    fputs(t, stdout);
  }
  return fflush(stdout) == 0 ? rc : RK_EXIT_FAILED;
}

/* A figure of the table: the number, or "-" when absent. */
static void print_number(GString *s, double v, int width, int decimals) {
  if (isfinite(v))
    g_string_append_printf(s, "%*.*f", width, decimals, v);
  else
    g_string_append_printf(s, "%*s", width, "-");
}

/* A count of the table, or "-" when absent. */
static void print_count(GString *s, gint64 v, int width) {
  if (v >= 0)
    g_string_append_printf(s, " %*" G_GINT64_FORMAT, width, v);
  else
    g_string_append_printf(s, " %*s", width, "-");
}

/* The summary table on stdout: one line per clip, in input order. */
static void print_table(const rk__rt_input *inputs, size_t n, const rk__rt_outcome *out) {
  GString *s = g_string_new(NULL);
  g_string_append(s, "status  verdict  frames contacts  skate FK mm  skate mm  goal mm  "
                     "closure mm  limits  clip -> output\n");
  for (size_t i = 0; i < n; i++)
    for (guint k = 0; inputs[i].entries && k < inputs[i].entries->len; k++) {
      const rk__rt_entry *e = g_ptr_array_index(inputs[i].entries, k);
      g_string_append_printf(s, "%-6s  %-7s", e->error ? "error" : "ok", e->verdict ? e->verdict : "-");
      print_count(s, e->frames, 7);
      print_count(s, e->contact_frames, 8);
      print_number(s, e->skate_fk_max_mm, 13, 2);
      print_number(s, e->skate_max_mm, 10, 2);
      print_number(s, e->goal_error_max_mm, 9, 3);
      print_number(s, e->closure_max_mm, 12, 4);
      print_count(s, e->limit_violations, 7);
      g_string_append_printf(s, "  %s", e->source);
      if (e->clip)
        g_string_append_printf(s, " '%s'", e->clip);
      if (!e->error)
        g_string_append_printf(s, " -> %s", e->output);
      else
        g_string_append_printf(s, ": [%s] %s", e->error_code ? e->error_code : "failed", e->error);
      g_string_append_c(s, '\n');
    }
  size_t not_run = 0;
  for (size_t i = 0; i < n; i++)
    not_run += !inputs[i].run;
  g_string_append_printf(s, "%zu clip%s: %zu ok, %zu failed", out->clips, out->clips == 1 ? "" : "s",
                         out->ok, out->failed);
  if (out->resumed)
    g_string_append_printf(s, ", %zu already done (--resume)", out->resumed);
  g_string_append_printf(s, "; %zu frames retargeted in %.2f s", out->frames, out->seconds);
  if (out->seconds > 0 && out->frames > 0)
    g_string_append_printf(s, " (%.0f frames/s)", (double)out->frames / out->seconds);
  g_string_append(s, "\n");
  if (out->signal) {
    g_string_append_printf(s, "interrupted by %s: %zu file%s not run:", out->signal == SIGINT ? "SIGINT" : "SIGTERM",
                           not_run, not_run == 1 ? "" : "s");
    for (size_t i = 0; i < n; i++)
      if (!inputs[i].run)
        g_string_append_printf(s, " %s", inputs[i].path);
    g_string_append(s, "\nrun the same command with --resume to complete the batch\n");
  }
  fputs(s->str, stdout);
  fflush(stdout);
  g_string_free(s, TRUE);
}

/* The command line as parsed (the strings owned here). */
typedef struct args {
  char *target, *map, *out, *out_dir, *report, *fps_text, *reduce_text, *plot, *shard, *format,
      *files_from, *ground, *fail_on, *html;
  char **clip; /* --clip, each time it is given */
  gboolean no_ik, hands, root_motion, print_map, resume, no_progress, recursive;
  int jobs;
  rk__cli_import src_imp, tgt_imp;
  rk_import_options src_io, tgt_io;
  GPtrArray *clips; /* char*: the CLIP arguments, then --files-from's */
  /* Checked and derived: */
  rk_export_format format_wanted;
  rk_retarget_verdict fail_verdict; /* exit 1 from this verdict on (--fail-on; errors always) */
  int shard_k, shard_n;
  double fps, reduce_tol;
} args;

static void args_clear(args *a) {
  char **strings[] = {&a->target, &a->map, &a->out, &a->out_dir, &a->report, &a->fps_text,
                      &a->reduce_text, &a->plot, &a->shard, &a->format, &a->files_from,
                      &a->ground, &a->fail_on, &a->html};
  for (size_t i = 0; i < G_N_ELEMENTS(strings); i++)
    g_clear_pointer(strings[i], g_free);
  g_clear_pointer(&a->clip, g_strfreev);
  rk__cli_import_clear(&a->src_imp);
  rk__cli_import_clear(&a->tgt_imp);
  if (a->clips)
    g_ptr_array_unref(a->clips);
}

/* Parses the options into *a; RK_EXIT_OK to go on, or the exit code. */
static int parse_args(args *a, int argc, char **argv) {
  GOptionEntry entries[] = {
      {"target", 0, 0, G_OPTION_ARG_FILENAME, &a->target,
       "The character to retarget onto (glTF/GLB, FBX or BVH with a humanoid skeleton)", "RIG"},
      {"map", 0, 0, G_OPTION_ARG_FILENAME, &a->map,
       "Map/profile key file: [source] and [target] bone=joint lines override or complete the "
       "automatic mapping, [settings] sets retargeting options (see samples/maps/)",
       "FILE"},
      {"out", 'o', 0, G_OPTION_ARG_FILENAME, &a->out, "Write the one clip to FILE (format by extension)",
       "FILE"},
      {"out-dir", 0, 0, G_OPTION_ARG_FILENAME, &a->out_dir,
       "Write one file per clip into DIR (created if missing): <source stem>[_<clip>].<format>",
       "DIR"},
      {"format", 0, 0, G_OPTION_ARG_STRING, &a->format,
       "Output format with --out-dir: glb, gltf, bvh or fbx (default: the target's own; glb for "
       "glTF targets)",
       "FORMAT"},
      {"report", 0, 0, G_OPTION_ARG_FILENAME, &a->report,
       "Write a JSON report: one entry per clip with its status, contacts and quality measured on "
       "the written output",
       "FILE.json"},
      {"html", 0, 0, G_OPTION_ARG_FILENAME, &a->html,
       "Write one self-contained review page for the batch (no network): the clips in a table "
       "sortable and filterable by verdict, each with a player (source and target side by side, "
       "contacts and foot heights on a timeline)",
       "FILE.html"},
      {"no-ik", 0, 0, G_OPTION_ARG_NONE, &a->no_ik, "Pose transfer only: no foot or hand IK", NULL},
      {"hands", 0, 0, G_OPTION_ARG_NONE, &a->hands,
       "Also solve hand goals (the source's hands relative to the shoulders, scaled by arm length)",
       NULL},
      {"root-motion", 0, 0, G_OPTION_ARG_NONE, &a->root_motion,
       "Make in-place cycles (treadmill clips) travel so their feet can plant; without it an "
       "in-place clip keeps no planted feet",
       NULL},
      {"ground", 0, 0, G_OPTION_ARG_STRING, &a->ground,
       "auto (default): one height offset per clip stands the character's soles on its floor "
       "where the source's soles stand on theirs (reported as ground_offset_mm); keep: the "
       "source's heights, scaled, untouched",
       "MODE"},
      {"fps", 0, 0, G_OPTION_ARG_STRING, &a->fps_text,
       "Output frame rate (default: the source clip's)", "F"},
      {"reduce", 0, 0, G_OPTION_ARG_STRING, &a->reduce_text,
       "Remove keys while no joint moves more than TOL_M metres (e.g. 0.001)", "TOL_M"},
      {"clip", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a->clip,
       "Retarget only this clip (name or index) of each source file; repeat for several",
       "NAME"},
      {"jobs", 'j', 0, G_OPTION_ARG_INT, &a->jobs,
       "Clip files retargeted in parallel (default, and 0: the number of CPUs)", "N"},
      {"recursive", 'r', 0, G_OPTION_ARG_NONE, &a->recursive,
       "A directory CLIP argument also gives the clip files of its subdirectories (without it: "
       "the directory's own .bvh, .glb, .gltf and .fbx files)",
       NULL},
      {"fail-on", 0, 0, G_OPTION_ARG_STRING, &a->fail_on,
       "Exit 1 also when a clip's verdict is VERDICT or worse: failed, or check (any clip not "
       "clean); without it only clips that could not be retargeted do",
       "VERDICT"},
      {"shard", 0, 0, G_OPTION_ARG_STRING, &a->shard,
       "Run only shard K of N: the clip files sorted by path (byte order), every N-th starting "
       "at the K-th (1 <= K <= N)",
       "K/N"},
      {"resume", 0, 0, G_OPTION_ARG_NONE, &a->resume,
       "Skip clips a previous run with the same settings completed (journal in the output "
       "directory, outputs checked by SHA-256)",
       NULL},
      {"plot", 0, 0, G_OPTION_ARG_FILENAME, &a->plot,
       "Write one SVG per clip into DIR: foot heights, contacts and foot skate before and after IK",
       "DIR"},
      {"print-map", 0, 0, G_OPTION_ARG_NONE, &a->print_map,
       "Print how the target and each source skeleton are mapped (bone, joint, how found) and "
       "exit",
       NULL},
      {"files-from", 0, 0, G_OPTION_ARG_FILENAME, &a->files_from,
       "Read more clip paths from FILE, one per line ('-' = standard input)", "FILE"},
      {"no-progress", 0, 0, G_OPTION_ARG_NONE, &a->no_progress,
       "No progress bar even on a terminal", NULL},
      {"unit", 0, 0, G_OPTION_ARG_STRING, &a->src_imp.unit,
       "Length unit of the clip files: m, dm, cm, mm, in, ft, cmu, or metres per unit (default: "
       "from the file, or detected for BVH)",
       "UNIT"},
      {"up", 0, 0, G_OPTION_ARG_STRING, &a->src_imp.up, "Up axis of BVH clips (default: detected)",
       "AXIS"},
      {"root-offset", 0, 0, G_OPTION_ARG_STRING, &a->src_imp.root_offset,
       "BVH clips' root position channels: auto, add or replace (default auto)", "MODE"},
      {"source-format", 0, 0, G_OPTION_ARG_STRING, &a->src_imp.format,
       "Read the clip files as bvh, gltf, glb or fbx (default: from name and content)", "FORMAT"},
      {"target-unit", 0, 0, G_OPTION_ARG_STRING, &a->tgt_imp.unit, "Length unit of the target file",
       "UNIT"},
      {"target-up", 0, 0, G_OPTION_ARG_STRING, &a->tgt_imp.up, "Up axis of a BVH target", "AXIS"},
      {"target-root-offset", 0, 0, G_OPTION_ARG_STRING, &a->tgt_imp.root_offset,
       "A BVH target's root position channels: auto, add or replace", "MODE"},
      {"target-format", 0, 0, G_OPTION_ARG_STRING, &a->tgt_imp.format,
       "Read the target as bvh, gltf, glb or fbx", "FORMAT"},
      G_OPTION_ENTRY_NULL,
  };
  int rc = rk__cli_parse(
      CMD, "CLIP...",
      "Retargets mocap clips onto a character with foot (and hand) IK: one output per clip, the "
      "target's meshes and skin carrying the retargeted clip (named after the source clip) and "
      "none of its own. Outputs are written atomically; quality is measured on each written "
      "file. One bad clip never stops the batch. Exit codes: 0 all clips ok, 1 a clip failed "
      "(or a verdict --fail-on names), 2 bad usage or a batch mistake found before any clip runs "
      "(the map, the target, the outputs), 128+N stopped by signal N (rerun with --resume).",
      entries, &argc, &argv);
  if (rc != RK_EXIT_OK)
    return rc;
  if (!rk__cli_import_options(CMD, &a->src_imp, &a->src_io) ||
      !rk__cli_import_options(CMD " (target)", &a->tgt_imp, &a->tgt_io))
    return RK_EXIT_USAGE;
  a->clips = g_ptr_array_new_with_free_func(g_free);
  for (int i = 1; i < argc; i++)
    g_ptr_array_add(a->clips, g_strdup(argv[i]));
  return RK_EXIT_OK;
}

/* Checks what the options say together (usage errors) and derives the numbers. */
static int check_args(args *a) {
  a->format_wanted = parse_format(a->format);
  a->shard_k = a->shard_n = 1;
  a->fps = 0;
  a->reduce_tol = -1;
  if (a->files_from && !read_list(a->files_from, a->clips))
    return RK_EXIT_USAGE;
  if (!rk__rt_expand_dirs(CMD, a->clips, a->recursive))
    return RK_EXIT_USAGE;
  a->fail_verdict = RK_RETARGET_FAILED + 1;
  if (a->fail_on && !strcmp(a->fail_on, "failed"))
    a->fail_verdict = RK_RETARGET_FAILED;
  else if (a->fail_on && !strcmp(a->fail_on, "check"))
    a->fail_verdict = RK_RETARGET_CHECK;
  else if (a->fail_on)
    return rk__cli_usage(CMD, "--fail-on must be failed or check, not '%s'", a->fail_on);
  if (!a->target)
    return rk__cli_usage(CMD, "--target RIG is required (see rigkit retarget --help)");
  if (a->clips->len == 0)
    return rk__cli_usage(CMD, "no CLIP files given (see rigkit retarget --help)");
  if (!a->print_map && !a->out && !a->out_dir)
    return rk__cli_usage(CMD, "give --out FILE (one clip) or --out-dir DIR");
  if (a->out && a->out_dir)
    return rk__cli_usage(CMD, "--out and --out-dir exclude each other");
  if (a->out && a->clips->len > 1)
    return rk__cli_usage(CMD, "--out writes one clip but %u files were given: use --out-dir",
                         a->clips->len);
  if (a->jobs < 0)
    return rk__cli_usage(CMD, "-j must be 0 (the number of CPUs) or more, not %d", a->jobs);
  if (a->shard && !parse_shard(a->shard, &a->shard_k, &a->shard_n))
    return rk__cli_usage(CMD, "--shard must be K/N with 1 <= K <= N, not '%s'", a->shard);
  if (a->ground && strcmp(a->ground, "auto") && strcmp(a->ground, "keep"))
    return rk__cli_usage(CMD, "--ground must be auto or keep, not '%s'", a->ground);
  if (a->format_wanted == (rk_export_format)-1)
    return rk__cli_usage(CMD, "--format must be glb, gltf, bvh or fbx, not '%s'", a->format);
  if (a->out) {
    rk_export_format by_ext = rk_export_format_from_path(a->out);
    if (by_ext == RK_EXPORT_AUTO)
      return rk__cli_usage(CMD, "%s: unknown output format; use .glb, .gltf, .bvh or .fbx", a->out);
    if (a->format_wanted != RK_EXPORT_AUTO && a->format_wanted != by_ext)
      return rk__cli_usage(CMD, "--format %s disagrees with --out %s", a->format, a->out);
    a->format_wanted = by_ext;
  }
  if (!parse_number(a->fps_text, "--fps", 0, true, &a->fps) ||
      !parse_number(a->reduce_text, "--reduce", 0, false, &a->reduce_tol))
    return RK_EXIT_USAGE;
  return RK_EXIT_OK;
}

/* The retargeting options: the profile's [settings] (--map), then the command line over them. */
static int load_settings(const args *a, rk__rt_config *cfg, rk_profile **profile) {
  cfg->ropts = (rk_retarget_options)RK_RETARGET_OPTIONS_INIT;
  rk_quality_bounds_init(&cfg->bounds);
  if (a->map) {
    g_autoptr(GError) e = NULL;
    *profile = rk_profile_load_file(a->map, &e);
    if (!*profile) { /* a batch mistake: exit 2 before any clip runs */
      rk__cli_fail(CMD, e);
      return RK_EXIT_USAGE;
    }
    rk_profile_apply_settings(*profile, &cfg->ropts);
    rk_profile_apply_quality(*profile, &cfg->bounds);
    cfg->profile = *profile;
    cfg->map_path = a->map;
  }
  if (a->fps > 0)
    cfg->ropts.fps = a->fps;
  if (a->no_ik)
    cfg->ropts.foot_ik = cfg->ropts.hand_ik = false;
  if (a->hands)
    cfg->ropts.hand_ik = true;
  if (a->root_motion)
    cfg->ropts.root_motion = true;
  if (a->ground)
    cfg->ropts.ground = strcmp(a->ground, "keep") ? RK_RETARGET_GROUND_AUTO : RK_RETARGET_GROUND_KEEP;
  if (a->no_ik && a->hands)
    return rk__cli_usage(CMD, "--no-ik and --hands exclude each other");
  return RK_EXIT_OK;
}

/* The target, once: its failure fails every clip (each one says why). */
static void load_target(const args *a, rk__rt_config *cfg) {
  g_autoptr(GError) e = NULL;
  cfg->target_path = a->target;
  cfg->target_import = a->tgt_io;
  cfg->target = rk_import_file(a->target, &a->tgt_io, &e);
  if (!cfg->target) {
    cfg->target_error = g_strdup_printf("target: %s", e->message);
  } else if (!rk_profile_map_asset(cfg->profile, cfg->target, RK_PROFILE_TARGET, &cfg->target_map,
                                   &e)) {
    cfg->target_error = g_strdup_printf("target %s cannot be mapped: %s", a->target, e->message);
    cfg->target_guess = rk_profile_map_guess(cfg->target, RK_PROFILE_TARGET, e->message);
    rk_asset_free(cfg->target);
    cfg->target = NULL;
  }
}

/* Output format: --format / --out's extension, else the target's own (glb for glTF). */
static int resolve_format(const args *a, rk__rt_config *cfg) {
  rk_export_format fmt = a->format_wanted;
  if (fmt == RK_EXPORT_AUTO) {
    const char *tf = cfg->target ? rk_asset_source_format(cfg->target) : rk_import_format_from_path(a->target);
    fmt = tf && !strcmp(tf, "bvh") ? RK_EXPORT_BVH : tf && !strcmp(tf, "fbx") ? RK_EXPORT_FBX : RK_EXPORT_GLB;
    if (fmt == RK_EXPORT_FBX && !rk_export_format_available(RK_EXPORT_FBX)) {
      fprintf(stderr, "rigkit " CMD ": note: this build cannot write FBX: writing .glb (choose "
                      "with --format)\n");
      fmt = RK_EXPORT_GLB;
    }
  } else if (!rk_export_format_available(fmt)) {
    return rk__cli_usage(CMD, "this build cannot write %s files: choose --format glb, gltf or bvh",
                         rk_export_format_name(fmt));
  }
  cfg->export_opts = (rk_export_options)RK_EXPORT_OPTIONS_INIT;
  cfg->export_opts.format = fmt;
  cfg->ext = fmt == RK_EXPORT_GLB ? ".glb" : fmt == RK_EXPORT_GLTF ? ".gltf" : fmt == RK_EXPORT_BVH ? ".bvh" : ".fbx";
  return RK_EXIT_OK;
}

/* Inputs: duplicates dropped, stems unique (two files cannot share an output name), then this
 * shard's part of the list sorted by path. */
static int list_inputs(const args *a, rk__rt_input **inputs, size_t *n_inputs) {
  g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) unique = g_ptr_array_new();
  for (guint i = 0; i < a->clips->len; i++) {
    char *p = g_ptr_array_index(a->clips, i);
    if (g_hash_table_contains(seen, p)) {
      fprintf(stderr, "rigkit " CMD ": note: %s given twice; retargeted once\n", p);
      continue;
    }
    g_hash_table_add(seen, p);
    g_ptr_array_add(unique, p);
  }
  if (a->out_dir) {
    g_autoptr(GHashTable) stems = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint i = 0; i < unique->len; i++) {
      char *p = g_ptr_array_index(unique, i);
      g_autofree char *stem = rk__rt_stem(p);
      const char *other = g_hash_table_lookup(stems, stem);
      if (other)
        return rk__cli_usage(CMD, "%s and %s would both write %s/%s.*: rename one or run them "
                                  "separately",
                             other, p, a->out_dir, stem);
      g_hash_table_insert(stems, g_steal_pointer(&stem), p);
    }
  }
  g_autoptr(GPtrArray) sorted = g_ptr_array_copy(unique, NULL, NULL);
  g_ptr_array_sort(sorted, cmp_str);
  g_autoptr(GHashTable) mine = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint i = 0; i < sorted->len; i++)
    if ((int)(i % (guint)a->shard_n) == a->shard_k - 1)
      g_hash_table_add(mine, g_ptr_array_index(sorted, i));
  *inputs = g_new0(rk__rt_input, unique->len ? unique->len : 1);
  for (guint i = 0; i < unique->len; i++)
    if (g_hash_table_contains(mine, g_ptr_array_index(unique, i)))
      (*inputs)[(*n_inputs)++].path = g_ptr_array_index(unique, i);
  return RK_EXIT_OK;
}

/* Output directories (a failure here shows as each clip's export error), the settings'
 * fingerprint and this run's journal (NULL when it cannot be written). */
static rk__rt_journal *prepare_outputs(const args *a, rk__rt_config *cfg) {
  g_autofree char *out_parent = a->out ? g_path_get_dirname(a->out) : NULL;
  const char *journal_dir = out_parent;
  if (a->out_dir) {
    if (g_mkdir_with_parents(a->out_dir, 0777) != 0)
      fprintf(stderr, "rigkit " CMD ": cannot create %s: %s\n", a->out_dir, g_strerror(errno));
    journal_dir = a->out_dir;
  }
  if (a->plot && g_mkdir_with_parents(a->plot, 0777) != 0)
    fprintf(stderr, "rigkit " CMD ": cannot create %s: %s\n", a->plot, g_strerror(errno));
  cfg->fingerprint = settings_fingerprint(cfg);
  g_autoptr(GError) e = NULL;
  rk__rt_journal *journal = rk__rt_journal_open(cfg, journal_dir, a->shard, &e);
  if (!journal && g_file_test(journal_dir, G_FILE_TEST_IS_DIR))
    fprintf(stderr, "rigkit " CMD ": warning: %s: --resume will not be able to skip the clips of "
                    "this run\n",
            e->message);
  return journal;
}

/* Batch mistakes before any clip runs (one line, exit 2, nothing created): a target that cannot be
 * used, outputs that cannot be written, an output that would overwrite its source. */
static int preflight(const args *a, const rk__rt_config *cfg, const rk__rt_input *inputs,
                     size_t n) {
  if (cfg->target_error) {
    fprintf(stderr, "rigkit " CMD ": %s\n", cfg->target_error);
    return RK_EXIT_USAGE;
  }
  const char *made[] = {a->out_dir ? a->out_dir : a->plot, a->plot, NULL};
  if (!rk__rt_can_write(CMD, "--out-dir", a->out_dir, true, NULL) ||
      !rk__rt_can_write(CMD, "--plot", a->plot, true, NULL) ||
      !rk__rt_can_write(CMD, "--out", a->out, false, made) ||
      !rk__rt_can_write(CMD, "--report", a->report, false, made) ||
      !rk__rt_can_write(CMD, "--html", a->html, false, made))
    return RK_EXIT_USAGE;
  for (size_t i = 0; i < n; i++) {
    g_autofree char *out = rk__rt_output_path(cfg, inputs[i].path, NULL, 1);
    g_autofree char *out_abs = g_canonicalize_filename(out, NULL);
    const char *ins[] = {inputs[i].path, a->target};
    for (size_t k = 0; k < G_N_ELEMENTS(ins); k++) {
      g_autofree char *in_abs = g_canonicalize_filename(ins[k], NULL);
      if (!strcmp(out_abs, in_abs)) {
        fprintf(stderr, "rigkit " CMD ": %s would overwrite the input %s: choose another "
                        "--out-dir or --format\n",
                out, ins[k]);
        return RK_EXIT_USAGE;
      }
    }
  }
  return RK_EXIT_OK;
}

/* Whether any clip's verdict is `from` or worse (a clip that failed is `failed`). */
static bool verdict_at_least(const rk__rt_input *inputs, size_t n, rk_retarget_verdict from) {
  for (size_t i = 0; i < n; i++)
    for (guint k = 0; inputs[i].entries && k < inputs[i].entries->len; k++) {
      const rk__rt_entry *e = g_ptr_array_index(inputs[i].entries, k);
      for (int v = (int)from; v <= RK_RETARGET_FAILED; v++)
        if (e->verdict && !strcmp(e->verdict, rk_retarget_verdict_name((rk_retarget_verdict)v)))
          return true;
    }
  return false;
}

/* Runs the batch, writes the report and the table; the exit code. */
static int run_batch(const args *a, const rk__rt_config *cfg, rk__rt_input *inputs,
                     size_t n_inputs, rk__rt_journal *journal) {
  rk__rt_outcome outcome;
  rk__rt_batch_run(cfg, inputs, n_inputs, journal, &outcome);
  /* The report first: a closed stdout (rigkit ... | head) must not cost it. */
  bool report_failed = false;
  if (a->report) {
    g_autoptr(GError) e = NULL;
    if (!rk__rt_report_write(cfg, a->report, inputs, n_inputs, &outcome, &e)) {
      rk__cli_fail(CMD, e);
      report_failed = true;
    }
  }
  if (a->html) {
    g_autoptr(GError) e = NULL;
    if (!rk__rt_html_write(cfg, a->html, inputs, n_inputs, &outcome, &e)) {
      rk__cli_fail(CMD, e);
      report_failed = true;
    }
  }
  print_table(inputs, n_inputs, &outcome);
  if (report_failed)
    outcome.failed++;
  if (n_inputs == 0)
    fprintf(stderr, "rigkit " CMD ": note: shard %s holds none of the %u clip files\n",
            a->shard ? a->shard : "", a->clips->len);
  const bool verdict_fails = verdict_at_least(inputs, n_inputs, a->fail_verdict);
  return outcome.signal ? 128 + outcome.signal
         : outcome.failed > 0 || verdict_fails ? RK_EXIT_FAILED
                                               : RK_EXIT_OK;
}

int rk__cmd_retarget(int argc, char **argv) {
  args a = {0};
  rk__rt_config cfg = {0};
  g_autoptr(rk_profile) profile = NULL;
  rk__rt_input *inputs = NULL;
  size_t n_inputs = 0;
  rk__rt_journal *journal = NULL;
  rk__rt_silhouette *silhouette = NULL;
  int status = parse_args(&a, argc, argv);
  if (status == RK_EXIT_OK)
    status = check_args(&a);
  if (status == RK_EXIT_OK)
    status = load_settings(&a, &cfg, &profile);
  if (status == RK_EXIT_OK) {
    /* Without --shard the first input is the first CLIP: its import runs beside the target's. */
    if (!a.print_map && !a.shard && a.clips->len > 0)
      cfg.prefetch = rk__rt_prefetch_start(g_ptr_array_index(a.clips, 0), &a.src_io);
    load_target(&a, &cfg);
    /* Sources come with their meshes: a game rig's skin tells its control bones (IK targets,
     * poles) from its limbs and where a leg without a foot bone ends. */
    cfg.source_import = a.src_io;
    if (a.print_map)
      status = print_maps(&cfg, (char **)a.clips->pdata, a.clips->len);
    else
      status = resolve_format(&a, &cfg);
  }
  /* A target the mapping refuses: the map to start from, once (with --print-map, on stdout). */
  if (cfg.target_guess && !a.print_map)
    fprintf(stderr,
            "rigkit retarget: %s cannot be mapped automatically; the best guess of its map, to "
            "edit and pass with --map:\n%s",
            a.target, cfg.target_guess);
  if (status == RK_EXIT_OK && !a.print_map) {
    cfg.reduce_tol = a.reduce_tol;
    cfg.clip_select = a.clip;
    cfg.out_file = a.out;
    cfg.out_dir = a.out_dir;
    cfg.plot_dir = a.plot;
    cfg.html_path = a.html;
    if (a.html && cfg.target)
      cfg.silhouette = silhouette = rk__rt_silhouette_new(cfg.target);
    cfg.resume = a.resume;
    cfg.shard = a.shard;
    cfg.jobs = a.jobs > 0 ? a.jobs : (int)g_get_num_processors();
    cfg.progress = !a.no_progress && isatty(STDERR_FILENO);
    status = list_inputs(&a, &inputs, &n_inputs);
    if (status == RK_EXIT_OK)
      status = preflight(&a, &cfg, inputs, n_inputs);
    if (status == RK_EXIT_OK) {
      journal = prepare_outputs(&a, &cfg);
      status = run_batch(&a, &cfg, inputs, n_inputs, journal);
    }
  }
  for (size_t i = 0; i < n_inputs; i++)
    if (inputs[i].entries)
      g_ptr_array_unref(inputs[i].entries);
  g_free(inputs);
  rk__rt_journal_free(journal);
  rk__rt_prefetch_free(cfg.prefetch);
  rk__rt_silhouette_free(silhouette);
  rk_asset_free(cfg.target);
  g_free(cfg.target_error);
  g_free(cfg.target_guess);
  g_free(cfg.fingerprint);
  args_clear(&a);
  return status;
}
