/* JSON output helpers of the command line. */
#include "cli_json.h"

void rk__json_add_number(JsonBuilder *b, double v) {
  if (isfinite(v))
    json_builder_add_double_value(b, v);
  else
    json_builder_add_null_value(b);
}

void rk__json_add_vec3(JsonBuilder *b, const char *name, rk_vec3 v) {
  json_builder_set_member_name(b, name);
  json_builder_begin_array(b);
  rk__json_add_number(b, v.x);
  rk__json_add_number(b, v.y);
  rk__json_add_number(b, v.z);
  json_builder_end_array(b);
}

void rk__json_add_quat(JsonBuilder *b, const char *name, rk_quat q) {
  json_builder_set_member_name(b, name);
  json_builder_begin_array(b);
  rk__json_add_number(b, q.x);
  rk__json_add_number(b, q.y);
  rk__json_add_number(b, q.z);
  rk__json_add_number(b, q.w);
  json_builder_end_array(b);
}

void rk__json_add_double(JsonBuilder *b, const char *name, double v) {
  json_builder_set_member_name(b, name);
  rk__json_add_number(b, v);
}

bool rk__json_print(JsonBuilder *b, FILE *out, bool pretty) {
  /* Not JsonGenerator: json-glib 1.6 prints 1e-08 as "1e-08.0" (invalid JSON); the exporters'
   * writer prints the shortest exact number text. */
  g_autoptr(JsonNode) root = json_builder_get_root(b);
  size_t len = 0;
  g_autofree char *text = rk_json_object_to_text(json_node_get_object(root), pretty, &len);
  return fwrite(text, 1, len, out) == len && fputc('\n', out) != EOF && fflush(out) == 0;
}
