"""Stream reassembly of the LiteLLM guardrail (callfix._guardrail.StreamAssembler):
random splits of the tool-call deltas give the calls the whole gives, and the
work is linear in the stream."""

import random
import time

from callfix import _guardrail as g

CALLS = [
    ("c1", "read", '{"path": "/a", "offset": 2}'),
    ("c2", "glob", '{"pattern": "*.rs", "note": "ünïcödé \\" {"}'),
    ("c3", "write", ""),
    ("c4", "read", '{"path": "' + "x" * 300 + '"}'),
]


def deltas(calls, rng):
    """The deltas an engine might send: id and name first (the name itself
    perhaps split), the arguments cut at random places, sometimes empty."""
    out = []
    for i, (cid, name, args) in enumerate(calls):
        cut = rng.randint(0, len(name))
        out.append({"index": i, "id": cid, "type": "function", "function": {"name": name[:cut], "arguments": ""}})
        if cut < len(name):
            out.append({"index": i, "function": {"name": name[cut:]}})
        at = 0
        while at < len(args):
            step = rng.randint(0, 12)
            out.append({"index": i, "function": {"arguments": args[at : at + step]}})
            at += step
    return out


def assemble(chunks):
    asm = g.StreamAssembler()
    done = []
    for chunk in chunks:
        done.extend(asm.feed(0, chunk))
    done.extend(asm.finish(0))
    return [(h.index, h.as_call()) for h in done]


def whole():
    return [
        (i, {"id": cid, "type": "function", "function": {"name": name, "arguments": args}})
        for i, (cid, name, args) in enumerate(CALLS)
    ]


def test_random_splits_give_the_whole():
    rng = random.Random(29)
    for _ in range(500):
        ds = deltas(CALLS, rng)
        # Group the deltas into chunks of random sizes (an engine may send
        # several in one chunk).
        chunks, at = [], 0
        while at < len(ds):
            n = rng.randint(1, 4)
            chunks.append(ds[at : at + n])
            at += n
        assert assemble(chunks) == whole()


def test_a_call_is_complete_when_the_next_starts():
    asm = g.StreamAssembler()
    assert asm.feed(0, [{"index": 0, "id": "a", "function": {"name": "read", "arguments": "{"}}]) == []
    assert asm.feed(0, [{"index": 0, "function": {"arguments": "}"}}]) == []
    [done] = asm.feed(0, [{"index": 1, "id": "b", "function": {"name": "glob"}}])
    assert done.as_call()["function"] == {"name": "read", "arguments": "{}"}
    # Another choice is its own stream.
    assert asm.feed(1, [{"index": 0, "id": "z", "function": {"name": "read"}}]) == []
    assert [h.id for h in asm.finish(0)] == ["b"]
    assert [h.id for h in asm.finish()] == ["z"]
    assert asm.finish() == []


def test_missing_index_and_bad_parts_do_not_crash():
    asm = g.StreamAssembler()
    asm.feed(0, [{"function": {"arguments": "{"}}, {"index": None}, {}, {"index": "x", "function": None}])
    [h] = asm.finish(0)
    assert h.as_call() == {"id": "", "type": "function", "function": {"name": "", "arguments": "{"}}


def cpu(n):
    """CPU seconds to reassemble a call whose arguments come in n deltas."""
    ds = [{"index": 0, "id": "c", "function": {"name": "read", "arguments": ""}}]
    ds += [{"index": 0, "function": {"arguments": "ab"}} for _ in range(n)]
    best = float("inf")
    for _ in range(3):
        t = time.process_time()
        asm = g.StreamAssembler()
        for d in ds:
            asm.feed(0, [d])
        [h] = asm.finish(0)
        assert len(h.as_call()["function"]["arguments"]) == 2 * n
        best = min(best, time.process_time() - t)
    return best


def test_reassembly_is_linear():
    # The project's complexity rule: two sizes 10x apart, CPU ratio <= 20.
    small, large = cpu(20_000), cpu(200_000)
    assert large / max(small, 1e-4) <= 20, (small, large)
