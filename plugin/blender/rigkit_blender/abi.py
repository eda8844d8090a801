# ctypes bindings of rigkit's plugin ABI (plugin/abi/include/rigkit/plugin.h, ABI version 2).
#
# No Blender import here: the module works in any Python 3 with numpy, so it can be tested and
# used outside Blender. The structures mirror the header field by field; load() checks every
# one of their sizes against the plugin's own (api.struct_size) and refuses a plugin whose
# layout differs, and the ABI version check refuses a plugin of another ABI with its message.
import ctypes
import os

import numpy as np

ABI_VERSION = 2
ABI_QUERY = 0
TRS_FLOATS = 10
DEFAULT = -1

UP_Y = 0
UP_Z = 1
KEYS_LOCAL = 0
KEYS_REST_RELATIVE = 1
CHANNEL_TRANSLATION = 0
CHANNEL_ROTATION = 1
CHANNEL_SCALE = 2
JOINT_END_SITE = 1

ISOLATION_AUTO = 0    # glTF/GLB/FBX in the helper process, BVH/DH in this one
ISOLATION_NONE = 1
ISOLATION_ALWAYS = 2
BVH_ROOT_OFFSET_AUTO = 0     # the reading that puts the feet on the ground (rigkit's choice)
BVH_ROOT_OFFSET_ADD = 1      # root position = OFFSET + channels
BVH_ROOT_OFFSET_REPLACE = 2  # root position = channels (Blender's own BVH importer's reading)

OK = 0
ERR_CAPACITY = 12
ERR_CRASHED = 13  # the import helper process died on the file; this process is unaffected

LIBRARY_NAME = "librigkit_plugin.so"

_c_char_p = ctypes.c_char_p
_size_t = ctypes.c_size_t
_u32 = ctypes.c_uint32
_i32 = ctypes.c_int32
_f32p = ctypes.POINTER(ctypes.c_float)
_i32p = ctypes.POINTER(ctypes.c_int32)
_u32p = ctypes.POINTER(ctypes.c_uint32)


class Space(ctypes.Structure):
    _fields_ = [("up_axis", _i32), ("metres_per_unit", ctypes.c_float)]


class ImportOptions(ctypes.Structure):
    _fields_ = [("format", _c_char_p), ("metres_per_unit", ctypes.c_double),
                ("bvh_up_axis", _c_char_p), ("isolation", _i32), ("bvh_root_offset", _i32)]


class AssetInfo(ctypes.Structure):
    _fields_ = [("joint_count", _u32), ("clip_count", _u32), ("mesh_count", _u32),
                ("isolated", _u32), ("format", _c_char_p), ("path", _c_char_p),
                ("unit", _c_char_p), ("metres_per_unit", ctypes.c_double),
                ("up_axis", _c_char_p)]


class ClipInfo(ctypes.Structure):
    _fields_ = [("name", _c_char_p), ("duration_s", ctypes.c_double), ("fps", ctypes.c_double),
                ("frames", _u32), ("reserved", _u32)]


class Skeleton(ctypes.Structure):
    _fields_ = [("joint_count", _u32), ("reserved", _u32),
                ("names", ctypes.POINTER(_c_char_p)), ("parents", _i32p), ("rest", _f32p),
                ("flags", _u32p)]


class Settings(ctypes.Structure):
    _fields_ = [("foot_ik", _i32), ("hand_ik", _i32), ("root_motion", _i32), ("reserved", _i32),
                ("fps", ctypes.c_double), ("reduce_tolerance_m", ctypes.c_double)]


class Mesh(ctypes.Structure):
    _fields_ = [("name", _c_char_p), ("vertex_count", _u32), ("index_count", _u32),
                ("positions", _f32p), ("indices", _u32p),
                ("joints", ctypes.POINTER(ctypes.c_uint16)), ("weights", _f32p)]


class SessionDesc(ctypes.Structure):
    _fields_ = [("source", ctypes.c_void_p), ("source_clip", _u32), ("reserved", _u32),
                ("target_asset", ctypes.c_void_p), ("target_skeleton", ctypes.POINTER(Skeleton)),
                ("space", Space), ("profile_path", _c_char_p), ("profile_text", _c_char_p),
                ("settings", Settings), ("settings_text", _c_char_p),
                ("target_meshes", ctypes.POINTER(Mesh)), ("target_mesh_count", _u32),
                ("reserved2", _u32)]


class HostClip(ctypes.Structure):
    _fields_ = [("skeleton", ctypes.POINTER(Skeleton)), ("space", Space), ("keys", _i32),
                ("frame_count", _u32), ("fps", ctypes.c_double), ("translations", _f32p),
                ("rotations", _f32p), ("scales", _f32p), ("name", _c_char_p),
                ("label", _c_char_p)]


class Result(ctypes.Structure):
    _fields_ = [("frames", _u32), ("joint_count", _u32), ("fps", ctypes.c_double),
                ("duration_s", ctypes.c_double), ("mapped_bones", _u32),
                ("contact_count", _u32), ("contact_frames", _u32),
                ("joint_limit_violations", _u32), ("keys_baked", ctypes.c_uint64),
                ("keys_output", ctypes.c_uint64), ("reduce_max_error_m", ctypes.c_double),
                ("foot_skate_mean_mm", ctypes.c_double), ("foot_skate_max_mm", ctypes.c_double),
                ("ik_goal_error_mean_mm", ctypes.c_double),
                ("ik_goal_error_max_mm", ctypes.c_double),
                ("loop_closure_residual_max_mm", ctypes.c_double),
                ("limb_direction_median_deg", ctypes.c_double),
                ("foot_skate_fk_max_mm", ctypes.c_double), ("run_seconds", ctypes.c_double)]


class Info(ctypes.Structure):
    _fields_ = [("abi_version", _u32), ("api_size", _u32), ("rigkit_version", _c_char_p),
                ("message", _c_char_p)]


_ERR = (ctypes.c_char_p, _size_t)  # every fallible function ends with (err, err_size)


def _fn(restype, *args):
    # CFUNCTYPE releases the GIL during the call: a long retarget does not block other threads.
    return ctypes.CFUNCTYPE(restype, *args)


class Api(ctypes.Structure):
    _fields_ = [
        ("info", Info),
        ("status_name", _fn(_c_char_p, ctypes.c_int)),
        ("struct_size", _fn(_size_t, _c_char_p)),
        ("asset_open_file", _fn(ctypes.c_int, _c_char_p, ctypes.POINTER(ImportOptions),
                                ctypes.POINTER(ctypes.c_void_p), *_ERR)),
        ("asset_open_memory", _fn(ctypes.c_int, ctypes.c_void_p, _size_t, _c_char_p,
                                  ctypes.POINTER(ImportOptions), ctypes.POINTER(ctypes.c_void_p),
                                  *_ERR)),
        ("asset_close", _fn(ctypes.c_int, ctypes.c_void_p)),
        ("asset_info", _fn(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(AssetInfo), *_ERR)),
        ("asset_clip", _fn(ctypes.c_int, ctypes.c_void_p, _u32, ctypes.POINTER(ClipInfo), *_ERR)),
        ("asset_joints", _fn(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(Space), _u32,
                             ctypes.POINTER(_c_char_p), _i32p, _f32p, _u32p, *_ERR)),
        ("session_new", _fn(ctypes.c_int, ctypes.POINTER(SessionDesc),
                            ctypes.POINTER(ctypes.c_void_p), *_ERR)),
        ("session_close", _fn(ctypes.c_int, ctypes.c_void_p)),
        ("session_run", _fn(ctypes.c_int, ctypes.c_void_p, *_ERR)),
        ("session_result", _fn(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(Result), *_ERR)),
        ("session_joints", _fn(ctypes.c_int, ctypes.c_void_p, _u32, ctypes.POINTER(_c_char_p),
                               _i32p, _f32p, _u32p, *_ERR)),
        ("session_keys", _fn(ctypes.c_int, ctypes.c_void_p, _i32, _u32, _u32, _f32p, _f32p,
                             _f32p, *_ERR)),
        ("session_track", _fn(ctypes.c_int, ctypes.c_void_p, _u32, _i32, _i32, _u32, _f32p,
                              _f32p, _u32p, *_ERR)),
        ("session_contact", _fn(ctypes.c_int, ctypes.c_void_p, _u32, _i32p, _u32, _i32p, _u32p,
                                *_ERR)),
        ("session_map_text", _fn(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, _size_t,
                                 ctypes.POINTER(_size_t), *_ERR)),
        ("session_export", _fn(ctypes.c_int, ctypes.c_void_p, _c_char_p, *_ERR)),
        ("asset_from_host", _fn(ctypes.c_int, ctypes.POINTER(HostClip),
                                ctypes.POINTER(ctypes.c_void_p), *_ERR)),
    ]


_STRUCTS = {"rk_plugin_api": Api, "rk_plugin_info": Info, "rk_plugin_space": Space,
            "rk_plugin_import_options": ImportOptions, "rk_plugin_asset_info": AssetInfo,
            "rk_plugin_clip_info": ClipInfo, "rk_plugin_skeleton": Skeleton,
            "rk_plugin_settings": Settings, "rk_plugin_session_desc": SessionDesc,
            "rk_plugin_result": Result, "rk_plugin_host_clip": HostClip, "rk_plugin_mesh": Mesh}


class RigkitError(Exception):
    """A failure reported by the plugin: status name and the plugin's message."""

    def __init__(self, status, status_name, message):
        super().__init__("%s (%s)" % (message, status_name))
        self.status = status
        self.status_name = status_name
        self.message = message


def _text(b):
    return b.decode("utf-8", "replace") if b is not None else ""


def _f32(a):
    return a.ctypes.data_as(_f32p)


class Plugin:
    """The loaded plugin: its function table and Python wrappers over it."""

    def __init__(self, path):
        self.path = path
        # RTLD_LOCAL: rigkit's symbols stay out of the host's global namespace.
        self.lib = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_LOCAL)
        get = self.lib.rk_plugin_get_api
        get.restype = ctypes.c_void_p
        get.argtypes = [_u32]
        p = get(ABI_VERSION)
        if not p:
            q = get(ABI_QUERY)
            info = ctypes.cast(q, ctypes.POINTER(Info)).contents if q else None
            raise RigkitError(-1, "abi", _text(info.message) if info else
                              "%s refused ABI %d" % (path, ABI_VERSION))
        self.api = ctypes.cast(p, ctypes.POINTER(Api)).contents
        bad = ["%s: plugin %d bytes, bindings %d" % (n, self.api.struct_size(n.encode()),
                                                      ctypes.sizeof(t))
               for n, t in _STRUCTS.items()
               if self.api.struct_size(n.encode()) != ctypes.sizeof(t)]
        if bad:
            raise RigkitError(-1, "abi", "%s: structure layouts differ from these bindings: %s"
                              % (path, "; ".join(bad)))
        self.version = _text(self.api.info.rigkit_version)

    def _check(self, status, err):
        if status != OK:
            raise RigkitError(status, _text(self.api.status_name(status)), _text(err.value))

    @staticmethod
    def _err():
        return ctypes.create_string_buffer(1024)

    # ---- assets ----
    def open_file(self, path, fmt=None, metres_per_unit=0.0, bvh_up_axis=None,
                  isolation=ISOLATION_AUTO, bvh_root_offset=BVH_ROOT_OFFSET_AUTO):
        """The file as an Asset; glTF/GLB/FBX are read in the helper process by default, so an
        importer crash is a RigkitError (status ERR_CRASHED), not the end of this process."""
        o = ImportOptions(fmt.encode() if fmt else None, metres_per_unit,
                          bvh_up_axis.encode() if bvh_up_axis else None, isolation,
                          bvh_root_offset)
        h = ctypes.c_void_p()
        err = self._err()
        self._check(self.api.asset_open_file(os.fsencode(path), ctypes.byref(o),
                                             ctypes.byref(h), err, len(err)), err)
        return Asset(self, h)

    def open_memory(self, data, name):
        buf = ctypes.create_string_buffer(bytes(data), len(data))
        h = ctypes.c_void_p()
        err = self._err()
        self._check(self.api.asset_open_memory(buf, len(data), name.encode(), None,
                                               ctypes.byref(h), err, len(err)), err)
        return Asset(self, h)

    def from_host(self, skeleton, space, fps, translations=None, rotations=None, scales=None,
                  form=KEYS_LOCAL, name=None, label=None):
        """An Asset holding one clip given as host data: skeleton a HostSkeleton (rest in
        `space`), translations [frames, joints, 3], rotations [frames, joints, 4] (x, y, z, w),
        scales [frames, joints, 3] (each may be None: the rest) in `form`, at fps."""
        arrays = [None if a is None else np.ascontiguousarray(a, dtype=np.float32)
                  for a in (translations, rotations, scales)]
        frames = next((a.shape[0] for a in arrays if a is not None), 1)
        c = HostClip(ctypes.pointer(skeleton.struct), Space(space[0], space[1]), form, frames,
                     fps, *[None if a is None else _f32(a) for a in arrays],
                     name.encode() if name else None, label.encode() if label else None)
        h = ctypes.c_void_p()
        err = self._err()
        self._check(self.api.asset_from_host(ctypes.byref(c), ctypes.byref(h), err, len(err)), err)
        return Asset(self, h)

    def session(self, source, clip_index, target=None, skeleton=None, space=(UP_Y, 1.0),
                profile_path=None, profile_text=None, foot_ik=DEFAULT, hand_ik=DEFAULT,
                root_motion=DEFAULT, fps=0.0, reduce_tolerance_m=0.0, settings_text=None,
                meshes=()):
        """Builds a session: target is an Asset, or skeleton a HostSkeleton in `space` with its
        character's `meshes` (HostMesh); settings_text holds [settings] keys over the
        profile's ("contact_height=0.05")."""
        d = SessionDesc()
        d.source = source.handle
        d.source_clip = clip_index
        d.target_asset = target.handle if target is not None else None
        if skeleton is not None:
            d.target_skeleton = ctypes.pointer(skeleton.struct)
        d.space = Space(space[0], space[1])
        d.profile_path = os.fsencode(profile_path) if profile_path else None
        d.profile_text = profile_text.encode() if profile_text else None
        d.settings = Settings(foot_ik, hand_ik, root_motion, 0, fps, reduce_tolerance_m)
        d.settings_text = settings_text.encode() if settings_text else None
        structs = (Mesh * len(meshes))(*[m.struct for m in meshes]) if meshes else None
        d.target_meshes = ctypes.cast(structs, ctypes.POINTER(Mesh)) if structs else None
        d.target_mesh_count = len(meshes)
        h = ctypes.c_void_p()
        err = self._err()
        self._check(self.api.session_new(ctypes.byref(d), ctypes.byref(h), err, len(err)), err)
        return Session(self, h)


class Asset:
    def __init__(self, plugin, handle):
        self.plugin, self.handle = plugin, handle

    def close(self):
        if self.handle:
            self.plugin.api.asset_close(self.handle)
            self.handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def info(self):
        out = AssetInfo()
        err = self.plugin._err()
        self.plugin._check(self.plugin.api.asset_info(self.handle, ctypes.byref(out), err,
                                                      len(err)), err)
        return out

    def clips(self):
        """[(name, duration_s, fps, frames)] of every clip."""
        res = []
        for i in range(self.info().clip_count):
            c = ClipInfo()
            err = self.plugin._err()
            self.plugin._check(self.plugin.api.asset_clip(self.handle, i, ctypes.byref(c), err,
                                                          len(err)), err)
            res.append((_text(c.name), c.duration_s, c.fps, c.frames))
        return res


class HostSkeleton:
    """A host's joints: names, parent indices (-1 for roots), rest TRS floats (n x 10)."""

    def __init__(self, names, parents, rest, flags=None):
        n = len(names)
        self._encoded = [s.encode("utf-8") for s in names]  # kept alive with the struct
        self._names = (_c_char_p * n)(*self._encoded)
        self._parents = np.ascontiguousarray(parents, dtype=np.int32)
        self._rest = np.ascontiguousarray(rest, dtype=np.float32).reshape(n, TRS_FLOATS)
        self._flags = None if flags is None else np.ascontiguousarray(flags, dtype=np.uint32)
        self.struct = Skeleton(n, 0, ctypes.cast(self._names, ctypes.POINTER(_c_char_p)),
                               self._parents.ctypes.data_as(_i32p),
                               _f32(self._rest),
                               None if self._flags is None else self._flags.ctypes.data_as(_u32p))


class HostMesh:
    """A host target's skinned mesh: positions (n x 3, in the session's space), triangle indices
    (or None), joints (n x 4, host skeleton order) and weights (n x 4), or neither."""

    def __init__(self, name, positions, indices=None, joints=None, weights=None):
        self._name = name.encode("utf-8")
        self._pos = np.ascontiguousarray(positions, dtype=np.float32).reshape(-1, 3)
        self._idx = None if indices is None else np.ascontiguousarray(indices, dtype=np.uint32)
        self._j = None if joints is None else np.ascontiguousarray(joints, dtype=np.uint16)
        self._w = None if weights is None else np.ascontiguousarray(weights, dtype=np.float32)
        self.struct = Mesh(self._name, len(self._pos), 0 if self._idx is None else len(self._idx),
                           _f32(self._pos),
                           None if self._idx is None else self._idx.ctypes.data_as(_u32p),
                           None if self._j is None else
                           self._j.ctypes.data_as(ctypes.POINTER(ctypes.c_uint16)),
                           None if self._w is None else _f32(self._w))


class Session:
    def __init__(self, plugin, handle):
        self.plugin, self.handle = plugin, handle

    def close(self):
        if self.handle:
            self.plugin.api.session_close(self.handle)
            self.handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _call(self, fn, *args):
        err = self.plugin._err()
        self.plugin._check(fn(self.handle, *args, err, len(err)), err)

    def run(self):
        self._call(self.plugin.api.session_run)

    def result(self):
        r = Result()
        self._call(self.plugin.api.session_result, ctypes.byref(r))
        return r

    def keys(self, form=KEYS_REST_RELATIVE, first=0, count=None):
        """(translations [f, j, 3], rotations [f, j, 4] as x, y, z, w) for frames first.."""
        r = self.result()
        if count is None:
            count = r.frames - first
        t = np.empty((count, r.joint_count, 3), dtype=np.float32)
        q = np.empty((count, r.joint_count, 4), dtype=np.float32)
        self._call(self.plugin.api.session_keys, form, first, count, _f32(t), _f32(q), None)
        return t, q

    def track(self, joint, channel, form=KEYS_REST_RELATIVE):
        """(frames [k], values [k, 3 or 4]) of one joint's channel after reduction."""
        count = _u32(0)
        err = self.plugin._err()
        st = self.plugin.api.session_track(self.handle, joint, channel, form, 0, None, None,
                                           ctypes.byref(count), err, len(err))
        if st != ERR_CAPACITY:
            self.plugin._check(st, err)
        n = count.value
        frames = np.empty(n, dtype=np.float32)
        values = np.empty((n, 4 if channel == CHANNEL_ROTATION else 3), dtype=np.float32)
        self._call(self.plugin.api.session_track, joint, channel, form, n, _f32(frames),
                   _f32(values), ctypes.byref(count))
        return frames, values

    def contacts(self):
        """[(joint index, [(first, last), ...])] of every planted joint."""
        res = []
        for c in range(self.result().contact_count):
            joint, count = _i32(0), _u32(0)
            cap = 256
            while True:
                iv = (_i32 * (2 * cap))()
                err = self.plugin._err()
                st = self.plugin.api.session_contact(self.handle, c, ctypes.byref(joint), cap, iv,
                                                     ctypes.byref(count), err, len(err))
                if st == ERR_CAPACITY:
                    cap = count.value
                    continue
                self.plugin._check(st, err)
                break
            res.append((joint.value, [(iv[2 * k], iv[2 * k + 1]) for k in range(count.value)]))
        return res

    def map_text(self):
        needed = _size_t(0)
        self._call(self.plugin.api.session_map_text, None, 0, ctypes.byref(needed))
        buf = ctypes.create_string_buffer(needed.value)
        self._call(self.plugin.api.session_map_text, buf, len(buf), None)
        return _text(buf.value)

    def export(self, path):
        self._call(self.plugin.api.session_export, os.fsencode(path))


_loaded = {}


def load(path):
    """The plugin at path (loaded once per path; the library stays loaded)."""
    path = os.path.abspath(path) if os.sep in path else path
    if path not in _loaded:
        _loaded[path] = Plugin(path)
    return _loaded[path]


def find_library(preferred=None, here=None):
    """Candidate paths of librigkit_plugin.so, in order: an explicit path (a preference), the
    add-on's own directory, $RIGKIT_PLUGIN, then the bare name for the system's loader."""
    cands = []
    if preferred:
        p = os.path.abspath(bpy_path(preferred))
        cands.append(os.path.join(p, LIBRARY_NAME) if os.path.isdir(p) else p)
    if here:
        cands.append(os.path.join(here, LIBRARY_NAME))
    env = os.environ.get("RIGKIT_PLUGIN")
    if env:
        cands.append(env)
    cands.append(LIBRARY_NAME)
    return cands


def bpy_path(p):
    # Blender's relative paths ("//lib/...") are relative to the .blend file.
    try:
        import bpy
        return bpy.path.abspath(p)
    except ImportError:
        return p
