# Headless Blender check of rigkit's FBX outputs: imports each file of a JSON manifest with
# Blender's own FBX importer, then checks the armature's bone count, the action's frame range and
# bone head positions at a few frames against the positions rigkit computed.
#
# Run: blender -b --factory-startup --python-exit-code 1 --python check_fbx.py -- MANIFEST.json
#
# The manifest (written by tests/blender/test_blender_fbx.c; last_frame is the clip's end in
# frames, which need not be a whole frame):
#   {"files": [{"path": ..., "format": "fbx", "metres_per_unit": 1.0, "fps": 30, "frames": 46,
#               "last_frame": 45.0, "bone_count": 22, "bones": [...], "meshes": 1,
#               "tolerance_m": ...,
#               "samples": [{"frame": 0, "positions": {"Hips": [x, y, z]}}]}]}
# Positions are rigkit's: metres, Y-up. rigkit's FBX files are Y-up; Blender is Z-up and its
# importer converts with (x, y, z) -> (x, -z, y), and scales the file's unit (UnitScaleFactor) to
# metres. It puts the key at time t on frame t * fps + 1 (its "anim_offset" of one frame).
import json
import sys

import bpy


def fail(msg):
    print("BLENDER CHECK FAILED: " + msg, flush=True)
    sys.exit(1)


def to_blender(p):
    x, y, z = p
    return (x, -z, y)


def check(entry):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    path = entry["path"]
    res = bpy.ops.import_scene.fbx(filepath=path)
    if "FINISHED" not in res:
        fail("import of %s returned %s" % (path, res))
    scene = bpy.context.scene
    file_fps = scene.render.fps / scene.render.fps_base
    if abs(file_fps - entry["fps"]) > 1e-6 * entry["fps"]:
        fail("%s: Blender read %.6f fps, rigkit wrote %.6f" % (path, file_fps, entry["fps"]))
    arms = [o for o in scene.objects if o.type == 'ARMATURE']
    if len(arms) != 1:
        fail("%s: %d armatures imported (expected 1): %s" % (
            path, len(arms), [o.name for o in scene.objects]))
    arm = arms[0]
    bones = arm.data.bones
    if len(bones) != entry["bone_count"]:
        fail("%s: %d bones, expected %d; missing %s, extra %s" % (
            path, len(bones), entry["bone_count"],
            sorted(set(entry["bones"]) - set(b.name for b in bones)),
            sorted(set(b.name for b in bones) - set(entry["bones"]))))
    for name in entry["bones"]:
        if name not in bones:
            fail("%s: bone '%s' missing" % (path, name))
    meshes = [o for o in scene.objects if o.type == 'MESH']
    if len(meshes) != entry.get("meshes", 0):
        fail("%s: %d meshes imported, rigkit wrote %d" % (path, len(meshes), entry.get("meshes", 0)))
    for o in meshes:
        if o.vertex_groups and not any(m.type == 'ARMATURE' for m in o.modifiers):
            fail("%s: skinned mesh '%s' is not deformed by the armature" % (path, o.name))

    def frame_of(f):
        return f * scene.render.fps / entry["fps"] + 1.0

    ad = arm.animation_data
    if entry["frames"] > 1:
        if ad is None or ad.action is None:
            fail("%s: the armature has no action" % path)
        first, last = ad.action.frame_range
        want_first, want_last = frame_of(0), frame_of(entry.get("last_frame", entry["frames"] - 1))
        if abs(first - want_first) > 1e-3 or abs(last - want_last) > 1e-3:
            fail("%s: action frame range %.4f..%.4f, expected %.4f..%.4f" % (
                path, first, last, want_first, want_last))
    scale = entry["metres_per_unit"]
    tol = entry["tolerance_m"]
    worst = 0.0
    for sample in entry["samples"]:
        fb = frame_of(sample["frame"])
        scene.frame_set(int(fb // 1), subframe=fb - fb // 1)
        bpy.context.view_layer.update()
        for name, want in sample["positions"].items():
            got = arm.matrix_world @ arm.pose.bones[name].head
            exp = to_blender(want)
            err = max(abs(got[k] * scale - exp[k]) for k in range(3))
            worst = max(worst, err)
            if err > tol:
                fail("%s: frame %d bone '%s' head (%.6f, %.6f, %.6f) m, rigkit (%.6f, %.6f, %.6f) "
                     "m: off by %.3g m (tolerance %.3g m)" % (
                         path, sample["frame"], name, got[0] * scale, got[1] * scale,
                         got[2] * scale, exp[0], exp[1], exp[2], err, tol))
    print("BLENDER CHECK ok %s: %d bones, %d frames, largest head error %.3g m (tolerance %.3g m)"
          % (path, len(bones), entry["frames"], worst, tol), flush=True)


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    if len(argv) != 1:
        fail("usage: blender -b --python check_fbx.py -- MANIFEST.json")
    with open(argv[0]) as f:
        manifest = json.load(f)
    print("BLENDER CHECK Blender %s" % bpy.app.version_string, flush=True)
    for entry in manifest["files"]:
        check(entry)
    print("BLENDER CHECK all %d files passed" % len(manifest["files"]), flush=True)


try:
    main()
except SystemExit:
    raise
except Exception as e:  # an importer exception is a failed check, not a crash of the test
    import traceback
    traceback.print_exc()
    fail("exception: %r" % e)
