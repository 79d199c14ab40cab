"""A summarization request's text is made once (issue 28): at 100,000 entries a first compaction's
transcript is ~44 million characters, and every copy of it held at once is ~90 MB."""

from __future__ import annotations

import json
import sys
import tracemalloc
from typing import Any

from desktop_app.compaction.serialize import serialize_conversation, serialized_pieces
from desktop_app.compaction.summarize import conversation_block, summary_request
from desktop_app.llm.anthropic import AnthropicProvider, build_body
from desktop_app.llm.testing import RecordingProvider
from desktop_app.session.context import convert_to_llm
from desktop_app.session.profile import PI_0_73_1, PI_1_6_0

from .builders import assistant, tool_call, tool_result, user


def _conversation(turns: int = 300) -> list[dict[str, Any]]:
    text = "a long line of prose — with a dash that makes every string two bytes a character " * 12
    messages: list[dict[str, Any]] = []
    for n in range(turns):
        messages.append(user(f"{n}: {text}"))
        messages.append(assistant(text, tool_calls=[tool_call("read", f"c{n}", path=f"/src/{n}.py")]))
        messages.append(tool_result(text, f"c{n}"))
    return messages


def test_the_pieces_join_into_the_transcript() -> None:
    messages = _conversation(20)
    for profile in (PI_0_73_1, PI_1_6_0):
        llm = convert_to_llm(messages, profile)
        assert "".join(serialized_pieces(llm, profile)) == serialize_conversation(llm, profile)
        assert serialize_conversation(llm, profile).startswith("[User]: 0: a long line")
    assert "".join(serialized_pieces([])) == ""


def test_the_request_text_is_made_once() -> None:
    """While the request is built, Python holds little more than the request's own text: not the
    transcript's parts, the transcript and the tagged block besides."""
    messages = _conversation()
    provider = RecordingProvider()
    summary_request(messages, provider, 16_384, previous_summary="earlier", custom_instructions="focus")  # warm
    tracemalloc.start()
    try:
        request = summary_request(messages, provider, 16_384, previous_summary="earlier", custom_instructions="focus")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    text = request.messages[0]["content"][0]["text"]
    assert text.startswith(conversation_block(messages)) and text.endswith("focus")
    size = sys.getsizeof(text)
    assert size > 1_000_000
    assert peak < 1.3 * size, (peak, size)  # 2.0× before


def test_the_request_body_is_encoded_piece_by_piece() -> None:
    """Building the request and its Anthropic body holds the body and little else: never the joined
    text (2 bytes a character here, for one dash), its escaped copy or the JSON text (≥ 4× the body
    together, the SDK's way). The body is byte for byte the SDK's (tests/llm/test_piecewise_body.py)."""
    messages = _conversation()
    provider = AnthropicProvider("sk-ant-test", model_id="claude-sonnet-4-5")
    build_body(summary_request(messages, provider, 16_384, previous_summary="earlier"), provider.model)  # warm
    tracemalloc.start()
    try:
        request = summary_request(messages, provider, 16_384, previous_summary="earlier", custom_instructions="focus")
        body = build_body(request, provider.model)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert body is not None and len(body) > 500_000
    text = request.messages[0]["content"][0]["text"]
    assert text.startswith(conversation_block(messages)) and text.endswith("focus")
    assert json.loads(body)["messages"][0]["content"][0]["text"] == text
    assert sys.getsizeof(text) > 1.9 * len(body)  # the joined text alone would be twice the body
    assert peak < 1.3 * len(body), (peak, len(body))
