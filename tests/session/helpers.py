"""Small builders shared by the session tests."""

from __future__ import annotations

from typing import Any

from desktop_app.session.entries import now_ms


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": now_ms()}


def assistant(text: str, *, stop: str = "stop", provider: str = "anthropic", model: str = "claude-x") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "api": "anthropic-messages",
        "provider": provider,
        "model": model,
        "usage": {
            "input": 10,
            "output": 5,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": 15,
            "cost": {"input": 0.00003, "output": 0.000075, "cacheRead": 0, "cacheWrite": 0, "total": 0.000105},
        },
        "stopReason": stop,
        "timestamp": now_ms(),
    }


def tool_result(call_id: str, text: str) -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": "read",
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "timestamp": now_ms(),
    }
