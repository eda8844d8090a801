/* The MOTION section of a BVH file (bvh_motion.h): the frame count and time, then one line of
 * channel values per frame. */
#include "bvh_motion.h"

#include <string.h>

static bool parse_motion_header(rk__bvh_file *b, GError **error) {
  const char *tok;
  size_t len;
  double v;
  if (!rk__bvh_next_token(&b->lx, &tok, &len) || !rk__bvh_token_is(tok, len, "Frames:"))
    return rk__bvh_fail(b, error, RK_ERROR_PARSE, "expected 'Frames:' after MOTION");
  if (!rk__bvh_next_token(&b->lx, &tok, &len) || !rk__bvh_parse_double(tok, len, &v) ||
      v != floor(v))
    return rk__bvh_fail(b, error, RK_ERROR_PARSE, "'Frames:' needs a whole number");
  if (v < 0)
    return rk__bvh_fail(b, error, RK_ERROR_PARSE, "negative frame count %.0f", v);
  if (v > RK_CLIP_MAX_KEYS)
    return rk__bvh_fail(b, error, RK_ERROR_LIMIT, "%.0f frames declared (limit %u)", v,
                        RK_CLIP_MAX_KEYS);
  b->declared_frames = (gint64)v;
  if (!rk__bvh_next_token(&b->lx, &tok, &len) || !rk__bvh_token_is(tok, len, "Frame") ||
      !rk__bvh_next_token(&b->lx, &tok, &len) || !rk__bvh_token_is(tok, len, "Time:"))
    return rk__bvh_fail(b, error, RK_ERROR_PARSE, "expected 'Frame Time:'");
  if (!rk__bvh_next_token(&b->lx, &tok, &len) || !rk__bvh_parse_double(tok, len, &v))
    return rk__bvh_fail(b, error, RK_ERROR_PARSE, "'Frame Time:' needs a number");
  if (!isfinite(v) || v <= 0)
    return rk__bvh_fail(b, error, RK_ERROR_INVALID, "frame time %g s is not positive", v);
  if (v > 3600)
    return rk__bvh_fail(b, error, RK_ERROR_LIMIT, "frame time %g s (limit 3600 s)", v);
  b->frame_time = v;
  const char *dot = memchr(tok, '.', len);
  b->frame_time_decimals = memchr(tok, 'e', len) || memchr(tok, 'E', len) ? -1
                           : dot ? (int)(len - (size_t)(dot - tok) - 1)
                                 : 0;
  /* The frame lines start on the next line. */
  b->lx.p = rk__bvh_find_line_end(b->lx.p, b->lx.end);
  return true;
}

/* The frame lines: one row of b->columns values each. Lines that disagree with "Frames:" are used
 * as they are and a note says so; an incomplete last line (a truncated file) is dropped. */
static bool parse_frames(rk__bvh_file *b, rk__raw_asset *raw, GError **error) {
  const size_t cols = b->columns;
  GArray *data = g_array_new(FALSE, FALSE, sizeof(double));
  size_t frames = 0;
  const char *p = b->lx.p;
  unsigned line = b->lx.line;
  while (p < b->lx.end) {
    if (*p == '\r' || *p == '\n') {
      if (*p == '\r' && p + 1 < b->lx.end && p[1] == '\n')
        p++;
      p++;
      line++;
    }
    const char *eol = rk__bvh_find_line_end(p, b->lx.end);
    const char *q = p;
    size_t n = 0;
    const size_t base = data->len;
    while (q < eol) {
      while (q < eol && rk__bvh_is_space(*q))
        q++;
      if (q >= eol)
        break;
      const char *s = q;
      while (q < eol && !rk__bvh_is_space(*q))
        q++;
      double v;
      if (!rk__bvh_parse_double(s, (size_t)(q - s), &v)) {
        g_array_unref(data);
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "line %u (frame %zu): '%.*s' is not a number",
                    line, frames, (int)MIN((size_t)(q - s), 40), s);
        return false;
      }
      if (!isfinite(v)) {
        /* Name the joint and channel the value belongs to. */
        const char *jn = "?";
        for (guint k = 0; k < b->joints->len; k++) {
          const rk__bvh_joint *jk = rk__bvh_joint_at(b, k);
          if (n >= jk->first_channel && n < jk->first_channel + (size_t)jk->n_channels)
            jn = jk->name;
        }
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
          if (!rk__bvh_is_space(*r))
            only_ws_after = false;
        if (n < cols && (last || only_ws_after)) {
          g_array_set_size(data, base);
          rk__raw_repair(raw, "last frame line has %zu of %zu values (truncated file?): dropped",
                         n, cols);
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
  if (cols == 0)
    frames = (size_t)b->declared_frames;
  if ((gint64)frames != b->declared_frames)
    rk__raw_repair(raw, "header declares %" G_GINT64_FORMAT " frames, the file has %zu: using %zu",
                   b->declared_frames, frames, frames);
  if (frames == 0 && b->declared_frames > 0) {
    g_array_unref(data);
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                "no frame data (the header declares %" G_GINT64_FORMAT " frames)",
                b->declared_frames);
    return false;
  }
  b->frames = frames;
  b->data = (double *)(void *)g_array_free(data, FALSE);
  return true;
}

bool rk__bvh_parse_motion(rk__bvh_file *b, rk__raw_asset *raw, GError **error) {
  return parse_motion_header(b, error) && parse_frames(b, raw, error);
}
