/* The pre-pass's repairs of a glTF file (internal; gltf_repair.c): what Assimp 5.2.5 would read
 * wrongly or crash on in a valid file is made explicit in the JSON, which is then written back
 * for Assimp. Each repair adds a note. */
#ifndef RK_GLTF_REPAIR_H
#define RK_GLTF_REPAIR_H

#include "gltf_doc.h"

G_BEGIN_DECLS

/** Skins without inverseBindMatrices (valid glTF: identity matrices) crash Assimp 5.2.5 (a NULL
 * read; found by fuzz_gltf). They get one shared accessor of identity matrices, as many as the
 * largest such skin has joints (at most RK_SKELETON_MAX_JOINTS: 4 MiB), in a new data-URI buffer;
 * the file is then rewritten for Assimp. Returns whether anything was added. */
bool rk__gltf_add_identity_inverse_binds(rk__gltf_doc *doc, GPtrArray *notes);
/** Makes node names unique: Assimp keeps duplicate names and binds animation channels by name
 * (quaternius-style rigs name mesh nodes like the bones), so the channels would bind to the wrong
 * node. The node that is a skin joint (else an animation target, else one without a mesh) keeps
 * its name, the others become "<name>.001", ... in the JSON. Returns every node's name as Assimp
 * will see it (unnamed nodes: "nodes[i]"; a new array that frees its strings); *renamed tells
 * whether any name changed. */
GPtrArray *rk__gltf_unique_node_names(rk__gltf_doc *doc, GPtrArray *notes, bool *renamed);

G_END_DECLS

#endif
