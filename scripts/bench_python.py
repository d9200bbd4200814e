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
asserts formats), and keep the arguments and the status. callfix does it with
`Toolset.check_many` over the lines.

Needs: pip install callfix jsonschema json_repair (a venv built from this repo).
"""

import argparse
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


def peer(lines, validators):
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
        ok = validators[name].is_valid(args)
        out.append((name, "valid" if ok else "rejected", args))
    return out


def ours(lines, toolset):
    return [(r.tool, r.status, r.args) for r in toolset.check_many(lines)]


def cpu(fn, *args):
    start = time.process_time()
    result = fn(*args)
    return time.process_time() - start, result


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--calls", type=int, default=100_000)
    p.add_argument("--tools", type=int, default=20)
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
        peer(lines[:1000], validators)
        ours(lines[:1000], toolset)
        t_peer, r_peer = cpu(peer, lines, validators)
        t_ours, r_ours = cpu(ours, lines, toolset)
    assert [r[:2] for r in r_peer] == [r[:2] for r in r_ours], "both sides agree"
    assert all(r[1] == "valid" for r in r_ours)
    print(f"{len(lines)} valid calls over {a.tools} tools, CPU seconds:")
    print(f"  python-jsonschema {jsonschema.__version__ if hasattr(jsonschema, '__version__') else ''}"
          f" + json_repair: {t_peer:.2f} s ({len(lines) / t_peer:,.0f} calls/s)")
    print(f"  callfix {callfix.__version__} check_many:     {t_ours:.2f} s ({len(lines) / t_ours:,.0f} calls/s)")
    print(f"  ratio: {t_peer / t_ours:.1f}x")


if __name__ == "__main__":
    main()
