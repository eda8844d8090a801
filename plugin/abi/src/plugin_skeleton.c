/* A skeleton the host hands over (rk_plugin_skeleton: names, parents and rest poses in its own
 * order and space) checked and built into a canonical rk_skeleton, with the maps between the
 * host's joint order and the skeleton's preorder. Serves a session's target rig and a host clip's
 * source rig alike. */
#include "plugin_internal.h"

#include <string.h>

/* Checks one joint of the host's arrays; `what` starts every message ("target skeleton"). */
static int check_joint(const rk_plugin_skeleton *k, size_t i, const char *what, char *err,
                       size_t err_size) {
  const size_t n = k->joint_count;
  const char *name = k->names[i];
  if (!name || !*name)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_INVALID, "%s: joint %zu has %s name", what,
                           i, name ? "an empty" : "a NULL");
  if (strnlen(name, RK_SKELETON_MAX_NAME + 1) > RK_SKELETON_MAX_NAME)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_LIMIT,
                           "%s: joint %zu: name longer than %d bytes", what, i,
                           RK_SKELETON_MAX_NAME);
  if (!g_utf8_validate(name, -1, NULL))
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_INVALID,
                           "%s: joint %zu: name is not valid UTF-8", what, i);
  const int32_t p = k->parents[i];
  if (p < -1 || p >= (int32_t)n || p == (int32_t)i)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_INVALID,
                           "%s: joint '%s' (%zu): parent %d is out of range "
                           "(-1 or 0..%zu, not itself)",
                           what, name, i, (int)p, n - 1);
  const float *x = k->rest + i * RK_PLUGIN_TRS_FLOATS;
  for (int c = 0; c < RK_PLUGIN_TRS_FLOATS; c++)
    if (!isfinite(x[c]))
      return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_INVALID,
                             "%s: joint '%s': rest value %d is not finite", what, name, c);
  const double qn =
      sqrt((double)x[3] * x[3] + (double)x[4] * x[4] + (double)x[5] * x[5] + (double)x[6] * x[6]);
  if (qn < 1e-6)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_INVALID,
                           "%s: joint '%s': rest rotation (%g, %g, %g, %g) is not a quaternion",
                           what, name, x[3], x[4], x[5], x[6]);
  if (fabsf(x[7]) < 1e-9f || fabsf(x[8]) < 1e-9f || fabsf(x[9]) < 1e-9f)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_INVALID,
                           "%s: joint '%s': rest scale (%g, %g, %g) has a zero", what, name, x[7],
                           x[8], x[9]);
  if (k->flags && (k->flags[i] & ~(uint32_t)RK_PLUGIN_JOINT_END_SITE))
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "%s: joint '%s': unknown flags 0x%x", what, name, (unsigned)k->flags[i]);
  return RK_PLUGIN_OK;
}

int rk__plugin_host_rig_build(const rk_plugin_skeleton *k, const rk_plugin_space *space,
                              double mpu, const char *what, rk__plugin_host_rig *out, char *err,
                              size_t err_size) {
  memset(out, 0, sizeof *out);
  if (k->joint_count == 0 || k->joint_count > RK_SKELETON_MAX_JOINTS)
    return rk__plugin_fail(err, err_size,
                           k->joint_count ? RK_PLUGIN_ERR_LIMIT : RK_PLUGIN_ERR_INVALID,
                           "%s: %u joints (must be 1 to %u)", what, k->joint_count,
                           RK_SKELETON_MAX_JOINTS);
  if (!k->names || !k->parents || !k->rest)
    return rk__plugin_fail(err, err_size, RK_PLUGIN_ERR_ARGUMENT,
                           "%s: names, parents and rest are required (%s is NULL)", what,
                           !k->names     ? "names"
                           : !k->parents ? "parents"
                                         : "rest");
  const size_t n = k->joint_count;
  for (size_t i = 0; i < n; i++) {
    int st = check_joint(k, i, what, err, err_size);
    if (st != RK_PLUGIN_OK)
      return st;
  }
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  for (size_t i = 0; i < n; i++) {
    const bool root = k->parents[i] < 0;
    rk_transform rest =
        rk__plugin_to_canonical(k->rest + i * RK_PLUGIN_TRS_FLOATS, space, mpu, root);
    unsigned fl = (k->flags && (k->flags[i] & RK_PLUGIN_JOINT_END_SITE)) ? RK_SKELETON_END_SITE : 0;
    rk_skeleton_builder_add_joint(b, k->names[i], k->parents[i], &rest, fl);
  }
  out->host_to_skel = g_new(int, n);
  g_autoptr(GError) e = NULL;
  out->skeleton = rk_skeleton_builder_build(b, out->host_to_skel, &e);
  if (!out->skeleton) {
    rk__plugin_host_rig_clear(out);
    g_prefix_error(&e, "%s: ", what);
    return rk__plugin_fail_gerror(err, err_size, e);
  }
  out->n = n;
  out->skel_to_host = g_new(int, n);
  out->host_parents = g_new(int32_t, n);
  out->host_flags = g_new(uint32_t, n);
  for (size_t i = 0; i < n; i++) {
    out->skel_to_host[out->host_to_skel[i]] = (int)i;
    out->host_parents[i] = k->parents[i];
    out->host_flags[i] = k->flags ? k->flags[i] : 0;
  }
  return RK_PLUGIN_OK;
}

void rk__plugin_host_rig_clear(rk__plugin_host_rig *r) {
  rk_skeleton_unref(r->skeleton);
  g_free(r->host_to_skel);
  g_free(r->skel_to_host);
  g_free(r->host_parents);
  g_free(r->host_flags);
  memset(r, 0, sizeof *r);
}
