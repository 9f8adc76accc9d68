#!/usr/bin/env python3
"""The two large libraries' streams in a switch, per build: medians over the runs of a -vv log
that bench/switch_ab_h200.sh appended to VV_LOG ("== BUILD REP WALL" before each run's lines).

For each build and library: the stream's window (first compressed byte read to hashed and
written), when it ended, and the -vv line "its output's thread" (inflating or waiting for its
workers; handing on, of it waiting for room in the ring; the hash and write threads' busy time);
then when torch's wheel was checked and when the install ended. docs/performance.md.

Usage: bench/stream_times.py VV_LOG
"""
import re
import statistics
import sys

FIELDS = ["window", "end", "inflating", "handing", "room", "hashing", "writing"]


def main(path):
    runs = {}
    build, current = None, None
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"== (\S+) (\d+) ([\d.]+)", line)
        if m:
            build = m.group(1)
            continue
        m = re.search(r"torch/lib/(libtorch_cpu|libtorch_cuda)\.so \(.*read from (\d+) to (\d+) ms.*written by (\d+) ms", line)
        if m:
            current = (build, m.group(1))
            runs.setdefault(current, []).append({"window": int(m.group(4)) - int(m.group(2)), "end": int(m.group(4))})
            continue
        m = re.search(r"its output's thread: (\d+) ms inflating.* (\d+) ms handing it on \((\d+) ms waiting for room\); "
                      r"behind it (\d+) ms hashing, (\d+) ms writing", line)
        if m and current:
            runs[current][-1].update(zip(FIELDS[2:], map(int, m.groups())))
            current = None
            continue
        m = re.search(r"torch-2\S*: checked at (\d+) ms", line)
        if m:
            runs.setdefault((build, "torch checked"), []).append({"end": int(m.group(1))})
        m = re.search(r"installed (\d+) ms after the command began", line)
        if m:
            runs.setdefault((build, "installed"), []).append({"end": int(m.group(1))})
    for (b, what), values in sorted(runs.items()):
        cols = [f"{f} {statistics.median([v[f] for v in values if f in v]):.0f}" for f in FIELDS if any(f in v for v in values)]
        print(f"{b:14} {what:14} n={len(values)}  " + ", ".join(cols) + " ms")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    main(sys.argv[1])
