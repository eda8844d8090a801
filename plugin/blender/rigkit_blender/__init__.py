# rigkit for Blender: retargets a mocap clip (BVH, glTF/GLB, FBX) onto the active armature with
# rigkit's plugin ABI (librigkit_plugin.so through ctypes: no compiled Python module) and writes
# the baked keys as an Action. See the top-level README.md, "Use in Blender".
bl_info = {
    "name": "rigkit retarget",
    "author": "rigkit",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "View3D > Sidebar (N) > rigkit",
    "description": "Retarget mocap clips onto the active armature with foot/hand IK (rigkit)",
    "category": "Animation",
}

import os

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, StringProperty

from . import abi, blender_io

_HERE = os.path.dirname(os.path.abspath(__file__))
_state = {"plugin": None, "error": "", "path": ""}


def _prefs(context):
    addon = context.preferences.addons.get(__package__)
    return addon.preferences if addon else None


def get_plugin(context, reload=False):
    """The loaded plugin, trying the preference path, the add-on's folder, $RIGKIT_PLUGIN and the
    system loader in that order. Raises abi.RigkitError with every reason when none loads."""
    if _state["plugin"] is not None and not reload:
        return _state["plugin"]
    prefs = _prefs(context)
    preferred = prefs.library_path if prefs else ""
    reasons = []
    for path in abi.find_library(preferred, _HERE):
        if os.sep in path and not os.path.exists(path):
            reasons.append("%s: no such file" % path)
            continue
        try:
            plugin = abi.load(path)
        except abi.RigkitError as e:  # found, but refused (ABI or layout)
            reasons.append(e.message)
            continue
        except OSError as e:
            reasons.append(str(e))
            continue
        _state.update(plugin=plugin, error="", path=plugin.path)
        return plugin
    _state.update(plugin=None, error="; ".join(reasons), path="")
    raise abi.RigkitError(-1, "load", "cannot load %s: %s" % (abi.LIBRARY_NAME, _state["error"]))


_TRI = [('DEFAULT', "Profile / default", "The profile's [settings] value, else rigkit's default"),
        ('ON', "On", ""), ('OFF', "Off", "")]


class RIGKIT_OT_retarget_clip(bpy.types.Operator):
    """Retarget a mocap clip onto the active armature and bake it as an Action"""
    bl_idname = "rigkit.retarget_clip"
    bl_label = "Retarget clip onto armature"
    bl_options = {'REGISTER', 'UNDO'}

    filepath: StringProperty(name="Clip file", subtype='FILE_PATH',
                             description="Source clip: BVH, glTF/GLB or FBX")
    filter_glob: StringProperty(default="*.bvh;*.glb;*.gltf;*.fbx", options={'HIDDEN'})
    clip: StringProperty(name="Clip", default="",
                         description="Clip name or index in the file (empty: the first)")
    foot_ik: EnumProperty(name="Foot IK", items=_TRI, default='DEFAULT',
                          description="Pin planted feet to the ground (rigkit's default: on)")
    hand_ik: EnumProperty(name="Hand goals", items=_TRI, default='DEFAULT',
                          description="Hands follow the source's hands, scaled by arm length "
                                      "(rigkit's default: off)")
    root_motion: EnumProperty(name="Root motion", items=_TRI, default='DEFAULT',
                              description="In-place (treadmill) clips travel by the ground's "
                                          "speed so feet can plant (rigkit's default: off)")
    frame_rate: EnumProperty(name="Frame rate", default='SCENE', items=[
        ('SCENE', "Scene", "One key per scene frame"),
        ('SOURCE', "Source clip", "The profile's fps, else the clip's own rate"),
        ('CUSTOM', "Custom", "The rate below")])
    fps: FloatProperty(name="FPS", default=30.0, min=1.0, max=1000.0,
                       description="Output rate when Frame rate is Custom")
    reduce_mm: FloatProperty(name="Key reduction (mm)", default=0.0, min=0.0, max=1000.0,
                             description="Keep the fewest keys with every joint within this "
                                         "distance of its baked path; 0 = a key on every frame")
    profile_path: StringProperty(name="Map / profile", subtype='FILE_PATH', default="",
                                 description="Optional rigkit profile key file ([source], "
                                             "[target] bone maps, [settings]); the same file "
                                             "works with 'rigkit retarget --map'")
    action_name: StringProperty(name="Action name", default="",
                                description="Empty: '<armature>|<clip>'")
    set_frame_range: BoolProperty(name="Set scene frame range", default=True)

    @classmethod
    def poll(cls, context):
        obj = context.active_object
        return obj is not None and obj.type == 'ARMATURE'

    def invoke(self, context, event):
        context.window_manager.fileselect_add(self)
        return {'RUNNING_MODAL'}

    def draw(self, context):
        layout = self.layout
        layout.prop(self, "clip")
        layout.prop(self, "foot_ik")
        layout.prop(self, "hand_ik")
        layout.prop(self, "root_motion")
        layout.prop(self, "frame_rate")
        if self.frame_rate == 'CUSTOM':
            layout.prop(self, "fps")
        layout.prop(self, "reduce_mm")
        layout.prop(self, "profile_path")
        layout.prop(self, "action_name")
        layout.prop(self, "set_frame_range")

    def execute(self, context):
        arm = context.active_object
        if arm.mode == 'EDIT':
            # Edit-bone changes reach bone.matrix_local only when edit mode is left.
            bpy.ops.object.mode_set(mode='OBJECT')
        path = bpy.path.abspath(self.filepath)
        if not path:
            self.report({'ERROR'}, "rigkit: choose a clip file")
            return {'CANCELLED'}
        scene = context.scene
        fps = {'SCENE': scene.render.fps / scene.render.fps_base, 'SOURCE': 0.0,
               'CUSTOM': self.fps}[self.frame_rate]
        try:
            plugin = get_plugin(context)
            action, summary, warnings = blender_io.retarget(
                plugin, context, arm, path, self.clip, self.foot_ik, self.hand_ik,
                self.root_motion, fps, self.reduce_mm,
                bpy.path.abspath(self.profile_path) if self.profile_path else "",
                self.action_name, self.set_frame_range)
        except (abi.RigkitError, ValueError) as e:
            self.report({'ERROR'}, "rigkit: %s" % e)
            return {'CANCELLED'}
        for w in warnings:
            self.report({'WARNING'}, "rigkit: %s" % w)
        self.report({'INFO'}, "rigkit: %s (action '%s')" % (summary, action.name))
        return {'FINISHED'}


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
        layout.operator(RIGKIT_OT_retarget_clip.bl_idname, icon='FILE_FOLDER')
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


_classes = (RIGKIT_AddonPreferences, RIGKIT_OT_reload_plugin, RIGKIT_OT_retarget_clip,
            RIGKIT_PT_retarget)


def register():
    for c in _classes:
        bpy.utils.register_class(c)
    # Load the library now so the panel can say whether it works; a failure is shown, not raised.
    try:
        get_plugin(bpy.context)
    except abi.RigkitError:
        pass


def unregister():
    for c in reversed(_classes):
        bpy.utils.unregister_class(c)
