"""pi 1.6.0's additions read and written by the one reader (pi16-delta.md §2.4, §2.5, §4.1).

The conformance corpus checks the contexts of whole files; these tests pin each rule on its own (so a
failure names the rule) and check that what Arbor writes has pi 1.6.0's shape and key order, entry by
entry, against the entries pi 1.6.0 wrote itself in tests/fixtures/conformance16/cases.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop_app.session import SessionError, SessionManager
from desktop_app.session.context import build_session_context, context_from_path, convert_to_llm, project_path
from desktop_app.session.entries import (
    make_branch_summary_entry,
    make_compaction_entry,
    make_context_edit_entry,
    make_usage_entry,
)
from desktop_app.session.jsjson import js_stringify
from desktop_app.session.profile import PI_0_73_1, PI_1_6_0, profile_for
from desktop_app.session.system_prompt import current_system_message

from .helpers import assistant, tool_result, user

CASES = Path(__file__).resolve().parent.parent / "fixtures" / "conformance16" / "cases"
T = "2026-01-01T00:00:00.000Z"


def _entry(n: int, entry_type: str, parent: int | None, **fields: Any) -> dict[str, Any]:
    return {"type": entry_type, "id": f"e{n}", "parentId": None if parent is None else f"e{parent}", "timestamp": T, **fields}


def _msg(n: int, parent: int | None, message: dict[str, Any]) -> dict[str, Any]:
    return _entry(n, "message", parent, message=message)


def _system(**fields: Any) -> dict[str, Any]:
    return {"role": "system", "content": "", **fields, "timestamp": 5}


def _roles(messages: list[dict[str, Any]]) -> list[str]:
    return [m["role"] for m in messages]


def test_system_messages_edits_and_usage_entries_make_the_context() -> None:
    entries = [
        _msg(0, None, _system(content="Be brief.")),
        _msg(1, 0, user("one")),
        _msg(2, 1, assistant("bad attempt", stop="error")),
        _entry(3, "context_edit", 2, targetId="e2", replacement=None),  # recovery omission
        _entry(4, "usage", 3, kind="cache_warm", provider="p", model="m", usage={"input": 1}),
        _msg(5, 4, assistant("good")),
        _entry(6, "context_edit", 5, targetId="e1", replacement={"content": "one, edited"}),
        _entry(7, "context_edit", 6, targetId="e5", replacement={"content": [{"type": "text", "text": "x"}]}),
        _entry(8, "context_edit", 7, targetId="e5", replacement={"content": "better"}),  # the latest wins
    ]
    messages = build_session_context(entries, "e8").messages
    assert _roles(messages) == ["system", "user", "assistant"]
    assert messages[1]["content"] == "one, edited"  # a user's string stays a string
    assert messages[2]["content"] == [{"type": "text", "text": "better"}]  # an assistant's becomes a block
    assert messages[2]["usage"] == entries[5]["message"]["usage"]  # only the content is replaced
    assert entries[5]["message"]["content"][0]["text"] == "good"  # the entry itself is untouched
    # Before the later edits, the same path gives the original messages (the failed reply omitted).
    assert [m.get("content") for m in build_session_context(entries, "e5").messages][1:] == [
        entries[1]["message"]["content"],
        entries[5]["message"]["content"],
    ]
    assert len(build_session_context(entries, "e2").messages) == 3
    # A later edit can show an omitted entry again.
    entries.append(_entry(9, "context_edit", 8, targetId="e2", replacement={"content": "shown again"}))
    assert _roles(build_session_context(entries, "e9").messages) == ["system", "user", "assistant", "assistant"]


def test_a_compaction_keeps_its_checkpoint_and_drops_system_messages_from_the_kept_range() -> None:
    checkpoint = {"role": "system", "content": "Be brief.\n\nUse tools.", "timestamp": 9}
    entries = [
        _msg(0, None, _system(content="Be brief.")),
        _msg(1, 0, user("old")),
        _msg(2, 1, _system(content="Use tools.")),
        _msg(3, 2, user("kept")),
        _entry(4, "context_edit", 3, targetId="e1", replacement=None),  # its target is summarized: no effect
        _entry(5, "compaction", 4, summary="S", firstKeptEntryId="e2", tokensBefore=10, systemMessage=checkpoint),
        _msg(6, 5, _system(content="Later rule.")),
        _entry(7, "context_edit", 6, targetId="e3", replacement={"content": "kept, edited"}),
    ]
    context = build_session_context(entries, "e7")
    assert _roles(context.messages) == ["system", "compactionSummary", "user", "system"]
    assert context.messages[0] is checkpoint and context.messages[2]["content"] == "kept, edited"
    assert context.to_json() == context_from_path(entries).to_json()
    projected = project_path(entries)
    assert [p.source["id"] for p in projected] == ["e5", "e3", "e4", "e6", "e7"]  # e2 (system) left out
    # A compaction that names itself keeps nothing from before it.
    entries[5]["firstKeptEntryId"] = "e5"
    assert _roles(build_session_context(entries, "e7").messages) == ["system", "compactionSummary", "system"]


def test_null_content_is_empty_for_1_6_0_and_kept_for_0_73_1() -> None:
    entries = [
        _msg(0, None, {"role": "user", "content": None, "timestamp": 1}),
        _msg(1, 0, {"role": "system", "timestamp": 2}),
        _entry(2, "custom_message", 1, customType="x", display=True),
    ]
    new = build_session_context(entries, "e2", profile=PI_1_6_0).messages
    assert [m.get("content", "<absent>") for m in new] == [[], "", []]
    old = build_session_context(entries, "e2", profile=PI_0_73_1).messages
    assert [m.get("content", "<absent>") for m in old] == [None, "<absent>", "<absent>"]
    assert entries[0]["message"]["content"] is None  # never changed in place


def test_replaying_the_prompt_sections_and_tools() -> None:
    read = {"name": "read", "description": "r", "parameters": {}}
    bash = {"name": "bash", "description": "b", "parameters": {}}
    messages = [
        _system(sections={"preamble": "P", "tools": "T", "cwd": "/a"}, toolsAdded=[read, bash]),
        user("hi"),
        _system(sections={"tools": None, "cwd": "/b"}, toolsRemoved=[{"name": "read"}]),
        _system(content=[{"type": "text", "text": "one"}, {"type": "text", "text": "two"}], sections={"tools": "T2"}),
    ]
    replay = current_system_message(messages)
    assert replay is not None
    assert list(replay) == ["role", "content", "sections", "toolsAdded", "timestamp"]
    assert replay["content"] == "one\ntwo"
    assert list(replay["sections"].items()) == [("preamble", "P"), ("cwd", "/b"), ("tools", "T2")]
    assert replay["toolsAdded"] == [bash] and replay["timestamp"] == 5
    assert current_system_message([user("no prompt")]) is None


def _case_entries(kind: str) -> list[dict[str, Any]]:
    out = []
    for path in sorted(CASES.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            if entry.get("type") == kind:
                out.append(entry)
    return out


def _rebuilt(entry: dict[str, Any]) -> dict[str, Any]:
    base = (entry["id"], entry["parentId"], entry["timestamp"])
    kind = entry["type"]
    if kind == "compaction":
        return make_compaction_entry(
            *base, entry["summary"], entry.get("firstKeptEntryId"), entry["tokensBefore"], entry.get("details"),
            entry.get("fromHook"), entry.get("usage"), entry.get("systemMessage"),
        )
    if kind == "branch_summary":
        return make_branch_summary_entry(
            *base, entry["fromId"], entry["summary"], entry.get("details"), entry.get("fromHook"), entry.get("usage")
        )
    if kind == "context_edit":
        return make_context_edit_entry(*base, entry["targetId"], entry["replacement"])
    return make_usage_entry(*base, entry["kind"], entry["provider"], entry["model"], entry["usage"], entry.get("note"))


@pytest.mark.parametrize("kind", ["compaction", "branch_summary", "context_edit", "usage"])
def test_entries_are_written_with_pi_1_6_0s_keys_in_its_order(kind: str) -> None:
    written = _case_entries(kind)
    assert len(written) >= 20
    for entry in written:
        assert js_stringify(_rebuilt(entry)) == js_stringify(entry)


def test_writing_in_the_profiles_way(tmp_path: Path) -> None:
    for profile in (PI_0_73_1, PI_1_6_0):
        manager = SessionManager.in_memory("/p", profile=profile)
        manager.append_message(_system(content="Be brief."))
        first = manager.append_message(user("a"))
        manager.append_message(assistant("b"))
        manager.append_session_info("  two\r\n\nlines ")
        name = manager.get_session_name()
        compaction = manager.get_entry(manager.append_compaction("S", None, 100, usage={"input": 3}))
        assert compaction is not None
        old_leaf = manager.leaf_id
        summary = manager.get_entry(manager.branch_with_summary(first, "went back"))
        assert summary is not None
        if profile is PI_1_6_0:
            assert name == "two lines"
            assert compaction["firstKeptEntryId"] == compaction["id"]
            assert compaction["systemMessage"]["content"] == "Be brief."
            assert list(compaction)[-2:] == ["usage", "systemMessage"]
            assert summary["fromId"] == old_leaf
        else:
            assert name == "two\r\n\nlines"
            assert "firstKeptEntryId" not in compaction and "systemMessage" not in compaction
            assert summary["fromId"] == first


def test_context_edits_are_refused_where_pi_refuses() -> None:
    manager = SessionManager.in_memory("/p")
    system = manager.append_message(_system(content="x"))
    asked = manager.append_message(user("a"))
    replied = manager.append_message(assistant("b"))
    result = manager.append_message(tool_result("c1", "out"))
    with pytest.raises(SessionError):
        manager.append_context_edit(system, None)  # not editable
    with pytest.raises(SessionError):
        manager.append_context_edit("nope", None)
    with pytest.raises(SessionError):
        manager.append_context_edit(asked, {"content": 3})  # type: ignore[dict-item]
    manager.branch(asked)
    with pytest.raises(SessionError):
        manager.append_context_edit(replied, None)  # not on the current branch
    manager.branch(result)
    edit = manager.get_entry(manager.append_context_edit(replied, {"content": "short"}))
    assert edit is not None and edit["replacement"] == {"content": [{"type": "text", "text": "short"}]}
    manager.append_context_edit(result, None)
    assert _roles(manager.build_session_context().messages) == ["system", "user", "assistant"]
    assert profile_for("1.6.0") is PI_1_6_0
    with pytest.raises(ValueError, match="0.73.1"):
        profile_for("0.74")


def test_a_prompt_change_is_recorded_as_the_difference() -> None:
    from desktop_app.session.system_prompt import system_prompt_update

    read = {"name": "read", "description": "r", "parameters": {}}
    bash = {"name": "bash", "description": "b", "parameters": {}}
    first = system_prompt_update(None, {"preamble": "P", "tools": "T"}, [read, bash], 7)
    assert first == {"role": "system", "content": "", "sections": {"preamble": "P", "tools": "T"},
                     "toolsAdded": [read, bash], "timestamp": 7}
    replay = current_system_message([first])
    assert system_prompt_update(replay, {"preamble": "P", "tools": "T"}, [read, bash], 8) is None
    changed = system_prompt_update(replay, {"preamble": "P2"}, [read], 9)
    assert changed == {"role": "system", "content": "", "sections": {"preamble": "P2", "tools": None},
                       "toolsRemoved": [{"name": "bash"}], "timestamp": 9}
    after = current_system_message([first, changed])
    assert after is not None and after["sections"] == {"preamble": "P2"} and after["toolsAdded"] == [read]


def _odd_session() -> list[dict[str, Any]]:
    """A prompt, a user turn, a compaction with a checkpoint, an edit omitting the kept user message."""
    return [
        _msg(0, None, _system(content="Be brief.")),
        _msg(1, 0, {"role": "user", "content": "hi", "timestamp": 1}),
        _msg(2, 1, {"role": "system", "content": "Also be kind.", "timestamp": 2}),
        _entry(3, "compaction", 2, summary="s", firstKeptEntryId="e1", tokensBefore=9, systemMessage=_system(content="P")),
        _entry(4, "context_edit", 3, targetId="e1", replacement=None),
        _msg(5, 4, {"role": "user", "content": "again", "timestamp": 5}),
    ]


def test_pi_0_73_1_keeps_system_messages_and_ignores_edits_and_checkpoints() -> None:
    entries = _odd_session()
    old = build_session_context(entries, "e5", profile=PI_0_73_1).messages
    assert _roles(old) == ["compactionSummary", "user", "system", "user"]  # no checkpoint, u1 not omitted
    assert _roles(convert_to_llm(old, PI_0_73_1)) == ["user", "user", "user"]  # 0.73.1 drops the role
    new = build_session_context(entries, "e5", profile=PI_1_6_0).messages
    assert _roles(new) == ["system", "compactionSummary", "user"]
    assert _roles(convert_to_llm(new, PI_1_6_0)) == ["system", "user", "user"]
    assert [p.source["id"] for p in project_path(entries[:4] + entries[5:], profile=PI_0_73_1)] == ["e3", "e1", "e2", "e5"]


def test_the_managers_cached_context_follows_its_profile() -> None:
    """The manager extends its cached context entry by entry; an edit is a full rebuild in 1.6.0 and
    nothing at all in 0.73.1."""
    for profile, roles in ((PI_0_73_1, ["user", "assistant", "user"]), (PI_1_6_0, ["assistant", "user"])):
        manager = SessionManager.in_memory("/p", profile=profile)
        first = manager.append_message(user("one"))
        manager.append_message(assistant("two"))
        manager.build_session_context()
        manager.append_context_edit(first, None)
        manager.build_session_context()
        manager.append_message(user("three"))
        assert _roles(manager.build_session_context().messages) == roles


@pytest.mark.parametrize(
    ("replacement", "content"),
    [(5, "<absent>"), ("text", "<absent>"), (False, "<absent>"), ({}, "<absent>"), ({"content": 5}, 5), ({"content": "x"}, [{"type": "text", "text": "x"}])],
)
def test_a_replacement_of_another_shape_leaves_the_message_without_content(replacement: Any, content: Any) -> None:
    entries = [
        _msg(0, None, {"role": "assistant", "content": [{"type": "text", "text": "a"}], "timestamp": 0}),
        _entry(1, "context_edit", 0, targetId="e0", replacement=replacement),
    ]
    [message] = build_session_context(entries, "e1").messages
    assert message.get("content", "<absent>") == content
    assert message["timestamp"] == 0


@pytest.mark.parametrize(("checkpoint", "kept"), [("forced", True), (True, True), ([], True), ("", False), (0, False), (None, False)])
def test_a_truthy_checkpoint_of_any_shape_goes_into_the_context_as_it_is(checkpoint: Any, kept: bool) -> None:
    entries = [
        _msg(0, None, {"role": "user", "content": "hi", "timestamp": 0}),
        _entry(1, "compaction", 0, summary="s", firstKeptEntryId="e1", tokensBefore=1, systemMessage=checkpoint),
    ]
    messages = build_session_context(entries, "e1").messages
    assert messages[:-1] == ([checkpoint] if kept else [])
    assert convert_to_llm(messages) == convert_to_llm(messages[-1:])  # no role: nothing for the model
