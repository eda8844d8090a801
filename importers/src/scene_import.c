/* An Assimp scene (already in rigkit conventions, see assimp_scene.c) -> a raw asset in canonical
 * space: which nodes are joints, folding of the parents above the skeleton root, units and axes;
 * the clips (channel binding, frame rates) come from scene_clips.c, the meshes (at most four
 * normalised weights, inverse bind matrices) from scene_meshes.c. */
#include "scene_import.h"

#include "conventions.h"
#include "scene_clips.h"
#include "scene_meshes.h"

#include <string.h>

/* Node roles. */
enum {
  ROLE_SKIN = 1 << 0,     /* a bone of some skinned mesh */
  ROLE_ANIMATED = 1 << 1, /* a channel moves it away from its rest pose */
  ROLE_JOINT = 1 << 2,    /* ends up in the skeleton */
};

static rk_transform node_rest(const rk__scene_node *n) {
  rk_transform t;
  if (!rk_transform_from_mat4(&n->local, &t))
    t = rk_transform_identity();
  return t;
}

static int lca(const rk__scene *s, int a, int b) {
  /* Preorder: a parent always has a smaller index, so walk the larger index up. */
  while (a != b) {
    if (a > b)
      a = s->nodes[a].parent;
    else
      b = s->nodes[b].parent;
    if (a < 0 || b < 0)
      return 0;
  }
  return a;
}

/* Marks the skin joints (bones of meshes; FBX skeleton nodes) and the animated nodes in role, and
 * notes names that bind ambiguously and channels that bind to nothing. */
static void mark_skin_and_animated(const rk__scene *s, const rk_transform *node_rests,
                                   unsigned *role, rk__raw_asset *raw) {
  const unsigned n = s->node_count;
  unsigned ambiguous = 0;
  for (unsigned m = 0; m < s->mesh_count; m++)
    for (unsigned b = 0; b < s->meshes[m].bone_count; b++) {
      bool amb = false;
      int node = rk__scene_bind_name(s, s->meshes[m].bones[b].name, &amb);
      ambiguous += amb;
      if (node >= 0)
        role[node] |= ROLE_SKIN;
    }
  /* FBX skeleton nodes are bones even when no mesh weights them and no clip moves them (an
   * unanimated root above the hips); leaves are left to the bone-tip rule below. */
  for (unsigned i = 0; i < n; i++)
    if (s->nodes[i].fbx_skeleton)
      role[i] |= ROLE_SKIN;
  unsigned unknown_channels = 0;
  for (unsigned a = 0; a < s->anim_count; a++)
    for (unsigned c = 0; c < s->anims[a].channel_count; c++) {
      const rk__scene_channel *ch = &s->anims[a].channels[c];
      bool amb = false;
      int node = rk__scene_bind_name(s, ch->node_name, &amb);
      ambiguous += amb;
      if (node < 0) {
        unknown_channels++;
        continue;
      }
      if (!s->nodes[node].is_camera && !s->nodes[node].is_light &&
          rk__scene_channel_moves(ch, &node_rests[node]))
        role[node] |= ROLE_ANIMATED;
    }
  if (ambiguous)
    rk__raw_note(raw, "%u bone or channel names match several nodes: bound to the node that "
                      "holds no mesh, camera or light", ambiguous);
  if (unknown_channels)
    rk__raw_note(raw, "%u animation channels name no node and were ignored", unknown_channels);
}

/* The skeleton's root: the lowest common ancestor of the skin joints and animated nodes, or -1
 * when there are none. */
static int skeleton_root(const rk__scene *s, const unsigned *role) {
  int root = -1;
  for (unsigned i = 0; i < s->node_count; i++)
    if (role[i] & (ROLE_SKIN | ROLE_ANIMATED))
      root = root < 0 ? (int)i : lca(s, root, (int)i);
  return root;
}

/* Marks as joints the skin joints, the animated nodes and their ancestors up to the root, and
 * the bone tips below joints (e.g. Blender's "_end" leaf bones): whole subtrees without meshes,
 * cameras or lights. Returns the number of bone tips. */
static unsigned mark_joints(const rk__scene *s, int root, unsigned *role) {
  const unsigned n = s->node_count;
  for (unsigned i = 0; i < n; i++)
    if (role[i] & (ROLE_SKIN | ROLE_ANIMATED))
      for (int j = (int)i; j >= 0 && !(role[j] & ROLE_JOINT); j = s->nodes[j].parent) {
        role[j] |= ROLE_JOINT;
        if (j == root)
          break;
      }
  /* Preorder lets one backward pass find payload-free subtrees. */
  g_autofree guint8 *has_payload_below = g_new0(guint8, n);
  for (unsigned i = n; i-- > 0;) {
    if (rk__scene_node_has_payload(&s->nodes[i]))
      has_payload_below[i] = 1;
    if (has_payload_below[i] && s->nodes[i].parent >= 0)
      has_payload_below[s->nodes[i].parent] = 1;
  }
  unsigned tips = 0;
  for (unsigned i = 0; i < n; i++) {
    const int p = s->nodes[i].parent;
    if (!(role[i] & ROLE_JOINT) && p >= 0 && (role[p] & ROLE_JOINT) && (int)i != root &&
        !has_payload_below[i]) {
      /* Only below the root: parents of the root are folded, not joints. */
      bool under_root = false;
      for (int j = p; j >= 0; j = s->nodes[j].parent)
        if (j == root) {
          under_root = true;
          break;
        }
      if (under_root) {
        role[i] |= ROLE_JOINT;
        tips++;
      }
    }
  }
  return tips;
}

/* Adds the joint nodes to raw in preorder (joint_of_node: each node's raw joint or -1) and
 * returns their rest transforms (a GArray of rk_transform, in raw joint order). */
static GArray *add_joints(const rk__scene *s, const unsigned *role, int root,
                          const rk_transform *node_rests, int *joint_of_node, rk__raw_asset *raw) {
  const unsigned n = s->node_count;
  GArray *rests = g_array_new(FALSE, FALSE, sizeof(rk_transform));
  for (unsigned i = 0; i < n; i++) {
    joint_of_node[i] = -1;
    if (!(role[i] & ROLE_JOINT))
      continue;
    const rk__scene_node *node = &s->nodes[i];
    const int parent = (int)i == root ? -1 : joint_of_node[node->parent];
    bool leaf = true;
    for (unsigned c = i + 1; c < n && leaf; c++)
      if (s->nodes[c].parent == (int)i && (role[c] & ROLE_JOINT))
        leaf = false;
    unsigned flags = 0;
    if (leaf && !(role[i] & (ROLE_SKIN | ROLE_ANIMATED)))
      flags |= RK_SKELETON_END_SITE;
    if ((int)i == root && i == 0 && !(role[i] & (ROLE_SKIN | ROLE_ANIMATED)))
      flags |= RK_SKELETON_HELPER;
    joint_of_node[i] = rk__raw_add_joint(raw, node->name, parent, &node_rests[i], flags);
    g_array_append_val(rests, node_rests[i]);
    /* Shear cannot live in a TRS rest pose: say so when the decomposition loses it. */
    rk_mat4 back = rk_transform_to_mat4(&node_rests[i]);
    if (rk_mat4_max_abs_diff(&back, &node->local) > 1e-5 * (1.0 + fabs(node->local.m[12]) +
                                                            fabs(node->local.m[13]) +
                                                            fabs(node->local.m[14])))
      rk__raw_note(raw, "node '%s' has a sheared transform: approximated by translation, "
                        "rotation and scale", node->name);
  }
  return rests;
}

/* Records for each joint the glTF document node it was read from. Assimp keeps the names the
 * pre-pass made unique, and adds a node of its own ("ROOT") above several scene roots: a scene
 * node is the document node of its name only when its parent is that node's document parent and
 * both have as many children. */
static void bind_source_nodes(const rk__scene *s, const rk__gltf_info *gltf,
                              const int *joint_of_node, rk__raw_asset *raw) {
  if (!gltf || !gltf->node_names || !gltf->node_parents)
    return;
  const guint nd = gltf->node_names->len;
  g_autoptr(GHashTable) index = g_hash_table_new(g_str_hash, g_str_equal);
  g_autofree guint *doc_children = g_new0(guint, nd ? nd : 1);
  for (guint i = 0; i < nd; i++) {
    g_hash_table_insert(index, g_ptr_array_index(gltf->node_names, i), GUINT_TO_POINTER(i + 1));
    if (gltf->node_parents[i] >= 0)
      doc_children[gltf->node_parents[i]]++;
  }
  g_autofree guint *scene_children = g_new0(guint, s->node_count);
  for (unsigned i = 0; i < s->node_count; i++)
    if (s->nodes[i].parent >= 0)
      scene_children[s->nodes[i].parent]++;
  g_autofree gint64 *doc_of = g_new(gint64, s->node_count);
  for (unsigned i = 0; i < s->node_count; i++) {
    const int p = s->nodes[i].parent; /* preorder: doc_of[p] is known */
    gint64 d = (gint64)GPOINTER_TO_UINT(g_hash_table_lookup(index, s->nodes[i].name)) - 1;
    if (d >= 0 && (gltf->node_parents[d] != (p >= 0 ? doc_of[p] : -1) ||
                   doc_children[d] != scene_children[i]))
      d = -1;
    doc_of[i] = d;
    if (d >= 0 && joint_of_node[i] >= 0)
      rk__raw_joint_at(raw, (size_t)joint_of_node[i])->source_node = (int)d;
  }
}

/* Folds the parents above the root into it: model space = the file's world space. */
static void fold_above_root(const rk__scene *s, int root, const char *format, rk__raw_asset *raw) {
  if (s->nodes[root].parent < 0)
    return;
  rk_mat4 above = rk__scene_node_world(s, s->nodes[root].parent);
  rk_transform fold;
  if (!rk_transform_from_mat4(&above, &fold))
    return;
  GString *names = g_string_new(NULL);
  for (int j = s->nodes[root].parent; j >= 0; j = s->nodes[j].parent)
    g_string_append_printf(names, "%s'%s'", names->len ? ", " : "", s->nodes[j].name);
  const bool uniform = fabs(fold.s.y - fold.s.x) <= 1e-6 * fabs(fold.s.x) &&
                       fabs(fold.s.z - fold.s.x) <= 1e-6 * fabs(fold.s.x);
  if (!uniform)
    rk__raw_note(raw, "parents of the root have a non-uniform scale (%g, %g, %g): "
                      "root animation approximated", fold.s.x, fold.s.y, fold.s.z);
  const rk_mat4 id4 = rk_mat4_identity();
  const bool identity = rk_mat4_max_abs_diff(&above, &id4) < 1e-9;
  if (!identity) {
    rk__raw_premultiply_roots(raw, &fold);
    rk__raw_note(raw, "transform of the nodes above the skeleton root (%s) folded into root "
                      "joint '%s'", names->str, s->nodes[root].name);
    /* A parent that turns Z-up content into glTF's Y-up world (a "Z_UP" node). */
    rk_vec3 z = rk_quat_rotate(fold.r, rk_vec3_make(0, 0, 1));
    if (strcmp(format, "fbx") != 0 && rk_vec3_norm(rk_vec3_sub(z, rk_vec3_make(0, 1, 0))) < 1e-3) {
      rk__raw_set_up_axis(raw, "Z");
      rk__raw_note(raw, "the skeleton is authored Z-up under a rotating parent: folded into "
                        "the canonical Y-up conversion");
    }
  }
  g_string_free(names, TRUE);
}

/* The unit: FBX's UnitScaleFactor (Assimp's GlobalScale already took the scene to metres), glTF's
 * metres; the caller's unit overrides either. */
static void set_unit(const rk__scene *s, const char *format, const rk_import_options *opts,
                     rk__raw_asset *raw) {
  if (strcmp(format, "fbx") == 0) {
    const double usf = s->unit_scale_factor > 0 ? s->unit_scale_factor : 1.0;
    const double m = usf * 0.01;
    const char *name = rk__unit_name(m);
    rk__raw_set_unit(raw, name ? name : "custom", m);
    rk__raw_note(raw, "FBX UnitScaleFactor %g (%g m per unit)%s", usf, m,
                 s->global_scale_applied ? ": scaled to metres by Assimp's GlobalScale" : "");
  } else {
    rk__raw_set_unit(raw, "m", 1.0);
  }
  if (opts->unit_scale > 0) {
    const double cur = raw->unit_scale;
    rk__raw_scale_lengths(raw, opts->unit_scale / cur);
    const char *name = rk__unit_name(opts->unit_scale);
    rk__raw_set_unit(raw, name ? name : "custom", opts->unit_scale);
    rk__raw_note(raw, "unit overridden: %g m per file unit (instead of %g)", opts->unit_scale, cur);
  }
}

/* FBX global axes (Assimp 5.2.5 does not apply them): a rotation folded into the roots, or a
 * mirror (re-expressing everything) for left-handed axes. */
static void apply_fbx_axes(const rk__scene *s, rk__raw_asset *raw) {
  if (!s->has_axes)
    return;
  rk_mat3 a = rk__basis_from_axes(s->up_axis, s->up_sign, s->front_axis, s->front_sign,
                                  s->coord_axis, s->coord_sign);
  rk_mat3 id = rk_mat3_identity();
  double diff = 0;
  for (int i = 0; i < 9; i++)
    diff = fmax(diff, fabs(a.m[i] - id.m[i]));
  rk__raw_set_up_axis(raw, rk__axis_name(s->up_axis, s->up_sign));
  if (!(diff > 0.5))
    return;
  const double det = a.m[0] * (a.m[4] * a.m[8] - a.m[7] * a.m[5]) -
                     a.m[3] * (a.m[1] * a.m[8] - a.m[7] * a.m[2]) +
                     a.m[6] * (a.m[1] * a.m[5] - a.m[4] * a.m[2]);
  if (det > 0) {
    rk_transform fold = rk_transform_identity();
    fold.r = rk_quat_from_mat3(&a);
    rk__raw_premultiply_roots(raw, &fold);
  } else {
    rk__raw_change_basis(raw, &a);
  }
  rk__raw_note(raw, "FBX axes: up %s, front %s, right %s%s: converted to Y-up",
               rk__axis_name(s->up_axis, s->up_sign), rk__axis_name(s->front_axis, s->front_sign),
               rk__axis_name(s->coord_axis, s->coord_sign),
               det < 0 ? " (left-handed: mirrored)" : "");
}

/* Plausibility: glTF says metres, but not every exporter listens. */
static void note_implausible_height(rk__raw_asset *raw) {
  g_autofree rk_mat4 *models = rk__raw_rest_models(raw);
  if (!models || raw->joints->len <= 1)
    return;
  double lo = INFINITY, hi = -INFINITY;
  for (guint i = 0; i < raw->joints->len; i++) {
    lo = fmin(lo, models[i].m[13]);
    hi = fmax(hi, models[i].m[13]);
  }
  if (hi - lo > 20.0 || (hi - lo > 0 && hi - lo < 0.02))
    rk__raw_note(raw, "the rest skeleton is %.3g m tall: the file's unit may not be metres "
                      "(see --unit)", hi - lo);
}

rk__raw_asset *rk__scene_to_raw(rk__scene *s, const char *format, const rk__gltf_info *gltf,
                                const rk_import_options *opts, GError **error) {
  const unsigned n = s->node_count;
  if (n == 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "the scene has no nodes");
    return NULL;
  }
  g_autoptr(rk__raw_asset) raw = rk__raw_asset_new();
  if (gltf && gltf->notes)
    for (guint i = 0; i < gltf->notes->len; i++)
      rk__raw_note(raw, "%s", (const char *)g_ptr_array_index(gltf->notes, i));
  g_autofree unsigned *role = g_new0(unsigned, n);
  g_autofree rk_transform *node_rests = g_new(rk_transform, n);
  for (unsigned i = 0; i < n; i++)
    node_rests[i] = node_rest(&s->nodes[i]);
  mark_skin_and_animated(s, node_rests, role, raw);
  /* Skin joints and animated nodes, connected through their ancestors to one root. */
  const int root = skeleton_root(s, role);
  if (root < 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_UNSUPPORTED,
                "no skeleton: no skinned joints and no animated nodes");
    return NULL;
  }
  const unsigned tips = mark_joints(s, root, role);
  g_autofree int *joint_of_node = g_new(int, n);
  GArray *rests = add_joints(s, role, root, node_rests, joint_of_node, raw);
  bind_source_nodes(s, gltf, joint_of_node, raw);
  if (tips)
    rk__raw_note(raw, "%u unskinned, unanimated nodes below joints kept as joints (bone tips)",
                 tips);
  rk__scene_build_clips(s, format, gltf, joint_of_node, (const rk_transform *)(void *)rests->data, raw);
  g_array_unref(rests);
  fold_above_root(s, root, format, raw);
  if (!opts->skip_meshes)
    rk__scene_build_meshes(s, format, joint_of_node, raw);
  rk__raw_normalize_root_scale(raw);
  set_unit(s, format, opts, raw);
  apply_fbx_axes(s, raw);
  rk__raw_uniquify_names(raw);
  note_implausible_height(raw);
  return g_steal_pointer(&raw);
}
