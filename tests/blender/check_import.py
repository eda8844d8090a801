# Headless Blender check of rigkit's outputs: imports each file listed in a JSON manifest, then
# checks the armature's bone count, the action's frame range and bone head positions at a few
# frames against the positions rigkit computed.
#
# Run: blender -b --factory-startup --python-exit-code 1 --python check_import.py -- MANIFEST.json
#
# The manifest (written by tests/blender/test_blender.c):
#   {"files": [{"path": ..., "format": "glb"|"gltf"|"bvh", "metres_per_unit": 0.01,
#               "fps": 30, "frames": 46, "bone_count": 22, "bones": [...],
#               "tolerance_m": ..., "samples": [{"frame": 0, "positions": {"Hips": [x, y, z]}}]}]}
# Positions are rigkit's: metres, Y-up. Blender is Z-up; both importers convert Y-up to Z-up
# with (x, y, z) -> (x, -z, y). rigkit frame f is at time f / fps.
import builtins
import json
import sys

import bpy

# Debian's Blender 3.4 with Python 3.11 and numpy >= 1.24: the glTF importer still uses the
# removed numpy.bool alias, and the BVH importer opens files in the removed 'rU' mode.
import numpy
numpy.bool = bool  # (a plain assignment: reading numpy.bool first would warn)
import io_anim_bvh.import_bvh as _import_bvh


def _open_without_u(file, mode="r", *args, **kwargs):
    return builtins.open(file, mode.replace("U", ""), *args, **kwargs)


_import_bvh.open = _open_without_u


def fail(msg):
    print("BLENDER CHECK FAILED: " + msg, flush=True)
    sys.exit(1)


def to_blender(p):
    x, y, z = p
    return (x, -z, y)


def import_file(entry):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = int(round(entry["fps"]))
    scene.render.fps_base = scene.render.fps / entry["fps"]
    path = entry["path"]
    if entry["format"] in ("glb", "gltf"):
        res = bpy.ops.import_scene.gltf(filepath=path)
    elif entry["format"] == "bvh":
        res = bpy.ops.import_anim.bvh(filepath=path, global_scale=1.0, frame_start=1,
                                      use_fps_scale=False, update_scene_fps=False,
                                      update_scene_duration=True, rotate_mode='NATIVE')
    else:
        fail("unknown format " + entry["format"])
    if "FINISHED" not in res:
        fail("import of %s returned %s" % (path, res))


def frame_of(entry, f):
    """Blender frame of rigkit frame f: BVH frames start at 1; glTF keys sit at t * fps."""
    if entry["format"] == "bvh":
        return f + 1.0
    return f * bpy.context.scene.render.fps / entry["fps"] + entry.get("gltf_frame_offset", 0.0)


def check(entry):
    import_file(entry)
    arms = [o for o in bpy.context.scene.objects if o.type == 'ARMATURE']
    if len(arms) != 1:
        fail("%s: %d armatures imported (expected 1): %s" % (
            entry["path"], len(arms), [o.name for o in bpy.context.scene.objects]))
    arm = arms[0]
    bones = arm.data.bones
    if len(bones) != entry["bone_count"]:
        fail("%s: %d bones, expected %d; missing %s" % (
            entry["path"], len(bones), entry["bone_count"],
            sorted(set(entry["bones"]) - set(b.name for b in bones))))
    for name in entry["bones"]:
        if name not in bones:
            fail("%s: bone '%s' missing" % (entry["path"], name))
    ad = arm.animation_data
    if entry["frames"] > 1:
        if ad is None or ad.action is None:
            fail("%s: the armature has no action" % entry["path"])
        first, last = ad.action.frame_range
        want_first = frame_of(entry, 0)
        want_last = frame_of(entry, entry["frames"] - 1)
        if abs(first - want_first) > 1e-3 or abs(last - want_last) > 1e-3:
            fail("%s: action frame range %.4f..%.4f, expected %.4f..%.4f" % (
                entry["path"], first, last, want_first, want_last))
    scale = entry["metres_per_unit"]
    tol = entry["tolerance_m"]
    worst = 0.0
    for sample in entry["samples"]:
        fb = frame_of(entry, sample["frame"])
        bpy.context.scene.frame_set(int(fb // 1), subframe=fb - fb // 1)
        bpy.context.view_layer.update()
        for name, want in sample["positions"].items():
            pb = arm.pose.bones[name]
            got = arm.matrix_world @ pb.head
            exp = to_blender(want)
            err = max(abs(got[k] * scale - exp[k]) for k in range(3))
            worst = max(worst, err)
            if err > tol:
                fail("%s: frame %d bone '%s' head (%.6f, %.6f, %.6f) m, rigkit (%.6f, %.6f, %.6f) m: "
                     "off by %.3g m (tolerance %.3g m)" % (
                         entry["path"], sample["frame"], name, got[0] * scale, got[1] * scale,
                         got[2] * scale, exp[0], exp[1], exp[2], err, tol))
    print("BLENDER CHECK ok %s: %d bones, %d frames, largest head error %.3g m (tolerance %.3g m)" % (
        entry["path"], len(bones), entry["frames"], worst, tol), flush=True)


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    if len(argv) != 1:
        fail("usage: blender -b --python check_import.py -- MANIFEST.json")
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
except Exception as e:  # any importer exception is a failed check, not a crash of the test
    import traceback
    traceback.print_exc()
    fail("exception: %r" % e)
