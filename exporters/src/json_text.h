/* Internal: JSON text of json-glib trees, written by rigkit (see json_text.c for why). Compiled
 * into the exporters library and into the command line, which both print JSON. */
#ifndef RK_JSON_TEXT_H
#define RK_JSON_TEXT_H

#include <json-glib/json-glib.h>
#include <stdbool.h>

/** JSON text of an object (members in insertion order), pretty-printed with 2-space indents or
 * compact; numbers are the shortest text that reads back to the same double, locale-independent.
 * The caller frees the result; *length (optional) receives its length. */
char *rk__json_object_to_text(JsonObject *root, bool pretty, size_t *length);
/** Appends the shortest JSON number text of a finite double ("null" otherwise). */
void rk__json_append_double(GString *out, double v);

#endif
