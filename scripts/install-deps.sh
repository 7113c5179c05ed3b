#!/usr/bin/env bash
# Installs the Debian packages preflight builds and tests with.
# Usage: scripts/install-deps.sh [--fuzz]   (--fuzz adds clang for the libFuzzer targets)
set -euo pipefail
packages=(cmake g++ make pkg-config nlohmann-json3-dev libcli11-dev libfmt-dev libcpp-httplib-dev libgtest-dev libbenchmark-dev python3)
if [[ "${1:-}" == "--fuzz" ]]; then packages+=(clang libclang-rt-dev); fi
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
