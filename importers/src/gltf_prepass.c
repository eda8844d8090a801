/* The glTF 2.0 pre-pass (gltf_prepass.h), run before Assimp sees a .gltf/.glb file. In order:
 *  - reads the GLB container and the JSON (gltf_doc.c);
 *  - checks every byte range and index Assimp would follow (gltf_check_buffers.c,
 *    gltf_check_structure.c): Assimp 5.2.5 trusts them and can crash or loop on a malformed file;
 *    absurd declared sizes are refused before anything is allocated for them;
 *  - repairs what Assimp gets wrong in valid files (gltf_repair.c): skins without inverse bind
 *    matrices, duplicate node names (channels bind by name); the file is then rewritten for Assimp;
 *  - collects what Assimp loses (gltf_collect.c): each channel's interpolation, and the
 *    CUBICSPLINE keys with their tangents; and each node's index (its name as given to Assimp
 *    and its parent), so that every joint can name the document node it was read from. */
#include "gltf_prepass.h"

#include "gltf_check_buffers.h"
#include "gltf_check_structure.h"
#include "gltf_doc.h"
#include "gltf_repair.h"

#include <string.h>

void rk__gltf_info_clear(rk__gltf_info *info) {
  if (info->interps)
    g_ptr_array_unref(info->interps);
  if (info->notes)
    g_ptr_array_unref(info->notes);
  if (info->node_names)
    g_ptr_array_unref(info->node_names);
  g_free(info->node_parents);
  g_free(info->rewritten);
  if (info->tree)
    json_node_unref(info->tree);
  memset(info, 0, sizeof *info);
}

bool rk__gltf_prepare(const rk__source *src, bool glb, rk__gltf_info *info, GError **error) {
  memset(info, 0, sizeof *info);
  info->interps = g_ptr_array_new_with_free_func(rk__gltf_interp_free);
  info->notes = g_ptr_array_new_with_free_func(g_free);
  rk__gltf_doc doc;
  bool ok = rk__gltf_doc_load(&doc, src, glb, error) && rk__gltf_check_buffers(&doc, error) &&
            rk__gltf_check_nodes(&doc, error) && rk__gltf_check_meshes_skins(&doc, error) &&
            rk__gltf_check_animations(&doc, error);
  bool renamed = false, added = false;
  if (ok)
    added = rk__gltf_add_identity_inverse_binds(&doc, info->notes);
  info->node_names = ok ? rk__gltf_unique_node_names(&doc, info->notes, &renamed) : NULL;
  ok = ok && rk__gltf_collect_interps(&doc, info->node_names, info->interps, error);
  if (ok)
    info->node_parents = g_steal_pointer(&doc.parents);
  if (ok && !renamed && !added) /* as in the file: a writer editing it may take this parse */
    info->tree = json_node_ref(json_parser_get_root(doc.parser));
  if (ok && (renamed || added) &&
      !rk__gltf_doc_write(&doc, &info->rewritten, &info->rewritten_size)) {
    g_set_error(error, RK_ERROR, RK_ERROR_LIMIT, "the repaired GLB would exceed 4 GiB");
    ok = false;
  }
  rk__gltf_doc_clear(&doc);
  return ok;
}
