"""`Toolset.check` and `Session.check` take the library's one-call path
(`callfix::Toolset::check_bare`); these tests pin it to the filter's
(`Filter::bare` and a sink, which `_check_filter` still takes) over many
inputs: every call in examples/ and the test fixtures, the repair corpus's
calls (valid, every mistake, every negative), and the edges (broken and
non-UTF-8 text, too deep, unknown tools, a broken schema, odd Python values),
each sent as a dict and as text."""

from decimal import Decimal
import json
import pathlib
import random
import sys

import callfix

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
sys.dont_write_bytecode = True

import repair_corpus  # noqa: E402
from corpus_json import dumps  # noqa: E402
from corpus_mistakes import MISTAKES, NEGATIVES  # noqa: E402

ARGS_KEYS = ("arguments", "input", "args")


def calls_in(value, out):
    """Every (name, arguments) written in a record, in any envelope."""
    if isinstance(value, dict):
        name = value.get("name")
        if isinstance(name, str):
            for k in ARGS_KEYS:
                if k in value:
                    out.append((name, value[k]))
        for v in value.values():
            calls_in(v, out)
    elif isinstance(value, list):
        for v in value:
            calls_in(v, out)
    return out


def file_calls(path):
    out = []
    for line in path.read_text().splitlines():
        try:
            calls_in(json.loads(line), out)
        except ValueError:
            pass
    return out


def both_ways(name, args):
    """The call with its arguments as given, as text and, where they are JSON,
    as a value."""
    if isinstance(args, (str, bytes)):
        yield name, args
        try:
            yield name, json.loads(args)
        except (ValueError, RecursionError):
            pass
        return
    try:
        text = dumps(args)
    except (TypeError, ValueError, RecursionError):
        yield name, args
        return
    yield name, text
    yield name, json.loads(text)


def outcome(check, name, args):
    """Everything a result says, or the error raised."""
    try:
        r = check(name, args)
    except Exception as e:  # noqa: BLE001: the same error either way
        return ("raised", type(e).__name__, str(e))
    return (r.to_json(), r.status, r.ok, r.tool, r.id, r.index, r.call, r.args,
            r.args_json, r.repairs, r.errors, r.message, r.looped, r.to_dict(), repr(r))


def assert_same(fast, slow, cases):
    n = 0
    for name, args in cases:
        for name, sent in both_ways(name, args):
            assert outcome(fast, name, sent) == outcome(slow, name, sent), (name, sent)
            n += 1
    return n


def corpus(n=40, seed=7):
    """The repair corpus's calls (scripts/repair_corpus.py), `n` schemas."""
    rng = random.Random(seed)
    schemas, cases = {}, []
    for i in range(n):
        tool = "tool_%04d" % i
        schema = repair_corpus.make_schema(rng, i)
        schemas[tool] = schema
        schema = dict(schema, _tool=tool)
        args = repair_corpus.make_args(rng, schema)
        cases.append((tool, args))
        for _, mistake in MISTAKES + NEGATIVES:
            made = mistake(rng, schema, args)
            if made is None:
                continue
            if isinstance(made[0], tuple):
                made = made[0]
            cases.append((tool, made[0]))
    return schemas, cases


EDGES = [
    ("read", '{"file_path": "/a", "offset": 2}'),
    ("read", '{"file_path": "/a", "offset": "2"}'),
    ("read", '{"file_path": "/a", "offset": 12345678901234567890123}'),
    ("read", '{"file_path": "/a", "offset": 1e2, "limit": 2.50}'),
    ("read", '```json\n{"file_path": "/a",}\n```'),
    ("read", '{"file_path": "/a"'),
    ("read", ""),
    ("read", "   "),
    ("read", "null"),
    ("read", "[1, 2]"),
    ("read", '"{\\"file_path\\": \\"/a\\"}"'),
    ("read", b'{"file_path": "/\xff"}'),
    ("read", '{"file_path": "/a\\ud800"}'),
    ("read", "[" * 70 + "]" * 70),
    ("read", "[" * 1500 + "]" * 1500),
    ("read", "[" * 60000),
    ("read", {"file_path": "/a", "offset": 2**80}),
    ("read", {"file_path": "/a", "offset": 2.0, "limit": Decimal("3")}),
    ("read", {"file_path": "/a", "offset": Decimal("1.10")}),
    ("read", {"file_path": "/a", "offset": float("nan")}),
    ("read", {"file_path": "/a\ud800"}),
    ("read", {1: "a"}),
    ("read", {"file_path": ("/a",)}),
    ("read", {"file_path": object()}),
    ("Read", {"file_path": "/a"}),
    ("nope", {"file_path": "/a"}),
    ("grep", {"pattern": "fn", "-n": "true", "head_limit": "5"}),
    ("todowrite", {"todos": '[{"id": "1", "content": "x", "status": "pending"}]'}),
]


def deep(levels):
    v = {}
    for _ in range(levels):
        v = {"a": v}
    return v


def test_check_is_the_filters_check_for_every_example_and_fixture_call():
    shipped = callfix.Toolset.from_dir(ROOT / "schemas")
    cases = list(EDGES) + [("read", deep(70)), ("read", deep(1200))]
    cases += file_calls(ROOT / "examples" / "calls.jsonl")
    n = assert_same(shipped.check, shipped._check_filter, cases)
    fixtures = ROOT / "tests" / "fixtures"
    findings = callfix.Toolset.from_dir(fixtures / "findings" / "schemas")
    n += assert_same(findings.check, findings._check_filter, file_calls(fixtures / "findings" / "calls.jsonl"))
    parser = callfix.Toolset.from_dir(fixtures / "parser-cases" / "tools.json")
    for f in sorted((fixtures / "parser-cases").glob("*.jsonl")):
        n += assert_same(parser.check, parser._check_filter, file_calls(f))
    assert n > 80


def test_check_is_the_filters_check_over_the_repair_corpus_with_any_options():
    schemas, cases = corpus()
    cases += [(t, {"file_path": "/a", "offset": "0"}) for t in schemas]
    for opts in ({}, {"repair": []}, {"max_errors": 1, "max_chars": 20, "prefix": "Fix it."}, {"max_rounds": 1}):
        tools = callfix.Toolset(schemas, **opts)
        assert assert_same(tools.check, tools._check_filter, cases) > 500


def test_a_broken_schema_raises_the_same_either_way():
    tools = callfix.Toolset({"t": {"properties": {"p": {"$ref": "/etc/passwd"}}}, "u": {"type": "nonsense"}})
    assert_same(tools.check, tools._check_filter, [("t", {"p": 1}), ("u", "{}"), ("v", "{}")])


def test_session_check_counts_repeats_as_the_filters_does():
    schemas, cases = corpus(n=10, seed=11)
    tools = callfix.Toolset(schemas)
    for limit in (0, 1, 2, 3):
        fast, slow = tools.session(loop_limit=limit), tools.session(loop_limit=limit)
        # Three times through: rejections repeat, and records are numbered on.
        for _ in range(3):
            assert_same(fast.check, slow._check_filter, cases + [("nope", {})])


def test_ints_and_strs_are_written_as_json_dumps_writes_them():
    tools = callfix.Toolset({"t": {}})
    for v in (0, -1, 1, 9, 10, -10, 99, 100, 2**63 - 1, -2**63, 2**63, -2**63 - 1, 2**200, True, 1.5,
              "", "é\"\\\n\x00", "𝄞"):
        args = {"x": v, "y": [v, {"z": v}]}
        assert tools.check("t", args).args_json == json.dumps(args, separators=(",", ":"), ensure_ascii=False)
