"""The Anthropic provider: request conversion (pure) and streaming through the real SDK against the fake
server (every scenario), plus the catalog, cost and key handling it relies on. No test touches the
internet."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from typing import Any

import pytest
import pytest_asyncio

from desktop_app.llm import anthropic as prov
from desktop_app.llm import catalog, keys
from desktop_app.llm.anthropic import AnthropicErrorEvent, AnthropicProvider
from desktop_app.llm.protocol import (
    Done,
    ErrorEvent,
    LLMRequest,
    ModelInfo,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageUpdate,
    complete,
)
from tests.fakes import FakeAnthropicServer, Usage
from tests.fakes import anthropic_server as fa

SONNET = catalog.get_model("claude-sonnet-4-5")
EPHEMERAL = {"type": "ephemeral"}

# pi-spec §3.8 / §5.4 matchers, to prove error texts classify as pi would.
RETRYABLE = re.compile(
    r"overloaded|provider returned error|rate limit|too many requests|429|500|502|503|504|service unavailable"
    r"|server error|internal error|network error|connection error|connection refused|connection lost"
    r"|websocket closed|websocket error|other side closed|fetch failed|upstream connect|reset before headers"
    r"|socket hang up|ended without|http2 request did not get a response|timed out|time out|timeout"
    r"|terminated|retry delay",
    re.IGNORECASE,
)
OVERFLOW = re.compile(r"prompt is too long|request_too_large|exceeds the context window", re.IGNORECASE)


# ============================================================================================ helpers


def user(text: str | list[dict[str, Any]], ts: int = 1) -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": ts}


def assistant(
    content: list[dict[str, Any]],
    *,
    stop: str = "stop",
    model: ModelInfo = SONNET,
    provider: str | None = None,
) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "api": model.api,
        "provider": provider or model.provider,
        "model": model.id,
        "usage": {},
        "stopReason": stop,
        "timestamp": 2,
    }


def tool_call(call_id: str, name: str = "read", **args: Any) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": args or {"path": "a.txt"}}


def tool_result(
    call_id: str, text: str = "file contents", *, error: bool = False, name: str = "read"
) -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [{"type": "text", "text": text}],
        "isError": error,
        "timestamp": 3,
    }


def request(messages: list[dict[str, Any]] | None = None, **kw: Any) -> LLMRequest:
    return LLMRequest(
        system_prompt=kw.pop("system_prompt", "You are a helpful assistant."),
        messages=messages if messages is not None else [user("Hello")],
        **kw,
    )


_made: list[AnthropicProvider] = []


def provider(
    server: FakeAnthropicServer, key: str, model_id: str = "claude-sonnet-4-5", **kw: Any
) -> AnthropicProvider:
    p = AnthropicProvider(key, base_url=server.base_url, model_id=model_id, **kw)
    return track(p)


def track(p: AnthropicProvider) -> AnthropicProvider:
    _made.append(p)
    return p


@pytest_asyncio.fixture(autouse=True)
async def _close_providers() -> Any:
    """Close the SDK clients the test made, on the test's own loop (no unclosed sockets left behind)."""
    yield
    while _made:
        await _made.pop().aclose()


async def run(p: AnthropicProvider, req: LLMRequest) -> list[StreamEvent]:
    return [event async for event in p.stream(req)]


def final(events: list[StreamEvent]) -> dict[str, Any]:
    last = events[-1]
    assert isinstance(last, (Done, ErrorEvent))
    assert all(not isinstance(e, (Done, ErrorEvent)) for e in events[:-1])
    return last.message


# ============================================================================ conversion (no network)


def test_error_and_aborted_assistants_are_dropped() -> None:
    msgs = [
        user("one"),
        assistant([{"type": "text", "text": "partial"}], stop="error"),
        assistant([{"type": "text", "text": "cut"}], stop="aborted"),
        assistant([{"type": "text", "text": "good"}]),
        user("two"),
    ]
    out = prov.convert_messages(msgs, SONNET, cache=False)
    assert out == [
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": [{"type": "text", "text": "good"}]},
        {"role": "user", "content": "two"},
    ]


def test_missing_tool_results_are_synthesized_everywhere() -> None:
    msgs = [
        user("go"),
        assistant([tool_call("t1"), tool_call("t2")], stop="toolUse"),
        tool_result("t1"),
        user("interrupt"),  # t2 never answered before the next user message
        assistant([tool_call("t3")], stop="toolUse"),
        assistant([{"type": "text", "text": "next"}]),  # t3 unanswered before the next assistant
        assistant([tool_call("t4")], stop="toolUse"),  # t4 unanswered at the very end (pi 0.73.1)
    ]
    out = prov.transform_messages(msgs, SONNET)
    synthesized = [
        m for m in out if m["role"] == "toolResult" and m["content"][0]["text"] == "No result provided"
    ]
    assert [m["toolCallId"] for m in synthesized] == ["t2", "t3", "t4"]
    assert all(m["isError"] is True for m in synthesized)
    assert [m["role"] for m in out] == [
        "user",
        "assistant",
        "toolResult",
        "toolResult",
        "user",
        "assistant",
        "toolResult",
        "assistant",
        "assistant",
        "toolResult",
    ]
    assert out[-1]["toolName"] == "read"


def test_errored_tool_call_turn_gets_no_synthetic_result() -> None:
    msgs = [user("go"), assistant([tool_call("tx")], stop="error"), user("again")]
    out = prov.transform_messages(msgs, SONNET)
    assert [m["role"] for m in out] == ["user", "user"]


def test_consecutive_tool_results_merge_into_one_user_message() -> None:
    msgs = [
        user("go"),
        assistant(
            [{"type": "text", "text": "reading"}, tool_call("t1"), tool_call("t2", "bash", command="ls")],
            stop="toolUse",
        ),
        tool_result("t1", "one"),
        tool_result("t2", "boom", error=True, name="bash"),
    ]
    out = prov.convert_messages(msgs, SONNET)
    assert out[1] == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "reading"},
            {"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "a.txt"}},
            {"type": "tool_use", "id": "t2", "name": "bash", "input": {"command": "ls"}},
        ],
    }
    assert out[2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "one", "is_error": False},
            {
                "type": "tool_result",
                "tool_use_id": "t2",
                "content": "boom",
                "is_error": True,
                "cache_control": EPHEMERAL,
            },
        ],
    }
    assert len(out) == 3


def test_tool_result_with_images() -> None:
    image = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    msgs = [
        user("look"),
        assistant([tool_call("t1"), tool_call("t2")], stop="toolUse"),
        {**tool_result("t1"), "content": [{"type": "text", "text": "a picture"}, image]},
        {**tool_result("t2"), "content": [image]},
    ]
    out = prov.convert_messages(msgs, SONNET, cache=False)
    source = {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}
    assert out[2]["content"][0]["content"] == [
        {"type": "text", "text": "a picture"},
        {"type": "image", "source": source},
    ]
    assert out[2]["content"][1]["content"] == [
        {"type": "text", "text": "(see attached image)"},
        {"type": "image", "source": source},
    ]


def test_user_images_and_text_only_models() -> None:
    image = {"type": "image", "data": "R0lGOD", "mimeType": "image/gif"}
    msgs = [user([{"type": "text", "text": "what is this"}, image, image, {"type": "text", "text": "  "}])]
    out = prov.convert_messages(msgs, SONNET, cache=False)
    assert out == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is this"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": "R0lGOD"}},
                {"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": "R0lGOD"}},
            ],
        }
    ]
    text_only = ModelInfo(id="local", provider="anthropic", api="anthropic-messages", input=("text",))
    out = prov.convert_messages(msgs, text_only, cache=False)
    assert out[0]["content"] == [
        {"type": "text", "text": "what is this"},
        {
            "type": "text",
            "text": "(image omitted: model does not support images)",
        },  # two images, one placeholder
    ]
    tr = prov.transform_messages(
        [assistant([tool_call("t")], stop="toolUse"), {**tool_result("t"), "content": [image]}], text_only
    )
    assert tr[1]["content"] == [
        {"type": "text", "text": "(tool image omitted: model does not support images)"}
    ]


def test_thinking_replay_rules() -> None:
    signed = {"type": "thinking", "thinking": "I reason", "thinkingSignature": "SIG1"}
    unsigned = {"type": "thinking", "thinking": "no sig", "thinkingSignature": ""}
    empty = {"type": "thinking", "thinking": "  ", "thinkingSignature": "SIG2"}
    redacted = {
        "type": "thinking",
        "thinking": "[Reasoning redacted]",
        "thinkingSignature": "ENC",
        "redacted": True,
    }
    text = {"type": "text", "text": "answer", "textSignature": "ts"}
    same = assistant([signed, unsigned, empty, redacted, text])
    out = prov.convert_messages([user("q"), same, user("r")], SONNET, cache=False)
    assert out[1]["content"] == [
        {"type": "thinking", "thinking": "I reason", "signature": "SIG1"},
        {"type": "text", "text": "no sig"},  # unsigned thinking would be rejected as thinking
        {"type": "redacted_thinking", "data": "ENC"},
        {"type": "text", "text": "answer"},
    ]
    other = catalog.get_model("claude-opus-4-1")
    out = prov.convert_messages([user("q"), same, user("r")], other, cache=False)
    assert out[1]["content"] == [
        {"type": "text", "text": "I reason"},
        {"type": "text", "text": "no sig"},
        {"type": "text", "text": "answer"},
    ]  # foreign thinking becomes text, empty and redacted thinking are dropped
    from_openai = assistant([signed, text], provider="openai")
    out = prov.convert_messages([user("q"), from_openai, user("r")], SONNET, cache=False)
    assert out[1]["content"][0] == {"type": "text", "text": "I reason"}


def test_foreign_tool_call_ids_are_normalised_with_their_results() -> None:
    weird = "call_abc|fc_123/xyz" + "z" * 80
    openai_turn = assistant([tool_call(weird)], stop="toolUse", provider="openai")
    out = prov.convert_messages([user("q"), openai_turn, tool_result(weird)], SONNET, cache=False)
    new_id = out[1]["content"][0]["id"]
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", new_id)
    assert out[2]["content"][0]["tool_use_id"] == new_id


def test_cache_control_on_the_conversation_tail_and_system() -> None:
    params = prov.build_params(
        request([user("first"), assistant([{"type": "text", "text": "a"}]), user("second")]), SONNET
    )
    assert params["system"] == [
        {"type": "text", "text": "You are a helpful assistant.", "cache_control": EPHEMERAL}
    ]
    assert params["messages"][0] == {"role": "user", "content": "first"}
    assert params["messages"][-1] == {
        "role": "user",
        "content": [{"type": "text", "text": "second", "cache_control": EPHEMERAL}],
    }
    blocks = prov.build_params(
        request([user([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}])]), SONNET
    )
    assert blocks["messages"][0]["content"] == [
        {"type": "text", "text": "a"},
        {"type": "text", "text": "b", "cache_control": EPHEMERAL},
    ]
    no_system = prov.build_params(request(system_prompt=None), SONNET)
    assert "system" not in no_system
    uncached = prov.build_params(request(), SONNET, cache=False)
    assert "cache_control" not in json.dumps(uncached)


def test_blank_messages_are_skipped() -> None:
    out = prov.convert_messages(
        [
            user("   "),
            user([{"type": "text", "text": ""}]),
            assistant([{"type": "text", "text": " "}]),
            user("x"),
        ],
        SONNET,
    )
    assert [m["role"] for m in out] == ["user"]


def test_lone_surrogates_are_removed() -> None:
    out = prov.convert_messages([user("bad \ud83d text")], SONNET, cache=False)
    assert out[0]["content"] == "bad  text"


def test_tools_are_converted() -> None:
    tools = [
        {
            "name": "read",
            "description": "Read a file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        }
    ]
    params = prov.build_params(request(tools=tools), SONNET)
    assert params["tools"] == [
        {
            "name": "read",
            "description": "Read a file",
            "input_schema": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        }
    ]


@pytest.mark.parametrize(
    ("level", "budget"),
    [("minimal", 1024), ("low", 2048), ("medium", 8192), ("high", 16384), ("xhigh", 16384)],
)
def test_thinking_budget_per_level(level: str, budget: int) -> None:
    max_tokens, thinking, output_config = prov.thinking_config(level, 4096, SONNET)
    assert thinking == {"type": "enabled", "budget_tokens": budget}
    assert max_tokens == 4096 + budget and max_tokens > budget
    assert output_config is None


def test_thinking_off_cap_and_non_reasoning_models() -> None:
    assert prov.thinking_config("off", 4096, SONNET) == (4096, None, None)
    assert prov.thinking_config(None, 4096, SONNET) == (4096, None, None)
    haiku35 = catalog.get_model("claude-3-5-haiku-latest")
    assert prov.thinking_config("high", 4096, haiku35) == (4096, None, None)
    # The model's output limit caps max_tokens; the budget shrinks to leave 1024 tokens for the answer.
    small = ModelInfo(
        id="m", provider="anthropic", api="anthropic-messages", max_tokens=10_000, reasoning=True
    )
    max_tokens, thinking, _ = prov.thinking_config("high", 8000, small)
    assert max_tokens == 10_000 and thinking == {"type": "enabled", "budget_tokens": 8976}
    tiny = ModelInfo(id="m", provider="anthropic", api="anthropic-messages", max_tokens=1500, reasoning=True)
    assert prov.thinking_config("medium", 1000, tiny) == (1000, None, None)  # no room for the 1024 minimum
    max_tokens, thinking, effort = prov.thinking_config("xhigh", 4096, SONNET, adaptive=True)
    assert (max_tokens, thinking, effort) == (4096, {"type": "adaptive"}, {"effort": "max"})


def test_default_max_tokens_and_adaptive_selection() -> None:
    params = prov.build_params(request(), catalog.get_model("claude-3-5-haiku-latest"))
    assert params["max_tokens"] == 8192  # min(model max output, 32000), as pi
    assert prov.build_params(request(), SONNET)["max_tokens"] == 32_000
    opus46 = AnthropicProvider("k", model_id="claude-opus-4-6")
    assert opus46.uses_adaptive_thinking()  # Anthropic's own API
    assert not AnthropicProvider(
        "k", base_url="http://127.0.0.1:1", model_id="claude-opus-4-6"
    ).uses_adaptive_thinking()
    assert not AnthropicProvider("k", model_id="claude-sonnet-4-5").uses_adaptive_thinking()


def test_input_messages_are_not_modified() -> None:
    msgs = [user("q"), assistant([tool_call("t1")], stop="toolUse"), user([{"type": "text", "text": "x"}])]
    snapshot = json.dumps(msgs)
    prov.build_params(request(msgs), SONNET)
    assert json.dumps(msgs) == snapshot


# ======================================================================= streaming through the SDK


@pytest.mark.asyncio
async def test_plain_text_turn(fake_anthropic: FakeAnthropicServer, api_key: str) -> None:
    fake_anthropic.enqueue(
        fa.text(
            "Hello there, human.",
            chunk=6,
            usage=Usage(input=1200, output=80, cache_read=9000, cache_write=300),
        )
    )
    events = await run(provider(fake_anthropic, api_key), request(max_tokens=1000))
    message = final(events)
    assert isinstance(events[-1], Done)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Hello there, human."
    assert len([e for e in events if isinstance(e, TextDelta)]) == 4
    assert list(message) == [
        "role", "content", "api", "provider", "model", "usage", "stopReason", "timestamp", "responseId",
    ]  # fmt: skip
    assert message["content"] == [{"type": "text", "text": "Hello there, human."}]
    assert (message["api"], message["provider"], message["model"]) == (
        "anthropic-messages",
        "anthropic",
        "claude-sonnet-4-5",
    )
    assert message["stopReason"] == "stop"
    assert message["responseId"].startswith("msg_")
    assert abs(message["timestamp"] - time.time() * 1000) < 10_000
    # The same numbers as a pi fixture line (tests/fixtures): pi's float arithmetic, byte for byte.
    assert message["usage"] == {
        "input": 1200,
        "output": 80,
        "cacheRead": 9000,
        "cacheWrite": 300,
        "totalTokens": 10580,
        "cost": {
            "input": 0.0036,
            "output": 0.0012000000000000001,
            "cacheRead": 0.0026999999999999997,
            "cacheWrite": 0.0011250000000000001,
            "total": 0.008625,
        },
    }
    usage_events = [e for e in events if isinstance(e, UsageUpdate)]
    assert usage_events[0].usage["input"] == 1200 and usage_events[-1].usage["output"] == 80

    sent = fake_anthropic.last_request
    assert (sent.method, sent.path) == ("POST", "/v1/messages")
    assert sent.header("anthropic-version")
    assert sent.json["model"] == "claude-sonnet-4-5"
    assert sent.json["max_tokens"] == 1000
    assert sent.json["stream"] is True
    assert sent.json["system"] == [
        {"type": "text", "text": "You are a helpful assistant.", "cache_control": EPHEMERAL}
    ]
    assert sent.json["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Hello", "cache_control": EPHEMERAL}]}
    ]
    assert "thinking" not in sent.json


@pytest.mark.asyncio
async def test_thinking_then_text(fake_anthropic: FakeAnthropicServer, api_key: str) -> None:
    fake_anthropic.enqueue(
        fa.thinking("Consider the question carefully.", "Forty-two.", signature="SIG-abc==")
    )
    events = await run(provider(fake_anthropic, api_key), request(reasoning="medium", max_tokens=2000))
    message = final(events)
    assert (
        "".join(e.text for e in events if isinstance(e, ThinkingDelta)) == "Consider the question carefully."
    )
    assert message["content"] == [
        {
            "type": "thinking",
            "thinking": "Consider the question carefully.",
            "thinkingSignature": "SIG-abc==",
        },
        {"type": "text", "text": "Forty-two."},
    ]
    sent = fake_anthropic.last_request.json
    assert sent["thinking"] == {"type": "enabled", "budget_tokens": 8192}
    assert sent["max_tokens"] == 2000 + 8192


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("level", "budget"), [("minimal", 1024), ("low", 2048), ("high", 16384), ("xhigh", 16384)]
)
async def test_thinking_param_sent_per_level(
    fake_anthropic: FakeAnthropicServer, api_key: str, level: str, budget: int
) -> None:
    fake_anthropic.enqueue(fa.text("ok"))
    await run(provider(fake_anthropic, api_key), request(reasoning=level, max_tokens=4000))
    sent = fake_anthropic.last_request.json
    assert sent["thinking"] == {"type": "enabled", "budget_tokens": budget}
    assert sent["max_tokens"] == 4000 + budget


@pytest.mark.asyncio
async def test_adaptive_thinking_is_sent_when_forced(
    fake_anthropic: FakeAnthropicServer, api_key: str
) -> None:
    fake_anthropic.enqueue(fa.text("ok"))
    p = provider(fake_anthropic, api_key, "claude-opus-4-6", adaptive_thinking=True)
    await run(p, request(reasoning="high", max_tokens=4000))
    sent = fake_anthropic.last_request.json
    assert sent["thinking"] == {"type": "adaptive"}
    assert sent["output_config"] == {"effort": "high"}
    assert sent["max_tokens"] == 4000


@pytest.mark.asyncio
async def test_thinking_off_sends_no_thinking(fake_anthropic: FakeAnthropicServer, api_key: str) -> None:
    fake_anthropic.enqueue(fa.text("ok"))
    await run(provider(fake_anthropic, api_key), request(reasoning="off", max_tokens=4000))
    assert "thinking" not in fake_anthropic.last_request.json
    assert fake_anthropic.last_request.json["max_tokens"] == 4000


@pytest.mark.asyncio
async def test_tool_use_turn(fake_anthropic: FakeAnthropicServer, api_key: str) -> None:
    args = {"path": "src/main.py", "offset": 10, "limit": 200}
    fake_anthropic.enqueue(fa.tool_use("read", args, tool_id="toolu_01ABC", preamble="Reading it.", chunk=5))
    tools = [
        {
            "name": "read",
            "description": "Read",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        }
    ]
    events = await run(provider(fake_anthropic, api_key), request(tools=tools))
    message = final(events)
    assert message["stopReason"] == "toolUse"
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    deltas = [e for e in events if isinstance(e, ToolCallDelta)]
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert starts == [ToolCallStart(1, "toolu_01ABC", "read")]
    assert len(deltas) > 3 and json.loads("".join(d.arguments_json for d in deltas)) == args
    assert ends == [
        ToolCallEnd(1, {"type": "toolCall", "id": "toolu_01ABC", "name": "read", "arguments": args})
    ]
    assert message["content"] == [
        {"type": "text", "text": "Reading it."},
        {"type": "toolCall", "id": "toolu_01ABC", "name": "read", "arguments": args},
    ]
    assert fake_anthropic.last_request.json["tools"][0]["name"] == "read"


@pytest.mark.asyncio
async def test_conversation_sent_with_merged_and_synthesized_tool_results(
    fake_anthropic: FakeAnthropicServer, api_key: str
) -> None:
    history = [
        user("fix it"),
        assistant(
            [
                {"type": "thinking", "thinking": "plan", "thinkingSignature": "S1"},
                tool_call("toolu_1"),
                tool_call("toolu_2", "bash", command="make"),
            ],
            stop="toolUse",
        ),
        tool_result("toolu_1", "contents"),
        tool_result("toolu_2", "failed", error=True, name="bash"),
        assistant([tool_call("toolu_3", "bash", command="make test")], stop="toolUse"),
        assistant([{"type": "text", "text": "half"}], stop="aborted"),
        user("stop, try again"),
    ]
    fake_anthropic.enqueue(fa.text("ok"))
    await run(provider(fake_anthropic, api_key), request(history, reasoning="low"))
    sent = fake_anthropic.last_request.json["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user", "assistant", "user", "user"]
    assert sent[1]["content"][0] == {"type": "thinking", "thinking": "plan", "signature": "S1"}
    assert sent[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "contents", "is_error": False},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "failed", "is_error": True},
    ]
    assert sent[4]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_3", "content": "No result provided", "is_error": True}
    ]
    assert sent[5]["content"] == [{"type": "text", "text": "stop, try again", "cache_control": EPHEMERAL}]


@pytest.mark.asyncio
async def test_dangling_tool_call_at_the_end_gets_a_result(
    fake_anthropic: FakeAnthropicServer, api_key: str
) -> None:
    fake_anthropic.enqueue(fa.text("ok"))
    await run(
        provider(fake_anthropic, api_key),
        request([user("q"), assistant([tool_call("toolu_9")], stop="toolUse")]),
    )
    last = fake_anthropic.last_request.json["messages"][-1]
    assert last == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_9",
                "content": "No result provided",
                "is_error": True,
                "cache_control": EPHEMERAL,
            }
        ],
    }


@pytest.mark.asyncio
async def test_stop_reasons_are_mapped(fake_anthropic: FakeAnthropicServer, api_key: str) -> None:
    p = provider(fake_anthropic, api_key)
    expected = {"end_turn": "stop", "max_tokens": "length", "stop_sequence": "stop", "pause_turn": "stop"}
    for reason, mapped in expected.items():
        fake_anthropic.enqueue(fa.text("x", stop_reason=reason))
        assert final(await run(p, request()))["stopReason"] == mapped
    fake_anthropic.enqueue(fa.text("x", stop_reason="refusal"))
    message = final(await run(p, request()))
    assert message["stopReason"] == "error" and "refus" in message["errorMessage"]


@pytest.mark.asyncio
async def test_slow_stream_yields_deltas_as_they_arrive(
    fake_anthropic: FakeAnthropicServer, api_key: str
) -> None:
    fake_anthropic.enqueue(fa.slow_text("abcdefghij", delay=0.05, chunk=2))
    arrivals: list[float] = []
    async for event in provider(fake_anthropic, api_key).stream(request()):
        if isinstance(event, TextDelta):
            arrivals.append(time.monotonic())
        last = event
    assert isinstance(last, Done) and last.message["content"] == [{"type": "text", "text": "abcdefghij"}]
    assert len(arrivals) == 5 and arrivals[-1] - arrivals[0] >= 0.15


@pytest.mark.asyncio
async def test_abort_mid_stream_keeps_partial_content(
    fake_anthropic: FakeAnthropicServer, api_key: str
) -> None:
    fake_anthropic.enqueue(fa.never_ending(interval=0.01, first_text="Partial"))
    p = provider(fake_anthropic, api_key)
    received: list[StreamEvent] = []
    enough = asyncio.Event()

    async def consume() -> None:
        async for event in p.stream(request()):
            received.append(event)
            if sum(isinstance(e, TextDelta) for e in received) >= 5:
                enough.set()
            if isinstance(event, (Done, ErrorEvent)):
                break  # the final event: stop here as the agent does

    task = asyncio.create_task(consume())
    await asyncio.wait_for(enough.wait(), 5)
    task.cancel()
    await task  # the stream turned the cancellation into its final aborted event
    message = final(received)
    assert isinstance(received[-1], ErrorEvent)
    assert message["stopReason"] == "aborted"
    assert message["errorMessage"] == "Request was aborted"
    text = message["content"][0]["text"]
    assert text.startswith("Partial....") and text == "".join(
        e.text for e in received if isinstance(e, TextDelta)
    )
    assert message["usage"]["input"] == 25 and message["responseId"].startswith("msg_")
    assert p.last_error is None
    assert await asyncio.to_thread(fake_anthropic.last_request.disconnected.wait, 3)  # connection closed
    # The provider stays usable.
    fake_anthropic.enqueue(fa.text("after abort"))
    assert final(await run(p, request()))["content"] == [{"type": "text", "text": "after abort"}]


@pytest.mark.asyncio
async def test_abort_reraises_if_the_consumer_keeps_iterating(
    fake_anthropic: FakeAnthropicServer, api_key: str
) -> None:
    fake_anthropic.enqueue(fa.never_ending(interval=0.01))
    received: list[StreamEvent] = []
    started = asyncio.Event()

    async def consume() -> None:
        async for event in provider(fake_anthropic, api_key).stream(request()):
            received.append(event)
            started.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(started.wait(), 5)
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert isinstance(received[-1], ErrorEvent) and received[-1].message["stopReason"] == "aborted"


@pytest.mark.asyncio
async def test_complete_returns_the_aborted_message_on_cancel(
    fake_anthropic: FakeAnthropicServer, api_key: str
) -> None:
    fake_anthropic.enqueue(fa.never_ending(interval=0.01))
    progress: list[int] = []
    task = asyncio.create_task(complete(provider(fake_anthropic, api_key), request(), progress.append))
    while len(progress) < 3:
        await asyncio.sleep(0.01)
    task.cancel()
    message = await task
    assert message["stopReason"] == "aborted" and message["content"][0]["text"].startswith(
        "Thinking out loud"
    )


@pytest.mark.asyncio
async def test_abort_before_the_response_arrives(fake_anthropic: FakeAnthropicServer, api_key: str) -> None:
    # A reply that sleeps before its first byte of body: cancel while the SDK waits.
    fake_anthropic.enqueue(fa.StreamReply([fa.Sleep(5.0)]))
    received: list[StreamEvent] = []

    async def consume() -> None:
        async for event in provider(fake_anthropic, api_key).stream(request()):
            received.append(event)
            break

    task = asyncio.create_task(consume())
    await asyncio.to_thread(fake_anthropic.wait_for_requests, 1)
    await asyncio.sleep(0.05)
    task.cancel()
    await task
    message = final(received)
    assert message["stopReason"] == "aborted" and message["content"] == []


@pytest.mark.parametrize(
    ("scenario", "status", "text", "retry_after", "retryable"),
    [
        (fa.unauthorized(), 401, "401 authentication_error: invalid x-api-key", None, False),
        (fa.rate_limited(7), 429, "429 rate_limit_error: Number of request tokens", 7.0, True),
        (fa.overloaded(), 529, "529 overloaded_error: Overloaded", None, True),
        (fa.overloaded(retry_after=3), 529, "529 overloaded_error: Overloaded", 3.0, True),
        (fa.api_error(), 500, "500 api_error: Internal server error", None, True),
        (
            fa.prompt_too_long(),
            400,
            "400 invalid_request_error: prompt is too long: 210000 tokens > 200000 maximum",
            None,
            False,
        ),
    ],
)
@pytest.mark.asyncio
async def test_http_errors(
    fake_anthropic: FakeAnthropicServer,
    api_key: str,
    scenario: fa.ErrorReply,
    status: int,
    text: str,
    retry_after: float | None,
    retryable: bool,
) -> None:
    fake_anthropic.enqueue(scenario)
    p = provider(fake_anthropic, api_key)
    events = await run(p, request())
    assert len(events) == 1
    event = events[0]
    assert isinstance(event, AnthropicErrorEvent)
    message = event.message
    assert message["stopReason"] == "error"
    assert message["errorMessage"].startswith(text)
    assert list(message)[-2:] == ["timestamp", "errorMessage"] and message["content"] == []
    assert message["usage"]["totalTokens"] == 0 and message["usage"]["cost"]["total"] == 0
    assert (event.status, event.retry_after) == (status, retry_after)
    assert (
        p.last_error is not None and p.last_error.retry_after == retry_after and p.last_error.status == status
    )
    is_overflow = bool(OVERFLOW.search(message["errorMessage"]))
    assert bool(RETRYABLE.search(message["errorMessage"])) and not is_overflow or not retryable
    assert is_overflow == (status == 400)
    assert len(fake_anthropic.requests) == 1  # max_retries=0: the agent retries, not the SDK


@pytest.mark.asyncio
async def test_error_event_mid_stream(fake_anthropic: FakeAnthropicServer, api_key: str) -> None:
    fake_anthropic.enqueue(fa.sse_error("overloaded_error", "Overloaded", partial="Half an ans"))
    events = await run(provider(fake_anthropic, api_key), request())
    message = final(events)
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == "529 overloaded_error: Overloaded"
    assert message["content"] == [{"type": "text", "text": "Half an ans"}]  # partial content kept
    assert list(message)[-3:] == ["timestamp", "errorMessage", "responseId"]


@pytest.mark.asyncio
async def test_connection_dropped_mid_stream(fake_anthropic: FakeAnthropicServer, api_key: str) -> None:
    fake_anthropic.enqueue(fa.drop_mid_stream("This answer will be cut"))
    events = await run(provider(fake_anthropic, api_key), request())
    message = final(events)
    assert message["stopReason"] == "error"
    lowered = message["errorMessage"].lower()
    assert "connection" in lowered and "terminated" in lowered
    assert RETRYABLE.search(message["errorMessage"]) and not OVERFLOW.search(message["errorMessage"])
    assert message["content"] == [{"type": "text", "text": "This answer will be cut"}]
    assert sum(isinstance(e, TextDelta) for e in events) == 3


@pytest.mark.asyncio
async def test_stream_that_closes_without_message_stop(
    fake_anthropic: FakeAnthropicServer, api_key: str
) -> None:
    steps = [
        fa.Sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_x",
                    "type": "message",
                    "role": "assistant",
                    "model": "m",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 3, "output_tokens": 1},
                },
            },
        ),
        fa.Sse(
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        fa.Sse(
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "cut"}},
        ),
    ]  # then a clean end of the chunked body
    fake_anthropic.enqueue(fa.StreamReply(steps))
    message = final(await run(provider(fake_anthropic, api_key), request()))
    assert message["stopReason"] == "error" and "terminated" in message["errorMessage"]
    assert message["content"] == [{"type": "text", "text": "cut"}]


@pytest.mark.asyncio
async def test_malformed_sse(fake_anthropic: FakeAnthropicServer, api_key: str) -> None:
    fake_anthropic.enqueue(fa.malformed_sse())
    message = final(await run(provider(fake_anthropic, api_key), request()))
    assert message["stopReason"] == "error"
    assert "Malformed" in message["errorMessage"]


@pytest.mark.asyncio
async def test_connection_refused(api_key: str) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p = track(AnthropicProvider(api_key, base_url=f"http://127.0.0.1:{port}"))
    message = final(await run(p, request()))
    assert message["stopReason"] == "error"
    assert message["errorMessage"].lower().startswith("connection error")
    assert RETRYABLE.search(message["errorMessage"])


@pytest.mark.asyncio
async def test_no_api_key(monkeypatch: pytest.MonkeyPatch, fake_anthropic: FakeAnthropicServer) -> None:
    monkeypatch.setattr(prov, "get_api_key", lambda: None)
    message = final(await run(track(AnthropicProvider(base_url=fake_anthropic.base_url)), request()))
    assert (
        message["stopReason"] == "error" and message["errorMessage"] == "No API key for provider: anthropic"
    )
    assert fake_anthropic.requests == []


@pytest.mark.asyncio
async def test_key_from_environment_is_used(
    monkeypatch: pytest.MonkeyPatch, fake_anthropic: FakeAnthropicServer, api_key: str
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", api_key)
    fake_anthropic.enqueue(fa.text())
    assert isinstance(
        (await run(track(AnthropicProvider(base_url=fake_anthropic.base_url)), request()))[-1], Done
    )
    auth = fake_anthropic.last_request.header("authorization") or fake_anthropic.last_request.header(
        "x-api-key"
    )
    assert auth is not None and api_key in auth


@pytest.mark.asyncio
async def test_api_key_never_leaks(
    fake_anthropic: FakeAnthropicServer, api_key: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    hostile = fa.http_error(
        401, "authentication_error", f"invalid x-api-key: {api_key}"
    )  # a server echoing it
    fake_anthropic.enqueue(
        fa.text(), fa.thinking(), fa.tool_use(), fa.overloaded(), hostile, fa.drop_mid_stream()
    )
    p = provider(fake_anthropic, api_key)
    finals = []
    for _ in range(6):
        finals.append(
            final(
                await run(
                    p, request([user("hi"), assistant([tool_call("t1")], stop="toolUse")], reasoning="low")
                )
            )
        )
    assert [m["stopReason"] for m in finals] == ["stop", "stop", "toolUse", "error", "error", "error"]
    for r in fake_anthropic.requests:
        # The key travels only in the auth header (this SDK sends ``Authorization: Bearer``).
        auth_values = [v for k, v in r.headers.items() if k in ("x-api-key", "authorization")]
        assert any(api_key in v for v in auth_values)
        assert api_key not in r.non_auth_text()
        assert api_key not in r.raw_body.decode()
    for m in finals:
        assert api_key not in json.dumps(m)
    assert "[redacted]" in finals[4]["errorMessage"]
    assert p.last_error is not None and api_key not in p.last_error.message
    assert api_key not in caplog.text
    assert api_key not in repr(p)


@pytest.mark.asyncio
async def test_ping_and_unknown_blocks_are_ignored(fake_anthropic: FakeAnthropicServer, api_key: str) -> None:
    def steps(request: fa.RecordedRequest, message_id: str) -> list[fa.Step]:
        start = {
            "type": "message_start",
            "message": {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": "m",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 3, "output_tokens": 1},
            },
        }
        return [
            fa.Sse("message_start", start),
            fa.Sse("ping", {"type": "ping"}),
            fa.Sse(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {
                        "type": "server_tool_use",
                        "id": "srv_1",
                        "name": "web_search",
                        "input": {},
                    },
                },
            ),
            fa.Sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
            fa.Sse("ping", {"type": "ping"}),
            fa.Sse(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 1,
                    "content_block": {"type": "redacted_thinking", "data": "ENCRYPTED"},
                },
            ),
            fa.Sse("content_block_stop", {"type": "content_block_stop", "index": 1}),
            fa.Sse(
                "content_block_start",
                {"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}},
            ),
            fa.Sse(
                "content_block_delta",
                {"type": "content_block_delta", "index": 2, "delta": {"type": "text_delta", "text": "hi"}},
            ),
            fa.Sse("content_block_stop", {"type": "content_block_stop", "index": 2}),
            fa.Sse(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": 5, "input_tokens": 4},
                },
            ),
            fa.Sse("message_stop", {"type": "message_stop"}),
        ]

    fake_anthropic.enqueue(fa.StreamReply(steps))
    message = final(await run(provider(fake_anthropic, api_key), request()))
    assert message["content"] == [
        {
            "type": "thinking",
            "thinking": "[Reasoning redacted]",
            "thinkingSignature": "ENCRYPTED",
            "redacted": True,
        },
        {"type": "text", "text": "hi"},
    ]
    assert message["usage"]["input"] == 4 and message["usage"]["output"] == 5  # message_delta totals win


@pytest.mark.asyncio
async def test_unknown_model_costs_nothing(fake_anthropic: FakeAnthropicServer, api_key: str) -> None:
    fake_anthropic.enqueue(fa.text(usage=Usage(input=1000, output=1000)))
    message = final(await run(provider(fake_anthropic, api_key, "local-llama"), request()))
    assert message["model"] == "local-llama" and message["usage"]["cost"]["total"] == 0
    assert fake_anthropic.last_request.json["model"] == "local-llama"


@pytest.mark.asyncio
async def test_warm_up_needs_no_network() -> None:
    prov._WARM = False
    spent = await prov.warm_up()
    assert spent > 0
    assert await prov.warm_up() == 0.0


def test_provider_satisfies_the_protocol(api_key: str) -> None:
    from desktop_app.llm.protocol import Provider

    p = AnthropicProvider(api_key)
    assert isinstance(p, Provider)
    assert p.model.id == catalog.DEFAULT_MODEL_ID
    assert p.with_model("claude-haiku-4-5").model.id == "claude-haiku-4-5"


def test_retry_after_parsing() -> None:
    assert prov._retry_after({"retry-after": "12"}) == 12.0
    assert prov._retry_after({"retry-after": "1.5"}) == 1.5
    assert prov._retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert prov._retry_after({}) is None
    assert prov._retry_after({"retry-after": "soon"}) is None
    future = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 30))
    delay = prov._retry_after({"retry-after": future})
    assert delay is not None and 25 <= delay <= 31


# ============================================================================== catalog, cost, keys


def test_catalog_entries() -> None:
    ids = [m.id for m in catalog.list_models("anthropic")]
    for model_id in ("claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5", "claude-3-5-haiku-latest"):
        assert model_id in ids
    sonnet = catalog.get_model("claude-sonnet-4-5")
    assert (sonnet.context_window, sonnet.max_output, sonnet.reasoning) == (200_000, 64_000, True)
    assert (sonnet.cost_input, sonnet.cost_output, sonnet.cost_cache_read, sonnet.cost_cache_write) == (
        3,
        15,
        0.3,
        3.75,
    )
    assert sonnet.api == "anthropic-messages" and sonnet.provider == "anthropic" and "image" in sonnet.input
    opus = catalog.get_model("claude-opus-4-1")
    assert (opus.cost_input, opus.cost_output, opus.cost_cache_read, opus.cost_cache_write) == (
        15,
        75,
        1.5,
        18.75,
    )
    assert catalog.get_model("claude-3-5-haiku-latest").reasoning is False
    offline = catalog.get_model("offline")
    assert offline.provider == "arbor" and offline.context_window == 200_000 and offline.cost_input == 0
    assert isinstance(sonnet, ModelInfo)


def test_catalog_lookup_fallbacks() -> None:
    dated = catalog.get_model("claude-haiku-4-5-20251001")
    assert dated.id == "claude-haiku-4-5-20251001" and dated.cost_input == 1 and not dated.unknown
    unknown = catalog.get_model("claude-future-9")
    assert (
        unknown.unknown
        and unknown.context_window == 200_000
        and unknown.cost_output == 0
        and unknown.reasoning
    )
    local = catalog.get_model("qwen-coder")
    assert local.unknown and not local.reasoning and local.api == "anthropic-messages"


def test_cost_formula_matches_pi() -> None:
    usage: dict[str, Any] = {
        "input": 1_000_000,
        "output": 1_000_000,
        "cacheRead": 1_000_000,
        "cacheWrite": 1_000_000,
    }
    result = catalog.cost(usage, catalog.get_model("claude-haiku-4-5"))
    assert result == {"input": 1.0, "output": 5.0, "cacheRead": 0.1, "cacheWrite": 1.25, "total": 7.35}
    assert usage["cost"] is result
    assert catalog.cost({"input": 10}, catalog.get_model("offline"))["total"] == 0


def test_key_lookup_order(monkeypatch: pytest.MonkeyPatch) -> None:
    import keyring

    calls: list[tuple[str, str]] = []

    def fake_get(service: str, user: str) -> str | None:
        calls.append((service, user))
        return " sk-ant-from-keyring-123456789 "

    monkeypatch.setattr(keyring, "get_password", fake_get)
    assert keys.get_api_key({"ANTHROPIC_API_KEY": "sk-env"}) == "sk-env"
    assert calls == []
    assert keys.get_api_key({"ANTHROPIC_API_KEY": "  "}) == "sk-ant-from-keyring-123456789"
    assert calls == [("arbor", "anthropic")]
    assert keys.get_api_key({}, use_keyring=False) is None


def test_keyring_failures_are_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    import keyring

    def broken(service: str, user: str) -> str | None:
        raise RuntimeError("no backend")

    monkeypatch.setattr(keyring, "get_password", broken)
    assert keys.get_api_key({}) is None
    monkeypatch.setattr(keyring, "get_password", lambda s, u: None)
    assert keys.get_api_key({}) is None


def test_redact() -> None:
    key = "my-private-key-123"
    assert keys.redact(f"bad key {key}!", key) == "bad key [redacted]!"
    assert (
        keys.redact("Authorization: Bearer sk-ant-api03-abcdefghijkl_MNOP-qrs")
        == "Authorization: Bearer [redacted]"
    )
    assert keys.redact("nothing here", None) == "nothing here"
