#!/usr/bin/env bash
# The AI SDK layer (callfix/ai-sdk) end to end, with the SDK's own mock model.
#
#   scripts/test_node_ai_sdk.sh TMPDIR [CALLFIX]
#
# TMPDIR: a directory this script may fill (created if missing); nothing is
# written elsewhere. CALLFIX: the `callfix` npm package to test, as a tarball
# (`npm pack` of node/) or a directory holding the package with its addon built
# (packed here); default node/ (built by `cd node && npm ci && npm run build`,
# as scripts/test_node.sh does).
#
# Into TMPDIR/project it installs, from node/test/ai-sdk-env/package-lock.json,
# a pinned Node 22 (the `node` package of the npm registry: `ai` 7 needs
# Node >= 22 and is ESM-only), the pinned `ai` and `zod`, then the package
# under test, and runs node/test/ai-sdk*.test.mjs there with that Node (and the
# examples of the AI SDK section of docs/node.md).
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 TMPDIR [CALLFIX_TARBALL_OR_NODE_DIR]" >&2
	exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
tmp=$(cd "$1" && pwd)
project=$tmp/project
rm -rf "$project" "$tmp/pack"
mkdir -p "$project/test" "$tmp/pack"

export npm_config_cache=$tmp/npm-cache npm_config_audit=false npm_config_fund=false \
	npm_config_update_notifier=false

# The package under test, as a tarball.
pkg=${2:-$root/node}
if [ -d "$pkg" ]; then
	if ! compgen -G "$pkg/callfix.*.node" >/dev/null; then
		echo "$0: no addon in $pkg: build it first (cd node && npm ci && npm run build)" >&2
		exit 2
	fi
	(cd "$pkg" && npm pack --ignore-scripts --pack-destination "$tmp/pack" >/dev/null 2>&1)
	tarball=$(ls "$tmp"/pack/*.tgz)
else
	tarball=$(cd "$(dirname "$pkg")" && pwd)/$(basename "$pkg")
fi

cp "$root"/node/test/ai-sdk-env/package.json "$root"/node/test/ai-sdk-env/package-lock.json "$project"/
cd "$project"
# The `node` package fetches its platform's binary in a preinstall script.
npm ci --loglevel=error
npm install --no-save --loglevel=error "$tarball"
node22=$project/node_modules/.bin/node
"$node22" -e 'if (+process.versions.node.split(".")[0] < 22) process.exit(1)'

cp "$root"/node/test/ai-sdk*.test.mjs test/
# The AI SDK section of docs/node.md: its examples run here.
mkdir -p docs
cp "$root"/docs/node.md docs/
echo "callfix/ai-sdk: $("$node22" --version), ai $("$node22" -p 'require("ai/package.json").version'), callfix from $(basename "$tarball")"
"$node22" --test --test-reporter=spec test/*.test.mjs
