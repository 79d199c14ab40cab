"""A cut the user chooses (issue 26): exactly pi's plan when it is the cut pi chose, clear refusals otherwise.

pi has no chosen cut, but its own answers pin the rest down: for every ``prepareCompaction`` pi 1.6.0
recorded (tests/fixtures/conformance16, each recorded leaf and budget), choosing pi's ``firstKeptEntryId`` by
hand must give pi's whole plan (split turn, tokens before, messages summarized, previous summary, file
lists), and a user summary for it must store pi's ``tokensBefore`` and file lists.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from desktop_app.compaction.manual_cut import InvalidCutError, cut_choices, cut_refusal, cut_space
from desktop_app.compaction.prepare import prepare_compaction
from desktop_app.compaction.session_ops import user_summary_result
from desktop_app.compaction.tokens import CompactionSettings
from desktop_app.session.entries import parse_session_text
from desktop_app.session.profile import PI_0_73_1, PI_1_6_0
from tests.conformance.resolve import Resolved, load_expected, normalise

CASES = Path(__file__).resolve().parent.parent / "fixtures" / "conformance16" / "cases"
SAMPLED = ("pi16-1601", "pi16-1606", "pi16-1611", "pi16-1612")  # 61 of pi's plans, 3 cut on a settings entry


@functools.cache
def _case(name: str) -> tuple[dict[str, Any], Resolved]:
    entries = parse_session_text((CASES / f"{name}.jsonl").read_text(encoding="utf-8")).objects
    by_id = {e["id"]: e for e in entries if isinstance(e, dict) and isinstance(e.get("id"), str)}
    expected = load_expected((CASES / f"{name}.expected.json").read_text(encoding="utf-8"))
    return by_id, Resolved(normalise(expected))


def test_choosing_pi_s_own_cut_gives_pi_s_whole_plan() -> None:
    checked = 0
    for name in SAMPLED:
        by_id, expected = _case(name)
        for target in expected.section("compaction"):
            path = [by_id[i] for i in target["path"]]
            for budget, plan in target["prepare"].items():
                if not isinstance(plan, dict):
                    continue
                settings = CompactionSettings(keep_recent_tokens=int(budget))
                mine = prepare_compaction(path, settings, PI_1_6_0, first_kept_entry_id=plan["firstKeptEntryId"])
                assert mine is not None, (name, target["target"], budget)
                where = (name, target["target"], budget)
                assert mine.first_kept_entry_id == plan["firstKeptEntryId"], where
                assert mine.is_split_turn == plan["isSplitTurn"], where
                assert mine.tokens_before == plan["tokensBefore"], where
                assert mine.previous_summary == plan["previousSummary"], where
                assert normalise(mine.messages_to_summarize) == plan["messagesToSummarize"], where
                assert normalise(mine.turn_prefix_messages) == plan["turnPrefixMessages"], where
                written = user_summary_result(mine, "by hand")
                assert written.summary == "by hand" and written.usage is None
                assert written.tokens_before == plan["tokensBefore"], where
                assert written.details == plan["fileLists"], where
                checked += 1
    assert checked == 61  # the sample really exercised pi's plans


def _path(name: str) -> list[dict[str, Any]]:
    by_id, expected = _case(name)
    return [by_id[i] for i in expected.section("compaction")[0]["path"]]  # the open leaf's path


def test_refusals_say_why_and_name_the_nearest_valid_cuts() -> None:
    path = _path("pi16-1606")
    space = cut_space(path, PI_1_6_0)
    choices = {c.entry_id: c for c in cut_choices(path, PI_1_6_0)}
    with pytest.raises(InvalidCutError) as tool_result:
        space.check("315ad48d")  # a toolResult between assistant 86a48a5f and assistant b546a650
    assert "it is a tool result, and a cut never separates a result from its call" in str(tool_result.value)
    assert tool_result.value.nearest == ("86a48a5f", "b546a650")
    assert "Nearest valid cuts: 86a48a5f (before) and b546a650 (after)." in str(tool_result.value)
    assert isinstance(tool_result.value, ValueError)
    assert "already summarized by the newest compaction" in (cut_refusal(path, "f9c14497", PI_1_6_0) or "")
    assert "not in the context of the active branch" in (cut_refusal(path, "no-such-id", PI_1_6_0) or "")
    # the first entry pi may search from keeps everything: nothing to summarize, so no cut
    first = space.points[0]
    assert space.entries[first]["id"] not in choices
    assert "nothing before it would be summarized" in (cut_refusal(path, space.entries[first]["id"], PI_1_6_0) or "")
    assert cut_refusal(path, "78ad6636", PI_1_6_0) is None and "78ad6636" in choices


def test_cut_choices_carry_the_tokens_kept_and_summarized() -> None:
    path = _path("pi16-1606")
    choices = cut_choices(path, PI_1_6_0)
    plan = prepare_compaction(path, CompactionSettings(keep_recent_tokens=2000), PI_1_6_0)  # pi's cut is a choice
    assert plan is not None
    total = choices[0].tokens_kept + choices[0].tokens_summarized
    assert all(c.tokens_kept + c.tokens_summarized == total for c in choices)
    assert [c.index for c in choices] == sorted(c.index for c in choices)
    assert all(a.tokens_kept > b.tokens_kept for a, b in zip(choices, choices[1:], strict=False))
    chosen = next(c for c in choices if c.entry_id == plan.first_kept_entry_id)
    assert chosen.split_turn == plan.is_split_turn
    assert cut_choices([*path, {"type": "compaction", "id": "x", "parentId": path[-1]["id"]}], PI_1_6_0) == []


def test_pi_0_73_1_cuts_follow_its_raw_rules() -> None:
    path = _path("pi16-1606")
    old = {c.entry_id for c in cut_choices(path, PI_0_73_1)}
    new = {c.entry_id for c in cut_choices(path, PI_1_6_0)}
    assert old and new and old != new  # 0.73.1 searches the raw path from the previous kept entry
    some = sorted(old)[0]
    plan = prepare_compaction(path, profile=PI_0_73_1, first_kept_entry_id=some)
    assert plan is not None and plan.first_kept_entry_id == some
