"""Hostile responses through the LiteLLM guardrail's decisions
(callfix._guardrail), without LiteLLM: assistant messages and tool-call deltas
built from a vocabulary of leak sentinels, JSON pieces and Python literals.
Nothing raises, nothing is lost, a valid call is unchanged, and the work is
linear in the text."""

import json
import random
import time

import callfix
from callfix import _guardrail as g

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "offset": {"type": "integer"}},
                "required": ["path"],
            },
        },
    },
    {"type": "function", "function": {"name": "glob", "parameters": {"type": "object"}}},
]

VOCAB = [
    "<tool_call>", "</tool_call>", "<function=read>", "<function=glob>", "</function>",
    "<parameter=path>", "</parameter>", "[TOOL_CALLS]", "<|python_tag|>", "<|python_start|>",
    "<|python_end|>", "```json\n", "```", "\n", " ", "{", "}", "[", "]", "(", ")", ",", ":",
    '"name"', '"arguments"', '"parameters"', '"read"', '"glob"', "read", "glob", '"path"',
    '"/a"', "'/a'", "path=", "2", '"2"', "True", "None", "\\", '"', "'", "é", "\u2028",
    "<|tool_calls_section_begin|>", "<|tool_call_begin|>", "functions.read:0",
    "<|tool_call_argument_begin|>", "<|tool_call_end|>", "<arg_key>", "</arg_key>",
    "<arg_value>", "</arg_value>", "prose ", "Let me look. ",
]


def text(rng, n):
    return "".join(rng.choice(VOCAB) for _ in range(n))


def test_hostile_messages_never_raise_and_lose_nothing():
    ts = callfix.Toolset.from_tools(TOOLS)
    rng = random.Random(1829)
    for _ in range(1500):
        content = text(rng, rng.randint(0, 40))
        calls = None
        if rng.random() < 0.4:
            calls = [
                {
                    "id": rng.choice(["c1", None, 7]),
                    "function": {
                        "name": rng.choice(["read", "glob", "Read", "", None, "nope"]),
                        "arguments": rng.choice([text(rng, rng.randint(0, 12)), None, {"path": "/a"}, '{"path": "/a"}']),
                    },
                }
                for _ in range(rng.randint(1, 3))
            ]
        turn = g.judge_turn(ts, content, calls, seed="fuzz")
        assert turn.error is None
        if calls:
            assert len(turn.calls) == len(calls) and turn.content == content
        for j in turn.calls:
            assert j.status in ("valid", "repaired", "rejected")
            if j.status == "valid" and j.leaked is None:
                assert (j.name, j.arguments) == (j.sent_name, j.sent_arguments)
            if j.status != "rejected":
                assert isinstance(json.loads(j.arguments), dict)
            if j.status == "rejected":
                assert j.message
        if turn.leaked:
            assert len(turn.content or "") < len(content)
        # Whatever was rejected can be re-asked: every argument a JSON object.
        for m in g.reask_messages([], turn)[:1]:
            for c in m["tool_calls"]:
                assert isinstance(json.loads(c["function"]["arguments"]), dict)


def test_hostile_deltas_never_raise():
    rng = random.Random(29)
    for _ in range(500):
        asm = g.StreamAssembler()
        out = []
        for _ in range(rng.randint(0, 30)):
            d = rng.choice(
                [
                    {"index": rng.randint(0, 3), "function": {"arguments": text(rng, 2)}},
                    {"index": rng.randint(0, 3), "id": "x", "function": {"name": rng.choice(["read", ""])}},
                    {"index": None},
                    {"function": None},
                    {},
                ]
            )
            out.extend(asm.feed(rng.randint(0, 1), [d]))
        out.extend(asm.finish())
        assert all(isinstance(h.as_call()["function"]["arguments"], str) for h in out)


def test_a_schema_callfix_cannot_use_leaves_the_turn_as_it_came():
    ts = callfix.Toolset.from_tools(
        [{"type": "function", "function": {"name": "bad", "parameters": {"type": "no-such-type"}}}]
    )
    turn = g.judge_turn(ts, "x", [{"id": "c", "function": {"name": "bad", "arguments": "{}"}}])
    assert turn.calls == [] and turn.error and "bad" in turn.error
    assert not turn.changed


def cpu(n):
    ts = callfix.Toolset.from_tools(TOOLS)
    one = '<tool_call>{"name": "read", "arguments": {"path": "/a", "offset": "2"}}</tool_call>\nok\n'
    content = one * n
    best = float("inf")
    for _ in range(3):
        t = time.process_time()
        turn = g.judge_turn(ts, content, None)
        best = min(best, time.process_time() - t)
    assert len(turn.calls) == n and turn.content.count("ok") == n
    return best


def test_leaked_calls_are_linear():
    small, large = cpu(300), cpu(3000)
    assert large / max(small, 1e-4) <= 20, (small, large)
