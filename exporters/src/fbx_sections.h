/* The document-level sections of an FBX file (fbx_sections.c), in file order around the Objects
 * section: FBXHeaderExtension with the fixed FileId and CreationTime, GlobalSettings (axes, unit,
 * time mode), Documents, References, Definitions (object counts and property templates), then
 * after the objects Connections and Takes.
 *
 * Index: RK__FBX_UP_AXIS, rk__fbx_write_header, rk__fbx_write_global_settings,
 *        rk__fbx_write_documents, rk__fbx_write_definitions, rk__fbx_write_connections,
 *        rk__fbx_write_takes
 */
#ifndef RK_FBX_SECTIONS_H
#define RK_FBX_SECTIONS_H

#include "fbx_scene.h"

/** The up axis GlobalSettings states (FBX axis index: 0 X, 1 Y, 2 Z): rigkit's canonical Y. */
#define RK__FBX_UP_AXIS 1

/** FBXHeaderExtension, FileId, CreationTime and Creator: fixed values, no date, path or host. */
void rk__fbx_write_header(rk__fbx_ctx *c);
/** GlobalSettings: Y up, the file's UnitScaleFactor, the first clip's TimeMode, the longest clip's
 * TimeSpan. */
void rk__fbx_write_global_settings(rk__fbx_ctx *c);
/** Documents (one Scene, its active stack the first clip) and an empty References. */
void rk__fbx_write_documents(rk__fbx_ctx *c);
/** Definitions: how many objects of each type the Objects section holds, with templates. */
void rk__fbx_write_definitions(rk__fbx_ctx *c);
/** Connections: every connection recorded with rk__fbx_connect, in order. */
void rk__fbx_write_connections(rk__fbx_ctx *c);
/** Takes: one per clip, named as its stack. */
void rk__fbx_write_takes(rk__fbx_ctx *c);

#endif
