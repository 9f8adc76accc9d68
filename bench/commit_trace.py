#!/usr/bin/env python3
"""Summary of an `strace -f -T -ttt -y` trace of one envfix install (bench/commit_trace.sh): the
commit's window, from the first wait for a file's write-back (sync_file_range with WAIT_AFTER) to
the end of the last fsync of a `.envfix-durable-` file, its slowest calls and the time per call
kind; and the whole run's slowest calls. Times in ms."""
import collections
import re
import sys

LINE = re.compile(r"^(\d+)\s+(\d+\.\d+) (.*)$")
DONE = re.compile(r"^(\w+)\((.*)\)\s+=\s+(-?\w+)(.*?)<(\d+\.\d+)>$")
UNFINISHED = re.compile(r"^(\w+)\((.*) <unfinished \.\.\.>$")
RESUMED = re.compile(r"^<\.\.\. (\w+) resumed>(.*?)\)?\s+=\s+(-?\w+)(.*?)<(\d+\.\d+)>$")


def calls(path):
    """(pid, start s, name, args, result, duration s) for each finished call."""
    pending = {}
    for raw in open(path, errors="replace"):
        m = LINE.match(raw.rstrip("\n"))
        if not m:
            continue
        pid, ts, rest = int(m[1]), float(m[2]), m[3]
        if d := DONE.match(rest):
            yield pid, ts, d[1], d[2], d[3], float(d[5])
        elif u := UNFINISHED.match(rest):
            pending[pid] = (ts, u[1], u[2])
        elif r := RESUMED.match(rest):
            start, name, args = pending.pop(pid, (ts, r[1], ""))
            yield pid, start, name, args + r[2], r[3], float(r[5])


def main():
    all_calls = sorted(calls(sys.argv[1]), key=lambda c: c[1])
    if not all_calls:
        print("no calls parsed")
        return
    t0 = all_calls[0][1]
    waits = [c for c in all_calls if c[2] == "sync_file_range" and "WAIT_AFTER" in c[3]]
    durable = [c for c in all_calls if c[2] == "fsync" and ".envfix-durable-" in c[3]]
    short = lambda a: (a[:150] + "...") if len(a) > 150 else a
    if waits and durable:
        start = waits[0][1]
        end = max(c[1] + c[5] for c in durable)
        window = [c for c in all_calls if start - 0.0005 <= c[1] <= end]
        print(f"commit window: {(end - start) * 1e3:.1f} ms, from {(start - t0) * 1e3:.1f} ms into the run; "
              f"{len(waits)} write-back waits, {len(window)} calls")
        # The starts of the write-back (SYNC_FILE_RANGE_WRITE alone) just before the waits.
        per = collections.defaultdict(lambda: [0, 0.0, 0.0])
        for c in window:
            p = per[c[2]]
            p[0] += 1
            p[1] += c[5]
            p[2] = max(p[2], c[5])
        print("  by call: " + "; ".join(f"{k} x{v[0]} {v[1] * 1e3:.1f} (max {v[2] * 1e3:.1f})"
                                         for k, v in sorted(per.items(), key=lambda kv: -kv[1][1])[:8]))
        print("  its calls over 1 ms:")
        for c in window:
            if c[5] >= 0.001:
                print(f"    +{(c[1] - start) * 1e3:6.1f} [{c[0]}] {c[2]} {c[5] * 1e3:6.1f}  {short(c[3])}")
    # Waiting for another thread or process is not the disk's.
    idle = {"futex", "wait4", "poll", "ppoll", "epoll_wait", "select", "pselect6", "clock_nanosleep", "nanosleep", "read", "recvfrom"}
    print("the run's 12 slowest calls (but waits for threads, processes and sockets):")
    for c in sorted((c for c in all_calls if c[2] not in idle), key=lambda c: -c[5])[:12]:
        print(f"  {(c[1] - t0) * 1e3:7.1f} [{c[0]}] {c[2]} {c[5] * 1e3:6.1f}  {short(c[3])}")
    syncs = [c for c in all_calls if c[2] in ("fsync", "fdatasync", "syncfs", "sync_file_range") and c[5] >= 0.001]
    print(f"flushing calls over 1 ms in the whole run: {len(syncs)}")
    for c in syncs[:40]:
        print(f"  {(c[1] - t0) * 1e3:7.1f} [{c[0]}] {c[2]} {c[5] * 1e3:6.1f}  {short(c[3])}")


if __name__ == "__main__":
    main()
