// The script envfix runs in an interpreter to learn its facts (interpreter_facts.hpp). It must
// run on every Python a user may point envfix at, 2.7 included (to say it is too old), so it
// uses no f-strings and only the standard library; it prints one line "ENVFIX_FACTS {json}".
#include "envfix/probe/interpreter_facts.hpp"

namespace envfix::probe {

std::string_view interpreter_script() {
    static constexpr std::string_view kScript = R"PY(import os, sys


def facts():
    import json, platform, sysconfig
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
        "base_prefix": getattr(sys, "base_prefix", getattr(sys, "real_prefix", sys.prefix)),
        "site_enabled": not sys.flags.no_site,
    }
    for k in ("purelib", "platlib", "scripts", "data", "include"):
        d[k] = paths.get(k) or ""
    sp = []
    for p in [p for p in sys.path if os.path.basename(p.rstrip("/\\")) in ("site-packages", "dist-packages")] + [
            d["purelib"], d["platlib"]]:
        if p and os.path.isdir(p) and os.path.abspath(p) not in sp:
            sp.append(os.path.abspath(p))
    d["site_packages"] = sp
    try:
        import site
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
)PY";
    return kScript;
}

}  // namespace envfix::probe
