#!/bin/sh
# docs/cli.md must be what the command and option tables generate: an option or
# command added to the tables and not to the reference fails here.
# Usage: cli_reference_test.sh PREFLIGHT_REFERENCE_BINARY DOCS_CLI_MD
set -eu
generated=$(mktemp)
trap 'rm -f "$generated"' EXIT
"$1" markdown > "$generated"
if ! diff -u "$2" "$generated"; then
  echo "FAIL: $2 differs from the option table; regenerate it with: build/preflight-reference markdown > docs/cli.md"
  exit 1
fi
echo "docs/cli.md matches the command and option tables"
