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
#include <rigkit/json_text.h>

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

/* ---- entries ---------------------------------------------------------------------------------- */

static void warning_free(gpointer p) {
  rk__rt_entry_warning *w = p;
  g_free(w->code);
  g_free(w->message);
  g_free(w);
}

rk__rt_entry *rk__rt_entry_new(const rk__rt_config *cfg, const char *source, const char *clip_name,
                               int clip_index, const char *output) {
  rk__rt_entry *e = g_new0(rk__rt_entry, 1);
  e->source = g_strdup(source);
  e->clip = g_strdup(clip_name);
  e->clip_index = clip_index < 0 ? -1 : clip_index;
  e->target = g_strdup(cfg->target_path);
  e->output = g_strdup(output);
  e->frames = e->mapped_joints = e->limit_violations = e->contact_frames = e->keys = -1;
  e->fps = e->skate_mean_mm = e->skate_max_mm = e->goal_error_mean_mm = e->goal_error_max_mm = NAN;
  e->closure_max_mm = e->skate_fk_mean_mm = e->skate_fk_max_mm = e->limb_direction_median_deg = NAN;
  e->planted_height_mean_mm = e->planted_height_max_mm = e->ground_speed_m_s = NAN;
  e->ground_offset_mm = e->pose_error_median_mm = e->pose_error_max_mm = NAN;
  e->low_median_mm = e->low_min_mm = e->low_max_mm = e->penetration_mm = e->legs_overlap_mm = NAN;
  e->pitch_p95_deg = e->pitch_max_deg = e->source_height_m = e->target_height_m = NAN;
  e->lifted_frames = e->pelvis_frames = e->unreachable_frames = -1;
  e->warnings = g_ptr_array_new_with_free_func(warning_free);
  e->duration_s = e->seconds = NAN;
  e->in_place = -1;
  e->notes = g_ptr_array_new_with_free_func(g_free);
  return e;
}

static void contact_free(gpointer p) {
  rk__rt_entry_contact *c = p;
  g_free(c->joint);
  g_array_unref(c->intervals);
  g_free(c);
}

void rk__rt_entry_set_result(rk__rt_entry *e, const rk__rt_config *cfg, const rk_retargeter *rt,
                             const rk_retarget_result *r) {
  const rk_retarget_quality *q = rk_retarget_result_quality(r);
  const rk_retarget_quality *qf = rk_retarget_result_quality_fk(r);
  e->frames = (gint64)rk_retarget_result_frames(r);
  e->fps = rk_retarget_result_fps(r);
  e->mapped_joints = (gint64)rk_retargeter_mapped_joints(rt);
  /* Which source joint drives each target joint: what a reviewer checks first on a new rig. */
  const rk_skeleton *ts = rk_retargeter_target(rt), *ss = rk_retargeter_source(rt);
  e->joints = g_ptr_array_new_with_free_func(g_free);
  for (size_t t = 0; t < rk_skeleton_joint_count(ts); t++) {
    const int s = rk_retargeter_counterpart(rt, t);
    g_ptr_array_add(e->joints, g_strdup(rk_skeleton_joint_name(ts, t)));
    g_ptr_array_add(e->joints, s < 0 ? NULL : g_strdup(rk_skeleton_joint_name(ss, (size_t)s)));
  }
  /* Planted target joints, named as in the output. */
  e->contacts = g_ptr_array_new_with_free_func(contact_free);
  for (size_t k = 0; cfg->target && k < rk_retarget_result_contact_count(r); k++) {
    rk_foot_contacts fc = rk_retarget_result_contacts(r, k);
    if (fc.count == 0 || fc.joint < 0)
      continue;
    rk__rt_entry_contact *c = g_new0(rk__rt_entry_contact, 1);
    c->joint = g_strdup(rk_skeleton_joint_name(rk_asset_skeleton(cfg->target), (size_t)fc.joint));
    c->intervals = g_array_sized_new(FALSE, FALSE, sizeof(rk_contact_interval), (guint)fc.count);
    g_array_append_vals(c->intervals, fc.intervals, (guint)fc.count);
    g_ptr_array_add(e->contacts, c);
  }
  e->goal_error_mean_mm = q->ik_goal_error_mean_mm;
  e->goal_error_max_mm = q->ik_goal_error_max_mm;
  e->closure_max_mm = q->loop_closure_residual_max_mm;
  e->limit_violations = (gint64)q->joint_limit_violations;
  e->skate_fk_mean_mm = qf->foot_skate_mean_mm;
  e->skate_fk_max_mm = qf->foot_skate_max_mm;
  bool in_place = false;
  const rk_vec3 gv = rk_retarget_result_ground_velocity(r, &in_place);
  e->in_place = in_place;
  e->ground_speed_m_s = hypot(gv.x, gv.z);
  e->ground_offset_mm = 1000.0 * rk_retarget_result_ground_offset(r);
  e->lifted_frames = (gint64)q->lifted_frames;
  e->pelvis_frames = (gint64)q->pelvis_frames;
  e->unreachable_frames = (gint64)q->unreachable_frames;
}

/* Where an entry keeps each figure of rk_retarget_look it reports (all doubles). */
#define LOOK_FIGURE(look, entry) {offsetof(rk_retarget_look, look), offsetof(rk__rt_entry, entry)}
static const size_t look_figures[][2] = {
    LOOK_FIGURE(skate_mean_mm, skate_mean_mm),
    LOOK_FIGURE(skate_max_mm, skate_max_mm),
    LOOK_FIGURE(planted_low_median_mm, low_median_mm),
    LOOK_FIGURE(planted_low_min_mm, low_min_mm),
    LOOK_FIGURE(planted_low_max_mm, low_max_mm),
    LOOK_FIGURE(penetration_mm, penetration_mm),
    LOOK_FIGURE(foot_pitch_p95_deg, pitch_p95_deg),
    LOOK_FIGURE(foot_pitch_max_deg, pitch_max_deg),
    LOOK_FIGURE(legs_overlap_mm, legs_overlap_mm),
};
#undef LOOK_FIGURE

void rk__rt_entry_set_look(rk__rt_entry *e, const rk_retarget_look *look) {
  for (size_t i = 0; i < G_N_ELEMENTS(look_figures); i++)
    memcpy((char *)e + look_figures[i][1], (const char *)look + look_figures[i][0], sizeof(double));
}

void rk__rt_entry_set_verdict(rk__rt_entry *e, rk_retarget_verdict verdict, const GArray *warnings) {
  g_free(e->verdict);
  e->verdict = g_strdup(rk_retarget_verdict_name(verdict));
  for (guint i = 0; i < warnings->len; i++) {
    const rk_retarget_warning *w = &g_array_index(warnings, rk_retarget_warning, i);
    rk__rt_entry_warning *o = g_new(rk__rt_entry_warning, 1);
    o->code = g_strdup(w->code);
    o->message = g_strdup(w->message);
    g_ptr_array_add(e->warnings, o);
  }
}

rk__rt_entry *rk__rt_entry_error(const rk__rt_config *cfg, const char *source, const char *clip_name,
                                 int clip_index, const char *output, rk__rt_error code,
                                 const char *error, double seconds) {
  rk__rt_entry *e = rk__rt_entry_new(cfg, source, clip_name, clip_index, output);
  e->error = g_strdup(error ? error : "failed");
  e->error_code = g_strdup(rk__rt_error_name(code));
  e->verdict = g_strdup(rk_retarget_verdict_name(RK_RETARGET_FAILED));
  e->seconds = seconds;
  return e;
}

void rk__rt_entry_free(rk__rt_entry *e) {
  if (!e)
    return;
  g_free(e->source);
  g_free(e->clip);
  g_free(e->target);
  g_free(e->output);
  g_free(e->error);
  g_free(e->error_code);
  if (e->contacts)
    g_ptr_array_unref(e->contacts);
  if (e->joints)
    g_ptr_array_unref(e->joints);
  g_free(e->plot);
  g_free(e->verdict);
  g_ptr_array_unref(e->warnings);
  g_ptr_array_unref(e->notes);
  g_free(e->motion);
  g_free(e);
}

/* ---- entries as JSON --------------------------------------------------------------------------- */

static void set_number(JsonObject *o, const char *name, double v) {
  if (isfinite(v))
    json_object_set_double_member(o, name, v);
  else
    json_object_set_null_member(o, name);
}

static void set_count(JsonObject *o, const char *name, gint64 v) {
  if (v >= 0)
    json_object_set_int_member(o, name, v);
  else
    json_object_set_null_member(o, name);
}

static void set_string_or_null(JsonObject *o, const char *name, const char *v) {
  if (v)
    json_object_set_string_member(o, name, v);
  else
    json_object_set_null_member(o, name);
}

/* {first_name: a, "max": b} or {"max": b} (first_name NULL); NAN gives nulls. */
static void set_figure(JsonObject *o, const char *name, const char *first_name, double first,
                       double max) {
  JsonObject *p = json_object_new();
  if (first_name)
    set_number(p, first_name, first);
  set_number(p, "max", max);
  json_object_set_object_member(o, name, p);
}

/* {"mean": a, "max": b} or {"max": b}; NAN gives nulls. */
static void set_pair(JsonObject *o, const char *name, double mean, double max, bool with_mean) {
  set_figure(o, name, with_mean ? "mean" : NULL, mean, max);
}

/* An entry as the report and the journal write it: the same members in the same order for every
 * clip (null where a failed clip has no value). */
JsonObject *rk__rt_entry_json(const rk__rt_entry *e) {
  JsonObject *o = json_object_new();
  json_object_set_string_member(o, "source", e->source);
  set_string_or_null(o, "clip", e->clip);
  set_count(o, "clip_index", e->clip_index);
  json_object_set_string_member(o, "target", e->target);
  set_string_or_null(o, "output", e->output);
  json_object_set_string_member(o, "status", e->error ? "error" : "ok");
  set_string_or_null(o, "error", e->error);
  set_string_or_null(o, "error_code", e->error_code);
  set_string_or_null(o, "verdict", e->verdict);
  JsonArray *warnings = json_array_new();
  for (guint i = 0; i < e->warnings->len; i++) {
    const rk__rt_entry_warning *w = g_ptr_array_index(e->warnings, i);
    JsonObject *wo = json_object_new();
    json_object_set_string_member(wo, "code", w->code);
    json_object_set_string_member(wo, "message", w->message);
    json_array_add_object_element(warnings, wo);
  }
  json_object_set_array_member(o, "warnings", warnings);
  set_count(o, "frames", e->frames);
  set_number(o, "fps", e->fps);
  set_count(o, "mapped_joints", e->mapped_joints);
  if (e->joints) {
    JsonObject *joints = json_object_new();
    for (guint k = 0; k + 1 < e->joints->len; k += 2) {
      const char *src = g_ptr_array_index(e->joints, k + 1);
      if (src)
        json_object_set_string_member(joints, g_ptr_array_index(e->joints, k), src);
      else
        json_object_set_null_member(joints, g_ptr_array_index(e->joints, k));
    }
    json_object_set_object_member(o, "joints", joints);
  } else {
    json_object_set_null_member(o, "joints");
  }
  set_number(o, "source_height_m", e->source_height_m);
  set_number(o, "target_height_m", e->target_height_m);
  if (e->contacts) {
    JsonObject *contacts = json_object_new();
    for (guint k = 0; k < e->contacts->len; k++) {
      const rk__rt_entry_contact *c = g_ptr_array_index(e->contacts, k);
      JsonArray *list = json_array_new();
      for (guint i = 0; i < c->intervals->len; i++) {
        const rk_contact_interval *iv = &g_array_index(c->intervals, rk_contact_interval, i);
        JsonArray *pair = json_array_new();
        json_array_add_int_element(pair, iv->first);
        json_array_add_int_element(pair, iv->last);
        json_array_add_array_element(list, pair);
      }
      json_object_set_array_member(contacts, c->joint, list);
    }
    json_object_set_object_member(o, "contacts", contacts);
  } else {
    json_object_set_null_member(o, "contacts");
  }
  set_pair(o, "foot_skate_mm", e->skate_mean_mm, e->skate_max_mm, true);
  set_pair(o, "ik_goal_error_mm", e->goal_error_mean_mm, e->goal_error_max_mm, true);
  set_pair(o, "loop_closure_residual_mm", NAN, e->closure_max_mm, false);
  set_count(o, "joint_limit_violations", e->limit_violations);
  set_pair(o, "foot_skate_fk_mm", e->skate_fk_mean_mm, e->skate_fk_max_mm, true);
  set_number(o, "limb_direction_median_deg", e->limb_direction_median_deg);
  set_pair(o, "planted_height_error_mm", e->planted_height_mean_mm, e->planted_height_max_mm, true);
  set_figure(o, "pose_error_mm", "median", e->pose_error_median_mm, e->pose_error_max_mm);
  JsonObject *low = json_object_new();
  set_number(low, "median", e->low_median_mm);
  set_number(low, "min", e->low_min_mm);
  set_number(low, "max", e->low_max_mm);
  json_object_set_object_member(o, "mesh_lowest_planted_mm", low);
  set_number(o, "floor_penetration_mm", e->penetration_mm);
  set_figure(o, "foot_pitch_deg", "p95", e->pitch_p95_deg, e->pitch_max_deg);
  if (isfinite(e->legs_overlap_mm)) /* measured on legs of one bone only */
    json_object_set_double_member(o, "legs_overlap_mm", e->legs_overlap_mm);
  set_count(o, "lifted_frames", e->lifted_frames);
  set_count(o, "pelvis_frames", e->pelvis_frames);
  set_count(o, "unreachable_frames", e->unreachable_frames);
  set_count(o, "contact_frames", e->contact_frames);
  if (e->in_place >= 0)
    json_object_set_boolean_member(o, "in_place", e->in_place);
  else
    json_object_set_null_member(o, "in_place");
  set_number(o, "ground_speed_m_s", e->ground_speed_m_s);
  set_number(o, "ground_offset_mm", e->ground_offset_mm);
  set_number(o, "duration_s", e->duration_s);
  set_count(o, "keys", e->keys);
  set_string_or_null(o, "plot", e->plot);
  JsonArray *notes = json_array_new();
  for (guint i = 0; i < e->notes->len; i++)
    json_array_add_string_element(notes, g_ptr_array_index(e->notes, i));
  json_object_set_array_member(o, "notes", notes);
  set_number(o, "seconds", e->seconds);
  return o;
}

/* Member `name` of o as a number: NAN when absent or not a number. */
static double get_number(JsonObject *o, const char *name) {
  JsonNode *n = o ? json_object_get_member(o, name) : NULL;
  if (!n || !JSON_NODE_HOLDS_VALUE(n))
    return NAN;
  const GType t = json_node_get_value_type(n);
  return t == G_TYPE_INT64 || t == G_TYPE_DOUBLE ? json_node_get_double(n) : NAN;
}

static gint64 get_count(JsonObject *o, const char *name) {
  JsonNode *n = json_object_get_member(o, name);
  return n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_INT64
             ? json_node_get_int(n)
             : -1;
}

static JsonObject *get_object(JsonObject *o, const char *name) {
  JsonNode *n = json_object_get_member(o, name);
  return n && JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

static JsonArray *get_array(JsonObject *o, const char *name) {
  JsonNode *n = json_object_get_member(o, name);
  return n && JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
}

static char *get_string(JsonObject *o, const char *name) {
  JsonNode *n = json_object_get_member(o, name);
  return n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING
             ? g_strdup(json_node_get_string(n))
             : NULL;
}

/* The contacts member of an entry read back: joint -> [[first, last], ...], or NULL. */
static GPtrArray *get_contacts(JsonObject *o) {
  JsonObject *co = get_object(o, "contacts");
  if (!co)
    return NULL;
  GPtrArray *contacts = g_ptr_array_new_with_free_func(contact_free);
  JsonObjectIter it;
  const char *name;
  JsonNode *member;
  json_object_iter_init_ordered(&it, co);
  while (json_object_iter_next_ordered(&it, &name, &member)) {
    rk__rt_entry_contact *c = g_new0(rk__rt_entry_contact, 1);
    c->joint = g_strdup(name);
    c->intervals = g_array_new(FALSE, FALSE, sizeof(rk_contact_interval));
    JsonArray *list = JSON_NODE_HOLDS_ARRAY(member) ? json_node_get_array(member) : NULL;
    for (guint i = 0; list && i < json_array_get_length(list); i++) {
      JsonNode *pn = json_array_get_element(list, i);
      JsonArray *pair = JSON_NODE_HOLDS_ARRAY(pn) ? json_node_get_array(pn) : NULL;
      if (!pair || json_array_get_length(pair) != 2)
        continue;
      rk_contact_interval iv = {(int)json_array_get_int_element(pair, 0),
                                (int)json_array_get_int_element(pair, 1)};
      g_array_append_val(c->intervals, iv);
    }
    g_ptr_array_add(contacts, c);
  }
  return contacts;
}

/* The figures an entry writes as members of a member ({"mean": .., "max": ..}), where they go. */
static const struct {
  const char *member, *sub;
  size_t offset;
} nested[] = {
    {"foot_skate_mm", "mean", offsetof(rk__rt_entry, skate_mean_mm)},
    {"foot_skate_mm", "max", offsetof(rk__rt_entry, skate_max_mm)},
    {"ik_goal_error_mm", "mean", offsetof(rk__rt_entry, goal_error_mean_mm)},
    {"ik_goal_error_mm", "max", offsetof(rk__rt_entry, goal_error_max_mm)},
    {"loop_closure_residual_mm", "max", offsetof(rk__rt_entry, closure_max_mm)},
    {"foot_skate_fk_mm", "mean", offsetof(rk__rt_entry, skate_fk_mean_mm)},
    {"foot_skate_fk_mm", "max", offsetof(rk__rt_entry, skate_fk_max_mm)},
    {"planted_height_error_mm", "mean", offsetof(rk__rt_entry, planted_height_mean_mm)},
    {"planted_height_error_mm", "max", offsetof(rk__rt_entry, planted_height_max_mm)},
    {"pose_error_mm", "median", offsetof(rk__rt_entry, pose_error_median_mm)},
    {"pose_error_mm", "max", offsetof(rk__rt_entry, pose_error_max_mm)},
    {"mesh_lowest_planted_mm", "median", offsetof(rk__rt_entry, low_median_mm)},
    {"mesh_lowest_planted_mm", "min", offsetof(rk__rt_entry, low_min_mm)},
    {"mesh_lowest_planted_mm", "max", offsetof(rk__rt_entry, low_max_mm)},
    {"foot_pitch_deg", "p95", offsetof(rk__rt_entry, pitch_p95_deg)},
    {"foot_pitch_deg", "max", offsetof(rk__rt_entry, pitch_max_deg)},
};

/* The counts (gint64) and numbers (double) an entry writes as members of its own. */
static const struct {
  const char *member;
  bool count;
  size_t offset;
} flat[] = {
    {"frames", true, offsetof(rk__rt_entry, frames)},
    {"fps", false, offsetof(rk__rt_entry, fps)},
    {"mapped_joints", true, offsetof(rk__rt_entry, mapped_joints)},
    {"source_height_m", false, offsetof(rk__rt_entry, source_height_m)},
    {"target_height_m", false, offsetof(rk__rt_entry, target_height_m)},
    {"joint_limit_violations", true, offsetof(rk__rt_entry, limit_violations)},
    {"limb_direction_median_deg", false, offsetof(rk__rt_entry, limb_direction_median_deg)},
    {"floor_penetration_mm", false, offsetof(rk__rt_entry, penetration_mm)},
    {"legs_overlap_mm", false, offsetof(rk__rt_entry, legs_overlap_mm)},
    {"lifted_frames", true, offsetof(rk__rt_entry, lifted_frames)},
    {"pelvis_frames", true, offsetof(rk__rt_entry, pelvis_frames)},
    {"unreachable_frames", true, offsetof(rk__rt_entry, unreachable_frames)},
    {"contact_frames", true, offsetof(rk__rt_entry, contact_frames)},
    {"ground_speed_m_s", false, offsetof(rk__rt_entry, ground_speed_m_s)},
    {"ground_offset_mm", false, offsetof(rk__rt_entry, ground_offset_mm)},
    {"duration_s", false, offsetof(rk__rt_entry, duration_s)},
    {"keys", true, offsetof(rk__rt_entry, keys)},
    {"seconds", false, offsetof(rk__rt_entry, seconds)},
};

/* An entry read back from a journal line (as rk__rt_entry_json wrote it). */
static rk__rt_entry *entry_from_json(JsonObject *o) {
  rk__rt_entry *e = g_new0(rk__rt_entry, 1);
  char **strings[] = {&e->source, &e->clip,       &e->target,  &e->output,
                      &e->error,  &e->error_code, &e->verdict, &e->plot};
  static const char *const string_members[] = {"source", "clip",       "target",  "output",
                                               "error",  "error_code", "verdict", "plot"};
  for (size_t i = 0; i < G_N_ELEMENTS(strings); i++)
    *strings[i] = get_string(o, string_members[i]);
  for (size_t i = 0; i < G_N_ELEMENTS(flat); i++) {
    void *slot = (char *)e + flat[i].offset;
    if (flat[i].count)
      *(gint64 *)slot = get_count(o, flat[i].member);
    else
      *(double *)slot = get_number(o, flat[i].member);
  }
  e->clip_index = (int)get_count(o, "clip_index");
  for (size_t i = 0; i < G_N_ELEMENTS(nested); i++)
    *(double *)(void *)((char *)e + nested[i].offset) =
        get_number(get_object(o, nested[i].member), nested[i].sub);
  e->contacts = get_contacts(o);
  JsonObject *jo = get_object(o, "joints");
  if (jo) {
    e->joints = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GList) names = json_object_get_members(jo);
    for (GList *n = names; n; n = n->next) {
      g_ptr_array_add(e->joints, g_strdup(n->data));
      g_ptr_array_add(e->joints, get_string(jo, n->data));
    }
  }
  e->warnings = g_ptr_array_new_with_free_func(warning_free);
  JsonArray *wa = get_array(o, "warnings");
  for (guint i = 0; wa && i < json_array_get_length(wa); i++) {
    JsonNode *en = json_array_get_element(wa, i);
    JsonObject *wo = JSON_NODE_HOLDS_OBJECT(en) ? json_node_get_object(en) : NULL;
    if (!wo)
      continue;
    rk__rt_entry_warning *w = g_new(rk__rt_entry_warning, 1);
    w->code = get_string(wo, "code");
    w->message = get_string(wo, "message");
    g_ptr_array_add(e->warnings, w);
  }
  JsonNode *ip = json_object_get_member(o, "in_place");
  e->in_place = ip && JSON_NODE_HOLDS_VALUE(ip) ? json_node_get_boolean(ip) : -1;
  e->notes = g_ptr_array_new_with_free_func(g_free);
  JsonArray *notes = get_array(o, "notes");
  for (guint i = 0; notes && i < json_array_get_length(notes); i++)
    g_ptr_array_add(e->notes, g_strdup(json_array_get_string_element(notes, i)));
  return e;
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
  json_object_set_string_member(opts, "ground",
                                cfg->ropts.ground == RK_RETARGET_GROUND_KEEP ? "keep" : "auto");
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
      json_array_add_object_element(clips, rk__rt_entry_json(g_ptr_array_index(inputs[i].entries, k)));
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
  g_autofree char *text = rk_json_object_to_text(root, true, &len);
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

rk__rt_entry *rk__rt_journal_lookup(rk__rt_journal *j, const char *source, int clip_index,
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
  rk__rt_entry *e = ok ? entry_from_json(entry) : NULL;
  json_object_unref(entry);
  return e;
}

bool rk__rt_journal_append(rk__rt_journal *j, const char *source, int clip_index,
                           const char *clip_name, const rk__rt_entry *entry,
                           const char *const *files, const char *known_path,
                           const char *known_sha256, GError **error) {
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
    g_autofree char *sha = NULL;
    GStatBuf st;
    if (known_sha256 && known_path && strcmp(files[i], known_path) == 0 &&
        g_stat(files[i], &st) == 0) {
      sha = g_strdup(known_sha256);
      fsize = (gint64)st.st_size;
    } else {
      sha = file_sha256(files[i], &fsize);
    }
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
  json_object_set_object_member(o, "entry", rk__rt_entry_json(entry));
  size_t len = 0;
  g_autofree char *text = rk_json_object_to_text(o, false, &len);
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
