#!/usr/bin/env python3
"""Writes the small hand-made test files of tests/data/crafted (written for rigkit, CC0).

Run from anywhere: python3 tests/data/crafted/make_crafted.py. The outputs are committed; this
script documents exactly what they contain and why.
"""
import base64
import json
import math
import os
import re
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def f32(values):
    return struct.pack('<%df' % len(values), *values)


class Gltf:
    """Minimal glTF 2.0 writer: one buffer, float accessors."""

    def __init__(self):
        self.doc = {'asset': {'version': '2.0', 'generator': 'rigkit make_crafted.py'},
                    'scene': 0, 'scenes': [{'nodes': []}], 'nodes': [], 'buffers': [],
                    'bufferViews': [], 'accessors': []}
        self.bin = bytearray()

    def accessor(self, values, type_, count, minmax=False):
        while len(self.bin) % 4:
            self.bin.append(0)
        data = f32(values)
        self.doc['bufferViews'].append({'buffer': 0, 'byteOffset': len(self.bin),
                                        'byteLength': len(data)})
        self.bin += data
        acc = {'bufferView': len(self.doc['bufferViews']) - 1, 'componentType': 5126,
               'count': count, 'type': type_}
        if minmax:
            acc['min'] = [min(values)]
            acc['max'] = [max(values)]
        self.doc['accessors'].append(acc)
        return len(self.doc['accessors']) - 1

    def node(self, **kw):
        self.doc['nodes'].append(kw)
        return len(self.doc['nodes']) - 1

    def write(self, name, external_bin=None):
        if external_bin:
            self.doc['buffers'] = [{'uri': external_bin, 'byteLength': len(self.bin)}]
            with open(os.path.join(HERE, external_bin), 'wb') as f:
                f.write(self.bin)
        else:
            self.doc['buffers'] = [{'uri': 'data:application/octet-stream;base64,' +
                                    base64.b64encode(bytes(self.bin)).decode(),
                                    'byteLength': len(self.bin)}]
        with open(os.path.join(HERE, name), 'w') as f:
            json.dump(self.doc, f, indent=1)
            f.write('\n')


def triangle_mesh(g, skinned):
    pos = g.accessor([0, 0, 0, 0.1, 0, 0, 0, 0.1, 0], 'VEC3', 3)
    g.doc['accessors'][pos]['min'] = [0, 0, 0]
    g.doc['accessors'][pos]['max'] = [0.1, 0.1, 0]
    attrs = {'POSITION': pos}
    if skinned:
        while len(g.bin) % 4:
            g.bin.append(0)
        joints = struct.pack('<12B', *([0, 1, 0, 0] * 3))
        g.doc['bufferViews'].append({'buffer': 0, 'byteOffset': len(g.bin), 'byteLength': 12})
        g.bin += joints
        g.doc['accessors'].append({'bufferView': len(g.doc['bufferViews']) - 1,
                                   'componentType': 5121, 'count': 3, 'type': 'VEC4'})
        attrs['JOINTS_0'] = len(g.doc['accessors']) - 1
        attrs['WEIGHTS_0'] = g.accessor([1, 0, 0, 0, 0.5, 0.5, 0, 0, 0, 1, 0, 0], 'VEC4', 3)
    g.doc.setdefault('meshes', []).append({'primitives': [{'attributes': attrs}]})
    return len(g.doc['meshes']) - 1


def dup_names():
    """Quaternius-style rig: a mesh node and a joint share the name 'Head', and two skin joints are
    both called 'Hand'. The animation rotates joint 'Head' (node 3) by 90 degrees about Z and moves
    the second 'Hand' (node 5) up by 0.2 m. Assimp binds channels by name, so without renaming
    the rotation would land on the mesh node."""
    g = Gltf()
    head_mesh = triangle_mesh(g, False)
    body_mesh = triangle_mesh(g, True)
    n_headmesh = g.node(name='Head', mesh=head_mesh, translation=[0, 1.6, 0])
    n_hips = g.node(name='Hips', translation=[0, 1.0, 0], children=[2, 3, 4, 5])
    n_spine_top = g.node(name='Chest', translation=[0, 0.3, 0])
    n_head = g.node(name='Head', translation=[0, 0.5, 0], children=[6])
    n_hand_l = g.node(name='Hand', translation=[0.5, 0.3, 0])
    n_hand_r = g.node(name='Hand', translation=[-0.5, 0.3, 0])
    n_top = g.node(name='HeadTop', translation=[0, 0.3, 0])
    ibm = []
    for y in (1.0, 1.5):
        ibm += [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -y, 0, 1]
    g.doc['skins'] = [{'joints': [n_hips, n_head, n_hand_l, n_hand_r, n_spine_top, n_top],
                       'inverseBindMatrices': g.accessor(ibm + [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0,
                                                                0, 0, 0, 1] * 4, 'MAT4', 6)}]
    n_body = g.node(name='Body', mesh=body_mesh, skin=0)
    g.doc['scenes'][0]['nodes'] = [n_headmesh, n_hips, n_body]
    times = g.accessor([0, 1], 'SCALAR', 2, True)
    s = math.sin(math.pi / 4)
    rot = g.accessor([0, 0, 0, 1, 0, 0, s, s], 'VEC4', 2)
    tr = g.accessor([-0.5, 0.3, 0, -0.5, 0.5, 0], 'VEC3', 2)
    g.doc['animations'] = [{'name': 'nod',
                            'samplers': [{'input': times, 'output': rot},
                                         {'input': times, 'output': tr}],
                            'channels': [{'sampler': 0, 'target': {'node': n_head, 'path': 'rotation'}},
                                         {'sampler': 1, 'target': {'node': n_hand_r, 'path': 'translation'}}]}]
    g.write('dup_names.gltf')


def interpolation(name='interpolation.gltf', external_bin=None):
    """Two animated nodes (no mesh): 'A' has a STEP translation, 'B' a CUBICSPLINE translation
    with known tangents and a LINEAR rotation. Assimp 5.2.5 reads every sampler as linear keys."""
    g = Gltf()
    a = g.node(name='A', children=[1])
    b = g.node(name='B', translation=[0, 1, 0])
    g.doc['scenes'][0]['nodes'] = [a]
    t3 = g.accessor([0, 1, 2], 'SCALAR', 3, True)
    step = g.accessor([0, 0, 0, 0, 1, 0, 0, 2, 0], 'VEC3', 3)
    # per key: in-tangent, value, out-tangent
    cubic = g.accessor([0, 0, 0, 0, 1, 0, 3, 0, 0,
                        0, 0, 0, 1, 1, 0, 0, 0, 0,
                        0, 0, 0, 1, 1, 0, 0, 0, 0], 'VEC3', 9)
    s = math.sin(math.pi / 4)
    rot = g.accessor([0, 0, 0, 1, 0, s, 0, s, 0, 1, 0, 0], 'VEC4', 3)
    g.doc['animations'] = [{'name': 'interp',
                            'samplers': [{'input': t3, 'output': step, 'interpolation': 'STEP'},
                                         {'input': t3, 'output': cubic,
                                          'interpolation': 'CUBICSPLINE'},
                                         {'input': t3, 'output': rot, 'interpolation': 'LINEAR'}],
                            'channels': [{'sampler': 0, 'target': {'node': a, 'path': 'translation'}},
                                         {'sampler': 1, 'target': {'node': b, 'path': 'translation'}},
                                         {'sampler': 2, 'target': {'node': b, 'path': 'rotation'}}]}]
    g.write(name, external_bin)


def bvh_human(path, unit, up, root_in_channels, crlf_tabs=False, frames_declared=None,
              order='Zrotation Xrotation Yrotation'):
    """A 1.75 m stick figure (root at the hips) in `unit` (metres per file unit), with `up` 'Y' or
    'Z'. root_in_channels: the root position channels carry the full hip height (the OFFSET is
    the rest hip position as well), else the OFFSET holds the height and the channels only the
    motion. Three frames: rest, hips lowered 0.1 m, hips lowered 0.1 m and spine bent 30 degrees."""
    s = 1.0 / unit

    def v(x, y, z):  # canonical Y-up metres -> file axes and units
        if up == 'Y':
            return (x * s, y * s, z * s)
        return (x * s, -z * s, y * s)

    def off(x, y, z):
        return 'OFFSET %.6f %.6f %.6f' % v(x, y, z)

    joints = [
        ('ROOT', 'Hips', off(0, 0.95, 0), 6, [
            ('JOINT', 'Spine', off(0, 0.25, 0), 3, [
                ('JOINT', 'Neck', off(0, 0.3, 0), 3, [
                    ('JOINT', 'Head', off(0, 0.1, 0), 3, [('End', 'Site', off(0, 0.15, 0), 0, [])])]),
                ('JOINT', 'LeftArm', off(0.2, 0.25, 0), 3, [
                    ('JOINT', 'LeftHand', off(0.5, 0, 0), 3, [('End', 'Site', off(0.15, 0, 0), 0, [])])]),
                ('JOINT', 'RightArm', off(-0.2, 0.25, 0), 3, [
                    ('JOINT', 'RightHand', off(-0.5, 0, 0), 3, [('End', 'Site', off(-0.15, 0, 0), 0, [])])])]),
            ('JOINT', 'LeftUpLeg', off(0.1, -0.05, 0), 3, [
                ('JOINT', 'LeftLeg', off(0, -0.42, 0), 3, [
                    ('JOINT', 'LeftFoot', off(0, -0.4, 0), 3, [('End', 'Site', off(0, -0.08, 0.15), 0, [])])])]),
            ('JOINT', 'RightUpLeg', off(-0.1, -0.05, 0), 3, [
                ('JOINT', 'RightLeg', off(0, -0.42, 0), 3, [
                    ('JOINT', 'RightFoot', off(0, -0.4, 0), 3, [('End', 'Site', off(0, -0.08, 0.15), 0, [])])])])])]
    nl = '\r\n' if crlf_tabs else '\n'
    ind = '\t' if crlf_tabs else '  '
    out = ['HIERARCHY']
    channels = []

    def emit(j, depth):
        kind, name, offset, nch, children = j
        out.append(ind * depth + '%s %s' % (kind, name))
        out.append(ind * depth + '{')
        out.append(ind * (depth + 1) + offset)
        if nch == 6:
            out.append(ind * (depth + 1) + 'CHANNELS 6 Xposition Yposition Zposition ' + order)
        elif nch == 3:
            out.append(ind * (depth + 1) + 'CHANNELS 3 ' + order)
        if nch:
            channels.append((name, nch))
        for c in children:
            emit(c, depth + 1)
        out.append(ind * depth + '}')
    emit(joints[0], 0)
    rows = []
    for f in range(3):
        row = []
        for name, nch in channels:
            if nch == 6:
                drop = 0.0 if f == 0 else -0.1
                pos = v(0, (0.95 if root_in_channels else 0) + drop, 0)
                row += list(pos) + [0, 0, 0]
            elif name == 'Spine' and f == 2:
                # 30 degrees about the file's lateral axis (X in both conventions)
                angles = {'Xrotation': 30.0, 'Yrotation': 0.0, 'Zrotation': 0.0}
                row += [angles[c] for c in order.split()]
            else:
                row += [0, 0, 0]
        rows.append(' '.join('%.6f' % x for x in row))
    out.append('MOTION')
    out.append('Frames: %d' % (frames_declared if frames_declared is not None else len(rows)))
    out.append('Frame Time: 0.033333')
    out += rows
    with open(os.path.join(HERE, path), 'w', newline='') as f:
        f.write(nl.join(out) + nl)


def dh_tables():
    with open(os.path.join(HERE, '..', 'iiwa14.dh'), 'w') as f:
        f.write("""rigkit-dh 1
# KUKA LBR iiwa 14 R820, standard DH (a, alpha, d, theta offset), as in
# ../shared/bench/README.md; joint limits in degrees.
name KUKA LBR iiwa 14
convention standard
length m
angle deg
up z
joint A1 revolute 0 -90 0.360 0 -170 170
joint A2 revolute 0  90 0     0 -120 120
joint A3 revolute 0  90 0.420 0 -170 170
joint A4 revolute 0 -90 0     0 -120 120
joint A5 revolute 0 -90 0.400 0 -170 170
joint A6 revolute 0  90 0     0 -120 120
joint A7 revolute 0   0 0.126 0 -175 175
""")
    with open(os.path.join(HERE, 'planar_rrp.dh'), 'w') as f:
        f.write("""rigkit-dh 1
# A planar RRP arm in the textbook's standard DH form, in millimetres, with three frames.
name planar RRP
convention standard
length mm
angle deg
up z
base 0 0 100
tool 0 0 0 0 0 90
joint shoulder revolute 400 0 0 0
joint elbow revolute 300 0 0 0
joint slide prismatic 0 0 50 0
fps 10
frame 0 0 0
frame 90 0 0
frame 90 -90 100
""")


# Retarget profiles (the --map format: [settings], [source] and [target] bone=joint groups) for the
# crafted BVH human (source) and RiggedFigure.glb (target). The second is the same profile as
# Windows editors and hand-aligned files write it: CRLF line ends, tabs around '=' and before
# keys, comments, a bone unmapped by an empty value; both must load and give the same maps.
PROFILE = [
    '# rigkit retarget profile: crafted BVH human -> RiggedFigure.glb',
    '[settings]',
    'fps=30',
    'foot_ik=true',
    'hand_ik=false',
    'root_motion=false',
    'contact_height=0.03',
    'contact_speed=0.15',
    'contact_min_time=0.06',
    'blend_time=0.1',
    'ik_iterations=30',
    '',
    '[source]',
    'hips=Hips',
    'spine=Spine',
    'neck=Neck',
    'head=Head',
    'left_upper_arm=LeftArm',
    'left_hand=LeftHand',
    'right_upper_arm=RightArm',
    'right_hand=RightHand',
    'left_upper_leg=LeftUpLeg',
    'left_lower_leg=LeftLeg',
    'left_foot=LeftFoot',
    'right_upper_leg=RightUpLeg',
    'right_lower_leg=RightLeg',
    'right_foot=RightFoot',
    '',
    '[target]',
    'hips=torso_joint_1',
    'left_upper_leg=leg_joint_L_1',
    'left_lower_leg=leg_joint_L_2',
    'left_foot=leg_joint_L_3',
    'left_toes=leg_joint_L_5',
    'right_upper_leg=leg_joint_R_1',
    'right_lower_leg=leg_joint_R_2',
    'right_foot=leg_joint_R_3',
    'right_toes=leg_joint_R_5',
]


def profiles():
    with open(os.path.join(HERE, 'human_to_figure.map'), 'w', newline='') as f:
        f.write('\n'.join(PROFILE) + '\n')
    lines = []
    for line in PROFILE:
        if '=' in line:
            k, v = line.split('=', 1)
            line = '\t%s\t=\t%s ' % (k, v)
        lines.append(line)
    lines.insert(lines.index('[target]') + 1, '# no toes on this side: an empty value unmaps')
    lines.append('\tright_toes\t=\t')
    with open(os.path.join(HERE, 'human_to_figure_crlf_tabs.map'), 'w', newline='') as f:
        f.write('\r\n'.join(lines) + '\r\n')


# Line-end and whitespace variants that must read exactly like their plain originals: the 3-frame
# Y-up human with classic Mac OS line ends (CR only), and with a UTF-8 byte order mark, CRLF and
# tab indentation; a DH table with CRLF, tabs between fields and trailing tabs.
def line_end_variants():
    with open(os.path.join(HERE, 'human_yup_m_frames_short.bvh'), newline='') as f:
        text = f.read()
    with open(os.path.join(HERE, 'human_cr_only.bvh'), 'w', newline='') as f:
        f.write(text.replace('\n', '\r'))
    with open(os.path.join(HERE, 'human_bom_crlf_tabs.bvh'), 'w', newline='',
              encoding='utf-8-sig') as f:
        f.write(text.replace('  ', '\t').replace('\n', '\r\n'))
    with open(os.path.join(HERE, 'planar_rrp.dh'), newline='') as f:
        dh = f.read()
    with open(os.path.join(HERE, 'planar_rrp_crlf_tabs.dh'), 'w', newline='') as f:
        f.write('\r\n'.join('\t'.join(line.split(' ')) + ('\t' if line.startswith('joint') else '')
                            if not line.startswith('#') else line
                            for line in dh.rstrip('\n').split('\n')) + '\r\n')


# SimpleSkin (CC0, ../SimpleSkin.gltf) without inverseBindMatrices, which glTF allows (identity
# matrices) and which crashes Assimp 5.2.5, and the same with the identity matrices written out:
# rigkit must read both the same.
def skins_without_inverse_binds():
    with open(os.path.join(HERE, '..', 'SimpleSkin.gltf')) as f:
        doc = json.load(f)
    del doc['skins'][0]['inverseBindMatrices']
    doc['asset']['generator'] = 'rigkit make_crafted.py from SimpleSkin.gltf'
    with open(os.path.join(HERE, 'skin_without_ibm.gltf'), 'w') as f:
        json.dump(doc, f, indent=1)
        f.write('\n')
    n = len(doc['skins'][0]['joints'])
    ident = f32([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] * n)
    doc['buffers'].append({'uri': 'data:application/octet-stream;base64,' +
                           base64.b64encode(ident).decode(), 'byteLength': len(ident)})
    doc['bufferViews'].append({'buffer': len(doc['buffers']) - 1, 'byteLength': len(ident)})
    doc['accessors'].append({'bufferView': len(doc['bufferViews']) - 1, 'componentType': 5126,
                             'count': n, 'type': 'MAT4'})
    doc['skins'][0]['inverseBindMatrices'] = len(doc['accessors']) - 1
    with open(os.path.join(HERE, 'skin_identity_ibm.gltf'), 'w') as f:
        json.dump(doc, f, indent=1)
        f.write('\n')


def fbx_refcounts_not_integer():
    """huesitos_prerotation_pivots.fbx (ASCII) with every KeyAttrRefCount written as a fraction
    (fuzz_fbx finding: the curve reader then used the hold flags with no reference counts, a NULL
    read). The file must import: the counts are ignored and the keys read without hold flags."""
    src = open(os.path.join(HERE, '..', 'huesitos_prerotation_pivots.fbx'), 'rb').read()
    out, n = re.subn(rb'(KeyAttrRefCount: \*\d+ \{\r?\n\s*a: )(\d+)',
                     lambda m: m.group(1) + m.group(2) + b'.5', src)
    assert n > 0
    with open(os.path.join(HERE, 'huesitos_refcounts_not_integer.fbx'), 'wb') as f:
        f.write(out)


def mat_mul(a, b):
    """4x4 column-major product a * b."""
    return [sum(a[k * 4 + r] * b[c * 4 + k] for k in range(4)) for c in range(4) for r in range(4)]


def trs(t=(0, 0, 0), q=(0, 0, 0, 1), s=(1, 1, 1)):
    """Column-major matrix of translation t, rotation q (x, y, z, w), scale s."""
    x, y, z, w = q
    r = [1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w),
         2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
         2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)]
    return [r[0] * s[0], r[1] * s[0], r[2] * s[0], 0, r[3] * s[1], r[4] * s[1], r[5] * s[1], 0,
            r[6] * s[2], r[7] * s[2], r[8] * s[2], 0, t[0], t[1], t[2], 1]


def mat_inverse_rigid_scaled(m):
    """Inverse of a matrix rotation * uniform scale + translation."""
    k2 = m[0] ** 2 + m[1] ** 2 + m[2] ** 2
    rt = [m[0], m[4], m[8], 0, m[1], m[5], m[9], 0, m[2], m[6], m[10], 0, 0, 0, 0, 1]
    rt = [v / k2 if i % 4 != 3 else v for i, v in enumerate(rt)]
    t = [-(rt[r] * m[12] + rt[4 + r] * m[13] + rt[8 + r] * m[14]) for r in range(3)]
    return rt[:12] + t + [1]


def tiny_png():
    """A 2x2 RGBA PNG (red, green / blue, white)."""
    import zlib
    raw = b'\0' + bytes([255, 0, 0, 255, 0, 255, 0, 255]) + b'\0' + bytes([0, 0, 255, 255] + [255] * 4)

    def chunk(kind, data):
        return (struct.pack('>I', len(data)) + kind + data +
                struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff))
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 2, 2, 8, 6, 0, 0, 0)) +
            chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))


def character(name, zup_scaled, external):
    """A small skinned character with what rigkit's asset model does not hold, for the glTF
    editor: a textured material (sampler, texture, image), two morph targets with default
    weights and target names, a camera, a KHR_lights_punctual light, extras on the document and
    on nodes, and an animation that also animates the morph weights. Joints: Hips > Spine > Head,
    Hips > LegL > FootL, Hips > LegR > FootR, one box of 8 vertices per bone, skinned rigidly.
    zup_scaled: the joints are authored Z-up in hundredths under 'Z_UP' (a matrix node turning Z-up
    into Y-up) and 'Armature' (scale 100), as Blender writes centimetre rigs; otherwise Y-up in
    metres, and joint Head is given as a 'matrix'. external: a .gltf with its buffer and the PNG
    in files beside it; otherwise a .glb with the PNG in a bufferView."""
    g = Gltf()
    k = 0.01 if zup_scaled else 1.0
    up = (lambda x, y, z: (x * k, -z * k, y * k)) if zup_scaled else (lambda x, y, z: (x, y, z))
    q_spine = (0, 0, math.sin(0.1), math.cos(0.1))
    joints = [('Hips', None, (0, 0.9, 0)), ('Spine', 0, (0, 0.3, 0)), ('Head', 1, (0, 0.35, 0)),
              ('LegL', 0, (0.1, -0.05, 0)), ('FootL', 3, (0, -0.8, 0)),
              ('LegR', 0, (-0.1, -0.05, 0)), ('FootR', 5, (0, -0.8, 0))]
    top = []
    if zup_scaled:
        top.append(g.node(name='Z_UP', matrix=[1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1],
                          children=[]))
        top.append(g.node(name='Armature', scale=[100, 100, 100], children=[],
                          extras={'blender_unit': 'cm'}))
        g.doc['nodes'][top[0]]['children'].append(top[1])
    base = len(g.doc['nodes'])
    world = []
    above = trs() if not zup_scaled else mat_mul(
        [1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1], trs(s=(100, 100, 100)))
    for i, (jn, parent, t) in enumerate(joints):
        node = {'name': jn, 'translation': list(up(*t))}
        if jn == 'Spine':
            axis = up(0, 0, 1)
            node['rotation'] = [axis[0] / k * q_spine[2], axis[1] / k * q_spine[2],
                                axis[2] / k * q_spine[2], q_spine[3]]
        local = trs(node['translation'], tuple(node.get('rotation', (0, 0, 0, 1))))
        if jn == 'Head' and not zup_scaled:
            node = {'name': jn, 'matrix': local, 'extras': {'note': 'given as a matrix'}}
        world.append(mat_mul(above if parent is None else world[parent], local))
        g.node(**node)
        if parent is not None:
            g.doc['nodes'][base + parent].setdefault('children', []).append(base + i)
    # One box per bone around the segment from the joint to its child (or upwards for the head).
    pos, nrm, uv, jnt, wts, idx = [], [], [], [], [], []
    for i, (jn, parent, t) in enumerate(joints):
        child = next((c for c, (_, p, _) in enumerate(joints) if p == i), None)
        a = world[i][12:15]
        b = world[child][12:15] if child is not None else [a[0], a[1] + 0.2, a[2]]
        lo = [min(a[c], b[c]) - 0.06 for c in range(3)]
        hi = [max(a[c], b[c]) + 0.06 for c in range(3)]
        first = len(pos) // 3
        for v in range(8):
            p = [hi[c] if v >> c & 1 else lo[c] for c in range(3)]
            centre = [(lo[c] + hi[c]) / 2 for c in range(3)]
            d = [p[c] - centre[c] for c in range(3)]
            n = math.sqrt(sum(x * x for x in d))
            pos += p
            nrm += [x / n for x in d]
            uv += [(v & 1) * 1.0, (v >> 1 & 1) * 1.0]
            jnt += [i, 0, 0, 0]
            wts += [1, 0, 0, 0]
        for a_, b_, c_, d_ in ((0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2),
                               (1, 3, 7, 5)):
            idx += [first + a_, first + b_, first + c_, first + a_, first + c_, first + d_]
    nv = len(pos) // 3
    acc_pos = g.accessor(pos, 'VEC3', nv)
    g.doc['accessors'][acc_pos]['min'] = [min(pos[c::3]) for c in range(3)]
    g.doc['accessors'][acc_pos]['max'] = [max(pos[c::3]) for c in range(3)]
    acc_nrm = g.accessor(nrm, 'VEC3', nv)
    acc_uv = g.accessor(uv, 'VEC2', nv)
    acc_w = g.accessor(wts, 'VEC4', nv)
    while len(g.bin) % 4:
        g.bin.append(0)
    for kind, data, ctype, count, type_ in (('JOINTS_0', struct.pack('<%dB' % len(jnt), *jnt), 5121, nv, 'VEC4'),
                                           ('indices', struct.pack('<%dH' % len(idx), *idx), 5123, len(idx), 'SCALAR')):
        g.doc['bufferViews'].append({'buffer': 0, 'byteOffset': len(g.bin), 'byteLength': len(data)})
        g.bin += data
        while len(g.bin) % 4:
            g.bin.append(0)
        g.doc['accessors'].append({'bufferView': len(g.doc['bufferViews']) - 1,
                                   'componentType': ctype, 'count': count, 'type': type_})
    acc_j, acc_idx = len(g.doc['accessors']) - 2, len(g.doc['accessors']) - 1
    # Morph targets: the head box grows, the feet boxes move forward.
    targets = []
    for which in ((2,), (4, 6)):
        d = []
        for v in range(nv):
            bone = v // 8
            if bone in which and which == (2,):
                d += [0.3 * (pos[3 * v + c] - (world[2][12 + c] if c != 1 else world[2][13] + 0.1))
                      for c in range(3)]
            elif bone in which:
                d += [0, 0, 0.05]
            else:
                d += [0, 0, 0]
        acc = g.accessor(d, 'VEC3', nv)
        g.doc['accessors'][acc]['min'] = [min(d[c::3]) for c in range(3)]
        g.doc['accessors'][acc]['max'] = [max(d[c::3]) for c in range(3)]
        targets.append({'POSITION': acc})
    png = tiny_png()
    if external:
        image = {'uri': name.replace('.gltf', '.png'), 'name': 'checker'}
        with open(os.path.join(HERE, image['uri']), 'wb') as f:
            f.write(png)
    else:
        while len(g.bin) % 4:
            g.bin.append(0)
        g.doc['bufferViews'].append({'buffer': 0, 'byteOffset': len(g.bin), 'byteLength': len(png)})
        g.bin += png
        image = {'bufferView': len(g.doc['bufferViews']) - 1, 'mimeType': 'image/png',
                 'name': 'checker'}
    g.doc['images'] = [image]
    g.doc['samplers'] = [{'magFilter': 9728, 'minFilter': 9728, 'wrapS': 33071, 'wrapT': 33071}]
    g.doc['textures'] = [{'sampler': 0, 'source': 0}]
    g.doc['materials'] = [{'name': 'Skin', 'pbrMetallicRoughness': {
        'baseColorTexture': {'index': 0}, 'baseColorFactor': [1, 0.9, 0.8, 1],
        'metallicFactor': 0, 'roughnessFactor': 0.7}, 'doubleSided': True}]
    g.doc['meshes'] = [{'name': 'Body', 'weights': [0.25, 0], 'extras': {'targetNames': ['big_head', 'feet_forward']},
                        'primitives': [{'attributes': {'POSITION': acc_pos, 'NORMAL': acc_nrm,
                                                       'TEXCOORD_0': acc_uv, 'JOINTS_0': acc_j,
                                                       'WEIGHTS_0': acc_w},
                                        'indices': acc_idx, 'material': 0, 'targets': targets}]}]
    ibm = []
    for w in world:
        ibm += mat_inverse_rigid_scaled(w)
    skin_joints = list(range(base, base + len(joints)))
    g.doc['skins'] = [{'name': 'Rig', 'joints': skin_joints, 'inverseBindMatrices':
                       g.accessor(ibm, 'MAT4', len(joints))}]
    body = g.node(name='Body', mesh=0, skin=0, extras={'kind': 'skinned body'})
    g.doc['cameras'] = [{'name': 'Cam', 'type': 'perspective', 'perspective': {
        'yfov': 0.7, 'znear': 0.1, 'zfar': 100, 'aspectRatio': 1.5}}]
    cam = g.node(name='Camera', camera=0, translation=[0, 1.2, 4])
    lamp = g.node(name='Lamp', translation=[2, 3, 2],
                  extensions={'KHR_lights_punctual': {'light': 0}})
    g.doc['extensionsUsed'] = ['KHR_lights_punctual']
    g.doc['extensions'] = {'KHR_lights_punctual': {'lights': [
        {'name': 'Key', 'type': 'point', 'color': [1, 0.95, 0.9], 'intensity': 20}]}}
    g.doc['extras'] = {'author': 'rigkit make_crafted.py', 'licence': 'CC0'}
    if zup_scaled:
        g.doc['nodes'][top[1]]['children'] += [base, body]
        g.doc['scenes'][0]['nodes'] = [top[0], cam, lamp]
    else:
        g.doc['scenes'][0]['nodes'] = [base, body, cam, lamp]
    # The character's own animation: the hips sway, the spine bends, the morph weights pulse.
    times = g.accessor([0, 0.5, 1], 'SCALAR', 3, True)
    hips_t = [c for x in (0, 0.05, 0) for c in up(x, 0.9, 0)]
    sway = g.accessor(hips_t, 'VEC3', 3)
    ax = up(1, 0, 0)
    bend = []
    for a in (0.1, 0.5, 0.1):
        bend += [ax[0] / k * math.sin(a / 2), ax[1] / k * math.sin(a / 2), ax[2] / k * math.sin(a / 2),
                 math.cos(a / 2)]
    bends = g.accessor(bend, 'VEC4', 3)
    morph = g.accessor([0.25, 0, 1, 0.5, 0.25, 0], 'SCALAR', 6)
    g.doc['animations'] = [{'name': 'idle', 'samplers': [
        {'input': times, 'output': sway}, {'input': times, 'output': bends},
        {'input': times, 'output': morph}], 'channels': [
        {'sampler': 0, 'target': {'node': base, 'path': 'translation'}},
        {'sampler': 1, 'target': {'node': base + 1, 'path': 'rotation'}},
        {'sampler': 2, 'target': {'node': body, 'path': 'weights'}}]}]
    if external:
        g.write(name, name.replace('.gltf', '.bin'))
        return
    while len(g.bin) % 4:
        g.bin.append(0)
    g.doc['buffers'] = [{'byteLength': len(g.bin)}]
    text = json.dumps(g.doc, separators=(',', ':')).encode()
    text += b' ' * (-len(text) % 4)
    with open(os.path.join(HERE, name), 'wb') as f:
        f.write(b'glTF' + struct.pack('<II', 2, 12 + 8 + len(text) + 8 + len(g.bin)))
        f.write(struct.pack('<I', len(text)) + b'JSON' + text)
        f.write(struct.pack('<I', len(g.bin)) + b'BIN\0' + bytes(g.bin))


if __name__ == '__main__':
    dup_names()
    interpolation()
    interpolation('external_buffer.gltf', 'external_buffer.bin')
    bvh_human('human_yup_cm_full_root.bvh', 0.01, 'Y', True)
    bvh_human('human_zup_in_offset_root.bvh', 0.0254, 'Z', False, crlf_tabs=True,
              order='Yrotation Xrotation Zrotation')
    bvh_human('human_yup_m_frames_short.bvh', 1.0, 'Y', False, frames_declared=2)
    bvh_human('human_yup_m_frames_long.bvh', 1.0, 'Y', False, frames_declared=5)
    dh_tables()
    profiles()
    line_end_variants()
    skins_without_inverse_binds()
    fbx_refcounts_not_integer()
    character('zup_scale100.glb', True, False)
    character('textured_morph.gltf', False, True)
