/* The target's silhouette on the review page (retarget_silhouette.h): the mesh as the page's JSON
 * once, each clip's joint turns per sample. The skinning itself is rigkit's (rigkit/skin_mesh.h
 * gives every vertex's influences); the page only sums weight * (position + turn * offset).
 *
 * Why turns and offsets rather than matrices: a joint's model matrix at a pose is M = M_rest *
 * (M_rest^-1 M), and a vertex carried by it lands at t + D (r - o), r its rest position as the
 * joint carries it, o the joint's rest position, t its position at the pose and D = A A_rest^-1
 * the turn of its frame (A the matrices' 3x3 parts). t is in the player's data already; D is a
 * rotation whenever the pose keeps the rest scales (retargeted clips do), so four numbers a joint
 * and sample. The page's data stay exact for any rig whose written output keeps the target's rest
 * pose (glTF and FBX outputs are the target's own; a BVH output's rest is the target's rest
 * positions with world-aligned frames, and its turns from rest are the same). */
#include "retarget_silhouette.h"

#include <json-glib/json-glib.h>
#include <rigkit/json_text.h>

#include <string.h>

struct rk__rt_silhouette {
  bool draw;
  char *note;
  GPtrArray *joints; /* char*: the names of the joints the mesh is weighted to, in joint order */
  char *json;
};

/* The page's mesh member up to its numbers, unclosed: {"draw": .., "note": .., "joints": [..] when
 * drawn (the strings as rigkit writes JSON). */
static GString *head_json(const rk__rt_silhouette *s) {
  g_autoptr(JsonObject) o = json_object_new();
  json_object_set_boolean_member(o, "draw", s->draw);
  json_object_set_string_member(o, "note", s->note);
  if (s->draw) {
    JsonArray *names = json_array_new();
    for (guint k = 0; k < s->joints->len; k++)
      json_array_add_string_element(names, g_ptr_array_index(s->joints, k));
    json_object_set_array_member(o, "joints", names);
  }
  size_t len = 0;
  g_autofree char *text = rk_json_object_to_text(o, false, &len);
  GString *out = g_string_new_len(text, (gssize)len - 1); /* without the closing brace */
  return out;
}

/* The page's mesh: the joints it is weighted to, each vertex's influences, the triangles. */
static char *mesh_json(rk__rt_silhouette *s, const rk_skeleton *sk, const rk_skin_mesh *m) {
  const size_t n = rk_skeleton_joint_count(sk), nv = rk_skin_mesh_vertex_count(m);
  const rk_skin_vertex *v = rk_skin_mesh_vertices(m);
  g_autofree int *slot = g_new(int, n ? n : 1);
  for (size_t j = 0; j < n; j++)
    slot[j] = -1;
  for (size_t i = 0; i < nv; i++)
    for (int k = 0; k < v[i].count; k++)
      slot[v[i].joint[k]] = 0;
  for (size_t j = 0; j < n; j++)
    if (slot[j] == 0) {
      slot[j] = (int)s->joints->len;
      g_ptr_array_add(s->joints, g_strdup(rk_skeleton_joint_name(sk, j)));
    }
  g_autofree rk_mat4 *rest = g_new(rk_mat4, n ? n : 1);
  rk_skeleton_rest_models(sk, rest);
  GString *o = head_json(s);
  g_string_append(o, ",\"vertices\":[");
  for (size_t i = 0; i < nv; i++) {
    g_string_append_printf(o, "%s%d", i ? "," : "", v[i].count);
    for (int k = 0; k < v[i].count; k++) {
      const rk_mat4 *r = &rest[v[i].joint[k]];
      const rk_vec3 d = rk_vec3_sub(rk_mat4_transform_point(r, v[i].local[k]),
                                    rk_mat4_get_translation(r));
      g_string_append_printf(o, ",%d,%.4g,%.1f,%.1f,%.1f", slot[v[i].joint[k]], v[i].weight[k],
                             1000.0 * d.x, 1000.0 * d.y, 1000.0 * d.z);
    }
  }
  g_string_append(o, "],\"triangles\":[");
  const uint32_t *t = rk_skin_mesh_triangles(m);
  for (size_t i = 0; i < 3 * rk_skin_mesh_triangle_count(m); i++)
    g_string_append_printf(o, "%s%u", i ? "," : "", t[i]);
  g_string_append(o, "]}");
  return g_string_free(o, FALSE);
}

rk__rt_silhouette *rk__rt_silhouette_new(const rk_asset *target) {
  rk__rt_silhouette *s = g_new0(rk__rt_silhouette, 1);
  s->joints = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GError) e = NULL;
  g_autoptr(rk_skin_mesh) m = rk_skin_mesh_from_asset(target, &e);
  const size_t nv = m ? rk_skin_mesh_vertex_count(m) : 0, nt = m ? rk_skin_mesh_triangle_count(m) : 0;
  if (!m)
    s->note = g_strdup_printf("the target's mesh cannot be skinned (%s): skeleton only", e->message);
  else if (nt == 0)
    s->note = g_strdup("the target has no skinned mesh: skeleton only");
  else if (nt > RK__RT_SILHOUETTE_MAX_TRIANGLES || nv > RK__RT_SILHOUETTE_MAX_VERTICES)
    s->note = g_strdup_printf("the target's mesh (%zu triangles, %zu vertices) is over the page's "
                              "budget (%d triangles, %d vertices): skeleton only",
                              nt, nv, RK__RT_SILHOUETTE_MAX_TRIANGLES,
                              RK__RT_SILHOUETTE_MAX_VERTICES);
  else
    s->draw = true;
  if (s->draw) {
    s->note = g_strdup_printf("the target's silhouette: its mesh (%zu triangles) skinned at each "
                              "sample",
                              nt);
    s->json = mesh_json(s, rk_asset_skeleton(target), m);
  } else {
    GString *o = head_json(s);
    g_string_append_c(o, '}');
    s->json = g_string_free(o, FALSE);
  }
  return s;
}

void rk__rt_silhouette_free(rk__rt_silhouette *s) {
  if (!s)
    return;
  g_free(s->note);
  g_ptr_array_unref(s->joints);
  g_free(s->json);
  g_free(s);
}

char *rk__rt_silhouette_json(const rk__rt_silhouette *s) {
  return g_strdup(s->json);
}

/* The turn of a frame from its rest, A A_rest^-1, as a unit quaternion. */
static rk_quat turn_of(const rk_mat4 *pose, const rk_mat4 *rest_inv) {
  const rk_mat4 d = rk_mat4_mul_affine(pose, rest_inv);
  const rk_mat3 r = rk_mat4_get_rotation(&d);
  const rk_quat q = rk_quat_from_mat3(&r);
  const double len = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
  return len > 0 && isfinite(len) ? (rk_quat){q.x / len, q.y / len, q.z / len, q.w / len}
                                  : (rk_quat){0, 0, 0, 1};
}

void rk__rt_silhouette_append_turns(GString *out, const rk__rt_silhouette *s,
                                    const rk_skeleton *sk, const rk_mat4 *models, size_t samples) {
  if (!s || !s->draw)
    return;
  const size_t n = rk_skeleton_joint_count(sk), nj = s->joints->len;
  g_autofree int *at = g_new(int, nj ? nj : 1);
  for (size_t k = 0; k < nj; k++)
    if ((at[k] = rk_skeleton_find_joint(sk, g_ptr_array_index(s->joints, k))) < 0)
      return;
  g_autofree rk_mat4 *rest_inv = g_new(rk_mat4, n ? n : 1);
  rk_skeleton_rest_models(sk, rest_inv);
  for (size_t j = 0; j < n; j++)
    if (!rk_mat4_inverse_affine(&rest_inv[j], &rest_inv[j]))
      rest_inv[j] = rk_mat4_identity();
  g_autofree guint8 *bytes = g_new(guint8, 8 * nj * samples + 1);
  guint8 *p = bytes;
  for (size_t f = 0; f < samples; f++)
    for (size_t k = 0; k < nj; k++) {
      const rk_quat q = turn_of(&models[f * n + (size_t)at[k]], &rest_inv[at[k]]);
      const double c[4] = {q.x, q.y, q.z, q.w};
      for (int i = 0; i < 4; i++) {
        const guint16 v = (guint16)(gint16)lround(32767.0 * c[i]);
        *p++ = (guint8)(v & 0xff);
        *p++ = (guint8)(v >> 8);
      }
    }
  g_string_append(out, ",\"skin\":{\"joints\":[");
  for (size_t k = 0; k < nj; k++)
    g_string_append_printf(out, "%s%d", k ? "," : "", at[k]);
  g_autofree char *b64 = g_base64_encode(bytes, (gsize)(p - bytes));
  g_string_append_printf(out, "],\"turns\":\"%s\"}", b64);
}
