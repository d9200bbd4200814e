"""Python entries take what the CLI takes, and say what it says."""

import json
import pathlib
import subprocess
import sys

import pytest

import callfix


def test_render_takes_numbers_as_the_cli_vars_file_does(tmp_path: pathlib.Path):
    template = "v<NUM>, <FRAC>, <STR>"
    values = {"NUM": 3, "FRAC": 1.5, "STR": "x"}
    assert callfix.render(template, values) == "v3, 1.5, x"
    # The same values through `callfix render --vars FILE`.
    (tmp_path / "t.txt").write_text(template)
    (tmp_path / "vars.json").write_text(json.dumps(values))
    out = subprocess.run(
        [sys.executable, "-m", "callfix", "render", "--vars", str(tmp_path / "vars.json"), str(tmp_path / "t.txt")],
        capture_output=True, text=True, check=True,
    )
    assert out.stdout.rstrip("\n") == "v3, 1.5, x"


@pytest.mark.parametrize("value, kind", [(True, "boolean"), (None, "null"), ([1], "array")])
def test_render_refuses_what_the_cli_refuses(value, kind):
    with pytest.raises(callfix.CallfixError, match=f'"FLAG" is {kind}, not a string or number'):
        callfix.render("<FLAG>", {"FLAG": value})


def test_the_command_keeps_nothing_between_runs_in_one_process(tmp_path: pathlib.Path):
    # The pip-installed `callfix` runs the binary's app in-process: a config
    # that failed one run must not fail (or colour) the next.
    from callfix._callfix import _main

    schemas = tmp_path / "s"
    schemas.mkdir()
    (schemas / "t.json").write_text('{"type": "object", "description": "A tool."}')
    bad = tmp_path / "bad.toml"
    bad.write_text("bogus = [")
    check = ["check", "--schemas", str(schemas)]
    assert _main(["callfix", "--config", str(bad), *check]) == 1
    assert _main(["callfix", "--no-config", *check]) == 0
    assert _main(["callfix", "--config", str(bad), *check]) == 1
