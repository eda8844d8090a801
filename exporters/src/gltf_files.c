/* The files of a glTF document: GLB container or .gltf text, companions (see gltf_files.h). */
#include "gltf_files.h"

#include "export_shared.h"

#include <string.h>

static void put_u32(guint8 *p, guint32 v) {
  p[0] = (guint8)v, p[1] = (guint8)(v >> 8), p[2] = (guint8)(v >> 16), p[3] = (guint8)(v >> 24);
}

rk__atomic_set *rk__gltf_files_stage(const rk__gltf_files *f, GError **error) {
  static const char spaces[3] = {' ', ' ', ' '}, zeros[3] = {0};
  const size_t bin_len = f->bin ? f->bin->len : 0;
  guint8 header[20], bin_header[8];
  rk__atomic_piece main[6], companion[1];
  size_t n_main = 0;
  g_autofree rk__atomic_output *out = g_new0(rk__atomic_output, 2 + f->n_extra);
  size_t n_out = 1;
  if (f->glb) {
    const size_t json_padded = (f->json_len + 3) & ~(size_t)3;
    const size_t bin_padded = (bin_len + 3) & ~(size_t)3;
    const size_t total = 12 + 8 + json_padded + (f->bin ? 8 + bin_padded : 0);
    if (total > G_MAXUINT32) {
      g_set_error(error, RK_ERROR, RK_ERROR_LIMIT,
                  "%s: %zu bytes is more than a GLB file can hold", f->path, total);
      return NULL;
    }
    memcpy(header, "glTF", 4);
    put_u32(header + 4, 2);
    put_u32(header + 8, (guint32)total);
    put_u32(header + 12, (guint32)json_padded);
    memcpy(header + 16, "JSON", 4);
    main[n_main++] = (rk__atomic_piece){header, 20};
    main[n_main++] = (rk__atomic_piece){f->json, f->json_len};
    main[n_main++] = (rk__atomic_piece){spaces, json_padded - f->json_len};
    if (f->bin) {
      put_u32(bin_header, (guint32)bin_padded);
      memcpy(bin_header + 4, "BIN\0", 4);
      main[n_main++] = (rk__atomic_piece){bin_header, 8};
      main[n_main++] = (rk__atomic_piece){f->bin->data, bin_len};
      main[n_main++] = (rk__atomic_piece){zeros, bin_padded - bin_len};
    }
  } else {
    main[n_main++] = (rk__atomic_piece){f->json, f->json_len};
    main[n_main++] = (rk__atomic_piece){"\n", 1};
    if (f->bin) {
      companion[0] = (rk__atomic_piece){f->bin->data, bin_len};
      out[n_out++] = (rk__atomic_output){f->bin_path, companion, 1};
    }
  }
  out[0] = (rk__atomic_output){f->path, main, n_main};
  for (size_t i = 0; i < f->n_extra; i++)
    out[n_out++] = f->extra[i];
  return rk__atomic_stage_files(out, n_out, error);
}

bool rk__gltf_files_write(const rk__gltf_files *f, GError **error) {
  rk__atomic_set *s = rk__gltf_files_stage(f, error);
  return s && rk__atomic_set_commit(s, error);
}

char *rk__gltf_bin_path(const char *path) {
  const char *dot = rk__export_path_extension(path);
  const size_t stem = dot ? (size_t)(dot - path) : strlen(path);
  return g_strdup_printf("%.*s.bin", (int)stem, path);
}
