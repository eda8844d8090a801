#!/usr/bin/env python3
"""Writes game_kick.glb: a small game rig whose clip sends the mesh of a swinging foot through the
floor while every joint stays above it (python3, standard library).

The rig is game_posed.glb's (make_posed_rig.py: Y up, metres, facing +Z, 1.75 m; two-bone legs
UpperLeg - LowerLeg with no foot bone under the shin; the feet Foot.L/Foot.R deforming blocks
parented to Root beside pole targets Pole.L/Pole.R; one skinned mesh of boxes), with its node TRS
the bind pose. The clip `kick` (2 s, 24 fps, linear) keys the right leg only: the thigh swings 20
degrees back and the knee bends 10 degrees while the foot, keyed where the shin ends (as a game
exporter bakes an IK control), pitches its toes down by up to 70 degrees: at the swing's height
(1 s) the ankle stands 0.13 m above the floor and the foot block's toe edge 54 mm through it. The
left leg stands at rest, its foot on the floor. The same as any game character whose big feet
dip through the floor as they swing (the source's own doing, no contact there): a retarget of
the clip onto this rig must give it back unchanged.

    python3 tests/data/generated/make_kick_rig.py [OUT.glb]
"""
import math
import os
import sys

import make_posed_rig as rig

HERE = os.path.dirname(os.path.abspath(__file__))
FRAMES, FPS = 49, 24.0
THIGH, KNEE, TOES = 20.0, 10.0, 70.0


def kick_keys():
    """The kick's keys: times, and per keyed node its rotations (and the foot's translations)."""
    times = [k / FPS for k in range(FRAMES)]
    world = rig.bind_world()
    hip = [world["UpperLeg.R"][k][3] for k in range(3)]
    thigh = -world["LowerLeg.R"][1][3] + world["UpperLeg.R"][1][3]
    shin = -world["LowerLeg.R_end"][1][3] + world["LowerLeg.R"][1][3]
    rots = {"UpperLeg.R": [], "LowerLeg.R": [], "Foot.R": []}
    foot_t = []
    for t in times:
        s = math.sin(math.pi * t / 2.0) ** 2
        a, b = math.radians(THIGH * s), math.radians((THIGH + KNEE) * s)
        rots["UpperLeg.R"].append(rig.qaxis(rig.X, THIGH * s))
        rots["LowerLeg.R"].append(rig.qaxis(rig.X, KNEE * s))
        rots["Foot.R"].append(rig.qaxis(rig.X, TOES * s))
        # Rotating -Y about +X by a positive angle swings it back (-Z).
        end = (hip[0], hip[1] - thigh * math.cos(a) - shin * math.cos(b),
               hip[2] - thigh * math.sin(a) - shin * math.sin(b))
        foot_t.append(end)
    return times, rots, foot_t


def build():
    # The bind pose is the node pose; the kick replaces the posed rig's idle.
    rig.JOINTS[:] = [(n, p, t, rig.ID, w) for n, p, t, _, w in rig.JOINTS]
    times, rots, foot_t = kick_keys()

    def keys():
        return times, None, rots, {"Foot.R": foot_t}

    return rig.build(keys, "kick", "rigkit tests/data/generated/make_kick_rig.py")


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "game_kick.glb")
    with open(out, "wb") as fh:
        fh.write(build())
    print("wrote " + out)
