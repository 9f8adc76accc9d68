# The Linux half of the stand-in python.exe (tests/windows/dlls/python_standin.c): runs this
# machine's Python on the arguments the Windows program was given, with that environment's
# Lib/site-packages first on the module path, then makes EXIT_FILE holding the exit code, which the
# Windows half waits for (Wine can neither wait for a Linux program nor pass its exit code back).
#   python3 standin_python.py ARGS_JSON EXIT_FILE    (its output in EXIT_FILE.out and .err)
import json
import os
import subprocess
import sys

with open(sys.argv[1], encoding="utf-8") as f:
    spec = json.load(f)
site = spec["site"]
if len(site) > 2 and site[1] == ":":  # Z:\... -> /...: Wine's Z: drive is the Unix root
    site = site[2:].replace("\\", "/")
env = dict(os.environ, PYTHONPATH=site)
# Its output goes through files too: a Windows pipe handed to a Linux program does not reach the reader.
run = subprocess.run([sys.executable] + spec["args"], env=env, stdin=subprocess.DEVNULL, capture_output=True)
for suffix, data in ((".out", run.stdout), (".err", run.stderr)):
    with open(sys.argv[2] + suffix, "wb") as f:
        f.write(data)
code = run.returncode
with open(sys.argv[2] + ".part", "w") as f:
    f.write(str(code))
os.replace(sys.argv[2] + ".part", sys.argv[2])
