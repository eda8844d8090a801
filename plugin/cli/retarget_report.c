/* `rigkit retarget`: report entries, the report file and the resume journal.
 *
 * The journal is JSON Lines in the output directory, one line per completed clip, appended and
 * synced to disk right after the clip's output was renamed into place:
 *   {"journal":1, "settings":<fingerprint>, "source":<path>, "source_size":<bytes>,
 *    "source_mtime_us":<modification time>, "clip_index":k, "clip":<name>,
 *    "files":[{"path":..., "size":..., "sha256":...}, ...], "entry":{<the clip's report entry>}}
 * A clip is skipped by --resume only when a line with the current settings fingerprint names it,
 * its source file has the recorded size and modification time, and every file it wrote is still
 * there with the recorded size and SHA-256. A line torn by a crash is ignored. */
#include "retarget_batch.h"

#include "cli_json.h"
#include "json_text.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

/* ---- entries ---------------------------------------------------------------------------------- */

static void set_number(JsonObject *o, const char *name, double v) {
  if (isfinite(v))
    json_object_set_double_member(o, name, v);
  else
    json_object_set_null_member(o, name);
}

static void set_string_or_null(JsonObject *o, const char *name, const char *v) {
  if (v)
    json_object_set_string_member(o, name, v);
  else
    json_object_set_null_member(o, name);
}

/* {"mean": a, "max": b} or {"max": b}; NAN gives nulls. */
static JsonObject *pair(double mean, double max, bool with_mean) {
  JsonObject *o = json_object_new();
  if (with_mean)
    set_number(o, "mean", mean);
  set_number(o, "max", max);
  return o;
}

JsonObject *rk__rt_entry_new(const rk__rt_config *cfg, const rk__rt_entry_values *v) {
  JsonObject *o = json_object_new();
  const rk_retarget_result *r = v->result;
  const rk_retarget_quality *m = v->measured;
  const rk_retarget_quality *q = r ? rk_retarget_result_quality(r) : NULL;
  const rk_retarget_quality *qf = r ? rk_retarget_result_quality_fk(r) : NULL;
  const bool ok = v->error == NULL;
  json_object_set_string_member(o, "source", v->source);
  set_string_or_null(o, "clip", v->clip);
  if (v->clip_index >= 0)
    json_object_set_int_member(o, "clip_index", v->clip_index);
  else
    json_object_set_null_member(o, "clip_index");
  json_object_set_string_member(o, "target", cfg->target_path);
  set_string_or_null(o, "output", v->output);
  json_object_set_string_member(o, "status", ok ? "ok" : "error");
  set_string_or_null(o, "error", v->error);
  if (r) {
    json_object_set_int_member(o, "frames", (gint64)rk_retarget_result_frames(r));
    set_number(o, "fps", rk_retarget_result_fps(r));
    json_object_set_int_member(o, "mapped_joints", (gint64)v->mapped_joints);
  } else {
    json_object_set_null_member(o, "frames");
    json_object_set_null_member(o, "fps");
    if (v->mapped_joints > 0)
      json_object_set_int_member(o, "mapped_joints", (gint64)v->mapped_joints);
    else
      json_object_set_null_member(o, "mapped_joints");
  }
  /* contacts: planted target joints (names as in the output) -> [[first, last], ...] */
  JsonObject *contacts = json_object_new();
  if (r && cfg->target) {
    const rk_skeleton *ts = rk_asset_skeleton(cfg->target);
    for (size_t k = 0; k < rk_retarget_result_contact_count(r); k++) {
      rk_foot_contacts fc = rk_retarget_result_contacts(r, k);
      if (fc.count == 0 || fc.joint < 0)
        continue;
      JsonArray *list = json_array_new();
      for (size_t i = 0; i < fc.count; i++) {
        JsonArray *iv = json_array_new();
        json_array_add_int_element(iv, fc.intervals[i].first);
        json_array_add_int_element(iv, fc.intervals[i].last);
        json_array_add_array_element(list, iv);
      }
      json_object_set_array_member(contacts, rk_skeleton_joint_name(ts, (size_t)fc.joint), list);
    }
  }
  if (r)
    json_object_set_object_member(o, "contacts", contacts);
  else {
    json_object_unref(contacts);
    json_object_set_null_member(o, "contacts");
  }
  /* Measured on the written output (re-imported): foot skate. */
  json_object_set_object_member(o, "foot_skate_mm",
                                pair(m ? m->foot_skate_mean_mm : NAN, m ? m->foot_skate_max_mm : NAN, true));
  /* From the retargeter's solve (they need the pins and the loop): goal error, closure, limits. */
  json_object_set_object_member(
      o, "ik_goal_error_mm",
      pair(q ? q->ik_goal_error_mean_mm : NAN, q ? q->ik_goal_error_max_mm : NAN, true));
  json_object_set_object_member(o, "loop_closure_residual_mm",
                                pair(NAN, q ? q->loop_closure_residual_max_mm : NAN, false));
  if (q)
    json_object_set_int_member(o, "joint_limit_violations", (gint64)q->joint_limit_violations);
  else
    json_object_set_null_member(o, "joint_limit_violations");
  /* Extras. */
  json_object_set_object_member(
      o, "foot_skate_fk_mm",
      pair(qf ? qf->foot_skate_mean_mm : NAN, qf ? qf->foot_skate_max_mm : NAN, true));
  set_number(o, "limb_direction_median_deg", m ? m->limb_direction_median_deg : NAN);
  /* Measured on the written output: planted joints' height vs their rest height. */
  json_object_set_object_member(o, "planted_height_error_mm",
                                pair(m ? v->planted_height_mean_mm : NAN,
                                     m ? v->planted_height_max_mm : NAN, true));
  if (m)
    json_object_set_int_member(o, "contact_frames", (gint64)m->contact_frames);
  else
    json_object_set_null_member(o, "contact_frames");
  if (r) {
    bool in_place = false;
    rk_vec3 gv = rk_retarget_result_ground_velocity(r, &in_place);
    json_object_set_boolean_member(o, "in_place", in_place);
    set_number(o, "ground_speed_m_s", hypot(gv.x, gv.z));
  } else {
    json_object_set_null_member(o, "in_place");
    json_object_set_null_member(o, "ground_speed_m_s");
  }
  set_number(o, "duration_s", ok ? v->duration_s : NAN);
  if (ok)
    json_object_set_int_member(o, "keys", (gint64)v->keys);
  else
    json_object_set_null_member(o, "keys");
  set_string_or_null(o, "plot", v->plot);
  JsonArray *notes = json_array_new();
  for (guint i = 0; v->notes && i < v->notes->len; i++)
    json_array_add_string_element(notes, g_ptr_array_index(v->notes, i));
  json_object_set_array_member(o, "notes", notes);
  set_number(o, "seconds", v->seconds);
  return o;
}

JsonObject *rk__rt_entry_error(const rk__rt_config *cfg, const char *source, const char *clip_name,
                               int clip_index, const char *output, const char *error,
                               double seconds) {
  rk__rt_entry_values v = {0};
  v.source = source;
  v.clip = clip_name;
  v.clip_index = clip_index;
  v.output = output;
  v.error = error ? error : "failed";
  v.planted_height_mean_mm = v.planted_height_max_mm = NAN;
  v.seconds = seconds;
  return rk__rt_entry_new(cfg, &v);
}

/* ---- report ----------------------------------------------------------------------------------- */

static const char *signal_name(int sig) {
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "signal";
}

bool rk__rt_report_write(const rk__rt_config *cfg, const char *path, const rk__rt_input *inputs,
                         size_t n, const rk__rt_outcome *out, GError **error) {
  g_autoptr(JsonObject) root = json_object_new();
  json_object_set_string_member(root, "rigkit", rk_version_string());
  json_object_set_string_member(root, "target", cfg->target_path);
  set_string_or_null(root, "map", cfg->map_path);
  JsonObject *opts = json_object_new();
  set_number(opts, "fps", cfg->ropts.fps);
  json_object_set_boolean_member(opts, "foot_ik", cfg->ropts.foot_ik);
  json_object_set_boolean_member(opts, "hand_ik", cfg->ropts.hand_ik);
  json_object_set_boolean_member(opts, "root_motion", cfg->ropts.root_motion);
  set_number(opts, "contact_height", cfg->ropts.contact_height);
  set_number(opts, "contact_speed", cfg->ropts.contact_speed);
  set_number(opts, "contact_min_time", cfg->ropts.contact_min_time);
  set_number(opts, "blend_time", cfg->ropts.blend_time);
  json_object_set_int_member(opts, "ik_iterations", cfg->ropts.ik_iterations);
  if (cfg->reduce_tol >= 0)
    set_number(opts, "reduce_m", cfg->reduce_tol);
  else
    json_object_set_null_member(opts, "reduce_m");
  json_object_set_string_member(opts, "format", rk_export_format_name(cfg->export_opts.format));
  set_string_or_null(opts, "shard", cfg->shard);
  json_object_set_object_member(root, "options", opts);
  JsonArray *clips = json_array_new();
  for (size_t i = 0; i < n; i++)
    for (guint k = 0; inputs[i].entries && k < inputs[i].entries->len; k++)
      json_array_add_object_element(clips,
                                    json_object_ref(g_ptr_array_index(inputs[i].entries, k)));
  json_object_set_array_member(root, "clips", clips);
  JsonObject *sum = json_object_new();
  json_object_set_int_member(sum, "clips", (gint64)out->clips);
  json_object_set_int_member(sum, "ok", (gint64)out->ok);
  json_object_set_int_member(sum, "error", (gint64)out->failed);
  json_object_set_int_member(sum, "resumed", (gint64)out->resumed);
  json_object_set_object_member(root, "summary", sum);
  if (out->signal)
    json_object_set_string_member(root, "interrupted", signal_name(out->signal));
  else
    json_object_set_null_member(root, "interrupted");
  JsonArray *not_run = json_array_new();
  for (size_t i = 0; i < n; i++)
    if (!inputs[i].run)
      json_array_add_string_element(not_run, inputs[i].path);
  json_object_set_array_member(root, "not_run", not_run);
  set_number(root, "seconds", out->seconds);
  size_t len = 0;
  g_autofree char *text = rk__json_object_to_text(root, true, &len);
  g_autofree char *with_nl = g_strconcat(text, "\n", NULL);
  /* Temporary file in the same directory, synced, renamed: never a partial report. */
  if (!g_file_set_contents_full(path, with_nl, (gssize)(len + 1),
                                G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE, 0666,
                                error)) {
    g_prefix_error(error, "report: ");
    return false;
  }
  return true;
}

/* ---- journal ---------------------------------------------------------------------------------- */

typedef struct journal_record {
  gint64 source_size, source_mtime_us;
  char *clip;
  JsonArray *files; /* {"path","size","sha256"} */
  JsonObject *entry;
} journal_record;

struct rk__rt_journal {
  char *path;
  int fd;
  char *fingerprint;
  GMutex lock;
  GHashTable *records; /* "source\x1f<index>" -> journal_record */
};

static void record_free(gpointer p) {
  journal_record *r = p;
  g_free(r->clip);
  if (r->files)
    json_array_unref(r->files);
  if (r->entry)
    json_object_unref(r->entry);
  g_free(r);
}

static char *record_key(const char *source, int clip_index) {
  return g_strdup_printf("%s\x1f%d", source, clip_index);
}

/* SHA-256 and size of a file, streamed; NULL when it cannot be read. */
static char *file_sha256(const char *path, gint64 *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
  unsigned char buf[65536];
  size_t got;
  gint64 total = 0;
  while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
    g_checksum_update(sum, buf, got);
    total += (gint64)got;
  }
  const bool bad = ferror(f);
  fclose(f);
  if (bad)
    return NULL;
  *size = total;
  return g_strdup(g_checksum_get_string(sum));
}

static bool source_stat(const char *path, gint64 *size, gint64 *mtime_us) {
  GStatBuf st;
  if (g_stat(path, &st) != 0)
    return false;
  *size = (gint64)st.st_size;
  *mtime_us = (gint64)st.st_mtim.tv_sec * G_USEC_PER_SEC + st.st_mtim.tv_nsec / 1000;
  return true;
}

static void journal_read_file(rk__rt_journal *j, const char *path) {
  g_autofree char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents(path, &text, &len, NULL))
    return;
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (size_t i = 0; lines[i]; i++) {
    if (!*lines[i])
      continue;
    g_autoptr(JsonParser) parser = json_parser_new();
    if (!json_parser_load_from_data(parser, lines[i], -1, NULL))
      continue; /* torn line */
    JsonNode *root = json_parser_get_root(parser);
    if (!root || !JSON_NODE_HOLDS_OBJECT(root))
      continue;
    JsonObject *o = json_node_get_object(root);
    if (json_object_get_int_member_with_default(o, "journal", 0) != 1 ||
        g_strcmp0(json_object_get_string_member_with_default(o, "settings", ""), j->fingerprint))
      continue;
    const char *source = json_object_get_string_member_with_default(o, "source", NULL);
    JsonNode *files = json_object_get_member(o, "files");
    JsonNode *entry = json_object_get_member(o, "entry");
    if (!source || !files || !JSON_NODE_HOLDS_ARRAY(files) || !entry ||
        !JSON_NODE_HOLDS_OBJECT(entry))
      continue;
    journal_record *r = g_new0(journal_record, 1);
    r->source_size = json_object_get_int_member_with_default(o, "source_size", -1);
    r->source_mtime_us = json_object_get_int_member_with_default(o, "source_mtime_us", -1);
    r->clip = g_strdup(json_object_get_string_member_with_default(o, "clip", ""));
    r->files = json_array_ref(json_node_get_array(files));
    r->entry = json_object_ref(json_node_get_object(entry));
    g_hash_table_replace(
        j->records,
        record_key(source, (int)json_object_get_int_member_with_default(o, "clip_index", -1)), r);
  }
}

static gint cmp_names(gconstpointer a, gconstpointer b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

rk__rt_journal *rk__rt_journal_open(const rk__rt_config *cfg, const char *dir, const char *shard,
                                    GError **error) {
  g_autofree char *name = NULL;
  int shard_k = 0, shard_n = 0;
  if (shard && sscanf(shard, "%d/%d", &shard_k, &shard_n) == 2)
    name = g_strdup_printf(".rigkit-retarget.shard-%d-of-%d.journal", shard_k, shard_n);
  else
    name = g_strdup(".rigkit-retarget.journal");
  rk__rt_journal *j = g_new0(rk__rt_journal, 1);
  j->path = g_build_filename(dir, name, NULL);
  j->fingerprint = g_strdup(cfg->fingerprint);
  g_mutex_init(&j->lock);
  j->records = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, record_free);
  if (cfg->resume) {
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    const char *entry;
    while (d && (entry = g_dir_read_name(d)))
      if (g_str_has_prefix(entry, ".rigkit-retarget") && g_str_has_suffix(entry, ".journal"))
        g_ptr_array_add(names, g_strdup(entry));
    /* Own journal last, so its lines win; the others in name order. */
    g_ptr_array_sort(names, cmp_names);
    for (guint i = 0; i < names->len; i++)
      if (strcmp(g_ptr_array_index(names, i), name) != 0) {
        g_autofree char *p = g_build_filename(dir, g_ptr_array_index(names, i), NULL);
        journal_read_file(j, p);
      }
    journal_read_file(j, j->path);
  }
  j->fd = g_open(j->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (cfg->resume ? 0 : O_TRUNC),
                 0666);
  if (j->fd < 0) {
    int e = errno;
    g_set_error(error, RK_ERROR, RK_ERROR_IO, "journal %s: %s", j->path, g_strerror(e));
    rk__rt_journal_free(j);
    return NULL;
  }
  return j;
}

const char *rk__rt_journal_path(const rk__rt_journal *j) {
  return j->path;
}

void rk__rt_journal_free(rk__rt_journal *j) {
  if (!j)
    return;
  if (j->fd >= 0)
    close(j->fd);
  g_hash_table_unref(j->records);
  g_mutex_clear(&j->lock);
  g_free(j->fingerprint);
  g_free(j->path);
  g_free(j);
}

JsonObject *rk__rt_journal_lookup(rk__rt_journal *j, const char *source, int clip_index,
                                  const char *clip_name) {
  if (!j)
    return NULL;
  g_autofree char *key = record_key(source, clip_index);
  g_mutex_lock(&j->lock);
  journal_record *r = g_hash_table_lookup(j->records, key);
  JsonArray *files = r ? json_array_ref(r->files) : NULL;
  JsonObject *entry = r ? json_object_ref(r->entry) : NULL;
  const bool same_clip = r && g_strcmp0(r->clip, clip_name) == 0;
  const gint64 size = r ? r->source_size : -1, mtime = r ? r->source_mtime_us : -1;
  g_mutex_unlock(&j->lock);
  if (!r)
    return NULL;
  bool ok = same_clip;
  gint64 now_size, now_mtime;
  ok = ok && source_stat(source, &now_size, &now_mtime) && now_size == size && now_mtime == mtime;
  for (guint i = 0; ok && i < json_array_get_length(files); i++) {
    JsonNode *fn = json_array_get_element(files, i);
    if (!JSON_NODE_HOLDS_OBJECT(fn)) {
      ok = false;
      break;
    }
    JsonObject *f = json_node_get_object(fn);
    const char *path = json_object_get_string_member_with_default(f, "path", NULL);
    const char *sha = json_object_get_string_member_with_default(f, "sha256", NULL);
    gint64 fsize = 0;
    g_autofree char *now_sha = path ? file_sha256(path, &fsize) : NULL;
    ok = now_sha && sha && strcmp(now_sha, sha) == 0 &&
         fsize == json_object_get_int_member_with_default(f, "size", -1);
  }
  json_array_unref(files);
  if (!ok) {
    json_object_unref(entry);
    return NULL;
  }
  return entry;
}

bool rk__rt_journal_append(rk__rt_journal *j, const char *source, int clip_index,
                           const char *clip_name, JsonObject *entry, const char *const *files,
                           GError **error) {
  if (!j)
    return true;
  g_autoptr(JsonObject) o = json_object_new();
  json_object_set_int_member(o, "journal", 1);
  json_object_set_string_member(o, "settings", j->fingerprint);
  json_object_set_string_member(o, "source", source);
  gint64 size = -1, mtime = -1;
  source_stat(source, &size, &mtime);
  json_object_set_int_member(o, "source_size", size);
  json_object_set_int_member(o, "source_mtime_us", mtime);
  json_object_set_int_member(o, "clip_index", clip_index);
  json_object_set_string_member(o, "clip", clip_name);
  JsonArray *fa = json_array_new();
  for (size_t i = 0; files[i]; i++) {
    gint64 fsize = 0;
    g_autofree char *sha = file_sha256(files[i], &fsize);
    if (!sha) {
      json_array_unref(fa);
      g_set_error(error, RK_ERROR, RK_ERROR_IO, "journal %s: cannot read back %s", j->path,
                  files[i]);
      return false;
    }
    JsonObject *f = json_object_new();
    json_object_set_string_member(f, "path", files[i]);
    json_object_set_int_member(f, "size", fsize);
    json_object_set_string_member(f, "sha256", sha);
    json_array_add_object_element(fa, f);
  }
  json_object_set_array_member(o, "files", fa);
  json_object_set_object_member(o, "entry", json_object_ref(entry));
  size_t len = 0;
  g_autofree char *text = rk__json_object_to_text(o, false, &len);
  g_autofree char *line = g_strconcat(text, "\n", NULL);
  len++;
  g_mutex_lock(&j->lock);
  bool ok = true;
  int e = 0;
  for (size_t done = 0; done < len;) {
    ssize_t w = write(j->fd, line + done, len - done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      ok = false;
      e = w < 0 ? errno : EIO;
      break;
    }
    done += (size_t)w;
  }
  if (ok && fdatasync(j->fd) != 0) {
    ok = false;
    e = errno;
  }
  g_mutex_unlock(&j->lock);
  if (!ok)
    g_set_error(error, RK_ERROR, RK_ERROR_IO, "journal %s: %s", j->path, g_strerror(e));
  return ok;
}
