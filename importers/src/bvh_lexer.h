/* Tokens of BVH text (internal; bvh_lexer.c): words and braces, the rest of a line (joint names
 * may hold spaces), numbers parsed exactly as strtod would; line ends LF, CRLF or a lone CR. */
#ifndef RK_BVH_LEXER_H
#define RK_BVH_LEXER_H

#include <glib.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef struct rk__bvh_lexer {
  const char *p, *end;
  unsigned line; /* of p, from 1 */
} rk__bvh_lexer;

/** True for the bytes that separate BVH tokens (space, tab, CR, LF, FF, VT). */
static inline bool rk__bvh_is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}
/** The next line end at or after p (end when none). */
const char *rk__bvh_find_line_end(const char *p, const char *end);
/** Next token after whitespace (lines counted): "{" or "}" alone, else a run of non-space,
 * non-brace bytes, as tok/len pointing into the text. False at the end of the text. */
bool rk__bvh_next_token(rk__bvh_lexer *lx, const char **tok, size_t *len);
/** True when the token is word, ignoring ASCII case. */
bool rk__bvh_token_is(const char *tok, size_t len, const char *word);
/** The rest of the line up to a '{' or the line end, trimmed: a new string (g_free). */
char *rk__bvh_rest_of_line(rk__bvh_lexer *lx);
/** Parses a whole token as a double into *out; false when it is not a number. */
bool rk__bvh_parse_double(const char *tok, size_t len, double *out);

/** 10^0 .. 10^22, each exact in a double. */
extern const double rk__bvh_pow10_exact[23];

/* rk__bvh_scan_plain's careful reading, digit by digit (leading zeros are not significant): for
 * the rare decimal of more than 15 digits in all, where only the significant ones count. */
static inline const char *rk__bvh_scan_counted(const char *p, const char *end, double *out) {
  bool neg = false;
  if (p < end && (*p == '-' || *p == '+')) {
    neg = *p == '-';
    p++;
  }
  uint64_t m = 0;
  int digits = 0, decimals = 0;
  bool dot = false, any = false;
  for (; p < end; p++) {
    const unsigned d = (unsigned)(unsigned char)*p - '0';
    if (d <= 9) {
      any = true;
      if (m == 0 && d == 0) {
        decimals += dot;
        continue; /* leading zeros are not significant */
      }
      if (++digits > 15)
        return NULL;
      m = m * 10 + d;
      decimals += dot;
    } else if (*p == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (!any || decimals > 22)
    return NULL;
  const double v = (double)m / rk__bvh_pow10_exact[decimals];
  *out = neg ? -v : v;
  return p;
}

/** A plain decimal at p (sign, digits, at most one point; at most 15 significant digits and 22
 * after the point: what BVH exporters write) into *out, by Clinger's fast path: the integer
 * mantissa and 10^k are exact doubles, so one division is correctly rounded, the same result as
 * strtod. Returns where the decimal stops (the caller checks that a token ends there), or NULL
 * when p holds no such decimal (then strtod decides: rk__bvh_parse_double). The digits before and
 * after the point are read in two tight loops; a decimal of more than 15 digits in all (leading
 * zeros counted) is read again by rk__bvh_scan_counted, which counts only significant ones. */
static inline const char *rk__bvh_scan_plain(const char *p, const char *end, double *out) {
  const char *const start = p;
  bool neg = false;
  if (p < end && (*p == '-' || *p == '+')) {
    neg = *p == '-';
    p++;
  }
  uint64_t m = 0;
  const char *const first = p;
  unsigned d;
  while (p < end && (d = (unsigned)(unsigned char)*p - '0') <= 9) {
    m = m * 10 + d;
    p++;
  }
  ptrdiff_t digits = p - first, decimals = 0;
  if (p < end && *p == '.') {
    const char *const point = ++p;
    while (p < end && (d = (unsigned)(unsigned char)*p - '0') <= 9) {
      m = m * 10 + d;
      p++;
    }
    decimals = p - point;
    digits += decimals;
  }
  if (digits == 0 || digits > 15)
    return rk__bvh_scan_counted(start, end, out);
  const double v = (double)m / rk__bvh_pow10_exact[decimals];
  *out = neg ? -v : v;
  return p;
}

G_END_DECLS

#endif
