"""callfix's LiteLLM guardrail in a real LiteLLM proxy (conftest.py), driven by
the official openai client, against the fake upstream (upstream.py), which
records every request it receives."""

import json
import re
import signal
import threading
import time

import openai
import pytest

from conftest import TOOLS

READ_OK = '{"path": "/a",  "offset": 2}'


def ask(proxy, scenario, stream=False, messages=None, **kw):
    messages = messages or [{"role": "user", "content": f"scenario:{scenario}"}]
    return proxy.client().chat.completions.with_raw_response.create(
        model="callfix-demo", messages=messages, tools=TOOLS, stream=stream, **kw
    )


def calls(message):
    return [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or []]


def test_import_callfix_does_not_import_litellm():
    # Here LiteLLM is installed: only callfix.litellm brings it in.
    import subprocess
    import sys

    code = "import sys, callfix, callfix._guardrail; a = 'litellm' in sys.modules; import callfix.litellm; print(a, 'litellm' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**__import__("os").environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"})
    assert out.stdout.split() == ["False", "True"]


def test_valid_call_passes_unchanged(proxy, upstream):
    mark = upstream.mark()
    raw = ask(proxy, "valid")
    r = raw.parse()
    [(cid, name, args)] = calls(r.choices[0].message)
    assert (name, args) == ("read", READ_OK)  # byte for byte
    assert cid.startswith("call_chatcmpl-fake")
    assert r.choices[0].message.content == "Reading it."
    assert raw.headers["x-callfix-calls"] == "valid=1 repaired=0 leaked=0 rejected=0"
    assert raw.headers["x-callfix-retries"] == "0"
    assert len(upstream.since(mark)) == 1


def test_repaired_call_is_rewritten(proxy, upstream):
    mark = upstream.mark()
    raw = ask(proxy, "repaired")
    [(_, name, args)] = calls(raw.parse().choices[0].message)
    assert (name, args) == ("read", '{"path":"/a","offset":2}')
    assert raw.headers["x-callfix-calls"] == "valid=0 repaired=1 leaked=0 rejected=0"
    assert raw.headers["x-callfix-repairs"] == "coerce-number=1"
    assert len(upstream.since(mark)) == 1


def test_two_calls_each_judged(proxy):
    raw = ask(proxy, "two")
    got = calls(raw.parse().choices[0].message)
    assert [(n, a) for _, n, a in got] == [("read", READ_OK), ("read", '{"path":"/b","offset":3}')]
    assert raw.headers["x-callfix-calls"] == "valid=1 repaired=1 leaked=0 rejected=0"


def test_leaked_call_becomes_tool_calls(proxy):
    raw = ask(proxy, "leaked")
    choice = raw.parse().choices[0]
    assert choice.message.content == "Let me look.\n"
    [(cid, name, args)] = calls(choice.message)
    assert (name, json.loads(args)) == ("read", {"path": "/a", "offset": 2})
    assert cid.startswith("call_")
    assert choice.finish_reason == "tool_calls"
    assert raw.headers["x-callfix-calls"] == "valid=0 repaired=1 leaked=1 rejected=0"


def test_text_only_passes(proxy):
    raw = ask(proxy, "text")
    m = raw.parse().choices[0].message
    assert m.content == "Hello there, nothing to call." and not m.tool_calls


def test_rejected_call_is_reasked_once(proxy, upstream):
    mark = upstream.mark()
    raw = ask(proxy, "rejected")
    m = raw.parse().choices[0].message
    [(_, name, args)] = calls(m)
    assert (name, args) == ("read", '{"path": "/b"}')
    assert m.content == "Reading it."
    assert raw.headers["x-callfix-retries"] == "1"
    first, reask = upstream.since(mark)
    assert first["messages"] == [{"role": "user", "content": "scenario:rejected"}]
    assert reask["messages"][0] == first["messages"][0]
    assistant, result = reask["messages"][1:]
    assert assistant["role"] == "assistant"
    [sent] = assistant["tool_calls"]
    assert sent["function"] == {"name": "read", "arguments": '{"offset": 1}'}
    assert result == {
        "role": "tool",
        "tool_call_id": sent["id"],
        "content": "Please rewrite the input with valid arguments. Errors: path: Required",
    }
    assert not reask.get("stream")


def test_mixed_turn_keeps_the_good_call(proxy, upstream):
    mark = upstream.mark()
    raw = ask(proxy, "mixed")
    got = calls(raw.parse().choices[0].message)
    assert [a for _, _, a in got] == [READ_OK, '{"path": "/c"}']
    assert len(upstream.since(mark)) == 2


def test_retries_run_out_and_the_last_answer_passes(proxy, upstream):
    mark = upstream.mark()
    raw = ask(proxy, "rejected_always")
    [(_, _, args)] = calls(raw.parse().choices[0].message)
    assert args == '{"offset": 2}'  # the re-ask's answer, as written
    assert raw.headers["x-callfix-retries"] == "1"
    assert raw.headers["x-callfix-calls"] == "valid=0 repaired=0 leaked=0 rejected=1"
    assert len(upstream.since(mark)) == 2


def test_a_failed_reask_passes_the_first_answer(proxy, upstream):
    mark = upstream.mark()
    raw = ask(proxy, "reask_fails")
    [(_, _, args)] = calls(raw.parse().choices[0].message)
    assert args == '{"offset": 1}'
    assert raw.headers["x-callfix-error"] == "1"
    assert raw.headers["x-callfix-calls"] == "valid=0 repaired=0 leaked=0 rejected=1"
    reasks = upstream.since(mark)[1:]
    assert reasks and all(r["messages"][-1]["role"] == "tool" for r in reasks)


def test_on_reject_error(proxies, upstream):
    mark = upstream.mark()
    with pytest.raises(openai.BadRequestError) as e:
        ask(proxies["error"], "rejected")
    assert "callfix" in str(e.value) and "path: Required" in str(e.value)
    assert len(upstream.since(mark)) == 1


def test_on_reject_pass(proxies, upstream):
    mark = upstream.mark()
    raw = ask(proxies["pass"], "rejected")
    [(_, _, args)] = calls(raw.parse().choices[0].message)
    assert args == '{"offset": 1}'
    assert raw.headers["x-callfix-calls"] == "valid=0 repaired=0 leaked=0 rejected=1"
    assert raw.headers["x-callfix-retries"] == "0"
    assert len(upstream.since(mark)) == 1


def test_unreadable_leaked_call(proxies, upstream):
    from upstream import LEAKED_BAD

    # Passed: the message as the model wrote it, no call made up.
    m = ask(proxies["pass"], "leaked_bad").parse().choices[0].message
    assert m.content == LEAKED_BAD and not m.tool_calls
    # Re-asked: the answer's call in its place, the text without the markup.
    mark = upstream.mark()
    m = ask(proxies["retry"], "leaked_bad").parse().choices[0].message
    assert m.content == "Sure.\n" and calls(m)[0][2] == '{"path": "/d"}'
    reask = upstream.since(mark)[1]["messages"]
    assert reask[-2]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert reask[-1]["content"].endswith("(arguments as sent: " + LEAKED_BAD.split("\n", 1)[1] + ")")


def test_guardrail_logging(proxy):
    r = ask(proxy, "repaired", extra_body={"metadata": {"include_guardrail_response": True}}).parse()
    info = [i for i in r.model_extra["guardrail_information"] if i["guardrail_name"] == "callfix"]
    post = [i for i in info if i["guardrail_mode"] == "post_call"]
    assert post and post[0]["guardrail_status"] == "guardrail_intervened"
    assert post[0]["guardrail_response"]["repairs"][0]["kind"] == "coerce-number"


def stream(proxy, scenario):
    """(seconds since the request, delta) for each chunk."""
    t = time.monotonic()
    out = []
    for chunk in proxy.client().chat.completions.create(
        model="callfix-demo", messages=[{"role": "user", "content": f"scenario:{scenario}"}], tools=TOOLS, stream=True
    ):
        for ch in chunk.choices:
            out.append((time.monotonic() - t, ch.delta, ch.finish_reason))
    return out


def stream_calls(chunks):
    got = {}
    for _, d, _ in chunks:
        for tc in d.tool_calls or []:
            c = got.setdefault(tc.index, {"id": None, "name": "", "arguments": ""})
            c["id"] = tc.id or c["id"]
            c["name"] += tc.function.name or ""
            c["arguments"] += tc.function.arguments or ""
    return [got[i] for i in sorted(got)]


def test_stream_text_first_then_the_call_repaired(proxy, upstream):
    # LiteLLM's first stream after start holds its text until the call begins,
    # with or without a guardrail (measured: without one, the text 1.55 s
    # after the request and the call 1.57 s; then 0.09 s and 0.49 s), so the
    # stream path is warmed first and the measured stream is the second.
    stream(proxy, "repaired")
    mark = upstream.mark()
    chunks = stream(proxy, "repaired")
    text = [(t, d.content) for t, d, _ in chunks if d.content]
    call_at = [t for t, d, _ in chunks if d.tool_calls]
    assert "".join(c for _, c in text) == "Reading it."
    # The upstream pauses 0.4 s between its text and its call: the text came
    # through before the call was complete. Held back, it would arrive with
    # the call; half the pause is the margin.
    assert len(call_at) == 1 and max(t for t, _ in text) < call_at[0] - 0.2
    [c] = stream_calls(chunks)
    assert (c["name"], c["arguments"]) == ("read", '{"path":"/a","offset":2}')
    assert chunks[-1][2] == "tool_calls"
    assert len(upstream.since(mark)) == 1


def test_stream_valid_call_unchanged(proxy):
    [c] = stream_calls(stream(proxy, "two"))[:1]
    assert c["arguments"] == READ_OK and c["id"].startswith("call_chatcmpl-fake")
    assert [x["arguments"] for x in stream_calls(stream(proxy, "two"))] == [READ_OK, '{"path":"/b","offset":3}']


def test_stream_rejected_call_is_reasked(proxy, upstream):
    mark = upstream.mark()
    chunks = stream(proxy, "rejected")
    assert [c["arguments"] for c in stream_calls(chunks)] == ['{"path": "/b"}']
    first, reask = upstream.since(mark)
    assert first["stream"] is True and not reask.get("stream")
    assert reask["messages"][-1]["content"].endswith("path: Required")


def test_stream_leaked_call_becomes_a_call(proxy):
    chunks = stream(proxy, "leaked")
    [c] = stream_calls(chunks)
    assert json.loads(c["arguments"]) == {"path": "/a", "offset": 2}
    assert chunks[-1][2] == "tool_calls"


def test_stream_on_reject_error(proxies):
    with pytest.raises(openai.APIError) as e:
        stream(proxies["error"], "rejected")
    assert "path: Required" in str(e.value)


def test_a_wrong_option_stops_the_proxy_at_start(upstream, tmp_path_factory):
    import yaml
    from conftest import EXAMPLE, start

    with open(EXAMPLE) as f:
        config = yaml.safe_load(f)
    config["guardrails"][0]["litellm_params"]["on_reject"] = "drop"
    p = start("bad-option", config, upstream, tmp_path_factory)
    try:
        code = p.proc.wait(90)
    finally:
        if p.proc.poll() is None:
            p.stop()
    assert code != 0
    assert "on_reject: expected one of retry, pass, error, got 'drop'" in p.log_text()


def test_pre_call_heals_a_broken_history(proxy, upstream):
    history = [
        {"role": "user", "content": "scenario:text"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "h1", "type": "function", "function": {"name": "read", "arguments": "{'path': '/a', 'offset': '2'}"}},
                {"id": "h2", "type": "function", "function": {"name": "read", "arguments": '{"path": "/b'}},
                {"id": "h3", "type": "function", "function": {"name": "read", "arguments": READ_OK}},
            ],
        },
        {"role": "tool", "tool_call_id": "h1", "content": "file a"},
        {"role": "tool", "tool_call_id": "h3", "content": "file a again"},
        {"role": "user", "content": "and now?"},
    ]
    mark = upstream.mark()
    raw = ask(proxy, None, messages=history)
    assert raw.parse().choices[0].message.content == "Hello there, nothing to call."
    [got] = upstream.since(mark)
    sent = got["messages"]
    assistant = next(m for m in sent if m["role"] == "assistant")
    by_id = {c["id"]: c["function"]["arguments"] for c in assistant["tool_calls"]}
    assert set(by_id) == {"h1", "h2", "h3"}  # no call lost
    assert by_id["h3"] == READ_OK  # a valid call, byte for byte
    for args in by_id.values():
        assert isinstance(json.loads(args), dict)
    results = {m["tool_call_id"]: m["content"] for m in sent if m["role"] == "tool"}
    assert set(results) == {"h1", "h2", "h3"}  # the missing result is there
    assert '{"path": "/b' in results["h2"]  # what was sent is kept
    assert raw.headers["x-callfix-healed"] != "calls=0 neutralised=0"


def test_no_request_lost_or_duplicated(proxy, upstream):
    mark = upstream.mark()
    plan = [("valid", 1), ("rejected", 2), ("repaired", 1), ("leaked", 1)] * 4
    answers, errors = {}, []

    def one(i, scenario):
        try:
            msgs = [{"role": "user", "content": f"scenario:{scenario} nonce:{i}"}]
            answers[i] = ask(proxy, None, messages=msgs).parse()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=one, args=(i, s)) for i, (s, _) in enumerate(plan)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors and len(answers) == len(plan)
    seen = {}
    for req in upstream.since(mark):
        nonce = req["messages"][0]["content"].split("nonce:")[1]
        seen[int(nonce)] = seen.get(int(nonce), 0) + 1
    assert seen == {i: n for i, (_, n) in enumerate(plan)}
    for i, r in answers.items():
        assert r.choices[0].message.tool_calls, plan[i]


def test_proxies_shut_down_cleanly(proxies):
    for p in proxies.values():
        code = p.stop()
        log = p.log_text()
        # uvicorn finishes its shutdown, then leaves by the signal it got.
        assert code in (0, -signal.SIGTERM), f"{p.name} exited {code}:\n{log[-3000:]}"
        if p.name == "error":
            # LiteLLM logs the refusal it was asked for with its traceback:
            # every exception there is that refusal.
            raised = re.findall(r"^([\w.]+(?:Error|Exception)): (.*)$", log, re.M)
            assert all("callfix: the model's tool call was rejected" in m for _, m in raised), raised
        else:
            assert "Traceback" not in log, log[-3000:]
        assert "Application shutdown complete" in log and "Finished server process" in log
