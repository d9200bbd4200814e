"""Toolset.report: the dict `callfix report --format json` writes for the same
records, whatever form they come in; hostile records are counted, never
raised and never a crash."""

import io
import json
import pathlib
import random
import subprocess
import sys
import textwrap

import pytest

import callfix

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"
EXAMPLES = [ROOT / "examples" / "calls.jsonl", ROOT / "examples" / "stream.sse"]


def cli_report(path, label):
    """`callfix report --format json --label LABEL PATH`, the package's own command."""
    out = subprocess.run(
        [sys.executable, "-m", "callfix", "report", "--no-config", "--schemas", str(SCHEMAS),
         "--format", "json", "--label", label, str(path)],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def ts():
    return callfix.Toolset.from_dir(SCHEMAS)


def mixed_log(n, seed=7):
    """A log of every form the filter reads, from models named and not."""
    rng = random.Random(seed)
    args = ['{"file_path": "/a"}', '{"file_path": "/a", "offset": "3"}', '{"offset": 3}',
            '{"file_path": 5}', '```json\n{"file_path": "/a"}\n```', '{"file_path": "/a", "limit": 1',
            "not json"]
    lines = []
    for i in range(n):
        a, tool, model = rng.choice(args), rng.choice(["read", "Read", "nope"]), rng.choice(["m-a", "m-b", None])
        named = {"model": model} if model else {}
        form = i % 6
        if form == 0:
            lines.append(json.dumps({**named, "choices": [{"finish_reason": "tool_calls", "message": {
                "role": "assistant", "tool_calls": [{"id": f"c{i}", "type": "function",
                                                     "function": {"name": tool, "arguments": a}}]}}]}))
        elif form == 1:
            try:
                value = json.loads(a)
            except ValueError:
                value = a
            lines.append(json.dumps({**named, "role": "assistant", "stop_reason": "tool_use", "content": [
                {"type": "tool_use", "id": f"t{i}", "name": tool, "input": value}]}))
        elif form == 2:
            lines.append(json.dumps({"name": tool, "arguments": a}))
        elif form == 3:
            text = f'<tool_call>{{"name": "{tool}", "arguments": {a}}}</tool_call>'
            lines.append(json.dumps({"role": "assistant", "content": text}))
        elif form == 4:
            chunk = {**named, "choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "id": f"s{i}", "type": "function", "function": {"name": tool, "arguments": a}}]},
                "finish_reason": None}]}
            end = {**named, "choices": [{"index": 0, "delta": {}, "finish_reason": rng.choice(["length", "tool_calls"])}]}
            lines.append(f"data: {json.dumps(chunk)}\n\ndata: {json.dumps(end)}\n\ndata: [DONE]\n")
        else:
            lines.append(rng.choice(['{"nothing": 1}', "garbage", "[1, 2"]))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_equal_to_the_cli_json_on_the_shipped_examples(ts, path):
    expected = cli_report(path, "agent")
    assert ts.report(path.read_text(), label="agent") == expected
    assert ts.report(path.read_bytes(), label="agent") == expected
    assert ts.report(bytearray(path.read_bytes()), label="agent") == expected
    with open(path, encoding="utf-8") as lines:
        assert ts.report(lines, label="agent") == expected


def test_equal_to_the_cli_json_on_a_generated_log(ts, tmp_path):
    log = mixed_log(600)
    path = tmp_path / "mixed.log"
    path.write_text(log)
    expected = cli_report(path, "vendor")
    assert ts.report(log, label="vendor") == expected
    # The log has every outcome, several models and the label.
    assert min(expected[k] for k in ("valid", "repaired", "rejected", "broken_records")) > 10, expected
    assert {"m-a", "m-b", "vendor"} <= set(expected["by_model"]), expected
    assert expected["leaks"] and expected["repairs"] and expected["cut_off_stops"], expected
    assert expected["version"] == 1
    # The same log as an iterable of lines, a generator, and with records as dicts.
    assert ts.report(log.splitlines(keepends=True), label="vendor") == expected
    assert ts.report((line for line in io.StringIO(log)), label="vendor") == expected


def test_records_as_dicts_count_as_their_json_lines(ts, tmp_path):
    records = [
        {"model": "m", "role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "read", "input": {"file_path": "/a", "offset": "3"}}]},
        {"name": "read", "arguments": {"offset": 1}},
        {"nothing": "here"},
    ]
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    expected = cli_report(path, "x")
    assert ts.report(records, label="x") == expected
    assert (expected["calls"], expected["repaired"], expected["rejected"], expected["broken_records"]) == (2, 1, 1, 1)
    assert set(expected["by_model"]) == {"m", "x"}
    # One record given alone (a dict) is read as that record.
    one = ts.report(records[0])
    assert (one["calls"], one["repaired"], list(one["by_model"])) == (1, 1, ["m"])


def test_default_label_and_empty_input(ts):
    r = ts.report([{"name": "read", "arguments": {"file_path": "/a"}}])
    assert list(r["by_model"]) == ["<records>"]
    empty = ts.report("")
    assert (empty["calls"], empty["schema_accuracy"], empty["accuracy_after"], empty["examples"]) == (0, 0.0, 0.0, [])
    assert ts.report([]) == empty


def test_hostile_records_are_counted_broken_and_the_rest_still_counted(ts):
    valid = {"name": "read", "arguments": {"file_path": "/a"}}
    deep_text = "[" * 300_000 + "]" * 300_000
    deep_dict = []
    for _ in range(5_000):
        deep_dict = [deep_dict]
    hostile = [
        "not JSON at all",
        "}}}{{{",
        deep_text,
        {"name": "read", "arguments": {"file_path": deep_dict}},  # too deep to write as JSON
        {"name": "read", "arguments": {"x": float("nan")}},  # no JSON number
        b"\xff\xfe not utf-8",
        "x" * (8 << 20),  # a long line
        '{"name": "read", "arguments": "' + "a" * (1 << 20),  # cut off
    ]
    records = []
    for h in hostile:
        records += [h, valid]
    r = ts.report(records, label="h")
    assert (r["calls"], r["valid"]) == (len(hostile), len(hostile)), r
    assert r["broken_records"] == len(hostile), r
    # The same as one text (the items that are text, each before a valid line).
    line = json.dumps(valid).encode()
    texts = [h if isinstance(h, bytes) else h.encode() for h in hostile if not isinstance(h, dict)]
    whole = ts.report(b"".join(t + b"\n" + line + b"\n" for t in texts))
    assert (whole["calls"], whole["valid"], whole["broken_records"]) == (len(texts), len(texts), len(texts)), whole


def test_a_type_that_is_no_json_or_an_iterator_that_raises_is_raised(ts):
    with pytest.raises(TypeError):
        ts.report([{"name": "read", "arguments": {1, 2}}])
    with pytest.raises(TypeError):
        ts.report(42)

    def failing():
        yield {"name": "read", "arguments": {"file_path": "/a"}}
        raise RuntimeError("log gone")

    with pytest.raises(RuntimeError, match="log gone"):
        ts.report(failing())


def test_an_iterable_is_read_lazily_a_batch_at_a_time(ts):
    taken = []

    def records():
        for i in range(5000):
            taken.append(i)
            yield {"name": "read", "arguments": {"file_path": f"/{i}"}}

    r = ts.report(records())
    assert (r["calls"], r["valid"], len(taken)) == (5000, 5000, 5000)


def test_deep_records_on_a_thread_with_a_small_stack():
    # A Python thread's stack may be small: the report runs on a thread of its own.
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(
            """
            import threading
            import callfix
            threading.stack_size(256 * 1024)
            seen = []

            def work():
                ts = callfix.Toolset.from_dir("schemas")
                deep = "[read(file_path=" + "[" * 200_000 + "]" * 200_000 + ")]"
                r = ts.report([{"role": "assistant", "content": deep}, "[" * 200_000 + "]" * 200_000])
                seen.append((r["calls"], r["broken_records"]))

            t = threading.Thread(target=work)
            t.start()
            t.join()
            print(seen)
            """
        )],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[(1, 1)]", out.stdout


# Fragments of every surface, whole and broken, that random logs are made of.
VOCABULARY = [
    '{"name": "read", "arguments": {"file_path": "/a"}}',
    '{"name": "read", "arguments": "{\\"file_path\\": \\"/a\\", \\"offset\\": \\"3\\"}"}',
    '{"model": "m", "choices": [{"finish_reason": "length", "message": {"role": "assistant", "tool_calls": '
    '[{"id": "c", "type": "function", "function": {"name": "read", "arguments": "{\\"file_pa"}}]}}]}',
    '{"role": "assistant", "content": "<tool_call>{\\"name\\": \\"read\\", \\"arguments\\": {}}</tool_call>"}',
    '{"role": "assistant", "content": "[read(file_path=\'/a\')]"}',
    'data: {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "s", "type": "function", '
    '"function": {"name": "glob", "arguments": "{\\"pattern\\": \\"*\\"}"}}]}}]}',
    "data: [DONE]",
    "",
    "{", "}", "[", "]", '"', "\\", "data:", "event: x", "<tool_call>", "null", "1e999", "[1, 2",
    "\u2028", "\ud7ff", "\U0001f600", "{" * 300, "]" * 300,
    b"\xff\xfe", b"\x00", b'{"name": "read", "arguments": {"file_path": "\xc3"}}',
]


@pytest.mark.parametrize("seed", range(40))
def test_random_logs_count_the_same_as_items_and_as_one_text(ts, seed):
    rng = random.Random(seed)
    items = [rng.choice(VOCABULARY) for _ in range(rng.randrange(1, 40))]
    as_items = ts.report(items, label="f")
    text = b"".join((i if isinstance(i, bytes) else i.encode("utf-8", "surrogatepass")) + b"\n" for i in items)
    assert ts.report(text, label="f") == as_items
    assert as_items["valid"] + as_items["repaired"] + as_items["rejected"] == as_items["calls"]
    assert sum(c["calls"] for c in as_items["by_model"].values()) == as_items["calls"]


def test_a_random_log_is_the_cli_json(ts, tmp_path):
    rng = random.Random(2026)
    items = [rng.choice(VOCABULARY) for _ in range(300)]
    text = b"".join((i if isinstance(i, bytes) else i.encode()) + b"\n" for i in items)
    path = tmp_path / "random.log"
    path.write_bytes(text)
    expected = cli_report(path, "f")
    assert expected["calls"] > 0 and expected["broken_records"] > 0
    assert ts.report(items, label="f") == expected
