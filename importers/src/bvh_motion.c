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

/* The joint whose channels hold value n (0-based) of a frame line, for messages. */
static const char *joint_of_value(const rk__bvh_file *b, size_t n) {
  const char *name = "?";
  for (guint k = 0; k < b->joints->len; k++) {
    const rk__bvh_joint *jk = rk__bvh_joint_at(b, k);
    if (n >= jk->first_channel && n < jk->first_channel + (size_t)jk->n_channels)
      name = jk->name;
  }
  return name;
}

/* Growing storage for the frame rows: room for one more row of `cols` values. Starts at the
 * frame count the header declares, capped by what the rest of the text can hold (a value takes
 * at least two bytes), so a lying header costs nothing. */
typedef struct rows {
  double *v;
  size_t len, cap;
} rows;

static void rows_reserve(rows *r, size_t cols, gint64 declared, size_t bytes_left) {
  size_t want = r->len + cols;
  if (want <= r->cap)
    return;
  if (r->cap == 0) {
    const size_t fit = bytes_left / 2 + cols;
    const size_t decl = declared > 0 ? (size_t)declared * cols : 0;
    want = MAX(want, MIN(decl, fit));
  } else {
    want = MAX(want, 2 * r->cap);
  }
  r->v = g_renew(double, r->v, want);
  r->cap = want;
}

/* The values of one frame line from p, stored into row while fewer than cols: returns the line
 * end (a line end byte or the text's end) and the count of values in *n, or NULL with *error (a
 * token that is not a number, or not finite). Plain decimals are read in one pass
 * (rk__bvh_scan_plain); anything else goes through rk__bvh_parse_double. */
static const char *frame_values(const rk__bvh_file *b, const char *p, const char *end,
                                double *row, size_t cols, size_t *n, unsigned line, size_t frame,
                                GError **error) {
  size_t count = 0;
  for (;;) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\f' || *p == '\v'))
      p++;
    if (p >= end || *p == '\n' || *p == '\r')
      break;
    double v;
    const char *q = rk__bvh_scan_plain(p, end, &v);
    if (!q || (q < end && !rk__bvh_is_space(*q))) {
      const char *s = p;
      for (q = p; q < end && !rk__bvh_is_space(*q);)
        q++;
      if (!rk__bvh_parse_double(s, (size_t)(q - s), &v)) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "line %u (frame %zu): '%.*s' is not a number",
                    line, frame, (int)MIN((size_t)(q - s), 40), s);
        return NULL;
      }
      if (!isfinite(v)) {
        g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                    "line %u (frame %zu): value %zu (joint '%s') is not finite", line, frame,
                    count + 1, joint_of_value(b, count));
        return NULL;
      }
    }
    if (count < cols)
      row[count] = v;
    count++;
    p = q;
  }
  *n = count;
  return p;
}

/* Frame lines [p, end) of a file whose every non-blank line is a row of b->columns values (no
 * line numbers, no notes: any other line makes the part fail, and parse_frames reads the whole
 * text itself, saying what it says about it). */
typedef struct part_rows {
  const rk__bvh_file *b;
  const char *p, *end;
  rows data;
  size_t frames;
  bool ok;
} part_rows;

static gpointer parse_part(gpointer data) {
  part_rows *w = data;
  const size_t cols = w->b->columns;
  const char *p = w->p;
  w->ok = false;
  while (p < w->end) {
    if (*p == '\r' || *p == '\n') {
      if (*p == '\r' && p + 1 < w->end && p[1] == '\n')
        p++;
      p++;
    }
    rows_reserve(&w->data, cols, w->b->declared_frames, (size_t)(w->end - p));
    size_t n = 0;
    const char *eol = frame_values(w->b, p, w->end, w->data.v + w->data.len, cols, &n, 0, 0, NULL);
    if (!eol || (n > 0 && n != cols))
      return NULL;
    if (n > 0) {
      w->data.len += cols;
      w->frames++;
    }
    p = eol;
  }
  w->ok = true;
  return NULL;
}

/* The repair note of a frame count that is not the header's. */
static void note_frame_count(const rk__bvh_file *b, rk__raw_asset *raw, size_t frames) {
  if ((gint64)frames != b->declared_frames)
    rk__raw_repair(raw, "header declares %" G_GINT64_FORMAT " frames, the file has %zu: using %zu",
                   b->declared_frames, frames, frames);
}

/* Motion text worth a second thread. */
#define PARSE_THREAD_BYTES (256 * 1024)

/* The frame lines of a long, regular file read in two halves on two threads (split after a line
 * end): the rows parse_frames would read, or false (nothing changed) when a half holds anything
 * but rows of b->columns values or the frames pass the limit. */
static bool parse_halves(rk__bvh_file *b) {
  const size_t cols = b->columns;
  const char *start = b->lx.p, *end = b->lx.end;
  if (cols == 0 || (size_t)(end - start) < PARSE_THREAD_BYTES || g_get_num_processors() < 2)
    return false;
  const char *mid = memchr(start + (end - start) / 2, '\n', (size_t)(end - start) / 2);
  if (!mid)
    return false;
  part_rows w[2] = {{b, start, mid + 1, {NULL, 0, 0}, 0, false},
                    {b, mid + 1, end, {NULL, 0, 0}, 0, false}};
  rk_halves_run(parse_part, &w[0], &w[1], true);
  const size_t frames = w[0].frames + w[1].frames;
  const bool ok = w[0].ok && w[1].ok && frames > 0 && frames <= RK_CLIP_MAX_KEYS;
  if (ok) {
    b->data = g_renew(double, w[0].data.v, frames * cols);
    if (w[1].frames)
      memcpy(b->data + w[0].data.len, w[1].data.v, w[1].data.len * sizeof(double));
    b->frames = frames;
  } else {
    g_free(w[0].data.v);
  }
  g_free(w[1].data.v);
  return ok;
}

/* The frame lines: one row of b->columns values each. Lines that disagree with "Frames:" are used
 * as they are and a note says so; an incomplete last line (a truncated file) is dropped. A long
 * file of nothing but rows goes in two halves (parse_halves), with the same rows. */
static bool parse_frames(rk__bvh_file *b, rk__raw_asset *raw, GError **error) {
  if (parse_halves(b)) {
    note_frame_count(b, raw, b->frames);
    return true;
  }
  const size_t cols = b->columns;
  rows data = {NULL, 0, 0};
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
    rows_reserve(&data, cols, b->declared_frames, (size_t)(b->lx.end - p));
    size_t n = 0;
    double *row = data.v ? data.v + data.len : NULL; /* NULL: no channels */
    const char *eol = frame_values(b, p, b->lx.end, row, cols, &n, line, frames, error);
    if (!eol) {
      g_free(data.v);
      return false;
    }
    if (n > 0) {
      if (n != cols) {
        const bool last = eol >= b->lx.end || (eol + 1 >= b->lx.end);
        bool only_ws_after = true;
        for (const char *r = eol; r < b->lx.end; r++)
          if (!rk__bvh_is_space(*r))
            only_ws_after = false;
        if (n < cols && (last || only_ws_after)) {
          rk__raw_repair(raw, "last frame line has %zu of %zu values (truncated file?): dropped",
                         n, cols);
          break;
        }
        g_free(data.v);
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                    "line %u (frame %zu): %zu values, the hierarchy has %zu channels", line,
                    frames, n, cols);
        return false;
      }
      data.len += cols;
      frames++;
      if (frames > RK_CLIP_MAX_KEYS) {
        g_free(data.v);
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
  note_frame_count(b, raw, frames);
  if (frames == 0 && b->declared_frames > 0) {
    g_free(data.v);
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                "no frame data (the header declares %" G_GINT64_FORMAT " frames)",
                b->declared_frames);
    return false;
  }
  b->frames = frames;
  b->data = data.len < data.cap ? g_renew(double, data.v, MAX(data.len, 1)) : data.v;
  return true;
}

bool rk__bvh_parse_motion(rk__bvh_file *b, rk__raw_asset *raw, GError **error) {
  return parse_motion_header(b, error) && parse_frames(b, raw, error);
}
