"""The context meter right after a compaction (issue 22 item 1): pi's footer says "?" until the next
reply reports usage; the window shows the estimate instead, marked "~"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from desktop_app.session.entries import make_header
from desktop_app.ui.testing import open_window, pump
from tests.present.builders import msg


def test_the_meter_never_shows_a_question_mark_after_a_compaction(tmp_path: Path) -> None:
    lines: list[dict[str, Any]] = [make_header("meter", str(tmp_path), "2025-01-01T00:00:00.000Z")]
    lines.append(msg("u1", None, "user", "plan the week " * 200))
    reply = msg("a1", "u1", "assistant", "a plan " * 300)
    reply["message"]["usage"] = {"input": 90_000, "output": 500, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 90_500}
    lines.append(reply)
    lines.append(msg("u2", "a1", "user", "and the next one"))
    lines.append(
        {"type": "compaction", "id": "k1", "parentId": "u2", "timestamp": "2025-01-01T00:01:00.000Z",
         "summary": "The user planned a week.", "firstKeptEntryId": "u2", "tokensBefore": 90_600}
    )
    path = tmp_path / "compacted.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    window = open_window(path, size=(1200, 800))
    try:
        assert window.session.leaf_id == "k1"
        assert window.agent.context_usage().tokens is None  # pi's answer: unknown
        pump(300)
        text = window.status.context_text()
        assert text.startswith("~") and not text.startswith("?"), text
        assert "just compacted" in window.status.meter.toolTip()
    finally:
        window.close()
        pump(50)
