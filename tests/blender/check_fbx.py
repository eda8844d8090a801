# Headless Blender check of rigkit's FBX outputs: imports each file of a JSON manifest with
# Blender's own FBX importer, then checks the armature's bone count, the action's frame range,
# bone head positions at a few frames against the positions rigkit computed, and that the meshes
# rigkit gave a texture show it as a packed image on their material.
#
# Run: blender -b --factory-startup --python-exit-code 1 --python check_fbx.py -- MANIFEST.json
#
# The manifest (written by tests/blender/test_blender_fbx.c; last_frame is the clip's end in
# frames, which need not be a whole frame):
#   {"files": [{"path": ..., "format": "fbx", "metres_per_unit": 1.0, "fps": 30, "frames": 46,
#               "last_frame": 45.0, "bone_count": 22, "bones": [...], "meshes": 1,
#               "textured_meshes": 1, "tolerance_m": ...,
#               "samples": [{"frame": 0, "positions": {"Hips": [x, y, z]}}]}]}
# Positions are rigkit's: metres, Y-up. rigkit's FBX files are Y-up; Blender is Z-up and its
# importer converts with (x, y, z) -> (x, -z, y), and scales the file's unit (UnitScaleFactor) to
# metres. It puts the key at time t on frame t * fps + 1 (its "anim_offset" of one frame).
import os
import sys

import bpy

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blender_checks import check_bones, check_frame_range, check_heads, fail, run, the_armature


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
    arm = the_armature(path)
    check_bones(path, arm, entry)
    meshes = [o for o in scene.objects if o.type == 'MESH']
    if len(meshes) != entry.get("meshes", 0):
        fail("%s: %d meshes imported, rigkit wrote %d" % (path, len(meshes), entry.get("meshes", 0)))
    for o in meshes:
        if o.vertex_groups and not any(m.type == 'ARMATURE' for m in o.modifiers):
            fail("%s: skinned mesh '%s' is not deformed by the armature" % (path, o.name))

    textured = 0
    for o in meshes:
        images = [n.image for slot in o.material_slots if slot.material and slot.material.use_nodes
                  for n in slot.material.node_tree.nodes if n.type == 'TEX_IMAGE' and n.image]
        textured += any(img.packed_file and img.size[0] > 0 and img.size[1] > 0
                        for img in images)
    if textured != entry.get("textured_meshes", 0):
        fail("%s: %d meshes show a packed image, rigkit wrote %d textures" % (
            path, textured, entry.get("textured_meshes", 0)))

    def frame_of(f):
        return f * scene.render.fps / entry["fps"] + 1.0

    check_frame_range(path, arm, entry, frame_of(0),
                      frame_of(entry.get("last_frame", entry["frames"] - 1)))
    check_heads(path, arm, entry, frame_of)


run(check, "check_fbx.py")
