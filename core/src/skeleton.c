/* Skeleton builder and immutable skeletons in depth-first preorder. */
#include <rigkit/error.h>
#include <rigkit/skeleton.h>

#include "fk_pass.h"

#include <string.h>

typedef struct builder_joint {
  char *name;
  int parent;
  rk_transform rest;
  unsigned flags;
  bool has_inverse_bind;
  rk_mat4 inverse_bind;
} builder_joint;

struct rk_skeleton_builder {
  GArray *joints; /* builder_joint */
};

struct rk_skeleton {
  gint refcount;
  size_t count;
  char **names;
  int *parents;
  rk_transform *rest;
  unsigned *flags;
  size_t *subtree_end;
  bool *has_inverse_bind;
  rk_mat4 *inverse_bind; /* NULL when no joint has one */
  GHashTable *by_name;   /* name -> index + 1 */
};

static void builder_joint_clear(gpointer p) {
  g_free(((builder_joint *)p)->name);
}

rk_skeleton_builder *rk_skeleton_builder_new(void) {
  rk_skeleton_builder *b = g_new0(rk_skeleton_builder, 1);
  b->joints = g_array_new(FALSE, TRUE, sizeof(builder_joint));
  g_array_set_clear_func(b->joints, builder_joint_clear);
  return b;
}

void rk_skeleton_builder_free(rk_skeleton_builder *b) {
  if (!b)
    return;
  g_array_unref(b->joints);
  g_free(b);
}

int rk_skeleton_builder_add_joint(rk_skeleton_builder *b, const char *name, int parent,
                                  const rk_transform *rest, unsigned flags) {
  g_return_val_if_fail(b != NULL, -1);
  builder_joint j = {0};
  j.name = g_strdup(name ? name : "");
  j.parent = parent;
  j.rest = rest ? *rest : rk_transform_identity();
  j.flags = flags;
  g_array_append_val(b->joints, j);
  return (int)b->joints->len - 1;
}

void rk_skeleton_builder_set_parent(rk_skeleton_builder *b, int joint, int parent) {
  g_return_if_fail(b != NULL && joint >= 0 && (guint)joint < b->joints->len);
  g_array_index(b->joints, builder_joint, joint).parent = parent;
}

void rk_skeleton_builder_set_inverse_bind(rk_skeleton_builder *b, int joint,
                                          const rk_mat4 *inverse_bind) {
  g_return_if_fail(b != NULL && joint >= 0 && (guint)joint < b->joints->len && inverse_bind);
  builder_joint *j = &g_array_index(b->joints, builder_joint, joint);
  j->has_inverse_bind = true;
  j->inverse_bind = *inverse_bind;
}

size_t rk_skeleton_builder_count(const rk_skeleton_builder *b) {
  return b ? b->joints->len : 0;
}

static bool check_joints(const rk_skeleton_builder *b, GError **error) {
  const size_t n = b->joints->len;
  if (n == 0) {
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "skeleton has no joints");
    return false;
  }
  if (n > RK_SKELETON_MAX_JOINTS) {
    g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "skeleton has %zu joints (limit %d)", n,
                RK_SKELETON_MAX_JOINTS);
    return false;
  }
  g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
  for (size_t i = 0; i < n; i++) {
    const builder_joint *j = &g_array_index(b->joints, builder_joint, i);
    size_t len = strlen(j->name);
    if (len == 0) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "joint %zu has an empty name", i);
      return false;
    }
    if (len > RK_SKELETON_MAX_NAME) {
      g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "joint %zu has a %zu-byte name (limit %d)", i,
                  len, RK_SKELETON_MAX_NAME);
      return false;
    }
    if (!g_utf8_validate(j->name, -1, NULL)) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "joint %zu has a name that is not UTF-8", i);
      return false;
    }
    if (!g_hash_table_add(seen, j->name)) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "duplicate joint name '%s'", j->name);
      return false;
    }
    if (j->parent < -1 || j->parent >= (int)n || j->parent == (int)i) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "joint '%s' has an invalid parent %d",
                  j->name, j->parent);
      return false;
    }
    if (!rk_transform_is_finite(&j->rest)) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "joint '%s' has a non-finite rest pose",
                  j->name);
      return false;
    }
    if (j->rest.s.x == 0 || j->rest.s.y == 0 || j->rest.s.z == 0 ||
        rk_quat_dot(j->rest.r, j->rest.r) < 1e-12) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                  "joint '%s' has a degenerate rest pose (zero scale or rotation)", j->name);
      return false;
    }
    if (j->has_inverse_bind && !rk_mat4_is_finite(&j->inverse_bind)) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                  "joint '%s' has a non-finite inverse bind matrix", j->name);
      return false;
    }
  }
  return true;
}

rk_skeleton *rk_skeleton_builder_build(const rk_skeleton_builder *b, int *remap, GError **error) {
  g_return_val_if_fail(b != NULL, NULL);
  if (!check_joints(b, error))
    return NULL;
  const size_t n = b->joints->len;
  const builder_joint *bj = (const builder_joint *)(void *)b->joints->data;

  /* Children in insertion order as linked lists, then an explicit-stack DFS (no recursion: a
   * 65535-deep chain must not overflow the C stack). */
  g_autofree int *first_child = g_new(int, n);
  g_autofree int *last_child = g_new(int, n);
  g_autofree int *next_sibling = g_new(int, n);
  for (size_t i = 0; i < n; i++)
    first_child[i] = last_child[i] = next_sibling[i] = -1;
  for (size_t i = 0; i < n; i++) {
    int p = bj[i].parent;
    if (p < 0)
      continue;
    if (last_child[p] < 0)
      first_child[p] = (int)i;
    else
      next_sibling[last_child[p]] = (int)i;
    last_child[p] = (int)i;
  }
  g_autofree int *order = g_new(int, n); /* preorder position -> builder index */
  g_autofree int *stack = g_new(int, n);
  size_t visited = 0;
  for (size_t r = 0; r < n; r++) {
    if (bj[r].parent >= 0)
      continue;
    size_t top = 0;
    stack[top++] = (int)r;
    while (top > 0) {
      int j = stack[--top];
      order[visited++] = j;
      /* Push children in reverse so the first child is visited first. */
      size_t mark = top;
      for (int c = first_child[j]; c >= 0; c = next_sibling[c])
        stack[top++] = c;
      for (size_t a = mark, z = top; a + 1 < z; a++) {
        z--;
        int t = stack[a];
        stack[a] = stack[z];
        stack[z] = t;
      }
    }
  }
  if (visited < n) {
    /* Joints unreachable from any root sit on (or under) a parent cycle. */
    g_autofree bool *reached = g_new0(bool, n);
    for (size_t k = 0; k < visited; k++)
      reached[order[k]] = true;
    size_t bad = 0;
    while (reached[bad])
      bad++;
    g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                "joint '%s' is part of a parent cycle (%zu joints not reachable from a root)",
                bj[bad].name, n - visited);
    return NULL;
  }

  g_autofree int *pos = g_new(int, n); /* builder index -> preorder position */
  for (size_t k = 0; k < n; k++)
    pos[order[k]] = (int)k;

  rk_skeleton *s = g_new0(rk_skeleton, 1);
  s->refcount = 1;
  s->count = n;
  s->names = g_new(char *, n);
  s->parents = g_new(int, n);
  s->rest = g_new(rk_transform, n);
  s->flags = g_new(unsigned, n);
  s->subtree_end = g_new(size_t, n);
  s->has_inverse_bind = g_new0(bool, n);
  s->by_name = g_hash_table_new(g_str_hash, g_str_equal);
  bool any_ibm = false;
  for (size_t k = 0; k < n; k++) {
    const builder_joint *j = &bj[order[k]];
    s->names[k] = g_strdup(j->name);
    s->parents[k] = j->parent < 0 ? -1 : pos[j->parent];
    s->rest[k] = j->rest;
    s->rest[k].r = rk_quat_normalize(j->rest.r);
    s->flags[k] = j->flags;
    any_ibm |= j->has_inverse_bind;
    g_hash_table_insert(s->by_name, s->names[k], GSIZE_TO_POINTER(k + 1));
  }
  if (any_ibm) {
    s->inverse_bind = g_new(rk_mat4, n);
    for (size_t k = 0; k < n; k++) {
      s->has_inverse_bind[k] = bj[order[k]].has_inverse_bind;
      s->inverse_bind[k] = bj[order[k]].inverse_bind;
    }
  }
  /* Subtree ends: walk backwards, each joint extends its parent's end. */
  for (size_t k = 0; k < n; k++)
    s->subtree_end[k] = k + 1;
  for (size_t k = n; k-- > 0;) {
    int p = s->parents[k];
    if (p >= 0 && s->subtree_end[k] > s->subtree_end[p])
      s->subtree_end[p] = s->subtree_end[k];
  }
  if (remap)
    for (size_t i = 0; i < n; i++)
      remap[i] = pos[i];
  return s;
}

rk_skeleton *rk_skeleton_ref(rk_skeleton *s) {
  if (s)
    g_atomic_int_inc(&s->refcount);
  return s;
}

void rk_skeleton_unref(rk_skeleton *s) {
  if (!s || !g_atomic_int_dec_and_test(&s->refcount))
    return;
  g_hash_table_unref(s->by_name);
  for (size_t i = 0; i < s->count; i++)
    g_free(s->names[i]);
  g_free(s->names);
  g_free(s->parents);
  g_free(s->rest);
  g_free(s->flags);
  g_free(s->subtree_end);
  g_free(s->has_inverse_bind);
  g_free(s->inverse_bind);
  g_free(s);
}

size_t rk_skeleton_joint_count(const rk_skeleton *s) {
  return s ? s->count : 0;
}

const char *rk_skeleton_joint_name(const rk_skeleton *s, size_t i) {
  g_return_val_if_fail(s && i < s->count, NULL);
  return s->names[i];
}

int rk_skeleton_parent(const rk_skeleton *s, size_t i) {
  g_return_val_if_fail(s && i < s->count, -1);
  return s->parents[i];
}

const int *rk_skeleton_parents(const rk_skeleton *s) {
  return s->parents;
}

const rk_transform *rk_skeleton_rest(const rk_skeleton *s, size_t i) {
  g_return_val_if_fail(s && i < s->count, NULL);
  return &s->rest[i];
}

const rk_transform *rk_skeleton_rest_locals(const rk_skeleton *s) {
  return s->rest;
}

unsigned rk_skeleton_joint_flags(const rk_skeleton *s, size_t i) {
  g_return_val_if_fail(s && i < s->count, 0);
  return s->flags[i];
}

bool rk_skeleton_inverse_bind(const rk_skeleton *s, size_t i, rk_mat4 *out) {
  g_return_val_if_fail(s && i < s->count, false);
  if (!s->has_inverse_bind[i])
    return false;
  if (out)
    *out = s->inverse_bind[i];
  return true;
}

bool rk_skeleton_has_inverse_binds(const rk_skeleton *s) {
  return s->inverse_bind != NULL;
}

int rk_skeleton_find_joint(const rk_skeleton *s, const char *name) {
  if (!s || !name)
    return -1;
  return (int)GPOINTER_TO_SIZE(g_hash_table_lookup(s->by_name, name)) - 1;
}

size_t rk_skeleton_subtree_end(const rk_skeleton *s, size_t i) {
  g_return_val_if_fail(s && i < s->count, 0);
  return s->subtree_end[i];
}

size_t rk_skeleton_root_count(const rk_skeleton *s) {
  size_t r = 0;
  for (size_t i = 0; i < s->count; i++)
    r += s->parents[i] < 0;
  return r;
}

size_t rk_skeleton_child_count(const rk_skeleton *s, size_t i) {
  g_return_val_if_fail(s && i < s->count, 0);
  size_t c = 0;
  for (size_t k = i + 1; k < s->subtree_end[i]; k = s->subtree_end[k])
    c++;
  return c;
}

bool rk_skeleton_is_ancestor(const rk_skeleton *s, size_t a, size_t b) {
  return a < s->count && b < s->count && a <= b && b < s->subtree_end[a];
}

void rk_skeleton_rest_models(const rk_skeleton *s, rk_mat4 *models) {
  rk__fk_pass(s->parents, s->rest, NULL, NULL, s->count, models);
}

size_t rk_skeleton_ancestor_closure(const rk_skeleton *s, const int *ends, size_t n_ends,
                                    int *out) {
  /* Mark each end and its ancestors, then list the marks in ascending (preorder) order. */
  g_autofree guint8 *mark = g_new0(guint8, s->count);
  for (size_t e = 0; e < n_ends; e++) {
    int j = ends[e];
    if (j < 0 || (size_t)j >= s->count)
      continue;
    for (; j >= 0 && !mark[j]; j = s->parents[j])
      mark[j] = 1;
  }
  size_t k = 0;
  for (size_t i = 0; i < s->count; i++)
    if (mark[i])
      out[k++] = (int)i;
  return k;
}

double rk_skeleton_rest_height(const rk_skeleton *s) {
  g_autofree rk_mat4 *m = g_new(rk_mat4, s->count);
  rk_skeleton_rest_models(s, m);
  double lo = INFINITY, hi = -INFINITY;
  for (size_t i = 0; i < s->count; i++) {
    lo = fmin(lo, m[i].m[13]);
    hi = fmax(hi, m[i].m[13]);
  }
  return hi - lo;
}
