"""A fake OpenAI-compatible upstream for the LiteLLM guardrail tests.

``python upstream.py PORT_FILE RECORD_FILE``: serves ``POST /v1/chat/completions``
on 127.0.0.1 (a free port, written to PORT_FILE), and appends every request body
it receives to RECORD_FILE as one JSON line, before answering.

The answer is canned, chosen by the request: the first user message's text
names a scenario (``scenario:NAME``), and a request whose last message is a
tool result is a re-ask (``RETRY``; ``reask_fails`` answers it with a 503). ``stream: true`` gets the same
answer as SSE chunks: its text word by word, then each tool call as an id and
name delta followed by its arguments in pieces, with a pause between the text
and the calls so a test can see text arrive before any call is complete.
"""

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

READ_OK = '{"path": "/a",  "offset": 2}'
LEAKED_BAD = 'Sure.\n<tool_call>{"name": "read", "arguments": {"offset": 1}}</tool_call>'
SCENARIOS = {
    # name: (text, [(tool, arguments text)])
    "valid": ("Reading it.", [("read", READ_OK)]),
    "repaired": ("Reading it.", [("read", '{"path": "/a", "offset": "2"}')]),
    "two": (None, [("read", READ_OK), ("read", '{"path": "/b", "offset": "3"}')]),
    "leaked": (
        'Let me look.\n<tool_call>{"name": "read", "arguments": {"path": "/a", "offset": "2"}}</tool_call>',
        [],
    ),
    "rejected": ("Reading it.", [("read", '{"offset": 1}')]),
    "leaked_bad": (LEAKED_BAD, []),
    "rejected_always": (None, [("read", '{"offset": 1}')]),
    "reask_fails": (None, [("read", '{"offset": 1}')]),
    "mixed": (None, [("read", READ_OK), ("read", '{"offset": 1}')]),
    "text": ("Hello there, nothing to call.", []),
}
RETRY = {
    "rejected": [("read", '{"path": "/b"}')],
    "mixed": [("read", '{"path": "/c"}')],
    "leaked_bad": [("read", '{"path": "/d"}')],
    "rejected_always": [("read", '{"offset": 2}')],
}
PAUSE = float(os.environ.get("UPSTREAM_PAUSE", "0.4"))


def scenario(body):
    for m in body.get("messages") or []:
        if m.get("role") == "user":
            text = m.get("content")
            if isinstance(text, list):
                text = " ".join(p.get("text", "") for p in text if isinstance(p, dict))
            if isinstance(text, str) and "scenario:" in text:
                return text.split("scenario:", 1)[1].split()[0]
    return "text"


def answer(body):
    name = scenario(body)
    msgs = body.get("messages") or []
    if msgs and msgs[-1].get("role") == "tool" and name in RETRY:
        return None, RETRY[name]
    return SCENARIOS.get(name, SCENARIOS["text"])


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go in two writes: without this, Nagle and delayed ACKs
    # add 40 ms to some answers.
    disable_nagle_algorithm = True
    record = None
    lock = threading.Lock()
    counter = [0]

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            self.send_error(400)
            return
        with self.lock:
            self.counter[0] += 1
            n = self.counter[0]
            with open(self.record, "a", encoding="utf-8") as f:
                f.write(json.dumps(body) + "\n")
        msgs = body.get("messages") or []
        if scenario(body) == "reask_fails" and msgs and msgs[-1].get("role") == "tool":
            out = b'{"error": {"message": "upstream is down", "type": "server_error"}}'
            self.send_response(503)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
            return
        text, calls = answer(body)
        rid = f"chatcmpl-fake{n}"
        if body.get("stream"):
            self.stream(rid, text, calls)
        else:
            self.whole(rid, text, calls)

    def whole(self, rid, text, calls):
        message = {"role": "assistant", "content": text}
        if calls:
            message["tool_calls"] = [
                {"id": f"call_{rid}_{i}", "type": "function", "function": {"name": t, "arguments": a}}
                for i, (t, a) in enumerate(calls)
            ]
        out = json.dumps(
            {
                "id": rid,
                "object": "chat.completion",
                "created": int(time.time()),
                "model": "callfix-demo",
                "choices": [
                    {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
            }
        ).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def stream(self, rid, text, calls):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        created = int(time.time())

        def send(delta, finish=None):
            chunk = {
                "id": rid,
                "object": "chat.completion.chunk",
                "created": created,
                "model": "callfix-demo",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            self.wfile.flush()

        send({"role": "assistant", "content": ""})
        if text:
            words = text.split(" ")
            for i, w in enumerate(words):
                send({"content": w if i == 0 else " " + w})
        if calls:
            time.sleep(PAUSE)
        for i, (tool, args) in enumerate(calls):
            send({"tool_calls": [{"index": i, "id": f"call_{rid}_{i}", "type": "function",
                                  "function": {"name": tool, "arguments": ""}}]})
            for k in range(0, len(args), 5):
                send({"tool_calls": [{"index": i, "function": {"arguments": args[k:k + 5]}}]})
        send({}, "tool_calls" if calls else "stop")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True


def main():
    port_file, record = sys.argv[1], sys.argv[2]
    Handler.record = record
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(port_file + ".tmp", port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
