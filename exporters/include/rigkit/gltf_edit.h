/* rigkit/gltf_edit.h: a clip written into a character's own glTF document (librigkit_exporters).
 *
 * rk_export_file writes what rigkit's asset model holds; a glTF character written that way loses
 * what the model does not hold (textures, images, morph targets, cameras, lights, extras,
 * extensions) and its file's layout. rk_gltf_edit_write instead edits the document the character
 * was imported from: every member of the JSON and every byte of its buffers stays as it is, the
 * character's own animations are dropped and the clip is added as the one animation, its data
 * appended after the existing buffer bytes.
 *
 * The keys of a node are in that node's own local space: from the asset's rest pose rigkit
 * computes, once, the fixed correction B_j = (K M_j)^-1 W_n between joint j's canonical rest
 * model matrix M_j and the rest world matrix W_n of the document node n it was read from
 * (rk_asset_joint_source_node; K takes rigkit's metres to the document's unit), then per frame
 * W_n = K M_j(t) B_j and the node's local transform W_parent(n)^-1 W_n, the parent's world matrix
 * from the document's own nodes. So whatever the import folded (a Z-up parent node), moved (a
 * root's scale) or renamed, the document's nodes move as the clip says.
 *
 * Index: rk_gltf_edit_write, rk_gltf_edit_output_files, rk_gltf_edit_applies, rk_gltf_edit_staged,
 *        rk_gltf_edit_stage, rk_gltf_edit_staged_files, rk_gltf_edit_staged_read,
 *        rk_gltf_edit_commit, rk_gltf_edit_abort, rk_gltf_edit_doc, rk_gltf_edit_open,
 *        rk_gltf_edit_doc_free, rk_gltf_edit_stage_doc
 */
#ifndef RIGKIT_GLTF_EDIT_H
#define RIGKIT_GLTF_EDIT_H

#include <rigkit/asset.h>
#include <rigkit/exporters.h>

G_BEGIN_DECLS

/** Writes to out_path (.glb or .gltf, by extension) the glTF document of target_path (.glb or
 * .gltf, told by its bytes) with its animations replaced by one animation named after `clip` (a
 * clip of target's skeleton, sampled at its frame rate: a baked clip gives one key per key): a
 * translation and a rotation channel for every node a joint of target was read from, a scale
 * channel where the scale leaves the node's rest scale, LINEAR keys at every frame. `target` is
 * the asset rk_import_file read from target_path; the file must still hold the bytes it read
 * (rk_asset_source_digest). Everything else of the document is kept: nodes, meshes, materials,
 * textures, images, samplers, skins, cameras, extras, extensions, and the accessors and
 * bufferViews the dropped animations used; a node the clip animates that has a "matrix" gets the
 * same transform as translation, rotation and scale (glTF forbids animating a matrix).
 * Output layout: in a .glb, buffer 0 is the BIN chunk (from the source's BIN chunk, data: URI or
 * file) with the clip's data appended; in a .gltf, the clip's data goes to "<stem>.bin" beside
 * out_path (a GLB's BIN chunk first, else alone as a new last buffer; "<stem>.1.bin", ... when the
 * document already uses that name), and files the document refers to by relative URI are copied
 * beside out_path (rk_gltf_edit_output_files lists them). Atomic and deterministic like
 * rk_export_file: all files are complete on disk before any is renamed; on failure none is left.
 * The asset and clip are only read. Fails with RK_ERROR_INVALID (the file changed since the
 * import or is not the one target was read from, a clip of another skeleton, non-finite values),
 * RK_ERROR_PARSE (a malformed or truncated file), RK_ERROR_UNSUPPORTED (an output extension other
 * than .glb/.gltf, a URI that leaves the document's folder, key times that collapse in float32)
 * or RK_ERROR_IO / RK_ERROR_LIMIT; the message names the file. */
RK_API bool rk_gltf_edit_write(const char *target_path, const rk_asset *target,
                               const rk_clip *clip, const char *out_path, GError **error);

/** The files rk_gltf_edit_write(target_path, ..., out_path, ...) writes, in order: out_path, the
 * buffer file of a .gltf output, then the copies of the files the document refers to. Returns a
 * NULL-terminated array the caller frees with g_strfreev, or NULL with RK_ERROR_IO /
 * RK_ERROR_PARSE / RK_ERROR_UNSUPPORTED when target_path cannot be read or out_path has no glTF
 * extension. */
RK_API char **rk_gltf_edit_output_files(const char *target_path, const char *out_path,
                                        GError **error);

/** An edit written to temporary files beside its destinations but not yet under their names
 * (rk_gltf_edit_stage): rk_gltf_edit_write in two halves, so that the output can be read back
 * while the disk syncs it. */
typedef struct rk_gltf_edit_staged rk_gltf_edit_staged;

/** rk_gltf_edit_write up to complete temporary files, nothing renamed yet: the same arguments,
 * bytes and failures. The caller ends it with rk_gltf_edit_commit or rk_gltf_edit_abort. */
RK_API rk_gltf_edit_staged *rk_gltf_edit_stage(const char *target_path, const rk_asset *target,
                                               const rk_clip *clip, const char *out_path,
                                               GError **error);
/** The target's document read, checked against the import's digest and planned for an output,
 * before the clip is known (rk_gltf_edit_open): the part of rk_gltf_edit_stage that does not need
 * the clip, e.g. on another thread while the clip is made. */
typedef struct rk_gltf_edit_doc rk_gltf_edit_doc;

/** Reads target_path's document for an edit written to out_path (the paths are copied; target
 * must outlive the result). Never fails: what goes wrong is reported by rk_gltf_edit_stage_doc,
 * after what rk_gltf_edit_stage would report first. Free with rk_gltf_edit_stage_doc or
 * rk_gltf_edit_doc_free. */
RK_API rk_gltf_edit_doc *rk_gltf_edit_open(const char *target_path, const rk_asset *target,
                                           const char *out_path);
/** Frees a document rk_gltf_edit_stage_doc was not given; NULL is a no-op. */
RK_API void rk_gltf_edit_doc_free(rk_gltf_edit_doc *doc);
/** rk_gltf_edit_stage with the document `doc` read (consumed, also on failure): the same bytes
 * and the same failures, in the same order. */
RK_API rk_gltf_edit_staged *rk_gltf_edit_stage_doc(rk_gltf_edit_doc *doc, const rk_clip *clip,
                                                   GError **error);
/** The files the staged edit writes, as rk_gltf_edit_output_files lists them (NULL-terminated,
 * owned by st). Never fails. */
RK_API const char *const *rk_gltf_edit_staged_files(const rk_gltf_edit_staged *st);
/** The bytes of out_path as written (its temporary's pages mapped read-only; g_bytes_unref);
 * starts syncing the files to disk on a thread meanwhile. After the commit they map the output
 * file itself: another program truncating it would fault the holder, so keep a copy, not them,
 * past the commit. NULL with RK_ERROR_IO. */
RK_API GBytes *rk_gltf_edit_staged_read(rk_gltf_edit_staged *st, GError **error);
/** Syncs the staged files (waiting for a sync started by rk_gltf_edit_staged_read) and renames
 * them to their names, the output last, then frees st. Fails with RK_ERROR_IO (the disk refused,
 * or another file took a name meanwhile); then no temporary is left and st is freed too. */
RK_API bool rk_gltf_edit_commit(rk_gltf_edit_staged *st, GError **error);
/** Removes the staged files' temporaries and frees st; NULL is a no-op. */
RK_API void rk_gltf_edit_abort(rk_gltf_edit_staged *st);

/** Whether an output of `format` (RK_EXPORT_AUTO: from out_path's extension) of the character
 * `target` is written by rk_gltf_edit_write rather than rk_export_file: the target was read from a
 * glTF or GLB file and the output is glTF or GLB. Only reads; NULL target: false. Never fails. */
RK_API bool rk_gltf_edit_applies(const rk_asset *target, const char *out_path,
                                 rk_export_format format);

G_END_DECLS

#endif
