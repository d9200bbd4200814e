"""The binding under attack: numbers a model (or a caller) can send, subclasses
that lie about their spelling, deep input, and panics at the boundary."""

import decimal
import fractions
import json
import pathlib
import subprocess
import sys
import textwrap
import pytest

import callfix

ROOT = pathlib.Path(__file__).resolve().parents[2]
FREE = {"t": {"type": "object"}}


def args_of(value):
    """The arguments text callfix passes on for `{"n": value}`."""
    r = callfix.Toolset(FREE).check("t", {"n": value})
    assert r.status == "valid", r.to_dict()
    return r.args_json


# ------------------------------------------------ model-sent numbers → Python


def test_an_int_past_pythons_digit_limit_comes_back_exact_as_a_decimal():
    ts = callfix.Toolset(FREE)
    for digits in ["9" * 5000, "-" + "7" * 5000, "1" + "0" * 100_000]:
        r = ts.check("t", '{"n": %s}' % digits)
        n = r.args["n"]
        assert isinstance(n, decimal.Decimal)
        assert n == decimal.Decimal(digits) and n.as_tuple().exponent == 0
        assert r.to_dict()["args"]["n"] == n
        # Sent back, it is the same number, digit for digit.
        assert ts.check("t", r.args).args_json == '{"n":%s}' % digits


def test_an_int_within_the_limit_is_an_int():
    r = callfix.Toolset(FREE).check("t", '{"n": %s}' % ("8" * 4000))
    assert r.args["n"] == int("8" * 4000) and type(r.args["n"]) is int


# ------------------------------------------------ Python numbers → JSON


class LyingInt(int):
    def __str__(self):
        return '1, "injected": 2'

    __repr__ = __str__


class LyingFloat(float):
    def __repr__(self):
        return '1, "injected": 3'

    __str__ = __repr__


class NumpyStyleFloat(float):
    """What numpy 2's float64 does: a float whose repr is not a number."""

    def __repr__(self):
        return "np.float64(%s)" % float.__repr__(self)


def test_subclasses_are_written_by_value_never_by_their_own_spelling():
    assert args_of(LyingInt(5)) == '{"n":5}'
    assert args_of(LyingInt(10**30)) == '{"n":%d}' % 10**30
    assert args_of(LyingFloat(1.5)) == '{"n":1.5}'
    assert args_of(NumpyStyleFloat(0.1)) == '{"n":0.1}'


def test_numbers_of_other_types_are_taken_where_exact():
    assert args_of(fractions.Fraction(1, 2)) == '{"n":0.5}'
    assert args_of(decimal.Decimal("0.1")) == '{"n":0.1}'
    assert args_of(decimal.Decimal("-12345678901234567890.5")) == '{"n":-12345678901234567890.5}'
    for inexact in [fractions.Fraction(1, 3), decimal.Decimal("NaN"), float("inf")]:
        with pytest.raises(callfix.CallfixError):
            args_of(inexact)


def test_numpy_scalars():
    np = pytest.importorskip("numpy")
    assert args_of(np.float64(1.5)) == '{"n":1.5}'
    assert args_of(np.float32(0.5)) == '{"n":0.5}'
    assert args_of(np.int64(7)) == '{"n":7}'
    assert args_of(np.uint8(3)) == '{"n":3}'
    assert args_of(np.bool_(True)) == '{"n":true}'
    assert args_of([np.int32(1), np.float16(0.25)]) == '{"n":[1,0.25]}'


def test_an_int_too_long_for_python_to_write_is_a_callfix_error():
    with pytest.raises(callfix.CallfixError):
        args_of(10**5000)


# ------------------------------------------------ depth and panics


def test_a_deeply_nested_python_object_is_a_callfix_error():
    x = []
    for _ in range(17_000):
        x = [x]
    with pytest.raises(callfix.CallfixError):
        callfix.Toolset.from_dir(str(ROOT / "schemas")).check("glob", {"pattern": x})


def run_alone(code):
    """Runs `code` in a fresh interpreter: a crash must not take pytest down."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )


def test_deeply_nested_text_never_crashes_the_interpreter():
    out = run_alone(
        """
        import callfix
        ts = callfix.Toolset.from_dir("schemas")
        for depth in (17_000, 200_000):
            text = "[glob(pattern=" + "[" * depth + "]" * depth + ")]"
            for record in ({"role": "assistant", "content": text}, text):
                try:
                    print([r.status for r in ts.check_record(record)])
                except callfix.CallfixError as e:
                    print("CallfixError", str(e)[:60])
        print("done")
        """
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().endswith("done")


def test_deep_input_on_a_thread_with_a_small_stack():
    # Python threads may have small stacks: deep input is checked on a thread
    # of callfix's own.
    out = run_alone(
        """
        import threading
        import callfix
        threading.stack_size(256 * 1024)
        seen = []

        def work():
            ts = callfix.Toolset({"t": {"type": "object"}})
            deep = '{"n":' + "[" * 120 + "]" * 120 + "}"
            seen.append(ts.check("t", deep).status)
            text = "[t(n=" + "[" * 5000 + "]" * 5000 + ")]"
            try:
                seen.append([r.status for r in ts.check_record({"role": "assistant", "content": text})])
            except callfix.CallfixError:
                seen.append("error")

        t = threading.Thread(target=work)
        t.start()
        t.join()
        print(seen[0], len(seen))
        """
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["valid", "2"]


def test_a_panic_is_a_callfix_error_not_a_panic_exception():
    # This record once panicked in the stream reader: whatever the library
    # does with it, nothing that `except Exception` misses comes out.
    ts = callfix.Toolset.from_dir(str(ROOT / "schemas"))
    record = '{"type":"content_block_delta","index":0}\n{"name":"glob","arguments":{"pattern":"*"}}'
    try:
        ts.check_stream(record)
    except Exception:
        pass


def test_a_key_given_twice_in_argument_text_is_rejected_naming_it():
    # Readers differ on which value wins; json.loads keeps the last.
    ts = callfix.Toolset({"t": {"type": "object", "properties": {"n": {"type": "integer"}}}})
    r = ts.check("t", '{"n": 1, "n": 2}')
    assert r.status == "rejected"
    assert [e["path"] for e in r.errors] == ["n"]
    assert r.message.endswith("n: given twice; send each key once")
    # A record whose call the two readings make alike is judged as usual.
    results = ts.check_record('{"type": "tool_use", "id": "a", "name": "t", "input": {"n": 1, "n": 1}}')
    assert [x.status for x in results] == ["valid"]
