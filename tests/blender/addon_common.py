# Shared by the headless Blender tests of the rigkit add-on (test_addon.py, test_operators.py):
# the shims Debian's Blender 3.4 needs, the command line, messages, installing the add-on from its
# zip, a fresh scene with the character, and reading bone heads. Imported from the scripts'
# folder (each script puts it on sys.path).
import argparse
import builtins
import os
import sys
import time

import bpy

# Debian's Blender 3.4 with Python 3.11 and numpy >= 1.24 (shims for Blender's own importers,
# not the add-on): the glTF importer uses the removed numpy.bool alias, the BVH importer opens
# files in the removed 'rU' mode.
import numpy as np
np.bool = bool  # a plain assignment: reading numpy.bool first would warn
import io_anim_bvh.import_bvh as _import_bvh


def _open_without_u(file, mode="r", *args, **kwargs):
    return builtins.open(file, mode.replace("U", ""), *args, **kwargs)


_import_bvh.open = _open_without_u


def say(msg):
    print("BLENDER ADDON " + msg, flush=True)


def fail(msg):
    print("BLENDER ADDON FAILED: " + msg, flush=True)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def parse_args():
    """--zip, --data, --out from the arguments after '--' (the out folder is created)."""
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    ap = argparse.ArgumentParser()
    ap.add_argument("--zip", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    return args


def install_addon(zip_path):
    """Installs and enables the add-on from its zip; returns (module, seconds it took)."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    t0 = time.perf_counter()
    bpy.ops.preferences.addon_install(filepath=os.path.abspath(zip_path), overwrite=True)
    bpy.ops.preferences.addon_enable(module="rigkit_blender")
    load_s = time.perf_counter() - t0
    import rigkit_blender
    check(rigkit_blender._state["plugin"] is not None,
          "the add-on did not load its library: %s" % rigkit_blender._state["error"])
    return rigkit_blender, load_s


def new_scene():
    # Empty scene, same preferences (read_factory_settings would disable the add-on).
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = 24, 1.0
    return scene


def make_active(obj):
    for o in bpy.context.scene.objects:
        o.select_set(o == obj)
    bpy.context.view_layer.objects.active = obj


def load_character(figure):
    """A new 24 fps scene with the character imported by Blender's glTF importer; returns
    (scene, its armature, made active)."""
    scene = new_scene()
    res = bpy.ops.import_scene.gltf(filepath=figure)
    check("FINISHED" in res, "glTF import of %s: %s" % (figure, res))
    arms = [o for o in scene.objects if o.type == 'ARMATURE']
    check(len(arms) == 1, "%d armatures in %s" % (len(arms), figure))
    make_active(arms[0])
    return scene, arms[0]


def heads(scene, arm, frame, names=None):
    """World heads of pose bones at a scene frame."""
    scene.frame_set(int(frame), subframe=frame - int(frame))
    mw = arm.matrix_world
    return {pb.name: tuple(mw @ pb.head) for pb in arm.pose.bones
            if names is None or pb.name in names}


def transform_curves(action):
    """The bones' transform curves (an Action the add-on writes also holds the "rigkit contacts"
    channel)."""
    return [fc for fc in action.fcurves if fc.group is None or fc.group.name != "rigkit contacts"]


def all_keys(action):
    """Every key of the bones' transform curves, (frame, value) pairs flattened."""
    cos = []
    for fc in transform_curves(action):
        a = np.empty(2 * len(fc.keyframe_points), dtype=np.float64)
        fc.keyframe_points.foreach_get("co", a)
        cos.append(a)
    return np.concatenate(cos) if cos else np.empty(0)
