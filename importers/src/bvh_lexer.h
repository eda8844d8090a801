/* Tokens of BVH text (internal; bvh_lexer.c): words and braces, the rest of a line (joint names
 * may hold spaces), numbers parsed exactly as strtod would; line ends LF, CRLF or a lone CR. */
#ifndef RK_BVH_LEXER_H
#define RK_BVH_LEXER_H

#include <glib.h>

#include <stdbool.h>
#include <stddef.h>

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

G_END_DECLS

#endif
