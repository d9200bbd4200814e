"""examples/ray_scale_out.py in Ray's local mode: the CLI's results, in order."""

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "ray_scale_out.py"

pytest.importorskip("ray")


def test_ray_results_equal_the_cli(tmp_path):
    examples = (ROOT / "examples" / "calls.jsonl").read_text().splitlines()
    lines = []
    for i in range(150):
        lines.extend(examples)
        if i % 40 == 0:
            lines.append("")  # blank lines are not records
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.jsonl"
    # Ray's session files go to a directory of this test's own (a short path:
    # Ray's socket paths must stay under the Unix limit), removed afterwards.
    ray_tmp = tempfile.mkdtemp(prefix="cfray")
    try:
        run = subprocess.run(
            [sys.executable, str(EXAMPLE), "--schemas", str(ROOT / "schemas"),
             "--chunks", "7", str(log), str(out)],
            capture_output=True, text=True, cwd=tmp_path, timeout=600,
            env={**os.environ, "RAY_TMPDIR": ray_tmp},
        )
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)
    assert run.returncode == 0, run.stderr[-3000:]
    exe = pathlib.Path(sys.executable).with_name("callfix")
    cli = subprocess.run(
        [str(exe), "--schemas", str(ROOT / "schemas"), "--loop-limit", "0",
         "--format", "json", str(log)],
        capture_output=True, text=True,
    )
    assert cli.returncode == 1  # the examples include rejected calls
    assert out.read_text() == cli.stdout
    summary = json.loads(run.stdout)
    results = [json.loads(x) for x in cli.stdout.splitlines()]
    assert summary["calls"] == len(results) == 150 * 20
    assert sum(summary["repairs"].values()) == sum(len(r["repairs"]) for r in results)
    assert summary["per_tool"]["read"]["rejected"] == sum(
        1 for r in results if r["tool"] == "read" and r["status"] == "rejected"
    )
