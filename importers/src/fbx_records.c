/* FBX node records: binary (7.x) and ASCII FBX into one tree of named nodes with typed properties.
 *
 * Binary layout (public write-ups: Blender's "FBX binary file format specification" by
 * A. Gessler, 2013; the fbx-book "binary syntax" chapter; checked against real files): a 23-byte
 * magic "Kaydara FBX Binary  \0\x1a\0", a little-endian uint32 version, then node records
 *   end_offset, property_count, property_bytes   (uint32 before 7500, uint64 from 7500)
 *   name_length (uint8), name, properties, [child records, then a null record]
 * where end_offset is the absolute offset just past the record and a null record (13 or 25 zero
 * bytes) closes every child list and the top-level list. A property is a type code and its
 * data: Y C I F D L scalars, S R length-prefixed bytes, f d l i b arrays (count, encoding
 * 0 = raw / 1 = zlib, stored length, payload). Everything is bounds-checked against the enclosing
 * record; arrays are only decoded on request.
 *
 * ASCII: `Name: value, value, ... { children }` lines, `;` comments, quoted strings without
 * escapes, numbers, bare words (T, Y, ...), and arrays written `*N { a: v,v,... }`. */
#include "fbx_internal.h"

#include <gio/gio.h>
#include <string.h>

static const char MAGIC[] = "Kaydara FBX Binary  ";

/* ---- binary ---------------------------------------------------------------------------------- */

typedef struct bin_reader {
  const uint8_t *data;
  size_t size;
  bool is64;
  const char *name;
  GError **error;
} bin_reader;

static uint32_t rd32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return GUINT32_FROM_LE(v);
}

static uint64_t rd64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return GUINT64_FROM_LE(v);
}

static void node_clear(rk__fbx_node *n) {
  for (size_t i = 0; i < n->n_children; i++)
    node_clear(&n->children[i]);
  g_free(n->children);
  g_free(n->props);
  g_free(n->name);
  memset(n, 0, sizeof *n);
}

static bool bin_fail(bin_reader *r, size_t at, const char *what) {
  g_set_error(r->error, RK_ERROR, RK_ERROR_PARSE, "%s: binary FBX record at byte %zu: %s", r->name,
              at, what);
  return false;
}

static size_t array_elem_size(char type) {
  switch (type) {
  case 'f':
  case 'i':
    return 4;
  case 'd':
  case 'l':
    return 8;
  case 'b':
    return 1;
  default:
    return 0;
  }
}

/* One property at *pos (< end); advances *pos. */
static bool bin_prop(bin_reader *r, size_t *pos, size_t end, rk__fbx_prop *p) {
  const uint8_t *d = r->data;
  size_t at = *pos;
  if (at >= end)
    return bin_fail(r, at, "property list is shorter than declared");
  memset(p, 0, sizeof *p);
  p->type = (char)d[at++];
  size_t need = 0;
  switch (p->type) {
  case 'Y':
    need = 2;
    break;
  case 'C':
    need = 1;
    break;
  case 'I':
  case 'F':
    need = 4;
    break;
  case 'D':
  case 'L':
    need = 8;
    break;
  case 'S':
  case 'R': {
    if (end - at < 4)
      return bin_fail(r, at, "truncated string length");
    const uint32_t len = rd32(d + at);
    at += 4;
    if (len > end - at)
      return bin_fail(r, at, "string runs past its record");
    p->data = d + at;
    p->len = len;
    *pos = at + len;
    return true;
  }
  case 'f':
  case 'd':
  case 'l':
  case 'i':
  case 'b': {
    if (end - at < 12)
      return bin_fail(r, at, "truncated array header");
    p->count = rd32(d + at);
    p->encoding = rd32(d + at + 4);
    const uint32_t stored = rd32(d + at + 8);
    at += 12;
    if (stored > end - at)
      return bin_fail(r, at, "array payload runs past its record");
    if (p->count > RK__FBX_MAX_ARRAY) {
      g_set_error(r->error, RK_ERROR, RK_ERROR_LIMIT,
                  "%s: binary FBX array at byte %zu declares %u elements (rigkit reads at most %u)",
                  r->name, at, p->count, RK__FBX_MAX_ARRAY);
      return false;
    }
    if (p->encoding == 0 && (uint64_t)stored != (uint64_t)p->count * array_elem_size(p->type))
      return bin_fail(r, at, "raw array length does not match its element count");
    if (p->encoding > 1)
      return bin_fail(r, at, "unknown array encoding");
    p->data = d + at;
    p->len = stored;
    *pos = at + stored;
    return true;
  }
  default:
    return bin_fail(r, at - 1, "unknown property type code");
  }
  if (end - at < need)
    return bin_fail(r, at, "truncated property");
  const uint8_t *v = d + at;
  switch (p->type) {
  case 'Y': {
    uint16_t u;
    memcpy(&u, v, 2);
    p->i = (int16_t)GUINT16_FROM_LE(u);
    p->d = (double)p->i;
    break;
  }
  case 'C':
    p->i = v[0] != 0;
    p->d = (double)p->i;
    break;
  case 'I':
    p->i = (int32_t)rd32(v);
    p->d = (double)p->i;
    break;
  case 'L':
    p->i = (int64_t)rd64(v);
    p->d = (double)p->i;
    break;
  case 'F': {
    uint32_t u = rd32(v);
    float f;
    memcpy(&f, &u, 4);
    p->d = f;
    break;
  }
  case 'D': {
    uint64_t u = rd64(v);
    memcpy(&p->d, &u, 8);
    break;
  }
  }
  *pos = at + need;
  return true;
}

/* Reads the record at *pos (limit: the end of the enclosing list). *is_null tells a null record. */
static bool bin_node(bin_reader *r, size_t *pos, size_t limit, int depth, rk__fbx_node *out,
                     bool *is_null) {
  const uint8_t *d = r->data;
  const size_t hdr = r->is64 ? 25 : 13;
  const size_t at = *pos;
  *is_null = false;
  memset(out, 0, sizeof *out);
  if (limit - at < hdr)
    return bin_fail(r, at, "truncated record header");
  uint64_t end, nprops, plen;
  if (r->is64) {
    end = rd64(d + at), nprops = rd64(d + at + 8), plen = rd64(d + at + 16);
  } else {
    end = rd32(d + at), nprops = rd32(d + at + 4), plen = rd32(d + at + 8);
  }
  const size_t name_len = d[at + hdr - 1];
  if (end == 0 && nprops == 0 && plen == 0 && name_len == 0) {
    *is_null = true;
    *pos = at + hdr;
    return true;
  }
  if (depth > RK__FBX_MAX_DEPTH) {
    g_set_error(r->error, RK_ERROR, RK_ERROR_LIMIT,
                "%s: binary FBX records nest deeper than %d levels (byte %zu)", r->name,
                RK__FBX_MAX_DEPTH, at);
    return false;
  }
  if (end < at + hdr || end > limit)
    return bin_fail(r, at, "record end offset is out of range");
  size_t cur = at + hdr;
  if (name_len > end - cur)
    return bin_fail(r, at, "record name runs past the record");
  out->name = g_strndup((const char *)d + cur, name_len);
  cur += name_len;
  if (plen > end - cur || nprops > plen)
    return bin_fail(r, at, "property list length is out of range");
  const size_t props_end = cur + (size_t)plen;
  out->n_props = (size_t)nprops;
  out->props = g_new0(rk__fbx_prop, out->n_props ? out->n_props : 1);
  for (size_t i = 0; i < out->n_props; i++)
    if (!bin_prop(r, &cur, props_end, &out->props[i]))
      return false;
  if (cur != props_end)
    return bin_fail(r, at, "property list length does not match its properties");
  if (cur < end) {
    out->scope = true;
    if (end - cur < hdr)
      return bin_fail(r, cur, "child list without its null record");
    GArray *kids = g_array_new(FALSE, TRUE, sizeof(rk__fbx_node));
    bool ok = true, null_seen = false;
    while (ok && cur < end && !null_seen) {
      rk__fbx_node child;
      ok = bin_node(r, &cur, (size_t)end, depth + 1, &child, &null_seen);
      if (ok && !null_seen)
        g_array_append_val(kids, child);
      else if (!ok)
        node_clear(&child);
    }
    out->n_children = kids->len;
    out->children = (rk__fbx_node *)(void *)g_array_free(kids, FALSE);
    if (!ok)
      return false;
    if (!null_seen)
      return bin_fail(r, at, "child list is not closed by a null record");
  }
  if (cur != end)
    return bin_fail(r, at, "record length does not match its content");
  *pos = cur;
  return true;
}

static bool parse_binary(const uint8_t *data, size_t size, const char *name, rk__fbx_tree *tree,
                         GError **error) {
  if (size < 27 || data[21] != 0x1a) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: truncated binary FBX header", name);
    return false;
  }
  if (data[22] != 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_UNSUPPORTED, "%s: big-endian binary FBX", name);
    return false;
  }
  tree->binary = true;
  tree->version = rd32(data + 23);
  bin_reader r = {data, size, tree->version >= 7500, name, error};
  GArray *top = g_array_new(FALSE, TRUE, sizeof(rk__fbx_node));
  size_t pos = 27;
  bool ok = true, null_seen = false;
  while (ok && !null_seen && size - pos >= (r.is64 ? 25u : 13u)) {
    rk__fbx_node n;
    ok = bin_node(&r, &pos, size, 1, &n, &null_seen);
    if (ok && !null_seen)
      g_array_append_val(top, n);
    else if (!ok)
      node_clear(&n);
  }
  tree->root.n_children = top->len;
  tree->root.children = (rk__fbx_node *)(void *)g_array_free(top, FALSE);
  return ok;
}

/* ---- ASCII ------------------------------------------------------------------------------------
 */

typedef struct lexer {
  const char *p, *start, *end;
  int line;
  const char *name;
  GError **error;
} lexer;

static bool lex_fail(lexer *lx, const char *what) {
  g_set_error(lx->error, RK_ERROR, RK_ERROR_PARSE, "%s: ASCII FBX line %d: %s", lx->name, lx->line,
              what);
  return false;
}

/* Skips blanks; newlines too when `lines`; comments (';' to the end of the line) always. */
static void skip_ws(lexer *lx, bool lines) {
  while (lx->p < lx->end) {
    const char c = *lx->p;
    if (c == ' ' || c == '\t' || c == '\r')
      lx->p++;
    else if (c == '\n' && lines) {
      lx->line++;
      lx->p++;
    } else if (c == ';') {
      while (lx->p < lx->end && *lx->p != '\n')
        lx->p++;
    } else
      break;
  }
}

static bool is_word_char(char c) {
  return !(c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ':' || c == ',' || c == '{' ||
           c == '}' || c == '"' || c == ';' || c == '*');
}

/* Length of the word at p and whether a ':' follows it directly. */
static size_t word_at(const lexer *lx, const char *p, bool *colon) {
  const char *q = p;
  while (q < lx->end && is_word_char(*q))
    q++;
  *colon = q < lx->end && *q == ':';
  return (size_t)(q - p);
}

static bool ascii_value(lexer *lx, rk__fbx_prop *p) {
  memset(p, 0, sizeof *p);
  const char c = *lx->p;
  if (c == '"') {
    const char *s = ++lx->p;
    while (lx->p < lx->end && *lx->p != '"') {
      if (*lx->p == '\n')
        lx->line++;
      lx->p++;
    }
    if (lx->p >= lx->end)
      return lex_fail(lx, "unterminated string");
    p->type = 'S';
    p->data = (const uint8_t *)s;
    p->len = (size_t)(lx->p - s);
    lx->p++;
    return true;
  }
  if (c == '*') {
    lx->p++;
    const char *digits = lx->p;
    while (lx->p < lx->end && g_ascii_isdigit(*lx->p))
      lx->p++;
    if (lx->p == digits)
      return lex_fail(lx, "array count expected after '*'");
    const guint64 count = g_ascii_strtoull(digits, NULL, 10);
    if (count > RK__FBX_MAX_ARRAY) {
      g_set_error(lx->error, RK_ERROR, RK_ERROR_LIMIT,
                  "%s: ASCII FBX line %d: array of %" G_GUINT64_FORMAT
                  " elements (rigkit reads at most %u)",
                  lx->name, lx->line, count, RK__FBX_MAX_ARRAY);
      return false;
    }
    skip_ws(lx, true);
    if (lx->p >= lx->end || *lx->p != '{')
      return lex_fail(lx, "'{' expected after an array count");
    lx->p++;
    skip_ws(lx, true);
    bool colon = false;
    const size_t w = word_at(lx, lx->p, &colon);
    if (w == 1 && colon && *lx->p == 'a')
      lx->p += 2;
    else if (count > 0)
      return lex_fail(lx, "'a:' expected in an array");
    const char *s = lx->p;
    while (lx->p < lx->end && *lx->p != '}') {
      if (*lx->p == '\n')
        lx->line++;
      lx->p++;
    }
    if (lx->p >= lx->end)
      return lex_fail(lx, "unterminated array");
    p->type = 'd';
    p->encoding = RK__FBX_ENCODING_TEXT;
    p->count = (uint32_t)count;
    p->data = (const uint8_t *)s;
    p->len = (size_t)(lx->p - s);
    lx->p++;
    return true;
  }
  bool colon = false;
  const size_t w = word_at(lx, lx->p, &colon);
  if (w == 0)
    return lex_fail(lx, "value expected");
  char buf[64];
  const char *tok = lx->p;
  lx->p += w;
  if (w < sizeof buf) {
    memcpy(buf, tok, w);
    buf[w] = '\0';
    char *endp = NULL;
    bool integer = true;
    for (size_t i = 0; i < w; i++)
      if (!g_ascii_isdigit(buf[i]) && !(i == 0 && (buf[i] == '-' || buf[i] == '+')))
        integer = false;
    if (integer && w > (buf[0] == '-' || buf[0] == '+' ? 1u : 0u)) {
      p->type = 'L';
      p->i = g_ascii_strtoll(buf, &endp, 10);
      p->d = (double)p->i;
      return true;
    }
    const double v = g_ascii_strtod(buf, &endp);
    if (endp == buf + w &&
        (g_ascii_isdigit(buf[0]) || buf[0] == '-' || buf[0] == '+' || buf[0] == '.')) {
      p->type = 'D';
      p->d = v;
      return true;
    }
  }
  p->type = 'S'; /* bare word: T, Y, N, ... */
  p->data = (const uint8_t *)tok;
  p->len = w;
  return true;
}

static bool ascii_nodes(lexer *lx, int depth, bool closing, rk__fbx_node *parent);

/* Reads the node whose name starts at lx->p. */
static bool ascii_node(lexer *lx, int depth, rk__fbx_node *n) {
  memset(n, 0, sizeof *n);
  bool colon = false;
  const size_t w = word_at(lx, lx->p, &colon);
  if (w == 0 || !colon)
    return lex_fail(lx, "'Name:' expected");
  n->name = g_strndup(lx->p, w);
  lx->p += w + 1;
  GArray *props = g_array_new(FALSE, TRUE, sizeof(rk__fbx_prop));
  bool ok = true;
  skip_ws(lx, false);
  if (lx->p < lx->end && *lx->p == ',') { /* "Content: ," (an empty first value) */
    lx->p++;
    skip_ws(lx, true);
  }
  const bool first_is_value = lx->p < lx->end && *lx->p != '{' && *lx->p != '}' && *lx->p != '\n' &&
                              !(word_at(lx, lx->p, &colon) > 0 && colon);
  if (first_is_value) {
    for (;;) {
      rk__fbx_prop p;
      if (!(ok = ascii_value(lx, &p)))
        break;
      g_array_append_val(props, p);
      skip_ws(lx, false);
      if (lx->p < lx->end && *lx->p == ',') {
        lx->p++;
        skip_ws(lx, true);
        if (lx->p >= lx->end)
          ok = lex_fail(lx, "value expected after ','");
        if (!ok)
          break;
        continue;
      }
      break;
    }
  }
  n->n_props = props->len;
  n->props = (rk__fbx_prop *)(void *)g_array_free(props, FALSE);
  if (!ok)
    return false;
  skip_ws(lx, true);
  if (lx->p < lx->end && *lx->p == '{') {
    lx->p++;
    n->scope = true;
    if (depth >= RK__FBX_MAX_DEPTH) {
      g_set_error(lx->error, RK_ERROR, RK_ERROR_LIMIT,
                  "%s: ASCII FBX line %d: nodes nest deeper than %d levels", lx->name, lx->line,
                  RK__FBX_MAX_DEPTH);
      return false;
    }
    return ascii_nodes(lx, depth + 1, true, n);
  }
  return true;
}

static bool ascii_nodes(lexer *lx, int depth, bool closing, rk__fbx_node *parent) {
  GArray *kids = g_array_new(FALSE, TRUE, sizeof(rk__fbx_node));
  bool ok = true;
  for (;;) {
    skip_ws(lx, true);
    if (lx->p >= lx->end) {
      if (closing)
        ok = lex_fail(lx, "'}' missing at the end of the file");
      break;
    }
    if (*lx->p == '}') {
      if (!closing)
        ok = lex_fail(lx, "unbalanced '}'");
      else
        lx->p++;
      break;
    }
    rk__fbx_node n;
    ok = ascii_node(lx, depth, &n);
    g_array_append_val(kids, n);
    if (!ok)
      break;
  }
  parent->n_children = kids->len;
  parent->children = (rk__fbx_node *)(void *)g_array_free(kids, FALSE);
  return ok;
}

static bool parse_ascii(const uint8_t *data, size_t size, const char *name, rk__fbx_tree *tree,
                        GError **error) {
  lexer lx = {(const char *)data, (const char *)data, (const char *)data + size, 1, name, error};
  if (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF)
    lx.p += 3;
  if (memchr(data, '\0', size)) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                "%s: not an FBX file (binary data without the "
                "binary FBX header)",
                name);
    return false;
  }
  if (!ascii_nodes(&lx, 1, false, &tree->root))
    return false;
  const rk__fbx_node *h = rk__fbx_node_child(&tree->root, "FBXHeaderExtension");
  const rk__fbx_node *v = h ? rk__fbx_node_child(h, "FBXVersion") : NULL;
  int64_t version = 0;
  if (v && rk__fbx_prop_int(rk__fbx_node_prop(v, 0), &version) && version > 0 &&
      version < G_MAXINT32)
    tree->version = (uint32_t)version;
  return true;
}

bool rk__fbx_tree_parse(const uint8_t *data, size_t size, const char *name, rk__fbx_tree *tree,
                        GError **error) {
  memset(tree, 0, sizeof *tree);
  bool ok = size >= 21 && memcmp(data, MAGIC, 21) == 0 ? parse_binary(data, size, name, tree, error)
                                                       : parse_ascii(data, size, name, tree, error);
  if (!ok)
    rk__fbx_tree_free(tree);
  return ok;
}

void rk__fbx_tree_free(rk__fbx_tree *tree) {
  if (tree)
    node_clear(&tree->root);
}

/* ---- access -----------------------------------------------------------------------------------
 */

const rk__fbx_node *rk__fbx_node_child(const rk__fbx_node *node, const char *name) {
  if (!node)
    return NULL;
  for (size_t i = 0; i < node->n_children; i++)
    if (strcmp(node->children[i].name, name) == 0)
      return &node->children[i];
  return NULL;
}

const rk__fbx_prop *rk__fbx_node_prop(const rk__fbx_node *node, size_t i) {
  return node && i < node->n_props ? &node->props[i] : NULL;
}

bool rk__fbx_prop_number(const rk__fbx_prop *p, double *out) {
  if (!p)
    return false;
  switch (p->type) {
  case 'Y':
  case 'C':
  case 'I':
  case 'L':
  case 'F':
  case 'D':
    *out = p->d;
    return true;
  case 'S':
    if (p->len == 1 && (p->data[0] == 'T' || p->data[0] == 'Y')) {
      *out = 1;
      return true;
    }
    if (p->len == 1 && (p->data[0] == 'F' || p->data[0] == 'N')) {
      *out = 0;
      return true;
    }
    return false;
  default:
    return false;
  }
}

bool rk__fbx_prop_int(const rk__fbx_prop *p, int64_t *out) {
  if (!p || !(p->type == 'Y' || p->type == 'C' || p->type == 'I' || p->type == 'L'))
    return false;
  *out = p->i;
  return true;
}

bool rk__fbx_prop_is(const rk__fbx_prop *p, const char *s) {
  const size_t n = strlen(s);
  return p && p->type == 'S' && p->len == n && memcmp(p->data, s, n) == 0;
}

static char *valid_utf8(const uint8_t *s, size_t n) {
  if (g_utf8_validate((const char *)s, (gssize)n, NULL))
    return g_strndup((const char *)s, n);
  return g_utf8_make_valid((const char *)s, (gssize)n);
}

char *rk__fbx_prop_string(const rk__fbx_prop *p) {
  if (!p || p->type != 'S')
    return NULL;
  /* NUL bytes end the text (binary object names continue after "\0\1"). */
  const uint8_t *z = memchr(p->data, '\0', p->len);
  return valid_utf8(p->data, z ? (size_t)(z - p->data) : p->len);
}

bool rk__fbx_prop_object_name(const rk__fbx_prop *p, char **cls, char **name) {
  if (!p || p->type != 'S')
    return false;
  const uint8_t *s = p->data;
  const size_t n = p->len;
  const uint8_t *sep = NULL;
  for (size_t i = 0; i + 1 < n; i++)
    if (s[i] == 0 && s[i + 1] == 1) {
      sep = s + i;
      break;
    }
  if (sep) { /* binary: Name \0 \1 Class */
    if (name)
      *name = valid_utf8(s, (size_t)(sep - s));
    if (cls)
      *cls = valid_utf8(sep + 2, n - (size_t)(sep - s) - 2);
    return true;
  }
  for (size_t i = 0; i + 1 < n; i++)
    if (s[i] == ':' && s[i + 1] == ':') { /* ASCII: Class::Name */
      if (cls)
        *cls = valid_utf8(s, i);
      if (name)
        *name = valid_utf8(s + i + 2, n - i - 2);
      return true;
    }
  if (cls)
    *cls = g_strdup("");
  if (name)
    *name = valid_utf8(s, n);
  return true;
}

/* The raw little-endian payload of a binary array, inflated when zlib-compressed. */
static uint8_t *array_bytes(const rk__fbx_prop *p, size_t *bytes, GError **error) {
  const size_t esize = array_elem_size(p->type);
  *bytes = (size_t)p->count * esize;
  uint8_t *out = g_malloc(*bytes ? *bytes : 1);
  if (p->encoding == 0) {
    memcpy(out, p->data, *bytes);
    return out;
  }
  GConverter *z = G_CONVERTER(g_zlib_decompressor_new(G_ZLIB_COMPRESSOR_FORMAT_ZLIB));
  size_t in = 0, done = 0;
  bool ok = false;
  /* Output goes to `out` until it holds the declared size, then to a small spare buffer: a
   * stream that yields more than declared is caught, and GLib never sees an empty output
   * buffer (a critical: empty arrays, over-long streams). */
  uint8_t spare[64];
  for (;;) {
    gsize r = 0, w = 0;
    GError *e = NULL;
    const bool full = done >= *bytes;
    GConverterResult res = g_converter_convert(
        z, p->data + in, p->len - in, full ? spare : out + done, full ? sizeof spare : *bytes - done,
        G_CONVERTER_INPUT_AT_END, &r, &w, &e);
    in += r;
    done += w;
    if (res == G_CONVERTER_ERROR) {
      g_clear_error(&e);
      break;
    }
    if (res == G_CONVERTER_FINISHED) {
      ok = done == *bytes;
      break;
    }
    if ((r == 0 && w == 0) || done > *bytes)
      break;
  }
  g_object_unref(z);
  if (!ok) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                "compressed FBX array of %u elements does not inflate to its declared size",
                p->count);
    g_free(out);
    return NULL;
  }
  return out;
}

/* Splits the ASCII array text into tokens; calls fn(token, user) for each. */
static bool text_tokens(const rk__fbx_prop *p, bool (*fn)(const char *tok, size_t n, void *user),
                        void *user) {
  const char *s = (const char *)p->data, *e = s + p->len;
  while (s < e) {
    while (s < e && (*s == ',' || *s == ' ' || *s == '\t' || *s == '\r' || *s == '\n'))
      s++;
    if (s >= e)
      break;
    const char *t = s;
    while (s < e && !(*s == ',' || *s == ' ' || *s == '\t' || *s == '\r' || *s == '\n'))
      s++;
    if (!fn(t, (size_t)(s - t), user))
      return false;
  }
  return true;
}

typedef struct text_acc {
  GArray *out;
  bool as_int;
} text_acc;

static bool text_number(const char *tok, size_t n, void *user) {
  text_acc *a = user;
  char buf[64];
  if (n >= sizeof buf)
    return false;
  memcpy(buf, tok, n);
  buf[n] = '\0';
  char *endp = NULL;
  if (a->as_int) {
    gint64 v = g_ascii_strtoll(buf, &endp, 10);
    if (endp != buf + n) { /* "1e3" or "12.0": accept when integral */
      const double dv = g_ascii_strtod(buf, &endp);
      if (endp != buf + n || dv != floor(dv) || fabs(dv) > 9.2e18)
        return false;
      v = (gint64)dv;
    }
    g_array_append_val(a->out, v);
  } else {
    const double v = g_ascii_strtod(buf, &endp);
    if (endp != buf + n)
      return false;
    g_array_append_val(a->out, v);
  }
  return true;
}

static bool decode_text(const rk__fbx_prop *p, bool as_int, void **out, size_t *count,
                        GError **error) {
  text_acc a = {g_array_sized_new(FALSE, FALSE, as_int ? sizeof(int64_t) : sizeof(double),
                                  MIN(p->count, 1u << 20)),
                as_int};
  if (!text_tokens(p, text_number, &a) || a.out->len != p->count) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                "ASCII FBX array declares %u elements but holds %u readable %s", p->count,
                a.out->len, as_int ? "integers" : "numbers");
    g_array_unref(a.out);
    return false;
  }
  *count = a.out->len;
  *out = g_array_free(a.out, FALSE);
  return true;
}

bool rk__fbx_prop_doubles(const rk__fbx_prop *p, double **out, size_t *count, GError **error) {
  *out = NULL;
  *count = 0;
  if (!p) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "missing FBX array");
    return false;
  }
  double v;
  if (rk__fbx_prop_number(p, &v)) {
    *out = g_new(double, 1);
    **out = v;
    *count = 1;
    return true;
  }
  if (p->encoding == RK__FBX_ENCODING_TEXT)
    return decode_text(p, false, (void **)out, count, error);
  if (!array_elem_size(p->type)) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "FBX property of type '%c' is not an array",
                p->type);
    return false;
  }
  size_t bytes = 0;
  g_autofree uint8_t *raw = array_bytes(p, &bytes, error);
  if (!raw)
    return false;
  double *d = g_new(double, p->count ? p->count : 1);
  for (uint32_t k = 0; k < p->count; k++) {
    switch (p->type) {
    case 'f': {
      uint32_t u = rd32(raw + 4 * (size_t)k);
      float f;
      memcpy(&f, &u, 4);
      d[k] = f;
      break;
    }
    case 'd': {
      uint64_t u = rd64(raw + 8 * (size_t)k);
      memcpy(&d[k], &u, 8);
      break;
    }
    case 'l':
      d[k] = (double)(int64_t)rd64(raw + 8 * (size_t)k);
      break;
    case 'i':
      d[k] = (double)(int32_t)rd32(raw + 4 * (size_t)k);
      break;
    default:
      d[k] = raw[k];
      break;
    }
  }
  *out = d;
  *count = p->count;
  return true;
}

bool rk__fbx_prop_int64s(const rk__fbx_prop *p, int64_t **out, size_t *count, GError **error) {
  *out = NULL;
  *count = 0;
  if (!p) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "missing FBX array");
    return false;
  }
  int64_t v;
  if (rk__fbx_prop_int(p, &v)) {
    *out = g_new(int64_t, 1);
    **out = v;
    *count = 1;
    return true;
  }
  if (p->encoding == RK__FBX_ENCODING_TEXT)
    return decode_text(p, true, (void **)out, count, error);
  if (p->type != 'l' && p->type != 'i' && p->type != 'b') {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                "FBX property of type '%c' is not an integer array", p->type);
    return false;
  }
  size_t bytes = 0;
  g_autofree uint8_t *raw = array_bytes(p, &bytes, error);
  if (!raw)
    return false;
  int64_t *d = g_new(int64_t, p->count ? p->count : 1);
  for (uint32_t k = 0; k < p->count; k++)
    d[k] = p->type == 'l'   ? (int64_t)rd64(raw + 8 * (size_t)k)
           : p->type == 'i' ? (int64_t)(int32_t)rd32(raw + 4 * (size_t)k)
                            : (int64_t)raw[k];
  *out = d;
  *count = p->count;
  return true;
}

/* Depth-first walk of check_arrays: inflates every zlib array below n (path names n for
 * messages). */
static bool check_node_arrays(const rk__fbx_node *n, const char *path, GError **error) {
  for (size_t i = 0; i < n->n_props; i++) {
    const rk__fbx_prop *p = &n->props[i];
    if (p->encoding != 1 || !array_elem_size(p->type))
      continue;
    size_t bytes = 0;
    GError *e = NULL;
    uint8_t *raw = array_bytes(p, &bytes, &e);
    if (!raw) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "corrupt FBX record %s, property %zu: %s", path,
                  i, e->message);
      g_error_free(e);
      return false;
    }
    g_free(raw);
  }
  for (size_t c = 0; c < n->n_children; c++) {
    g_autofree char *child = g_strdup_printf("%s/%s", path, n->children[c].name);
    if (!check_node_arrays(&n->children[c], child, error))
      return false;
  }
  return true;
}

bool rk__fbx_tree_check_arrays(const rk__fbx_tree *tree, GError **error) {
  return !tree->binary || check_node_arrays(&tree->root, "", error);
}
