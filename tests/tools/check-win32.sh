#!/usr/bin/env bash
# Compiles every *_win32.cpp for Windows (MinGW-w64, syntax and types only: the Windows build
# itself needs the Windows builds of curl/libarchive/yaml-cpp, which Debian does not ship).
# Catches Windows code that would not compile, on a Linux CI machine.
set -euo pipefail
cxx=${1:-x86_64-w64-mingw32-g++-posix}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
# The code folders, bottom up (docs/architecture.md).
layers=(common probe standards network wheel matrix diagnosis apps plan installer cli)
inc=()
for d in "${layers[@]}"; do inc+=(-I"$d/include" -I"$d/src"); done
inc+=(-Icommon)
# Third-party headers that are the same for Windows (curl's system.h picks the Windows types):
# only those folders, not the Linux include tree.
shim=$(mktemp -d); trap 'rm -rf "$shim"' EXIT
for dep in /usr/include/x86_64-linux-gnu/curl /usr/include/curl; do [[ -d $dep ]] && ln -sfn "$dep" "$shim/curl" && break; done
# Header-only libraries, the same on every platform.
for dep in nlohmann CLI fmt; do [[ -d /usr/include/$dep ]] && ln -sfn "/usr/include/$dep" "$shim/$dep"; done
inc+=(-I"$shim")
status=0
while IFS= read -r f; do
  if ! "$cxx" -std=c++20 -fsyntax-only -Wall -Wextra -D_WIN32_WINNT=0x0A00 "${inc[@]}" "$f"; then
    echo "FAILED: $f" >&2
    status=1
  fi
done < <(find "${layers[@]}" tests -name '*_win32.cpp' -not -path '*/build*' | sort)
# The portable sources that branch on the platform's paths (native strings are wide on Windows;
# `if constexpr` outside a template compiles both branches) or on _WIN32: each one whose headers
# are all here (a library's own headers, such as OpenSSL's or libarchive's, are not: that file is
# left out, said once).
skipped=()
while IFS= read -r f; do
  if ! out=$("$cxx" -std=c++20 -fsyntax-only -D_WIN32_WINNT=0x0A00 "${inc[@]}" "$f" 2>&1); then
    if grep -q "fatal error: .*: No such file or directory" <<<"$out" && ! grep -v "fatal error" <<<"$out" | grep -q " error: "; then
      skipped+=("$f")
    else
      echo "$out" >&2
      echo "FAILED: $f" >&2
      status=1
    fi
  fi
done < <(find "${layers[@]/%//src}" -name '*.cpp' -not -name '*_posix.cpp' -not -name '*_win32.cpp' |
         xargs grep -l "preferred_separator\|_WIN32\|native()\|join_generic\|generic_of\|relative_generic\|normal_ref\|normal_text" | sort)
[[ ${#skipped[@]} -eq 0 ]] || echo "not compiled for Windows here (a library's headers missing): ${skipped[*]}"
exit $status
