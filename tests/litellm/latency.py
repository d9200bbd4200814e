"""What the guardrail adds to a request (a measurement, not a test):

    LITELLM_LOCAL_MODEL_COST_MAP=True VENV/bin/python tests/litellm/latency.py [N]

One run, one fake upstream (no pause), two LiteLLM proxies started from
examples/litellm/config.yaml: as shipped, and without its guardrails section.
Requests alternate between the two (so drift hits both alike), N each
(default 400) per kind: non-streaming and streaming (to the last chunk), one
valid call in the answer, through the official openai client. Prints p50 and
p99 per proxy and the difference."""

import os
import statistics
import sys
import time

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import conftest  # noqa: E402


class Factory:
    """tmp_path_factory, enough for conftest.start."""

    def __init__(self):
        import tempfile

        self.root = tempfile.mkdtemp(prefix="callfix-latency-")

    def mktemp(self, name):
        import pathlib

        p = pathlib.Path(self.root) / name
        p.mkdir()
        return p


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    os.environ["UPSTREAM_PAUSE"] = "0"
    factory = Factory()
    gen = conftest.upstream.__wrapped__(factory)
    up = next(gen)
    with open(conftest.EXAMPLE) as f:
        bare = yaml.safe_load(f)
    bare.pop("guardrails")
    proxies = {"callfix": conftest.start("callfix", conftest.EXAMPLE, up, factory),
               "bare": conftest.start("bare", bare, up, factory)}
    try:
        deadline = time.time() + conftest.STARTUP
        for p in proxies.values():
            conftest.wait_ready(p, deadline)
        clients = {k: p.client() for k, p in proxies.items()}
        msgs = [{"role": "user", "content": "scenario:valid"}]
        kinds = {}
        for stream in (False, True):
            times = {k: [] for k in proxies}
            for i in range(n + 20):
                for k, c in (sorted(clients.items()) if i % 2 else sorted(clients.items(), reverse=True)):
                    t = time.perf_counter()
                    if stream:
                        for _ in c.chat.completions.create(model="callfix-demo", messages=msgs, tools=conftest.TOOLS, stream=True):
                            pass
                    else:
                        c.chat.completions.create(model="callfix-demo", messages=msgs, tools=conftest.TOOLS)
                    if i >= 20:  # warm-up
                        times[k].append(time.perf_counter() - t)
            kinds["streaming" if stream else "non-streaming"] = times
        print(f"{n} requests per proxy and kind, one valid call each (litellm 1.108.7, 127.0.0.1)")
        for kind, times in kinds.items():
            row = {k: (pct(v, 0.5) * 1e3, pct(v, 0.99) * 1e3) for k, v in times.items()}
            print(f"  {kind:14} LiteLLM alone p50 {row['bare'][0]:6.2f} ms  p99 {row['bare'][1]:6.2f} ms"
                  f" | with callfix p50 {row['callfix'][0]:6.2f} ms  p99 {row['callfix'][1]:6.2f} ms"
                  f" | added p50 {row['callfix'][0] - row['bare'][0]:+.2f} ms  p99 {row['callfix'][1] - row['bare'][1]:+.2f} ms"
                  f" (mean {1e3 * (statistics.mean(times['callfix']) - statistics.mean(times['bare'])):+.2f} ms)")
    finally:
        for p in proxies.values():
            p.stop()
        try:
            next(gen)
        except StopIteration:
            pass
        import shutil

        shutil.rmtree(factory.root, ignore_errors=True)


if __name__ == "__main__":
    main()
