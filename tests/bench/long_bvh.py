#!/usr/bin/env python3
"""Writes a long CMU-style BVH from a shorter clip: its frames looped to a frame count, values
printed as CMU's own files print them (four decimals), for the end-to-end benchmark (e2e.sh).

    python3 tests/bench/long_bvh.py SOURCE.bvh FRAMES > OUT.bvh

The default clip of e2e.sh is tests/data/generated/cmu_floor.bvh (the CMU skeleton, 31 joints, 96
channels, 120 fps), which ends in the pose it starts in: looped to 2752 frames (the frame count of
CMU's 01_01.bvh) it is 1.97 MB, as long and as large as that file. Each repeat skips the source's
first frame (the same pose as its last) and carries the root's horizontal travel on (the first
three channels of the root, X and Z being horizontal in a Y-up file), so the motion never jumps.
"""
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: long_bvh.py SOURCE.bvh FRAMES > OUT.bvh')
    text = open(sys.argv[1]).read()
    frames_wanted = int(sys.argv[2])
    head, motion = text.split('MOTION', 1)
    lines = motion.strip('\n').split('\n')
    frame_time = lines[1].strip()
    rows = [[float(v) for v in line.split()] for line in lines[2:] if line.strip()]
    travel = [rows[-1][0] - rows[0][0], 0.0, rows[-1][2] - rows[0][2]]
    out = []
    offset = [0.0, 0.0, 0.0]
    i = 0
    while len(out) < frames_wanted:
        row = list(rows[i])
        for k in (0, 2):
            row[k] += offset[k]
        out.append(row)
        i += 1
        if i == len(rows):
            i = 1
            offset = [offset[k] + travel[k] for k in range(3)]
    w = sys.stdout.write
    w(head.rstrip('\n') + '\nMOTION\nFrames: %d\n%s\n' % (len(out), frame_time))
    for row in out:
        w(' '.join('%.4f' % v for v in row) + '\n')


if __name__ == '__main__':
    main()
