#!/usr/bin/env python3
"""The complexity check of the report bindings: Python's `Toolset.report` and
Node's `ts.report`, each surface at two sizes 10x apart.

Each run is a fresh process that builds its input of size n, then measures
its own CPU time (user + system) around the one report call, and checks the
report's counts (a surface that loses calls fails). Linear work gives a ratio
near 10, quadratic near 100; a ratio above --limit (20) fails, as in
scripts/complexity.py; when the big run takes less than --floor CPU seconds
the ratio is noise and the surface passes. A run that crashes or takes more
than --timeout seconds fails.

    python3 scripts/complexity_report_bindings.py --python VENV/bin/python [--node NODE_DIR] [--scale K]

--python: an interpreter with the callfix package installed; --node: the
package directory with the addon built (node/, after `npm run build`).
Exit 1 when any surface fails.
"""

import argparse
import json
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMAS = os.path.join(ROOT, "schemas")

# Each child prints one JSON line: {"cpu": seconds, "calls": n, "broken": n}.
PY_PRELUDE = textwrap.dedent(
    """
    import json, sys, time
    import callfix
    n = int(sys.argv[1])
    ts = callfix.Toolset.from_dir(sys.argv[2])

    def chat(i, model, tool, args):
        return {"model": model, "choices": [{"finish_reason": "tool_calls", "message": {
            "role": "assistant", "tool_calls": [{"id": f"c{i}", "type": "function",
            "function": {"name": tool, "arguments": args}}]}}]}

    def measure(records):
        start = time.process_time()
        r = ts.report(records, label="l")
        spent = time.process_time() - start
        print(json.dumps({"cpu": spent, "calls": r["calls"], "broken": r["broken_records"]}))
    """
)

PYTHON = [
    # (name, code after the prelude, small n, (calls, broken) for n)
    ("python: a log of n records as one str",
     'measure("".join(json.dumps(chat(i, "m", "read", \'{"file_path": "/a", "offset": "3"}\')) + "\\n" for i in range(n)))',
     10000, lambda n: (n, 0)),
    ("python: an iterable of n dicts",
     'measure(chat(i, "m", "read", \'{"offset": 3}\') for i in range(n))',
     10000, lambda n: (n, 0)),
    ("python: n distinct models, tools, error paths",
     'measure([chat(i, f"m{i}", f"tool_{i}", \'{"a": 1}\') for i in range(n)])',
     3000, lambda n: (n, 0)),
    ("python: n broken lines",
     'measure(["not json " + str(i) for i in range(n)])',
     50000, lambda n: (0, n)),
    ("python: one record of n bytes",
     'measure([{"name": "read", "arguments": {"file_path": "a" * n}}])',
     4_000_000, lambda n: (1, 0)),
]

NODE_PRELUDE = textwrap.dedent(
    """
    // `node -e CODE ARGS`: process.argv[1] is the first of ARGS.
    const { Toolset } = require(process.argv[1]);
    const n = Number(process.argv[2]);
    const ts = Toolset.fromDir(process.argv[3]);
    function chat(i, model, tool, args) {
      return { model, choices: [{ finish_reason: 'tool_calls', message: {
        role: 'assistant', tool_calls: [{ id: `c${i}`, type: 'function', function: { name: tool, arguments: args } }] } }] };
    }
    function measure(records) {
      const start = process.cpuUsage();
      const r = ts.report(records, { label: 'l' });
      const used = process.cpuUsage(start);
      console.log(JSON.stringify({ cpu: (used.user + used.system) / 1e6, calls: r.calls, broken: r.broken_records }));
    }
    const range = (k) => Array.from({ length: k }, (_, i) => i);
    // One call's arguments text through ts.check: "calls" is 1 when its
    // status is the one wanted. The same call is checked once before it is
    // measured: a fresh process's first large allocations fault in fresh
    // pages, which the small size's mostly does not need (a ratio of 20 for
    // 2,000,000 array items, 7 when warm), and the schema is compiled.
    function measureCheck(text, status, toolset = ts, tool = 'read') {
      toolset.check(tool, text);
      const start = process.cpuUsage();
      const r = toolset.check(tool, text);
      const used = process.cpuUsage(start);
      console.log(JSON.stringify({ cpu: (used.user + used.system) / 1e6, calls: Number(r.status === status), broken: 0 }));
    }
    """
)

NODE = [
    ("node: a log of n records as one string",
     "measure(range(n).map((i) => JSON.stringify(chat(i, 'm', 'read', '{\"file_path\": \"/a\", \"offset\": \"3\"}')) + '\\n').join(''))",
     10000, lambda n: (n, 0)),
    ("node: an array of n objects",
     "measure(range(n).map((i) => chat(i, 'm', 'read', '{\"offset\": 3}')))",
     10000, lambda n: (n, 0)),
    ("node: n distinct models, tools, error paths",
     "measure(range(n).map((i) => chat(i, `m${i}`, `tool_${i}`, '{\"a\": 1}')))",
     3000, lambda n: (n, 0)),
    ("node: one record of n bytes",
     "measure([{ name: 'read', arguments: { file_path: 'a'.repeat(n) } }])",
     4_000_000, lambda n: (1, 0)),
    # ts.check reads plain JSON arguments without a Value (src/tape.rs) and
    # hands what it cannot answer to the full path: both ways, at size.
    ("node: ts.check, one valid call of n bytes",
     "measureCheck(`{\"file_path\": \"${'a'.repeat(n)}\"}`, 'valid')",
     4_000_000, lambda n: (1, 0)),
    ("node: ts.check, n escapes in one valid call",
     "measureCheck(`{\"file_path\": \"${'a\\\\n'.repeat(n)}\"}`, 'valid')",
     1_000_000, lambda n: (1, 0)),
    # `enum` compares each of its items with the value: a length check each,
    # not a copy of the value each.
    ("node: ts.check, n items against an enum of 1,000 arrays",
     "const { Toolset: T } = require(process.argv[1]); "
     "const one = new T({ t: { anyOf: [{ enum: range(1000).map((i) => [i]) }, { type: 'array' }] } }); "
     "measureCheck(`[${'0,'.repeat(n)}0]`, 'valid', one, 't')",
     100_000, lambda n: (1, 0)),
    ("node: ts.check, n items, then the full path",
     "measureCheck(`{\"file_path\": \"/a\", \"limit\": [${'1, '.repeat(n)}1]}`, 'rejected')",
     200_000, lambda n: (1, 0)),
]


def run(argv, timeout):
    """Runs one child; returns (CPU seconds, (calls, broken), why it failed or None)."""
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return 0.0, None, f"over {timeout} s"
    if r.returncode != 0:
        said = (r.stderr.strip().splitlines() or [""])[-1]
        return 0.0, None, f"exit {r.returncode}: {said[:60]}"
    try:
        out = json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return 0.0, None, f"no measurement: {r.stdout[-80:]!r}"
    return out["cpu"], (out["calls"], out["broken"]), None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", help="an interpreter with callfix installed")
    ap.add_argument("--node", help="the node package directory, addon built")
    ap.add_argument("--node-bin", default="node")
    ap.add_argument("--only", help="run only surfaces whose name contains this")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every size")
    ap.add_argument("--limit", type=float, default=20.0)
    ap.add_argument("--floor", type=float, default=0.1)
    ap.add_argument("--timeout", type=float, default=300.0)
    opts = ap.parse_args()
    if not opts.python and not opts.node:
        ap.error("give --python, --node or both")

    surfaces = []
    if opts.python:
        for name, code, n, want in PYTHON:
            argv = lambda n, code=code: [opts.python, "-c", PY_PRELUDE + code, str(n), SCHEMAS]
            surfaces.append((name, argv, n, want))
    if opts.node:
        package = os.path.abspath(opts.node)
        for name, code, n, want in NODE:
            argv = lambda n, code=code: [opts.node_bin, "-e", NODE_PRELUDE + code, package, str(n), SCHEMAS]
            surfaces.append((name, argv, n, want))

    failed = total = 0
    print(f"{'surface':<48} {'n':>9} {'small s':>8} {'big s':>8} {'ratio':>7}  result", flush=True)
    for name, argv, n, want in surfaces:
        if opts.only and opts.only not in name:
            continue
        total += 1
        n = max(1, int(n * opts.scale))
        small, got_small, why = run(argv(n), opts.timeout)
        if not why and got_small != want(n):
            why = f"counted {got_small} for n, want {want(n)}"
        big, got_big, why_big = (0.0, None, None) if why else run(argv(10 * n), opts.timeout)
        if not why and not why_big and got_big != want(10 * n):
            why_big = f"counted {got_big} for 10 n, want {want(10 * n)}"
        why = why or why_big
        ratio = big / small if small > 0 else float("inf")
        if why:
            verdict = f"FAIL ({why})"
        elif ratio > opts.limit and big >= opts.floor:
            verdict = f"FAIL (ratio > {opts.limit:g})"
        else:
            verdict = "PASS"
        failed += verdict != "PASS"
        print(f"{name:<48} {n:>9} {small:>8.3f} {big:>8.3f} {ratio:>7.1f}  {verdict}", flush=True)
    print(f"\n{total - failed} of {total} surfaces pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
