/* The pre-pass's checks of a glTF file's structure (gltf_check_structure.h). Assimp 5.2.5 trusts
 * every index and can crash or loop on a malformed file (a child cycle, an accessor of the wrong
 * type deep inside its reader): each fault is named here instead. */
#include "gltf_check_structure.h"

#include <string.h>

bool rk__gltf_check_nodes(rk__gltf_doc *c, GError **error) {
  const guint n = rk__gltf_len(c->nodes);
  if (n > 10u * RK_SKELETON_MAX_JOINTS) {
    g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "%u nodes (limit %u)", n,
                10u * RK_SKELETON_MAX_JOINTS);
    return false;
  }
  g_autofree gint64 *parent = g_new(gint64, n ? n : 1);
  for (guint i = 0; i < n; i++)
    parent[i] = -1;
  for (guint i = 0; i < n; i++) {
    JsonObject *o = rk__gltf_element(c->nodes, i);
    g_autofree char *what = g_strdup_printf("node %u", i);
    gint64 idx;
    if (!o) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s is not an object", what);
      return false;
    }
    if (!rk__gltf_index(c, o, "mesh", rk__gltf_len(c->meshes), &idx, what, error) ||
        !rk__gltf_index(c, o, "skin", rk__gltf_len(c->skins), &idx, what, error))
      return false;
    const char *name = rk__gltf_string(o, "name");
    if (name && strlen(name) > RK_SKELETON_MAX_NAME) {
      g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "%s has a %zu-byte name (limit %d)", what,
                  strlen(name), RK_SKELETON_MAX_NAME);
      return false;
    }
    static const struct {
      const char *name;
      int len;
    } vecs[] = {{"translation", 3}, {"rotation", 4}, {"scale", 3}, {"matrix", 16}};
    for (size_t k = 0; k < G_N_ELEMENTS(vecs); k++) {
      if (!json_object_has_member(o, vecs[k].name))
        continue;
      JsonArray *a = rk__gltf_array(o, vecs[k].name);
      bool ok = a && (int)rk__gltf_len(a) == vecs[k].len;
      for (guint e = 0; ok && e < rk__gltf_len(a); e++) {
        double v;
        ok = rk__gltf_node_number(json_array_get_element(a, e), &v);
      }
      if (!ok) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: '%s' is not %d finite numbers", what,
                    vecs[k].name, vecs[k].len);
        return false;
      }
    }
    JsonArray *ch = rk__gltf_array(o, "children");
    if (json_object_has_member(o, "children") && !ch) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: 'children' is not an array", what);
      return false;
    }
    for (guint k = 0; k < rk__gltf_len(ch); k++) {
      double v;
      if (!rk__gltf_node_number(json_array_get_element(ch, k), &v) || v != floor(v) || v < 0 ||
          v >= n) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: child %u is not a valid node index",
                    what, k);
        return false;
      }
      const gint64 child = (gint64)v;
      if (parent[child] >= 0 || child == (gint64)i) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                    "node %" G_GINT64_FORMAT " has more than one parent (or is its own child)",
                    child);
        return false;
      }
      parent[child] = i;
    }
  }
  /* Cycles: from every node, the parent chain must end within n steps. */
  for (guint i = 0; i < n; i++) {
    gint64 j = i;
    guint steps = 0;
    while (j >= 0 && steps <= n) {
      j = parent[j];
      steps++;
    }
    if (j >= 0) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "node %u is part of a cycle of children", i);
      return false;
    }
  }
  for (guint s = 0; s < rk__gltf_len(c->scenes); s++) {
    JsonArray *roots = rk__gltf_array(rk__gltf_element(c->scenes, s), "nodes");
    for (guint k = 0; k < rk__gltf_len(roots); k++) {
      double v;
      if (!rk__gltf_node_number(json_array_get_element(roots, k), &v) || v != floor(v) || v < 0 ||
          v >= n) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "scene %u: node %u is not a valid index", s,
                    k);
        return false;
      }
    }
  }
  g_free(c->parents);
  c->parents = g_steal_pointer(&parent);
  return true;
}

/* Accessor types the glTF 2.0 specification allows for a use. types: "VEC3", "VEC4|SCALAR", ...;
 * components: a mask of componentType bits (FLOAT, and the integer types) */
enum { CT_FLOAT = 1, CT_UBYTE = 2, CT_BYTE = 4, CT_USHORT = 8, CT_SHORT = 16, CT_UINT = 32 };

static int component_bit(int type) {
  switch (type) {
  case 5126:
    return CT_FLOAT;
  case 5121:
    return CT_UBYTE;
  case 5120:
    return CT_BYTE;
  case 5123:
    return CT_USHORT;
  case 5122:
    return CT_SHORT;
  case 5125:
    return CT_UINT;
  default:
    return 0;
  }
}

/* Checks that accessor idx (>= 0, already a valid index) has one of the types and component
 * types of its use. Assimp 5.2.5 throws on a mismatch deep inside its reader (leaking what it
 * allocated) or reads the wrong number of bytes; rigkit names the fault instead. */
static bool check_use(rk__gltf_doc *c, gint64 idx, const char *types, int components,
                      const char *what, const char *use, GError **error) {
  JsonObject *a = rk__gltf_element(c->accessors, (guint)idx);
  const char *type = rk__gltf_string(a, "type");
  double ct = 0;
  rk__gltf_number(a, "componentType", &ct);
  g_auto(GStrv) allowed = g_strsplit(types, "|", -1);
  bool type_ok = false;
  for (char **t = allowed; *t; t++)
    type_ok = type_ok || (type && strcmp(type, *t) == 0);
  if (!type_ok || !(component_bit((int)ct) & components)) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                "%s: accessor %" G_GINT64_FORMAT " (%s of component type %.0f) cannot hold %s",
                what, idx, type ? type : "?", ct, use);
    return false;
  }
  return true;
}

bool rk__gltf_check_meshes_skins(rk__gltf_doc *c, GError **error) {
  const guint na = rk__gltf_len(c->accessors);
  for (guint m = 0; m < rk__gltf_len(c->meshes); m++) {
    JsonArray *prims = rk__gltf_array(rk__gltf_element(c->meshes, m), "primitives");
    for (guint p = 0; p < rk__gltf_len(prims); p++) {
      JsonObject *prim = rk__gltf_element(prims, p);
      g_autofree char *what = g_strdup_printf("mesh %u primitive %u", m, p);
      gint64 idx;
      if (!rk__gltf_need_object(prim, what, error) ||
          !rk__gltf_index(c, prim, "indices", na, &idx, what, error) ||
          !rk__gltf_index(c, prim, "material", G_MAXUINT, &idx, what, error))
        return false;
      JsonObject *attrs = rk__gltf_object(prim, "attributes");
      if (!attrs) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s has no attributes", what);
        return false;
      }
      g_autoptr(GList) names = json_object_get_members(attrs);
      for (GList *l = names; l; l = l->next) {
        const char *attr = l->data;
        if (!rk__gltf_index(c, attrs, attr, na, &idx, what, error))
          return false;
        const bool ok =
            idx < 0 ||
            ((strcmp(attr, "POSITION") == 0 || strcmp(attr, "NORMAL") == 0)
                 ? check_use(c, idx, "VEC3", CT_FLOAT, what, attr, error)
             : g_str_has_prefix(attr, "JOINTS_")
                 ? check_use(c, idx, "VEC4", CT_UBYTE | CT_USHORT, what, attr, error)
             : g_str_has_prefix(attr, "WEIGHTS_")
                 ? check_use(c, idx, "VEC4", CT_FLOAT | CT_UBYTE | CT_USHORT, what, attr, error)
             : g_str_has_prefix(attr, "TEXCOORD_")
                 ? check_use(c, idx, "VEC2", CT_FLOAT | CT_UBYTE | CT_USHORT, what, attr, error)
                 : true);
        if (!ok)
          return false;
      }
      if (!rk__gltf_index(c, prim, "indices", na, &idx, what, error) ||
          (idx >= 0 &&
           !check_use(c, idx, "SCALAR", CT_UBYTE | CT_USHORT | CT_UINT, what, "indices", error)))
        return false;
    }
  }
  for (guint s = 0; s < rk__gltf_len(c->skins); s++) {
    JsonObject *skin = rk__gltf_element(c->skins, s);
    g_autofree char *what = g_strdup_printf("skin %u", s);
    gint64 ibm, root;
    JsonArray *joints = rk__gltf_array(skin, "joints");
    if (!skin || !joints || rk__gltf_len(joints) == 0 ||
        !rk__gltf_index(c, skin, "inverseBindMatrices", na, &ibm, what, error) ||
        !rk__gltf_index(c, skin, "skeleton", rk__gltf_len(c->nodes), &root, what, error)) {
      if (error && !*error)
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s has no joints", what);
      return false;
    }
    if (rk__gltf_len(joints) > RK_SKELETON_MAX_JOINTS) {
      g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "%s has %u joints (limit %d)", what,
                  rk__gltf_len(joints), RK_SKELETON_MAX_JOINTS);
      return false;
    }
    for (guint k = 0; k < rk__gltf_len(joints); k++) {
      double v;
      if (!rk__gltf_node_number(json_array_get_element(joints, k), &v) || v != floor(v) || v < 0 ||
          v >= rk__gltf_len(c->nodes)) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: joint %u is not a valid node index",
                    what, k);
        return false;
      }
    }
    if (ibm >= 0 &&
        !check_use(c, ibm, "MAT4", CT_FLOAT, what, "inverse bind matrices", error))
      return false;
    if (ibm >= 0 && rk__gltf_accessor_count(c, ibm) < rk__gltf_len(joints)) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE,
                  "%s: %u joints but only %.0f inverse bind matrices", what, rk__gltf_len(joints),
                  rk__gltf_accessor_count(c, ibm));
      return false;
    }
  }
  return true;
}

bool rk__gltf_check_animations(rk__gltf_doc *c, GError **error) {
  const guint na = rk__gltf_len(c->accessors);
  for (guint a = 0; a < rk__gltf_len(c->anims); a++) {
    JsonObject *anim = rk__gltf_element(c->anims, a);
    JsonArray *samplers = rk__gltf_array(anim, "samplers"),
              *channels = rk__gltf_array(anim, "channels");
    if (!anim || !samplers || !channels) {
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "animation %u has no samplers or channels", a);
      return false;
    }
    for (guint s = 0; s < rk__gltf_len(samplers); s++) {
      JsonObject *smp = rk__gltf_element(samplers, s);
      g_autofree char *what = g_strdup_printf("animation %u sampler %u", a, s);
      gint64 in, out;
      if (!rk__gltf_need_object(smp, what, error) ||
          !rk__gltf_index(c, smp, "input", na, &in, what, error) ||
          !rk__gltf_index(c, smp, "output", na, &out, what, error))
        return false;
      if (in < 0 || out < 0) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s has no input or output", what);
        return false;
      }
      const char *interp = rk__gltf_string(smp, "interpolation");
      if (interp && strcmp(interp, "LINEAR") != 0 && strcmp(interp, "STEP") != 0 &&
          strcmp(interp, "CUBICSPLINE") != 0) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: unknown interpolation '%s'", what,
                    interp);
        return false;
      }
    }
    for (guint k = 0; k < rk__gltf_len(channels); k++) {
      JsonObject *ch = rk__gltf_element(channels, k);
      g_autofree char *what = g_strdup_printf("animation %u channel %u", a, k);
      gint64 smp, node;
      JsonObject *target = rk__gltf_object(ch, "target");
      if (!rk__gltf_need_object(ch, what, error))
        return false;
      if (!target) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s has no target object", what);
        return false;
      }
      if (!rk__gltf_index(c, ch, "sampler", rk__gltf_len(samplers), &smp, what, error) ||
          !rk__gltf_index(c, target, "node", rk__gltf_len(c->nodes), &node, what, error))
        return false;
      if (smp < 0) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s has no sampler", what);
        return false;
      }
      bool ok;
      const char *path = rk__gltf_string(target, "path");
      rk__gltf_path_channel(path, &ok);
      if (!ok && !(path && strcmp(path, "weights") == 0)) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: unknown target path '%s'", what,
                    path ? path : "(none)");
        return false;
      }
      JsonObject *smpo = rk__gltf_element(samplers, (guint)smp);
      gint64 in, out;
      rk__gltf_index(c, smpo, "input", na, &in, what, NULL);
      rk__gltf_index(c, smpo, "output", na, &out, what, NULL);
      if (!check_use(c, in, "SCALAR", CT_FLOAT, what, "key times", error))
        return false;
      const bool rotation = path && strcmp(path, "rotation") == 0;
      const bool weights = !ok;
      if (!check_use(c, out, weights ? "SCALAR" : rotation ? "VEC4" : "VEC3",
                     rotation || weights ? CT_FLOAT | CT_BYTE | CT_UBYTE | CT_SHORT | CT_USHORT
                                         : CT_FLOAT,
                     what, path, error))
        return false;
      if (!ok || node < 0)
        continue;
      const char *interp = rk__gltf_string(smpo, "interpolation");
      const double mult = interp && strcmp(interp, "CUBICSPLINE") == 0 ? 3 : 1;
      if (rk__gltf_accessor_count(c, out) < mult * rk__gltf_accessor_count(c, in)) {
        g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "%s: %.0f keys but only %.0f output values",
                    what, rk__gltf_accessor_count(c, in), rk__gltf_accessor_count(c, out));
        return false;
      }
    }
  }
  return true;
}
