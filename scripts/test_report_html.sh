#!/bin/sh
# The `callfix report --html` page in a real headless browser.
#
#     scripts/test_report_html.sh BIN TMP
#
# BIN: the callfix binary; TMP: a directory of this run's own (created; all
# it writes is in there). Installs Debian's chromium when /usr/bin/chromium is
# missing (apt-get: CI runs as root) and the pinned playwright-core from npm
# into TMP (never globally). Generates a log of known composition (three
# models, one with a hostile name), reports it with --html, loads the page
# from file:// in Chromium (a new empty profile, no network of its own) and
# asserts: no page error, no console error, no request but the file itself,
# one chart group per model with the generator's counts in its title and
# data, the example table, the hostile name shown as text; then writes
# TMP/report.png (a full-page screenshot) and checks it is a PNG.
set -eu

PLAYWRIGHT_CORE=1.65.1

if [ $# -ne 2 ]; then
    echo "usage: $0 BIN TMP" >&2
    exit 2
fi
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
mkdir -p "$2"
tmp=$(cd "$2" && pwd)

if [ ! -x /usr/bin/chromium ]; then
    echo "installing chromium (Debian)" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

if [ ! -f "$tmp/node_modules/playwright-core/package.json" ] ||
    ! grep -q "\"version\": \"$PLAYWRIGHT_CORE\"" "$tmp/node_modules/playwright-core/package.json"; then
    echo '{"private": true}' >"$tmp/package.json"
    (cd "$tmp" && npm install --no-audit --no-fund --silent --save-exact \
        "playwright-core@$PLAYWRIGHT_CORE" >/dev/null)
fi

# The log and the generator's own tally (expected.json).
python3 - "$tmp" <<'EOF'
import json, os, sys

tmp = sys.argv[1]
os.makedirs(os.path.join(tmp, "schemas"), exist_ok=True)
with open(os.path.join(tmp, "schemas", "get_weather.json"), "w") as f:
    json.dump({"type": "object", "required": ["city"],
               "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}, f)

ARGS = {"valid": '{"city":"Oslo"}', "repaired": '{"city":"Oslo","days":"3"}',
        "rejected": '{"days":3}'}
# model -> (valid, repaired, rejected)
MODELS = {"vendor-a/k2": (90, 6, 4), "vendor-b/k2": (60, 25, 15),
          "<b>x</b> & \"q\" é": (3, 2, 1)}
expected = {}
with open(os.path.join(tmp, "log.jsonl"), "w") as f:
    for model, counts in MODELS.items():
        for status, n in zip(("valid", "repaired", "rejected"), counts):
            for _ in range(n):
                f.write(json.dumps({"model": model, "choices": [{"finish_reason": "tool_calls",
                    "message": {"role": "assistant", "tool_calls": [{"id": "c", "type": "function",
                        "function": {"name": "get_weather", "arguments": ARGS[status]}}]}}]}) + "\n")
        v, r, x = counts
        expected[model] = {"calls": v + r + x, "valid": v, "repaired": r, "rejected": x}
with open(os.path.join(tmp, "expected.json"), "w") as f:
    json.dump(expected, f)
EOF

rm -f "$tmp/r.html" "$tmp/report.png"
(cd "$tmp" && "$bin" --no-config report -s schemas log.jsonl --format json --html r.html >report.json)

cat >"$tmp/check.mjs" <<'EOF'
import { chromium } from "playwright-core";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const tmp = process.argv[2];
const expected = JSON.parse(readFileSync(join(tmp, "expected.json"), "utf8"));
const url = pathToFileURL(join(tmp, "r.html")).href;
const profile = mkdtempSync(join(tmp, "profile-"));
const problems = [];
const fail = (what) => problems.push(what);

const context = await chromium.launchPersistentContext(profile, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  viewport: { width: 1000, height: 800 },
});
try {
  const page = context.pages()[0] ?? (await context.newPage());
  const requests = [];
  context.on("request", (r) => requests.push(r.url()));
  page.on("pageerror", (e) => fail(`page error: ${e}`));
  page.on("console", (m) => { if (m.type() === "error") fail(`console error: ${m.text()}`); });
  await page.goto(url, { waitUntil: "load" });

  const others = requests.filter((u) => u !== url);
  if (others.length) fail(`requests other than the page: ${others.join(" ")}`);

  const groups = await page.$$eval("svg#chart g.model", (gs) => gs.map((g) => {
    const box = g.getBBox();
    return {
      model: g.dataset.model,
      title: g.querySelector("title")?.textContent ?? "",
      label: g.querySelector("text")?.textContent ?? "",
      counts: ["calls", "valid", "repaired", "rejected"].map((k) => Number(g.dataset[k])),
      rects: [...g.querySelectorAll("rect")].map((r) => r.getBBox().width),
      width: box.width,
    };
  }));
  const models = Object.keys(expected);
  if (groups.length !== models.length) fail(`${groups.length} chart groups, ${models.length} models`);
  for (const model of models) {
    const e = expected[model];
    const g = groups.find((g) => g.model === model);
    if (!g) { fail(`no chart group for ${JSON.stringify(model)}`); continue; }
    const want = [e.calls, e.valid, e.repaired, e.rejected];
    if (JSON.stringify(g.counts) !== JSON.stringify(want)) fail(`${model}: data ${g.counts}, want ${want}`);
    const title = `${model}: ${e.calls} calls, ${e.valid} valid, ${e.repaired} repaired, ${e.rejected} rejected`;
    if (g.title !== title) fail(`${model}: title ${JSON.stringify(g.title)}, want ${JSON.stringify(title)}`);
    if (g.label !== model) fail(`label ${JSON.stringify(g.label)}, want ${JSON.stringify(model)}`);
    if (g.rects.length !== 3 || g.rects.some((w) => !(w > 0))) fail(`${model}: bars ${g.rects}`);
  }
  const rows = await page.$$eval("table#examples tr", (rs) => rs.length);
  if (rows < 2) fail(`example table: ${rows} rows`);
  const scripts = await page.$$eval("script", (s) => s.length);
  if (scripts) fail(`${scripts} script elements`);

  await page.screenshot({ path: join(tmp, "report.png"), fullPage: true });
  const png = readFileSync(join(tmp, "report.png"));
  const magic = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (statSync(join(tmp, "report.png")).size < 1000 || !png.subarray(0, 8).equals(magic)) {
    fail("report.png is not a PNG of a page");
  }
  console.log(`page: ${groups.length} chart groups, ${rows - 1} example rows, ${requests.length} request(s), report.png ${png.length} bytes`);
} finally {
  await context.close();
}
if (problems.length) {
  for (const p of problems) console.error(`FAIL ${p}`);
  process.exit(1);
}
console.log("ok: the report page renders in Chromium");
EOF
(cd "$tmp" && node check.mjs "$tmp")
