/* The one file of rigkit that talks to Assimp (5.2.5): reads glTF/GLB and FBX bytes into an
 * rk__scene and converts Assimp's conventions exactly once, here:
 *  - aiMatrix4x4 is row-major (a1..a4 is the first row): rigkit is column-major;
 *  - aiQuaternion is (w, x, y, z): rigkit is (x, y, z, w);
 *  - key times are ticks: glTF gives milliseconds (1000 ticks/s), FBX frames (ticks/s = the frame
 *    rate); mTicksPerSecond may be 0 (unspecified);
 *  - UV origin: Assimp flips glTF's v; rigkit keeps glTF's convention (origin top-left), v' = 1 - v;
 *  - the last-error string is process-global: imports are serialised by a mutex and the message is
 *    copied out before the lock is released.
 * Assimp reads through a custom aiFileIO so that the main file comes from memory (bytes rigkit has
 * already read, checked and possibly repaired) and companion files (glTF buffers) are size-checked.
 * Post-processing is limited to Triangulate, ValidateDataStructure and (FBX) GlobalScale:
 * FindInvalidData, LimitBoneWeights and PopulateArmatureData damage skeletons, and
 * JoinIdenticalVertices re-indexes every mesh (a glTF mesh must keep its accessor's vertex count
 * and order: morph targets, vertex colours and other tools' data are keyed by vertex index). */
#include "assimp_scene.h"

#include <rigkit/importers.h>

#include <assimp/cfileio.h>
#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/material.h>
#include <assimp/metadata.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <assimp/texture.h>

#include <glib/gstdio.h>
#include <string.h>

static GMutex assimp_lock;

/* ---- memory-backed aiFileIO ------------------------------------------------------------------- */

typedef struct vfs {
  const rk__source *src;
  const char *main_name; /* the name Assimp is asked to open */
  bool allow_external;
  char *failure; /* first companion-file failure, for the error message */
} vfs;

typedef struct vfile {
  const uint8_t *data;
  size_t size, pos;
  uint8_t *owned;
} vfile;

static size_t vf_read(struct aiFile *f, char *buf, size_t size, size_t count) {
  vfile *v = (vfile *)(void *)f->UserData;
  if (size == 0 || count == 0 || v->pos >= v->size)
    return 0;
  size_t avail = (v->size - v->pos) / size;
  size_t take = count < avail ? count : avail;
  memcpy(buf, v->data + v->pos, take * size);
  v->pos += take * size;
  return take;
}

static size_t vf_write(struct aiFile *f, const char *buf, size_t size, size_t count) {
  return 0;
}

static size_t vf_tell(struct aiFile *f) {
  return ((vfile *)(void *)f->UserData)->pos;
}

static size_t vf_size(struct aiFile *f) {
  return ((vfile *)(void *)f->UserData)->size;
}

static void vf_flush(struct aiFile *f) {
}

static enum aiReturn vf_seek(struct aiFile *f, size_t offset, enum aiOrigin origin) {
  vfile *v = (vfile *)(void *)f->UserData;
  size_t base = origin == aiOrigin_SET ? 0 : origin == aiOrigin_CUR ? v->pos : v->size;
  size_t pos = base + offset; /* Assimp passes negative offsets as wrapped size_t */
  if (pos > v->size)
    return aiReturn_FAILURE;
  v->pos = pos;
  return aiReturn_SUCCESS;
}

static struct aiFile *vfs_open(struct aiFileIO *io, const char *path, const char *mode) {
  vfs *fs = (vfs *)(void *)io->UserData;
  if (!path || !mode || strchr(mode, 'w') || strchr(mode, 'a') || strchr(mode, '+'))
    return NULL;
  vfile *v = g_new0(vfile, 1);
  if (strcmp(path, fs->main_name) == 0) {
    v->data = fs->src->data;
    v->size = fs->src->size;
  } else {
    GStatBuf st;
    const char *why = NULL;
    if (!fs->allow_external)
      why = "companion files cannot be opened for an in-memory import";
    else if (g_stat(path, &st) != 0)
      why = "missing";
    else if (!S_ISREG(st.st_mode))
      why = "not a regular file";
    else if ((guint64)st.st_size > RK__IMPORT_MAX_FILE_SIZE)
      why = "larger than the 1 GiB limit";
    gchar *contents = NULL;
    gsize len = 0;
    if (!why && !g_file_get_contents(path, &contents, &len, NULL))
      why = "unreadable";
    if (why) {
      if (!fs->failure)
        fs->failure = g_strdup_printf("companion file '%s' is %s", path, why);
      g_free(v);
      return NULL;
    }
    v->owned = (uint8_t *)contents;
    v->data = v->owned;
    v->size = len;
  }
  struct aiFile *f = g_new0(struct aiFile, 1);
  f->ReadProc = vf_read;
  f->WriteProc = vf_write;
  f->TellProc = vf_tell;
  f->FileSizeProc = vf_size;
  f->SeekProc = vf_seek;
  f->FlushProc = vf_flush;
  f->UserData = (aiUserData)(void *)v;
  return f;
}

static void vfs_close(struct aiFileIO *io, struct aiFile *f) {
  if (!f)
    return;
  vfile *v = (vfile *)(void *)f->UserData;
  g_free(v->owned);
  g_free(v);
  g_free(f);
}

/* ---- conventions -------------------------------------------------------------------------------- */

static rk_mat4 mat4_from_ai(const struct aiMatrix4x4 *a) {
  rk_mat4 m = {{a->a1, a->b1, a->c1, a->d1, /* column 0 */
                a->a2, a->b2, a->c2, a->d2, /* column 1 */
                a->a3, a->b3, a->c3, a->d3, /* column 2 */
                a->a4, a->b4, a->c4, a->d4}}; /* column 3 */
  return m;
}

static char *string_from_ai(const struct aiString *s) {
  size_t len = s->length < MAXLEN ? s->length : MAXLEN - 1;
  char *out = g_strndup(s->data, len);
  if (!g_utf8_validate(out, -1, NULL)) {
    char *fixed = g_utf8_make_valid(out, -1);
    g_free(out);
    out = fixed;
  }
  return out;
}

/* ---- copy --------------------------------------------------------------------------------------- */

static bool name_in_cameras_or_lights(const struct aiScene *s, const struct aiString *name,
                                      bool *camera, bool *light) {
  *camera = *light = false;
  for (unsigned i = 0; i < s->mNumCameras; i++)
    if (s->mCameras[i]->mName.length == name->length &&
        memcmp(s->mCameras[i]->mName.data, name->data, name->length) == 0)
      *camera = true;
  for (unsigned i = 0; i < s->mNumLights; i++)
    if (s->mLights[i]->mName.length == name->length &&
        memcmp(s->mLights[i]->mName.data, name->data, name->length) == 0)
      *light = true;
  return *camera || *light;
}

static bool metadata_number(const struct aiMetadata *md, const char *key, double *out) {
  if (!md)
    return false;
  for (unsigned i = 0; i < md->mNumProperties; i++) {
    if (strcmp(md->mKeys[i].data, key) != 0 || !md->mValues[i].mData)
      continue;
    const void *d = md->mValues[i].mData;
    switch (md->mValues[i].mType) {
    case AI_INT32:
      *out = *(const int32_t *)d;
      return true;
    case AI_UINT64:
      *out = (double)*(const uint64_t *)d;
      return true;
    case AI_FLOAT:
      *out = *(const float *)d;
      return true;
    case AI_DOUBLE:
      *out = *(const double *)d;
      return true;
    default:
      return false;
    }
  }
  return false;
}

static void copy_nodes(const struct aiScene *s, rk__scene *out) {
  /* Count, then a preorder walk with an explicit stack (deep trees must not overflow). */
  GPtrArray *stack = g_ptr_array_new();
  GArray *parents = g_array_new(FALSE, FALSE, sizeof(int));
  GPtrArray *order = g_ptr_array_new();
  GArray *order_parent = g_array_new(FALSE, FALSE, sizeof(int));
  g_ptr_array_add(stack, s->mRootNode);
  int minus_one = -1;
  g_array_append_val(parents, minus_one);
  while (stack->len > 0) {
    const struct aiNode *n = g_ptr_array_steal_index(stack, stack->len - 1);
    int p = g_array_index(parents, int, parents->len - 1);
    g_array_set_size(parents, parents->len - 1);
    int me = (int)order->len;
    g_ptr_array_add(order, (gpointer)n);
    g_array_append_val(order_parent, p);
    for (unsigned c = n->mNumChildren; c-- > 0;) {
      g_ptr_array_add(stack, n->mChildren[c]);
      g_array_append_val(parents, me);
    }
  }
  out->node_count = order->len;
  out->nodes = g_new0(rk__scene_node, order->len);
  for (guint i = 0; i < order->len; i++) {
    const struct aiNode *n = g_ptr_array_index(order, i);
    rk__scene_node *o = &out->nodes[i];
    o->name = string_from_ai(&n->mName);
    o->parent = g_array_index(order_parent, int, i);
    o->local = mat4_from_ai(&n->mTransformation);
    o->mesh_count = n->mNumMeshes;
    o->meshes = n->mNumMeshes ? g_memdup2(n->mMeshes, n->mNumMeshes * sizeof(unsigned)) : NULL;
    name_in_cameras_or_lights(s, &n->mName, &o->is_camera, &o->is_light);
  }
  g_ptr_array_unref(stack);
  g_array_unref(parents);
  g_ptr_array_unref(order);
  g_array_unref(order_parent);
}

static void copy_meshes(const struct aiScene *s, rk__scene *out) {
  out->mesh_count = s->mNumMeshes;
  out->meshes = g_new0(rk__scene_mesh, s->mNumMeshes ? s->mNumMeshes : 1);
  for (unsigned m = 0; m < s->mNumMeshes; m++) {
    const struct aiMesh *a = s->mMeshes[m];
    rk__scene_mesh *o = &out->meshes[m];
    o->name = string_from_ai(&a->mName);
    o->vertex_count = a->mNumVertices;
    o->material = a->mMaterialIndex;
    const unsigned nv = a->mNumVertices;
    o->positions = g_new(float, 3 * (size_t)nv + 1);
    for (unsigned v = 0; v < nv; v++) {
      o->positions[3 * v] = a->mVertices[v].x;
      o->positions[3 * v + 1] = a->mVertices[v].y;
      o->positions[3 * v + 2] = a->mVertices[v].z;
    }
    if (a->mNormals) {
      o->normals = g_new(float, 3 * (size_t)nv + 1);
      for (unsigned v = 0; v < nv; v++) {
        o->normals[3 * v] = a->mNormals[v].x;
        o->normals[3 * v + 1] = a->mNormals[v].y;
        o->normals[3 * v + 2] = a->mNormals[v].z;
      }
    }
    if (a->mTextureCoords[0]) {
      o->texcoords = g_new(float, 2 * (size_t)nv + 1);
      for (unsigned v = 0; v < nv; v++) {
        o->texcoords[2 * v] = a->mTextureCoords[0][v].x;
        o->texcoords[2 * v + 1] = 1.0f - a->mTextureCoords[0][v].y;
      }
    }
    size_t tris = 0;
    for (unsigned f = 0; f < a->mNumFaces; f++)
      tris += a->mFaces[f].mNumIndices == 3;
    o->index_count = (unsigned)(3 * tris);
    o->indices = g_new(uint32_t, 3 * tris + 1);
    size_t k = 0;
    for (unsigned f = 0; f < a->mNumFaces; f++)
      if (a->mFaces[f].mNumIndices == 3)
        for (int i = 0; i < 3; i++)
          o->indices[k++] = a->mFaces[f].mIndices[i];
    o->bone_count = a->mNumBones;
    o->bones = g_new0(rk__scene_bone, a->mNumBones ? a->mNumBones : 1);
    for (unsigned b = 0; b < a->mNumBones; b++) {
      const struct aiBone *ab = a->mBones[b];
      rk__scene_bone *ob = &o->bones[b];
      ob->name = string_from_ai(&ab->mName);
      ob->offset = mat4_from_ai(&ab->mOffsetMatrix);
      ob->weight_count = ab->mNumWeights;
      ob->vertex = g_new(uint32_t, ab->mNumWeights + 1);
      ob->weight = g_new(float, ab->mNumWeights + 1);
      for (unsigned w = 0; w < ab->mNumWeights; w++) {
        ob->vertex[w] = ab->mWeights[w].mVertexId;
        ob->weight[w] = ab->mWeights[w].mWeight;
      }
    }
  }
}

/* The texture a material's texture path names in the scene's embedded textures: "*<n>", or one
 * whose file name has the same last component (Assimp's FBX importer names embedded images by
 * their file), else NULL. */
static const struct aiTexture *embedded_texture(const struct aiScene *s, const char *path) {
  if (path[0] == '*') {
    guint64 n;
    return g_ascii_string_to_unsigned(path + 1, 10, 0, G_MAXUINT, &n, NULL) &&
                   n < s->mNumTextures
               ? s->mTextures[n]
               : NULL;
  }
  g_autofree char *base = g_path_get_basename(path);
  for (unsigned i = 0; i < s->mNumTextures; i++) {
    g_autofree char *file = string_from_ai(&s->mTextures[i]->mFilename);
    g_strdelimit(file, "\\", '/');
    g_autofree char *other = g_path_get_basename(file);
    if (*file && strcmp(base, other) == 0)
      return s->mTextures[i];
  }
  return NULL;
}

/* The material's base-colour (glTF) or diffuse (FBX) texture: its path, UV set and, when the file
 * embeds it as a compressed image (PNG, JPEG, ...), its bytes. */
static void copy_texture(const struct aiScene *s, const struct aiMaterial *m,
                         rk__scene_material *o) {
  static const enum aiTextureType types[] = {aiTextureType_BASE_COLOR, aiTextureType_DIFFUSE};
  for (size_t k = 0; k < G_N_ELEMENTS(types) && !o->texture_path; k++) {
    struct aiString path;
    unsigned uv = 0;
    if (aiGetMaterialTextureCount(m, types[k]) == 0 ||
        aiGetMaterialTexture(m, types[k], 0, &path, NULL, &uv, NULL, NULL, NULL, NULL) !=
            aiReturn_SUCCESS ||
        path.length == 0)
      continue;
    o->texture_path = string_from_ai(&path);
    g_strdelimit(o->texture_path, "\\", '/');
    o->texture_uv = uv;
  }
  const struct aiTexture *t = o->texture_path ? embedded_texture(s, o->texture_path) : NULL;
  if (t && t->mHeight == 0 && t->mWidth > 0 && t->pcData) { /* compressed: the file's bytes */
    o->texture_data = g_memdup2(t->pcData, t->mWidth);
    o->texture_size = t->mWidth;
    o->texture_hint = g_strndup(t->achFormatHint, HINTMAXTEXTURELEN - 1);
  }
}

static void copy_materials(const struct aiScene *s, rk__scene *out) {
  out->material_count = s->mNumMaterials;
  out->materials = g_new0(rk__scene_material, s->mNumMaterials ? s->mNumMaterials : 1);
  for (unsigned i = 0; i < s->mNumMaterials; i++) {
    const struct aiMaterial *m = s->mMaterials[i];
    rk__scene_material *o = &out->materials[i];
    struct aiString name;
    if (aiGetMaterialString(m, AI_MATKEY_NAME, &name) == aiReturn_SUCCESS && name.length > 0)
      o->name = string_from_ai(&name);
    struct aiColor4D c = {1, 1, 1, 1};
    if (aiGetMaterialColor(m, AI_MATKEY_BASE_COLOR, &c) != aiReturn_SUCCESS)
      aiGetMaterialColor(m, AI_MATKEY_COLOR_DIFFUSE, &c);
    float opacity = 1.0f;
    unsigned one = 1;
    if (aiGetMaterialFloatArray(m, AI_MATKEY_OPACITY, &opacity, &one) == aiReturn_SUCCESS &&
        opacity < c.a)
      c.a = opacity;
    o->base_color[0] = c.r, o->base_color[1] = c.g, o->base_color[2] = c.b, o->base_color[3] = c.a;
    o->metallic = 0.0f;
    o->roughness = 1.0f;
    one = 1;
    aiGetMaterialFloatArray(m, AI_MATKEY_METALLIC_FACTOR, &o->metallic, &one);
    one = 1;
    aiGetMaterialFloatArray(m, AI_MATKEY_ROUGHNESS_FACTOR, &o->roughness, &one);
    int two_sided = 0;
    one = 1;
    if (aiGetMaterialIntegerArray(m, AI_MATKEY_TWOSIDED, &two_sided, &one) == aiReturn_SUCCESS)
      o->double_sided = two_sided != 0;
    copy_texture(s, m, o);
  }
}

/* Copies n vector keys (times in seconds, xyz values) into new arrays the caller owns (g_free);
 * one element more than needed so that n == 0 allocates too. */
static void copy_vector_keys(const struct aiVectorKey *keys, unsigned n, double tick_seconds,
                             double **times, double **values) {
  *times = g_new(double, n + 1);
  *values = g_new(double, 3 * (size_t)n + 1);
  for (unsigned k = 0; k < n; k++) {
    (*times)[k] = keys[k].mTime * tick_seconds;
    (*values)[3 * k] = keys[k].mValue.x;
    (*values)[3 * k + 1] = keys[k].mValue.y;
    (*values)[3 * k + 2] = keys[k].mValue.z;
  }
}

static void copy_anims(const struct aiScene *s, const char *format, rk__scene *out) {
  out->anim_count = s->mNumAnimations;
  out->anims = g_new0(rk__scene_anim, s->mNumAnimations ? s->mNumAnimations : 1);
  const bool gltf = strcmp(format, "gltf") == 0 || strcmp(format, "glb") == 0;
  for (unsigned i = 0; i < s->mNumAnimations; i++) {
    const struct aiAnimation *a = s->mAnimations[i];
    rk__scene_anim *o = &out->anims[i];
    o->name = string_from_ai(&a->mName);
    o->ticks_per_second = a->mTicksPerSecond;
    /* Unspecified rates: glTF's importer always works in milliseconds; elsewhere Assimp's own
     * tools assume 25 ticks per second. */
    double tps = a->mTicksPerSecond > 0 ? a->mTicksPerSecond : gltf ? 1000.0 : 25.0;
    if (gltf)
      tps = 1000.0;
    o->tick_seconds = 1.0 / tps;
    o->duration = a->mDuration * o->tick_seconds;
    o->channel_count = a->mNumChannels;
    o->channels = g_new0(rk__scene_channel, a->mNumChannels ? a->mNumChannels : 1);
    for (unsigned c = 0; c < a->mNumChannels; c++) {
      const struct aiNodeAnim *ch = a->mChannels[c];
      rk__scene_channel *oc = &o->channels[c];
      oc->node_name = string_from_ai(&ch->mNodeName);
      oc->n_pos = ch->mNumPositionKeys;
      oc->n_rot = ch->mNumRotationKeys;
      oc->n_scale = ch->mNumScalingKeys;
      copy_vector_keys(ch->mPositionKeys, oc->n_pos, o->tick_seconds, &oc->pos_times,
                       &oc->pos_values);
      oc->rot_times = g_new(double, oc->n_rot + 1);
      oc->rot_values = g_new(double, 4 * (size_t)oc->n_rot + 1);
      for (unsigned k = 0; k < oc->n_rot; k++) {
        oc->rot_times[k] = ch->mRotationKeys[k].mTime * o->tick_seconds;
        oc->rot_values[4 * k] = ch->mRotationKeys[k].mValue.x;
        oc->rot_values[4 * k + 1] = ch->mRotationKeys[k].mValue.y;
        oc->rot_values[4 * k + 2] = ch->mRotationKeys[k].mValue.z;
        oc->rot_values[4 * k + 3] = ch->mRotationKeys[k].mValue.w;
      }
      copy_vector_keys(ch->mScalingKeys, oc->n_scale, o->tick_seconds, &oc->scale_times,
                       &oc->scale_values);
    }
  }
}

static void copy_globals(const struct aiScene *s, rk__scene *out) {
  const struct aiMetadata *md = s->mMetaData;
  double up, up_sign, front, front_sign, coord, coord_sign;
  if (metadata_number(md, "UpAxis", &up) && metadata_number(md, "UpAxisSign", &up_sign) &&
      metadata_number(md, "FrontAxis", &front) &&
      metadata_number(md, "FrontAxisSign", &front_sign) &&
      metadata_number(md, "CoordAxis", &coord) &&
      metadata_number(md, "CoordAxisSign", &coord_sign) && up >= 0 && up <= 2 && front >= 0 &&
      front <= 2 && coord >= 0 && coord <= 2 && up != front && up != coord && front != coord) {
    out->has_axes = true;
    out->up_axis = (int)up, out->up_sign = up_sign < 0 ? -1 : 1;
    out->front_axis = (int)front, out->front_sign = front_sign < 0 ? -1 : 1;
    out->coord_axis = (int)coord, out->coord_sign = coord_sign < 0 ? -1 : 1;
  }
  double unit;
  if (metadata_number(md, "UnitScaleFactor", &unit) && unit > 0 && isfinite(unit))
    out->unit_scale_factor = unit;
  double rate;
  if (metadata_number(md, "CustomFrameRate", &rate) && rate > 0 && isfinite(rate))
    out->frame_rate = rate;
}

bool rk__assimp_read(const rk__source *src, const char *format, rk__scene *scene, GError **error) {
  memset(scene, 0, sizeof *scene);
  const bool fbx = strcmp(format, "fbx") == 0;
  /* Assimp picks the importer from the extension: give the virtual main file the right one. */
  const char *ext_format = rk_import_format_from_path(src->name);
  g_autofree char *main_name = NULL;
  if (ext_format && strcmp(ext_format, format) == 0)
    main_name = g_strdup(src->name);
  else if (src->dir)
    main_name = g_strdup_printf("%s/rigkit-main.%s", src->dir, format);
  else
    main_name = g_strdup_printf("rigkit-main.%s", format);
  vfs fs = {src, main_name, src->dir != NULL, NULL};
  struct aiFileIO io = {vfs_open, vfs_close, (aiUserData)(void *)&fs};
  struct aiPropertyStore *props = aiCreatePropertyStore();
  /* Keep the FBX pivot helpers: without them the animation of pivot bones is lost; rigkit folds
   * the helper chains itself (fbx_helpers.c). */
  aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, 1);
  unsigned flags = aiProcess_Triangulate | aiProcess_ValidateDataStructure;
  if (fbx)
    flags |= aiProcess_GlobalScale;
  g_mutex_lock(&assimp_lock);
  const struct aiScene *s = aiImportFileExWithProperties(main_name, flags, &io, props);
  char *message = s ? NULL : g_strdup(aiGetErrorString());
  g_mutex_unlock(&assimp_lock);
  aiReleasePropertyStore(props);
  if (!s) {
    g_strstrip(message);
    if (fs.failure)
      g_set_error(error, RK_ERROR, RK_ERROR_IO, "%s", fs.failure);
    else
      g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "Assimp could not read it as %s: %s", format,
                  message && *message ? message : "unknown error");
    g_free(message);
    g_free(fs.failure);
    return false;
  }
  g_free(fs.failure);
  if (!s->mRootNode) {
    aiReleaseImport(s);
    g_set_error(error, RK_ERROR, RK_ERROR_PARSE, "the %s file has no scene", format);
    return false;
  }
  copy_nodes(s, scene);
  copy_meshes(s, scene);
  copy_materials(s, scene);
  copy_anims(s, format, scene);
  copy_globals(s, scene);
  scene->global_scale_applied = fbx;
  aiReleaseImport(s);
  return true;
}
