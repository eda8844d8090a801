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
