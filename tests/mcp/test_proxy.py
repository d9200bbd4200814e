"""`callfix mcp` driven by the official MCP Python SDK's client, over real
servers: tests/mcp/server.py (written with the SDK) and, when $EVERYTHING_SERVER
names its index.js, @modelcontextprotocol/server-everything from npm.

    CALLFIX=target/debug/callfix EVERYTHING_SERVER=.../dist/index.js pytest tests/mcp

Run by .ci/run in a fresh venv (pip install mcp pytest).
"""

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CALLFIX = os.environ.get("CALLFIX", str(ROOT / "target" / "debug" / "callfix"))
SERVER = [sys.executable, str(HERE / "server.py")]
EVERYTHING = os.environ.get("EVERYTHING_SERVER")
INSTRUCTION = "Please rewrite the input with valid arguments. Errors: "


def proxied(server, *options):
    return [CALLFIX, "mcp", *options, "--", *server]


async def with_session(command, env, body):
    params = StdioServerParameters(command=command[0], args=command[1:], env={**os.environ, **env})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await body(session)


def run(command, body, env=None):
    return asyncio.run(with_session(command, env or {}, body))


def received(log):
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def dump(tools):
    return [t.model_dump(mode="json") for t in tools.tools]


def test_tools_list_is_the_servers(tmp_path):
    async def tools(session):
        return dump(await session.list_tools())

    assert run(proxied(SERVER), tools) == run(SERVER, tools)


def test_valid_repairable_and_invalid_calls(tmp_path):
    log, calls_log = tmp_path / "server.jsonl", tmp_path / "calls.jsonl"

    async def body(session):
        await session.list_tools()
        valid = await session.call_tool("read", {"file_path": "/a", "offset": 1})
        repaired = await session.call_tool("read", {"file_path": "/a", "offset": "2"})
        invalid = await session.call_tool("read", {"offset": 1, "limit": "x"})
        unknown = await session.call_tool("not-listed", {"x": 1})
        return valid, repaired, invalid, unknown

    valid, repaired, invalid, unknown = run(
        proxied(SERVER, "--log", str(calls_log)), body, {"SERVER_LOG": str(log)}
    )
    assert not valid.is_error
    assert json.loads(valid.content[0].text) == {"file_path": "/a", "offset": 1}
    assert not repaired.is_error
    assert json.loads(repaired.content[0].text) == {"file_path": "/a", "offset": 2}
    assert invalid.is_error
    assert invalid.content[0].text == INSTRUCTION + "file_path: Required; limit: expected integer, got string"
    # The invalid call never reached the server; the unknown tool did (its call).
    assert received(log) == [
        {"name": "read", "arguments": {"file_path": "/a", "offset": 1}},
        {"name": "read", "arguments": {"file_path": "/a", "offset": 2}},
        {"name": "not-listed", "arguments": {"x": 1}},
    ]
    logged = [json.loads(line) for line in calls_log.read_text().splitlines()]
    assert [(c["tool"], c["status"]) for c in logged] == [
        ("read", "valid"),
        ("read", "repaired"),
        ("read", "rejected"),
    ]
    assert logged[1]["repairs"][0]["kind"] == "coerce-number"


def test_200_concurrent_calls_are_all_answered(tmp_path):
    async def body(session):
        await session.list_tools()
        calls = []
        for i in range(200):
            if i % 3 == 0:
                calls.append({"file_path": f"/f{i}", "offset": i})
            elif i % 3 == 1:
                calls.append({"file_path": f"/f{i}", "offset": str(i)})
            else:
                calls.append({"offset": i})
        results = await asyncio.gather(*(session.call_tool("read", c) for c in calls))
        return calls, results

    calls, results = run(proxied(SERVER), body)
    for i, (call, result) in enumerate(zip(calls, results)):
        if i % 3 == 2:
            assert result.is_error and result.content[0].text == INSTRUCTION + "file_path: Required"
        else:
            assert not result.is_error
            assert json.loads(result.content[0].text) == {"file_path": f"/f{i}", "offset": i}


def rpc(proc, message):
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def read_until_id(proc, id):
    while True:
        line = proc.stdout.readline()
        assert line, "the proxy closed its output"
        message = json.loads(line)
        if message.get("id") == id and "method" not in message:
            return message


def start(tmp_path, *options, env=None):
    proc = subprocess.Popen(
        proxied(SERVER, *options),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "SERVER_PID": str(tmp_path / "pid"), **(env or {})},
    )
    rpc(proc, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}})
    assert "result" in read_until_id(proc, 0)
    rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    return proc


def gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # A zombie still answers kill(0); it has no command line.
    return Path(f"/proc/{pid}/cmdline").read_bytes() == b""


def test_the_server_crashing_answers_pending_requests_and_ends_the_proxy(tmp_path):
    proc = start(tmp_path)
    rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "wait", "arguments": {"seconds": 30}}})
    rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "crash", "arguments": {}}})
    answers = [json.loads(proc.stdout.readline()) for _ in range(2)]
    assert sorted(a["id"] for a in answers) == [1, 2]
    for a in answers:
        assert a["error"]["code"] == -32000
        assert a["error"]["message"] == "the MCP server exited (code 3)"
    assert proc.wait(timeout=10) == 3
    assert gone(int((tmp_path / "pid").read_text()))


@pytest.mark.parametrize("stubborn", [False, True])
def test_the_client_closing_stops_the_server(tmp_path, stubborn):
    env = {"IGNORE_TERM": "1"} if stubborn else {}
    proc = start(tmp_path, "--grace", "0.5", env=env)
    pid = int((tmp_path / "pid").read_text())
    started = time.monotonic()
    proc.stdin.close()
    code = proc.wait(timeout=10)
    # A server ignoring both its closed input and SIGTERM is killed after
    # twice the grace period.
    assert time.monotonic() - started < (3 if stubborn else 2)
    assert code == 0
    assert gone(pid)


def answers_until_eof(proc):
    """Every line the proxy writes until it ends, as messages."""
    return [json.loads(line) for line in proc.stdout]


def call_line(id, name, arguments):
    return {"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}


def test_calls_before_any_tools_list_are_judged(tmp_path):
    # The client never lists the tools; the server takes a while to list them.
    log = tmp_path / "server.jsonl"
    proc = start(tmp_path, env={"SERVER_LOG": str(log), "LIST_DELAY": "0.5"})
    rpc(proc, call_line(1, "read", {"offset": 1}))
    rpc(proc, call_line(2, "read", {"file_path": "/a", "offset": "2"}))
    invalid, repaired = read_until_id(proc, 1), read_until_id(proc, 2)
    proc.stdin.close()
    assert proc.wait(timeout=10) == 0
    assert invalid["result"]["isError"]
    assert invalid["result"]["content"][0]["text"] == INSTRUCTION + "file_path: Required"
    assert json.loads(repaired["result"]["content"][0]["text"]) == {"file_path": "/a", "offset": 2}
    assert received(log) == [{"name": "read", "arguments": {"file_path": "/a", "offset": 2}}]


def test_a_call_waits_for_a_late_list_five_seconds_then_goes_with_a_warning(tmp_path):
    log = tmp_path / "server.jsonl"
    proc = subprocess.Popen(
        proxied(SERVER), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "SERVER_LOG": str(log), "LIST_DELAY": "30"},
    )
    rpc(proc, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}})
    read_until_id(proc, 0)
    rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    started = time.monotonic()
    rpc(proc, call_line(1, "echo", {"text": "hi"}))
    answer = read_until_id(proc, 1)
    waited = time.monotonic() - started
    proc.stdin.close()
    proc.wait(timeout=10)
    assert 4.5 < waited < 8, waited
    assert json.loads(answer["result"]["content"][0]["text"]) == {"text": "hi"}
    warnings = proc.stderr.read().decode()
    assert "no tool list from the MCP server within 5 s: 1 call(s) forwarded unjudged" in warnings


def test_a_paginated_tool_list_is_learned_whole(tmp_path):
    log = tmp_path / "server.jsonl"
    proc = start(tmp_path, env={"SERVER_LOG": str(log), "PAGE_SIZE": "1"})
    rpc(proc, call_line(1, "echo", {}))
    rpc(proc, call_line(2, "wait", {"seconds": "0"}))
    echo, wait = read_until_id(proc, 1), read_until_id(proc, 2)
    proc.stdin.close()
    assert proc.wait(timeout=10) == 0
    assert echo["result"]["content"][0]["text"] == INSTRUCTION + "text: Required"
    assert not wait["result"].get("isError")
    assert received(log) == [{"name": "wait", "arguments": {"seconds": 0}}]


def test_calls_after_list_changed_are_judged_against_the_new_list(tmp_path):
    log = tmp_path / "server.jsonl"

    async def body(session):
        await session.list_tools()
        await session.call_tool("change", {})
        # The client does not list again: callfix does.
        write = await session.call_tool("write", {"mode": "w"})
        read = await session.call_tool("read", {"offset": 1})
        return write, read

    write, read = run(proxied(SERVER), body, {"SERVER_LOG": str(log)})
    assert write.is_error and write.content[0].text.startswith(INSTRUCTION)
    assert "path: Required" in write.content[0].text
    assert read.is_error and read.content[0].text == INSTRUCTION + "file_path: Required"
    assert received(log) == [{"name": "change", "arguments": {}}]


def test_a_schema_callfix_cannot_compile_is_the_servers_with_one_warning(tmp_path):
    log = tmp_path / "server.jsonl"
    proc = subprocess.Popen(
        proxied(SERVER), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "SERVER_LOG": str(log)},
    )
    rpc(proc, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}})
    read_until_id(proc, 0)
    rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    rpc(proc, {"jsonrpc": "2.0", "id": 9, "method": "tools/list"})
    read_until_id(proc, 9)
    for i in (1, 2):
        rpc(proc, call_line(i, "lookaround", {"code": f"a{i}"}))
        assert not read_until_id(proc, i)["result"].get("isError")
    proc.stdin.close()
    assert proc.wait(timeout=10) == 0
    warnings = [l for l in proc.stderr.read().decode().splitlines() if "lookaround" in l]
    assert len(warnings) == 1, warnings
    assert "forwarded unjudged" in warnings[0]
    assert received(log) == [{"name": "lookaround", "arguments": {"code": "a1"}},
                             {"name": "lookaround", "arguments": {"code": "a2"}}]


def test_a_crash_answers_every_request_exactly_once(tmp_path):
    # The client goes on sending while the server dies: each request it sent
    # before the proxy ended is answered, once.
    proc = start(tmp_path)
    sent = []
    try:
        for i in range(1, 501):
            message = call_line(i, "crash", {}) if i == 10 else {"jsonrpc": "2.0", "id": i, "method": "ping"}
            proc.stdin.write((json.dumps(message) + "\n").encode())
            proc.stdin.flush()
            sent.append(i)
            time.sleep(0.002)
    except BrokenPipeError:
        pass
    answers = answers_until_eof(proc)
    assert proc.wait(timeout=10) == 3
    ids = sorted(a["id"] for a in answers if "method" not in a)
    assert ids == list(range(1, 501)), f"{len(sent)} sent, {len(ids)} answered"


def test_a_server_behind_sh_that_ignores_sigterm_is_killed(tmp_path):
    pid_file = tmp_path / "pid"
    shell = ["sh", "-c", f'"{sys.executable}" "{HERE / "server.py"}"; true']
    proc = subprocess.Popen(
        [CALLFIX, "mcp", "--grace", "0.5", "--", *shell],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        env={**os.environ, "SERVER_PID": str(pid_file), "IGNORE_TERM": "1"},
    )
    rpc(proc, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}})
    read_until_id(proc, 0)
    pid = int(pid_file.read_text())
    proc.stdin.close()
    proc.wait(timeout=10)
    deadline = time.monotonic() + 3
    while not gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        assert gone(pid), "the server behind sh -c is still running"
    finally:
        if not gone(pid):
            os.kill(pid, signal.SIGKILL)


LIMIT = 64 * 1024 * 1024


def test_an_oversized_line_from_the_client_gets_an_error_and_the_session_goes_on(tmp_path):
    log = tmp_path / "server.jsonl"
    proc = start(tmp_path, env={"SERVER_LOG": str(log)})
    big = call_line(1, "echo", {"text": "x" * (LIMIT + 10)})
    rpc(proc, big)
    proc.stdin.write(b"{" + b" " * (LIMIT + 10) + b"\n")
    proc.stdin.flush()
    rpc(proc, call_line(2, "echo", {"text": "hi"}))
    first = json.loads(proc.stdout.readline())
    second = json.loads(proc.stdout.readline())
    after = read_until_id(proc, 2)
    proc.stdin.close()
    assert proc.wait(timeout=10) == 0
    assert first["id"] == 1 and first["error"]["code"] == -32600
    assert second["id"] is None and second["error"]["code"] == -32700
    assert json.loads(after["result"]["content"][0]["text"]) == {"text": "hi"}
    assert received(log) == [{"name": "echo", "arguments": {"text": "hi"}}]


def test_an_oversized_answer_from_the_server_is_an_error_for_its_request(tmp_path):
    proc = start(tmp_path)
    rpc(proc, call_line(1, "big", {"size": LIMIT + 10}))
    rpc(proc, call_line(2, "big", {"size": 3}))
    answers = {}
    while len(answers) < 2:
        message = json.loads(proc.stdout.readline())
        answers[message["id"]] = message
    proc.stdin.close()
    assert proc.wait(timeout=10) == 0
    assert answers[1]["error"]["code"] == -32603
    assert answers[2]["result"]["content"][0]["text"] == "xxx"


everything = pytest.mark.skipif(not EVERYTHING, reason="EVERYTHING_SERVER is not set")


@everything
def test_server_everything_through_the_proxy():
    server = ["node", EVERYTHING, "stdio"]

    async def tools(session):
        return dump(await session.list_tools())

    assert run(proxied(server), tools) == run(server, tools)

    async def calls(session):
        await session.list_tools()
        return [
            await session.call_tool("echo", {"message": "hi"}),
            await session.call_tool("get-sum", {"a": "2", "b": 3}),
            await session.call_tool("echo", {}),
        ]

    echo, total, missing = run(proxied(server), calls)
    assert not echo.is_error and echo.content[0].text == "Echo: hi"
    assert not total.is_error and total.content[0].text == "The sum of 2 and 3 is 5."
    assert missing.is_error and missing.content[0].text == INSTRUCTION + "message: Required"
    # Without callfix, the server rejects the repairable call itself.
    direct = run(server, calls)
    assert direct[1].is_error
