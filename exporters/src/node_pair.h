/* Two frames of one written node's key the matrix way at once (node_pair.c), for the glTF
 * editor's nodes whose corrections are not even scales (gltf_edit_nodes.c).
 *
 * Index: rk__node_mat_key, rk__node_mat_pair
 */
#ifndef RK_NODE_PAIR_H
#define RK_NODE_PAIR_H

#include <rigkit/math.h>

#include <stdbool.h>

/** The key left (x b) of one frame: x as a matrix (T R S), times the fixed correction b, the
 * fixed left times that, decomposed by rk_transform_from_mat4 into *out. False when the
 * decomposition fails or a component is not finite (then *out is unspecified). */
bool rk__node_mat_key(const rk_transform *x, const rk_mat4 *b, const rk_mat4 *left,
                      rk_transform *out);

/** rk__node_mat_key of two frames' locals x[0], x[1] with the same b and left, in two lanes: the
 * same bits as two calls, each lane the scalar path's own sequence of roundings. ok[k] says
 * whether frame k's key is usable. */
void rk__node_mat_pair(const rk_transform *const x[2], const rk_mat4 *b, const rk_mat4 *left,
                       rk_transform out[2], bool ok[2]);

#endif
