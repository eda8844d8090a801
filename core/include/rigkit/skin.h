/* rigkit/skin.h: where a character's skinned body is at a pose, cheaply: its lowest point, of the
 * whole body or of some joints (a foot and its toes, a hand, the seat, a knee), and the sole points
 * of a foot (heel, ball, toe tip), from its meshes or, without one, from its bones.
 *
 * A rk_skin_support is built once from a skeleton and its meshes (rigkit/asset.h: positions in
 * model space at bind time, four joints and weights per vertex, or a rigid mesh attached to one
 * joint; static meshes, neither skinned nor attached, are scenery and left out). Every vertex
 * belongs to the joint it is weighted to most (its dominant joint; the first of equal weights).
 * Of each joint's vertices the support keeps the candidates that can be its lowest point at some
 * pose, each with its four joints and weights, and the queries skin just those, exactly (linear
 * blend skinning: the sum of weight * model * inverse bind * position, the rest model's inverse
 * for a joint without an inverse bind; a rigid mesh follows its joint from the rest pose).
 *
 * Which vertices can be lowest. Vertices that skin identically (the copies meshes make at seams
 * and hard edges) count once. In the rest frame of its dominant joint j (j's motion from rest
 * undone), a vertex weighted to j alone does not move, and the lowest of a rigid set at any pose
 * is a corner of its convex hull. A blended vertex moves in that frame as its other joints turn
 * relative to j: a turn about a joint's rest position o moves a point r by at most 2 |r - o|, and
 * along the chain of joints between j and the other joint the bound compounds (e' = 3 e + 2 |r -
 * o| per joint), so the vertex stays within a reach b of its rest position. The build takes the
 * hull H of the vertices with b <= beta (beta among b's quantiles, the one keeping fewest) and
 * keeps every vertex at most b + beta deep inside H; with beta = 0, of the vertices that do not
 * move only H's corners. Proof for the lowest vertex v at a pose: with d the world's down in j's
 * frame, d.x_v >= d.x_u for every u, so d.v + b_v >= max over H's corners of d.u - beta: v is
 * within b_v + beta of H's supporting plane for d. It holds for every pose whose joints keep their
 * rest translations and scales below the roots (any rotations, any root motion; uniform rest
 * scales). Rounding: the hull takes points within 1e-6 of the set's size or distance from the
 * origin (whichever is larger) as inside it, so the lowest candidate may be that much above the
 * lowest vertex (rigid sets only); a joint whose hull fails its closure and convexity checks, or
 * whose vertices span no volume, keeps them all. The queries themselves are exact at every pose.
 *
 * Queries read the model matrices (rk_fk_models) of the joints the candidates are weighted to,
 * allocate nothing and may run on any number of threads on one support. A joint is skipped when a
 * bound of its candidates (a sphere per weighted joint) is above the best so far.
 *
 * Measured (2 cores shared with other builds, -O2; the spread of several runs; whole body and one
 * foot's subtree at rest and at random poses):
 *   RiggedFigure  322 vertices, 130 candidates, built in 0.2 ms; body 0.3-0.5 us, foot 0.09 us
 *   Fox           434 vertices, 271 candidates, built in 0.5 ms; body 0.3-0.6 us, foot 0.05 us
 *   cmu_char      664 vertices, 216 candidates, built in 0.2 ms; body 0.2-0.4 us, foot 0.05 us
 *   mh_char      1744 vertices, 570 candidates, built in 0.6 ms; body 0.4-1.0 us, foot 0.05 us
 *   game_robot   1128 vertices, 308 candidates, built in 0.4 ms; body 0.2-0.6 us, foot 0.05 us
 * Their triangles cut into 64 (barycentric positions and weights): mh_char 39240 vertices, 7260
 * candidates, 20 ms, body 2.3 us; game_robot 25380, 797, 11 ms, 0.5 us; blended skins keep more
 * (RiggedFigure 11520, 8563, 30 ms, 12 us; foot 4 us).
 *
 * Sole points (rk_sole) are fixed points of the foot or toe joint: the heel on the foot, ball and
 * tip on the toe (the ball sits under the toe joint, so it stays on the floor while the toes are
 * flat and the foot rolls over them), all on the foot without a toe joint. Forward is the rig's
 * facing (rk_humanoid_map.forward), so heel and tip do not depend on the bones' axes.
 *  - From a mesh, on the rest positions of the vertices of the foot's subtree: the sole is the band
 *    within a tenth of the foot's length above its lowest vertex; the heel is at the band's
 *    rear-most point, the ball under the toe joint (without one, three quarters of the way from
 *    heel to tip), the tip at the band's front-most point, each at the lowest height and mean
 *    sideways position of the band's vertices within a tenth of the foot's length of it.
 *  - From bones: the sole is below the toe (or its end, if lower) by a third of the ankle's height
 *    above it (2 cm under a toe 6 cm below the ankle, as in CMU-style and MakeHuman skeletons); the
 *    heel is below the ankle, the ball below the toe joint, the tip below the toe end.
 *
 * Index: rk_skin_support, rk_skin_support_new, rk_skin_support_from_asset, rk_skin_support_free,
 *        rk_skin_support_skeleton, rk_skin_support_vertex_count, rk_skin_support_candidate_count,
 *        rk_skin_point, rk_skin_lowest, rk_skin_lowest_subtree, rk_skin_bound_subtree,
 *        rk_sole_point, RK_SOLE_HEEL, RK_SOLE_BALL, RK_SOLE_TIP, RK_SOLE_POINTS, rk_sole_source,
 *        RK_SOLE_FROM_MESH, RK_SOLE_FROM_BONES, rk_sole, rk_sole_from_mesh, rk_sole_from_bones,
 *        rk_sole_build, rk_sole_at
 */
#ifndef RIGKIT_SKIN_H
#define RIGKIT_SKIN_H

#include <glib.h>
#include <rigkit/asset.h>
#include <rigkit/skeleton.h>

G_BEGIN_DECLS

typedef struct rk_skin_support rk_skin_support;

/** Builds the support of a skeleton's meshes (meshes[mesh_count], each made for this skeleton by
 * rk_mesh_new; borrowed, copied from). Adds a reference to the skeleton. Fails with
 * RK_ERROR_INVALID when a mesh's joint index is beyond the skeleton (a mesh of another skeleton),
 * naming the mesh. The caller frees the result with rk_skin_support_free. */
RK_API rk_skin_support *rk_skin_support_new(rk_skeleton *skeleton, const rk_mesh *const *meshes,
                                            size_t mesh_count, GError **error);
/** rk_skin_support_new on an asset's skeleton and all its meshes (an asset without meshes gives
 * a support with no vertices). Fails as rk_skin_support_new; the caller frees the result. */
RK_API rk_skin_support *rk_skin_support_from_asset(const rk_asset *asset, GError **error);
/** Frees a support and drops its skeleton reference; NULL is a no-op. */
RK_API void rk_skin_support_free(rk_skin_support *support);
/** The support's skeleton (borrowed: valid while the support lives). */
RK_API const rk_skeleton *rk_skin_support_skeleton(const rk_skin_support *support);
/** Number of vertices joint `joint` dominates, or of all vertices for -1 (0 out of range). */
RK_API size_t rk_skin_support_vertex_count(const rk_skin_support *support, int joint);
/** Number of candidates kept for joint `joint`, or for all joints for -1 (0 out of range). */
RK_API size_t rk_skin_support_candidate_count(const rk_skin_support *support, int joint);

/** A skinned vertex at a pose. */
typedef struct rk_skin_point {
  rk_vec3 position; /* model space at the pose */
  int joint;        /* the vertex's dominant joint */
  size_t mesh;      /* the mesh (index among those the support was built from) */
  size_t vertex;    /* the vertex in that mesh */
} rk_skin_point;

/** Finds the lowest (least y) skinned vertex among those dominated by joints[0..n_joints) (NULL:
 * every joint, the whole body) at the pose whose model matrices are models (one per skeleton
 * joint, as rk_fk_models gives; read only for the joints the vertices are weighted to) and writes
 * it to *out. Indices out of range are ignored. Returns false, *out untouched, when those joints
 * dominate no vertex (or the matrices give no finite height). Allocates nothing; thread-safe on a
 * shared support. */
RK_API bool rk_skin_lowest(const rk_skin_support *support, const rk_mat4 *models, const int *joints,
                           size_t n_joints, rk_skin_point *out);
/** rk_skin_lowest over joint `joint` and all its descendants (a foot and its toes, a hand and its
 * fingers). Returns false, *out untouched, when they dominate no vertex or joint is out of
 * range. */
RK_API bool rk_skin_lowest_subtree(const rk_skin_support *support, const rk_mat4 *models, int joint,
                                   rk_skin_point *out);
/** A lower bound of the heights rk_skin_lowest_subtree finds for `joint` at the pose models,
 * from a few spheres per joint without skinning a vertex (callers skip the search where the
 * body is surely above what they test against). -INFINITY (nothing is surely above) when that
 * subtree dominates no vertex, the matrices give no finite bound, or joint is out of range. Allocates nothing; thread-safe on a shared support. */
RK_API double rk_skin_bound_subtree(const rk_skin_support *support, const rk_mat4 *models,
                                    int joint);

/** The sole points of a foot, rear to front. */
typedef enum rk_sole_point {
  RK_SOLE_HEEL, /* rear-most lowest point, on the foot */
  RK_SOLE_BALL, /* the lowest point under the toe joint, on the toe (on the foot without one) */
  RK_SOLE_TIP,  /* front-most point of the sole, on the toe (on the foot without one) */
  RK_SOLE_POINTS
} rk_sole_point;

/** Where a sole's points came from. */
typedef enum rk_sole_source {
  RK_SOLE_FROM_MESH,  /* the vertices of the foot's subtree */
  RK_SOLE_FROM_BONES, /* the ankle, toe and toe end joints */
} rk_sole_source;

/** A foot's sole points as fixed points of its joints (a plain value). */
typedef struct rk_sole {
  int foot; /* the foot (ankle) joint */
  int toe;  /* the toe joint, or -1 */
  rk_sole_source source;
  int joint[RK_SOLE_POINTS];     /* the joint each point moves with */
  rk_vec3 local[RK_SOLE_POINTS]; /* each point in its joint's rest frame */
  rk_vec3 rest[RK_SOLE_POINTS];  /* each point in model space in the rest pose */
} rk_sole;

/** Fills *out with the sole of foot joint `foot` (toe joint `toe` below it, or -1) from the
 * support's vertices dominated by the foot and its descendants in the rest pose; forward is the
 * rig's facing (its horizontal part is used). Fails with RK_ERROR_INVALID (foot out of range,
 * toe not a descendant of foot, forward vertical or zero) or RK_ERROR_NOT_FOUND (no vertex
 * belongs to the foot or below it), naming the joint. */
RK_API bool rk_sole_from_mesh(const rk_skin_support *support, int foot, int toe, rk_vec3 forward,
                              rk_sole *out, GError **error);
/** Fills *out with the sole of foot joint `foot` estimated from the skeleton's bones: heel below
 * the ankle, ball below the toe joint, tip below the toe end (the toe's front-most child; without a
 * toe joint, the foot's front-most child is the toe end and the ball three quarters of the way
 * to it; a toe without children ends 0.4 times the ankle-to-toe distance ahead of it), all at the
 * sole height. Fails with RK_ERROR_INVALID (as rk_sole_from_mesh) or RK_ERROR_NOT_FOUND (neither a
 * toe joint nor a child ahead of the ankle), naming the joint. */
RK_API bool rk_sole_from_bones(const rk_skeleton *skeleton, int foot, int toe, rk_vec3 forward,
                               rk_sole *out, GError **error);
/** rk_sole_from_mesh when the support (which may be NULL) has vertices on the foot or below it,
 * else rk_sole_from_bones on the skeleton (NULL: the support's). Fails as those do. */
RK_API bool rk_sole_build(const rk_skin_support *support, const rk_skeleton *skeleton, int foot,
                          int toe, rk_vec3 forward, rk_sole *out, GError **error);
/** Writes the model-space positions of the sole's points at the pose models (model matrices of
 * the skeleton's joints, rk_fk_models) into out[RK_SOLE_POINTS]. Allocates nothing. */
RK_API void rk_sole_at(const rk_sole *sole, const rk_mat4 *models, rk_vec3 out[RK_SOLE_POINTS]);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(rk_skin_support, rk_skin_support_free)

G_END_DECLS

#endif
