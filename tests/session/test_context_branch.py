"""``get_context_branch``: the end of the branch a compaction reads. On every conformance case (pi
0.73.1's, its adversarial files and pi 1.6.0's), at every entry, it is the end of ``get_branch``, and a
compaction prepared on it is the one prepared on the whole branch (the indices it holds count from
the walk's start), under both profiles and with cuts near and far, at every compaction's boundary and
a sample of the entries between."""

from __future__ import annotations

import math
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from desktop_app.compaction.prepare import CompactionPreparation, prepare_compaction
from desktop_app.compaction.tokens import DEFAULT_COMPACTION_SETTINGS, CompactionSettings
from desktop_app.llm.estimate import estimates_remembered
from desktop_app.session import SessionManager
from desktop_app.session.entries import Entry
from desktop_app.session.profile import PI_0_73_1, PI_1_6_0, PiProfile

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CASES = sorted(
    [
        *(FIXTURES / "conformance").glob("*.jsonl"),
        *(FIXTURES / "conformance" / "adversarial").glob("*.jsonl"),
        *(FIXTURES / "conformance16" / "cases").glob("*.jsonl"),
    ]
)
SETTINGS = (DEFAULT_COMPACTION_SETTINGS, replace(DEFAULT_COMPACTION_SETTINGS, keep_recent_tokens=40))


def _prepared(path: list[Entry], settings: CompactionSettings, profile: PiProfile) -> CompactionPreparation | str | None:
    try:
        return prepare_compaction(path, settings, profile)
    except Exception as exc:  # noqa: BLE001 - pi throws on some odd files: the same error either way
        return f"{type(exc).__name__}: {exc}"


def _equal(a: Any, b: Any) -> bool:
    return bool(a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)))


def _same(whole: CompactionPreparation | str | None, tail: CompactionPreparation | str | None, offset: int) -> None:
    if not isinstance(whole, CompactionPreparation) or not isinstance(tail, CompactionPreparation):
        assert tail == whole
        return
    for name in ("first_kept_entry_id", "messages_to_summarize", "turn_prefix_messages", "is_split_turn",
                 "tokens_before", "previous_summary", "file_ops", "settings"):
        assert _equal(getattr(tail, name), getattr(whole, name)), name
    if whole.projected is not None:  # pi 1.6.0: indices into the projection, the same either way
        assert tail.projected is not None
        assert [id(p.source) for p in tail.projected] == [id(p.source) for p in whole.projected]
        assert tail.first_kept_entry_index == whole.first_kept_entry_index
    else:  # pi 0.73.1: indices into the path
        assert tail.boundary_start + offset == whole.boundary_start
        assert tail.first_kept_entry_index + offset == whole.first_kept_entry_index
        if whole.prev_compaction_index >= 0:
            assert tail.prev_compaction_index + offset == whole.prev_compaction_index


def _sampled(groups: dict[str, list[Any]]) -> list[Any]:
    """From each run of entries whose context walk starts at the same entry (one compaction's kept
    range), the first and last three and every tenth between: every boundary a compaction makes is
    compared, and a long run costs a few preparations of the whole branch, not one per entry (each
    is linear in the branch, so comparing all 644 of before-compaction.jsonl took 7 s of the suite)."""
    out: list[Any] = []
    for run in groups.values():
        out.extend(item for i, item in enumerate(run) if i < 3 or i >= len(run) - 3 or i % 10 == 0)
    return out


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_a_compaction_reads_only_the_context_branch(case: Path, tmp_path: Path) -> None:
    copy = tmp_path / case.name
    shutil.copyfile(case, copy)
    manager = SessionManager.open(str(copy), fsync=False)
    groups: dict[str, list[tuple[list[Entry], list[Entry], int]]] = {}
    for entry in manager.get_entries():
        entry_id = entry.get("id")
        if not isinstance(entry_id, str) or not entry_id:
            continue
        whole = manager.get_branch(entry_id, remember=False)
        tail = manager.get_context_branch(entry_id)
        offset = len(whole) - len(tail)
        assert offset >= 0 and all(a is b for a, b in zip(tail, whole[offset:], strict=True))
        if offset == 0:
            # the walk is the whole branch, entry for entry (just asserted): prepare_compaction
            # would read the same list twice, so there is nothing to compare (on a session without
            # compactions that was every entry, half of this test's time for large-session.jsonl)
            continue
        groups.setdefault(str(tail[0].get("id")), []).append((whole, tail, offset))
    with estimates_remembered():  # the same messages are weighed for every sample, profile and budget
        for whole, tail, offset in _sampled(groups):
            for profile in (PI_0_73_1, PI_1_6_0):
                for settings in SETTINGS:
                    _same(_prepared(whole, settings, profile), _prepared(tail, settings, profile), offset)


def test_the_walk_stops_at_the_newest_compactions_first_kept_entry(tmp_path: Path) -> None:
    copy = tmp_path / "gen-0031.jsonl"
    shutil.copyfile(FIXTURES / "conformance" / "gen-0031.jsonl", copy)
    manager = SessionManager.open(str(copy), fsync=False)
    whole, tail = manager.get_branch(), manager.get_context_branch()
    newest = next(e for e in reversed(whole) if e.get("type") == "compaction")
    assert tail[0].get("id") == newest["firstKeptEntryId"]
    assert len(tail) < len(whole)
