#!/usr/bin/env bash
# Golden test of the real binary: runs `preflight ARGS` from CASE.cmd and checks
#  - the exit code against CASE.code,
#  - that every line of CASE.expect appears verbatim in stdout+stderr
#    (hand-written expectations: facts and messages, not a snapshot of the code's output),
#  - for bad input (exit code 2), that the error is exactly one line on stderr
#    and nothing reaches stdout: whatever the input, never two lines or a number.
# Usage: run_golden.sh PATH/TO/preflight CASE.cmd
set -u
bin=$1
case_file=$2
dir=$(dirname "$case_file")
name=$(basename "$case_file" .cmd)
args=$(head -n 1 "$case_file")
want_code=$(cat "$dir/$name.code")
cd "$dir" || exit 2
err_file=$(mktemp)
trap 'rm -f "$err_file"' EXIT
stdout=$(eval "\"$bin\" $args" 2>"$err_file")
code=$?
stderr=$(cat "$err_file")
out="$stdout"$'\n'"$stderr"
fail=0
if [ "$code" != "$want_code" ]; then
  echo "exit code $code, expected $want_code"
  fail=1
fi
if [ "$want_code" = 2 ]; then
  lines=$(printf '%s\n' "$stderr" | wc -l)
  if [ -n "$stdout" ] || [ -z "$stderr" ] || [ "$lines" -ne 1 ]; then
    echo "bad input must give one line on stderr and nothing on stdout (got $lines stderr line(s), ${#stdout} stdout bytes)"
    fail=1
  fi
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
