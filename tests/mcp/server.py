"""A small MCP server written with the official Python SDK (its low-level
`Server`), for the proxy's integration tests. It validates nothing itself and
appends every call it receives, arguments as received, to $SERVER_LOG, so a
test can tell what reached it.

Tools: read (file_path required, offset/limit integers), echo (text), crash
(exits with code 3 before answering), wait (sleeps `seconds`), lookaround (a
schema with a look-around pattern, which callfix cannot compile), big (answers
with `size` bytes of text), change (adds the tool `write` and sends
notifications/tools/list_changed).

Environment: LIST_DELAY (seconds tools/list takes), PAGE_SIZE (tools per
tools/list page), SERVER_PID (a file for the pid), IGNORE_TERM.
"""

import asyncio
import json
import os
import signal
import sys

import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

TOOLS = [
    types.Tool(
        name="read",
        description="Read a file.",
        inputSchema={
            "type": "object",
            "properties": {
                "file_path": {"type": "string"},
                "offset": {"type": "integer"},
                "limit": {"type": "integer"},
            },
            "required": ["file_path"],
            "additionalProperties": False,
        },
    ),
    types.Tool(
        name="echo",
        description="Echo the text.",
        inputSchema={
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    ),
    types.Tool(name="crash", description="Exit at once.", inputSchema={"type": "object"}),
    types.Tool(
        name="wait",
        description="Sleep.",
        inputSchema={"type": "object", "properties": {"seconds": {"type": "number"}}},
    ),
    types.Tool(
        name="lookaround",
        description="A pattern Rust's regex cannot compile.",
        inputSchema={
            "type": "object",
            "properties": {"code": {"type": "string", "pattern": "^(?!x)"}},
            "required": ["code"],
        },
    ),
    types.Tool(
        name="big",
        description="Answer with `size` bytes.",
        inputSchema={"type": "object", "properties": {"size": {"type": "integer"}}},
    ),
    types.Tool(name="change", description="Add the tool write.", inputSchema={"type": "object"}),
]

WRITE = types.Tool(
    name="write",
    description="Write a file.",
    inputSchema={
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
        "additionalProperties": False,
    },
)


async def list_tools(ctx, params) -> types.ListToolsResult:
    await asyncio.sleep(float(os.environ.get("LIST_DELAY", "0")))
    size = int(os.environ.get("PAGE_SIZE", "0"))
    if not size:
        return types.ListToolsResult(tools=TOOLS)
    start = int(params.cursor) if params and params.cursor else 0
    more = start + size < len(TOOLS)
    return types.ListToolsResult(
        tools=TOOLS[start : start + size], next_cursor=str(start + size) if more else None
    )


async def call_tool(ctx, params) -> types.CallToolResult:
    name, arguments = params.name, params.arguments or {}
    log = os.environ.get("SERVER_LOG")
    if log:
        with open(log, "a") as f:
            f.write(json.dumps({"name": name, "arguments": arguments}) + "\n")
    if name == "crash":
        os._exit(3)
    if name == "wait":
        await asyncio.sleep(float(arguments.get("seconds", 0)))
    if name == "big":
        return types.CallToolResult(content=[types.TextContent(type="text", text="x" * arguments["size"])])
    if name == "change":
        if WRITE not in TOOLS:
            TOOLS.append(WRITE)
        await ctx.session.send_tool_list_changed()
    text = json.dumps(arguments, sort_keys=True)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


server = Server("callfix-test-server", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    pid_file = os.environ.get("SERVER_PID")
    if pid_file:
        with open(pid_file, "w") as f:
            f.write(str(os.getpid()))
    if os.environ.get("IGNORE_TERM"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
    if os.environ.get("IGNORE_TERM"):
        # A server that does not stop when its input closes.
        await asyncio.sleep(3600)


if __name__ == "__main__":
    asyncio.run(main())
