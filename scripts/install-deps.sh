#!/usr/bin/env bash
# Installs what preflight builds and tests with: Debian packages, and for the
# browser tests Debian's chromium plus playwright-core from npm (pinned by
# tests/browser/package-lock.json).
# Usage: scripts/install-deps.sh [--fuzz] [--browser]
#   --fuzz     clang for the libFuzzer targets and the sanitizer build
#   --browser  chromium and playwright-core for tests/browser (ctest `browser`)
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(cmake g++ make pkg-config nlohmann-json3-dev libcli11-dev libfmt-dev libcpp-httplib-dev libcurl4-openssl-dev libgtest-dev
          libbenchmark-dev python3)
browser=0
for arg in "$@"; do
  case "$arg" in
    --fuzz) packages+=(clang libclang-rt-dev) ;;
    --browser) packages+=(chromium) browser=1 ;;
    *) echo "install-deps.sh: unknown option $arg (expected --fuzz, --browser)" >&2; exit 2 ;;
  esac
done
if [[ $browser -eq 1 ]] && ! command -v npm >/dev/null 2>&1; then packages+=(nodejs npm); fi
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
if [[ $browser -eq 1 ]]; then
  npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error
fi
