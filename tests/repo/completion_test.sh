#!/usr/bin/env bash
# The bash completion loads and completes commands, options, fixed values, GPU
# families and catalogue models, as bash-completion calls it (COMP_WORDS, COMP_CWORD).
# The zsh one parses (zsh -n) and registers itself with compinit.
# Usage: completion_test.sh PREFLIGHT_REFERENCE_BINARY
set -uo pipefail
reference=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$reference" bash > "$work/preflight.bash"
"$reference" zsh > "$work/_preflight"
# shellcheck source=/dev/null
source "$work/preflight.bash"
failures=0
# expect WORD... -- CANDIDATE: completing the last word offers CANDIDATE.
expect() {
  local words=() want
  while [[ $1 != -- ]]; do words+=("$1"); shift; done
  want=$2
  COMP_WORDS=(preflight "${words[@]}")
  COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
  COMPREPLY=()
  _preflight || true
  if printf '%s\n' "${COMPREPLY[@]}" | grep -qxF -- "$want"; then
    echo "ok: preflight ${words[*]}<TAB> offers $want"
  else
    echo "FAIL: preflight ${words[*]}<TAB> should offer $want; offers: ${COMPREPLY[*]:-nothing}"
    failures=$((failures + 1))
  fi
}
expect pl -- plan
expect plan --gp -- --gpus
expect explain --only "" -- kv
expect plan --format "" -- json
expect sweep --format "" -- csv
expect fit --gpu h1 -- h100
expect plan kimi -- kimi-k3
expect launch --gpu-memory -- --gpu-memory-utilization
expect "" -- serve
if ! complete -p preflight >/dev/null; then
  echo "FAIL: the bash completion does not register itself for preflight"
  failures=$((failures + 1))
fi
if ! command -v zsh >/dev/null; then
  echo "FAIL: no zsh (scripts/install-deps.sh installs it)"
  exit 1
fi
zsh -n "$work/_preflight" || { echo "FAIL: zsh cannot parse _preflight"; failures=$((failures + 1)); }
if zsh -fc "fpath=('$work' \$fpath); autoload -Uz compinit; compinit -u -D; [[ \${_comps[preflight]} == _preflight ]]"; then
  echo "ok: zsh's compinit registers _preflight for preflight"
else
  echo "FAIL: zsh's compinit does not register _preflight for preflight"
  failures=$((failures + 1))
fi
exit $(( failures > 0 ))
