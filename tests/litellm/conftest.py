"""A real LiteLLM proxy with callfix's guardrail, against a fake upstream
(upstream.py), for tests/litellm. scripts/test_litellm.sh installs the pinned
LiteLLM and openai into the venv that runs this.

Three proxies start at once (each takes seconds): ``retry`` from
examples/litellm/config.yaml as shipped, and ``error`` and ``pass``, the same
config with ``on_reject`` changed. Each runs in a temporary directory of its
own, on 127.0.0.1, and is stopped by the tests (``stop``), which check that it
shuts down cleanly.

CALLFIX_REQUIRE_ALL=1 (.ci/run) makes a skipped test a failure (the hooks are
shared with the other Python suites: tests/pytest_require_all.py)."""

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time

import pytest
import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from pytest_require_all import pytest_make_collect_report, pytest_runtest_makereport  # noqa: E402,F401

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXAMPLE = os.path.join(ROOT, "examples", "litellm", "config.yaml")
BIN = os.path.dirname(sys.executable)
STARTUP = 90.0

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read",
            "description": "Read a file.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "offset": {"type": "integer"}},
                "required": ["path"],
            },
        },
    }
]


class Upstream:
    def __init__(self, proc, base, record):
        self.proc, self.base, self.record = proc, base, record

    def requests(self):
        if not os.path.exists(self.record):
            return []
        with open(self.record, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]

    def mark(self):
        return len(self.requests())

    def since(self, mark):
        return self.requests()[mark:]


class Proxy:
    def __init__(self, name, proc, port, key, log, workdir):
        self.name, self.proc, self.port, self.key, self.log, self.workdir = name, proc, port, key, log, workdir
        self.base = f"http://127.0.0.1:{port}"

    def client(self, **kw):
        import openai

        return openai.OpenAI(base_url=self.base + "/v1", api_key=self.key, max_retries=0, timeout=60, **kw)

    def log_text(self):
        with open(self.log, encoding="utf-8", errors="replace") as f:
            return f.read()

    def stop(self, timeout=30.0):
        """SIGTERM, as a supervisor stops it; returns its exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError(f"proxy {self.name} did not stop within {timeout} s")
        return self.proc.returncode


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(proxy, deadline):
    import urllib.request

    while time.time() < deadline:
        if proxy.proc.poll() is not None:
            raise RuntimeError(f"proxy {proxy.name} exited {proxy.proc.returncode}:\n{proxy.log_text()[-4000:]}")
        try:
            with urllib.request.urlopen(proxy.base + "/health/liveliness", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"proxy {proxy.name} not ready in {STARTUP} s:\n{proxy.log_text()[-4000:]}")


@pytest.fixture(scope="session")
def upstream(tmp_path_factory):
    d = tmp_path_factory.mktemp("upstream")
    port_file, record = str(d / "port"), str(d / "requests.jsonl")
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "upstream.py"), port_file, record])
    deadline = time.time() + 20
    while not os.path.exists(port_file):
        assert proc.poll() is None and time.time() < deadline, "the fake upstream did not start"
        time.sleep(0.05)
    with open(port_file) as f:
        port = int(f.read())
    yield Upstream(proc, f"http://127.0.0.1:{port}/v1", record)
    proc.terminate()
    proc.wait(10)


def start(name, config, upstream, tmp_path_factory):
    d = tmp_path_factory.mktemp(f"proxy-{name}")
    if isinstance(config, str):
        path = config
    else:
        path = d / "config.yaml"
        path.write_text(yaml.safe_dump(config))
    key = "sk-" + secrets.token_hex(12)
    port = free_port()
    env = dict(
        os.environ,
        UPSTREAM_BASE=upstream.base,
        UPSTREAM_KEY="sk-upstream",
        LITELLM_MASTER_KEY=key,
        LITELLM_LOCAL_MODEL_COST_MAP="True",
        NO_PROXY="127.0.0.1,localhost",
    )
    log = str(d / "proxy.log")
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [os.path.join(BIN, "litellm"), "--config", str(path), "--host", "127.0.0.1", "--port", str(port)],
            cwd=str(d),
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    return Proxy(name, proc, port, key, log, str(d))


@pytest.fixture(scope="session")
def proxies(upstream, tmp_path_factory):
    with open(EXAMPLE) as f:
        shipped = yaml.safe_load(f)
    configs = {"retry": EXAMPLE}
    for mode in ("error", "pass"):
        c = json.loads(json.dumps(shipped))
        c["guardrails"][0]["litellm_params"]["on_reject"] = mode
        configs[mode] = c
    # The shipped config is used as it is, from where it is.
    running = {name: start(name, c, upstream, tmp_path_factory) for name, c in configs.items()}
    try:
        deadline = time.time() + STARTUP
        for p in running.values():
            wait_ready(p, deadline)
        yield running
    finally:
        for p in running.values():
            if p.proc.poll() is None:
                p.stop()


@pytest.fixture
def proxy(proxies):
    return proxies["retry"]
