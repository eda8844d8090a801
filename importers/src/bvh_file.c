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
  /* Product of the elementary rotations in channel order, each built from its half angle by
   * rk_sincos (within 2 ulp of libm's sin and cos, several times cheaper), the product written
   * without the elementary quaternion's zero terms. A zero angle (a third to a half of mocap
   * channels) is the identity: no sine, no product. */
  rk_quat q = rk_quat_identity();
  for (int k = 0; k < j->n_channels; k++) {
    const int ch = j->channels[k];
    const double h = 0.5 * row[k] * RK_DEG;
    if (ch < RK__BVH_XROT || h == 0)
      continue;
    double s, c;
    rk_sincos(h, &s, &c);
    const rk_quat p = q;
    if (ch == RK__BVH_XROT)
      q = (rk_quat){p.w * s + p.x * c, p.y * c + p.z * s, p.z * c - p.y * s, p.w * c - p.x * s};
    else if (ch == RK__BVH_YROT)
      q = (rk_quat){p.x * c - p.z * s, p.w * s + p.y * c, p.x * s + p.z * c, p.w * c - p.y * s};
    else
      q = (rk_quat){p.x * c + p.y * s, p.y * c - p.x * s, p.w * s + p.z * c, p.w * c - p.z * s};
  }
  return q;
}
