/* The clips of an Assimp scene (scene_clips.h): channels bound to joints, interpolation and
 * cubic keys recovered by the glTF pre-pass, Assimp's static rest keys dropped, frame rates. */
#include "scene_clips.h"

#include "conventions.h"

#include <math.h>
#include <string.h>

/* True when a key value differs from the rest component. */
static bool vec3_differs(const double *v, rk_vec3 rest) {
  const double tol = 1e-6 * (1.0 + rk_vec3_norm(rest));
  return fabs(v[0] - rest.x) > tol || fabs(v[1] - rest.y) > tol || fabs(v[2] - rest.z) > tol;
}

static bool quat_differs(const double *v, rk_quat rest) {
  rk_quat q = rk_quat_normalize(rk_quat_make(v[0], v[1], v[2], v[3]));
  return rk_quat_angle_between(q, rk_quat_normalize(rest)) > 1e-6;
}

bool rk__scene_channel_moves(const rk__scene_channel *c, const rk_transform *rest) {
  for (unsigned k = 0; k < c->n_pos; k++)
    if (vec3_differs(c->pos_values + 3 * k, rest->t))
      return true;
  for (unsigned k = 0; k < c->n_rot; k++)
    if (quat_differs(c->rot_values + 4 * k, rest->r))
      return true;
  for (unsigned k = 0; k < c->n_scale; k++)
    if (vec3_differs(c->scale_values + 3 * k, rest->s))
      return true;
  return false;
}

static const rk__gltf_interp *find_interp(const rk__gltf_info *g, unsigned anim, const char *node,
                                          rk_channel ch) {
  if (!g || !g->interps)
    return NULL;
  for (guint i = 0; i < g->interps->len; i++) {
    const rk__gltf_interp *e = g_ptr_array_index(g->interps, i);
    if (e->anim == anim && e->channel == ch && strcmp(e->node_name, node) == 0)
      return e;
  }
  return NULL;
}

/* Adds one channel component as a track; drops keys whose time does not increase. Returns the
 * number of dropped keys. */
/* Whether add_keys would keep every key of times[n] (shifted by shift) as it is. */
static bool keys_kept_as_they_are(const double *times, size_t n, double shift) {
  if (shift != 0)
    return false;
  for (size_t k = 1; k < n; k++)
    if (!(times[k] > times[k - 1]))
      return false;
  return n > 0 && times[0] > -INFINITY;
}

/* Adds the keys as a track: times shifted, keys whose time does not increase dropped, rotations
 * made sign-continuous. With own_times/own_values (the caller's arrays of them, or NULL), a track
 * that keeps every key unshifted takes those arrays (made sign-continuous in place; *own_* set to
 * NULL) instead of copies: the same keys. Returns the number of keys dropped. */
static unsigned add_keys(rk__raw_clip *clip, int joint, rk_channel ch, rk_interp interp,
                         const double *times, const double *values, size_t n, double shift,
                         double **own_times, double **own_values) {
  const int stride = rk_channel_components(ch) * (interp == RK_INTERP_CUBIC ? 3 : 1);
  rk__raw_track *t = rk__raw_clip_add_track(clip, joint, ch, interp);
  const bool rotation = ch == RK_CHANNEL_ROTATION && interp != RK_INTERP_CUBIC;
  if (own_times && own_values && keys_kept_as_they_are(times, n, shift)) {
    double *v = *own_values;
    for (size_t k = 1; rotation && k < n; k++) {
      double *q = v + 4 * k;
      const double *p = q - 4;
      /* Sign-continuous quaternions, so slerp between keys takes the short way. */
      if (q[0] * p[0] + q[1] * p[1] + q[2] * p[2] + q[3] * p[3] < 0)
        for (int c = 0; c < 4; c++)
          q[c] = -q[c];
    }
    t->times = g_steal_pointer(own_times);
    t->values = g_steal_pointer(own_values);
    t->keys = t->capacity = n;
    return 0;
  }
  rk__raw_track_reserve(t, n);
  unsigned dropped = 0;
  double last = -INFINITY;
  double prev_q[4] = {0, 0, 0, 1};
  for (size_t k = 0; k < n; k++) {
    const double time = times[k] - shift;
    if (!(time > last)) {
      dropped++;
      continue;
    }
    double v[12];
    if (stride == 3)
      memcpy(v, values + k * 3, 3 * sizeof(double));
    else if (stride == 4)
      memcpy(v, values + k * 4, 4 * sizeof(double));
    else
      memcpy(v, values + k * (size_t)stride, (size_t)stride * sizeof(double));
    if (rotation) {
      /* Sign-continuous quaternions, so slerp between keys takes the short way. */
      if (k > 0 && v[0] * prev_q[0] + v[1] * prev_q[1] + v[2] * prev_q[2] + v[3] * prev_q[3] < 0)
        for (int c = 0; c < 4; c++)
          v[c] = -v[c];
      memcpy(prev_q, v, sizeof prev_q);
    }
    rk__raw_track_push(t, time, v);
    last = time;
  }
  return dropped;
}

static bool single_key_is_rest(size_t n, const double *v, rk_channel ch, const rk_transform *rest) {
  if (n != 1)
    return false;
  switch (ch) {
  case RK_CHANNEL_TRANSLATION:
    return !vec3_differs(v, rest->t);
  case RK_CHANNEL_ROTATION:
    return !quat_differs(v, rest->r);
  case RK_CHANNEL_SCALE:
    return !vec3_differs(v, rest->s);
  }
  return false;
}

/* The name of clip a: the animation's own, "clip<a>" when it has none, with ".001", ... when the
 * name is taken (taken: the names so far). */
static char *clip_name(const rk__scene_anim *an, unsigned a, GHashTable *taken,
                       rk__raw_asset *raw) {
  char *name = *an->name ? g_strdup(an->name) : g_strdup_printf("clip%u", a);
  if (!*an->name)
    rk__raw_note(raw, "animation %u has no name: called it '%s'", a, name);
  if (g_hash_table_contains(taken, name)) {
    char *fresh = rk__raw_fresh_name(name, taken);
    rk__raw_note(raw, "duplicate animation name '%s' (animation %u) renamed to '%s'", name, a,
                 fresh);
    g_free(name);
    name = fresh;
  }
  g_hash_table_add(taken, g_strdup(name));
  return name;
}

/* Times before 0 (FBX takes may start early): the earliest key time when it is negative, else 0;
 * subtracted from every key so that the clip starts at 0. */
static double clip_shift(const rk__scene_anim *an) {
  double t_min = INFINITY;
  for (unsigned c = 0; c < an->channel_count; c++) {
    const rk__scene_channel *ch = &an->channels[c];
    if (ch->n_pos)
      t_min = fmin(t_min, ch->pos_times[0]);
    if (ch->n_rot)
      t_min = fmin(t_min, ch->rot_times[0]);
    if (ch->n_scale)
      t_min = fmin(t_min, ch->scale_times[0]);
  }
  return isfinite(t_min) && t_min < 0 ? t_min : 0.0;
}

/* Appends a track's key times to all_times, unless they are the same finite times the last track
 * appended (channels of one file usually share their time arrays): rk__fps_from_times sorts and
 * merges equal times, so a repeated block changes nothing but the size of that sort. */
static void append_times(GArray *all_times, const double *times, size_t n) {
  if (all_times->len >= n && n > 0) {
    const double *tail = (const double *)(void *)all_times->data + (all_times->len - n);
    size_t k = 0;
    while (k < n && isfinite(times[k]) && tail[k] == times[k] &&
           signbit(tail[k]) == signbit(times[k]))
      k++;
    if (k == n)
      return;
  }
  g_array_append_vals(all_times, times, (guint)n);
}

/* The tracks of channel ch of animation a, bound to joint (rest: its rest pose), with the
 * interpolation the glTF pre-pass recovered; appends their key times to all_times. Returns the
 * number of keys dropped because their time did not increase. */
static unsigned add_channel(rk__scene_channel *ch, unsigned a, int joint,
                            const rk_transform *rest, const char *format,
                            const rk__gltf_info *gltf, double shift, rk__raw_clip *clip,
                            GArray *all_times) {
  const bool gltf_format = strcmp(format, "gltf") == 0 || strcmp(format, "glb") == 0;
  unsigned dropped = 0;
  struct {
    rk_channel ch;
    unsigned n;
    const double *times, *values;
    double **own_times, **own_values; /* the channel's arrays, for add_keys to take */
  } parts[3] = {
      {RK_CHANNEL_TRANSLATION, ch->n_pos, ch->pos_times, ch->pos_values, &ch->pos_times,
       &ch->pos_values},
      {RK_CHANNEL_ROTATION, ch->n_rot, ch->rot_times, ch->rot_values, &ch->rot_times,
       &ch->rot_values},
      {RK_CHANNEL_SCALE, ch->n_scale, ch->scale_times, ch->scale_values, &ch->scale_times,
       &ch->scale_values}};
  for (int p = 0; p < 3; p++) {
    if (parts[p].n == 0)
      continue;
    const rk__gltf_interp *gi = find_interp(gltf, a, ch->node_name, parts[p].ch);
    /* Assimp gives an unanimated path of an animated glTF node one static rest key. */
    if (gltf_format && !gi && single_key_is_rest(parts[p].n, parts[p].values, parts[p].ch, rest))
      continue;
    rk_interp interp = gi ? gi->interp : RK_INTERP_LINEAR;
    if (interp == RK_INTERP_CUBIC && gi->values && gi->key_count > 0) {
      dropped += add_keys(clip, joint, parts[p].ch, interp, gi->times, gi->values, gi->key_count,
                          shift, NULL, NULL);
      append_times(all_times, gi->times, gi->key_count);
    } else {
      if (interp == RK_INTERP_CUBIC)
        interp = RK_INTERP_LINEAR;
      /* The times stay readable after add_keys took them: the track holds them unchanged. */
      dropped += add_keys(clip, joint, parts[p].ch, interp, parts[p].times, parts[p].values,
                          parts[p].n, shift, parts[p].own_times, parts[p].own_values);
      append_times(all_times, parts[p].times, parts[p].n);
    }
  }
  return dropped;
}

void rk__scene_build_clips(rk__scene *s, const char *format, const rk__gltf_info *gltf,
                        const int *joint_of_node, const rk_transform *rests, rk__raw_asset *raw) {
  const bool gltf_format = strcmp(format, "gltf") == 0 || strcmp(format, "glb") == 0;
  g_autoptr(GHashTable) clip_names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (unsigned a = 0; a < s->anim_count; a++) {
    const rk__scene_anim *an = &s->anims[a];
    g_autofree char *name = clip_name(an, a, clip_names, raw);
    rk__raw_clip *clip = rk__raw_add_clip(raw, name);
    const double shift = clip_shift(an);
    if (shift < 0)
      rk__raw_note(raw, "clip '%s' starts at %g s: shifted to start at 0", name, shift);
    unsigned dropped = 0, ignored = 0;
    GArray *all_times = g_array_new(FALSE, FALSE, sizeof(double));
    for (unsigned c = 0; c < an->channel_count; c++) {
      rk__scene_channel *ch = &an->channels[c];
      int node = rk__scene_bind_name(s, ch->node_name, NULL);
      int joint = node >= 0 ? joint_of_node[node] : -1;
      if (joint < 0) {
        /* Channels of folded parents carry their rest pose (else they would be joints);
         * cameras and lights are not part of a skeleton. */
        if (node < 0 || rk__scene_node_has_payload(&s->nodes[node]))
          ignored++;
        continue;
      }
      dropped += add_channel(ch, a, joint, &rests[joint], format, gltf, shift, clip, all_times);
    }
    if (dropped)
      rk__raw_note(raw, "clip '%s': dropped %u keys whose time did not increase", name, dropped);
    if (ignored)
      rk__raw_note(raw, "clip '%s': ignored %u channels of nodes outside the skeleton", name,
                   ignored);
    const double last = an->duration - shift;
    clip->duration = isfinite(last) && last > 0 ? last : -1.0;
    if (!gltf_format && !(an->ticks_per_second > 0))
      rk__raw_note(raw, "clip '%s' has no tick rate: read at %g ticks per second", name,
                   1.0 / an->tick_seconds);
    if (strcmp(format, "fbx") == 0 && an->ticks_per_second > 0) {
      clip->fps = an->ticks_per_second;
    } else {
      bool regular = false;
      clip->fps = rk__fps_from_times((const double *)(void *)all_times->data, all_times->len,
                                     &regular);
      if (clip->fps > 0 && !regular)
        rk__raw_note(raw, "clip '%s': frame rate %g fps from the key spacing, but not every key "
                          "lies on its frame grid", name, clip->fps);
    }
    g_array_unref(all_times);
  }
}
