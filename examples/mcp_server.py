#!/usr/bin/env python3
"""A tiny MCP server over stdio, standard library only: one tool, `read`, that
answers with the arguments it received. For trying `callfix mcp` without
installing anything (a demo: it answers requests in any order, initialized or
not).

    callfix mcp -- python3 examples/mcp_server.py
"""

import json
import sys

READ = {
    "name": "read",
    "description": "Read a file (this demo only echoes its arguments).",
    "inputSchema": {
        "type": "object",
        "properties": {
            "file_path": {"type": "string"},
            "offset": {"type": "integer", "minimum": 1},
            "limit": {"type": "integer", "minimum": 1},
        },
        "required": ["file_path"],
        "additionalProperties": False,
    },
}


def answer(request):
    method = request.get("method")
    if method == "initialize":
        return {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "callfix-demo", "version": "0"}}
    if method == "tools/list":
        return {"tools": [READ]}
    if method == "tools/call":
        received = json.dumps(request["params"].get("arguments"), sort_keys=True)
        return {"content": [{"type": "text", "text": "read " + received}]}
    if method == "ping":
        return {}
    return None


for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue
    result = answer(request)
    if result is None:
        reply = {"jsonrpc": "2.0", "id": request["id"],
                 "error": {"code": -32601, "message": "Method not found"}}
    else:
        reply = {"jsonrpc": "2.0", "id": request["id"], "result": result}
    print(json.dumps(reply, separators=(",", ":")), flush=True)
