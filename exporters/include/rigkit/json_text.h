/* rigkit/json_text.h: JSON text of json-glib trees, written by rigkit (librigkit_exporters).
 *
 * json-glib 1.6's generator prints a double such as 1e-08 as "1e-08.0" (it appends ".0" to any
 * number without a '.', even after an exponent), which is not JSON. These functions write numbers
 * as the shortest decimal text that reads back to the same double, independent of the C locale,
 * so the text is valid, compact and deterministic. The glTF writer and the rigkit command line
 * print their JSON with them.
 *
 * Index: rk_json_object_to_text, rk_json_append_double
 */
#ifndef RIGKIT_JSON_TEXT_H
#define RIGKIT_JSON_TEXT_H

#include <json-glib/json-glib.h>
#include <rigkit/api.h>
#include <stdbool.h>
#include <stddef.h>

G_BEGIN_DECLS

/** JSON text of an object (members in insertion order), pretty-printed with 2-space indents (arrays
 * of numbers on one line) or compact; strings are made valid UTF-8. The caller frees the result
 * with g_free; *length (optional) receives its length. Never fails. */
RK_API char *rk_json_object_to_text(JsonObject *root, bool pretty, size_t *length);
/** Appends to out the shortest JSON number text that reads back as v ("null" when v is not
 * finite: JSON has no NaN or infinity). */
RK_API void rk_json_append_double(GString *out, double v);

G_END_DECLS

#endif
