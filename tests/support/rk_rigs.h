/* Rigs built in code that both the Criterion suites and the benchmarks (tests/bench) use, so the
 * numbers of a benchmark and the checks of a suite are about the same rig: the KUKA iiwa 14 (the
 * DH table of tests/data/iiwa14.dh), a 25-joint humanoid with hinge knees and elbows, the
 * 31-joint skeleton of the CMU motion-capture database, and the KDL peer benchmark's humanoid
 * (25 hinges) with a playback clip; and the longer test clips both make by looping a BVH file's
 * motion. No Criterion here: failures come back as NULL with the error set,
 * and every object returned is new and owned by the caller. */
#ifndef RK_RIGS_H
#define RK_RIGS_H

#include <rigkit/rigkit.h>

/** The iiwa 14 standard DH table (a, alpha, d, theta offset, revolute), one row per joint. */
extern const rk_dh_row rk_rig_iiwa14_rows[7];
/** The iiwa 14 joint limits in degrees: joint i moves in [-lim[i], lim[i]]. */
extern const double rk_rig_iiwa14_limit_deg[7];

/** The iiwa as a skeleton the way a robot description places its links (joints `<prefix>1` ..
 * `<prefix>7`, joint i's rest local = DH frame i-1 at q = 0, end site "flange" = frame 7);
 * caller frees. */
rk_skeleton *rk_rig_iiwa14_skeleton(const char *prefix, GError **error);
/** rk_rig_iiwa14_skeleton("joint_") as a tree: each joint revolute about its local z within the
 * limits, the root too (7 DOFs); caller frees. */
rk_tree *rk_rig_iiwa14_tree(GError **error);

/** A 25-joint humanoid, Y-up, metres, facing +Z, left = +X, knees slightly bent at rest (Hips,
 * Spine, Chest, Neck, Head, Clavicle/UpArm/LoArm/Hand_{L,R}, UpLeg/LoLeg/Foot/Toe_{L,R} and the
 * end sites Hand_*_end, Toe_*_end); caller frees. */
rk_skeleton *rk_rig_humanoid_skeleton(GError **error);
/** rk_rig_humanoid_skeleton as a tree: knees (about +x, bending the shin back) and elbows (bending
 * the forearm forward) revolute in [0, 2.5] rad, every other joint a ball, the root free (58
 * DOFs); caller frees. */
rk_tree *rk_rig_humanoid_tree(GError **error);

/** The 31-joint skeleton of the CMU motion-capture database (ASF bone names), in metres; caller
 * frees. */
rk_skeleton *rk_rig_cmu_skeleton(GError **error);

/** One joint of the 30-joint humanoid of the KDL peer benchmark (its kHum table): origin relative to
 * the parent, the axis it turns about (0 x, 1 y, 2 z; -1 for the five fixed ends) and the joint
 * limit in radians (it moves in [-lim, lim]). z is up. */
typedef struct rk_rig_kdl_joint {
  const char *name, *parent;
  double ox, oy, oz;
  int axis;
  double lim;
} rk_rig_kdl_joint;
/** Joints of the KDL humanoid below its pelvis: waist 3, neck 2, arms 4 each, legs 6 each (25
 * hinges) and 5 fixed ends, in depth-first order. */
#define RK_RIG_KDL_JOINTS 30
extern const rk_rig_kdl_joint rk_rig_kdl_humanoid[RK_RIG_KDL_JOINTS];
/** The KDL humanoid as a skeleton: the root "pelvis" (joint 0) and joint k of rk_rig_kdl_humanoid
 * as joint k + 1 (31 joints, the ends flagged as end sites), rest = the origins; caller frees. */
rk_skeleton *rk_rig_kdl_humanoid_skeleton(GError **error);
/** Angle of skeleton joint j (pelvis 0, hinges about their axis, the pelvis about z) at time t of
 * the playback clip below: 0.5 lim sin(2 pi f t + 0.37 j), f = 0.5 + 0.05 (j mod 7) Hz (lim 1.2
 * for the pelvis): a walk's speeds, up to about 7 rad/s. */
double rk_rig_kdl_clip_angle(int joint, double t);
/** The playback clip of the KDL humanoid: `seconds` long at `fps` keys per second, LINEAR keys
 * on the pelvis and every hinge (rotations from rk_rig_kdl_clip_angle) and on the pelvis
 * translation (0.3 sin(t / 2), 0.1 sin t, 0.9 + 0.02 sin(4 pi t)); the ends keep their rest.
 * Caller frees. */
rk_clip *rk_rig_kdl_humanoid_clip(double seconds, double fps, GError **error);

/** Writes the BVH file src to dst with its motion lines looped to `frames` frames (a longer clip
 * of the same skeleton and motion); false when src cannot be read, has no `Frames:` line followed
 * by `Frame Time:`, or dst cannot be written. */
bool rk_test_write_looped_bvh(const char *src, const char *dst, size_t frames);

#endif
