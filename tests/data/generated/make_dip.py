"""Writes cmu_dip.bvh: the kneel of cmu_floor.bvh (its first 4.8 s at 60 fps) with the left arm
swung down while the body kneels, so that the hand goes through the floor, as a source's own body
sometimes does (a game clip's fall, a hand pushed through the ground). The feet keep the original's
contacts. Standard library only; deterministic.

    python3 tests/data/generated/make_dip.py [--dip DEGREES] [--lean DEGREES] [--out FILE]
"""
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def smoothstep(a, b, x):
    u = min(1.0, max(0.0, (x - a) / (b - a)))
    return u * u * (3 - 2 * u)


def main(argv):
    dip, lean = 55.0, -75.0
    out = os.path.join(HERE, "cmu_dip.bvh")
    i = 0
    while i < len(argv):
        if argv[i] == "--dip":
            dip = float(argv[i + 1])
        elif argv[i] == "--lean":
            lean = float(argv[i + 1])
        elif argv[i] == "--out":
            out = argv[i + 1]
        i += 2
    with open(os.path.join(HERE, "cmu_floor.bvh")) as fh:
        lines = fh.read().split("\n")
    motion = lines.index("MOTION")
    head = lines[:motion + 1]
    # The Zrotation channels of the lower back (the body leans to its left) and the left arm
    # (swung down): channels are counted in the hierarchy's order.
    col, target = 0, {}
    current = None
    for line in head:
        words = line.split()
        if words and words[0] in ("ROOT", "JOINT"):
            current = words[1]
        if words and words[0] == "CHANNELS":
            if current in ("LowerBack", "LeftArm"):
                target[current] = col + words[2:].index("Zrotation")
            col += int(words[1])
    frames = [l for l in lines[motion + 3:] if l.strip()]
    fps_in, fps_out = 120, 60
    keep = frames[:int(4.8 * fps_in):fps_in // fps_out]
    rows = []
    for f, row in enumerate(keep):
        t = f / fps_out
        values = row.split()
        # Swung down by `dip` degrees about the shoulder while kneeling (2.0-3.8 s, eased).
        w = smoothstep(1.8, 2.4, t) * (1 - smoothstep(3.2, 3.8, t))
        for joint, share in (("LowerBack", lean), ("LeftArm", dip)):
            values[target[joint]] = "%.5f" % (float(values[target[joint]]) + share * w)
        rows.append(" ".join(values))
    text = "\n".join(head + ["Frames: %d" % len(rows), "Frame Time: %.7f" % (1.0 / fps_out)] + rows) + "\n"
    with open(out, "w") as fh:
        fh.write(text)
    print("wrote %s: %d frames" % (out, len(rows)))


if __name__ == "__main__":
    main(sys.argv[1:])
