#!/usr/bin/env bash
# Installs the Debian 12 packages envfix needs to build and test, if any are missing.
# Sourced by scripts/doctor and scripts/test; safe to run again.
set -euo pipefail
build_pkgs=(build-essential cmake ninja-build pkg-config ccache
  libcurl4-openssl-dev libarchive-dev libyaml-cpp-dev libcli11-dev libssl-dev
  nlohmann-json3-dev libfmt-dev libzstd-dev zlib1g-dev libdeflate-dev libisal-dev)
test_pkgs=(libgtest-dev libgmock-dev python3 python3-venv python3-pip-whl python3-setuptools-whl
  nginx-light openssl patchelf g++-mingw-w64-x86-64-posix pci.ids ansible-core clang-format wine64
  zsh fish man-db)  # the completion scripts checked by their shells; the man page shown
want=("${build_pkgs[@]}")
[[ ${ENVFIX_DEPS:-build} == test ]] && want+=("${test_pkgs[@]}")
# ENVFIX_DEPS=fuzz: the libFuzzer build (tests/fuzz/run_fuzzers.sh).
fuzz_pkgs=(clang)
[[ ${ENVFIX_DEPS:-build} == fuzz ]] && want+=("${fuzz_pkgs[@]}")
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "envfix: installing Debian packages: ${missing[*]}" >&2
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
