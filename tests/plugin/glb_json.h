/* glb_json.h: a GLB file's JSON chunk and binary chunk, for the suites that check what an export
 * kept of a character's own document, and a GLB written from the two (a character edited in a
 * test). */
#ifndef RK_TEST_GLB_JSON_H
#define RK_TEST_GLB_JSON_H

#include <criterion/criterion.h>
#include <glib.h>
#include <json-glib/json-glib.h>
#include <rigkit/json_text.h>
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

/* Writes a GLB file of a JSON object and a binary chunk (each padded to 4 bytes). */
static inline void glb_write(const char *path, JsonObject *json, GBytes *bin) {
  g_autofree char *text = rk_json_object_to_text(json, false, NULL);
  GByteArray *out = g_byte_array_new();
  const guint32 jlen = (guint32)((strlen(text) + 3) & ~(size_t)3);
  const guint32 blen = (guint32)((g_bytes_get_size(bin) + 3) & ~(gsize)3);
  const guint32 head[5] = {0x46546C67u, 2, 12 + 8 + jlen + 8 + blen, jlen, 0x4E4F534Au};
  g_byte_array_append(out, (const guint8 *)head, sizeof head);
  g_byte_array_append(out, (const guint8 *)text, (guint)strlen(text));
  for (size_t i = strlen(text); i < jlen; i++)
    g_byte_array_append(out, (const guint8 *)" ", 1);
  const guint32 bhead[2] = {blen, 0x004E4942u};
  g_byte_array_append(out, (const guint8 *)bhead, sizeof bhead);
  g_byte_array_append(out, g_bytes_get_data(bin, NULL), (guint)g_bytes_get_size(bin));
  for (size_t i = g_bytes_get_size(bin); i < blen; i++)
    g_byte_array_append(out, (const guint8 *)"", 1);
  cr_assert(g_file_set_contents(path, (const char *)out->data, out->len, NULL), "%s", path);
  g_byte_array_unref(out);
}

#endif
