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
import os
import sys

import bpy

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blender_checks import check_bones, check_frame_range, check_heads, fail, run, the_armature

# Debian's Blender 3.4 with Python 3.11 and numpy >= 1.24: the glTF importer still uses the
# removed numpy.bool alias, and the BVH importer opens files in the removed 'rU' mode.
import numpy
numpy.bool = bool  # (a plain assignment: reading numpy.bool first would warn)
import io_anim_bvh.import_bvh as _import_bvh


def _open_without_u(file, mode="r", *args, **kwargs):
    return builtins.open(file, mode.replace("U", ""), *args, **kwargs)


_import_bvh.open = _open_without_u


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
    path = entry["path"]
    arm = the_armature(path)
    check_bones(path, arm, entry)
    check_frame_range(path, arm, entry, frame_of(entry, 0), frame_of(entry, entry["frames"] - 1))
    check_heads(path, arm, entry, lambda f: frame_of(entry, f))


run(check, "check_import.py")
