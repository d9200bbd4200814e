"""The LiteLLM guardrail's decisions, with no LiteLLM in them.

``callfix.litellm`` is the glue (LiteLLM's hooks, its response objects, its
router); everything it decides is here, on plain dicts in OpenAI's chat shape,
so it is tested without LiteLLM installed (``python/tests/test_litellm_*.py``):

- ``Options``: the guardrail's ``litellm_params``, checked;
- ``ToolsetCache``: a compiled ``Toolset`` per distinct ``tools`` list, bounded;
- ``judge_turn``: one assistant message's calls judged (and calls leaked into
  its text found), as a ``Turn`` that says what goes out;
- ``reask_messages`` / ``merge_retry``: the re-ask for rejected calls, and its
  answer put in their place;
- ``escalate``: loop detection from the conversation itself (no state kept);
- ``heal_messages``: the pre-call healing of a history (``callfix.heal``);
- ``StreamAssembler``: tool-call deltas held until each call is complete.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from . import _callfix
from ._callfix import CallfixError, Toolset

REJECT_MODES = ("retry", "pass", "error")

#: OpenAI chat-completion parameters a re-ask carries over from the request
#: (the proxy's own keys, metadata and guardrail lists stay behind, so the
#: re-ask runs no guardrail again).
REASK_PARAMS = (
    "model",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "temperature",
    "top_p",
    "max_tokens",
    "max_completion_tokens",
    "stop",
    "seed",
    "presence_penalty",
    "frequency_penalty",
    "logit_bias",
    "response_format",
    "reasoning_effort",
    "user",
)


@dataclass(frozen=True)
class Options:
    """The guardrail's options, from its ``litellm_params`` in the proxy config."""

    max_retries: int = 1
    on_reject: str = "retry"
    repair: Any = "all"
    loop_limit: int = 3
    cache_size: int = 256

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> "Options":
        """Reads the options out of ``params`` (other keys are LiteLLM's own and
        ignored); a wrong value raises ``CallfixError`` naming the option, so the
        proxy refuses to start rather than run half-configured."""

        def count(name: str, default: int) -> int:
            value = params.get(name)
            if value is None:
                return default
            if isinstance(value, bool) or not isinstance(value, (int, str)):
                raise CallfixError(f"{name}: expected a whole number >= 0, got {value!r}")
            try:
                n = int(value)
            except ValueError:
                raise CallfixError(f"{name}: expected a whole number >= 0, got {value!r}") from None
            if n < 0:
                raise CallfixError(f"{name}: expected a whole number >= 0, got {value!r}")
            return n

        on_reject = params.get("on_reject") or "retry"
        if on_reject not in REJECT_MODES:
            raise CallfixError(
                f"on_reject: expected one of {', '.join(REJECT_MODES)}, got {on_reject!r}"
            )
        repair = params.get("repair")
        if repair is None:
            repair = "all"
        opts = cls(
            max_retries=count("max_retries", 1),
            on_reject=on_reject,
            repair=repair if isinstance(repair, str) else tuple(repair),
            loop_limit=count("loop_limit", 3),
            cache_size=max(1, count("toolset_cache", 256)),
        )
        # The repair kinds are checked now, by the library's own words.
        Toolset({}, repair=opts.repair_arg())
        return opts

    def repair_arg(self) -> Any:
        return self.repair if isinstance(self.repair, str) else list(self.repair)


class ToolsetCache:
    """Compiled toolsets by the JSON text of a request's ``tools``: the last
    ``size`` distinct lists are kept (a proxy sees few; a client that sends a
    new list every time costs a compile each time and evicts the oldest).
    Safe to share between threads and event loops."""

    def __init__(self, size: int = 256, repair: Any = "all") -> None:
        self._size = max(1, size)
        self._repair = repair
        self._cache: "OrderedDict[str, Toolset]" = OrderedDict()
        self._lock = threading.Lock()
        self.compiled = 0

    def __len__(self) -> int:
        return len(self._cache)

    def get(self, tools: Any) -> Optional[Toolset]:
        """The toolset for ``tools`` (OpenAI's or any provider's tool list), or
        ``None`` when the request declares no tools."""
        if not tools:
            return None
        key = json.dumps(tools, separators=(",", ":"), ensure_ascii=False, default=str)
        with self._lock:
            ts = self._cache.get(key)
            if ts is not None:
                self._cache.move_to_end(key)
                return ts
        ts = Toolset.from_tools(tools, repair=self._repair)
        with self._lock:
            self.compiled += 1
            self._cache[key] = ts
            self._cache.move_to_end(key)
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)
        return ts


@dataclass
class Judged:
    """One call of an assistant turn, judged: what goes out and why."""

    id: str
    name: str
    arguments: str
    status: str
    sent_name: str
    sent_arguments: str
    repairs: List[Dict[str, Any]] = field(default_factory=list)
    message: Optional[str] = None
    looped: bool = False
    leaked: Optional[str] = None
    markup: Optional[str] = None
    retried: int = 0

    @property
    def changed(self) -> bool:
        return self.leaked is not None or (
            self.status == "repaired"
            and (self.name, self.arguments) != (self.sent_name, self.sent_arguments)
        )

    def tool_call(self) -> Dict[str, Any]:
        """The call as an OpenAI ``tool_calls`` entry (as sent, when rejected)."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass
class Turn:
    """An assistant message's calls judged; ``content`` is its text with any
    leaked call's markup taken out (unchanged when nothing leaked)."""

    content: Any
    calls: List[Judged]
    leaked: bool = False
    #: Why the turn could not be judged (a tool's schema callfix cannot use,
    #: input past its limits): it then goes out as it came.
    error: Optional[str] = None

    @property
    def rejected(self) -> List[Judged]:
        return [c for c in self.calls if c.status == "rejected"]

    @property
    def changed(self) -> bool:
        return self.leaked or any(c.changed for c in self.calls)

    @property
    def unreadable_leak(self) -> bool:
        """A call written into the text that is still rejected: the message
        then goes out as the model wrote it (no call is made up for it)."""
        return any(c.leaked is not None and c.status == "rejected" for c in self.calls)

    def sendable(self) -> List[Judged]:
        """The calls that can go out as ``tool_calls``: all but a rejected
        call read from text, whose arguments are no JSON object."""
        return [c for c in self.calls if not (c.leaked is not None and c.status == "rejected")]


def _text(arguments: Any) -> str:
    if isinstance(arguments, str):
        return arguments
    if arguments is None:
        return ""
    try:
        return json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):
        return str(arguments)


def _derived_id(seed: str, place: int, markup: str) -> str:
    """``call_`` and 16 hex digits from the response, the call's place and its
    markup: the same response gives the same ids."""
    h = hashlib.blake2b(f"{seed}\x00{place}\x00{markup}".encode("utf-8", "surrogatepass"), digest_size=8)
    return "call_" + h.hexdigest()


def _judged(call_id: str, name: str, arguments: str, r: Any, **extra: Any) -> Judged:
    status = r.status
    out_name, out_args = name, arguments
    if status == "repaired" or extra.get("leaked") is not None:
        if r.tool is not None:
            out_name = r.tool
        if r.args_json is not None:
            out_args = r.args_json
    return Judged(
        id=call_id,
        name=out_name,
        arguments=out_args,
        status=status,
        sent_name=name,
        sent_arguments=arguments,
        repairs=[dict(x) for x in r.repairs],
        message=r.message,
        looped=r.looped,
        **extra,
    )


def judge_calls(ts: Toolset, calls: Sequence[Mapping[str, Any]]) -> List[Judged]:
    """Judges OpenAI ``tool_calls`` entries: each one valid (unchanged),
    repaired (name and arguments as repaired) or rejected (as sent)."""
    out = []
    for call in calls:
        fn = call.get("function") or {}
        name = fn.get("name")
        name = name if isinstance(name, str) else ""
        arguments = _text(fn.get("arguments"))
        call_id = call.get("id")
        r = ts.check(name, arguments)
        out.append(_judged(call_id if isinstance(call_id, str) else "", name, arguments, r))
    return out


def judge_turn(
    ts: Toolset, content: Any, tool_calls: Optional[Sequence[Mapping[str, Any]]], seed: str = ""
) -> Turn:
    """Judges one assistant message. Its own ``tool_calls`` are what runs; only
    a message with none is searched for calls written into its text (as
    ``check_record`` reads them), which become real calls and leave the text.
    A message callfix cannot judge (``CallfixError``: a tool's schema it cannot
    use, input past its limits) is left as it is, with ``error`` saying why."""
    try:
        return _judge_turn(ts, content, tool_calls, seed)
    except CallfixError as e:
        return Turn(content=content, calls=[], error=str(e))


def _judge_turn(
    ts: Toolset, content: Any, tool_calls: Optional[Sequence[Mapping[str, Any]]], seed: str
) -> Turn:
    if tool_calls:
        return Turn(content=content, calls=judge_calls(ts, tool_calls))
    if not isinstance(content, str) or not content:
        return Turn(content=content, calls=[])
    found, clean = _callfix._leaks(content, ts.names())
    if not found:
        return Turn(content=content, calls=[])
    results = ts.check_record({"role": "assistant", "content": content})
    if len(results) != len(found):
        # Never expected: the two read the same text the same way.
        return Turn(content=content, calls=[])
    calls = []
    for place, ((name, family, markup), r) in enumerate(zip(found, results)):
        j = _judged(
            _derived_id(seed, place, markup), name, markup, r, leaked=family, markup=markup
        )
        if j.status == "rejected":
            # What the model wrote is no JSON object to run; the re-ask quotes it.
            j.arguments = "{}"
        calls.append(j)
    return Turn(content=clean if clean.strip() else None, calls=calls, leaked=True)


def escalate(ts: Toolset, messages: Iterable[Mapping[str, Any]], turn: Turn, loop_limit: int) -> None:
    """Loop detection without state: the conversation's own earlier calls go
    through one ``Session`` first, so a call rejected ``loop_limit`` times in
    this conversation gets the "Stop retrying" instruction. Runs only when a
    call was rejected."""
    if loop_limit <= 0 or not turn.rejected:
        return
    session = ts.session(loop_limit=loop_limit)
    for m in messages:
        if not isinstance(m, Mapping) or m.get("role") != "assistant":
            continue
        for call in m.get("tool_calls") or ():
            fn = call.get("function") or {} if isinstance(call, Mapping) else {}
            name = fn.get("name")
            if isinstance(name, str):
                session.check(name, _text(fn.get("arguments")))
    for j in turn.calls:
        r = session.check(j.sent_name, j.sent_arguments)
        if j.status == "rejected" and r.status == "rejected":
            j.message, j.looped = r.message, r.looped


def _object_or_empty(arguments: str) -> str:
    try:
        value = json.loads(arguments)
    except (TypeError, ValueError):
        return "{}"
    return arguments if isinstance(value, dict) else "{}"


def reask_messages(messages: Sequence[Any], turn: Turn) -> List[Any]:
    """The conversation for a re-ask: the request's messages, then an assistant
    message with the rejected calls and one tool result per call with its
    instruction. Arguments that are not a JSON object go as ``{}`` (engines
    refuse histories with others) and the result quotes them as sent."""
    rejected = turn.rejected
    assistant = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": j.id,
                "type": "function",
                "function": {"name": j.sent_name, "arguments": _object_or_empty(j.arguments)},
            }
            for j in rejected
        ],
    }
    results = []
    for j in rejected:
        sent = j.markup if j.leaked is not None else j.sent_arguments
        text = j.message or ""
        if _object_or_empty(sent) != sent:
            # The library's words, as `callfix --to` and `callfix heal` write them.
            text = _callfix._with_arguments_sent(text, sent)
        results.append({"role": "tool", "tool_call_id": j.id, "content": text})
    return list(messages) + [assistant] + results


def reask_request(data: Mapping[str, Any], messages: List[Any]) -> Dict[str, Any]:
    """The keyword arguments of a re-ask: the request's model parameters, the
    new messages, not streamed."""
    req = {k: data[k] for k in REASK_PARAMS if k in data}
    req["messages"] = messages
    req["stream"] = False
    return req


def merge_retry(turn: Turn, retry: Turn, attempt: int) -> Turn:
    """The turn the client gets after a re-ask: the first turn's text and its
    good calls, with the re-ask's calls in the place of the rejected ones. A
    re-ask that made no call leaves the rejected calls as they were."""
    if not retry.calls:
        return turn
    for j in retry.calls:
        j.retried = attempt
    calls: List[Judged] = []
    placed = False
    for j in turn.calls:
        if j.status != "rejected":
            calls.append(j)
        elif not placed:
            calls.extend(retry.calls)
            placed = True
    return Turn(content=turn.content, calls=calls, leaked=turn.leaked)


@dataclass
class Report:
    """What the guardrail did to one request, for the response headers and
    LiteLLM's guardrail logging."""

    valid: int = 0
    repaired: int = 0
    leaked: int = 0
    rejected: int = 0
    retries: int = 0
    healed: int = 0
    neutralised: int = 0
    repairs: List[Dict[str, Any]] = field(default_factory=list)
    instructions: List[str] = field(default_factory=list)
    errors: List[str] = field(default_factory=list)
    post_call: bool = False

    def count(self, turn: Turn) -> None:
        if turn.error:
            self.errors.append(turn.error)
        for j in turn.calls:
            if j.leaked is not None:
                self.leaked += 1
            if j.status == "valid":
                self.valid += 1
            elif j.status == "repaired":
                self.repaired += 1
            else:
                self.rejected += 1
                if j.message:
                    self.instructions.append(f"{j.name}: {j.message}")
            for x in j.repairs:
                self.repairs.append(
                    {"call": j.id, "tool": j.name, "kind": x.get("kind"), "path": x.get("path")}
                )

    @property
    def acted(self) -> bool:
        return bool(self.repaired or self.leaked or self.rejected or self.retries or self.healed)

    def headers(self) -> Dict[str, str]:
        kinds: Dict[str, int] = {}
        for x in self.repairs:
            kinds[str(x["kind"])] = kinds.get(str(x["kind"]), 0) + 1
        out = {"x-callfix-healed": f"calls={self.healed} neutralised={self.neutralised}"}
        if self.post_call:
            out["x-callfix-calls"] = (
                f"valid={self.valid} repaired={self.repaired} "
                f"leaked={self.leaked} rejected={self.rejected}"
            )
            out["x-callfix-retries"] = str(self.retries)
        if self.errors:
            out["x-callfix-error"] = str(len(self.errors))
        if kinds:
            out["x-callfix-repairs"] = ",".join(f"{k}={n}" for k, n in sorted(kinds.items()))
        return out

    def to_dict(self) -> Dict[str, Any]:
        return {
            "valid": self.valid,
            "repaired": self.repaired,
            "leaked": self.leaked,
            "rejected": self.rejected,
            "retries": self.retries,
            "healed": self.healed,
            "neutralised": self.neutralised,
            "repairs": self.repairs,
            "instructions": self.instructions,
            "errors": self.errors,
        }


def heal_messages(
    data: Mapping[str, Any], heal: Optional[Callable[..., Any]] = None
) -> Tuple[Optional[List[Any]], int, int]:
    """The request's ``messages`` healed against its own ``tools`` (as
    ``callfix heal``), the number of history calls repaired and the number
    neutralised; ``None`` for messages when there was nothing to heal (no
    tools, no assistant turn, or every call valid and answered)."""
    messages = data.get("messages")
    tools = data.get("tools")
    if not tools or not isinstance(messages, list):
        return None, 0, 0
    if not any(isinstance(m, Mapping) and m.get("role") == "assistant" for m in messages):
        return None, 0, 0
    if heal is None:
        import callfix

        heal = callfix.heal  # type: ignore[attr-defined]
    healed = heal({"model": data.get("model", ""), "messages": messages, "tools": tools})
    repaired = sum(1 for r in healed.results if r.status == "repaired")
    new = healed.request.get("messages")
    # Unchanged unless something was repaired, neutralised or added (a
    # missing result); the comparison is linear, and only when all was valid.
    if not isinstance(new, list) or (healed.ok and not repaired and new == messages):
        return None, 0, 0
    return list(new), repaired, int(healed.neutralised)


@dataclass
class HeldCall:
    """A streamed tool call as its deltas arrive."""

    choice: int
    index: int
    id: Optional[str] = None
    name_parts: List[str] = field(default_factory=list)
    arg_parts: List[str] = field(default_factory=list)

    def as_call(self) -> Dict[str, Any]:
        return {
            "id": self.id or "",
            "type": "function",
            "function": {"name": "".join(self.name_parts), "arguments": "".join(self.arg_parts)},
        }


class StreamAssembler:
    """Holds the tool-call deltas of a stream until each call is complete: a
    call is complete when the next call of its choice starts (OpenAI streams a
    choice's calls in index order) or when the choice finishes. Text passes by
    untouched (``text`` keeps it only to look for leaked calls at the end).
    Linear in the stream: parts are joined once, when a call completes."""

    def __init__(self) -> None:
        self._open: Dict[int, HeldCall] = {}
        self.text: Dict[int, List[str]] = {}

    def add_text(self, choice: int, text: str) -> None:
        self.text.setdefault(choice, []).append(text)

    def feed(self, choice: int, deltas: Iterable[Mapping[str, Any]]) -> List[HeldCall]:
        """Takes a chunk's tool-call deltas for one choice; returns the calls
        they complete."""
        done = []
        for d in deltas:
            index = d.get("index")
            index = index if isinstance(index, int) else 0
            held = self._open.get(choice)
            if held is not None and held.index != index:
                done.append(held)
                held = None
            if held is None:
                held = HeldCall(choice=choice, index=index)
                self._open[choice] = held
            if d.get("id"):
                held.id = d["id"]
            fn = d.get("function") or {}
            if fn.get("name"):
                held.name_parts.append(fn["name"])
            if fn.get("arguments"):
                held.arg_parts.append(fn["arguments"])
        return done

    def finish(self, choice: Optional[int] = None) -> List[HeldCall]:
        """Ends one choice (or all): its call in progress is complete."""
        if choice is None:
            done = list(self._open.values())
            self._open.clear()
            return done
        held = self._open.pop(choice, None)
        return [held] if held is not None else []

    def whole_text(self, choice: int) -> str:
        return "".join(self.text.get(choice, ()))
