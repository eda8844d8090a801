/* JSON output helpers of the command line (json-glib builders, printed with full double
 * precision). */
#ifndef RK_CLI_JSON_H
#define RK_CLI_JSON_H

#include <json-glib/json-glib.h>
#include <rigkit/json_text.h>
#include <rigkit/rigkit.h>
#include <stdio.h>

/** Adds a number value (null when it is not finite: JSON has no NaN). */
void rk__json_add_number(JsonBuilder *b, double v);
/** Adds "name": [x, y, z] to the current object of b. */
void rk__json_add_vec3(JsonBuilder *b, const char *name, rk_vec3 v);
/** Adds "name": [x, y, z, w] to the current object of b. */
void rk__json_add_quat(JsonBuilder *b, const char *name, rk_quat q);
/** Adds "name": number, or null when the value is not finite (JSON has no NaN). */
void rk__json_add_double(JsonBuilder *b, const char *name, double v);
/** Writes the builder's root, pretty-printed when `pretty`, with a final newline; returns false
 * when writing fails (e.g. a closed pipe). */
bool rk__json_print(JsonBuilder *b, FILE *out, bool pretty);

#endif
