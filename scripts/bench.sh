#!/usr/bin/env bash
# Times the release binary on a large generated stream against the parse-and-print
# floor (examples/parse_print.rs): the same reading and writing of JSON, with no
# validation. Prints calls/s and the ratio.
#
#   scripts/bench.sh [CALLS] [TOOLS] [BROKEN_FRACTION]
set -euo pipefail
calls=${1:-200000}
tools=${2:-1000}
broken=${3:-0}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --release --quiet --bin callfix --example parse_print
bin=target/release/callfix
floor=target/release/examples/parse_print
python3 scripts/gen_calls.py "$work/schemas" "$work/calls.jsonl" \
  --calls "$calls" --tools "$tools" --broken "$broken"
size=$(wc -c < "$work/calls.jsonl")

# Best of 5 wall-clock runs, in seconds.
best() {
  local best=999999
  for _ in 1 2 3 4 5; do
    local start end t
    start=$(date +%s.%N)
    "$@" < "$work/calls.jsonl" > /dev/null || true
    end=$(date +%s.%N)
    t=$(echo "$end - $start" | bc -l)
    if (( $(echo "$t < $best" | bc -l) )); then best=$t; fi
  done
  echo "$best"
}

t_floor=$(best "$floor")
t_callfix=$(best "$bin" -s "$work/schemas" -f args)
t_json=$(best "$bin" -s "$work/schemas" -f json)

rate() { echo "$calls / $1" | bc -l | xargs printf '%.0f'; }
ratio() { echo "$t_floor / $1" | bc -l | xargs printf '%.2f'; }
printf 'stream: %d calls over %d tools, %.1f MB, %s broken\n' "$calls" "$tools" \
  "$(echo "$size / 1000000" | bc -l)" "$broken"
printf '%-28s %10s %12s %8s\n' "command" "seconds" "calls/s" "vs floor"
printf '%-28s %10.3f %12s %8s\n' "parse-and-print (floor)" "$t_floor" "$(rate "$t_floor")" "1.00"
printf '%-28s %10.3f %12s %8s\n' "callfix -f args" "$t_callfix" "$(rate "$t_callfix")" "$(ratio "$t_callfix")"
printf '%-28s %10.3f %12s %8s\n' "callfix -f json" "$t_json" "$(rate "$t_json")" "$(ratio "$t_json")"
