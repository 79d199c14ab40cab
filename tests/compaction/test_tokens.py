"""pi's token accounting: JavaScript string lengths and JSON, usage arithmetic, thresholds, overflow."""

from __future__ import annotations

import math
from typing import Any

import pytest

from desktop_app.compaction.tokens import (
    CompactionSettings,
    calculate_context_tokens,
    estimate_context_tokens,
    estimate_tokens,
    get_last_assistant_usage,
    is_context_overflow,
    should_compact,
)
from desktop_app.session.profile import PI_0_73_1 as OLD

from .builders import assistant, tool_call, tool_result, user

IMAGE = {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"}


# ----------------------------------------------------------------------------------- estimate_tokens


def test_user_text_counts_utf16_units() -> None:
    assert estimate_tokens({"role": "user", "content": "abcd"}, profile=OLD) == 1
    assert estimate_tokens({"role": "user", "content": "abcde"}, profile=OLD) == 2  # ceil
    # one emoji is two UTF-16 units: 4 emoji = 8 units = 2 tokens (Python's len() would say 1)
    assert estimate_tokens({"role": "user", "content": "😀😀😀😀"}, profile=OLD) == 2
    assert estimate_tokens({"role": "user", "content": "日本"}, profile=OLD) == 1


def test_user_images_count_nothing_but_tool_result_images_count_4800_chars() -> None:
    assert estimate_tokens({"role": "user", "content": [IMAGE, {"type": "text", "text": "abcd"}]}, profile=OLD) == 1
    result = tool_result("abcd")
    result["content"].append(IMAGE)
    assert estimate_tokens(result, profile=OLD) == math.ceil((4 + 4800) / 4)
    custom = {"role": "custom", "customType": "x", "content": [IMAGE, IMAGE], "display": True}
    assert estimate_tokens(custom, profile=OLD) == 2400


def test_only_truthy_text_blocks_count_for_tool_results() -> None:
    message = {
        "role": "toolResult",
        "content": [{"type": "text", "text": ""}, {"type": "text"}, {"type": "text", "text": "abcdefgh"}],
    }
    assert estimate_tokens(message, profile=OLD) == 2
    assert estimate_tokens({"role": "custom", "content": "x" * 9}, profile=OLD) == 3


def test_tool_call_arguments_are_measured_as_javascript_json() -> None:
    call = tool_call("read", path="x.ts", offset=1.0, limit=1e21)
    js = '{"path":"x.ts","offset":1,"limit":1e+21}'  # JSON.stringify; Python would print 1.0 and 1e+21
    assert estimate_tokens(assistant("", tool_calls=[call]), profile=OLD) == math.ceil((len("read") + len(js)) / 4)
    tiny = {"type": "toolCall", "id": "t", "name": "g", "arguments": {"a": -0.0, "b": 1e-7, "c": "é😀"}}
    js = '{"a":0,"b":1e-7,"c":"é😀"}'  # -0 → 0, 1e-7 not 1e-07, non-ASCII raw (emoji = 2 units)
    assert estimate_tokens(assistant("", tool_calls=[tiny]), profile=OLD) == math.ceil((1 + len(js) + 1) / 4)
    # {"a":1,"bb":"xxxxx"} is 20 units → (4 + 20) / 4 = 6; Python's json.dumps prints 1.0 (22 → 7)
    exact = tool_call("abcd", a=1.0, bb="x" * 5)
    assert estimate_tokens(assistant("", tool_calls=[exact]), profile=OLD) == 6


def test_assistant_counts_text_thinking_and_calls() -> None:
    message = assistant("abcd", thinking="efgh", tool_calls=[tool_call("ls")])
    assert estimate_tokens(message, profile=OLD) == math.ceil((4 + 4 + 2 + 2) / 4)
    redacted = {"role": "assistant", "content": [{"type": "redacted_thinking", "data": "x" * 400}]}
    assert estimate_tokens(redacted, profile=OLD) == 0


def test_other_roles() -> None:
    assert estimate_tokens({"role": "bashExecution", "command": "ls", "output": "ab"}, profile=OLD) == 1
    assert estimate_tokens({"role": "compactionSummary", "summary": "x" * 8, "tokensBefore": 1}, profile=OLD) == 2
    assert estimate_tokens({"role": "branchSummary", "summary": "x" * 9, "fromId": "a"}, profile=OLD) == 3
    assert estimate_tokens({"role": "somethingNew", "content": "x" * 100}, profile=OLD) == 0


# ----------------------------------------------------------------------------------- usage


def test_calculate_context_tokens_follows_js_arithmetic() -> None:
    assert (
        calculate_context_tokens(
            {"totalTokens": 42, "input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0}
        )
        == 42
    )
    full = {"totalTokens": 0, "input": 1, "output": 2, "cacheRead": 3, "cacheWrite": 4}
    assert calculate_context_tokens(full) == 10  # 0 is falsy: falls back to the sum
    assert math.isnan(calculate_context_tokens({"input": 5, "output": 5, "cacheRead": 5}))  # undefined → NaN
    assert (
        calculate_context_tokens({"input": 5, "output": 5, "cacheRead": 5, "cacheWrite": None}) == 15
    )  # null → 0


def test_last_assistant_usage_skips_aborted_and_error() -> None:
    good = assistant("a", usage_total=100)
    entries: list[dict[str, Any]] = [
        {"type": "message", "message": good},
        {"type": "message", "message": assistant("b", usage_total=200, stop="aborted")},
        {"type": "message", "message": assistant("c", usage_total=300, stop="error")},
        {"type": "compaction", "summary": "s"},
    ]
    assert get_last_assistant_usage(entries, profile=OLD) is good["usage"]
    assert get_last_assistant_usage([], profile=OLD) is None


def test_estimate_context_tokens_uses_last_usage_plus_trailing_estimates() -> None:
    messages = [user("x" * 40), assistant("y" * 8, usage_total=500), user("z" * 40), tool_result("w" * 8)]
    estimate = estimate_context_tokens(messages, profile=OLD)
    assert (estimate.tokens, estimate.usage_tokens, estimate.trailing_tokens, estimate.last_usage_index) == (
        500 + 10 + 2,
        500,
        12,
        1,
    )
    plain = estimate_context_tokens([user("x" * 40), assistant("y" * 8, stop="error")], profile=OLD)
    assert plain.to_json() == {"tokens": 12, "usageTokens": 0, "trailingTokens": 12, "lastUsageIndex": None}


def test_should_compact_threshold_and_disabled() -> None:
    settings = CompactionSettings()
    assert not should_compact(183_616, 200_000, settings)
    assert should_compact(183_617, 200_000, settings)
    assert not should_compact(10**9, 200_000, CompactionSettings(enabled=False))
    assert not should_compact(float("nan"), 200_000, settings)
    assert settings.to_json() == {"enabled": True, "reserveTokens": 16384, "keepRecentTokens": 20000}


# ----------------------------------------------------------------------------------- overflow

OVERFLOW_TEXTS = [
    "prompt is too long: 213462 tokens > 200000 maximum",
    "request_too_large",
    "Input is too long for requested model.",
    "Your input exceeds the context window of this model",
    "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)",
    "This model's maximum prompt length is 131072 but the request contains 537812 tokens",
    "Please reduce the length of the messages or completion.",
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000",
    "Requested 220000 tokens; exceeds the limit of 200000",
    "the request exceeds the available context size, try increasing it",
    "prompt token count is greater than the context length",
    "context window exceeds limit",
    "exceeded model token limit",
    "input too large for model with 32768 maximum context length",
    "model_context_window_exceeded",
    "prompt too long; exceeded max context length by 2000 tokens",
    "prompt too long; exceeded context length",
    "context_length_exceeded",
    "Context length exceeded",
    "too many tokens in request",
    "token limit exceeded",
    "400 status code (no body)",
    "413 (no body)",
]


@pytest.mark.parametrize("text", OVERFLOW_TEXTS)
def test_overflow_error_texts(text: str) -> None:
    message = assistant("", stop="error")
    message["errorMessage"] = text
    assert is_context_overflow(message, 200_000)
    assert is_context_overflow(message)  # the text alone decides; no window needed


@pytest.mark.parametrize(
    "text",
    [
        "Throttling error: Too many tokens, please wait before trying again.",
        "Service unavailable: context length exceeded upstream",
        "Rate limit reached: too many tokens per minute",
        "429 Too Many Requests: token limit exceeded",
        "Internal server error",
        "500 status code (no body)",
    ],
)
def test_not_overflow_texts(text: str) -> None:
    message = assistant("", stop="error")
    message["errorMessage"] = text
    assert not is_context_overflow(message, 200_000)


def test_silent_overflow_and_length_stop() -> None:
    silent = assistant("fine")
    silent["usage"].update(input=150_000, cacheRead=60_000)
    assert is_context_overflow(silent, 200_000)
    assert not is_context_overflow(silent, 250_000)
    assert not is_context_overflow(silent)  # needs a window

    truncated = assistant("", stop="length")
    truncated["usage"].update(input=190_000, cacheRead=8_000, output=0)
    assert is_context_overflow(truncated, 200_000)  # 198,000 ≥ 0.99 × 200,000
    truncated["usage"]["output"] = 1
    assert not is_context_overflow(truncated, 200_000)
    truncated["usage"].update(output=0, input=100_000)
    assert not is_context_overflow(truncated, 200_000)

    error_without_text = assistant("", stop="error")
    assert not is_context_overflow(error_without_text, 200_000)
