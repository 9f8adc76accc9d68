#!/usr/bin/env python3
"""Pauses in a perf recording of the whole machine (bench/pause_trace.sh): windows inside a tool's
run in which none of its threads recorded anything, and whether they went into them running (seen
on a CPU in the 2 ms before, no switch out: nothing ran them, yet nothing took them off a CPU
either, as when a virtual machine's CPUs are stopped by its host) or blocked (switched out in a
wait, which is the tool's own), with the other tasks' events in the window counted. docs/performance.md.
"Running" is only what perf kept: windows read as running can be
waits for an RCU grace period whose switch perf kept in one recording of four (see the perf log's
lost events).

  perf script -F comm,pid,tid,cpu,time,event,ip,sym,trace -i perf.data | python3 bench/pause_trace.py - [--tool envfix] [--min-ms 5]

Input: perf script's text (gzip-compressed files too), from `perf record -a -g -k CLOCK_MONOTONIC
-e cpu-clock -e sched:sched_switch`; the idle task's samples may be left out. With pid in the fields, every thread of a process
that has one named for the tool counts as the tool's; without it, only threads so named. Output: per window
its length, where it began (ms after the tool's first event), the threads running into it, the
other tasks' events in it, and the tool's events just before it and just after it.
"""
import argparse
import gzip
import re
import sys

HEAD = re.compile(r"\s*(\S.*?)\s+(?:(\d+)/)?(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+)")


def events(text):
    out = []
    for blk in text.split("\n\n"):
        m = HEAD.match(blk)
        if not m:
            continue
        comm, pid, tid, cpu, t, ev = m.groups()
        lines = blk.strip("\n").split("\n")
        frames = [ln.strip().split(" ", 1)[-1] for ln in lines[1:] if ln.strip()]
        out.append({"t": float(t), "cpu": int(cpu), "comm": comm, "tid": int(tid), "pid": int(pid or tid), "event": ev.rstrip(":"),
                    "head": lines[0], "frames": frames})
    out.sort(key=lambda e: e["t"])
    return out


def switched_out(e):
    return e["event"] == "sched:sched_switch" and f"prev_pid={e['tid']} " in e["head"]


def describe(e, t0):
    what = "switch out" if switched_out(e) else e["event"]
    frames = " < ".join(f[:40] for f in e["frames"][:4])
    return f"{(e['t'] - t0) * 1000:8.2f} ms  cpu{e['cpu']:<2d} {e['comm'][:14]:14s} {e['tid']:<6d} {what:18s} {frames}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("script", help="perf script output, '-' for stdin; .gz read as gzip")
    ap.add_argument("--tool", default="envfix", help="the tool's command name begins with this")
    ap.add_argument("--min-ms", type=float, default=5.0)
    a = ap.parse_args()
    if a.script == "-":
        text = sys.stdin.read()
    elif a.script.endswith(".gz"):
        text = gzip.open(a.script, "rt", errors="replace").read()
    else:
        text = open(a.script, errors="replace").read()
    ev = [e for e in events(text) if not e["comm"].startswith("swapper")]
    # The tool's processes: those with a thread of that name (uv's workers are named otherwise).
    pids = {e["pid"] for e in ev if e["comm"].startswith(a.tool)}
    mine = [e for e in ev if e["pid"] in pids]
    if not mine:
        print(f"{a.script}: no events of {a.tool}")
        return 1
    t0, t1 = mine[0]["t"], mine[-1]["t"]
    inside = [e for e in ev if t0 <= e["t"] <= t1]
    paused_running = paused_blocked = 0.0
    found = []
    for x, y in zip(mine, mine[1:]):
        gap = (y["t"] - x["t"]) * 1000
        if gap < a.min_ms:
            continue
        before = [e for e in mine if x["t"] - 0.002 <= e["t"] <= x["t"]]
        # A thread seen on a CPU in the last 2 ms before the window and not seen leaving it.
        last = {}
        for e in before:
            last[e["tid"]] = e
        running = sorted(tid for tid, e in last.items() if not switched_out(e) and not any(
            k in " ".join(e["frames"][:3]) for k in ("__schedule", "finish_task_switch", "do_exit")))
        others = [e for e in inside if x["t"] < e["t"] < y["t"]]
        if running:
            paused_running += gap
        else:
            paused_blocked += gap
        found.append((gap, x, y, running, others))
    span = (t1 - t0) * 1000
    print(f"{a.script}: {a.tool} from its first to its last event {span:.1f} ms; windows of {a.min_ms:g} ms or more "
          f"without any event of it: {len(found)}, {paused_running:.1f} ms of them entered running, {paused_blocked:.1f} ms blocked")
    for gap, x, y, running, others in found:
        print(f"  {gap:.1f} ms from {(x['t'] - t0) * 1000:.1f} ms; entered running: {', '.join(map(str, running)) or 'none'}; "
              f"events of other tasks meanwhile: {len(others)} ({', '.join(sorted(set(e['comm'] for e in others))) or '-'})")
        for e in [e for e in mine if e["t"] <= x["t"]][-5:]:
            print("    before " + describe(e, t0))
        for e in [e for e in mine if e["t"] >= y["t"]][:2]:
            print("    after  " + describe(e, t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
