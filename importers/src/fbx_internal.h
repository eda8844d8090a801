/* rigkit's own FBX reading (not through Assimp), internal to librigkit_importers.
 *
 * Two layers:
 * - fbx_records.c: the node-record tree of a binary FBX (7.x: 32-bit record offsets before 7500,
 *   64-bit from 7500) or ASCII FBX file. Every node has a name, a list of typed properties and
 *   child nodes; arrays are decoded on demand (zlib-compressed binary arrays, ASCII number lists).
 * - the document, the few objects rigkit needs from that tree: Model nodes with their
 *   Properties70 (and the Definitions templates that give unset properties their defaults) and
 *   connections (fbx_document.c); the evaluation of a Model's local transform with the full FBX
 *   chain
 *     T * Roff * Rp * Rpre * R * Rpost^-1 * Rp^-1 * Soff * Sp * S * Sp^-1
 *   (fbx_transform.c) at rest and at the key times of a stack's curves (fbx_animation.c).
 *   fbx_helpers.c uses it where Assimp 5.2.5's helper nodes cannot be trusted (pre/post-rotations,
 *   pivots, offsets); fbx_precheck.c checks the document for what Assimp cannot survive.
 *
 * The tree borrows the file's bytes (strings and arrays point into them): the bytes must outlive
 * the tree and the document.
 *
 * Index: rk__fbx_prop, rk__fbx_node, rk__fbx_tree, rk__fbx_tree_parse, rk__fbx_tree_free,
 *        rk__fbx_node_child, rk__fbx_node_prop, rk__fbx_prop_*, rk__fbx_tree_check_arrays;
 *        rk__fbx_doc, rk__fbx_doc_parse, rk__fbx_doc_free, rk__fbx_doc_find_model,
 *        rk__fbx_doc_model_is_skeleton, rk__fbx_doc_model_rest, rk__fbx_samples,
 *        rk__fbx_doc_sample, rk__fbx_doc_has_stack, rk__fbx_samples_clear; rk__fbx_precheck.
 */
#ifndef RK_FBX_INTERNAL_H
#define RK_FBX_INTERNAL_H

#include <rigkit/rigkit.h>

#include <stdint.h>

G_BEGIN_DECLS

/** FBX time: ticks per second (KeyTime, KTime properties). */
#define RK__FBX_TICKS_PER_SECOND 46186158000LL
/** Deepest node nesting rigkit reads (real files nest fewer than 10 levels). */
#define RK__FBX_MAX_DEPTH 64
/** Most elements of one array property. */
#define RK__FBX_MAX_ARRAY ((uint32_t)1 << 28)

/* ---- node records (fbx_records.c) ---------------------------------------------------------- */

/** One property of a node. type is the binary type code: 'Y' int16, 'C' bool, 'I' int32,
 * 'F' float, 'D' double, 'L' int64 (scalars, value in i or d), 'S' string, 'R' raw bytes
 * (data/len), 'f' 'd' 'l' 'i' 'b' arrays (count elements; data/len is the stored payload,
 * encoding 0 raw little-endian, 1 zlib). ASCII files give 'L' for integers, 'D' for other
 * numbers, 'S' for quoted strings and bare words, and arrays of type 'd' with encoding
 * RK__FBX_ENCODING_TEXT (data/len is the comma-separated list). */
typedef struct rk__fbx_prop {
  char type;
  uint32_t count;
  uint32_t encoding;
  int64_t i;
  double d;
  const uint8_t *data;
  size_t len;
} rk__fbx_prop;

#define RK__FBX_ENCODING_TEXT 0x100u

typedef struct rk__fbx_node rk__fbx_node;
struct rk__fbx_node {
  char *name; /* owned, NUL-terminated */
  rk__fbx_prop *props;
  size_t n_props;
  rk__fbx_node *children;
  size_t n_children;
  bool scope; /* has a child list, maybe empty: "{ }" in ASCII, a null record in binary */
};

/** The whole file as a root node (no name, no properties, the top-level nodes as children). */
typedef struct rk__fbx_tree {
  rk__fbx_node root;
  uint32_t
      version; /* 7400, 7500, ...; from FBXHeaderExtension/FBXVersion for ASCII, 0 when absent */
  bool binary;
} rk__fbx_tree;

/** Parses binary or ASCII FBX bytes (name is for messages). Fails with RK_ERROR_PARSE naming the
 * byte offset (binary) or line (ASCII) of the fault, RK_ERROR_LIMIT beyond RK__FBX_MAX_DEPTH or
 * RK__FBX_MAX_ARRAY. On success *tree borrows data; free it with rk__fbx_tree_free. */
bool rk__fbx_tree_parse(const uint8_t *data, size_t size, const char *name, rk__fbx_tree *tree,
                        GError **error);
void rk__fbx_tree_free(rk__fbx_tree *tree);

/** First child of node called name, or NULL. */
const rk__fbx_node *rk__fbx_node_child(const rk__fbx_node *node, const char *name);
/** Property i of node, or NULL when there are fewer. */
const rk__fbx_prop *rk__fbx_node_prop(const rk__fbx_node *node, size_t i);
/** Numeric value of a scalar property (any integer, float or double type, or an ASCII bare word
 * "T"/"Y" as 1 and "F"/"N" as 0); false for strings, arrays and NULL. */
bool rk__fbx_prop_number(const rk__fbx_prop *p, double *out);
/** Integer value of a scalar integer property (Y C I L); false otherwise. */
bool rk__fbx_prop_int(const rk__fbx_prop *p, int64_t *out);
/** True when p is a string equal to s. */
bool rk__fbx_prop_is(const rk__fbx_prop *p, const char *s);
/** A newly allocated copy of a string property (invalid UTF-8 repaired), or NULL. */
char *rk__fbx_prop_string(const rk__fbx_prop *p);
/** Splits an object name into its class and name: binary files store "Name\0\1Class", ASCII
 * files "Class::Name". Either output may be NULL; both are newly allocated. False when p is not
 * a string. */
bool rk__fbx_prop_object_name(const rk__fbx_prop *p, char **cls, char **name);
/** Decodes a numeric array property (any array type, or a scalar as a one-element array) into
 * doubles (g_free). Fails with RK_ERROR_PARSE on a corrupt payload. */
bool rk__fbx_prop_doubles(const rk__fbx_prop *p, double **out, size_t *count, GError **error);
/** Decodes an integer array property into int64 (g_free); ASCII numbers must be integers. */
bool rk__fbx_prop_int64s(const rk__fbx_prop *p, int64_t **out, size_t *count, GError **error);
/** Inflates every zlib-compressed array of a binary tree and fails with RK_ERROR_PARSE naming the
 * record path of the first corrupt one; true for ASCII trees. */
bool rk__fbx_tree_check_arrays(const rk__fbx_tree *tree, GError **error);

/* ---- document (fbx_document.c, fbx_transform.c, fbx_animation.c) ----------------------------- */

typedef struct rk__fbx_doc rk__fbx_doc;

/** Reads the Models, connections and animation of an FBX file (binary or ASCII). The document
 * borrows data. Fails with the tree's errors, or RK_ERROR_UNSUPPORTED for files without the FBX 7
 * layout (Objects, Connections). Free with rk__fbx_doc_free. */
rk__fbx_doc *rk__fbx_doc_parse(const uint8_t *data, size_t size, const char *name, GError **error);
void rk__fbx_doc_free(rk__fbx_doc *doc);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(rk__fbx_doc, rk__fbx_doc_free)

/** Index of the Model called name (without its "Model::" class prefix), -1 when none, -2 when
 * several Models share the name. */
int rk__fbx_doc_find_model(const rk__fbx_doc *doc, const char *name);
/** True when the Model is a skeleton node: its type (third property) is LimbNode, Limb or Root. */
bool rk__fbx_doc_model_is_skeleton(const rk__fbx_doc *doc, int model);
/** Local transform of Model `model` from its static properties (file units), with the full FBX
 * chain. Notes on approximations (InheritType, spheric rotation order) are added to notes. */
rk_mat4 rk__fbx_doc_model_rest(const rk__fbx_doc *doc, int model, GPtrArray *notes);

/** A Model's animation in one stack: sample times (seconds, relative to the stack's LocalStart
 * when the stack declares a time span, as Assimp counts them) and the local matrix at each. */
typedef struct rk__fbx_samples {
  size_t count;
  double *times;
  rk_mat4 *locals;
} rk__fbx_samples;

/** Samples the local transform of `model` in the stack called stack_name at every key time of
 * the curves that drive its transform properties (in every layer), with extra samples where a
 * rotation curve turns by more than 90 degrees between keys, so that interpolating the samples
 * follows the curves. Returns false and leaves *out empty when the stack has no curves for the
 * Model (or no such stack). */
bool rk__fbx_doc_sample(const rk__fbx_doc *doc, int model, const char *stack_name,
                        rk__fbx_samples *out, GPtrArray *notes);
/** True when the document has an AnimationStack called name (without its class prefix). */
bool rk__fbx_doc_has_stack(const rk__fbx_doc *doc, const char *name);
void rk__fbx_samples_clear(rk__fbx_samples *s);

/* ---- checks before Assimp (fbx_precheck.c) --------------------------------------------------- */

/** Checks an FBX file (name is for messages) for what makes Assimp 5.2.5 abort, crash, leak or
 * allocate without bound, before Assimp reads it: compressed arrays that do not inflate to their
 * size (Assimp skips them and leaks), model hierarchies with a cycle, deeper than 1024 levels or
 * copied into more than RK_SKELETON_MAX_JOINTS nodes (RK_ERROR_LIMIT), skin clusters weighting
 * vertices their geometry does not have (an ai_assert: abort()), skinned bones sharing a name
 * (RK_ERROR_UNSUPPORTED), rotation curves that are not finite or turn more than 2^20 half turns
 * (RK_ERROR_LIMIT). Fails with RK_ERROR_PARSE naming the record or object, and with the record
 * reader's error when rigkit cannot read the file's records at all (Assimp then never sees it).
 * On success *doc is rigkit's reading of the file for rk__fbx_fold_helpers (the caller frees it
 * with rk__fbx_doc_free), or NULL with *doc_error set when the file is not an FBX 7 document (no
 * Objects/Connections; the object checks are skipped then). */
bool rk__fbx_precheck(const uint8_t *data, size_t size, const char *name, rk__fbx_doc **doc,
                      GError **doc_error, GError **error);

G_END_DECLS

#endif
