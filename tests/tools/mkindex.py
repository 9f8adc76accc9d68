#!/usr/bin/env python3
"""Builds a test package index laid out like the PyTorch index (download.pytorch.org/whl).

Standard library only; wheels come from mkwheel.py (same folder). Files inside the wheels are
tiny, but names, versions (local tags "+cu128"), tags, Requires-Dist lines with their markers
and Requires-Python are those of real releases (torch 2.7.0 cu126/cu128 pins, 2.11.0+cu130's
from its metadata; later releases reuse the pins of their CUDA variant).

Usage: mkindex.py OUT [options]     (prints OUT/manifest.json's path)

Layout, per variant ("cpu", "cu128", "nightly/cu130" ...):
  OUT/<variant>/index.html                  project list (PEP 503 root page)
  OUT/<variant>/<project>/index.html        project page: links "../<file>#sha256=<hex>"
                                            (no hash on nightly pages, as on the real index),
                                            data-requires-python (HTML-escaped),
                                            data-core-metadata / data-dist-info-metadata
  OUT/<variant>/<project>/index.v1.json     the same page as PEP 691 JSON with PEP 700 fields
                                            (with --json; index_server.py negotiates it)
  OUT/<variant>/<file>.whl                  the wheel ("+" written %2B in links)
  OUT/<variant>/<file>.whl.metadata         its METADATA (PEP 658)
  OUT/manifest.json                         every file: variant, project, version, filename,
                                            path (relative to OUT), sha256, size, metadata_sha256

Options:
  --variants LIST     comma-separated (default cpu,cu126,cu128,cu130,nightly/cu130; also known:
                      cu118, cu129, nightly/cu128)
  --pythons LIST      CPython tags (default cp310,cp311,cp312,cp313); each release keeps only
                      those its Requires-Python allows
  --platforms LIST    platform tags (default manylinux_2_28_x86_64,win_amd64); the cpu variant
                      also gets macosx_11_0_arm64 wheels without a local tag, as the real one
  --torch LIST        torch releases to include (default 2.7.0,2.8.0,2.9.0,2.11.0); nightly
                      variants always hold one 2.12.0 dev build
  --json              also write PEP 691 JSON pages
  --no-metadata       no .metadata files and no data-core-metadata attributes
  --files-base URL    absolute file links URL/<variant>/<file> (like download-r2.pytorch.org)
                      instead of relative ones
  --yank FILE=REASON  mark files whose name starts with FILE as yanked (repeatable)
  --only LIST         projects to include (default: all: torch, torchvision, torchaudio,
                      triton / pytorch-triton, nvidia-* and cuda-* runtimes, pure dependencies)
  --fake-torch LIST   VERSION=MODE,...: those releases' torch wheels hold the fake torch of
                      tests/verify/fake_torch (its README's modes), so envfix's framework check
                      can import them; other torch wheels hold a version string only
  --torch-fatbin NAME the Linux torch wheels of CUDA variants carry tests/fixtures/fatbin/NAME
                      as torch/lib/libtorch_cuda.so, so doctor finds GPU code in them
"""
import argparse, hashlib, html, io, json, os, re, sys, urllib.parse, zlib
from contextlib import redirect_stdout
import importlib.util

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("mkwheel", os.path.join(HERE, "mkwheel.py"))
mkwheel = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mkwheel)

LINUX_X86 = 'platform_system == "Linux" and platform_machine == "x86_64"'  # marker of 2.7 / 2.8
LINUX = 'platform_system == "Linux"'  # marker of 2.9 and later (2.11.0's METADATA)

# Pins of the CUDA runtime wheels torch requires, per CUDA variant (real releases: 2.7.0 for
# cu118/cu126/cu128, 2.8.0 for cu129, 2.11.0 for cu130).
CUDA_PINS = {
    "cu118": {"nvidia-cuda-nvrtc-cu11": "11.8.89", "nvidia-cuda-runtime-cu11": "11.8.89", "nvidia-cuda-cupti-cu11": "11.8.87",
              "nvidia-cudnn-cu11": "9.1.0.70", "nvidia-cublas-cu11": "11.11.3.6", "nvidia-cufft-cu11": "10.9.0.58",
              "nvidia-curand-cu11": "10.3.0.86", "nvidia-cusolver-cu11": "11.4.1.48", "nvidia-cusparse-cu11": "11.7.5.86",
              "nvidia-nccl-cu11": "2.21.5", "nvidia-nvtx-cu11": "11.8.86"},
    "cu126": {"nvidia-cuda-nvrtc-cu12": "12.6.77", "nvidia-cuda-runtime-cu12": "12.6.77", "nvidia-cuda-cupti-cu12": "12.6.80",
              "nvidia-cudnn-cu12": "9.5.1.17", "nvidia-cublas-cu12": "12.6.4.1", "nvidia-cufft-cu12": "11.3.0.4",
              "nvidia-curand-cu12": "10.3.7.77", "nvidia-cusolver-cu12": "11.7.1.2", "nvidia-cusparse-cu12": "12.5.4.2",
              "nvidia-cusparselt-cu12": "0.6.3", "nvidia-nccl-cu12": "2.26.2", "nvidia-nvtx-cu12": "12.6.77",
              "nvidia-nvjitlink-cu12": "12.6.85", "nvidia-cufile-cu12": "1.11.1.6"},
    "cu128": {"nvidia-cuda-nvrtc-cu12": "12.8.61", "nvidia-cuda-runtime-cu12": "12.8.57", "nvidia-cuda-cupti-cu12": "12.8.57",
              "nvidia-cudnn-cu12": "9.7.1.26", "nvidia-cublas-cu12": "12.8.3.14", "nvidia-cufft-cu12": "11.3.3.41",
              "nvidia-curand-cu12": "10.3.9.55", "nvidia-cusolver-cu12": "11.7.2.55", "nvidia-cusparse-cu12": "12.5.7.53",
              "nvidia-cusparselt-cu12": "0.6.3", "nvidia-nccl-cu12": "2.26.2", "nvidia-nvtx-cu12": "12.8.55",
              "nvidia-nvjitlink-cu12": "12.8.61", "nvidia-cufile-cu12": "1.13.0.11"},
    "cu129": {"nvidia-cuda-nvrtc-cu12": "12.9.86", "nvidia-cuda-runtime-cu12": "12.9.79", "nvidia-cuda-cupti-cu12": "12.9.79",
              "nvidia-cudnn-cu12": "9.10.2.21", "nvidia-cublas-cu12": "12.9.1.4", "nvidia-cufft-cu12": "11.4.1.4",
              "nvidia-curand-cu12": "10.3.10.19", "nvidia-cusolver-cu12": "11.7.5.82", "nvidia-cusparse-cu12": "12.5.10.65",
              "nvidia-cusparselt-cu12": "0.7.1", "nvidia-nccl-cu12": "2.27.3", "nvidia-nvtx-cu12": "12.9.79",
              "nvidia-nvjitlink-cu12": "12.9.86", "nvidia-cufile-cu12": "1.14.1.1"},
    "cu130": {"nvidia-cudnn-cu13": "9.19.0.56", "nvidia-cusparselt-cu13": "0.8.0", "nvidia-nccl-cu13": "2.28.9",
              "nvidia-nvshmem-cu13": "3.4.5"},
}
# cu130 torch pulls the rest of CUDA through cuda-toolkit's extras (2.11.0's METADATA).
TOOLKIT_EXTRAS = "cublas,cudart,cufft,cufile,cupti,curand,cusolver,cusparse,nvjitlink,nvrtc,nvtx"
CU130_EXTRA = [f"cuda-toolkit[{TOOLKIT_EXTRAS}]==13.0.2; {LINUX}", f"cuda-bindings<14,>=13.0.3; {LINUX}"]
WIN_LINUX = "(sys_platform == 'linux' or sys_platform == 'win32')"
# (extra, wheel, version, platform tag, Requires-Dist of the wheel) as installed with 2.11.0+cu130.
CU130_TOOLKIT = [
    ("cublas", "nvidia-cublas", "13.1.0.3", "manylinux_2_27_x86_64", []),
    ("cudart", "nvidia-cuda-runtime", "13.0.96", "manylinux2014_x86_64", []),
    ("cufft", "nvidia-cufft", "12.0.0.61", "manylinux2014_x86_64", ["nvidia-nvjitlink"]),
    ("cufile", "nvidia-cufile", "1.15.1.6", "manylinux2014_x86_64", []),
    ("cupti", "nvidia-cuda-cupti", "13.0.85", "manylinux_2_25_x86_64", []),
    ("curand", "nvidia-curand", "10.4.0.35", "manylinux_2_27_x86_64", []),
    ("cusolver", "nvidia-cusolver", "12.0.4.66", "manylinux_2_27_x86_64", ["nvidia-cublas", "nvidia-nvjitlink", "nvidia-cusparse"]),
    ("cusparse", "nvidia-cusparse", "12.6.3.3", "manylinux2014_x86_64", ["nvidia-nvjitlink"]),
    ("nvjitlink", "nvidia-nvjitlink", "13.0.88", "manylinux2010_x86_64", []),
    ("nvrtc", "nvidia-cuda-nvrtc", "13.0.88", "manylinux2010_x86_64", []),
    ("nvtx", "nvidia-nvtx", "13.0.85", "manylinux1_x86_64", []),
]
RUNTIME_REQUIRES = {"nvidia-cudnn-cu13": ["nvidia-cublas"], "nvidia-cudnn-cu12": ["nvidia-cublas-cu12"]}

# torch release -> companions, triton, Requires-Python, variants it was built for.
RELEASES = {
    "2.7.0": dict(tv="0.22.0", ta="2.7.0", triton="3.3.0", py=">=3.9.0", variants=["cpu", "cu118", "cu126", "cu128"]),
    "2.8.0": dict(tv="0.23.0", ta="2.8.0", triton="3.4.0", py=">=3.9.0", variants=["cpu", "cu126", "cu128", "cu129"]),
    "2.9.0": dict(tv="0.24.0", ta="2.9.0", triton="3.5.0", py=">=3.10", variants=["cpu", "cu126", "cu128", "cu130"]),
    "2.11.0": dict(tv="0.26.0", ta="2.11.0", triton="3.6.0", py=">=3.10", variants=["cpu", "cu126", "cu128", "cu130"]),
}
NIGHTLY = dict(torch="2.12.0.dev20260301", tv="0.27.0.dev20260301", ta="2.12.0.dev20260301",
               triton="3.7.0+git3b1f5a0e", py=">=3.10")

PURE = {  # dependencies copied into every variant of the real index
    "filelock": "3.16.1", "typing-extensions": "4.12.2", "sympy": "1.13.3", "mpmath": "1.3.0",
    "networkx": "3.4.2", "jinja2": "3.1.6", "markupsafe": "3.0.2", "fsspec": "2025.3.2", "setuptools": "78.1.0",
}
BINARY = {"numpy": "2.2.6", "pillow": "11.2.1"}  # per Python and platform, like the real ones
TORCH_COMMON_OLD = ["filelock", "typing-extensions>=4.10.0", 'setuptools; python_version >= "3.12"', "sympy>=1.13.3",
                    "networkx", "jinja2", "fsspec"]
TORCH_COMMON = ["filelock", "typing-extensions>=4.10.0", "setuptools<82", "sympy>=1.13.3", "networkx>=2.5.1", "jinja2",
                "fsspec>=0.8.5"]


def py_ok(tag, requires):
    minor = int(tag[3:])
    m = re.match(r">=3\.(\d+)", requires)
    return not m or minor >= int(m.group(1))


def cuda_of(variant):
    v = variant.split("/")[-1]
    return v if v.startswith("cu") else None


def is_new(version):
    return tuple(int(x) for x in version.split(".")[:2]) >= (2, 9)


def torch_requires(variant, version, triton_req):
    new = is_new(version)
    marker = LINUX if new else LINUX_X86
    reqs = list(TORCH_COMMON if new else TORCH_COMMON_OLD)
    cu = cuda_of(variant)
    if cu:
        if cu == "cu130":
            reqs += CU130_EXTRA
        reqs += [f"{n}=={v}; {marker}" for n, v in CUDA_PINS[cu].items()]
        reqs.append(f"{triton_req}; {marker}")
    reqs += ['optree>=0.13.0; extra == "optree"', 'opt-einsum>=3.3; extra == "opt-einsum"']
    if new:
        reqs.append('pyyaml; extra == "pyyaml"')
    return reqs


def torch_extras(version):
    return ["optree", "opt-einsum"] + (["pyyaml"] if is_new(version) else [])


class Builder:
    def __init__(self, args):
        self.args = args
        self.out = os.path.abspath(args.out)
        self.manifest = []
        self.pages = {}  # (variant, project) -> [file records]

    def wheel(self, variant, project, spec):
        folder = os.path.join(self.out, variant)
        os.makedirs(folder, exist_ok=True)
        spec_path = os.path.join(folder, ".spec.json")
        with open(spec_path, "w", encoding="utf-8") as f:
            json.dump(spec, f)
        buf = io.StringIO()
        saved = sys.argv
        sys.argv = ["mkwheel.py", spec_path, folder]
        try:
            with redirect_stdout(buf):
                mkwheel.main()
        finally:
            sys.argv = saved
            os.remove(spec_path)
        path = buf.getvalue().strip()
        with open(path, "rb") as f:
            data = f.read()
        rec = {"variant": variant, "project": project, "version": spec["version"], "filename": os.path.basename(path),
               "path": os.path.relpath(path, self.out), "sha256": hashlib.sha256(data).hexdigest(), "size": len(data),
               "requires_python": spec.get("requires_python"), "metadata_sha256": None, "yanked": None}
        if not self.args.no_metadata:
            import zipfile
            with zipfile.ZipFile(path) as z:
                meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
                text = z.read(meta)
            with open(path + ".metadata", "wb") as f:
                f.write(text)
            rec["metadata_sha256"] = hashlib.sha256(text).hexdigest()
        for prefix, reason in self.args.yank:
            if rec["filename"].startswith(prefix):
                rec["yanked"] = reason
        self.manifest.append(rec)
        self.pages.setdefault((variant, project), []).append(rec)

    def want(self, project):
        return not self.args.only or project in self.args.only

    def torch_package(self, version, loc):
        # torch/__init__.py: a version only, or the fake torch of tests/verify/fake_torch (what
        # envfix's framework check imports) behaving as --fake-torch says for this release.
        mode = self.args.fake_torch.get(version)
        if mode is None:
            return {"torch/__init__.py": f"__version__ = {version + loc!r}\n"}
        src = "tests/verify/fake_torch/torch/"
        files = {f"torch/{f}": {"copy": src + f}
                 for f in ("__init__.py", "backends.py", "cuda/__init__.py", "nn/__init__.py", "nn/functional.py")}
        files["torch/_fake.json"] = json.dumps({"mode": mode, "version": version + loc})
        return files

    def torch_family(self, variant, version, tv, ta, triton_name, triton, py, local):
        nightly = variant.startswith("nightly/")
        cu = cuda_of(variant)
        plats = list(self.args.platforms)
        pythons = [p for p in self.args.pythons if py_ok(p, py)]
        triton_req = f"{triton_name}=={triton}"
        builds = [(plat, local) for plat in plats]
        if variant == "cpu":
            builds.append(("macosx_11_0_arm64", ""))  # macOS wheels carry no local tag
        for plat, loc in builds:
            for pyt in pythons:
                tag = f"{pyt}-{pyt}-{plat}"
                if self.want("torch"):
                    cuda_txt = repr(f"{cu[2:-1]}.{cu[-1]}") if cu else "None"
                    self.wheel(variant, "torch", {
                        "name": "torch", "version": version + loc, "tags": [tag], "requires_python": py,
                        # Windows wheels of the CUDA variants bundle the runtime and pin nothing.
                        "requires_dist": torch_requires(variant, version, triton_req) if plat.startswith("manylinux") else
                        [r for r in torch_requires(variant, version, triton_req)
                         if "nvidia" not in r and "triton" not in r and "cuda-" not in r],
                        "provides_extra": torch_extras(version),
                        "metadata": {"Summary": "Tensors and Dynamic neural networks in Python with strong GPU acceleration",
                                     "License": "BSD-3-Clause"},
                        "files": {**self.torch_package(version, loc),
                                  "torch/version.py": f"__version__ = {version + loc!r}\ndebug = False\ncuda = {cuda_txt}\n"
                                                      f"git_version = 'e2d141dbde55c2a4370fac5165b0561b6af4798b'\nhip = None\nxpu = None\n",
                                  **({"torch/lib/libtorch_cpu.so": {"compressible": self.args.torch_lib, "mode": 493,
                                                                    "seed": zlib.crc32(f"{variant}{tag}".encode())}}
                                     if self.args.torch_lib else {}),
                                  **({"torch/lib/libtorch_cuda.so": {"copy": "tests/fixtures/fatbin/" + self.args.torch_fatbin}}
                                     if self.args.torch_fatbin and cu and plat.startswith("manylinux") else {})}})
                if self.want("torchvision"):
                    # torchvision writes the legacy "name (specifier)" form, as its real METADATA does.
                    self.wheel(variant, "torchvision", {
                        "name": "torchvision", "version": tv + loc, "tags": [tag],
                        "requires_python": ">=3.10,!=3.14.1" if is_new(version) else py,
                        "requires_dist": ["numpy", f"torch (=={version})", "pillow (!=8.3.*,>=5.3.0)",
                                          "gdown (>=4.7.3) ; extra == 'gdown'", "scipy ; extra == 'scipy'"],
                        "provides_extra": ["gdown", "scipy"],
                        "files": {"torchvision/__init__.py": f"__version__ = {tv + loc!r}\n",
                                  # nms on the fake torch's tensors, for the framework check.
                                  **({"torchvision/ops.py": "def nms(boxes, scores, iou):\n"
                                                            "    return scores._op('nms', boxes, shape=scores.shape)\n"}
                                     if version in self.args.fake_torch else {})}})
                if self.want("torchaudio"):
                    self.wheel(variant, "torchaudio", {
                        "name": "torchaudio", "version": ta + loc, "tags": [tag], "requires_python": py,
                        # torchaudio 2.11.0 pins nothing; earlier ones pinned torch.
                        "requires_dist": [] if version.startswith("2.11") or ".dev" in version else [f"torch=={version}"],
                        "files": {"torchaudio/__init__.py": f"__version__ = {ta + loc!r}\n"}})
                if cu and plat.startswith("manylinux") and self.want(triton_name):
                    new = is_new(version)
                    self.wheel(variant, triton_name, {
                        "name": triton_name, "version": triton, "requires_python": ">=3.10,<3.15" if new else py,
                        "tags": [f"{pyt}-{pyt}-manylinux_2_27_x86_64", f"{pyt}-{pyt}-manylinux_2_28_x86_64"],
                        "requires_dist": ['importlib-metadata; python_version < "3.10"', 'lit; extra == "build"']
                        if new else ["setuptools>=40.8.0"],
                        "provides_extra": ["build"] if new else [], "files": {"triton/__init__.py": ""}})

    def cu130_toolkit(self, variant):
        if self.want("cuda-toolkit"):
            self.wheel(variant, "cuda-toolkit", {
                "name": "cuda-toolkit", "version": "13.0.2", "tags": ["py2-none-any", "py3-none-any"],
                "provides_extra": [e for e, *_ in CU130_TOOLKIT],
                "requires_dist": [f"{w}=={v}.*; {'(sys_platform == ' + chr(39) + 'linux' + chr(39) + ')' if e == 'cufile' else WIN_LINUX}"
                                  f" and extra == '{e}'" for e, w, v, _, _ in CU130_TOOLKIT],
                "files": {"cuda_toolkit/__init__.py": ""}})
        for _, name, ver, plat, reqs in CU130_TOOLKIT:
            if self.want(name):
                self.wheel(variant, name, {"name": name, "version": ver, "tags": [f"py3-none-{plat}"], "requires_python": ">=3",
                                           "requires_dist": reqs, "files": {f"nvidia/{name}.txt": name}})
        if self.want("cuda-bindings"):
            for pyt in self.args.pythons:
                if py_ok(pyt, ">=3.10"):
                    self.wheel(variant, "cuda-bindings", {
                        "name": "cuda-bindings", "version": "13.3.1", "requires_python": ">=3.10",
                        "tags": [f"{pyt}-{pyt}-manylinux_2_24_x86_64", f"{pyt}-{pyt}-manylinux_2_28_x86_64"],
                        "requires_dist": ["cuda-pathfinder>=1.4.2"], "files": {"cuda/bindings/__init__.py": ""}})
        if self.want("cuda-pathfinder"):
            self.wheel(variant, "cuda-pathfinder", {"name": "cuda-pathfinder", "version": "1.8.1", "tags": ["py3-none-any"],
                                                    "requires_python": ">=3.10", "files": {"cuda/pathfinder/__init__.py": ""}})

    def build(self):
        built_runtimes = set()
        for variant in self.args.variants:
            cu = cuda_of(variant)
            if variant.startswith("nightly/"):
                n = NIGHTLY
                self.torch_family(variant, n["torch"], n["tv"], n["ta"], "pytorch-triton", n["triton"], n["py"],
                                  "+" + variant.split("/")[1])
            else:
                for version in self.args.torch:
                    r = RELEASES[version]
                    if variant in r["variants"]:
                        self.torch_family(variant, version, r["tv"], r["ta"], "triton", r["triton"], r["py"], "+" + variant)
            if cu:
                for name, ver in CUDA_PINS[cu].items():
                    if self.want(name):
                        self.wheel(variant, name, {"name": name, "version": ver, "tags": ["py3-none-manylinux_2_27_x86_64"],
                                                   "requires_python": ">=3", "requires_dist": RUNTIME_REQUIRES.get(name, []),
                                                   "files": {f"nvidia/{name}.txt": name}})
                if cu == "cu130":
                    self.cu130_toolkit(variant)
            for name, ver in PURE.items():
                if self.want(name):
                    self.wheel(variant, name, {"name": name, "version": ver, "tags": ["py3-none-any"],
                                               "files": {f"{name.replace('-', '_')}/__init__.py": ""}})
            for name, ver in BINARY.items():
                if self.want(name):
                    for pyt in self.args.pythons:
                        for plat in self.args.platforms:
                            self.wheel(variant, name, {"name": name, "version": ver, "tags": [f"{pyt}-{pyt}-{plat}"],
                                                       "files": {f"{name}/__init__.py": ""}})
            built_runtimes.add(variant)
        self.write_pages()
        path = os.path.join(self.out, "manifest.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"version": 1, "files": self.manifest}, f, indent=1)
        return path

    def href(self, rec):
        quoted = urllib.parse.quote(rec["filename"], safe="")
        if self.args.files_base:
            return f"{self.args.files_base.rstrip('/')}/{rec['variant']}/{quoted}"
        return f"../{quoted}"

    def write_pages(self):
        by_variant = {}
        for (variant, project), recs in sorted(self.pages.items()):
            by_variant.setdefault(variant, []).append(project)
            nightly = variant.startswith("nightly/")
            lines = ["<!DOCTYPE html>", "<html>", "  <body>", f"    <h1>Links for {project}</h1>"]
            files = []
            for rec in sorted(recs, key=lambda r: r["filename"]):
                href = self.href(rec)
                if not nightly:
                    href += "#sha256=" + rec["sha256"]
                attrs = f'href="{html.escape(href)}"'
                if rec["requires_python"]:
                    attrs += f' data-requires-python="{html.escape(rec["requires_python"])}"'
                if rec["metadata_sha256"]:
                    m = "sha256=" + rec["metadata_sha256"]
                    attrs += f' data-dist-info-metadata="{m}" data-core-metadata="{m}"'
                if rec["yanked"] is not None:
                    attrs += f' data-yanked="{html.escape(rec["yanked"])}"'
                lines.append(f"    <a {attrs}>{html.escape(rec['filename'])}</a><br/>")
                f = {"filename": rec["filename"], "url": self.href(rec),
                     "hashes": {} if nightly else {"sha256": rec["sha256"]},
                     "requires-python": rec["requires_python"], "size": rec["size"],
                     "upload-time": "2026-03-01T12:00:00.000000Z"}
                if rec["metadata_sha256"]:
                    f["core-metadata"] = {"sha256": rec["metadata_sha256"]}
                    f["dist-info-metadata"] = {"sha256": rec["metadata_sha256"]}
                if rec["yanked"] is not None:
                    f["yanked"] = rec["yanked"] or True
                files.append(f)
            lines += ["  </body>", "</html>", "<!--TIMESTAMP 1772366400-->"]
            folder = os.path.join(self.out, variant, project)
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, "index.html"), "w", encoding="utf-8") as fh:
                fh.write("\n".join(lines) + "\n")
            if self.args.json:
                versions = sorted({r["version"] for r in recs})
                page = {"meta": {"api-version": "1.1"}, "name": project, "versions": versions, "files": files}
                with open(os.path.join(folder, "index.v1.json"), "w", encoding="utf-8") as fh:
                    json.dump(page, fh, indent=1)
        for variant, projects in by_variant.items():
            lines = ["<!DOCTYPE html>", "<html>", "  <body>"]
            lines += [f'    <a href="{p}/">{p}</a><br/>' for p in projects]
            lines += ["  </body>", "</html>"]
            with open(os.path.join(self.out, variant, "index.html"), "w", encoding="utf-8") as fh:
                fh.write("\n".join(lines) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out")
    p.add_argument("--variants", default="cpu,cu126,cu128,cu130,nightly/cu130")
    p.add_argument("--pythons", default="cp310,cp311,cp312,cp313")
    p.add_argument("--platforms", default="manylinux_2_28_x86_64,win_amd64")
    p.add_argument("--torch", default="2.7.0,2.8.0,2.9.0,2.11.0")
    p.add_argument("--json", action="store_true")
    p.add_argument("--no-metadata", action="store_true")
    p.add_argument("--files-base")
    p.add_argument("--yank", action="append", default=[])
    p.add_argument("--only", default="")
    p.add_argument("--fake-torch", default="", help="VERSION=MODE,...: those torch wheels hold tests/verify/fake_torch in that mode")
    p.add_argument("--torch-fatbin", default="", help="the Linux torch wheels of CUDA variants carry this fixture of "
                   "tests/fixtures/fatbin as torch/lib/libtorch_cuda.so, so doctor reads GPU code in them")
    p.add_argument("--torch-lib", type=int, default=0, help="torch wheels carry a compressible torch/lib/libtorch_cpu.so of this many bytes")
    a = p.parse_args()
    a.variants = [v for v in a.variants.split(",") if v]
    a.pythons = [v for v in a.pythons.split(",") if v]
    a.platforms = [v for v in a.platforms.split(",") if v]
    a.torch = [v for v in a.torch.split(",") if v]
    a.only = set(x for x in a.only.split(",") if x)
    a.fake_torch = dict(x.split("=", 1) for x in a.fake_torch.split(",") if x)
    a.yank = [tuple(y.split("=", 1)) if "=" in y else (y, "") for y in a.yank]
    for v in a.variants:
        if not (cuda_of(v) in CUDA_PINS or v.split("/")[-1] == "cpu"):
            raise SystemExit(f"mkindex: unknown variant {v}")
    print(Builder(a).build())


if __name__ == "__main__":
    main()
