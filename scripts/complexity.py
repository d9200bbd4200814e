#!/usr/bin/env python3
"""The complexity check: every attack surface at two sizes 10x apart.

Each surface builds one input of size n and one of size 10n, runs callfix on
each and measures the child's CPU time (user + system, from
resource.getrusage(RUSAGE_CHILDREN) before and after). Linear work gives a
ratio near 10, quadratic near 100; a ratio above 20 fails (generous on
purpose: it catches n^2, not noise). A run that crashes (exit not 0, 1 or 2)
or takes more than --timeout seconds fails too. When the big run takes less
than --floor CPU seconds the ratio is noise and the surface passes.

    python3 scripts/complexity.py [--callfix target/debug/callfix] [--only NAME] [--scale K]

Sizes are set so that the big run of a linear surface takes about 0.3-1 s of
CPU on a debug build; --scale multiplies every size (use a larger one for a
release build). Exit 1 when any surface fails.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMAS = os.path.join(ROOT, "schemas")


def line(obj):
    return json.dumps(obj, separators=(",", ":")) + "\n"


def assistant(text):
    return line({"role": "assistant", "content": text})


# ------------------------------------------------------------------ surfaces
# Each takes n and returns (args, stdin bytes); args are callfix's arguments.

FILTER = ["--no-config", "--schemas", SCHEMAS, "-f", "args"]


def pythonic_list(n):
    calls = ", ".join("glob(pattern='*')" for _ in range(n))
    return FILTER, assistant(f"[{calls}]")


def json_list(n):
    calls = ", ".join('{"name": "glob", "arguments": {"pattern": "*"}}' for _ in range(n))
    return FILTER, assistant(f"[{calls}]")


def tool_calls_list(n):
    calls = ", ".join('{"name": "glob", "arguments": {"pattern": "*"}}' for _ in range(n))
    return FILTER, assistant(f"[TOOL_CALLS][{calls}]")


def broken_wrapped_calls(n):
    # Each a rejected call whose markup ends at its closing tag, in one
    # paragraph: where the paragraph ends must not be searched for again each.
    return FILTER, assistant('<tools>\n{"name": "read" x}\n</tools>\n' * n)


def unclosed_cdata_params(n):
    params = "".join(f'<param name="p{i}"><![CDATA[x</param>' for i in range(n))
    return FILTER, assistant(f'<function name="read">{params}</function>')


def code_spans(n):
    return FILTER, assistant("`<tool_call>` " * n)


def quoted_containers(n):
    # src/provider/leak/quoted.rs: every kind of quoted text, closed.
    unit = ("~~~\n<tool_call>\n~~~\n<!-- <tool_call> -->\n<pre><tool_call></pre> "
            "<code><tool_call></code>\n\n    <tool_call>\n\n")
    return FILTER, assistant(unit * n)


def unclosed_containers(n):
    # Openings whose closing never comes are literal: the closing is searched
    # for once, not once per opening, and the call after them is read.
    call = '<tool_call>{"name": "read", "arguments": {"file_path": "/a"}}</tool_call>'
    return FILTER, assistant("<!-- <pre <code> ~~~\n" * n + call)


def openai_stream(n):
    # Chunks as small as they come, so that the reassembly, not the judging,
    # shows in the time.
    out = []
    for i in range(n):
        delta = {"tool_calls": [{"index": i, "function": {"name": "glob", "arguments": '{"pattern":"*"}'}}]}
        out.append(line({"id": "s", "object": "chat.completion.chunk",
                         "choices": [{"delta": delta}]}))
    out.append(line({"id": "s", "object": "chat.completion.chunk",
                     "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}))
    return FILTER, "".join(out)


def anthropic_stream(n):
    out = [line({"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}})]
    for i in range(n):
        out.append(line({"type": "content_block_start", "index": i,
                         "content_block": {"type": "tool_use", "name": "glob", "input": {}}}))
        out.append(line({"type": "content_block_delta", "index": i,
                         "delta": {"type": "input_json_delta", "partial_json": '{"pattern":"*"}'}}))
    out.append(line({"type": "message_stop"}))
    return FILTER, "".join(out)


def chunk(choices):
    return line({"id": "s", "object": "chat.completion.chunk", "choices": choices})


def openai_stream_gaps(n):
    # Each call's arguments cut by a line that is no JSON: n broken records
    # and n calls rejected, each gap marking the open calls in constant time.
    out = []
    for i in range(n):
        call = {"index": i, "function": {"name": "glob", "arguments": '{"pattern":'}}
        out.append(chunk([{"index": 0, "delta": {"tool_calls": [call]}}]))
        out.append('{"id":"s","object":"chat.comp\n')
        out.append(chunk([{"index": 0, "delta": {"tool_calls": [
            {"index": i, "function": {"arguments": '"*"}'}}]}}]))
    out.append(chunk([{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]))
    return FILTER, "".join(out)


def repeated_keys(n):
    # One Anthropic message of n calls, each with a key named twice 20 levels
    # down its input (every level's key the same), so that each call reads two
    # ways and the key behind each difference is looked for.
    deep = '{"a":' * 20 + '{"x":1,"x":2}' + "}" * 20
    blocks = ",".join(
        '{"type":"tool_use","id":"t%d","name":"glob","input":{"pattern":"*","a":%s}}' % (i, deep)
        for i in range(n)
    )
    return FILTER, '{"role":"assistant","content":[' + blocks + "]}\n"


def openai_choices(n):
    # n choices of one stream, each its call 0, finished one by one.
    out = []
    for i in range(n):
        call = {"index": 0, "function": {"name": "glob", "arguments": '{"pattern":"*"}'}}
        out.append(chunk([{"index": i, "delta": {"tool_calls": [call]}}]))
    for i in range(n):
        out.append(chunk([{"index": i, "delta": {}, "finish_reason": "tool_calls"}]))
    return FILTER, "".join(out)


def anthropic_stream_gaps(n):
    # Each block followed by a delta whose index is a string.
    out = [line({"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}})]
    for i in range(n):
        out.append(line({"type": "content_block_start", "index": i,
                         "content_block": {"type": "tool_use", "name": "glob", "input": {}}}))
        out.append(line({"type": "content_block_delta", "index": i,
                         "delta": {"type": "input_json_delta", "partial_json": '{"pattern":"*"}'}}))
        out.append(line({"type": "content_block_delta", "index": str(i),
                         "delta": {"type": "input_json_delta", "partial_json": "x"}}))
    out.append(line({"type": "message_stop"}))
    return FILTER, "".join(out)


def responses_empty_output(n):
    # n items streamed, the completed output empty: every call from the items.
    out = [line({"type": "response.created", "response": {"id": "r", "output": []}})]
    for i in range(n):
        item = {"type": "function_call", "id": f"fc{i}", "call_id": f"c{i}", "name": "glob"}
        out.append(line({"type": "response.output_item.added", "output_index": i,
                         "item": dict(item, arguments="")}))
        out.append(line({"type": "response.function_call_arguments.delta", "output_index": i,
                         "delta": '{"pattern":"*"}'}))
        out.append(line({"type": "response.output_item.done", "output_index": i,
                         "item": dict(item, arguments='{"pattern":"*"}')}))
    out.append(line({"type": "response.completed",
                     "response": {"id": "r", "status": "completed", "output": [
                         {"type": "function_call", "id": f"fc{i}", "call_id": f"c{i}", "name": "glob",
                          "arguments": '{"pattern":"*"}'} for i in range(0, n, 2)]}}))
    return FILTER, "".join(out)


# Every file this script writes is under one temporary directory, removed when
# it exits.
WORK = tempfile.TemporaryDirectory(prefix="callfix-complexity-")
WIDE_DIRS = {}


def wide_schema(n):
    """A directory holding wide.json, an n-property schema (closed)."""
    if n not in WIDE_DIRS:
        d = tempfile.mkdtemp(dir=WORK.name)
        props = {f"field_{i:06d}_name": {"type": "string"} for i in range(n)}
        schema = {"type": "object", "properties": props, "additionalProperties": False}
        with open(os.path.join(d, "wide.json"), "w") as f:
            json.dump(schema, f)
        WIDE_DIRS[n] = d
    return WIDE_DIRS[n]


def near_miss_keys(n):
    # Each key is one letter off a property: rename-key has n candidates for each.
    args = {f"field_{i:06d}_nmae": "x" for i in range(n)}
    return (["--no-config", "--schemas", wide_schema(n), "-f", "args"],
            line({"name": "wide", "arguments": args}))


def deep_pythonic(n):
    return FILTER, assistant("[glob(pattern=" + "[" * n + "]" * n + ")]")


def sse_broken_line(n):
    out = ['data: {"t":"f"x\n']
    out += ['data: {"name":"glob","arguments":{"pattern":"*"}}\n\n'] * n
    return FILTER, "".join(out)


MCP_SERVER = textwrap.dedent(r'''
    import json, sys
    n = int(sys.argv[1])
    for raw in sys.stdin:
        msg = json.loads(raw)
        if "id" not in msg or "method" not in msg:
            continue
        if msg["method"] == "tools/list":
            tools = [{"name": f"t{i}", "inputSchema": {"type": "object",
                      "properties": {"q": {"type": "string"}}}} for i in range(n)]
            result = {"tools": tools}
        elif msg["method"] == "initialize":
            result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "wide", "version": "0"}}
        else:
            result = {"content": [{"type": "text", "text": "ok"}]}
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
''')


def mcp_tool_list(n):
    d = tempfile.mkdtemp(dir=WORK.name)
    server = os.path.join(d, "server.py")
    with open(server, "w") as f:
        f.write(MCP_SERVER)
    client = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "c", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": f"t{n - 1}", "arguments": {"q": "x"}}}
    return ("mcp", ["mcp", "--no-config", "--", sys.executable, server, str(n)],
            [line(m) for m in client], line(call))


# --- MCP over Streamable HTTP (`callfix mcp --url`). The server is a thread of
# this script (its CPU is not the child's): initialize and tools/list answered
# as JSON; the call answered with an event stream of n progress notifications,
# then its answer as one event of n data lines (joined, and written on one line).
MCP_HTTP = {}


def mcp_http_server():
    if "url" in MCP_HTTP:
        return MCP_HTTP["url"]
    import http.server
    import threading

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            self.send_response(405)
            self.end_headers()

        def do_DELETE(self):
            self.send_response(200)
            self.end_headers()

        def do_POST(self):
            msg = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            method, mid = msg.get("method"), msg.get("id")
            if mid is None or method is None:
                self.send_response(202)
                self.end_headers()
                return
            if method == "tools/call":
                n = msg["params"]["arguments"]["n"]
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                note = {"jsonrpc": "2.0", "method": "notifications/progress",
                        "params": {"progressToken": 1, "progress": 1}}
                body = [f"id: {i}\ndata: {json.dumps(note)}\n\n" for i in range(n)]
                head = json.dumps({"jsonrpc": "2.0", "id": mid})[:-1]
                lines = [head + ',"result":{"content":['] + ['{"type":"text","text":"x"},'] * n
                lines.append('{"type":"text","text":"end"}]}}')
                body.append("".join(f"data: {l}\n" for l in lines) + "\n")
                self.wfile.write("".join(body).encode())
                return
            if method == "initialize":
                result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                          "serverInfo": {"name": "sse", "version": "0"}}
            elif method == "tools/list":
                result = {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}
            else:
                result = {}
            answer = json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Mcp-Session-Id", "complexity")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    MCP_HTTP["url"] = f"http://127.0.0.1:{server.server_address[1]}/mcp"
    return MCP_HTTP["url"]


def mcp_http_sse(n):
    client = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "c", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "t", "arguments": {"n": n}}}
    return ("mcp", ["mcp", "--no-config", "--url", mcp_http_server()],
            [line(m) for m in client], line(call))


def stats_names(n):
    return (["--no-config", "--schemas", SCHEMAS, "-f", "args", "--stats"],
            "".join(line({"name": f"tool_{i}", "arguments": {}}) for i in range(n)))


def long_line(n):
    return FILTER, line({"name": "bash", "arguments": {"command": "x" * n, "description": "d"}})



# Call notation (`read(file_path: "/a")`, `read(file_path="/a")`,
# `read({file_path: "/a"})`, `read('/a')`: src/provider/leak/pythonic.rs,
# the positional value named by src/repair/positional.rs).

def notation_many_args(n):
    # One call with n named arguments, each a JavaScript object literal (read
    # by the tolerant parser), none of them `read`'s: each dropped, and said.
    args = ", ".join(f"k{i}: {{v: [{i}, 'x']}}" for i in range(n))
    return FILTER, assistant(f'read(file_path: "/a", {args})')


NOTATION_FORMS = [
    'read(file_path: "/a", offset: 3)',
    "read(file_path='/a')",
    'read({file_path: "/a"})',
    "read('/a')",
]


def notation_call_lines(n):
    # n calls, one a line, in every form: each line is read on its own.
    return FILTER, assistant("\n".join(NOTATION_FORMS[i % 4] for i in range(n)))


def notation_tool_call_bodies(n):
    # n calls in call notation, each the body of its own <tool_call>.
    body = "".join(f"<tool_call>{NOTATION_FORMS[i % 4]}</tool_call>\n" for i in range(n))
    return FILTER, assistant(body)


def notation_deep_literal(n):
    # An object literal nested n deep (past the depth limit: rejected).
    return FILTER, assistant('read({file_path: "/a", x: ' + "{a: " * n + "1" + "}" * n + "})")


def notation_long_string(n):
    # One argument of n escaped characters.
    return FILTER, assistant("read(file_path: '" + "\\n\\'" * n + "')")


HEAL_TOOLS = [{"type": "function", "function": {"name": "glob", "parameters": {
    "type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]}}}]


def heal_history(n):
    # One conversation of n turns, each a valid, a repairable and a cut call
    # with one id for all (duplicates), and results missing or orphaned.
    messages = []
    for i in range(n):
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "glob", "arguments": '{"pattern": "*"}'}},
            {"id": "c", "type": "function", "function": {"name": "Glob", "arguments": "{'pattern': '*',}"}},
            {"id": "c", "type": "function", "function": {"name": "glob", "arguments": '{"pattern": "'}}]})
        messages.append({"role": "tool", "tool_call_id": f"gone{i}", "content": "x"})
    return ["--no-config", "heal"], line({"model": "m", "tools": HEAL_TOOLS, "messages": messages})


def heal_history_to(n):
    args, stdin = heal_history(n)
    return args + ["--to", "anthropic"], stdin


def heal_records(n):
    record = line({"model": "m", "tools": HEAL_TOOLS, "messages": [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "glob", "arguments": '{"pattern": 1}'}}]}]})
    return ["--no-config", "heal"], record * n


def heal_parallel_to(n):
    # One turn of n parallel calls and n `role: tool` results, written as one
    # Anthropic user turn of n tool_result blocks (each added in O(1)).
    messages = [{"role": "assistant", "content": None, "tool_calls": [
        {"id": f"c{i}", "type": "function", "function": {"name": "glob", "arguments": '{"pattern": "*"}'}}
        for i in range(n)]}]
    messages += [{"role": "tool", "tool_call_id": f"c{i}", "content": "r"} for i in range(n)]
    return ["--no-config", "heal", "--to", "anthropic"], line({"model": "m", "tools": HEAL_TOOLS, "messages": messages})


def heal_parallel_one_id(n):
    # One turn of n parallel calls all sent with one id, and n results naming
    # it: each result finds its call without scanning the answered ones.
    messages = [{"role": "assistant", "content": None, "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "glob", "arguments": '{"pattern": "*"}'}}
        for i in range(n)]}]
    messages += [{"role": "tool", "tool_call_id": "c", "content": "r"} for i in range(n)]
    return ["--no-config", "heal"], line({"model": "m", "tools": HEAL_TOOLS, "messages": messages})


def render_placeholders(n):
    # One template of n placeholders on one line (each placed by line and
    # column for its error messages).
    path = os.path.join(tempfile.mkdtemp(dir=WORK.name), "read.txt")
    with open(path, "w") as f:
        f.write("Use <TOOL> on <PLATFORM>. " * n + "\n")
    return ["--no-config", "render", "--var", "TOOL=read", "--var", "PLATFORM=linux", path], ""


def report_distinct(n):
    # Every record a new model, a new (unknown) tool and so a new error path:
    # the report's tables fill to their caps and stay there.
    return (["--no-config", "report", "--schemas", SCHEMAS, "--format", "json"],
            "".join(line({"model": f"m{i}", "choices": [{"finish_reason": "stop", "message": {
                "role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {
                    "name": f"tool_{i}", "arguments": '{"a": 1}'}}]}}]}) for i in range(n)))


def report_html(n):
    # The page of a report whose tables are full: n distinct models and tools.
    args, data = report_distinct(n)
    page = os.path.join(tempfile.mkdtemp(dir=WORK.name), "r.html")
    return args + ["--html", page], data


def report_own_tools(n):
    # Request bodies, each judged against its own tools: the same list n
    # times is compiled once; every call is counted.
    tools = [{"type": "function", "function": {"name": f"t{k}", "parameters": {
        "type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}}}}}
        for k in range(20)]
    body = line({"model": "m", "tools": tools, "messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function",
            "function": {"name": "t3", "arguments": '{"a": "1"}'}}]}]})
    return ["--no-config", "report", "--format", "json"], body * n


def report_new_tools(n):
    # Every record a tool list of its own: the cache fills, starts again, and
    # stays bounded.
    return (["--no-config", "report", "--format", "json"],
            "".join(line({"model": "m", "tools": [{"name": f"t{i}", "input_schema": {
                "type": "object"}}], "messages": [{"role": "assistant", "content": [
                    {"type": "tool_use", "id": "u", "name": f"t{i}", "input": {}}]}]})
                for i in range(n)))


# (name, function, small n): the big run is 10 n.
# The last item is the number of result lines an input of size n must give
# (None: not counted), so a surface that loses calls fails too.
SURFACES = [
    ("pythonic list, n calls", pythonic_list, 1200, lambda n: n),
    ("bare JSON list, n calls", json_list, 1200, lambda n: n),
    ("[TOOL_CALLS] list, n calls", tool_calls_list, 1200, lambda n: n),
    ("code spans of <tool_call>, n", code_spans, 20000, lambda n: 0),
    ("quoted containers of <tool_call>, n", quoted_containers, 5000, lambda n: 0),
    ("n container openings never closed, then a call", unclosed_containers, 5000, lambda n: 1),
    ("broken calls in <tools> wrappers, n", broken_wrapped_calls, 2000, None),
    ("n parameters, CDATA never closed", unclosed_cdata_params, 2000, None),
    ("OpenAI chunk stream, n calls", openai_stream, 6000, lambda n: n),
    ("Anthropic stream, n calls", anthropic_stream, 6000, lambda n: n),
    ("OpenAI chunk stream, n calls each cut by a broken line", openai_stream_gaps, 3000, lambda n: 2 * n),
    ("OpenAI chunk stream, n choices", openai_choices, 3000, lambda n: n),
    ("one message of n calls, each read two ways by a key named twice", repeated_keys, 2000, lambda n: n),
    ("Anthropic stream, n calls each after an event of the wrong shape", anthropic_stream_gaps, 3000, lambda n: 2 * n),
    ("Responses stream, n calls, half of them in the completed output", responses_empty_output, 3000, lambda n: n),
    ("n misspelt keys, n-property schema", near_miss_keys, 40, lambda n: 1),
    ("pythonic nesting, n deep", deep_pythonic, 1000, lambda n: 1),
    ("SSE after a broken line, n calls", sse_broken_line, 2000, lambda n: n + 1),
    ("MCP tools/list of n tools", mcp_tool_list, 3000, None),
    ("MCP --url: n SSE events, n data lines", mcp_http_sse, 5000, None),
    ("--stats, n distinct tool names", stats_names, 1000, lambda n: n),
    ("one line of n bytes", long_line, 1_000_000, lambda n: 1),
    ("call notation, n named arguments", notation_many_args, 1500, lambda n: 1),
    ("call notation, n calls on n lines", notation_call_lines, 3000, lambda n: n),
    ("call notation, n <tool_call> bodies", notation_tool_call_bodies, 3000, lambda n: n),
    ("call notation, literal n deep", notation_deep_literal, 200_000, lambda n: 1),
    ("call notation, a string of n escapes", notation_long_string, 100_000, lambda n: 1),
    ("heal: one history of n turns", heal_history, 300, lambda n: 1),
    ("heal --to anthropic: one history of n turns", heal_history_to, 300, lambda n: 1),
    ("heal: n conversations", heal_records, 300, lambda n: n),
    ("heal --to anthropic: one turn of n parallel calls and results", heal_parallel_to, 2000, lambda n: 1),
    ("heal: one turn of n parallel calls with one id", heal_parallel_one_id, 2000, lambda n: 1),
    ("render: n placeholders on one line", render_placeholders, 20000, lambda n: 1),
    ("report: n distinct models, tools, error paths", report_distinct, 1500, None),
    ("report --html: n distinct models, tools, error paths", report_html, 1500, None),
    ("report: n request bodies with the same tools", report_own_tools, 300, None),
    ("report: n request bodies, each with tools of its own", report_new_tools, 1500, None),
]

# No run may map more than this (a quadratic copy would take the machine).
MEMORY = 3 << 30


def limits(cpu_seconds):
    """What a child may take: MEMORY bytes mapped, and cpu_seconds of CPU
    (then SIGXCPU ends it: a budget that does not depend on the machine's load)."""
    def set_limits():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
        if cpu_seconds:
            c = int(cpu_seconds) + 1
            resource.setrlimit(resource.RLIMIT_CPU, (c, c + 1))
    return set_limits


def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(callfix, built, timeout, lines=None, cpu_budget=None):
    """Runs one input; returns (CPU seconds, why it failed or None)."""
    before = cpu()
    if built[0] == "mcp":
        _, args, head, call = built
        p = subprocess.Popen([callfix] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             preexec_fn=limits(cpu_budget))
        try:
            for m in head:
                p.stdin.write(m)
            p.stdin.flush()
            # Wait for the list to come back before calling one of its tools.
            while True:
                got = p.stdout.readline()
                if not got or json.loads(got).get("id") == 2:
                    break
            p.stdin.write(call)
            p.stdin.flush()
            while True:
                got = p.stdout.readline()
                if not got or json.loads(got).get("id") == 3:
                    break
            p.stdin.close()
        except OSError:
            pass  # it ended early: its exit code says why
        try:
            p.wait(timeout=timeout)
            out = ""
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            return cpu() - before, f"over {timeout} s"
        err = p.stderr.read()
        code = p.returncode
    else:
        args, stdin = built
        try:
            r = subprocess.run([callfix] + args, input=stdin.encode(), capture_output=True,
                               timeout=timeout, preexec_fn=limits(cpu_budget))
        except subprocess.TimeoutExpired:
            return cpu() - before, f"over {timeout} s"
        err = r.stderr.decode(errors="replace")
        code = r.returncode
        out = r.stdout.decode(errors="replace")
    spent = cpu() - before
    if code == -24:  # SIGXCPU
        return spent, f"over {int(cpu_budget) + 1} CPU s"
    if code not in (0, 1, 2):
        said = err.strip().splitlines()
        telling = [l for l in said if any(w in l for w in ("panicked", "fatal", "memory"))]
        first = (telling or said[-1:] or [""])[0]
        return spent, f"exit {code}: {first[:50]}"
    if lines is not None and out.count("\n") != lines:
        return spent, f"{out.count(chr(10))} result lines, want {lines}"
    return spent, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--callfix", default=os.path.join(ROOT, "target", "debug", "callfix"))
    ap.add_argument("--only", help="run only surfaces whose name contains this")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every size")
    ap.add_argument("--limit", type=float, default=20.0, help="the largest ratio that passes")
    ap.add_argument("--floor", type=float, default=0.1,
                    help="a big run under this many CPU seconds passes whatever the ratio")
    ap.add_argument("--timeout", type=float, default=120.0,
                    help="wall seconds per run at most (a safety net: runs are stopped by CPU time)")
    opts = ap.parse_args()

    rows, failed = [], 0
    print(f"{'surface':<38} {'n':>9} {'small s':>8} {'big s':>8} {'ratio':>7}  result", flush=True)
    for name, build, n, want in SURFACES:
        if opts.only and opts.only not in name:
            continue
        n = max(1, int(n * opts.scale))
        small, why_small = run(opts.callfix, build(n), opts.timeout, want and want(n))
        # A linear big run takes about 10x the small one's CPU: past limit x
        # small it has failed already, so it is stopped there.
        budget = max(opts.floor, small) * opts.limit
        big, why_big = run(opts.callfix, build(10 * n), opts.timeout, want and want(10 * n), budget)
        ratio = big / small if small > 0 else float("inf")
        shown = f"{ratio:7.1f}"
        if why_big and "CPU s" in why_big:
            shown = f"{'>' + format(opts.limit, 'g'):>7}"
        why = why_small or why_big
        if why:
            verdict = f"FAIL ({why})"
        elif ratio > opts.limit and big >= opts.floor:
            verdict = f"FAIL (ratio > {opts.limit:g})"
        else:
            verdict = "PASS"
        failed += verdict != "PASS"
        print(f"{name:<38} {n:>9} {small:>8.3f} {big:>8.3f} {shown}  {verdict}", flush=True)
        rows.append((name, verdict))
    print(f"\n{len(rows) - failed} of {len(rows)} surfaces pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
