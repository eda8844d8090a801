# The add-on's operators. Each run is one undo step (bl_options UNDO) and keeps every Action it
# makes (a fake user), so a rerun or a batch never loses an earlier result:
#  - rigkit.retarget_clip: one clip of a file onto the active armature;
#  - rigkit.retarget_batch: every clip of a folder's files (or the chosen ones), one Action per
#    clip, with a progress bar, Esc to stop between clips, and a summary in the Info log;
#  - rigkit.retarget_armature: the animation of another armature in the scene (its active
#    Action over its frame range, as evaluated) handed to the plugin as a host clip.
import math
import time

import bpy
from bpy.props import CollectionProperty, StringProperty

from . import abi, blender_io, loader
from .batch import BatchJob, clip_files
from .options import FileOptions, RetargetOptions

_GLOB = "*.bvh;*.glb;*.gltf;*.fbx"


def _active_armature(context):
    obj = context.active_object
    return obj if obj is not None and obj.type == 'ARMATURE' else None


def _prepare(context):
    """The target armature out of edit mode (edit-bone changes reach bone.matrix_local only when
    edit mode is left)."""
    arm = context.active_object
    if arm.mode == 'EDIT':
        bpy.ops.object.mode_set(mode='OBJECT')
    return arm


class _FromFiles(FileOptions, RetargetOptions):
    """Operators on the active armature whose sources are files picked in a file browser."""

    @classmethod
    def poll(cls, context):
        return _active_armature(context) is not None

    def invoke(self, context, event):
        context.window_manager.fileselect_add(self)
        return {'RUNNING_MODAL'}


def _report_done(op, action, summary, warnings):
    for w in warnings:
        op.report({'WARNING'}, "rigkit: %s" % w)
    op.report({'INFO'}, "rigkit: %s (action '%s')" % (summary, action.name))
    return {'FINISHED'}


class RIGKIT_OT_retarget_clip(_FromFiles, bpy.types.Operator):
    """Retarget a mocap clip onto the active armature and bake it as a new Action (kept)"""
    bl_idname = "rigkit.retarget_clip"
    bl_label = "Retarget clip onto armature"
    bl_options = {'REGISTER', 'UNDO'}

    filepath: StringProperty(name="Clip file", subtype='FILE_PATH',
                             description="Source clip: BVH, glTF/GLB or FBX")
    filter_glob: StringProperty(default=_GLOB, options={'HIDDEN'})
    clip: StringProperty(name="Clip", default="",
                         description="Clip name or index in the file (empty: the first)")
    action_name: StringProperty(name="Action name", default="",
                                description="Empty: '<armature>|<clip>'")

    def draw(self, context):
        self.layout.prop(self, "clip")
        self.layout.prop(self, "action_name")
        self.layout.prop(self, "bvh_root_offset")
        self.draw_options(self.layout)

    def execute(self, context):
        arm = _prepare(context)
        path = bpy.path.abspath(self.filepath)
        if not path:
            self.report({'ERROR'}, "rigkit: choose a clip file")
            return {'CANCELLED'}
        try:
            plugin = loader.get_plugin(context)
            with plugin.open_file(path, **self.open_options()) as src:
                clips = src.clips()
                ci = blender_io.pick_clip(clips, self.clip, path)
                name = self.action_name or "%s|%s" % (arm.name, clips[ci][0] or "rigkit")
                done = blender_io.retarget(plugin, context, arm, src, ci, self.settings(context),
                                           name, context.scene.frame_start,
                                           blender_io.file_provenance(src, path, clips[ci][0]))
        except (abi.RigkitError, ValueError) as e:
            self.report({'ERROR'}, "rigkit: %s" % e)
            return {'CANCELLED'}
        return _report_done(self, *done)


class RIGKIT_OT_retarget_batch(_FromFiles, bpy.types.Operator):
    """Retarget every clip of a folder (or the chosen files) onto the active armature: one new
    Action per clip, named '<armature>|<file>|<clip>' (Esc stops between clips)"""
    bl_idname = "rigkit.retarget_batch"
    bl_label = "Retarget folder of clips"
    bl_options = {'REGISTER', 'UNDO'}

    directory: StringProperty(name="Folder", subtype='DIR_PATH')
    files: CollectionProperty(type=bpy.types.OperatorFileListElement,
                              options={'HIDDEN', 'SKIP_SAVE'})
    filter_glob: StringProperty(default=_GLOB, options={'HIDDEN'})

    def draw(self, context):
        self.layout.prop(self, "bvh_root_offset")
        self.draw_options(self.layout)

    def execute(self, context):
        arm = _prepare(context)
        folder = bpy.path.abspath(self.directory)
        try:
            plugin = loader.get_plugin(context)
            paths = clip_files(folder, [f.name for f in self.files])
        except (abi.RigkitError, OSError) as e:
            self.report({'ERROR'}, "rigkit: %s" % e)
            return {'CANCELLED'}
        if not paths:
            self.report({'ERROR'}, "rigkit: no clip files (%s) in %s" % (_GLOB, folder))
            return {'CANCELLED'}
        self._job = BatchJob(plugin, context, arm, paths, self.settings(context),
                             self.open_options())
        wm = context.window_manager
        if bpy.app.background or context.window is None:
            self._job.run(context)  # no event loop to step from: all at once
            return self._finish(context)
        wm.progress_begin(0, 1000)
        self._timer = wm.event_timer_add(0.01, window=context.window)
        wm.modal_handler_add(self)
        return {'RUNNING_MODAL'}

    def modal(self, context, event):
        job = self._job
        if event.type == 'ESC' and event.value == 'PRESS':
            job.cancel()
        elif event.type == 'TIMER' and not job.done:
            # Clips for up to 50 ms per tick: the screen redraws and Esc is read between ticks.
            deadline = time.perf_counter() + 0.05
            while not job.done and time.perf_counter() < deadline:
                job.step(context)
            context.window_manager.progress_update(int(job.progress() * 1000))
            context.workspace.status_text_set(
                "rigkit: %d of %d files, %d clips retargeted (Esc stops)"
                % (job.next_file, len(job.paths), len(job.ok)))
        if not job.done:
            return {'RUNNING_MODAL'}
        wm = context.window_manager
        wm.event_timer_remove(self._timer)
        wm.progress_end()
        context.workspace.status_text_set(None)
        return self._finish(context)

    def _finish(self, context):
        # FINISHED even when stopped: the Actions made so far are kept, as one undo step.
        job = self._job
        loader.STATE["last_batch"] = job.outcome()
        for w in job.warnings:
            self.report({'WARNING'}, "rigkit: %s" % w)
        for f, c, m in job.failed:
            self.report({'WARNING'}, "rigkit: %s%s failed: %s" % (f, "|" + c if c else "", m))
        self.report({'INFO'}, "rigkit: %s" % job.summary())
        return {'FINISHED'}


class RIGKIT_OT_retarget_armature(RetargetOptions, bpy.types.Operator):
    """Retarget another armature's animation (its active Action over its frame range) onto the
    active armature as a new Action (kept)"""
    bl_idname = "rigkit.retarget_armature"
    bl_label = "Retarget armature's animation"
    bl_options = {'REGISTER', 'UNDO'}

    source: StringProperty(name="Source armature",
                           description="Name of the animated armature object to retarget from")
    action_name: StringProperty(name="Action name", default="",
                                description="Empty: '<armature>|<source action>'")

    @classmethod
    def poll(cls, context):
        return _active_armature(context) is not None

    def invoke(self, context, event):
        if not self.source:  # another selected armature, as "select source, then target"
            arm = context.active_object
            other = [o for o in context.selected_objects if o.type == 'ARMATURE' and o != arm]
            if other:
                self.source = other[0].name
        return context.window_manager.invoke_props_dialog(self)

    def draw(self, context):
        self.layout.prop_search(self, "source", context.scene, "objects")
        self.layout.prop(self, "action_name")
        self.draw_options(self.layout)

    def _source(self, context, arm):
        """The source armature and its action, or ValueError saying what is missing."""
        src = context.scene.objects.get(self.source)
        if src is None or src.type != 'ARMATURE':
            raise ValueError("no armature object '%s' in the scene" % self.source)
        if src == arm:
            raise ValueError("'%s' is the target: choose another armature as the source" % src.name)
        action = src.animation_data.action if src.animation_data else None
        if action is None:
            raise ValueError("armature '%s' has no active Action to retarget" % src.name)
        return src, action

    def execute(self, context):
        arm = _prepare(context)
        scene = context.scene
        try:
            src, action = self._source(context, arm)
            plugin = loader.get_plugin(context)
            first = int(math.floor(action.frame_range[0]))
            last = int(math.ceil(action.frame_range[1]))
            skel, mpu, t, q, warnings = blender_io.sample_armature(
                src, scene, first, last, unit=self.source_unit_metres())
            label = "armature '%s'" % src.name
            with plugin.from_host(skel, (abi.UP_Z, mpu), scene.render.fps / scene.render.fps_base,
                                  t, q, None, abi.KEYS_LOCAL, action.name, label) as clip:
                name = self.action_name or "%s|%s" % (arm.name, action.name)
                done = blender_io.retarget(plugin, context, arm, clip, 0, self.settings(context),
                                           name, first, {"rigkit_source": label,
                                                         "rigkit_clip": action.name})
        except (abi.RigkitError, ValueError) as e:
            self.report({'ERROR'}, "rigkit: %s" % e)
            return {'CANCELLED'}
        return _report_done(self, done[0], done[1], warnings + done[2])


CLASSES = (RIGKIT_OT_retarget_clip, RIGKIT_OT_retarget_batch, RIGKIT_OT_retarget_armature)
