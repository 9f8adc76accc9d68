#!/usr/bin/env python3
"""Runs one command and reports its peak memory: ru_maxrss from wait4, and RssAnon/RssFile sampled
every 3 ms from /proc/PID/status, with the anonymous memory at each of its -vv step lines (the
lines with "ms") as they came. Standard library only. docs/performance.md ("The sixth session").

Usage: bench/rss_steps.py COMMAND [ARGS...]
"""
import subprocess, sys, time, threading, os
argv = sys.argv[1:]
t0 = time.monotonic()
p = subprocess.Popen(argv, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
samples = []
done = False
def sample():
    while not done:
        try:
            with open(f"/proc/{p.pid}/status") as f:
                d = {l.split(':')[0]: l.split()[1] for l in f if l.startswith(('VmRSS', 'RssAnon', 'RssFile'))}
            if d: samples.append((time.monotonic() - t0, int(d.get('RssAnon', 0)) // 1024, int(d.get('RssFile', 0)) // 1024))
        except Exception:
            pass
        time.sleep(0.003)
th = threading.Thread(target=sample); th.start()
lines = []
for l in p.stderr:
    lines.append((time.monotonic() - t0, l.rstrip()))
_, status, ru = os.wait4(p.pid, 0)
done = True; th.join()
peak = max(samples, key=lambda s: s[1] + s[2]) if samples else (0, 0, 0)
print(f"{time.monotonic()-t0:.2f} s wall, ru_maxrss {ru.ru_maxrss // 1024} MiB; sampled peak anon {peak[1]} MiB file {peak[2]} MiB at {peak[0]:.2f}s")
for t, l in lines:
    if 'debug' in l and ('ms' in l):
        cur = [s for s in samples if s[0] <= t]
        m = max((s[1] for s in cur), default=0)
        last = cur[-1] if cur else (0, 0, 0)
        print(f"{t:6.2f}s anon now {last[1]:4d} max-so-far {m:4d}  {l[:110]}")
