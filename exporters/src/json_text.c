/* JSON text of a json-glib tree, written by rigkit rather than by JsonGenerator (see
 * rigkit/json_text.h for why). */
#include <rigkit/json_text.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void put_indent(GString *out, bool pretty, unsigned depth) {
  if (!pretty)
    return;
  g_string_append_c(out, '\n');
  for (unsigned i = 0; i < depth; i++)
    g_string_append(out, "  ");
}

/* v with `digits` significant digits (%g style, C locale) into buf. */
static const char *format_digits(char *buf, size_t size, int digits, double v) {
  /* The formats themselves, not printed per value (one in six of a document's write). */
  static const char *const fmt[18] = {"%.0g",  "%.1g",  "%.2g",  "%.3g",  "%.4g",  "%.5g",
                                      "%.6g",  "%.7g",  "%.8g",  "%.9g",  "%.10g", "%.11g",
                                      "%.12g", "%.13g", "%.14g", "%.15g", "%.16g", "%.17g"};
  return g_ascii_formatd(buf, (gint)size, fmt[digits], v);
}

/* The fewest significant digits of v that read back as v, by bisection over printf's %.Ng and
 * g_ascii_strtod: what rk_json_append_double writes (the digits below find the same text faster
 * and hand this the values they cannot decide). If p digits read back, p + 1 do too (the nearest
 * decimal with more digits is no farther from v), so four or five formats a value instead of up
 * to 17. 17 digits always read back. */
static void append_by_printf(GString *out, double v) {
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  int lo = 1, hi = 17;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (g_ascii_strtod(format_digits(buf, sizeof buf, mid, v), NULL) == v)
      hi = mid;
    else
      lo = mid + 1;
  }
  g_string_append(out, format_digits(buf, sizeof buf, lo, v));
}

/* |v| to 17 significant digits, correctly rounded (one printf): |v| ~ d[0].d[1..16] x 10^e. */
typedef struct digits17 {
  char d[17];
  int e;
} digits17;

static bool digits_of(double v, digits17 *g) {
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  const char *p = g_ascii_formatd(buf, sizeof buf, "%.16e", fabs(v));
  for (int k = 0; k < 17; k++, p++) {
    if (*p == '.')
      p++;
    if (*p < '0' || *p > '9')
      return false;
    g->d[k] = *p;
  }
  if (*p != 'e')
    return false;
  g->e = atoi(p + 1);
  return true;
}

/* The p (< 17) significant digits of the exact |v| correctly rounded, from g: r[p] and *e. False
 * when g cannot tell: its digits after p are a 5 and zeros (the exact value may lie on either
 * side of that half, or on it). */
static bool round_digits(const digits17 *g, int p, char *r, int *e) {
  bool half = g->d[p] == '5';
  for (int k = p + 1; k < 17 && half; k++)
    half = g->d[k] == '0';
  if (half)
    return false;
  memcpy(r, g->d, (size_t)p);
  *e = g->e;
  if (g->d[p] >= '5') {
    int k = p - 1;
    while (k >= 0 && r[k] == '9')
      r[k--] = '0';
    if (k < 0) {
      r[0] = '1';
      (*e)++;
    } else {
      r[k]++;
    }
  }
  return true;
}

/* Whether digits r[p] x 10^(e - p + 1) read back as a (> 0): exactly when the integer of the
 * digits and the power of ten are exact doubles (one correctly rounded product or quotient, as
 * strtod gives), else by g_ascii_strtod. */
static bool reads_back(const char *r, int p, int e, double a) {
  static const double tens[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                  1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                  1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  uint64_t n = 0;
  for (int k = 0; k < p; k++)
    n = n * 10 + (uint64_t)(r[k] - '0');
  const int k = e - p + 1;
  if (n <= ((uint64_t)1 << 53) && k >= -22 && k <= 22)
    return (k >= 0 ? (double)n * tens[k] : (double)n / tens[-k]) == a;
  char buf[40];
  g_snprintf(buf, sizeof buf, "%" G_GUINT64_FORMAT "e%d", n, k);
  return g_ascii_strtod(buf, NULL) == a;
}

/* printf's %.pg of digits r[p] x 10^(e - p + 1) (negative when neg): fixed for -4 <= e < p, else
 * with an exponent of two digits or more; trailing zeros of the fraction and a bare point dropped. */
static void append_g(GString *out, bool neg, const char *r, int p, int e) {
  int len = p; /* the digits without trailing zeros */
  while (len > 1 && r[len - 1] == '0')
    len--;
  if (neg)
    g_string_append_c(out, '-');
  if (e < -4 || e >= p) {
    g_string_append_c(out, r[0]);
    if (len > 1) {
      g_string_append_c(out, '.');
      g_string_append_len(out, r + 1, len - 1);
    }
    g_string_append_printf(out, "e%c%02d", e < 0 ? '-' : '+', abs(e));
  } else if (e >= 0) {
    g_string_append_len(out, r, e + 1);
    if (len > e + 1) {
      g_string_append_c(out, '.');
      g_string_append_len(out, r + e + 1, len - e - 1);
    }
  } else {
    g_string_append(out, "0.");
    for (int k = 0; k < -e - 1; k++)
      g_string_append_c(out, '0');
    g_string_append_len(out, r, len);
  }
}

void rk_json_append_double(GString *out, double v) {
  if (!isfinite(v)) { /* JSON has no NaN/Inf; writers check values before they get here */
    g_string_append(out, "null");
    return;
  }
  if (v == 0) {
    g_string_append_c(out, '0');
    return;
  }
  /* append_by_printf's bisection on the digits of one printf. */
  digits17 g;
  char r[17];
  int e;
  if (!digits_of(v, &g)) {
    append_by_printf(out, v);
    return;
  }
  const double a = fabs(v);
  int lo = 1, hi = 17;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (!round_digits(&g, mid, r, &e)) {
      append_by_printf(out, v);
      return;
    }
    if (reads_back(r, mid, e, a))
      hi = mid;
    else
      lo = mid + 1;
  }
  if (lo == 17) {
    memcpy(r, g.d, 17);
    e = g.e;
  } else if (!round_digits(&g, lo, r, &e)) {
    append_by_printf(out, v);
    return;
  }
  append_g(out, v < 0, r, lo, e);
}

static void put_string(GString *out, const char *s) {
  g_autofree char *valid = g_utf8_make_valid(s ? s : "", -1);
  g_string_append_c(out, '"');
  for (const unsigned char *p = (const unsigned char *)valid; *p; p++) {
    switch (*p) {
    case '"':
      g_string_append(out, "\\\"");
      break;
    case '\\':
      g_string_append(out, "\\\\");
      break;
    case '\n':
      g_string_append(out, "\\n");
      break;
    case '\r':
      g_string_append(out, "\\r");
      break;
    case '\t':
      g_string_append(out, "\\t");
      break;
    default:
      if (*p < 0x20)
        g_string_append_printf(out, "\\u%04x", *p);
      else
        g_string_append_c(out, (char)*p);
    }
  }
  g_string_append_c(out, '"');
}

static void put_node(GString *out, JsonNode *node, bool pretty, unsigned depth);

static void put_object(GString *out, JsonObject *o, bool pretty, unsigned depth) {
  g_string_append_c(out, '{');
  JsonObjectIter it;
  const char *name;
  JsonNode *member;
  bool first = true;
  json_object_iter_init_ordered(&it, o);
  while (json_object_iter_next_ordered(&it, &name, &member)) {
    if (!first)
      g_string_append_c(out, ',');
    first = false;
    put_indent(out, pretty, depth + 1);
    put_string(out, name);
    g_string_append(out, pretty ? ": " : ":");
    put_node(out, member, pretty, depth + 1);
  }
  if (!first)
    put_indent(out, pretty, depth);
  g_string_append_c(out, '}');
}

static void put_array(GString *out, JsonArray *a, bool pretty, unsigned depth) {
  const guint n = json_array_get_length(a);
  /* Arrays of numbers stay on one line: a matrix or a vector reads better that way. */
  bool scalars = true;
  for (guint i = 0; i < n && scalars; i++)
    scalars = JSON_NODE_HOLDS_VALUE(json_array_get_element(a, i));
  g_string_append_c(out, '[');
  for (guint i = 0; i < n; i++) {
    if (i > 0)
      g_string_append(out, scalars && pretty ? ", " : ",");
    if (!scalars)
      put_indent(out, pretty, depth + 1);
    put_node(out, json_array_get_element(a, i), pretty, depth + 1);
  }
  if (n > 0 && !scalars)
    put_indent(out, pretty, depth);
  g_string_append_c(out, ']');
}

static void put_node(GString *out, JsonNode *node, bool pretty, unsigned depth) {
  switch (json_node_get_node_type(node)) {
  case JSON_NODE_OBJECT:
    put_object(out, json_node_get_object(node), pretty, depth);
    return;
  case JSON_NODE_ARRAY:
    put_array(out, json_node_get_array(node), pretty, depth);
    return;
  case JSON_NODE_NULL:
    g_string_append(out, "null");
    return;
  case JSON_NODE_VALUE:
    break;
  }
  switch (json_node_get_value_type(node) == G_TYPE_INT64    ? 0
          : json_node_get_value_type(node) == G_TYPE_DOUBLE ? 1
          : json_node_get_value_type(node) == G_TYPE_BOOLEAN ? 2
                                                              : 3) {
  case 0:
    g_string_append_printf(out, "%" G_GINT64_FORMAT, json_node_get_int(node));
    return;
  case 1:
    rk_json_append_double(out, json_node_get_double(node));
    return;
  case 2:
    g_string_append(out, json_node_get_boolean(node) ? "true" : "false");
    return;
  default:
    put_string(out, json_node_get_string(node));
    return;
  }
}

char *rk_json_object_to_text(JsonObject *root, bool pretty, size_t *length) {
  GString *out = g_string_sized_new(4096);
  g_autoptr(JsonNode) node = json_node_init_object(json_node_alloc(), root);
  put_node(out, node, pretty, 0);
  if (length)
    *length = out->len;
  return g_string_free(out, FALSE);
}
