/* BVH writer.
 *
 * BVH has no rest rotation: a joint's frame is OFFSET (a translation in the parent's frame) times
 * the rotation of its channels, and the rest pose (all channels zero) has every frame aligned with
 * the world. rigkit skeletons may have rest rotations (glTF, FBX), so the writer bakes them into
 * the channels: at rest each BVH frame is world-aligned with OFFSET_j = p0_j - p0_parent (rest
 * world positions), and at a frame with world rotations Q_j the BVH world rotation is
 * B_j = Q_j Q0_j^-1 and the channel rotation B_parent^-1 B_j. World positions then match exactly
 * whenever the joint's local translation (and scale) keep their rest values; a joint whose
 * position relative to its parent changes gets position channels holding
 * B_parent^-1 (p_j - p_parent), which Blender, Assimp and rigkit read as replacing the OFFSET.
 * The root's position channels hold its absolute world position.
 *
 * Joints flagged RK_SKELETON_END_SITE that are leaves and never move relative to their parent are
 * written as "End Site" blocks; rigkit's BVH reader names an End Site "<parent>_End" (see
 * bvh_end_site_name), so an end joint with another name stays a JOINT to keep its name. A
 * skeleton with several roots is written under one added root "rigkit_root" (BVH readers accept
 * one ROOT). Joint names cannot hold white space in BVH: runs of it become '_'. */
#include "bvh_writer.h"

#include "atomic_file.h"
#include "export_shared.h"

#include <rigkit/euler.h>
#include <rigkit/fk.h>
#include <string.h>

typedef struct bvh_joint {
  char *name;       /* BVH name (sanitised, unique) */
  bool end_site;    /* written as End Site */
  bool position;    /* has position channels */
  rk_euler_order order;
  rk_vec3 offset;   /* metres, world-aligned */
  rk_quat q0_inv;   /* inverse rest world rotation */
} bvh_joint;

/* The name rigkit's BVH reader gives the End Site under joint `parent`. */
static char *bvh_end_site_name(const char *parent) {
  return g_strdup_printf("%s_End", parent);
}

static char *sanitise_name(const char *name) {
  GString *s = g_string_new(NULL);
  bool in_space = false;
  for (const char *p = name; *p; p++) {
    const bool space = g_ascii_isspace(*p) || (unsigned char)*p < 0x20 || *p == '{' || *p == '}';
    if (space) {
      if (!in_space)
        g_string_append_c(s, '_');
    } else {
      g_string_append_c(s, *p);
    }
    in_space = space;
  }
  if (s->len == 0)
    g_string_append_c(s, '_');
  return g_string_free(s, FALSE);
}

/* Fixed-point text with `decimals` digits after the point (<= 9), locale-independent and fast
 * (BVH files are mostly numbers). Returns the number of characters written into buf (>= 40 bytes). */
static size_t format_fixed(char *buf, double v, int decimals) {
  static const double pow10[10] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
  if (!(fabs(v) < 1e9)) { /* absurd but finite: exponent notation keeps the line bounded */
    char tmp[G_ASCII_DTOSTR_BUF_SIZE];
    g_ascii_formatd(tmp, sizeof tmp, "%.9e", v);
    size_t n = strlen(tmp);
    memcpy(buf, tmp, n + 1);
    return n;
  }
  long long scaled = llround(v * pow10[decimals]);
  char rev[40];
  size_t n = 0;
  const bool neg = scaled < 0;
  unsigned long long a = neg ? (unsigned long long)(-scaled) : (unsigned long long)scaled;
  for (int d = 0; d < decimals; d++) {
    rev[n++] = (char)('0' + a % 10);
    a /= 10;
  }
  rev[n++] = '.';
  do {
    rev[n++] = (char)('0' + a % 10);
    a /= 10;
  } while (a);
  size_t o = 0;
  if (neg)
    buf[o++] = '-';
  while (n)
    buf[o++] = rev[--n];
  buf[o] = '\0';
  return o;
}

/* Lengths get 6 decimals in centimetres (10 nm), 8 in metres; angles 6 decimals of a degree. */
static int length_decimals(double scale) {
  return scale >= 100 ? 6 : 8;
}

static void put_vec(GString *out, rk_vec3 v, double scale) {
  char b[3][48];
  const int d = length_decimals(scale);
  format_fixed(b[0], v.x * scale, d);
  format_fixed(b[1], v.y * scale, d);
  format_fixed(b[2], v.z * scale, d);
  g_string_append_printf(out, "%s %s %s", b[0], b[1], b[2]);
}

static void indent(GString *out, size_t depth) {
  for (size_t i = 0; i < depth; i++)
    g_string_append_c(out, '\t');
}

static const char *axis_channel(int axis) {
  return axis == 0 ? "Xrotation" : axis == 1 ? "Yrotation" : "Zrotation";
}

static bool is_tait_bryan(rk_euler_order o) {
  int ax[3];
  if ((unsigned)o >= RK_EULER_N_ORDERS)
    return false;
  rk_euler_order_axes(o, ax);
  return ax[0] != ax[1] && ax[1] != ax[2] && ax[0] != ax[2];
}

/* World rotation of a model matrix (its scale divided out). */
static bool model_rotation(const rk_mat4 *m, rk_quat *q) {
  rk_transform x;
  if (!rk_transform_from_mat4(m, &x))
    return false;
  *q = x.r;
  return true;
}

typedef struct bvh_ctx {
  const rk_skeleton *s;
  const rk_clip *clip;
  const char *path;
  size_t n;
  bvh_joint *joints;
  bool synthetic_root;
  char *synthetic_name;
  double fps, scale;
  size_t frames;
  /* per-frame scratch, allocated once */
  rk_transform *locals;
  rk_mat4 *models;
  rk_quat *world; /* B_j */
} bvh_ctx;

static bool sample_frame(bvh_ctx *c, size_t f, GError **error) {
  const rk_transform *rest = rk_skeleton_rest_locals(c->s);
  if (c->clip) {
    double t = fmin((double)f / c->fps, rk_clip_duration(c->clip));
    rk_clip_sample(c->clip, rest, t, c->locals, c->n);
  } else {
    memcpy(c->locals, rest, c->n * sizeof(rk_transform));
  }
  rk_fk_models(c->s, c->locals, c->models);
  for (size_t j = 0; j < c->n; j++) {
    rk_quat q;
    if (!rk_mat4_is_finite(&c->models[j]) || !model_rotation(&c->models[j], &q)) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID,
                  "%s: clip '%s', frame %zu: joint '%s' has a non-finite or degenerate pose",
                  c->path, c->clip ? rk_clip_name(c->clip) : "", f,
                  rk_skeleton_joint_name(c->s, j));
      return false;
    }
    c->world[j] = rk_quat_normalize(rk_quat_mul(q, c->joints[j].q0_inv));
  }
  return true;
}

/* Position of joint j relative to its parent in the parent's BVH frame, at the sampled frame. */
static rk_vec3 bvh_local_position(const bvh_ctx *c, size_t j) {
  const int p = rk_skeleton_parent(c->s, j);
  rk_vec3 pj = rk_mat4_get_translation(&c->models[j]);
  if (p < 0)
    return pj;
  rk_vec3 d = rk_vec3_sub(pj, rk_mat4_get_translation(&c->models[p]));
  return rk_quat_rotate(rk_quat_conj(c->world[p]), d);
}

static bool prepare(bvh_ctx *c, const rk_export_options *opts, GError **error) {
  const rk_skeleton *s = c->s;
  const size_t n = c->n;
  g_autofree rk_mat4 *rest_models = g_new(rk_mat4, n);
  rk_skeleton_rest_models(s, rest_models);
  g_autoptr(GHashTable) used = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  c->synthetic_root = rk_skeleton_root_count(s) > 1;
  if (c->synthetic_root)
    c->synthetic_name = rk__export_unique_name(used, "rigkit_root");
  const double height = rk_skeleton_rest_height(s);
  for (size_t j = 0; j < n; j++) {
    bvh_joint *b = &c->joints[j];
    g_autofree char *clean = sanitise_name(rk_skeleton_joint_name(s, j));
    b->name = rk__export_unique_name(used, clean);
    const int p = rk_skeleton_parent(s, j);
    const bool root = p < 0;
    rk_euler_order order = root ? opts->bvh_root_order : opts->bvh_order;
    if (opts->bvh_joint_orders)
      order = opts->bvh_joint_orders[j];
    if (!is_tait_bryan(order)) {
      g_set_error(error, RK_ERROR, RK_ERROR_UNSUPPORTED,
                  "%s: joint '%s': BVH needs three distinct rotation axes, not order %s", c->path,
                  rk_skeleton_joint_name(s, j), rk_euler_order_name(order));
      return false;
    }
    b->order = order;
    rk_quat q0;
    if (!model_rotation(&rest_models[j], &q0)) {
      g_set_error(error, RK_ERROR, RK_ERROR_INVALID, "%s: joint '%s' has a degenerate rest pose",
                  c->path, rk_skeleton_joint_name(s, j));
      return false;
    }
    b->q0_inv = rk_quat_conj(rk_quat_normalize(q0));
    rk_vec3 p0 = rk_mat4_get_translation(&rest_models[j]);
    b->offset = root ? p0 : rk_vec3_sub(p0, rk_mat4_get_translation(&rest_models[p]));
    b->position = root;
    /* An End Site keeps its name only when the reader will give it back. */
    b->end_site = false;
    if (!root && (rk_skeleton_joint_flags(s, j) & RK_SKELETON_END_SITE) &&
        rk_skeleton_subtree_end(s, j) == j + 1) {
      g_autofree char *expected = bvh_end_site_name(rk_skeleton_joint_name(s, (size_t)p));
      b->end_site = strcmp(expected, rk_skeleton_joint_name(s, j)) == 0;
    }
  }
  if (opts->bvh_root == RK_BVH_ROOT_ZERO)
    for (size_t j = 0; j < n; j++)
      if (rk_skeleton_parent(s, j) < 0)
        c->joints[j].offset = rk_vec3_make(0, 0, 0);

  /* First pass: which joints move relative to their parent's BVH frame (they need position
   * channels, and cannot be End Sites). Deviations below 1e-9 of the skeleton's height (at least
   * 1 nm) are rounding. */
  const double tol = fmax(1e-9, 1e-9 * height);
  for (size_t f = 0; f < c->frames; f++) {
    if (!sample_frame(c, f, error))
      return false;
    for (size_t j = 0; j < n; j++) {
      bvh_joint *b = &c->joints[j];
      if (b->position)
        continue;
      rk_vec3 d = rk_vec3_sub(bvh_local_position(c, j), b->offset);
      if (rk_vec3_norm(d) > tol) {
        b->position = true;
        b->end_site = false;
      }
    }
  }
  return true;
}

static void write_hierarchy(const bvh_ctx *c, GString *out) {
  const size_t n = c->n;
  const double k = c->scale;
  g_string_append(out, "HIERARCHY\n");
  size_t base = 0;
  if (c->synthetic_root) {
    g_string_append_printf(out, "ROOT %s\n{\n\tOFFSET 0 0 0\n"
                                "\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation "
                                "Yrotation\n",
                           c->synthetic_name);
    base = 1;
  }
  g_autofree size_t *stack = g_new(size_t, n + 1);
  size_t top = 0;
  for (size_t j = 0; j < n; j++) {
    const int p = rk_skeleton_parent(c->s, j);
    while (top > 0 && (p < 0 || stack[top - 1] != (size_t)p)) {
      top--;
      indent(out, base + top);
      g_string_append(out, "}\n");
    }
    const bvh_joint *b = &c->joints[j];
    const size_t depth = base + top;
    if (b->end_site) {
      indent(out, depth);
      g_string_append(out, "End Site\n");
      indent(out, depth);
      g_string_append(out, "{\n");
      indent(out, depth + 1);
      g_string_append(out, "OFFSET ");
      put_vec(out, b->offset, k);
      g_string_append_c(out, '\n');
      indent(out, depth);
      g_string_append(out, "}\n");
      continue;
    }
    indent(out, depth);
    g_string_append_printf(out, "%s %s\n", (p < 0 && !c->synthetic_root) ? "ROOT" : "JOINT",
                           b->name);
    indent(out, depth);
    g_string_append(out, "{\n");
    indent(out, depth + 1);
    g_string_append(out, "OFFSET ");
    put_vec(out, b->offset, k);
    g_string_append_c(out, '\n');
    indent(out, depth + 1);
    int ax[3];
    rk_euler_order_axes(b->order, ax);
    g_string_append_printf(out, "CHANNELS %d %s%s %s %s\n", b->position ? 6 : 3,
                           b->position ? "Xposition Yposition Zposition " : "",
                           axis_channel(ax[0]), axis_channel(ax[1]), axis_channel(ax[2]));
    stack[top++] = j;
  }
  while (top > 0) {
    top--;
    indent(out, base + top);
    g_string_append(out, "}\n");
  }
  if (c->synthetic_root)
    g_string_append(out, "}\n");
  g_string_append_printf(out, "MOTION\nFrames: %zu\n", c->frames);
  char ft[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd(ft, sizeof ft, "%.10f", 1.0 / c->fps);
  g_string_append_printf(out, "Frame Time: %s\n", ft);
}

bool rk__bvh_write(const rk_asset *asset, const char *path, const rk_export_options *opts,
                   GError **error) {
  g_autoptr(GPtrArray) clips = rk__export_select_clips(asset, opts, path, error);
  if (!clips)
    return false;
  if (clips->len > 1) {
    GString *names = g_string_new(NULL);
    for (guint i = 0; i < clips->len; i++)
      g_string_append_printf(names, "%s'%s'", i ? ", " : "",
                             rk_clip_name(g_ptr_array_index(clips, i)));
    g_set_error(error, RK_ERROR, RK_ERROR_UNSUPPORTED,
                "%s: BVH holds one clip and the asset has %u (%s): choose one", path, clips->len,
                names->str);
    g_string_free(names, TRUE);
    return false;
  }
  bvh_ctx c = {0};
  c.s = rk_asset_skeleton(asset);
  c.clip = clips->len ? g_ptr_array_index(clips, 0) : NULL;
  c.path = path;
  c.n = rk_skeleton_joint_count(c.s);
  c.fps = rk__export_clip_fps(c.clip, opts);
  c.scale = rk__export_units_per_metre(opts);
  if (!rk__export_frame_count(c.clip, c.fps, path, &c.frames, error))
    return false;
  c.joints = g_new0(bvh_joint, c.n);
  c.locals = g_new(rk_transform, c.n);
  c.models = g_new(rk_mat4, c.n);
  c.world = g_new(rk_quat, c.n);
  bool ok = false;
  rk__atomic_file *f = NULL;
  GString *out = g_string_sized_new(64 * 1024);
  double *prev = g_new0(double, 3 * c.n);
  char *line = g_new(char, 48 * 6 * (c.n + 1) + 2);
  if (!prepare(&c, opts, error))
    goto done;
  write_hierarchy(&c, out);
  if (!(f = rk__atomic_file_open(path, error)))
    goto done;
  rk__atomic_file_write(f, out->str, out->len);
  const int ld = length_decimals(c.scale);
  for (size_t fr = 0; fr < c.frames; fr++) {
    if (!sample_frame(&c, fr, error))
      goto done;
    size_t o = 0;
    if (c.synthetic_root) {
      memcpy(line, "0 0 0 0 0 0 ", 12);
      o = 12;
    }
    for (size_t j = 0; j < c.n; j++) {
      const bvh_joint *b = &c.joints[j];
      if (b->end_site)
        continue;
      const int p = rk_skeleton_parent(c.s, j);
      if (b->position) {
        rk_vec3 v = bvh_local_position(&c, j);
        o += format_fixed(line + o, v.x * c.scale, ld), line[o++] = ' ';
        o += format_fixed(line + o, v.y * c.scale, ld), line[o++] = ' ';
        o += format_fixed(line + o, v.z * c.scale, ld), line[o++] = ' ';
      }
      rk_quat local = p < 0 ? c.world[j] : rk_quat_mul(rk_quat_conj(c.world[p]), c.world[j]);
      double a[3];
      double *pv = prev + 3 * j;
      if (fr == 0)
        rk_euler_from_quat(b->order, rk_quat_normalize(local), a);
      else
        rk_euler_from_quat_near(b->order, rk_quat_normalize(local), pv, a);
      for (int k = 0; k < 3; k++) {
        pv[k] = a[k];
        o += format_fixed(line + o, a[k] / RK_DEG, 6);
        line[o++] = ' ';
      }
    }
    if (o > 0)
      o--; /* no trailing space */
    line[o++] = '\n';
    if (!rk__atomic_file_write(f, line, o))
      break; /* the error is reported by commit */
  }
  ok = rk__atomic_file_commit(f, error);
  f = NULL;
done:
  rk__atomic_file_abort(f);
  g_string_free(out, TRUE);
  g_free(prev);
  g_free(line);
  for (size_t j = 0; j < c.n; j++)
    g_free(c.joints[j].name);
  g_free(c.joints);
  g_free(c.synthetic_name);
  g_free(c.locals);
  g_free(c.models);
  g_free(c.world);
  return ok;
}

void rk__bvh_readback(const rk_export_options *opts, rk_export_readback *out) {
  out->self_describing = false; /* BVH has no field for either */
  out->metres_per_unit = 1.0 / rk__export_units_per_metre(opts);
  out->up_axis = RK__EXPORT_UP_AXIS;
  /* bvh_local_position: a root's position channels hold its world position */
  out->bvh_root_absolute = true;
}
