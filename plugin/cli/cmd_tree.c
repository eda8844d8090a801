/* `rigkit tree FILE [--json]`: the kinematic tree of a file's skeleton: links, joints (type, axis,
 * DOF index, hinge fits), junctions and their constraints, loops, the DOF count, and chains with
 * their DH tables. */
#include "cli.h"
#include "cli_json.h"
#include <rigkit/json_text.h>

#include <json-glib/json-glib.h>
#include <rigkit/rigkit.h>
#include <string.h>

/* The importers library is optional (a core-only build has no importers/src): its include
 * directory comes with its target, so its presence tells whether files can be read. */
#if defined(__has_include)
#if __has_include(<rigkit/importers.h>)
#include <rigkit/importers.h>
#define RK_TREE_HAVE_IMPORTERS 1
#endif
#endif

#define CMD "tree"

typedef struct tree_args {
  gboolean json;
  char *clip;
  gboolean no_motion;
  gboolean limits_from_clip;
  char **chains; /* "BASE:TIP" */
  char **loops;  /* "A:B[:position|rigid]" */
  double hinge_tolerance_deg;
} tree_args;

static const char *link_name(const rk_tree *t, int link) {
  return link < 0 ? "world" : rk_tree_link_name(t, (size_t)link);
}

static int find_link_or_world(const rk_tree *t, const char *name) {
  if (strcmp(name, "world") == 0)
    return -1;
  return rk_tree_find_link(t, name);
}

/* ---- chains and loops requested on the command line ------------------------------------------ */

/* Default chains: the world to every leaf of the skeleton whose path moves. */
static GPtrArray *default_chains(const rk_tree *t, GError **error) {
  GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)rk_chain_free);
  const size_t n = rk_tree_link_count(t);
  for (size_t j = 0; j < n; j++) {
    if (rk_tree_link_subtree_end(t, j) != j + 1 || rk_tree_link_dof_count(t, j) == 0)
      continue;
    rk_chain *c = rk_chain_new(t, -1, (int)j, error);
    if (!c) {
      g_ptr_array_unref(out);
      return NULL;
    }
    g_ptr_array_add(out, c);
  }
  return out;
}

static bool parse_chains(const rk_tree *t, char **specs, GPtrArray *out, GError **error) {
  for (char **s = specs; s && *s; s++) {
    g_auto(GStrv) parts = g_strsplit(*s, ":", 2);
    if (g_strv_length(parts) != 2) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "--chain '%s': expected BASE:TIP", *s);
      return false;
    }
    const int base = find_link_or_world(t, parts[0]), tip = rk_tree_find_link(t, parts[1]);
    if ((base < 0 && strcmp(parts[0], "world") != 0) || tip < 0) {
      g_set_error(error, RK_ERROR, RK_ERROR_NOT_FOUND, "--chain '%s': no link named '%s'", *s,
                  tip < 0 ? parts[1] : parts[0]);
      return false;
    }
    rk_chain *c = rk_chain_new(t, base, tip, error);
    if (!c)
      return false;
    g_ptr_array_add(out, c);
  }
  return true;
}

static bool parse_loops(const rk_tree *t, char **specs, const double *q, GArray *out,
                        GError **error) {
  for (char **s = specs; s && *s; s++) {
    g_auto(GStrv) parts = g_strsplit(*s, ":", 3);
    const guint np = g_strv_length(parts);
    if (np < 2) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "--loop '%s': expected A:B[:position|rigid]",
                  *s);
      return false;
    }
    rk_loop_kind kind = RK_LOOP_RIGID;
    if (np == 3) {
      if (strcmp(parts[2], "position") == 0)
        kind = RK_LOOP_POSITION;
      else if (strcmp(parts[2], "rigid") != 0) {
        g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                    "--loop '%s': kind must be position or rigid", *s);
        return false;
      }
    }
    const int a = rk_tree_find_link(t, parts[0]), b = find_link_or_world(t, parts[1]);
    if (a < 0 || (b < 0 && strcmp(parts[1], "world") != 0)) {
      g_set_error(error, RK_ERROR, RK_ERROR_NOT_FOUND, "--loop '%s': no link named '%s'", *s,
                  a < 0 ? parts[0] : parts[1]);
      return false;
    }
    rk_loop l = rk_loop_closing(t, kind, q, a, rk_vec3_make(0, 0, 0), b);
    if (!rk_loop_validate(t, &l, error))
      return false;
    g_array_append_val(out, l);
  }
  return true;
}

/* ---- JSON ------------------------------------------------------------------------------------ */

/* "key": the string value, or null for NULL. */
static void json_string(JsonBuilder *b, const char *key, const char *value) {
  json_builder_set_member_name(b, key);
  if (value)
    json_builder_add_string_value(b, value);
  else
    json_builder_add_null_value(b);
}

static void json_int(JsonBuilder *b, const char *key, gint64 value) {
  json_builder_set_member_name(b, key);
  json_builder_add_int_value(b, value);
}

static void json_mat4(JsonBuilder *b, const char *key, const rk_mat4 *m) {
  json_builder_set_member_name(b, key);
  json_builder_begin_array(b); /* rows */
  for (int r = 0; r < 4; r++) {
    json_builder_begin_array(b);
    for (int c = 0; c < 4; c++)
      rk__json_add_number(b, rk_mat4_at(m, r, c));
    json_builder_end_array(b);
  }
  json_builder_end_array(b);
}

static void json_dh(JsonBuilder *b, const rk_tree *t, const rk_chain *c, rk_dh_convention conv) {
  const rk_dh_chain *dh = rk_chain_dh(c, conv);
  json_builder_begin_object(b);
  json_mat4(b, "base", &dh->base);
  json_mat4(b, "tool", &dh->tool);
  json_builder_set_member_name(b, "rows");
  json_builder_begin_array(b);
  for (size_t i = 0; i < dh->count; i++) {
    const int d = rk_chain_dofs(c)[i];
    json_builder_begin_object(b);
    json_int(b, "dof", d);
    json_string(b, "name", rk_tree_dof_name(t, (size_t)d));
    json_string(b, "type", dh->rows[i].type == RK_DH_REVOLUTE ? "revolute" : "prismatic");
    rk__json_add_double(b, "a", dh->rows[i].a);
    rk__json_add_double(b, "alpha", dh->rows[i].alpha);
    rk__json_add_double(b, "d", dh->rows[i].d);
    rk__json_add_double(b, "theta", dh->rows[i].theta);
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  json_builder_end_object(b);
}

static void json_chain(JsonBuilder *b, const rk_tree *t, const rk_chain *c) {
  json_builder_begin_object(b);
  json_string(b, "name", rk_chain_name(c));
  json_string(b, "base", link_name(t, rk_chain_base_link(c)));
  json_string(b, "tip", link_name(t, rk_chain_tip_link(c)));
  json_int(b, "dof_count", (gint64)rk_chain_dof_count(c));
  json_builder_set_member_name(b, "dh_standard");
  json_dh(b, t, c, RK_DH_STANDARD);
  json_builder_set_member_name(b, "dh_modified");
  json_dh(b, t, c, RK_DH_MODIFIED);
  json_builder_end_object(b);
}

typedef struct loop_report {
  size_t rows, rank;
  long effective_dof;
  double residual;
} loop_report;

/* The "joint" object of a link: type, DOFs, axis or Euler order, and the hinge fit, if any. */
static void json_joint(JsonBuilder *b, const rk_joint *J) {
  json_builder_set_member_name(b, "joint");
  json_builder_begin_object(b);
  json_string(b, "type", rk_joint_type_name(J->type));
  json_string(b, "origin", rk_joint_origin_name(J->origin));
  json_builder_set_member_name(b, "dof_index");
  if (J->dof_count > 0)
    json_builder_add_int_value(b, J->dof_offset);
  else
    json_builder_add_null_value(b);
  json_int(b, "dof_count", J->dof_count);
  if (J->type == RK_JOINT_REVOLUTE || J->type == RK_JOINT_PRISMATIC)
    rk__json_add_vec3(b, "axis", J->axis);
  if (J->type == RK_JOINT_BALL || J->type == RK_JOINT_FREE)
    json_string(b, "euler_order", rk_euler_order_name(J->order));
  if (J->fit_tested) {
    json_builder_set_member_name(b, "hinge_fit");
    json_builder_begin_object(b);
    rk__json_add_vec3(b, "axis", J->fit_axis);
    rk__json_add_double(b, "residual_max_deg", J->fit_residual_max / RK_DEG);
    rk__json_add_double(b, "residual_rms_deg", J->fit_residual_rms / RK_DEG);
    rk__json_add_double(b, "range_deg", J->fit_range / RK_DEG);
    rk__json_add_double(b, "motion_deg", J->motion_range / RK_DEG);
    json_int(b, "keys", J->fit_keys);
    json_builder_end_object(b);
  }
  if (J->hinge_hint) {
    json_builder_set_member_name(b, "hinge_hint");
    json_builder_add_boolean_value(b, TRUE);
  }
  json_builder_end_object(b);
}

static void json_links(JsonBuilder *b, const rk_tree *t) {
  json_builder_set_member_name(b, "links");
  json_builder_begin_array(b);
  for (size_t j = 0; j < rk_tree_link_count(t); j++) {
    const rk_joint *J = rk_tree_joint(t, j);
    json_builder_begin_object(b);
    json_string(b, "name", rk_tree_link_name(t, j));
    json_string(b, "parent", J->parent >= 0 ? rk_tree_link_name(t, (size_t)J->parent) : NULL);
    json_joint(b, J);
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
}

static void json_dofs(JsonBuilder *b, const rk_tree *t) {
  json_builder_set_member_name(b, "dofs");
  json_builder_begin_array(b);
  for (size_t k = 0; k < rk_tree_dof_count(t); k++) {
    const rk_dof *d = rk_tree_dof(t, k);
    json_builder_begin_object(b);
    json_int(b, "index", (gint64)k);
    json_string(b, "name", rk_tree_dof_name(t, k));
    json_string(b, "kind", d->kind == RK_DOF_ROTATION ? "rotation" : "translation");
    rk__json_add_double(b, "lower", d->lower);
    rk__json_add_double(b, "upper", d->upper);
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
}

static void json_constraint(JsonBuilder *b, const rk_tree *t, const rk_junction *J,
                            const rk_junction_constraint *c) {
  json_builder_begin_object(b);
  json_string(b, "chain_a", rk_chain_name(J->chains[c->chain_a]));
  json_string(b, "chain_b", rk_chain_name(J->chains[c->chain_b]));
  json_int(b, "row", c->row);
  json_string(b, "dof", c->dof >= 0 ? rk_tree_dof_name(t, (size_t)c->dof) : NULL);
  json_builder_set_member_name(b, "planar");
  json_builder_add_boolean_value(b, c->planar);
  if (c->planar) {
    rk__json_add_double(b, "phi", c->phi);
    rk__json_add_double(b, "dz", c->dz);
  }
  json_mat4(b, "offset", &c->offset);
  json_builder_end_object(b);
}

static void json_junctions(JsonBuilder *b, const rk_tree *t) {
  json_builder_set_member_name(b, "junctions");
  json_builder_begin_array(b);
  for (size_t i = 0; i < rk_tree_junction_count(t); i++) {
    const rk_junction *J = rk_tree_junction(t, i);
    json_builder_begin_object(b);
    json_string(b, "link", rk_tree_link_name(t, (size_t)J->link));
    json_builder_set_member_name(b, "chains");
    json_builder_begin_array(b);
    for (size_t c = 0; c < J->chain_count; c++)
      json_builder_add_string_value(b, rk_chain_name(J->chains[c]));
    json_builder_end_array(b);
    json_builder_set_member_name(b, "constraints");
    json_builder_begin_array(b);
    for (size_t k = 0; k < J->constraint_count; k++)
      json_constraint(b, t, J, &J->constraints[k]);
    json_builder_end_array(b);
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
}

/* The loops and, when there are any, their closure at the rest pose. */
static void json_loops(JsonBuilder *b, const rk_tree *t, const GArray *loops,
                       const loop_report *lr) {
  json_builder_set_member_name(b, "loops");
  json_builder_begin_array(b);
  for (guint i = 0; i < loops->len; i++) {
    const rk_loop *l = &g_array_index(loops, rk_loop, i);
    json_builder_begin_object(b);
    json_string(b, "a", link_name(t, l->link_a));
    json_string(b, "b", link_name(t, l->link_b));
    json_string(b, "kind", l->kind == RK_LOOP_RIGID ? "rigid" : "position");
    json_int(b, "rows", (gint64)rk_loop_rows(l));
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  if (loops->len) {
    json_builder_set_member_name(b, "closure");
    json_builder_begin_object(b);
    json_int(b, "rows", (gint64)lr->rows);
    json_int(b, "rank", (gint64)lr->rank);
    rk__json_add_double(b, "residual", lr->residual);
    json_int(b, "effective_dof", lr->effective_dof);
    json_builder_end_object(b);
  }
}

/* The chains asked for, then the junction chains not among them. */
static void json_chains(JsonBuilder *b, const rk_tree *t, GPtrArray *chains) {
  json_builder_set_member_name(b, "chains");
  json_builder_begin_array(b);
  for (guint i = 0; i < chains->len; i++)
    json_chain(b, t, g_ptr_array_index(chains, i));
  for (size_t i = 0; i < rk_tree_junction_count(t); i++) {
    const rk_junction *J = rk_tree_junction(t, i);
    for (size_t c = 0; c < J->chain_count; c++) {
      bool dup = false; /* junction chains usually end at leaves already listed */
      for (guint k = 0; k < chains->len && !dup; k++) {
        const rk_chain *o = g_ptr_array_index(chains, k);
        dup = rk_chain_base_link(o) == rk_chain_base_link(J->chains[c]) &&
              rk_chain_tip_link(o) == rk_chain_tip_link(J->chains[c]);
      }
      if (!dup)
        json_chain(b, t, J->chains[c]);
    }
  }
  json_builder_end_array(b);
}

static char *tree_json(const rk_tree *t, const char *path, const char *motion, GPtrArray *chains,
                       const GArray *loops, const loop_report *lr) {
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  json_string(b, "file", path);
  json_string(b, "motion", motion);
  json_int(b, "dof_count", (gint64)rk_tree_dof_count(t));
  json_links(b, t);
  json_dofs(b, t);
  json_junctions(b, t);
  json_loops(b, t, loops, lr);
  json_chains(b, t, chains);
  json_builder_end_object(b);
  g_autoptr(JsonNode) root = json_builder_get_root(b);
  return rk_json_object_to_text(json_node_get_object(root), true, NULL);
}

/* ---- text ------------------------------------------------------------------------------------ */

/* Round-off below 1e-12 prints as 0 (not -0.00000). */
static double clean(double v) { return fabs(v) < 1e-12 ? 0.0 : v; }

static void print_dh(const rk_tree *t, const rk_chain *c) {
  const rk_dh_chain *dh = rk_chain_dh(c, RK_DH_STANDARD), *mh = rk_chain_dh(c, RK_DH_MODIFIED);
  printf("  %s: %zu DOF\n", rk_chain_name(c), rk_chain_dof_count(c));
  if (dh->count == 0)
    return;
  printf("    %3s  %-24s %-9s | standard: %9s %9s %9s %9s | modified: %9s %9s %9s %9s\n", "i",
         "dof", "type", "a", "alpha", "d", "theta", "a(i-1)", "alpha(i-1)", "d", "theta");
  for (size_t i = 0; i < dh->count; i++) {
    const rk_dh_row *r = &dh->rows[i], *m = &mh->rows[i];
    printf("    %3zu  %-24s %-9s |           %9.5f %9.4f %9.5f %9.4f |           %9.5f %9.4f %9.5f "
           "%9.4f\n",
           i + 1, rk_tree_dof_name(t, (size_t)rk_chain_dofs(c)[i]),
           r->type == RK_DH_REVOLUTE ? "revolute" : "prismatic", clean(r->a), clean(r->alpha),
           clean(r->d), clean(r->theta), clean(m->a), clean(m->alpha), clean(m->d),
           clean(m->theta));
  }
}

static void tree_text(const rk_tree *t, const char *path, const char *motion, GPtrArray *chains,
                      const GArray *loops, const loop_report *lr) {
  size_t moving = 0, hinges = 0;
  for (size_t j = 0; j < rk_tree_link_count(t); j++) {
    moving += rk_tree_joint(t, j)->dof_count > 0;
    hinges += rk_tree_joint(t, j)->origin == RK_ORIGIN_HINGE_FIT;
  }
  printf("%s: %zu links, %zu movable joints, %zu DOF", path, rk_tree_link_count(t), moving,
         rk_tree_dof_count(t));
  if (motion)
    printf(" (motion evidence: clip '%s', %zu hinges fitted)\n", motion, hinges);
  else
    printf(" (no motion evidence)\n");
  printf("\nlinks and joints:\n");
  for (size_t j = 0; j < rk_tree_link_count(t); j++) {
    const rk_joint *J = rk_tree_joint(t, j);
    printf("  %-22s parent %-18s %-9s", rk_tree_link_name(t, j), link_name(t, J->parent),
           rk_joint_type_name(J->type));
    if (J->dof_count == 1)
      printf(" dof %-7d", J->dof_offset);
    else if (J->dof_count > 1)
      printf(" dof %d-%-4d", J->dof_offset, J->dof_offset + J->dof_count - 1);
    else
      printf(" %-11s", "");
    if (J->type == RK_JOINT_REVOLUTE || J->type == RK_JOINT_PRISMATIC)
      printf(" axis (%.3f, %.3f, %.3f)", J->axis.x, J->axis.y, J->axis.z);
    else if (J->type == RK_JOINT_BALL || J->type == RK_JOINT_FREE)
      printf(" euler %s", rk_euler_order_name(J->order));
    if (J->fit_tested && J->motion_range > 1e-4)
      printf("  [hinge fit: residual max %.2f deg, rms %.2f deg, range %.1f deg]",
             J->fit_residual_max / RK_DEG, J->fit_residual_rms / RK_DEG, J->fit_range / RK_DEG);
    if (J->origin == RK_ORIGIN_SPEC || J->origin == RK_ORIGIN_END_SITE ||
        J->origin == RK_ORIGIN_STATIC || J->origin == RK_ORIGIN_LINE_FIT)
      printf("  (%s)", rk_joint_origin_name(J->origin));
    if (J->hinge_hint && J->type != RK_JOINT_REVOLUTE)
      printf("  (name suggests a hinge)");
    printf("\n");
  }
  printf("\njunctions: %zu\n", rk_tree_junction_count(t));
  for (size_t i = 0; i < rk_tree_junction_count(t); i++) {
    const rk_junction *J = rk_tree_junction(t, i);
    printf("  %s (%zu chains)\n", rk_tree_link_name(t, (size_t)J->link), J->chain_count);
    for (size_t c = 0; c < J->chain_count; c++)
      printf("    chain %zu: %s\n", c, rk_chain_name(J->chains[c]));
    for (size_t k = 0; k < J->constraint_count; k++) {
      const rk_junction_constraint *c = &J->constraints[k];
      if (c->row < 0)
        printf("    chains %d, %d: nothing above the junction moves\n", c->chain_a, c->chain_b);
      else if (c->planar)
        printf(
            "    theta[%d]@chain %d = theta[%d]@chain %d %+.4f rad (%+.2f deg), d shifted by %+.4f"
            "  (row of %s)\n",
            c->row + 1, c->chain_b, c->row + 1, c->chain_a, c->phi, c->phi / RK_DEG, c->dz,
            rk_tree_dof_name(t, (size_t)c->dof));
      else {
        rk_mat3 r = rk_mat4_get_rotation(&c->offset);
        rk_vec3 axis;
        double angle;
        rk_mat3_to_axis_angle(&r, &axis, &angle);
        rk_vec3 p = rk_mat4_get_translation(&c->offset);
        printf("    frame[%d]@chain %d = frame[%d]@chain %d * offset (rotation %.2f deg about "
               "(%.3f, %.3f, %.3f), translation (%.4f, %.4f, %.4f))  (row of %s)\n",
               c->row + 1, c->chain_b, c->row + 1, c->chain_a, angle / RK_DEG, axis.x, axis.y,
               axis.z, p.x, p.y, p.z, rk_tree_dof_name(t, (size_t)c->dof));
      }
    }
  }
  printf("\nloops: %u\n", loops->len);
  for (guint i = 0; i < loops->len; i++) {
    const rk_loop *l = &g_array_index(loops, rk_loop, i);
    printf("  %s -> %s (%s, %zu rows)\n", link_name(t, l->link_a), link_name(t, l->link_b),
           l->kind == RK_LOOP_RIGID ? "rigid" : "position", rk_loop_rows(l));
  }
  if (loops->len)
    printf("  closure: %zu rows, rank %zu, residual %.3g at rest, effective DOF %ld (tree %zu)\n",
           lr->rows, lr->rank, lr->residual, lr->effective_dof, rk_tree_dof_count(t));
  printf("\nDOF count: %zu\n", rk_tree_dof_count(t));
  printf("\nchains (DH tables; theta/d are offsets at q = 0, angles in radians):\n");
  for (guint i = 0; i < chains->len; i++)
    print_dh(t, g_ptr_array_index(chains, i));
}

/* ---- command --------------------------------------------------------------------------------- */

static int fail(GError *error, const char *path) {
  if (path)
    g_prefix_error(&error, "%s: ", path);
  int rc = rk__cli_fail(CMD, error);
  g_error_free(error);
  return rc;
}

static int run_tree(const tree_args *a, const char *path) {
  GError *error = NULL;
#ifdef RK_TREE_HAVE_IMPORTERS
  g_autoptr(rk_asset) asset = rk_import_file(path, NULL, &error);
  if (!asset)
    return fail(error, NULL);
#else
  g_set_error(&error, RK_ERROR, RK_ERROR_UNSUPPORTED, "%s: this build of rigkit has no importers",
              path);
  return fail(error, NULL);
  rk_asset *asset = NULL;
#endif
  const rk_skeleton *s = rk_asset_skeleton(asset);
  const rk_clip *motion = NULL;
  if (!a->no_motion && rk_asset_clip_count(asset) > 0) {
    const int ci = a->clip ? rk_asset_find_clip(asset, a->clip) : 0;
    if (ci < 0) {
      g_set_error(&error, RK_ERROR, RK_ERROR_NOT_FOUND, "no clip '%s'", a->clip);
      return fail(error, path);
    }
    motion = rk_asset_clip(asset, (size_t)ci);
  } else if (a->clip && !a->no_motion) {
    g_set_error(&error, RK_ERROR, RK_ERROR_NOT_FOUND, "the file has no clips");
    return fail(error, path);
  }
  rk_tree_options o = RK_TREE_OPTIONS_INIT;
  o.hinge_tolerance = a->hinge_tolerance_deg * RK_DEG;
  o.limits_from_clip = a->limits_from_clip;
  /* Joints whose file declares their mechanics (robot formats: DH tables) are typed as declared,
   * with their limits; a file that declares them is a robot: its root is fixed to the world. */
  g_autoptr(GArray) specs = g_array_new(FALSE, TRUE, sizeof(rk_joint_spec));
  for (size_t j = 0; j < rk_skeleton_joint_count(s); j++) {
    rk_joint_mechanics m;
    if (!rk_asset_joint_mechanics(asset, j, &m))
      continue;
    rk_joint_spec sp = {0};
    sp.name = rk_skeleton_joint_name(s, j);
    sp.type = m.motion == RK_JOINT_REVOLUTE    ? RK_JOINT_REVOLUTE
              : m.motion == RK_JOINT_PRISMATIC ? RK_JOINT_PRISMATIC
                                                      : RK_JOINT_FIXED;
    /* The tree takes a revolute axis in the joint's zero frame and a prismatic one in the parent
     * frame. */
    sp.axis = m.motion == RK_JOINT_PRISMATIC ? rk_quat_rotate(rk_skeleton_rest(s, j)->r, m.axis) : m.axis;
    sp.order = RK_EULER_N_ORDERS;
    sp.has_limits = m.has_limits;
    sp.lower[0] = m.lower;
    sp.upper[0] = m.upper;
    g_array_append_val(specs, sp);
  }
  if (specs->len > 0) {
    o.root_type = RK_JOINT_FIXED;
    o.default_type = RK_JOINT_FIXED;
    o.detect_hinges = o.detect_prismatic = false;
    o.joints = (const rk_joint_spec *)(void *)specs->data;
    o.joint_count = specs->len;
  }
  g_autoptr(rk_tree) t = rk_tree_from_skeleton(s, motion, &o, &error);
  if (!t)
    return fail(error, path);
  g_autoptr(GPtrArray) chains = a->chains
                                    ? g_ptr_array_new_with_free_func((GDestroyNotify)rk_chain_free)
                                    : default_chains(t, &error);
  if (!chains || !parse_chains(t, a->chains, chains, &error))
    return fail(error, path);
  g_autoptr(GArray) loops = g_array_new(FALSE, FALSE, sizeof(rk_loop));
  g_autofree double *q = g_new0(double, rk_tree_dof_count(t) + 1);
  rk_tree_q_rest(t, q);
  if (!parse_loops(t, a->loops, q, loops, &error))
    return fail(error, path);
  loop_report lr = {0};
  if (loops->len) {
    const rk_loop *ls = (const rk_loop *)(void *)loops->data;
    lr.rows = rk_loops_rows(ls, loops->len);
    g_autoptr(rk_loop_ws) ws = rk_loop_ws_new(t, lr.rows);
    g_autofree rk_mat4 *m = g_new(rk_mat4, rk_tree_link_count(t));
    g_autofree double *F = g_new(double, lr.rows);
    rk_tree_fk(t, q, NULL, m);
    rk_loops_residual(t, ls, loops->len, m, F);
    for (size_t i = 0; i < lr.rows; i++)
      lr.residual = fmax(lr.residual, fabs(F[i]));
    lr.effective_dof = rk_loops_effective_dof(t, ls, loops->len, NULL, ws);
    lr.rank = (size_t)((long)rk_tree_dof_count(t) - lr.effective_dof);
  }
  const char *motion_name = motion ? rk_clip_name(motion) : NULL;
  if (a->json) {
    g_autofree char *text = tree_json(t, path, motion_name, chains, loops, &lr);
    printf("%s\n", text);
  } else {
    tree_text(t, path, motion_name, chains, loops, &lr);
  }
  return RK_EXIT_OK;
}

int rk__cmd_tree(int argc, char **argv);

int rk__cmd_tree(int argc, char **argv) {
  tree_args a = {0};
  a.hinge_tolerance_deg = 3.0;
  GOptionEntry entries[] = {
      {"json", 0, 0, G_OPTION_ARG_NONE, &a.json, "print JSON", NULL},
      {"clip", 0, 0, G_OPTION_ARG_STRING, &a.clip,
       "clip used as motion evidence (default: the first)", "NAME|INDEX"},
      {"no-motion", 0, 0, G_OPTION_ARG_NONE, &a.no_motion, "ignore the file's clips", NULL},
      {"limits-from-clip", 0, 0, G_OPTION_ARG_NONE, &a.limits_from_clip,
       "joint limits from the clip's range plus a margin", NULL},
      {"hinge-tolerance", 0, 0, G_OPTION_ARG_DOUBLE, &a.hinge_tolerance_deg,
       "largest hinge fit residual in degrees (default 3)", "DEG"},
      {"chain", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a.chains,
       "list this chain (repeatable; default: the world to every leaf)", "BASE:TIP"},
      {"loop", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a.loops,
       "close a loop at the rest pose (repeatable; B may be 'world')", "A:B[:position|rigid]"},
      {NULL, 0, 0, 0, NULL, NULL, NULL}};
  int rc = rk__cli_parse(CMD, "FILE", "Show the kinematic tree of a file's skeleton.", entries,
                         &argc, &argv);
  if (rc == RK_EXIT_OK && argc != 2)
    rc = rk__cli_usage(CMD, "expected one FILE (see rigkit tree --help)");
  if (rc == RK_EXIT_OK && !(a.hinge_tolerance_deg >= 0))
    rc = rk__cli_usage(CMD, "--hinge-tolerance must be >= 0");
  if (rc == RK_EXIT_OK)
    rc = run_tree(&a, argv[1]);
  g_free(a.clip);
  g_strfreev(a.chains);
  g_strfreev(a.loops);
  return rc;
}
