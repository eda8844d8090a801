/* The HIERARCHY section of a BVH file (bvh_hierarchy.h): ROOT, JOINT and End Site blocks with
 * their OFFSET and CHANNELS lines. Any channel order per joint; position channels on any joint. */
#include "bvh_hierarchy.h"

#include <string.h>

static bool parse_channel_name(const char *tok, size_t len, rk__bvh_channel *out) {
  static const char *const names[] = {"Xposition", "Yposition", "Zposition",
                                      "Xrotation", "Yrotation", "Zrotation"};
  for (int i = 0; i < 6; i++)
    if (rk__bvh_token_is(tok, len, names[i])) {
      *out = (rk__bvh_channel)i;
      return true;
    }
  return false;
}

static bool parse_offset(rk__bvh_file *b, rk__bvh_joint *j, GError **error) {
  for (int k = 0; k < 3; k++) {
    const char *tok;
    size_t len;
    if (!rk__bvh_next_token(&b->lx, &tok, &len) || !rk__bvh_parse_double(tok, len, &j->offset[k]))
      return rk__bvh_fail(b, error, RK_ERROR_PARSE, "OFFSET of '%s' needs three numbers", j->name);
    if (!isfinite(j->offset[k]))
      return rk__bvh_fail(b, error, RK_ERROR_INVALID, "OFFSET of '%s' is not finite", j->name);
  }
  j->has_offset = true;
  return true;
}

static bool parse_channels(rk__bvh_file *b, rk__bvh_joint *j, GError **error) {
  const char *tok;
  size_t len;
  double n;
  if (!rk__bvh_next_token(&b->lx, &tok, &len) || !rk__bvh_parse_double(tok, len, &n) ||
      n != floor(n) || n < 0)
    return rk__bvh_fail(b, error, RK_ERROR_PARSE, "CHANNELS of '%s' needs a channel count",
                        j->name);
  if (n > RK__BVH_MAX_CHANNELS)
    return rk__bvh_fail(b, error, RK_ERROR_PARSE, "'%s' declares %.0f channels (at most 6)",
                        j->name, n);
  if (j->n_channels > 0)
    return rk__bvh_fail(b, error, RK_ERROR_PARSE, "'%s' has two CHANNELS lines", j->name);
  unsigned seen = 0;
  for (int k = 0; k < (int)n; k++) {
    rk__bvh_channel ch;
    if (!rk__bvh_next_token(&b->lx, &tok, &len) || !parse_channel_name(tok, len, &ch))
      return rk__bvh_fail(b, error, RK_ERROR_PARSE,
                          "'%s': channel %d is not one of X/Y/Z position/rotation", j->name, k + 1);
    if (seen & (1u << ch))
      return rk__bvh_fail(b, error, RK_ERROR_PARSE, "'%s' lists a channel twice", j->name);
    seen |= 1u << ch;
    j->channels[k] = ch;
  }
  j->n_channels = (int)n;
  j->first_channel = b->columns;
  b->columns += (size_t)n;
  return true;
}

/* The innermost open joint, or -1. */
static int open_joint(const GArray *stack) {
  return stack->len ? g_array_index(stack, int, stack->len - 1) : -1;
}

/* ROOT, JOINT or End Site (the keyword in tok) opens a joint below the innermost open one. */
static bool begin_joint(rk__bvh_file *b, const GArray *stack, const char *tok, size_t len,
                        GError **error) {
  const bool root = rk__bvh_token_is(tok, len, "ROOT"), joint = rk__bvh_token_is(tok, len, "JOINT");
  if (root && stack->len > 0)
    return rk__bvh_fail(b, error, RK_ERROR_PARSE, "ROOT inside another joint");
  if (!root && stack->len == 0)
    return rk__bvh_fail(b, error, RK_ERROR_PARSE, "%.*s outside a ROOT", (int)len, tok);
  if (b->joints->len >= RK_SKELETON_MAX_JOINTS)
    return rk__bvh_fail(b, error, RK_ERROR_LIMIT, "more than %d joints", RK_SKELETON_MAX_JOINTS);
  const int parent = open_joint(stack);
  if (parent >= 0 && rk__bvh_joint_at(b, (size_t)parent)->end_site)
    return rk__bvh_fail(b, error, RK_ERROR_PARSE, "an End Site cannot have children");
  rk__bvh_joint j = {0};
  j.parent = parent;
  j.line = b->lx.line;
  char *name = rk__bvh_rest_of_line(&b->lx);
  if (!root && !joint) {
    /* "End Site": named after its parent. */
    if (g_ascii_strcasecmp(name, "Site") != 0) {
      g_free(name);
      return rk__bvh_fail(b, error, RK_ERROR_PARSE, "expected 'End Site'");
    }
    g_free(name);
    j.end_site = true;
    name = g_strdup_printf("%s_End", rk__bvh_joint_at(b, (size_t)parent)->name);
  } else if (*name == '\0') {
    g_free(name);
    return rk__bvh_fail(b, error, RK_ERROR_PARSE, "%s without a name", root ? "ROOT" : "JOINT");
  } else if (strlen(name) > RK_SKELETON_MAX_NAME) {
    rk__bvh_fail(b, error, RK_ERROR_LIMIT, "a %zu-byte joint name (limit %d)", strlen(name),
         RK_SKELETON_MAX_NAME);
    g_free(name);
    return false;
  }
  j.name = name;
  g_array_append_val(b->joints, j);
  return true;
}

/* '}' closes the innermost open joint, which must have had its OFFSET. */
static bool end_joint(rk__bvh_file *b, GArray *stack, GError **error) {
  if (stack->len == 0)
    return rk__bvh_fail(b, error, RK_ERROR_PARSE, "unbalanced '}'");
  const rk__bvh_joint *top = rk__bvh_joint_at(b, (size_t)open_joint(stack));
  if (!top->has_offset)
    return rk__bvh_fail(b, error, RK_ERROR_PARSE, "'%s' has no OFFSET", top->name);
  g_array_set_size(stack, stack->len - 1);
  return true;
}

/* OFFSET or CHANNELS (the keyword in tok) of the innermost open joint. */
static bool joint_line(rk__bvh_file *b, const GArray *stack, const char *tok, size_t len,
                       GError **error) {
  if (stack->len == 0)
    return rk__bvh_fail(b, error, RK_ERROR_PARSE, "%.*s outside a joint", (int)len, tok);
  rk__bvh_joint *j = rk__bvh_joint_at(b, (size_t)open_joint(stack));
  if (rk__bvh_token_is(tok, len, "OFFSET")) {
    if (j->has_offset)
      return rk__bvh_fail(b, error, RK_ERROR_PARSE, "'%s' has two OFFSETs", j->name);
    return parse_offset(b, j, error);
  }
  if (j->end_site)
    return rk__bvh_fail(b, error, RK_ERROR_PARSE, "an End Site cannot have channels");
  return parse_channels(b, j, error);
}

/* MOTION ends the hierarchy: every joint closed, at least one joint. */
static bool end_hierarchy(rk__bvh_file *b, const GArray *stack, GError **error) {
  if (stack->len > 0)
    return rk__bvh_fail(b, error, RK_ERROR_PARSE,
                        "MOTION before the hierarchy is closed ('%s' is open)",
                        rk__bvh_joint_at(b, (size_t)open_joint(stack))->name);
  if (b->joints->len == 0)
    return rk__bvh_fail(b, error, RK_ERROR_PARSE, "no joints before MOTION");
  return true;
}

bool rk__bvh_parse_hierarchy(rk__bvh_file *b, GError **error) {
  const char *tok;
  size_t len;
  if (!rk__bvh_next_token(&b->lx, &tok, &len) || !rk__bvh_token_is(tok, len, "HIERARCHY"))
    return rk__bvh_fail(b, error, RK_ERROR_PARSE, "not a BVH file (no HIERARCHY)");
  g_autoptr(GArray) stack = g_array_new(FALSE, FALSE, sizeof(int)); /* open joints */
  int pending = -1; /* joint whose '{' is expected next */
  for (;;) {
    if (!rk__bvh_next_token(&b->lx, &tok, &len))
      return rk__bvh_fail(b, error, RK_ERROR_PARSE,
                          "file ends inside the hierarchy (no MOTION section)");
    if (pending >= 0) {
      if (!rk__bvh_token_is(tok, len, "{"))
        return rk__bvh_fail(b, error, RK_ERROR_PARSE, "expected '{' after '%s'",
                    rk__bvh_joint_at(b, (size_t)pending)->name);
      g_array_append_val(stack, pending);
      pending = -1;
    } else if (rk__bvh_token_is(tok, len, "ROOT") || rk__bvh_token_is(tok, len, "JOINT") ||
               rk__bvh_token_is(tok, len, "End")) {
      if (!begin_joint(b, stack, tok, len, error))
        return false;
      pending = (int)b->joints->len - 1;
    } else if (rk__bvh_token_is(tok, len, "}")) {
      if (!end_joint(b, stack, error))
        return false;
    } else if (rk__bvh_token_is(tok, len, "OFFSET") || rk__bvh_token_is(tok, len, "CHANNELS")) {
      if (!joint_line(b, stack, tok, len, error))
        return false;
    } else if (rk__bvh_token_is(tok, len, "MOTION")) {
      return end_hierarchy(b, stack, error);
    } else {
      return rk__bvh_fail(b, error, RK_ERROR_PARSE, "unexpected '%.*s' in the hierarchy",
                  (int)MIN(len, 40), tok);
    }
  }
}
