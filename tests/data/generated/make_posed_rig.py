#!/usr/bin/env python3
"""Writes game_posed.glb: a small game rig whose node TRS is a posed frame, not the bind pose of
its inverse bind matrices, with a clip that keys only some channels (python3, standard library).

The rig (Y up, metres, facing +Z, 1.75 m): Root - Hips - Spine - Chest - Neck - Head; Chest -
Shoulder.L - UpperArm.L - LowerArm.L - Hand.L (right likewise); Hips - UpperLeg.L - LowerLeg.L
(no foot bone under the shin); the feet Foot.L/Foot.R are deforming bones (a foot block each)
parented to Root beside pole targets Pole.L/Pole.R (IK controls, weighting nothing). One skinned
mesh of boxes, each box weighted to one bone.

The inverse bind matrices are those of a T-pose (upright, arms level). The nodes' TRS are another
pose: the hips turned 20 degrees forward, the thighs turned back by as much (the legs stand
upright, the shins ending on the feet), the spine and neck bent, the arms hanging. The clip
`idle` (2 s, 24 fps, linear) keys only the hips' translation (a bob) and the legs' rotations,
authored against the bind pose's upright hips (as an exporter that drops channels equal to the
bind pose writes them): by glTF's rule the unkeyed channels hold the node TRS, so the hips keep
their 20 degrees, the legs swing forward with them and the shins end 54 mm above and 0.3 m from
the feet, which stay where the node TRS put them (their channels are not keyed). A retarget of
the clip onto this rig must give it back unchanged.

    python3 tests/data/generated/make_posed_rig.py [OUT.glb]
"""
import json
import math
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def qaxis(axis, deg):
    a = math.radians(deg) / 2
    s = math.sin(a)
    return (axis[0] * s, axis[1] * s, axis[2] * s, math.cos(a))


def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz)


def qmat(q):
    x, y, z, w = q
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]


def trs(t, q):
    r = qmat(q)
    return [r[0] + [t[0]], r[1] + [t[1]], r[2] + [t[2]], [0, 0, 0, 1]]


def mmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(4)) for j in range(4)] for i in range(4)]


def rigid_inverse(m):
    r = [[m[j][i] for j in range(3)] for i in range(3)]
    t = [-sum(r[i][k] * m[k][3] for k in range(3)) for i in range(3)]
    return [r[0] + [t[0]], r[1] + [t[1]], r[2] + [t[2]], [0, 0, 0, 1]]


X, Z = (1, 0, 0), (0, 0, 1)
ID = (0, 0, 0, 1)
# name, parent, bind translation (bind rotations are the identity), posed rotation, weighted.
JOINTS = [
    ("Root", None, (0, 0, 0), ID, False),
    ("Hips", "Root", (0, 0.95, 0), qaxis(X, 20), True),
    ("Spine", "Hips", (0, 0.12, 0), qaxis(X, -12), True),
    ("Chest", "Spine", (0, 0.22, 0), ID, True),
    ("Neck", "Chest", (0, 0.25, 0), qaxis(X, -6), True),
    ("Head", "Neck", (0, 0.1, 0), ID, True),
    ("Head_end", "Head", (0, 0.25, 0), ID, False),
]
for side, sx in (("L", 1), ("R", -1)):
    JOINTS += [
        ("Shoulder." + side, "Chest", (sx * 0.06, 0.2, 0), ID, True),
        ("UpperArm." + side, "Shoulder." + side, (sx * 0.12, 0, 0), qaxis(Z, -sx * 75), True),
        ("LowerArm." + side, "UpperArm." + side, (sx * 0.28, 0, 0), qaxis(Z, -sx * 10), True),
        ("Hand." + side, "LowerArm." + side, (sx * 0.26, 0, 0), ID, True),
        ("Hand." + side + "_end", "Hand." + side, (sx * 0.16, 0, 0), ID, False),
        ("UpperLeg." + side, "Hips", (sx * 0.15, -0.05, 0), qaxis(X, -20), True),
        ("LowerLeg." + side, "UpperLeg." + side, (0, -0.43, 0), ID, True),
        ("LowerLeg." + side + "_end", "LowerLeg." + side, (0, -0.42, 0), ID, False),
    ]
for side, sx in (("L", 1), ("R", -1)):
    JOINTS += [
        ("Foot." + side, "Root", (sx * 0.15, 0.05, 0), ID, True),
        ("Foot." + side + "_end", "Foot." + side, (0, 0, 0.16), ID, False),
        ("Pole." + side, "Root", (sx * 0.15, 0.5, 0.5), ID, False),
    ]
NAMES = [j[0] for j in JOINTS]
INDEX = {n: i for i, n in enumerate(NAMES)}


def bind_world():
    out = {}
    for name, parent, t, _, _ in JOINTS:
        local = trs(t, ID)
        out[name] = mmul(out[parent], local) if parent else local
    return out


def boxes(world):
    """Box vertices (bind pose, model space) and triangles, one box per weighted bone: from the
    joint to its child (the foot block from heel to toe, its sole on the floor)."""
    children = {}
    for name, parent, _, _, _ in JOINTS:
        children.setdefault(parent, []).append(name)
    pos, joint, tris = [], [], []
    for i, (name, _, _, _, weighted) in enumerate(JOINTS):
        if not weighted:
            continue
        a = [world[name][k][3] for k in range(3)]
        if name.startswith("Foot."):
            lo = [a[0] - 0.05, 0.0, a[2] - 0.05]
            hi = [a[0] + 0.05, 0.09, a[2] + 0.18]
        else:
            b = [world[children[name][0]][k][3] for k in range(3)]
            w = 0.1 if name in ("Hips", "Spine", "Chest", "Head") else 0.04
            lo = [min(a[k], b[k]) - w for k in range(3)]
            hi = [max(a[k], b[k]) + w for k in range(3)]
            if name.startswith("LowerLeg."):
                lo[1] = b[1]  # the shin ends at the ankle, over the foot block
        base = len(pos)
        for c in range(8):
            pos.append((hi[0] if c & 1 else lo[0], hi[1] if c & 2 else lo[1], hi[2] if c & 4 else lo[2]))
            joint.append(i)
        for q in ((0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)):
            tris += [base + q[0], base + q[1], base + q[2], base + q[0], base + q[2], base + q[3]]
    return pos, joint, tris


def clip_keys():
    """The idle clip's keys: times, the hips' translations, and per leg bone its rotations."""
    n = 49
    times = [k / 24.0 for k in range(n)]
    hips = [(0, 0.95 - 0.008 * (1 - math.cos(2 * math.pi * t / 2.0)) / 2, 0) for t in times]
    rots = {}
    for side in ("L", "R"):
        rots["UpperLeg." + side] = [qaxis(X, 2.0 * math.sin(2 * math.pi * t / 2.0)) for t in times]
        rots["LowerLeg." + side] = [qaxis(X, -3.0 * math.sin(2 * math.pi * t / 2.0)) for t in times]
    return times, hips, rots


class Buffer:
    def __init__(self):
        self.data = bytearray()
        self.views, self.accessors = [], []

    def add(self, fmt, rows, gltf_type, component, target=None, minmax=False):
        while len(self.data) % 4:
            self.data.append(0)
        start = len(self.data)
        for r in rows:
            self.data += struct.pack("<" + fmt * len(r), *r)
        view = {"buffer": 0, "byteOffset": start, "byteLength": len(self.data) - start}
        if target:
            view["target"] = target
        self.views.append(view)
        acc = {"bufferView": len(self.views) - 1, "componentType": component, "count": len(rows),
               "type": gltf_type}
        if minmax:
            acc["min"] = [min(r[k] for r in rows) for k in range(len(rows[0]))]
            acc["max"] = [max(r[k] for r in rows) for k in range(len(rows[0]))]
        self.accessors.append(acc)
        return len(self.accessors) - 1


def idle_keys():
    """The idle clip's keys as build takes them: times, hips' translations, rotations per node,
    translations per other node."""
    times, hips, rots = clip_keys()
    return times, hips, rots, {}


def build(keys=idle_keys, name="idle", generator="rigkit tests/data/generated/make_posed_rig.py"):
    """The .glb bytes of the rig with one clip `name` of keys() (make_kick_rig.py makes another
    clip on this rig)."""
    world = bind_world()
    buf = Buffer()
    pos, joint, tris = boxes(world)
    a_pos = buf.add("f", pos, "VEC3", 5126, 34962, minmax=True)
    a_joints = buf.add("H", [(j, 0, 0, 0) for j in joint], "VEC4", 5123, 34962)
    a_weights = buf.add("f", [(1.0, 0.0, 0.0, 0.0)] * len(joint), "VEC4", 5126, 34962)
    a_idx = buf.add("H", [(t,) for t in tris], "SCALAR", 5123, 34963)
    ibm = [tuple(rigid_inverse(world[n])[r][c] for c in range(4) for r in range(4)) for n in NAMES]
    a_ibm = buf.add("f", ibm, "MAT4", 5126)
    times, hips, rots, moves = keys()
    a_time = buf.add("f", [(t,) for t in times], "SCALAR", 5126, minmax=True)
    samplers, channels = [], []

    def channel(node, path, rows, kind):
        samplers.append({"input": a_time, "output": buf.add("f", rows, kind, 5126),
                         "interpolation": "LINEAR"})
        channels.append({"sampler": len(samplers) - 1, "target": {"node": INDEX[node], "path": path}})

    if hips:
        channel("Hips", "translation", hips, "VEC3")
    for node, q in rots.items():
        channel(node, "rotation", q, "VEC4")
    for node, t in moves.items():
        channel(node, "translation", t, "VEC3")
    nodes = []
    for joint, parent, t, posed, _ in JOINTS:
        node = {"name": joint, "translation": list(t)}
        if posed != ID:
            node["rotation"] = list(posed)
        kids = [INDEX[c[0]] for c in JOINTS if c[1] == joint]
        if kids:
            node["children"] = kids
        nodes.append(node)
    nodes.append({"name": "Body", "mesh": 0, "skin": 0})
    doc = {
        "asset": {"version": "2.0", "generator": generator},
        "scene": 0,
        "scenes": [{"nodes": [INDEX["Root"], len(nodes) - 1]}],
        "nodes": nodes,
        "meshes": [{"name": "Body", "primitives": [{"attributes": {
            "POSITION": a_pos, "JOINTS_0": a_joints, "WEIGHTS_0": a_weights}, "indices": a_idx}]}],
        "skins": [{"joints": list(range(len(JOINTS))), "inverseBindMatrices": a_ibm,
                   "skeleton": INDEX["Root"]}],
        "animations": [{"name": name, "samplers": samplers, "channels": channels}],
        "buffers": [{"byteLength": 0}],
        "bufferViews": buf.views,
        "accessors": buf.accessors,
    }
    while len(buf.data) % 4:
        buf.data.append(0)
    doc["buffers"][0]["byteLength"] = len(buf.data)
    js = json.dumps(doc, separators=(",", ":")).encode()
    js += b" " * ((4 - len(js) % 4) % 4)
    total = 12 + 8 + len(js) + 8 + len(buf.data)
    return (struct.pack("<III", 0x46546C67, 2, total) + struct.pack("<II", len(js), 0x4E4F534A) +
            js + struct.pack("<II", len(buf.data), 0x004E4942) + bytes(buf.data))


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "game_posed.glb")
    with open(out, "wb") as fh:
        fh.write(build())
    print("wrote " + out)
