# rigkit for Blender: retargets mocap clips (BVH, glTF/GLB, FBX files, or another armature's
# animation in the scene) onto the active armature with rigkit's plugin ABI (librigkit_plugin.so
# through ctypes: no compiled Python module) and writes the baked keys as Actions. See the
# top-level README.md, "Use in Blender". Operators: operators.py; their shared options:
# options.py; the batch: batch.py; Blender data <-> plugin: blender_io.py; loading: loader.py.
bl_info = {
    "name": "rigkit retarget",
    "author": "rigkit",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "View3D > Sidebar (N) > rigkit",
    "description": "Retarget mocap clips onto the active armature with foot/hand IK (rigkit)",
    "category": "Animation",
}

import bpy
from bpy.props import PointerProperty, StringProperty

from . import abi, loader
from .loader import STATE as _state, get_plugin  # noqa: F401  (the state tests and tools read)
from .operators import (CLASSES as _OPERATORS, RIGKIT_OT_retarget_armature,
                        RIGKIT_OT_retarget_batch, RIGKIT_OT_retarget_clip)


def _is_armature(self, obj):
    return obj.type == 'ARMATURE'


class RIGKIT_PT_retarget(bpy.types.Panel):
    bl_space_type = 'VIEW_3D'
    bl_region_type = 'UI'
    bl_category = "rigkit"
    bl_label = "rigkit retarget"

    def draw(self, context):
        layout = self.layout
        obj = context.active_object
        if obj is None or obj.type != 'ARMATURE':
            layout.label(text="Select an armature", icon='INFO')
        else:
            layout.label(text="Target: %s (%d bones)" % (obj.name, len(obj.data.bones)),
                         icon='ARMATURE_DATA')
        layout.operator(RIGKIT_OT_retarget_clip.bl_idname, icon='FILE')
        layout.operator(RIGKIT_OT_retarget_batch.bl_idname, icon='FILE_FOLDER')
        box = layout.box()
        box.prop(context.scene, "rigkit_source", text="Source")
        src = context.scene.rigkit_source
        op = box.operator(RIGKIT_OT_retarget_armature.bl_idname, icon='ARMATURE_DATA')
        op.source = src.name if src is not None else ""
        act = obj.animation_data.action if obj and obj.animation_data else None
        if act is not None and "rigkit_frames" in act:
            box = layout.box()
            box.label(text="Last: %s" % act.get("rigkit_clip", ""))
            box.label(text="%d frames at %g fps, %d bones mapped" % (
                act["rigkit_frames"], act["rigkit_fps"], act["rigkit_mapped_bones"]))
            box.label(text="Foot skate max %.2f mm (no IK %.1f mm)" % (
                act["rigkit_foot_skate_max_mm"], act["rigkit_foot_skate_fk_max_mm"]))
            box.label(text="Keys %d of %d baked" % (act["rigkit_keys_output"],
                                                    act["rigkit_keys_baked"]))
        batch = _state.get("last_batch")
        if batch:
            layout.label(text="Batch: %d ok, %d failed%s" % (
                len(batch["ok"]), len(batch["failed"]), ", stopped" if batch["cancelled"] else ""))
        if _state["plugin"] is not None:
            layout.label(text="rigkit %s" % _state["plugin"].version)
        elif _state["error"]:
            layout.label(text="Plugin not loaded (see preferences)", icon='ERROR')


class RIGKIT_AddonPreferences(bpy.types.AddonPreferences):
    bl_idname = __package__

    library_path: StringProperty(
        name="librigkit_plugin.so", subtype='FILE_PATH', default="",
        description="Path of librigkit_plugin.so (or its folder). Empty: the copy inside the "
                    "add-on, then $RIGKIT_PLUGIN, then the system's library path")

    def draw(self, context):
        layout = self.layout
        layout.prop(self, "library_path")
        if _state["plugin"] is not None:
            layout.label(text="Loaded rigkit %s from %s" % (_state["plugin"].version,
                                                            _state["path"]))
        elif _state["error"]:
            layout.label(text=_state["error"], icon='ERROR')
        layout.operator(RIGKIT_OT_reload_plugin.bl_idname)


class RIGKIT_OT_reload_plugin(bpy.types.Operator):
    """Load librigkit_plugin.so again from the preference path"""
    bl_idname = "rigkit.reload_plugin"
    bl_label = "Load rigkit plugin"

    def execute(self, context):
        try:
            plugin = get_plugin(context, reload=True)
        except abi.RigkitError as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        self.report({'INFO'}, "rigkit %s from %s" % (plugin.version, plugin.path))
        return {'FINISHED'}


_classes = (RIGKIT_AddonPreferences, RIGKIT_OT_reload_plugin) + _OPERATORS + (RIGKIT_PT_retarget,)


def register():
    for c in _classes:
        bpy.utils.register_class(c)
    bpy.types.Scene.rigkit_source = PointerProperty(
        type=bpy.types.Object, poll=_is_armature, name="Source armature",
        description="An animated armature to retarget onto the active one")
    # Load the library now so the panel can say whether it works; a failure is shown, not raised.
    try:
        get_plugin(bpy.context)
    except abi.RigkitError:
        pass


def unregister():
    del bpy.types.Scene.rigkit_source
    for c in reversed(_classes):
        bpy.utils.unregister_class(c)
