#!/usr/bin/env bash
# The long mode of the randomised tests: runs the library's property tests
# (every `properties` module: the framer, the whole-pipeline properties of
# src/filter/tests.rs, messages, spellings) and the fuzz targets (tests/fuzz/:
# mutated records, and the grammar through the binary, check, the hook and the
# MCP core) again and again with fresh random seeds and many more cases, until
# MINUTES have passed. A failure stops the soak; proptest prints the minimal
# failing input.
#
#   scripts/soak.sh [MINUTES] [CASES_PER_PROPERTY] [CASES_PER_FUZZ_TARGET]
#
# The fuzz targets start several processes per case, so they get fewer cases
# (default: a twentieth of the properties'). SOAK_PROFILE=dev soaks the debug
# build (no release build to wait for: what CI does for a short soak).
set -euo pipefail
minutes=${1:-60}
cases=${2:-20000}
fuzz_cases=${3:-$((cases / 20))}
cd "$(dirname "$0")/.."
profile=(--release)
[ "${SOAK_PROFILE:-release}" = release ] || profile=()
cargo test "${profile[@]}" --lib --test fuzz --no-run --quiet

# The filter must select the whole-pipeline properties: a renamed module once
# left all eight out of the soak without anyone noticing.
selected=$(cargo test "${profile[@]}" --quiet --lib properties -- --list 2>/dev/null | grep -c ': test$' || true)
pipeline=$(cargo test "${profile[@]}" --quiet --lib properties -- --list 2>/dev/null | grep -c '^filter::tests::properties::' || true)
if [ "$pipeline" -lt 8 ]; then
  echo "soak: 'properties' selects $pipeline of the eight whole-pipeline properties (filter::tests::properties)" >&2
  exit 1
fi
echo "soak: $selected property tests ($pipeline of them whole-pipeline), fuzz targets at $fuzz_cases cases"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
end=$(( $(date +%s) + minutes * 60 ))
round=0
while [ "$(date +%s)" -lt "$end" ]; do
  round=$((round + 1))
  if ! { PROPTEST_CASES=$cases cargo test "${profile[@]}" --quiet --lib properties \
         && PROPTEST_CASES=$fuzz_cases cargo test "${profile[@]}" --quiet --test fuzz; } > "$log" 2>&1; then
    cat "$log"
    echo "soak: round $round failed" >&2
    exit 1
  fi
  echo "soak: round $round passed ($cases cases per property, $fuzz_cases per fuzz target)"
done
echo "soak: $round rounds in $minutes minutes, no failure"
