"""Fixtures for the chat panel tests: conformance sessions and hand-made messages of every kind."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from typing import Any  # noqa: E402

from ..conformance_cases import CASES, FIXTURES, open_copy  # noqa: E402, F401  (re-exported)


def usage(total: int = 1500) -> dict[str, Any]:
    return {
        "input": total - 500,
        "output": 500,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": total,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


def assistant(content: list[dict[str, Any]], stop: str = "stop", error: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "assistant",
        "content": content,
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "usage": usage(),
        "stopReason": stop,
        "timestamp": 1_760_000_000_000,
    }
    if error is not None:
        message["errorMessage"] = error
    return message


def every_kind() -> list[dict[str, Any]]:
    """One message of each kind the chat shows, plus a hidden custom message."""
    ts = 1_760_000_000_000
    return [
        {
            "role": "compactionSummary",
            "summary": "## Goal\nShip the **chat**.",
            "tokensBefore": 123456,
            "timestamp": ts,
        },
        {"role": "branchSummary", "summary": "Tried `sqlite`; abandoned.", "fromId": "abc", "timestamp": ts},
        {"role": "user", "content": [{"type": "text", "text": "Fix the *parser*, please."}], "timestamp": ts},
        assistant(
            [
                {"type": "thinking", "thinking": "**Plan**: read the parser first."},
                {
                    "type": "text",
                    "text": "Reading it.\n\n```python\ndef parse(x):\n    return x  # TODO\n```",
                },
                {"type": "toolCall", "id": "t1", "name": "read", "arguments": {"path": "src/parser.py"}},
            ],
            stop="toolUse",
        ),
        {
            "role": "toolResult",
            "toolCallId": "t1",
            "toolName": "read",
            "content": [{"type": "text", "text": "def parse(x):\n    return x\n"}],
            "isError": False,
            "timestamp": ts,
        },
        {
            "role": "bashExecution",
            "command": "pytest -q",
            "output": "3 passed",
            "exitCode": 0,
            "cancelled": False,
            "truncated": False,
            "timestamp": ts,
        },
        {
            "role": "custom",
            "customType": "note",
            "content": "A visible note",
            "display": True,
            "timestamp": ts,
        },
        {"role": "custom", "customType": "secret", "content": "hidden", "display": False, "timestamp": ts},
        assistant([{"type": "text", "text": "Half an ans"}], stop="aborted", error="Request was aborted"),
        assistant([], stop="error", error="429 rate_limit_error: slow down"),
    ]
