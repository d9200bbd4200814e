"""callfix over a large JSON Lines log of tool calls, on Ray Data.

    python examples/ray_scale_out.py --schemas schemas LOG.jsonl OUT.jsonl [--chunks N]

OUT.jsonl gets one line per call: the very lines `callfix --format json
--loop-limit 0 LOG.jsonl` writes, in the same order (a log holds many
conversations, so repeated-failure escalation, which is per conversation, is
off, as it is for every `Toolset`). A summary per tool and per repair kind goes
to stdout as JSON.

How it scales: the log is cut into byte ranges at line ends (no pass over the
data in the driver). A first Ray Data map counts each range's records and
lines; their running sums give every range the record number and line it
starts at. A second map checks each range with `Toolset.check_stream`, which
reads those bytes exactly as the CLI reads the file. Each worker builds its own
`Toolset` from the schema directory once (`CheckRange.__init__`): nothing large
is shipped, and schemas compile lazily where they are used. (A `Toolset` also
pickles, by its source, if you would rather pass one in.)

The log must be JSON Lines (one record per line): a range ends at a line end,
so a record pretty-printed over several lines could be cut in two. Runs in
local mode as is; point `RAY_ADDRESS` at a cluster to run there.
"""

import argparse
import json
import os
import sys
from collections import Counter, defaultdict

import ray

import callfix


def ranges(path, chunks):
    """Byte ranges of `path`, each ending at a line end."""
    size = os.path.getsize(path)
    bounds = [0]
    with open(path, "rb") as f:
        for i in range(1, chunks):
            f.seek(max(size * i // chunks, bounds[-1]))
            f.readline()
            bounds.append(min(f.tell(), size))
    bounds.append(size)
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]


def read_range(path, start, end):
    with open(path, "rb") as f:
        f.seek(start)
        return f.read(end - start)


def count(row):
    """Records (non-blank lines) and lines in one range."""
    data = read_range(row["path"], row["start"], row["end"])
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    row["records"] = sum(1 for line in lines if line.strip())
    row["lines"] = len(lines)
    return row


class CheckRange:
    """One per worker: a Toolset loaded from the schema directory."""

    def __init__(self, schemas):
        self.toolset = callfix.Toolset.from_dir(schemas)

    def __call__(self, batch):
        out = []
        for path, start, end, first_index, first_line in zip(
            batch["path"], batch["start"], batch["end"], batch["first_index"], batch["first_line"]
        ):
            results = self.toolset.check_stream(
                read_range(path, int(start), int(end)),
                source=str(path),
                first_index=int(first_index),
                first_line=int(first_line),
            )
            out.append("\n".join(r.to_json() for r in results))
        return {"results": out}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--schemas", default="schemas")
    p.add_argument("--chunks", type=int, default=8, help="byte ranges to cut the log into")
    p.add_argument("log")
    p.add_argument("out")
    args = p.parse_args(argv)

    ray.init(ignore_reinit_error=True, include_dashboard=False, log_to_driver=False)
    ctx = ray.data.DataContext.get_current()
    ctx.execution_options.preserve_order = True
    ctx.enable_progress_bars = False

    cut = [{"path": args.log, "start": a, "end": b} for a, b in ranges(args.log, args.chunks)]
    counted = ray.data.from_items(cut).map(count).take_all()
    first_index, first_line = 0, 1
    for row in counted:
        row["first_index"], row["first_line"] = first_index, first_line
        first_index += row["records"]
        first_line += row["lines"]

    checked = ray.data.from_items(counted).map_batches(
        CheckRange,
        fn_constructor_args=(os.path.abspath(args.schemas),),
        batch_size=1,
        concurrency=2,
    )
    per_tool = defaultdict(Counter)
    per_kind = Counter()
    calls = 0
    with open(args.out, "w") as out:
        for row in checked.iter_rows():
            if not row["results"]:
                continue
            out.write(row["results"] + "\n")
            for line in row["results"].split("\n"):
                result = json.loads(line)
                calls += 1
                per_tool[result["tool"] or "(broken record)"][result["status"]] += 1
                for repair in result["repairs"]:
                    per_kind[repair["kind"]] += 1
    summary = {
        "calls": calls,
        "per_tool": {tool: dict(sorted(c.items())) for tool, c in sorted(per_tool.items())},
        "repairs": dict(sorted(per_kind.items())),
    }
    json.dump(summary, sys.stdout, indent=2)
    sys.stdout.write("\n")
    ray.shutdown()


if __name__ == "__main__":
    main()
