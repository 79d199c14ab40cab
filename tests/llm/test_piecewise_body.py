"""A summarizer's request given as text pieces (issue 28) goes out byte for byte as the SDK sends the
same request with its text joined, through the SDK's own stream (events, errors), never chunked."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_app.llm import catalog
from desktop_app.llm.anthropic import AnthropicErrorEvent, AnthropicProvider, build_body
from desktop_app.llm.messages import user_text_message
from desktop_app.llm.model import LLMRequest, Purpose, TextPieces
from desktop_app.llm.protocol import Done, StreamEvent, TextDelta
from tests.fakes import FakeAnthropicServer
from tests.fakes import anthropic_server as fa

# Every kind of character the encoder treats apart: quotes, backslashes, controls, newlines, Latin-1,
# a dash beyond it, an emoji, a lone surrogate (dropped, as pi's sanitizeSurrogates does), and a
# surrogate pair split across two pieces (both halves dropped either way).
PIECES = (
    "<conversation>\n",
    "[User]: ",
    'say "hi" \\ now\ttab\x00\x1f\x7f',
    "\n\n",
    "[Assistant]: ",
    "café — 😀 done\u2028\u2029",
    "lone \ud800 surrogate",
    "split \ud83d",
    "\ude00 pair",
    "\n</conversation>\n\n",
    "Summarize.",
)
TOOLS = [{"name": "read", "description": "Read a file", "parameters": {"properties": {"path": {}}, "required": []}}]


def _requests(reasoning: str | None, tools: Any) -> tuple[LLMRequest, LLMRequest]:
    options: dict[str, Any] = {"max_tokens": 1234, "reasoning": reasoning, "tools": tools, "purpose": Purpose.COMPACTION}
    piecewise = LLMRequest("You summarize. — é", [], text_pieces=TextPieces(lambda: iter(PIECES)), **options)
    joined = LLMRequest("You summarize. — é", [user_text_message("".join(PIECES))], **options)
    return piecewise, joined


async def _run(provider: AnthropicProvider, request: LLMRequest) -> list[StreamEvent]:
    return [event async for event in provider.stream(request)]


@pytest.mark.asyncio
async def test_pieces_are_sent_as_the_sdk_sends_the_joined_text(fake_anthropic: FakeAnthropicServer, api_key: str) -> None:
    cases = [  # (provider options, reasoning, tools)
        ({}, None, None),
        ({"cache": False}, "high", TOOLS),
        ({"adaptive_thinking": True}, "medium", None),
    ]
    for options, reasoning, tools in cases:
        provider = AnthropicProvider(api_key, base_url=fake_anthropic.base_url, **options)
        piecewise, joined = _requests(reasoning, tools)
        assert build_body(joined, provider.model) is None  # an ordinary request goes the ordinary way
        sent = []
        for req in (piecewise, joined):
            fake_anthropic.enqueue(fa.text("## Goal\nSummarized.", chunk=5))
            events = await _run(provider, req)
            assert isinstance(events[-1], Done), events[-1]
            assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "## Goal\nSummarized."
            sent.append(fake_anthropic.last_request)
        new, old = sent
        assert new.raw_body == old.raw_body, (options, reasoning)
        assert new.json["messages"][0]["content"][0]["text"] == "".join(PIECES).replace("\ud800", "").replace(
            "\ud83d", ""
        ).replace("\ude00", "")
        for name in ("content-type", "content-length", "transfer-encoding", "anthropic-version",
                     "x-stainless-helper-method", "x-stainless-stream-helper", "accept"):
            assert new.header(name) == old.header(name), name
        assert new.header("content-length") == str(len(new.raw_body)) and new.header("transfer-encoding") is None
        await provider.aclose()


@pytest.mark.asyncio
async def test_piecewise_errors_are_the_providers_errors(fake_anthropic: FakeAnthropicServer, api_key: str) -> None:
    provider = AnthropicProvider(api_key, base_url=fake_anthropic.base_url)
    fake_anthropic.enqueue(fa.overloaded(retry_after=3))
    events = await _run(provider, _requests(None, None)[0])
    error = events[-1]
    assert isinstance(error, AnthropicErrorEvent)
    assert (error.status, error.retry_after) == (529, 3.0)
    assert error.message["errorMessage"].startswith("529 overloaded_error")
    await provider.aclose()


def test_blank_pieces_go_the_ordinary_way_and_messages_join_on_read() -> None:
    model = catalog.get_model("claude-sonnet-4-5")
    blank = LLMRequest(None, [], text_pieces=(" ", "\n\t", ""))
    assert build_body(blank, model) is None
    request = _requests(None, None)[0]
    assert request.messages[0]["content"] == [{"type": "text", "text": "".join(PIECES)}]
    assert request.messages is request.messages  # joined once
