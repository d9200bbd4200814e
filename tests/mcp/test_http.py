"""`callfix mcp --url` driven by the official MCP Python SDK's client over stdio,
in front of tests/mcp/http_server.py: server.py's tools served by the SDK's own
Streamable HTTP transport (uvicorn on 127.0.0.1), in its event-stream mode and
its JSON-response mode.

    CALLFIX=target/debug/callfix pytest tests/mcp/test_http.py

Run by .ci/run with the rest of tests/mcp (pip install mcp==2.3.0 pytest).
"""

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
import mcp.types as types

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CALLFIX = os.environ.get("CALLFIX", str(ROOT / "target" / "debug" / "callfix"))
INSTRUCTION = "Please rewrite the input with valid arguments. Errors: "


class Upstream:
    """http_server.py, running; its URL and what it received."""

    def __init__(self, tmp_path, json_response=False, env=None):
        self.dir = tmp_path
        self.json_response = json_response
        self.port_file = tmp_path / "port"
        self.requests = tmp_path / "requests.jsonl"
        self.calls = tmp_path / "calls.jsonl"
        environ = {**os.environ, "PORT_FILE": str(self.port_file),
                   "REQUEST_LOG": str(self.requests), "SERVER_LOG": str(self.calls), **(env or {})}
        if json_response:
            environ["JSON_RESPONSE"] = "1"
        self.process = subprocess.Popen([sys.executable, str(HERE / "http_server.py")], env=environ)
        deadline = time.monotonic() + 20
        while not self.port_file.exists():
            assert self.process.poll() is None, "the HTTP server did not start"
            assert time.monotonic() < deadline, "the HTTP server did not listen in time"
            time.sleep(0.05)
        self.url = f"http://127.0.0.1:{self.port_file.read_text()}/mcp"

    def received(self):
        if not self.requests.exists():
            return []
        return [json.loads(line) for line in self.requests.read_text().splitlines()]

    def calls_received(self):
        if not self.calls.exists():
            return []
        return [json.loads(line) for line in self.calls.read_text().splitlines()]

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture(params=["sse", "json"])
def upstream(request, tmp_path):
    up = Upstream(tmp_path, json_response=request.param == "json")
    yield up
    up.stop()


@pytest.fixture
def sse_upstream(tmp_path):
    up = Upstream(tmp_path)
    yield up
    up.stop()


def run(url, body, *options, **session_args):
    async def go():
        params = StdioServerParameters(
            command=CALLFIX, args=["mcp", "--no-config", *options, "--url", url], env=dict(os.environ)
        )
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, **session_args) as session:
                await session.initialize()
                return await body(session)

    return asyncio.run(asyncio.wait_for(go(), 60))


def text(result):
    return result.content[0].text


def test_the_tool_list_is_the_servers(upstream):
    async def body(session):
        return [t.name for t in (await session.list_tools()).tools]

    assert run(upstream.url, body) == [
        "read", "echo", "crash", "wait", "lookaround", "big", "change", "ask", "progress", "announce",
        "poll",
    ]


def test_valid_repaired_and_rejected_calls(upstream, tmp_path):
    log = tmp_path / "judged.jsonl"

    async def body(session):
        await session.list_tools()
        valid = await session.call_tool("read", {"file_path": "/a", "offset": 1})
        repaired = await session.call_tool("read", {"file_path": "/a", "offset": "2"})
        rejected = await session.call_tool("read", {"offset": 1, "limit": "x"})
        return valid, repaired, rejected

    valid, repaired, rejected = run(upstream.url, body, "--log", str(log))
    assert not valid.is_error and json.loads(text(valid)) == {"file_path": "/a", "offset": 1}
    assert not repaired.is_error and json.loads(text(repaired)) == {"file_path": "/a", "offset": 2}
    assert rejected.is_error and text(rejected).startswith(INSTRUCTION)
    # The rejected call never reached the server; the valid one arrived byte for byte.
    assert upstream.calls_received() == [
        {"name": "read", "arguments": {"file_path": "/a", "offset": 1}},
        {"name": "read", "arguments": {"file_path": "/a", "offset": 2}},
    ]
    posted = [r["body"] for r in upstream.received() if '"tools/call"' in r["body"]]
    assert any('"arguments":{"file_path":"/a","offset":1}' in b for b in posted)
    statuses = [json.loads(line)["status"] for line in log.read_text().splitlines()]
    assert statuses == ["valid", "repaired", "rejected"]


def test_the_session_id_and_version_go_with_every_request_and_delete_ends_it(upstream):
    async def body(session):
        await session.list_tools()
        await session.call_tool("echo", {"text": "hi"})

    run(upstream.url, body)
    requests = upstream.received()
    first, rest = requests[0], requests[1:]
    assert '"initialize"' in first["body"] and "mcp-session-id" not in first["headers"]
    sessions = {r["headers"].get("mcp-session-id") for r in rest}
    assert len(sessions) == 1 and None not in sessions
    assert {r["headers"].get("mcp-protocol-version") for r in rest} == {"2025-11-25"}
    for r in requests:
        if r["method"] == "POST":
            assert r["headers"]["accept"] == "application/json, text/event-stream"
            assert r["headers"]["content-type"] == "application/json"
        elif r["method"] == "GET":
            assert r["headers"]["accept"] == "text/event-stream"
    assert requests[-1]["method"] == "DELETE"


def test_headers_from_the_command_line_reach_the_server(sse_upstream):
    async def body(session):
        await session.call_tool("echo", {"text": "hi"})

    run(sse_upstream.url, body, "--header", "Authorization: Bearer t0ken", "-H", "X-Team:  blue ")
    requests = sse_upstream.received()
    assert requests
    for r in requests:
        assert r["headers"]["authorization"] == "Bearer t0ken"
        assert r["headers"]["x-team"] == "blue"


def test_a_server_request_on_the_calls_event_stream_reaches_the_client(sse_upstream):
    asked = []

    async def elicit(context, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    async def body(session):
        return await session.call_tool("ask", {"question": "Your name?"})

    result = run(sse_upstream.url, body, elicitation_callback=elicit)
    assert asked == ["Your name?"]
    assert json.loads(text(result)) == {"action": "accept", "content": {"name": "Ada"}}


def test_progress_notifications_arrive_before_the_answer(upstream):
    seen = []

    async def progress(done, total, message):
        seen.append((done, total))

    async def body(session):
        return await session.call_tool("progress", {"steps": 3}, progress_callback=progress)

    result = run(upstream.url, body)
    assert text(result) == "done"
    if upstream.json_response:
        # The server has no stream to send them on before its one JSON answer.
        assert seen in ([(1, 3), (2, 3), (3, 3)], [])
    else:
        assert seen == [(1, 3), (2, 3), (3, 3)]


def test_list_changed_on_the_get_stream_makes_calls_judged_against_the_new_list(sse_upstream):
    async def body(session):
        await session.list_tools()
        await session.call_tool("announce", {})
        # The notification comes on the GET stream; give the proxy its relisting.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            rejected = await session.call_tool("write", {"path": 3})
            if rejected.is_error:
                return rejected
            await asyncio.sleep(0.2)
        return rejected

    rejected = run(sse_upstream.url, body)
    assert rejected.is_error and text(rejected).startswith(INSTRUCTION)
    gets = [r for r in sse_upstream.received() if r["method"] == "GET"]
    assert gets and "text/event-stream" in gets[0]["headers"]["accept"]


def test_a_stream_the_server_closes_before_its_answer_is_resumed_with_last_event_id(tmp_path):
    up = Upstream(tmp_path, env={"EVENT_STORE": "1"})
    try:
        async def body(session):
            return await session.call_tool("poll", {})

        assert text(run(up.url, body)) == "polled"
        resumed = [r for r in up.received() if r["method"] == "GET" and "last-event-id" in r["headers"]]
        assert resumed, up.received()
    finally:
        up.stop()


def test_a_long_call_does_not_hold_up_the_others(upstream):
    async def body(session):
        await session.list_tools()
        done = []

        async def call(name, args):
            await session.call_tool(name, args)
            done.append(name)

        await asyncio.gather(call("wait", {"seconds": 3}), call("echo", {"text": "quick"}))
        return done

    assert run(upstream.url, body) == ["echo", "wait"]


def test_an_http_error_answers_that_request_and_the_session_goes_on(upstream):
    async def body(session):
        await session.list_tools()
        with pytest.raises(Exception) as failed:
            await session.call_tool("http500", {})
        after = await session.call_tool("echo", {"text": "still here"})
        return str(failed.value), after

    error, after = run(upstream.url, body)
    assert "HTTP 500 Internal Server Error" in error
    assert json.loads(text(after)) == {"text": "still here"}


def raw(url, lines, *options, wait=10):
    """callfix mcp --url with `lines` for stdin: its exit code, stdout lines, stderr."""
    p = subprocess.run([CALLFIX, "mcp", "--no-config", *options, "--url", url],
                       input="".join(json.dumps(m) + "\n" for m in lines),
                       capture_output=True, text=True, timeout=wait)
    return p.returncode, [json.loads(line) for line in p.stdout.splitlines()], p.stderr


HELLO = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]


def test_an_expired_session_answers_what_is_pending_and_ends_the_proxy(sse_upstream):
    p = subprocess.Popen([CALLFIX, "mcp", "--no-config", "--url", sse_upstream.url],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    for m in HELLO:
        p.stdin.write(json.dumps(m) + "\n")
    p.stdin.flush()
    assert json.loads(p.stdout.readline())["id"] == 1
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "expire", "arguments": {}}}
    p.stdin.write(json.dumps(call) + "\n")
    p.stdin.flush()
    answer = json.loads(p.stdout.readline())
    assert answer["id"] == 2 and "HTTP 404" in answer["error"]["message"]
    assert p.wait(10) == 1
    assert "ended the session" in p.stderr.read()


def test_a_server_that_dies_mid_call_gets_the_call_an_error(sse_upstream):
    p = subprocess.Popen([CALLFIX, "mcp", "--no-config", "--url", sse_upstream.url],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    for m in HELLO:
        p.stdin.write(json.dumps(m) + "\n")
    p.stdin.flush()
    assert json.loads(p.stdout.readline())["id"] == 1
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "wait", "arguments": {"seconds": 30}}}
    p.stdin.write(json.dumps(call) + "\n")
    p.stdin.flush()
    time.sleep(1)
    sse_upstream.process.kill()
    sse_upstream.process.wait()
    answer = json.loads(p.stdout.readline())
    assert answer["id"] == 2 and answer["error"]["code"] == -32000
    # Later requests: the server cannot be reached.
    p.stdin.write(json.dumps({**call, "id": 3, "params": {"name": "echo", "arguments": {"text": "x"}}}) + "\n")
    p.stdin.flush()
    answer = json.loads(p.stdout.readline())
    assert answer["id"] == 3 and "cannot reach the MCP server" in answer["error"]["message"]
    p.stdin.close()
    assert p.wait(10) == 0


def test_a_server_that_is_not_there_answers_initialize_with_an_error(tmp_path):
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    code, out, err = raw(f"http://127.0.0.1:{port}/mcp", HELLO[:1])
    assert code == 0
    assert out[0]["id"] == 1 and "cannot reach the MCP server" in out[0]["error"]["message"]
