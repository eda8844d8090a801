# The options every rigkit operator shares (a mix-in of operator properties): the retarget
# settings (foot IK, hand goals, root motion, rate, key reduction), a profile file and its
# [settings] keys set one by one, the source's unit, what is written besides the Action (scene
# frame range, contact markers), and how they become the plugin's session options; and the
# options of file sources (FileOptions: how a BVH root offset is read).
import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, StringProperty

from . import abi, blender_io

_TRI = [('DEFAULT', "Profile / default", "The profile's [settings] value, else rigkit's default"),
        ('ON', "On", ""), ('OFF', "Off", "")]

# Metres per unit of the source; AUTO: what the file says (or rigkit detects from a BVH
# skeleton's height), or for an armature the scene's unit scale.
UNITS = {'M': 1.0, 'DM': 0.1, 'CM': 0.01, 'MM': 0.001, 'IN': 0.0254, 'FT': 0.3048,
         'CMU': 0.0254 / 0.45}
_UNIT_ITEMS = [('AUTO', "Auto", "File: its own unit, or detected from a BVH skeleton's height "
                "(as `rigkit retarget`); armature: the scene's unit scale"),
               ('M', "Metres", ""), ('DM', "Decimetres", ""), ('CM', "Centimetres", ""),
               ('MM', "Millimetres", ""), ('IN', "Inches", ""), ('FT', "Feet", ""),
               ('CMU', "CMU mocap units", "1/0.45 inch, the CMU database's BVH unit"),
               ('CUSTOM', "Custom", "Metres per unit below")]

# The profile's [settings] keys offered one by one: (key, property), written into settings_text
# when their box is ticked; unticked they keep the profile's value, else rigkit's default.
PROFILE_KEYS = [("contact_height", "contact_height"), ("contact_speed", "contact_speed"),
                ("contact_min_time", "contact_min_time"), ("blend_time", "blend_time"),
                ("ik_iterations", "ik_iterations")]


def _profile_choice(name, choices):
    """An enum property of a profile [settings] key: the profile's value (else rigkit's default,
    the first choice) or one of the choices."""
    return EnumProperty(name=name, default='DEFAULT', items=[
        ('DEFAULT', "Profile / default", "The profile's value, else %s" % choices[0][1])] + choices)


def tri_state(value):
    return {'DEFAULT': abi.DEFAULT, 'ON': 1, 'OFF': 0}[value]


class RetargetOptions:
    """Operator properties shared by rigkit.retarget_clip, _batch and _armature."""

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
    use_contact_height: BoolProperty(name="Contact height", default=False,
                                     description="Set the profile's contact_height")
    contact_height: FloatProperty(name="Contact height", default=0.01, min=0.0, max=1.0,
                                  description="A sole point is low within this fraction of the "
                                              "source's height above the clip's ground "
                                              "(rigkit: 0.01)")
    use_contact_speed: BoolProperty(name="Contact speed", default=False,
                                    description="Set the profile's contact_speed")
    contact_speed: FloatProperty(name="Contact speed", default=0.04, min=0.0, max=100.0,
                                 description="And still below this fraction of the source's "
                                             "height per second (rigkit: 0.04)")
    use_contact_min_time: BoolProperty(name="Contact min time", default=False,
                                       description="Set the profile's contact_min_time")
    contact_min_time: FloatProperty(name="Contact min time (s)", default=0.06, min=0.0,
                                    max=10.0, description="Shortest plant (rigkit: 0.06 s)")
    use_blend_time: BoolProperty(name="Blend time", default=False,
                                 description="Set the profile's blend_time")
    blend_time: FloatProperty(name="Blend time (s)", default=0.1, min=0.0, max=10.0,
                              description="Blend into and out of a pin (rigkit: 0.1 s)")
    use_ik_iterations: BoolProperty(name="IK iterations", default=False,
                                    description="Set the profile's ik_iterations")
    ik_iterations: IntProperty(name="IK iterations", default=30, min=1, max=1000,
                               description="Most solver iterations per frame (rigkit: 30)")
    ground: _profile_choice("Ground", [
        ('AUTO', "Auto", "The source's hip heights, scaled, plus one offset per clip that stands "
         "the character's soles on the floor"),
        ('KEEP', "Keep", "The source's hip heights, scaled, untouched")])
    soles: _profile_choice("Soles", [
        ('AUTO', "Auto", "From the character's skinned meshes (passed with the armature), else "
         "its bones"),
        ('BONES', "Bones", "From the bones, meshes or not")])
    source_unit: EnumProperty(name="Source unit", items=_UNIT_ITEMS, default='AUTO',
                              description="The unit of the source's numbers (rigkit retarget "
                                          "--unit)")
    source_metres_per_unit: FloatProperty(name="Metres per unit", default=1.0, min=1e-6,
                                          max=1e6, description="Custom source unit")
    contact_markers: BoolProperty(name="Contact markers", default=True,
                                  description="Timeline markers where each foot is planted "
                                              "('<bone> down') and lifts ('<bone> up'); the "
                                              "Action also holds a 'rigkit contacts' channel")
    set_frame_range: BoolProperty(name="Set scene frame range", default=True)

    def source_unit_metres(self):
        """Metres per source unit, 0 for Auto."""
        if self.source_unit == 'AUTO':
            return 0.0
        return self.source_metres_per_unit if self.source_unit == 'CUSTOM' else UNITS[self.source_unit]

    def settings_text(self):
        """The ticked profile keys, and Ground and Soles when set, as [settings] lines for the
        plugin's settings_text."""
        lines = ["%s=%s\n" % (key, repr(getattr(self, prop)))
                 for key, prop in PROFILE_KEYS if getattr(self, "use_" + prop)]
        lines += ["%s=%s\n" % (key, getattr(self, key).lower()) for key in ("ground", "soles")
                  if getattr(self, key) != 'DEFAULT']
        return "".join(lines)

    def settings(self, context):
        """blender_io.Settings for the plugin's session."""
        scene = context.scene
        fps = {'SCENE': scene.render.fps / scene.render.fps_base, 'SOURCE': 0.0,
               'CUSTOM': self.fps}[self.frame_rate]
        return blender_io.Settings(
            foot_ik=tri_state(self.foot_ik), hand_ik=tri_state(self.hand_ik),
            root_motion=tri_state(self.root_motion), fps=fps, reduce_mm=self.reduce_mm,
            profile_path=bpy.path.abspath(self.profile_path) if self.profile_path else "",
            settings_text=self.settings_text(), set_frame_range=self.set_frame_range,
            markers=self.contact_markers)

    def draw_options(self, layout):
        layout.prop(self, "source_unit")
        if self.source_unit == 'CUSTOM':
            layout.prop(self, "source_metres_per_unit")
        layout.prop(self, "foot_ik")
        layout.prop(self, "hand_ik")
        layout.prop(self, "root_motion")
        layout.prop(self, "frame_rate")
        if self.frame_rate == 'CUSTOM':
            layout.prop(self, "fps")
        layout.prop(self, "reduce_mm")
        layout.prop(self, "profile_path")
        box = layout.box()
        box.label(text="Profile settings (ticked ones override the profile)")
        for _, prop in PROFILE_KEYS:
            row = box.row()
            row.prop(self, "use_" + prop, text="")
            sub = row.row()
            sub.enabled = getattr(self, "use_" + prop)
            sub.prop(self, prop)
        box.prop(self, "ground")
        box.prop(self, "soles")
        layout.prop(self, "contact_markers")
        layout.prop(self, "set_frame_range")


class FileOptions:
    """Operator properties of file sources (rigkit.retarget_clip, _batch)."""

    bvh_root_offset: EnumProperty(name="BVH root offset", default='AUTO', items=[
        ('AUTO', "Auto", "The reading that puts the feet on the ground (as rigkit retarget)"),
        ('ADD', "Add", "Root position = OFFSET + channels"),
        ('REPLACE', "Replace (Blender's)", "Root position = channels, as Blender's own BVH "
         "importer reads it: matches an armature imported with it")])

    def open_options(self):
        """Keyword arguments of abi.Plugin.open_file: the source unit and BVH reading."""
        return {"metres_per_unit": self.source_unit_metres(),
                "bvh_root_offset": {'AUTO': abi.BVH_ROOT_OFFSET_AUTO,
                                    'ADD': abi.BVH_ROOT_OFFSET_ADD,
                                    'REPLACE': abi.BVH_ROOT_OFFSET_REPLACE}[self.bvh_root_offset]}
