"""callfix.heal: a conversation made acceptable again, as `callfix heal` does."""

import copy
import json
import os
import subprocess
import sys

import pytest

import callfix

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "heal")


def load(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return json.load(f)


def test_openai_history_healed():
    request = load("openai_poisoned.json")
    before = copy.deepcopy(request)
    healed = callfix.heal(request)
    assert request == before, "the input is not changed"
    assert isinstance(healed, callfix.Healed)
    assert [r.status for r in healed.results] == [
        "valid", "repaired", "repaired", "rejected", "rejected", "rejected"]
    assert all(isinstance(r, callfix.Result) for r in healed.results)
    assert healed.neutralised == 3 and healed.ok is False
    calls = healed.request["messages"][2]["tool_calls"]
    assert calls[1]["function"]["arguments"] == '{"path":"/b","limit":5}'
    assert calls[3]["function"]["arguments"] == "{}"
    assert healed.results[1].repairs[0]["kind"] == "coerce-number"
    assert healed.results[4].message.startswith('Unknown tool "delete_everything"')
    tool_ids = [m["tool_call_id"] for m in healed.request["messages"] if m["role"] == "tool"]
    assert sorted(tool_ids) == sorted(c["id"] for c in calls)


def test_anthropic_history_healed_and_text_input():
    text = open(os.path.join(FIXTURES, "anthropic_poisoned.json")).read()
    healed = callfix.heal(text)
    assert [r.id for r in healed.results][:2] == ["toolu_ok", "toolu_str"]
    assert healed.neutralised == 2
    assert healed.request["messages"][2]["content"][0]["tool_use_id"] == "toolu_ok"


def test_same_as_the_command_line():
    for name in ("openai_poisoned.json", "anthropic_poisoned.json"):
        for to in (None, "openai", "anthropic"):
            args = ["heal", os.path.join(FIXTURES, name)] + (["--to", to] if to else [])
            out = subprocess.run([sys.executable, "-m", "callfix", *args], capture_output=True, text=True, check=False)
            assert out.returncode == 1, out.stderr
            # As text: the numbers keep their spelling (1e2), as on the command line.
            text = open(os.path.join(FIXTURES, name)).read()
            assert callfix.heal(text, to=to).request == json.loads(out.stdout)


def test_valid_history_is_ok_and_unchanged():
    request = load("openai_poisoned.json")
    request["messages"] = request["messages"][:2]
    healed = callfix.heal(request)
    assert healed.ok and healed.results == [] and healed.request == request


def test_toolset_given_overrides_the_requests_tools():
    request = load("openai_poisoned.json")
    del request["tools"]
    ts = callfix.Toolset({"read": {"type": "object"}, "search": {"type": "object"}})
    healed = callfix.heal(request, ts)
    assert healed.results[1].status == "valid"


def test_errors():
    with pytest.raises(callfix.CallfixError, match="no tools"):
        callfix.heal({"model": "m", "messages": []})
    with pytest.raises(callfix.CallfixError, match="not a conversation"):
        callfix.heal({"model": "m"})
    with pytest.raises(callfix.CallfixError, match="not valid JSON"):
        callfix.heal("{")
    with pytest.raises(callfix.CallfixError, match="openai or anthropic"):
        callfix.heal(load("openai_poisoned.json"), to="gemini")
    with pytest.raises(callfix.CallfixError):
        callfix.heal(load("openai_poisoned.json"), to="nope")


def test_deep_input_is_an_error_not_a_crash():
    deep = {"messages": [], "tools": []}
    node = deep
    for _ in range(5000):
        node["x"] = {}
        node = node["x"]
    with pytest.raises(callfix.CallfixError):
        callfix.heal(deep)


def test_content_the_other_provider_cannot_hold_is_said():
    # What `callfix heal --to` says on stderr, as a list: nothing silently lost.
    request = load("openai_content.json")
    healed = callfix.heal(request, to="anthropic")
    assert 'messages[2]: a part of type "refusal", written as text' in healed.not_carried
    assert len(healed.not_carried) == 7
    assert callfix.heal(request).not_carried == []
