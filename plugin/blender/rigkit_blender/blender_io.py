# Blender side of the add-on: an armature -> the plugin's host skeleton, and the plugin's baked
# keys -> an Action on the armature, written in bulk (keyframe_points.add + foreach_set).
#
# Spaces. The plugin is told the armature's space is Z-up (RK_PLUGIN_UP_Z, Blender's axes) with
# metres_per_unit = scene unit scale x the object's uniform scale, and it does the axis and unit
# conversion to and from rigkit's canonical Y-up metres. The add-on only expresses the rest pose:
#  - a bone's rest relative to its parent is parent.matrix_local^-1 @ bone.matrix_local
#    (armature space, bone roll included, no scale);
#  - a root bone's rest is placed in the object's world orientation (object rotation and
#    translation applied, the object's scale moved into metres_per_unit), so "up" is world Z even
#    when the armature object is rotated (e.g. under a glTF "Z_UP" empty).
# Keys are read as RK_PLUGIN_KEYS_REST_RELATIVE, i.e. rest^-1 @ local, which is exactly a pose
# bone's matrix_basis (location, rotation_quaternion, scale) and does not depend on the root's
# frame, so they are written to the pose bones as they come.
import json
import math
import time

import numpy as np

from . import abi

_LINEAR = 1  # enum value of 'LINEAR' in Keyframe.interpolation


def host_skeleton(arm_obj, scene):
    """(abi.HostSkeleton, metres_per_unit, warnings) of an armature object's rest pose."""
    bones = arm_obj.data.bones
    index = {b.name: i for i, b in enumerate(bones)}
    loc, rot, scl = arm_obj.matrix_world.decompose()
    warnings = []
    s = (abs(scl.x) + abs(scl.y) + abs(scl.z)) / 3.0
    if s <= 0 or max(abs(abs(scl.x) - s), abs(abs(scl.y) - s), abs(abs(scl.z) - s)) > 1e-4 * s:
        warnings.append("object '%s' has a non-uniform scale %s: its mean %.6g is used"
                        % (arm_obj.name, tuple(round(v, 6) for v in scl), s))
    if s <= 0:
        s = 1.0
    # Keys are written as pose-bone basis values, which mean "relative to the rest, in the
    # parent's frame" only with Blender's default bone options.
    odd = [b.name for b in bones if not b.use_inherit_rotation or not b.use_local_location
           or b.inherit_scale not in ('FULL', 'FIX_SHEAR', 'ALIGNED', 'AVERAGE')]
    if odd:
        listed = ", ".join(odd[:5]) + (", ..." if len(odd) > 5 else "")
        warnings.append("bones without Inherit Rotation or Local Location (%s): their keys are "
                        "written as for default bones and may not play back as retargeted" % listed)
    import mathutils
    root_frame = mathutils.Matrix.Translation(loc / s) @ rot.to_matrix().to_4x4()
    n = len(bones)
    rest = np.empty((n, abi.TRS_FLOATS), dtype=np.float32)
    parents = np.empty(n, dtype=np.int32)
    for i, b in enumerate(bones):
        if b.parent is None:
            m = root_frame @ b.matrix_local
            parents[i] = -1
        else:
            m = b.parent.matrix_local.inverted_safe() @ b.matrix_local
            parents[i] = index[b.parent.name]
        t, q, sc = m.decompose()
        rest[i] = (t.x, t.y, t.z, q.x, q.y, q.z, q.w, sc.x, sc.y, sc.z)
    unit = scene.unit_settings.scale_length if scene.unit_settings.scale_length > 0 else 1.0
    return abi.HostSkeleton([b.name for b in bones], parents, rest), unit * s, warnings


def _add_curve(action, path, index, group, x, y):
    fc = action.fcurves.new(path, index=index, action_group=group)
    n = len(x)
    fc.keyframe_points.add(n)
    co = np.empty(2 * n, dtype=np.float32)
    co[0::2] = x
    co[1::2] = y
    fc.keyframe_points.foreach_set("co", co)
    fc.keyframe_points.foreach_set("interpolation", np.full(n, _LINEAR, dtype=np.int32))
    fc.update()
    return n


def write_action(arm_obj, session, result, action_name, frame_start, scene_fps, reduced):
    """Writes the session's keys as a new Action assigned to arm_obj; returns (action, keys)."""
    bones = arm_obj.data.bones
    pose = arm_obj.pose.bones
    action = bpy_data().actions.new(action_name)
    action.id_root = 'OBJECT'
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


def tri_state(value):
    return {'DEFAULT': abi.DEFAULT, 'ON': 1, 'OFF': 0}[value]


def retarget(plugin, context, arm_obj, filepath, clip, foot_ik, hand_ik, root_motion, fps,
             reduce_mm, profile_path, action_name, set_frame_range):
    """Runs the whole operator; returns (action, summary text, warnings). Raises abi.RigkitError
    or ValueError with a message for the user."""
    scene = context.scene
    timings = {}
    t0 = time.perf_counter()
    with plugin.open_file(filepath) as src:
        clips = src.clips()
        if not clips:
            raise ValueError("%s has no animation clip" % filepath)
        if clip.strip() == "":
            ci = 0
        else:
            names = [c[0] for c in clips]
            if clip in names:
                ci = names.index(clip)
            elif clip.isdigit() and int(clip) < len(clips):
                ci = int(clip)
            else:
                raise ValueError("%s has no clip '%s' (clips: %s)" % (filepath, clip,
                                                                      ", ".join(names)))
        skel, mpu, warnings = host_skeleton(arm_obj, scene)
        session = plugin.session(src, ci, skeleton=skel, space=(abi.UP_Z, mpu),
                                 profile_path=profile_path or None, foot_ik=tri_state(foot_ik),
                                 hand_ik=tri_state(hand_ik), root_motion=tri_state(root_motion),
                                 fps=fps, reduce_tolerance_m=reduce_mm * 1e-3)
    with session:
        timings["open"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        session.run()
        r = session.result()
        timings["retarget"] = time.perf_counter() - t1
        scene_fps = scene.render.fps / scene.render.fps_base
        name = action_name or "%s|%s" % (arm_obj.name, clips[ci][0] or "rigkit")
        t2 = time.perf_counter()
        action, keys = write_action(arm_obj, session, r, name, scene.frame_start, scene_fps,
                                    reduce_mm > 0)
        timings["keys"] = time.perf_counter() - t2
        bones = arm_obj.data.bones
        step = scene_fps / r.fps
        contacts = {bones[j].name: [[scene.frame_start + a * step, scene.frame_start + b * step]
                                    for a, b in iv] for j, iv in session.contacts()}
        props = {
            "rigkit_source": filepath, "rigkit_clip": clips[ci][0], "rigkit_frames": r.frames,
            "rigkit_fps": r.fps, "rigkit_mapped_bones": r.mapped_bones,
            "rigkit_keys_baked": int(r.keys_baked), "rigkit_keys_output": int(r.keys_output),
            "rigkit_keys_written": keys,
            "rigkit_foot_skate_max_mm": r.foot_skate_max_mm,
            "rigkit_foot_skate_fk_max_mm": r.foot_skate_fk_max_mm,
            "rigkit_ik_goal_error_max_mm": r.ik_goal_error_max_mm,
            "rigkit_joint_limit_violations": r.joint_limit_violations,
            "rigkit_contacts_scene_frames": json.dumps(contacts),
            "rigkit_open_s": timings["open"], "rigkit_retarget_s": timings["retarget"],
            "rigkit_keys_s": timings["keys"], "rigkit_map": session.map_text(),
        }
    for k, v in props.items():
        action[k] = v
    if set_frame_range:
        scene.frame_start = int(math.floor(action.frame_start))
        scene.frame_end = int(math.ceil(action.frame_end))
    scene.frame_set(scene.frame_start)
    summary = ("retargeted '%s' onto '%s': %d frames at %g fps, %d bones mapped, %d keys, foot "
               "skate max %.2f mm (%.2f mm without IK); retarget %.0f ms, keys %.0f ms"
               % (clips[ci][0], arm_obj.name, r.frames, r.fps, r.mapped_bones, keys,
                  r.foot_skate_max_mm, r.foot_skate_fk_max_mm, timings["retarget"] * 1e3,
                  timings["keys"] * 1e3))
    return action, summary, warnings
