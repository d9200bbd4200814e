"""What `callfix --to` and `callfix tools --provider` write, validated with the
providers' own SDK types: OpenAI's and Anthropic's request param types (pydantic
TypeAdapters over their TypedDicts, extra keys forbidden), google-genai's,
Mistral's, Ollama's and MCP's pydantic models, and botocore's own Converse
request shapes for Bedrock.

    CALLFIX=target/debug/callfix pytest tests/sdk

Run by .ci/run in a fresh venv (pip install openai anthropic google-genai ollama
mistralai botocore mcp, pinned there).
"""

import json
import os
import re
import subprocess
from pathlib import Path

import botocore.session
import pytest
from anthropic import types as anthropic_types
from botocore.validate import ParamValidator
from mcp import types as mcp_types
from mistralai.client import models as mistral
from google.genai import types as genai_types
from ollama import Message as OllamaMessage
from openai.types import chat as openai_chat
from openai.types import responses as openai_responses
from pydantic import ConfigDict, TypeAdapter

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CALLFIX = os.environ.get("CALLFIX", str(ROOT / "target" / "debug" / "callfix"))
STRICT = ConfigDict(extra="forbid", strict=True)

# Source turns in each provider's shape: valid, repaired and rejected calls, calls
# with no id or a numeric one, calls leaked into text (whole and cut off).
SOURCES = {
    "openai": {
        "role": "assistant",
        "content": "Reading two files.",
        "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "read", "arguments": '{"file_path": "/a", "offset": 1.50}'}},
            {"id": "call_2", "type": "function",
             "function": {"name": "read", "arguments": '{"filePath": "/b", "offset": "3"}'}},
            {"id": "call_3", "type": "function",
             "function": {"name": "glob", "arguments": "pattern=*.rs"}},
            {"id": "call_4", "type": "function", "function": {"name": "glob", "arguments": "{}"}},
        ],
    },
    "openai-legacy": {
        "role": "assistant",
        "content": None,
        "function_call": {"name": "glob", "arguments": '{"path": "/src"}'},
    },
    "anthropic": {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Searching."},
            {"type": "tool_use", "id": "toolu_01", "name": "glob", "input": {"pattern": "*.rs"}},
            {"type": "tool_use", "id": "toolu_02", "name": "grep", "input": {"path": "/src"}},
        ],
    },
    "gemini": {
        "role": "model",
        "parts": [
            {"functionCall": {"name": "glob", "args": {"pattern": "*"}}},
            {"functionCall": {"name": "glob", "args": {}}},
        ],
    },
    "ollama": {
        "model": "qwen3",
        "message": {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"function": {"name": "read", "arguments": {"file_path": "/a"}}},
                {"function": {"name": "read", "arguments": {"limit": 2}}},
            ],
        },
        "done": True,
    },
    "mcp": {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "glob", "arguments": {"path": "/src"}}},
    "leaked": {
        "role": "assistant",
        "content": 'Let me look.\n<tool_call>\n{"name": "glob", "arguments": {"pattern": "*.rs"}}\n</tool_call>',
    },
    "leaked-cut": {
        "role": "assistant",
        "content": 'Let me look.\n<tool_call>\n{"name": "glob", "arguments": {"pattern": "*.r',
    },
    "responses": [
        {"type": "function_call", "id": "fc_1", "call_id": "call_9", "name": "glob",
         "arguments": '{"pattern": "*.rs"}'},
        {"type": "function_call", "id": "fc_2", "call_id": "call_10", "name": "glob",
         "arguments": '{"pattern": ""}'},
    ],
}


# The sources that are one assistant turn with a rejected call: converted, the
# turn keeps that call and its error result answers it by id.
TURNS = {"openai", "openai-legacy", "anthropic", "gemini", "ollama", "leaked-cut"}


def run(args, stdin):
    out = subprocess.run([CALLFIX, *args], input=stdin, capture_output=True, text=True,
                         cwd=ROOT, check=False)
    assert out.returncode in (0, 1), out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def convert(source, to):
    return run(["-f", "call", "--to", to], json.dumps(SOURCES[source]) + "\n")


def adapter(tp):
    """A strict adapter over a list of `tp` (pydantic takes a config only for a
    type that cannot carry its own, as a bare TypedDict can)."""
    return TypeAdapter(list[tp], config=STRICT)


def force(value):
    """Pydantic validates an `Iterable[...]` field lazily: walk it all."""
    if isinstance(value, dict):
        return {k: force(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) or type(value).__name__ == "ValidatorIterator":
        return [force(v) for v in value]
    return value


def check(ta, value):
    return force(ta.validate_python([value]))[0]


OPENAI_MESSAGE = adapter(openai_chat.ChatCompletionMessageParam)
RESPONSES_ITEM = adapter(openai_responses.ResponseInputItemParam)
ANTHROPIC_MESSAGE = adapter(anthropic_types.MessageParam)
# The API's rule for tool_use ids and tool names (not in the SDK's types).
ANTHROPIC_ID = re.compile(r"^[a-zA-Z0-9_-]+$")


def is_message(line):
    return isinstance(line, dict) and "role" in line


def assert_answered(source, calls, results):
    """A converted turn keeps its rejected call: each error result answers a
    call of that turn, by id."""
    if source in TURNS:
        assert results and all(r in calls for r in results), (calls, results)


# One test per (source, target): the converted turn is what the API accepts,
# and every error result answers a call of that turn, by id.


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_openai_chat(source):
    lines = convert(source, "openai")
    turns = [line for line in lines if is_message(line)]
    for line in lines:
        if is_message(line):
            check(OPENAI_MESSAGE, line)
        else:  # a lone call (an MCP request is not a message)
            check(adapter(openai_chat.ChatCompletionMessageToolCallParam), line)
    ids = [c["id"] for t in turns for c in t.get("tool_calls", [])]
    assert len(ids) == len(set(ids))
    assert_answered(source, ids, [t["tool_call_id"] for t in turns if t["role"] == "tool"])


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_openai_responses(source):
    lines = convert(source, "openai-responses")
    items = [i for line in lines for i in (line if isinstance(line, list) else [line])]
    for item in items:
        check(RESPONSES_ITEM, item)
    calls = {i["call_id"] for i in items if i["type"] == "function_call"}
    outputs = [i["call_id"] for i in items if i["type"] == "function_call_output"]
    assert_answered(source, calls, outputs)


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_anthropic(source):
    lines = convert(source, "anthropic")
    uses, results = [], []
    for line in lines:
        if is_message(line):
            check(ANTHROPIC_MESSAGE, line)
            blocks = line["content"] if isinstance(line["content"], list) else []
            uses += [b["id"] for b in blocks if b["type"] == "tool_use"]
            results += [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"]
        elif line.get("type") == "tool_use":
            check(adapter(anthropic_types.ToolUseBlockParam), line)
            uses.append(line["id"])
        else:
            check(adapter(anthropic_types.ToolResultBlockParam), line)
    assert_answered(source, uses, results)
    assert all(ANTHROPIC_ID.match(i) for i in uses), uses
    assert len(uses) == len(set(uses))


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_gemini(source):
    for line in convert(source, "gemini"):
        if is_message(line):
            content = genai_types.Content.model_validate(line)
            assert content.parts
        else:
            genai_types.Part.model_validate(line)


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_ollama(source):
    for line in convert(source, "ollama"):
        if is_message(line):
            message = OllamaMessage.model_validate(line)
            for call in message.tool_calls or []:
                assert isinstance(call.function.arguments, dict)


# `callfix tools --provider X` on the shipped tool set.


def tools(provider):
    out = subprocess.run([CALLFIX, "tools", "--provider", provider], capture_output=True,
                         text=True, cwd=ROOT, check=True)
    return json.loads(out.stdout)


def test_tools_openai():
    for tool in tools("openai"):
        check(adapter(openai_chat.ChatCompletionToolParam), tool)


def test_tools_openai_responses():
    for tool in tools("openai-responses"):
        check(adapter(openai_responses.FunctionToolParam), tool)
        # The API's default is strict: true, which most schemas fail as they are.
        assert tool["strict"] is False


# OpenAI strict mode ("Structured Outputs"): the supported keywords, per type.
STRICT_KEYWORDS = {
    "type", "description", "title", "properties", "required", "additionalProperties",
    "items", "enum", "const", "anyOf", "$ref", "$defs", "pattern", "format",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minItems", "maxItems",
}


def strict_violations(schema, at=""):
    """Every place `schema` breaks a strict-mode rule."""
    out = [f"{at}: {k}" for k in schema if k not in STRICT_KEYWORDS]
    types = schema.get("type")
    types = types if isinstance(types, list) else [types]
    if "object" in types or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            out.append(f"{at}: not closed")
        if sorted(schema.get("required", [])) != sorted(schema.get("properties", {})):
            out.append(f"{at}: not every property required")
    for name, sub in schema.get("properties", {}).items():
        out += strict_violations(sub, f"{at}/properties/{name}")
    if isinstance(schema.get("items"), dict):
        out += strict_violations(schema["items"], f"{at}/items")
    for i, sub in enumerate(schema.get("anyOf", [])):
        out += strict_violations(sub, f"{at}/anyOf/{i}")
    return out


@pytest.mark.parametrize("provider", ["openai", "openai-responses"])
def test_tools_openai_strict(provider):
    out = subprocess.run([CALLFIX, "tools", "--provider", provider, "--openai-strict"],
                         capture_output=True, text=True, cwd=ROOT, check=True)
    for tool in json.loads(out.stdout):
        if provider == "openai":
            check(adapter(openai_chat.ChatCompletionToolParam), tool)
            function = tool["function"]
        else:
            check(adapter(openai_responses.FunctionToolParam), tool)
            function = tool
        assert function["strict"] is True
        assert function["parameters"]["type"] == "object"
        assert strict_violations(function["parameters"]) == [], function["name"]
    # What was stripped is said, on stderr.
    assert "minLength at /properties/file_path stripped" in out.stderr


def test_tools_anthropic():
    for tool in tools("anthropic"):
        check(adapter(anthropic_types.ToolParam), tool)


def test_tools_gemini():
    for tool in tools("gemini"):
        genai_types.Tool.model_validate(tool)


def test_tools_gemini_type_lists(tmp_path):
    """A JSON Schema `type` list: google-genai's Schema takes one type name, and
    "or null" as `nullable: true`; what it cannot say is stripped, with a warning."""
    (tmp_path / "t.json").write_text(json.dumps({
        "type": "object", "description": "T.", "properties": {
            "n": {"type": ["integer", "null"], "description": "N."},
            "m": {"type": ["string", "integer"], "description": "M."},
            "l": {"type": "array", "items": {"type": ["null", "boolean"]}},
        }}))
    out = subprocess.run([CALLFIX, "tools", "--provider", "gemini", "-s", str(tmp_path)],
                         capture_output=True, text=True, cwd=ROOT, check=True)
    [tool] = json.loads(out.stdout)
    declared = genai_types.Tool.model_validate(tool).function_declarations[0]
    props = declared.parameters.properties
    assert props["n"].type == genai_types.Type.INTEGER and props["n"].nullable is True
    assert props["m"].type is None
    assert props["l"].items.type == genai_types.Type.BOOLEAN and props["l"].items.nullable
    assert "type at /properties/m stripped" in out.stderr


def test_tools_ollama():
    from ollama import Tool as OllamaTool

    for tool in tools("ollama"):
        OllamaTool.model_validate(tool)


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_mistral(source):
    ids, results = [], []
    for line in convert(source, "mistral"):
        if line.get("role") == "assistant":
            message = mistral.AssistantMessage.model_validate(line)
            ids += [c.id for c in message.tool_calls or []]
        elif line.get("role") == "tool":
            results.append(mistral.ToolMessage.model_validate(line).tool_call_id)
        else:
            call = mistral.ToolCall.model_validate(line)
            ids.append(call.id)
    assert_answered(source, ids, results)
    # Mistral's rule for ids (the API's, not in the SDK's types).
    assert all(re.fullmatch(r"[a-zA-Z0-9]{9}", i) for i in ids), ids


CONVERSE = botocore.session.get_session().get_service_model("bedrock-runtime") \
    .operation_model("Converse").input_shape


def converse(**request):
    report = ParamValidator().validate({"modelId": "m", "messages": [], **request}, CONVERSE)
    assert not report.has_errors(), report.generate_report()


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_bedrock(source):
    uses, results = [], []
    for line in convert(source, "bedrock"):
        if is_message(line):
            converse(messages=[line])
            blocks = line["content"]
        elif "toolUse" in line:
            converse(messages=[{"role": "assistant", "content": [line]}])
            blocks = [line]
        else:
            converse(messages=[{"role": "user", "content": [line]}])
            blocks = [line]
        uses += [b["toolUse"]["toolUseId"] for b in blocks if "toolUse" in b]
        results += [b["toolResult"]["toolUseId"] for b in blocks if "toolResult" in b]
    assert_answered(source, uses, results)


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_mcp(source):
    for line in convert(source, "mcp"):
        if "method" in line:
            request = mcp_types.JSONRPCRequest.model_validate(line)
            assert request.method == "tools/call"
            mcp_types.CallToolRequestParams.model_validate(line["params"])
        else:
            mcp_types.JSONRPCResponse.model_validate(line)
            assert mcp_types.CallToolResult.model_validate(line["result"]).is_error


def test_tools_mistral():
    for tool in tools("mistral"):
        mistral.Tool.model_validate(tool)


def test_tools_bedrock():
    converse(toolConfig=tools("bedrock"))


def test_tools_mcp():
    mcp_types.ListToolsResult.model_validate(tools("mcp"))
