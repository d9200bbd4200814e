"""callfix as a LiteLLM proxy guardrail: ``callfix.litellm.CallfixGuardrail``.

In the proxy's ``config.yaml``::

    guardrails:
      - guardrail_name: callfix
        litellm_params:
          guardrail: callfix.litellm.CallfixGuardrail
          mode: [pre_call, post_call]
          default_on: true

- pre-call: the request's ``messages`` are healed against its own ``tools``
  (``callfix.heal``), so a malformed call left in the history no longer makes
  the engine refuse the request;
- post-call: every tool call in the response is judged against the request's
  ``tools``: valid unchanged, repaired rewritten, calls leaked into the text
  made real ``tool_calls``, a rejected call re-asked (``max_retries``) or passed
  or refused (``on_reject``);
- streams: text passes as it arrives; each tool call is held until complete,
  judged, and sent on in the same chunk format.

What it did is in the response headers (``x-callfix-*``, non-streaming) and in
LiteLLM's guardrail logging (``standard_logging_guardrail_information``). The
decisions themselves are in ``callfix._guardrail`` (no LiteLLM there); this
module is the glue, and imports LiteLLM: ``import callfix`` does not. See
docs/gateway.md.
"""

from __future__ import annotations

import time
from typing import Any, AsyncGenerator, Dict, List, Optional

from fastapi import HTTPException
from litellm.exceptions import GuardrailRaisedException
from litellm.integrations.custom_guardrail import CustomGuardrail
from litellm.litellm_core_utils.core_helpers import get_or_create_metadata_bucket
from litellm.types.guardrails import GuardrailEventHooks
from litellm.types.utils import (
    ChatCompletionMessageToolCall,
    Function,
    ModelResponse,
    ModelResponseStream,
)

from ._callfix import CallfixError
from ._guardrail import (
    Judged,
    Options,
    Report,
    StreamAssembler,
    ToolsetCache,
    Turn,
    escalate,
    heal_messages,
    judge_turn,
    merge_retry,
    reask_messages,
    reask_request,
)

__all__ = ["CallfixGuardrail"]

_REPORT_KEY = "callfix_report"


def _tool_call_dicts(message: Any) -> Optional[List[Dict[str, Any]]]:
    calls = getattr(message, "tool_calls", None)
    if not calls:
        return None
    out = []
    for c in calls:
        fn = getattr(c, "function", None)
        out.append(
            {
                "id": getattr(c, "id", None),
                "function": {
                    "name": getattr(fn, "name", None),
                    "arguments": getattr(fn, "arguments", None),
                },
            }
        )
    return out


def _apply(message: Any, turn: Turn) -> None:
    message.content = turn.content
    message.tool_calls = [
        ChatCompletionMessageToolCall(
            id=j.id, type="function", function=Function(name=j.name, arguments=j.arguments)
        )
        for j in turn.calls
    ]


class CallfixGuardrail(CustomGuardrail):
    """Validates, repairs and re-asks for the tool calls that pass through a
    LiteLLM proxy. Options (``litellm_params`` beside ``guardrail:``):
    ``max_retries`` (1), ``on_reject`` (``retry``, ``pass`` or ``error``),
    ``repair`` (``all``, ``none``, or a list of kinds), ``loop_limit`` (3; 0 is
    off), ``toolset_cache`` (256 compiled tool lists)."""

    # The proxy runs this class's own hooks (it defines no apply_guardrail).
    use_native_lifecycle_hooks = True

    def __init__(
        self,
        max_retries: Any = None,
        on_reject: Any = None,
        repair: Any = None,
        loop_limit: Any = None,
        toolset_cache: Any = None,
        **kwargs: Any,
    ) -> None:
        try:
            self.options = Options.from_params(
                {
                    "max_retries": max_retries,
                    "on_reject": on_reject,
                    "repair": repair,
                    "loop_limit": loop_limit,
                    "toolset_cache": toolset_cache,
                }
            )
        except CallfixError as e:
            # LiteLLM starts without a guardrail whose constructor raises a
            # ValueError (CallfixError is one); a proxy that silently lost its
            # guardrail is worse than one that does not start.
            raise RuntimeError(f"callfix guardrail: {e}") from e
        self.toolsets = ToolsetCache(self.options.cache_size, self.options.repair_arg())
        kwargs.setdefault(
            "supported_event_hooks", [GuardrailEventHooks.pre_call, GuardrailEventHooks.post_call]
        )
        super().__init__(**kwargs)

    # -- bookkeeping -----------------------------------------------------

    @staticmethod
    def _report(data: dict) -> Report:
        _, bucket = get_or_create_metadata_bucket(data)
        report = bucket.get(_REPORT_KEY)
        if not isinstance(report, Report):
            report = Report()
            bucket[_REPORT_KEY] = report
        return report

    def _log(self, data: dict, report: Report, started: float, event: GuardrailEventHooks) -> None:
        ended = time.time()
        self.add_standard_logging_guardrail_information_to_request_data(
            guardrail_json_response=report.to_dict(),
            request_data=data,
            guardrail_status="guardrail_intervened" if report.acted else "success",
            start_time=started,
            end_time=ended,
            duration=ended - started,
            guardrail_provider="callfix",
            event_type=event,
        )

    def _toolset(self, data: dict) -> Any:
        try:
            return self.toolsets.get(data.get("tools"))
        except CallfixError as e:
            # Tools callfix cannot use: the response goes out as it came.
            self._report(data).errors.append(str(e))
            return None

    # -- pre-call ----------------------------------------------------------

    async def async_pre_call_hook(self, user_api_key_dict: Any, cache: Any, data: dict, call_type: Any) -> Any:
        if call_type not in ("completion", "acompletion"):
            return data
        started = time.time()
        try:
            messages, repaired, neutralised = heal_messages(data)
        except CallfixError as e:
            # Tools callfix cannot use: the request goes on as it came.
            self._report(data).errors.append(str(e))
            return data
        if messages is None:
            return data
        data["messages"] = messages
        report = self._report(data)
        report.healed += repaired + neutralised
        report.neutralised += neutralised
        self._log(data, report, started, GuardrailEventHooks.pre_call)
        return data

    # -- post-call ---------------------------------------------------------

    async def async_post_call_success_hook(self, data: dict, user_api_key_dict: Any, response: Any) -> Any:
        if not isinstance(response, ModelResponse):
            return None
        ts = self._toolset(data)
        if ts is None:
            return None
        started = time.time()
        report = self._report(data)
        report.post_call = True
        changed = False
        for choice in response.choices or ():
            message = getattr(choice, "message", None)
            if message is None:
                continue
            seed = f"{response.id}:{choice.index}"
            turn = judge_turn(ts, message.content, _tool_call_dicts(message), seed)
            if turn.rejected:
                turn = await self._resolve(data, ts, turn, report, seed)
            report.count(turn)
            if turn.unreadable_leak:
                continue
            if turn.changed or any(j.retried for j in turn.calls):
                _apply(message, turn)
                if turn.calls and choice.finish_reason in (None, "stop"):
                    choice.finish_reason = "tool_calls"
                changed = True
        self._log(data, report, started, GuardrailEventHooks.post_call)
        return response if changed else None

    async def _resolve(
        self, data: dict, ts: Any, turn: Turn, report: Report, seed: str, streaming: bool = False
    ) -> Turn:
        """A turn with rejected calls: error, pass, or re-ask up to
        ``max_retries`` times (then pass what the last answer had)."""
        messages = list(data.get("messages") or ())
        escalate(ts, messages, turn, self.options.loop_limit)
        if self.options.on_reject == "error":
            raise self._refusal(turn, report, streaming)
        if self.options.on_reject == "pass":
            return turn
        from litellm.proxy.proxy_server import llm_router

        attempt = 0
        while turn.rejected and attempt < self.options.max_retries and llm_router is not None:
            attempt += 1
            conversation = reask_messages(messages, turn)
            report.retries += 1
            try:
                answer = await llm_router.acompletion(**reask_request(data, conversation))
            except Exception as e:  # noqa: BLE001 - any failure of the upstream
                # The re-ask failed (the upstream is down, a rate limit): the
                # client still gets the answer it would have had without it.
                report.errors.append(f"re-ask failed: {type(e).__name__}: {e}")
                break
            choices = getattr(answer, "choices", None) or []
            if not choices:
                break
            m = choices[0].message
            retry = judge_turn(ts, m.content, _tool_call_dicts(m), f"{seed}:retry{attempt}")
            escalate(ts, conversation, retry, self.options.loop_limit)
            messages = conversation
            turn = merge_retry(turn, retry, attempt)
        return turn

    def _refusal(self, turn: Turn, report: Report, streaming: bool = False) -> Exception:
        report.count(turn)
        lines = [f"{j.name}: {j.message}" for j in turn.rejected]
        message = "callfix: the model's tool call was rejected: " + " | ".join(lines)
        if streaming:
            # Mid-stream, LiteLLM turns this (not an HTTPException, which
            # would cut the connection) into an error event.
            return GuardrailRaisedException(
                guardrail_name=self.guardrail_name,
                message=message,
                should_wrap_with_default_message=False,
                status_code=400,
                blocked_content=True,
            )
        return HTTPException(
            status_code=400,
            detail={
                "error": message,
                "guardrail": self.guardrail_name,
                "callfix": report.to_dict(),
            },
        )

    async def async_post_call_response_headers_hook(
        self,
        data: dict,
        user_api_key_dict: Any,
        response: Any,
        request_headers: Optional[dict] = None,
        litellm_call_info: Optional[dict] = None,
    ) -> Optional[Dict[str, str]]:
        _, bucket = get_or_create_metadata_bucket(data)
        report = bucket.get(_REPORT_KEY)
        if not isinstance(report, Report):
            return None
        return report.headers()

    # -- streams -----------------------------------------------------------

    async def async_post_call_streaming_iterator_hook(
        self, user_api_key_dict: Any, response: Any, request_data: dict
    ) -> AsyncGenerator[Any, None]:
        ts = self._toolset(request_data)
        if ts is None:
            async for chunk in response:
                yield chunk
            return
        started = time.time()
        report = self._report(request_data)
        asm = StreamAssembler()
        emitted: Dict[int, int] = {}
        held: Dict[int, List[Judged]] = {}
        any_calls: Dict[int, bool] = {}
        template: Optional[Any] = None
        finished: set = set()

        def call_chunk(choice: int, j: Judged) -> Any:
            n = emitted.get(choice, 0)
            emitted[choice] = n + 1
            return ModelResponseStream(
                id=getattr(template, "id", None),
                created=getattr(template, "created", None),
                model=getattr(template, "model", None),
                object="chat.completion.chunk",
                choices=[
                    {
                        "index": choice,
                        "delta": {
                            "tool_calls": [
                                {
                                    "index": n,
                                    "id": j.id,
                                    "type": "function",
                                    "function": {"name": j.name, "arguments": j.arguments},
                                }
                            ]
                        },
                        "finish_reason": None,
                    }
                ],
            )

        def judged(choice: int, done: list) -> List[Judged]:
            if not done:
                return []
            turn = judge_turn(ts, None, [h.as_call() for h in done])
            out = []
            for j in turn.calls:
                if j.status == "rejected":
                    held.setdefault(choice, []).append(j)
                    continue
                report.count(Turn(content=None, calls=[j]))
                out.append(j)
            return out

        async def finish(choice: int) -> List[Judged]:
            if choice in finished:
                return []
            finished.add(choice)
            out = judged(choice, asm.finish(choice))
            if not any_calls.get(choice):
                text = asm.whole_text(choice)
                if text:
                    leaked = judge_turn(ts, text, None, f"{getattr(template, 'id', '')}:{choice}")
                    for j in leaked.calls:
                        if j.status == "rejected":
                            held.setdefault(choice, []).append(j)
                        else:
                            report.count(Turn(content=None, calls=[j]))
                            out.append(j)
            rejected = held.pop(choice, [])
            if rejected:
                turn = Turn(content=None, calls=rejected)
                turn = await self._resolve(
                    request_data, ts, turn, report, f"{getattr(template, 'id', '')}:{choice}", streaming=True
                )
                report.count(turn)
                # A call read from the text that is still rejected stays the
                # text it was (already sent): no call is made up for it.
                out.extend(turn.sendable())
            return out

        async for chunk in response:
            if template is None:
                template = chunk
            out_chunks: List[Any] = []
            keep = True
            for ch in getattr(chunk, "choices", None) or ():
                delta = getattr(ch, "delta", None)
                content = getattr(delta, "content", None)
                if content:
                    asm.add_text(ch.index, content)
                deltas = getattr(delta, "tool_calls", None)
                if deltas:
                    any_calls[ch.index] = True
                    done = asm.feed(
                        ch.index,
                        [
                            {
                                "index": getattr(d, "index", 0),
                                "id": getattr(d, "id", None),
                                "function": {
                                    "name": getattr(getattr(d, "function", None), "name", None),
                                    "arguments": getattr(getattr(d, "function", None), "arguments", None),
                                },
                            }
                            for d in deltas
                        ],
                    )
                    delta.tool_calls = None
                    out_chunks.extend(call_chunk(ch.index, j) for j in judged(ch.index, done))
                    if not content and not getattr(ch, "finish_reason", None) and not getattr(delta, "role", None):
                        keep = False
                if getattr(ch, "finish_reason", None):
                    calls = await finish(ch.index)
                    out_chunks.extend(call_chunk(ch.index, j) for j in calls)
                    if calls and ch.finish_reason == "stop":
                        ch.finish_reason = "tool_calls"
            for c in out_chunks:
                yield c
            if keep:
                yield chunk
        # A stream that ended without a finish_reason still gets its calls.
        for choice in sorted(set(asm.text) | set(any_calls) | set(held)):
            for j in await finish(choice):
                yield call_chunk(choice, j)
        self._log(request_data, report, started, GuardrailEventHooks.post_call)
