# Headless Blender test of the rigkit add-on (plugin/blender): installs the add-on zip, imports a
# character (RiggedFigure.glb), retargets the MakeHuman walk onto its armature through the
# operator, checks the Action (frame range, every bone keyed, no NaN, feet on the ground, planted
# feet still, hips travelling), runs the operator's other paths (key reduction, a profile file,
# errors), exports GLB and BVH with Blender's exporters and re-imports both in Blender. Writes a
# manifest of world positions for tests/blender/test_addon.c, which re-reads the exports with
# rigkit. Prints timings (add-on load, retarget, key write).
#
# Run: blender -b --factory-startup --python-exit-code 1 --python test_addon.py -- \
#        --zip build/rigkit_blender-0.1.0.zip --data tests/data --out OUT_DIR
# (BLENDER_USER_SCRIPTS should point to a scratch directory: the add-on is installed there.)
import json
import math
import os
import sys
import time

import bpy
from mathutils import Vector

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from addon_common import (all_keys, check, fail, heads, install_addon, load_character,  # noqa: E402
                          new_scene, parse_args, say, transform_curves)
import numpy as np  # noqa: E402

args = parse_args()
walk = os.path.join(args.data, "makehuman_walk1.bvh")
figure = os.path.join(args.data, "RiggedFigure.glb")

# ---- install and enable the add-on from the zip ----------------------------------------------
rigkit_blender, load_s = install_addon(args.zip)
plugin = rigkit_blender._state["plugin"]
check(os.path.dirname(plugin.path) == os.path.dirname(rigkit_blender.__file__),
      "library loaded from %s, not from the add-on's folder" % plugin.path)
say("loaded rigkit %s from %s" % (plugin.version, plugin.path))
check(hasattr(bpy.types, "RIGKIT_PT_retarget"), "no sidebar panel registered")
check(bpy.types.RIGKIT_PT_retarget.bl_space_type == 'VIEW_3D'
      and bpy.types.RIGKIT_PT_retarget.bl_region_type == 'UI', "the panel is not in the N panel")


# ---- retarget through the operator ------------------------------------------------------------
scene, arm = load_character(figure)
rest_heads = {b.name: tuple(arm.matrix_world @ b.head_local) for b in arm.data.bones}
ground = min(h[2] for h in rest_heads.values())
t0 = time.perf_counter()
res = bpy.ops.rigkit.retarget_clip(filepath=walk, root_motion='ON')
op_s = time.perf_counter() - t0
check(res == {'FINISHED'}, "operator returned %s" % res)
act = arm.animation_data.action
check(act is not None and act.name == "Armature|makehuman_walk1", "action %s" % act)
say("timings: add-on load %.1f ms, retarget %.1f ms, key write %.1f ms (%d keys), operator %.1f ms"
    % (load_s * 1e3, act["rigkit_retarget_s"] * 1e3, act["rigkit_keys_s"] * 1e3,
       act["rigkit_keys_written"], op_s * 1e3))
frames = act["rigkit_frames"]
check(frames == 14 and abs(act["rigkit_fps"] - 24) < 1e-9,
      "frames %s fps %s" % (frames, act["rigkit_fps"]))
check(tuple(act.frame_range) == (1.0, 14.0), "action frame range %s" % (tuple(act.frame_range),))
check((scene.frame_start, scene.frame_end) == (1, 14),
      "scene range %d..%d" % (scene.frame_start, scene.frame_end))
bones = [b.name for b in arm.data.bones]
keyed = {}
# The bones' transform curves (the Action also holds the "rigkit contacts" channel, checked in
# test_operators.py).
for fc in transform_curves(act):
    keyed.setdefault(fc.group.name, set()).add((fc.data_path.rsplit(".", 1)[1], fc.array_index))
    check(len(fc.keyframe_points) == frames, "%s[%d]: %d keys" % (fc.data_path, fc.array_index,
                                                                  len(fc.keyframe_points)))
    check(all(k.interpolation == 'LINEAR' for k in fc.keyframe_points),
          "%s: not linear" % fc.data_path)
check(sorted(keyed) == sorted(bones),
      "keyed bones %s != armature bones %s" % (sorted(keyed), bones))
for b, chans in keyed.items():
    check(len(chans) == 7, "%s: channels %s" % (b, sorted(chans)))
co = all_keys(act)
check(co.size == len(bones) * 7 * frames * 2 and np.all(np.isfinite(co)), "NaN or missing keys")
say("action '%s': %d bones x 7 curves x %d frames, frames %g..%g, no NaN"
    % (act.name, len(bones), frames, *act.frame_range))

# Feet on the ground: the planted joints rigkit reports are feet. Over the clip the lowest foot
# comes within 1 cm of the ground (the rest pose's lowest joint) and none sinks more than 1 cm;
# at every frame some foot is low (a walk never has both feet far up: a wrong unit or axis
# would float or sink the character). During each contact the planted joint does not slide.
contacts = json.loads(act["rigkit_contacts_scene_frames"])
feet = sorted(contacts)
check(len(feet) >= 2, "contact joints %s" % feet)
per_frame = {f: heads(scene, arm, f) for f in range(1, frames + 1)}
lowest, highest_low = math.inf, 0.0
for f, hd in per_frame.items():
    for v in hd.values():
        check(all(math.isfinite(c) for c in v), "frame %d: NaN head" % f)
    low = min(hd[b][2] - ground for b in feet)
    lowest = min(lowest, low)
    highest_low = max(highest_low, low)
check(lowest > -0.01, "a foot sinks %.1f mm below the ground" % (-lowest * 1e3))
check(lowest < 0.01, "no foot comes within 1 cm of the ground (lowest %.1f mm)" % (lowest * 1e3))
check(highest_low < 0.06, "both feet %.1f mm up at some frame" % (highest_low * 1e3))
skate = 0.0
for b, ivs in contacts.items():
    for a, z in ivs:
        p0 = per_frame[int(round(a))][b]
        for f in range(int(round(a)), int(round(z)) + 1):
            p = per_frame[f][b]
            skate = max(skate, math.hypot(p[0] - p0[0], p[1] - p0[1]))
check(skate < 0.002, "planted feet slide %.2f mm in Blender" % (skate * 1e3))
hips = "torso_joint_1"
travel = per_frame[frames][hips][1] - per_frame[1][hips][1]
check(travel < -0.5, "the hips travel %.3f m along Y (expected forward, -Y)" % travel)
say("feet %s: lowest %.1f mm from the ground over the clip, lowest foot at most %.1f mm up at any "
    "frame; planted skate %.3f mm; hips travel %.2f m" % (",".join(feet), lowest * 1e3,
                                                          highest_low * 1e3, skate * 1e3, -travel))
dense_positions = per_frame

# ---- key reduction: fewer keys, same motion -------------------------------------------------
res = bpy.ops.rigkit.retarget_clip(filepath=walk, root_motion='ON', reduce_mm=1.0,
                                   action_name="walk_reduced")
check(res == {'FINISHED'}, "reduced: %s" % res)
red = arm.animation_data.action
check(red.name == "walk_reduced" and tuple(red.frame_range) == (1.0, 14.0), "reduced action %s %s"
      % (red.name, tuple(red.frame_range)))
nkeys = sum(len(fc.keyframe_points) for fc in transform_curves(red))
check(nkeys < len(bones) * 7 * frames, "reduction kept all %d keys" % nkeys)
dev = 0.0
for f in range(1, frames + 1):
    hd = heads(scene, arm, f)
    for b, p in hd.items():
        q = dense_positions[f][b]
        dev = max(dev, math.dist(p, q))
check(dev < 0.002, "reduced motion deviates %.2f mm" % (dev * 1e3))
say("reduction 1 mm: %d -> %d keys, largest bone-head deviation %.3f mm"
    % (len(bones) * 7 * frames, nkeys, dev * 1e3))

# ---- timing on more keys: the same walk baked at 1000 fps --------------------------------------
t0 = time.perf_counter()
res = bpy.ops.rigkit.retarget_clip(filepath=walk, root_motion='ON', frame_rate='CUSTOM', fps=1000,
                                   action_name="walk_1000fps", set_frame_range=False)
op_s = time.perf_counter() - t0
big = arm.animation_data.action
check(res == {'FINISHED'} and big["rigkit_frames"] == 543,
      "1000 fps: %s %s" % (res, big.get("rigkit_frames")))
check(abs(big.frame_range[1] - (1 + 542 * 24 / 1000)) < 1e-3,
      "1000 fps range %s" % (tuple(big.frame_range),))
say("timings at 1000 fps: %d frames, %d keys: retarget %.1f ms, key write %.1f ms (%.2f M keys/s), "
    "operator %.1f ms" % (big["rigkit_frames"], big["rigkit_keys_written"],
                          big["rigkit_retarget_s"] * 1e3, big["rigkit_keys_s"] * 1e3,
                          big["rigkit_keys_written"] / big["rigkit_keys_s"] / 1e6, op_s * 1e3))

# ---- a profile file: [settings] turns root motion on, [target] maps a bone ------------------
profile = os.path.join(args.out, "figure.rkprofile")
with open(profile, "w") as f:
    f.write("# rigkit profile: the same file works with `rigkit retarget --map`\n"
            "[target]\nleft_toes=leg_joint_L_5\nright_toes=leg_joint_R_5\n"
            "[settings]\nroot_motion=true\nfps=12\n")
res = bpy.ops.rigkit.retarget_clip(filepath=walk, profile_path=profile, frame_rate='SOURCE',
                                   action_name="walk_profile")
prof = arm.animation_data.action
check(res == {'FINISHED'} and prof["rigkit_fps"] == 12 and prof["rigkit_frames"] == 8,
      "profile: %s fps %s frames %s" % (res, prof["rigkit_fps"], prof["rigkit_frames"]))
check(tuple(prof.frame_range) == (1.0, 15.0), "12 fps keys on a 24 fps scene: %s"
      % (tuple(prof.frame_range),))
hd = heads(scene, arm, 15)
check(hd[hips][1] - per_frame[1][hips][1] < -0.5, "profile root motion did not apply")
say("profile %s: 8 frames at 12 fps placed on scene frames 1..15 (every 2nd), root motion on"
    % os.path.basename(profile))

# ---- errors come back as reports, Blender keeps running -------------------------------------
for kwargs, expect in [({"filepath": "/nonexistent/walk.bvh"}, "/nonexistent/walk.bvh"),
                       ({"filepath": walk, "clip": "nope"}, "no clip 'nope'"),
                       ({"filepath": walk, "profile_path": "/nonexistent/p.map"},
                        "/nonexistent/p.map")]:
    try:
        bpy.ops.rigkit.retarget_clip(**kwargs)
        fail("no error for %s" % kwargs)
    except RuntimeError as e:
        check(expect in str(e), "error for %s does not name the fault: %s" % (kwargs, e))
with open(profile, "w") as f:
    f.write("[settings]\nspeed=3\n")
try:
    bpy.ops.rigkit.retarget_clip(filepath=walk, profile_path=profile)
    fail("no error for a bad profile")
except RuntimeError as e:
    check("speed" in str(e) and "unknown key" in str(e), "bad profile: %s" % e)
check(arm.animation_data.action == prof, "a failed run changed the action")
bpy.ops.object.select_all(action='DESELECT')
bpy.context.view_layer.objects.active = None
check(not bpy.ops.rigkit.retarget_clip.poll(), "the operator runs without an armature")
say("errors reported: missing clip file, unknown clip, missing profile, bad profile key; "
    "no armature -> operator unavailable")

# ---- export GLB and BVH with Blender's exporters, re-import both in Blender -------------------
bpy.context.view_layer.objects.active = arm
arm.select_set(True)
arm.animation_data.action = act
scene.frame_start, scene.frame_end = 1, frames
# Only the retargeted walk goes out (the exporter writes every action: the figure's own
# animation and the runs above would come along).
for a in list(bpy.data.actions):
    if a != act:
        bpy.data.actions.remove(a)
glb = os.path.join(args.out, "retargeted.glb")
bvh = os.path.join(args.out, "retargeted.bvh")
res = bpy.ops.export_scene.gltf(filepath=glb, export_format='GLB', export_animations=True,
                                export_force_sampling=True, export_frame_range=True)
check("FINISHED" in res and os.path.getsize(glb) > 0, "glTF export: %s" % res)
res = bpy.ops.export_anim.bvh(filepath=bvh, frame_start=1, frame_end=frames, global_scale=1.0,
                              rotate_mode='NATIVE', root_transform_only=False)
check("FINISHED" in res and os.path.getsize(bvh) > 0, "BVH export: %s" % res)

sample_frames = [1, 4, 7, 10, 14]
probe = [hips] + feet + ["neck_joint_2", "arm_joint_L_3", "arm_joint_R_3"]
to_armature = arm.matrix_world.inverted()
# World positions (Blender Z-up metres) and armature-space ones: Blender's BVH exporter writes
# the armature's own space (here the figure's, under a rotating "Z_UP" empty).
manifest = {"fps": 24, "frames": frames, "frame_start": 1, "bones": len(bones),
            "contacts": contacts, "feet": feet, "ground_z": ground,
            "samples": [{"frame": f,
                         "positions": {b: dense_positions[f][b] for b in probe},
                         "armature_positions": {
                             b: tuple(to_armature @ Vector(dense_positions[f][b])) for b in probe}}
                        for f in sample_frames]}


def reimport(path, kind):
    sc = new_scene()
    if kind == "glb":
        r = bpy.ops.import_scene.gltf(filepath=path)
    else:
        # No axis conversion: the file holds the armature's own space.
        r = bpy.ops.import_anim.bvh(filepath=path, global_scale=1.0, frame_start=1,
                                    use_fps_scale=False, update_scene_fps=False,
                                    update_scene_duration=True, rotate_mode='NATIVE',
                                    axis_forward='Y', axis_up='Z')
    check("FINISHED" in r, "re-import %s: %s" % (path, r))
    a = [o for o in sc.objects if o.type == 'ARMATURE']
    check(len(a) == 1, "%s: %d armatures" % (path, len(a)))
    a = a[0]
    check(len(a.data.bones) == len(bones), "%s: %d bones, expected %d" % (path, len(a.data.bones),
                                                                          len(bones)))
    ac = a.animation_data.action if a.animation_data else None
    check(ac is not None, "%s: no action" % path)
    lo, hi = ac.frame_range
    # glTF keys sit at t * fps (Blender's importer starts at frame 0 when the first key is at 0)
    off = 1.0 - lo
    check(abs((hi - lo) - (frames - 1)) < 1e-3, "%s: frame range %g..%g" % (path, lo, hi))
    dev = 0.0
    for s in manifest["samples"]:
        hd = heads(sc, a, s["frame"] - off)
        for b, p in s["positions" if kind == "glb" else "armature_positions"].items():
            check(b in hd, "%s: no bone %s" % (path, b))
            dev = max(dev, math.dist(hd[b], p))
    check(dev < 0.002, "%s re-imported in Blender: heads deviate %.2f mm" % (path, dev * 1e3))
    say("re-imported %s in Blender: %d bones, frames %g..%g, heads within %.3f mm"
        % (os.path.basename(path), len(a.data.bones), lo, hi, dev * 1e3))


reimport(glb, "glb")
reimport(bvh, "bvh")
manifest["glb"], manifest["bvh"] = glb, bvh
with open(os.path.join(args.out, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=1)
say("passed")
