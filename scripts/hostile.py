#!/usr/bin/env python3
"""Hostile inputs: time and memory per record, against the targets of docs/limits.md.

    scripts/hostile.py [--callfix target/release/callfix]

Each case is one record (or one stream) built to hit a stage's worst case. The
time is wall time of the whole process; memory is its peak RSS (/usr/bin/time).
Exits 1 if a target is missed. scripts/bench.sh runs it after the throughput
table.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def measure(cmd, stdin_file=None, stdin_gen=None):
    """(seconds, peak KB, exit code) of cmd under /usr/bin/time."""
    full = ["/usr/bin/time", "-f", "%M"] + cmd
    start = time.monotonic()
    if stdin_gen is not None:
        p = subprocess.Popen(full, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for chunk in stdin_gen():
            p.stdin.write(chunk)
        p.stdin.close()
        err = p.stderr.read().decode()
        code = p.wait()
    else:
        with open(stdin_file or os.devnull, "rb") as f:
            p = subprocess.run(full, stdin=f, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        err, code = p.stderr.decode(), p.returncode
    secs = time.monotonic() - start
    kb = int(err.strip().splitlines()[-1])
    return secs, kb, code


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--callfix", default=os.path.join(ROOT, "target/release/callfix"))
    a = ap.parse_args()
    bin_ = a.callfix
    schemas = os.path.join(ROOT, "schemas")
    work = tempfile.mkdtemp(prefix="callfix-hostile-")
    failed = []

    def row(name, value, target, ok):
        print("%-52s %14s   %-18s %s" % (name, value, target, "ok" if ok else "MISSED"))
        if not ok:
            failed.append(name)

    def write(name, record):
        path = os.path.join(work, name)
        with open(path, "w") as f:
            json.dump(record, f)
            f.write("\n")
        return path

    item = {"content": "a", "status": "Pending", "priority": "high"}
    many_keys = {"file_path": "/a"}
    many_keys.update({"k%d" % i: 1 for i in range(80000)})
    leaks = "".join('<tool_call>{"name":"glob","arguments":{"pattern":"*"}}</tool_call>' for _ in range(100000))
    cases = [
        ("160k-item array, rejected", {"name": "todowrite", "arguments": {"todos": [1] * 160000}}),
        ("8k-item todowrite, repaired", {"name": "todowrite", "arguments": {"todos": [item] * 8000}}),
        ("80k unknown keys", {"name": "read", "arguments": many_keys}),
        ("100k leaked calls in one text", {"role": "assistant", "content": leaks}),
    ]
    print("%-52s %14s   %-18s" % ("case", "measured", "target"))
    for name, record in cases:
        path = write(name.split(",")[0].replace(" ", "_") + ".json", record)
        secs, _kb, code = measure([bin_, "-f", "json", "-s", schemas, path])
        row(name, "%.2f s" % secs, "< 1 s", secs < 1.0 and code in (0, 1))

    # Memory: 2,000 distinct 1 MB rejected calls against one.
    pad = "a" * (1 << 20)

    def calls(n):
        def gen():
            for i in range(n):
                yield ('{"name":"read","arguments":{"offset":"%d%s"}}\n' % (i, pad)).encode()
        return gen

    _, one, _ = measure([bin_, "-s", schemas], stdin_gen=calls(1))
    secs, many, _ = measure([bin_, "-s", schemas], stdin_gen=calls(2000))
    row("2,000 distinct 1 MB rejected calls (%.0f s)" % secs, "%d MB" % (many // 1024),
        "<= %d MB (one + 50)" % (one // 1024 + 50), many <= one + 50 * 1024)

    # A 60 MB record of small integers.
    path = os.path.join(work, "big.json")
    with open(path, "w") as f:
        f.write('{"name":"todowrite","arguments":{"todos":[' + ",".join(["1"] * 30000000) + "]}}\n")
    size = os.path.getsize(path)
    _, kb, _ = measure([bin_, "-s", schemas, path])
    row("60 MB record of small integers", "%.1fx its size" % (kb * 1024 / size), "< 10x", kb * 1024 < 10 * size)

    # Hostile schema sources: each a broken schema at once, the rest unaffected.
    sdir = os.path.join(work, "schemas")
    os.makedirs(sdir)
    os.symlink("/dev/zero", os.path.join(sdir, "zero.json"))
    os.mkfifo(os.path.join(sdir, "fifo.json"))
    defs = {"a%d" % i: {"allOf": [{"$ref": "#/$defs/a%d" % (i + 1)}] * 2} for i in range(40)}
    defs["a40"] = {"type": "string"}
    with open(os.path.join(sdir, "exp.json"), "w") as f:
        json.dump({"type": "object", "properties": {"x": {"$ref": "#/$defs/a0"}}, "$defs": defs}, f)
    with open(os.path.join(sdir, "ok.json"), "w") as f:
        json.dump({"type": "object"}, f)
    for tool in ["zero", "fifo", "exp"]:
        calls_path = os.path.join(work, tool + ".jsonl")
        with open(calls_path, "w") as f:
            f.write('{"name":"%s","arguments":{}}\n{"name":"ok","arguments":{}}\n' % tool)
        out = subprocess.run([bin_, "-f", "json", "-s", sdir, calls_path], capture_output=True, text=True, timeout=60)
        start = time.monotonic()
        subprocess.run([bin_, "-s", sdir, calls_path], capture_output=True, timeout=60)
        secs = time.monotonic() - start
        results = [json.loads(line) for line in out.stdout.split("\n") if line]
        ok = (len(results) == 2 and results[0]["status"] == "rejected" and "broken" in results[0]["message"]
              and results[1]["status"] == "valid" and out.returncode == 2)
        row("schema: %s, broken and the stream goes on" % tool, "%.2f s" % secs, "< 1 s", ok and secs < 1.0)
    print("%d targets missed" % len(failed) if failed else "every target met")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
