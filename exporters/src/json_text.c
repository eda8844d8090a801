/* JSON text of a json-glib tree, written by rigkit rather than by JsonGenerator (see
 * rigkit/json_text.h for why). */
#include <rigkit/json_text.h>

#include <math.h>

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

void rk_json_append_double(GString *out, double v) {
  if (!isfinite(v)) { /* JSON has no NaN/Inf; writers check values before they get here */
    g_string_append(out, "null");
    return;
  }
  if (v == 0) {
    g_string_append_c(out, '0');
    return;
  }
  /* The fewest significant digits that read back as v. If p digits do, p + 1 do too (the nearest
   * decimal with more digits is no farther from v), so the count is found by bisection: four or
   * five formats a value instead of up to 17. 17 digits always read back. */
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
