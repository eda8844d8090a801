/* The glTF editor (rigkit/gltf_edit.h): a character's own glTF document with its animations
 * replaced by one clip.
 *
 * In order: the document is read and its bytes checked against the digest the import recorded
 * (gltf_source.c); the output plan decides which buffer takes the clip's data and which files the
 * document refers to are copied beside the output; the clip becomes keys of the document's nodes
 * (gltf_edit_nodes.c); those keys are added as one animation through the glTF writer's own
 * accessors and samplers (gltf_anim.c, gltf_buffer.c), appended after the host buffer's bytes;
 * the few members that must change are changed (animations, accessors, bufferViews, the host
 * buffer's byteLength and uri, a "matrix" of an animated node); the JSON text and the files are
 * written together (gltf_files.c). Nothing else of the document is touched. */
#include <rigkit/gltf_edit.h>

#include "export_shared.h"
#include "gltf_anim.h"
#include "gltf_edit_nodes.h"
#include "gltf_files.h"
#include "gltf_source.h"

#include <glib/gstdio.h>
#include <rigkit/json_text.h>
#include <string.h>

/* Where the output's data goes. */
typedef struct edit_plan {
  bool glb;           /* the output is a GLB */
  guint host;         /* the buffer that takes the clip's data */
  bool host_new;      /* a buffer added after the document's buffers */
  char *bin_path;     /* .gltf output: the host buffer's file */
  char *bin_uri;      /* its uri from the output */
  GPtrArray *files;   /* char *: the files copied beside the output, relative to both folders */
  GPtrArray *targets; /* char *: their paths beside the output */
} edit_plan;

static void edit_plan_clear(edit_plan *p) {
  g_free(p->bin_path);
  g_free(p->bin_uri);
  if (p->files)
    g_ptr_array_unref(p->files);
  if (p->targets)
    g_ptr_array_unref(p->targets);
}

/* Whether a and b name the same existing file. */
static bool same_file(const char *a, const char *b) {
  GStatBuf sa, sb;
  return g_stat(a, &sa) == 0 && g_stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

/* Adds the file a buffer's or image's uri names to the copies (once; not when the output's
 * folder is the document's). */
static bool plan_copy(const rk__gltf_source *s, edit_plan *p, const char *out_dir, JsonObject *o,
                      const char *what, GHashTable *seen, GError **error) {
  const char *uri = o ? json_object_get_string_member_with_default(o, "uri", NULL) : NULL;
  g_autofree char *file = NULL;
  if (!uri || !rk__gltf_source_uri_file(s, uri, what, &file, error))
    return uri == NULL;
  if (!file || g_hash_table_contains(seen, file))
    return true;
  g_hash_table_add(seen, g_strdup(file));
  g_autofree char *from = g_build_filename(s->dir, file, NULL);
  char *to = g_build_filename(out_dir, file, NULL);
  if (same_file(from, to)) {
    g_free(to);
    return true;
  }
  g_ptr_array_add(p->files, g_strdup(file));
  g_ptr_array_add(p->targets, to);
  return true;
}

/* Decides the host buffer, the copies and the .gltf output's buffer file. */
static bool plan_outputs(const rk__gltf_source *s, const char *out_path, edit_plan *p,
                         GError **error) {
  const char *ext = rk__export_path_extension(out_path);
  p->glb = ext && g_ascii_strcasecmp(ext, ".glb") == 0;
  p->files = g_ptr_array_new_with_free_func(g_free);
  p->targets = g_ptr_array_new_with_free_func(g_free);
  if (!p->glb && !(ext && g_ascii_strcasecmp(ext, ".gltf") == 0)) {
    g_set_error(error, RK_ERROR, RK_ERROR_UNSUPPORTED,
                "%s: the edited document is written as .glb or .gltf, not '%s'", out_path,
                ext ? ext : "");
    return false;
  }
  JsonArray *buffers = rk__gltf_source_array(s, "buffers");
  const guint nb = buffers ? json_array_get_length(buffers) : 0;
  JsonObject *b0 = nb ? json_array_get_object_element(buffers, 0) : NULL;
  const bool bin_chunk = s->glb && b0 && !json_object_has_member(b0, "uri");
  /* A GLB holds buffer 0 in its BIN chunk; a .gltf keeps the document's buffers where they are
   * and takes a GLB's BIN chunk, or the clip's data alone, in its own file. */
  p->host_new = p->glb ? nb == 0 : !bin_chunk;
  p->host = p->host_new ? nb : 0;
  g_autofree char *out_dir = g_path_get_dirname(out_path);
  g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < nb; i++) {
    g_autofree char *what = g_strdup_printf("buffer %u", i);
    if (!(p->glb && i == 0) &&
        !plan_copy(s, p, out_dir, json_array_get_object_element(buffers, i), what, seen, error))
      return false;
  }
  JsonArray *images = rk__gltf_source_array(s, "images");
  for (guint i = 0; images && i < json_array_get_length(images); i++) {
    g_autofree char *what = g_strdup_printf("image %u", i);
    JsonNode *e = json_array_get_element(images, i);
    if (!plan_copy(s, p, out_dir, JSON_NODE_HOLDS_OBJECT(e) ? json_node_get_object(e) : NULL,
                   what, seen, error))
      return false;
  }
  if (!p->glb) {
    g_autofree char *base = g_path_get_basename(out_path);
    base[strlen(base) - strlen(ext)] = '\0';
    g_autofree char *name = g_strdup_printf("%s.bin", base);
    for (unsigned k = 1; g_hash_table_contains(seen, name); k++) {
      g_free(name);
      name = g_strdup_printf("%s.%u.bin", base, k);
    }
    p->bin_path = g_build_filename(out_dir, name, NULL);
    p->bin_uri = g_uri_escape_string(name, NULL, TRUE);
  }
  return true;
}

bool rk_gltf_edit_applies(const rk_asset *target, const char *out_path, rk_export_format format) {
  const char *tf = target ? rk_asset_source_format(target) : NULL;
  if (format == RK_EXPORT_AUTO)
    format = rk_export_format_from_path(out_path);
  return tf && (!strcmp(tf, "glb") || !strcmp(tf, "gltf")) &&
         (format == RK_EXPORT_GLB || format == RK_EXPORT_GLTF);
}

/* The files a plan writes, in the order they are written (NULL-terminated, g_strfreev). */
static char **plan_files(const edit_plan *p, const char *out_path) {
  GPtrArray *list = g_ptr_array_new();
  g_ptr_array_add(list, g_strdup(out_path));
  if (p->bin_path)
    g_ptr_array_add(list, g_strdup(p->bin_path));
  for (guint i = 0; i < p->targets->len; i++)
    g_ptr_array_add(list, g_strdup(g_ptr_array_index(p->targets, i)));
  g_ptr_array_add(list, NULL);
  return (char **)g_ptr_array_free(list, FALSE);
}

char **rk_gltf_edit_output_files(const char *target_path, const char *out_path, GError **error) {
  if (!target_path || !out_path) {
    g_set_error(error, RK_ERROR, RK_ERROR_IO, "no target or output path given");
    return NULL;
  }
  rk__gltf_source s;
  edit_plan p = {0};
  char **files = NULL;
  if (rk__gltf_source_read(&s, target_path, NULL, NULL, error) &&
      plan_outputs(&s, out_path, &p, error))
    files = plan_files(&p, out_path);
  edit_plan_clear(&p);
  rk__gltf_source_clear(&s);
  return files;
}

/* The top-level array `name`, added (empty) when the document has none. */
static JsonArray *root_array(JsonObject *root, const char *name) {
  JsonNode *n = json_object_get_member(root, name);
  if (!n || !JSON_NODE_HOLDS_ARRAY(n))
    json_object_set_array_member(root, name, json_array_new());
  return json_object_get_array_member(root, name);
}

/* An animated node may not have a matrix (glTF 2.0, 3.5.2): the same transform as TRS. */
static void matrix_to_trs(JsonObject *node, const rk_mat4 *local) {
  rk_transform x;
  if (!json_object_has_member(node, "matrix") || !rk_transform_from_mat4(local, &x))
    return;
  json_object_remove_member(node, "matrix");
  const double *parts[3] = {&x.t.x, &x.r.x, &x.s.x};
  static const char *const names[3] = {"translation", "rotation", "scale"};
  for (int k = 0; k < 3; k++) {
    JsonArray *a = json_array_new();
    for (int c = 0; c < (k == 1 ? 4 : 3); c++)
      json_array_add_double_element(a, rk__export_clean_zero(parts[k][c]));
    json_object_set_array_member(node, names[k], a);
  }
}

/* The members the edit changes: the host buffer, and matrices of animated nodes. */
static void edit_members(JsonObject *root, const edit_plan *p, size_t host_bytes,
                         const bool *animated, const rk__gltf_nodes *nodes) {
  JsonArray *buffers = root_array(root, "buffers");
  if (p->host_new)
    json_array_add_object_element(buffers, json_object_new());
  JsonObject *host = json_array_get_object_element(buffers, p->host);
  json_object_set_int_member(host, "byteLength", (gint64)host_bytes);
  if (p->glb && json_object_has_member(host, "uri"))
    json_object_remove_member(host, "uri");
  if (!p->glb)
    json_object_set_string_member(host, "uri", p->bin_uri);
  JsonArray *doc_nodes = nodes->count ? json_object_get_array_member(root, "nodes") : NULL;
  for (guint n = 0; n < nodes->count; n++)
    if (animated[n])
      matrix_to_trs(json_array_get_object_element(doc_nodes, n), &nodes->local[n]);
}

/* The clip as one animation of the document: the keys, appended to the host buffer's bytes in
 * *bin, and the members that change. */
static bool add_clip(rk__gltf_source *s, const rk_asset *target, const rk_clip *clip,
                     const edit_plan *p, const char *out_path, GByteArray **bin, GError **error) {
  rk__gltf_nodes nodes;
  bool ok = rk__gltf_nodes_read(rk__gltf_source_array(s, "nodes"), &nodes, s->path, error);
  const rk_export_options defaults = RK_EXPORT_OPTIONS_INIT;
  const double fps = rk__export_clip_fps(clip, &defaults);
  size_t frames = 0;
  ok = ok && rk__export_frame_count(clip, fps, out_path, &frames, error);
  g_autofree bool *animated = NULL;
  g_autoptr(rk_clip) keys =
      ok ? rk__gltf_edit_node_clip(&nodes, target, clip, fps, frames, &animated, s->path, error)
         : NULL;
  g_autoptr(GBytes) host = NULL;
  if (keys && !p->host_new)
    host = rk__gltf_source_buffer(s, p->host, error);
  ok = keys && (p->host_new || host);
  rk__gltf_ctx c;
  rk__gltf_scene_init(&c, target, out_path, error);
  if (ok) {
    json_array_unref(c.accessors);
    json_array_unref(c.views);
    c.accessors = json_array_ref(root_array(s->root, "accessors"));
    c.views = json_array_ref(root_array(s->root, "bufferViews"));
    if (host)
      g_byte_array_append(c.bin, g_bytes_get_data(host, NULL), (guint)g_bytes_get_size(host));
    c.buffer = (int)p->host;
    c.target_names = (const char *const *)nodes.names->pdata;
    g_autoptr(GHashTable) names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    ok = rk__gltf_add_animation(&c, keys, 0, names);
  }
  if (ok) {
    json_object_set_array_member(s->root, "animations", json_array_ref(c.animations));
    edit_members(s->root, p, c.bin->len, animated, &nodes);
    *bin = g_byte_array_ref(c.bin);
  }
  rk__gltf_scene_clear(&c);
  rk__gltf_nodes_clear(&nodes);
  return ok;
}

/* The copies' bytes as atomic outputs (bytes in *held). */
static bool copies(const rk__gltf_source *s, const edit_plan *p, GPtrArray *held,
                   rk__atomic_output *out, rk__atomic_piece *pieces, GError **error) {
  for (guint i = 0; i < p->files->len; i++) {
    const char *file = g_ptr_array_index(p->files, i);
    GBytes *b = rk__gltf_source_file(s, file, "a file the document refers to", error);
    if (!b)
      return false;
    g_ptr_array_add(held, b);
    g_autofree char *dir = g_path_get_dirname(g_ptr_array_index(p->targets, i));
    if (g_mkdir_with_parents(dir, 0777) != 0) {
      g_set_error(error, RK_ERROR, RK_ERROR_IO, "%s: cannot create the folder for %s", dir, file);
      return false;
    }
    pieces[i] = (rk__atomic_piece){g_bytes_get_data(b, NULL), g_bytes_get_size(b)};
    out[i] = (rk__atomic_output){g_ptr_array_index(p->targets, i), &pieces[i], 1};
  }
  return true;
}

static bool check_inputs(const char *target_path, const rk_asset *target, const rk_clip *clip,
                         const char *out_path, GError **error) {
  if (!target_path || !target || !clip || !out_path || !*out_path) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "the glTF editor needs a target file, its asset, a clip and an output path");
    return false;
  }
  const rk_skeleton *s = rk_asset_skeleton(target);
  if (!rk_asset_source_digest(target)) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "%s: the character was not imported from a glTF file (it records no digest of "
                "one)", target_path);
    return false;
  }
  if (rk_clip_joint_count(clip) != rk_skeleton_joint_count(s)) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "%s: clip '%s' animates %zu joints, the character has %zu: a clip of another "
                "skeleton", target_path, rk_clip_name(clip), rk_clip_joint_count(clip),
                rk_skeleton_joint_count(s));
    return false;
  }
  return true;
}

struct rk_gltf_edit_staged {
  rk__atomic_set *set;
  char **files; /* NULL-terminated: the names the set's files take */
};

struct rk_gltf_edit_doc {
  char *target_path, *out_path;
  const rk_asset *target;
  bool opened;       /* s and p were filled (to clear) */
  rk__gltf_source s;
  edit_plan p;
  GError *error;     /* why the document cannot be read or planned */
};

rk_gltf_edit_doc *rk_gltf_edit_open(const char *target_path, const rk_asset *target,
                                    const char *out_path) {
  rk_gltf_edit_doc *d = g_new0(rk_gltf_edit_doc, 1);
  d->target_path = g_strdup(target_path);
  d->out_path = g_strdup(out_path);
  d->target = target;
  /* What check_inputs refuses is left to rk_gltf_edit_stage_doc, which says it first. */
  if (target_path && target && out_path && *out_path && rk_asset_source_digest(target)) {
    d->opened = true;
    /* The import's parse of the document (the first edit of a character takes it): no second
     * parse of the same JSON when the file still holds what was imported. */
    GDestroyNotify free_tree = NULL;
    JsonNode *tree = rk_asset_take_source_tree(target, &free_tree);
    if (tree && free_tree != (GDestroyNotify)json_node_unref) /* not a JSON tree: not ours */
      g_clear_pointer(&tree, free_tree);
    (void)(rk__gltf_source_read(&d->s, target_path, rk_asset_source_digest(target), tree,
                                &d->error) &&
           plan_outputs(&d->s, out_path, &d->p, &d->error));
  }
  return d;
}

void rk_gltf_edit_doc_free(rk_gltf_edit_doc *d) {
  if (!d)
    return;
  if (d->opened) {
    edit_plan_clear(&d->p);
    rk__gltf_source_clear(&d->s);
  }
  g_clear_error(&d->error);
  g_free(d->target_path);
  g_free(d->out_path);
  g_free(d);
}

/* The document's edit with clip written to temporaries (rk_gltf_edit_stage's work past the
 * document's reading and plan). */
static rk_gltf_edit_staged *stage(rk_gltf_edit_doc *d, const rk_clip *clip, GError **error) {
  g_autoptr(GByteArray) bin = NULL;
  g_autoptr(GPtrArray) held = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
  rk__gltf_source *s = &d->s;
  const edit_plan *p = &d->p;
  bool ok = add_clip(s, d->target, clip, p, d->out_path, &bin, error);
  const guint nc = ok ? p->files->len : 0;
  g_autofree rk__atomic_output *extra = g_new0(rk__atomic_output, nc + 1);
  g_autofree rk__atomic_piece *pieces = g_new0(rk__atomic_piece, nc + 1);
  ok = ok && copies(s, p, held, extra, pieces, error);
  if (!ok)
    return NULL;
  size_t len = 0;
  g_autofree char *json = rk_json_object_to_text(s->root, !p->glb, &len);
  const rk__gltf_files files = {d->out_path, p->glb, json, len, bin, p->bin_path, extra, nc};
  rk__atomic_set *set = rk__gltf_files_stage(&files, error);
  if (!set)
    return NULL;
  rk_gltf_edit_staged *st = g_new0(rk_gltf_edit_staged, 1);
  st->set = set;
  st->files = plan_files(p, d->out_path);
  return st;
}

rk_gltf_edit_staged *rk_gltf_edit_stage_doc(rk_gltf_edit_doc *d, const rk_clip *clip,
                                            GError **error) {
  rk_gltf_edit_staged *st = NULL;
  if (!check_inputs(d->target_path, d->target, clip, d->out_path, error))
    st = NULL;
  else if (d->error)
    g_propagate_error(error, g_steal_pointer(&d->error));
  else
    st = stage(d, clip, error);
  rk_gltf_edit_doc_free(d);
  return st;
}

rk_gltf_edit_staged *rk_gltf_edit_stage(const char *target_path, const rk_asset *target,
                                        const rk_clip *clip, const char *out_path,
                                        GError **error) {
  return rk_gltf_edit_stage_doc(rk_gltf_edit_open(target_path, target, out_path), clip, error);
}

const char *const *rk_gltf_edit_staged_files(const rk_gltf_edit_staged *st) {
  return (const char *const *)st->files;
}

GBytes *rk_gltf_edit_staged_read(rk_gltf_edit_staged *st, GError **error) {
  rk__atomic_set_sync_start(st->set);
  return rk__atomic_set_read(st->set, 0, error);
}

static void staged_free(rk_gltf_edit_staged *st) {
  g_strfreev(st->files);
  g_free(st);
}

bool rk_gltf_edit_commit(rk_gltf_edit_staged *st, GError **error) {
  const bool ok = rk__atomic_set_commit(st->set, error);
  staged_free(st);
  return ok;
}

void rk_gltf_edit_abort(rk_gltf_edit_staged *st) {
  if (!st)
    return;
  rk__atomic_set_abort(st->set);
  staged_free(st);
}

bool rk_gltf_edit_write(const char *target_path, const rk_asset *target, const rk_clip *clip,
                        const char *out_path, GError **error) {
  rk_gltf_edit_staged *st = rk_gltf_edit_stage(target_path, target, clip, out_path, error);
  return st && rk_gltf_edit_commit(st, error);
}
