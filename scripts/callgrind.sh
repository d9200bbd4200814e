#!/usr/bin/env bash
# Counts the instructions callfix and its floors run on the bench stream, with
# callgrind: a count does not move with the machine's load, so a change to the
# filter's hot path can be measured while other work runs (docs/speed.md,
# "Profile-driven cuts"). Needs valgrind.
#
#   scripts/callgrind.sh [CALLS] [TOOLS]
#
# Prints one line per program: its instructions, and its ratio to the honest
# parse+validate floor. The callgrind files are kept in target/callgrind/ for
# callgrind_annotate.
set -euo pipefail
calls=${1:-200000}
tools=${2:-1000}
cd "$(dirname "$0")/.."
root=$(pwd)
command -v valgrind >/dev/null || { echo "error: callgrind.sh needs valgrind" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$root/target/callgrind
mkdir -p "$out"

# With symbols, so that callgrind_annotate names functions; same optimisation.
export CARGO_PROFILE_RELEASE_STRIP=false CARGO_PROFILE_RELEASE_DEBUG=line-tables-only
cargo build --release --quiet --bin callfix --target-dir "$root/target/prof"
cargo build --release --quiet -p callfix-floor --features exact --target-dir "$root/target/prof-exact"
cargo build --release --quiet -p callfix-floor --target-dir "$root/target/prof-floor"
python3 scripts/gen_calls.py "$work/schemas" "$work/valid.jsonl" --calls "$calls" --tools "$tools" >/dev/null

# Instructions of one run: `count NAME COMMAND...` (stdin is the stream).
count() {
  local name=$1; shift
  valgrind --tool=callgrind --callgrind-out-file="$out/$name.out" "$@" \
    < "$work/valid.jsonl" > /dev/null 2> "$work/$name.err"
  grep -o 'Collected : [0-9]*' "$work/$name.err" | grep -o '[0-9]*$'
}
floor=$(count floor "$root/target/prof-floor/release/floor_validate" "$work/schemas")
exact=$(count exact-floor "$root/target/prof-exact/release/floor_validate" "$work/schemas")
args=$(count args "$root/target/prof/release/callfix" -s "$work/schemas" -f args)
json=$(count json "$root/target/prof/release/callfix" -s "$work/schemas" -f json)
line() {
  awk -v n="$1" -v i="$2" -v f="$floor" \
    'BEGIN { printf "%-34s %6.2f G instructions  %.2f x floor\n", n, i / 1e9, i / f }'
}
echo "all valid, $calls calls over $tools tools (callgrind, $out):"
line "parse+validate floor" "$floor"
line "floor with exact numbers" "$exact"
line "callfix -f args" "$args"
line "callfix -f json" "$json"
