#!/usr/bin/env python3
"""Writes the malformed files of tests/data/bad (CC0; the truncated copies keep their sources'
licences, see ../README.md). Each entry: file name, bytes, and a word the error message must
contain (checked by tests/importers/test_bad_files.c through bad/expected.txt)."""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.dirname(HERE)


def read(name):
    with open(os.path.join(DATA, name), 'rb') as f:
        return f.read()


BVH_HEAD = """HIERARCHY
ROOT Hips
{
  OFFSET 0 90 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Spine
  {
    OFFSET 0 20 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 60 0
    }
  }
  JOINT LeftLeg
  {
    OFFSET 10 -45 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 -45 0
    }
  }
}
"""
ROW = '0 90 0 0 0 0 0 0 0 0 0 0\n'


def bvh_motion(frames_line, rows, frame_time='0.033333'):
    return BVH_HEAD + 'MOTION\n' + frames_line + '\nFrame Time: ' + frame_time + '\n' + rows


def gltf(doc):
    return json.dumps(doc, indent=1).encode()


SIMPLE = json.loads(read('SimpleSkin.gltf'))


def simple(edit):
    doc = json.loads(json.dumps(SIMPLE))
    edit(doc)
    return gltf(doc)


def cycle(doc):
    doc['nodes'][2]['children'] = [1]


def bad_skin_joint(doc):
    doc['skins'][0]['joints'] = [1, 7]


def bad_accessor(doc):
    doc['accessors'][1]['count'] = 100000


def huge_buffer(doc):
    doc['buffers'][0] = {'uri': 'nowhere.bin', 'byteLength': 1e15}


def missing_bin(doc):
    doc['buffers'][0] = {'uri': 'missing_companion.bin', 'byteLength': 168}


def huge_name(doc):
    doc['nodes'][1]['name'] = 'J' * 5000


def no_skeleton(doc):
    del doc['skins']
    del doc['animations']
    del doc['nodes'][0]['skin']
    del doc['meshes'][0]['primitives'][0]['attributes']['JOINTS_0']
    del doc['meshes'][0]['primitives'][0]['attributes']['WEIGHTS_0']


def v1(doc):
    doc['asset']['version'] = '1.0'


fox = read('Fox.glb')
fbx = read('assimp_huesitos.fbx')
cut_bin = bytearray(fox[:90000])
cut_bin[8:12] = len(cut_bin).to_bytes(4, 'little')  # header agrees, BIN chunk does not
rng = random.Random(4)

FILES = [
    ('empty.bvh', b'', 'empty file'),
    ('truncated.glb', fox[:1000], 'truncated GLB'),
    ('truncated_bin_chunk.glb', bytes(cut_bin), 'BIN chunk'),
    ('bad_json.gltf', read('SimpleSkin.gltf')[:-40] + b',,}', 'bad glTF JSON'),
    ('not_gltf.gltf', b'{"hello": "world"}\n', 'asset.version'),
    ('gltf_version1.gltf', simple(v1), 'version 1.0'),
    ('gltf_accessor_overflow.gltf', simple(bad_accessor), 'do not fit'),
    ('gltf_child_cycle.gltf', simple(cycle), 'more than one parent'),
    ('gltf_bad_joint_index.gltf', simple(bad_skin_joint), 'not a valid node index'),
    ('gltf_huge_buffer.gltf', simple(huge_buffer), 'limit'),
    ('gltf_missing_companion.gltf', simple(missing_bin), 'missing_companion.bin'),
    ('gltf_huge_name.gltf', simple(huge_name), '5000-byte name'),
    ('gltf_no_skeleton.gltf', simple(no_skeleton), 'no skeleton'),
    ('bvh_nan.bvh', bvh_motion('Frames: 2', ROW + '0 90 0 0 nan 0 0 0 0 0 0 0\n'), 'not finite'),
    ('bvh_no_motion.bvh', BVH_HEAD.encode(), 'no MOTION'),
    ('bvh_negative_frames.bvh', bvh_motion('Frames: -5', ROW), 'negative frame count'),
    ('bvh_absurd_frames.bvh', bvh_motion('Frames: 1000000000', ROW), 'limit'),
    ('bvh_duplicate_joints.bvh', BVH_HEAD.replace('JOINT LeftLeg', 'JOINT Spine') + 'MOTION\nFrames: 1\nFrame Time: 0.04\n' + ROW, 'duplicate joint name'),
    ('bvh_unclosed_joint.bvh', BVH_HEAD[:BVH_HEAD.rindex('}')] + 'MOTION\nFrames: 1\nFrame Time: 0.04\n' + ROW, 'hierarchy is closed'),
    ('bvh_bad_channel.bvh', bvh_motion('Frames: 1', ROW).replace('CHANNELS 3 Zrotation Xrotation Yrotation', 'CHANNELS 3 Zrotation Wrotation Yrotation', 1), 'channel 2'),
    ('bvh_short_line.bvh', bvh_motion('Frames: 3', ROW + '0 90 0 0 0\n' + ROW), '5 values'),
    ('bvh_zero_frame_time.bvh', bvh_motion('Frames: 1', ROW, '0'), 'not positive'),
    ('bvh_garbage_number.bvh', bvh_motion('Frames: 1', '0 90 0 0 1.0abc 0 0 0 0 0 0 0\n'), 'not a number'),
    ('bvh_huge_name.bvh', BVH_HEAD.replace('JOINT Spine', 'JOINT ' + 'S' * 3000) + 'MOTION\nFrames: 1\nFrame Time: 0.04\n' + ROW, '3000-byte'),
    ('bvh_too_many_channels.bvh', BVH_HEAD.replace('CHANNELS 3 Zrotation Xrotation Yrotation', 'CHANNELS 9 Zrotation Xrotation Yrotation', 1) + 'MOTION\nFrames: 1\nFrame Time: 0.04\n' + ROW, '9 channels'),
    ('bvh_end_site_child.bvh', BVH_HEAD.replace('      OFFSET 0 60 0\n', '      OFFSET 0 60 0\n      JOINT Extra\n      {\n        OFFSET 0 1 0\n      }\n', 1) + 'MOTION\nFrames: 1\nFrame Time: 0.04\n' + ROW, 'End Site cannot have children'),
    ('bvh_binary_garbage.bvh', bytes(rng.randrange(256) for _ in range(4096)), 'not a BVH file'),
    ('fbx_truncated.fbx', fbx[:20000], 'Assimp'),
    ('fbx_garbage.fbx', b'Kaydara FBX Binary  \x00\x1a\x00' + bytes(rng.randrange(256) for _ in range(3000)), 'Assimp'),
    ('unknown_format.xyz', b'solid cube\nendsolid\n', 'unknown file format'),
    ('dh_bad_joint_type.dh', b'rigkit-dh 1\njoint J1 spherical 0 0 0 0\n', 'joint type'),
    ('dh_no_header.dh', b'joint J1 revolute 0 0 0 0\n', 'rigkit-dh 1'),
    ('dh_frame_mismatch.dh', b'rigkit-dh 1\njoint J1 revolute 0 0 0 0\njoint J2 revolute 1 0 0 0\nframe 1 2 3\n', '3 values for 2 joints'),
]


def main():
    lines = []
    for name, data, word in FILES:
        if isinstance(data, str):
            data = data.encode()
        with open(os.path.join(HERE, name), 'wb') as f:
            f.write(data)
        lines.append('%s\t%s' % (name, word))
    with open(os.path.join(HERE, 'expected.txt'), 'w') as f:
        f.write('# file<TAB>text the one-line error message must contain (written by make_bad.py)\n')
        f.write('\n'.join(lines) + '\n')


if __name__ == '__main__':
    main()
