"""The peer for scripts/bench.sh: callfix's work done with python-jsonschema.

Reads JSON Lines of tool calls (generic, OpenAI or Anthropic envelope), builds each
tool's validator once (lazily), validates, and prints the arguments or the errors.

    python3 jsonschema_filter.py SCHEMA_DIR < calls.jsonl
"""
import json
import os
import sys

from jsonschema import Draft202012Validator

schema_dir = sys.argv[1]
cache = {}


def validator(name):
    if name not in cache:
        path = os.path.join(schema_dir, name + ".json")
        if os.path.exists(path):
            with open(path) as f:
                cache[name] = Draft202012Validator(json.load(f))
        else:
            cache[name] = None
    return cache[name]


out = sys.stdout
for line in sys.stdin:
    if not line.strip():
        continue
    try:
        rec = json.loads(line)
    except ValueError:
        out.write("invalid record\n")
        continue
    if "function" in rec:
        name, args = rec["function"]["name"], rec["function"]["arguments"]
    elif rec.get("type") == "tool_use":
        name, args = rec["name"], rec["input"]
    else:
        name, args = rec["name"], rec["arguments"]
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            out.write("invalid arguments\n")
            continue
    v = validator(name)
    if v is None:
        out.write("unknown tool %s\n" % name)
        continue
    errors = list(v.iter_errors(args))
    out.write((json.dumps(args, separators=(",", ":")) if not errors else "; ".join(e.message for e in errors[:5])) + "\n")
