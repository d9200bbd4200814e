"""The Python API: every entry point, CLI equality, exactness, threads, pickling."""

import json
import re
import pathlib
import pickle
import shutil
import subprocess
import sys
import threading

import pytest

import callfix

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"
EXAMPLES = ROOT / "examples" / "calls.jsonl"
READ = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "offset": {"type": "integer"},
        "ratio": {"type": "number"},
    },
    "required": ["path"],
    "additionalProperties": False,
}


def cli(*args, stdin=None):
    # The script pip installed beside this interpreter (the venv's bin/).
    exe = pathlib.Path(sys.executable).with_name("callfix")
    exe = str(exe) if exe.exists() else shutil.which("callfix")
    assert exe, "the callfix command is installed with the package"
    return subprocess.run(
        [exe, *args], input=stdin, capture_output=True, text=True, cwd=ROOT
    )


@pytest.fixture(scope="module")
def ts():
    return callfix.Toolset.from_dir(SCHEMAS)


def test_the_done_when_line(ts):
    r = ts.check("read", {"filePath": "/a", "offset": "2"})
    assert r.status == "repaired"
    assert r.args == {"file_path": "/a", "offset": 2}
    assert [x["kind"] for x in r.repairs] == ["coerce-number", "rename-key"]


def test_valid_repaired_rejected_from_a_mapping():
    ts = callfix.Toolset({"read": READ})
    assert ts.names() == ["read"] and len(ts) == 1 and "read" in ts
    valid = ts.check("read", {"path": "/a"})
    assert (valid.status, valid.ok, valid.args, valid.repairs) == ("valid", True, {"path": "/a"}, [])
    assert valid.message is None and valid.errors == []
    bad = ts.check("read", {"offset": "x"})
    assert bad.status == "rejected" and not bad.ok and bad.args is None
    assert bad.message == (
        "Please rewrite the input with valid arguments. "
        "Errors: path: Required; offset: expected integer, got string"
    )
    assert bad.errors == [
        {"path": "path", "message": "Required"},
        {"path": "offset", "message": "expected integer, got string"},
    ]


def test_arguments_as_text_are_salvaged():
    ts = callfix.Toolset({"read": READ})
    r = ts.check("read", '```json\n{"path": "/a",}\n```')
    assert r.status == "repaired"
    assert [x["kind"] for x in r.repairs] == ["strip-fence", "tolerant-parse"]
    cut = ts.check("read", '{"path": "/a')
    assert cut.status == "rejected" and "cut off" in cut.message


def test_tuples_are_arrays_and_bytes_are_text():
    ts = callfix.Toolset({"pair": {"type": "array", "items": {"type": "integer"}}})
    r = ts.check("pair", (1, 2))
    assert r.status == "valid" and r.args == [1, 2]
    assert ts.check("pair", b"[3, 4]").args == [3, 4]
    assert ts.check_record(b'{"name": "pair", "arguments": [5]}')[0].args == [5]


def test_schemas_may_be_json_text():
    ts = callfix.Toolset({"read": json.dumps(READ)})
    assert ts.check("read", {"path": "/a"}).ok


def test_options_mirror_the_cli():
    ts = callfix.Toolset({"read": READ}, repair="none", prefix="Fix:", max_errors=1, max_chars=20)
    r = ts.check("read", {"offset": "2", "extra": 1})
    assert r.status == "rejected"
    assert r.message.startswith("Fix: ") and r.message.endswith("(+2 more)")
    only = callfix.Toolset({"read": READ}, repair=["coerce-number"])
    assert only.check("read", {"path": "/a", "offset": "2"}).status == "repaired"
    assert only.check("read", {"path": "/a", "x": None}).status == "rejected"
    with pytest.raises(callfix.CallfixError, match='unknown repair kind "coerce"'):
        callfix.Toolset({"read": READ}, repair="coerce")
    with pytest.raises(callfix.CallfixError, match="max_chars: expected 10"):
        callfix.Toolset({"read": READ}, max_chars=3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        callfix.Toolset({"read": READ}, colour=True)


def test_from_tools_reads_every_provider_shape():
    params = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    shapes = [
        [{"type": "function", "function": {"name": "search", "parameters": params}}],
        [{"name": "search", "input_schema": params}],
        [{"functionDeclarations": [{"name": "search", "parameters": params}]}],
        {"tools": [{"name": "search", "inputSchema": params}]},
    ]
    for shape in shapes:
        ts = callfix.Toolset.from_tools(shape)
        assert ts.check("search", {"q": "x"}).ok, shape
        assert not ts.check("search", {}).ok, shape
    with pytest.raises(callfix.CallfixError, match="not a tool list"):
        callfix.Toolset.from_tools({"nope": 1})


def test_errors_are_callfix_errors_with_the_cli_words(tmp_path):
    assert issubclass(callfix.CallfixError, ValueError)
    with pytest.raises(callfix.CallfixError, match="schema source .*no such file or directory"):
        callfix.Toolset.from_dir(tmp_path / "missing")
    # A broken schema is the operator's error, raised naming the tool and the
    # problem, never a rejected result the model would be blamed for.
    (tmp_path / "bad.json").write_text("{nope")
    (tmp_path / "inv.json").write_text('{"properties": {"a": {"type": "bogus"}}}')
    (tmp_path / "ok.json").write_text('{"type": "object"}')
    ts = callfix.Toolset.from_dir(tmp_path)
    with pytest.raises(callfix.CallfixError, match='"bad" cannot be checked.*not valid JSON'):
        ts.check("bad", {})
    with pytest.raises(callfix.CallfixError, match='"inv" cannot be checked.*bogus'):
        ts.session().check("inv", {"a": 1})
    with pytest.raises(callfix.CallfixError, match='"inv" cannot be checked'):
        list(ts.check_many(['{"name": "ok", "arguments": {}}', '{"name": "inv", "arguments": {}}']))
    assert ts.check("ok", {}).ok
    mapping = callfix.Toolset({"t": {"properties": {"p": {"$ref": "/etc/passwd"}}}})
    with pytest.raises(callfix.CallfixError, match='"t" cannot be checked'):
        mapping.check("t", {"p": 1})
    with pytest.raises(callfix.CallfixError, match="not a JSON number"):
        callfix.Toolset({"read": READ}).check("read", {"path": "/a", "ratio": float("nan")})
    with pytest.raises(callfix.CallfixError, match="keys are strings"):
        callfix.Toolset({"read": READ}).check("read", {1: "x"})
    with pytest.raises(TypeError, match="cannot send a set"):
        callfix.Toolset({"read": READ}).check("read", {"path": {1}})


def test_check_record_reads_any_envelope(ts):
    openai = {
        "role": "assistant",
        "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "read", "arguments": '{"file_path": "/a"}'}},
            {"id": "b", "type": "function", "function": {"name": "nope", "arguments": "{}"}},
        ],
    }
    results = ts.check_record(openai)
    assert [(r.id, r.status, r.call) for r in results] == [("a", "valid", 0), ("b", "rejected", 1)]
    assert results[1].message.startswith('Unknown tool "nope"')
    assert ts.check_record('{"type":"tool_use","id":"t","name":"read","input":{"file_path":"/a"}}')[0].ok
    assert ts.check_record({"role": "assistant", "content": "just text"}) == []
    broken = ts.check_record("{not json")
    assert len(broken) == 1 and broken[0].status == "rejected" and broken[0].tool is None


def test_results_equal_the_cli_on_the_shipped_examples(ts):
    cli_lines = cli("--format", "json", str(EXAMPLES)).stdout.splitlines()
    records = [line for line in EXAMPLES.read_text().splitlines() if line.strip()]
    ours = [r.to_json() for r in ts.check_many(records, source=str(EXAMPLES))]
    assert ours == cli_lines
    assert [json.loads(x) for x in cli_lines] == [r.to_dict() for r in ts.check_many(records, source=str(EXAMPLES))]


def test_check_many_is_lazy_ordered_and_numbered(ts):
    pulled = []

    def records():
        for i in range(5000):
            pulled.append(i)
            yield {"name": "read", "arguments": {"file_path": f"/f{i}"}}

    it = ts.check_many(records(), batch_size=100)
    first = next(it)
    assert first.index == 0 and len(pulled) == 100
    rest = list(it)
    assert [r.index for r in rest] == list(range(1, 5000))
    assert all(r.ok for r in rest)


def test_numbers_come_back_exactly():
    ts = callfix.Toolset({"read": READ})
    big = 2**80 + 1
    r = ts.check("read", {"path": "/a", "offset": big})
    assert r.status == "valid" and r.args["offset"] == big and type(r.args["offset"]) is int
    text = '{"path": "/a", "ratio": 0.10000000000000000000001, "offset": 1e2}'
    r = ts.check("read", text)
    assert r.args_json == '{"path":"/a","ratio":0.10000000000000000000001,"offset":1e2}'
    assert r.args["ratio"] == 0.1
    r = ts.check("read", {"path": "/a", "ratio": 1e16})
    assert r.args_json == '{"path":"/a","ratio":1e+16}' and r.args["ratio"] == 1e16


def test_a_session_escalates_repeats_and_a_toolset_never_does():
    ts = callfix.Toolset({"read": READ})
    for _ in range(5):
        assert not ts.check("read", {}).looped
    s = ts.session(loop_limit=2)
    assert not s.check("read", {}).looped
    second = s.check("read", {})
    assert second.looped and second.message.startswith("Stop retrying")
    other = ts.session(loop_limit=2)
    assert not other.check("read", {}).looped
    rec = ts.session(loop_limit=2)
    rec.check_record({"name": "read", "arguments": {}})
    assert rec.check_record({"name": "read", "arguments": {}})[0].looped


def test_four_threads_share_one_toolset(ts):
    want = ts.check("read", {"filePath": "/a", "offset": "2"}).to_json()
    failures = []

    def work():
        for _ in range(300):
            got = ts.check("read", {"filePath": "/a", "offset": "2"}).to_json()
            if got != want:
                failures.append(got)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_a_toolset_pickles_by_its_source(ts):
    for original in (ts, callfix.Toolset({"read": READ}, repair="none"),
                     callfix.Toolset.from_tools([{"name": "read", "input_schema": READ}])):
        copy = pickle.loads(pickle.dumps(original))
        assert copy.names() == original.names()
        name = original.names()[-1]
        call = {"path": "/a", "offset": "2"}
        assert copy.check(name, call).to_json() == original.check(name, call).to_json()


def test_render_and_tools(ts):
    assert callfix.render("On <PLATFORM>, <WHO>.", {"WHO": "y"}) == f"On {sys.platform}, y."
    with pytest.raises(callfix.CallfixError, match="unknown variable <PLATFROM>.*did you mean <PLATFORM>"):
        callfix.render("<PLATFROM>")
    payload = callfix.tools(ts, provider="anthropic", descriptions=ROOT / "descriptions")
    shipped = json.loads(cli("tools", "--provider", "anthropic").stdout)
    assert payload == shipped
    with pytest.raises(callfix.CallfixError, match="unknown provider"):
        callfix.tools(ts, provider="claude")


def test_the_command_is_on_path():
    out = cli("--version")
    # `callfix 0.1.0`, with the commit when built from a git checkout.
    version = re.escape(callfix.__version__)
    assert out.returncode == 0
    assert re.fullmatch(rf"callfix {version}( \([0-9a-f]{{10}}\))?", out.stdout.strip())
    bad = cli("--schemas", str(SCHEMAS), stdin='{"name":"read","arguments":{}}\n')
    assert bad.returncode == 1 and bad.stdout.startswith("Please rewrite")


def python_blocks(path):
    text = path.read_text()
    return [b.split("```", 1)[0] for b in text.split("```python\n")[1:]]


@pytest.mark.parametrize("doc", ["README.md", "docs/python.md"])
def test_the_python_examples_in_the_docs_run(doc, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    blocks = python_blocks(ROOT / doc)
    assert blocks, f"{doc} shows Python"
    for block in blocks:
        exec(compile(block, doc, "exec"), {})
    out = capsys.readouterr().out
    if doc == "README.md":
        assert out.startswith("repaired {'file_path': '/a', 'offset': 2}\n1 Please rewrite")
