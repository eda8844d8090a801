# Shared by check_import.py and check_fbx.py (headless Blender checks of rigkit's outputs): failing
# a check, Y-up to Blender's Z-up, and the armature checks both run on an imported file (bones,
# action frame range, bone heads against rigkit's FK) plus the manifest loop. Each script adds its
# own directory to sys.path to import this module.
import json
import sys

import bpy


def fail(msg):
    """Prints the failure line the C test keeps and exits with 1."""
    print("BLENDER CHECK FAILED: " + msg, flush=True)
    sys.exit(1)


def to_blender(p):
    """rigkit's Y-up position as Blender's Z-up one: (x, y, z) -> (x, -z, y)."""
    x, y, z = p
    return (x, -z, y)


def the_armature(path):
    """The one armature of the scene (fails naming the objects otherwise)."""
    scene = bpy.context.scene
    arms = [o for o in scene.objects if o.type == 'ARMATURE']
    if len(arms) != 1:
        fail("%s: %d armatures imported (expected 1): %s" % (
            path, len(arms), [o.name for o in scene.objects]))
    return arms[0]


def check_bones(path, arm, entry):
    """The armature has entry's bone_count bones, among them every bone of entry["bones"]."""
    bones = arm.data.bones
    if len(bones) != entry["bone_count"]:
        fail("%s: %d bones, expected %d; missing %s, extra %s" % (
            path, len(bones), entry["bone_count"],
            sorted(set(entry["bones"]) - set(b.name for b in bones)),
            sorted(set(b.name for b in bones) - set(entry["bones"]))))
    for name in entry["bones"]:
        if name not in bones:
            fail("%s: bone '%s' missing" % (path, name))


def check_frame_range(path, arm, entry, want_first, want_last):
    """An animated entry (frames > 1) has an action spanning want_first..want_last."""
    if entry["frames"] <= 1:
        return
    ad = arm.animation_data
    if ad is None or ad.action is None:
        fail("%s: the armature has no action" % path)
    first, last = ad.action.frame_range
    if abs(first - want_first) > 1e-3 or abs(last - want_last) > 1e-3:
        fail("%s: action frame range %.4f..%.4f, expected %.4f..%.4f" % (
            path, first, last, want_first, want_last))


def check_heads(path, arm, entry, frame_of):
    """Every sampled bone head (at Blender frame frame_of(rigkit frame)) is within the entry's
    tolerance of rigkit's position; prints the entry's "ok" line."""
    scene = bpy.context.scene
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
          % (path, len(arm.data.bones), entry["frames"], worst, tol), flush=True)


def run(check, script):
    """Runs check(entry) on every entry of the manifest named after "--"; any exception is a failed
    check, not a crash of the test."""
    try:
        argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
        if len(argv) != 1:
            fail("usage: blender -b --python %s -- MANIFEST.json" % script)
        with open(argv[0]) as f:
            manifest = json.load(f)
        print("BLENDER CHECK Blender %s" % bpy.app.version_string, flush=True)
        for entry in manifest["files"]:
            check(entry)
        print("BLENDER CHECK all %d files passed" % len(manifest["files"]), flush=True)
    except SystemExit:
        raise
    except Exception as e:
        import traceback
        traceback.print_exc()
        fail("exception: %r" % e)
