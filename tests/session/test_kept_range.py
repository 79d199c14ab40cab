"""A compaction's kept range is one rule (:func:`kept_range`, issue 24 item 4), read by both ways of
building a context: along a root → leaf path (:func:`context_entries`) and walking up from the leaf
(:func:`build_session_context`, which stops early). The Hypothesis property in test_context_core.py
checks that the two agree on random trees; these cases name the rule's edges.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from desktop_app.session.context import build_session_context, context_entries, context_from_path, kept_range
from desktop_app.session.profile import PI_0_73_1, PI_1_6_0, PiProfile

PROFILES = pytest.mark.parametrize("profile", [PI_0_73_1, PI_1_6_0], ids=["pi0.73.1", "pi1.6.0"])


def _message(entry_id: Any, parent: Any, role: str = "user") -> dict[str, Any]:
    content: Any = f"said at {entry_id}" if role in ("user", "system") else [{"type": "text", "text": str(entry_id)}]
    return {
        "type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {"role": role, "content": content, "timestamp": 1},
    }


def _compaction(entry_id: Any, parent: Any, first_kept: Any) -> dict[str, Any]:
    return {
        "type": "compaction", "id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z",
        "summary": f"summary {entry_id}", "firstKeptEntryId": first_kept, "tokensBefore": 10,
    }


def _chain(*entries: dict[str, Any]) -> list[dict[str, Any]]:
    """Root → leaf: each entry's parent is the one before it."""
    parent = None
    for entry in entries:
        entry["parentId"] = parent
        parent = entry["id"]
    return list(entries)


def _ids(entries: list[dict[str, Any]]) -> list[Any]:
    return [e["id"] for e in entries]


def _both_ways(path: list[dict[str, Any]], profile: PiProfile) -> list[Any]:
    """The context's messages along the path and walking up; they must be the same."""
    along = context_from_path(path, profile=profile).messages
    walked = build_session_context(path, path[-1]["id"], profile=profile).messages
    assert walked == along
    return along


def test_the_range_reads_above_only_as_far_as_the_first_kept_entry() -> None:
    a, b, c = _message("a", None), _message("b", "a", "assistant"), _message("c", "b")
    compaction = _compaction("C", "c", "b")
    read: list[Any] = []

    def above() -> Iterator[dict[str, Any]]:
        for entry in (c, b, a):
            read.append(entry["id"])
            yield entry
        raise AssertionError("read past the root")

    assert kept_range(compaction, above()) == [c, b]  # nearest first
    assert read == ["c", "b"]


@PROFILES
def test_no_entry_with_the_first_kept_id_keeps_nothing(profile: PiProfile) -> None:
    path = _chain(_message("a", None), _message("b", None, "assistant"), _compaction("C", None, "gone"), _message("d", None))
    assert kept_range(path[2], reversed(path[:2]), profile) is None
    assert _ids(context_entries(path, profile)) == ["C", "d"]
    assert [m["role"] for m in _both_ways(path, profile)] == ["compactionSummary", "user"]


@PROFILES
def test_a_compaction_that_names_itself_keeps_nothing(profile: PiProfile) -> None:
    path = _chain(_message("a", None), _compaction("C", None, "C"), _message("d", None))
    assert _ids(context_entries(path, profile)) == ["C", "d"]
    assert len(_both_ways(path, profile)) == 2


@PROFILES
def test_ids_match_as_javascript_compares_them(profile: PiProfile) -> None:
    """``firstKeptEntryId: true`` is not the entry whose id is ``1`` (``===``), nor ``"1"``."""
    for first_kept, kept in ((1, [1, "x"]), (True, []), ("1", [])):
        path = _chain(_message(1, None), _message("x", None), _compaction("C", None, first_kept), _message("d", None))
        assert _ids(context_entries(path, profile)) == ["C", *kept, "d"]
        assert len(_both_ways(path, profile)) == 2 + len(kept)


def test_pi_1_6_0_leaves_the_ranges_system_messages_out_and_0_73_1_keeps_them() -> None:
    path = _chain(
        _message("s1", None, "system"), _message("a", None), _message("s2", None, "system"), _message("b", None, "assistant"),
        _compaction("C", None, "a"), _message("d", None),
    )
    assert _ids(kept_range(path[4], reversed(path[:4]), PI_1_6_0) or []) == ["b", "a"]
    assert _ids(kept_range(path[4], reversed(path[:4]), PI_0_73_1) or []) == ["b", "s2", "a"]
    assert _ids(context_entries(path, PI_1_6_0)) == ["C", "a", "b", "d"]
    assert _ids(context_entries(path, PI_0_73_1)) == ["C", "a", "s2", "b", "d"]
    assert [m["role"] for m in _both_ways(path, PI_1_6_0)] == ["compactionSummary", "user", "assistant", "user"]
    assert [m["role"] for m in _both_ways(path, PI_0_73_1)] == ["compactionSummary", "user", "system", "assistant", "user"]


@PROFILES
def test_only_the_newest_compaction_counts_and_an_older_one_in_its_range_adds_nothing(profile: PiProfile) -> None:
    path = _chain(
        _message("a", None), _compaction("C1", None, "a"), _message("b", None, "assistant"),
        _compaction("C2", None, "C1"), _message("d", None),
    )
    assert _ids(context_entries(path, profile)) == ["C2", "C1", "b", "d"]
    messages = _both_ways(path, profile)
    assert [m["role"] for m in messages] == ["compactionSummary", "assistant", "user"]
    assert messages[0]["summary"] == "summary C2"


@PROFILES
def test_the_model_and_thinking_level_come_from_above_the_range_when_it_has_none(profile: PiProfile) -> None:
    """The walk up goes on past the kept range (or, when the range is not found, past the
    compaction) for the nearest thinking level and model."""
    for first_kept in ("b", "gone"):
        path = _chain(
            {"type": "thinking_level_change", "id": "t", "parentId": None, "timestamp": "", "thinkingLevel": "high"},
            {"type": "model_change", "id": "m", "parentId": None, "timestamp": "", "provider": "p", "modelId": "x"},
            _message("a", None), _message("b", None), _compaction("C", None, first_kept), _message("d", None),
        )
        walked = build_session_context(path, "d", profile=profile)
        assert walked.to_json() == context_from_path(path, profile=profile).to_json()
        assert (walked.thinking_level, walked.model) == ("high", {"provider": "p", "modelId": "x"})
