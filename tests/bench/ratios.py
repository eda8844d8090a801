#!/usr/bin/env python3
"""Median over runs of every `lib name key=value` line (the summarize.py rule), then rigkit/peer
ratios for the requested pairs of measurements.
Usage: ratios.py FILES... [--pair RIGKIT_NAME:PEER_NAME[:FIELD]]...
FIELD defaults to ns_per_call; `ratio < 1` means rigkit is faster (for times), `speedup` = 1/ratio."""
import sys, statistics, collections

def load(paths):
    rows = collections.OrderedDict()
    for path in paths:
        for line in open(path):
            if line.startswith('#') or '=' not in line:
                continue
            w = line.split()
            key = (w[0], w[1], ' '.join(x for x in w[2:] if x.startswith('seed=')))
            d = rows.setdefault(key, collections.OrderedDict())
            for x in w[2:]:
                if '=' in x:
                    k, v = x.split('=', 1)
                    try:
                        fv = float(v)
                    except ValueError:
                        continue
                    d.setdefault(k, []).append(fv)
    return rows

def main(argv):
    files, pairs = [], []
    it = iter(argv)
    for a in it:
        if a == '--pair':
            pairs.append(next(it))
        else:
            files.append(a)
    rows = load(files)
    for (lib, name, seed), d in rows.items():
        parts = [f"{k}={statistics.median(v):.4g}" for k, v in d.items()
                 if k not in ('reps', 'iters_per_rep', 'joints', 'n')]
        runs = max(len(v) for v in d.values())
        print(lib, name, seed, ' '.join(parts), f"runs={runs}".replace('  ', ' '))
    for p in pairs:
        f = p.split(':')
        mine, peer = f[0], f[1]
        field = f[2] if len(f) > 2 else 'ns_per_call'
        seed = f[3] if len(f) > 3 else ''
        a = rows.get(('rigkit', mine, seed), {}).get(field)
        peers = [(k, v) for k, v in rows.items() if k[0] != 'rigkit' and k[1] == peer and k[2] == seed]
        if not a or not peers or field not in peers[0][1]:
            print(f"ratio rigkit:{mine} / {peer}: missing data")
            continue
        b = peers[0][1][field]
        ra, rb = statistics.median(a), statistics.median(b)
        # Per-run ratios (interleaved runs) show the spread; the median ratio is the headline.
        per = sorted(x / y for x, y in zip(a, b)) if len(a) == len(b) else []
        spread = f" per_run_min={per[0]:.3g} per_run_max={per[-1]:.3g}" if per else ""
        print(f"ratio rigkit:{mine} / {peers[0][0][0]}:{peer} {field}: {ra:.4g} / {rb:.4g} = "
              f"{ra / rb:.4g} (speedup {rb / ra:.3g}x){spread}")

if __name__ == '__main__':
    main(sys.argv[1:])
