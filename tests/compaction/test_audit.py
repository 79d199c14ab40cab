"""Compaction audits and branch-summary info against real sessions and pi's context rule (no Qt)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from desktop_app.compaction.audit import SPLIT_TURN_MARKER, audit_compaction, branch_summary_info
from desktop_app.compaction.prepare import compaction_boundaries
from desktop_app.session import SessionManager, build_session_context
from desktop_app.session.context import compaction_summary_message, context_message
from desktop_app.session.profile import PI_0_73_1, PI_1_6_0
from tests.present.builders import index_of, msg, other
from tests.ui.conformance_cases import CASES, FIXTURES, open_copy

OpenCase = Callable[[str], SessionManager]


@pytest.fixture
def open_case(tmp_path: Path) -> OpenCase:
    """Open a copy of a conformance case by name (the copy lives in the test's tmp_path)."""
    return lambda case: open_copy(case, tmp_path)

COMPACTION_CASES = [c for c in CASES if '"type":"compaction"' in (FIXTURES / f"{c}.jsonl").read_text("utf-8")]


def test_there_are_real_compactions_to_audit() -> None:
    assert len(COMPACTION_CASES) >= 30


@pytest.mark.parametrize("case", COMPACTION_CASES)
def test_bands_are_what_pi_summarized_and_kept(case: str, open_case: OpenCase) -> None:
    manager = open_case(case)
    index = manager.index
    entries = manager.get_entries()
    compactions = [i for i, e in index.by_id.items() if e.get("type") == "compaction"]
    assert compactions
    for cid in compactions:
        audit = audit_compaction(index, cid, PI_0_73_1)  # the 0.73.1 corpus, by 0.73.1's rule
        path = index.get_branch(cid)
        ci = len(path) - 1
        ids = [e["id"] for e in path]
        first_kept = path[ci].get("firstKeptEntryId")
        k = ids.index(first_kept) if first_kept in ids[:ci] else -1
        assert audit.first_kept_found == (k >= 0)
        assert list(audit.kept_ids) == (ids[k:ci] if k >= 0 else [])
        assert not set(audit.summarized_ids) & set(audit.kept_ids)

        # The range starts at pi's previous-compaction boundary (the compaction engine's rule).
        start = compaction_boundaries(path[:ci]).start
        cut = k if k >= 0 else ci
        assert list(audit.summarized_ids) == ids[start:cut]
        assert audit.cut_before_id == ids[cut]
        assert audit.cut_after_id == (ids[cut - 1] if cut > 0 else None)

        # Cross-check with the context at the compaction: summary, then exactly the kept messages.
        context = build_session_context(entries, cid, index).messages
        assert context[0] == compaction_summary_message(path[ci])
        kept_messages = [m for e in path[k:ci] if (m := context_message(e)) is not None] if k >= 0 else []
        assert context[1:] == kept_messages
        in_context = {id(m) for m in context}
        for entry in path[start:cut]:  # nothing summarized reaches the model verbatim
            if entry.get("type") == "message":
                assert id(entry["message"]) not in in_context

        summary = path[ci].get("summary") or ""
        assert audit.summary == summary
        assert audit.is_split_turn == (SPLIT_TURN_MARKER in summary)
        from_hook = path[ci].get("fromHook")
        assert audit.from_hook == (from_hook if isinstance(from_hook, bool) else None)
        details = path[ci].get("details")
        if isinstance(details, dict) and isinstance(details.get("readFiles"), list):
            assert list(audit.read_files) == details["readFiles"]
            assert list(audit.modified_files) == details.get("modifiedFiles", [])


def test_first_kept_missing_keeps_nothing() -> None:
    entries = [
        msg("u1", None, "user", "a"),
        msg("a1", "u1", "assistant", "b"),
        other("compaction", "c1", "a1", summary="S", firstKeptEntryId="nope", tokensBefore=1000),
        msg("u2", "c1", "user", "c"),
    ]
    audit = audit_compaction(index_of(entries), "c1")
    assert not audit.first_kept_found
    assert audit.kept_ids == () and audit.summarized_ids == ("u1", "a1")
    assert audit.from_hook is None and audit.made_by == "pi 0.73.1 or earlier"


def test_second_compaction_starts_at_the_previous_kept_boundary() -> None:
    entries = [
        msg("u1", None, "user", "1"),
        msg("a1", "u1", "assistant", "1"),
        msg("u2", "a1", "user", "2"),
        msg("a2", "u2", "assistant", "2"),
        other(
            "compaction", "c1", "a2", summary="S1", firstKeptEntryId="u2", tokensBefore=4000, fromHook=False
        ),
        msg("u3", "c1", "user", "3"),
        msg("a3", "u3", "assistant", "3"),
        msg("u4", "a3", "user", "4"),
        msg("a4", "u4", "assistant", "4"),
        other(
            "compaction",
            "c2",
            "a4",
            summary=f"S2\n\n{SPLIT_TURN_MARKER}\nx",
            firstKeptEntryId="a3",
            tokensBefore=5000,
            details={"readFiles": ["a.py"], "modifiedFiles": ["b.py"]},
            fromHook=True,
        ),
    ]
    index = index_of(entries)
    first = audit_compaction(index, "c1", PI_0_73_1)
    assert first.summarized_ids == ("u1", "a1") and first.kept_ids == ("u2", "a2")
    second = audit_compaction(index, "c2", PI_0_73_1)
    assert second.previous_compaction_id == "c1"
    assert second.summarized_ids == ("u2", "a2", "c1", "u3")  # 0.73.1: what c1 kept is summarized now
    assert second.kept_ids == ("a3", "u4", "a4")
    assert second.is_split_turn and second.from_hook is True and second.made_by == "an extension (fromHook)"
    assert second.read_files == ("a.py",) and second.modified_files == ("b.py",)
    with pytest.raises(ValueError):
        audit_compaction(index, "u1")
    # pi 1.6.0 plans from just after c1 on the projection: c1 itself is not summarized again.
    newer = audit_compaction(index, "c2", PI_1_6_0)
    assert newer.summarized_ids == ("u2", "a2", "u3") and newer.kept_ids == ("a3", "u4", "a4")


def test_pi_branch_summaries_say_abandoned_unknown(open_case: OpenCase) -> None:
    manager = open_case("gen-0003")
    summaries = [i for i, e in manager.index.by_id.items() if e.get("type") == "branch_summary"]
    assert summaries
    for entry_id in summaries:
        info = branch_summary_info(manager.index, entry_id)
        assert not info.abandoned_known and info.abandoned_text == "abandoned branch unknown"


def test_arbor_branch_summary_names_the_abandoned_leaf(open_case: OpenCase) -> None:
    manager = open_case("gen-0009")
    abandoned = manager.leaf_id
    target = manager.get_branch()[2]["id"]
    summary_id = manager.branch_with_summary(
        target, "explored something", {"readFiles": [], "modifiedFiles": []}
    )
    info = branch_summary_info(manager.index, summary_id)
    assert info.abandoned_leaf_id == abandoned and info.abandoned_known


def _made_by(**changes: object) -> str:
    from dataclasses import replace

    from desktop_app.compaction.audit import CompactionAudit

    base = CompactionAudit(
        compaction_id="c", summary="## Goal\nx", tokens_before=1, first_kept_entry_id="k", first_kept_found=True,
        summarized_ids=(), kept_ids=(), cut_after_id=None, cut_before_id=None, previous_compaction_id=None,
        read_files=(), modified_files=(), is_split_turn=False, from_hook=False,
    )
    return replace(base, **changes).made_by  # type: ignore[arg-type]


def test_made_by_says_which_pi_arbor_or_an_extension_wrote_the_summary() -> None:
    from desktop_app.llm.offline_summary import OFFLINE_SUMMARY_NOTICE

    assert _made_by() == "pi 0.73.1"
    assert _made_by(from_hook=None) == "pi 0.73.1 or earlier"
    assert _made_by(from_hook=True) == "an extension (fromHook)"
    assert _made_by(summary=OFFLINE_SUMMARY_NOTICE + "\n\n## Goal") == "Arbor (offline summary)"
    assert _made_by(usage_recorded=True) == "pi 1.6.0"
    assert _made_by(system_message={"role": "system", "content": "x"}) == "pi 1.6.0"
    assert _made_by(keeps_nothing=True) == "pi 1.6.0"
