#!/usr/bin/env python3
"""Writes rigkit's generated mocap clips (BVH) and their ground truth (<clip>.truth.json).

Every motion here is kinematic and made by the gait code below: a pelvis path, foot paths built
from rigid rolls about the heel, the ball and the toe tip (so a planted point is still to the last
bit), analytic two-bone leg and arm IK, spine counter-rotation and small rotations on the helper
joints (hip joints, lower back, clavicles, neck). Nothing is random. python3, standard library only.

    python3 tests/data/generated/make_clips.py             # write every clip into this folder
    python3 tests/data/generated/make_clips.py --check     # also read them back and check them
    python3 tests/data/generated/make_clips.py --check --rigkit build/bin/rigkit

--check reads each written BVH back with its own parser and FK and asserts: planted points move
< 0.5 mm per frame, no joint and no contact point below the floor by more than 1 mm, every touching
body part within 1 mm of the floor, rotations continuous. --rigkit also compares the world joint
positions of `rigkit fk --json` with this FK at a few frames (within 0.1 mm).

Internally everything is computed in one frame: metres, Y up, the character facing +Z, its left
+X. Each skeleton converts to its file's axes and unit on writing. A joint's pose is its world
rotation D relative to the rest pose (BVH rest = all rotations zero), so p(child) = p(parent) +
D(parent) (rest(child) - rest(parent)) and the local rotation is D(parent)^T D(child).
"""
import argparse
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, '..', '..', '..'))
CMU_UNIT = 0.0254 / 0.45          # metres per CMU BVH unit ((1/0.45) inch)
I3 = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
RAD = math.pi / 180.0


# ----------------------------------------------------------------------------------------------
# Vectors (tuples) and 3x3 matrices (tuples of rows)

def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def mul(a, s):
    return (a[0] * s, a[1] * s, a[2] * s)


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def length(a):
    return math.sqrt(dot(a, a))


def unit(a):
    n = length(a)
    return (a[0] / n, a[1] / n, a[2] / n)


def lerp(a, b, s):
    return (a[0] + (b[0] - a[0]) * s, a[1] + (b[1] - a[1]) * s, a[2] + (b[2] - a[2]) * s)


def mmul(a, b):
    return tuple(tuple(sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)) for i in range(3))


def mvec(a, v):
    return (a[0][0] * v[0] + a[0][1] * v[1] + a[0][2] * v[2],
            a[1][0] * v[0] + a[1][1] * v[1] + a[1][2] * v[2],
            a[2][0] * v[0] + a[2][1] * v[1] + a[2][2] * v[2])


def mT(a):
    return tuple(tuple(a[j][i] for j in range(3)) for i in range(3))


def rot(axis, ang):
    """Rotation by ang radians about a unit axis (right hand)."""
    x, y, z = axis
    c, s = math.cos(ang), math.sin(ang)
    t = 1 - c
    return ((t * x * x + c, t * x * y - s * z, t * x * z + s * y),
            (t * x * y + s * z, t * y * y + c, t * y * z - s * x),
            (t * x * z - s * y, t * y * z + s * x, t * z * z + c))


def rx(a):
    return rot((1.0, 0.0, 0.0), a)


def ry(a):
    return rot((0.0, 1.0, 0.0), a)


def rz(a):
    return rot((0.0, 0.0, 1.0), a)


def cols(u, v, w):
    return ((u[0], v[0], w[0]), (u[1], v[1], w[1]), (u[2], v[2], w[2]))


def frame(u, n):
    """Orthonormal frame with first axis u and second axis n made orthogonal to u."""
    u = unit(u)
    n = unit(sub(n, mul(u, dot(n, u))))
    return cols(u, n, cross(u, n))


def quat(m):
    """Unit quaternion (w, x, y, z) of a rotation matrix."""
    t = m[0][0] + m[1][1] + m[2][2]
    if t > 0:
        s = math.sqrt(t + 1.0) * 2
        q = (0.25 * s, (m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s)
    elif m[0][0] > m[1][1] and m[0][0] > m[2][2]:
        s = math.sqrt(1.0 + m[0][0] - m[1][1] - m[2][2]) * 2
        q = ((m[2][1] - m[1][2]) / s, 0.25 * s, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s)
    elif m[1][1] > m[2][2]:
        s = math.sqrt(1.0 + m[1][1] - m[0][0] - m[2][2]) * 2
        q = ((m[0][2] - m[2][0]) / s, (m[0][1] + m[1][0]) / s, 0.25 * s, (m[1][2] + m[2][1]) / s)
    else:
        s = math.sqrt(1.0 + m[2][2] - m[0][0] - m[1][1]) * 2
        q = ((m[1][0] - m[0][1]) / s, (m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, 0.25 * s)
    n = math.sqrt(sum(c * c for c in q))
    return tuple(c / n for c in q)


def qmat(q):
    w, x, y, z = q
    return ((1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
            (2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
            (2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))


def slerp(a, b, s):
    """Spherical interpolation between two rotation matrices."""
    qa, qb = quat(a), quat(b)
    d = sum(x * y for x, y in zip(qa, qb))
    if d < 0:
        qb, d = tuple(-c for c in qb), -d
    if d > 0.9999:
        q = tuple(x + (y - x) * s for x, y in zip(qa, qb))
    else:
        th = math.acos(d)
        wa, wb = math.sin((1 - s) * th) / math.sin(th), math.sin(s * th) / math.sin(th)
        q = tuple(wa * x + wb * y for x, y in zip(qa, qb))
    n = math.sqrt(sum(c * c for c in q))
    return qmat(tuple(c / n for c in q))


def power(m, s):
    """The rotation m scaled to the fraction s of its angle (same axis)."""
    return slerp(I3, m, s)


def angle_between(a, b):
    """Angle in radians of the rotation a^T b."""
    r = mmul(mT(a), b)
    return math.acos(max(-1.0, min(1.0, (r[0][0] + r[1][1] + r[2][2] - 1) / 2)))


def smooth(u):
    """Minimum-jerk ease 0 -> 1 (zero velocity and acceleration at both ends)."""
    u = max(0.0, min(1.0, u))
    return u * u * u * (10 - 15 * u + 6 * u * u)


def hermite(t, keys):
    """Cubic Hermite through keys [(time, value, slope)], held constant outside."""
    if t <= keys[0][0]:
        return keys[0][1]
    if t >= keys[-1][0]:
        return keys[-1][1]
    for (t0, p0, m0), (t1, p1, m1) in zip(keys, keys[1:]):
        if t0 <= t <= t1:
            h = t1 - t0
            u = (t - t0) / h
            return ((2 * u ** 3 - 3 * u ** 2 + 1) * p0 + (u ** 3 - 2 * u ** 2 + u) * h * m0 +
                    (-2 * u ** 3 + 3 * u ** 2) * p1 + (u ** 3 - u ** 2) * h * m1)
    raise AssertionError


def ease_keys(t, keys):
    """Piecewise minimum-jerk ease through keys [(time, value)], held constant outside."""
    if t <= keys[0][0]:
        return keys[0][1]
    for (t0, v0), (t1, v1) in zip(keys, keys[1:]):
        if t <= t1:
            return v0 + (v1 - v0) * smooth((t - t0) / (t1 - t0))
    return keys[-1][1]


# Euler angles. BVH channels "Zrotation Yrotation Xrotation" mean R = Rz(z) Ry(y) Rx(x).
AXIS = {'X': 0, 'Y': 1, 'Z': 2}


def euler_matrix(order, angles_deg):
    m = I3
    for ax, a in zip(order, angles_deg):
        m = mmul(m, (rx, ry, rz)[AXIS[ax]](a * RAD))
    return m


def euler_angles(m, order, prev=None):
    """Angles in degrees (in channel order) of R = R_a R_b R_c; of the two solutions and their
    360-degree shifts, the one closest to prev, so that channels stay continuous."""
    i, j, k = (AXIS[c] for c in order)
    s = 1.0 if (i, j, k) in ((0, 1, 2), (1, 2, 0), (2, 0, 1)) else -1.0
    b = math.asin(max(-1.0, min(1.0, s * m[i][k])))
    a = math.atan2(-s * m[j][k], m[k][k])
    c = math.atan2(-s * m[i][j], m[i][i])
    sols = [(a, b, c), (a + math.pi, math.pi - b, c + math.pi)]
    sols = [tuple(x / RAD for x in sol) for sol in sols]
    if prev is None:
        best = sols[0]
        return tuple(((x + 180) % 360) - 180 for x in best)
    best, bestd = None, None
    for sol in sols:
        cand = tuple(x + 360 * round((p - x) / 360) for x, p in zip(sol, prev))
        d = sum((x - p) ** 2 for x, p in zip(cand, prev))
        if bestd is None or d < bestd:
            best, bestd = cand, d
    return best


# ----------------------------------------------------------------------------------------------
# BVH hierarchies

class Joint:
    def __init__(self, name, parent, offset, channels, end=False):
        self.name, self.parent, self.offset, self.channels, self.end = name, parent, offset, channels, end


def parse_hierarchy(text):
    """Joints (parents first) of a BVH HIERARCHY section; End Sites are named <parent>_End as
    rigkit names them."""
    toks = text.split()
    joints, stack, i = [], [], 0
    pending = None
    while i < len(toks):
        t = toks[i]
        if t in ('ROOT', 'JOINT'):
            pending = (toks[i + 1], False)
            i += 2
        elif t == 'End':
            pending = (joints[stack[-1]].name + '_End', True)
            i += 2
        elif t == '{':
            name, end = pending
            joints.append(Joint(name, stack[-1] if stack else -1, None, [], end))
            stack.append(len(joints) - 1)
            i += 1
        elif t == '}':
            stack.pop()
            i += 1
        elif t == 'OFFSET':
            joints[stack[-1]].offset = tuple(float(x) for x in toks[i + 1:i + 4])
            i += 4
        elif t == 'CHANNELS':
            n = int(toks[i + 1])
            joints[stack[-1]].channels = toks[i + 2:i + 2 + n]
            i += 2 + n
        elif t == 'HIERARCHY':
            i += 1
        else:
            raise ValueError('unexpected token %r in hierarchy' % t)
    return joints


def read_bvh(path):
    with open(path) as f:
        text = f.read()
    head, motion = text.split('MOTION', 1)
    joints = parse_hierarchy(head)
    lines = motion.strip().splitlines()
    nframes = int(lines[0].split(':')[1])
    ftime = float(lines[1].split(':')[1])
    frames = [[float(x) for x in ln.split()] for ln in lines[2:2 + nframes]]
    return joints, ftime, frames


class Convention:
    """How a skeleton's file relates to the internal frame: file = M internal / unit."""

    def __init__(self, name, m, unit, root_add_offset):
        self.name, self.m, self.unit, self.root_add_offset = name, m, unit, root_add_offset

    def to_file_vec(self, v):
        return mul(mvec(self.m, v), 1.0 / self.unit)

    def from_file_vec(self, v):
        return mvec(mT(self.m), mul(v, self.unit))

    def to_file_rot(self, r):
        return mmul(mmul(self.m, r), mT(self.m))

    def from_file_rot(self, r):
        return mmul(mmul(mT(self.m), r), self.m)


YUP = Convention('Y-up', I3, CMU_UNIT, False)
ZUP_DM = Convention('Z-up', ((1.0, 0.0, 0.0), (0.0, 0.0, -1.0), (0.0, 1.0, 0.0)), 0.1, True)


def file_fk(joints, conv, values):
    """World positions (internal frame, metres) and rotations of every joint for one frame line
    of a BVH file; the root OFFSET is added to its position channels when conv says so."""
    pos, rots = [None] * len(joints), [None] * len(joints)
    k = 0
    for j, jt in enumerate(joints):
        r = I3
        tr = (0.0, 0.0, 0.0)
        order = ''
        angles = []
        for ch in jt.channels:
            v = values[k]
            k += 1
            if ch.endswith('position'):
                tr = tuple(v if AXIS[ch[0]] == a else tr[a] for a in range(3))
            else:
                order += ch[0]
                angles.append(v)
        if order:
            r = euler_matrix(order, angles)
        if jt.parent < 0:
            p = add(tr, jt.offset) if conv.root_add_offset else tr
            pos[j] = p
            rots[j] = r
        else:
            pos[j] = add(pos[jt.parent], mvec(rots[jt.parent], jt.offset))
            rots[j] = mmul(rots[jt.parent], r)
    return ([conv.from_file_vec(p) for p in pos], [conv.from_file_rot(r) for r in rots])


# ----------------------------------------------------------------------------------------------
# Skeletons

def cmu_hierarchy():
    """Skeleton A: the 31-joint topology and names of the CMU BVH conversions, this project's own
    proportions (a 1.75 m person, metres here), written in CMU units, Y up, facing +Z."""
    leg = [('HipJoint', (0, 0, 0)), ('UpLeg', (0.090, -0.072, 0.020)), ('Leg', (0, -0.420, 0)),
           ('Foot', (0, -0.413, -0.008)), ('ToeBase', (0, -0.060, 0.138)), (None, (0, 0, 0.055))]
    arm = [('Shoulder', (0, 0, 0)), ('Arm', (0.175, 0.150, -0.025)), ('ForeArm', (0.295, 0, 0)),
           ('Hand', (0.255, 0, 0))]
    rot3 = 'CHANNELS 3 Zrotation Yrotation Xrotation'
    out = ['HIERARCHY', 'ROOT Hips', '{', '\tOFFSET 0.00000 0.00000 0.00000',
           '\tCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation']

    def off(v, side=1):
        if v == (0, 0, 0):
            return 'OFFSET 0 0 0'
        return 'OFFSET ' + ' '.join('%.5f' % (c / CMU_UNIT * (side if a == 0 else 1) + 0.0)
                                    for a, c in enumerate(v))

    def chain(names, depth, side):
        # names: [(name or None for End Site, offset)], each the child of the previous
        opened = 0
        for name, v in names:
            ind = '\t' * (depth + opened)
            if name is None:
                out.extend([ind + 'End Site', ind + '{', ind + '\t' + off(v, side), ind + '}'])
            else:
                out.extend([ind + 'JOINT ' + name, ind + '{', ind + '\t' + off(v, side),
                            ind + '\t' + rot3])
                opened += 1
        return opened

    def close(depth, n):
        for d in range(n - 1, -1, -1):
            out.append('\t' * (depth + d) + '}')

    for side, pre, short in ((1, 'Left', 'L'), (-1, 'Right', 'R')):
        names = [(short + 'HipJoint', leg[0][1])] + [(pre + n, v) for n, v in leg[1:5]] + [leg[5]]
        close(1, chain(names, 1, side))
    spine = [('LowerBack', (0, 0, 0)), ('Spine', (0, 0.115, -0.015)), ('Spine1', (0, 0.165, 0.005))]
    n = chain(spine, 1, 1)
    d = 1 + n
    neck = [('Neck', (0, 0, 0)), ('Neck1', (0, 0.170, -0.010)), ('Head', (0, 0.095, 0.020)),
            (None, (0, 0.220, 0.010))]
    close(d, chain(neck, d, 1))
    for side, pre, short in ((1, 'Left', 'L'), (-1, 'Right', 'R')):
        m = chain([(pre + nm, v) for nm, v in arm], d, side)
        hd = d + m
        fingers = [(pre + 'FingerBase', (0, 0, 0)), (short + 'Fingers', (0.045, 0, 0)),
                   (None, (0.040, 0, 0))]
        close(hd, chain(fingers, hd, side))
        close(hd, chain([(short + 'Thumb', (0, 0, 0)), (None, (0.030, 0, 0.030))], hd, side))
        close(d, m)
    close(1, n)
    out.append('}')
    return '\n'.join(out) + '\n'


SWING_LIFT = 0.015   # extra lift of the ankle in a walking swing (m)
NOMDROP = 0.015      # walking pelvis below its rest height, at most (m)
MIDSTANCE = 0.38   # fraction of the stance at which the pelvis passes over the ankle
CMU_HIPS_REST = (0.0, 0.985, 0.0)   # the rest skeleton stands on the floor: toes 0.02 m up


def mh_hierarchy():
    """Skeleton B: the HIERARCHY section of tests/data/makehuman_walk1.bvh, byte for byte."""
    with open(os.path.join(REPO, 'tests', 'data', 'makehuman_walk1.bvh'), newline='') as f:
        text = f.read()
    return text[:text.index('MOTION')]


class Rig:
    """A skeleton in the internal frame with the roles the motion code drives.

    joints: [(name, parent index or -1, rest position in metres, end site?)], parents first.
    roles: pelvis, spine (list, from the pelvis up), neck (list, up to the head), and per side
    s in 'LR': hipjoint_s (list of helper joints between the pelvis and the thigh, each given a
    small rotation), thigh_s, shin_s, foot_s, toe_s, toe_end_s, clavicle_s (list), upperarm_s,
    forearm_s, hand_s; fingers (joints given a constant curl); ground (optional joint on the
    floor under the pelvis, for game rigs with a root bone).
    """

    def __init__(self, joints, roles, heel_back=0.055):
        self.names = [j[0] for j in joints]
        self.parent = [j[1] for j in joints]
        self.rest = [j[2] for j in joints]
        self.is_end = [j[3] for j in joints]
        self.index = {n: i for i, n in enumerate(self.names)}
        self.roles = roles
        self.children = [[] for _ in joints]
        for i, p in enumerate(self.parent):
            if p >= 0:
                self.children[p].append(i)
        r = self.rest_of
        self.geo = {}
        for s in 'LR':
            a0, b0, t0 = r('foot_' + s), r('toe_' + s), r('toe_end_' + s)
            g = {'A0': a0, 'B0': b0, 'T0': t0,
                 # contact points in the rest pose, on the floor (y = 0)
                 'heel': (a0[0], 0.0, a0[2] - heel_back), 'ball': (b0[0], 0.0, b0[2]),
                 'toe': (t0[0], 0.0, t0[2])}
            g['L1'] = length(sub(r('shin_' + s), r('thigh_' + s)))
            g['L2'] = length(sub(a0, r('shin_' + s)))
            g['kneecap'] = add(r('shin_' + s), (0.0, -0.02, 0.05))
            g['A1'] = length(sub(r('forearm_' + s), r('upperarm_' + s)))
            g['A2'] = length(sub(r('hand_' + s), r('forearm_' + s)))
            # how far the rest upper arm already hangs below horizontal (0 in a T-pose)
            g['arm_drop'] = math.asin(-unit(sub(r('forearm_' + s), r('upperarm_' + s)))[1])
            hand = r('hand_' + s)
            # the palm's floor contact: under the hand, as low as the lowest finger joint
            low = min([-0.025] + [self.rest[k][1] - hand[1] - 0.001
                                  for k in self.descendants(self.index[roles['hand_' + s]])])
            g['palm'] = add(hand, (0.05 if s == 'L' else -0.05, low, 0.0))
            self.geo[s] = g
        pel = r('pelvis')
        self.seat = add(pel, (0.0, -(pel[1] - r('thigh_L')[1]) - 0.09, -0.04))

    def descendants(self, i):
        out, todo = [], list(self.children[i])
        while todo:
            k = todo.pop()
            out.append(k)
            todo += self.children[k]
        return out

    def rest_of(self, role):
        return self.rest[self.index[self.roles[role]]]

    def idx(self, role):
        return self.index[self.roles[role]]

    @staticmethod
    def from_hierarchy(text, conv, roles, root_rest=None):
        """root_rest: where the root stands in the rest pose when the file's root OFFSET does not
        say it (CMU files have a zero OFFSET and the full position in the channels)."""
        jts = parse_hierarchy(text)
        rest = []
        for j, jt in enumerate(jts):
            off = conv.from_file_vec(jt.offset)
            if jt.parent < 0 and root_rest is not None:
                off = root_rest
            rest.append(off if jt.parent < 0 else add(rest[jt.parent], off))
        return Rig([(jt.name, jt.parent, rest[j], jt.end) for j, jt in enumerate(jts)], roles), jts


CMU_ROLES = {'pelvis': 'Hips', 'spine': ['LowerBack', 'Spine', 'Spine1'],
             'neck': ['Neck', 'Neck1', 'Head'],
             'fingers': {'LeftFingerBase': (0, 0, -8), 'LFingers': (0, 0, -12), 'LThumb': (0, 25, 0),
                         'RightFingerBase': (0, 0, 8), 'RFingers': (0, 0, 12), 'RThumb': (0, -25, 0)}}
for _s, _p in (('L', 'Left'), ('R', 'Right')):
    CMU_ROLES.update({'hipjoint_' + _s: [_s + 'HipJoint'], 'thigh_' + _s: _p + 'UpLeg',
                      'shin_' + _s: _p + 'Leg', 'foot_' + _s: _p + 'Foot',
                      'toe_' + _s: _p + 'ToeBase', 'toe_end_' + _s: _p + 'ToeBase_End',
                      'clavicle_' + _s: [_p + 'Shoulder'], 'upperarm_' + _s: _p + 'Arm',
                      'forearm_' + _s: _p + 'ForeArm', 'hand_' + _s: _p + 'Hand'})

MH_ROLES = {'pelvis': 'Root', 'spine': ['Spine1', 'Spine2', 'Spine3'], 'neck': ['Neck', 'Head'],
            'pelvis2': 'Hips', 'fingers': {},
            # the clavicles a little lowered: with them raised, the hanging upper arms' local
            # rotations sit at the gimbal lock of the file's X-Y-Z channels (Y near 90 deg)
            'clavicle_lift': -6.0}
for _s in 'LR':
    _m = 1 if _s == 'L' else -1
    MH_ROLES.update({'hipjoint_' + _s: ['__UpLeg_' + _s], 'thigh_' + _s: 'UpLeg_' + _s,
                     'shin_' + _s: 'LoLeg_' + _s, 'foot_' + _s: 'Foot_' + _s, 'toe_' + _s: 'Toe_' + _s,
                     'toe_end_' + _s: 'Toe_' + _s + '_End',
                     'clavicle_' + _s: ['__Clavicle_' + _s, 'Clavicle_' + _s],
                     'upperarm_' + _s: 'UpArm_' + _s, 'forearm_' + _s: 'LoArm_' + _s,
                     'hand_' + _s: 'Hand_' + _s})
    for _f in ('Index', 'Middle', 'Ring', 'Pinky'):
        for _n, _a in ((1, 10), (2, 15), (3, 10)):
            MH_ROLES['fingers']['%s%d_%s' % (_f, _n, _s)] = (0, 0, -_m * _a)


# ----------------------------------------------------------------------------------------------
# Feet: a foot's state is its ball (toe) joint position B and the world rotations of the foot
# and toe bones. Stance motions are rigid rotations about a point on the floor, so that point is
# exactly still.

class FootState:
    def __init__(self, b, df, dt):
        self.b, self.df, self.dt = b, df, dt


class FootGeo:
    def __init__(self, g):
        self.g = g

    def flat(self, anchor, heading):
        """Foot flat on the floor, the ankle above anchor (x, z), facing heading (rad about Y)."""
        g = self.g
        r = ry(heading)
        a0g = (g['A0'][0], 0.0, g['A0'][2])
        return FootState(add((anchor[0], 0.0, anchor[1]), mvec(r, sub(g['B0'], a0g))), r, r)

    def ankle(self, st):
        return sub(st.b, mvec(st.df, sub(self.g['B0'], self.g['A0'])))

    def point(self, st, name):
        """World position of a contact point (heel on the foot bone, ball and toe on the toe)."""
        g = self.g
        if name == 'heel':
            return add(self.ankle(st), mvec(st.df, sub(g['heel'], g['A0'])))
        return add(st.b, mvec(st.dt, sub(g[name], g['B0'])))

    def joints(self, st):
        g = self.g
        return [self.ankle(st), st.b, add(st.b, mvec(st.dt, sub(g['T0'], g['B0'])))]

    def lateral(self, st):
        return mvec(st.df, (1.0, 0.0, 0.0))

    def lowest(self, st):
        return min(p[1] for p in self.joints(st) + [self.point(st, n) for n in POINTS])


POINTS = ('heel', 'ball', 'toe')


def rotate_all(st, q, pivot):
    return FootState(add(pivot, mvec(q, sub(st.b, pivot))), mmul(q, st.df), mmul(q, st.dt))


class Phase:
    """One piece of a foot's motion. kind: hold; heel, ball, tip (pitch by amount rad, + toes
    up, about the heel point, the ball joint (toe stays), the toe tip); yaw (amount rad about the
    vertical through the ball point, or through `pivot`); slide (amount = (dx, dz) world);
    swing (to the state `target`, lifting the ankle by `lift`, optionally carried by `carrier`,
    a function of time giving a translation the swing follows). ease 'inout' starts and ends at
    rest; 'in' starts at rest and ends moving, and a swing after it starts with that motion
    (toe-off flows into the swing)."""

    def __init__(self, t0, dur, kind, amount=0.0, target=None, lift=0.0, carrier=None, pivot=None,
                 ease='inout'):
        self.t0, self.dur, self.kind, self.amount = t0, dur, kind, amount
        self.target, self.lift, self.carrier, self.pivot = target, lift, carrier, pivot
        self.ease = ease
        self.start = None
        self.v0 = None          # swing: ankle velocity (m/s) and orientation slope at the start
        self.w0 = 0.0

    def s(self, u):
        if self.ease == 'in':
            return (3 * u * u - u * u * u) / 2
        return smooth(u)


class FootTrack:
    """A foot's motion: an initial state and phases one after the other."""

    def __init__(self, geo, state, t0=0.0):
        self.geo, self.state0, self.t = geo, state, t0
        self.phases = []

    def end_state(self):
        if not self.phases:
            return self.state0
        p = self.phases[-1]
        return self.eval_phase(p, 1.0, p.t0 + p.dur)

    def add(self, dur, kind, amount=0.0, **kw):
        ph = Phase(self.t, dur, kind, amount, **kw)
        ph.start = self.end_state()
        if kind == 'swing' and self.phases and self.phases[-1].ease == 'in':
            prev, eps = self.phases[-1], 1e-5
            before = self.eval_phase(prev, 1 - eps, prev.t0 + prev.dur * (1 - eps))
            ph.v0 = mul(sub(self.geo.ankle(ph.start), self.geo.ankle(before)), 1 / (eps * prev.dur))
            rate = angle_between(before.df, ph.start.df) / (eps * prev.dur)
            total = angle_between(ph.start.df, ph.target.df)
            ph.w0 = min(3.0, rate * dur / total) if total > 1e-6 else 0.0
        self.phases.append(ph)
        self.t += dur
        return self

    def hold_until(self, t):
        if t > self.t + 1e-9:
            self.add(t - self.t, 'hold')
        return self

    def eval_phase(self, ph, u, t):
        st, geo = ph.start, self.geo
        u = max(0.0, min(1.0, u))
        s = ph.s(u)
        k = ph.kind
        if k == 'hold':
            return st
        if k == 'heel':
            return rotate_all(st, rot(geo.lateral(st), -ph.amount * s), geo.point(st, 'heel'))
        if k == 'ball':
            return FootState(st.b, mmul(rot(geo.lateral(st), -ph.amount * s), st.df), st.dt)
        if k == 'tip':
            return rotate_all(st, rot(geo.lateral(st), -ph.amount * s), geo.point(st, 'toe'))
        if k == 'yaw':
            piv = ph.pivot if ph.pivot is not None else geo.point(st, 'ball')
            return rotate_all(st, ry(ph.amount * s), piv)
        if k == 'slide':
            return FootState(add(st.b, (ph.amount[0] * s, 0.0, ph.amount[1] * s)), st.df, st.dt)
        if k == 'swing':
            tg = ph.target
            if u >= 1.0:
                return tg
            a0, a1 = geo.ankle(st), geo.ankle(tg)
            if ph.v0 is not None:   # leave with the toe-off's motion, arrive at rest
                sr = hermite(u, [(0.0, 0.0, ph.w0), (1.0, 1.0, 0.0)])
                a = tuple(hermite(u, [(0.0, a0[i], ph.v0[i] * ph.dur), (1.0, a1[i], 0.0)])
                          for i in range(3))
            else:
                sr = s
                a = lerp(a0, a1, s)
            df, dt = slerp(st.df, tg.df, sr), slerp(st.dt, tg.dt, sr)
            if ph.carrier:
                c0, c1, c = ph.carrier(ph.t0), ph.carrier(ph.t0 + ph.dur), ph.carrier(t)
                a = add(c, lerp(sub(a0, c0), sub(a1, c1), s))
            a = add(a, (0.0, ph.lift * math.sin(math.pi * u ** 0.8) ** 2, 0.0))
            b = add(a, mvec(df, sub(geo.g['B0'], geo.g['A0'])))
            out = FootState(b, df, dt)
            low = geo.lowest(out)
            if low < 0.003 and 0 < u < 1:
                # keep every part of the swinging foot above the floor (a continuous lift)
                lift = 0.003 - low
                w = min(1.0, 20 * min(u, 1 - u))
                out = FootState(add(b, (0.0, lift * w if low + lift * w >= 0 else -low, 0.0)), df, dt)
            return out
        raise ValueError(k)

    def phase_at(self, t):
        for ph in self.phases:
            if ph.t0 - 1e-9 <= t < ph.t0 + ph.dur - 1e-9:
                return ph
        return None

    def at(self, t):
        """(state, phase) at time t; before the first phase and after the last the foot holds."""
        ph = self.phase_at(t)
        if ph is None:
            if self.phases and t >= self.phases[-1].t0:
                return self.end_state(), None
            return self.state0, None
        return self.eval_phase(ph, (t - ph.t0) / ph.dur, t), ph


# ----------------------------------------------------------------------------------------------
# Pose: world rotations and positions of every joint for one frame

class Spec:
    """What one frame asks for (all world, internal frame)."""

    def __init__(self):
        self.pelvis_pos = None
        self.pelvis_rot = I3
        self.chest_rot = None     # world rotation of the top of the spine
        self.head_rot = None      # world rotation of the head
        self.local = {}           # joint name -> local rotation (hip joints, clavicles, fingers)
        self.feet = {}            # side -> FootState
        self.knee_pole = {}       # side -> direction the knee moves towards
        self.arms = {}            # side -> ('angles', flex, abd, elbow, wrist) or ('ik', palm
        #                            point, hand rotation, elbow pole, reference arm)
        self.ground = None        # (position, rotation) of a ground root bone


def two_bone(root, l1, l2, target, pole):
    """Middle joint position of a two-bone chain from root to target, in the plane of root,
    target and the pole direction, on the pole's side. Raises if the target is out of reach."""
    d = sub(target, root)
    dl = length(d)
    if dl > (l1 + l2) * (1 - 1e-9) or dl < abs(l1 - l2):
        raise ValueError('IK target out of reach: %.5f of %.5f' % (dl, l1 + l2))
    u = mul(d, 1 / dl)
    x = (l1 * l1 - l2 * l2 + dl * dl) / (2 * dl)
    h = math.sqrt(max(0.0, l1 * l1 - x * x))
    n = unit(sub(pole, mul(u, dot(pole, u))))
    return add(root, add(mul(u, x), mul(n, h)))


def hinge_rots(rig, i_up, i_lo, i_end, root, mid, end, pole, rest_pole):
    """World rotations of the upper and lower bone of a posed two-bone chain: each bone's rest
    direction goes to its posed direction, with the chain's plane normal as the twist
    reference (a hinge at the middle joint)."""
    r = rig.rest
    n0 = cross(sub(r[i_end], r[i_up]), rest_pole)
    n = cross(sub(end, root), pole)
    up = mmul(frame(sub(mid, root), n), mT(frame(sub(r[i_lo], r[i_up]), n0)))
    lo = mmul(frame(sub(end, mid), n), mT(frame(sub(r[i_end], r[i_lo]), n0)))
    return up, lo


def hip_offsets(rig, spec):
    """World vector pelvis -> hip joint per side for this spec's pelvis rotation and locals."""
    out = {}
    for s in 'LR':
        i = rig.idx('thigh_' + s)
        chain = []
        j = rig.parent[i]
        while j != rig.idx('pelvis'):
            chain.append(j)
            j = rig.parent[j]
        chain.reverse()
        d, p = spec.pelvis_rot, (0.0, 0.0, 0.0)
        prev = rig.idx('pelvis')
        for j in chain + [i]:
            p = add(p, mvec(d, sub(rig.rest[j], rig.rest[prev])))
            d = mmul(d, spec.local.get(rig.names[j], I3))
            prev = j
        out[s] = p
    return out


def spread(chain_local_total, n):
    """n equal local rotations whose product is the given rotation."""
    step = power(chain_local_total, 1.0 / n)
    return [step] * n


def build_pose(rig, spec):
    """World rotations D and positions p (internal frame, metres) of every joint."""
    n = len(rig.names)
    D, P = [None] * n, [None] * n
    world = {}
    local = {rig.index[k]: v for k, v in spec.local.items()}
    ro = rig.roles
    pel = rig.idx('pelvis')
    for name, v in ro.get('fingers', {}).items():
        local.setdefault(rig.index[name], euler_matrix('ZYX', v[::-1]))
    world[pel] = spec.pelvis_rot
    if spec.chest_rot is not None:       # the spine starts at the pelvis
        rel = mmul(mT(spec.pelvis_rot), spec.chest_rot)
        for j, l in zip(ro['spine'], spread(rel, len(ro['spine']))):
            local[rig.index[j]] = l
    if spec.head_rot is not None:
        for j, l in zip(ro['neck'], spread(mmul(mT(spec.chest_rot), spec.head_rot), len(ro['neck']))):
            local[rig.index[j]] = l
    legs = {rig.idx('thigh_' + s): s for s in 'LR'}
    arms = {rig.idx('upperarm_' + s): s for s in 'LR'}
    for j in range(n):
        par = rig.parent[j]
        if j == pel:
            P[j] = spec.pelvis_pos
        elif par < 0:
            P[j] = spec.ground[0] if spec.ground else rig.rest[j]
        else:
            P[j] = add(P[par], mvec(D[par], sub(rig.rest[j], rig.rest[par])))
        if rig.is_end[j]:
            D[j] = D[par]
            continue
        if j in legs:
            s = legs[j]
            st = spec.feet[s]
            geo = FootGeo(rig.geo[s])
            ankle = geo.ankle(st)
            g = rig.geo[s]
            i_sh, i_ft = rig.idx('shin_' + s), rig.idx('foot_' + s)
            knee = two_bone(P[j], g['L1'], g['L2'], ankle, spec.knee_pole[s])
            world[j], world[i_sh] = hinge_rots(rig, j, i_sh, i_ft, P[j], knee, ankle,
                                               spec.knee_pole[s], (0.0, 0.0, 1.0))
            world[i_ft] = st.df
            world[rig.idx('toe_' + s)] = st.dt
        if j in arms:
            s = arms[j]
            i_fa, i_h = rig.idx('forearm_' + s), rig.idx('hand_' + s)
            chest = D[rig.index[ro['spine'][-1]]]
            mode = spec.arms[s]
            sg = 1 if s == 'L' else -1
            if mode[0] == 'angles':
                _, flex, abd, elbow, wrist = mode
                hang = math.pi / 2 - abd - rig.geo[s]['arm_drop']
                up = mmul(chest, mmul(rx(-flex), rz(-sg * hang)))
                world[j] = up
                world[i_fa] = mmul(up, ry(-sg * elbow))
                world[i_h] = mmul(world[i_fa], rz(-sg * wrist))
            else:
                _, palm, hrot, pole, ref = mode
                g = rig.geo[s]
                wrist_pt = sub(palm, mvec(hrot, sub(g['palm'], rig.rest[i_h])))
                elbow = two_bone(P[j], g['A1'], g['A2'], wrist_pt, pole)
                # turn the reference arm (elbow, wrist, upper and fore arm rotations) into the
                # solved one through the chain's plane, so an arm solved onto the reference's
                # own wrist and elbow plane is the reference exactly
                e_r, w_r, up_r, fo_r = ref
                n_r = cross(sub(w_r, P[j]), sub(e_r, P[j]))
                n = cross(sub(wrist_pt, P[j]), sub(elbow, P[j]))
                world[j] = mmul(mmul(frame(sub(elbow, P[j]), n), mT(frame(sub(e_r, P[j]), n_r))), up_r)
                world[i_fa] = mmul(mmul(frame(sub(wrist_pt, elbow), n),
                                        mT(frame(sub(w_r, e_r), n_r))), fo_r)
                world[i_h] = hrot
        if j == pel:
            D[j] = spec.pelvis_rot
        elif j in world:
            D[j] = world[j]
        elif par < 0:
            D[j] = spec.ground[1] if spec.ground else local.get(j, I3)
        else:
            D[j] = mmul(D[par], local.get(j, I3))
    return D, P


def contact_points(rig, D, P):
    """World positions of the truth's contact points for one pose."""
    out = {}
    for s in 'LR':
        g = rig.geo[s]
        ft, to, sh = rig.idx('foot_' + s), rig.idx('toe_' + s), rig.idx('shin_' + s)
        out[s + '_heel'] = add(P[ft], mvec(D[ft], sub(g['heel'], g['A0'])))
        out[s + '_ball'] = add(P[to], mvec(D[to], sub(g['ball'], g['B0'])))
        out[s + '_toe'] = add(P[to], mvec(D[to], sub(g['toe'], g['B0'])))
        out[s + '_knee'] = add(P[sh], mvec(D[sh], sub(g['kneecap'], rig.rest[sh])))
        h = rig.idx('hand_' + s)
        out[s + '_hand'] = add(P[h], mvec(D[h], sub(g['palm'], rig.rest[h])))
    pel = rig.idx('pelvis')
    out['seat'] = add(P[pel], mvec(D[pel], sub(rig.seat, rig.rest[pel])))
    return out


# ----------------------------------------------------------------------------------------------
# Pelvis height: as low as the nominal height asks, never so high that a leg cannot reach its
# ankle (soft minimum, so the height stays smooth).

def reach_height(rig, spec, s, margin=0.004):
    """Highest pelvis height at which leg s still reaches its ankle with the knee a little bent."""
    g = rig.geo[s]
    off = hip_offsets(rig, spec)[s]
    ankle = FootGeo(g).ankle(spec.feet[s])
    hx = spec.pelvis_pos[0] + off[0] - ankle[0]
    hz = spec.pelvis_pos[2] + off[2] - ankle[2]
    r = (g['L1'] + g['L2']) * (1 - margin)
    if hx * hx + hz * hz >= r * r:
        raise ValueError('ankle out of reach horizontally')
    return ankle[1] - off[1] + math.sqrt(r * r - hx * hx - hz * hz)


def softmin(vals, k=0.006):
    m = min(vals)
    return m - k * math.log(sum(math.exp(-(v - m) / k) for v in vals))


# ----------------------------------------------------------------------------------------------
# Motions: each has a name, a frame rate, a frame count, foot tracks and spec(t), the pose asked
# for at time t.

class Motion:
    notes = ''

    def __init__(self, rig, name, fps, duration, feet):
        self.rig, self.name, self.fps, self.feet = rig, name, fps, feet
        self.frames = int(round(duration * fps)) + 1

    def track_at(self, t):
        """The entry of a motion's per-frame pelvis track (self.track) at the frame nearest t."""
        return self.track[min(self.frames - 1, int(round(t * self.fps)))]

    def spec(self, t):
        raise NotImplementedError

    def pitched_spec(self, t):
        """A frame's spec with the pelvis pitched by the motion's pitch keys (self.pk, degrees)
        and the helper joints at rest; and that pitch in radians."""
        sp = Spec()
        pitch = ease_keys(t, self.pk) * RAD
        sp.pelvis_rot = rx(pitch)
        sp.local = helper_locals(self.rig, 0.0, 0.0)
        return sp, pitch

    def finish(self, sp, t, nominal, k=0.006):
        """Feet and knee poles from the tracks, then the pelvis height: the nominal height unless
        a leg cannot reach its ankle there (soft minimum)."""
        for s in 'LR':
            sp.feet[s] = self.feet[s].at(t)[0]
            fwd = mvec(sp.feet[s].df, (0.0, 0.0, 1.0))
            sp.knee_pole[s] = unit((fwd[0], 0.0, fwd[2]))
        x, _, z = sp.pelvis_pos
        sp.pelvis_pos = (x, 0.0, z)
        y = softmin([nominal] + [reach_height(self.rig, sp, s) for s in 'LR'], k)
        sp.pelvis_pos = (x, y, z)
        return sp


def pitched(geo, st, deg, about):
    """The state pitched by deg (+ toes up) about 'heel', 'ball' (foot only) or 'ankle'."""
    q = rot(geo.lateral(st), -deg * RAD)
    if about == 'heel':
        return rotate_all(st, q, geo.point(st, 'heel'))
    if about == 'ball':
        return FootState(st.b, mmul(q, st.df), st.dt)
    return rotate_all(st, q, geo.ankle(st))


def moved(st, d):
    return FootState(add(st.b, d), st.df, st.dt)


def heading_of(st):
    f = mvec(st.df, (0.0, 0.0, 1.0))
    return math.atan2(f[0], f[2])


def add_step(tr, t_hs, flat, style, stance, lift=None, heel=15.0, ball=50.0, tip=15.0):
    """Swing the track's foot to a heel strike at t_hs that rolls onto the flat state, then its
    stance: 'walk' rolls on to toe-off, 'stop' and 'place' (a gentler touchdown) stay flat;
    'point' puts the foot down flat and holds it for the stance (a foot that does not roll)."""
    geo = tr.geo
    lift = SWING_LIFT if lift is None else lift
    if style == 'point':
        tr.add(t_hs - tr.t, 'swing', target=flat, lift=lift)
        tr.add(stance, 'hold')
        return tr
    h = 6.0 if style == 'place' else heel
    td = pitched(geo, flat, h, 'heel')
    tr.add(t_hs - tr.t, 'swing', target=td, lift=lift)
    tr.add(stance * 0.15, 'heel', -h * RAD)
    if style == 'walk':
        tr.add(stance * 0.40, 'hold')
        tr.add(stance * 0.33, 'ball', -ball * RAD)
        tr.add(stance * 0.12, 'tip', -tip * RAD, ease='in')
    return tr


def walk_tracks(rig, arc_at, place, t_first, period, n_left, n_right, stops='LR',
                stance_frac=0.6, roll=True):
    """Left and right tracks of a walk: left heel strikes at t_first + k period, right half a
    period later; each foot's flat pose lies on place(arc, side) at the arc the pelvis reaches
    at mid-stance (arc_at(t)). The last step of each foot in stops is a 'stop' step. roll=False:
    the feet do not roll ('point' steps, for feet rigid with the shin)."""
    stance = period * stance_frac
    tracks = {}
    for s, t0, n in (('L', t_first, n_left), ('R', t_first + period / 2, n_right)):
        geo = FootGeo(rig.geo[s])
        tr = None
        for k in range(-2, n):
            ths = t0 + k * period
            x, z, hd = place(arc_at(ths + stance * MIDSTANCE), s)
            flat = geo.flat((x, z), hd)
            if tr is None:
                if not roll:
                    tr = FootTrack(geo, flat, ths)
                    tr.add(stance, 'hold')
                    continue
                tr = FootTrack(geo, pitched(geo, flat, 15.0, 'heel'), ths)
                tr.add(stance * 0.15, 'heel', -15.0 * RAD)
                tr.add(stance * 0.40, 'hold')
                tr.add(stance * 0.33, 'ball', -50.0 * RAD)
                tr.add(stance * 0.12, 'tip', -15.0 * RAD, ease='in')
                continue
            style = 'stop' if k == n - 1 and s in stops else 'walk'
            add_step(tr, ths, flat, style if roll else 'point', stance)
        tracks[s] = tr
    return tracks


def side_place(path, lateral):
    """Foot placement beside a path: path(arc) -> (x, z, heading)."""
    def place(arc, s):
        x, z, hd = path(arc)
        sg = 1 if s == 'L' else -1
        return (x + sg * lateral * math.cos(hd), z - sg * lateral * math.sin(hd), hd)
    return place


def arm_swing(t, t_right_strike, period, amp=15.0, env=1.0):
    """Angles (flex, abd, elbow, wrist) of the left and right arm in a walk."""
    c = env * math.cos(2 * math.pi * (t - t_right_strike) / period)
    left = ('angles', (4 + amp * c) * RAD, 8 * RAD, (20 + 8 * c) * RAD, 5 * RAD)
    right = ('angles', (4 - amp * c) * RAD, 8 * RAD, (20 - 8 * c) * RAD, 5 * RAD)
    return {'L': left, 'R': right}


def helper_locals(rig, phase_l, amount=1.0, clav=0.0, hip=(-4.0, 6.0)):
    """Rotations of the helper joints, which CMU and MakeHuman files animate too: the hip joints
    (CMU LHipJoint/RHipJoint, MakeHuman __UpLeg_*), the clavicles (CMU Left/RightShoulder,
    MakeHuman Clavicle_* and __Clavicle_*) and MakeHuman's Hips. phase_l: walk phase from left
    mid-stance (cycles); amount scales the oscillating part; clav lifts the clavicles (deg)."""
    c = amount * math.cos(2 * math.pi * phase_l)
    loc = {}
    for s, sg in (('L', 1), ('R', -1)):
        for j in rig.roles['hipjoint_' + s]:
            loc[j] = mmul(rz(sg * (hip[0] + 1.5 * c) * RAD), rx((hip[1] + 2 * sg * c) * RAD))
        cl = rig.roles['clavicle_' + s]
        loc[cl[-1]] = mmul(rz(sg * (rig.roles.get('clavicle_lift', 6.0) + 2 * sg * c + clav) * RAD), ry(sg * 3 * c * RAD))
        if len(cl) > 1:
            loc[cl[0]] = rz(sg * 3 * RAD)
    if 'pelvis2' in rig.roles:
        loc[rig.roles['pelvis2']] = rx(3 * RAD)
    return loc


def gait_pelvis(sp, heading, ph, env, yaw_phase):
    """Walking pelvis rotation: heading, rotation towards the swinging leg, list and tilt."""
    yaw = -5 * RAD * env * math.cos(2 * math.pi * yaw_phase)
    roll = 4 * RAD * env * math.cos(2 * math.pi * ph)
    pitch = (5 + env * math.cos(4 * math.pi * ph)) * RAD
    sp.pelvis_rot = mmul(ry(heading + yaw), mmul(rx(pitch), rz(roll)))
    return yaw, roll


class Walk(Motion):
    """(a) straight walk, 1.3 m/s, 5 s: heel strike (toes up 15 deg), flat foot, heel rise (the
    foot pitches 50 deg about the ball, toes flat), toe-off (15 deg more about the toe tip),
    swing; hip bob and sway, pelvis rotation and list, spine counter-rotation, arm swing."""

    def __init__(self, rig, fps=120, duration=5.0, roll=True, speed=1.3, period=1.1, lateral=0.085):
        self.v, self.T, self.t_hs = speed, period, 0.05
        n = int(duration / self.T) + 3
        feet = walk_tracks(rig, lambda t: self.v * t, side_place(lambda a: (0.0, a, 0.0), lateral),
                           self.t_hs, self.T, n, n, roll=roll)
        super().__init__(rig, 'walk', fps, duration, feet)
        self.notes = ('steady walk from the first frame (no start or stop): %.1f m/s, stride %.1f s, '
                      'stance 60 %%; left heel strikes at 0.05 s + k %.1f s, right %.2f s later'
                      % (speed, period, period, period / 2))

    def spec(self, t):
        rig, T = self.rig, self.T
        ph = (t - self.t_hs - 0.3 * T) / T
        sp = Spec()
        yaw, roll = gait_pelvis(sp, 0.0, ph, 1.0, (t - self.t_hs) / T)
        sp.local = helper_locals(rig, ph)
        sp.pelvis_pos = (0.022 * math.cos(2 * math.pi * ph), 0.0, self.v * t)
        sp.chest_rot = mmul(ry(-0.7 * yaw), mmul(rx(2 * RAD), rz(-0.4 * roll)))
        sp.head_rot = rx(-1 * RAD)
        sp.arms = arm_swing(t, self.t_hs + T / 2, T)
        nominal = rig.rest_of('pelvis')[1] - NOMDROP + 0.012 * math.cos(4 * math.pi * ph)
        return self.finish(sp, t, nominal)


class Turn(Motion):
    """(c) a full circle of radius 1.5 m walked to the left at 1.03 m/s, a stop with the feet
    side by side, then a 180-degree pivot to the left on the left foot: its heel lifts 20 deg,
    the foot turns about the ball (the toe tip slides on the floor) while the right foot is
    carried round in the air, then sets down."""

    def __init__(self, rig, fps=120):
        self.R, self.T, self.t_hs = 1.5, 1.1, 0.05
        K = 8                                      # the last (stopping) left step
        self.t_x = self.t_hs + K * self.T
        self.v = 2 * math.pi * self.R / (self.t_x + 0.33)
        self.s_x = self.v * (self.t_x + 0.33)      # arc of the stop: one full circle
        place = side_place(self.path, 0.085)
        feet = walk_tracks(rig, self.arc, place, self.t_hs, self.T, K + 1, K, stops='L')
        # the right foot's last step lands beside the left one
        geo_r, geo_l = FootGeo(rig.geo['R']), FootGeo(rig.geo['L'])
        x, z, hd = place(self.s_x, 'R')
        add_step(feet['R'], self.t_x + self.T / 2, geo_r.flat((x, z), hd), 'place', 0.66)
        # the pivot
        tp = self.t_p = self.t_x + 1.3
        fl, fr = feet['L'], feet['R']
        fl.hold_until(tp + 0.4)
        fl.add(0.2, 'ball', -20 * RAD)
        self.ball = geo_l.point(fl.end_state(), 'ball')
        fl.add(1.2, 'yaw', math.pi)
        fl.add(0.2, 'ball', 20 * RAD)
        fl.hold_until(tp + 3.0)
        flat_r = fr.end_state()
        fr.hold_until(tp + 0.3)
        raised = moved(pitched(geo_r, flat_r, -15.0, 'ankle'),
                       mvec(ry(hd), (0.0, 0.11, -0.07)))
        fr.add(0.3, 'swing', target=raised)
        fr.add(1.2, 'yaw', math.pi, pivot=self.ball)
        fr.add(0.3, 'swing', target=rotate_all(flat_r, ry(math.pi), self.ball))
        fr.hold_until(tp + 3.0)
        self.heading_x = hd
        super().__init__(rig, 'turn', fps, tp + 3.0, feet)
        self.notes = ('circle walk to the left (radius 1.5 m, 1.03 m/s) from the first frame, stop '
                      'at %.2f s, pivot turn on the left ball %.2f-%.2f s'
                      % (self.t_x + 0.66, tp + 0.6, tp + 1.8))

    def path(self, a):
        R = self.R
        return (R - R * math.cos(a / R), R * math.sin(a / R), a / R)

    def arc(self, t):
        if t <= self.t_x:
            return self.v * t
        return hermite(t, [(self.t_x, self.v * self.t_x, self.v), (self.t_x + 0.66, self.s_x, 0.0)])

    def spec(self, t):
        rig, T = self.rig, self.T
        ph = (t - self.t_hs - 0.3 * T) / T
        env = 1 - smooth((t - self.t_x) / 0.9)
        x, z, hd = self.path(self.arc(t))
        sp = Spec()
        lat = (math.cos(hd), 0.0, -math.sin(hd))
        pos = add((x, 0.0, z), mul(lat, 0.022 * env * math.cos(2 * math.pi * ph)))
        turn = 0.0
        nominal = rig.rest_of('pelvis')[1] - NOMDROP + env * 0.012 * math.cos(4 * math.pi * ph)
        if t > self.t_p:
            tp = self.t_p
            shift = 0.075 * (smooth((t - tp) / 0.4) - smooth((t - tp - 2.0) / 0.4))
            turn = math.pi * smooth((t - tp - 0.6) / 1.2)
            pos = add(pos, mul(lat, shift))
            pos = add(self.ball, mvec(ry(turn), sub(pos, self.ball)))
            nominal -= 0.03 * (smooth((t - tp) / 0.4) - smooth((t - tp - 2.0) / 0.6))
        yaw, roll = gait_pelvis(sp, hd + turn, ph, env, (t - self.t_hs) / T)
        sp.local = helper_locals(rig, ph, env)
        sp.pelvis_pos = pos
        lean = -4 * RAD * (1 - smooth((t - self.t_x) / 0.6))
        look = 0.25 * math.pi * (smooth((t - self.t_p - 0.4) / 0.8) - smooth((t - self.t_p - 1.4) / 0.6))
        sp.chest_rot = mmul(ry(hd + turn - 0.7 * yaw), mmul(rx(2 * RAD), rz(lean - 0.4 * roll)))
        sp.head_rot = mmul(ry(hd + turn + look), rx(-1 * RAD))
        sp.arms = arm_swing(t, self.t_hs + T / 2, T, env=env)
        if t > self.t_p:
            a = smooth((t - self.t_p) / 0.5) - smooth((t - self.t_p - 2.2) / 0.5)
            for s in 'LR':
                m = sp.arms[s]
                sp.arms[s] = ('angles', m[1], m[2] + 12 * RAD * a, m[3] + 10 * RAD * a, m[4])
        return self.finish(sp, t, nominal)


class Hop(Motion):
    """(b) four two-footed hops forward, 0.55 m each: crouch, push-off (heels rise 40 deg about
    the balls, then 15 deg about the toe tips), 0.3 s flight with the feet tucked, landing on the
    balls (heels 25 deg up) rolling down to flat, absorbing in a crouch; then standing up."""

    def __init__(self, rig, fps=120):
        self.d, self.flight, self.g = 0.55, 0.30, 9.81
        self.rig = rig
        geos = {s: FootGeo(rig.geo[s]) for s in 'LR'}
        lat = {'L': 0.095, 'R': -0.095}
        flats = {s: [geos[s].flat((lat[s], k * self.d), 0.0) for k in range(5)] for s in 'LR'}
        t = 0.6
        self.events = []                  # (takeoff time, landing time, hop index)
        feet = {s: FootTrack(geos[s], flats[s][0], 0.0) for s in 'LR'}
        t_push = t + 0.35
        for k in range(4):
            t_to = t_push + 0.2
            t_ld = t_to + self.flight
            for s in 'LR':
                tr = feet[s]
                tr.hold_until(t_push)
                tr.add(0.15, 'ball', -40 * RAD)
                tr.add(0.05, 'tip', -15 * RAD)
                land = pitched(geos[s], flats[s][k + 1], -25.0, 'ball')
                tr.add(self.flight, 'swing', target=land, lift=0.10, carrier=self.carrier)
                tr.add(0.10, 'ball', 25 * RAD)
            self.events.append((t_push, t_to, t_ld))
            t_push = t_ld + 0.30
        self.t_end = t_ld + 0.3 + 0.6
        super().__init__(rig, 'hop', fps, self.t_end + 0.4, feet)
        for s in 'LR':
            feet[s].hold_until(self.t_end + 0.4)
        self.feet = feet
        self.build_keys()
        self.notes = 'four hops; takeoff and landing times (s): ' + ', '.join(
            '%.2f/%.2f' % (a, b) for _, a, b in self.events)

    def build_keys(self):
        rig = self.rig
        y_s = rig.rest_of('pelvis')[1] - 0.015
        y_c = y_s - 0.20
        zk, yk, pk, ak = [(0.0, 0.0, 0.0), (0.6, 0.0, 0.0)], [(0.6, y_s, 0.0)], [(0.6, 4.0)], [(0.6, 0.0)]
        self.flights = []
        for k, (t_push, t_to, t_ld) in enumerate(self.events):
            z0 = k * self.d
            t_bot = t_push if k == 0 else t_push
            zk.append((t_bot, z0 + 0.02, 0.0))
            yk.append((t_bot, y_c, 0.0))
            pk += [(t_bot, 28.0), (t_to, 10.0), (t_ld, 12.0)]
            ak += [(t_bot, -40.0), (t_to + 0.12, 60.0), (t_ld + 0.05, 20.0)]
            v_f = (self.d - 0.24) / self.flight
            zk += [(t_to, z0 + 0.12, v_f), (t_ld, z0 + self.d - 0.12, v_f)]
            # highest pelvis the legs allow at takeoff and landing, a little below it
            y_to = self.limit_at(t_to - 1e-6, z0 + 0.12, 10.0) - 0.01
            y_ld = self.limit_at(t_ld + 1e-6, z0 + self.d - 0.12, 12.0) - 0.01
            v_up = (y_ld - y_to + self.g * self.flight ** 2 / 2) / self.flight
            yk += [(t_to, y_to, v_up), (t_ld, y_ld, v_up - self.g * self.flight)]
            self.flights.append((t_to, t_ld, y_to, v_up))
        t_last = self.events[-1][2]
        zk += [(t_last + 0.3, 3 * self.d + self.d + 0.02, 0.0), (self.t_end, 4 * self.d, 0.0)]
        yk += [(t_last + 0.3, y_c, 0.0), (self.t_end, y_s, 0.0)]
        pk += [(t_last + 0.3, 28.0), (self.t_end, 4.0)]
        ak += [(t_last + 0.3, -20.0), (self.t_end, 0.0)]
        self.zk, self.yk, self.pk, self.ak = zk, yk, pk, ak

    def limit_at(self, t, z, pitch):
        sp = Spec()
        sp.pelvis_rot = rx(pitch * RAD)
        sp.local = helper_locals(self.rig, 0.0, 0.0)
        sp.pelvis_pos = (0.0, 0.0, z)
        for s in 'LR':
            sp.feet[s] = self.feet[s].at(t)[0]
        return min(reach_height(self.rig, sp, s) for s in 'LR')

    def pelvis_y(self, t):
        for t_to, t_ld, y_to, v_up in self.flights:
            if t_to <= t <= t_ld:
                tau = t - t_to
                return y_to + v_up * tau - self.g * tau * tau / 2, True
        return hermite(t, self.yk), False

    def carrier(self, t):
        return (0.0, self.pelvis_y(t)[0], hermite(t, self.zk))

    def spec(self, t):
        sp, pitch = self.pitched_spec(t)
        y, flying = self.pelvis_y(t)
        sp.pelvis_pos = (0.0, y, hermite(t, self.zk))
        sp.chest_rot = rx(pitch * 0.6 + 4 * RAD)
        sp.head_rot = rx(-0.3 * pitch)
        a = ease_keys(t, self.ak) * RAD
        for s in 'LR':
            sp.arms[s] = ('angles', a, 10 * RAD, (20 + 0.15 * abs(a / RAD)) * RAD, 5 * RAD)
        if flying:
            for s in 'LR':
                sp.feet[s] = self.feet[s].at(t)[0]
                sp.knee_pole[s] = (0.0, 0.0, 1.0)
            return sp
        return self.finish(sp, t, y, k=0.002)


class Floor(Motion):
    """(d) stand; kneel down onto both knees (heels rise, toes tuck under, 62 deg at the toe
    joint); kneel; get up; squat and sit down on the floor, both hands on the floor behind the
    hips, the feet flat; hold; get back up. Knees, hands and seat touch the floor exactly
    (y = 0); the legs stay in vertical planes so a touching knee is still."""

    def __init__(self, rig, fps=120):
        self.rig = rig
        geos = {s: FootGeo(rig.geo[s]) for s in 'LR'}
        probe = Spec()
        probe.pelvis_rot = I3
        probe.local = helper_locals(rig, 0.0, 0.0)
        self.hipx = {s: hip_offsets(rig, probe)[s][0] for s in 'LR'}
        feet = {s: FootTrack(geos[s], geos[s].flat((self.hipx[s], 0.0), 0.0)) for s in 'LR'}
        # kneel down 1.0-2.5 s, kneel, up 3.3-4.8 (the same motion backwards)
        self.k0, self.k1, self.u0, self.u1 = 1.0, 2.5, 3.3, 4.8
        # sit down 5.4-8.1 s, sit, up 9.3-12.0
        self.s0, self.s1, self.g0, self.g1 = 5.4, 8.1, 9.3, 12.0
        self.end = 12.5
        for s in 'LR':
            tr = feet[s]
            tr.hold_until(self.k0 + 0.1)
            tr.add(self.k1 - self.k0 - 0.2, 'ball', -62 * RAD)
            tr.hold_until(self.u0 + 0.1)
            tr.add(self.u1 - self.u0 - 0.2, 'ball', 62 * RAD)
            tr.hold_until(self.end)
        super().__init__(rig, 'floor', fps, self.end, feet)
        self.sig_end = self.solve_kneel()
        self.build_sit()
        self.notes = ('kneel down %.1f-%.1f s, kneeling, up %.1f-%.1f s; sit down %.1f-%.1f s, '
                      'seated, up %.1f-%.1f s' % (self.k0, self.k1, self.u0, self.u1, self.s0,
                                                  self.s1, self.g0, self.g1))

    # --- kneeling: the legs are posed from the feet up (shin and thigh angles), the pelvis last
    def kneel_params(self, t, sig_end):
        if t > self.k1:                      # the way up is the way down backwards
            t = self.k0 + (self.u1 - t) if t >= self.u0 else self.k1
        k0, k1 = self.k0, self.k1
        km = k0 + 0.6 * (k1 - k0)
        sig = ease_keys(t, [(k0, 4.0), (k1, sig_end)])
        tau = ease_keys(t, [(k0, 4.0), (km, 50.0), (k1, 5.0)])
        gam = ease_keys(t, [(k0, 5.0), (km, 32.0), (k1, 8.0)])
        arm = ease_keys(t, [(k0, 0.0), (km, 35.0), (k1, 8.0)])
        return sig * RAD, tau * RAD, gam * RAD, arm * RAD

    def kneel_pelvis(self, t, sig, tau, gam):
        rig = self.rig
        sp = Spec()
        sp.pelvis_rot = rx(gam)
        sp.local = helper_locals(rig, 0.0, 0.0)
        g = rig.geo['L']
        st = self.feet['L'].at(t)[0]
        a = FootGeo(g).ankle(st)
        k = add(a, mul((0.0, math.cos(sig), math.sin(sig)), g['L2']))
        h = add(k, mul((0.0, math.cos(tau), -math.sin(tau)), g['L1']))
        off = hip_offsets(rig, sp)['L']
        return (0.0, h[1] - off[1], h[2] - off[2])

    def solve_kneel(self):
        """Shin angle at which the kneecaps touch the floor at the end of the kneel-down."""
        lo, hi = 80 * RAD, 140 * RAD
        for _ in range(60):
            mid = (lo + hi) / 2
            sp = self.kneel_spec(self.k1, mid)
            D, P = build_pose(self.rig, sp)
            if contact_points(self.rig, D, P)['L_knee'][1] > 0:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2 / RAD

    def kneel_spec(self, t, sig_end_rad=None):
        sig_end = self.sig_end if sig_end_rad is None else sig_end_rad / RAD
        sig, tau, gam, arm = self.kneel_params(t, sig_end)
        sp = Spec()
        sp.pelvis_rot = rx(gam)
        sp.local = helper_locals(self.rig, 0.0, 0.0)
        sp.pelvis_pos = self.kneel_pelvis(t, sig, tau, gam)
        sp.chest_rot = rx(gam * 0.5)
        sp.head_rot = rx(-0.3 * gam)
        for s in 'LR':
            sp.feet[s] = self.feet[s].at(t)[0]
            sp.knee_pole[s] = (0.0, 0.0, 1.0)
            sp.arms[s] = ('angles', arm, 10 * RAD, 15 * RAD + 0.5 * arm, 5 * RAD)
        return sp

    # --- sitting: the pelvis follows keys, the legs reach the flat feet by IK, the hands blend
    # from hanging to planted behind the hips
    def build_sit(self):
        rig = self.rig
        st = self.kneel_spec(self.s0)
        p0 = st.pelvis_pos
        gam_end = -14.0
        seat = mvec(rx(gam_end * RAD), sub(rig.seat, rig.rest_of('pelvis')))
        y_end = -seat[1]
        s0, s1 = self.s0, self.s1
        self.sit_z = [(s0, p0[2]), (s0 + 1.2, p0[2] - 0.12), (s1 - 0.7, p0[2] - 0.28),
                      (s1, p0[2] - 0.42)]
        self.sit_y = [(s0, p0[1]), (s0 + 1.2, 0.50), (s1 - 0.7, 0.30), (s1, y_end)]
        self.sit_g = [(s0, 5.0), (s0 + 1.2, 30.0), (s1 - 0.7, 5.0), (s1, gam_end)]
        self.hand_w = [(s1 - 0.8, 0.0), (s1 - 0.1, 1.0)]
        # the palms on the floor behind the hips, where the seated arms reach nearly straight;
        # the trunk leans back until they can (short arms lean further)
        for lean in range(24, 60, 2):
            self.sit_c = [(s0, 0.0), (s0 + 1.2, 5.0), (s1 - 0.7, -10.0), (s1, -lean)]
            D, P = build_pose(rig, self.sit_spec(s1, blend=False))
            self.palm = {}
            for s, sg in (('L', 1), ('R', -1)):
                sh = P[rig.idx('upperarm_' + s)]
                off = mvec(self.hand_floor(s), sub(rig.geo[s]['palm'], rig.rest_of('hand_' + s)))
                reach = 0.97 * (rig.geo[s]['A1'] + rig.geo[s]['A2'])
                drop = sh[1] + off[1]
                if reach * reach - drop * drop < 0.1 ** 2:
                    break
                back = math.sqrt(reach * reach - drop * drop - 0.03 ** 2)
                self.palm[s] = (sh[0] + sg * 0.03 + off[0], 0.0, sh[2] - back + off[2])
            if len(self.palm) == 2:
                break
        else:
            raise ValueError('the seated hands cannot reach the floor')
        self.lean = lean

    @staticmethod
    def hand_floor(s):
        """Hand flat on the floor, palm down, fingers pointing back and out."""
        return ry((60 if s == 'L' else -60) * RAD)

    def sit_spec(self, t, blend=True):
        if t > self.s1:
            t = self.s0 + (self.g1 - t) if t >= self.g0 else self.s1
        rig = self.rig
        sp = Spec()
        gam = ease_keys(t, self.sit_g) * RAD
        sp.pelvis_rot = rx(gam)
        sp.local = helper_locals(rig, 0.0, 0.0, clav=-4 * ease_keys(t, self.hand_w))
        sp.pelvis_pos = (0.0, ease_keys(t, self.sit_y), ease_keys(t, self.sit_z))
        sp.chest_rot = rx(gam + ease_keys(t, self.sit_c) * RAD)
        sp.head_rot = rx(-0.5 * gam)
        arm = ease_keys(t, [(self.s0, 0.0), (self.s0 + 1.2, 30.0), (self.s1 - 0.6, -20.0)]) * RAD
        for s in 'LR':
            sp.feet[s] = self.feet[s].at(t)[0]
            sp.knee_pole[s] = (0.0, 0.0, 1.0)
            sp.arms[s] = ('angles', arm, 12 * RAD, 20 * RAD, 5 * RAD)
        w = ease_keys(t, self.hand_w)
        if w > 0 and blend:
            for name, v in rig.roles.get('fingers', {}).items():    # flat on the floor
                sp.local[name] = euler_matrix('ZYX', [c * (1 - w) for c in v[::-1]])
            D, P = build_pose(rig, sp)
            for s, sg in (('L', 1), ('R', -1)):
                i_s, i_e, i_h = rig.idx('upperarm_' + s), rig.idx('forearm_' + s), rig.idx('hand_' + s)
                sh, el, wr = P[i_s], P[i_e], P[i_h]
                line = unit(sub(wr, sh))
                pole_a = sub(sub(el, sh), mul(line, dot(sub(el, sh), line)))
                palm_a = add(wr, mvec(D[i_h], sub(rig.geo[s]['palm'], rig.rest[i_h])))
                h_floor = self.hand_floor(s)
                pole = lerp(unit(pole_a), unit((sg * 0.3, 0.0, -1.0)), w)
                hrot = slerp(D[i_h], h_floor, w)
                off = mvec(hrot, sub(rig.geo[s]['palm'], rig.rest[i_h]))
                wrist = sub(lerp(palm_a, self.palm[s], w), off)
                reach = 0.998 * (rig.geo[s]['A1'] + rig.geo[s]['A2'])
                d = sub(wrist, sh)
                if length(d) > reach:          # on the way down: as far as the arm reaches
                    wrist = add(sh, mul(d, reach / length(d)))
                sp.arms[s] = ('ik', add(wrist, off), hrot, pole, (el, wr, D[i_s], D[i_e]))
        return sp

    def spec(self, t):
        if t < (self.u1 + self.s0) / 2:
            return self.kneel_spec(t)
        return self.sit_spec(t)


def gauss_smoothed(raw, sig):
    """The tuples raw (one a frame) smoothed by a Gaussian of sig frames (ends held)."""
    rad = int(3 * sig)
    out = []
    for i in range(len(raw)):
        acc, wsum = [0.0] * len(raw[0]), 0.0
        for k in range(-rad, rad + 1):
            j = min(max(i + k, 0), len(raw) - 1)
            wgt = math.exp(-0.5 * (k / sig) ** 2)
            wsum += wgt
            for c in range(len(acc)):
                acc[c] += wgt * raw[j][c]
        out.append(tuple(c / wsum for c in acc))
    return out


class Shuffle(Motion):
    """(e) boxer footwork on the balls of the feet (heels up 14 deg): step-drag advances and
    retreats, a side step, pivots on the front foot (its toe tip slides round, the rear foot
    slides on an arc), small quick bounce steps, all with the feet low; the sliding feet touch
    the floor while they move (a retargeter must not pin them)."""

    def __init__(self, rig, fps=120):
        self.rig = rig
        g = {s: FootGeo(rig.geo[s]) for s in 'LR'}
        fl = FootTrack(g['L'], g['L'].flat((0.10, 0.20), -20 * RAD))
        fr = FootTrack(g['R'], g['R'].flat((-0.20, -0.22), -50 * RAD))
        f = {'L': fl, 'R': fr}

        def both(t, dur, kind, amount, **kw):
            for tr in (fl, fr):
                tr.hold_until(t)
                tr.add(dur, kind, amount, **kw)

        def one(s, t, dur, kind, amount=0.0, **kw):
            f[s].hold_until(t)
            f[s].add(dur, kind, amount, **kw)

        both(0.5, 0.3, 'ball', -14 * RAD)
        for t0 in (0.9, 1.5):                                    # step-drag advances
            one('L', t0, 0.25, 'slide', (0.0, 0.20))
            one('R', t0 + 0.25, 0.25, 'slide', (0.0, 0.20))
        one('R', 2.2, 0.25, 'slide', (0.0, -0.22))               # retreat
        one('L', 2.45, 0.25, 'slide', (0.0, -0.22))
        one('L', 2.9, 0.2, 'slide', (0.18, 0.0))                 # side step to the left
        one('R', 3.1, 0.2, 'slide', (0.18, 0.0))
        fl.hold_until(3.5)
        self.piv1 = g['L'].point(fl.end_state(), 'ball')
        one('L', 3.5, 0.4, 'yaw', -40 * RAD)                     # pivot on the front foot
        one('R', 3.5, 0.4, 'yaw', -40 * RAD, pivot=self.piv1)
        fwd = mvec(ry(-40 * RAD), (0.0, 0.0, 0.08))
        for s, t0, sg in (('R', 4.1, 1), ('L', 4.3, 1), ('R', 4.5, -1), ('L', 4.7, -1)):
            tg = moved(f[s].end_state(), mul(fwd, sg))           # bounce steps
            one(s, t0, 0.2, 'swing', target=tg, lift=0.025)
        fl.hold_until(5.1)
        self.piv2 = g['L'].point(fl.end_state(), 'ball')
        one('L', 5.1, 0.4, 'yaw', 40 * RAD)                      # and back
        one('R', 5.1, 0.4, 'yaw', 40 * RAD, pivot=self.piv2)
        one('R', 5.7, 0.25, 'slide', (0.0, -0.2))                # retreat
        one('L', 5.95, 0.25, 'slide', (0.0, -0.2))
        both(6.4, 0.3, 'ball', 14 * RAD)
        fl.hold_until(7.0)
        fr.hold_until(7.0)
        super().__init__(rig, 'shuffle', fps, 7.0, feet=f)
        # the pelvis follows the feet (weighted to the rear foot), smoothed over 60 ms
        raw = []
        for i in range(self.frames):
            t = i / fps
            a = {s: f[s].at(t)[0] for s in 'LR'}
            al, ar = g['L'].ankle(a['L']), g['R'].ankle(a['R'])
            hd = (heading_of(a['L']) + heading_of(a['R'])) / 2
            raw.append((0.45 * al[0] + 0.55 * ar[0], 0.45 * al[2] + 0.55 * ar[2], hd))
        self.track = gauss_smoothed(raw, 0.06 * fps)
        self.notes = ('boxer footwork: heels up 0.5-0.8 s, slides 0.9-3.3 s, pivot on the left '
                      'ball 3.5-3.9 s and back 5.1-5.5 s, bounce steps 4.1-4.9 s, slides back, '
                      'heels down 6.4-6.7 s')

    def spec(self, t):
        rig = self.rig
        x, z, hd = self.track_at(t)
        turn = -40 * RAD * (smooth((t - 3.5) / 0.4) - smooth((t - 5.1) / 0.4))
        sp = Spec()
        sp.pelvis_rot = mmul(ry(hd + 5 * RAD), rx(12 * RAD))
        sp.local = helper_locals(rig, 0.0, 0.0, clav=6.0)
        sp.pelvis_pos = (x, 0.0, z - 0.03)
        sp.chest_rot = mmul(ry(0.5 * (hd + 5 * RAD) + 0.5 * turn), rx(10 * RAD))
        sp.head_rot = mmul(ry(turn), rx(4 * RAD))
        bob = math.sin(2 * math.pi * 2.2 * t)
        for s, sg in (('L', 1), ('R', -1)):
            sp.arms[s] = ('angles', (45 + 4 * sg * bob) * RAD, 16 * RAD, (105 - 3 * bob) * RAD, 0.0)
        guard = smooth(t / 0.4)
        if guard < 1:
            for s in 'LR':
                m = sp.arms[s]
                sp.arms[s] = ('angles', m[1] * guard, m[2], m[3] * guard + 15 * RAD * (1 - guard), 0.0)
        nominal = rig.rest_of('pelvis')[1] - 0.075 + 0.01 * bob
        return self.finish(sp, t, nominal)


class Squat(Motion):
    """(g) a deep squat on the balls of the feet, the feet sliding apart and back together in it:
    stand; heels up 30 deg about the balls (0.4-0.8 s) while the pelvis goes down into a deep
    squat (0.5-1.8 s: the hip joints below the knees, the legs folded to 30 deg); both feet slide
    outward together by 8 cm each (2.0-2.5 s), hold, slide back (2.8-3.3 s); stand up (3.5-4.7 s),
    heels down (4.5-4.9 s). While they slide no foot is planted: a retargeter's short legs, folded
    as far as they go, cannot lift their feet out of the floor by bending."""

    LATERAL = {'L': 0.12, 'R': -0.12}

    @staticmethod
    def stance(rig):
        """The feet's geometry and their tracks from the squat's stance (24 cm apart, flat)."""
        geos = {s: FootGeo(rig.geo[s]) for s in 'LR'}
        return geos, {s: FootTrack(geos[s], geos[s].flat((Squat.LATERAL[s], 0.0), 0.0))
                      for s in 'LR'}

    def squat_keys(self, rig):
        """The pelvis's height, forward move and pitch keys of the squat (down 0.5-1.8 s, up
        3.5-4.7 s)."""
        y_s = rig.rest_of('pelvis')[1] - 0.015
        self.yk = [(0.5, y_s), (1.8, 0.29), (3.5, 0.29), (4.7, y_s)]
        self.zk = [(0.5, 0.0), (1.8, -0.10), (3.5, -0.10), (4.7, 0.0)]
        self.pk = [(0.5, 4.0), (1.8, 35.0), (3.5, 35.0), (4.7, 4.0)]

    def __init__(self, rig, fps=120):
        self.rig = rig
        _, feet = self.stance(rig)
        for s, sg in (('L', 1), ('R', -1)):
            tr = feet[s]
            tr.hold_until(0.4)
            tr.add(0.4, 'ball', -30 * RAD)
            tr.hold_until(2.0)
            tr.add(0.5, 'slide', (sg * 0.08, 0.0))
            tr.hold_until(2.8)
            tr.add(0.5, 'slide', (-sg * 0.08, 0.0))
            tr.hold_until(4.5)
            tr.add(0.4, 'ball', 30 * RAD)
            tr.hold_until(5.2)
        super().__init__(rig, 'squat', fps, 5.2, feet)
        self.squat_keys(rig)
        self.notes = ('heels up 0.4-0.8 s, down into the squat 0.5-1.8 s, both feet slide out '
                      '2.0-2.5 s and back 2.8-3.3 s, up 3.5-4.7 s, heels down 4.5-4.9 s')

    def spec(self, t):
        sp, pitch = self.pitched_spec(t)
        y = ease_keys(t, self.yk)
        sp.pelvis_pos = (0.0, y, ease_keys(t, self.zk))
        sp.chest_rot = rx(pitch * 0.8)
        sp.head_rot = rx(-0.2 * pitch)
        arm = ease_keys(t, [(0.5, 0.0), (1.8, 80.0), (3.5, 80.0), (4.7, 0.0)]) * RAD
        for s in 'LR':
            sp.arms[s] = ('angles', arm, 10 * RAD, 20 * RAD, 5 * RAD)
        sp = self.finish(sp, t, y, k=0.002)
        for s, sg in (('L', 1), ('R', -1)):        # the knees over the feet, a little out
            sp.knee_pole[s] = unit((sg * 0.5, 0.0, 1.0))
        return sp


class KneesInSquat(Squat):
    """(j) a flat-footed deep squat with the knees brought together: the pelvis as in (g), the
    feet 24 cm apart, flat, the knees turned in (each 0.6 of the way from forward toward the
    other leg), so the thighs converge while the feet stay apart; in the squat each foot steps in
    place (4 cm up; the left 2.0-2.35 s, the right 2.7-3.05 s). A leg of one bone that follows
    its thigh would plant its foot across the other's."""

    def __init__(self, rig, fps=120):
        self.rig = rig
        geos, feet = self.stance(rig)
        for s, t0 in (('L', 2.0), ('R', 2.7)):     # in the squat, each foot steps in place
            tr = feet[s]
            tr.hold_until(t0)
            tr.add(0.35, 'swing', target=geos[s].flat((self.LATERAL[s], 0.0), 0.0), lift=0.04)
            tr.hold_until(5.2)
        Motion.__init__(self, rig, 'squat_knees_in', fps, 5.2, feet)
        self.squat_keys(rig)
        self.notes = ('down into a flat-footed squat 0.5-1.8 s with the knees turned in, the left '
                      'foot steps in place 2.0-2.35 s, the right 2.7-3.05 s, up 3.5-4.7 s')

    def spec(self, t):
        sp = Squat.spec(self, t)
        for s, sg in (('L', 1), ('R', -1)):        # the knees in, toward the other leg
            sp.knee_pole[s] = unit((-sg * 0.6, 0.0, 1.0))
        return sp


class Cross(Motion):
    """(f) standing, feet drawn across: from a stance with the feet under the hips (the pelvis at
    its rest height), the left foot slides on the floor across in front of the right one (ending
    5 cm right of the body's middle line) and plants there while the right one holds, then slides
    back; the right foot does the same to the left. A retargeter may not pin a sliding foot, so
    the foot plants beside a held one at the end of a slide. The pelvis stays over the middle of
    the feet (smoothed over 0.1 s)."""

    def __init__(self, rig, fps=120):
        self.rig = rig
        g = {s: FootGeo(rig.geo[s]) for s in 'LR'}
        home = {'L': g['L'].flat((0.09, 0.0), 0.0), 'R': g['R'].flat((-0.09, 0.0), 0.0)}
        f = {s: FootTrack(g[s], home[s]) for s in 'LR'}
        for s, t0, sg in (('L', 0.6, 1), ('R', 2.8, -1)):
            f[s].hold_until(t0)
            f[s].add(0.5, 'slide', (-sg * 0.14, 0.12))
            f[s].hold_until(t0 + 1.3)
            f[s].add(0.5, 'slide', (sg * 0.14, -0.12))
        for s in 'LR':
            f[s].hold_until(5.0)
        super().__init__(rig, 'cross', fps, 5.0, feet=f)
        self.notes = ('feet drawn across: the left foot slides across in front of the right '
                      '0.6-1.1 s, plants until 1.9 s and slides back; the right foot the same '
                      '2.8-4.6 s')
        ankles = [[g[s].ankle(f[s].at(i / fps)[0]) for s in 'LR'] for i in range(self.frames)]
        self.track = gauss_smoothed([((l[0] + r[0]) / 2, (l[2] + r[2]) / 2) for l, r in ankles],
                                    0.1 * fps)

    def spec(self, t):
        rig = self.rig
        x, z = self.track_at(t)
        sp = Spec()
        sp.pelvis_rot = rx(3 * RAD)
        sp.local = helper_locals(rig, 0.0, 0.0)
        sp.pelvis_pos = (x, 0.0, z)
        sp.arms = arm_swing(t, 0.0, 1.0e9)
        return self.finish(sp, t, rig.rest_of('pelvis')[1])


class CreepIdle(Motion):
    """(i) a game robot's idle whose left foot creeps: standing on feet that do not roll (the
    lower leg's mesh carries a rocker foot), the body sways forward 4 cm and back (1.2-1.9 s,
    2.2-2.9 s, the shins pitching) while the left foot, still in contact, creeps 2 cm forward
    and back with it (under a retargeter's stillness limit: a slide, not a roll of its rocker
    sole, which would carry the leg's end no further than the sole's radius times the shin's
    turn); the right foot stays put."""

    def __init__(self, rig, fps=30, lateral=0.1):
        self.rig = rig
        geos = {s: FootGeo(rig.geo[s]) for s in 'LR'}
        feet = {s: FootTrack(geos[s], geos[s].flat((lateral if s == 'L' else -lateral, 0.0), 0.0))
                for s in 'LR'}
        feet['L'].hold_until(1.2)
        feet['L'].add(0.7, 'slide', (0.0, 0.02))
        feet['L'].hold_until(2.2)
        feet['L'].add(0.7, 'slide', (0.0, -0.02))
        for s in 'LR':
            feet[s].hold_until(4.4)
        super().__init__(rig, 'idle', fps, 4.4, feet)
        self.zk = [(1.2, 0.0), (1.9, 0.04), (2.2, 0.04), (2.9, 0.0)]
        self.notes = ('sway forward 1.2-1.9 s and back 2.2-2.9 s, the left foot creeping 2 cm '
                      'forward and back with it')

    def spec(self, t):
        rig = self.rig
        sp = Spec()
        sp.pelvis_rot = rx(2 * RAD)
        sp.local = helper_locals(rig, 0.0, 0.0)
        sp.pelvis_pos = (0.0, 0.0, ease_keys(t, self.zk))
        sp.arms = arm_swing(t, 0.0, 1.0e9, amp=4.0)
        return self.finish(sp, t, rig.rest_of('pelvis')[1] - NOMDROP)


def game_robot_rig(bones):
    """make_characters.py's game robot as a Rig: bones [(name, parent name, head in the internal
    frame)], joints at the heads. Its lower legs carry the feet in their mesh (no foot bone): the
    foot the walk plans is virtual, ends ankle.*, ball.* and tip.* under the lower leg, the ankle
    where the Foot.* IK control rests."""
    index = {nm: i for i, (nm, p, h) in enumerate(bones)}
    joints = [(nm, index[p] if p else -1, h, False) for nm, p, h in bones]
    for side in ('.L', '.R'):
        a = bones[index['Foot' + side]][2]
        joints.append(('ankle' + side, index['LowerLeg' + side], a, True))
        joints.append(('ball' + side, len(joints) - 1, (a[0], 0.02, a[2] + 0.12), True))
        joints.append(('tip' + side, len(joints) - 1, (a[0], 0.02, a[2] + 0.17), True))
    roles = {'pelvis': 'Hips', 'ground': 'Root', 'spine': ['Spine', 'Chest'], 'neck': ['Neck', 'Head'],
             'fingers': {}}
    for s, side in (('L', '.L'), ('R', '.R')):
        roles.update({'hipjoint_' + s: [], 'thigh_' + s: 'UpperLeg' + side,
                      'shin_' + s: 'LowerLeg' + side, 'foot_' + s: 'ankle' + side,
                      'toe_' + s: 'ball' + side, 'toe_end_' + s: 'tip' + side,
                      'clavicle_' + s: ['Shoulder' + side], 'upperarm_' + s: 'UpperArm' + side,
                      'forearm_' + s: 'LowerArm' + side, 'hand_' + s: 'Hand' + side})
    return Rig(joints, roles, heel_back=0.07)


def game_robot_walk(rig):
    """The robot's walk: 5 s at 30 fps, shorter and slower steps than a person's, on feet that
    do not roll (the lower leg's mesh carries a rocker foot), the feet under the hips."""
    return Walk(rig, fps=30, duration=5.0, roll=False, speed=0.9, period=1.0,
                lateral=abs(rig.rest_of('thigh_L')[0]))


def game_robot_idle(rig):
    """The robot's idle whose left foot creeps (CreepIdle), 4.4 s at 30 fps, the feet under the
    hips."""
    return CreepIdle(rig, lateral=abs(rig.rest_of('thigh_L')[0]))


def game_robot_pose(rig, walk, t):
    """The robot's pose at time t of a walk: the root bone on the floor under the pelvis, turned
    to its heading. Returns (D, P, spec)."""
    sp = walk.spec(t)
    x, _, z = sp.pelvis_pos
    f = mvec(sp.pelvis_rot, (0.0, 0.0, 1.0))
    sp.ground = ((x, 0.0, z), ry(math.atan2(f[0], f[2])))
    D, P = build_pose(rig, sp)
    return D, P, sp


# ----------------------------------------------------------------------------------------------
# Writing, truth and checks

def fmt(v):
    s = '%.4f' % v
    s = s.rstrip('0').rstrip('.')
    return '0' if s in ('-0', '') else s


def write_clip(path, hier_text, jts, rig, conv, motion):
    """Writes the BVH (hierarchy text as given) and returns the per-frame poses."""
    n = motion.frames
    prev = {}
    lines = []
    poses = []
    root_off = jts[0].offset
    for f in range(n):
        t = f / motion.fps
        sp = motion.spec(t)
        D, P = build_pose(rig, sp)
        poses.append((D, P, sp))
        vals = []
        for j, jt in enumerate(jts):
            if jt.end:
                continue
            par = jt.parent
            loc = D[j] if par < 0 else mmul(mT(D[par]), D[j])
            order = ''.join(c[0] for c in jt.channels if c.endswith('rotation'))
            ang = euler_angles(conv.to_file_rot(loc), order, prev.get(j))
            prev[j] = ang
            k = 0
            for ch in jt.channels:
                if ch.endswith('position'):
                    p = conv.to_file_vec(P[j])
                    if conv.root_add_offset:
                        p = sub(p, root_off)
                    vals.append(p[AXIS[ch[0]]])
                else:
                    vals.append(ang[k])
                    k += 1
        lines.append(' '.join(fmt(v) for v in vals))
    with open(path, 'w', newline='\n') as fh:
        fh.write(hier_text)
        fh.write('MOTION\nFrames: %d\nFrame Time: %.7f\n' % (n, 1.0 / motion.fps))
        fh.write('\n'.join(lines) + '\n')
    return poses


def flags_string(bits):
    return ''.join('1' if b else '0' for b in bits)


def runs(bits):
    out, start = [], None
    for f, b in enumerate(list(bits) + [False]):
        if b and start is None:
            start = f
        elif not b and start is not None:
            out.append((start, f - 1))
            start = None
    return out


def rnd(v):
    return [round(c, 6) + 0.0 for c in v]


def dump_json(v, ind=0):
    """JSON with one key per line and lists of numbers (and short lists) on one line."""
    pad = ' ' * (ind + 1)
    if isinstance(v, dict):
        items = [pad + json.dumps(k) + ': ' + dump_json(x, ind + 1) for k, x in v.items()]
        return '{\n' + ',\n'.join(items) + '\n' + ' ' * ind + '}' if items else '{}'
    if isinstance(v, list) and any(isinstance(x, dict) for x in v):
        return '[\n' + ',\n'.join(pad + dump_json(x, ind + 1) for x in v) + '\n' + ' ' * ind + ']'
    return json.dumps(v, separators=(', ', ': '))


def make_truth(path, clip_name, rig, conv, motion, poses, skeleton):
    n = motion.frames
    feet = {}
    for s, side in (('L', 'left'), ('R', 'right')):
        geo = FootGeo(rig.geo[s])
        where = {p: [] for p in POINTS}
        for f in range(n):
            st = motion.feet[s].at(f / motion.fps)[0]
            for p in POINTS:
                where[p].append(geo.point(st, p))
        # A point touches the floor when the plan puts it there (exactly, up to rounding); it
        # slides when it touches at this frame and the next one but not at the same place;
        # otherwise a touching point is planted (still, or about to lift off).
        planted = {p: [] for p in POINTS}
        sliding = {p: [] for p in POINTS}
        for p in POINTS:
            w = where[p]
            for f in range(n):
                on = abs(w[f][1]) < 1e-6
                nxt = f + 1 < n and abs(w[f + 1][1]) < 1e-6
                slides = on and nxt and length(sub(w[f + 1], w[f])) > 1e-6
                planted[p].append(on and not slides)
                sliding[p].append(slides)
        contacts = []
        for p in POINTS:
            for a, b in runs(planted[p]):
                contacts.append({'point': p, 'state': 'planted', 'first': a, 'last': b,
                                 'position_m': rnd(where[p][a])})
            for a, b in runs(sliding[p]):
                contacts.append({'point': p, 'state': 'sliding', 'first': a, 'last': b,
                                 'from_m': rnd(where[p][a]),
                                 'to_m': rnd(where[p][b])})
        contacts.sort(key=lambda c: (c['first'], c['point']))
        g = rig.geo[s]
        pts = {'heel': (rig.roles['foot_' + s], g['heel'], g['A0']),
               'ball': (rig.roles['toe_' + s], g['ball'], g['B0']),
               'toe': (rig.roles['toe_' + s], g['toe'], g['B0'])}
        feet[side] = {
            'joints': {'ankle': rig.roles['foot_' + s], 'ball': rig.roles['toe_' + s],
                       'toe_end': rig.roles['toe_end_' + s]},
            'points': {k: {'bone': b, 'offset_m': rnd(sub(pt, o)),
                           'offset_file': rnd(conv.to_file_vec(sub(pt, o)))}
                       for k, (b, pt, o) in pts.items()},
            'planted': {p: flags_string(planted[p]) for p in POINTS},
            'sliding': {p: flags_string(sliding[p]) for p in POINTS},
            'planted_any': [[a, b] for a, b in runs([any(planted[p][f] for p in POINTS)
                                                     for f in range(n)])],
            'sliding_any': [[a, b] for a, b in runs([any(sliding[p][f] for p in POINTS)
                                                     for f in range(n)])],
            'contacts': contacts}
    body = {}
    cps = [contact_points(rig, D, P) for D, P, _ in poses]
    parts = {'left_hand': ('L_hand', rig.roles['hand_L'], rig.geo['L']['palm'], rig.rest_of('hand_L')),
             'right_hand': ('R_hand', rig.roles['hand_R'], rig.geo['R']['palm'], rig.rest_of('hand_R')),
             'left_knee': ('L_knee', rig.roles['shin_L'], rig.geo['L']['kneecap'], rig.rest_of('shin_L')),
             'right_knee': ('R_knee', rig.roles['shin_R'], rig.geo['R']['kneecap'], rig.rest_of('shin_R')),
             'seat': ('seat', rig.roles['pelvis'], rig.seat, rig.rest_of('pelvis'))}
    for name, (key, bone, pt, o) in parts.items():
        touching = [abs(c[key][1]) < 1e-4 for c in cps]
        body[name] = {'bone': bone, 'offset_m': rnd(sub(pt, o)),
                      'offset_file': rnd(conv.to_file_vec(sub(pt, o))),
                      'touching': flags_string(touching),
                      'intervals': [[a, b] for a, b in runs(touching)]}
    doc = {'format': 'rigkit-generated-truth 1', 'clip': clip_name, 'skeleton': skeleton,
           'motion': motion.name, 'fps': motion.fps, 'frames': n,
           'duration_s': round((n - 1) / motion.fps, 6),
           'unit': 'cmu' if conv is YUP else 'dm', 'metres_per_unit': conv.unit,
           'up': 'Y' if conv is YUP else 'Z',
           'root_offset': 'replace' if conv is YUP else 'add',
           'coordinates': 'metres, Y up, facing +Z at frame 0 (rigkit fk --json frame)',
           'floor_height_m': 0.0,
           'notes': motion.notes if hasattr(motion, 'notes') else '',
           'feet': feet, 'body': body}
    with open(path, 'w') as fh:
        fh.write(dump_json(doc) + '\n')
    return doc


def build_all(outdir, only=None):
    cmu_text = cmu_hierarchy()
    cmu_rig, cmu_jts = Rig.from_hierarchy(cmu_text, YUP, CMU_ROLES, CMU_HIPS_REST)
    mh_text = mh_hierarchy()
    mh_rig, mh_jts = Rig.from_hierarchy(mh_text, ZUP_DM, MH_ROLES)
    todo = [('cmu_walk', cmu_text, cmu_jts, cmu_rig, YUP, lambda r: Walk(r), 'cmu'),
            ('cmu_hop', cmu_text, cmu_jts, cmu_rig, YUP, lambda r: Hop(r), 'cmu'),
            ('cmu_turn', cmu_text, cmu_jts, cmu_rig, YUP, lambda r: Turn(r), 'cmu'),
            ('cmu_floor', cmu_text, cmu_jts, cmu_rig, YUP, lambda r: Floor(r), 'cmu'),
            ('cmu_shuffle', cmu_text, cmu_jts, cmu_rig, YUP, lambda r: Shuffle(r), 'cmu'),
            ('cmu_cross', cmu_text, cmu_jts, cmu_rig, YUP, lambda r: Cross(r), 'cmu'),
            ('cmu_squat', cmu_text, cmu_jts, cmu_rig, YUP, lambda r: Squat(r), 'cmu'),
            ('cmu_squat_in', cmu_text, cmu_jts, cmu_rig, YUP, lambda r: KneesInSquat(r), 'cmu'),
            ('mh_walk', mh_text, mh_jts, mh_rig, ZUP_DM, lambda r: Walk(r, fps=60), 'makehuman'),
            ('mh_floor', mh_text, mh_jts, mh_rig, ZUP_DM, lambda r: Floor(r, fps=60), 'makehuman')]
    written = []
    for name, text, jts, rig, conv, make, skel in todo:
        if only and name not in only:
            continue
        motion = make(rig)
        bvh = os.path.join(outdir, name + '.bvh')
        poses = write_clip(bvh, text, jts, rig, conv, motion)
        truth = make_truth(os.path.join(outdir, name + '.truth.json'), name + '.bvh', rig, conv,
                           motion, poses, skel)
        written.append((name, bvh, jts, rig, conv, motion, truth))
        print('%s: %d frames, %.3f s, %d bytes' % (name, motion.frames,
                                                    (motion.frames - 1) / motion.fps,
                                                    os.path.getsize(bvh)))
    return written


def check_clip(name, bvh, rig, conv, truth, rigkit=None):
    jts, ftime, frames = read_bvh(bvh)
    n = len(frames)
    fk = [file_fk(jts, conv, v) for v in frames]
    worst = {'floor': 0.0, 'planted_step': 0.0, 'rot_step_deg': 0.0, 'euler_step_deg': 0.0,
             'touch': 0.0}
    # joints above the floor
    for f, (P, D) in enumerate(fk):
        low = min(p[1] for p in P)
        worst['floor'] = min(worst['floor'], low)
    cps = [contact_points(rig, D, P) for P, D in fk]
    for s, side in (('L', 'left'), ('R', 'right')):
        for p in POINTS:
            bits = truth['feet'][side]['planted'][p]
            for f in range(n):
                c = cps[f][s + '_' + p]
                worst['floor'] = min(worst['floor'], c[1])
                if bits[f] == '1':
                    worst['touch'] = max(worst['touch'], abs(c[1]))
                    if f > 0 and bits[f - 1] == '1':
                        worst['planted_step'] = max(worst['planted_step'],
                                                    length(sub(c, cps[f - 1][s + '_' + p])))
    for part, d in truth['body'].items():
        key = {'left_hand': 'L_hand', 'right_hand': 'R_hand', 'left_knee': 'L_knee',
               'right_knee': 'R_knee', 'seat': 'seat'}[part]
        for f in range(n):
            c = cps[f][key]
            worst['floor'] = min(worst['floor'], c[1])
            if d['touching'][f] == '1':
                worst['touch'] = max(worst['touch'], abs(c[1]))
    for f in range(1, n):
        for j in range(len(jts)):
            worst['rot_step_deg'] = max(worst['rot_step_deg'],
                                        angle_between(fk[f - 1][1][j], fk[f][1][j]) / RAD)
        worst['euler_step_deg'] = max(worst['euler_step_deg'],
                                      max(abs(a - b) for a, b in zip(frames[f], frames[f - 1])))
    ok = (worst['floor'] > -0.001 and worst['planted_step'] < 0.0005 and worst['touch'] < 0.001
          and worst['rot_step_deg'] < 15.0)
    print('%s: lowest point %.5f m, planted step max %.6f m, touching off-floor max %.6f m, '
          'world rotation step max %.2f deg/frame, channel step max %.2f'
          % (name, worst['floor'], worst['planted_step'], worst['touch'], worst['rot_step_deg'],
             worst['euler_step_deg']))
    if rigkit:
        unit = ['--unit', 'cmu'] if conv is YUP else []
        maxd = 0.0
        for f in sorted({0, n // 3, n // 2, n - 1}):
            out = subprocess.run([rigkit, 'fk', '--frame', str(f), '--json'] + unit + [bvh],
                                 check=True, capture_output=True, text=True).stdout
            rk = {j['name']: j['position'] for j in json.loads(out)['joints']}
            for j, jt in enumerate(jts):
                maxd = max(maxd, length(sub(tuple(rk[jt.name]), fk[f][0][j])))
        print('%s: rigkit fk vs this FK at 4 frames: max %.3g mm' % (name, maxd * 1000))
        ok = ok and maxd < 1e-4
    return ok, worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out', default=HERE)
    ap.add_argument('--check', action='store_true')
    ap.add_argument('--rigkit')
    ap.add_argument('--only', nargs='*')
    a = ap.parse_args()
    written = build_all(a.out, a.only)
    if a.check or a.rigkit:
        bad = 0
        for name, bvh, jts, rig, conv, motion, truth in written:
            ok, _ = check_clip(name, bvh, rig, conv, truth, a.rigkit)
            bad += not ok
        if bad:
            print('FAILED: %d clip(s)' % bad)
            sys.exit(1)


if __name__ == '__main__':
    main()
