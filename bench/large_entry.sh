#!/usr/bin/env bash
# Speed of one large wheel entry inflated whole (libdeflate) or streamed (zlib), in memory and
# through the stager (docs/performance.md, "Peak memory of a cold install").
#   bench/large_entry.sh [build dir] [library]   (default: build, /usr/local/cuda/lib64/libcublasLt.so.13)
#   INFLATE_BENCH=path/to/inflate_bench: a binary built elsewhere (the GPU machine has no compiler)
# Without that library, 500 MiB of the system's shared libraries stand in for it.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
lib=${2:-/usr/local/cuda/lib64/libcublasLt.so.13}
work=${WORK:-/tmp/envfix-large-entry}
mkdir -p "$work"
bench_bin=${INFLATE_BENCH:-}
if [[ -z $bench_bin ]]; then ninja -C "$build" inflate_bench >/dev/null; bench_bin=$build/tests/lowmem/inflate_bench; fi
if [[ ! -f $work/big-1.0-py3-none-any.whl ]]; then
  python3 - "$lib" "$work/big-1.0-py3-none-any.whl" <<'PY'
import base64, glob, hashlib, os, sys, zipfile
lib, out = sys.argv[1], sys.argv[2]
if os.path.exists(lib):
    data = open(lib, "rb").read()
else:  # a stand-in of the same kind: machine code and data of real libraries
    parts, size = [], 0
    for p in sorted(glob.glob("/usr/lib/x86_64-linux-gnu/*.so*")):
        if size >= 500 << 20: break
        if os.path.isfile(p) and not os.path.islink(p):
            parts.append(open(p, "rb").read()); size += len(parts[-1])
    data = b"".join(parts)[:500 << 20]
def row(name, b):
    return f"{name},sha256={base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b'=').decode()},{len(b)}\n"
files = {"big/libbig.so": data, "big-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: big\nVersion: 1.0\n",
         "big-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: false\nTag: py3-none-any\n"}
record = "".join(row(n, b) for n, b in files.items()) + "big-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile(out + ".tmp", "w", zipfile.ZIP_DEFLATED) as z:  # level 6, as `wheel` and pip's builds
    for n, b in files.items(): z.writestr(n, b)
    z.writestr("big-1.0.dist-info/RECORD", record)
os.replace(out + ".tmp", out)
PY
fi
"$bench_bin" "$work/big-1.0-py3-none-any.whl" "$work"
