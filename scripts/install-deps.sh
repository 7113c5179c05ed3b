#!/usr/bin/env bash
# Installs what preflight builds and tests with: Debian packages, and for the
# browser tests (ctest `browser`, which fails rather than skips without them)
# Debian's chromium plus playwright-core from npm (pinned by
# tests/browser/package-lock.json).
# Usage: scripts/install-deps.sh [--fuzz]
#   --fuzz     clang for the libFuzzer targets and the sanitizer build
#   --browser  accepted for older scripts; the browser test's packages are always installed
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(cmake g++ make pkg-config nlohmann-json3-dev libcli11-dev libfmt-dev libcpp-httplib-dev libcurl4-openssl-dev libgtest-dev
          libbenchmark-dev libmimalloc-dev python3 chromium zsh bash-completion dpkg-dev file clang-format)
for arg in "$@"; do
  case "$arg" in
    --fuzz) packages+=(clang libclang-rt-dev) ;;
    --browser) ;;
    *) echo "install-deps.sh: unknown option $arg (expected --fuzz, --browser)" >&2; exit 2 ;;
  esac
done
if ! command -v npm >/dev/null 2>&1; then packages+=(nodejs npm); fi
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error
