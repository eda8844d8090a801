# Headless Blender test of what the rigkit add-on's operators keep and where their sources come
# from (plugin/blender): reruns keep every Action (also across saving the file); the contacts
# become a channel and timeline markers; the source unit and the profile's settings reach the
# plugin; a batch over a folder of three clips gives three Actions and a summary, a multi-clip
# file one Action per clip, and failures (a file that crashes the importer in the helper process,
# a malformed file) are listed while the rest goes on; a batch stops between clips; an armature
# imported with Blender's BVH importer, as the source, moves the character as the BVH file does
# when read as Blender reads it (bone heads within 0.1 mm); a GLB that crashes the import helper is refused with a message and
# Blender keeps running (the helper's test hook RIGKIT_IMPORT_HELPER_FAULT stands in for Assimp
# aborting: Debian's Assimp no longer aborts on any file rigkit's own checks let through).
#
# Run: blender -b --factory-startup --python-exit-code 1 --python test_operators.py -- \
#        --zip build/rigkit_blender-0.1.0.zip --data tests/data --out OUT_DIR
import json
import math
import os
import shutil
import sys
import time

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from addon_common import (all_keys, check, fail, heads, install_addon,  # noqa: E402
                          load_character, make_active, parse_args, say)
import numpy as np  # noqa: E402

args = parse_args()
data = args.data
walk = os.path.join(data, "makehuman_walk1.bvh")
figure = os.path.join(data, "RiggedFigure.glb")
rigkit_blender, _ = install_addon(args.zip)
helper = os.path.join(os.path.dirname(rigkit_blender.__file__), "rigkit-import-helper")
check(os.access(helper, os.X_OK), "%s lost its execute bit in the zip and was not given it back"
      % helper)


def expect_error(op, kwargs, *needles):
    """Runs an operator that must fail; its message must hold every needle."""
    try:
        op(**kwargs)
    except RuntimeError as e:
        for n in needles:
            check(n in str(e), "error for %s does not say '%s': %s" % (kwargs, n, e))
        return str(e)
    fail("no error for %s" % kwargs)


def frame_heads(scene, arm, frames):
    return {f: heads(scene, arm, f) for f in frames}


def max_distance(a, b):
    return max(math.dist(a[f][n], b[f][n]) for f in a for n in a[f])


# ---- reruns keep every Action, also after saving -----------------------------------------------
scene, arm = load_character(figure)
bpy.ops.rigkit.retarget_clip(filepath=walk, root_motion='ON')
first = arm.animation_data.action
bpy.ops.rigkit.retarget_clip(filepath=walk, root_motion='ON')
second = arm.animation_data.action
check(first != second and first.name in bpy.data.actions and second.name in bpy.data.actions,
      "two runs: %s, %s" % (first.name, second.name))
check(first.use_fake_user and second.use_fake_user, "the Actions have no fake user")
check(first.users == 1 and second.users == 2, "users: %d, %d (the fake user, + the armature)"
      % (first.users, second.users))
names = (first.name, second.name)
blend = os.path.join(args.out, "two_runs.blend")
bpy.ops.wm.save_as_mainfile(filepath=blend)
bpy.ops.wm.open_mainfile(filepath=blend)
kept = [a.name for a in bpy.data.actions if a.name in names]
check(sorted(kept) == sorted(names), "after saving and opening %s: %s" % (blend, kept))
say("two runs keep two Actions (%s, %s), both still there after saving and reopening the file"
    % names)

# ---- contacts: a channel in the Action, markers on the timeline --------------------------------
scene, arm = load_character(figure)
bpy.ops.rigkit.retarget_clip(filepath=walk, root_motion='ON')
act = arm.animation_data.action
planted = json.loads(act["rigkit_contacts_scene_frames"])
channels = {fc.data_path.split('"')[1]: fc for fc in act.fcurves
            if fc.group and fc.group.name == "rigkit contacts"}
check(sorted(channels) == sorted(planted), "contact channels %s, contacts %s"
      % (sorted(channels), sorted(planted)))
for bone, fc in channels.items():
    check(fc.data_path == 'pose.bones["%s"]["rigkit_planted"]' % bone, fc.data_path)
    check(all(k.interpolation == 'CONSTANT' for k in fc.keyframe_points), "%s: not constant" % bone)
    for f in range(1, act["rigkit_frames"] + 1):
        inside = any(a - 1e-6 <= f <= b + 1e-6 for a, b in planted[bone])
        check(fc.evaluate(f) == (1.0 if inside else 0.0), "%s frame %d: %g" % (bone, f,
                                                                                fc.evaluate(f)))
markers = sorted((m.frame, m.name) for m in scene.timeline_markers)
want = sorted([(int(round(a)), "%s down" % b) for b, ivs in planted.items() for a, _ in ivs] +
              [(int(round(z)), "%s up" % b) for b, ivs in planted.items() for _, z in ivs])
check(markers == want, "markers %s, expected %s" % (markers, want))
bpy.ops.rigkit.retarget_clip(filepath=walk, root_motion='ON', contact_markers=False)
check(sorted((m.frame, m.name) for m in scene.timeline_markers) == want,
      "markers changed without contact_markers")
bpy.ops.rigkit.retarget_clip(filepath=walk, root_motion='ON')
check(len(scene.timeline_markers) == len(want), "a rerun doubled the markers")
say("contacts: %d channels in 'rigkit contacts' (1 while planted), %d timeline markers, "
    "replaced on a rerun" % (len(channels), len(markers)))
# The character's mesh went to the plugin with the armature (its soles and lowest points).
skinned = sum(len(o.data.vertices) for o in scene.objects if o.type == 'MESH')
check(act["rigkit_character_vertices"] == skinned > 0,
      "%d of the character's %d vertices passed" % (act["rigkit_character_vertices"], skinned))

# Blender's own evaluation of the skin: the lowest vertex of the character against the floor
# (z = 0) at every frame, as tests/blender/look.py measures it. The plugin had the character's
# mesh with the armature, so its soles are what it stands on.
depsgraph = bpy.context.evaluated_depsgraph_get()


def lowest_vertex(o):
    """The lowest world z of a mesh object's evaluated (skinned) vertices."""
    ev = o.evaluated_get(depsgraph)
    me = ev.to_mesh()
    co = np.empty(3 * len(me.vertices))
    me.vertices.foreach_get("co", co)
    m = np.array(o.matrix_world)
    low = float(((co.reshape(-1, 3) @ m[:3, :3].T) + m[:3, 3])[:, 2].min())
    ev.to_mesh_clear()
    return low


lows = []
for f in range(1, act["rigkit_frames"] + 1):
    scene.frame_set(f)
    lows.append(min(lowest_vertex(o) for o in scene.objects if o.type == 'MESH'))
check(min(lows) > -0.005 and abs(float(np.median(lows))) < 0.002,
      "the skinned mesh goes %.1f mm through the floor (median of the frames' lowest %.1f mm)"
      % (-min(lows) * 1e3, float(np.median(lows)) * 1e3))
say("the skinned mesh in Blender's evaluation: lowest point %.1f mm from the floor over the walk "
    "(median of the frames' lowest %.1f mm)" % (min(lows) * 1e3, float(np.median(lows)) * 1e3))
# Soles from the bones instead: the mesh is no longer what stands on the floor.
bpy.ops.rigkit.retarget_clip(filepath=walk, root_motion='ON', soles='BONES', action_name="bones")
check("soles=bones" in arm.animation_data.action["rigkit_settings_text"], "soles not passed")
bone_lows = []
for f in range(1, act["rigkit_frames"] + 1):
    scene.frame_set(f)
    bone_lows.append(min(lowest_vertex(o) for o in scene.objects if o.type == 'MESH'))
say("with soles from the bones: lowest point %.1f mm (median %.1f mm)"
    % (min(bone_lows) * 1e3, float(np.median(bone_lows)) * 1e3))
arm.animation_data.action = act

# ---- the source unit and the profile's settings reach the plugin -------------------------------
bpy.ops.rigkit.retarget_clip(filepath=walk, root_motion='ON', source_unit='CM',
                             action_name="walk_in_cm")
cm = arm.animation_data.action
check(abs(cm["rigkit_source_metres_per_unit"] - 0.01) < 1e-12 and
      abs(act["rigkit_source_metres_per_unit"] - 0.1) < 1e-12,
      "unit: %g (auto: %g)" % (cm["rigkit_source_metres_per_unit"],
                               act["rigkit_source_metres_per_unit"]))
bpy.ops.rigkit.retarget_clip(filepath=walk, root_motion='ON', source_unit='CUSTOM',
                             source_metres_per_unit=0.1, action_name="walk_in_dm")
dm = arm.animation_data.action
# Blender's float properties hold 0.1 as 0.100000001: the same motion, not the same bits.
unit_dev = float(np.abs(all_keys(dm) - all_keys(act)).max())
check(unit_dev < 1e-5, "a custom 0.1 m unit differs from the detected dm by %g" % unit_dev)
bpy.ops.rigkit.retarget_clip(filepath=walk, root_motion='ON', use_contact_height=True,
                             contact_height=0.0, action_name="walk_never_planted")
none = arm.animation_data.action
check(not any(json.loads(none["rigkit_contacts_scene_frames"]).values()) and
      "contact_height=0.0" in none["rigkit_settings_text"],
      "contact_height 0 still plants: %s" % none["rigkit_contacts_scene_frames"])
say("source unit: auto 0.1 m (detected), CM 0.01 m, custom 0.1 m = auto; contact_height 0 "
    "from the operator: no foot planted")

# ---- a batch over a folder of three clips ------------------------------------------------------
folder = os.path.join(args.out, "three_clips")
os.makedirs(folder, exist_ok=True)
clips = [walk, os.path.join(data, "generated", "mh_walk.bvh"),
         os.path.join(data, "generated", "cmu_walk.bvh")]
for c in clips:
    shutil.copy(c, folder)
with open(os.path.join(folder, "notes.txt"), "w") as f:
    f.write("not a clip: the batch skips it\n")
scene, arm = load_character(figure)
t0 = time.perf_counter()
res = bpy.ops.rigkit.retarget_batch(directory=folder, root_motion='ON')
batch_s = time.perf_counter() - t0
check(res == {'FINISHED'}, "batch: %s" % res)
out = rigkit_blender._state["last_batch"]
want = sorted("Armature|%s|%s" % (os.path.basename(c), os.path.splitext(os.path.basename(c))[0])
              for c in clips)
check(sorted(out["ok"]) == want and not out["failed"] and not out["cancelled"],
      "batch outcome %s, expected %s" % (out, want))
for name in want:
    a = bpy.data.actions.get(name)
    check(a is not None and a.use_fake_user and a["rigkit_frames"] > 1, "action %s" % name)
check(out["summary"] == "batch onto 'Armature': 3 clips retargeted, 0 failed", out["summary"])
say("batch over %s: %s (%s) in %.2f s" % (os.path.basename(folder), out["summary"],
                                          ", ".join(want), batch_s))

# ---- a batch with a multi-clip file and failures ------------------------------------------------
mixed = os.path.join(args.out, "mixed")
os.makedirs(mixed, exist_ok=True)
shutil.copy(os.path.join(data, "Fox.glb"), mixed)  # three clips: Survey, Walk, Run
shutil.copy(os.path.join(data, "derived", "makehuman_walk1_assimp.glb"),
            os.path.join(mixed, "crash_me.glb"))
with open(os.path.join(mixed, "broken.bvh"), "w") as f:
    f.write("HIERARCHY\nROOT Hips\n{\n OFFSET 0 0\n")
fox_map = os.path.join(args.out, "fox_source.map")
with open(os.path.join(os.path.dirname(data), "..", "samples", "maps", "fox_hind_legs.map")) as f:
    body = f.read()
with open(fox_map, "w") as f:  # the sample map maps a fox *target*: here the fox is the source
    f.write(body.replace("[target]", "[source]"))
os.environ["RIGKIT_IMPORT_HELPER_FAULT"] = "abort:crash_me"
res = bpy.ops.rigkit.retarget_batch(directory=mixed, profile_path=fox_map, root_motion='ON')
del os.environ["RIGKIT_IMPORT_HELPER_FAULT"]
out = rigkit_blender._state["last_batch"]
check(res == {'FINISHED'}, "mixed batch: %s" % res)
check(sorted(out["ok"]) == ["Armature|Fox.glb|Run", "Armature|Fox.glb|Survey",
                            "Armature|Fox.glb|Walk"], "multi-clip file: %s" % out["ok"])
failed = {f: m for f, _, m in out["failed"]}
check(sorted(failed) == ["broken.bvh", "crash_me.glb"], "failures %s" % out["failed"])
check("crashed" in failed["crash_me.glb"] and "SIGABRT" in failed["crash_me.glb"] and
      "crash_me.glb" in failed["crash_me.glb"], failed["crash_me.glb"])
check(out["summary"].startswith("batch onto 'Armature': 3 clips retargeted, 2 failed (broken.bvh: ")
      and "crash_me.glb: " in out["summary"], out["summary"])
say("batch with failures: %s" % out["summary"])

# ---- stopping a batch between clips (what Esc does in the modal operator) ----------------------
from rigkit_blender import batch as rk_batch, blender_io  # noqa: E402
job = rk_batch.BatchJob(rigkit_blender._state["plugin"], bpy.context, arm,
                        rk_batch.clip_files(folder), blender_io.Settings(root_motion=1))
check(job.progress() == 0 and not job.done, "a new job")
job.step(bpy.context)  # opens the first file
job.step(bpy.context)  # its only clip
progress = job.progress()
job.cancel()
check(job.done and job.cancelled and len(job.ok) == 1 and abs(progress - 1 / 3) < 1e-9,
      "stopped job: %s, progress %g" % (job.outcome(), progress))
check(job.summary().endswith("1 clip retargeted, 0 failed; cancelled after 1 of 3 files"),
      job.summary())
say("stopped batch: %s" % job.summary())

# ---- an armature in the scene as the source -----------------------------------------------------
# Blender's importer reads the BVH root OFFSET as "replace" (root position = channels), rigkit
# picks "add" for this file: the file is retargeted with Blender's reading to compare.
scene, arm = load_character(figure)
bpy.ops.rigkit.retarget_clip(filepath=walk, root_motion='ON', bvh_root_offset='REPLACE')
from_file = arm.animation_data.action
frames = list(range(1, from_file["rigkit_frames"] + 1))
want = frame_heads(scene, arm, frames)
before = set(scene.objects)
# Blender's own BVH importer, the file's numbers (decimetres) and axes (Z up) as they are.
res = bpy.ops.import_anim.bvh(filepath=walk, global_scale=1.0, frame_start=1, use_fps_scale=False,
                              update_scene_fps=False, update_scene_duration=False,
                              rotate_mode='NATIVE', axis_forward='Y', axis_up='Z')
check("FINISHED" in res, "BVH import: %s" % res)
src = next(o for o in scene.objects if o not in before and o.type == 'ARMATURE')
make_active(arm)
t0 = time.perf_counter()
res = bpy.ops.rigkit.retarget_armature(source=src.name, source_unit='DM', root_motion='ON')
arm_s = time.perf_counter() - t0
check(res == {'FINISHED'}, "retarget_armature: %s" % res)
from_arm = arm.animation_data.action
check(from_arm.name.startswith("Armature|%s" % src.animation_data.action.name) and
      from_arm != from_file and from_arm.use_fake_user
      and from_arm["rigkit_source"] == "armature '%s'" % src.name, from_arm.name)
check(from_arm["rigkit_frames"] == from_file["rigkit_frames"] and
      tuple(from_arm.frame_range) == tuple(from_file.frame_range),
      "frames %d vs %d" % (from_arm["rigkit_frames"], from_file["rigkit_frames"]))
got = frame_heads(scene, arm, frames)
dev = max_distance(got, want)
check(dev < 1e-4, "the armature source moves the character %.4f mm away from the file's retarget"
      % (dev * 1e3))
check(from_arm["rigkit_contacts_scene_frames"] == from_file["rigkit_contacts_scene_frames"],
      "contacts differ: %s vs %s" % (from_arm["rigkit_contacts_scene_frames"],
                                     from_file["rigkit_contacts_scene_frames"]))
say("armature '%s' (Blender's BVH importer) as the source: bone heads within %.4f mm of the "
    "BVH file's retarget over %d frames, same contacts; operator %.0f ms"
    % (src.name, dev * 1e3, len(frames), arm_s * 1e3))
expect_error(bpy.ops.rigkit.retarget_armature, {"source": "nobody"}, "no armature object 'nobody'")
expect_error(bpy.ops.rigkit.retarget_armature, {"source": arm.name}, "is the target")
src.animation_data.action = None
expect_error(bpy.ops.rigkit.retarget_armature, {"source": src.name}, "has no active Action")
check(arm.animation_data.action == from_arm, "a refused run changed the Action")

# ---- a file that crashes the import helper: refused, Blender keeps running ----------------------
# A GLB clip: the walk on the figure, written by the plugin (a file Assimp reads).
glb_walk = os.path.join(args.out, "walk_on_figure.glb")
plugin = rigkit_blender._state["plugin"]
with plugin.open_file(walk) as w, plugin.open_file(figure) as fig:
    with plugin.session(w, 0, target=fig, root_motion=1) as s:
        s.run()
        s.export(glb_walk)
crash = os.path.join(args.out, "crash_me.glb")
shutil.copy(glb_walk, crash)
os.environ["RIGKIT_IMPORT_HELPER_FAULT"] = "abort:crash_me"
msg = expect_error(bpy.ops.rigkit.retarget_clip, {"filepath": crash}, crash, "crashed",
                   "SIGABRT", "the file is refused")
check(arm.animation_data.action == from_arm, "a refused file changed the Action")
res = bpy.ops.rigkit.retarget_clip(filepath=glb_walk, root_motion='ON')
del os.environ["RIGKIT_IMPORT_HELPER_FAULT"]
check(res == {'FINISHED'} and arm.animation_data.action["rigkit_source_isolated"] == 1,
      "the GLB clip after the crash: %s" % res)
say("a GLB that crashes the import helper is refused (%s); Blender carried on and retargeted "
    "the next GLB through the helper" % msg.strip())
say("passed")
