"""pi 1.6.0's compaction rules next to 0.73.1's on the same input (pi16-delta.md §5), one rule per test.

The conformance corpus (tests/conformance/test_conformance16.py) checks whole files; here each
difference of the profile is pinned on its own, with both profiles side by side, so a regression
names the rule it broke.
"""

from __future__ import annotations

import math
from typing import Any

from desktop_app.compaction.branch_entries import prepare_branch_entries
from desktop_app.compaction.cut_points import find_cut_point, find_turn_start_index
from desktop_app.compaction.file_ops import extract_file_ops
from desktop_app.compaction.prepare import prepare_compaction
from desktop_app.compaction.serialize import serialize_conversation, truncate_for_summary
from desktop_app.compaction.tokens import (
    CompactionSettings,
    estimate_context_tokens,
    estimate_tokens,
    get_assistant_usage,
)
from desktop_app.llm.messages import combine_usage
from desktop_app.session.profile import PI_0_73_1 as OLD
from desktop_app.session.profile import PI_1_6_0 as NEW

from .builders import assistant, chain, msg, sized, tool_call, tool_result, user

IMAGE = {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"}


def test_user_images_and_system_messages_weigh_in_1_6_0() -> None:
    message = {"role": "user", "content": [{"type": "text", "text": "fix it"}, IMAGE]}
    assert (estimate_tokens(message, OLD), estimate_tokens(message, NEW)) == (2, math.ceil(4806 / 4))
    tools = [{"name": "read", "description": "r", "parameters": {}}]
    system = {"role": "system", "content": "abcd", "sections": {"a": "x" * 8, "gone": None}, "toolsAdded": tools,
              "toolsRemoved": [{"name": "bash" * 50}]}
    chars = 4 + 8 + len('[{"name":"read","description":"r","parameters":{}}]')
    assert (estimate_tokens(system, OLD), estimate_tokens(system, NEW)) == (0, math.ceil(chars / 4))


def test_zero_usage_is_no_usage_in_1_6_0() -> None:
    zero = assistant("y" * 8, usage_total=0)
    zero["usage"].update(input=0, output=0)
    assert get_assistant_usage(zero, OLD) is zero["usage"] and get_assistant_usage(zero, NEW) is None
    messages = [user("x" * 40), zero]
    assert estimate_context_tokens(messages, OLD).last_usage_index == 1
    assert estimate_context_tokens(messages, NEW).to_json() == {
        "tokens": 12, "usageTokens": 0, "trailingTokens": 12, "lastUsageIndex": None
    }


def test_serialization_leaves_out_thinking_and_keeps_surrogate_pairs_whole() -> None:
    messages = [user("q"), assistant("answer", thinking="hmm"), {"role": "system", "content": "rules"}]
    assert serialize_conversation(messages, OLD) == "[User]: q\n\n[Assistant thinking]: hmm\n\n[Assistant]: answer"
    assert serialize_conversation(messages, NEW) == "[User]: q\n\n[Assistant]: answer"
    text = "x" * 1999 + "😀" + "y" * 10  # the pair sits at units 1999-2000
    assert truncate_for_summary(text, whole_pairs=False).startswith("x" * 1999 + "\ud83d\n\n")
    assert truncate_for_summary(text) == "x" * 1999 + "\n\n[... 11 more characters truncated]"


def test_nested_codemode_calls_are_file_operations_in_1_6_0() -> None:
    result = tool_result("done")
    result["nestedCalls"] = {
        "calls": [
            {"id": "1", "name": "read", "arguments": {"path": "a.py"}, "status": "ok"},
            {"id": "2", "name": "edit", "arguments": {"path": "b.py"}, "status": "error"},
            {"id": "3", "name": "write", "argumentsBytes": 90000, "status": "ok"},
        ],
        "complete": True,
    }
    assert extract_file_ops(result, None, OLD).is_empty()
    assert extract_file_ops(result, None, NEW).to_json() == {"read": ["a.py"], "written": [], "edited": ["b.py"]}


def _turns() -> list[dict[str, Any]]:
    return chain(
        msg("u1", user(sized("first", 1000))),
        msg("a1", assistant(sized("one", 1000))),
        ("cm", "custom_message", {"customType": "note", "content": sized("custom", 1000), "display": True}),
        msg("a2", assistant(sized("two", 1000))),
    )


def test_custom_messages_count_and_start_turns_in_1_6_0() -> None:
    path = _turns()
    assert find_turn_start_index(path, 3, 0, OLD) == 2 and find_turn_start_index(path, 3, 0, NEW) == 2
    # 0.73.1 counts only message entries: 2000 tokens reach back to a1; 1.6.0 counts the custom message.
    old, new = find_cut_point(path, 0, 4, 2000, OLD), find_cut_point(path, 0, 4, 2000, NEW)
    assert (old.first_kept_entry_index, old.is_split_turn) == (1, True)
    assert new.to_json() == {"firstKeptEntryIndex": 2, "turnStartIndex": -1, "isSplitTurn": False}


def test_nothing_to_summarize_is_no_preparation_in_1_6_0() -> None:
    small = chain(msg("u", user("hello")), msg("a", assistant("hi")))
    old = prepare_compaction(small, CompactionSettings(), OLD)
    assert old is not None and old.messages_to_summarize == [] and old.turn_prefix_messages == []
    assert prepare_compaction(small, CompactionSettings(), NEW) is None


def test_1_6_0_plans_on_the_edited_projection() -> None:
    path = chain(
        ("sys", "message", {"message": {"role": "system", "content": "rules", "timestamp": 1}}),
        msg("u1", user(sized("first", 1000))),
        msg("a1", assistant(sized("one", 1000), tool_calls=[tool_call("read", path="hidden.py")])),
        msg("u2", user(sized("second", 1000))),
        msg("a2", assistant(sized("two", 1000))),
        ("e1", "context_edit", {"targetId": "a1", "replacement": None}),  # a1 is omitted
    )
    settings = CompactionSettings(keep_recent_tokens=1500)
    prep = prepare_compaction(path, settings, NEW)
    assert prep is not None
    # The cut lands on u2, then moves back over the omitted reply (it gives no message): a split turn
    # whose prefix is u1. The system prompt is never summarized; the hidden call is no file operation.
    assert (prep.first_kept_entry_id, prep.is_split_turn) == ("a1", True)
    assert prep.messages_to_summarize == [] and prep.turn_prefix_messages == [path[1]["message"]]
    assert prep.file_ops.is_empty()
    # a2's usage predates the edit, so it is stale: everything projected is estimated (prompt included)
    assert prep.tokens_before == 2 + 1000 + 1000 + 1000
    old = prepare_compaction(path, settings, OLD)
    assert old is not None and (old.first_kept_entry_id, old.is_split_turn) == ("u2", False)
    assert old.file_ops.to_json()["read"] == ["hidden.py"] and old.tokens_before == 15


def test_branch_budgets_count_images_and_skip_omitted_entries_in_1_6_0() -> None:
    pictured = user("look")
    pictured["content"].append(IMAGE)
    entries = chain(
        msg("u", pictured),
        msg("a", assistant("seen")),
        ("e", "context_edit", {"targetId": "a", "replacement": None}),
    )
    old, new = prepare_branch_entries(entries, 0, OLD), prepare_branch_entries(entries, 0, NEW)
    assert [m["role"] for m in old.messages] == ["user", "assistant"] and old.total_tokens == 1 + 1
    assert [m["role"] for m in new.messages] == ["user"] and new.total_tokens == math.ceil(4804 / 4)


def test_usage_of_two_summarizer_calls_is_added_up() -> None:
    first = assistant("a")["usage"]
    second = {**assistant("b")["usage"], "cost": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "total": 3}}
    total = combine_usage([first, None, second])
    assert total is not None and (total["input"], total["totalTokens"], total["cost"]["total"]) == (20, 30, 3)
    assert list(total) == ["input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"]
    assert combine_usage([None]) is None
