#!/bin/sh
# `callfix report` against the filter it is built on: throughput and memory.
#
#     scripts/bench_report.sh BIN TMP [SIZE_MB] [--check]
#
# Generates in TMP (created; nothing is written elsewhere) a log of about
# SIZE_MB megabytes (default 1024): JSON Lines of OpenAI chat responses from
# six models calling eight tools, valid, repaired, rejected (missing,
# wrong type, unknown tool, not JSON, cut off) and calls leaked into text,
# mixed in a fixed proportion; and a log ten times smaller of the same mix.
# Runs `BIN -f json` (the filter, output to /dev/null) and `BIN report
# --format json` on the big log, and `report` again on the small one, and
# prints each run's CPU time (user + system) and peak RSS, the ratio of
# report's throughput to the filter's (target >= 0.80) and the peak RSS of
# both report runs (flat memory: the same peak within a few MB). With
# --check, exits 1 when the ratio is under 0.80 or the two report peaks
# differ by more than 8 MB.
set -eu

if [ $# -lt 2 ]; then
    echo "usage: $0 BIN TMP [SIZE_MB] [--check]" >&2
    exit 2
fi
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
mkdir -p "$2"
tmp=$(cd "$2" && pwd)
size=${3:-1024}
check=${4:-}

exec python3 - "$bin" "$tmp" "$size" "$check" <<'EOF'
import json
import os
import random
import sys
import time

bin_, tmp, size_mb, check = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "--check"
schemas = os.path.join(tmp, "schemas")
os.makedirs(schemas, exist_ok=True)

TOOLS = {
    "get_weather": {"city": "string", "days": "integer"},
    "search": {"query": "string", "limit": "integer"},
    "read_file": {"path": "string", "offset": "integer"},
    "write_file": {"path": "string", "content": "string"},
    "run_shell": {"command": "string", "timeout": "integer"},
    "send_email": {"to": "string", "subject": "string"},
    "create_event": {"title": "string", "all_day": "boolean"},
    "lookup_order": {"order_id": "string", "verbose": "boolean"},
}
for name, props in TOOLS.items():
    first = next(iter(props))
    with open(os.path.join(schemas, name + ".json"), "w") as f:
        json.dump({"type": "object", "required": [first],
                   "properties": {k: {"type": t} for k, t in props.items()},
                   "additionalProperties": False}, f)

MODELS = ["kimi-k2@vendor-a", "kimi-k2@vendor-b", "kimi-k2@vendor-c",
          "gpt-4.1-mini", "claude-sonnet-4", "qwen3-coder"]
FILLER = "the quick brown fox jumps over the lazy dog; " * 3


def value(t, rng):
    return {"string": "value-%d %s" % (rng.randrange(10**6), FILLER[: rng.randrange(60)]),
            "integer": rng.randrange(1000), "boolean": rng.random() < 0.5}[t]


def record(rng):
    model = rng.choice(MODELS)
    name = rng.choice(list(TOOLS))
    props = TOOLS[name]
    args = {k: value(t, rng) for k, t in props.items()}
    first = next(iter(props))
    kind = rng.choices(["valid", "coerce", "missing", "wrong", "unknown", "notjson",
                        "cut", "leak", "fence"], [60, 10, 6, 5, 3, 2, 3, 6, 5])[0]
    finish = "tool_calls"
    text = None
    if kind == "coerce":
        k = next((k for k, t in props.items() if t in ("integer", "boolean")), None)
        if k:
            args[k] = str(args[k]).lower()
    elif kind == "missing":
        del args[first]
    elif kind == "wrong":
        args[first] = 12345
    elif kind == "unknown":
        name = "launch_" + name
    arguments = json.dumps(args)
    if kind == "notjson":
        arguments = "call " + name + " with " + FILLER
    elif kind == "cut":
        arguments = arguments[: len(arguments) // 2]
        finish = "length"
    elif kind == "fence":
        arguments = "```json\n" + arguments + "\n```"
    msg = {"role": "assistant", "content": None,
           "tool_calls": [{"id": "call_%d" % rng.randrange(10**9), "type": "function",
                           "function": {"name": name, "arguments": arguments}}]}
    if kind == "leak":
        msg = {"role": "assistant",
               "content": "<tool_call>" + json.dumps({"name": name, "arguments": args}) + "</tool_call>"}
        finish = "stop"
    return json.dumps({"id": "chatcmpl-%d" % rng.randrange(10**9), "object": "chat.completion",
                       "created": 1760000000, "model": model,
                       "choices": [{"index": 0, "message": msg, "finish_reason": finish}],
                       "usage": {"prompt_tokens": 812, "completion_tokens": 40, "total_tokens": 852}})


def generate(path, size):
    # A block of distinct records, repeated: the mix is the same at any size.
    rng = random.Random(31)
    block = "".join(record(rng) + "\n" for _ in range(2000)).encode()
    if os.path.exists(path) and os.path.getsize(path) >= size:
        return
    with open(path, "wb") as f:
        written = 0
        while written < size:
            f.write(block)
            written += len(block)


def run(args, stdin=None):
    with open(stdin or os.devnull, "rb") as i, open(os.devnull, "wb") as o:
        start = time.monotonic()
        pid = os.posix_spawn(args[0], args, os.environ,
                             file_actions=[(os.POSIX_SPAWN_DUP2, i.fileno(), 0),
                                           (os.POSIX_SPAWN_DUP2, o.fileno(), 1)])
        _, status, ru = os.wait4(pid, 0)
        wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit("%s exited %d" % (" ".join(args), code))
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, wall


big = os.path.join(tmp, "big.jsonl")
small = os.path.join(tmp, "small.jsonl")
generate(big, size_mb << 20)
generate(small, (size_mb << 20) // 10)
mb = os.path.getsize(big) / 2**20

filt = run([bin_, "--no-config", "--schemas", schemas, "-f", "json"], stdin=big)
rep = run([bin_, "--no-config", "report", "--schemas", schemas, "--format", "json", big])
rep_small = run([bin_, "--no-config", "report", "--schemas", schemas, "--format", "json", small])
ratio = filt[0] / rep[0]

print("log: %.0f MB (%s), small log: %.0f MB" % (mb, big, os.path.getsize(small) / 2**20))
print("%-34s %8s %9s %10s %9s" % ("", "CPU s", "MB/s CPU", "peak RSS", "wall s"))
for label, (cpu, rss, wall), size in [
        ("callfix -f json (filter)", filt, mb), ("callfix report --format json", rep, mb),
        ("callfix report, log / 10", rep_small, mb / 10)]:
    print("%-34s %8.2f %9.1f %7.1f MB %9.2f" % (label, cpu, size / cpu, rss, wall))
print("report throughput / filter throughput: %.2f (target >= 0.80)" % ratio)
print("report peak RSS: %.1f MB on the log, %.1f MB on a log ten times smaller" % (rep[1], rep_small[1]))
if check and (ratio < 0.80 or abs(rep[1] - rep_small[1]) > 8):
    sys.exit("FAIL: ratio %.2f, peaks %.1f / %.1f MB" % (ratio, rep[1], rep_small[1]))
EOF
