"""One run of a command timed as a whole process from outside, for the benchmark scripts that
compare whole commands (e2e.sh, plot_cost.sh): wall clock around start and reap, and the child's
own accounting from wait4 (user + system CPU, peak resident set)."""
import os
import subprocess
import sys
import time


def timed(argv):
    """Runs argv with its output discarded; returns (wall_s, cpu_s, peak_rss_mb). Exits the
    script when the command fails."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("%s failed" % " ".join(argv))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0
