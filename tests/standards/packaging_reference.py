#!/usr/bin/env python3
"""The reference side of envfix's differential tests: answers with pip's vendored `packaging`.

Usage: packaging_reference.py REQUEST.json   (prints one JSON document)
       packaging_reference.py --facts        (this interpreter's facts and sys_tags())

REQUEST keys (each optional): versions, specifiers + spec_versions, specifier_sets, markers +
environments, requirements, names, wheels, platforms, metadata_files. Standard library plus
pip._vendor.packaging (or a standalone packaging); runs on Python 3.6+.
"""
import json
import os
import sys

try:
    from pip._vendor import packaging  # what pip itself uses
    from pip._vendor.packaging import markers, requirements, specifiers, tags, utils, version
except ImportError:  # pragma: no cover - a venv without pip
    import packaging
    from packaging import markers, requirements, specifiers, tags, utils, version

PACKAGING = packaging.__version__


def error_name(e):
    return "error:" + type(e).__name__


def do_versions(items):
    parsed = []
    out = []
    for s in items:
        try:
            v = version.Version(s)
        except Exception:
            parsed.append(None)
            out.append(None)
            continue
        parsed.append(v)
        out.append({
            "str": str(v), "public": v.public, "base": v.base_version, "local": v.local or "",
            "pre": v.is_prerelease, "post": v.is_postrelease, "dev": v.is_devrelease,
            "epoch": v.epoch, "release": [str(x) for x in v.release],
        })
    # Rank in packaging's order; equal versions share a rank.
    valid = [i for i, v in enumerate(parsed) if v is not None]
    valid.sort(key=lambda i: parsed[i])
    rank, prev = -1, None
    for i in valid:
        if prev is None or parsed[i] != parsed[prev]:
            rank += 1
        out[i]["rank"] = rank
        prev = i
    return out


def do_specifiers(specs, versions):
    vs = [version.Version(v) for v in versions]
    out = []
    for s in specs:
        try:
            spec = specifiers.Specifier(s)
        except Exception:
            out.append(None)
            continue
        try:
            implied = bool(spec.prereleases)
        except Exception:
            implied = None
        row = {"str": str(spec), "implied": implied, "true": "", "false": ""}
        for key, pre in (("true", True), ("false", False)):
            bits = []
            for v in vs:
                try:
                    bits.append("1" if spec.contains(v, prereleases=pre) else "0")
                except Exception:
                    bits.append("E")
            row[key] = "".join(bits)
        out.append(row)
    return out


def do_specifier_sets(items):
    out = []
    for s in items:
        try:
            out.append(str(specifiers.SpecifierSet(s)))
        except Exception:
            out.append(None)
    return out


def do_markers(items, environments):
    out = []
    for s in items:
        try:
            m = markers.Marker(s)
        except Exception as e:
            out.append({"valid": False, "error": error_name(e)})
            continue
        results = []
        for env in environments:
            try:
                results.append(bool(m.evaluate(dict(env))))
            except Exception as e:
                results.append(error_name(e))
        out.append({"valid": True, "str": str(m), "results": results})
    return out


def do_requirements(items):
    out = []
    for s in items:
        try:
            r = requirements.Requirement(s)
        except Exception as e:
            out.append({"valid": False, "error": error_name(e)})
            continue
        out.append({"valid": True, "name": r.name, "extras": sorted(r.extras), "specifier": str(r.specifier),
                    "url": r.url or "", "marker": str(r.marker) if r.marker else "", "str": str(r)})
    return out


def do_names(items):
    normalized = getattr(utils, "is_normalized_name", lambda s: None)  # packaging >= 22
    return [{"canonical": utils.canonicalize_name(s), "normalized": normalized(s)} for s in items]


def do_wheels(items):
    out = []
    for s in items:
        try:
            name, ver, build, tag_set = utils.parse_wheel_filename(s)
        except Exception as e:
            out.append({"valid": False, "error": error_name(e)})
            continue
        out.append({"valid": True, "name": name, "version": str(ver),
                    "build": [str(build[0]), build[1]] if build else None,
                    "tags": sorted(str(t) for t in tag_set)})
    return out


def do_platforms(requests):
    """Platform tags of other machines: macOS by argument, manylinux/musllinux with the C library
    version patched in (packaging reads those from the running system)."""
    from pip._vendor.packaging import _manylinux, _musllinux
    out = []
    for r in requests:
        kind = r["kind"]
        if kind == "mac":
            out.append(list(tags.mac_platforms(tuple(r["version"]), r["arch"])))
        elif kind == "manylinux":
            glibc = tuple(r["glibc"])
            _manylinux._get_glibc_version = lambda: glibc
            out.append(list(_manylinux.platform_tags(r["archs"])))
        elif kind == "musllinux":
            musl = _musllinux._MuslVersion(*r["musl"])
            _musllinux._get_musl_version = lambda executable: musl
            out.append(list(_musllinux.platform_tags(r["archs"])))
    return out


def unfold(value):
    """RFC 822 continuation lines joined pkginfo's way (what envfix documents)."""
    lines = value.splitlines()
    return " ".join(x.strip() for x in lines if x.strip()) if len(lines) > 1 else value.strip()


def do_metadata(paths):
    import email.parser
    import email.policy
    out = []
    for p in paths:
        with open(p, "rb") as f:
            data = f.read()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            out.append(None)
            continue
        msg = email.parser.Parser(policy=email.policy.compat32).parsestr(text)

        def all_of(name):
            return [unfold(str(v)) for v in (msg.get_all(name) or [])]

        def one(name):
            v = msg.get_all(name)
            return unfold(str(v[0])) if v else ""

        payload = msg.get_payload()
        out.append({"name": one("Name"), "version": one("Version"), "metadata_version": one("Metadata-Version"),
                    "summary": one("Summary"), "requires_python": one("Requires-Python"),
                    "requires_dist": all_of("Requires-Dist"), "provides_extra": all_of("Provides-Extra"),
                    "classifiers": all_of("Classifier"),
                    "body": payload.replace("\r\n", "\n").replace("\r", "\n") if isinstance(payload, str) else None,
                    "defects": len(msg.defects)})
    return out


def facts():
    """This interpreter as envfix's probe describes one (probe::PythonFacts), and sys_tags()."""
    import platform
    import sysconfig

    glibc = None
    try:
        name, ver = os.confstr("CS_GNU_LIBC_VERSION").split()
        glibc = [int(x) for x in ver.split(".")[:2]]
    except Exception:
        pass
    info = sys.version_info
    return {
        "packaging": PACKAGING,
        "version": platform.python_version(), "major": info[0], "minor": info[1],
        "implementation_name": sys.implementation.name,
        "implementation_version": markers.format_full_version(sys.implementation.version)
        if hasattr(markers, "format_full_version") else platform.python_version(),
        "platform_python_implementation": platform.python_implementation(),
        "abiflags": getattr(sys, "abiflags", ""),
        "free_threaded": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
        "soabi": sysconfig.get_config_var("SOABI") or "",
        "ext_suffix": sysconfig.get_config_var("EXT_SUFFIX") or "",
        "sys_platform": sys.platform, "os_name": os.name, "platform_system": platform.system(),
        "platform_machine": platform.machine(), "platform_release": platform.release(),
        "platform_version": platform.version(), "sysconfig_platform": sysconfig.get_platform(),
        "glibc": glibc,
        "sys_tags": [str(t) for t in tags.sys_tags()],
        "default_environment": markers.default_environment(),
    }


def main():
    if sys.argv[1:] == ["--facts"]:
        json.dump(facts(), sys.stdout)
        return
    with open(sys.argv[1], encoding="utf-8") as f:
        req = json.load(f)
    out = {"packaging": PACKAGING}
    if "versions" in req:
        out["versions"] = do_versions(req["versions"])
    if "specifiers" in req:
        out["specifiers"] = do_specifiers(req["specifiers"], req["spec_versions"])
    if "specifier_sets" in req:
        out["specifier_sets"] = do_specifier_sets(req["specifier_sets"])
    if "markers" in req:
        out["markers"] = do_markers(req["markers"], req["environments"])
    if "requirements" in req:
        out["requirements"] = do_requirements(req["requirements"])
    if "names" in req:
        out["names"] = do_names(req["names"])
    if "wheels" in req:
        out["wheels"] = do_wheels(req["wheels"])
    if "platforms" in req and int(PACKAGING.split(".")[0]) >= 22:  # older ones take other arguments
        out["platforms"] = do_platforms(req["platforms"])
    if "metadata_files" in req:
        out["metadata"] = do_metadata(req["metadata_files"])
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
