/* Retarget profiles (rigkit/profile.h): loading and checking the key file, its [settings] onto
 * rk_retarget_options and back to text, its [quality] onto the verdict's bounds, its [source] and
 * [target] groups onto humanoid maps. */
#include <rigkit/error.h>
#include <rigkit/profile.h>
#include <rigkit/skin.h>

#include "humanoid_internal.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

struct rk_profile {
  GKeyFile *kf;
  char *name;
};

/* ---- values ---------------------------------------------------------------------------------- */

/* True when every backslash of a raw GKeyFile value starts one of its escapes (\s \n \t \r \\). */
static bool escapes_valid(const char *raw) {
  for (const char *p = raw; *p; p++) {
    if (*p != '\\')
      continue;
    p++;
    if (!*p || !strchr("sntr\\", *p))
      return false;
  }
  return true;
}

/* The unescaped, stripped value of group/key (g_free), or NULL with the error naming the file,
 * group and key. Escapes are checked before GLib parses them: g_key_file_get_string sets its
 * error twice on some malformed escapes (a GLib warning, found by fuzz_keyfile). GKeyFile keeps
 * trailing blanks (hand-aligned files, CRLF read elsewhere): the value is stripped. */
static char *read_value(GKeyFile *kf, const char *name, const char *group, const char *key,
                        GError **error) {
  const char *why = NULL;
  char *value = NULL;
  g_autofree char *raw = g_key_file_get_value(kf, group, key, NULL);
  if (!raw || !g_utf8_validate(raw, -1, NULL))
    why = "the value is not UTF-8 text";
  else if (!escapes_valid(raw))
    why = "the value has an invalid escape sequence";
  else if (!(value = g_key_file_get_string(kf, group, key, NULL)))
    why = "the value is not UTF-8 text";
  if (why) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "%s: [%s] %s: %s", name, group, key, why);
    return NULL;
  }
  return g_strstrip(value);
}

/* The keys of a group, each checked to be UTF-8 text (GLib does not check key names); NULL with
 * the error otherwise. A missing group has no keys. */
static GStrv group_keys(GKeyFile *kf, const char *name, const char *group, GError **error) {
  GStrv keys = g_key_file_get_keys(kf, group, NULL, NULL);
  for (size_t i = 0; keys && keys[i]; i++)
    if (!g_utf8_validate(keys[i], -1, NULL)) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "%s: [%s] a key is not UTF-8 text", name,
                  group);
      g_strfreev(keys);
      return NULL;
    }
  return keys ? keys : g_new0(char *, 1);
}

/* ---- [settings] ------------------------------------------------------------------------------ */

typedef enum setting_kind {
  SETTING_BOOL,
  SETTING_INT,
  SETTING_DOUBLE,
  SETTING_GROUND, /* rk_retarget_ground */
  SETTING_SOLES,  /* rk_retarget_soles */
} setting_kind;

/* The words of the two word settings, in their enums' order. */
static const char *const ground_words[] = {"auto", "keep"};
static const char *const soles_words[] = {"auto", "bones"};

/* The settings, in the order of messages and of the canonical text. */
static const struct setting {
  const char *key;
  setting_kind kind;
  size_t offset; /* in rk_retarget_options */
  double lo, hi; /* accepted range of numbers */
} settings[] = {
    {"fps", SETTING_DOUBLE, offsetof(rk_retarget_options, fps), 0, 10000},
    {"foot_ik", SETTING_BOOL, offsetof(rk_retarget_options, foot_ik), 0, 1},
    {"hand_ik", SETTING_BOOL, offsetof(rk_retarget_options, hand_ik), 0, 1},
    {"root_motion", SETTING_BOOL, offsetof(rk_retarget_options, root_motion), 0, 1},
    {"contact_height", SETTING_DOUBLE, offsetof(rk_retarget_options, contact_height), 0, 1},
    {"contact_speed", SETTING_DOUBLE, offsetof(rk_retarget_options, contact_speed), 0, 100},
    {"contact_min_time", SETTING_DOUBLE, offsetof(rk_retarget_options, contact_min_time), 0, 60},
    {"blend_time", SETTING_DOUBLE, offsetof(rk_retarget_options, blend_time), 0, 60},
    {"ik_iterations", SETTING_INT, offsetof(rk_retarget_options, ik_iterations), 1, 10000},
    {"ground", SETTING_GROUND, offsetof(rk_retarget_options, ground), 0, 1},
    {"soles", SETTING_SOLES, offsetof(rk_retarget_options, soles), 0, 1},
};

/* Index of the setting named key, -1 when there is none. */
static int find_setting(const char *key) {
  for (size_t i = 0; i < G_N_ELEMENTS(settings); i++)
    if (!strcmp(settings[i].key, key))
      return (int)i;
  return -1;
}

static const char *setting_name(int i) {
  return (size_t)i < G_N_ELEMENTS(settings) ? settings[i].key : NULL;
}

/* Parses text as setting st into opts; NULL on success, else why it is refused (g_free). */
static char *parse_setting(const struct setting *st, const char *text, rk_retarget_options *opts) {
  char *slot = (char *)opts + st->offset;
  char *end = NULL;
  if (st->kind == SETTING_BOOL) {
    const bool yes = !strcmp(text, "true") || !strcmp(text, "1");
    if (!yes && strcmp(text, "false") && strcmp(text, "0"))
      return g_strdup("not a boolean (true or false)");
    *(bool *)(void *)slot = yes;
  } else if (st->kind == SETTING_GROUND || st->kind == SETTING_SOLES) {
    const char *const *words = st->kind == SETTING_GROUND ? ground_words : soles_words;
    size_t w = 0;
    while (w < 2 && strcmp(text, words[w]))
      w++;
    if (w == 2)
      return g_strdup_printf("must be %s or %s", words[0], words[1]);
    *(int *)(void *)slot = (int)w;
  } else if (st->kind == SETTING_INT) {
    const gint64 v = g_ascii_strtoll(text, &end, 10);
    if (end == text || *end)
      return g_strdup("not a whole number");
    if (v < (gint64)st->lo || v > (gint64)st->hi)
      return g_strdup_printf("must be %d..%d", (int)st->lo, (int)st->hi);
    *(int *)(void *)slot = (int)v;
  } else {
    const double v = g_ascii_strtod(text, &end);
    if (end == text || *end)
      return g_strdup("not a number");
    if (!(v >= st->lo && v <= st->hi))
      return g_strdup_printf("must be within [%g, %g]", st->lo, st->hi);
    *(double *)(void *)slot = v;
  }
  return NULL;
}

/* A group whose every key names one entry of a table (a setting, a quality code). */
typedef struct keyed_group {
  const char *group, *what;           /* "settings", "key" (for messages) */
  int (*find)(const char *key);       /* the entry's index, -1 when unknown */
  const char *(*name)(int index);     /* the entry's key, NULL past the last */
  char *(*parse)(int index, const char *text, void *into); /* NULL, or why text is refused */
} keyed_group;

/* Reads group g of kf (named `name`) into `into`; false with the first error. */
static bool read_keyed(GKeyFile *kf, const char *name, const keyed_group *g, void *into,
                       GError **error) {
  g_auto(GStrv) keys = group_keys(kf, name, g->group, error);
  if (!keys)
    return false;
  for (size_t i = 0; keys[i]; i++) {
    const int k = g->find(keys[i]);
    if (k < 0) {
      GString *known = g_string_new(NULL);
      for (int n = 0; g->name(n); n++)
        g_string_append_printf(known, "%s%s", n ? ", " : "", g->name(n));
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "%s: [%s] %s: unknown %s (%ss: %s)", name,
                  g->group, keys[i], g->what, g->what, known->str);
      g_string_free(known, TRUE);
      return false;
    }
    g_autofree char *text = read_value(kf, name, g->group, keys[i], error);
    if (!text)
      return false;
    g_autofree char *why = g->parse(k, text, into);
    if (why) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "%s: [%s] %s = %s: %s", name, g->group,
                  keys[i], text, why);
      return false;
    }
  }
  return true;
}

static char *parse_setting_at(int i, const char *text, void *opts) {
  return parse_setting(&settings[i], text, opts);
}

/* Reads the [settings] group of kf (named `name`) into opts; false with the first error. */
static bool read_settings(GKeyFile *kf, const char *name, rk_retarget_options *opts,
                          GError **error) {
  static const keyed_group g = {"settings", "key", find_setting, setting_name, parse_setting_at};
  return read_keyed(kf, name, &g, opts, error);
}

char *rk_profile_settings_text(const rk_retarget_options *opts) {
  GString *s = g_string_new("[settings]\n");
  for (size_t i = 0; i < G_N_ELEMENTS(settings); i++) {
    const void *slot = (const char *)opts + settings[i].offset;
    g_string_append_printf(s, "%s=", settings[i].key);
    if (settings[i].kind == SETTING_BOOL) {
      g_string_append(s, *(const bool *)slot ? "true" : "false");
    } else if (settings[i].kind == SETTING_GROUND || settings[i].kind == SETTING_SOLES) {
      const char *const *words = settings[i].kind == SETTING_GROUND ? ground_words : soles_words;
      g_string_append(s, words[*(const int *)slot != 0]);
    } else if (settings[i].kind == SETTING_INT) {
      g_string_append_printf(s, "%d", *(const int *)slot);
    } else {
      /* The shortest of 15-17 significant digits that reads back to the same double. */
      static const char *const formats[] = {"%.15g", "%.16g", "%.17g"};
      const double v = *(const double *)slot;
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      for (size_t f = 0; f < G_N_ELEMENTS(formats); f++)
        if (g_ascii_strtod(g_ascii_formatd(buf, sizeof buf, formats[f], v), NULL) == v)
          break;
      g_string_append(s, buf);
    }
    g_string_append_c(s, '\n');
  }
  return g_string_free(s, FALSE);
}

bool rk_retarget_options_from_keyfile(rk_retarget_options *opts, GKeyFile *kf,
                                      const char *kf_name, GError **error) {
  return read_settings(kf, kf_name, opts, error);
}

/* ---- [quality] ------------------------------------------------------------------------------- */

/* Parses a [quality] value, "CHECK" or "CHECK FAILED" (FAILED a number or "none": never), into
 * code c of the rk_quality_bounds `into`; NULL on success, else why it is refused (g_free). */
static char *parse_bounds(int c, const char *text, void *into) {
  rk_quality_bounds *b = into;
  g_auto(GStrv) words = g_strsplit_set(text, " \t,", -1);
  double v[2] = {b->check[c], b->failed[c]};
  size_t n = 0;
  for (size_t i = 0; words[i]; i++) {
    if (!*words[i])
      continue;
    if (n == 2)
      return g_strdup("more than two numbers (CHECK FAILED)");
    char *end = NULL;
    if (n == 1 && !strcmp(words[i], "none")) {
      v[n++] = INFINITY;
      continue;
    }
    v[n] = g_ascii_strtod(words[i], &end);
    if (end == words[i] || *end || !isfinite(v[n]) || v[n] < 0)
      return g_strdup_printf("'%s' is not a non-negative number", words[i]);
    n++;
  }
  if (n == 0)
    return g_strdup("no bound (CHECK, or CHECK FAILED)");
  if (v[1] < v[0])
    return g_strdup_printf("the failed bound %g is below the check bound %g", v[1], v[0]);
  b->check[c] = v[0];
  b->failed[c] = v[1];
  return NULL;
}

static const char *quality_name(int c) {
  return rk_quality_code_name((rk_quality_code)c);
}

/* Reads the [quality] group of kf (named `name`) into b; false with the first error. */
static bool read_quality(GKeyFile *kf, const char *name, rk_quality_bounds *b, GError **error) {
  static const keyed_group g = {"quality", "code", rk_quality_code_parse, quality_name,
                                parse_bounds};
  return read_keyed(kf, name, &g, b, error);
}

/* ---- [source] and [target] ------------------------------------------------------------------- */

/* Reads the bone=joint lines of `group`; with a skeleton, applies them to map (a joint the
 * skeleton lacks is an error), without one only checks them. */
/* The limb chains a map may name instead of their bones. */
static const struct {
  const char *key;
  rk_bone first; /* upper leg, or clavicle */
  bool leg;
} limb_chains[] = {
    {"left_leg", RK_BONE_LEFT_UPPER_LEG, true},
    {"right_leg", RK_BONE_RIGHT_UPPER_LEG, true},
    {"left_arm", RK_BONE_LEFT_SHOULDER, false},
    {"right_arm", RK_BONE_RIGHT_SHOULDER, false},
};

/* One chain key (`left_leg = UpperLeg.L LowerLeg.L`): its joints from the body outwards, each
 * below the one before; a leg is upper leg [, lower leg [, foot [, toes]]] (one bone: the
 * upper leg, the foot in its mesh), an arm upper arm
 * [, forearm [, hand]] or clavicle, upper arm, forearm, hand; an empty chain unmaps the limb.
 * Without a rig (s NULL) only the count is checked. */
static bool read_chain(GKeyFile *kf, const char *name, const char *group, size_t c,
                       const rk_skeleton *s, rk_humanoid_map *map, GError **error) {
  const char *key = limb_chains[c].key;
  const bool leg = limb_chains[c].leg;
  g_autofree char *value = read_value(kf, name, group, key, error);
  if (!value)
    return false;
  g_auto(GStrv) parts = g_strsplit_set(value, " \t,", -1);
  const char *joints[4];
  size_t n = 0;
  for (size_t i = 0; parts[i] && n <= 4; i++)
    if (*parts[i]) {
      if (n < 4)
        joints[n] = parts[i];
      n++;
    }
  if (n > 4) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "%s: [%s] %s: more than 4 joints (a %s)", name,
                group, key,
                leg ? "leg is 1 to 4: upper leg[, lower leg[, foot[, toes]]]"
                    : "arm is 1 to 4: [clavicle,] upper arm[, forearm[, hand]]");
    return false;
  }
  if (!s)
    return true;
  const rk_bone first = limb_chains[c].first + (!leg && n < 4 ? 1 : 0);
  for (int k = 0; k < 4; k++) {
    map->joint[limb_chains[c].first + k] = -1;
    map->source[limb_chains[c].first + k] = RK_BONE_UNMAPPED;
  }
  for (size_t k = 0; k < n; k++) {
    const int j = rk_skeleton_find_joint(s, joints[k]);
    if (j < 0) {
      g_set_error(error, RK_ERROR, RK_ERROR_NOT_FOUND, "%s: [%s] %s: no joint '%s' in the rig",
                  name, group, key, joints[k]);
      return false;
    }
    if (k > 0 && !rk_skeleton_is_ancestor(s, (size_t)map->joint[first + k - 1], (size_t)j)) {
      g_set_error(error, RK_ERROR, RK_ERROR_MAPPING,
                  "%s: [%s] %s: '%s' is not below '%s' in the hierarchy (a chain lists its joints "
                  "from the body outwards)",
                  name, group, key, joints[k], joints[k - 1]);
      return false;
    }
    map->joint[first + k] = j;
    map->source[first + k] = RK_BONE_BY_MAP_FILE;
  }
  return true;
}

static bool read_bones(GKeyFile *kf, const char *name, const char *group, const rk_skeleton *s,
                       rk_humanoid_map *map, GError **error) {
  g_auto(GStrv) keys = group_keys(kf, name, group, error);
  if (!keys)
    return false;
  for (size_t i = 0; keys[i]; i++) {
    size_t c = 0;
    while (c < G_N_ELEMENTS(limb_chains) && strcmp(keys[i], limb_chains[c].key))
      c++;
    if (c < G_N_ELEMENTS(limb_chains)) {
      if (!read_chain(kf, name, group, c, s, map, error))
        return false;
      continue;
    }
    rk_bone b;
    if (!rk_bone_parse(keys[i], &b)) {
      GString *known = g_string_new(NULL);
      for (int k = 0; k < RK_BONE_COUNT; k++)
        g_string_append_printf(known, "%s%s", k ? ", " : "", rk_bone_name((rk_bone)k));
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                  "%s: [%s] %s: unknown bone (bones: %s; chains: left_leg, right_leg, left_arm, "
                  "right_arm)",
                  name, group, keys[i], known->str);
      g_string_free(known, TRUE);
      return false;
    }
    g_autofree char *value = read_value(kf, name, group, keys[i], error);
    if (!value)
      return false;
    if (!s)
      continue;
    const int j = *value ? rk_skeleton_find_joint(s, value) : -1;
    if (*value && j < 0) {
      g_set_error(error, RK_ERROR, RK_ERROR_NOT_FOUND, "%s: [%s] %s = %s: no joint '%s' in the rig",
                  name, group, keys[i], value, value);
      return false;
    }
    map->joint[b] = j;
    map->source[b] = j < 0 ? RK_BONE_UNMAPPED : RK_BONE_BY_MAP_FILE;
  }
  return true;
}

bool rk_humanoid_map_apply_keyfile(rk_humanoid_map *map, const rk_skeleton *s, GKeyFile *kf,
                                   const char *group, const char *kf_name, GError **error) {
  return read_bones(kf, kf_name, group, s, map, error);
}

/* ---- profiles -------------------------------------------------------------------------------- */

/* Takes a loaded key file: checks every group, then wraps it (frees it on failure). */
static rk_profile *profile_new(GKeyFile *kf, const char *name, GError **error) {
  g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
  bool ok = true;
  for (size_t i = 0; ok && groups[i]; i++) {
    if (!strcmp(groups[i], "settings")) {
      rk_retarget_options scratch = RK_RETARGET_OPTIONS_INIT;
      ok = read_settings(kf, name, &scratch, error);
    } else if (!strcmp(groups[i], "quality")) {
      rk_quality_bounds scratch;
      rk_quality_bounds_init(&scratch);
      ok = read_quality(kf, name, &scratch, error);
    } else if (!strcmp(groups[i], "source") || !strcmp(groups[i], "target")) {
      ok = read_bones(kf, name, groups[i], NULL, NULL, error);
    } else {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                  "%s: unknown group [%s] (groups: [source], [target], [settings], [quality])", name,
                  groups[i]);
      ok = false;
    }
  }
  if (!ok) {
    g_key_file_free(kf);
    return NULL;
  }
  rk_profile *p = g_new0(rk_profile, 1);
  p->kf = kf;
  p->name = g_strdup(name);
  return p;
}

/* A GLib load error as an RK_ERROR naming the profile. */
static void load_failed(GError *e, const char *name, GError **error) {
  g_set_error(error, RK_ERROR, e->domain == G_FILE_ERROR ? RK_ERROR_IO : RK_ERROR_PARSE, "%s: %s",
              name, e->message);
  g_error_free(e);
}

rk_profile *rk_profile_load_file(const char *path, GError **error) {
  g_return_val_if_fail(path, NULL);
  GKeyFile *kf = g_key_file_new();
  GError *e = NULL;
  if (!g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, &e)) {
    load_failed(e, path, error);
    g_key_file_free(kf);
    return NULL;
  }
  return profile_new(kf, path, error);
}

rk_profile *rk_profile_load_text(const char *text, const char *name, GError **error) {
  g_return_val_if_fail(text, NULL);
  if (!name)
    name = "profile text";
  GKeyFile *kf = g_key_file_new();
  GError *e = NULL;
  if (!g_key_file_load_from_data(kf, text, (gsize)-1, G_KEY_FILE_NONE, &e)) {
    load_failed(e, name, error);
    g_key_file_free(kf);
    return NULL;
  }
  return profile_new(kf, name, error);
}

void rk_profile_free(rk_profile *p) {
  if (!p)
    return;
  g_key_file_free(p->kf);
  g_free(p->name);
  g_free(p);
}

const char *rk_profile_name(const rk_profile *p) {
  return p->name;
}

void rk_profile_apply_settings(const rk_profile *p, rk_retarget_options *opts) {
  if (p)
    read_settings(p->kf, p->name, opts, NULL);
}

void rk_profile_apply_quality(const rk_profile *p, rk_quality_bounds *bounds) {
  if (p)
    read_quality(p->kf, p->name, bounds, NULL);
}

/* rk_profile_map_rig with the automatic mapping's options. */
static bool map_rig(const rk_profile *p, const rk_skeleton *s, const rk_humanoid_options *opts,
                    rk_profile_side side, rk_humanoid_map *out, GError **error) {
  const char *group = side == RK_PROFILE_TARGET ? "target" : "source";
  const bool has_group = p && g_key_file_has_group(p->kf, group);
  g_autoptr(GError) automatic = NULL;
  if (!rk_humanoid_map_build(s, opts, out, &automatic)) {
    if (!has_group) {
      g_propagate_error(error, g_steal_pointer(&automatic));
      if (p)
        g_prefix_error(error, "(%s has no [%s] group to map it) ", p->name, group);
      return false;
    }
    rk_humanoid_map_clear(out);
  }
  if (!has_group)
    return true;
  if (!read_bones(p->kf, p->name, group, s, out, error))
    return false;
  /* A leg the group leaves without a foot ends where its skin does. */
  rk__humanoid_skin_leg_ends(out, s, opts ? opts->skin : NULL);
  if (!rk_humanoid_map_finish(out, s, error)) {
    if (automatic)
      g_prefix_error(error, "automatic mapping failed (%s) and %s [%s] does not complete it: ",
                     automatic->message, p->name, group);
    else
      g_prefix_error(error, "%s [%s]: ", p->name, group);
    return false;
  }
  return true;
}

bool rk_profile_map_rig(const rk_profile *p, const rk_skeleton *s, rk_profile_side side,
                        rk_humanoid_map *out, GError **error) {
  return map_rig(p, s, NULL, side, out, error);
}

/* The skin of an asset's meshes (NULL without meshes, or when it cannot be built: error set). */
static rk_skin_support *asset_skin(const rk_asset *asset, GError **error) {
  return rk_asset_mesh_count(asset) > 0 ? rk_skin_support_from_asset(asset, error) : NULL;
}

bool rk_profile_map_asset(const rk_profile *p, const rk_asset *asset, rk_profile_side side,
                          rk_humanoid_map *out, GError **error) {
  rk_humanoid_options opts = RK_HUMANOID_OPTIONS_INIT;
  GError *e = NULL;
  rk_skin_support *skin = asset_skin(asset, &e);
  if (e) {
    g_propagate_error(error, e);
    return false;
  }
  opts.skin = skin;
  const bool ok = map_rig(p, rk_asset_skeleton(asset), &opts, side, out, error);
  rk_skin_support_free(skin);
  return ok;
}

char *rk_profile_map_guess(const rk_asset *asset, rk_profile_side side, const char *why) {
  rk_humanoid_options opts = RK_HUMANOID_OPTIONS_INIT;
  rk_skin_support *skin = asset_skin(asset, NULL);
  opts.skin = skin;
  char *text = rk_humanoid_map_guess(rk_asset_skeleton(asset), &opts,
                                     side == RK_PROFILE_TARGET ? "target" : "source", why);
  rk_skin_support_free(skin);
  return text;
}
