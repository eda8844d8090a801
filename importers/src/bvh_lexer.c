/* Tokens of BVH text (bvh_lexer.h). */
#include "bvh_lexer.h"

#include <stdint.h>
#include <string.h>

/* Line ends: LF, CRLF, or a lone CR (classic Mac OS files). */
static bool is_line_end(const char *p, const char *end) {
  return *p == '\n' || (*p == '\r' && (p + 1 >= end || p[1] != '\n'));
}

static void skip_ws(rk__bvh_lexer *lx) {
  while (lx->p < lx->end && rk__bvh_is_space(*lx->p)) {
    if (is_line_end(lx->p, lx->end))
      lx->line++;
    lx->p++;
  }
}

/* The next line end at or after p (end when none). */
const char *rk__bvh_find_line_end(const char *p, const char *end) {
  while (p < end && *p != '\n' && *p != '\r')
    p++;
  return p;
}

/* Next token: "{" or "}" alone, else a run of non-space, non-brace bytes. */
bool rk__bvh_next_token(rk__bvh_lexer *lx, const char **tok, size_t *len) {
  skip_ws(lx);
  if (lx->p >= lx->end)
    return false;
  *tok = lx->p;
  if (*lx->p == '{' || *lx->p == '}') {
    lx->p++;
    *len = 1;
    return true;
  }
  while (lx->p < lx->end && !rk__bvh_is_space(*lx->p) && *lx->p != '{' && *lx->p != '}')
    lx->p++;
  *len = (size_t)(lx->p - *tok);
  return true;
}

bool rk__bvh_token_is(const char *tok, size_t len, const char *word) {
  return strlen(word) == len && g_ascii_strncasecmp(tok, word, len) == 0;
}

/* The rest of the line up to a '{' or the line end, trimmed (joint names may hold spaces). */
char *rk__bvh_rest_of_line(rk__bvh_lexer *lx) {
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

const double rk__bvh_pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                         1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                         1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

bool rk__bvh_parse_double(const char *tok, size_t len, double *out) {
  const char *end = tok + len;
  if (rk__bvh_scan_plain(tok, end, out) == end)
    return true;
  char buf[128];
  if (len == 0 || len >= sizeof buf)
    return false;
  memcpy(buf, tok, len);
  buf[len] = '\0';
  char *endp = NULL;
  *out = g_ascii_strtod(buf, &endp);
  return endp == buf + len;
}
