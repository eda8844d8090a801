/* Joint names of real rigs: normalised and matched against the synonyms of the common rig
 * conventions (CMU BVH, MakeHuman, Mixamo, Blender/Rigify, Unreal and generic ones). */
#include "humanoid_internal.h"

#include <string.h>

static const struct {
  const char *base;
  rk__name_class cls;
} synonyms[] = {
    {"root", NC_ROOT},          {"reference", NC_ROOT},       {"armature", NC_ROOT},
    {"hips", NC_HIPS},          {"pelvis", NC_HIPS},          {"hip", NC_HIP_SIDED},
    {"spine", NC_SPINE},        {"chest", NC_SPINE},          {"upperchest", NC_SPINE},
    {"torso", NC_SPINE},        {"abdomen", NC_SPINE},        {"abdomenlower", NC_SPINE},
    {"abdomenupper", NC_SPINE}, {"back", NC_SPINE},           {"lowerback", NC_SPINE},
    {"upperback", NC_SPINE},    {"waist", NC_SPINE},          {"thorax", NC_SPINE},
    {"neck", NC_NECK},          {"head", NC_HEAD},            {"clavicle", NC_CLAVICLE},
    {"collar", NC_CLAVICLE},    {"collarbone", NC_CLAVICLE},  {"clav", NC_CLAVICLE},
    {"shoulder", NC_SHOULDER},  {"shldr", NC_SHOULDER},       {"arm", NC_UPPER_ARM},        {"uparm", NC_UPPER_ARM},
    {"upperarm", NC_UPPER_ARM}, {"humerus", NC_UPPER_ARM},    {"forearm", NC_FOREARM},
    {"loarm", NC_FOREARM},      {"lowerarm", NC_FOREARM},     {"elbow", NC_FOREARM},
    {"radius", NC_FOREARM},     {"hand", NC_HAND},            {"wrist", NC_HAND},
    {"upleg", NC_UPPER_LEG},    {"upperleg", NC_UPPER_LEG},   {"thigh", NC_UPPER_LEG},
    {"femur", NC_UPPER_LEG},    {"leg", NC_LOWER_LEG},        {"loleg", NC_LOWER_LEG},
    {"lowerleg", NC_LOWER_LEG}, {"shin", NC_LOWER_LEG},       {"calf", NC_LOWER_LEG},
    {"knee", NC_LOWER_LEG},     {"tibia", NC_LOWER_LEG},      {"foot", NC_FOOT},
    {"ankle", NC_FOOT},         {"toe", NC_TOES},             {"toes", NC_TOES},
    {"toebase", NC_TOES},       {"ball", NC_TOES},
};

/* Tokens that carry no meaning in rig names (prefixes and kinds). */
static const char *const noise_tokens[] = {"mixamorig", "bip", "bip01", "bip001", "def", "org",
                                           "mch", "jnt", "joint", "bone", "bn", "b", "j", "cc",
                                           "base", "rig", "sk", "skel", "ik", "fk", "ctrl"};

static bool is_noise(const char *t) {
  for (size_t i = 0; i < G_N_ELEMENTS(noise_tokens); i++)
    if (strcmp(t, noise_tokens[i]) == 0)
      return true;
  return false;
}

static rk__name_class lookup_base(const char *base) {
  if (!*base)
    return NC_NONE;
  for (size_t i = 0; i < G_N_ELEMENTS(synonyms); i++)
    if (strcmp(base, synonyms[i].base) == 0)
      return synonyms[i].cls;
  /* Numbered spine and neck joints (spine1, spine_02, neck1) keep their class; numbered limb
   * joints do not (leg_joint_1 says nothing about which leg bone it is). */
  size_t n = strlen(base);
  while (n > 0 && g_ascii_isdigit(base[n - 1]))
    n--;
  if (n < strlen(base)) {
    if ((n == 5 && strncmp(base, "spine", 5) == 0) || (n == 4 && strncmp(base, "neck", 4) == 0) ||
        (n == 5 && strncmp(base, "chest", 5) == 0))
      return strncmp(base, "neck", 4) == 0 ? NC_NECK : NC_SPINE;
    if ((n == 3 && strncmp(base, "toe", 3) == 0) || (n == 4 && strncmp(base, "toes", 4) == 0))
      return NC_TOES;
  }
  return NC_NONE;
}

/* Splits a name into lower-case tokens at separators and camelCase boundaries. */
static GPtrArray *tokenize(const char *name) {
  GPtrArray *tokens = g_ptr_array_new_with_free_func(g_free);
  /* Drop namespaces and DAG paths: "mixamorig:Hips", "|root|hips". */
  const char *s = name;
  for (const char *p = name; *p; p++)
    if (*p == ':' || *p == '|')
      s = p + 1;
  GString *cur = g_string_new(NULL);
  for (const char *p = s; *p; p++) {
    char c = *p;
    bool sep = !g_ascii_isalnum(c);
    bool boundary = !sep && cur->len > 0 &&
                    ((g_ascii_isupper(c) && g_ascii_islower(p[-1])) ||
                     (g_ascii_isdigit(c) != g_ascii_isdigit(p[-1])));
    if ((sep || boundary) && cur->len > 0) {
      g_ptr_array_add(tokens, g_string_free(cur, FALSE));
      cur = g_string_new(NULL);
    }
    if (!sep)
      g_string_append_c(cur, g_ascii_tolower(c));
  }
  if (cur->len > 0)
    g_ptr_array_add(tokens, g_string_free(cur, FALSE));
  else
    g_string_free(cur, TRUE);
  return tokens;
}

static rk__side_kind side_of_token(const char *t) {
  if (!strcmp(t, "left") || !strcmp(t, "l") || !strcmp(t, "lt") || !strcmp(t, "lft"))
    return SIDE_LEFT;
  if (!strcmp(t, "right") || !strcmp(t, "r") || !strcmp(t, "rt") || !strcmp(t, "rgt"))
    return SIDE_RIGHT;
  return SIDE_NONE;
}

char *rk__humanoid_name_key(const char *name) {
  g_autoptr(GPtrArray) tokens = tokenize(name);
  rk__side_kind side = SIDE_NONE;
  GString *base = g_string_new(NULL);
  for (guint i = 0; i < tokens->len; i++) {
    const char *t = g_ptr_array_index(tokens, i);
    rk__side_kind sd = side_of_token(t);
    if (sd != SIDE_NONE && side == SIDE_NONE) {
      side = sd;
      continue;
    }
    if (is_noise(t))
      continue;
    if (side == SIDE_NONE && (t[0] == 'l' || t[0] == 'r') && lookup_base(t + 1) != NC_NONE &&
        lookup_base(t) == NC_NONE) {
      side = t[0] == 'l' ? SIDE_LEFT : SIDE_RIGHT;
      t++;
    }
    g_string_append(base, t);
  }
  g_string_prepend(base, side == SIDE_LEFT ? "L:" : side == SIDE_RIGHT ? "R:" : "-:");
  return g_string_free(base, FALSE);
}

rk__name_info rk__humanoid_classify_name(const char *name) {
  rk__name_info info = {NC_NONE, SIDE_NONE};
  /* A leading double underscore marks an internal helper (MakeHuman's __UpLeg_L, __Eye_L). */
  if (name[0] == '_' && name[1] == '_') {
    info.cls = NC_HELPER;
    return info;
  }
  g_autoptr(GPtrArray) tokens = tokenize(name);
  g_autoptr(GString) base = g_string_new(NULL);
  for (guint i = 0; i < tokens->len; i++) {
    const char *t = g_ptr_array_index(tokens, i);
    if (strstr(t, "twist") || strstr(t, "roll") || strstr(t, "helper") || !strcmp(t, "end") ||
        strstr(t, "correct") || strstr(t, "jiggle")) {
      info.cls = NC_HELPER;
      return info;
    }
    rk__side_kind sd = side_of_token(t);
    if (sd != SIDE_NONE && info.side == SIDE_NONE) {
      info.side = sd;
      continue;
    }
    if (is_noise(t))
      continue;
    /* "lhip", "rknee", "lshoulder": a one-letter side glued to a known base. */
    if (info.side == SIDE_NONE && (t[0] == 'l' || t[0] == 'r') && lookup_base(t + 1) != NC_NONE &&
        lookup_base(t) == NC_NONE) {
      info.side = t[0] == 'l' ? SIDE_LEFT : SIDE_RIGHT;
      t++;
    }
    g_string_append(base, t);
  }
  info.cls = lookup_base(base->str);
  /* "Root" is the canonical root only without a side. */
  if (info.cls == NC_HIP_SIDED && info.side == SIDE_NONE)
    info.cls = NC_HIPS;
  return info;
}
