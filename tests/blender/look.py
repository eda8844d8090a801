# Looks at a retargeted character the way a person does: imports it into headless Blender, plays
# its animation, measures the evaluated (skinned) mesh against the floor at every frame and renders
# chosen frames beside a floor grid, from the side and from the front, into PNG strips.
#
#   blender -b --factory-startup --python tests/blender/look.py -- OUT.glb \
#       [--frames 0,10,20] [--png DIR] [--json FILE] [--source SRC.bvh] [--size 320] [--clip NAME]
#
# --json writes, per frame, the lowest point of the skinned mesh (metres above Blender's floor z=0,
# i.e. rigkit's ground) and the lowest point per named foot bone's vertices; --png writes
# DIR/<stem>_side.png and _front.png, one tile per frame (Cycles on the CPU, a few samples: no GPU
# needed). --source also imports a BVH clip (Blender's own importer) and draws it beside, offset
# sideways, for a side-by-side look.
#
# A glTF file is played as the file means it: --clip names the clip (default: the first), every
# channel it does not key holds the node's TRS (Blender's importer plays the first clip while it
# imports, so a later clip left the first one's values in its unkeyed channels), and the scene's
# frame rate is the clip's own: its most-keyed sampler's keys per second ((count - 1) / (max -
# min) of its input accessor, rounded to a whole number), so that frame N is the file's frame N at
# 30, 100 or 120 fps and no key falls between Blender's frames (its default is 24 fps).
import json
import struct
import tempfile
import math
import os
import sys

import bpy
import mathutils

# Debian's Blender 3.4 with Python 3.11 and numpy >= 1.24: the glTF importer still uses the
# removed numpy.bool alias, and the BVH importer opens files in the removed 'rU' mode.
import builtins
import numpy
numpy.bool = bool  # (a plain assignment: reading numpy.bool first would warn)
import io_anim_bvh.import_bvh as _import_bvh
_import_bvh.open = lambda file, mode="r", *a, **k: builtins.open(file, mode.replace("U", ""), *a, **k)

argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
if not argv:
    print("usage: blender -b --factory-startup --python look.py -- FILE [options]")
    sys.exit(2)
path = argv[0]
opts = {"--frames": "", "--png": "", "--json": "", "--source": "", "--size": "320",
        "--source-scale": "1", "--offset": "1.0", "--clip": ""}
i = 1
while i < len(argv):
    opts[argv[i]] = argv[i + 1]
    i += 2



def gltf_json(p):
    """The JSON of a .glb or .gltf file, and the binary chunk that follows it (glb) or None."""
    data = open(p, "rb").read()
    if data[:4] != b"glTF":
        return json.loads(data), None
    n = struct.unpack("<I", data[12:16])[0]
    return json.loads(data[20:20 + n]), data[20 + n:]


def without_animations(p):
    """A temporary copy of glTF file p without its clips (beside it: a .gltf's buffers are
    relative); the caller removes it."""
    doc, rest = gltf_json(p)
    doc.pop("animations", None)
    fd, tmp = tempfile.mkstemp(suffix=os.path.splitext(p)[1], dir=os.path.dirname(os.path.abspath(p)))
    os.close(fd)
    text = json.dumps(doc).encode()
    if rest is None:
        open(tmp, "wb").write(text)
    else:
        text += b" " * ((4 - len(text) % 4) % 4)
        open(tmp, "wb").write(struct.pack("<III", 0x46546C67, 2, 12 + 8 + len(text) + len(rest)) +
                              struct.pack("<II", len(text), 0x4E4F534A) + text + rest)
    return tmp


def clip_fps(doc, name):
    """Keys per second of clip `name` (or the first): its most-keyed sampler's input accessor."""
    anims = doc.get("animations", [])
    anim = next((a for a in anims if a.get("name") == name), anims[0] if anims else None)
    best = None
    for smp in (anim or {}).get("samplers", []):
        acc = doc["accessors"][smp["input"]]
        if acc["count"] > 1 and "max" in acc and "min" in acc and (best is None or acc["count"] > best["count"]):
            best = acc
    if best is None or best["max"][0] <= best["min"][0]:
        return None
    return max(1, int(round((best["count"] - 1) / (best["max"][0] - best["min"][0]))))


bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
ext = os.path.splitext(path)[1].lower()
basis = None
if ext in (".glb", ".gltf"):
    doc = gltf_json(path)[0]
    if doc.get("animations"):
        # Each bone's pose where the nodes' TRS put it, from the file imported without clips.
        bare = without_animations(path)
        bpy.ops.import_scene.gltf(filepath=bare)
        os.remove(bare)
        a0 = next((o for o in scene.objects if o.type == 'ARMATURE'), None)
        if a0:
            basis = {pb.name: (pb.location.copy(), pb.rotation_quaternion.copy(), pb.scale.copy())
                     for pb in a0.pose.bones}
        bpy.ops.wm.read_factory_settings(use_empty=True)
        scene = bpy.context.scene
        fps = clip_fps(doc, opts["--clip"])
        if fps:
            scene.render.fps, scene.render.fps_base = fps, 1.0
            print("look.py: %d fps (the clip's keys)" % fps)
    bpy.ops.import_scene.gltf(filepath=path)
elif ext == ".fbx":
    bpy.ops.import_scene.fbx(filepath=path)
elif ext == ".bvh":
    bpy.ops.import_anim.bvh(filepath=path, global_scale=0.01, update_scene_fps=True)
else:
    print("look.py: unknown format " + path)
    sys.exit(2)
target_objs = list(scene.objects)
arm = next((o for o in target_objs if o.type == 'ARMATURE'), None)
meshes = [o for o in target_objs if o.type == 'MESH']
if arm and basis and arm.animation_data:
    # The clip asked for (else the first) on the nodes' TRS, the others muted.
    for pb in arm.pose.bones:
        if pb.name in basis:
            pb.location, pb.rotation_quaternion, pb.scale = basis[pb.name]
    ad = arm.animation_data
    want = opts["--clip"]
    for t in ad.nla_tracks:
        t.mute = True
    chosen = next((t.strips[0].action for t in ad.nla_tracks if t.name == want and t.strips), None)
    if want and chosen is None:
        print("look.py: no clip %s in %s" % (want, path))
        sys.exit(2)
    if chosen is not None:
        ad.action = chosen
if arm and arm.animation_data and arm.animation_data.action:
    first, last = arm.animation_data.action.frame_range
else:
    first, last = 0, 0
first, last = int(round(first)), int(round(last))
scene.frame_start, scene.frame_end = first, last

src_arm = None
if opts["--source"]:
    before = set(scene.objects)
    bpy.ops.import_anim.bvh(filepath=opts["--source"], global_scale=float(opts["--source-scale"]),
                            update_scene_fps=False, update_scene_duration=False)
    src_arm = next(o for o in scene.objects if o not in before and o.type == 'ARMATURE')
    src_arm.location.x += float(opts["--offset"])

dg = bpy.context.evaluated_depsgraph_get()


def mesh_points(obj):
    """World positions of the evaluated (skinned) vertices of a mesh object."""
    ev = obj.evaluated_get(dg)
    m = ev.to_mesh()
    mw = obj.matrix_world
    pts = [mw @ v.co for v in m.vertices]
    groups = [[obj.vertex_groups[g.group].name for g in v.groups if g.weight > 0.3] for v in m.vertices]
    ev.to_mesh_clear()
    return pts, groups


def frame_stats(f):
    scene.frame_set(f)
    dg.update()
    low = math.inf
    per_bone = {}
    for o in meshes:
        pts, groups = mesh_points(o)
        for p, gs in zip(pts, groups):
            low = min(low, p.z)
            for g in gs:
                per_bone[g] = min(per_bone.get(g, math.inf), p.z)
    return low, per_bone


if opts["--json"]:
    rows = []
    for f in range(first, last + 1):
        low, per_bone = frame_stats(f)
        rows.append({"frame": f, "lowest": low, "per_bone": per_bone})
    with open(opts["--json"], "w") as fh:
        json.dump({"file": path, "first": first, "last": last, "frames": rows}, fh)
    print("look.py: %d frames measured, lowest %.4f m" % (len(rows), min(r["lowest"] for r in rows)))

if opts["--png"]:
    frames = [int(x) for x in opts["--frames"].split(",") if x] or [first, (first + last) // 2, last]
    os.makedirs(opts["--png"], exist_ok=True)
    # The floor seen edge-on: a backdrop behind the character, light above z = 0 and dark below,
    # with a red line at z = 0, so a foot above, on or through the floor shows at a glance.
    def flat_material(name, rgb):
        m = bpy.data.materials.new(name)
        m.use_nodes = True
        em = m.node_tree.nodes.new("ShaderNodeEmission")
        em.inputs["Color"].default_value = (*rgb, 1)
        m.node_tree.links.new(em.outputs["Emission"], m.node_tree.nodes["Material Output"].inputs["Surface"])
        return m

    backdrop = []
    for name, z0, z1, rgb in (("above", 0.0, 6.0, (0.85, 0.88, 0.92)),
                              ("below", -6.0, 0.0, (0.25, 0.25, 0.3)),
                              ("line", -0.004, 0.004, (0.9, 0.05, 0.05))):
        bpy.ops.mesh.primitive_plane_add(size=1)
        o = bpy.context.active_object
        o.data.materials.append(flat_material(name, rgb))
        backdrop.append((o, z0, z1))
    body = bpy.data.materials.new("body")
    body.diffuse_color = (0.9, 0.55, 0.2, 1)
    body.use_nodes = True
    body.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.9, 0.45, 0.15, 1)
    for o in meshes:
        if not o.data.materials or opts.get("--keep-materials") is None:
            o.data.materials.clear()
            o.data.materials.append(body)
    world = bpy.data.worlds.new("w")
    scene.world = world
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Strength"].default_value = 1.0
    sun = bpy.data.lights.new("sun", "SUN")
    sun.energy = 3
    so = bpy.data.objects.new("sun", sun)
    so.rotation_euler = (0.7, 0.2, 0.5)
    scene.collection.objects.link(so)
    scene.render.engine = 'CYCLES'
    scene.cycles.samples = 8
    scene.cycles.use_denoising = False
    size = int(opts["--size"])
    scene.render.resolution_x = size
    scene.render.resolution_y = size
    scene.render.film_transparent = False
    cam_data = bpy.data.cameras.new("cam")
    cam_data.type = 'ORTHO'
    cam = bpy.data.objects.new("cam", cam_data)
    scene.collection.objects.link(cam)
    scene.camera = cam
    for view in ("side", "front", "feet"):
        tiles = []
        for f in frames:
            scene.frame_set(f)
            dg.update()
            # Frame the character: centre on its mesh's bounding box at this frame.
            pts = []
            for o in meshes:
                pts += mesh_points(o)[0]
            if src_arm:
                pts += [src_arm.matrix_world @ b.head for b in src_arm.pose.bones]
            if not pts:
                pts = [arm.matrix_world @ b.head for b in arm.pose.bones]
            lo = mathutils.Vector((min(p.x for p in pts), min(p.y for p in pts), min(p.z for p in pts)))
            hi = mathutils.Vector((max(p.x for p in pts), max(p.y for p in pts), max(p.z for p in pts)))
            c = (lo + hi) / 2
            bottom = min(lo.z, 0) - 0.05 * (hi.z - lo.z)
            ext_ = max(hi.x - lo.x, hi.y - lo.y, hi.z - bottom) * 1.1 + 0.05
            c.z = bottom + ext_ / 2
            if view == "feet":  # the lower quarter of the figure, from the side, close up
                ext_ = 0.3 * (hi.z - lo.z) + 0.1
                c.z = min(lo.z, 0) - 0.1 * ext_ + ext_ / 2
                c.x = (lo.x + hi.x) / 2
            cam_data.ortho_scale = ext_
            if view in ("side", "feet"):
                cam.location = (c.x + 10, c.y, c.z)
                cam.rotation_euler = (math.pi / 2, 0, math.pi / 2)
            else:
                cam.location = (c.x, c.y - 10, c.z)
                cam.rotation_euler = (math.pi / 2, 0, 0)
            bpy.context.view_layer.update()
            for o, z0, z1 in backdrop:
                o.rotation_euler = cam.rotation_euler
                o.scale = (40, z1 - z0, 1)
                behind = (cam.matrix_world.to_3x3() @ mathutils.Vector((0, 0, -1))) * 15
                o.location = (cam.location.x + behind.x, cam.location.y + behind.y, (z0 + z1) / 2)
                if z1 - z0 < 0.1:  # the line sits a little in front of the backdrop
                    o.location = (o.location.x - behind.x * 0.01, o.location.y - behind.y * 0.01, 0)
            out = os.path.join(opts["--png"], "_tile_%s_%d.png" % (view, f))
            scene.render.filepath = out
            bpy.ops.render.render(write_still=True)
            tiles.append(out)
        # Stitch the tiles side by side.
        imgs = [bpy.data.images.load(t) for t in tiles]
        w, h = imgs[0].size
        strip = bpy.data.images.new("strip", w * len(imgs), h)
        px = [0.0] * (w * len(imgs) * h * 4)
        for k, im in enumerate(imgs):
            src = list(im.pixels)
            for y in range(h):
                row = y * w * len(imgs) * 4 + k * w * 4
                px[row:row + w * 4] = src[y * w * 4:(y + 1) * w * 4]
        strip.pixels = px
        stem = os.path.splitext(os.path.basename(path))[0]
        strip.filepath_raw = os.path.join(opts["--png"], "%s_%s.png" % (stem, view))
        strip.file_format = 'PNG'
        strip.save()
        for t in tiles:
            os.remove(t)
        print("look.py: wrote " + strip.filepath_raw)
