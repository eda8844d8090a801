/* rigkit/json_text.h: number text, strings, layout, and that json-glib reads every text back. */
#include "rk_test.h"

#include <float.h>
#include <rigkit/json_text.h>

static char *number_text(double v) {
  GString *s = g_string_new(NULL);
  rk_json_append_double(s, v);
  return g_string_free(s, FALSE);
}

Test(json_text, numbers_are_the_shortest_text_that_reads_back) {
  static const struct {
    double v;
    const char *text;
  } cases[] = {{0.0, "0"},   {-0.0, "0"},      {1.0, "1"},      {-2.5, "-2.5"},
               {0.1, "0.1"}, {1e-08, "1e-08"}, {1e21, "1e+21"}, {1.0 / 3.0, "0.3333333333333333"}};
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *t = number_text(cases[i].v);
    cr_assert_str_eq(t, cases[i].text, "%.17g", cases[i].v);
  }
  const double round_trip[] = {DBL_MIN, DBL_MAX, -DBL_MAX, 4.9e-324, 123456.789, 0.3, 2e-308};
  for (size_t i = 0; i < G_N_ELEMENTS(round_trip); i++) {
    g_autofree char *t = number_text(round_trip[i]);
    cr_assert_eq(g_ascii_strtod(t, NULL), round_trip[i], "%s", t);
  }
}

Test(json_text, non_finite_numbers_are_null) {
  const double bad[] = {NAN, INFINITY, -INFINITY};
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autofree char *t = number_text(bad[i]);
    cr_assert_str_eq(t, "null");
  }
}

static JsonObject *sample(void) {
  JsonObject *o = json_object_new();
  json_object_set_string_member(o, "name", "a \"b\"\n\t\\ \x01");
  json_object_set_int_member(o, "count", -7);
  json_object_set_boolean_member(o, "ok", TRUE);
  json_object_set_null_member(o, "none");
  json_object_set_double_member(o, "small", 1e-08);
  JsonArray *v = json_array_new();
  json_array_add_double_element(v, 0.5);
  json_array_add_int_element(v, 2);
  json_object_set_array_member(o, "v", v);
  JsonObject *inner = json_object_new();
  json_object_set_object_member(o, "inner", inner);
  JsonArray *objects = json_array_new();
  json_array_add_object_element(objects, json_object_new());
  json_object_set_array_member(o, "objects", objects);
  return o;
}

Test(json_text, compact_text) {
  g_autoptr(JsonObject) o = sample();
  size_t len = 0;
  g_autofree char *t = rk_json_object_to_text(o, false, &len);
  cr_assert_str_eq(t, "{\"name\":\"a \\\"b\\\"\\n\\t\\\\ \\u0001\",\"count\":-7,\"ok\":true,"
                      "\"none\":null,\"small\":1e-08,\"v\":[0.5,2],\"inner\":{},\"objects\":[{}]}");
  cr_assert_eq(len, strlen(t));
}

Test(json_text, pretty_text_keeps_number_arrays_on_one_line) {
  g_autoptr(JsonObject) o = sample();
  g_autofree char *t = rk_json_object_to_text(o, true, NULL);
  cr_assert_str_eq(t, "{\n"
                      "  \"name\": \"a \\\"b\\\"\\n\\t\\\\ \\u0001\",\n"
                      "  \"count\": -7,\n"
                      "  \"ok\": true,\n"
                      "  \"none\": null,\n"
                      "  \"small\": 1e-08,\n"
                      "  \"v\": [0.5, 2],\n"
                      "  \"inner\": {},\n"
                      "  \"objects\": [\n"
                      "    {}\n"
                      "  ]\n"
                      "}");
}

Test(json_text, json_glib_reads_both_layouts_back) {
  g_autoptr(JsonObject) o = sample();
  for (int pretty = 0; pretty < 2; pretty++) {
    size_t len = 0;
    g_autofree char *t = rk_json_object_to_text(o, pretty, &len);
    g_autoptr(JsonParser) p = json_parser_new();
    g_autoptr(GError) e = NULL;
    cr_assert(json_parser_load_from_data(p, t, (gssize)len, &e), "%s\n%s", e ? e->message : "", t);
    JsonObject *back = json_node_get_object(json_parser_get_root(p));
    cr_assert_str_eq(json_object_get_string_member(back, "name"), "a \"b\"\n\t\\ \x01");
    cr_assert_eq(json_object_get_double_member(back, "small"), 1e-08);
    cr_assert_eq(json_object_get_int_member(back, "count"), -7);
  }
}

/* The text by printf's %.Ng and strtod alone: the fewest digits that read back, searched from 1. */
static char *printf_text(double v) {
  if (v == 0)
    return g_strdup("0");
  char buf[G_ASCII_DTOSTR_BUF_SIZE], fmt[8];
  for (int p = 1;; p++) {
    g_snprintf(fmt, sizeof fmt, "%%.%dg", p);
    if (g_ascii_strtod(g_ascii_formatd(buf, sizeof buf, fmt, v), NULL) == v || p == 17)
      return g_strdup(buf);
  }
}

/* The digits found from one printf give printf's own text: random doubles of every exponent,
 * float32 values (what accessors hold), short decimals, integers, powers of two and ten and their
 * neighbours, subnormals. */
Test(json_text, numbers_are_printf_text) {
  GRand *rng = g_rand_new_with_seed(22);
  for (int i = 0; i < 300000; i++) {
    double v;
    const int kind = i % 6;
    if (kind == 0) {
      uint64_t bits = ((uint64_t)g_rand_int(rng) << 32) | g_rand_int(rng);
      memcpy(&v, &bits, sizeof v);
      if (!isfinite(v))
        continue;
    } else if (kind == 1) {
      v = (float)g_rand_double_range(rng, -1000, 1000);
    } else if (kind == 2) {
      v = (double)g_rand_int_range(rng, -100000, 100000) / pow(10, g_rand_int_range(rng, 0, 9));
    } else if (kind == 3) {
      v = (double)(int64_t)(((uint64_t)g_rand_int(rng) << 32) | g_rand_int(rng)) /
          ldexp(1, g_rand_int_range(rng, 0, 64));
    } else if (kind == 4) {
      const double b = g_rand_boolean(rng) ? ldexp(1, g_rand_int_range(rng, -1074, 1024))
                                           : pow(10, g_rand_int_range(rng, -300, 300));
      v = nextafter(b, g_rand_int_range(rng, 0, 3) == 0 ? 0 : g_rand_boolean(rng) ? INFINITY : b);
    } else {
      v = (float)ldexp(g_rand_double(rng), g_rand_int_range(rng, -149, 128));
    }
    if (!isfinite(v))
      continue;
    g_autofree char *got = number_text(v), *want = printf_text(v);
    cr_assert_str_eq(got, want, "%a", v);
  }
  g_rand_free(rng);
}
