"""What `callfix heal` writes, validated with the providers' own request
types: a poisoned OpenAI and Anthropic history (malformed argument strings,
Python literals, truncated arguments, an unknown tool, a bad tool name,
results missing, an orphan result, a duplicate id) healed as it came and
with `--to` the other provider, each a whole request body that OpenAI's
`CompletionCreateParams` and Anthropic's `MessageCreateParams` accept (strict
pydantic TypeAdapters over the SDKs' TypedDicts, extra keys forbidden), with
every call answered by exactly one result and no call lost.

    CALLFIX=target/debug/callfix pytest tests/sdk/test_heal_sdk.py
"""

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from anthropic.types import message_create_params
from openai.types.chat import completion_create_params
from pydantic import ConfigDict, TypeAdapter

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CALLFIX = os.environ.get("CALLFIX", str(ROOT / "target" / "debug" / "callfix"))
STRICT = ConfigDict(extra="forbid", strict=True)
FIXTURES = ROOT / "tests" / "fixtures" / "heal"
ANTHROPIC_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

OPENAI_BODY = TypeAdapter(
    list[completion_create_params.CompletionCreateParamsNonStreaming], config=STRICT)
ANTHROPIC_BODY = TypeAdapter(
    list[message_create_params.MessageCreateParamsNonStreaming], config=STRICT)


def force(value):
    """Pydantic validates an `Iterable[...]` field lazily: walk it all."""
    if isinstance(value, dict):
        return {k: force(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) or type(value).__name__ == "ValidatorIterator":
        return [force(v) for v in value]
    return value


def heal(name, *args, code=1):
    out = subprocess.run([CALLFIX, "heal", *args, str(FIXTURES / name)],
                         capture_output=True, text=True, cwd=ROOT, check=False)
    assert out.returncode == code, out.stderr  # the poisoned histories hold rejected calls
    lines = out.stdout.splitlines()
    assert len(lines) == 1
    return json.loads(lines[0])


def openai_pairs(body):
    """Every call answered by exactly one `tool` message right after its turn."""
    messages = body["messages"]
    calls, i = [], 0
    while i < len(messages):
        m = messages[i]
        assert m["role"] != "tool", f"result without its call at {i}"
        i += 1
        ids = [c["id"] for c in m.get("tool_calls") or []]
        for c in m.get("tool_calls") or []:
            assert isinstance(json.loads(c["function"]["arguments"]), dict)
            assert TOOL_NAME.match(c["function"]["name"])
        got = []
        while i < len(messages) and messages[i]["role"] == "tool":
            got.append(messages[i]["tool_call_id"])
            i += 1
        assert sorted(ids) == sorted(got), (ids, got)
        calls += ids
    assert len(calls) == len(set(calls))
    return calls


def anthropic_pairs(body):
    """Every tool_use answered by exactly one tool_result first in the next message."""
    calls, waiting = [], []
    for m in body["messages"]:
        blocks = m["content"] if isinstance(m["content"], list) else []
        results = []
        for b in blocks:
            if b["type"] != "tool_result":
                break
            results.append(b["tool_use_id"])
        assert len(results) == sum(b["type"] == "tool_result" for b in blocks)
        assert sorted(results) == sorted(waiting), (results, waiting)
        waiting = [b["id"] for b in blocks if b["type"] == "tool_use"]
        for b in blocks:
            if b["type"] == "tool_use":
                assert ANTHROPIC_ID.match(b["id"]) and TOOL_NAME.match(b["name"])
                assert isinstance(b["input"], dict)
        calls += waiting
    assert not waiting
    assert len(calls) == len(set(calls))
    return calls


@pytest.mark.parametrize("name,args", [
    ("openai_poisoned.json", []),
    ("anthropic_poisoned.json", ["--to", "openai"]),
])
def test_healed_openai_bodies_validate(name, args):
    body = heal(name, *args)
    force(OPENAI_BODY.validate_python([body]))
    assert len(openai_pairs(body)) == 6


@pytest.mark.parametrize("name,args", [
    ("anthropic_poisoned.json", []),
    ("openai_poisoned.json", ["--to", "anthropic"]),
])
def test_healed_anthropic_bodies_validate(name, args):
    body = heal(name, *args)
    force(ANTHROPIC_BODY.validate_python([body]))
    assert len(anthropic_pairs(body)) == 6


@pytest.mark.parametrize("name,args,to,calls,code", [
    ("openai_content.json", ["--to", "anthropic"], "anthropic", 1, 0),
    ("anthropic_content.json", ["--to", "openai"], "openai", 2, 1),
])
def test_content_with_no_counterpart_still_makes_a_valid_body(name, args, to, calls, code):
    """Refusals, audio, files, images in tool results and system prompts,
    server tools, a result in an assistant turn, a call in a user turn: the
    healed or converted body is one the target SDK accepts, every call
    answered once."""
    body = heal(name, *args, code=code)
    if to == "openai":
        force(OPENAI_BODY.validate_python([body]))
        assert len(openai_pairs(body)) == calls
    else:
        force(ANTHROPIC_BODY.validate_python([body]))
        assert len(anthropic_pairs(body)) == calls


def test_poisoned_bodies_are_refused_as_they_come():
    """The fixtures are poisoned where the types can see it, too: a check
    that cannot fail proves nothing."""
    anthropic = json.loads((FIXTURES / "anthropic_poisoned.json").read_text())
    with pytest.raises(ValueError):  # pydantic's ValidationError: input is a string
        force(ANTHROPIC_BODY.validate_python([anthropic]))
    with pytest.raises(AssertionError):
        anthropic_pairs(anthropic)
    openai = json.loads((FIXTURES / "openai_poisoned.json").read_text())
    with pytest.raises(ValueError):  # arguments that are not JSON
        openai_pairs(openai)


def test_valid_calls_are_byte_identical():
    body = heal("openai_poisoned.json")
    args = body["messages"][2]["tool_calls"][0]["function"]["arguments"]
    assert args == '{"path": "/a",  "limit": 1e2}'
