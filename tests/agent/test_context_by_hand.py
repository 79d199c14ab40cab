"""Context by hand (issue 26) through ``AgentSession``: hide, replace, show again, the user's summary and cut,
continuing without a compaction; refusals with reasons; piVersion 0.73.1.

The "Done when" flow runs here on Arbor's own reading; tests/conformance/test_context_by_hand.py holds pi
1.6.0's answers for a file the same flow wrote.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from desktop_app.agent import AgentSession, ContextEditError
from desktop_app.agent.context_hand import NO_EDITS_IN_0_73_1, context_edit_states
from desktop_app.compaction.manual_cut import InvalidCutError
from desktop_app.compaction.tokens import CompactionSettings
from desktop_app.llm.offline import OfflineProvider
from desktop_app.present.compaction_preview import preview_compaction
from desktop_app.present.context_actions import (
    ContextAction,
    TokenChange,
    context_actions,
    cut_choices_of,
    edit_token_change,
)
from desktop_app.session import SessionManager
from desktop_app.session.profile import PI_0_73_1, PI_1_6_0, PiProfile
from desktop_app.settings import Settings

from .context_flow import RECORDED, FlowRecord, check_steps, file_shape, run_flow

FLOW_RECORD = RECORDED.with_suffix(".flow.json")


def test_done_when_flow(tmp_path: Path) -> None:
    """Hide a tool result and replace a user message after the newest compaction, compact with a written
    summary and a chosen cut, prompt, continue without that compaction, show the result again: each
    step's context as the issue says, and the file is the recorded fixture's twin (so pi's recorded
    answers are about what this code writes)."""
    written = tmp_path / "flow.jsonl"
    record = asyncio.run(run_flow(written))
    manager = SessionManager.open(written, fsync=False)

    def message_of(entry_id: str) -> dict[str, Any]:
        entry = manager.get_entry(entry_id)
        assert entry is not None
        return dict(entry["message"])

    check_steps(lambda leaf: manager.build_session_context(leaf).messages, message_of, record)
    assert file_shape(written) == file_shape(RECORDED)
    recorded = FlowRecord(**json.loads(FLOW_RECORD.read_text(encoding="utf-8")))
    assert {k: v for k, v in asdict(record).items() if "after" not in k and k != "compaction_id"} == {
        k: v for k, v in asdict(recorded).items() if "after" not in k and k != "compaction_id"
    }


def _session(profile: PiProfile = PI_1_6_0) -> tuple[AgentSession, dict[str, str]]:
    """A small session: a compaction, then user → assistant (tool call) → tool result → assistant."""
    manager = SessionManager.in_memory("/p", profile=profile)
    ids: dict[str, str] = {}
    ids["old_user"] = manager.append_message({"role": "user", "content": "old question " * 40, "timestamp": 1})
    ids["old_reply"] = manager.append_message(
        {"role": "assistant", "content": [{"type": "text", "text": "old answer " * 40}], "timestamp": 2}
    )
    ids["model"] = manager.append_model_change("anthropic", "claude")
    ids["compaction"] = manager.append_compaction("earlier work", ids["old_reply"], 500)
    ids["user"] = manager.append_message({"role": "user", "content": "read the file", "timestamp": 3})
    ids["call"] = manager.append_message(
        {
            "role": "assistant",
            "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a.py"}}],
            "timestamp": 4,
        }
    )
    ids["result"] = manager.append_message(
        {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": [{"type": "text", "text": "SECRET"}],
         "isError": False, "timestamp": 5}
    )
    ids["reply"] = manager.append_message(
        {"role": "assistant", "content": [{"type": "text", "text": "done"}], "timestamp": 6}
    )
    return AgentSession(manager, OfflineProvider()), ids


def _texts(agent: AgentSession) -> str:
    return json.dumps(agent.session.build_session_context().messages)


def test_edits_are_pi_s_entries_and_showing_again_restores_the_original() -> None:
    agent, ids = _session()
    session = agent.session
    hide = agent.edit_context(ids["result"], None)
    assert session.get_entry(hide) == {**session.get_entry(hide), "type": "context_edit", "targetId": ids["result"], "replacement": None}  # type: ignore[dict-item]
    assert list(session.get_entry(hide) or {}) == ["type", "id", "parentId", "timestamp", "targetId", "replacement"]
    assert "SECRET" not in _texts(agent)
    assert context_edit_states(session, PI_1_6_0)[ids["result"]].hidden
    # pi's stored shapes: a string stays a string for a user message, becomes one text block for an assistant
    user_edit = agent.edit_context(ids["user"], "read b.py instead")
    assert (session.get_entry(user_edit) or {})["replacement"] == {"content": "read b.py instead"}
    reply_edit = agent.edit_context(ids["reply"], "DONE")
    assert (session.get_entry(reply_edit) or {})["replacement"] == {"content": [{"type": "text", "text": "DONE"}]}
    states = context_edit_states(session, PI_1_6_0)
    assert states[ids["user"]].replaced and not states[ids["user"]].hidden
    assert "read b.py instead" in _texts(agent)
    show = agent.show_in_context(ids["result"])
    assert (session.get_entry(show) or {})["replacement"] == {"content": [{"type": "text", "text": "SECRET"}]}
    assert "SECRET" in _texts(agent) and ids["result"] not in context_edit_states(session, PI_1_6_0)
    agent.show_in_context(ids["user"])  # restoring the text is the same command
    assert "read the file" in _texts(agent) and ids["user"] not in context_edit_states(session, PI_1_6_0)
    with pytest.raises(ContextEditError, match="in the context as it is already"):
        agent.show_in_context(ids["user"])


def test_edit_refusals_say_why() -> None:
    agent, ids = _session()
    cases = {
        "nope": "Entry nope not found",
        ids["model"]: "Only user, assistant and tool-result messages and custom messages can be edited; this is a model_change entry",
        ids["compaction"]: "this is a compaction entry",
        ids["old_user"]: f"Compaction {ids['compaction']} summarizes this entry",
    }
    for entry_id, reason in cases.items():
        with pytest.raises(ContextEditError) as refused:
            agent.edit_context(entry_id, None)
        assert reason in refused.value.reason and isinstance(refused.value, ValueError)
    agent.session.branch(ids["user"])  # the reply is now off the active branch
    with pytest.raises(ContextEditError, match="not on the active branch"):
        agent.edit_context(ids["reply"], "x")
    old, old_ids = _session(PI_0_73_1)
    with pytest.raises(ContextEditError) as refused:
        old.edit_context(old_ids["result"], None)
    assert refused.value.reason == NO_EDITS_IN_0_73_1
    assert not any(e.get("type") == "context_edit" for e in old.session.get_entries())


def test_compact_with_a_written_summary_and_a_chosen_cut() -> None:
    agent, ids = _session()
    asked: list[Any] = []
    agent.provider.stream = lambda request: asked.append(request)  # type: ignore[method-assign]
    with pytest.raises(InvalidCutError) as refused:
        asyncio.run(agent.compact(summary="mine", first_kept_entry_id=ids["result"]))
    assert f"Nearest valid cuts: {ids['call']} (before) and {ids['reply']} (after)." in str(refused.value)
    compaction_id = asyncio.run(agent.compact(summary="mine", first_kept_entry_id=ids["call"]))
    entry = agent.session.get_entry(compaction_id) or {}
    assert asked == []  # no model call
    assert entry["summary"] == "mine" and entry["firstKeptEntryId"] == ids["call"] and "usage" not in entry
    assert entry["details"] == {"readFiles": [], "modifiedFiles": []}  # the call to read a.py is kept, not summarized
    messages = agent.session.build_session_context().messages
    assert [m["role"] for m in messages] == ["compactionSummary", "assistant", "toolResult", "assistant"]
    assert isinstance(entry["tokensBefore"], int) and entry["tokensBefore"] > 0


def test_generate_then_edit_then_compact() -> None:
    agent, ids = _session()
    before = len(agent.session.get_entries())
    generated = asyncio.run(agent.generate_summary("focus on the file", first_kept_entry_id=ids["call"]))
    assert generated and len(agent.session.get_entries()) == before  # nothing written
    edited = generated + "\n\nAlso: the user prefers small commits."
    compaction_id = asyncio.run(agent.compact(summary=edited, first_kept_entry_id=ids["call"]))
    assert (agent.session.get_entry(compaction_id) or {})["summary"] == edited


def test_the_edit_dialog_shows_the_token_change() -> None:
    agent, ids = _session()
    view, profile = agent.session, agent.session.profile
    change = edit_token_change(view, ids["user"], "read the file a.py and b.py and c.py please", profile)
    assert (change.before, change.after, change.delta) == (4, 11, 7)  # ceil(13/4), ceil(43/4)
    assert edit_token_change(view, ids["user"], None, profile).after == 0
    agent.edit_context(ids["user"], None)
    assert edit_token_change(view, ids["user"], "read the file", profile) == TokenChange(0, 4)


def test_the_preview_draws_a_dragged_cut() -> None:
    agent, ids = _session()
    settings = agent.settings.compaction
    preview = preview_compaction(agent.view, settings, PI_1_6_0, first_kept_entry_id=ids["call"])
    assert preview.runnable and preview.first_kept_entry_id == ids["call"]
    assert preview.kept_ids == (ids["call"], ids["result"], ids["reply"]) and preview.is_split_turn
    refused = preview_compaction(agent.view, settings, PI_1_6_0, first_kept_entry_id=ids["result"])
    assert not refused.runnable and "a cut never separates a result from its call" in (refused.nothing_reason or "")


def test_compact_keeps_its_old_signature() -> None:
    agent, _ = _session()
    agent.settings = Settings(compaction=CompactionSettings(keep_recent_tokens=10))
    compaction_id = asyncio.run(agent.compact())  # the offline model summarizes, pi's own cut
    assert agent.session.get_entry(compaction_id)["type"] == "compaction"  # type: ignore[index]


def test_expand_copies_what_followed_and_keeps_the_original_branch() -> None:
    agent, ids = _session()
    session = agent.session
    agent.edit_context(ids["result"], None)
    label = agent.set_label(ids["reply"], "keep")
    original_leaf = session.leaf_id
    compaction_id = asyncio.run(agent.compact(summary="mine", first_kept_entry_id=ids["reply"]))
    after = session.append_message({"role": "user", "content": "next", "timestamp": 7})
    hide_after = agent.edit_context(after, None)
    agent.edit_context(ids["reply"], "replaced after the compaction")
    before = len(session.get_entries())
    leaf = agent.expand_compaction(compaction_id)
    copies = session.get_entries()[before:]
    assert leaf == session.leaf_id == copies[-1]["id"]
    assert [c["type"] for c in copies] == ["message", "context_edit", "context_edit"]
    assert copies[0]["parentId"] == original_leaf and copies[0]["message"] == (session.get_entry(after) or {})["message"]
    assert copies[1]["targetId"] == copies[0]["id"] != after  # the edit follows the copy of its target
    assert copies[2]["targetId"] == ids["reply"]  # a target before the compaction is shared by both branches
    assert all(c["id"] not in (after, hide_after) for c in copies)
    assert session.get_entry(compaction_id) is not None and label not in [c["id"] for c in copies]
    messages = session.build_session_context().messages
    # the old compaction's summary and kept reply, then the whole branch again: the copied "next" stays hidden
    assert [m["role"] for m in messages] == ["compactionSummary", "assistant", "user", "assistant", "assistant"]
    assert messages[-1]["content"] == [{"type": "text", "text": "replaced after the compaction"}]
    with pytest.raises(ValueError, match="not on the active branch"):
        agent.expand_compaction(compaction_id)
    session.branch(hide_after)
    with pytest.raises(ValueError, match="Only a compaction"):
        agent.expand_compaction(after)


def test_expand_refuses_when_a_later_compaction_summarizes_it() -> None:
    agent, ids = _session()
    asyncio.run(agent.compact(summary="second", first_kept_entry_id=ids["reply"]))
    with pytest.raises(ValueError, match="comes after this one and summarizes it"):
        agent.expand_compaction(ids["compaction"])


def test_the_window_asks_the_same_rules() -> None:
    agent, ids = _session()
    view, profile = agent.session, agent.session.profile
    items = {s.action: s for s in context_actions(view, ids["result"], profile=profile, busy=False)}
    assert items[ContextAction.HIDE].enabled and not items[ContextAction.SHOW].enabled
    assert items[ContextAction.SUMMARIZE_UP_TO_HERE].reason.startswith(f"Entry {ids['result']} cannot be the first kept")
    agent.edit_context(ids["result"], None)
    items = {s.action: s for s in context_actions(view, ids["result"], profile=profile, busy=False)}
    assert items[ContextAction.SHOW].enabled and not items[ContextAction.HIDE].enabled
    assert items[ContextAction.SHOW].reason == "The model receives this entry again, with its own text"
    busy = {s.action: s for s in context_actions(view, ids["result"], profile=profile, busy=True)}
    assert not busy[ContextAction.SHOW].enabled and busy[ContextAction.SHOW].reason == "Stop the running reply first"
    compaction = {s.action: s for s in context_actions(view, ids["compaction"], profile=profile, busy=False)}
    assert compaction[ContextAction.CONTINUE_WITHOUT_COMPACTION].enabled
    assert "this is a compaction entry" in compaction[ContextAction.HIDE].reason
    assert [c.entry_id for c in cut_choices_of(view, profile)] == [ids["user"], ids["call"], ids["reply"]]
    summarize = {s.action: s for s in context_actions(view, ids["reply"], profile=profile, busy=False)}
    assert summarize[ContextAction.SUMMARIZE_UP_TO_HERE].enabled
    old, old_ids = _session(PI_0_73_1)
    items = {s.action: s for s in context_actions(old.session, old_ids["result"], profile=PI_0_73_1, busy=False)}
    for action in (ContextAction.HIDE, ContextAction.SHOW, ContextAction.EDIT_TEXT, ContextAction.RESTORE_TEXT):
        assert not items[action].enabled and items[action].reason == NO_EDITS_IN_0_73_1
    assert context_actions(view, "nope", profile=profile, busy=False) == ()
