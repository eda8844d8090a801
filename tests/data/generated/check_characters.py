#!/usr/bin/env python3
"""Checks the generated characters with rigkit: each one's joints (names) and rest world joint
positions (`rigkit fk --frame 0 --json`, metres, Y up) against the rest skeleton the clips are
written on (make_clips.py), within 0.1 mm; prints what `rigkit info` says it converted.

    python3 tests/data/generated/check_characters.py build/bin/rigkit
"""
import json
import os
import struct
import subprocess
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_clips as mc  # noqa: E402


def rigkit_json(rigkit, *args):
    out = subprocess.run([rigkit] + list(args), check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    rigkit = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, '..', '..', '..', 'build',
                                                                 'bin', 'rigkit')
    cmu, _ = mc.Rig.from_hierarchy(mc.cmu_hierarchy(), mc.YUP, mc.CMU_ROLES, mc.CMU_HIPS_REST)
    mh, _ = mc.Rig.from_hierarchy(mc.mh_hierarchy(), mc.ZUP_DM, mc.MH_ROLES)
    bad = 0
    for name, rig in (('cmu_char.glb', cmu), ('cmu_char.fbx', cmu), ('cmu_char_zup_cm.glb', cmu),
                      ('mh_char.glb', mh), ('mh_char.fbx', mh)):
        path = os.path.join(HERE, name)
        info = rigkit_json(rigkit, 'info', '--json', path)
        fk = {j['name']: j['position'] for j in rigkit_json(rigkit, 'fk', '--frame', '0', '--json',
                                                            path)['joints']}
        want = {n: p for n, p, e in zip(rig.names, rig.rest, rig.is_end) if not e}
        missing = sorted(set(want) - set(fk))
        extra = sorted(set(fk) - set(want))
        worst = max(mc.length(mc.sub(tuple(fk[n]), want[n])) for n in want if n in fk)
        conv = info['conversions']
        ok = not missing and not extra and worst < 1e-4
        bad += not ok
        print('%-20s %s: %d joints, unit %s, up %s, rest positions max %.4f mm off%s%s'
              % (name, 'ok' if ok else 'FAILED', len(fk), conv['unit'], conv['up_axis'],
                 worst * 1000, ', missing %s' % missing if missing else '',
                 ', extra %s' % extra if extra else ''))
        for note in conv['notes']:
            print('    ' + note)
    for stem, make in (('game_robot_walk', mc.game_robot_walk), ('game_robot_idle', mc.game_robot_idle)):
        bad += not check_robot_clip(rigkit, stem, make)
    for name, joints, idle in (('game_robot.glb', 40, ('Root', 'Foot.L', 'Foot.R', 'PoleLeg.L',
                                                       'PoleLeg.R')),
                               ('game_stylised.glb', 13, ('root', 'hat_socket', 'back_socket',
                                                          'hand_socket_L', 'hand_socket_R'))):
        names, weighted = glb_skin_weights(os.path.join(HERE, name))
        ok = len(names) == joints and not (set(idle) & weighted) and set(idle) <= set(names)
        bad += not ok
        print('%-20s %s: %d joints, %d weight vertices, none of %s does'
              % (name, 'ok' if ok else 'FAILED', len(names), len(weighted), ', '.join(idle)))
    sys.exit(1 if bad else 0)


def glb_skin_weights(path):
    """(joint names of the first skin, names of the joints some vertex weights) of a .glb."""
    with open(path, 'rb') as f:
        data = f.read()
    n = struct.unpack_from('<I', data, 12)[0]
    doc = json.loads(data[20:20 + n])
    binary = data[20 + n + 8:]
    names = [doc['nodes'][j]['name'] for j in doc['skins'][0]['joints']]

    def read(acc_i):
        acc = doc['accessors'][acc_i]
        view = doc['bufferViews'][acc['bufferView']]
        fmt = {5121: 'B', 5123: 'H', 5126: 'f'}[acc['componentType']]
        off = view.get('byteOffset', 0) + acc.get('byteOffset', 0)
        stride = view.get('byteStride', 4 * struct.calcsize(fmt))
        return [struct.unpack_from('<4' + fmt, binary, off + i * stride) for i in range(acc['count'])]
    weighted = set()
    for mesh in doc['meshes']:
        for prim in mesh['primitives']:
            a = prim['attributes']
            for js, ws in zip(read(a['JOINTS_0']), read(a['WEIGHTS_0'])):
                weighted |= {names[j] for j, w in zip(js, ws) if w > 0}
    return names, weighted


def check_robot_clip(rigkit, stem, make):
    """<stem>.glb (the robot keyed with a make_clips motion: make, its Rig -> the motion): its
    joints at a few frames (rigkit fk) against the motion solved again here on the robot's rest
    skeleton as rigkit reads it from game_robot.glb."""
    info = rigkit_json(rigkit, 'info', '--json', os.path.join(HERE, 'game_robot.glb'))
    rest = {j['name']: j['position'] for j in rigkit_json(
        rigkit, 'fk', '--frame', '0', '--json', os.path.join(HERE, 'game_robot.glb'))['joints']}
    bones = [(j['name'], j['parent'], tuple(rest[j['name']])) for j in info['joints']]
    rig = mc.game_robot_rig(bones)
    walk = make(rig)
    path = os.path.join(HERE, stem + '.glb')
    worst = 0.0
    for f in (0, 37, 75, 112, walk.frames - 1):
        D, P, sp = mc.game_robot_pose(rig, walk, f / walk.fps)
        got = {j['name']: j['position'] for j in rigkit_json(rigkit, 'fk', '--frame', str(f),
                                                            '--json', path)['joints']}
        for name, parent, _ in bones:
            want = P[rig.index['ankle' + name[4:]]] if name.startswith('Foot') else P[rig.index[name]]
            if not name.startswith('PoleLeg'):
                worst = max(worst, mc.length(mc.sub(tuple(got[name]), want)))
    ok = worst < 1e-4
    print('%-20s %s: %d frames, joints vs the %s solved again: max %.4f mm'
          % (stem + '.glb', 'ok' if ok else 'FAILED', walk.frames, walk.name, worst * 1000))
    return ok


if __name__ == '__main__':
    main()
