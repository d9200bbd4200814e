"""server.py's tools over Streamable HTTP: the official SDK's own transport
(`Server.streamable_http_app`, served by uvicorn on 127.0.0.1), for the tests
of `callfix mcp --url` (test_http.py).

More tools: ask (asks the client for a name with elicitation/create, on the
call's own event stream), progress (sends a progress notification first),
announce (sends notifications/tools/list_changed after adding `write`, not
tied to the call: it goes out on the GET stream).

A wrapper in front of the SDK's app records every HTTP request (method,
headers, body) to $REQUEST_LOG, and plays the failing server: a request whose
body names the tool `http500` is answered 500; one that names `expire` is
answered 404, and so is every later request carrying a session id (the session
expired).

Environment: PORT_FILE (where the port is written once listening),
JSON_RESPONSE=1 (answers as one JSON body instead of an event stream),
EVENT_STORE=1 (events kept for resumption with Last-Event-ID; the tool poll
closes its call's stream before answering),
REQUEST_LOG, and server.py's own.
"""

import asyncio
import json
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import mcp.types as types  # noqa: E402
import uvicorn  # noqa: E402
from mcp.server.lowlevel import Server  # noqa: E402
from mcp.server.streamable_http import EventMessage, EventStore  # noqa: E402

import server as base  # noqa: E402

EXTRA = [
    types.Tool(
        name="ask",
        description="Ask the client for a name.",
        inputSchema={"type": "object", "properties": {"question": {"type": "string"}}},
    ),
    types.Tool(
        name="progress",
        description="Report progress, then answer.",
        inputSchema={"type": "object", "properties": {"steps": {"type": "integer"}}},
    ),
    types.Tool(name="announce", description="Add write, say so.", inputSchema={"type": "object"}),
    types.Tool(name="poll", description="Close the call's stream, answer later.",
               inputSchema={"type": "object"}),
]


async def list_tools(ctx, params) -> types.ListToolsResult:
    result = await base.list_tools(ctx, params)
    tools = list(result.tools)
    if result.next_cursor is None:
        tools += EXTRA
    return types.ListToolsResult(tools=tools, next_cursor=result.next_cursor)


async def call_tool(ctx, params) -> types.CallToolResult:
    name, arguments = params.name, params.arguments or {}
    if name == "ask":
        answer = await ctx.session.elicit_form(
            arguments.get("question", "Name?"),
            {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
            related_request_id=ctx.request_id,
        )
        text = json.dumps({"action": answer.action, "content": answer.content})
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
    if name == "progress":
        token = ((ctx.params or {}).get("_meta") or {}).get("progressToken")
        steps = int(arguments.get("steps", 1))
        if token is not None:
            for i in range(steps):
                await ctx.session.send_progress_notification(
                    token, i + 1, steps, related_request_id=ctx.request_id
                )
        return types.CallToolResult(content=[types.TextContent(type="text", text="done")])
    if name == "poll":
        # 2025-11-25's polling: the stream is closed before the answer; the
        # client resumes it with GET and Last-Event-ID (needs EVENT_STORE).
        if ctx.close_sse_stream is not None:
            await ctx.close_sse_stream()
        await asyncio.sleep(0.5)
        return types.CallToolResult(content=[types.TextContent(type="text", text="polled")])
    if name == "announce":
        if base.WRITE not in base.TOOLS:
            base.TOOLS.append(base.WRITE)
        await ctx.session.send_tool_list_changed()
        return types.CallToolResult(content=[types.TextContent(type="text", text="announced")])
    return await base.call_tool(ctx, params)


server = Server("callfix-test-http-server", on_list_tools=list_tools, on_call_tool=call_tool)


class Events(EventStore):
    """Every event kept in memory, for resumption (EVENT_STORE=1)."""

    def __init__(self):
        self.events = []

    async def store_event(self, stream_id, message):
        event_id = str(len(self.events) + 1)
        self.events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(self, last_event_id, send_callback):
        at = next((i for i, e in enumerate(self.events) if e[0] == last_event_id), None)
        if at is None:
            return None
        stream_id = self.events[at][1]
        for event_id, stream, message in self.events[at + 1:]:
            if stream == stream_id and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream_id


class Wrap:
    """Records each request, and fails some on purpose (see the module's docs)."""

    def __init__(self, app):
        self.app = app
        self.expired = False

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        messages, body, more = [], b"", True
        while more:
            message = await receive()
            messages.append(message)
            body += message.get("body", b"")
            more = message.get("more_body", False)
        log = os.environ.get("REQUEST_LOG")
        if log:
            with open(log, "a") as f:
                entry = {"method": scope["method"], "headers": headers, "body": body.decode()}
                f.write(json.dumps(entry) + "\n")
        status = None
        if b'"http500"' in body:
            status = 500
        elif b'"expire"' in body:
            self.expired, status = True, 404
        elif self.expired and "mcp-session-id" in headers:
            status = 404
        if status:
            await send({"type": "http.response.start", "status": status,
                        "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"no"})
            return

        async def replay():
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)


async def main() -> None:
    resumable = bool(os.environ.get("EVENT_STORE"))
    app = server.streamable_http_app(
        json_response=bool(os.environ.get("JSON_RESPONSE")),
        host="127.0.0.1",
        event_store=Events() if resumable else None,
        retry_interval=200 if resumable else None,
    )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    config = uvicorn.Config(Wrap(app), log_level="warning", lifespan="on")
    http = uvicorn.Server(config)
    port_file = os.environ["PORT_FILE"]
    with open(port_file + ".tmp", "w") as f:
        f.write(str(sock.getsockname()[1]))
    os.rename(port_file + ".tmp", port_file)
    await http.serve(sockets=[sock])


if __name__ == "__main__":
    asyncio.run(main())
