/* Internal: reading map/profile key files (humanoid.c [source]/[target], retarget.c [settings]). */
#ifndef RK_KEYFILE_H
#define RK_KEYFILE_H

#include <glib.h>

/* The unescaped value of group/key as a newly allocated string (g_free), or NULL with *why set to
 * a static reason ("the value is not UTF-8 text", "the value has an invalid escape sequence").
 * Escapes are checked before GLib parses them: g_key_file_get_string sets its error twice on some
 * malformed escapes (a GLib warning, found by fuzz_keyfile). */
char *rk__keyfile_string(GKeyFile *kf, const char *group, const char *key, const char **why);

#endif
