# Blender side of the add-on: an armature -> the plugin's host skeleton (a target, or with its
# animation a source clip), and the plugin's baked keys -> an Action on the armature, written in
# bulk (keyframe_points.add + foreach_set), with the planted feet as a channel and as markers.
#
# Spaces. The plugin is told the armature's space is Z-up (RK_PLUGIN_UP_Z, Blender's axes) with
# metres_per_unit = scene unit scale (or the source unit the user chose) x the object's uniform
# scale, and it does the axis and unit conversion to and from rigkit's canonical Y-up metres. The
# add-on only expresses the rest pose:
#  - a bone's rest relative to its parent is parent.matrix_local^-1 @ bone.matrix_local
#    (armature space, bone roll included, no scale);
#  - a root bone's rest is placed in the object's world orientation (object rotation and
#    translation applied, the object's scale moved into metres_per_unit), so "up" is world Z even
#    when the armature object is rotated (e.g. under a glTF "Z_UP" empty).
# Keys are read as RK_PLUGIN_KEYS_REST_RELATIVE, i.e. rest^-1 @ local, which is exactly a pose
# bone's matrix_basis (location, rotation_quaternion, scale) and does not depend on the root's
# frame, so they are written to the pose bones as they come. A source armature's animation goes
# the other way as LOCAL keys: each bone's evaluated pose relative to its parent's (constraints,
# drivers and any rotation mode included), the roots in the object's world frame at that frame.
import json
import math
import time

import numpy as np

from . import abi

_LINEAR = 1  # enum value of 'LINEAR' in Keyframe.interpolation
_CONSTANT = 0
CONTACT_PROP = "rigkit_planted"  # pose-bone property the contacts channel animates (0 or 1)
CONTACT_GROUP = "rigkit contacts"


class Settings:
    """What a retarget operator asks for (the session's options and what is written)."""

    def __init__(self, foot_ik=abi.DEFAULT, hand_ik=abi.DEFAULT, root_motion=abi.DEFAULT,
                 fps=0.0, reduce_mm=0.0, profile_path="", settings_text="",
                 set_frame_range=True, markers=True):
        self.foot_ik, self.hand_ik, self.root_motion = foot_ik, hand_ik, root_motion
        self.fps, self.reduce_mm = fps, reduce_mm
        self.profile_path, self.settings_text = profile_path, settings_text
        self.set_frame_range, self.markers = set_frame_range, markers


def _root_frame(arm_obj):
    """(matrix placing root bones in world axes without scale, uniform scale, warnings)."""
    import mathutils
    loc, rot, scl = arm_obj.matrix_world.decompose()
    warnings = []
    s = (abs(scl.x) + abs(scl.y) + abs(scl.z)) / 3.0
    if s <= 0 or max(abs(abs(scl.x) - s), abs(abs(scl.y) - s), abs(abs(scl.z) - s)) > 1e-4 * s:
        warnings.append("object '%s' has a non-uniform scale %s: its mean %.6g is used"
                        % (arm_obj.name, tuple(round(v, 6) for v in scl), s))
    if s <= 0:
        s = 1.0
    return mathutils.Matrix.Translation(loc / s) @ rot.to_matrix().to_4x4(), s, warnings


def _end_name(bone, taken):
    name = bone.name + "_End"
    while name in taken:
        name += "_"
    taken.add(name)
    return name


def host_skeleton(arm_obj, scene, end_sites=False, unit=0.0):
    """(abi.HostSkeleton, metres_per_unit, warnings) of an armature object's rest pose. With
    end_sites, every bone without children gets a joint at its tail (flag END_SITE, named
    '<bone>_End'), as a BVH End Site: a source's toe and head tips. unit: metres per armature
    unit (0: the scene's unit scale)."""
    bones = arm_obj.data.bones
    index = {b.name: i for i, b in enumerate(bones)}
    root_frame, s, warnings = _root_frame(arm_obj)
    # Keys are written as pose-bone basis values, which mean "relative to the rest, in the
    # parent's frame" only with Blender's default bone options.
    odd = [b.name for b in bones if not b.use_inherit_rotation or not b.use_local_location
           or b.inherit_scale not in ('FULL', 'FIX_SHEAR', 'ALIGNED', 'AVERAGE')]
    if odd and not end_sites:
        listed = ", ".join(odd[:5]) + (", ..." if len(odd) > 5 else "")
        warnings.append("bones without Inherit Rotation or Local Location (%s): their keys are "
                        "written as for default bones and may not play back as retargeted" % listed)
    leaves = [b for b in bones if not b.children] if end_sites else []
    n = len(bones) + len(leaves)
    rest = np.zeros((n, abi.TRS_FLOATS), dtype=np.float32)
    parents = np.empty(n, dtype=np.int32)
    flags = np.zeros(n, dtype=np.uint32)
    names = [b.name for b in bones]
    for i, b in enumerate(bones):
        if b.parent is None:
            m = root_frame @ b.matrix_local
            parents[i] = -1
        else:
            m = b.parent.matrix_local.inverted_safe() @ b.matrix_local
            parents[i] = index[b.parent.name]
        t, q, sc = m.decompose()
        rest[i] = (t.x, t.y, t.z, q.x, q.y, q.z, q.w, sc.x, sc.y, sc.z)
    taken = set(names)
    for k, b in enumerate(leaves):  # the tail, along the bone's own Y axis
        i = len(bones) + k
        names.append(_end_name(b, taken))
        parents[i] = index[b.name]
        rest[i] = (0.0, b.length, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0)
        flags[i] = abi.JOINT_END_SITE
    if unit <= 0:
        unit = scene.unit_settings.scale_length if scene.unit_settings.scale_length > 0 else 1.0
    skel = abi.HostSkeleton(names, parents, rest, flags if end_sites else None)
    return skel, unit * s, warnings


def character_meshes(arm_obj, scene):
    """The meshes an armature deforms (an Armature modifier on it) as abi.HostMesh list: rest
    vertices in the host frame of host_skeleton (world over the armature's object scale),
    triangles, and each vertex's four heaviest bone weights (joints in bone order); the plugin
    finds the character's soles and lowest points on them, and session export writes them."""
    s = _root_frame(arm_obj)[1]
    index = {b.name: i for i, b in enumerate(arm_obj.data.bones)}
    meshes = []
    for obj in scene.objects:
        if obj.type != 'MESH' or not any(m.type == 'ARMATURE' and m.object == arm_obj
                                         for m in obj.modifiers):
            continue
        me = obj.data
        n = len(me.vertices)
        if n == 0:
            continue
        co = np.empty(3 * n, dtype=np.float64)
        me.vertices.foreach_get("co", co)
        m = np.array(obj.matrix_world, dtype=np.float64)
        pos = (co.reshape(n, 3) @ m[:3, :3].T + m[:3, 3]) / s
        me.calc_loop_triangles()
        tris = np.empty(3 * len(me.loop_triangles), dtype=np.uint32)
        me.loop_triangles.foreach_get("vertices", tris)
        bone_of = [index.get(g.name, -1) for g in obj.vertex_groups]
        joints = np.zeros((n, 4), dtype=np.uint16)
        weights = np.zeros((n, 4), dtype=np.float32)
        for v in me.vertices:
            w = sorted(((g.weight, bone_of[g.group]) for g in v.groups
                        if g.group < len(bone_of) and bone_of[g.group] >= 0 and g.weight > 0),
                       reverse=True)[:4]
            for k, (wt, j) in enumerate(w):
                joints[v.index, k], weights[v.index, k] = j, wt
        meshes.append(abi.HostMesh(obj.name, pos, tris, joints, weights))
    return meshes


def sample_armature(arm_obj, scene, first, last, unit=0.0):
    """An armature's animation as a source: (HostSkeleton with End Sites, metres_per_unit,
    LOCAL translations [frames, joints, 3], rotations [frames, joints, 4], warnings), one key per
    scene frame first..last, read from the evaluated pose (scene.frame_set per frame; the scene's
    current frame is restored)."""
    skel, mpu, warnings = host_skeleton(arm_obj, scene, end_sites=True, unit=unit)
    bones = arm_obj.data.bones
    pose = [arm_obj.pose.bones[b.name] for b in bones]
    parent = [bones.find(b.parent.name) if b.parent else -1 for b in bones]
    nb, n, frames = len(bones), len(skel._names), last - first + 1
    t = np.empty((frames, n, 3), dtype=np.float32)
    q = np.empty((frames, n, 4), dtype=np.float32)
    t[:, nb:, :] = skel._rest[nb:, 0:3]  # End Sites hold their rest
    q[:, nb:, :] = skel._rest[nb:, 3:7]
    keep = scene.frame_current, scene.frame_subframe
    try:
        for f in range(frames):
            scene.frame_set(first + f)
            root_frame = _root_frame(arm_obj)[0]
            mats = [pb.matrix.copy() for pb in pose]
            for i in range(nb):
                p = parent[i]
                m = root_frame @ mats[i] if p < 0 else mats[p].inverted_safe() @ mats[i]
                loc, rot, _ = m.decompose()
                t[f, i] = (loc.x, loc.y, loc.z)
                q[f, i] = (rot.x, rot.y, rot.z, rot.w)
    finally:
        scene.frame_set(keep[0], subframe=keep[1])
    return skel, mpu, t, q, warnings


def _add_curve(action, path, index, group, x, y, interpolation=_LINEAR):
    fc = action.fcurves.new(path, index=index, action_group=group)
    n = len(x)
    fc.keyframe_points.add(n)
    co = np.empty(2 * n, dtype=np.float32)
    co[0::2] = x
    co[1::2] = y
    fc.keyframe_points.foreach_set("co", co)
    fc.keyframe_points.foreach_set("interpolation", np.full(n, interpolation, dtype=np.int32))
    fc.update()
    return n


def contact_frames(intervals, frame_start, step, frames):
    """Scene frames and 0/1 values of a planted-foot channel (constant keys): 1 from each
    interval's first output frame, back to 0 on the frame after its last."""
    keys = {frame_start: 0.0}
    for a, b in intervals:
        keys[frame_start + a * step] = 1.0
        if b + 1 < frames:
            keys[frame_start + (b + 1) * step] = 0.0
    xs = sorted(keys)
    return np.array(xs, dtype=np.float64), np.array([keys[x] for x in xs], dtype=np.float32)


def write_contacts(arm_obj, action, contacts, frame_start, step, frames):
    """One constant channel per planted joint, pose.bones[joint]["rigkit_planted"], 1 while the
    joint is planted, in the Action's group "rigkit contacts" (Dope Sheet / Graph Editor)."""
    bones = arm_obj.data.bones
    for j, intervals in contacts:
        pb = arm_obj.pose.bones[bones[j].name]
        if CONTACT_PROP not in pb:
            pb[CONTACT_PROP] = 0.0
        x, y = contact_frames(intervals, frame_start, step, frames)
        _add_curve(action, pb.path_from_id('["%s"]' % CONTACT_PROP), 0, CONTACT_GROUP, x, y,
                   _CONSTANT)


def write_markers(scene, arm_obj, contacts, frame_start, step):
    """Timeline markers '<joint> down' / '<joint> up' at each planted interval's first and last
    frames; the markers of the previous rigkit run (listed on the scene) are removed first."""
    old = set(scene.get("rigkit_markers", []))
    for m in [m for m in scene.timeline_markers if m.name in old]:
        scene.timeline_markers.remove(m)
    made = []
    bones = arm_obj.data.bones
    for j, intervals in contacts:
        for a, b in intervals:
            for frame, what in ((a, "down"), (b, "up")):
                name = "%s %s" % (bones[j].name, what)
                scene.timeline_markers.new(name, frame=int(round(frame_start + frame * step)))
                made.append(name)
    scene["rigkit_markers"] = sorted(set(made))


def write_action(arm_obj, session, result, action_name, frame_start, scene_fps, reduced):
    """Writes the session's keys as a new Action assigned to arm_obj, with a fake user so it is
    kept when another Action replaces it; returns (action, keys)."""
    bones = arm_obj.data.bones
    pose = arm_obj.pose.bones
    action = bpy_data().actions.new(action_name)
    action.id_root = 'OBJECT'
    action.use_fake_user = True
    if arm_obj.animation_data is None:
        arm_obj.animation_data_create()
    arm_obj.animation_data.action = action
    # Every pose bone starts from its rest: channels the action does not key (scale) must not
    # keep values left by a previous action.
    for pb in pose:
        pb.location = (0.0, 0.0, 0.0)
        pb.rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
        pb.scale = (1.0, 1.0, 1.0)
    step = scene_fps / result.fps  # scene frames per output frame
    keys = 0
    if not reduced:
        t, q = session.keys(abi.KEYS_REST_RELATIVE)  # [frames, bones, 3], [frames, bones, 4]
        x = frame_start + np.arange(result.frames, dtype=np.float64) * step
    for j, b in enumerate(bones):
        pb = pose[b.name]
        pb.rotation_mode = 'QUATERNION'
        loc_path = pb.path_from_id("location")
        rot_path = pb.path_from_id("rotation_quaternion")
        if reduced:
            ft, vt = session.track(j, abi.CHANNEL_TRANSLATION)
            fr, vr = session.track(j, abi.CHANNEL_ROTATION)
            xt = frame_start + ft.astype(np.float64) * step
            xr = frame_start + fr.astype(np.float64) * step
        else:
            xt = xr = x
            vt, vr = t[:, j, :], q[:, j, :]
        for c in range(3):
            keys += _add_curve(action, loc_path, c, b.name, xt, vt[:, c])
        # Blender orders quaternions (w, x, y, z); the plugin (x, y, z, w).
        for c, src in enumerate((3, 0, 1, 2)):
            keys += _add_curve(action, rot_path, c, b.name, xr, vr[:, src])
    action.use_frame_range = True
    action.frame_start = frame_start
    action.frame_end = frame_start + (result.frames - 1) * step
    return action, keys


def bpy_data():
    import bpy
    return bpy.data


def pick_clip(clips, clip, where):
    """Index of a clip by name or index text (empty: the first); ValueError naming the clips."""
    if not clips:
        raise ValueError("%s has no animation clip" % where)
    if clip.strip() == "":
        return 0
    names = [c[0] for c in clips]
    if clip in names:
        return names.index(clip)
    if clip.isdigit() and int(clip) < len(clips):
        return int(clip)
    raise ValueError("%s has no clip '%s' (clips: %s)" % (where, clip, ", ".join(names)))


def file_provenance(asset, path, clip):
    """The Action's record of a source file: path, clip, the unit it was read in, and whether it
    was read in the import helper process."""
    info = asset.info()
    return {"rigkit_source": path, "rigkit_clip": clip,
            "rigkit_source_metres_per_unit": info.metres_per_unit,
            "rigkit_source_isolated": int(info.isolated)}


def retarget(plugin, context, arm_obj, source, clip_index, settings, action_name, frame_start,
             provenance, meshes=None):
    """Retargets clip clip_index of the source asset onto arm_obj and writes the Action (with
    the contacts channel, and the timeline markers when settings.markers); returns (action,
    summary text, warnings). provenance: custom properties recorded on the Action; meshes: the
    armature's character_meshes (None: read them here). Raises abi.RigkitError with the
    plugin's message."""
    scene = context.scene
    timings = {}
    t0 = time.perf_counter()
    skel, mpu, warnings = host_skeleton(arm_obj, scene)
    if meshes is None:
        meshes = character_meshes(arm_obj, scene)
    session = plugin.session(source, clip_index, skeleton=skel, space=(abi.UP_Z, mpu),
                             meshes=meshes,
                             profile_path=settings.profile_path or None,
                             foot_ik=settings.foot_ik, hand_ik=settings.hand_ik,
                             root_motion=settings.root_motion, fps=settings.fps,
                             reduce_tolerance_m=settings.reduce_mm * 1e-3,
                             settings_text=settings.settings_text or None)
    with session:
        timings["open"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        session.run()
        r = session.result()
        timings["retarget"] = time.perf_counter() - t1
        scene_fps = scene.render.fps / scene.render.fps_base
        t2 = time.perf_counter()
        action, keys = write_action(arm_obj, session, r, action_name, frame_start, scene_fps,
                                    settings.reduce_mm > 0)
        step = scene_fps / r.fps
        contacts = session.contacts()
        write_contacts(arm_obj, action, contacts, frame_start, step, r.frames)
        if settings.markers:
            write_markers(scene, arm_obj, contacts, frame_start, step)
        timings["keys"] = time.perf_counter() - t2
        bones = arm_obj.data.bones
        planted = {bones[j].name: [[frame_start + a * step, frame_start + b * step]
                                   for a, b in iv] for j, iv in contacts}
        props = dict(provenance)
        props.update({
            "rigkit_frames": r.frames, "rigkit_fps": r.fps, "rigkit_mapped_bones": r.mapped_bones,
            "rigkit_keys_baked": int(r.keys_baked), "rigkit_keys_output": int(r.keys_output),
            "rigkit_keys_written": keys,
            "rigkit_foot_skate_max_mm": r.foot_skate_max_mm,
            "rigkit_foot_skate_fk_max_mm": r.foot_skate_fk_max_mm,
            "rigkit_ik_goal_error_max_mm": r.ik_goal_error_max_mm,
            "rigkit_joint_limit_violations": r.joint_limit_violations,
            "rigkit_contacts_scene_frames": json.dumps(planted),
            "rigkit_open_s": timings["open"], "rigkit_retarget_s": timings["retarget"],
            "rigkit_keys_s": timings["keys"], "rigkit_map": session.map_text(),
            "rigkit_settings_text": settings.settings_text,
            "rigkit_character_vertices": sum(len(m._pos) for m in meshes),
        })
    for k, v in props.items():
        action[k] = v
    if settings.set_frame_range:
        scene.frame_start = int(math.floor(action.frame_start))
        scene.frame_end = int(math.ceil(action.frame_end))
    scene.frame_set(int(math.floor(action.frame_start)))
    summary = ("retargeted '%s' onto '%s': %d frames at %g fps, %d bones mapped, %d keys, foot "
               "skate max %.2f mm (%.2f mm without IK); retarget %.0f ms, keys %.0f ms"
               % (props.get("rigkit_clip", ""), arm_obj.name, r.frames, r.fps, r.mapped_bones,
                  keys, r.foot_skate_max_mm, r.foot_skate_fk_max_mm, timings["retarget"] * 1e3,
                  timings["keys"] * 1e3))
    return action, summary, warnings
