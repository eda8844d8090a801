/* The meshes of an Assimp scene (internal; scene_meshes.c), for scene_import.c. */
#ifndef RK_SCENE_MESHES_H
#define RK_SCENE_MESHES_H

#include "raw_asset.h"
#include "scene.h"

G_BEGIN_DECLS

/** Adds every mesh of s to raw (the skeleton is already there; joint_of_node maps nodes to raw
 * joints): vertices in the skeleton's model space at bind time, at most four normalised joint
 * influences per vertex, inverse bind matrices on the joints; unskinned meshes attached to their
 * nearest joint ancestor. Notes what it drops or approximates. */
void rk__scene_build_meshes(const rk__scene *s, const char *format, const int *joint_of_node,
                            rk__raw_asset *raw);

G_END_DECLS

#endif
