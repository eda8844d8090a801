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
