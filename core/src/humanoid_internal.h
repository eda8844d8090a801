/* Internal: what a joint's name says about the canonical bone it plays (humanoid_names.c), read
 * by the automatic mapping (humanoid.c), and the normalised names the retargeter matches the
 * other joints of two rigs by (retarget_match.c). */
#ifndef RK_HUMANOID_INTERNAL_H
#define RK_HUMANOID_INTERNAL_H

#include <rigkit/humanoid.h>

/* What a joint's name says, side aside. */
typedef enum rk__name_class {
  NC_NONE,
  NC_ROOT,
  NC_HIPS,
  NC_HIP_SIDED, /* "hip": the hips without a side, the upper leg with one (CMU 3ds Max) */
  NC_SPINE,
  NC_NECK,
  NC_HEAD,
  NC_CLAVICLE,
  NC_SHOULDER, /* clavicle in MotionBuilder/Mixamo naming, upper arm in 3ds Max naming */
  NC_UPPER_ARM,
  NC_FOREARM,
  NC_HAND,
  NC_UPPER_LEG,
  NC_LOWER_LEG,
  NC_FOOT,
  NC_TOES,
  NC_HELPER, /* twist/roll/helper joints: never a canonical bone */
} rk__name_class;

typedef enum rk__side_kind { SIDE_NONE, SIDE_LEFT, SIDE_RIGHT } rk__side_kind;

typedef struct rk__name_info {
  rk__name_class cls;
  rk__side_kind side;
} rk__name_info;

/* The class and side a joint's name says: normalised (case, separators, namespaces, prefixes),
 * split into a side and a base looked up among the synonyms of the rig conventions. */
rk__name_info rk__humanoid_classify_name(const char *name);

/* The normalised form of a joint name, "L:", "R:" or "-:" followed by its meaningful tokens
 * (lower case, no separators, namespaces, noise prefixes or side): "mixamorig:LeftUpLeg",
 * "Left_UpLeg" and "upleg.L" all give "L:upleg". The caller frees it with g_free. */
char *rk__humanoid_name_key(const char *name);

/* What a skinned rig's meshes say about its chains (humanoid_chains.c), from the rest positions
 * pos: control[j] when joint j weights no vertex and carries no joint that does (IK targets,
 * poles, sockets); tip[j] (has_tip[j]) the end of a deforming joint with no deforming child: the
 * point of its bone its skin rolls about (a rocker sole's centre; a flat end's far extent along
 * the bone), drop[j] how far its skin reaches below that point at rest. skin NULL or without
 * vertices marks nothing (tip = pos, drop 0). foot_at[j] is a detached foot (a deforming foot
 * hanging from a root-level IK control, not from its leg) standing at the end of the chain that
 * ends at j, which then ends there, or -1. Arrays have the skeleton's joint count. */
struct rk_skin_support;

/* rk__humanoid_skin_marks at the skeleton's rest pose, into arrays it allocates (freed with
 * rk__humanoid_marks_clear). */
typedef struct rk__humanoid_marks {
  bool *control, *has_tip;
  rk_vec3 *tip;
  double *drop;
  int *foot_at;
} rk__humanoid_marks;
void rk__humanoid_marks_at_rest(const rk_skeleton *s, const struct rk_skin_support *skin,
                                rk__humanoid_marks *out);
void rk__humanoid_marks_clear(rk__humanoid_marks *marks);

/* Sets the end of each leg of map that has a lower leg but no foot to where the lower leg's skin
 * ends (as the automatic mapping does; at a detached foot standing there, detached_foot), or
 * marks it not from the skin when skin is NULL or has no vertices below the lower leg; a foot the
 * map names that does not hang from its leg is detached (humanoid_chains.c). */
void rk__humanoid_skin_leg_ends(rk_humanoid_map *map, const rk_skeleton *s,
                                const struct rk_skin_support *skin);

/* Whether joint j's skin tip carries on its bone (within 60 degrees of the bone, at least a tenth
 * of its length out), or j is one of a mirrored pair of legs of one bone (two skinned siblings at
 * one height, on either side of their parent, whose skins hang down to one level): only then does
 * the skin say how far its chain reaches. A socket's prop (a rifle held upright, a shield hanging
 * off the forearm) does not make an arm reach the ground or the rig taller (humanoid_chains.c). */
bool rk__humanoid_tip_extends(const rk_skeleton *s, const rk_vec3 *pos, const rk_vec3 *tip,
                              const bool *has_tip, int j);

/* Whether joint j is a socket's prop: a skinned leaf (its children all control bones) whose skin
 * does not carry on its bone (rk__humanoid_tip_extends): chains follow it last. */
bool rk__humanoid_is_prop(const rk_skeleton *s, const rk_vec3 *pos, const rk_vec3 *tip,
                          const bool *has_tip, const bool *control, int j);

/* rk_humanoid_map_build without rk_humanoid_map_finish (humanoid.c): on failure, map keeps what
 * the topology found before it failed (the hips and legs of a quadruped, the trunk of a rig whose
 * legs have no ankle), for the best guess of a map (humanoid_guess.c). */
bool rk__humanoid_map_topology(const rk_skeleton *s, const rk_humanoid_options *opts,
                               rk_humanoid_map *map, GError **error);
void rk__humanoid_skin_marks(const rk_skeleton *s, const struct rk_skin_support *skin,
                             const rk_vec3 *pos, bool *control, rk_vec3 *tip, bool *has_tip,
                             double *drop, int *foot_at);

/* A leg's last bone above its foot: its lower leg, or for a leg of one bone its upper leg (the
 * whole leg then turns below a knee at the hip). `upper` is RK_BONE_LEFT_UPPER_LEG or
 * RK_BONE_RIGHT_UPPER_LEG (humanoid_check.c). */
int rk__humanoid_leg_knee(const rk_humanoid_map *map, rk_bone upper);

#endif
