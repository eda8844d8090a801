/* A small, independent BVH reader for the writer's tests: parses HIERARCHY/MOTION and evaluates
 * world positions with the reading Blender and Assimp use (position channels replace the OFFSET,
 * rotation channels compose in the listed order as intrinsic rotations). It shares no code with
 * rigkit's writer or importer, so it checks the file, not the library against itself. */
#ifndef RK_BVH_EVAL_H
#define RK_BVH_EVAL_H

#include "rk_test.h"

#include <stdlib.h>
#include <string.h>

typedef struct bvh_node {
  char *name;
  int parent;
  bool end_site;
  double offset[3];
  int nch;
  char ch[6][12]; /* "Xposition", "Zrotation", ... */
  int first;      /* index of the first channel in a frame line */
} bvh_node;

typedef struct bvh_file {
  GArray *nodes; /* bvh_node */
  size_t frames;
  double frame_time;
  int channels;
  double *motion; /* frames * channels */
} bvh_file;

static inline void bvh_file_free(bvh_file *b) {
  if (!b)
    return;
  for (guint i = 0; i < b->nodes->len; i++)
    g_free(g_array_index(b->nodes, bvh_node, i).name);
  g_array_unref(b->nodes);
  g_free(b->motion);
  g_free(b);
}

/* Parses text; returns NULL (with a failed assertion message) on malformed input. */
static inline bvh_file *bvh_parse(const char *text) {
  g_auto(GStrv) tok = g_regex_split_simple("\\s+", text, 0, 0);
  size_t i = 0, nt = g_strv_length(tok);
  while (i < nt && !*tok[i])
    i++;
  cr_assert(i < nt && strcmp(tok[i], "HIERARCHY") == 0, "no HIERARCHY");
  i++;
  bvh_file *b = g_new0(bvh_file, 1);
  b->nodes = g_array_new(FALSE, TRUE, sizeof(bvh_node));
  GArray *stack = g_array_new(FALSE, FALSE, sizeof(int));
  int channel = 0;
  while (i < nt && strcmp(tok[i], "MOTION") != 0) {
    const char *t = tok[i];
    if (strcmp(t, "ROOT") == 0 || strcmp(t, "JOINT") == 0 || strcmp(t, "End") == 0) {
      bvh_node n = {0};
      n.end_site = strcmp(t, "End") == 0;
      n.parent = stack->len ? g_array_index(stack, int, stack->len - 1) : -1;
      if (n.end_site) {
        cr_assert(n.parent >= 0 && strcmp(tok[i + 1], "Site") == 0);
        n.name = g_strdup_printf("%s_End", g_array_index(b->nodes, bvh_node, n.parent).name);
      } else {
        n.name = g_strdup(tok[i + 1]);
      }
      i += 2;
      cr_assert_str_eq(tok[i], "{");
      i++;
      cr_assert_str_eq(tok[i], "OFFSET");
      for (int k = 0; k < 3; k++)
        n.offset[k] = g_ascii_strtod(tok[i + 1 + k], NULL);
      i += 4;
      if (!n.end_site) {
        cr_assert_str_eq(tok[i], "CHANNELS");
        n.nch = atoi(tok[i + 1]);
        cr_assert(n.nch == 3 || n.nch == 6);
        for (int k = 0; k < n.nch; k++)
          g_strlcpy(n.ch[k], tok[i + 2 + k], sizeof n.ch[k]);
        n.first = channel;
        channel += n.nch;
        i += 2 + (size_t)n.nch;
      }
      g_array_append_val(b->nodes, n);
      int idx = (int)b->nodes->len - 1;
      g_array_append_val(stack, idx);
      continue;
    }
    if (strcmp(t, "}") == 0) {
      cr_assert(stack->len > 0, "unbalanced }");
      g_array_set_size(stack, stack->len - 1);
      i++;
      continue;
    }
    cr_assert_fail("unexpected token '%s' in the hierarchy", t);
  }
  cr_assert_eq(stack->len, 0, "unclosed joint");
  g_array_unref(stack);
  cr_assert(i + 5 < nt && strcmp(tok[i + 1], "Frames:") == 0 && strcmp(tok[i + 3], "Frame") == 0 &&
            strcmp(tok[i + 4], "Time:") == 0);
  b->frames = (size_t)atol(tok[i + 2]);
  b->frame_time = g_ascii_strtod(tok[i + 5], NULL);
  b->channels = channel;
  i += 6;
  b->motion = g_new(double, b->frames * (size_t)channel + 1);
  size_t k = 0;
  for (; i < nt && *tok[i]; i++, k++) {
    cr_assert(k < b->frames * (size_t)channel, "more motion values than frames x channels");
    char *end = NULL;
    b->motion[k] = g_ascii_strtod(tok[i], &end);
    cr_assert(end && *end == '\0', "bad number '%s'", tok[i]);
  }
  cr_assert_eq(k, b->frames * (size_t)channel, "motion has %zu values, expected %zu", k,
               b->frames * (size_t)channel);
  return b;
}

static inline bvh_file *bvh_load(const char *path) {
  g_autofree char *text = NULL;
  cr_assert(g_file_get_contents(path, &text, NULL, NULL), "cannot read %s", path);
  return bvh_parse(text);
}

static inline int bvh_find(const bvh_file *b, const char *name) {
  for (guint i = 0; i < b->nodes->len; i++)
    if (strcmp(g_array_index(b->nodes, bvh_node, i).name, name) == 0)
      return (int)i;
  return -1;
}

/* World positions (file units) of every node at frame f. */
static inline void bvh_world(const bvh_file *b, size_t f, rk_vec3 *pos) {
  g_autofree rk_mat4 *m = g_new(rk_mat4, b->nodes->len);
  const double *line = b->motion + f * (size_t)b->channels;
  for (guint i = 0; i < b->nodes->len; i++) {
    const bvh_node *n = &g_array_index(b->nodes, bvh_node, i);
    rk_vec3 t = rk_vec3_make(n->offset[0], n->offset[1], n->offset[2]);
    rk_mat3 r = rk_mat3_identity();
    for (int k = 0; k < n->nch; k++) {
      const double v = line[n->first + k];
      const char axis = n->ch[k][0];
      if (strstr(n->ch[k], "position")) {
        if (axis == 'X')
          t.x = v;
        else if (axis == 'Y')
          t.y = v;
        else
          t.z = v;
      } else {
        const double a = v * RK_PI / 180.0;
        rk_mat3 e = axis == 'X' ? rk_mat3_rot_x(a) : axis == 'Y' ? rk_mat3_rot_y(a) : rk_mat3_rot_z(a);
        r = rk_mat3_mul(&r, &e);
      }
    }
    rk_mat4 local = rk_mat4_from_rt(&r, t);
    m[i] = n->parent < 0 ? local : rk_mat4_mul(&m[n->parent], &local);
    pos[i] = rk_mat4_get_translation(&m[i]);
  }
}

#endif
