# The script envfix runs in an interpreter to learn its facts (interpreter_facts.hpp). It must
# run on every Python a user may point envfix at, 2.7 included (to say it is too old), so it
# uses no f-strings and only the standard library; it prints one line "ENVFIX_FACTS {json}".
# It runs with -S (no site processing: no .pth file of the environment runs), so it finds what
# site would have done from the files: a venv's prefix from its pyvenv.cfg (Python before 3.11
# leaves that to site), the site folders from site.getsitepackages(), which runs nothing.
# Embedded into envfix at configure time (probe/CMakeLists.txt); run with `python -S -I -B -`.
import os, sys


def venv():
    # As site.venv() finds it: pyvenv.cfg beside the executable or one folder up.
    exe = os.path.abspath(sys.executable or "")
    for d in (os.path.dirname(exe), os.path.dirname(os.path.dirname(exe))):
        cfg = os.path.join(d, "pyvenv.cfg")
        if os.path.isfile(cfg):
            system_site = False
            try:
                with open(cfg) as f:
                    for line in f:
                        k, _, v = line.partition("=")
                        if k.strip().lower() == "include-system-site-packages":
                            system_site = v.strip().lower() == "true"
            except Exception:
                pass
            return d, system_site
    return None


def pth_site():
    # An embedded Python's ._pth decides whether site runs; elsewhere it does.
    d = os.path.dirname(os.path.abspath(sys.executable or ""))
    try:
        names = [n for n in os.listdir(d) if n.lower().endswith("._pth")]
    except Exception:
        names = []
    for n in names:
        try:
            with open(os.path.join(d, n)) as f:
                return any(line.strip() == "import site" for line in f)
        except Exception:
            return True
    return True


def pth_folders(sitedir):
    out = []
    try:
        names = sorted(n for n in os.listdir(sitedir) if n.endswith(".pth") and not n.startswith("."))
    except Exception:
        return out
    for n in names:
        try:
            with open(os.path.join(sitedir, n)) as f:
                lines = f.read().splitlines()
        except Exception:
            continue
        for line in lines:
            if not line.strip() or line.startswith("#") or line.startswith(("import ", "import\t")):
                continue
            q = os.path.abspath(os.path.join(sitedir, line.rstrip()))
            if os.path.isdir(q) and q not in out:
                out.append(q)
    return out


def facts():
    import json, platform
    base = getattr(sys, "base_prefix", getattr(sys, "real_prefix", sys.prefix))
    ve = venv()
    if ve and os.path.normcase(sys.prefix) != os.path.normcase(ve[0]):
        sys.prefix = sys.exec_prefix = ve[0]  # before sysconfig reads it
    import sysconfig
    cv = sysconfig.get_config_var
    impl = getattr(sys, "implementation", None)
    if impl is not None:
        v = impl.version
        iv = "%d.%d.%d" % (v[0], v[1], v[2])
        if v[3] != "final":
            iv += v[3][0] + str(v[4])
    else:
        iv = platform.python_version()
    try:
        paths = sysconfig.get_paths()
    except Exception:
        paths = {}
    d = {
        "executable": sys.executable or "",
        "version": platform.python_version(),
        "major": sys.version_info[0],
        "minor": sys.version_info[1],
        "implementation_name": impl.name if impl is not None else platform.python_implementation().lower(),
        "implementation_version": iv,
        "platform_python_implementation": platform.python_implementation(),
        "abiflags": getattr(sys, "abiflags", ""),
        "free_threaded": bool(cv("Py_GIL_DISABLED")),
        "soabi": cv("SOABI") or "",
        "ext_suffix": cv("EXT_SUFFIX") or cv("SO") or "",
        "sys_platform": sys.platform,
        "os_name": os.name,
        "platform_system": platform.system(),
        "platform_machine": platform.machine(),
        "platform_release": platform.release(),
        "platform_version": platform.version(),
        "sysconfig_platform": sysconfig.get_platform(),
        "glibc": glibc(),
        "musl": musl(),
        "prefix": sys.prefix,
        "base_prefix": base,
        "site_enabled": pth_site(),
    }
    for k in ("purelib", "platlib", "scripts", "data", "include"):
        d[k] = paths.get(k) or ""
    import site  # with -S importing it runs nothing
    found = [d["purelib"], d["platlib"]]
    if not ve or ve[1]:
        try:
            found += site.getsitepackages([base, sys.prefix] if ve else None)
        except Exception:
            pass
    sp = []
    for p in found:
        if p and os.path.isdir(p) and os.path.abspath(p) not in sp:
            sp.append(os.path.abspath(p))
    # The folders .pth files add, read as site reads them, their import lines never run.
    for p in list(sp):
        for q in pth_folders(p):
            if os.path.basename(q.rstrip("/\\")) in ("site-packages", "dist-packages") and q not in sp:
                sp.append(q)
    d["site_packages"] = sp
    try:
        us = site.getusersitepackages()
    except Exception:
        us = ""
    d["user_site"] = us if us and os.path.isdir(us) else ""
    return json.dumps(d)


def glibc():
    try:
        name, version = os.confstr("CS_GNU_LIBC_VERSION").split()
        if name == "glibc":
            return [int(x) for x in version.split(".")[:2]]
    except Exception:
        pass
    return None


def musl():
    # As packaging does: the ELF interpreter of sys.executable names musl's loader, which
    # prints its version when run without arguments.
    if not sys.platform.startswith("linux"):
        return None
    try:
        import struct  # re and subprocess only on musl: importing them costs ~5 ms
        with open(sys.executable, "rb") as f:
            h = f.read(64)
            if h[:4] != b"\x7fELF" or h[4:5] != b"\x02":
                return None
            phoff = struct.unpack_from("<Q", h, 32)[0]
            phentsize, phnum = struct.unpack_from("<HH", h, 54)
            for i in range(phnum):
                f.seek(phoff + i * phentsize)
                ph = f.read(56)
                if struct.unpack_from("<I", ph, 0)[0] != 3:
                    continue
                f.seek(struct.unpack_from("<Q", ph, 8)[0])
                interp = f.read(struct.unpack_from("<Q", ph, 32)[0]).strip(b"\0").decode()
                if "musl" not in interp:
                    return None
                import re, subprocess
                err = subprocess.Popen([interp], stderr=subprocess.PIPE).communicate()[1].decode()
                m = re.search(r"Version (\d+)\.(\d+)", err)
                return [int(m.group(1)), int(m.group(2))] if m else None
    except Exception:
        return None


sys.stdout.write("ENVFIX_FACTS " + facts() + "\n")
