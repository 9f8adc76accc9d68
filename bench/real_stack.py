#!/usr/bin/env python3
"""The real framework stack of a machine as an index folder for bench/compare.py, in two variants.
Standard library only (repack-index.py needs `packaging` or pip's copy, which the torch venv has).

Usage: bench/real_stack.py OUT [--python /opt/torch/.venv/bin/python3]
                           [--repack ../shared/tools/repack-index.py] [--packages torch torchvision torchaudio]

1. repack-index.py packs the installed distributions back into wheels (OUT/files, OUT/simple).
2. One release cannot be installed as two CUDA variants from one machine, so the second variant is
   made from the first: torch, torchvision and torchaudio are rewritten as two local versions,
   "+cu130" (the installed bytes) and "+cu130.switch", in which every compiled file (over 64 KiB and
   not Python source) gets 16 bytes appended — the ELF loader ignores them — so a switch replaces
   the framework's code as a real cu126 → cu128 switch does, while the nvidia-* and other
   dependencies stay the same wheels (in a real switch they change too; the synthetic stack of
   bench/synth_stack.py models that). Entries that do not change are copied compressed as they
   are; changed ones are deflated again (level 1, as repack-index.py), in parallel.
3. OUT/stack.json names both variants for compare.py.
"""
import argparse, base64, csv, hashlib, io, os, re, struct, subprocess, sys, tempfile, zipfile, zlib
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from synth_stack import norm, write_simple  # noqa: E402

MAIN = ("torch", "torchvision", "torchaudio")
TAIL = b"envfix-switch\0\0\0"


def compiled(name, size):
    return (size > 64 * 1024 and ".dist-info/" not in name
            and not name.endswith((".py", ".pyi", ".h", ".hpp", ".txt", ".json")))


def deflate(data):
    c = zlib.compressobj(1, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def changed_entry(job):
    """Inflates one entry, appends TAIL, deflates it into a temporary file (the parent copies it)."""
    wheel, name, tmpdir = job
    with zipfile.ZipFile(wheel) as z:
        data = z.read(name) + TAIL
    comp = deflate(data)
    fd, path = tempfile.mkstemp(dir=tmpdir)
    with os.fdopen(fd, "wb") as f:
        f.write(comp)
    digest = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return name, path, zlib.crc32(data), len(data), digest


def raw_entries(path):
    """(ZipInfo, offset of the compressed data) of each entry."""
    with zipfile.ZipFile(path) as z, open(path, "rb") as f:
        for i in z.infolist():
            f.seek(i.header_offset)
            h = f.read(30)
            n, m = struct.unpack("<HH", h[26:30])
            yield i, i.header_offset + 30 + n + m


class RawZipWriter:
    """Writes entries whose compressed bytes are given: unchanged entries are copied, not re-deflated.
    No ZIP64: every wheel of the stack is under 4 GiB."""

    def __init__(self, path):
        self.f = open(path, "wb")
        self.central = []

    def add(self, name, method, crc, size, comp_size, mode, write_data):
        off = self.f.tell()
        nb = name.encode()
        dos = (0 << 11) | (0 << 5), ((2020 - 1980) << 9) | (1 << 5) | 1
        self.f.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0x800, method, dos[0], dos[1], crc, comp_size, size, len(nb), 0) + nb)
        write_data(self.f)
        self.central.append(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x031E, 20, 0x800, method, dos[0], dos[1], crc, comp_size,
                                        size, len(nb), 0, 0, 0, 0, (mode | 0o100000) << 16, off) + nb)

    def add_bytes(self, name, data, mode=0o644):
        comp = deflate(data)
        self.add(name, 8, zlib.crc32(data), len(data), len(comp), mode, lambda f: f.write(comp))

    def close(self):
        start = self.f.tell()
        for c in self.central:
            self.f.write(c)
        end = self.f.tell()
        self.f.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(self.central), len(self.central), end - start, start, 0))
        self.f.close()


def copy_range(src, offset, length):
    def write(f):
        with open(src, "rb") as s:
            s.seek(offset)
            left = length
            while left:
                chunk = s.read(min(left, 8 << 20))
                f.write(chunk)
                left -= len(chunk)
    return write


def relabel(wheel, label, changed, out_dir):
    """wheel rewritten with local version `label`; `changed` maps entry name → (tmp path, crc, size, digest)."""
    base = os.path.basename(wheel).removesuffix(".orig")
    name, version, rest = base.split("-", 2)
    public = version.split("+")[0]
    new_version = f"{public}+{label}"
    old_di, new_di = None, f"{name}-{new_version}.dist-info"
    entries = list(raw_entries(wheel))
    for i, _ in entries:
        if i.filename.endswith(".dist-info/METADATA"):
            old_di = i.filename.split("/")[0]
    rename = lambda n: new_di + n[len(old_di):] if n.startswith(old_di + "/") else n
    out = os.path.join(out_dir, f"{name}-{new_version}-{rest}")
    w = RawZipWriter(out + ".part")
    rows = []
    with zipfile.ZipFile(wheel) as z:
        for i, data_off in entries:
            n = i.filename
            mode = (i.external_attr >> 16) & 0o7777 or 0o644
            if n.endswith(".dist-info/RECORD"):
                continue
            if n.endswith(".dist-info/METADATA"):
                text = z.read(n).decode()
                text = re.sub(r"(?m)^Version: .*$", f"Version: {new_version}", text, count=1)
                data = text.encode()
                w.add_bytes(rename(n), data, mode)
                rows.append((rename(n), "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode(), str(len(data))))
                continue
            if n in changed:
                tmp, crc, size, digest = changed[n]
                w.add(n, 8, crc, size, os.path.getsize(tmp), mode, copy_range(tmp, 0, os.path.getsize(tmp)))
                os.unlink(tmp)
                rows.append((n, digest, str(size)))
                continue
            w.add(rename(n), i.compress_type, i.CRC, i.file_size, i.compress_size, mode, copy_range(wheel, data_off, i.compress_size))
            rows.append((rename(n), None, str(i.file_size)))
        record_rows = []
        old_record = {r[0]: r[1] for r in csv.reader(io.StringIO(z.read(f"{old_di}/RECORD").decode())) if r}
        for n, digest, size in rows:
            record_rows.append((n, digest or old_record[n if not n.startswith(new_di) else old_di + n[len(new_di):]], size))
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(record_rows + [(f"{new_di}/RECORD", "", "")])
    w.add_bytes(f"{new_di}/RECORD", buf.getvalue().encode())
    w.close()
    os.replace(out + ".part", out)
    return os.path.basename(out), new_version


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--python", default="/opt/torch/.venv/bin/python3")
    ap.add_argument("--repack", default=os.path.join(HERE, "..", "..", "shared", "tools", "repack-index.py"))
    ap.add_argument("--packages", nargs="+", default=list(MAIN))
    ap.add_argument("--label", default="cu130")
    a = ap.parse_args()
    files = os.path.join(a.out, "files")
    if not os.path.isdir(files):
        subprocess.run([a.python, a.repack, a.out] + a.packages, check=True)
    originals = {}
    for f in sorted(os.listdir(files)):
        d = norm(f.split("-")[0])
        if d in MAIN and f.endswith(".whl"):
            # Set aside: a relabelled wheel may take the original's name (an installed +cu130).
            os.replace(os.path.join(files, f), os.path.join(files, f + ".orig"))
            originals[d] = os.path.join(files, f + ".orig")
    tmpdir = os.path.join(a.out, "tmp")
    os.makedirs(tmpdir, exist_ok=True)
    jobs = []
    for wheel in originals.values():
        with zipfile.ZipFile(wheel) as z:
            jobs += [(wheel, i.filename, tmpdir) for i in z.infolist() if compiled(i.filename, i.file_size)]
    jobs.sort(key=lambda j: -zipfile.ZipFile(j[0]).getinfo(j[1]).file_size)
    changed = {}
    with ProcessPoolExecutor() as ex:
        for name, path, crc, size, digest in ex.map(changed_entry, jobs):
            changed[name] = (path, crc, size, digest)
    variants = {a.label: {"requirements": [], "wheels": []}, f"{a.label}.switch": {"requirements": [], "wheels": []}}
    for d, wheel in originals.items():
        mine = {n: v for n, v in changed.items() if any(j[0] == wheel and j[1] == n for j in jobs)}
        for label, ch in ((a.label, {}), (f"{a.label}.switch", mine)):
            fname, version = relabel(wheel, label, ch, files)
            variants[label]["wheels"].append("files/" + fname)
            variants[label]["requirements"].append(f"{d}=={version}")
        os.unlink(wheel)
    others = ["files/" + f for f in sorted(os.listdir(files)) if f.endswith(".whl") and norm(f.split("-")[0]) not in MAIN]
    for v in variants.values():
        v["wheels"] += others
    for d in MAIN:
        for old in [os.path.join(a.out, "simple", d)]:
            for f in os.listdir(old) if os.path.isdir(old) else []:
                os.unlink(os.path.join(old, f))
    write_simple(a.out)
    os.rmdir(tmpdir)
    count = sum(len(zipfile.ZipFile(os.path.join(a.out, w)).infolist()) for w in variants[a.label]["wheels"])
    size = sum(i.file_size for w in variants[a.label]["wheels"] for i in zipfile.ZipFile(os.path.join(a.out, w)).infolist())
    stack = {"version": 1, "what": f"the real {' + '.join(a.packages)} stack of {a.python}, repacked; the switch variant relabelled "
                                   "with changed compiled files", "order": list(variants), "variants": variants, "files": count, "bytes": size}
    with open(os.path.join(a.out, "stack.json"), "w") as f:
        import json
        json.dump(stack, f, indent=1)
    print(f"{len(variants[a.label]['wheels'])} wheels per variant, {count} files, {size / 1e9:.2f} GB installed; "
          f"{len(changed)} compiled files changed in the switch variant")


if __name__ == "__main__":
    main()
