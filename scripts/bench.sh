#!/usr/bin/env bash
# Measures callfix in one run, side by side:
#   - throughput on a generated stream (CALLS calls over TOOLS schemas) against the
#     honest floors, parse-and-print and parse+validate with serde_json and
#     jsonschema as a user takes them (bench/floor, built on its own so it cannot
#     inherit callfix's features), against the same floors with callfix's
#     exact-number features (bench/floor's `exact` feature), and against ajv (Node) and
#     python-jsonschema doing the same work (scripts/peers/), all valid and 30%
#     broken; every ratio is against the honest floors;
#   - one call's parse and validation, into a serde_json Value or a borrowed tape
#     (bench/floor's floor_tape, with callfix's features);
#   - --jobs 2 against --jobs 1 (wall time; the outputs must be the same bytes);
#   - one call through a fresh process with a 2,000-file schema directory;
#   - peak memory for a 10,000-call and a 1,000,000-call stream, one job and two;
#   - with CALLFIX_BENCH_PYTHON (a python with callfix, jsonschema, json_repair and
#     mcp installed): the MCP proxy's added latency (scripts/bench_mcp.py) and
#     Toolset.check_many against python-jsonschema + json_repair
#     (scripts/bench_python.py);
#   - hostile inputs, one record each (scripts/hostile.py).
# ajv and jsonschema are installed from their registries into a cache directory
# when missing, and skipped with a note when they cannot be installed.
#
#   scripts/bench.sh [CALLS] [TOOLS]
set -euo pipefail
calls=${1:-200000}
tools=${2:-1000}
cd "$(dirname "$0")/.."
root=$(pwd)
cache=${CALLFIX_BENCH_CACHE:-$HOME/.cache/callfix-bench}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --release --quiet --bin callfix
# The floors on their own (built with callfix, cargo would unify serde_json's
# features): first with callfix's exact-number features, kept aside, then as a
# user takes the crates.
cargo build --release --quiet -p callfix-floor --features exact
exact_floor=$work/exact_floor_print
exact_floor2=$work/exact_floor_validate
cp "$root/target/release/floor_print" "$exact_floor"
cp "$root/target/release/floor_validate" "$exact_floor2"
cp "$root/target/release/floor_tape" "$work/floor_tape"
cargo build --release --quiet -p callfix-floor
bin=$root/target/release/callfix
floor=$root/target/release/floor_print
floor2=$root/target/release/floor_validate
gen="python3 scripts/gen_calls.py"
$gen "$work/schemas" "$work/valid.jsonl" --calls "$calls" --tools "$tools"
$gen "$work/schemas" "$work/broken.jsonl" --calls "$calls" --tools "$tools" --broken 0.3

# Peers, installed once into the cache.
have_ajv=no
if command -v node >/dev/null && command -v npm >/dev/null; then
  if [ ! -d "$cache/node/node_modules/ajv-formats" ]; then
    mkdir -p "$cache/node"
    npm install --silent --prefix "$cache/node" ajv@8 ajv-formats@3 >/dev/null 2>&1 || true
  fi
  [ -d "$cache/node/node_modules/ajv-formats" ] && have_ajv=yes
fi
have_py=no
if command -v python3 >/dev/null; then
  if ! PYTHONPATH="$cache/py" python3 -c 'import jsonschema' 2>/dev/null; then
    python3 -m pip install --quiet --target "$cache/py" jsonschema >/dev/null 2>&1 || true
  fi
  PYTHONPATH="$cache/py" python3 -c 'import jsonschema' 2>/dev/null && have_py=yes
fi

# Runs a timed command. It must succeed: exit 0, or 1 (callfix's answer when a
# call is rejected, as on the broken stream). Any other exit (an error, a panic,
# a signal) ends the bench with the command named, never timed as a fast run.
checked() {
  local code=0
  "$@" || code=$?
  if [ "$code" -gt 1 ]; then
    echo "error: bench: exit $code from: $*" >&2
    exit 1
  fi
}

# Best wall time in seconds of N runs of a command reading a file.
best() {
  local n=$1 file=$2; shift 2
  local best=999999 start end t
  for _ in $(seq "$n"); do
    start=$(date +%s.%N)
    checked "$@" < "$file" > /dev/null
    end=$(date +%s.%N)
    t=$(echo "$end - $start" | bc -l)
    if (( $(echo "$t < $best" | bc -l) )); then best=$t; fi
  done
  echo "$best"
}
rate() { echo "$calls / $1" | bc -l | xargs printf '%.0f'; }
# Least CPU seconds (user + system) of N runs of a command reading a file.
cpu() {
  local n=$1 file=$2; shift 2
  local best=999999 t
  for _ in $(seq "$n"); do
    checked /usr/bin/time -f '%U %S' -o "$work/cpu" "$@" < "$file" > /dev/null 2>/dev/null
    t=$(awk '{print $1 + $2}' "$work/cpu" | tail -1)
    if (( $(echo "$t < $best" | bc -l) )); then best=$t; fi
  done
  echo "$best"
}

declare -A secs
secs[floor]=$(best 5 "$work/valid.jsonl" "$floor")
secs[floor2]=$(best 5 "$work/valid.jsonl" "$floor2" "$work/schemas")
secs[exact_floor]=$(best 5 "$work/valid.jsonl" "$exact_floor")
secs[exact_floor2]=$(best 5 "$work/valid.jsonl" "$exact_floor2" "$work/schemas")
secs[valid]=$(best 5 "$work/valid.jsonl" "$bin" -s "$work/schemas" -f args)
secs[broken]=$(best 5 "$work/broken.jsonl" "$bin" -s "$work/schemas" -f args)
[ $have_ajv = yes ] && secs[ajv]=$(best 2 "$work/valid.jsonl" env NODE_PATH="$cache/node/node_modules" node scripts/peers/ajv_filter.js "$work/schemas")
[ $have_py = yes ] && secs[py]=$(best 1 "$work/valid.jsonl" env PYTHONPATH="$cache/py" python3 scripts/peers/jsonschema_filter.py "$work/schemas")

echo "date: $(date -u +%Y-%m-%d); machine: $(nproc) cores, $(uname -m), $(uname -s)"
printf 'stream: %d calls over %d tools, %.1f MB\n\n' "$calls" "$tools" "$(echo "$(wc -c < "$work/valid.jsonl") / 1000000" | bc -l)"
printf '%-38s %9s %11s %9s\n' "command" "seconds" "calls/s" "vs floor"
row() { printf '%-38s %9.3f %11s %9.2f\n' "$1" "$2" "$(rate "$2")" "$(echo "${secs[floor]} / $2" | bc -l)"; }
row "parse-and-print (floor)" "${secs[floor]}"
row "parse+validate (floor 2)" "${secs[floor2]}"
row "parse-and-print, exact numbers" "${secs[exact_floor]}"
row "parse+validate, exact numbers" "${secs[exact_floor2]}"
row "callfix, all valid" "${secs[valid]}"
row "callfix, 30% broken" "${secs[broken]}"
if [ $have_ajv = yes ]; then row "ajv (Node), all valid" "${secs[ajv]}"; else echo "ajv: skipped (node, npm or the ajv package not available)"; fi
if [ $have_py = yes ]; then row "python-jsonschema, all valid" "${secs[py]}"; else echo "python-jsonschema: skipped (could not be installed)"; fi

echo
printf 'all valid vs floor:        %.2fx (target >= 0.7x)\n' "$(echo "${secs[floor]} / ${secs[valid]}" | bc -l)"
[ $have_ajv = yes ] && printf 'callfix vs ajv:            %.1fx (target >= 10x)\n' "$(echo "${secs[ajv]} / ${secs[valid]}" | bc -l)"
[ $have_py = yes ] && printf 'callfix vs jsonschema:     %.1fx\n' "$(echo "${secs[py]} / ${secs[valid]}" | bc -l)"
printf '30%% broken vs all valid:   %.2fx (target <= 2x)\n' "$(echo "${secs[broken]} / ${secs[valid]}" | bc -l)"

# CPU-time ratios (user + system, least of 7 runs), callfix over the reference.
# The runs are interleaved, one of each program a round, so that a slow spell
# of a shared machine falls on every program alike, not on one program's runs.
declare -A cpus=([floor2]=999999 [exact_floor2]=999999 [args]=999999 [json]=999999)
least() { if (( $(echo "$2 < ${cpus[$1]}" | bc -l) )); then cpus[$1]=$2; fi; }
for _ in $(seq 7); do
  least floor2 "$(cpu 1 "$work/valid.jsonl" "$floor2" "$work/schemas")"
  least exact_floor2 "$(cpu 1 "$work/valid.jsonl" "$exact_floor2" "$work/schemas")"
  least args "$(cpu 1 "$work/valid.jsonl" "$bin" -s "$work/schemas" -f args)"
  least json "$(cpu 1 "$work/valid.jsonl" "$bin" -s "$work/schemas" -f json)"
done
[ $have_ajv = yes ] && cpus[ajv]=$(cpu 2 "$work/valid.jsonl" env NODE_PATH="$cache/node/node_modules" node scripts/peers/ajv_filter.js "$work/schemas")
echo
echo "CPU seconds: parse+validate ${cpus[floor2]} (with exact numbers ${cpus[exact_floor2]}), callfix -f args ${cpus[args]}, -f json ${cpus[json]}${cpus[ajv]:+, ajv ${cpus[ajv]}}"
printf 'all valid / parse+validate floor (CPU): %.2f (target <= 1.10)\n' "$(echo "${cpus[args]} / ${cpus[floor2]}" | bc -l)"
printf 'exact-number floor / floor (CPU):       %.2f (what the features cost the floor itself)\n' "$(echo "${cpus[exact_floor2]} / ${cpus[floor2]}" | bc -l)"
printf -- '-f json / -f args (CPU):                %.2f (target <= 1.10)\n' "$(echo "${cpus[json]} / ${cpus[args]}" | bc -l)"
[ $have_ajv = yes ] && printf 'ajv / callfix -f json (CPU):            %.1f (target >= 15)\n' "$(echo "${cpus[ajv]} / ${cpus[json]}" | bc -l)"

# What a call costs to parse and validate, into a Value or a borrowed tape
# (callfix's features; docs/speed.md says what the tape would save).
echo "per call, parse+validate (floor_tape): $("$work/floor_tape" "$work/schemas" "$work/valid.jsonl")"

# --jobs 2 against --jobs 1: best wall time of 5 runs each, interleaved, the
# stream given as a file; both must write the same bytes.
declare -A walls=([1]=999999 [2]=999999)
for _ in $(seq 5); do
  for j in 1 2; do
    checked /usr/bin/time -f %e -o "$work/wall" "$bin" -s "$work/schemas" -f json --jobs $j "$work/valid.jsonl" > "$work/jobs$j.out"
    t=$(tail -1 "$work/wall")
    if (( $(echo "$t < ${walls[$j]}" | bc -l) )); then walls[$j]=$t; fi
  done
done
cmp -s "$work/jobs1.out" "$work/jobs2.out" || { echo "error: --jobs 2 wrote other bytes than --jobs 1" >&2; exit 1; }
printf -- '--jobs 2 / --jobs 1 (wall):             %.2f (%.2f s / %.2f s, same output; target <= 0.60)\n' \
  "$(echo "${walls[2]} / ${walls[1]}" | bc -l)" "${walls[2]}" "${walls[1]}"

# One call, fresh process, 2,000 schema files: mean of 200 runs.
$gen "$work/big" "$work/one.jsonl" --calls 1 --tools 2000 > /dev/null
start=$(date +%s.%N)
for _ in $(seq 200); do checked "$bin" -s "$work/big" "$work/one.jsonl" > /dev/null; done
end=$(date +%s.%N)
one=$(echo "($end - $start) * 1000 / 200" | bc -l)
start=$(date +%s.%N)
for _ in $(seq 200); do checked "$floor2" "$work/big" < "$work/one.jsonl" > /dev/null; done
end=$(date +%s.%N)
one_floor=$(echo "($end - $start) * 1000 / 200" | bc -l)
printf 'one call, 2,000-file dir:  %.2f ms per process (target < 5 ms); floor (start, read, compile one schema) %.2f ms: %.2f (target <= 1.25)\n' \
  "$one" "$one_floor" "$(echo "$one / $one_floor" | bc -l)"

# Peak memory: 10,000 calls against 1,000,000 (the stream repeated).
head -n 10000 "$work/valid.jsonl" > "$work/small.jsonl"
: > "$work/huge.jsonl"
for _ in $(seq $(( (1000000 + calls - 1) / calls ))); do cat "$work/valid.jsonl" >> "$work/huge.jsonl"; done
head -n 1000000 "$work/huge.jsonl" > "$work/million.jsonl"
rss() { checked /usr/bin/time -f %M -o "$work/rss" "$bin" -s "$work/schemas" "$@" > /dev/null; tail -1 "$work/rss"; }
for j in 1 2; do
  small=$(rss "$work/small.jsonl" --jobs $j)
  big=$(rss "$work/million.jsonl" --jobs $j)
  printf 'peak memory, --jobs %d:     %d KB for 10,000 calls, %d KB for 1,000,000 (target: within a few MB)\n' "$j" "$small" "$big"
done

# The rows other parts own, reported here: the MCP proxy and the Python module.
py=${CALLFIX_BENCH_PYTHON:-}
if [ -n "$py" ] && "$py" -c 'import callfix, jsonschema, json_repair, mcp' 2>/dev/null; then
  echo
  echo "MCP proxy (scripts/bench_mcp.py --calls 10000):"
  "$py" scripts/bench_mcp.py --calls 10000 --callfix "$bin" | grep -E 'added to|proxy memory'
  echo "Python (scripts/bench_python.py):"
  "$py" scripts/bench_python.py | tail -6
else
  echo "MCP proxy latency and Python check_many: skipped (set CALLFIX_BENCH_PYTHON to a python with callfix, jsonschema, json_repair and mcp installed)"
fi

# Hostile inputs: time and memory per record against docs/limits.md's targets.
echo
python3 scripts/hostile.py --callfix "$bin"
