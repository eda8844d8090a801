/* The target's silhouette on the review page of `rigkit retarget --html`: the character's skinned
 * meshes go into the page once (rigkit/skin_mesh.h: each vertex's joints, weights and offset from
 * each joint in the rest pose; the triangles), and each clip's player data carries, per sample,
 * how far each of those joints has turned from its rest (a quaternion); the page's script skins
 * the mesh with them and the joints' positions it already has (linear blend skinning) and fills
 * it behind the skeleton. A mesh above the budget below, or none, leaves the skeleton alone, and
 * the page says which. */
#ifndef RK_RETARGET_SILHOUETTE_H
#define RK_RETARGET_SILHOUETTE_H

#include <glib.h>
#include <rigkit/rigkit.h>

/** The largest mesh the page draws (its skinned and attached meshes, seam copies merged). The
 * mesh goes into the page once (about 30 bytes per vertex and joint it is weighted to, 15 per
 * triangle: under 1 MB at the budget for skins of one or two joints a vertex); the player skins
 * every vertex at each sample when a clip opens and fills every triangle at each sample drawn
 * (16,384 small triangles: 20 ms a picture in headless Chromium without a GPU; 20,000 triangles
 * each the size of the whole body, the worst case: 0.18 s). */
#define RK__RT_SILHOUETTE_MAX_TRIANGLES 20000
#define RK__RT_SILHOUETTE_MAX_VERTICES 20000

typedef struct rk__rt_silhouette rk__rt_silhouette;

/** The silhouette of a target character (borrowed while this lives). Never fails: a target
 * without meshes, with one over the budget or one that cannot be skinned gives a silhouette that
 * is not drawn and says why. */
rk__rt_silhouette *rk__rt_silhouette_new(const rk_asset *target);
void rk__rt_silhouette_free(rk__rt_silhouette *s);
/** The page's mesh as JSON text: {"draw": bool, "note": what the player shows, and when drawn
 * "joints" (names), "vertices" (per vertex its influence count, then per influence its joint's
 * place in "joints", weight and rest offset in mm), "triangles"}. The caller frees it. */
char *rk__rt_silhouette_json(const rk__rt_silhouette *s);
/** Appends `,"skin":{"joints": [index in sk of each joint of the mesh], "turns": base64 of
 * little-endian int16 quaternions (x, y, z, w times 32767), sample by sample, joint by joint}` to
 * a clip's player data: the turn of each joint from its rest at each sample, models[samples * n]
 * being the model matrices of skeleton sk (the clip as written, read back; joints found by
 * name). Appends nothing when the silhouette is not drawn or sk lacks one of its joints. */
void rk__rt_silhouette_append_turns(GString *out, const rk__rt_silhouette *s,
                                    const rk_skeleton *sk, const rk_mat4 *models, size_t samples);

#endif
