#!/usr/bin/env python3
"""Writes the BVH files of samples/textbook (python3 stdlib only; run from anywhere):

  preorder_robot.bvh  the planar robot tree stored in preorder: node 0 at (3, 3), nodes 1 and 2 on
                      node 0 at (1.5, 4) and (-1.5, 4), node 3 on node 1 at (3, 0); one frame with
                      the pose (14, -31, 70) deg of nodes 1, 3, 2 (file order).
  junction_tree.bvh   the planar six-link tree with a junction: the ground, A1 hinged to it, A2 a
                      junction link carrying a lower chain A5-A6 (added first) and an upper chain
                      A3-A4 whose direction on A2 is 45 deg above the lower one; link lengths
                      a1 = 1, a2 = sqrt 2 (upper), 1 (lower), a5 = 1; a clip turning every joint
                      about z (the evidence that types them as hinges).
  ring.bvh            the closed planar ring of ten links on a ground link Base (a free root), cut
                      at vertex 5 of a regular 11-gon of circumradius 1 where the tips A5_End and
                      A6_End meet; a clip in which the root moves and the ten joints turn about z
                      with the tips kept together (the position closure holds on every frame).

Planar rigs lie in the XY plane, Z the hinge axis; lengths are in the file's units (pass
--unit m, or let rigkit take a planar mechanism's units as metres).
"""
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def num(v):
    s = "%.9f" % v
    s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


class Writer:
    def __init__(self):
        self.lines = ["HIERARCHY"]
        self.depth = 0
        self.order = []  # joint names in file order (with channels)

    def open(self, kind, name, offset, channels):
        pad = "  " * self.depth
        self.lines.append("%s%s %s" % (pad, kind, name))
        self.lines.append(pad + "{")
        self.lines.append("%s  OFFSET %s" % (pad, " ".join(num(v) for v in offset)))
        self.lines.append("%s  CHANNELS %d %s" % (pad, len(channels), " ".join(channels)))
        self.depth += 1
        self.order.append(name)

    def end_site(self, offset):
        pad = "  " * self.depth
        self.lines += [pad + "End Site", pad + "{",
                       "%s  OFFSET %s" % (pad, " ".join(num(v) for v in offset)), pad + "}"]

    def close(self):
        self.depth -= 1
        self.lines.append("  " * self.depth + "}")

    def motion(self, frames, frame_time):
        self.lines += ["MOTION", "Frames: %d" % len(frames), "Frame Time: %s" % num(frame_time)]
        self.lines += [" ".join(num(v) for v in f) for f in frames]

    def save(self, name):
        with open(os.path.join(HERE, name), "w") as f:
            f.write("\n".join(self.lines) + "\n")


ROT = ["Zrotation", "Xrotation", "Yrotation"]
ROOT6 = ["Xposition", "Yposition", "Zposition"] + ROT


def preorder_robot():
    w = Writer()
    w.open("ROOT", "n0", (3, 3, 0), ROT)
    w.open("JOINT", "n1", (1.5, 4, 0), ROT)
    w.open("JOINT", "n3", (3, 0, 0), ROT)
    w.end_site((1, 0, 0))
    w.close()
    w.close()
    w.open("JOINT", "n2", (-1.5, 4, 0), ROT)
    w.end_site((0, 1, 0))
    w.close()
    w.close()
    # Channels in file order n0, n1, n3, n2: the pose vector (14, -31, 70) of nodes 1, 3, 2.
    w.motion([[0, 0, 0, 14, 0, 0, -31, 0, 0, 70, 0, 0]], 1.0)
    w.save("preorder_robot.bvh")


def junction_tree():
    w = Writer()
    w.open("ROOT", "Ground", (0, 0, 0), ROT)
    w.open("JOINT", "A1", (0, 0, 0), ROT)
    w.open("JOINT", "A2", (1, 0, 0), ROT)        # a1 = 1
    w.open("JOINT", "A5", (1, 0, 0), ROT)        # lower branch of A2: 1 along x
    w.open("JOINT", "A6", (1, 0, 0), ROT)        # a5 = 1
    w.end_site((1, 0, 0))
    w.close()
    w.close()
    w.open("JOINT", "A3", (1, 1, 0), ROT)        # upper branch: a2 = sqrt 2 at 45 deg
    w.open("JOINT", "A4", (1, 1, 0), ROT)
    w.end_site((1, 1, 0))
    w.close()
    w.close()
    w.close()
    w.close()
    w.close()
    # File order Ground, A1, A2, A5, A6, A3, A4: the ground still, every joint turning about z
    # from the rest pose by up to 20 deg (positive angles: the fitted axes are +z).
    frames = []
    for k in range(11):
        a = 2.0 * k
        frames.append([0, 0, 0] + sum(([a * (1 + 0.1 * j), 0, 0] for j in range(6)), []))
    w.motion(frames, 1.0 / 30.0)
    w.save("junction_tree.bvh")


def vertex(k):
    a = 2.0 * math.pi * k / 11.0
    return (math.cos(a), math.sin(a))


def rot(v, a):
    c, s = math.cos(a), math.sin(a)
    return (c * v[0] - s * v[1], s * v[0] + c * v[1])


def add(a, b):
    return (a[0] + b[0], a[1] + b[1])


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1])


def chain(ks, angles):
    """Joints at the rest vertices ks (from the ground outwards), turned by angles: the position
    of the last joint and the absolute turn of the last link before its own joint."""
    p, turn = vertex(ks[0]), 0.0
    for i in range(1, len(ks)):
        turn += angles[i - 1]
        p = add(p, rot(sub(vertex(ks[i]), vertex(ks[i - 1])), turn))
    return p, turn


def circle_meet(p, q, r, near):
    """The point at distance r from both p and q nearest to `near`."""
    d = math.dist(p, q)
    h = math.sqrt(max(r * r - d * d / 4.0, 0.0))
    m = ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)
    u = ((q[0] - p[0]) / d, (q[1] - p[1]) / d)
    cands = [(m[0] - h * u[1], m[1] + h * u[0]), (m[0] + h * u[1], m[1] - h * u[0])]
    return min(cands, key=lambda c: math.dist(c, near))


def ring():
    w = Writer()
    w.open("ROOT", "Base", (0, 0, 0), ROOT6)
    for side in range(2):
        ks = [0, 1, 2, 3, 4] if side == 0 else [10, 9, 8, 7, 6]
        at = (0.0, 0.0)
        for i, k in enumerate(ks):
            v = vertex(k)
            w.open("JOINT", "A%d" % (k + 1 if side == 0 else k), (v[0] - at[0], v[1] - at[1], 0), ROT)
            at = v
        t = vertex(5)
        w.end_site((t[0] - at[0], t[1] - at[1], 0))
        for _ in ks:
            w.close()
    w.close()
    L = math.dist(vertex(5), vertex(4))
    frames, tip = [], vertex(5)
    n = 61
    for f in range(n):
        s = f / (n - 1)
        # Eight joints driven (A1-A4, A10-A7), A5 and A6 solved so the tips meet.
        drive = [math.radians(12 + 2 * j) * math.sin(math.pi * s * (1 + 0.25 * j)) ** 2
                 for j in range(8)]
        left, right = drive[:4], drive[4:]
        p4, turn4 = chain([0, 1, 2, 3, 4], left)
        p6, turn6 = chain([10, 9, 8, 7, 6], right)
        tip = circle_meet(p4, p6, L, tip)
        rest5 = sub(vertex(5), vertex(4))
        rest6 = sub(vertex(5), vertex(6))
        a5 = math.atan2(*reversed(sub(tip, p4))) - math.atan2(*reversed(rest5)) - turn4
        a6 = math.atan2(*reversed(sub(tip, p6))) - math.atan2(*reversed(rest6)) - turn6
        a5 = math.remainder(a5, 2 * math.pi)
        a6 = math.remainder(a6, 2 * math.pi)
        root = [0.3 * s, 0.1 * math.sin(2 * math.pi * s), 0.05 * s,
                25 * s, 5 * math.sin(math.pi * s), 0]
        row = list(root)
        for a in left + [a5] + right + [a6]:
            row += [math.degrees(a), 0, 0]
        frames.append(row)
    w.motion(frames, 1.0 / 30.0)
    w.save("ring.bvh")


if __name__ == "__main__":
    preorder_robot()
    junction_tree()
    ring()
