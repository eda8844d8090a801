#!/usr/bin/env python3
"""Writes the malformed files of tests/data/bad (CC0; the truncated copies keep their sources'
licences, see ../README.md). Each entry: file name, bytes, and a word the error message must
contain (checked by tests/importers/test_bad_files.c through bad/expected.txt)."""
import base64
import json
import os
import random
import re
import struct

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


def patch_buffer(doc, buf, offset, fmt, values):
    """Overwrites bytes of a data-URI buffer (little-endian struct format)."""
    b = doc['buffers'][buf]
    head, data = b['uri'].split(',', 1)
    raw = bytearray(base64.b64decode(data))
    struct.pack_into(fmt, raw, offset, *values)
    b['uri'] = head + ',' + base64.b64encode(bytes(raw)).decode()


def simple_glb(edit_json=None):
    """SimpleSkin as a GLB: its four data-URI buffers joined into the BIN chunk (3 KB)."""
    doc = json.loads(json.dumps(SIMPLE))
    blob = bytearray()
    starts = []
    for b in doc['buffers']:
        while len(blob) % 4:
            blob.append(0)
        starts.append(len(blob))
        blob += base64.b64decode(b['uri'].split(',', 1)[1])
    for v in doc['bufferViews']:
        v['byteOffset'] = v.get('byteOffset', 0) + starts[v['buffer']]
        v['buffer'] = 0
    doc['buffers'] = [{'byteLength': len(blob)}]
    if edit_json:
        edit_json(doc)
    js = json.dumps(doc).encode()
    js += b' ' * (-len(js) % 4)
    while len(blob) % 4:
        blob.append(0)
    body = struct.pack('<2I', len(js), 0x4E4F534A) + js + struct.pack('<2I', len(blob), 0x004E4942) + blob
    return bytearray(struct.pack('<3I', 0x46546C67, 2, 12 + len(body)) + body)


def glb_with(offset, value, edit_json=None):
    g = simple_glb(edit_json)
    struct.pack_into('<I', g, offset, value)
    return bytes(g)


def nan_rotation(doc):
    patch_buffer(doc, 3, 48 + 16 * 3, '<f', [float('nan')])  # 4th rotation key, x


def inf_time(doc):
    patch_buffer(doc, 3, 4 * 5, '<f', [float('inf')])  # 6th key time


def nan_position(doc):
    patch_buffer(doc, 0, 48 + 12 * 2, '<f', [float('nan')])  # 3rd vertex, x


def inf_ibm(doc):
    patch_buffer(doc, 2, 4 * 12, '<f', [float('inf')])  # translation x of the first matrix


def translation_from_vec4(doc):
    doc['animations'][0]['channels'][0]['target']['path'] = 'translation'


def long_data_uri_header(doc):
    head, data = doc['buffers'][0]['uri'].split(',', 1)
    doc['buffers'][0]['uri'] = head.replace('data:application/', 'data:application/' + 'x' * 120) + ',' + data


def not_base64(doc):
    head, data = doc['buffers'][3]['uri'].split(',', 1)
    doc['buffers'][3]['uri'] = head + ',' + data[:10] + '\u00e9' + data[11:]


def gib_data_uri(doc):
    doc['buffers'][0]['byteLength'] = 1 << 30


def accessor_not_object(doc):
    doc['accessors'][6] = 5


def channel_without_target(doc):
    del doc['animations'][0]['channels'][0]['target']


def zero_cubic_keys(doc):
    doc['accessors'].append({'componentType': 5126, 'count': 200000000, 'type': 'VEC4'})
    doc['animations'][0]['samplers'][0].update(output=7, interpolation='CUBICSPLINE')


def sparse_zero_positions(doc):
    doc['accessors'].append({'componentType': 5126, 'count': 200000000, 'type': 'VEC3',
                             'sparse': {'count': 1, 'indices': {'bufferView': 0, 'componentType': 5123},
                                        'values': {'bufferView': 1}}})
    doc['meshes'][0]['primitives'][0]['attributes']['POSITION'] = 7


def sparse_beyond_view(doc):
    doc['accessors'][1]['sparse'] = {'count': 10, 'indices': {'bufferView': 0, 'byteOffset': 40,
                                                              'componentType': 5123},
                                     'values': {'bufferView': 1}}


def glb_gib_buffer(doc):
    doc['buffers'][0]['byteLength'] = 1 << 30


def fbx_patch(offset, value, keep=2048):
    """The first bytes of the binary FBX with a 32-bit length field overwritten."""
    d = bytearray(fbx[:keep])
    struct.pack_into('<I', d, offset, value)
    return bytes(d)


def fbx_first_compressed_curve(d):
    """Offset of the first zlib-compressed KeyValueFloat array property ('f' code) in d."""
    at = 0
    while True:
        at = d.index(b'\x0dKeyValueFloatf', at) + 14
        count, encoding, length = struct.unpack_from('<III', d, at + 1)
        if encoding == 1 and count > 0:
            return at


def fbx_array_count_minus_one():
    """The whole binary FBX with its first compressed KeyValueFloat array declaring one element
    less than its zlib stream holds (fuzz_fbx finding: the decoder handed GLib an empty output
    buffer, a critical)."""
    d = bytearray(fbx)
    at = fbx_first_compressed_curve(d)
    count = struct.unpack_from('<I', d, at + 1)[0]
    struct.pack_into('<I', d, at + 1, count - 1)
    return bytes(d)


def fbx_cluster_vertex_out_of_range():
    """The ASCII FBX with pivots, its first skin cluster weighting vertex 100000 (fuzz_fbx finding:
    Assimp 5.2.5 aborts the process on an ai_assert in FBXConverter::ConvertWeights)."""
    d = read('huesitos_prerotation_pivots.fbx')
    at = d.index(b'Indexes: *')
    at = d.index(b'a: ', at) + 3
    end = d.index(b',', at)
    return d[:at] + b'100000' + d[end:]


def fbx_ascii_array_key():
    """The ASCII FBX with pivots, one array's values under `j:` instead of `a:` and a skin cluster
    weighting a vertex the mesh lacks (fuzz_fbx finding: rigkit's reader refused the records and
    left the file to Assimp, which skipped the broken curve and aborted on the cluster)."""
    d = fbx_cluster_vertex_out_of_range()
    at = d.index(b'KeyAttrFlags: *')
    at = d.index(b'a: ', at)
    return d[:at] + b'j: ' + d[at + 3:]


def fbx_huge_rotation_key():
    """The ASCII FBX with pivots, the first key of a rotation curve at 6.36e11 degrees (fuzz_fbx
    finding: Assimp 5.2.5 inserts a key every 180 degrees of turn and allocated 23 GB)."""
    d = read('huesitos_prerotation_pivots.fbx')
    node = re.search(rb'AnimationCurveNode: (\d+), "AnimCurveNode::R"', d).group(1)
    curve = re.search(rb'C: "OP", (\d+), ' + node + rb', "d\|X"', d).group(1)
    at = d.index(b'AnimationCurve: ' + curve + b',')
    at = d.index(b'a: ', d.index(b'KeyValueFloat: *', at)) + 3
    end = d.index(b',', at)
    return d[:at] + b'6.36e11' + d[end:]


def fbx_duplicate_bone_names():
    """The ASCII FBX with pivots, bone Bone.008 renamed Bone.004 like another skinned bone
    (fuzz_fbx finding: Assimp 5.2.5 frees a bone node twice; `assimp info` aborts)."""
    d = read('huesitos_prerotation_pivots.fbx')
    old = b'"Model::Bone.008", "LimbNode"'
    assert d.count(old) == 1
    return d.replace(old, b'"Model::Bone.004", "LimbNode"')


def fbx_with_models(models, conns):
    """The ASCII FBX with pivots, with Null models (id, name) added to Objects and object-object
    connections (child, parent) added to Connections."""
    d = read('huesitos_prerotation_pivots.fbx')
    objs = b''.join(b'\tModel: %d, "Model::%s", "Null" {\n\t}\n' % (i, n.encode()) for i, n in models)
    cs = b''.join(b'\tC: "OO", %d, %d\n' % c for c in conns)
    at = d.index(b'\nObjects:  {\n') + len(b'\nObjects:  {\n')
    d = d[:at] + objs + d[at:]
    at = d.index(b'\nConnections:  {\n') + len(b'\nConnections:  {\n')
    return d[:at] + cs + d[at:]


def fbx_model_cycle():
    """The ASCII FBX with pivots, its RootNode also a child of the bone Bone, below it (fuzz_fbx
    finding: Assimp 5.2.5 converts the hierarchy recursively and overflowed the stack)."""
    return fbx_with_models([], [(1000023, 1000003)])


def fbx_deep_models():
    """1100 models, each the child of the one before, under RootNode: deeper than rigkit lets
    Assimp's recursive conversion go (8000 overflowed the 8 MB main-thread stack)."""
    ids = [2000000 + i for i in range(1100)]
    return fbx_with_models([(i, 'Deep%d' % i) for i in ids],
                           [(ids[0], 1000023)] + [(ids[k], ids[k - 1]) for k in range(1, len(ids))])


def fbx_model_ladder():
    """40 models, each the child of both models before it: Assimp copies a model under every
    parent, 165 million nodes in all."""
    ids = [3000000 + i for i in range(40)]
    conns = [(ids[0], 1000023), (ids[1], 1000023), (ids[1], ids[0])]
    conns += [(ids[k], ids[k - 1]) for k in range(2, 40)] + [(ids[k], ids[k - 2]) for k in range(2, 40)]
    return fbx_with_models([(i, 'Rung%d' % i) for i in ids], conns)


def fbx_corrupt_array():
    """The whole binary FBX with the zlib checksum of its first compressed KeyValueFloat array
    broken (fuzz_fbx finding: Assimp skips the array, leaks its zlib stream, imports the rest)."""
    d = bytearray(fbx)
    at = fbx_first_compressed_curve(d)
    length = struct.unpack_from('<I', d, at + 9)[0]
    d[at + 13 + length - 1] ^= 0xFF
    return bytes(d)


def bvh_one_frame(head):
    return head + 'MOTION\nFrames: 1\nFrame Time: 0.04\n' + ROW


# Retarget profiles ([settings], [source] bone=joint for the crafted BVH human, [target] for
# RiggedFigure.glb): a valid one (as crafted/human_to_figure.map) broken one way per file. These
# are checked through the core API by tests/importers/test_bad_maps.c (bad/maps.txt).
MAP = {'settings': [('fps', '30'), ('foot_ik', 'true'), ('ik_iterations', '30'),
                    ('contact_height', '0.03'), ('blend_time', '0.1')],
       'source': [('hips', 'Hips'), ('spine', 'Spine'), ('neck', 'Neck'), ('head', 'Head'),
                  ('left_upper_arm', 'LeftArm'), ('left_hand', 'LeftHand'),
                  ('right_upper_arm', 'RightArm'), ('right_hand', 'RightHand'),
                  ('left_upper_leg', 'LeftUpLeg'), ('left_lower_leg', 'LeftLeg'),
                  ('left_foot', 'LeftFoot'), ('right_upper_leg', 'RightUpLeg'),
                  ('right_lower_leg', 'RightLeg'), ('right_foot', 'RightFoot')],
       'target': [('hips', 'torso_joint_1'), ('left_upper_leg', 'leg_joint_L_1'),
                  ('left_lower_leg', 'leg_joint_L_2'), ('left_foot', 'leg_joint_L_3'),
                  ('right_upper_leg', 'leg_joint_R_1'), ('right_lower_leg', 'leg_joint_R_2'),
                  ('right_foot', 'leg_joint_R_3')]}


def profile(group=None, key=None, value=None):
    """The valid profile with group/key set to value (added when absent; None removes it)."""
    out = ['# rigkit retarget profile (malformed on purpose, see make_bad.py)']
    for g, pairs in MAP.items():
        pairs = list(pairs)
        if g == group:
            keys = [k for k, _ in pairs]
            if key in keys:
                i = keys.index(key)
                if value is None:
                    del pairs[i]
                else:
                    pairs[i] = (key, value)
            elif value is not None:
                pairs.append((key, value))
        out.append('[%s]' % g)
        out += ['%s=%s' % kv for kv in pairs]
        out.append('')
    return '\n'.join(out).encode('utf-8', 'surrogateescape')


MAPS = [
    ('map_unknown_bone.map', profile('target', 'left_wing', 'arm_joint_L_1'), 'left_wing: unknown bone'),
    ('map_missing_joint.map', profile('source', 'left_foot', 'NoSuchFoot'), "no joint 'NoSuchFoot'"),
    ('map_bad_number.map', profile('settings', 'fps', 'fast'), 'fps = fast'),
    ('map_out_of_range.map', profile('settings', 'contact_height', '2'), 'must be within [0, 1]'),
    ('map_nan_setting.map', profile('settings', 'blend_time', 'nan'), 'blend_time = nan'),
    ('map_unknown_setting.map', profile('settings', 'speed', '1'), 'speed: unknown key'),
    ('map_zero_iterations.map', profile('settings', 'ik_iterations', '0'), 'must be 1..10000'),
    ('map_huge_iterations.map', profile('settings', 'ik_iterations', '99999999999999999999'), 'ik_iterations = 99999999999999999999'),
    ('map_bad_bool.map', profile('settings', 'foot_ik', 'maybe'), 'foot_ik = maybe'),
    ('map_required_unmapped.map', profile('target', 'hips', ''), 'required bone hips is not mapped'),
    ('map_joint_twice.map', profile('target', 'right_foot', 'leg_joint_L_3'), 'is mapped to both'),
    ('map_wrong_order.map', profile('target', 'left_lower_leg', 'leg_joint_L_3'), 'left_foot'),
    ('map_value_not_utf8.map', profile('source', 'left_foot', 'Left\udcffFoot'), 'left_foot: the value is not UTF-8'),
    ('map_key_not_utf8.map', profile('source', 'left_f\udcffot', 'LeftFoot'), 'a key is not UTF-8'),
    # fuzz_keyfile: GLib's own parser set its error twice on bad escapes (a GLib warning)
    ('map_escape_at_end.map', profile('settings', 'fps', '30\\'), 'fps: the value has an invalid escape sequence'),
    ('map_bad_escape.map', profile('source', 'left_foot', 'Left\\qFoot\\'), 'left_foot: the value has an invalid escape sequence'),
]


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
    ('fbx_truncated.fbx', fbx[:20000], 'binary FBX record at byte 12934: record end offset is out of range'),
    ('fbx_garbage.fbx', b'Kaydara FBX Binary  \x00\x1a\x00' + bytes(rng.randrange(256) for _ in range(3000)), 'binary FBX record at byte 27: record end offset is out of range'),
    ('unknown_format.xyz', b'solid cube\nendsolid\n', 'unknown file format'),
    ('dh_bad_joint_type.dh', b'rigkit-dh 1\njoint J1 spherical 0 0 0 0\n', 'joint type'),
    ('dh_no_header.dh', b'joint J1 revolute 0 0 0 0\n', 'rigkit-dh 1'),
    ('dh_frame_mismatch.dh', b'rigkit-dh 1\njoint J1 revolute 0 0 0 0\njoint J2 revolute 1 0 0 0\nframe 1 2 3\n', '3 values for 2 joints'),
    # ---- resource bounds, non-finite numbers, fuzzing findings (see README.md) ----
    ('gltf_nan_rotation.gltf', simple(nan_rotation), 'non-finite value'),
    ('gltf_inf_key_time.gltf', simple(inf_time), 'mTime (inf)'),
    ('gltf_nan_position.gltf', simple(nan_position), 'non-finite vertex data'),
    ('gltf_inf_inverse_bind.gltf', simple(inf_ibm), 'non-finite inverse bind matrix'),
    ('gltf_inf_translation.gltf', gltf(SIMPLE).replace(b'"translation": [\n    0,\n    1,', b'"translation": [\n    0,\n    1e999,'), "'translation' is not 3 finite numbers"),
    ('gltf_1gib_data_uri.gltf', simple(gib_data_uri), 'declares 1073741824 bytes but its data URI holds 168'),
    ('gltf_accessor_not_object.gltf', simple(accessor_not_object), 'accessor 6 is not an object'),
    ('gltf_channel_without_target.gltf', simple(channel_without_target), 'has no target object'),
    ('gltf_zero_cubic_keys.gltf', simple(zero_cubic_keys), 'no bufferView and declares 3200000000 bytes'),
    ('gltf_sparse_zero_positions.gltf', simple(sparse_zero_positions), 'no bufferView and declares 2400000000 bytes'),
    ('gltf_sparse_beyond_view.gltf', simple(sparse_beyond_view), 'invalid sparse'),
    ('gltf_long_data_uri_header.gltf', simple(long_data_uri_header), 'buffer 0: data URI without a comma in its first 100 bytes'),
    ('gltf_data_uri_not_base64.gltf', simple(not_base64), 'buffer 3: the data URI is not base64 (character 11)'),
    ('gltf_translation_vec4.gltf', simple(translation_from_vec4), 'accessor 6 (VEC4 of component type 5126) cannot hold translation'),
    ('glb_json_chunk_beyond_file.glb', glb_with(12, 1 << 20), 'first chunk is not a JSON chunk'),
    ('glb_header_4gib.glb', glb_with(8, 0xFFFFFFFF), 'the header says 4294967295 bytes'),
    ('glb_version1.glb', glb_with(4, 1), 'GLB version 1'),
    ('glb_1gib_buffer.glb', bytes(simple_glb(glb_gib_buffer)), 'declares 1073741824 bytes but the GLB BIN chunk'),
    ('fbx_1gib_string.fbx', fbx_patch(406, 1 << 30), 'string runs past its record'),
    ('fbx_huge_property_count.fbx', fbx_patch(31, 0x3FFFFFFF), 'property list length is out of range'),
    ('fbx_array_longer_than_declared.fbx', fbx_array_count_minus_one(), 'KeyValueFloat, property 0: compressed FBX array of 39 elements does not inflate'),
    ('fbx_cluster_vertex_out_of_range.fbx', fbx_cluster_vertex_out_of_range(), 'weights vertex 100000 but geometry'),
    ('fbx_ascii_array_key.fbx', fbx_ascii_array_key(), "'a:' expected in an array"),
    ('fbx_huge_rotation_key.fbx', fbx_huge_rotation_key(), 'turns more than 2^20 half turns in all (key 1: -90 degrees after 6.36e+11)'),
    ('fbx_duplicate_bone_names.fbx', fbx_duplicate_bone_names(), "are both named 'Bone.004': skinned bones need distinct names"),
    ('fbx_corrupt_zlib_array.fbx', fbx_corrupt_array(), 'corrupt FBX record /Objects/AnimationCurve/KeyValueFloat, property 0'),
    ('fbx_model_cycle.fbx', fbx_model_cycle(), "FBX model hierarchy has a cycle: Model 'RootNode' is a child of 'Bone', its own descendant"),
    ('fbx_deep_models.fbx', fbx_deep_models(), 'FBX model hierarchy is deeper than 1024 levels'),
    ('fbx_model_ladder.fbx', fbx_model_ladder(), 'FBX model hierarchy makes more than 65535 nodes'),
    ('bvh_inf_offset.bvh', bvh_one_frame(BVH_HEAD.replace('OFFSET 0 20 0', 'OFFSET 0 1e999 0')), "OFFSET of 'Spine' is not finite"),
    ('bvh_overflow_offsets.bvh', bvh_one_frame(BVH_HEAD.replace('OFFSET 0 20 0', 'OFFSET 0 1e308 0').replace('OFFSET 0 60 0', 'OFFSET 0 1e308 0')), 'non-finite position in the rest pose'),
    ('bvh_nan_frame_time.bvh', bvh_motion('Frames: 1', ROW, 'nan'), 'frame time nan s'),
    ('bvh_huge_frame_time.bvh', bvh_motion('Frames: 2', ROW + ROW, '1e300'), 'limit 3600 s'),
    ('bvh_huge_channel_count.bvh', bvh_one_frame(BVH_HEAD.replace('CHANNELS 3 Zrotation', 'CHANNELS 4294967299 Zrotation', 1)), '4294967299 channels'),
    ('bvh_overflow_frames.bvh', bvh_motion('Frames: 99999999999999999999999', ROW), 'frames declared (limit 16777216)'),
    ('bvh_not_utf8_token.bvh', bvh_one_frame(BVH_HEAD.replace('  JOINT Spine', '\xce CHANNELS', 1)).encode('latin-1'), "line 6: unexpected '\ufffd'"),
    ('bvh_no_root.bvh', 'HIERARCHY\nMOTION\nFrames: 1\nFrame Time: 0.04\n0\n', 'no joints before MOTION'),
    ('dh_nan.dh', b'rigkit-dh 1\njoint J1 revolute nan 0 0 0\n', "'nan' is not finite"),
    ('dh_inf.dh', b'rigkit-dh 1\njoint J1 revolute 0 0 1e999 0\n', "'1e999' is not finite"),
    ('dh_not_utf8.dh', b'rigkit-dh 1\njoint J1 revolute\xe5 0 0 0 0\n', "joint type 'revolute\ufffd'"),
    ('dh_overflow_length.dh', b'rigkit-dh 1\njoint J1 revolute 1e308 0 0 0\njoint J2 revolute 1e308 0 0 0\n', 'non-finite position in the rest pose'),
    ('dh_zero_fps.dh', b'rigkit-dh 1\njoint J1 revolute 0 0 0 0\nfps 0\nframe 1\n', 'fps must be positive'),
    ('dh_limits_reversed.dh', b'rigkit-dh 1\njoint J1 revolute 0 0 0 0 2 1\n', 'min > max'),
    ('dh_no_joints.dh', b'rigkit-dh 1\nname nothing\n', 'no joints'),
    ('dh_unknown_keyword.dh', b'rigkit-dh 1\nlink J1 revolute 0 0 0 0\n', "unknown keyword 'link'"),
]


def main():
    lines = []
    for name, data, word in FILES:
        if isinstance(data, str):
            data = data.encode()
        with open(os.path.join(HERE, name), 'wb') as f:
            f.write(data)
        lines.append('%s\t%s' % (name, word))
    with open(os.path.join(HERE, 'expected.txt'), 'w', encoding='utf-8') as f:
        f.write('# file<TAB>text the one-line error message must contain (written by make_bad.py)\n')
        f.write('\n'.join(lines) + '\n')
    lines = []
    for name, data, word in MAPS:
        with open(os.path.join(HERE, name), 'wb') as f:
            f.write(data)
        lines.append('%s\t%s' % (name, word))
    with open(os.path.join(HERE, 'maps.txt'), 'w', encoding='utf-8') as f:
        f.write('# map/profile file<TAB>text the error must contain (written by make_bad.py)\n')
        f.write('\n'.join(lines) + '\n')


if __name__ == '__main__':
    main()
