"""``arbor inspect``'s compaction section reads a target's entry messages once for all its cuts (issue 23):
pi 1.6.0's cut rules weigh every entry's messages, and a target is cut at five budgets (ten with a
compaction on the path)."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_app.compaction import cut_points
from desktop_app.compaction.report import KEEP_BUDGETS, compaction_target_report
from desktop_app.session.profile import PI_0_73_1, PI_1_6_0
from desktop_app.session.tree import SessionIndex

T = "2026-01-01T00:00:00.000Z"


def _entries(n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for k in range(n):
        role = "user" if k % 2 == 0 else "assistant"
        content: Any = f"m{k} " * 20 if role == "user" else [{"type": "text", "text": f"a{k} " * 20}]
        message = {"role": role, "content": content, "timestamp": k}
        out.append({"type": "message", "id": f"e{k}", "parentId": f"e{k - 1}" if k else None, "timestamp": T, "message": message})
    out.append({"type": "compaction", "id": "c", "parentId": f"e{n - 1}", "timestamp": T, "summary": "s",
                "firstKeptEntryId": f"e{n // 2}", "tokensBefore": 9})
    out.extend(
        {"type": "message", "id": f"f{k}", "parentId": "c" if k == 0 else f"f{k - 1}", "timestamp": T,
         "message": {"role": "user", "content": f"after {k}", "timestamp": n + k}}
        for k in range(6)
    )
    return out


def test_a_targets_cuts_read_its_entry_messages_once(monkeypatch: pytest.MonkeyPatch) -> None:
    entries = _entries(80)
    index = SessionIndex.build(entries)
    reads = 0
    read = cut_points.entry_context_messages

    def counted(entry: Any, **kwargs: Any) -> Any:
        nonlocal reads
        reads += 1
        return read(entry, **kwargs)

    monkeypatch.setattr(cut_points, "entry_context_messages", counted)
    report = compaction_target_report(index, "f5", "leaf", PI_1_6_0)
    assert len(report["cut"]) == len(report["cut_from_0"]) == len(KEEP_BUDGETS)  # ten cuts
    assert all("error" not in cut for cut in [*report["cut"].values(), *report["cut_from_0"].values()])
    path_length = len(report["path"])
    assert reads < 2 * path_length, reads  # once for all ten cuts (was once per cut), and the turn starts
    monkeypatch.setattr(cut_points, "entry_context_messages", read)
    assert compaction_target_report(index, "f5", "leaf", PI_1_6_0) == report


def test_pi_0_73_1_cuts_never_read_entry_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    index = SessionIndex.build(_entries(10))

    def refused(entry: Any, **kwargs: Any) -> Any:
        raise AssertionError("0.73.1's cut rules weigh message entries only")

    monkeypatch.setattr(cut_points, "entry_context_messages", refused)
    report = compaction_target_report(index, "f5", "leaf", PI_0_73_1)
    assert all("error" not in cut for cut in report["cut"].values())
