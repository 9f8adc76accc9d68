#!/usr/bin/env python3
"""Builds a flat PEP 503 index (one index for every project, as PyPI, a mirror or repack-index.py
lays it out) for the plan tests. Standard library only; wheels come from ../tools/mkwheel.py.

Usage: mkpypi.py OUT SPEC.json      (prints OUT/simple)

SPEC keys:
  wheels       mkwheel.py specs to build
  copy         wheel files to serve as they are
  strip_local  wheel files to serve as PyPI's copy of them: "torch-2.11.0+cu130-..." becomes
               "torch-2.11.0-..." (file name, .dist-info folder, METADATA Version, RECORD)
  metadata     true: PEP 658 files (<wheel>.metadata) and data-core-metadata attributes
               (default false, as repack-index.py and python -m http.server have none)

Layout: OUT/simple/index.html, OUT/simple/<project>/index.html with links
"../../files/<file>#sha256=<hex>" and data-requires-python, OUT/files/<file>.
"""
import base64, csv, hashlib, html, io, json, os, re, shutil, sys, urllib.parse, zipfile
import importlib.util

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("mkwheel", os.path.join(HERE, "..", "tools", "mkwheel.py"))
mkwheel = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mkwheel)


def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def build(spec, folder):
    path = os.path.join(folder, ".spec.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(spec, f)
    out = io.StringIO()
    saved, sys.argv = sys.argv, ["mkwheel.py", path, folder]
    saved_out, sys.stdout = sys.stdout, out
    try:
        mkwheel.main()
    finally:
        sys.argv, sys.stdout = saved, saved_out
        os.remove(path)
    return out.getvalue().strip()


def strip_local(src, folder):
    """The wheel as PyPI carries it: the same files, the version without its local label."""
    name = os.path.basename(src)
    dist, version, rest = name.split("-", 2)
    public = version.split("+")[0]
    old_info, new_info = f"{dist}-{version}.dist-info/", f"{dist}-{public}.dist-info/"
    dest = os.path.join(folder, f"{dist}-{public}-{rest}")
    rows = []
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            arc = info.filename.replace(old_info, new_info)
            if arc == new_info + "RECORD":
                continue
            data = zin.read(info.filename)
            if arc == new_info + "METADATA":
                data = re.sub(rb"(?m)^Version: .*$", b"Version: " + public.encode(), data)
            zout.writestr(zipfile.ZipInfo(arc, date_time=(2020, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            rows.append((arc, f"sha256={digest}", str(len(data))))
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(rows + [(new_info + "RECORD", "", "")])
        zout.writestr(zipfile.ZipInfo(new_info + "RECORD", date_time=(2020, 1, 1, 0, 0, 0)), buf.getvalue())
    return dest


def main():
    out, spec_path = sys.argv[1], sys.argv[2]
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    files = os.path.join(out, "files")
    os.makedirs(files, exist_ok=True)
    paths = [build(s, files) for s in spec.get("wheels", [])]
    for p in spec.get("copy", []):
        paths.append(shutil.copy(p, files))
    paths += [strip_local(p, files) for p in spec.get("strip_local", [])]
    projects = {}
    for p in paths:
        with zipfile.ZipFile(p) as z:
            meta_name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA") and n.count("/") == 1)
            meta = z.read(meta_name)
        text = meta.decode("utf-8", "replace")
        name = re.search(r"(?m)^Name: (.*)$", text).group(1).strip()
        rp = re.search(r"(?m)^Requires-Python: (.*)$", text)
        data = open(p, "rb").read()
        rec = {"file": os.path.basename(p), "sha256": hashlib.sha256(data).hexdigest(),
               "requires_python": rp.group(1).strip() if rp else None, "metadata": None}
        if spec.get("metadata"):
            with open(p + ".metadata", "wb") as f:
                f.write(meta)
            rec["metadata"] = hashlib.sha256(meta).hexdigest()
        projects.setdefault(norm(name), []).append(rec)
    simple = os.path.join(out, "simple")
    os.makedirs(simple, exist_ok=True)
    for project, recs in projects.items():
        lines = ["<!DOCTYPE html><html><body>"]
        for r in sorted(recs, key=lambda r: r["file"]):
            attrs = f'href="../../files/{urllib.parse.quote(r["file"])}#sha256={r["sha256"]}"'
            if r["requires_python"]:
                attrs += f' data-requires-python="{html.escape(r["requires_python"])}"'
            if r["metadata"]:
                attrs += f' data-core-metadata="sha256={r["metadata"]}"'
            lines.append(f"<a {attrs}>{html.escape(r['file'])}</a><br/>")
        lines.append("</body></html>")
        os.makedirs(os.path.join(simple, project), exist_ok=True)
        with open(os.path.join(simple, project, "index.html"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    with open(os.path.join(simple, "index.html"), "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html><html><body>\n" + "\n".join(f'<a href="{p}/">{p}</a><br/>' for p in sorted(projects)) +
                "\n</body></html>\n")
    print(simple)


if __name__ == "__main__":
    main()
