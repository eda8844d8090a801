/* rigkit's DH-table text format for robot chains (".dh"), so textbook and robot chains load like
 * any other asset. The format (documented in importers/README.md):
 *
 *   rigkit-dh 1                     first line, required
 *   # comment                       '#' starts a comment anywhere; blank lines are ignored
 *   name <text>                     optional
 *   convention standard|modified    default standard (A = Rz(theta) Tz(d) Tx(a) Rx(alpha))
 *   length m|dm|cm|mm|in|ft         unit of a, d, base/tool translations; default m
 *   angle deg|rad                   unit of alpha, theta, joint values; default rad
 *   up x|y|z|-x|-y|-z               world up axis of the table; default z (converted to Y-up)
 *   base <x y z> [<rx ry rz>]       world <- frame 0: translation, then R = Rz(rz) Ry(ry) Rx(rx)
 *   tool <x y z> [<rx ry rz>]       last frame <- end effector, same form
 *   joint <name> revolute|prismatic <a> <alpha> <d> <theta> [<min> <max>]
 *                                   one per joint, in chain order; theta/d are offsets at q = 0
 *   fps <rate>                      rate of the frames below (default 30)
 *   frame <q1> ... <qn>             joint values of one frame (angle / length units)
 *
 * The skeleton is the chain in modified-DH form: a root joint "base" (world <- frame 0), one
 * joint per table row whose local frame is the DH frame on that joint's axis (z = the axis, so
 * the joint variable is a rotation about or a translation along local z), and a leaf "tool"
 * (flagged end site). The rest pose is q = 0. Frames become one clip. */
#include "dh_table.h"
#include "conventions.h"

#include <stdarg.h>
#include <string.h>

typedef struct dh_joint {
  char *name;
  rk_dh_row row;
  bool has_limits;
  double lo, hi;
} dh_joint;

static void dh_joint_clear(gpointer p) {
  g_free(((dh_joint *)p)->name);
}

static bool dh_fail(GError **error, int code, unsigned line, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);
static bool dh_fail(GError **error, int code, unsigned line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error(error, RK_ERROR, code, "line %u: %s", line, msg);
  return false;
}

static bool parse_numbers(char **tok, int n, double *out, unsigned line, const char *what,
                          GError **error) {
  for (int i = 0; i < n; i++) {
    char *end = NULL;
    if (!tok[i])
      return dh_fail(error, RK_ERROR_PARSE, line, "%s needs %d numbers", what, n);
    out[i] = g_ascii_strtod(tok[i], &end);
    if (end == tok[i] || *end != '\0')
      return dh_fail(error, RK_ERROR_PARSE, line, "%s: '%s' is not a number", what, tok[i]);
    if (!isfinite(out[i]))
      return dh_fail(error, RK_ERROR_INVALID, line, "%s: '%s' is not finite", what, tok[i]);
  }
  return true;
}

/* "x y z [rx ry rz]" -> transform (lengths scaled to metres later with everything else). */
static bool parse_pose(char **tok, double angle_unit, rk_mat4 *out, unsigned line,
                       const char *what, GError **error) {
  double v[6] = {0};
  const int n = (int)g_strv_length(tok);
  if (n != 3 && n != 6)
    return dh_fail(error, RK_ERROR_PARSE, line, "%s needs x y z [rx ry rz]", what);
  if (!parse_numbers(tok, n, v, line, what, error))
    return false;
  rk_mat3 r = rk_mat3_rot_z(v[5] * angle_unit), ry = rk_mat3_rot_y(v[4] * angle_unit),
          rx = rk_mat3_rot_x(v[3] * angle_unit);
  rk_mat3 t = rk_mat3_mul(&r, &ry);
  r = rk_mat3_mul(&t, &rx);
  *out = rk_mat4_from_rt(&r, rk_vec3_make(v[0], v[1], v[2]));
  return true;
}

static rk_transform modified_local(const rk_dh_row *row, double q) {
  /* T = Rx(alpha) Tx(a) Tz(d) Rz(theta) = T(a, -sin(alpha) d, cos(alpha) d) R(Rx(alpha) Rz(theta))
   */
  double theta = row->theta, d = row->d;
  if (row->type == RK_DH_REVOLUTE)
    theta += q;
  else
    d += q;
  rk_transform x = rk_transform_identity();
  x.t = rk_vec3_make(row->a, -sin(row->alpha) * d, cos(row->alpha) * d);
  x.r = rk_quat_mul(rk_quat_from_axis_angle(rk_vec3_make(1, 0, 0), row->alpha),
                    rk_quat_from_axis_angle(rk_vec3_make(0, 0, 1), theta));
  return x;
}

/* The table as read: units applied to the rows and frames (metres, radians), base and tool poses
 * still in the length unit until parse_table ends. */
typedef struct dh_table {
  bool header, standard, frames_started;
  double length_unit, angle_unit, fps;
  const char *length_name;
  int up_axis, up_sign;
  rk_mat4 base, tool;
  char *name;
  GArray *joints; /* dh_joint */
  GArray *frames; /* double: the joint values of each frame, frame after frame */
  size_t frame_count;
} dh_table;

static void table_init(dh_table *t) {
  memset(t, 0, sizeof *t);
  t->standard = true;
  t->length_unit = 1.0;
  t->angle_unit = 1.0;
  t->length_name = "m";
  t->up_axis = 2;
  t->up_sign = 1;
  t->base = rk_mat4_identity();
  t->tool = rk_mat4_identity();
  t->joints = g_array_new(FALSE, TRUE, sizeof(dh_joint));
  g_array_set_clear_func(t->joints, dh_joint_clear);
  t->frames = g_array_new(FALSE, FALSE, sizeof(double));
}

static void table_clear(dh_table *t) {
  g_free(t->name);
  g_array_unref(t->joints);
  g_array_unref(t->frames);
}

/* joint <name> revolute|prismatic <a> <alpha> <d> <theta> [<min> <max>] */
static bool joint_statement(dh_table *t, char **tok, guint nt, unsigned line, GError **error) {
  if (nt != 7 && nt != 9)
    return dh_fail(error, RK_ERROR_PARSE, line,
                   "joint <name> revolute|prismatic <a> <alpha> <d> <theta> [<min> <max>]");
  if (t->joints->len >= RK_SKELETON_MAX_JOINTS - 2)
    return dh_fail(error, RK_ERROR_LIMIT, line, "more than %d joints", RK_SKELETON_MAX_JOINTS - 2);
  dh_joint j = {0};
  double v[6];
  if (strcmp(tok[2], "revolute") == 0)
    j.row.type = RK_DH_REVOLUTE;
  else if (strcmp(tok[2], "prismatic") == 0)
    j.row.type = RK_DH_PRISMATIC;
  else
    return dh_fail(error, RK_ERROR_PARSE, line, "joint type '%s' (revolute or prismatic)", tok[2]);
  if (!parse_numbers(tok + 3, (int)nt - 3, v, line, "joint", error))
    return false;
  j.name = g_strdup(tok[1]);
  j.row.a = v[0] * t->length_unit;
  j.row.alpha = v[1] * t->angle_unit;
  j.row.d = v[2] * t->length_unit;
  j.row.theta = v[3] * t->angle_unit;
  bool ok = true;
  if (nt == 9) {
    const double u = j.row.type == RK_DH_REVOLUTE ? t->angle_unit : t->length_unit;
    j.has_limits = true;
    j.lo = v[4] * u, j.hi = v[5] * u;
    if (!(j.lo <= j.hi))
      ok = dh_fail(error, RK_ERROR_INVALID, line, "joint '%s': min > max", j.name);
  }
  g_array_append_val(t->joints, j);
  return ok;
}

/* frame <q1> ... <qn>: one value per joint, in the joint's angle or length unit. */
static bool frame_statement(dh_table *t, char **tok, guint nt, unsigned line, GError **error) {
  t->frames_started = true;
  if (nt - 1 != t->joints->len)
    return dh_fail(error, RK_ERROR_PARSE, line, "frame %zu has %u values for %u joints",
                   t->frame_count, nt - 1, t->joints->len);
  if (t->frame_count >= RK_CLIP_MAX_KEYS)
    return dh_fail(error, RK_ERROR_LIMIT, line, "more than %u frames", RK_CLIP_MAX_KEYS);
  bool ok = true;
  double v[64];
  for (guint k = 0; k < t->joints->len && ok; k += 64) {
    const int chunk = (int)MIN(64u, t->joints->len - k);
    ok = parse_numbers(tok + 1 + k, chunk, v, line, "frame", error);
    for (int c = 0; ok && c < chunk; c++) {
      const dh_joint *j = &g_array_index(t->joints, dh_joint, k + (guint)c);
      double q = v[c] * (j->row.type == RK_DH_REVOLUTE ? t->angle_unit : t->length_unit);
      g_array_append_val(t->frames, q);
    }
  }
  t->frame_count++;
  return ok;
}

/* One statement (tok[0] the keyword, nt tokens) of the table. */
static bool statement(dh_table *t, char **tok, guint nt, unsigned line, GError **error) {
  const char *key = tok[0];
  if (!t->header) {
    t->header = true;
    if (strcmp(key, "rigkit-dh") != 0 || nt != 2 || strcmp(tok[1], "1") != 0)
      return dh_fail(error, RK_ERROR_PARSE, line, "a DH table starts with 'rigkit-dh 1'");
    return true;
  }
  if (t->frames_started && strcmp(key, "frame") != 0 && strcmp(key, "fps") != 0)
    return dh_fail(error, RK_ERROR_PARSE, line, "'%s' after the frames", key);
  if (strcmp(key, "name") == 0) {
    g_free(t->name);
    t->name = g_strjoinv(" ", tok + 1);
  } else if (strcmp(key, "convention") == 0) {
    if (nt == 2 && strcmp(tok[1], "standard") == 0)
      t->standard = true;
    else if (nt == 2 && strcmp(tok[1], "modified") == 0)
      t->standard = false;
    else
      return dh_fail(error, RK_ERROR_PARSE, line, "convention is 'standard' or 'modified'");
  } else if (strcmp(key, "length") == 0) {
    if (nt != 2 || !rk__unit_from_name(tok[1], &t->length_unit))
      return dh_fail(error, RK_ERROR_PARSE, line, "unknown length unit");
    t->length_name = rk__unit_name(t->length_unit) ? rk__unit_name(t->length_unit) : "m";
  } else if (strcmp(key, "angle") == 0) {
    if (nt == 2 && strcmp(tok[1], "deg") == 0)
      t->angle_unit = RK_DEG;
    else if (nt == 2 && strcmp(tok[1], "rad") == 0)
      t->angle_unit = 1.0;
    else
      return dh_fail(error, RK_ERROR_PARSE, line, "angle is 'deg' or 'rad'");
  } else if (strcmp(key, "up") == 0) {
    if (nt != 2 || !rk_import_parse_axis(tok[1], &t->up_axis, &t->up_sign))
      return dh_fail(error, RK_ERROR_PARSE, line, "up is one of x, y, z, -x, -y, -z");
  } else if (strcmp(key, "base") == 0 || strcmp(key, "tool") == 0) {
    return parse_pose(tok + 1, t->angle_unit, key[0] == 'b' ? &t->base : &t->tool, line, key,
                      error);
  } else if (strcmp(key, "joint") == 0) {
    return joint_statement(t, tok, nt, line, error);
  } else if (strcmp(key, "fps") == 0) {
    double v = 0.0; /* set by parse_numbers; initialised for -O3, which cannot see that */
    if (nt != 2 || !parse_numbers(tok + 1, 1, &v, line, "fps", error) || !(v > 0) || v > 1e6) {
      if (error && !*error)
        dh_fail(error, RK_ERROR_INVALID, line, "fps must be positive");
      return false;
    }
    t->fps = v;
  } else if (strcmp(key, "frame") == 0) {
    return frame_statement(t, tok, nt, line, error);
  } else {
    return dh_fail(error, RK_ERROR_PARSE, line, "unknown keyword '%s'", key);
  }
  return true;
}

/* Reads the table's lines ('#' starts a comment; tabs and CR are spaces) into t. */
static bool parse_table(dh_table *t, char *text, GError **error) {
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (unsigned ln = 0; lines[ln]; ln++) {
    const unsigned line = ln + 1;
    char *hash = strchr(lines[ln], '#');
    if (hash)
      *hash = '\0';
    if (strlen(lines[ln]) > RK__IMPORT_MAX_LINE)
      return dh_fail(error, RK_ERROR_LIMIT, line, "line longer than %zu bytes",
                     (size_t)RK__IMPORT_MAX_LINE);
    g_strdelimit(lines[ln], "\t\r", ' ');
    g_auto(GStrv) raw_tok = g_strsplit(g_strstrip(lines[ln]), " ", -1);
    /* Drop the empty strings that runs of spaces leave. */
    g_autoptr(GPtrArray) tv = g_ptr_array_new();
    for (char **tk = raw_tok; *tk; tk++)
      if (**tk)
        g_ptr_array_add(tv, *tk);
    g_ptr_array_add(tv, NULL);
    if (tv->len > 1 && !statement(t, (char **)tv->pdata, tv->len - 1, line, error))
      return false;
  }
  if (!t->header || t->joints->len == 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s",
                t->header ? "the table has no joints" : "a DH table starts with 'rigkit-dh 1'");
    return false;
  }
  /* Base and tool translations are in the length unit too. */
  for (int r = 0; r < 3; r++) {
    t->base.m[12 + r] *= t->length_unit;
    t->tool.m[12 + r] *= t->length_unit;
  }
  return true;
}

/* The chain as a skeleton in modified-DH form: "base" (world <- frame 0, a helper), one joint per
 * row (mrows, modified DH) whose local z is its axis, declared as its mechanics, and "tool" (an
 * end site; mtool is the tool pose after the conversion). ids gets the raw index of each row's
 * joint. Fails with RK_ERROR_INVALID when two joints share a name. */
static bool add_chain(const dh_table *t, const rk_dh_row *mrows, const rk_mat4 *mtool,
                      rk__raw_asset *raw, int *ids, GError **error) {
  const size_t n = t->joints->len;
  rk_transform base_t, tool_t;
  rk_transform_from_mat4(&t->base, &base_t);
  rk_transform_from_mat4(mtool, &tool_t);
  int prev = rk__raw_add_joint(raw, "base", -1, &base_t, RK_SKELETON_HELPER);
  for (size_t i = 0; i < n; i++) {
    const dh_joint *j = &g_array_index(t->joints, dh_joint, i);
    rk_transform rest = modified_local(&mrows[i], 0.0);
    ids[i] = prev = rk__raw_add_joint(raw, j->name, prev, &rest, 0);
    /* The joint variable turns about / slides along the frame's local z. */
    rk__raw_joint *rj = rk__raw_joint_at(raw, (size_t)ids[i]);
    rj->has_mechanics = true;
    rj->mechanics.motion =
        j->row.type == RK_DH_REVOLUTE ? RK_JOINT_REVOLUTE : RK_JOINT_PRISMATIC;
    rj->mechanics.axis = rk_vec3_make(0, 0, 1);
    rj->mechanics.has_limits = j->has_limits;
    rj->mechanics.lower = j->has_limits ? j->lo : -INFINITY;
    rj->mechanics.upper = j->has_limits ? j->hi : INFINITY;
  }
  rk__raw_add_joint(raw, "tool", prev, &tool_t, RK_SKELETON_END_SITE);
  g_autoptr(GHashTable) names = g_hash_table_new(g_str_hash, g_str_equal);
  for (size_t i = 0; i < rk__raw_joint_count(raw); i++)
    if (!g_hash_table_add(names, rk__raw_joint_at(raw, i)->name)) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                  "duplicate joint name '%s' ('base' and 'tool' are taken)",
                  rk__raw_joint_at(raw, i)->name);
      return false;
    }
  rk__raw_note(raw, "DH table%s%s: %zu chain joints (%s convention), rest pose q = 0",
               t->name ? " " : "", t->name ? t->name : "", n,
               t->standard ? "standard" : "modified");
  return true;
}

/* The frames as one clip: a rotation (revolute) or translation (prismatic) track per joint. */
static void add_clip(dh_table *t, const rk_dh_row *mrows, const int *ids, rk__raw_asset *raw) {
  const size_t n = t->joints->len;
  if (t->fps <= 0) {
    t->fps = 30;
    rk__raw_note(raw, "no fps line: frames played at 30 fps");
  }
  rk__raw_clip *clip = rk__raw_add_clip(raw, t->name ? t->name : "frames");
  clip->fps = t->fps;
  clip->duration = (double)(t->frame_count - 1) / t->fps;
  const double *q = (const double *)(void *)t->frames->data;
  for (size_t i = 0; i < n; i++) {
    const bool rev = mrows[i].type == RK_DH_REVOLUTE;
    rk__raw_track *tr = rk__raw_clip_add_track(
        clip, ids[i], rev ? RK_CHANNEL_ROTATION : RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR);
    rk__raw_track_reserve(tr, t->frame_count);
    rk_quat prev_q = rk_quat_identity();
    for (size_t f = 0; f < t->frame_count; f++) {
      rk_transform x = modified_local(&mrows[i], q[f * n + i]);
      double v[4];
      if (rev) {
        if (rk_quat_dot(x.r, prev_q) < 0)
          x.r = rk_quat_make(-x.r.x, -x.r.y, -x.r.z, -x.r.w);
        prev_q = x.r;
        v[0] = x.r.x, v[1] = x.r.y, v[2] = x.r.z, v[3] = x.r.w;
      } else {
        v[0] = x.t.x, v[1] = x.t.y, v[2] = x.t.z;
      }
      rk__raw_track_push(tr, (double)f / t->fps, v);
    }
  }
}

/* The table's unit and up axis (or the caller's) -> metres, Y-up, the turn folded into "base".
 * Fails with RK_ERROR_INVALID for an unreadable opts->up_axis. */
static bool to_canonical(dh_table *t, const rk_import_options *opts, rk__raw_asset *raw,
                         GError **error) {
  rk__raw_set_unit(raw, t->length_name, t->length_unit);
  if (opts->unit_scale > 0) {
    rk__raw_scale_lengths(raw, opts->unit_scale / t->length_unit);
    rk__raw_set_unit(raw, rk__unit_name(opts->unit_scale) ? rk__unit_name(opts->unit_scale)
                                                          : "custom",
                     opts->unit_scale);
    rk__raw_note(raw, "unit overridden: %g m per file unit", opts->unit_scale);
  }
  if (opts->up_axis && !rk_import_parse_axis(opts->up_axis, &t->up_axis, &t->up_sign)) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "invalid up axis '%s'", opts->up_axis);
    return false;
  }
  rk__raw_set_up_axis(raw, rk__axis_name(t->up_axis, t->up_sign));
  if (!(t->up_axis == 1 && t->up_sign > 0)) {
    rk_mat3 a = rk__basis_for_up(t->up_axis, t->up_sign);
    rk_transform fold = rk_transform_identity();
    fold.r = rk_quat_from_mat3(&a);
    rk__raw_premultiply_roots(raw, &fold);
    rk__raw_note(raw, "table world is %s-up: converted to Y-up (folded into 'base')",
                 rk__axis_name(t->up_axis, t->up_sign));
  }
  return true;
}

/* The asset from a parsed table: the rows in modified form, the chain, the clip, canonical
 * space. */
static rk__raw_asset *build(dh_table *t, const rk_import_options *opts, GError **error) {
  const size_t n = t->joints->len;
  g_autofree rk_dh_row *rows = g_new(rk_dh_row, n);
  for (size_t i = 0; i < n; i++)
    rows[i] = g_array_index(t->joints, dh_joint, i).row;
  g_autofree rk_dh_row *mrows = g_new(rk_dh_row, n);
  rk_mat4 mtool = t->tool;
  if (t->standard)
    rk_dh_standard_to_modified(rows, n, &t->tool, mrows, &mtool);
  else
    memcpy(mrows, rows, n * sizeof *rows);
  g_autoptr(rk__raw_asset) raw = rk__raw_asset_new();
  g_autofree int *ids = g_new(int, n);
  if (!add_chain(t, mrows, &mtool, raw, ids, error))
    return NULL;
  if (t->frame_count > 0)
    add_clip(t, mrows, ids, raw);
  if (!to_canonical(t, opts, raw, error))
    return NULL;
  return g_steal_pointer(&raw);
}

rk__raw_asset *rk__dh_read(const rk__source *src, const rk_import_options *opts, GError **error) {
  g_autofree char *text = g_strndup((const char *)src->data, src->size);
  if (strlen(text) != src->size) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "a DH table is text, this file holds NUL bytes");
    return NULL;
  }
  dh_table t;
  table_init(&t);
  rk__raw_asset *raw = parse_table(&t, text, error) ? build(&t, opts, error) : NULL;
  table_clear(&t);
  return raw;
}
