#!/usr/bin/env bash
# Compiles every *_win32.cpp for Windows (MinGW-w64, syntax and types only: the Windows build
# itself needs the Windows builds of curl/libarchive/yaml-cpp, which Debian does not ship).
# Catches Windows code that would not compile, on a Linux CI machine.
set -euo pipefail
cxx=${1:-x86_64-w64-mingw32-g++-posix}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
inc=()
for d in common probe resolver installer cli; do inc+=(-I"$d/include" -I"$d/src"); done
inc+=(-Icommon)
# Third-party headers that are the same for Windows (curl's system.h picks the Windows types):
# only those folders, not the Linux include tree.
shim=$(mktemp -d); trap 'rm -rf "$shim"' EXIT
for dep in /usr/include/x86_64-linux-gnu/curl /usr/include/curl; do [[ -d $dep ]] && ln -sfn "$dep" "$shim/curl" && break; done
inc+=(-I"$shim")
status=0
while IFS= read -r f; do
  if ! "$cxx" -std=c++20 -fsyntax-only -Wall -Wextra -D_WIN32_WINNT=0x0A00 "${inc[@]}" "$f"; then
    echo "FAILED: $f" >&2
    status=1
  fi
done < <(find common probe resolver installer cli tests -name '*_win32.cpp' -not -path '*/build*' | sort)
exit $status
