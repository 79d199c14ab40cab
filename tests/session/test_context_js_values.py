"""The context reads odd JSON values as pi's JavaScript does (issue 23).

Hand-edited files put ``true`` where an id goes, ``{}`` where a string goes. Python's ``True == 1`` and
``bool({}) is False`` differ from JavaScript's ``===`` and truthiness, so each rule is checked here at
both of the context's entry points: the walk that stops early (``build_session_context``) and the one
over the whole path (``context_from_path``). The expected texts are pi 0.73.1's and 1.6.0's, recorded
in tests/fixtures/odd/context/ (``bash-*``, ``editkey-*``, ``ids-mid-true``, ``tok-summary-bs1-obj``).
"""

from __future__ import annotations

from typing import Any

import pytest

from desktop_app.session.context import (
    branch_summary_message,
    build_session_context,
    context_from_path,
    context_message,
    convert_message_to_llm,
    same_id,
)
from desktop_app.session.profile import PI_0_73_1, PI_1_6_0, PiProfile
from desktop_app.session.tree import SessionIndex

PROFILES = (PI_0_73_1, PI_1_6_0)


def _user(entry_id: Any, parent: Any, text: str) -> dict[str, Any]:
    return {
        "type": "message", "id": entry_id, "parentId": parent, "timestamp": "2025-06-01T10:00:00.000Z",
        "message": {"role": "user", "content": text, "timestamp": 1},
    }


def _texts(entries: list[dict[str, Any]], leaf: Any, profile: PiProfile) -> tuple[list[Any], list[Any]]:
    """The messages' texts (or roles) at ``leaf``: by the early-stopping walk, and over the path."""
    index = SessionIndex.build(entries)
    fast = build_session_context(entries, leaf, index, profile=profile).messages
    path = index.path_to(index.by_id[leaf] if leaf.__class__ is str else next(e for e in entries if e["id"] is leaf))
    full = context_from_path(path, profile=profile).messages

    def text(m: dict[str, Any]) -> Any:
        return m.get("content", m.get("role"))

    return [text(m) for m in fast], [text(m) for m in full]


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.version)
def test_a_parent_id_of_true_is_not_the_entry_with_id_1(profile: PiProfile) -> None:
    entries = [_user(1, None, "one"), _user(True, None, "true"), _user("leaf", True, "leaf")]
    fast, full = _texts(entries, "leaf", profile)
    assert fast == full == ["true", "leaf"]


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.version)
@pytest.mark.parametrize(("kept_id", "first_kept"), [(1, True), (True, 1)])
def test_first_kept_entry_id_is_compared_with_triple_equals(profile: PiProfile, kept_id: Any, first_kept: Any) -> None:
    """``true`` names no entry whose id is ``1``: pi finds no kept range, so nothing before the
    compaction is kept (the same ids compared as they are keep the range)."""
    def entries(first: Any) -> list[dict[str, Any]]:
        return [
            _user("u1", None, "before"),
            _user(kept_id, "u1", "kept?"),
            {"type": "compaction", "id": "c", "parentId": kept_id, "timestamp": "2025-06-01T10:00:00.000Z",
             "summary": "s", "firstKeptEntryId": first, "tokensBefore": 5},
            _user("after", "c", "after"),
        ]

    fast, full = _texts(entries(first_kept), "after", profile)
    assert fast == full == ["compactionSummary", "after"]
    fast, full = _texts(entries(kept_id), "after", profile)
    assert fast == full == ["compactionSummary", "kept?", "after"]


def test_same_id_is_javascripts_triple_equals_on_ids() -> None:
    assert same_id("a", "a") and same_id(1, 1.0) and same_id(True, True)
    assert not same_id(True, 1) and not same_id(1, True) and not same_id(False, 0) and not same_id("1", 1)


def test_a_context_edit_for_target_true_leaves_the_entry_with_id_1_alone() -> None:
    entries = [
        _user(1, None, "one"),
        {"type": "context_edit", "id": "e", "parentId": 1, "timestamp": "2025-06-01T10:00:00.000Z",
         "targetId": True, "replacement": None},
        _user("leaf", "e", "leaf"),
    ]
    fast, full = _texts(entries, "leaf", PI_1_6_0)
    assert fast == full == ["one", "leaf"]
    entries[1]["targetId"] = 1
    fast, full = _texts(entries, "leaf", PI_1_6_0)
    assert fast == full == ["leaf"]


@pytest.mark.parametrize("summary", [{}, [], "s", 5])
def test_a_branch_summary_with_any_truthy_summary_is_in_the_context(summary: Any) -> None:
    entry = {"type": "branch_summary", "id": "b", "parentId": None, "timestamp": "2025-06-01T10:00:00.000Z",
             "fromId": "x", "summary": summary}
    assert context_message(entry) == branch_summary_message(entry)


@pytest.mark.parametrize("summary", [None, "", 0, False])
def test_a_branch_summary_with_a_falsy_summary_adds_nothing(summary: Any) -> None:
    entry = {"type": "branch_summary", "id": "b", "parentId": None, "timestamp": "2025-06-01T10:00:00.000Z",
             "fromId": "x", "summary": summary}
    assert context_message(entry) is None


BASH = {"role": "bashExecution", "command": "ls", "output": "a.py", "exitCode": 0, "cancelled": False,
        "truncated": False, "timestamp": 3}


@pytest.mark.parametrize(
    ("fields", "tail"),
    [
        ({"output": []}, "```\n\n```"),
        ({"output": {}}, "```\n[object Object]\n```"),
        ({"output": 0}, "(no output)"),
        ({"cancelled": {}}, "```\na.py\n```\n\n(command cancelled)"),
        ({"cancelled": "no"}, "```\na.py\n```\n\n(command cancelled)"),
        ({"exitCode": "1"}, "```\na.py\n```\n\nCommand exited with code 1"),
        ({"exitCode": True}, "```\na.py\n```\n\nCommand exited with code true"),
        ({"exitCode": False}, "```\na.py\n```\n\nCommand exited with code false"),
        ({"exitCode": None}, "```\na.py\n```"),
        ({"exitCode": 0.0}, "```\na.py\n```"),
        ({"truncated": {}, "fullOutputPath": "/tmp/o.txt"}, "```\na.py\n```\n\n[Output truncated. Full output: /tmp/o.txt]"),
        ({"truncated": True, "fullOutputPath": []}, "```\na.py\n```\n\n[Output truncated. Full output: ]"),
    ],
)
@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.version)
def test_bash_text_reads_fields_as_javascript(profile: PiProfile, fields: dict[str, Any], tail: str) -> None:
    converted = convert_message_to_llm({**BASH, **fields}, profile)
    assert converted is not None
    assert converted["content"] == [{"type": "text", "text": "Ran `ls`\n" + tail}]


@pytest.mark.parametrize("exclude", [{}, [], "x", True])
def test_a_truthy_exclude_from_context_drops_the_bash_message(exclude: Any) -> None:
    assert convert_message_to_llm({**BASH, "excludeFromContext": exclude}) is None


@pytest.mark.parametrize("exclude", [0, "", None, False])
def test_a_falsy_exclude_from_context_keeps_the_bash_message(exclude: Any) -> None:
    assert convert_message_to_llm({**BASH, "excludeFromContext": exclude}) is not None


@pytest.mark.parametrize("payload", [None, 5, "hello", [], True])
@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.version)
def test_a_message_whose_payload_is_not_an_object_is_left_out(profile: PiProfile, payload: Any) -> None:
    """The README's deliberate difference: pi keeps such a value in the context (and 1.6.0 then fails
    reading its ``role``); Arbor, and so ``arbor inspect``, leave it out."""
    entries = [_user("u1", None, "one"), {**_user("odd", "u1", ""), "message": payload}, _user("leaf", "odd", "leaf")]
    fast, full = _texts(entries, "leaf", profile)
    assert fast == full == ["one", "leaf"]
