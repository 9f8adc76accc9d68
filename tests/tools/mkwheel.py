#!/usr/bin/env python3
"""Builds a wheel from declared metadata, for tests. Standard library only.

Usage: mkwheel.py SPEC.json OUT_DIR   (prints the wheel's path)

SPEC keys (all but name and version optional):
  name, version            distribution name and version ("2.7.0+cu128")
  tags                     list of "py-abi-plat" tags (default ["py3-none-any"])
  build                    build tag ("1")
  root_is_purelib          bool (default: true when every tag is "-none-any")
  requires_dist            list of PEP 508 strings
  requires_python          specifier string
  provides_extra           list of extras
  metadata                 extra METADATA headers {"Summary": "..."}; a list value repeats the header
  description              METADATA body
  files                    {"pkg/mod.py": CONTENT}; CONTENT is a string, or
                           {"copy": "path"} (relative paths from the repository root),
                           {"size": N, "seed": S} (N pseudo-random bytes), {"compressible": N,
                           "seed": S} (N code-like bytes that deflate about 3:1), or {"base64": "..."};
                           any CONTENT object may add "mode": 493 (0o755)
  data                     {"scripts/tool": CONTENT, "headers/x.h": ..., "data/share/x": ...}
                           placed under {name}-{version}.data/
  entry_points             {"console_scripts": {"cmd": "mod:func"}, "gui_scripts": {...}}
  compression              "deflate" (default) or "stored"
  wheel_version            "1.0" (WHEEL's Wheel-Version)
  filename                 override the wheel file name
"""
import base64, csv, hashlib, io, json, os, random, re, sys, zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EPOCH = (2020, 1, 1, 0, 0, 0)


def compressible(n, seed):
    # Like a large library's bytes: words of a small vocabulary between random numbers, so that
    # deflate makes dynamic blocks of matches and literals (about 3:1), not stored ones.
    rng = random.Random(seed)
    words = [bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz_") for _ in range(rng.randint(3, 12))) for _ in range(512)]
    out = bytearray()
    while len(out) < n:
        out += b" ".join(rng.choices(words, k=64)) + b" %08x\n" % rng.getrandbits(32) + rng.randbytes(24)
    return bytes(out[:n])


def content_of(value):
    if isinstance(value, str):
        return value.encode(), None
    mode = value.get("mode")
    if "copy" in value:
        path = value["copy"]
        if not os.path.isabs(path):
            path = os.path.join(ROOT, path)
        with open(path, "rb") as f:
            return f.read(), mode
    if "size" in value:
        rng = random.Random(value.get("seed", 0))
        return rng.randbytes(value["size"]), mode
    if "compressible" in value:
        return compressible(value["compressible"], value.get("seed", 0)), mode
    if "base64" in value:
        return base64.b64decode(value["base64"]), mode
    if "text" in value:
        return value["text"].encode(), mode
    raise SystemExit(f"mkwheel: unknown file content {value!r}")


def main():
    spec_path, out_dir = sys.argv[1], sys.argv[2]
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    name, version = spec["name"], spec["version"]
    tags = spec.get("tags", ["py3-none-any"])
    escaped = re.sub(r"[-_.]+", "_", name)
    dist_info = f"{escaped}-{version}.dist-info"
    data_dir = f"{escaped}-{version}.data"
    pys = ".".join(dict.fromkeys(t.split("-")[0] for t in tags))
    abis = ".".join(dict.fromkeys(t.split("-")[1] for t in tags))
    plats = ".".join(dict.fromkeys(t.split("-")[2] for t in tags))
    build = f"-{spec['build']}" if spec.get("build") else ""
    filename = spec.get("filename") or f"{escaped}-{version}{build}-{pys}-{abis}-{plats}.whl"
    purelib = spec.get("root_is_purelib", all(t.endswith("-none-any") for t in tags))

    entries = []  # (arcname, bytes, mode)
    for path, value in spec.get("files", {}).items():
        data, mode = content_of(value)
        entries.append((path, data, mode))
    for path, value in spec.get("data", {}).items():
        data, mode = content_of(value)
        entries.append((f"{data_dir}/{path}", data, mode))

    meta = [("Metadata-Version", "2.1"), ("Name", name), ("Version", version)]
    if spec.get("requires_python"):
        meta.append(("Requires-Python", spec["requires_python"]))
    for extra in spec.get("provides_extra", []):
        meta.append(("Provides-Extra", extra))
    for req in spec.get("requires_dist", []):
        meta.append(("Requires-Dist", req))
    for key, value in spec.get("metadata", {}).items():
        for v in value if isinstance(value, list) else [value]:
            meta.append((key, v))
    metadata = "".join(f"{k}: {v}\n" for k, v in meta)
    if spec.get("description"):
        metadata += "\n" + spec["description"]
    entries.append((f"{dist_info}/METADATA", metadata.encode(), None))
    wheel = (f"Wheel-Version: {spec.get('wheel_version', '1.0')}\nGenerator: envfix-tests mkwheel\n"
             f"Root-Is-Purelib: {'true' if purelib else 'false'}\n")
    wheel += "".join(f"Tag: {t}\n" for t in tags)
    if spec.get("build"):
        wheel += f"Build: {spec['build']}\n"
    entries.append((f"{dist_info}/WHEEL", wheel.encode(), None))
    eps = spec.get("entry_points")
    if eps:
        text = ""
        for group, items in eps.items():
            text += f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in items.items()) + "\n"
        entries.append((f"{dist_info}/entry_points.txt", text.encode(), None))

    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for arcname, data, _ in entries:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        writer.writerow([arcname, f"sha256={digest}", len(data)])
    writer.writerow([f"{dist_info}/RECORD", "", ""])
    entries.append((f"{dist_info}/RECORD", record.getvalue().encode(), None))

    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, filename)
    method = zipfile.ZIP_STORED if spec.get("compression") == "stored" else zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(out, "w", method) as z:
        for arcname, data, mode in entries:
            info = zipfile.ZipInfo(arcname, date_time=EPOCH)
            info.compress_type = method
            info.external_attr = ((mode if mode is not None else 0o644) | 0o100000) << 16
            z.writestr(info, data)
    print(out)


if __name__ == "__main__":
    main()
