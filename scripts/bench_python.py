#!/usr/bin/env python3
"""callfix from Python against the same work done with python-jsonschema and
json_repair, in one process. A benchmark, not a test: it prints CPU seconds and
the ratio.

    python scripts/bench_python.py [--calls 100000] [--tools 20]

Both sides get the same JSON Lines records (generic, OpenAI and Anthropic
envelopes, from scripts/gen_calls.py, all valid) and must, for each call: find
the tool, turn argument text into a value (json_repair.loads: the repairing
parse, as agents use it), validate against the tool's schema (a
Draft202012Validator compiled once per tool, format checking on, as callfix
asserts formats), and keep the tool and the status. callfix does it with
`Toolset.check_many` over the lines.

Two workloads: keeping tool and status (a batch job counting verdicts), and
keeping the arguments too, as Python objects (a gateway passing them on). The
second adds building a dict per call, and the collector's walks over the
growing heap of dicts that both sides keep, to both sides.

Then one call at a time: `Toolset.check` on the shipped `read` tool, a valid
call and one `coerce-number` repairs, each timed alone (`perf_counter_ns`,
after a warm-up), as p50 and p99 in microseconds.

Needs: pip install callfix jsonschema json_repair (a venv built from this repo).
"""

import argparse
from importlib.metadata import version
import json
import pathlib
import subprocess
import sys
import tempfile
import time

import json_repair
import jsonschema

import callfix

HERE = pathlib.Path(__file__).resolve().parent


def peer(lines, validators, keep_args):
    out = []
    for line in lines:
        rec = json.loads(line)
        if "function" in rec:
            name, args = rec["function"]["name"], rec["function"]["arguments"]
        elif rec.get("type") == "tool_use":
            name, args = rec["name"], rec["input"]
        else:
            name, args = rec["name"], rec["arguments"]
        if isinstance(args, str):
            args = json_repair.loads(args)
        status = "valid" if validators[name].is_valid(args) else "rejected"
        out.append((name, status, args) if keep_args else (name, status))
    return out


def ours(lines, toolset, keep_args):
    if keep_args:
        return [(r.tool, r.status, r.args) for r in toolset.check_many(lines)]
    return [(r.tool, r.status) for r in toolset.check_many(lines)]


def cpu(fn, *args):
    start = time.process_time()
    result = fn(*args)
    return time.process_time() - start, result


def best(runs, fn, *args):
    """The least CPU time of `runs` runs (a shared machine only ever adds time)."""
    times, result = [], None
    for _ in range(runs):
        t, result = cpu(fn, *args)
        times.append(t)
    return min(times), result


def latency(toolset, args, n=20_000):
    """p50 and p99 of one `Toolset.check` call, in microseconds."""
    for _ in range(1000):
        toolset.check("read", args)
    clock = time.perf_counter_ns
    times = []
    for _ in range(n):
        start = clock()
        toolset.check("read", args)
        times.append(clock() - start)
    times.sort()
    return times[n // 2] / 1000, times[n * 99 // 100] / 1000


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--calls", type=int, default=100_000)
    p.add_argument("--tools", type=int, default=20)
    p.add_argument("--runs", type=int, default=3, help="runs per side; the fastest counts")
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        schemas, calls = pathlib.Path(tmp, "schemas"), pathlib.Path(tmp, "calls.jsonl")
        schemas.mkdir()
        subprocess.run(
            [sys.executable, str(HERE / "gen_calls.py"), str(schemas), str(calls),
             "--tools", str(a.tools), "--calls", str(a.calls), "--broken", "0"],
            check=True,
        )
        lines = calls.read_text().splitlines()
        validators = {}
        for f in schemas.glob("*.json"):
            schema = json.loads(f.read_text())
            cls = jsonschema.validators.validator_for(schema)
            validators[f.stem] = cls(schema, format_checker=cls.FORMAT_CHECKER)
        toolset = callfix.Toolset.from_dir(schemas)
        # Warm both (schemas compile lazily in callfix; caches in both).
        peer(lines[:1000], validators, True)
        ours(lines[:1000], toolset, True)
        print(f"{len(lines)} valid calls over {a.tools} tools, CPU seconds (best of {a.runs}):")
        print(f"  peer: python-jsonschema {version('jsonschema')} + json_repair {version('json_repair')}")
        print(f"  ours: callfix {callfix.__version__} Toolset.check_many")
        for keep_args, what in ((False, "tool and status"), (True, "tool, status and args")):
            t_peer, r_peer = best(a.runs, peer, lines, validators, keep_args)
            t_ours, r_ours = best(a.runs, ours, lines, toolset, keep_args)
            assert r_peer == r_ours, "both sides give the same results"
            assert all(r[1] == "valid" for r in r_ours)
            print(f"  {what:22} peer {t_peer:5.2f} s   ours {t_ours:5.2f} s"
                  f" ({len(lines) / t_ours:,.0f} calls/s)   ratio {t_peer / t_ours:4.1f}x")
    shipped = callfix.Toolset.from_dir(HERE.parent / "schemas")
    for what, args in (("valid", {"file_path": "/a", "offset": 2}),
                       ("repaired", {"file_path": "/a", "offset": "2"})):
        r = shipped.check("read", args)
        assert r.status == what, (what, r.status)
        p50, p99 = latency(shipped, args)
        print(f"  Toolset.check, one {what} call: p50 {p50:.2f} us, p99 {p99:.2f} us")


if __name__ == "__main__":
    main()
