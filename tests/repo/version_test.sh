#!/bin/sh
# preflight --version names the release and the git revision it was built from:
# "preflight 0.1.0 (git 0123456789ab)", "-dirty" when built from changed files,
# "unknown" outside a git checkout.
# Usage: version_test.sh PREFLIGHT_BINARY RELEASE
out=$("$1" --version) || { echo "FAIL: --version exited $?"; exit 1; }
release=$(printf '%s' "$2" | sed 's/\./\\./g')
if printf '%s\n' "$out" | grep -Eqx "preflight $release \\(git ([0-9a-f]{12}(-dirty)?|unknown)\\)"; then
  echo "ok: $out"
else
  echo "FAIL: --version printed: $out"
  exit 1
fi
