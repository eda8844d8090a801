/* rigkit's own BVH reader. Assimp 5.2.5's is not faithful enough: it keeps 1/FrameTime in a float,
 * replaces the root OFFSET by the position channels, drops data lines beyond the header's frame
 * count and fails on fewer. This reader:
 *  - accepts any channel order per joint (the listed order is the Euler order: "Zrotation
 *    Xrotation Yrotation" is R = Rz Rx Ry), position channels on any joint, CR/LF and tabs;
 *  - makes each End Site a leaf joint "<parent>_End" flagged RK_JOINT_END_SITE;
 *  - uses the frame lines that are there when the header's "Frames:" disagrees (and says so);
 *  - reads "Frame Time" as 1/N s when it is 1/N rounded to the printed digits (0.041667 -> 1/24);
 *  - decides per file whether root position channels add to the OFFSET or replace it: the reading
 *    that puts the lowest joints on the ground plane wins (override: rk_import_options);
 *  - detects the up axis (the axis along which spine and legs extend; the lateral axis is found by
 *    left/right symmetry) and the unit (the one that makes the skeleton 1.4-2.1 m tall), converts
 *    to metres, Y-up, and records both (overrides: rk_import_options). */
#include "bvh.h"
#include "conventions.h"

#include <stdarg.h>
#include <string.h>

#define BVH_MAX_CHANNELS 6

typedef enum bvh_channel {
  CH_XPOS,
  CH_YPOS,
  CH_ZPOS,
  CH_XROT,
  CH_YROT,
  CH_ZROT,
} bvh_channel;

typedef struct bvh_joint {
  char *name;
  int parent;
  unsigned line;
  bool end_site;
  bool has_offset;
  double offset[3];
  int n_channels;
  bvh_channel channels[BVH_MAX_CHANNELS];
  size_t first_channel; /* column of the first channel in a frame line */
} bvh_joint;

typedef struct lexer {
  const char *p, *end;
  unsigned line;
} lexer;

typedef struct bvh {
  const rk__source *src;
  lexer lx;
  GArray *joints; /* bvh_joint */
  size_t columns; /* channels per frame */
  gint64 declared_frames;
  double frame_time;
  int frame_time_decimals; /* digits after the point, -1 with an exponent */
  size_t frames;
  double *data; /* frames * columns, degrees and file units */
} bvh;

static void joint_clear(gpointer p) {
  g_free(((bvh_joint *)p)->name);
}

static bvh_joint *J(const bvh *b, size_t i) {
  return &g_array_index(b->joints, bvh_joint, i);
}

/* ---- lexer ------------------------------------------------------------------------------------ */

static bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/* Line ends: LF, CRLF, or a lone CR (classic Mac OS files). */
static bool is_line_end(const char *p, const char *end) {
  return *p == '\n' || (*p == '\r' && (p + 1 >= end || p[1] != '\n'));
}

static void skip_ws(lexer *lx) {
  while (lx->p < lx->end && is_space(*lx->p)) {
    if (is_line_end(lx->p, lx->end))
      lx->line++;
    lx->p++;
  }
}

/* The next line end at or after p (end when none). */
static const char *find_line_end(const char *p, const char *end) {
  while (p < end && *p != '\n' && *p != '\r')
    p++;
  return p;
}

/* Next token: "{" or "}" alone, else a run of non-space, non-brace bytes. */
static bool next_token(lexer *lx, const char **tok, size_t *len) {
  skip_ws(lx);
  if (lx->p >= lx->end)
    return false;
  *tok = lx->p;
  if (*lx->p == '{' || *lx->p == '}') {
    lx->p++;
    *len = 1;
    return true;
  }
  while (lx->p < lx->end && !is_space(*lx->p) && *lx->p != '{' && *lx->p != '}')
    lx->p++;
  *len = (size_t)(lx->p - *tok);
  return true;
}

static bool token_is(const char *tok, size_t len, const char *word) {
  return strlen(word) == len && g_ascii_strncasecmp(tok, word, len) == 0;
}

/* The rest of the line up to a '{' or the line end, trimmed (joint names may hold spaces). */
static char *rest_of_line(lexer *lx) {
  while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t'))
    lx->p++;
  const char *s = lx->p;
  while (lx->p < lx->end && *lx->p != '\n' && *lx->p != '\r' && *lx->p != '{')
    lx->p++;
  const char *e = lx->p;
  while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
    e--;
  return g_strndup(s, (gsize)(e - s));
}

/* Exact powers of ten (10^22 is the largest a double holds exactly). */
static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Parses a whole token as a double. Plain decimals with at most 15 significant digits (what BVH
 * exporters write) take Clinger's fast path: the integer mantissa and 10^k are exact doubles, so
 * one division is correctly rounded, the same result as strtod; anything else goes to
 * g_ascii_strtod. */
static bool parse_double_token(const char *tok, size_t len, double *out) {
  const char *p = tok, *end = tok + len;
  bool neg = false;
  if (p < end && (*p == '-' || *p == '+')) {
    neg = *p == '-';
    p++;
  }
  uint64_t m = 0;
  int digits = 0, decimals = 0;
  bool dot = false, any = false;
  for (; p < end; p++) {
    if (*p >= '0' && *p <= '9') {
      any = true;
      if (m == 0 && *p == '0') {
        if (dot)
          decimals++;
        continue; /* leading zeros are not significant */
      }
      if (++digits > 15)
        break;
      m = m * 10 + (uint64_t)(*p - '0');
      if (dot)
        decimals++;
    } else if (*p == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (p == end && any && decimals <= 22) {
    const double v = (double)m / pow10_exact[decimals];
    *out = neg ? -v : v;
    return true;
  }
  char buf[128];
  if (len == 0 || len >= sizeof buf)
    return false;
  memcpy(buf, tok, len);
  buf[len] = '\0';
  char *endp = NULL;
  *out = g_ascii_strtod(buf, &endp);
  return endp == buf + len;
}

/* ---- header ----------------------------------------------------------------------------------- */

static bool fail(bvh *b, GError **error, int code, const char *fmt, ...) G_GNUC_PRINTF(4, 5);
static bool fail(bvh *b, GError **error, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error(error, RK_ERROR, code, "line %u: %s", b->lx.line, msg);
  return false;
}

static bool parse_channel_name(const char *tok, size_t len, bvh_channel *out) {
  static const char *const names[] = {"Xposition", "Yposition", "Zposition",
                                      "Xrotation", "Yrotation", "Zrotation"};
  for (int i = 0; i < 6; i++)
    if (token_is(tok, len, names[i])) {
      *out = (bvh_channel)i;
      return true;
    }
  return false;
}

static bool parse_offset(bvh *b, bvh_joint *j, GError **error) {
  for (int k = 0; k < 3; k++) {
    const char *tok;
    size_t len;
    if (!next_token(&b->lx, &tok, &len) || !parse_double_token(tok, len, &j->offset[k]))
      return fail(b, error, RK_ERROR_PARSE, "OFFSET of '%s' needs three numbers", j->name);
    if (!isfinite(j->offset[k]))
      return fail(b, error, RK_ERROR_INVALID, "OFFSET of '%s' is not finite", j->name);
  }
  j->has_offset = true;
  return true;
}

static bool parse_channels(bvh *b, bvh_joint *j, GError **error) {
  const char *tok;
  size_t len;
  double n;
  if (!next_token(&b->lx, &tok, &len) || !parse_double_token(tok, len, &n) || n != floor(n) ||
      n < 0)
    return fail(b, error, RK_ERROR_PARSE, "CHANNELS of '%s' needs a channel count", j->name);
  if (n > BVH_MAX_CHANNELS)
    return fail(b, error, RK_ERROR_PARSE, "'%s' declares %.0f channels (at most 6)", j->name, n);
  if (j->n_channels > 0)
    return fail(b, error, RK_ERROR_PARSE, "'%s' has two CHANNELS lines", j->name);
  unsigned seen = 0;
  for (int k = 0; k < (int)n; k++) {
    bvh_channel ch;
    if (!next_token(&b->lx, &tok, &len) || !parse_channel_name(tok, len, &ch))
      return fail(b, error, RK_ERROR_PARSE, "'%s': channel %d is not one of X/Y/Z position/rotation",
                  j->name, k + 1);
    if (seen & (1u << ch))
      return fail(b, error, RK_ERROR_PARSE, "'%s' lists a channel twice", j->name);
    seen |= 1u << ch;
    j->channels[k] = ch;
  }
  j->n_channels = (int)n;
  j->first_channel = b->columns;
  b->columns += (size_t)n;
  return true;
}

static bool parse_hierarchy(bvh *b, GError **error) {
  const char *tok;
  size_t len;
  if (!next_token(&b->lx, &tok, &len) || !token_is(tok, len, "HIERARCHY"))
    return fail(b, error, RK_ERROR_PARSE, "not a BVH file (no HIERARCHY)");
  GArray *stack = g_array_new(FALSE, FALSE, sizeof(int)); /* open joints */
  bool ok = false;
  int pending = -1; /* joint whose '{' is expected next */
  for (;;) {
    if (!next_token(&b->lx, &tok, &len)) {
      fail(b, error, RK_ERROR_PARSE, "file ends inside the hierarchy (no MOTION section)");
      break;
    }
    if (pending >= 0) {
      if (!token_is(tok, len, "{")) {
        fail(b, error, RK_ERROR_PARSE, "expected '{' after '%s'", J(b, (size_t)pending)->name);
        break;
      }
      g_array_append_val(stack, pending);
      pending = -1;
      continue;
    }
    const bool root = token_is(tok, len, "ROOT"), joint = token_is(tok, len, "JOINT");
    if (root || joint || token_is(tok, len, "End")) {
      if (root && stack->len > 0) {
        fail(b, error, RK_ERROR_PARSE, "ROOT inside another joint");
        break;
      }
      if (!root && stack->len == 0) {
        fail(b, error, RK_ERROR_PARSE, "%.*s outside a ROOT", (int)len, tok);
        break;
      }
      if (b->joints->len >= RK_SKELETON_MAX_JOINTS) {
        fail(b, error, RK_ERROR_LIMIT, "more than %d joints", RK_SKELETON_MAX_JOINTS);
        break;
      }
      const int parent = stack->len ? g_array_index(stack, int, stack->len - 1) : -1;
      if (parent >= 0 && J(b, (size_t)parent)->end_site) {
        fail(b, error, RK_ERROR_PARSE, "an End Site cannot have children");
        break;
      }
      bvh_joint j = {0};
      j.parent = parent;
      j.line = b->lx.line;
      char *name = rest_of_line(&b->lx);
      if (!root && !joint) {
        /* "End Site": named after its parent. */
        if (g_ascii_strcasecmp(name, "Site") != 0) {
          g_free(name);
          fail(b, error, RK_ERROR_PARSE, "expected 'End Site'");
          break;
        }
        g_free(name);
        j.end_site = true;
        name = g_strdup_printf("%s_End", J(b, (size_t)parent)->name);
      } else if (*name == '\0') {
        g_free(name);
        fail(b, error, RK_ERROR_PARSE, "%s without a name", root ? "ROOT" : "JOINT");
        break;
      } else if (strlen(name) > RK_SKELETON_MAX_NAME) {
        fail(b, error, RK_ERROR_LIMIT, "a %zu-byte joint name (limit %d)", strlen(name),
             RK_SKELETON_MAX_NAME);
        g_free(name);
        break;
      }
      j.name = name;
      g_array_append_val(b->joints, j);
      pending = (int)b->joints->len - 1;
      continue;
    }
    if (token_is(tok, len, "}")) {
      if (stack->len == 0) {
        fail(b, error, RK_ERROR_PARSE, "unbalanced '}'");
        break;
      }
      const int top = g_array_index(stack, int, stack->len - 1);
      if (!J(b, (size_t)top)->has_offset) {
        fail(b, error, RK_ERROR_PARSE, "'%s' has no OFFSET", J(b, (size_t)top)->name);
        break;
      }
      g_array_set_size(stack, stack->len - 1);
      continue;
    }
    if (token_is(tok, len, "OFFSET") || token_is(tok, len, "CHANNELS")) {
      if (stack->len == 0) {
        fail(b, error, RK_ERROR_PARSE, "%.*s outside a joint", (int)len, tok);
        break;
      }
      bvh_joint *j = J(b, (size_t)g_array_index(stack, int, stack->len - 1));
      if (token_is(tok, len, "OFFSET")) {
        if (j->has_offset) {
          fail(b, error, RK_ERROR_PARSE, "'%s' has two OFFSETs", j->name);
          break;
        }
        if (!parse_offset(b, j, error))
          break;
      } else {
        if (j->end_site) {
          fail(b, error, RK_ERROR_PARSE, "an End Site cannot have channels");
          break;
        }
        if (!parse_channels(b, j, error))
          break;
      }
      continue;
    }
    if (token_is(tok, len, "MOTION")) {
      if (stack->len > 0) {
        fail(b, error, RK_ERROR_PARSE, "MOTION before the hierarchy is closed ('%s' is open)",
             J(b, (size_t)g_array_index(stack, int, stack->len - 1))->name);
        break;
      }
      if (b->joints->len == 0) {
        fail(b, error, RK_ERROR_PARSE, "no joints before MOTION");
        break;
      }
      ok = true;
      break;
    }
    fail(b, error, RK_ERROR_PARSE, "unexpected '%.*s' in the hierarchy", (int)MIN(len, 40), tok);
    break;
  }
  g_array_unref(stack);
  return ok;
}

/* ---- motion ----------------------------------------------------------------------------------- */

static bool parse_motion_header(bvh *b, GError **error) {
  const char *tok;
  size_t len;
  double v;
  if (!next_token(&b->lx, &tok, &len) || !token_is(tok, len, "Frames:"))
    return fail(b, error, RK_ERROR_PARSE, "expected 'Frames:' after MOTION");
  if (!next_token(&b->lx, &tok, &len) || !parse_double_token(tok, len, &v) || v != floor(v))
    return fail(b, error, RK_ERROR_PARSE, "'Frames:' needs a whole number");
  if (v < 0)
    return fail(b, error, RK_ERROR_PARSE, "negative frame count %.0f", v);
  if (v > RK_CLIP_MAX_KEYS)
    return fail(b, error, RK_ERROR_LIMIT, "%.0f frames declared (limit %u)", v, RK_CLIP_MAX_KEYS);
  b->declared_frames = (gint64)v;
  if (!next_token(&b->lx, &tok, &len) || !token_is(tok, len, "Frame") ||
      !next_token(&b->lx, &tok, &len) || !token_is(tok, len, "Time:"))
    return fail(b, error, RK_ERROR_PARSE, "expected 'Frame Time:'");
  if (!next_token(&b->lx, &tok, &len) || !parse_double_token(tok, len, &v))
    return fail(b, error, RK_ERROR_PARSE, "'Frame Time:' needs a number");
  if (!isfinite(v) || v <= 0)
    return fail(b, error, RK_ERROR_INVALID, "frame time %g s is not positive", v);
  if (v > 3600)
    return fail(b, error, RK_ERROR_LIMIT, "frame time %g s (limit 3600 s)", v);
  b->frame_time = v;
  const char *dot = memchr(tok, '.', len);
  b->frame_time_decimals = memchr(tok, 'e', len) || memchr(tok, 'E', len) ? -1
                           : dot ? (int)(len - (size_t)(dot - tok) - 1)
                                 : 0;
  /* The frame lines start on the next line. */
  b->lx.p = find_line_end(b->lx.p, b->lx.end);
  return true;
}

static bool parse_frames(bvh *b, rk__raw_asset *raw, GError **error) {
  const size_t cols = b->columns;
  /* Upper bound of frames from the bytes left (a value takes at least 2 bytes), for the limit
   * check before allocating. */
  GArray *data = g_array_new(FALSE, FALSE, sizeof(double));
  size_t frames = 0;
  const char *p = b->lx.p;
  unsigned line = b->lx.line;
  bool truncated_last = false;
  while (p < b->lx.end) {
    if (*p == '\r' || *p == '\n') {
      if (*p == '\r' && p + 1 < b->lx.end && p[1] == '\n')
        p++;
      p++;
      line++;
    }
    const char *eol = find_line_end(p, b->lx.end);
    const char *q = p;
    size_t n = 0;
    const size_t base = data->len;
    while (q < eol) {
      while (q < eol && is_space(*q))
        q++;
      if (q >= eol)
        break;
      const char *s = q;
      while (q < eol && !is_space(*q))
        q++;
      double v;
      if (!parse_double_token(s, (size_t)(q - s), &v)) {
        g_array_unref(data);
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "line %u (frame %zu): '%.*s' is not a number",
                    line, frames, (int)MIN((size_t)(q - s), 40), s);
        return false;
      }
      if (!isfinite(v)) {
        /* Name the joint and channel the value belongs to. */
        const char *jn = "?";
        for (guint k = 0; k < b->joints->len; k++)
          if (n >= J(b, k)->first_channel && n < J(b, k)->first_channel + (size_t)J(b, k)->n_channels)
            jn = J(b, k)->name;
        g_array_unref(data);
        g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                    "line %u (frame %zu): value %zu (joint '%s') is not finite", line, frames,
                    n + 1, jn);
        return false;
      }
      if (n < cols)
        g_array_append_val(data, v);
      n++;
    }
    if (n > 0) {
      if (n != cols) {
        const bool last = eol >= b->lx.end || (eol + 1 >= b->lx.end);
        bool only_ws_after = true;
        for (const char *r = eol; r < b->lx.end; r++)
          if (!is_space(*r))
            only_ws_after = false;
        if (n < cols && (last || only_ws_after)) {
          g_array_set_size(data, base);
          truncated_last = true;
          rk__raw_note(raw, "last frame line has %zu of %zu values (truncated file?): dropped", n,
                       cols);
          break;
        }
        g_array_unref(data);
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                    "line %u (frame %zu): %zu values, the hierarchy has %zu channels", line,
                    frames, n, cols);
        return false;
      }
      frames++;
      if (frames > RK_CLIP_MAX_KEYS) {
        g_array_unref(data);
        g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "more than %u frames", RK_CLIP_MAX_KEYS);
        return false;
      }
    } else if (cols == 0 && (gint64)frames < b->declared_frames) {
      frames++; /* no channels: every line is an (empty) frame */
    }
    p = eol;
  }
  (void)truncated_last;
  if (cols == 0)
    frames = (size_t)b->declared_frames;
  if ((gint64)frames != b->declared_frames)
    rk__raw_note(raw, "header declares %" G_GINT64_FORMAT " frames, the file has %zu: using %zu",
                 b->declared_frames, frames, frames);
  if (frames == 0 && b->declared_frames > 0) {
    g_array_unref(data);
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "no frame data (the header declares %" G_GINT64_FORMAT " frames)",
                b->declared_frames);
    return false;
  }
  b->frames = frames;
  b->data = (double *)(void *)g_array_free(data, FALSE);
  return true;
}

/* ---- decisions: up axis, unit, root offset ---------------------------------------------------- */

/* Rest positions (zero rotations, OFFSET chain) in file units. */
static rk_vec3 *rest_positions(const bvh *b) {
  const size_t n = b->joints->len;
  rk_vec3 *p = g_new(rk_vec3, n);
  for (size_t i = 0; i < n; i++) {
    const bvh_joint *j = J(b, i);
    rk_vec3 o = rk_vec3_make(j->offset[0], j->offset[1], j->offset[2]);
    p[i] = j->parent >= 0 ? rk_vec3_add(p[j->parent], o) : o;
  }
  return p;
}

static double comp(rk_vec3 v, int a) {
  return a == 0 ? v.x : a == 1 ? v.y : v.z;
}

typedef struct up_guess {
  int axis, sign;
  int lateral; /* -1 when no clear left/right symmetry */
} up_guess;

static up_guess detect_up(const bvh *b) {
  const size_t n = b->joints->len;
  g_autofree rk_vec3 *p = rest_positions(b);
  up_guess g = {1, 1, -1};
  double lo[3], hi[3], extent = 0;
  for (int a = 0; a < 3; a++) {
    lo[a] = INFINITY, hi[a] = -INFINITY;
    for (size_t i = 0; i < n; i++) {
      lo[a] = fmin(lo[a], comp(p[i], a));
      hi[a] = fmax(hi[a], comp(p[i], a));
    }
    extent = fmax(extent, hi[a] - lo[a]);
  }
  if (!(extent > 0))
    return g;
  /* Lateral axis: the skeleton is its own mirror image across the plane through the root. */
  double residual[3] = {INFINITY, INFINITY, INFINITY};
  if (n >= 3 && n <= 4000)
    for (int a = 0; a < 3; a++) {
      const double c = comp(p[0], a);
      double sum = 0;
      for (size_t i = 0; i < n; i++) {
        rk_vec3 m = p[i];
        if (a == 0)
          m.x = 2 * c - m.x;
        else if (a == 1)
          m.y = 2 * c - m.y;
        else
          m.z = 2 * c - m.z;
        double best = INFINITY;
        for (size_t k = 0; k < n; k++)
          best = fmin(best, rk_vec3_norm(rk_vec3_sub(m, p[k])));
        sum += best;
      }
      residual[a] = sum / (double)n / extent;
    }
  int lateral = 0;
  for (int a = 1; a < 3; a++)
    if (residual[a] < residual[lateral])
      lateral = a;
  double second = INFINITY;
  for (int a = 0; a < 3; a++)
    if (a != lateral)
      second = fmin(second, residual[a]);
  /* A mirror symmetric to 2% of the size, clearly better than the other axes; a plane that
   * holds every joint (a flat chain) is no evidence. */
  if (residual[lateral] < 0.02 && residual[lateral] < 0.5 * second &&
      hi[lateral] - lo[lateral] > 0.05 * extent)
    g.lateral = lateral;
  /* Up: the axis carrying the most bone length (spine and legs), lateral excluded. */
  double along[3] = {0, 0, 0};
  for (size_t i = 0; i < n; i++)
    if (J(b, i)->parent >= 0)
      for (int a = 0; a < 3; a++)
        along[a] += fabs(J(b, i)->offset[a]);
  int up = -1;
  for (int a = 0; a < 3; a++)
    if (a != g.lateral && (up < 0 || along[a] > along[up]))
      up = a;
  g.axis = up;
  /* Sign, from the two ends of the body along the up axis: the feet end holds a left/right pair
   * off the mirror plane, the head end a joint on it (a raised pair of hands would make both ends
   * pairs: then the centroid decides). */
  if (g.lateral >= 0) {
    const double band = 0.03 * extent, root_lat = comp(p[0], g.lateral);
    double off[2] = {0, 0};
    for (int end = 0; end < 2; end++) {
      const double level = end ? hi[up] : lo[up];
      size_t count = 0;
      for (size_t i = 0; i < n; i++)
        if (fabs(comp(p[i], up) - level) <= band) {
          off[end] += fabs(comp(p[i], g.lateral) - root_lat);
          count++;
        }
      off[end] /= (double)(count ? count : 1);
    }
    const bool low_pair = off[0] > band, high_pair = off[1] > band;
    if (low_pair != high_pair) {
      g.sign = low_pair ? 1 : -1;
      return g;
    }
  }
  /* Otherwise most joints (arms, spine, head) sit above the root; legs hang below it. */
  double centroid = 0;
  for (size_t i = 0; i < n; i++)
    centroid += comp(p[i], up);
  centroid /= (double)n;
  double root_level = 0;
  size_t roots = 0;
  for (size_t i = 0; i < n; i++)
    if (J(b, i)->parent < 0) {
      root_level += comp(p[i], up);
      roots++;
    }
  root_level /= (double)(roots ? roots : 1);
  g.sign = centroid - root_level >= 0 ? 1 : -1;
  return g;
}

/* Local translation of joint j in frame f under a root-offset reading (add = OFFSET + channels). */
static rk_vec3 joint_translation(const bvh *b, const bvh_joint *j, size_t f, bool add) {
  double t[3] = {j->offset[0], j->offset[1], j->offset[2]};
  const double *row = b->data + f * b->columns + j->first_channel;
  for (int k = 0; k < j->n_channels; k++)
    if (j->channels[k] <= CH_ZPOS)
      t[j->channels[k]] = add ? j->offset[j->channels[k]] + row[k] : row[k];
  return rk_vec3_make(t[0], t[1], t[2]);
}

static rk_quat joint_rotation(const bvh_joint *j, const double *row) {
  /* Product of the elementary rotations in channel order, each built from its half angle. */
  rk_quat q = rk_quat_identity();
  for (int k = 0; k < j->n_channels; k++) {
    if (j->channels[k] < CH_XROT)
      continue;
    const double h = 0.5 * row[k] * RK_DEG, s = sin(h), c = cos(h);
    rk_quat e = {0, 0, 0, c};
    if (j->channels[k] == CH_XROT)
      e.x = s;
    else if (j->channels[k] == CH_YROT)
      e.y = s;
    else
      e.z = s;
    q = rk_quat_mul(q, e);
  }
  return q;
}

static bool has_position(const bvh_joint *j) {
  for (int k = 0; k < j->n_channels; k++)
    if (j->channels[k] <= CH_ZPOS)
      return true;
  return false;
}

/* Median over (sampled) frames of the lowest joint's height along `up`, with root position
 * channels read as `root_add` and other joints' as `other_add`. */
static double ground_height(const bvh *b, rk_vec3 up, bool root_add, bool other_add) {
  const size_t n = b->joints->len;
  const size_t samples = b->frames < 512 ? b->frames : 512;
  g_autofree double *lows = g_new(double, samples ? samples : 1);
  g_autofree rk_mat4 *world = g_new(rk_mat4, n);
  for (size_t s = 0; s < samples; s++) {
    const size_t f = samples > 1 ? s * (b->frames - 1) / (samples - 1) : 0;
    double low = INFINITY;
    for (size_t i = 0; i < n; i++) {
      const bvh_joint *j = J(b, i);
      rk_transform x = rk_transform_identity();
      x.t = joint_translation(b, j, f, j->parent < 0 ? root_add : other_add);
      x.r = joint_rotation(j, b->data + f * b->columns + j->first_channel);
      rk_mat4 local = rk_transform_to_mat4(&x);
      world[i] = j->parent >= 0 ? rk_mat4_mul_affine(&world[j->parent], &local) : local;
      low = fmin(low, rk_vec3_dot(rk_mat4_get_translation(&world[i]), up));
    }
    lows[s] = low;
  }
  if (samples == 0)
    return 0;
  /* median */
  for (size_t i = 1; i < samples; i++)
    for (size_t k = i; k > 0 && lows[k - 1] > lows[k]; k--) {
      double t = lows[k];
      lows[k] = lows[k - 1];
      lows[k - 1] = t;
    }
  return lows[samples / 2];
}

/* Non-root joints with position channels: do the channels carry the whole offset? */
static bool others_replace(const bvh *b) {
  double diff = 0, mag = 0;
  size_t count = 0;
  for (guint i = 0; i < b->joints->len; i++) {
    const bvh_joint *j = J(b, i);
    if (j->parent < 0 || !has_position(j))
      continue;
    for (size_t f = 0; f < b->frames; f += 1 + b->frames / 256)
      for (int k = 0; k < j->n_channels; k++)
        if (j->channels[k] <= CH_ZPOS) {
          const double v = b->data[f * b->columns + j->first_channel + (size_t)k];
          diff += fabs(v - j->offset[j->channels[k]]);
          mag += fabs(v);
          count++;
        }
  }
  return count > 0 && diff < 0.5 * mag;
}

/* ---- build ------------------------------------------------------------------------------------ */

static char *clip_name(const char *path) {
  g_autofree char *base = g_path_get_basename(path);
  char *dot = strrchr(base, '.');
  if (dot && dot != base)
    *dot = '\0';
  return g_strdup(*base ? base : "take");
}

rk__raw_asset *rk__bvh_read(const rk__source *src, const rk_import_options *opts, GError **error) {
  bvh b = {0};
  b.src = src;
  b.lx.p = (const char *)src->data;
  b.lx.end = b.lx.p + src->size;
  b.lx.line = 1;
  if (src->size >= 3 && memcmp(src->data, "\xEF\xBB\xBF", 3) == 0)
    b.lx.p += 3;
  b.joints = g_array_new(FALSE, TRUE, sizeof(bvh_joint));
  g_array_set_clear_func(b.joints, joint_clear);
  rk__raw_asset *raw = rk__raw_asset_new();
  bool ok = parse_hierarchy(&b, error) && parse_motion_header(&b, error) &&
            parse_frames(&b, raw, error);
  if (!ok)
    goto fail;

  /* Names: End Site names are made up, so they yield to authored names. */
  {
    g_autoptr(GHashTable) names = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = 0; i < b.joints->len; i++) {
      bvh_joint *j = J(&b, i);
      if (j->end_site)
        continue;
      if (!g_hash_table_add(names, j->name)) {
        unsigned first = 0;
        for (guint k = 0; k < i; k++)
          if (!J(&b, k)->end_site && strcmp(J(&b, k)->name, j->name) == 0)
            first = J(&b, k)->line;
        g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                    "duplicate joint name '%s' (lines %u and %u)", j->name, first, j->line);
        goto fail;
      }
    }
    for (guint i = 0; i < b.joints->len; i++) {
      bvh_joint *j = J(&b, i);
      if (!j->end_site)
        continue;
      if (g_hash_table_contains(names, j->name)) {
        char *fresh = NULL;
        for (unsigned k = 1;; k++) {
          fresh = g_strdup_printf("%s.%03u", j->name, k);
          if (!g_hash_table_contains(names, fresh))
            break;
          g_free(fresh);
        }
        g_free(j->name);
        j->name = fresh;
      }
      g_hash_table_add(names, j->name);
    }
  }

  /* Up axis. */
  up_guess up = detect_up(&b);
  if (opts->up_axis) {
    int axis, sign;
    if (!rk_import_parse_axis(opts->up_axis, &axis, &sign)) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "invalid up axis '%s'", opts->up_axis);
      goto fail;
    }
    rk__raw_note(raw, "up axis %s given by the caller (detected: %s)",
                 rk__axis_name(axis, sign), rk__axis_name(up.axis, up.sign));
    up.axis = axis, up.sign = sign;
  } else {
    rk__raw_note(raw, "up axis %s detected from the rest skeleton (bone length along each axis%s%s)",
                 rk__axis_name(up.axis, up.sign), up.lateral >= 0 ? "; left/right mirror axis " : "",
                 up.lateral >= 0 ? rk__axis_name(up.lateral, 1) : "");
  }
  rk__raw_set_up_axis(raw, rk__axis_name(up.axis, up.sign));
  rk_vec3 up_vec = rk_vec3_make(up.axis == 0 ? up.sign : 0, up.axis == 1 ? up.sign : 0,
                                up.axis == 2 ? up.sign : 0);

  /* Unit. */
  double unit = 1.0;
  {
    g_autofree rk_vec3 *p = rest_positions(&b);
    double lo = INFINITY, hi = -INFINITY;
    for (guint i = 0; i < b.joints->len; i++) {
      lo = fmin(lo, rk_vec3_dot(p[i], up_vec));
      hi = fmax(hi, rk_vec3_dot(p[i], up_vec));
    }
    const double height = hi - lo;
    if (opts->unit_scale > 0) {
      unit = opts->unit_scale;
      const char *name = rk__unit_name(unit);
      rk__raw_set_unit(raw, name ? name : "custom", unit);
      rk__raw_note(raw, "unit given by the caller: %g m per file unit", unit);
    } else if (height > 0) {
      bool fits = false;
      const char *name = rk__unit_guess_from_height(height, &unit, &fits);
      rk__raw_set_unit(raw, name, unit);
      if (fits)
        rk__raw_note(raw, "BVH has no unit: the rest skeleton is %.4g units tall, a human height "
                          "in %s (%g m per unit)", height, name, unit);
      else
        rk__raw_note(raw, "BVH has no unit: the rest skeleton is %.4g units tall, no human "
                          "height in any known unit; guessed %s (%g m per unit, see --unit)",
                     height, name, unit);
    } else {
      rk__raw_set_unit(raw, "m", 1.0);
      rk__raw_note(raw, "BVH has no unit and the skeleton has no height: assumed metres");
    }
  }

  /* Position channels: add to the OFFSET or replace it. */
  bool root_add = true, other_add = true;
  {
    bool any_root = false, any_other = false;
    for (guint i = 0; i < b.joints->len; i++) {
      if (!has_position(J(&b, i)))
        continue;
      if (J(&b, i)->parent < 0)
        any_root = true;
      else
        any_other = true;
    }
    if (opts->bvh_root_offset != RK_BVH_ROOT_OFFSET_AUTO) {
      root_add = other_add = opts->bvh_root_offset == RK_BVH_ROOT_OFFSET_ADD;
      if (any_root || any_other)
        rk__raw_note(raw, "position channels %s the OFFSET (given by the caller)",
                     root_add ? "add to" : "replace");
    } else {
      if (any_other) {
        other_add = !others_replace(&b);
        rk__raw_note(raw, "non-root position channels %s the OFFSET (their values %s it)",
                     other_add ? "add to" : "replace", other_add ? "do not contain" : "contain");
      }
      if (any_root && b.frames > 0) {
        const double g_add = ground_height(&b, up_vec, true, other_add) * unit;
        const double g_rep = ground_height(&b, up_vec, false, other_add) * unit;
        if (fabs(g_add - g_rep) < 1e-6) {
          rk__raw_note(raw, "root OFFSET has no height: both readings of the root position agree");
        } else {
          root_add = fabs(g_add) <= fabs(g_rep);
          rk__raw_note(raw, "root position channels %s the root OFFSET: lowest joints at %.3f m "
                            "(the other reading: %.3f m)",
                       root_add ? "add to" : "replace", root_add ? g_add : g_rep,
                       root_add ? g_rep : g_add);
        }
      }
    }
  }

  /* Skeleton and clip in file units and axes. */
  for (guint i = 0; i < b.joints->len; i++) {
    const bvh_joint *j = J(&b, i);
    rk_transform rest = rk_transform_identity();
    rest.t = rk_vec3_make(j->offset[0], j->offset[1], j->offset[2]);
    rk__raw_add_joint(raw, j->name, j->parent, &rest, j->end_site ? RK_JOINT_END_SITE : 0);
  }
  double ft = b.frame_time, fps = 1.0 / ft;
  if (b.frame_time_decimals >= 0) {
    const double tol = 0.5 * pow(10.0, -b.frame_time_decimals) * (1 + 1e-9);
    const double n = nearbyint(1.0 / ft);
    if (n >= 1 && fabs(ft - 1.0 / n) <= tol && fabs(ft - 1.0 / n) > 0) {
      rk__raw_note(raw, "Frame Time %.*f s read as 1/%.0f s (rounded to %d decimals in the file)",
                   b.frame_time_decimals, ft, n, b.frame_time_decimals);
      ft = 1.0 / n;
      fps = n;
    } else if (n >= 1 && ft == 1.0 / n) {
      fps = n;
    }
  }
  if (b.frames > 0 && b.columns > 0) {
    if ((double)(b.frames - 1) * ft > RK_CLIP_MAX_DURATION) {
      g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "%zu frames of %g s exceed %g s", b.frames, ft,
                  RK_CLIP_MAX_DURATION);
      goto fail;
    }
    g_autofree char *name = clip_name(src->name);
    rk__raw_clip *clip = rk__raw_add_clip(raw, name);
    clip->fps = fps;
    clip->duration = (double)(b.frames - 1) * ft;
    for (guint i = 0; i < b.joints->len; i++) {
      const bvh_joint *j = J(&b, i);
      bool has_rot = false;
      for (int k = 0; k < j->n_channels; k++)
        has_rot |= j->channels[k] >= CH_XROT;
      const bool add = j->parent < 0 ? root_add : other_add;
      if (has_position(j)) {
        rk__raw_track *t = rk__raw_clip_add_track(clip, (int)i, RK_CHANNEL_TRANSLATION,
                                                  RK_INTERP_LINEAR);
        g_array_set_size(t->times, (guint)b.frames);
        g_array_set_size(t->values, (guint)(3 * b.frames));
        for (size_t f = 0; f < b.frames; f++) {
          rk_vec3 v = joint_translation(&b, j, f, add);
          g_array_index(t->times, double, f) = (double)f * ft;
          double *o = &g_array_index(t->values, double, 3 * f);
          o[0] = v.x, o[1] = v.y, o[2] = v.z;
        }
      }
      if (has_rot) {
        rk__raw_track *t = rk__raw_clip_add_track(clip, (int)i, RK_CHANNEL_ROTATION,
                                                  RK_INTERP_LINEAR);
        g_array_set_size(t->times, (guint)b.frames);
        g_array_set_size(t->values, (guint)(4 * b.frames));
        rk_quat prev = rk_quat_identity();
        for (size_t f = 0; f < b.frames; f++) {
          rk_quat q = joint_rotation(j, b.data + f * b.columns + j->first_channel);
          if (rk_quat_dot(q, prev) < 0)
            q = rk_quat_make(-q.x, -q.y, -q.z, -q.w);
          prev = q;
          g_array_index(t->times, double, f) = (double)f * ft;
          double *o = &g_array_index(t->values, double, 4 * f);
          o[0] = q.x, o[1] = q.y, o[2] = q.z, o[3] = q.w;
        }
      }
    }
  } else if (b.frames == 0) {
    rk__raw_note(raw, "the file has no frames: skeleton only");
  }

  /* Canonical space. */
  rk__raw_scale_lengths(raw, unit);
  if (!(up.axis == 1 && up.sign > 0)) {
    rk_mat3 a = rk__basis_for_up(up.axis, up.sign);
    rk__raw_change_basis(raw, &a);
    rk__raw_note(raw, "converted from %s-up to Y-up", rk__axis_name(up.axis, up.sign));
  }
  g_array_unref(b.joints);
  g_free(b.data);
  return raw;

fail:
  g_array_unref(b.joints);
  g_free(b.data);
  rk__raw_asset_free(raw);
  return NULL;
}
