#!/usr/bin/env python3
"""Runs one command and reports its peak memory: ru_maxrss from wait4, and RssAnon/RssFile sampled
every 3 ms from /proc/PID/status, with the anonymous memory at each of its -vv step lines (the
lines with "ms") as they came. Standard library only. docs/performance.md.

Usage: bench/rss_steps.py COMMAND [ARGS...]
"""
import os, subprocess, sys, threading, time


def sample(pid, t0, samples, done):
    """(seconds since t0, RssAnon MiB, RssFile MiB) every 3 ms until `done` is set."""
    while not done.is_set():
        try:
            with open(f"/proc/{pid}/status") as f:
                kib = {line.split(":")[0]: int(line.split()[1]) for line in f if line.startswith(("RssAnon", "RssFile"))}
            if kib:  # a zombie has none
                samples.append((time.monotonic() - t0, kib.get("RssAnon", 0) // 1024, kib.get("RssFile", 0) // 1024))
        except OSError:
            pass
        time.sleep(0.003)


def main():
    t0 = time.monotonic()
    p = subprocess.Popen(sys.argv[1:], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    samples, done = [], threading.Event()
    sampler = threading.Thread(target=sample, args=(p.pid, t0, samples, done))
    sampler.start()
    lines = [(time.monotonic() - t0, line.rstrip()) for line in p.stderr]
    _, _, ru = os.wait4(p.pid, 0)  # reaped here, not by Popen, for ru_maxrss
    done.set()
    sampler.join()
    peak = max(samples, key=lambda s: s[1] + s[2], default=(0, 0, 0))
    print(f"{time.monotonic() - t0:.2f} s wall, ru_maxrss {ru.ru_maxrss // 1024} MiB; "
          f"sampled peak anon {peak[1]} MiB file {peak[2]} MiB at {peak[0]:.2f}s")
    for t, line in lines:
        if "debug" not in line or "ms" not in line:
            continue
        seen = [s for s in samples if s[0] <= t]
        now = seen[-1][1] if seen else 0
        print(f"{t:6.2f}s anon now {now:4d} max-so-far {max((s[1] for s in seen), default=0):4d}  {line[:110]}")


if __name__ == "__main__":
    main()
