/* `rigkit tree FILE [--json]`: the kinematic tree of a file's skeleton: links, joints (type, axis,
 * DOF index, hinge fits), junctions and their constraints, loops with their effective DOF, the DOF
 * count, chains with their DH tables, and link frames and points expressed in other links, at the
 * rest pose or at a frame of a clip. */
#include "cli.h"
#include "cli_import.h"
#include "cli_json.h"
#include <rigkit/json_text.h>

#include <json-glib/json-glib.h>
#include <limits.h>
#include <rigkit/importers.h>
#include <rigkit/rigkit.h>
#include <string.h>

#define CMD "tree"

typedef struct tree_args {
  gboolean json;
  char *clip;
  gboolean no_motion;
  gboolean limits_from_clip;
  gboolean fixed_root;
  char **chains; /* "BASE:TIP" */
  char **loops;  /* "A:B[:position|rigid]" */
  char **poses;  /* "LINK[@IN]" */
  char **points; /* "LINK:X,Y,Z[@IN]" */
  int frame;     /* INT_MIN when not given */
  double time;   /* NAN when not given */
  double hinge_tolerance_deg;
  rk__cli_import import;
} tree_args;

/* A link's frame (or a point fixed on the link) asked for in another link's coordinates. */
typedef struct frame_query {
  int link, in; /* links; in = -1: the world */
  bool point;
  rk_vec3 p;    /* the point, in link's body coordinates */
  rk_mat4 pose; /* link's frame in in's coordinates at the configuration */
} frame_query;

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

/* "LINK[@IN]" (poses) or "LINK:X,Y,Z[@IN]" (points) into a query posed at q. */
static bool parse_frame_query(const rk_tree *t, const char *spec, bool point, const double *q,
                              frame_query *out, GError **error) {
  const char *what = point ? "--point" : "--pose";
  g_autofree char *text = g_strdup(spec);
  char *at = strrchr(text, '@'), *in_name = NULL;
  if (at) {
    *at = '\0';
    in_name = at + 1;
  }
  out->point = point;
  out->p = rk_vec3_make(0, 0, 0);
  if (point) {
    char *colon = strrchr(text, ':');
    g_auto(GStrv) xyz = colon ? g_strsplit(colon + 1, ",", -1) : NULL;
    double v[3];
    bool ok = xyz && g_strv_length(xyz) == 3;
    for (int i = 0; ok && i < 3; i++) {
      char *end = NULL;
      v[i] = g_ascii_strtod(xyz[i], &end);
      ok = end != xyz[i] && *end == '\0' && isfinite(v[i]);
    }
    if (!ok) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "%s '%s': expected LINK:X,Y,Z[@IN]", what,
                  spec);
      return false;
    }
    *colon = '\0';
    out->p = rk_vec3_make(v[0], v[1], v[2]);
  }
  out->link = rk_tree_find_link(t, text);
  out->in = in_name ? find_link_or_world(t, in_name) : -1;
  if (out->link < 0 || (in_name && out->in < 0 && strcmp(in_name, "world") != 0)) {
    g_set_error(error, RK_ERROR, RK_ERROR_NOT_FOUND, "%s '%s': no link named '%s'", what, spec,
                out->link < 0 ? text : in_name);
    return false;
  }
  rk_tree_transform_between(t, q, out->in, out->link, &out->pose);
  return true;
}

static bool parse_frame_queries(const rk_tree *t, const tree_args *a, const double *q,
                                GArray *out, GError **error) {
  for (int kind = 0; kind < 2; kind++)
    for (char **s = kind ? a->points : a->poses; s && *s; s++) {
      frame_query fq;
      if (!parse_frame_query(t, *s, kind == 1, q, &fq, error))
        return false;
      g_array_append_val(out, fq);
    }
  return true;
}

typedef struct loop_report {
  size_t rows, rank;
  long effective_dof; /* at the configuration */
  long generic_dof;   /* at a regular closed configuration (-1: none found) */
  double residual;
} loop_report;

/* Everything one run prints. */
typedef struct tree_view {
  const rk_tree *t;
  const char *path;
  const char *motion; /* the evidence clip's name, or NULL */
  GPtrArray *chains;
  const GArray *loops; /* rk_loop */
  loop_report lr;
  const char *configuration; /* where loops, poses and points are taken */
  const GArray *frames;      /* frame_query */
} tree_view;

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

/* The loops and, when there are any, their closure at the configuration. */
static void json_loops(JsonBuilder *b, const tree_view *v) {
  json_builder_set_member_name(b, "loops");
  json_builder_begin_array(b);
  for (guint i = 0; i < v->loops->len; i++) {
    const rk_loop *l = &g_array_index(v->loops, rk_loop, i);
    json_builder_begin_object(b);
    json_string(b, "a", link_name(v->t, l->link_a));
    json_string(b, "b", link_name(v->t, l->link_b));
    json_string(b, "kind", l->kind == RK_LOOP_RIGID ? "rigid" : "position");
    json_int(b, "rows", (gint64)rk_loop_rows(l));
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  if (v->loops->len) {
    json_builder_set_member_name(b, "closure");
    json_builder_begin_object(b);
    json_int(b, "rows", (gint64)v->lr.rows);
    json_int(b, "rank", (gint64)v->lr.rank);
    rk__json_add_double(b, "residual", v->lr.residual);
    json_int(b, "effective_dof", v->lr.effective_dof);
    json_int(b, "effective_dof_generic", v->lr.generic_dof);
    rk__json_add_double(b, "rank_tolerance", RK_LOOP_RANK_TOLERANCE);
    json_builder_end_object(b);
  }
}

/* "poses" and "points", when asked for. */
static void json_frames(JsonBuilder *b, const tree_view *v) {
  for (int kind = 0; kind < 2; kind++) {
    bool any = false;
    for (guint i = 0; i < v->frames->len; i++) {
      const frame_query *f = &g_array_index(v->frames, frame_query, i);
      if (f->point != (kind == 1))
        continue;
      if (!any) {
        json_builder_set_member_name(b, kind ? "points" : "poses");
        json_builder_begin_array(b);
        any = true;
      }
      json_builder_begin_object(b);
      json_string(b, "link", link_name(v->t, f->link));
      json_string(b, "in", link_name(v->t, f->in));
      if (f->point) {
        rk__json_add_vec3(b, "point", f->p);
        rk__json_add_vec3(b, "position", rk_mat4_transform_point(&f->pose, f->p));
      } else {
        json_mat4(b, "matrix", &f->pose);
      }
      json_builder_end_object(b);
    }
    if (any)
      json_builder_end_array(b);
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

static char *tree_json(const tree_view *v) {
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  json_string(b, "file", v->path);
  json_string(b, "motion", v->motion);
  json_int(b, "dof_count", (gint64)rk_tree_dof_count(v->t));
  if (v->loops->len || v->frames->len)
    json_string(b, "configuration", v->configuration);
  json_links(b, v->t);
  json_dofs(b, v->t);
  json_junctions(b, v->t);
  json_loops(b, v);
  json_chains(b, v->t, v->chains);
  json_frames(b, v);
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

static void text_links(const rk_tree *t) {
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
}

static void text_junctions(const rk_tree *t) {
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
}

static void text_loops(const tree_view *v) {
  const rk_tree *t = v->t;
  printf("\nloops: %u\n", v->loops->len);
  for (guint i = 0; i < v->loops->len; i++) {
    const rk_loop *l = &g_array_index(v->loops, rk_loop, i);
    printf("  %s -> %s (%s, %zu rows)\n", link_name(t, l->link_a), link_name(t, l->link_b),
           l->kind == RK_LOOP_RIGID ? "rigid" : "position", rk_loop_rows(l));
  }
  if (!v->loops->len)
    return;
  printf("  closure at %s: %zu rows, rank %zu (singular values above %g of the largest), "
         "residual %.3g, effective DOF %ld (tree %zu)\n",
         v->configuration, v->lr.rows, v->lr.rank, RK_LOOP_RANK_TOLERANCE, v->lr.residual,
         v->lr.effective_dof, rk_tree_dof_count(t));
  if (v->lr.generic_dof >= 0 && v->lr.generic_dof != v->lr.effective_dof)
    printf("  this configuration is singular: effective DOF %ld at a regular closed one\n",
           v->lr.generic_dof);
}

/* Poses as 4x4 matrices (rows), points as coordinates. */
static void text_frames(const tree_view *v) {
  if (!v->frames->len)
    return;
  printf("\nframes at %s:\n", v->configuration);
  for (guint i = 0; i < v->frames->len; i++) {
    const frame_query *f = &g_array_index(v->frames, frame_query, i);
    const char *ln = link_name(v->t, f->link), *in = link_name(v->t, f->in);
    if (f->point) {
      const rk_vec3 w = rk_mat4_transform_point(&f->pose, f->p);
      printf("  point (%g, %g, %g) of %s in %s: (%.6f, %.6f, %.6f)\n", f->p.x, f->p.y, f->p.z, ln,
             in, clean(w.x), clean(w.y), clean(w.z));
      continue;
    }
    printf("  %s in %s:\n", ln, in);
    for (int r = 0; r < 4; r++)
      printf("    [ %10.6f %10.6f %10.6f %10.6f ]\n", clean(rk_mat4_at(&f->pose, r, 0)),
             clean(rk_mat4_at(&f->pose, r, 1)), clean(rk_mat4_at(&f->pose, r, 2)),
             clean(rk_mat4_at(&f->pose, r, 3)));
  }
}

static void tree_text(const tree_view *v) {
  const rk_tree *t = v->t;
  size_t moving = 0, hinges = 0;
  for (size_t j = 0; j < rk_tree_link_count(t); j++) {
    moving += rk_tree_joint(t, j)->dof_count > 0;
    hinges += rk_tree_joint(t, j)->origin == RK_ORIGIN_HINGE_FIT;
  }
  printf("%s: %zu links, %zu movable joints, %zu DOF", v->path, rk_tree_link_count(t), moving,
         rk_tree_dof_count(t));
  if (v->motion)
    printf(" (motion evidence: clip '%s', %zu hinges fitted)\n", v->motion, hinges);
  else
    printf(" (no motion evidence)\n");
  text_links(t);
  text_junctions(t);
  text_loops(v);
  printf("\nDOF count: %zu\n", rk_tree_dof_count(t));
  printf("\nchains (DH tables; theta/d are offsets at q = 0, angles in radians):\n");
  for (guint i = 0; i < v->chains->len; i++)
    print_dh(t, g_ptr_array_index(v->chains, i));
  text_frames(v);
}

/* ---- command --------------------------------------------------------------------------------- */

static int fail(GError *error, const char *path) {
  if (path)
    g_prefix_error(&error, "%s: ", path);
  int rc = rk__cli_fail(CMD, error);
  g_error_free(error);
  return rc;
}

/* The clip giving motion evidence (--clip, else the first; none with --no-motion). */
static bool motion_clip(const tree_args *a, const rk_asset *asset, const rk_clip **out,
                        GError **error) {
  *out = NULL;
  if (a->no_motion)
    return true;
  if (rk_asset_clip_count(asset) == 0) {
    if (a->clip)
      g_set_error(error, RK_ERROR, RK_ERROR_NOT_FOUND, "the file has no clips");
    return !a->clip;
  }
  const int ci = a->clip ? rk_asset_find_clip(asset, a->clip) : 0;
  if (ci < 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_NOT_FOUND, "no clip '%s'", a->clip);
    return false;
  }
  *out = rk_asset_clip(asset, (size_t)ci);
  return true;
}

/* The tree of the file's skeleton. Joints whose file declares their mechanics (robot formats: DH
 * tables) are typed as declared, with their limits; a file that declares them is a robot: its
 * root is fixed to the world, as every root is with --fixed-root. */
static rk_tree *build_tree(const tree_args *a, const rk_asset *asset, const rk_clip *motion,
                           GError **error) {
  const rk_skeleton *s = rk_asset_skeleton(asset);
  rk_tree_options o = RK_TREE_OPTIONS_INIT;
  o.hinge_tolerance = a->hinge_tolerance_deg * RK_DEG;
  o.limits_from_clip = a->limits_from_clip;
  if (a->fixed_root)
    o.root_type = RK_JOINT_FIXED;
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
    sp.axis = m.motion == RK_JOINT_PRISMATIC
                  ? rk_quat_rotate(rk_skeleton_rest(s, j)->r, m.axis)
                  : m.axis;
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
  return rk_tree_from_skeleton(s, motion, &o, error);
}

/* The configuration q that loops, poses and points are taken at: the rest pose, or a clip's pose
 * (--clip, else the first clip, also with --no-motion) at --frame N or --time S. *label (g_free)
 * names it for the output. */
static bool configuration(const tree_args *a, const rk_asset *asset, const rk_tree *t, double *q,
                          char **label, GError **error) {
  rk_tree_q_rest(t, q);
  if (a->frame == INT_MIN && isnan(a->time)) {
    *label = g_strdup("the rest pose");
    return true;
  }
  const int ci = a->clip ? rk_asset_find_clip(asset, a->clip) : rk_asset_clip_count(asset) ? 0 : -1;
  if (ci < 0 && a->clip)
    g_set_error(error, RK_ERROR, RK_ERROR_NOT_FOUND, "no clip '%s'", a->clip);
  else if (ci < 0)
    g_set_error(error, RK_ERROR, RK_ERROR_NOT_FOUND, "the file has no clip for --frame or --time");
  if (ci < 0)
    return false;
  const rk_clip *c = rk_asset_clip(asset, (size_t)ci);
  const rk_skeleton *s = rk_asset_skeleton(asset);
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_transform *locals = g_new(rk_transform, n);
  if (a->frame != INT_MIN) {
    const size_t frames = rk_clip_frame_count(c);
    if ((size_t)a->frame >= frames || (a->frame > 0 && !(rk_clip_fps(c) > 0))) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "frame %d is out of range (clip '%s' has %zu "
                  "frames%s)", a->frame, rk_clip_name(c), frames,
                  rk_clip_fps(c) > 0 ? "" : " and no frame rate: use --time");
      return false;
    }
    rk_clip_sample_frame(c, rk_skeleton_rest_locals(s), rk_clip_fps(c), (size_t)a->frame, locals,
                         n);
    *label = g_strdup_printf("frame %d of clip '%s'", a->frame, rk_clip_name(c));
  } else {
    if (a->time > rk_clip_duration(c) + 1e-9) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "time %g s is past the end of clip '%s' (%g s)",
                  a->time, rk_clip_name(c), rk_clip_duration(c));
      return false;
    }
    rk_clip_sample(c, rk_skeleton_rest_locals(s), a->time, locals, n);
    *label = g_strdup_printf("time %g s of clip '%s'", a->time, rk_clip_name(c));
  }
  rk_tree_q_from_locals(t, locals, NULL, q, NULL);
  return true;
}

/* Residual, rank and effective DOF of the loops at q (where rk_loop_closing closed them). */
static loop_report closure_at(const rk_tree *t, const GArray *loops, const double *q) {
  loop_report lr = {0};
  if (!loops->len)
    return lr;
  const rk_loop *ls = (const rk_loop *)(void *)loops->data;
  lr.rows = rk_loops_rows(ls, loops->len);
  g_autoptr(rk_loop_ws) ws = rk_loop_ws_new(t, lr.rows);
  g_autofree rk_mat4 *m = g_new(rk_mat4, rk_tree_link_count(t));
  g_autofree double *F = g_new(double, lr.rows);
  rk_tree_fk(t, q, NULL, m);
  rk_loops_residual(t, ls, loops->len, m, F);
  for (size_t i = 0; i < lr.rows; i++)
    lr.residual = fmax(lr.residual, fabs(F[i]));
  lr.effective_dof = rk_loops_effective_dof(t, ls, loops->len, q, ws);
  lr.generic_dof = rk_loops_effective_dof(t, ls, loops->len, NULL, ws);
  lr.rank = (size_t)((long)rk_tree_dof_count(t) - lr.effective_dof);
  return lr;
}

static int run_tree(const tree_args *a, const char *path) {
  GError *error = NULL;
  rk_import_options opts;
  if (!rk__cli_import_options(CMD, &a->import, &opts))
    return RK_EXIT_USAGE;
  g_autoptr(rk_asset) asset = rk_import_file(path, &opts, &error);
  if (!asset)
    return fail(error, NULL);
  const rk_clip *motion = NULL;
  if (!motion_clip(a, asset, &motion, &error))
    return fail(error, path);
  g_autoptr(rk_tree) t = build_tree(a, asset, motion, &error);
  if (!t)
    return fail(error, path);
  g_autoptr(GPtrArray) chains = a->chains
                                    ? g_ptr_array_new_with_free_func((GDestroyNotify)rk_chain_free)
                                    : default_chains(t, &error);
  if (!chains || !parse_chains(t, a->chains, chains, &error))
    return fail(error, path);
  g_autofree double *q = g_new0(double, rk_tree_dof_count(t) + 1);
  g_autofree char *label = NULL;
  g_autoptr(GArray) loops = g_array_new(FALSE, FALSE, sizeof(rk_loop));
  g_autoptr(GArray) frames = g_array_new(FALSE, FALSE, sizeof(frame_query));
  if (!configuration(a, asset, t, q, &label, &error) ||
      !parse_loops(t, a->loops, q, loops, &error) ||
      !parse_frame_queries(t, a, q, frames, &error))
    return fail(error, path);
  const tree_view v = {t,      path,          motion ? rk_clip_name(motion) : NULL,
                       chains, loops,         closure_at(t, loops, q),
                       label,  frames};
  if (a->json) {
    g_autofree char *text = tree_json(&v);
    printf("%s\n", text);
  } else {
    tree_text(&v);
  }
  return RK_EXIT_OK;
}

int rk__cmd_tree(int argc, char **argv);

int rk__cmd_tree(int argc, char **argv) {
  tree_args a = {0};
  a.hinge_tolerance_deg = 3.0;
  a.frame = INT_MIN;
  a.time = NAN;
  GOptionEntry entries[] = {
      {"json", 0, 0, G_OPTION_ARG_NONE, &a.json, "print JSON", NULL},
      {"clip", 0, 0, G_OPTION_ARG_STRING, &a.clip,
       "clip used as motion evidence and for --frame/--time (default: the first)", "NAME|INDEX"},
      {"no-motion", 0, 0, G_OPTION_ARG_NONE, &a.no_motion, "ignore the file's clips as evidence",
       NULL},
      {"limits-from-clip", 0, 0, G_OPTION_ARG_NONE, &a.limits_from_clip,
       "joint limits from the clip's range plus a margin", NULL},
      {"hinge-tolerance", 0, 0, G_OPTION_ARG_DOUBLE, &a.hinge_tolerance_deg,
       "largest hinge fit residual in degrees (default 3)", "DEG"},
      {"fixed-root", 0, 0, G_OPTION_ARG_NONE, &a.fixed_root,
       "fix the root joints to the world (a mechanism on the ground; default: free roots)", NULL},
      {"chain", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a.chains,
       "list this chain (repeatable; default: the world to every leaf)", "BASE:TIP"},
      {"frame", 0, 0, G_OPTION_ARG_INT, &a.frame,
       "take loops, poses and points at this frame of the clip (0-based; default: the rest pose)",
       "N"},
      {"time", 0, 0, G_OPTION_ARG_DOUBLE, &a.time,
       "take loops, poses and points at this time of the clip, in seconds", "S"},
      {"loop", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a.loops,
       "close a loop at the configuration and report its rank and effective DOF there "
       "(repeatable; B may be 'world')",
       "A:B[:position|rigid]"},
      {"pose", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a.poses,
       "print LINK's frame in IN's coordinates (default: the world) as a 4x4 matrix (repeatable)",
       "LINK[@IN]"},
      {"point", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a.points,
       "print the point X,Y,Z of LINK's frame in IN's coordinates (default: the world; "
       "repeatable)",
       "LINK:X,Y,Z[@IN]"},
      RK__CLI_IMPORT_ENTRIES(a.import),
      {NULL, 0, 0, 0, NULL, NULL, NULL}};
  int rc = rk__cli_parse(CMD, "FILE", "Show the kinematic tree of a file's skeleton.", entries,
                         &argc, &argv);
  if (rc == RK_EXIT_OK && argc != 2)
    rc = rk__cli_usage(CMD, "expected one FILE (see rigkit tree --help)");
  if (rc == RK_EXIT_OK && !(a.hinge_tolerance_deg >= 0))
    rc = rk__cli_usage(CMD, "--hinge-tolerance must be >= 0");
  if (rc == RK_EXIT_OK && a.frame != INT_MIN && !isnan(a.time))
    rc = rk__cli_usage(CMD, "give at most one of --frame N and --time S");
  if (rc == RK_EXIT_OK && ((a.frame != INT_MIN && a.frame < 0) ||
                           (!isnan(a.time) && !(a.time >= 0 && isfinite(a.time)))))
    rc = rk__cli_usage(CMD, "--frame and --time must be >= 0");
  if (rc == RK_EXIT_OK)
    rc = run_tree(&a, argv[1]);
  g_free(a.clip);
  g_strfreev(a.chains);
  g_strfreev(a.loops);
  g_strfreev(a.poses);
  g_strfreev(a.points);
  rk__cli_import_clear(&a.import);
  return rc;
}
