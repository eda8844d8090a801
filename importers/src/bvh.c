/* rigkit's own BVH reader. Assimp 5.2.5's is not faithful enough: it keeps 1/FrameTime in a float,
 * replaces the root OFFSET by the position channels, drops data lines beyond the header's frame
 * count and fails on fewer. This reader:
 *  - accepts any channel order per joint (the listed order is the Euler order: "Zrotation
 *    Xrotation Yrotation" is R = Rz Rx Ry), position channels on any joint, CR/LF and tabs;
 *  - makes each End Site a leaf joint "<parent>_End" flagged RK_SKELETON_END_SITE;
 *  - uses the frame lines that are there when the header's "Frames:" disagrees (and says so);
 *  - reads "Frame Time" as 1/N s when it is 1/N rounded to the printed digits (0.041667 -> 1/24);
 *  - decides per file whether root position channels add to the OFFSET or replace it: the reading
 *    that puts the lowest joints on the ground plane wins (override: rk_import_options);
 *  - detects the up axis (the axis along which spine and legs extend; the lateral axis is found by
 *    left/right symmetry) and the unit (the one that makes the skeleton 1.4-2.1 m tall), converts
 *    to metres, Y-up, and records both (overrides: rk_import_options).
 * The sections are read by bvh_hierarchy.c and bvh_motion.c (tokens: bvh_lexer.c) into an
 * rk__bvh_file (bvh_file.c), the open readings decided by bvh_decide.c; this file runs the steps
 * and builds the raw asset. */
#include "bvh.h"

#include "bvh_decide.h"
#include "bvh_hierarchy.h"
#include "bvh_motion.h"
#include "conventions.h"

#include <string.h>

static char *clip_name(const char *path) {
  g_autofree char *base = g_path_get_basename(path);
  char *dot = strrchr(base, '.');
  if (dot && dot != base)
    *dot = '\0';
  return g_strdup(*base ? base : "take");
}

/* Joint names are a BVH joint's only identity: authored names must be unique; End Site names are
 * made up, so they yield to authored names (".001", ...). */
static bool unique_names(rk__bvh_file *b, GError **error) {
  g_autoptr(GHashTable) names = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint i = 0; i < b->joints->len; i++) {
    rk__bvh_joint *j = rk__bvh_joint_at(b, i);
    if (j->end_site)
      continue;
    if (!g_hash_table_add(names, j->name)) {
      unsigned first = 0;
      for (guint k = 0; k < i; k++) {
        const rk__bvh_joint *other = rk__bvh_joint_at(b, k);
        if (!other->end_site && strcmp(other->name, j->name) == 0)
          first = other->line;
      }
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                  "duplicate joint name '%s' (lines %u and %u)", j->name, first, j->line);
      return false;
    }
  }
  for (guint i = 0; i < b->joints->len; i++) {
    rk__bvh_joint *j = rk__bvh_joint_at(b, i);
    if (!j->end_site)
      continue;
    if (g_hash_table_contains(names, j->name)) {
      char *fresh = rk__raw_fresh_name(j->name, names);
      g_free(j->name);
      j->name = fresh;
    }
    g_hash_table_add(names, j->name);
  }
  return true;
}

/* The skeleton in file units and axes: OFFSETs as rest translations. */
static void add_skeleton(const rk__bvh_file *b, rk__raw_asset *raw) {
  for (guint i = 0; i < b->joints->len; i++) {
    const rk__bvh_joint *j = rk__bvh_joint_at(b, i);
    rk_transform rest = rk_transform_identity();
    rest.t = rk_vec3_make(j->offset[0], j->offset[1], j->offset[2]);
    rk__raw_add_joint(raw, j->name, j->parent, &rest, j->end_site ? RK_SKELETON_END_SITE : 0);
  }
}

/* The frame time: exactly 1/N s when the file printed 1/N rounded to its digits (0.041667 ->
 * 1/24, with a note), else as written; *fps is its inverse (N exactly when it is 1/N). */
static double frame_time(const rk__bvh_file *b, rk__raw_asset *raw, double *fps_out) {
  double ft = b->frame_time, fps = 1.0 / ft;
  if (b->frame_time_decimals >= 0) {
    const double tol = 0.5 * pow(10.0, -b->frame_time_decimals) * (1 + 1e-9);
    const double n = nearbyint(1.0 / ft);
    if (n >= 1 && fabs(ft - 1.0 / n) <= tol && fabs(ft - 1.0 / n) > 0) {
      rk__raw_note(raw, "Frame Time %.*f s read as 1/%.0f s (rounded to %d decimals in the file)",
                   b->frame_time_decimals, ft, n, b->frame_time_decimals);
      ft = 1.0 / n;
      fps = n;
    } else if (n >= 1 && ft == 1.0 / n) {
      fps = n;
    }
  }
  *fps_out = fps;
  return ft;
}

/* One track of the clip to fill: a joint's translation (position channels read as `add`) or its
 * rotation, with the keys of every frame (frame k at k * ft). */
typedef struct track_fill {
  const rk__bvh_joint *j;
  rk__raw_track *t; /* reserved for every frame */
  bool rotation, add;
} track_fill;

/* Fills one track: translations as read, rotations sign-continuous so that slerp takes the short
 * way. A joint whose rotation channels are one Euler order converts all its frames in one call
 * (four at a time, the same bits as one by one). */
static void fill_track(const rk__bvh_file *b, const track_fill *k, double ft) {
  rk_euler_order order;
  size_t column;
  const bool batch = k->rotation && rk__bvh_joint_euler(k->j, &order, &column);
  if (batch)
    rk_euler_deg_to_quats(order, b->data + k->j->first_channel + column, b->columns, b->frames,
                          k->t->values);
  rk_quat prev = rk_quat_identity();
  for (size_t f = 0; f < b->frames; f++) {
    k->t->times[f] = (double)f * ft;
    if (!k->rotation) {
      const rk_vec3 v = rk__bvh_joint_translation(b, k->j, f, k->add);
      double *o = k->t->values + 3 * f;
      o[0] = v.x, o[1] = v.y, o[2] = v.z;
      continue;
    }
    double *o = k->t->values + 4 * f;
    rk_quat q = batch ? rk_quat_make(o[0], o[1], o[2], o[3])
                      : rk__bvh_joint_rotation(k->j, b->data + f * b->columns + k->j->first_channel);
    if (rk_quat_dot(q, prev) < 0)
      q = rk_quat_make(-q.x, -q.y, -q.z, -q.w);
    prev = q;
    o[0] = q.x, o[1] = q.y, o[2] = q.z, o[3] = q.w;
  }
}

/* Tracks [first, end) of a list, filled by one thread. */
typedef struct fill_run {
  const rk__bvh_file *b;
  const track_fill *tracks;
  size_t first, end;
  double ft;
} fill_run;

static gpointer fill_tracks(gpointer data) {
  const fill_run *r = data;
  for (size_t i = r->first; i < r->end; i++)
    fill_track(r->b, &r->tracks[i], r->ft);
  return NULL;
}

/* Channel values a second thread is worth starting for (a 2 MB clip holds about 260k). */
#define FILL_THREAD_VALUES 65536

/* Fills the tracks: in two halves on two threads for a long clip on a machine with two
 * processors (every track depends only on the frame rows: the same keys either way). */
static void fill_all(const rk__bvh_file *b, const track_fill *tracks, size_t n, double ft) {
  fill_run runs[2] = {{b, tracks, 0, n / 2, ft}, {b, tracks, n / 2, n, ft}};
  rk_halves_run(fill_tracks, &runs[0], &runs[1], b->frames * b->columns >= FILL_THREAD_VALUES);
}

/* The frames as one clip named after the file, in file units and axes: per joint a translation
 * track (position channels) and a rotation track (rotation channels). Fails with RK_ERROR_LIMIT
 * beyond RK_CLIP_MAX_DURATION. */
static bool add_clip(const rk__bvh_file *b, const char *path, bool root_add, bool other_add,
                     rk__raw_asset *raw, GError **error) {
  double fps;
  const double ft = frame_time(b, raw, &fps);
  if (b->frames > 0 && b->columns > 0) {
    if ((double)(b->frames - 1) * ft > RK_CLIP_MAX_DURATION) {
      g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "%zu frames of %g s exceed %g s", b->frames,
                  ft, RK_CLIP_MAX_DURATION);
      return false;
    }
    g_autofree char *name = clip_name(path);
    rk__raw_clip *clip = rk__raw_add_clip(raw, name);
    clip->fps = fps;
    clip->duration = (double)(b->frames - 1) * ft;
    g_autofree track_fill *tracks = g_new(track_fill, 2 * (size_t)b->joints->len + 1);
    size_t n = 0;
    for (guint i = 0; i < b->joints->len; i++) {
      const rk__bvh_joint *j = rk__bvh_joint_at(b, i);
      bool has_rot = false;
      for (int k = 0; k < j->n_channels; k++)
        has_rot |= j->channels[k] >= RK__BVH_XROT;
      for (int rot = 0; rot < 2; rot++) {
        if (rot ? !has_rot : !rk__bvh_has_position(j))
          continue;
        rk__raw_track *t = rk__raw_clip_add_track(
            clip, (int)i, rot ? RK_CHANNEL_ROTATION : RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR);
        rk__raw_track_reserve(t, b->frames);
        t->keys = b->frames;
        /* Unit quaternions of finite angles at times f * ft (ft finite and positive); translations
         * are not vouched for: OFFSET plus value, scaled by the unit, can overflow. */
        t->computed = rot == 1;
        tracks[n++] = (track_fill){j, t, rot == 1, j->parent < 0 ? root_add : other_add};
      }
    }
    fill_all(b, tracks, n, ft);
  } else if (b->frames == 0) {
    rk__raw_note(raw, "the file has no frames: skeleton only");
  }
  return true;
}

/* File units and axes -> metres, Y-up. */
static void to_canonical(rk__raw_asset *raw, double unit, rk__bvh_up up) {
  rk__raw_scale_lengths(raw, unit);
  if (!(up.axis == 1 && up.sign > 0)) {
    rk_mat3 a = rk__basis_for_up(up.axis, up.sign);
    rk__raw_change_basis(raw, &a);
    rk__raw_note(raw, "converted from %s-up to Y-up", rk__axis_name(up.axis, up.sign));
  }
}

rk__raw_asset *rk__bvh_read(const rk__source *src, const rk_import_options *opts, GError **error) {
  rk__bvh_file b;
  rk__bvh_file_init(&b, (const char *)src->data, src->size);
  rk__raw_asset *raw = rk__raw_asset_new();
  rk__bvh_up up = {1, 1, -1};
  bool ok = rk__bvh_parse_hierarchy(&b, error) && rk__bvh_parse_motion(&b, raw, error) &&
            unique_names(&b, error) && rk__bvh_choose_up(&b, opts, raw, &up, error);
  if (ok) {
    const rk_vec3 up_vec = rk__bvh_up_vector(up);
    const double unit = rk__bvh_choose_unit(&b, opts, up_vec, raw);
    bool root_add, other_add;
    rk__bvh_choose_position_reading(&b, opts, up_vec, unit, raw, &root_add, &other_add);
    add_skeleton(&b, raw);
    ok = add_clip(&b, src->name, root_add, other_add, raw, error);
    if (ok)
      to_canonical(raw, unit, up);
  }
  rk__bvh_file_clear(&b);
  if (!ok) {
    rk__raw_asset_free(raw);
    return NULL;
  }
  return raw;
}
