"""The LiteLLM guardrail's decisions (callfix._guardrail), without LiteLLM:
the glue is tested against a real proxy in tests/litellm."""

import json
import sys

import pytest

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
    }
]


def call(args, name="read", id="c1"):
    return {"id": id, "type": "function", "function": {"name": name, "arguments": args}}


@pytest.fixture
def ts():
    return callfix.Toolset.from_tools(TOOLS)


def test_import_callfix_does_not_import_litellm():
    # A fresh interpreter: this one may have imported LiteLLM for other tests.
    import subprocess

    code = "import callfix, callfix._guardrail, sys; print('litellm' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_options_defaults_and_checks():
    o = g.Options.from_params({})
    assert (o.max_retries, o.on_reject, o.repair, o.loop_limit) == (1, "retry", "all", 3)
    o = g.Options.from_params({"max_retries": "2", "on_reject": "error", "repair": ["coerce-number"]})
    assert (o.max_retries, o.on_reject, o.repair_arg()) == (2, "error", ["coerce-number"])
    with pytest.raises(callfix.CallfixError, match="on_reject: expected one of retry, pass, error"):
        g.Options.from_params({"on_reject": "drop"})
    with pytest.raises(callfix.CallfixError, match="max_retries"):
        g.Options.from_params({"max_retries": -1})
    with pytest.raises(callfix.CallfixError, match="loop_limit"):
        g.Options.from_params({"loop_limit": True})
    with pytest.raises(callfix.CallfixError, match="no-such-kind"):
        g.Options.from_params({"repair": "no-such-kind"})


def test_toolset_cache_compiles_once_per_list_and_is_bounded():
    cache = g.ToolsetCache(size=2)
    assert cache.get(None) is None and cache.get([]) is None
    a = cache.get(TOOLS)
    assert cache.get(json.loads(json.dumps(TOOLS))) is a
    assert cache.compiled == 1
    other = [dict(TOOLS[0], function=dict(TOOLS[0]["function"], name=f"t{i}")) for i in range(3)]
    for t in other:
        cache.get([t])
    assert len(cache) == 2 and cache.compiled == 4
    assert cache.get(TOOLS) is not a  # evicted, compiled again


def test_valid_call_is_unchanged(ts):
    args = '{"path": "/a",  "offset": 2}'
    turn = g.judge_turn(ts, "Reading.", [call(args)])
    [j] = turn.calls
    assert (j.status, j.arguments, j.id, j.changed) == ("valid", args, "c1", False)
    assert not turn.changed and turn.content == "Reading."


def test_repaired_call_is_rewritten(ts):
    turn = g.judge_turn(ts, None, [call('{"path": "/a", "offset": "2"}', name="Read")])
    [j] = turn.calls
    assert j.status == "repaired" and j.changed
    assert (j.name, j.arguments) == ("read", '{"path":"/a","offset":2}')
    assert j.tool_call() == {
        "id": "c1",
        "type": "function",
        "function": {"name": "read", "arguments": '{"path":"/a","offset":2}'},
    }
    assert sorted(x["kind"] for x in j.repairs) == ["coerce-number", "rename-tool"]


def test_leaked_call_becomes_a_call_and_leaves_the_text(ts):
    text = 'Let me look.\n<tool_call>{"name": "read", "arguments": {"path": "/a"}}</tool_call>\nThen more.'
    turn = g.judge_turn(ts, text, None, seed="r1:0")
    assert turn.leaked and turn.changed
    assert turn.content == "Let me look.\n\nThen more."
    [j] = turn.calls
    assert (j.leaked, j.name, json.loads(j.arguments)) == ("hermes", "read", {"path": "/a"})
    assert j.id.startswith("call_") and len(j.id) == 21
    # The same response gives the same id.
    assert g.judge_turn(ts, text, None, seed="r1:0").calls[0].id == j.id
    assert g.judge_turn(ts, text, None, seed="r2:0").calls[0].id != j.id


def test_text_with_no_call_and_calls_beside_text(ts):
    assert g.judge_turn(ts, "just prose <b>bold</b>", None).calls == []
    # The model's own calls are what runs: text beside them is not searched.
    text = '<tool_call>{"name": "read", "arguments": {"path": "/z"}}</tool_call>'
    turn = g.judge_turn(ts, text, [call('{"path": "/a"}')])
    assert [json.loads(j.arguments) for j in turn.calls] == [{"path": "/a"}]
    assert turn.content == text


def test_leaked_call_only_markup_leaves_no_text(ts):
    turn = g.judge_turn(ts, '<tool_call>{"name": "read", "arguments": {"path": "/a"}}</tool_call>', None)
    assert turn.content is None and len(turn.calls) == 1


def test_rejected_call_and_its_reask(ts):
    messages = [{"role": "user", "content": "go"}]
    turn = g.judge_turn(ts, None, [call('{"path": "/a"}', id="ok"), call("{'offset': 1", id="bad")])
    [bad] = turn.rejected
    assert bad.id == "bad" and bad.message.startswith("Please rewrite")
    convo = g.reask_messages(messages, turn)
    assert convo[0] == messages[0]
    assistant, result = convo[1], convo[2]
    # Arguments that are not a JSON object go as {}, and the result quotes them.
    assert assistant["tool_calls"] == [call("{}", id="bad")]
    assert result["tool_call_id"] == "bad"
    assert result["content"].startswith(bad.message)
    assert result["content"].endswith("(arguments as sent: {'offset': 1)")
    req = g.reask_request({"model": "m", "tools": TOOLS, "stream": True, "metadata": {"x": 1}}, convo)
    assert req == {"model": "m", "tools": TOOLS, "messages": convo, "stream": False}


def test_merge_puts_the_retry_in_place_of_the_rejected(ts):
    turn = g.judge_turn(ts, "Text.", [call('{"path": "/a"}', id="a"), call("{}", id="b"), call('{"path": "/c"}', id="c")])
    retry = g.judge_turn(ts, "Sorry.", [call('{"path": "/b"}', id="b2")])
    merged = g.merge_retry(turn, retry, 1)
    assert [j.id for j in merged.calls] == ["a", "b2", "c"]
    assert merged.content == "Text." and merged.calls[1].retried == 1
    # A re-ask that makes no call leaves the rejected call as it was.
    assert g.merge_retry(turn, g.judge_turn(ts, "I cannot.", None), 1) is turn


def test_escalate_reads_the_loop_from_the_conversation(ts):
    bad = call('{"offset": 1}', id="x")
    history = [{"role": "user", "content": "go"}]
    for i in range(2):
        history.append({"role": "assistant", "tool_calls": [call('{"offset": 1}', id=f"h{i}")]})
        history.append({"role": "tool", "tool_call_id": f"h{i}", "content": "no"})
    turn = g.judge_turn(ts, None, [bad])
    g.escalate(ts, history, turn, loop_limit=3)
    assert turn.calls[0].looped and turn.calls[0].message.startswith("Stop retrying")
    fresh = g.judge_turn(ts, None, [bad])
    g.escalate(ts, history[:1], fresh, loop_limit=3)
    assert not fresh.calls[0].looped
    off = g.judge_turn(ts, None, [bad])
    g.escalate(ts, history, off, loop_limit=0)
    assert not off.calls[0].looped


def test_report_headers(ts):
    r = g.Report()
    assert r.headers() == {"x-callfix-healed": "calls=0 neutralised=0"}
    r.post_call = True
    r.count(g.judge_turn(ts, None, [call('{"path": "/a", "offset": "2"}'), call("{}", id="b")]))
    h = r.headers()
    assert h["x-callfix-calls"] == "valid=0 repaired=1 leaked=0 rejected=1"
    assert h["x-callfix-repairs"] == "coerce-number=1"
    assert r.acted and r.to_dict()["instructions"] == ["read: Please rewrite the input with valid arguments. Errors: path: Required"]


class FakeHealed:
    def __init__(self, request, statuses, neutralised):
        self.request = request
        self.results = [type("R", (), {"status": s})() for s in statuses]
        self.neutralised = neutralised
        self.ok = neutralised == 0


def test_heal_messages_uses_heal_and_skips_what_needs_none():
    seen = []

    def heal(request):
        seen.append(request)
        return FakeHealed({"messages": [{"role": "user", "content": "healed"}]}, ["repaired", "valid"], 1)

    data = {"model": "m", "tools": TOOLS, "messages": [{"role": "user"}, {"role": "assistant"}]}
    assert g.heal_messages(data, heal) == ([{"role": "user", "content": "healed"}], 1, 1)
    assert seen == [{"model": "m", "messages": data["messages"], "tools": TOOLS}]
    # Nothing to heal: no tools, or no assistant turn; or all calls valid.
    assert g.heal_messages({"messages": data["messages"]}, heal) == (None, 0, 0)
    assert g.heal_messages({"tools": TOOLS, "messages": [{"role": "user"}]}, heal) == (None, 0, 0)
    assert len(seen) == 1
    ok = lambda r: FakeHealed(r, ["valid"], 0)  # noqa: E731
    assert g.heal_messages(data, ok) == (None, 0, 0)
    # Every call valid, but a result was missing and is added: healed.
    added = data["messages"] + [{"role": "tool", "tool_call_id": "x", "content": "?"}]
    answered = lambda r: FakeHealed({"messages": added}, ["valid"], 0)  # noqa: E731
    assert g.heal_messages(data, answered) == (added, 0, 0)


def test_heal_messages_with_callfix_heal():
    history = {
        "model": "m",
        "tools": TOOLS,
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": [call("{'path': '/a'}", id="p")]},
        ],
    }
    messages, repaired, neutralised = g.heal_messages(history)
    assert messages is not None and repaired + neutralised == 1
    args = json.loads(messages[1]["tool_calls"][0]["function"]["arguments"])
    assert isinstance(args, dict)
    assert any(m.get("role") == "tool" and m.get("tool_call_id") == "p" for m in messages)


def test_an_unreadable_leaked_call_is_never_sent_as_a_call(ts):
    text = 'Sure.\n<tool_call>{"name": "read", "arguments": {"offset": 1}}</tool_call>'
    turn = g.judge_turn(ts, text, None)
    [j] = turn.calls
    assert j.status == "rejected" and j.leaked == "hermes"
    assert turn.unreadable_leak and turn.sendable() == []
    # The re-ask quotes what the model wrote.
    [_, result] = g.reask_messages([], turn)
    assert result["content"].endswith("(arguments as sent: " + j.markup + ")")
    # Once the re-ask answers with a call, it goes out in its place.
    retry = g.judge_turn(ts, None, [call('{"path": "/a"}', id="r")])
    merged = g.merge_retry(turn, retry, 1)
    assert not merged.unreadable_leak and [c.id for c in merged.sendable()] == ["r"]
    assert merged.content == "Sure.\n"
