"""Cut points, split turns and ``prepare_compaction`` (pi-spec §5.5–§5.7), on small hand-built paths.

These are pi 0.73.1's rules, so every call passes that profile; pi 1.6.0's are in test_cut_points_16.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from desktop_app.compaction.cut_points import find_cut_point, find_turn_start_index, find_valid_cut_points
from desktop_app.compaction.prepare import prepare_compaction
from desktop_app.compaction.tokens import CompactionSettings
from desktop_app.session.profile import PI_0_73_1 as OLD

from .builders import assistant, chain, msg, sized, tool_call, tool_result, user


def _big_user(name: str) -> dict[str, Any]:
    return user(sized(name, 1000))


def _big_assistant(name: str, usage_total: int | None = None) -> dict[str, Any]:
    return assistant(sized(name, 1000), usage_total=usage_total)


def test_valid_cut_points_never_include_tool_results_or_bookkeeping() -> None:
    path = chain(
        msg("u", user("q")),
        msg("a", assistant("", tool_calls=[tool_call("read", path="x")])),
        msg("t", tool_result("r")),
        ("m", "model_change", {"provider": "p", "modelId": "m"}),
        ("c", "custom_message", {"customType": "x", "content": "hi", "display": True}),
        ("b", "branch_summary", {"fromId": "u", "summary": "s"}),
        ("k", "compaction", {"summary": "s", "firstKeptEntryId": "u", "tokensBefore": 1}),
        msg("x", {"role": "bashExecution", "command": "ls", "output": ""}),
        ("l", "label", {"targetId": "u", "label": "L"}),
    )
    assert find_valid_cut_points(path, 0, len(path), profile=OLD) == [0, 1, 4, 5, 7]
    assert find_valid_cut_points(path, 2, 5, profile=OLD) == [4]
    assert find_turn_start_index(path, 3, 0, profile=OLD) == 0
    assert find_turn_start_index(path, 8, 0, profile=OLD) == 7  # bashExecution starts a turn
    assert find_turn_start_index(path, 6, 5, profile=OLD) == 5  # a branch summary does too
    assert find_turn_start_index(path, 3, 1, profile=OLD) == -1


def test_budget_met_mid_turn_splits_the_turn() -> None:
    path = chain(
        msg("u1", _big_user("u1")),
        msg("a1", _big_assistant("a1")),
        msg("u2", _big_user("u2")),
        msg("a2", _big_assistant("a2")),
        msg("a3", _big_assistant("a3")),
    )
    cut = find_cut_point(path, 0, len(path), 1500, profile=OLD)
    assert cut.to_json() == {"firstKeptEntryIndex": 3, "turnStartIndex": 2, "isSplitTurn": True}
    cut = find_cut_point(path, 0, len(path), 2500, profile=OLD)
    assert cut.to_json() == {"firstKeptEntryIndex": 2, "turnStartIndex": -1, "isSplitTurn": False}
    # under budget: keep everything from the first cut point
    assert find_cut_point(path, 0, len(path), 10**6, profile=OLD).first_kept_entry_index == 0


def test_settings_entry_before_a_user_message_makes_a_spurious_split() -> None:
    # pi-spec §5.6: [u, a, thinking_level_change, u, a] with keep=1500 → {2, 0, true}
    path = chain(
        msg("u1", _big_user("u1")),
        msg("a1", _big_assistant("a1")),
        ("t", "thinking_level_change", {"thinkingLevel": "high"}),
        msg("u2", _big_user("u2")),
        msg("a2", _big_assistant("a2")),
    )
    assert find_cut_point(path, 0, len(path), 1500, profile=OLD).to_json() == {
        "firstKeptEntryIndex": 2,
        "turnStartIndex": 0,
        "isSplitTurn": True,
    }


def test_huge_trailing_tool_result_keeps_everything() -> None:
    path = chain(
        msg("u", user("q")),
        msg("a", assistant("", tool_calls=[tool_call("read", path="x")])),
        msg("t", tool_result("r" * 400_000)),
    )
    assert find_cut_point(path, 0, len(path), 20_000, profile=OLD).first_kept_entry_index == 0


def test_no_cut_points_in_range() -> None:
    path = chain(msg("t", tool_result("r")), ("m", "model_change", {"provider": "p", "modelId": "m"}))
    assert find_cut_point(path, 0, 2, 0, profile=OLD).to_json() == {
        "firstKeptEntryIndex": 0,
        "turnStartIndex": -1,
        "isSplitTurn": False,
    }


# ----------------------------------------------------------------------------------- prepare


def _repeated_compaction_path() -> list[dict[str, Any]]:
    return chain(
        msg("u1", _big_user("u1")),
        msg("a1", _big_assistant("a1")),
        msg("u2", _big_user("u2")),
        msg("a2", _big_assistant("a2")),
        ("C1", "compaction", {"summary": "S1", "firstKeptEntryId": "u2", "tokensBefore": 4000}),
        msg("u3", _big_user("u3")),
        msg("a3", _big_assistant("a3")),
        msg("u4", _big_user("u4")),
        msg("a4", _big_assistant("a4", usage_total=5000)),
    )


def _ids(path: list[dict[str, Any]], messages: list[dict[str, Any]]) -> list[str]:
    by_message = {id(e.get("message")): e["id"] for e in path if e["type"] == "message"}
    return [by_message[id(m)] for m in messages]


@pytest.mark.parametrize(
    ("keep", "first_kept", "split", "summarized", "prefix"),
    [
        (1500, "u4", False, ["u2", "a2", "u3", "a3"], []),
        (2500, "a3", True, ["u2", "a2"], ["u3"]),
        (3500, "u3", False, ["u2", "a2"], []),
        (4500, "a2", True, [], ["u2"]),
        (100_000, "u2", False, [], []),
    ],
)
def test_repeated_compaction_uses_0731_range(
    keep: int, first_kept: str, split: bool, summarized: list[str], prefix: list[str]
) -> None:
    """pi-spec §5.7's table (issue #2608 fixed): the previous compaction's kept messages are summarized."""
    path = _repeated_compaction_path()
    prep = prepare_compaction(path, CompactionSettings(keep_recent_tokens=keep), profile=OLD)
    assert prep is not None
    assert (prep.boundary_start, prep.boundary_end, prep.prev_compaction_index) == (2, 9, 4)
    assert prep.first_kept_entry_id == first_kept
    assert prep.is_split_turn is split
    assert _ids(path, prep.messages_to_summarize) == summarized
    assert _ids(path, prep.turn_prefix_messages) == prefix
    assert prep.previous_summary == "S1"
    # tokensBefore: the context as it is now (summary, kept u2 a2, then u3 … a4): a4's usage is last
    assert prep.tokens_before == 5000


def test_tokens_before_may_come_from_a_kept_assistant_before_the_previous_compaction() -> None:
    path = chain(
        msg("u1", user("hello")),
        msg("a1", assistant("hi", usage_total=50_010)),
        ("C1", "compaction", {"summary": "S", "firstKeptEntryId": "u1", "tokensBefore": 50_010}),
        msg("u2", user("x" * 400)),
    )
    prep = prepare_compaction(path, CompactionSettings(), profile=OLD)
    assert prep is not None and prep.tokens_before == 50_110


def test_prepare_refuses_only_a_path_ending_in_a_compaction() -> None:
    path = _repeated_compaction_path()[:5]
    assert prepare_compaction(path, profile=OLD) is None
    small = chain(msg("u", user("hi")), msg("a", assistant("hello")))
    prep = prepare_compaction(small, profile=OLD)
    assert prep is not None
    assert prep.first_kept_entry_id == "u" and prep.messages_to_summarize == []


def test_file_operations_are_seeded_from_a_pi_compaction_only() -> None:
    read = tool_call("read", "r1", path="src/a.ts")
    write = tool_call("write", "w1", path="src/b.ts")
    edit = tool_call("edit", "e1", path="src/a.ts")
    tail = [msg("u9", _big_user("u9")), msg("a9", _big_assistant("a9"))]

    def path(details: Any, from_hook: bool | None) -> list[dict[str, Any]]:
        fields: dict[str, Any] = {
            "summary": "S",
            "firstKeptEntryId": "u1",
            "tokensBefore": 1,
            "details": details,
        }
        if from_hook is not None:
            fields["fromHook"] = from_hook
        return chain(
            msg("u1", user("q")),
            msg("a1", assistant("", tool_calls=[read, write, edit])),
            ("C", "compaction", fields),
            *tail,
        )

    details = {"readFiles": ["old.ts"], "modifiedFiles": ["gone.ts"]}
    prep = prepare_compaction(path(details, False), CompactionSettings(keep_recent_tokens=1500), profile=OLD)
    assert prep is not None
    assert prep.file_ops.to_json() == {
        "read": ["old.ts", "src/a.ts"],
        "written": ["src/b.ts"],
        "edited": ["gone.ts", "src/a.ts"],
    }
    hooked = prepare_compaction(path(details, True), CompactionSettings(keep_recent_tokens=1500), profile=OLD)
    assert hooked is not None and "old.ts" not in hooked.file_ops.read
    malformed = prepare_compaction(
        path({"readFiles": "x"}, None), CompactionSettings(keep_recent_tokens=1500)
    , profile=OLD)
    assert malformed is not None and list(malformed.file_ops.read) == ["src/a.ts"]
