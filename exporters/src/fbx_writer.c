/* FBX writer: binary FBX 7.4 (version 7400) of a skeleton, its clips and its meshes.
 *
 * What is written (FBX 7 object model as the FBX SDK, Blender and Assimp read it):
 * - GlobalSettings: Y up (UpAxis 1, FrontAxis 2, CoordAxis 0, all signs +1: rigkit's canonical
 *   right-handed Y-up frame), UnitScaleFactor 1 (centimetres, the default) or 100 (metres),
 *   TimeMode of the first clip's rate (a standard mode when the rate has one, else eCustom with
 *   CustomFrameRate), TimeSpan of the longest clip.
 * - one Model "LimbNode" + NodeAttribute "LimbNode" per joint, in skeleton order, with the rest
 *   pose as Lcl Translation / Lcl Rotation / Lcl Scaling, RotationOrder, RotationActive 1 and
 *   InheritType 1 (eInheritRSrs: the plain product of parent and local, as rigkit's FK);
 * - a BindPose with every joint's bind matrix (the inverse of its inverse bind matrix when it
 *   skins a mesh of the file and the skeleton has one, else its rest world matrix) and every mesh;
 * - per clip an AnimationStack (LocalStart 0, LocalStop = duration) with one AnimationLayer, and
 *   per animated channel of a joint an AnimationCurveNode T, R or S with three AnimationCurves.
 *   The clip is baked at its frame rate (the options' fps, else the clip's, else the rate its
 *   keys sit on, else 30 fps): one key per frame, and one at each key of the clip that lies
 *   between frames; KeyTime in FBX ticks (46186158000 per second), linear interpolation
 *   (constant for STEP tracks). Rotations are Euler angles in degrees in the
 *   joint's rotation order, each key chosen nearest the previous one (rk_euler_from_quat_near) so
 *   curves never jump by more than 180 degrees;
 * - per mesh a Model "Mesh" (at the root, or under the joint a rigid mesh follows), a Geometry
 *   (Vertices, triangles in PolygonVertexIndex, normals and UVs by vertex), a Lambert Material
 *   with the base colour and opacity, and for skinned meshes a Deformer "Skin" with one
 *   SubDeformer "Cluster" per weighted joint: Indexes, Weights, TransformLink = the joint's bind
 *   matrix and Transform = its inverse (the mesh is at the origin).
 * Lengths are multiplied by 100 for centimetres. FileId and CreationTime hold fixed values (those
 * Blender and Assimp write; the FBX SDK accepts them with the footer in fbx_encode.c) and object
 * ids are counted from a constant: the same asset and options give the same bytes.
 *
 * This file checks and prepares the scene (fbx_scene.c), then writes it in file order:
 * fbx_sections.c (header, settings, definitions, connections, takes) around the Objects section
 * of fbx_skeleton.c, fbx_mesh.c and fbx_anim.c, encoded by fbx_encode.c through the records of
 * fbx_props.c, and puts the bytes in an atomic file. */
#include "fbx_writer.h"

#include "atomic_file.h"
#include "export_shared.h"
#include "fbx_anim.h"
#include "fbx_mesh.h"
#include "fbx_sections.h"
#include "fbx_skeleton.h"

/* Values readers hold in single precision (KeyValueFloat is float32 by format; Assimp reads every
 * transform in float): refuse what does not fit, naming the clip, joint and key. */
static bool check_ranges(rk__fbx_ctx *c) {
  for (size_t j = 0; j < c->n; j++) {
    const rk_transform *r = rk_skeleton_rest(c->s, j);
    const double v[6] = {r->t.x * c->k, r->t.y * c->k, r->t.z * c->k, r->s.x, r->s.y, r->s.z};
    for (int i = 0; i < 6; i++)
      if (!rk__export_fits_float(v[i])) {
        g_set_error(c->error, RK_ERROR, RK_ERROR_INVALID,
                    "%s: joint '%s': rest %s %g does not fit in single precision", c->path,
                    rk_skeleton_joint_name(c->s, j), i < 3 ? "translation" : "scale", v[i]);
        return false;
      }
  }
  for (guint ci = 0; ci < c->clips->len; ci++) {
    const rk_clip *clip = g_array_index(c->clips, rk__fbx_clip, ci).clip;
    for (size_t ti = 0; ti < rk_clip_track_count(clip); ti++) {
      const rk_track *t = rk_clip_track(clip, ti);
      if (t->channel == RK_CHANNEL_ROTATION)
        continue; /* written as angles */
      const double k = t->channel == RK_CHANNEL_TRANSLATION ? c->k : 1.0;
      const size_t per = 3u * (t->interp == RK_INTERP_CUBIC ? 3u : 1u);
      for (size_t key = 0; key < t->key_count; key++)
        for (size_t i = 0; i < per; i++)
          if (!rk__export_fits_float(t->values[key * per + i] * k)) {
            g_set_error(c->error, RK_ERROR, RK_ERROR_INVALID,
                        "%s: clip '%s', joint '%s', %s key %zu (t=%g s): %g does not fit in "
                        "single precision",
                        c->path, rk_clip_name(clip), rk_skeleton_joint_name(c->s, (size_t)t->joint),
                        rk_channel_name(t->channel), key, t->times[key],
                        t->values[key * per + i] * k);
            return false;
          }
    }
  }
  return true;
}

/* Checks what FBX holds in single precision, converts meshes and bakes clips, and numbers the
 * objects. */
static bool prepare(rk__fbx_ctx *c) {
  if (!check_ranges(c) || !rk__fbx_prepare_meshes(c))
    return false;
  rk__fbx_bind_pose(c);
  if (!rk__fbx_prepare_clips(c))
    return false;
  rk__fbx_assign_ids(c);
  return true;
}

/* Encodes the prepared scene and writes it to c->path atomically. */
static bool write_file(rk__fbx_ctx *c) {
  c->e = rk__fbx_enc_new(RK__FBX_VERSION);
  rk__fbx_write_header(c);
  rk__fbx_write_global_settings(c);
  rk__fbx_write_documents(c);
  rk__fbx_write_definitions(c);
  rk__fbx_enc_begin(c->e, "Objects");
  rk__fbx_write_joints(c);
  rk__fbx_write_meshes(c);
  rk__fbx_write_pose(c);
  rk__fbx_write_animation(c);
  rk__fbx_enc_end(c->e);
  rk__fbx_write_connections(c);
  rk__fbx_write_takes(c);
  GByteArray *bytes = rk__fbx_enc_finish(c->e, c->path, c->error);
  c->e = NULL;
  if (!bytes)
    return false;
  rk__atomic_file *f = rk__atomic_file_open(c->path, c->error);
  bool ok = false;
  if (f) {
    rk__atomic_file_write(f, bytes->data, bytes->len);
    ok = rk__atomic_file_commit(f, c->error);
  }
  g_byte_array_unref(bytes);
  return ok;
}

bool rk__fbx_write_orders(const rk_asset *asset, const char *path, const rk_export_options *opts,
                          const rk_euler_order *orders, GError **error) {
  const rk_skeleton *s = rk_asset_skeleton(asset);
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_euler_order *default_orders = NULL;
  if (!orders) { /* FBX's default eEulerXYZ */
    default_orders = g_new(rk_euler_order, n);
    for (size_t j = 0; j < n; j++)
      default_orders[j] = RK_EULER_ZYX;
    orders = default_orders;
  }
  if (!rk__fbx_check_orders(s, orders, path, error))
    return false;
  g_autoptr(GPtrArray) selected = rk__export_select_clips(asset, opts, path, error);
  if (!selected)
    return false;
  rk__fbx_ctx c;
  rk__fbx_scene_init(&c, asset, path, opts, orders, selected, error);
  const bool ok = prepare(&c) && write_file(&c);
  rk__fbx_scene_clear(&c);
  return ok;
}

bool rk__fbx_write(const rk_asset *asset, const char *path, const rk_export_options *opts,
                   GError **error) {
  return rk__fbx_write_orders(asset, path, opts, NULL, error);
}

void rk__fbx_readback(const rk_export_options *opts, rk_export_readback *out) {
  static const char *const axis_names[3] = {"X", "Y", "Z"}; /* FBX's axis indices */
  out->self_describing = true; /* GlobalSettings: UpAxis and UnitScaleFactor */
  out->metres_per_unit = 1.0 / rk__export_units_per_metre(opts);
  out->up_axis = axis_names[RK__FBX_UP_AXIS];
}
