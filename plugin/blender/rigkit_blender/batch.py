# A batch: every clip of every file of a folder (or of the chosen files) retargeted onto one
# armature, one Action per clip named '<armature>|<file>|<clip>', one clip per step so that a modal
# operator can show progress and stop between clips. Failures (a file that cannot be read or that
# crashed the import helper, a clip that cannot be retargeted) are collected, never raised.
import os

from . import abi, blender_io

EXTENSIONS = (".bvh", ".glb", ".gltf", ".fbx")


def clip_files(directory, names=()):
    """The files to retarget: the chosen names, else every clip file of the folder, sorted."""
    if names:
        return [os.path.join(directory, n) for n in names if n]
    return sorted(os.path.join(directory, n) for n in os.listdir(directory)
                  if n.lower().endswith(EXTENSIONS) and os.path.isfile(os.path.join(directory, n)))


class BatchJob:
    """Retargets the clips of `paths` onto arm_obj with `settings` (blender_io.Settings), each
    file opened with open_options (abi.Plugin.open_file's keywords: unit, BVH reading). Every
    step takes the caller's current context: a modal operator's context is only valid during
    the call it came with."""

    def __init__(self, plugin, context, arm_obj, paths, settings, open_options=None):
        self.plugin, self.arm = plugin, arm_obj
        self.paths, self.settings = list(paths), settings
        self.open_options = dict(open_options or {})
        self.next_file = 0
        self.source, self.clips, self.next_clip = None, [], 0
        self.ok, self.failed, self.warnings = [], [], []  # action names; (file, clip, message)
        self.cancelled = False
        self.frame_start = context.scene.frame_start
        # The character's meshes are the same for every clip: read once.
        self.meshes = blender_io.character_meshes(arm_obj, context.scene)

    @property
    def done(self):
        return self.cancelled or (self.source is None and self.next_file >= len(self.paths))

    def progress(self):
        """Fraction done: whole files, plus the part of the current file's clips."""
        if not self.paths:
            return 1.0
        part = self.next_clip / len(self.clips) if self.source is not None and self.clips else 0
        return min(1.0, (self.next_file - (self.source is not None) + part) / len(self.paths))

    def cancel(self):
        self.cancelled = True
        self._close()

    def _close(self):
        if self.source is not None:
            self.source.close()
        self.source, self.clips, self.next_clip = None, [], 0

    def _open_next(self):
        path = self.paths[self.next_file]
        self.next_file += 1
        try:
            self.source = self.plugin.open_file(path, **self.open_options)
            self.clips = self.source.clips()
        except abi.RigkitError as e:
            self._close()
            self.failed.append((os.path.basename(path), "", e.message))
            return
        if not self.clips:
            self.failed.append((os.path.basename(path), "", "%s has no animation clip" % path))
            self._close()

    def step(self, context):
        """Opens the next file, or retargets the next clip of the open one."""
        if self.done:
            return
        if self.source is None:
            self._open_next()
            return
        i = self.next_clip
        self.next_clip += 1
        path = self.paths[self.next_file - 1]
        file = os.path.basename(path)
        clip = self.clips[i][0] or str(i)
        name = "%s|%s|%s" % (self.arm.name, file, clip)
        try:
            action, _, warnings = blender_io.retarget(
                self.plugin, context, self.arm, self.source, i, self.settings, name,
                self.frame_start, blender_io.file_provenance(self.source, path, self.clips[i][0]),
                self.meshes)
            self.ok.append(action.name)
            self.warnings += [w for w in warnings if w not in self.warnings]
        except abi.RigkitError as e:
            self.failed.append((file, clip, e.message))
        if self.next_clip >= len(self.clips):
            self._close()

    def run(self, context):
        while not self.done:
            self.step(context)

    def summary(self):
        """One line for the Info log: clips retargeted, failed and why, cancelled."""
        text = "batch onto '%s': %d clip%s retargeted, %d failed" % (
            self.arm.name, len(self.ok), "" if len(self.ok) == 1 else "s", len(self.failed))
        if self.failed:
            text += " (%s)" % "; ".join("%s%s: %s" % (f, "|" + c if c else "", m)
                                        for f, c, m in self.failed)
        if self.cancelled:
            text += "; cancelled after %d of %d files" % (self.next_file, len(self.paths))
        return text

    def outcome(self):
        return {"ok": list(self.ok), "failed": [list(f) for f in self.failed],
                "cancelled": self.cancelled, "files": len(self.paths), "summary": self.summary()}
