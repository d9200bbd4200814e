"""Every entry that takes text or a file frames it as the CLI does (issue 26, item 12).

`check_many(open(path))` once took each line of the file as a record: a
pretty-printed file gave a rejected result per line. The lines of a file now
go through the CLI's own framer, so results, indexes and count are the CLI's.
"""

import json
import subprocess
import sys
import textwrap

import pytest

import callfix
from test_api import EXAMPLES, ROOT, SCHEMAS, cli


def records():
    out = []
    for line in EXAMPLES.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            pass  # the example's deliberately broken line
    assert len(out) > 10
    return out


def shapes(tmp):
    recs = records()
    files = {
        "pretty.json": "".join(json.dumps(r, indent=2) + "\n" for r in recs),
        "concatenated.json": "".join(json.dumps(r) for r in recs),
        "pretty-no-newlines.json": "".join(json.dumps(r, indent=4) for r in recs),
        "lines.jsonl": "\n".join(json.dumps(r) for r in recs) + "\n\n",
        "array.json": json.dumps(recs, indent=1),
        "calls.jsonl": EXAMPLES.read_text(),
        "stream.sse": (ROOT / "examples" / "stream.sse").read_text(),
    }
    for name, text in files.items():
        path = tmp / name
        path.write_text(text)
        yield path


@pytest.fixture(scope="module")
def ts():
    return callfix.Toolset.from_dir(SCHEMAS)


@pytest.mark.parametrize("batch_size", [1, 3, 1024])
def test_check_many_of_a_file_equals_the_cli(ts, tmp_path, batch_size):
    for path in shapes(tmp_path):
        want = cli("--format", "json", str(path)).stdout.splitlines()
        assert want, path
        for mode in ("r", "rb"):
            with open(path, mode) as f:
                got = [r.to_json() for r in ts.check_many(f, batch_size=batch_size, source=str(path))]
            assert got == want, (path.name, mode, batch_size)
            pairs = [(json.loads(x)["index"], json.loads(x)["call"]) for x in got]
            assert len(pairs) == len(set(pairs))


def test_check_stream_of_a_file_equals_the_cli(ts, tmp_path):
    for path in shapes(tmp_path):
        want = cli("--format", "json", str(path)).stdout.splitlines()
        for data in (path.read_text(), path.read_bytes()):
            got = [r.to_json() for r in ts.check_stream(data, source=str(path))]
            assert got == want, path.name


def test_a_pretty_file_is_one_result_per_call(ts, tmp_path):
    path = tmp_path / "two.json"
    path.write_text(
        json.dumps({"name": "read", "arguments": {"file_path": "/a"}}, indent=2)
        + "\n"
        + json.dumps({"name": "read", "arguments": {"file_path": "/b"}}, indent=2)
    )
    results = list(ts.check_many(open(path)))
    assert [(r.index, r.status, r.args) for r in results] == [
        (0, "valid", {"file_path": "/a"}),
        (1, "valid", {"file_path": "/b"}),
    ]


def test_items_without_newlines_are_lines(ts):
    call = {"name": "read", "arguments": {"file_path": "/a"}}
    items = [json.dumps(call), call, json.dumps(call).encode()]
    assert [r.index for r in ts.check_many(items) if r.ok] == [0, 1, 2]


def test_an_iterator_that_raises_raises_after_the_results_before(ts):
    def gen():
        yield '{"name": "read", "arguments": {"file_path": "/a"}}\n'
        raise KeyError("boom")

    it = ts.check_many(gen(), batch_size=1)
    assert next(it).ok
    with pytest.raises(KeyError, match="boom"):
        next(it)
    assert list(it) == []


def test_an_abandoned_iterator_does_not_hang(ts):
    def endless():
        while True:
            yield '{"name": "read", "arguments": {"file_path": "/a"}}\n'

    for _ in range(20):
        it = ts.check_many(endless(), batch_size=10)
        assert next(it).ok
        del it


def test_deep_lines_never_crash_the_interpreter():
    # The lines are checked on callfix's own thread, with stack for the depth
    # it allows; deeper input is a CallfixError, after the results before it.
    code = """
        import json
        import callfix
        ts = callfix.Toolset.from_dir("schemas")
        ok = '{"name": "read", "arguments": {"file_path": "/a"}}\\n'
        for depth in (17_000, 200_000):
            text = "[glob(pattern=" + "[" * depth + "]" * depth + ")]"
            line = json.dumps({"role": "assistant", "content": text}) + "\\n"
            seen = []
            try:
                for r in ts.check_many([ok, line, ok]):
                    seen.append(r.status)
            except callfix.CallfixError as e:
                seen.append("CallfixError")
            print(seen)
        print("done")
    """
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.strip().splitlines()
    assert lines[-1] == "done"
    assert lines[0].startswith("['valid',"), lines
