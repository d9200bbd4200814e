#!/usr/bin/env bash
# Tests the pre-commit mirror template (pre-commit-mirror/) the way a user runs
# it: a git repository holding the template, a project that uses its hook, and
# `pre-commit run`, which installs the hook's environment from the callfix wheel
# in WHEELS (no package index: the local wheel is the one used). Expects the
# shipped tool set to pass and a broken schema to fail with its rule id.
#
#   scripts/test_precommit_mirror.sh WHEELS_DIR PRE_COMMIT
set -euo pipefail
wheels=$(cd "$1" && pwd)
pre_commit=$2
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git_() { git -c user.name=ci -c user.email=ci@localhost -c init.defaultBranch=main "$@"; }

ls "$wheels"/callfix-*.whl > /dev/null
# The mirror's build backend, from the index, before going offline.
python3 -m pip download --quiet --dest "$wheels" "setuptools>=61"

mirror="$work/mirror"
cp -r "$root/pre-commit-mirror" "$mirror"
git_ -C "$mirror" init --quiet
git_ -C "$mirror" add -A
git_ -C "$mirror" commit --quiet -m mirror
rev=$(git -C "$mirror" rev-parse HEAD)

project="$work/project"
mkdir "$project"
cp -r "$root/schemas" "$root/descriptions" "$project"
cat > "$project/.pre-commit-config.yaml" <<YAML
repos:
  - repo: $mirror
    rev: $rev
    hooks:
      - id: callfix-check
YAML
git_ -C "$project" init --quiet
git_ -C "$project" add -A
git_ -C "$project" commit --quiet -m project

run() {
  (cd "$project" && PRE_COMMIT_HOME="$work/cache" PIP_NO_INDEX=1 PIP_FIND_LINKS="$wheels" \
    "$pre_commit" run --all-files)
}
run
printf '{"type":"object","description":"B.","properties":{},"required":["x"]}\n' > "$project/schemas/broken.json"
git -C "$project" add -A
set +e
out=$(run 2>&1)
code=$?
set -e
echo "$out"
[ "$code" -eq 1 ] || { echo "expected the hook to fail on schemas/broken.json, got exit $code" >&2; exit 1; }
grep -q 'schemas/broken.json:1:.*error\[required-undeclared\]' <<< "$out" \
  || { echo "the hook did not report required-undeclared at schemas/broken.json" >&2; exit 1; }
echo "ok: the mirror's hook installed the local wheel, passed the shipped set and failed the broken schema"
