"""Hand-made entries and trees for the view graph and canvas tests (no Qt)."""

from __future__ import annotations

import random
from typing import Any

import networkx as nx

from desktop_app.present.viewgraph import ViewGraph
from desktop_app.session.tree import SessionIndex

_clock = [0]


def _ts() -> str:
    _clock[0] += 1
    n = _clock[0]
    return f"2025-01-01T{n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d}.{n % 1000:03d}Z"


def msg(entry_id: str, parent: str | None, role: str, text: str = "", **extra: Any) -> dict[str, Any]:
    call = extra.pop("call", "c1")
    message: dict[str, Any] = {"role": role, "content": [{"type": "text", "text": text}] if text else []}
    if role == "assistant":
        message.update(api="anthropic-messages", provider="anthropic", model="m", stopReason="stop")
    if role == "toolResult":
        message.update(toolCallId=call, toolName="read", isError=False)
    message.update(extra)
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": _ts(), "message": message}


def tool_call_assistant(
    entry_id: str, parent: str | None, call: str = "c1", name: str = "read"
) -> dict[str, Any]:
    entry = msg(entry_id, parent, "assistant", stopReason="toolUse")
    entry["message"]["content"] = [
        {"type": "toolCall", "id": call, "name": name, "arguments": {"path": "a.py"}}
    ]
    return entry


def other(entry_type: str, entry_id: str, parent: str | None, **fields: Any) -> dict[str, Any]:
    return {"type": entry_type, "id": entry_id, "parentId": parent, "timestamp": _ts(), **fields}


def index_of(entries: list[dict[str, Any]]) -> SessionIndex:
    return SessionIndex.build(entries)


def synthetic_session(count: int, branch_rate: float = 0.03, seed: int = 7) -> list[dict[str, Any]]:
    """A long user/assistant/tool session with occasional branches from random earlier entries."""
    rng = random.Random(seed)
    entries: list[dict[str, Any]] = []
    ids: list[str] = []
    for i in range(count):
        entry_id = f"s{i:07d}"
        parent = None if i == 0 else (rng.choice(ids) if rng.random() < branch_rate else ids[-1])
        role = ("user", "assistant", "toolResult")[i % 3]
        entries.append(msg(entry_id, parent, role, f"message number {i}", call=f"c{i}"))
        ids.append(entry_id)
    return entries


def as_networkx(graph: ViewGraph) -> nx.DiGraph:
    """``graph``'s structure as a networkx graph, to check it with networkx's own algorithms."""
    out = nx.DiGraph()
    out.add_nodes_from(graph)
    out.add_edges_from(graph.edges())
    return out


def forest(*edges: tuple[str, str]) -> ViewGraph:
    """A plain forest from parent→child edges (for layouts)."""
    return ViewGraph.from_edges(edges)


def path_forest(nodes: list[str]) -> ViewGraph:
    """One chain through ``nodes``."""
    return ViewGraph.from_edges(zip(nodes, nodes[1:], strict=False), nodes)
