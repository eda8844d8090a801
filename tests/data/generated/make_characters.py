# Builds rigkit's generated characters in headless Blender (a third-party tool's armatures, bone
# axes and exporters) and writes them next to this script:
#
#   blender -b --factory-startup --python tests/data/generated/make_characters.py [-- --only NAME...]
#
# cmu_char.glb/.fbx, mh_char.glb/.fbx: Blender's BVH importer reads the skeleton of cmu_walk.bvh /
#   mh_walk.bvh (its rest pose, Blender's own bone axes and rolls), the animation is deleted, and a
#   skinned mesh is added: a box per bone weighted to that bone, a pelvis block, and shoes whose
#   sole runs from the truth's heel point to its toe point (the toe part weighted to the toe bone,
#   the crease at the ball shared), so the sole lies on the floor where the clips' truth says.
# cmu_char_zup_cm.glb: the same character under an empty node that turns Z-up into glTF's Y-up and
#   scales by 0.01, the armature and mesh inside in Z-up centimetres.
# game_robot.glb, game_stylised.glb: game rigs built bone by bone (A-pose robot with IK controls
#   and pole targets that deform nothing; a 13-joint stylised figure with sockets).
# game_robot_walk.glb: the robot keyed frame by frame by make_clips.py's walk on the robot's own
#   proportions, its IK controls keyed where the legs put the ankles and knees.
# game_robot_idle.glb: the robot keyed the same way with make_clips.py's idle whose left foot
#   creeps 2 cm while in contact (a footless source whose leg end slides).
# game_soldier.glb: a game rig whose deforming feet hang from root-level IK controls and whose
#   helmet and shield hang from sockets at the root (the layout of a common game character pack).
# game_shortlegs.glb: the soldier's layout with a game robot's proportions: short legs, a big
#   head, long arms with the fingers on the forearm, big block feet.
# Every mesh has a material with an 8x8 checker texture made here.
#
# Blender output is not byte-identical across runs or versions; the joints, rest poses, meshes
# and keys are (check_characters.py compares them with the skeletons).
import builtins
import math
import os
import sys

import bpy
import mathutils

sys.dont_write_bytecode = True          # no __pycache__ next to the scripts
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_clips as mc  # noqa: E402  (the skeletons and the gait code)

# Debian's Blender 3.4 with Python 3.11 and numpy >= 1.24: the glTF exporter still uses the
# removed numpy.bool alias, and the BVH importer opens files in the removed 'rU' mode.
import numpy  # noqa: E402
numpy.bool = bool
import io_anim_bvh.import_bvh as _import_bvh  # noqa: E402
_import_bvh.open = lambda file, mode="r", *a, **k: builtins.open(file, mode.replace("U", ""), *a, **k)

V = mathutils.Vector
M = mathutils.Matrix


def c2b(v):
    """Internal frame of make_clips (Y up, facing +Z) -> Blender (Z up, facing -Y)."""
    return V((v[0], -v[2], v[1]))


C2B = M(((1, 0, 0), (0, 0, -1), (0, 1, 0)))


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = 30
    scene.unit_settings.system = 'METRIC'
    scene.unit_settings.scale_length = 1.0


# ----------------------------------------------------------------------------------------------
# Material: an 8x8 checker made here, saved as a PNG so both exporters can carry it

def checker_material(name, a, b):
    size = 8
    img = bpy.data.images.new(name + '_checker', size, size, alpha=False)
    px = []
    for y in range(size):
        for x in range(size):
            c = a if (x + y) % 2 == 0 else b
            px += [c[0], c[1], c[2], 1.0]
    img.pixels = px
    tmp = bpy.app.tempdir or '/tmp'
    img.filepath_raw = os.path.join(tmp, name + '_checker.png')
    img.file_format = 'PNG'
    img.save()
    img.filepath = img.filepath_raw
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nodes = mat.node_tree.nodes
    tex = nodes.new('ShaderNodeTexImage')
    tex.image = img
    tex.interpolation = 'Closest'
    mat.node_tree.links.new(tex.outputs['Color'], nodes['Principled BSDF'].inputs['Base Color'])
    return mat


# ----------------------------------------------------------------------------------------------
# Meshes: hexahedra (8 corners) with per-vertex weights, one UV square per face

class MeshBuilder:
    def __init__(self):
        self.verts, self.weights, self.faces = [], [], []

    def vert(self, p, weights):
        self.verts.append(V(p))
        self.weights.append(weights)
        return len(self.verts) - 1

    def hexa(self, corners, weights):
        """corners: 8 points, bottom ring then top ring (same winding); weights: bone -> w or a
        list of 8 such dicts."""
        ws = weights if isinstance(weights, list) else [weights] * 8
        ids = [self.vert(p, w) for p, w in zip(corners, ws)]
        self.hexa_ids(ids)
        return ids

    def hexa_ids(self, ids):
        a = ids
        for f in ((0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)):
            self.faces.append([a[i] for i in f])

    def box(self, p0, p1, half_x, half_y, weights, side=V((1, 0, 0))):
        """A box around the segment p0 -> p1, cross-section 2 half_x by 2 half_y."""
        d = (p1 - p0)
        z = d.normalized()
        x = side - z * side.dot(z)
        if x.length < 1e-6:
            x = V((0, 1, 0)) - z * z.y
        x.normalize()
        y = z.cross(x)
        ring = [x * sx * half_x + y * sy * half_y for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        return self.hexa([p0 + r for r in ring] + [p1 + r for r in ring], weights)

    def build(self, name, arm, mat):
        me = bpy.data.meshes.new(name)
        me.from_pydata([tuple(v) for v in self.verts], [], self.faces)
        me.update()
        uv = me.uv_layers.new(name='UVMap')
        for poly in me.polygons:
            for k, li in enumerate(poly.loop_indices):
                uv.data[li].uv = ((0, 0), (1, 0), (1, 1), (0, 1))[k % 4]
        me.materials.append(mat)
        ob = bpy.data.objects.new(name, me)
        bpy.context.scene.collection.objects.link(ob)
        groups = {}
        for i, ws in enumerate(self.weights):
            for bone, w in ws.items():
                if bone not in groups:
                    groups[bone] = ob.vertex_groups.new(name=bone)
                groups[bone].add([i], w, 'REPLACE')
        ob.parent = arm
        mod = ob.modifiers.new('Armature', 'ARMATURE')
        mod.object = arm
        return ob


# ----------------------------------------------------------------------------------------------
# Characters on the clips' skeletons

def shoe(mb, rig, s, names, to_b):
    """Shoe of side s: sole from the truth's heel point to its toe point, flat on the floor in
    the rest pose; foot part on the foot bone, toe part on the toe bone, the ball crease's sole
    edge on the toe bone (it stays put while the heel rises about the ball) and its top shared."""
    g = rig.geo[s]
    foot, toe = names['foot_' + s], names['toe_' + s]
    hx = g['heel'][0]
    w = 0.045
    zh, zb, zt = g['heel'][2] - 0.0, g['ball'][2], g['toe'][2]
    top_heel = g['A0'][1] + 0.035
    top_ball = g['B0'][1] + 0.03
    top_tip = g['T0'][1] + 0.012

    def p(x, y, z):
        return to_b((x, y, z))
    F, T, FT = {foot: 1.0}, {toe: 1.0}, {foot: 0.5, toe: 0.5}
    heel_b = [mb.vert(p(hx - w, 0, zh), F), mb.vert(p(hx + w, 0, zh), F)]
    heel_t = [mb.vert(p(hx - w, top_heel, zh), F), mb.vert(p(hx + w, top_heel, zh), F)]
    ball_b = [mb.vert(p(hx - w, 0, zb), T), mb.vert(p(hx + w, 0, zb), T)]
    ball_t = [mb.vert(p(hx - w, top_ball, zb), FT), mb.vert(p(hx + w, top_ball, zb), FT)]
    tip_b = [mb.vert(p(hx - 0.8 * w, 0, zt), T), mb.vert(p(hx + 0.8 * w, 0, zt), T)]
    tip_t = [mb.vert(p(hx - 0.8 * w, top_tip, zt), T), mb.vert(p(hx + 0.8 * w, top_tip, zt), T)]
    # ankle part: a block around the ankle joint up to the shin's box
    mb.hexa_ids([heel_b[0], ball_b[0], ball_b[1], heel_b[1], heel_t[0], ball_t[0], ball_t[1], heel_t[1]])
    mb.hexa_ids([ball_b[0], tip_b[0], tip_b[1], ball_b[1], ball_t[0], tip_t[0], tip_t[1], ball_t[1]])


def bvh_character(clip, scale, rig, roles, floor_shift):
    """Armature from Blender's BVH importer (rest pose, animation deleted) with a skinned mesh."""
    reset()
    bpy.ops.import_anim.bvh(filepath=os.path.join(HERE, clip), global_scale=scale, frame_start=1,
                            use_fps_scale=False, update_scene_fps=False,
                            update_scene_duration=False, rotate_mode='NATIVE',
                            axis_forward=roles['_axis'][0], axis_up=roles['_axis'][1])
    arm = next(o for o in bpy.context.scene.objects if o.type == 'ARMATURE')
    act = arm.animation_data.action
    arm.animation_data_clear()
    bpy.data.actions.remove(act)
    for pb in arm.pose.bones:
        pb.location = (0, 0, 0)
        pb.rotation_quaternion = (1, 0, 0, 0)
        pb.rotation_euler = (0, 0, 0)
        pb.scale = (1, 1, 1)
    # the CMU skeleton's root OFFSET is zero: lift the bones so the rest skeleton stands on the
    # floor (Hips at its rest height), as the clips' root channels put it
    if floor_shift:
        arm.location.z += floor_shift
        bpy.context.view_layer.objects.active = arm
        arm.select_set(True)
        bpy.ops.object.transform_apply(location=True, rotation=False, scale=False)
    name = os.path.splitext(clip)[0].split('_')[0] + '_char'
    arm.name = arm.data.name = name + '_rig'
    mb = MeshBuilder()
    to_b = c2b
    done = set()
    for j, nm in enumerate(rig.names):
        if rig.is_end[j]:
            continue
        for k in rig.children[j]:
            p0, p1 = V(to_b(rig.rest[j])), V(to_b(rig.rest[k]))
            key = (tuple(round(c, 4) for c in p0), tuple(round(c, 4) for c in p1))
            if (p1 - p0).length < 0.015 or key in done:
                continue          # no box for zero-length helpers, one box per segment
            done.add(key)
            if nm in (roles['foot_L'], roles['foot_R'], roles['toe_L'], roles['toe_R']):
                continue          # the shoes
            hx, hy = part_size(rig, roles, nm, (p1 - p0).length)
            mb.box(p0, p1, hx, hy, {nm: 1.0})
    pel = rig.rest_of('pelvis')
    hip = rig.rest_of('thigh_L')
    mb.box(c2b((0, rig.seat[1], pel[2] - 0.01)), c2b((0, pel[1] + 0.04, pel[2] - 0.01)),
           abs(hip[0]) + 0.05, 0.09, {roles['pelvis']: 1.0})
    for s in 'LR':
        shoe(mb, rig, s, roles, to_b)
    mat = checker_material(name + '_skin', (0.85, 0.55, 0.3), (0.25, 0.35, 0.6))
    mb.build(name + '_mesh', arm, mat)
    return arm


def part_size(rig, roles, name, length):
    """Half width and half depth of a bone's box."""
    if name in roles['spine'] or name == roles.get('pelvis2'):
        return 0.13, 0.085
    if name in roles['neck'][-1:]:
        return 0.075, 0.09
    if name in roles['neck']:
        return 0.045, 0.045
    for s in 'LR':
        if name == roles['thigh_' + s]:
            return 0.065, 0.065
        if name == roles['shin_' + s]:
            return 0.05, 0.05
        if name == roles['upperarm_' + s]:
            return 0.045, 0.045
        if name == roles['forearm_' + s]:
            return 0.035, 0.035
        if name == roles['hand_' + s]:
            return 0.04, 0.02
        if name in roles['clavicle_' + s]:
            return 0.04, 0.04
        if name in roles['hipjoint_' + s]:
            return 0.05, 0.05
    return max(0.006, min(0.02, 0.25 * length)), max(0.006, min(0.02, 0.25 * length))


# ----------------------------------------------------------------------------------------------
# Export

def export_glb(path, animations=False):
    bpy.ops.export_scene.gltf(filepath=path, export_format='GLB', export_yup=True,
                              export_animations=animations, export_skins=True,
                              export_texcoords=True, export_normals=True,
                              export_materials='EXPORT', export_colors=False,
                              export_cameras=False, export_lights=False, export_extras=False,
                              export_def_bones=False, export_image_format='AUTO')


def export_fbx(path):
    bpy.ops.export_scene.fbx(filepath=path, object_types={'ARMATURE', 'MESH', 'EMPTY'},
                             add_leaf_bones=False, bake_anim=False, path_mode='COPY',
                             embed_textures=True, apply_scale_options='FBX_SCALE_NONE',
                             use_mesh_modifiers=False)


def zup_cm(arm):
    """Put the character under an empty that turns Z-up centimetres into glTF's Y-up metres: the
    empty rotates -90 deg about Blender's X and scales by 0.01; the armature's bones and the
    mesh's vertices are re-expressed inside it (Blender's -Y, the exporter's +Z, is their up
    axis; lengths x100), so the character stands where it stood."""
    empty = bpy.data.objects.new('Z_UP', None)
    bpy.context.scene.collection.objects.link(empty)
    empty.rotation_euler = (-math.pi / 2, 0, 0)
    empty.scale = (0.01, 0.01, 0.01)
    bpy.context.view_layer.update()
    inv = empty.matrix_world.inverted()
    meshes = [o for o in bpy.context.scene.objects if o.type == 'MESH']
    for ob in meshes:
        ob.parent = None
    bpy.ops.object.select_all(action='DESELECT')
    for ob in [arm] + meshes:
        ob.matrix_world = inv
        ob.select_set(True)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.transform_apply(location=True, rotation=True, scale=True)
    for ob in meshes:
        ob.parent = arm
    arm.parent = empty
    return empty


def run_bvh_characters(only):
    cmu_text = mc.cmu_hierarchy()
    cmu_rig, _ = mc.Rig.from_hierarchy(cmu_text, mc.YUP, mc.CMU_ROLES, mc.CMU_HIPS_REST)
    mh_rig, _ = mc.Rig.from_hierarchy(mc.mh_hierarchy(), mc.ZUP_DM, mc.MH_ROLES)
    cmu_roles = dict(mc.CMU_ROLES, _axis=('-Z', 'Y'))
    mh_roles = dict(mc.MH_ROLES, _axis=('Y', 'Z'))
    jobs = [('cmu_char', 'cmu_walk.bvh', mc.CMU_UNIT, cmu_rig, cmu_roles, mc.CMU_HIPS_REST[1]),
            ('mh_char', 'mh_walk.bvh', 0.1, mh_rig, mh_roles, 0.0)]
    for name, clip, scale, rig, roles, shift in jobs:
        if only and not any(o.startswith(name) for o in only):
            continue
        arm = bvh_character(clip, scale, rig, roles, shift)
        export_glb(os.path.join(HERE, name + '.glb'))
        export_fbx(os.path.join(HERE, name + '.fbx'))
        if name == 'cmu_char':
            zup_cm(arm)
            export_glb(os.path.join(HERE, 'cmu_char_zup_cm.glb'))
        print('make_characters.py: wrote %s' % name)


# ----------------------------------------------------------------------------------------------
# Game rigs, bone by bone (Blender coordinates: Z up, facing -Y, metres)

def _fingers(side, hand_tail, sg):
    """Three fingers of three bones from the hand's tip: thumb (forward), index, little."""
    out = []
    for k, (name, dx, dy, dz) in enumerate((('Thumb', 0.0, -0.035, -0.01), ('Index', 0.02, -0.012, -0.03),
                                            ('Little', 0.02, 0.015, -0.03))):
        prev = 'Hand' + side
        base = hand_tail + V((sg * dx, dy, 0.0))
        step = V((sg * 0.012, dy * 0.3, dz)).normalized() * 0.03
        for n in range(3):
            bone = '%s%d%s' % (name, n + 1, side)
            out.append((bone, base + step * n, base + step * (n + 1), prev, True))
            prev = bone
    return out


def robot_bones():
    """(name, head, tail, parent, deforms) of game_robot: 40 joints. A-pose arms; legs without
    a deforming foot; Foot.L/R IK controls and PoleLeg.L/R pole targets under Root."""
    b = [('Root', V((0, 0, 0)), V((0, -0.3, 0)), None, False),
         ('Hips', V((0, 0, 0.98)), V((0, 0, 1.08)), 'Root', True),
         ('Spine', V((0, 0, 1.08)), V((0, 0, 1.25)), 'Hips', True),
         ('Chest', V((0, 0, 1.25)), V((0, 0, 1.48)), 'Spine', True),
         ('Neck', V((0, 0, 1.5)), V((0, 0, 1.6)), 'Chest', True),
         ('Head', V((0, 0, 1.6)), V((0, 0, 1.85)), 'Neck', True)]
    for side, sg in (('.L', 1), ('.R', -1)):
        down = V((sg * math.cos(math.radians(40)), 0, -math.sin(math.radians(40))))
        sh, el = V((sg * 0.19, 0, 1.45)), V((sg * 0.19, 0, 1.45)) + down * 0.30
        wr = el + (down + V((0, -0.08, 0))).normalized() * 0.27
        ht = wr + down * 0.09
        b += [('Shoulder' + side, V((sg * 0.04, 0, 1.45)), V((sg * 0.17, 0, 1.46)), 'Chest', True),
              ('UpperArm' + side, sh, el, 'Shoulder' + side, True),
              ('LowerArm' + side, el, wr, 'UpperArm' + side, True),
              ('Hand' + side, wr, ht, 'LowerArm' + side, True)]
        b += _fingers(side, ht, sg)
        knee, ankle = V((sg * 0.10, -0.03, 0.52)), V((sg * 0.10, 0, 0.10))
        b += [('UpperLeg' + side, V((sg * 0.10, 0, 0.95)), knee, 'Hips', True),
              ('LowerLeg' + side, knee, ankle, 'UpperLeg' + side, True),
              ('Foot' + side, ankle, ankle + V((0, -0.12, 0)), 'Root', False),
              ('PoleLeg' + side, knee + V((0, -0.6, 0)), knee + V((0, -0.7, 0)), 'Root', False)]
    return b


def stylised_bones():
    """game_stylised, 13 joints: root -> body -> head; hip -> leg two-bone legs without a foot
    bone; one-bone arms hand_L/R from the body; sockets that deform nothing: hat_socket on the
    head, hand_socket_L/R on the hands, back_socket on the body."""
    b = [('root', V((0, 0, 0)), V((0, -0.2, 0)), None, False),
         ('body', V((0, 0, 0.55)), V((0, 0, 0.95)), 'root', True),
         ('head', V((0, 0, 0.95)), V((0, 0, 1.25)), 'body', True),
         ('hat_socket', V((0, 0, 1.25)), V((0, 0, 1.35)), 'head', False),
         ('back_socket', V((0, 0.15, 0.85)), V((0, 0.25, 0.85)), 'body', False)]
    for side, sg in (('_L', 1), ('_R', -1)):
        b += [('hip' + side, V((sg * 0.12, 0, 0.55)), V((sg * 0.12, -0.02, 0.3)), 'body', True),
              ('leg' + side, V((sg * 0.12, -0.02, 0.3)), V((sg * 0.12, 0, 0.07)), 'hip' + side, True),
              ('hand' + side, V((sg * 0.26, 0, 0.9)), V((sg * 0.33, 0, 0.6)), 'body', True),
              ('hand_socket' + side, V((sg * 0.33, 0, 0.6)), V((sg * 0.33, -0.1, 0.6)), 'hand' + side,
               False)]
    return b


def blocky_bones():
    """game_blocky, 7 joints: root -> body -> head; legs of one bone leg_L/R hanging from the
    body, the foot in each leg's mesh; one-bone arms arm_L/R."""
    b = [('root', V((0, 0, 0)), V((0, -0.2, 0)), None, False),
         ('body', V((0, 0, 0.56)), V((0, 0, 1.0)), 'root', True),
         ('head', V((0, 0, 1.0)), V((0, 0, 1.3)), 'body', True)]
    for side, sg in (('_L', 1), ('_R', -1)):
        b += [('leg' + side, V((sg * 0.1, 0, 0.56)), V((sg * 0.1, 0, 0.08)), 'body', True),
              ('arm' + side, V((sg * 0.22, 0, 0.95)), V((sg * 0.24, 0, 0.6)), 'body', True)]
    return b


def soldier_bones():
    """game_soldier, 35 joints, the layout of a common game character pack: Root - Pelvis -
    Spine1 - Spine2 - Neck - Head; Collar.L - UpperArm.L - LowerArm.L - Hand.L - Finger1.L;
    UpperLeg.L - LowerLeg.L ending at the ankle; the feet are deforming bones Foot.L under
    FootControl.L under Root (beside IKLegTarget.L and IKLegPole.L, which deform nothing); a
    helmet weighted to HelmetSlot under Root; a spear weighted to WeaponSlot under Hand.R; a
    shield weighted to ShieldSlot under Root, standing on the outside of the left forearm."""
    b = [('Root', V((0, 0, 0)), V((0, -0.3, 0)), None, False),
         ('Pelvis', V((0, 0, 0.9)), V((0, 0, 1.0)), 'Root', True),
         ('Spine1', V((0, 0, 1.0)), V((0, 0, 1.18)), 'Pelvis', True),
         ('Spine2', V((0, 0, 1.18)), V((0, 0, 1.4)), 'Spine1', True),
         ('Neck', V((0, 0, 1.42)), V((0, 0, 1.52)), 'Spine2', True),
         ('Head', V((0, 0, 1.52)), V((0, 0, 1.74)), 'Neck', True),
         ('HelmetSlot', V((0, 0, 1.66)), V((0, -0.1, 1.66)), 'Root', True)]
    for side, sg in (('.L', 1), ('.R', -1)):
        sh, el, wr = V((sg * 0.18, 0, 1.38)), V((sg * 0.45, 0, 1.38)), V((sg * 0.7, 0, 1.38))
        ht = wr + V((sg * 0.09, 0, 0))
        knee, ankle = V((sg * 0.1, -0.02, 0.5)), V((sg * 0.1, 0, 0.09))
        b += [('Collar' + side, V((sg * 0.03, 0, 1.38)), sh, 'Spine2', True),
              ('UpperArm' + side, sh, el, 'Collar' + side, True),
              ('LowerArm' + side, el, wr, 'UpperArm' + side, True),
              ('Hand' + side, wr, ht, 'LowerArm' + side, True),
              ('Finger1' + side, ht, ht + V((sg * 0.07, 0, 0)), 'Hand' + side, True),
              ('UpperLeg' + side, V((sg * 0.1, 0, 0.88)), knee, 'Pelvis', True),
              ('LowerLeg' + side, knee, ankle, 'UpperLeg' + side, True),
              ('IKLegPole' + side, knee + V((0, -0.5, 0)), knee + V((0, -0.6, 0)), 'Root', False),
              ('FootControl' + side, V((sg * 0.1, 0.05, 0)), V((sg * 0.1, -0.15, 0)), 'Root', False),
              ('IKLegTarget' + side, ankle, ankle + V((0, 0, 0.1)), 'FootControl' + side, False),
              ('Foot' + side, ankle, ankle + V((0, -0.14, -0.05)), 'FootControl' + side, True)]
    b += [('WeaponSlot', V((-0.79, 0, 1.38)), V((-0.79, 0, 1.48)), 'Hand.R', True),
          ('ShieldSlot', V((0.6, 0, 1.38)), V((0.6, 0, 1.48)), 'Root', True)]
    return b


def shortlegs_bones():
    """game_shortlegs, 28 joints, the proportions of a common CC0 game robot at 1.75 m: legs of
    35% of the height (hip joints 0.65 m up, knees 0.40 m, ankles 0.04 m), the hips joint Body
    below the legs' roots, a head of a quarter of the height, long arms whose three fingers hang
    from the forearm (no hand bone) down to 0.33 m at rest; the feet are deforming bones Foot.L
    under FootControl.L under Root, as on game_soldier."""
    b = [('Root', V((0, 0, 0)), V((0, -0.3, 0)), None, False),
         ('Body', V((0, 0, 0.6)), V((0, 0, 0.68)), 'Root', True),
         ('Abdomen', V((0, 0, 0.68)), V((0, 0, 0.85)), 'Body', True),
         ('Torso', V((0, 0, 0.85)), V((0, 0, 1.05)), 'Abdomen', True),
         ('Neck', V((0, 0, 1.05)), V((0, 0, 1.29)), 'Torso', True),
         ('Head', V((0, 0, 1.29)), V((0, 0, 1.75)), 'Neck', True)]
    for side, sg in (('.L', 1), ('.R', -1)):
        sh, el = V((sg * 0.26, 0, 1.0)), V((sg * 0.38, 0.05, 0.75))
        wr = V((sg * 0.45, -0.04, 0.46))
        knee, ankle = V((sg * 0.28, 0.0, 0.40)), V((sg * 0.28, 0.03, 0.04))
        b += [('Shoulder' + side, V((sg * 0.1, 0, 1.03)), sh, 'Torso', True),
              ('UpperArm' + side, sh, el, 'Shoulder' + side, True),
              ('LowerArm' + side, el, wr, 'UpperArm' + side, True)]
        for k, dx in enumerate((-0.04, 0.0, 0.04)):
            base = wr + V((sg * dx, -0.02, 0))
            b += [('Finger%d%s' % (k + 1, side), base, base + V((0, -0.05, -0.12)), 'LowerArm' + side,
                   True)]
        b += [('UpperLeg' + side, V((sg * 0.27, 0.03, 0.65)), knee, 'Body', True),
              ('LowerLeg' + side, knee, ankle, 'UpperLeg' + side, True),
              ('PoleTarget' + side, knee + V((0, -0.5, 0)), knee + V((0, -0.6, 0)), 'Root', False),
              ('FootControl' + side, V((sg * 0.28, 0.08, 0)), V((sg * 0.28, -0.15, 0)), 'Root', False),
              ('Foot' + side, ankle, ankle + V((0, -0.14, -0.02)), 'FootControl' + side, True)]
    return b


def build_armature(name, bones):
    arm_data = bpy.data.armatures.new(name)
    arm = bpy.data.objects.new(name, arm_data)
    bpy.context.scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode='EDIT')
    for nm, h, t, parent, deform in bones:
        eb = arm_data.edit_bones.new(nm)
        eb.head, eb.tail = h, t
        eb.roll = 0.0
        eb.use_deform = deform
        if parent:
            eb.parent = arm_data.edit_bones[parent]
            eb.use_connect = (eb.parent.tail - h).length < 1e-6
    bpy.ops.object.mode_set(mode='OBJECT')
    return arm


def foot_block(mb, bone, ankle, half_w, back, front, top):
    """A foot at the end of a leg bone, rigid with it: a rocker sole, an arc about the ankle
    touching the floor below it in the rest pose (so the shin can tilt 50 degrees either way
    with the ankle at rest height and the foot stays on or above the floor), from back
    (degrees behind) to front (degrees ahead), up to `top` above the floor."""
    r = ankle.z
    angles = [-back + (back + front) * k / 6 for k in range(7)]
    prof = [(-r * math.sin(math.radians(a)), ankle.z - r * math.cos(math.radians(a))) for a in angles]
    for (y0, z0), (y1, z1) in zip(prof, prof[1:]):
        c = [V((ankle.x - half_w, ankle.y + y0, z0)), V((ankle.x + half_w, ankle.y + y0, z0)),
             V((ankle.x + half_w, ankle.y + y1, z1)), V((ankle.x - half_w, ankle.y + y1, z1))]
        mb.hexa(c + [V((p.x, p.y, max(p.z, top))) for p in c], {bone: 1.0})


def robot(only):
    reset()
    bones = robot_bones()
    arm = build_armature('game_robot_rig', bones)
    mb = MeshBuilder()
    size = {'Hips': (0.16, 0.11), 'Spine': (0.13, 0.1), 'Chest': (0.2, 0.13), 'Neck': (0.05, 0.05),
            'Head': (0.12, 0.13), 'Shoulder': (0.05, 0.05), 'UpperArm': (0.05, 0.05),
            'LowerArm': (0.045, 0.045), 'Hand': (0.045, 0.02), 'UpperLeg': (0.075, 0.075),
            'LowerLeg': (0.06, 0.06)}
    for nm, h, t, parent, deform in bones:
        if not deform:
            continue
        hx, hy = size.get(nm.split('.')[0], (0.012, 0.012))
        mb.box(h, t, hx, hy, {nm: 1.0})
        if nm.startswith('LowerLeg'):
            foot_block(mb, nm, t, 0.06, 55, 65, 0.13)
    mat = checker_material('game_robot_metal', (0.7, 0.72, 0.75), (0.9, 0.45, 0.1))
    mb.build('game_robot_mesh', arm, mat)
    if not only or 'game_robot' in only:
        export_glb(os.path.join(HERE, 'game_robot.glb'))
        print('make_characters.py: wrote game_robot')
    if not only or 'game_robot_walk' in only:
        key_robot(arm, bones, mc.game_robot_walk)
        export_glb(os.path.join(HERE, 'game_robot_walk.glb'), animations=True)
        print('make_characters.py: wrote game_robot_walk')
    if not only or 'game_robot_idle' in only:
        key_robot(arm, bones, mc.game_robot_idle)
        export_glb(os.path.join(HERE, 'game_robot_idle.glb'), animations=True)
        print('make_characters.py: wrote game_robot_idle')


def block_figure(name, bones, size, foot, colours):
    """A figure of boxes, one per deforming bone (half sizes by the bone name's first part), the
    legs ending in rocker-soled feet (foot_block's half width, back, front, top) with no foot
    bone, written to NAME.glb; colours: the checker material's two colours."""
    reset()
    arm = build_armature(name + '_rig', bones)
    mb = MeshBuilder()
    for nm, h, t, parent, deform in bones:
        if deform:
            hx, hy = size[nm.split('_')[0]]
            mb.box(h, t, hx, hy, {nm: 1.0})
            if nm.startswith('leg'):
                foot_block(mb, nm, t, *foot)
    mat = checker_material(name + '_paint', *colours)
    mb.build(name + '_mesh', arm, mat)
    export_glb(os.path.join(HERE, name + '.glb'))
    print('make_characters.py: wrote ' + name)


def stylised():
    block_figure('game_stylised', stylised_bones(),
                 {'body': (0.2, 0.15), 'head': (0.16, 0.15), 'hip': (0.07, 0.07),
                  'leg': (0.06, 0.06), 'hand': (0.06, 0.06)},
                 (0.07, 50, 60, 0.1), ((0.3, 0.75, 0.4), (0.95, 0.9, 0.3)))


def blocky():
    block_figure('game_blocky', blocky_bones(),
                 {'body': (0.17, 0.1), 'head': (0.14, 0.14), 'leg': (0.07, 0.07),
                  'arm': (0.06, 0.06)},
                 (0.075, 50, 60, 0.1), ((0.35, 0.5, 0.85), (0.95, 0.75, 0.3)))


def boot(mb, bone, x, half, ends, tops):
    """A block foot weighted to bone, its sole on the floor: centred at x, half widths (sole,
    top), from y = ends[0] behind the ankle to ends[1] at the toes, tops (heel, toe) high."""
    (hs, ht), (b, f), (th, tt) = half, ends, tops
    mb.hexa([V((x - hs, b, 0)), V((x + hs, b, 0)), V((x + hs, f, 0)), V((x - hs, f, 0)),
             V((x - ht, b, th)), V((x + ht, b, th)), V((x + ht, f, tt)), V((x - ht, f, tt))],
            {bone: 1.0})


def soldier():
    reset()
    bones = soldier_bones()
    arm = build_armature('game_soldier_rig', bones)
    mb = MeshBuilder()
    size = {'Pelvis': (0.15, 0.1), 'Spine1': (0.14, 0.1), 'Spine2': (0.17, 0.11), 'Neck': (0.05, 0.05),
            'Head': (0.1, 0.11), 'Collar': (0.04, 0.04), 'UpperArm': (0.045, 0.045),
            'LowerArm': (0.04, 0.04), 'Hand': (0.04, 0.02), 'Finger1': (0.03, 0.015),
            'UpperLeg': (0.07, 0.07), 'LowerLeg': (0.055, 0.055)}
    for nm, h, t, parent, deform in bones:
        key = nm.split('.')[0]
        if key in size:
            mb.box(h, t, size[key][0], size[key][1], {nm: 1.0})
    for sg, side in ((1, '.L'), (-1, '.R')):
        # A boot: a flat block from behind the ankle to the toes, its sole on the floor.
        boot(mb, 'Foot' + side, sg * 0.1, (0.055, 0.06), (0.06, -0.2), (0.13, 0.06))
    # A helmet around the head, a spear upright in the right hand, and a tall shield (a plate
    # 90 by 50 cm) on the outside of the left forearm.
    mb.box(V((0, 0, 1.6)), V((0, 0, 1.8)), 0.13, 0.14, {'HelmetSlot': 1.0})
    mb.box(V((-0.79, 0, 0.5)), V((-0.79, 0, 2.1)), 0.012, 0.012, {'WeaponSlot': 1.0})
    mb.box(V((0.6, 0, 0.93)), V((0.6, 0, 1.83)), 0.015, 0.25, {'ShieldSlot': 1.0})
    mat = checker_material('game_soldier_cloth', (0.45, 0.4, 0.3), (0.7, 0.2, 0.15))
    mb.build('game_soldier_mesh', arm, mat)
    export_glb(os.path.join(HERE, 'game_soldier.glb'))
    print('make_characters.py: wrote game_soldier')


def shortlegs():
    reset()
    bones = shortlegs_bones()
    arm = build_armature('game_shortlegs_rig', bones)
    mb = MeshBuilder()
    size = {'Body': (0.2, 0.14), 'Abdomen': (0.18, 0.13), 'Torso': (0.22, 0.15), 'Neck': (0.06, 0.06),
            'Head': (0.34, 0.3), 'Shoulder': (0.05, 0.05), 'UpperArm': (0.04, 0.04),
            'LowerArm': (0.05, 0.05), 'Finger1': (0.02, 0.02), 'Finger2': (0.02, 0.02),
            'Finger3': (0.02, 0.02), 'UpperLeg': (0.07, 0.07)}
    for nm, h, t, parent, deform in bones:
        key = nm.split('.')[0]
        if key == 'LowerLeg':
            # A shin tapering to the ankle (the foot block stands under it).
            top = mb.box(h, t, 0.06, 0.06, {nm: 1.0})
            for i in top[4:]:
                mb.verts[i] = t + (mb.verts[i] - t) * 0.25
        elif key in size:
            mb.box(h, t, size[key][0], size[key][1], {nm: 1.0})
    for sg, side in ((1, '.L'), (-1, '.R')):
        # A big block foot from behind the ankle to the toes, its sole on the floor.
        boot(mb, 'Foot' + side, sg * 0.28, (0.08, 0.08), (0.1, -0.2), (0.12, 0.08))
    mat = checker_material('game_shortlegs_paint', (0.8, 0.65, 0.35), (0.55, 0.3, 0.15))
    mb.build('game_shortlegs_mesh', arm, mat)
    export_glb(os.path.join(HERE, 'game_shortlegs.glb'))
    print('make_characters.py: wrote game_shortlegs')


def robot_rig(bones):
    """The robot as make_clips sees it (make_clips.game_robot_rig)."""
    b2c = lambda v: (v.x, v.z, -v.y)
    return mc.game_robot_rig([(nm, p, b2c(h)) for nm, h, t, p, d in bones])


def key_robot(arm, bones, make):
    """Keys the robot, frame by frame at 30 fps, with a make_clips motion (make: the robot's Rig
    -> the motion, e.g. its 5 s walk) solved on the robot's own legs, as one action named after
    the motion (replacing any other); the IK controls are keyed where the legs put the ankles
    (with the planned foot rotation) and in front of the knees, the root bone on the floor under
    the pelvis."""
    rig = robot_rig(bones)
    walk = make(rig)
    scene = bpy.context.scene
    scene.render.fps = 30
    scene.frame_start, scene.frame_end = 0, walk.frames - 1
    for old in list(bpy.data.actions):
        bpy.data.actions.remove(old)
    act = bpy.data.actions.new(walk.name)
    arm.animation_data_create()
    arm.animation_data.action = act
    rest = {b.name: b.matrix_local.copy() for b in arm.data.bones}
    order = [nm for nm, *_ in bones]
    prevq, heads = {}, {}

    def world(d, p, nm):
        rot = (C2B @ M(d) @ C2B.transposed()).to_4x4()
        m = rot @ rest[nm]
        m.translation = c2b(p)
        return m
    for f in range(walk.frames):
        D, P, sp = mc.game_robot_pose(rig, walk, f / walk.fps)
        want = {}
        for nm in order:
            i = rig.index[nm]
            want[nm] = world(D[i], P[i], nm)
        for s, side in (('L', '.L'), ('R', '.R')):
            st = sp.feet[s]
            want['Foot' + side] = world(st.df, P[rig.index['ankle' + side]], 'Foot' + side)
            knee = P[rig.index['LowerLeg' + side]]
            pole = mc.add(knee, mc.mul(sp.knee_pole[s], 0.6))
            want['PoleLeg' + side] = world(D[rig.index['Root']], pole, 'PoleLeg' + side)
        for nm in order:
            pb = arm.pose.bones[nm]
            bone = arm.data.bones[nm]
            if bone.parent:
                par = bone.parent.name
                basis = (want[par] @ rest[par].inverted() @ rest[nm]).inverted() @ want[nm]
            else:
                basis = rest[nm].inverted() @ want[nm]
            loc, q, _ = basis.decompose()
            if nm in prevq and prevq[nm].dot(q) < 0:
                q.negate()
            prevq[nm] = q
            pb.location, pb.rotation_quaternion, pb.scale = loc, q, (1, 1, 1)
            pb.keyframe_insert('location', frame=f, group=nm)
            pb.keyframe_insert('rotation_quaternion', frame=f, group=nm)
        if f % 10 == 0:
            heads[f] = {nm: m.translation.copy() for nm, m in want.items()}
    # the keys give back the solved joints and the controls' targets
    worst = 0.0
    for f, want in heads.items():
        scene.frame_set(f)
        for nm in order:
            worst = max(worst, (arm.pose.bones[nm].head - want[nm]).length)
    print('make_characters.py: robot %s keys vs the solved joints: max %.4f mm' % (walk.name, worst * 1000))
    if worst > 1e-4:
        raise SystemExit('robot %s keys are off' % walk.name)


def main():
    argv = sys.argv[sys.argv.index('--') + 1:] if '--' in sys.argv else []
    only = argv[argv.index('--only') + 1:] if '--only' in argv else []
    run_bvh_characters(only)
    if not only or any(o.startswith('game_robot') for o in only):
        robot(only)
    if not only or 'game_stylised' in only:
        stylised()
    if not only or 'game_soldier' in only:
        soldier()
    if not only or 'game_blocky' in only:
        blocky()
    if not only or 'game_shortlegs' in only:
        shortlegs()


main()
