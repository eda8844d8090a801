/* The target's silhouette on the review page (retarget_silhouette.c), checked without a browser:
 * the page's mesh and each clip's joint turns, skinned here the way the page's script skins them,
 * put every vertex within 1.5 mm of where rigkit's own skinning (rigkit/skin_mesh.h) of the written
 * output puts it at every sample, for GLB outputs and for BVH outputs of the same clips (a BVH's
 * rest frames are world-aligned: the turns from rest are the same); a mesh over the page's budget
 * is not sent and the page says why. */
#include "glb_json.h"
#include "retarget_test.h"

#include <rigkit/fk.h>
#include <rigkit/skin_mesh.h>

/* The JSON of <script type="application/json" id="ID"> in page text (the caller unrefs the
 * parser), or NULL when there is none. */
static JsonNode *page_json(const char *page, const char *id, JsonParser **parser) {
  g_autofree char *open = g_strdup_printf("<script type=\"application/json\" id=\"%s\">", id);
  const char *at = strstr(page, open);
  if (!at)
    return NULL;
  at += strlen(open);
  const char *end = strstr(at, "</script>");
  cr_assert_not_null(end);
  *parser = json_parser_new();
  g_autoptr(GError) e = NULL;
  cr_assert(json_parser_load_from_data(*parser, at, end - at, &e), "%s: %s", id, e->message);
  return json_parser_get_root(*parser);
}

static double num_at(JsonArray *a, guint i) {
  return json_node_get_double(json_array_get_element(a, i));
}

/* The page's vertices of clip motion m at sample k (metres), skinned as its script does: each
 * influence's joint at its position in target.pos, its offset turned by the joint's turn. */
static void page_skin(JsonObject *mesh, JsonObject *m, guint k, rk_vec3 *out, size_t nv) {
  JsonObject *target = json_object_get_object_member(m, "target");
  JsonObject *skin = json_object_get_object_member(target, "skin");
  cr_assert_not_null(skin, "no joint turns in the clip's data");
  JsonArray *pos = json_array_get_array_element(json_object_get_array_member(target, "pos"), k);
  JsonArray *joints = json_object_get_array_member(skin, "joints");
  const guint slots = json_array_get_length(joints);
  gsize len = 0;
  g_autofree guchar *turns = g_base64_decode(json_object_get_string_member(skin, "turns"), &len);
  cr_assert_geq(len, (gsize)8 * slots * (k + 1));
  JsonArray *v = json_object_get_array_member(mesh, "vertices");
  size_t vertex = 0;
  for (guint i = 0; i < json_array_get_length(v); vertex++) {
    cr_assert_lt(vertex, nv, "more vertices on the page than in the mesh");
    const int count = (int)json_array_get_int_element(v, i++);
    rk_vec3 p = {0, 0, 0};
    for (int c = 0; c < count; c++, i += 5) {
      const guint s = (guint)json_array_get_int_element(v, i);
      const gint64 j = json_array_get_int_element(joints, s);
      double q[4];
      for (int a = 0; a < 4; a++) {
        const guchar *b = turns + 8 * ((size_t)k * slots + s) + 2 * a;
        q[a] = (gint16)(guint16)(b[0] | b[1] << 8) / 32767.0;
      }
      const rk_quat turn = {q[0], q[1], q[2], q[3]};
      const rk_vec3 d = rk_vec3_make(num_at(v, i + 2), num_at(v, i + 3), num_at(v, i + 4));
      const rk_vec3 t = rk_vec3_make(num_at(pos, 3 * (guint)j), num_at(pos, 3 * (guint)j + 1),
                                     num_at(pos, 3 * (guint)j + 2));
      p = rk_vec3_add(p, rk_vec3_scale(rk_vec3_add(t, rk_quat_rotate(turn, d)), num_at(v, i + 1)));
    }
    out[vertex] = rk_vec3_scale(p, 0.001);
  }
  cr_assert_eq(vertex, nv, "the page has %zu vertices, the mesh %zu", vertex, nv);
}

/* Runs the walk and the hop onto RiggedFigure writing `format`, with the page; its text. */
static char *page_of(const char *dir, const char *format) {
  g_autofree char *out = g_build_filename(dir, format, NULL);
  g_autofree char *page = g_build_filename(dir, format, "review.html", NULL);
  const char *more[] = {"--unit", "cmu", "--format", format, "--html", page, NULL};
  const char *clips[] = {"generated/cmu_walk.bvh", "generated/cmu_hop.bvh", NULL};
  g_object_unref(rt_run_report(dir, out, "RiggedFigure.glb", more, clips, 0, NULL));
  char *text = NULL;
  cr_assert(g_file_get_contents(page, &text, NULL, NULL));
  return text;
}

Test(retarget_silhouette, the_page_skins_the_mesh_as_rigkit_does) {
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *glb = page_of(dir, "glb");
  g_autofree char *bvh = page_of(dir, "bvh");
  const char *stems[] = {"cmu_walk", "cmu_hop"};
  for (int clip = 0; clip < 2; clip++) {
    /* rigkit's skinning of the GLB output (the character's own document with the clip). */
    g_autofree char *name = g_strdup_printf("%s.glb", stems[clip]);
    g_autofree char *path = g_build_filename(dir, "glb", name, NULL);
    g_autoptr(rk_asset) back = rt_read_output(path);
    const rk_skeleton *s = rk_asset_skeleton(back);
    const size_t n = rk_skeleton_joint_count(s);
    g_autoptr(GError) e = NULL;
    g_autoptr(rk_skin_mesh) mesh = rk_skin_mesh_from_asset(back, &e);
    cr_assert(mesh, "%s", e ? e->message : "");
    const size_t nv = rk_skin_mesh_vertex_count(mesh);
    g_autofree rk_transform *locals = g_new(rk_transform, n);
    g_autofree rk_mat4 *models = g_new(rk_mat4, n);
    g_autofree rk_vec3 *want = g_new(rk_vec3, nv);
    g_autofree rk_vec3 *got = g_new(rk_vec3, nv);
    for (int f = 0; f < 2; f++) {
      const char *text = f ? bvh : glb;
      g_autoptr(JsonParser) mp = NULL, cp = NULL;
      JsonObject *page_mesh = json_node_get_object(page_json(text, "rk-mesh", &mp));
      cr_assert(json_object_get_boolean_member(page_mesh, "draw"));
      g_autofree char *id = g_strdup_printf("rk-motion-%d", clip);
      JsonObject *m = json_node_get_object(page_json(text, id, &cp));
      JsonArray *frames = json_object_get_array_member(m, "sample_frames");
      cr_assert_eq(json_array_get_length(frames), 120);
      double worst = 0;
      for (guint k = 0; k < json_array_get_length(frames); k++) {
        const size_t frame = (size_t)json_array_get_int_element(frames, k);
        rk_clip_sample_frame(rk_asset_clip(back, 0), rk_skeleton_rest_locals(s),
                             json_object_get_double_member(m, "fps"), frame, locals, n);
        rk_fk_models(s, locals, models);
        rk_skin_mesh_pose(mesh, models, want);
        page_skin(page_mesh, m, k, got, nv);
        for (size_t i = 0; i < nv; i++)
          worst = fmax(worst, rk_vec3_norm(rk_vec3_sub(got[i], want[i])));
      }
      /* The page rounds joint positions to whole mm (up to 0.87 mm off) and offsets to 0.1 mm
       * (0.09 mm); its turns are within 1/32767 a component. Measured: 0.96 mm. */
      cr_assert_lt(worst, 0.0015, "%s %s output: a vertex %.2f mm off", stems[clip],
                   f ? "BVH" : "GLB", 1000 * worst);
    }
  }
  rt_rmtree(dir);
}

/* RiggedFigure with its body drawn 81 times (20,736 triangles): over the budget, the page gets no
 * mesh and no turns, and says why. */
Test(retarget_silhouette, a_mesh_over_the_budget_is_not_sent) {
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *figure = rt_data("RiggedFigure.glb");
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GBytes) bin = NULL;
  JsonObject *doc = glb_json(figure, &parser, &bin);
  JsonArray *nodes = json_object_get_array_member(doc, "nodes");
  JsonObject *top = json_array_get_object_element(nodes, 0);
  JsonArray *children = json_object_get_array_member(top, "children");
  for (int copy = 0; copy < 80; copy++) {
    JsonObject *node = json_object_new();
    g_autofree char *name = g_strdup_printf("Proxy copy %d", copy);
    json_object_set_string_member(node, "name", name);
    json_object_set_int_member(node, "mesh", 0);
    json_object_set_int_member(node, "skin", 0);
    json_array_add_int_element(children, json_array_get_length(nodes));
    json_array_add_object_element(nodes, node);
  }
  g_autofree char *heavy = g_build_filename(dir, "heavy.glb", NULL);
  glb_write(heavy, doc, bin);
  g_autofree char *out = g_build_filename(dir, "out", NULL);
  g_autofree char *page = g_build_filename(dir, "review.html", NULL);
  g_autofree char *walk = rt_data("generated/cmu_walk.bvh");
  const char *args[] = {"retarget", "--no-progress", "--unit", "cmu", "--target", heavy,
                        "--out-dir", out, "--html", page, walk, NULL};
  cli_run r = rt_cli(NULL, args);
  cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
  rt_cli_clear(&r);
  g_autofree char *text = NULL;
  cr_assert(g_file_get_contents(page, &text, NULL, NULL));
  g_autoptr(JsonParser) mp = NULL, cp = NULL;
  JsonObject *mesh = json_node_get_object(page_json(text, "rk-mesh", &mp));
  cr_assert_not(json_object_get_boolean_member(mesh, "draw"));
  const char *note = json_object_get_string_member(mesh, "note");
  cr_assert(strstr(note, "20736 triangles") && strstr(note, "over the page's budget") &&
                strstr(note, "skeleton only"),
            "%s", note);
  cr_assert_not(json_object_has_member(mesh, "vertices"));
  JsonObject *m = json_node_get_object(page_json(text, "rk-motion-0", &cp));
  cr_assert_not(json_object_has_member(json_object_get_object_member(m, "target"), "skin"));
  rt_rmtree(dir);
}
