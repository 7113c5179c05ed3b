#!/usr/bin/env bash
# Golden test of the real binary: runs `preflight ARGS` from CASE.cmd and checks
#  - the exit code against CASE.code,
#  - that every line of CASE.expect appears verbatim in stdout+stderr
#    (hand-written expectations: facts and messages, not a snapshot of the code's output).
# Usage: run_golden.sh PATH/TO/preflight CASE.cmd
set -u
bin=$1
case_file=$2
dir=$(dirname "$case_file")
name=$(basename "$case_file" .cmd)
args=$(head -n 1 "$case_file")
want_code=$(cat "$dir/$name.code")
cd "$dir" || exit 2
out=$(eval "\"$bin\" $args" 2>&1)
code=$?
fail=0
if [ "$code" != "$want_code" ]; then
  echo "exit code $code, expected $want_code"
  fail=1
fi
while IFS= read -r line || [ -n "$line" ]; do
  [ -z "$line" ] && continue
  if ! grep -qF -- "$line" <<<"$out"; then
    echo "missing: $line"
    fail=1
  fi
done < "$dir/$name.expect"
if [ $fail -ne 0 ]; then
  echo "---- output of: preflight $args"
  echo "$out" | head -80
fi
exit $fail
