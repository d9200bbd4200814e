#!/usr/bin/env bash
# The C compiler the static musl build needs since `callfix mcp --url` (the
# feature mcp-http, on by default) brings rustls's `ring`, which compiles C and
# assembly: cc-rs looks for `x86_64-linux-musl-gcc`, then `musl-gcc` (Debian's
# `musl-tools`). Installs it when it is missing and apt-get can; says so and
# exits 1 when it cannot.
#
#   scripts/musl_cc.sh && cargo build --locked --target x86_64-unknown-linux-musl
set -euo pipefail

if command -v x86_64-linux-musl-gcc > /dev/null || command -v musl-gcc > /dev/null; then
  exit 0
fi
if command -v apt-get > /dev/null; then
  apt-get update -q > /dev/null && apt-get install -y -q musl-tools > /dev/null
fi
if command -v musl-gcc > /dev/null; then
  exit 0
fi
echo "scripts/musl_cc.sh: no musl C compiler (musl-gcc), and apt-get could not install musl-tools" >&2
exit 1
