#!/usr/bin/env bash
# Lists the functions no real entry point reaches, and those only tests reach.
#
# The roots are every real entry point: the cmd/* binaries and the Mage targets.
# magefile.go has no main (mage generates one), so this asks mage itself for
# the main it would compile (go run mage.go -keep -compile), copies it beside
# magefile.go into a temporary package inside the module (build tags dropped)
# and gives that package to deadcode as one more main.
#
# Usage: bench/deadcode.sh [outdir]
#   outdir (default: a temporary folder, printed) receives
#     dead.txt       functions unreachable from cmd/* and the Mage targets
#     dead-test.txt  functions unreachable even from the tests
#     test-only.txt  functions only tests reach (dead.txt minus dead-test.txt),
#                    less the test-helper packages (import path ending in "test")
#   Each line: <package path>.<func><TAB><file>:<line>, paths relative to the repo.
# Exit status: 0 whatever is found (this reports; it does not gate).
# Needs deadcode: go install golang.org/x/tools/cmd/deadcode@latest (DEADCODE=path overrides).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

deadcode="${DEADCODE:-}"
if [ -z "$deadcode" ]; then
  deadcode="$(command -v deadcode || true)"
  [ -z "$deadcode" ] && [ -x "$(go env GOPATH)/bin/deadcode" ] && deadcode="$(go env GOPATH)/bin/deadcode"
fi
if [ -z "$deadcode" ]; then
  echo "deadcode.sh: deadcode not found (go install golang.org/x/tools/cmd/deadcode@latest)" >&2
  exit 2
fi

out="${1:-$(mktemp -d)}"
mkdir -p "$out"

# The package must live inside the module so that its imports resolve; a name
# starting with "_" keeps it out of ./... for anyone running go commands meanwhile.
tmp="$(mktemp -d "$root/_deadcode_mage.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
cp magefile.go "$tmp/"
go run mage.go -d "$tmp" -keep -compile "$tmp/mage-bin" >/dev/null
rm -f "$tmp/mage-bin"
[ -f "$tmp/mage_output_file.go" ] || { echo "deadcode.sh: mage kept no mage_output_file.go" >&2; exit 1; }
for f in "$tmp"/*.go; do
  sed -i -e '/^\/\/go:build /d' -e '/^\/\/ +build /d' "$f"
done
magepkg="./$(basename "$tmp")"

format='{{range .Funcs}}{{$.Path}}.{{.Name}}	{{.Position.File}}:{{.Position.Line}}{{"\n"}}{{end}}'
strip() { sed -e "s#	$root/#	#" | sort -u; }

echo "deadcode.sh: roots cmd/... and the Mage targets" >&2
"$deadcode" -f "$format" ./cmd/... "$magepkg" | strip >"$out/dead.txt"
echo "deadcode.sh: roots the above and every test" >&2
"$deadcode" -test -f "$format" ./... "$magepkg" | strip >"$out/dead-test.txt"

comm -23 "$out/dead.txt" "$out/dead-test.txt" \
  | awk -F'\t' '{ n = split($1, e, "/"); pkg = e[n]; sub(/\..*/, "", pkg); if (pkg !~ /test$/) print }' >"$out/test-only.txt"

# The temporary package itself must not show up (it would mean mage's main was not a root).
if grep -q "_deadcode_mage" "$out/dead.txt" "$out/dead-test.txt"; then
  echo "deadcode.sh: warning: functions of the generated mage main are reported dead" >&2
fi

printf 'unreachable from cmd/* and Mage targets: %d\n' "$(wc -l <"$out/dead.txt")"
printf 'unreachable even from tests:             %d\n' "$(wc -l <"$out/dead-test.txt")"
printf 'reachable only from tests (no helpers):  %d\n' "$(wc -l <"$out/test-only.txt")"
echo "lists in $out"
cat "$out/test-only.txt"
