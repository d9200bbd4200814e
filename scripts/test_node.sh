#!/usr/bin/env bash
# The Node package end to end (docs/node.md): installs the pinned npm packages
# (node/package-lock.json) with npm's cache under TMPDIR, builds the addon for
# this platform, runs node/test/*.test.mjs (not the AI SDK ones, which
# scripts of their own run), packs the tarball, installs it into a fresh
# project under TMPDIR with no Rust toolchain on PATH, and runs every example
# of docs/node.md there (blocks importing callfix/ai-sdk aside).
#
#   scripts/test_node.sh TMPDIR
#
# $CALLFIX names the callfix command the CLI-equality test compares with
# (default: target/debug/callfix, built here if missing).
set -euo pipefail
tmp=${1:?usage: scripts/test_node.sh TMPDIR}
mkdir -p "$tmp"
tmp=$(cd "$tmp" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
export npm_config_cache="$tmp/npm-cache" npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

cd "$root/node"
npm ci --loglevel=error
npm run build --silent
if [ -z "${CALLFIX:-}" ]; then
  (cd "$root" && cargo build --quiet --locked --bin callfix)
  export CALLFIX="$root/target/debug/callfix"
fi

# The package's own tests (the AI SDK's run in their own script).
tests=()
for t in test/*.test.mjs; do
  case "$(basename "$t")" in ai-sdk*) ;; *) tests+=("$t") ;; esac
done
node --test "${tests[@]}"

# The tarball, installed where no Rust toolchain is on PATH.
rm -f "$tmp"/callfix-*.tgz
npm pack --silent --pack-destination "$tmp" >/dev/null
tarball=$(ls "$tmp"/callfix-*.tgz)
listing=$(tar -tzf "$tarball")
grep -q 'package/callfix\..*\.node$' <<<"$listing" || { echo "error: $tarball has no .node" >&2; exit 1; }
project="$tmp/project"
rm -rf "$project"
mkdir -p "$project"
cp -r "$root/schemas" "$root/descriptions" "$project/"
echo '{"name": "callfix-node-example", "private": true}' > "$project/package.json"
node_dir=$(dirname "$(command -v node)")
bare=(env -u CARGO_HOME -u RUSTUP_HOME PATH="$node_dir:/usr/bin:/bin" HOME="$tmp")
if "${bare[@]}" sh -c 'command -v cargo || command -v rustc' >/dev/null; then
  echo "error: a Rust toolchain is on the bare PATH ($node_dir:/usr/bin:/bin)" >&2
  exit 1
fi
(cd "$project" && "${bare[@]}" npm install --loglevel=error --offline "$tarball")

# Every example of docs/node.md, as its own file (`import` at the start of a
# line: an ES module).
node - "$root/docs/node.md" "$project" <<'JS'
const fs = require('fs');
const path = require('path');
const [doc, dir] = process.argv.slice(2);
const blocks = [...fs.readFileSync(doc, 'utf8').matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
let n = 0;
for (const code of blocks) {
  if (code.includes("'callfix/ai-sdk'")) continue;
  n += 1;
  const ext = /^import /m.test(code) ? 'mjs' : 'cjs';
  fs.writeFileSync(path.join(dir, `example${n}.${ext}`), code);
}
if (n < 3) throw new Error(`docs/node.md: ${n} examples found, expected at least 3`);
console.log(`docs/node.md: ${n} examples`);
JS
cd "$project"
for ex in example*.*js; do
  echo "running docs/node.md $ex"
  "${bare[@]}" node "$ex" >/dev/null
done
echo "node: tests, tarball and docs/node.md examples passed"
