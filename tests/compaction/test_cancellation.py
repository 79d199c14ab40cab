"""Cancelling a compaction or a branch summary midway raises ``CancelledError`` and writes nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from desktop_app.compaction.branch_entries import collect_entries_for_branch_summary
from desktop_app.compaction.branch_summary import generate_branch_summary
from desktop_app.compaction.session_ops import NothingToCompactError, compact_session
from desktop_app.compaction.tokens import CompactionSettings
from desktop_app.llm.testing import RecordingProvider, Reply
from desktop_app.session.manager import SessionManager
from desktop_app.session.profile import PI_0_73_1, PI_1_6_0, PiProfile

from .builders import assistant, sized, tool_call, tool_result, user

pytestmark = pytest.mark.asyncio


def _session(tmp_path: Path, profile: PiProfile = PI_1_6_0) -> SessionManager:
    manager = SessionManager.create(str(tmp_path), tmp_path, profile=profile)
    manager.append_message(user(sized("first request", 1000)))
    manager.append_message(assistant(sized("reading", 1000), tool_calls=[tool_call("read", path="src/a.ts")]))
    manager.append_message(tool_result("contents"))
    manager.append_message(assistant(sized("first answer", 1000), usage_total=3100))
    manager.append_message(user(sized("second request", 1000)))
    manager.append_message(assistant(sized("second answer", 1000), usage_total=4200))
    return manager


def _snapshot(manager: SessionManager) -> bytes:
    assert manager.session_file is not None
    return Path(manager.session_file).read_bytes()


async def _cancel_midway(task: asyncio.Task[object], *replies: Reply) -> None:
    await asyncio.wait_for(asyncio.gather(*(r.started.wait() for r in replies)), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_cancelled_compaction_leaves_the_file_unchanged(tmp_path: Path) -> None:
    manager = _session(tmp_path)
    before, leaf = _snapshot(manager), manager.leaf_id
    reply = Reply("partial summary " * 10, gate=asyncio.Event(), pause_after_chunks=2)
    provider = RecordingProvider([reply])
    progress: list[int] = []
    task = asyncio.create_task(
        compact_session(
            manager,
            provider,
            settings=CompactionSettings(keep_recent_tokens=1500),
            on_progress=progress.append,
        )
    )
    await _cancel_midway(task, reply)
    assert progress  # it was streaming when cancelled
    assert provider.cancelled == 1
    assert _snapshot(manager) == before and manager.leaf_id == leaf
    manager.close()


async def test_cancelled_split_turn_compaction_cancels_both_calls(tmp_path: Path) -> None:
    manager = _session(tmp_path, PI_0_73_1)  # pi 0.73.1 makes both calls at once
    before = _snapshot(manager)
    gate = asyncio.Event()
    history, prefix = Reply("H" * 50, gate=gate), Reply("P" * 50, gate=gate)
    provider = RecordingProvider([history, prefix])
    settings = CompactionSettings(keep_recent_tokens=500)  # lands on the second answer: a split turn
    task = asyncio.create_task(compact_session(manager, provider, settings=settings))
    await _cancel_midway(task, history, prefix)
    assert provider.cancelled == 2
    assert _snapshot(manager) == before
    manager.close()


async def test_pi_1_6_0_makes_the_split_turn_calls_one_after_the_other(tmp_path: Path) -> None:
    manager = _session(tmp_path)
    before = _snapshot(manager)
    gate = asyncio.Event()
    history, prefix = Reply("H" * 50, gate=gate), Reply("P" * 50, gate=gate)
    provider = RecordingProvider([history, prefix])
    settings = CompactionSettings(keep_recent_tokens=500)
    task = asyncio.create_task(compact_session(manager, provider, settings=settings))
    await _cancel_midway(task, history)
    assert provider.cancelled == 1 and not prefix.started.is_set()  # the second call never began
    assert _snapshot(manager) == before
    manager.close()


async def test_completed_compaction_is_appended_last(tmp_path: Path) -> None:
    manager = _session(tmp_path)
    leaf = manager.leaf_id
    provider = RecordingProvider(["## Goal\ndone"])
    outcome = await compact_session(manager, provider, settings=CompactionSettings(keep_recent_tokens=1500))
    entry = manager.get_entry(outcome.entry_id)
    assert entry is not None and entry["parentId"] == leaf and manager.leaf_id == outcome.entry_id
    assert entry["summary"] == "## Goal\ndone\n\n<read-files>\nsrc/a.ts\n</read-files>"
    assert entry["tokensBefore"] == 4200 and entry["fromHook"] is False
    assert entry["details"] == {"readFiles": ["src/a.ts"], "modifiedFiles": []}
    kept = manager.get_entry(entry["firstKeptEntryId"])
    assert kept is not None and kept["message"]["content"][0]["text"].startswith("second request")
    roles = [m["role"] for m in manager.build_session_context().messages]
    assert roles == ["compactionSummary", "user", "assistant"]
    with pytest.raises(NothingToCompactError, match="Already compacted"):
        await compact_session(manager, provider)
    manager.close()


async def test_cancelled_branch_summary_leaves_the_file_unchanged(tmp_path: Path) -> None:
    manager = _session(tmp_path)
    old_leaf = manager.leaf_id
    target = manager.get_entries()[0]["id"]
    before = _snapshot(manager)
    collected = collect_entries_for_branch_summary(manager, old_leaf, target)
    assert len(collected.entries) == 5
    reply = Reply("exploration summary " * 5, gate=asyncio.Event(), pause_after_chunks=1)
    provider = RecordingProvider([reply])

    async def navigate_with_summary() -> str:
        # the order AgentSession.navigate_tree follows: summarize first, write only on success
        result = await generate_branch_summary(collected.entries, provider)
        assert result.summary is not None
        return manager.branch_with_summary(target, result.summary, result.details())

    task = asyncio.create_task(navigate_with_summary())
    await _cancel_midway(task, reply)
    assert _snapshot(manager) == before and manager.leaf_id == old_leaf
    manager.close()


async def test_the_path_is_prepared_off_the_event_loop_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Cutting and estimating a 70,000-entry path is 30-50 ms of Python: not on the window's thread.
    import threading

    from desktop_app.compaction import session_ops

    threads: list[int] = []
    real = session_ops.prepare_compaction

    def recorded(*args: object, **kwargs: object) -> object:
        threads.append(threading.get_ident())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(session_ops, "prepare_compaction", recorded)
    manager = _session(tmp_path)
    provider = RecordingProvider([Reply("the summary")])
    outcome = await compact_session(manager, provider, settings=CompactionSettings(keep_recent_tokens=1500))
    assert manager.get_entry(outcome.entry_id) is not None
    assert threads and threads[0] != threading.get_ident()
