/* glb_json.h: a GLB file's JSON chunk and binary chunk, for the suites that check what an export
 * kept of a character's own document. */
#ifndef RK_TEST_GLB_JSON_H
#define RK_TEST_GLB_JSON_H

#include <criterion/criterion.h>
#include <glib.h>
#include <json-glib/json-glib.h>
#include <string.h>

/* The JSON chunk of a GLB file, parsed (the caller unrefs the parser). */
static inline JsonObject *glb_json(const char *path, JsonParser **parser, GBytes **bin) {
  gsize len = 0;
  g_autofree char *bytes = NULL;
  cr_assert(g_file_get_contents(path, &bytes, &len, NULL), "%s", path);
  cr_assert_geq(len, 20u);
  guint32 jlen;
  memcpy(&jlen, bytes + 12, 4);
  cr_assert_leq(20u + jlen, len);
  *parser = json_parser_new();
  cr_assert(json_parser_load_from_data(*parser, bytes + 20, jlen, NULL), "%s: JSON chunk", path);
  guint32 blen = 0;
  if (20u + jlen + 8u <= len)
    memcpy(&blen, bytes + 20 + jlen, 4);
  *bin = g_bytes_new(bytes + 20 + jlen + 8, blen);
  return json_node_get_object(json_parser_get_root(*parser));
}

#endif
