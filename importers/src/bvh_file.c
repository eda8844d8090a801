/* A BVH file as the reader holds it (bvh_file.h). */
#include "bvh_file.h"

#include <stdarg.h>
#include <string.h>

static void joint_clear(gpointer p) {
  g_free(((rk__bvh_joint *)p)->name);
}

void rk__bvh_file_init(rk__bvh_file *b, const char *text, size_t size) {
  memset(b, 0, sizeof *b);
  b->lx.p = text;
  b->lx.end = text + size;
  b->lx.line = 1;
  if (size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
    b->lx.p += 3;
  b->joints = g_array_new(FALSE, TRUE, sizeof(rk__bvh_joint));
  g_array_set_clear_func(b->joints, joint_clear);
}

void rk__bvh_file_clear(rk__bvh_file *b) {
  g_array_unref(b->joints);
  g_free(b->data);
  memset(b, 0, sizeof *b);
}

bool rk__bvh_fail(rk__bvh_file *b, GError **error, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error(error, RK_ERROR, code, "line %u: %s", b->lx.line, msg);
  return false;
}

bool rk__bvh_has_position(const rk__bvh_joint *j) {
  for (int k = 0; k < j->n_channels; k++)
    if (j->channels[k] <= RK__BVH_ZPOS)
      return true;
  return false;
}

/* Local translation of joint j in frame f under a root-offset reading (add = OFFSET + channels). */
rk_vec3 rk__bvh_joint_translation(const rk__bvh_file *b, const rk__bvh_joint *j, size_t f,
                                  bool add) {
  double t[3] = {j->offset[0], j->offset[1], j->offset[2]};
  const double *row = b->data + f * b->columns + j->first_channel;
  for (int k = 0; k < j->n_channels; k++)
    if (j->channels[k] <= RK__BVH_ZPOS)
      t[j->channels[k]] = add ? j->offset[j->channels[k]] + row[k] : row[k];
  return rk_vec3_make(t[0], t[1], t[2]);
}

rk_quat rk__bvh_joint_rotation(const rk__bvh_joint *j, const double *row) {
  int axes[RK__BVH_MAX_CHANNELS];
  double deg[RK__BVH_MAX_CHANNELS];
  size_t n = 0;
  for (int k = 0; k < j->n_channels; k++)
    if (j->channels[k] >= RK__BVH_XROT) {
      axes[n] = (int)(j->channels[k] - RK__BVH_XROT);
      deg[n++] = row[k];
    }
  return rk_euler_axes_deg_to_quat(axes, deg, n);
}

bool rk__bvh_joint_euler(const rk__bvh_joint *j, rk_euler_order *order, size_t *column) {
  int k = 0;
  while (k < j->n_channels && j->channels[k] < RK__BVH_XROT)
    k++;
  if (j->n_channels - k != 3 || j->channels[k + 1] < RK__BVH_XROT ||
      j->channels[k + 2] < RK__BVH_XROT)
    return false;
  for (int o = 0; o < RK_EULER_N_ORDERS; o++) {
    int ax[3];
    rk_euler_order_axes((rk_euler_order)o, ax);
    if (ax[0] == (int)(j->channels[k] - RK__BVH_XROT) &&
        ax[1] == (int)(j->channels[k + 1] - RK__BVH_XROT) &&
        ax[2] == (int)(j->channels[k + 2] - RK__BVH_XROT)) {
      *order = (rk_euler_order)o;
      *column = (size_t)k;
      return true;
    }
  }
  return false;
}
