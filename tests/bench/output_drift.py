#!/usr/bin/env python3
"""How far two trees of rigkit outputs (tests/regress/outputs.sh --make) lie apart, for a change
that may move output bits by rounding only. Per differing file:
  .glb: every animation channel's keys decoded; rotations by the angle between the two
        quaternions (radians, sign-blind), translations and scales by the largest coordinate
        difference (document units: metres); the JSON outside the buffers must be equal but for
        accessor min/max (compared as numbers);
  .bvh and any other text (reports, plots, summaries): the text with its numbers taken out must
        be equal; numbers are compared as the difference in units of their last printed digit
        (a BVH value within 1 of its printed precision is the same value rounded the other way);
  .gltf: as .glb with its buffer file; .fbx: both converted to glTF by the same rigkit (the
        environment's CONVERTER, else `rigkit` on PATH), then as .glb;
  anything else (binary, e.g. a .gltf's .bin, compared through its .gltf): listed as differing.
Prints one line per differing file and a summary; exits 1 when the structure differs.
Usage: output_drift.py OLD_TREE NEW_TREE"""
import json, math, os, re, struct, sys

NUM = re.compile(rb"-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def glb_parts(path):
    if path.endswith(".gltf"):
        doc = json.load(open(path))
        uri = doc.get("buffers", [{}])[0].get("uri", "")
        if uri.startswith("data:"):
            import base64
            return doc, base64.b64decode(uri.split(",", 1)[1])
        return doc, open(os.path.join(os.path.dirname(path), uri), "rb").read() if uri else b""
    if path.endswith(".fbx"):  # compared through one converter (CONVERTER: a rigkit binary)
        import subprocess, tempfile
        out = tempfile.mktemp(suffix=".glb")
        subprocess.run([os.environ.get("CONVERTER", "rigkit"), "convert", path, out],
                       check=True, capture_output=True)
        try:
            return glb_parts(out)
        finally:
            os.unlink(out)
    b = open(path, "rb").read()
    if b[:4] != b"glTF":
        return None, None
    off, doc, binc = 12, None, b""
    while off < len(b):
        n, kind = struct.unpack_from("<II", b, off)
        chunk = b[off + 8: off + 8 + n]
        if kind == 0x4E4F534A:
            doc = json.loads(chunk)
        elif kind == 0x004E4942:
            binc = chunk
        off += 8 + n
    return doc, binc


COMP = {5126: ("f", 4), 5120: ("b", 1), 5121: ("B", 1), 5122: ("h", 2), 5123: ("H", 2), 5125: ("I", 4)}
SIZE = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


def accessor(doc, binc, i):
    a = doc["accessors"][i]
    v = doc["bufferViews"][a["bufferView"]]
    fmt, sz = COMP[a["componentType"]]
    n, k = a["count"], SIZE[a["type"]]
    stride = v.get("byteStride", sz * k)
    base = v.get("byteOffset", 0) + a.get("byteOffset", 0)
    out = []
    for e in range(n):
        vals = struct.unpack_from("<%d%s" % (k, fmt), binc, base + e * stride)
        if a.get("normalized") and fmt != "f":
            lim = {"b": 127.0, "B": 255.0, "h": 32767.0, "H": 65535.0}[fmt]
            vals = tuple(max(x / lim, -1.0) for x in vals)
        out.append(vals)
    return out


def strip_numbers(v):
    """The JSON with accessor min/max and buffer sizes blanked (compared apart)."""
    if isinstance(v, dict):
        return {k: (None if k in ("min", "max") else strip_numbers(x)) for k, x in v.items()}
    if isinstance(v, list):
        return [strip_numbers(x) for x in v]
    return v


def glb_drift(a_path, b_path):
    da, ba = glb_parts(a_path)
    db, bb = glb_parts(b_path)
    if da is None or db is None:
        return "not glTF"
    if strip_numbers(da) != strip_numbers(db):
        return "structure differs"
    rot = pos = scl = other = ulps = rulps = 0.0
    anims = list(zip(da.get("animations", []), db.get("animations", [])))
    for aa, ab in anims:
        for ca, cb in zip(aa["channels"], ab["channels"]):
            sa, sb = aa["samplers"][ca["sampler"]], ab["samplers"][cb["sampler"]]
            ta, tb = accessor(da, ba, sa["input"]), accessor(db, bb, sb["input"])
            other = max([other] + [abs(x[0] - y[0]) for x, y in zip(ta, tb)])
            va, vb = accessor(da, ba, sa["output"]), accessor(db, bb, sb["output"])
            path = ca["target"]["path"]
            for x, y in zip(va, vb):
                if path == "rotation":
                    d = abs(sum(p * q for p, q in zip(x, y)))
                    na = math.sqrt(sum(p * p for p in x)) * math.sqrt(sum(q * q for q in y))
                    rot = max(rot, 2 * math.acos(min(1.0, d / na)))
                    sg = 1.0 if sum(p * q for p, q in zip(x, y)) >= 0 else -1.0
                    big = max(max(abs(p) for p in x), max(abs(q) for q in y))
                    rulps = max(rulps, max(abs(p - sg * q) for p, q in zip(x, y)) /
                                2.0 ** (math.frexp(big)[1] - 24))
                elif path == "translation":
                    pos = max(pos, max(abs(p - q) for p, q in zip(x, y)))
                    # in units of float32's spacing at the vector's largest coordinate
                    big = max(max(abs(p) for p in x), max(abs(q) for q in y))
                    if big > 0:
                        ulps = max(ulps, max(abs(p - q) for p, q in zip(x, y)) /
                                   2.0 ** (math.frexp(big)[1] - 24))
                else:
                    scl = max(scl, max(abs(p - q) for p, q in zip(x, y)))
    return ("rot_rad=%.3g rot_float32_ulps=%.2g pos_m=%.3g pos_float32_ulps=%.2g scale=%.3g "
            "times_s=%.3g" % (rot, rulps, pos, ulps, scl, other), rot, pos)


def last_digit(tok):
    """The unit of tok's last printed digit."""
    m = re.match(rb"-?(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$", tok)
    dec = len(m.group(2) or b"")
    exp = int(m.group(3) or 0)
    return 10.0 ** (exp - dec)


def text_drift(a_path, b_path, old, new):
    a, b = open(a_path, "rb").read(), open(b_path, "rb").read()
    a = a.replace(os.path.abspath(old).encode(), os.path.abspath(new).encode())
    if a == b:
        return None  # the same but for the trees' own paths
    if NUM.sub(b"#", a) != NUM.sub(b"#", b):
        return "text differs"
    na, nb = NUM.findall(a), NUM.findall(b)
    worst, diff, count = 0.0, 0.0, 0
    for x, y in zip(na, nb):
        if x == y:
            continue
        count += 1
        fx, fy = float(x), float(y)
        unit = max(last_digit(x), last_digit(y))
        worst = max(worst, abs(fx - fy) / unit)
        diff = max(diff, abs(fx - fy))
    return "numbers=%d max_last_digits=%.3g max_abs=%.3g" % (count, worst, diff), worst, diff


def main():
    old, new = sys.argv[1:3]
    bad = False
    summary = {"glb": [0, 0.0, 0.0], "text": [0, 0.0, 0.0]}
    same = 0
    for root, _, files in os.walk(old):
        for f in sorted(files):
            pa = os.path.join(root, f)
            rel = os.path.relpath(pa, old)
            pb = os.path.join(new, rel)
            if not os.path.exists(pb):
                print("missing: %s" % rel)
                bad = True
                continue
            if f == "commands.txt" or (f.endswith(".bin") and not f.endswith(".glb")):
                continue  # the binaries' paths; a .gltf's buffer, compared through its .gltf
            if open(pa, "rb").read() == open(pb, "rb").read():
                same += 1
                continue
            kind = "glb" if f.endswith((".glb", ".gltf", ".fbx")) else "text"
            try:
                r = glb_drift(pa, pb) if kind == "glb" else text_drift(pa, pb, old, new)
            except (UnicodeDecodeError, AttributeError):
                r = "binary differs"
            if r is None:
                same += 1
                continue
            print("%s: %s" % (rel, r if isinstance(r, str) else r[0]))
            if isinstance(r, str):
                bad = True
                continue
            s = summary[kind]
            s[0] += 1
            s[1] = max(s[1], r[1])
            s[2] = max(s[2], r[2])
    print("identical files: %d; glTF/FBX differing %d (max rot %.3g rad, max pos %.3g m); text "
          "differing %d (max %.3g last digits, max abs %.3g)" % (same, summary["glb"][0], summary["glb"][1],
                                                       summary["glb"][2], summary["text"][0],
                                                       summary["text"][1], summary["text"][2]))
    sys.exit(1 if bad else 0)


main()
