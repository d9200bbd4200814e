"""A small MCP server written with the official Python SDK (its low-level
`Server`), for the proxy's integration tests. It validates nothing itself and
appends every call it receives, arguments as received, to $SERVER_LOG, so a
test can tell what reached it.

Tools: read (file_path required, offset/limit integers), echo (text), crash
(exits with code 3 before answering), wait (sleeps `seconds`).
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
]


async def list_tools(ctx, params) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


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
