#!/usr/bin/env bash
# The long mode of the randomised tests: runs the property tests (arbitrary bytes,
# arbitrary JSON, near-miss arguments through the whole pipeline) and the fuzz
# target (tests/fuzz.rs: mutated streams of real records) again and again
# with fresh random seeds and many more cases, until MINUTES have passed.
# A failure stops the soak; proptest prints the minimal failing input.
#
#   scripts/soak.sh [MINUTES] [CASES_PER_PROPERTY]
set -euo pipefail
minutes=${1:-60}
cases=${2:-20000}
cd "$(dirname "$0")/.."
cargo test --release --lib --test fuzz --no-run --quiet
log=$(mktemp)
trap 'rm -f "$log"' EXIT
end=$(( $(date +%s) + minutes * 60 ))
round=0
while [ "$(date +%s)" -lt "$end" ]; do
  round=$((round + 1))
  if ! { PROPTEST_CASES=$cases cargo test --release --quiet --lib properties \
         && PROPTEST_CASES=$cases cargo test --release --quiet --test fuzz; } > "$log" 2>&1; then
    cat "$log"
    echo "soak: round $round failed" >&2
    exit 1
  fi
  echo "soak: round $round passed ($cases cases per property)"
done
echo "soak: $round rounds in $minutes minutes, no failure"
