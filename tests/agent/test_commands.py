"""The agent commands the window uses instead of reaching into the session (contracts: Agent commands)."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from desktop_app.agent import AgentSession, SessionChanged, SessionOpenError
from desktop_app.agent.startup import SAMPLE_SESSION, initial_session
from desktop_app.llm.offline import OfflineProvider
from desktop_app.llm.testing import RecordingProvider
from desktop_app.session import SessionManager
from desktop_app.settings import Settings


def sample_agent(tmp_path: Path) -> AgentSession:
    copy = tmp_path / "sample.jsonl"
    shutil.copyfile(SAMPLE_SESSION, copy)
    return AgentSession(SessionManager.open(copy, fsync=False), OfflineProvider(), Settings())


def entry_with_text(manager: SessionManager, text: str) -> dict[str, object]:
    for entry in manager.get_entries():
        message = entry.get("message")
        if isinstance(message, dict) and any(b.get("text") == text for b in message.get("content") or []):
            return entry
    raise AssertionError(text)


def test_set_label_labels_and_clears(tmp_path: Path) -> None:
    agent = sample_agent(tmp_path)
    target = str(entry_with_text(agent.session, "For day three, what about Cascais?")["id"])
    agent.set_label(target, "  beach day  ")
    assert agent.view.get_label(target) == "beach day"
    agent.set_label(target, "   ")
    assert agent.view.get_label(target) is None
    with pytest.raises(ValueError, match="not found"):
        agent.set_label("nope", "x")


def test_clone_at_any_entry_keeps_the_path_up_to_and_including_it(tmp_path: Path) -> None:
    agent = sample_agent(tmp_path)
    old_file = agent.session.session_file
    reply = entry_with_text(agent.session, "Cascais has beaches and is 40 minutes by train from Cais do Sodré.")
    changed: list[SessionChanged] = []
    agent.subscribe(lambda e: changed.append(e) if isinstance(e, SessionChanged) else None)
    result = agent.fork(str(reply["id"]), position="at")
    assert result.editor_text is None and result.session_file not in (None, old_file)
    assert reply["id"] in {e["id"] for e in agent.view.get_branch()}  # the leaf's path holds the entry
    assert agent.view.build_session_context().messages[-1] == reply["message"]
    assert [e.session_file for e in changed] == [result.session_file]
    with pytest.raises(ValueError, match="Invalid entry ID for forking"):
        agent.fork(str(reply["id"]))  # /fork needs a user message; clone is the way for others


def test_fork_and_clone_across_a_label_keep_one_tree_and_the_same_context(tmp_path: Path) -> None:
    """The sample's path holds a label entry: the copy re-links past it (pi 0.73.1 left two roots)."""
    agent = sample_agent(tmp_path)
    original = agent.session
    question = entry_with_text(original, "For day three, what about Cascais?")
    reply = entry_with_text(original, "Cascais has beaches and is 40 minutes by train from Cais do Sodré.")
    assert any(e.get("type") == "label" for e in original.get_branch(str(reply["id"])))
    expected_at_reply = original.build_session_context(str(reply["id"])).messages
    expected_before_question = original.build_session_context(str(question["parentId"])).messages

    agent.fork(str(reply["id"]), position="at")
    clone = agent.view
    roots = [e for e in clone.get_entries() if e.get("parentId") is None]
    assert len(roots) == 1
    assert clone.build_session_context().messages == expected_at_reply

    agent.open_session_file(str(tmp_path / "sample.jsonl"))
    result = agent.fork(str(question["id"]))
    assert result.editor_text == "For day three, what about Cascais?"
    fork = agent.view
    assert len([e for e in fork.get_entries() if e.get("parentId") is None]) == 1
    assert fork.build_session_context().messages == expected_before_question
    reopened = SessionManager.open(str(result.session_file), fsync=False)  # as written to disk
    assert reopened.build_session_context().messages == expected_before_question


def test_restore_leaf_moves_without_writing(tmp_path: Path) -> None:
    agent = sample_agent(tmp_path)
    path = Path(agent.session.session_file or "")
    before = path.read_bytes()
    target = str(entry_with_text(agent.session, "For day three, what about Cascais?")["id"])
    assert agent.restore_leaf(target) and agent.view.leaf_id == target
    assert not agent.restore_leaf(target)  # already there
    assert not agent.restore_leaf("gone")
    assert path.read_bytes() == before


def test_open_session_file_switches_or_explains(tmp_path: Path) -> None:
    agent = sample_agent(tmp_path)
    other = SessionManager.create("/elsewhere", tmp_path / "other", fsync=False)
    other.append_message({"role": "user", "content": "hi", "timestamp": 1})
    agent.open_session_file(other.session_file or "")
    assert agent.view.session_file == other.session_file and agent.view.cwd == "/elsewhere"
    with pytest.raises(SessionOpenError, match="Cannot open"):
        agent.open_session_file(tmp_path / "other")  # a directory, not a session file
    assert agent.view.session_file == other.session_file  # the current session is kept


def test_is_offline_comes_from_the_provider(tmp_path: Path) -> None:
    manager = SessionManager.in_memory("/p")
    assert AgentSession(manager, OfflineProvider()).is_offline
    assert not AgentSession(manager, RecordingProvider()).is_offline


def test_first_start_copies_the_sample_then_opens_the_newest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARBOR_HOME", str(tmp_path))
    first = initial_session(None, Settings())
    assert first.get_session_name() == "Lisbon trip (sample)"
    assert Path(first.session_file or "").is_relative_to(tmp_path)
    newer = SessionManager.create("/work", tmp_path / "sessions" / "--work--", fsync=False)
    newer.append_message({"role": "user", "content": "newest", "timestamp": 1})
    assert initial_session(None, Settings()).session_file == newer.session_file
    assert initial_session(first.session_file, Settings()).session_file == first.session_file


def test_streaming_partial_reaches_subscribers_with_every_event(tmp_path: Path) -> None:
    from desktop_app.agent import StreamUpdated

    async def scenario() -> list[StreamUpdated]:
        agent = AgentSession(SessionManager.in_memory("/p"), RecordingProvider(["abcdefghij"]))
        seen: list[StreamUpdated] = []
        agent.subscribe(lambda e: seen.append(e) if isinstance(e, StreamUpdated) else None)
        await agent.prompt("q")
        return seen

    seen = asyncio.run(scenario())
    texts = [e.partial["content"][0]["text"] if e.partial["content"] else "" for e in seen]
    assert texts[:2] == ["abcdefgh", "abcdefghij"] and texts[-1] == "abcdefghij"
    assert seen[-1].partial["stopReason"] == "stop"


def test_follow_file_reads_what_another_program_appended(tmp_path: Path) -> None:
    agent = sample_agent(tmp_path)
    path = agent.view.session_file
    assert path is not None
    leaf = agent.view.leaf_id
    entry = {"type": "custom", "customType": "other-writer", "data": {}, "id": "ext00001", "parentId": leaf,
             "timestamp": "2026-01-01T00:00:00.000Z"}
    line = json.dumps(entry, separators=(",", ":")) + "\n"
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line)
    new = agent.follow_file()
    assert [e["id"] for e in new] == ["ext00001"]
    assert agent.view.get_entry("ext00001") is not None
    assert agent.follow_file() == []  # read once


def test_close_releases_the_session_and_its_subscribers(tmp_path: Path) -> None:
    agent = sample_agent(tmp_path)
    seen: list[object] = []
    agent.session.subscribe(seen.append)
    agent.close()
    agent.session.append_label_change(agent.view.leaf_id or "", "after close")  # still writable, unheard
    assert seen == []
