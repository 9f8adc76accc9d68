#!/usr/bin/env bash
# The Wine prefix every Windows.* test copies (wine_fixture.hpp): made once per ctest run, as
# wineboot takes ~15 s and a copy well under one (docs/testing.md).
#   make_wineprefix.sh <wine64> <folder>
set -euo pipefail
wine=$1 template=$2
wineserver=$(dirname "$wine")/wineserver
rm -rf "$template"
start=$(date +%s%N)
# No 32-bit Wine is installed: wineboot's "syswow64\rundll32.exe" complaint is expected.
WINEPREFIX=$template WINEDEBUG=-all "$wine" wineboot -i >/dev/null 2>&1 || true
WINEPREFIX=$template "$wineserver" -w
[[ -f $template/system.reg ]] || { echo "wineboot made no prefix in $template"; exit 1; }
echo "Wine prefix template made in $(( ($(date +%s%N) - start) / 1000000 )) ms: $template"
