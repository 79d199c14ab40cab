"""Rebinding the chat to another leaf does work for the visible rows only (a virtualized list).

Structural, not timed: each rebind of 5,000 messages may build rich-text documents only for the
rows that fit on screen, however long the context is. How long a rebind takes is a benchmark
figure (``benchmarks/bench_gui.py``, target ≤ 150 ms for a branch switch), never a test bound.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from desktop_app.session import SessionManager
from desktop_app.ui.chat import ChatPanel

N = 5000


def _long_context(open_case: Callable[[str], SessionManager]) -> list[dict[str, Any]]:
    """5,000 realistic messages (copies, so no row shares a cached height with another)."""
    base: list[dict[str, Any]] = []
    for case in ("large-session", "before-compaction", "gen-0028"):
        base += open_case(case).build_session_context().messages
    return [copy.deepcopy(base[i % len(base)]) for i in range(N)]


def test_set_context_with_5000_messages_builds_only_visible_rows(
    qtbot: Any, open_case: Callable[[str], SessionManager]
) -> None:
    first = _long_context(open_case)
    second = [copy.deepcopy(m) for m in reversed(first)]
    panel = ChatPanel()
    qtbot.addWidget(panel)
    panel.resize(600, 900)
    panel.show()
    qtbot.waitExposed(panel)

    built_per_rebind = []
    for messages in (first, second, first, second, first):
        before = panel.delegate.stats["documents_built"]
        panel.set_context(messages)  # includes the layout of every row (scrollToBottom forces it)
        qtbot.wait(1)  # paint
        built_per_rebind.append(panel.delegate.stats["documents_built"] - before)
        assert panel.model.rowCount() + panel.hidden_count == N
    # A 900-pixel view shows a few dozen rows at most: only they are rendered (once; later rebinds
    # to the same messages reuse them), never all 5,000.
    assert built_per_rebind[0] > 0 and all(built <= 100 for built in built_per_rebind), built_per_rebind
    # Everything else was estimated from text length, not laid out.
    assert panel.delegate.stats["estimates"] >= N - 100
