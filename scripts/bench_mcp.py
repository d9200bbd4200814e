#!/usr/bin/env python3
"""What `callfix mcp` adds to a tool call: latency per call and memory over a
long session. A benchmark, not a test.

    python scripts/bench_mcp.py [--calls 10000] [--callfix target/release/callfix]

Drives tests/mcp/server.py (the SDK-written test server) with raw JSON-RPC over
stdio, one request at a time, directly and through `callfix mcp`, and reports
the median and 99th percentile round trip of each, and the difference. The calls
cycle through valid, repairable and invalid ones (each with distinct arguments);
the proxy's resident memory is read from /proc after the first 1,000 calls and
at the end. Needs: pip install mcp (Linux, for /proc).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVER = [sys.executable, str(ROOT / "tests" / "mcp" / "server.py")]


def rss_kib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def session(command, calls, proxy):
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def ask(message):
        start = time.perf_counter()
        proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()
        while True:
            answer = json.loads(proc.stdout.readline())
            if answer.get("id") == message["id"] and "method" not in answer:
                return time.perf_counter() - start

    ask({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"}}})
    proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    ask({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    times, memory = [], []
    for i in range(calls):
        args = [
            {"file_path": f"/work/{i}.py", "offset": i},
            {"file_path": f"/work/{i}.py", "offset": str(i)},
            {"offset": i},
        ][i % 3]
        times.append(ask({"jsonrpc": "2.0", "id": i + 2, "method": "tools/call",
                          "params": {"name": "read", "arguments": args}}))
        if proxy and i + 1 in (1000, calls):
            memory.append(rss_kib(proc.pid))
    proc.stdin.close()
    proc.wait()
    return times, memory


def ms(seconds):
    return f"{seconds * 1000:.3f} ms"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--calls", type=int, default=10_000)
    p.add_argument("--callfix", default=str(ROOT / "target" / "release" / "callfix"))
    a = p.parse_args()
    direct, _ = session(SERVER, a.calls, proxy=False)
    proxied, memory = session([a.callfix, "mcp", "--", *SERVER], a.calls, proxy=True)
    q = lambda ts, n: statistics.quantiles(ts, n=100)[n - 1]
    # Rejected calls are answered by callfix without the server: faster. The
    # cost of the proxy is what it adds to the calls the server still answers.
    fwd = lambda ts: [t for i, t in enumerate(ts) if i % 3 != 2]
    print(f"{a.calls} sequential tools/call round trips (1/3 valid, 1/3 repaired, 1/3 rejected):")
    for what, d, c in (("all calls", direct, proxied), ("forwarded calls", fwd(direct), fwd(proxied))):
        print(f"  {what}:")
        print(f"    direct       median {ms(statistics.median(d))}, p99 {ms(q(d, 99))}")
        print(f"    callfix mcp  median {ms(statistics.median(c))}, p99 {ms(q(c, 99))}")
    added = statistics.median(fwd(proxied)) - statistics.median(fwd(direct))
    print(f"  added to a forwarded call (median): {ms(added)} (target <= 1 ms)")
    print(f"  proxy memory: {memory[0]} KiB after 1,000 calls, {memory[-1]} KiB after {a.calls:,}")


if __name__ == "__main__":
    main()
