"""Messages and entries for compaction tests, sized in pi's estimated tokens (chars / 4)."""

from __future__ import annotations

from typing import Any

_counter = 0


def _ts() -> int:
    global _counter
    _counter += 1
    return 1_740_000_000_000 + _counter


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": _ts()}


def sized(prefix: str, tokens: int) -> str:
    """A text of exactly ``tokens`` estimated tokens (4 chars each)."""
    body = prefix + " "
    return (body * (4 * tokens // len(body) + 1))[: 4 * tokens]


def assistant(
    text: str = "ok",
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    usage_total: int | None = None,
    stop: str = "stop",
    thinking: str | None = None,
) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if thinking is not None:
        content.append({"type": "thinking", "thinking": thinking})
    if text:
        content.append({"type": "text", "text": text})
    content.extend(tool_calls or [])
    usage = {
        "input": 10,
        "output": 5,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": usage_total if usage_total is not None else 15,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }
    return {
        "role": "assistant",
        "content": content,
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "claude-x",
        "usage": usage,
        "stopReason": "toolUse" if tool_calls and stop == "stop" else stop,
        "timestamp": _ts(),
    }


def tool_call(name: str, call_id: str = "t1", **arguments: Any) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}


def tool_result(text: str, call_id: str = "t1", name: str = "read") -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "timestamp": _ts(),
    }


def entry(entry_id: str, parent: str | None, kind: str = "message", **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": kind,
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2025-03-01T10:00:00.000Z",
    }
    out.update(fields)
    return out


def chain(*items: tuple[str, str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Entries linked in order: each item is ``(id, type, fields)``; ``message`` fields hold the message."""
    out: list[dict[str, Any]] = []
    parent: str | None = None
    for entry_id, kind, fields in items:
        out.append(entry(entry_id, parent, kind, **fields))
        parent = entry_id
    return out


def msg(entry_id: str, message: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    return (entry_id, "message", {"message": message})
