"""The agent takes checkpoints around write/edit/bash calls (issue 25 items 2 and 5), through the real
turn loop and the fake server: only when the folder changed, hand edits in the next "before", on a
worker thread, and a failed snapshot never stops the call: its result says which checkpoint is missing."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from desktop_app.tools import ApprovalDecision
from desktop_app.workspace import Workspace, WorkspaceError
from desktop_app.workspace.checkpoints import Phase, checkpoint_of
from desktop_app.workspace.recorder import CHECKPOINT_NOTE_KEY
from tests.agent.test_agent_session import file_entries
from tests.agent.test_tool_loop import Approver, make_agent
from tests.fakes import FakeAnthropicServer
from tests.fakes import anthropic_server as fa


@pytest.mark.asyncio
async def test_checkpoints_only_when_the_folder_changed_and_off_the_loop_thread(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[str] = []
    real = Workspace.snapshot
    monkeypatch.setattr(Workspace, "snapshot", lambda self: threads.append(threading.current_thread().name) or real(self))
    fake_anthropic.enqueue(
        fa.tool_use("write", {"path": "a.txt", "content": "1\n"}, tool_id="toolu_1"), fa.text("ok"),
        fa.tool_use("bash", {"command": "true"}, tool_id="toolu_2"), fa.text("nothing changed"),
        fa.tool_use("read", {"path": "a.txt"}, tool_id="toolu_3"), fa.text("read only"),
    )
    folder = tmp_path / "project"
    agent = make_agent(folder, fake_anthropic)
    agent.approver = Approver(ApprovalDecision.ALLOW_ONCE, ApprovalDecision.ALLOW_ONCE)
    await agent.prompt("write")
    (folder / "a.txt").write_text("1\nby hand\n")
    await agent.prompt("run")
    await agent.prompt("read")
    found = [c for c in (checkpoint_of(e) for e in file_entries(agent)) if c is not None]
    assert [(c.phase, c.tool_call_ids, [(f.kind.value, f.path) for f in c.files]) for c in found] == [
        (Phase.BEFORE, ("toolu_1",), []),  # the baseline
        (Phase.AFTER, ("toolu_1",), [("A", "a.txt")]),
        (Phase.BEFORE, ("toolu_2",), [("M", "a.txt")]),  # the hand edit; `true` changed nothing: no after
    ]
    assert len(threads) == 4 and threading.main_thread().name not in threads  # read took none


@pytest.mark.asyncio
async def test_a_failed_snapshot_never_stops_the_call(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(self: Workspace) -> None:
        raise WorkspaceError("the checkpoint store could not be written (No space left on device)")

    monkeypatch.setattr(Workspace, "snapshot", full)
    fake_anthropic.enqueue(fa.tool_use("write", {"path": "a.txt", "content": "1"}, tool_id="toolu_1"), fa.text("ok"))
    folder = tmp_path / "project"
    agent = make_agent(folder, fake_anthropic)
    agent.approver = Approver(ApprovalDecision.ALLOW_ONCE)
    reply = await agent.prompt("write")
    assert reply is not None and reply["stopReason"] == "stop" and (folder / "a.txt").read_text() == "1"
    entries = file_entries(agent)
    assert not [e for e in entries if checkpoint_of(e) is not None]
    result = next(e["message"] for e in entries if e["type"] == "message" and e["message"]["role"] == "toolResult")
    assert not result["isError"] and result["content"][0]["text"].startswith("Successfully wrote")
    note = result["details"][CHECKPOINT_NOTE_KEY]
    assert note.startswith("No checkpoint before this call: the checkpoint store could not be written (No space left")
    assert "No checkpoint after this call" in note
    sent = fake_anthropic.requests[-1].json["messages"][-1]["content"][0]
    assert CHECKPOINT_NOTE_KEY not in str(sent)  # the model never sees it


def test_arbor_ask_names_a_missing_checkpoint_on_stderr() -> None:
    from desktop_app.agent.ask import _result_notices

    note = "No checkpoint before this call: the working folder /x is gone. The call ran; ..."
    ok = {"role": "toolResult", "toolName": "write", "content": [], "details": {CHECKPOINT_NOTE_KEY: note}, "isError": False}
    failed = {**ok, "content": [{"type": "text", "text": "EACCES: permission denied"}], "isError": True}
    assert _result_notices(ok) == [f"[{note}]"]
    assert _result_notices(failed) == ["[write failed: EACCES: permission denied]", f"[{note}]"]
    assert _result_notices({**ok, "details": {}}) == []


@pytest.mark.asyncio
async def test_the_settings_turn_checkpoints_off_and_set_the_size_limit(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken: list[int] = []
    real = Workspace.snapshot
    monkeypatch.setattr(Workspace, "snapshot", lambda self: taken.append(self.size_limit) or real(self))
    big = "head -c 1200000 /dev/zero | tr '\\0' x > big.txt; echo b > b.txt"
    fake_anthropic.enqueue(
        fa.tool_use("write", {"path": "a.txt", "content": "1\n"}, tool_id="toolu_1"), fa.text("ok"),
        fa.tool_use("bash", {"command": big}, tool_id="toolu_2"), fa.text("ok"),
    )
    folder = tmp_path / "project"
    agent = make_agent(folder, fake_anthropic)
    agent.settings.checkpoints.enabled = False
    agent.approver = Approver(ApprovalDecision.ALLOW_ONCE, ApprovalDecision.ALLOW_ONCE)
    assert not agent.checkpoints  # what the window's restore offer asks
    await agent.prompt("write")
    assert (folder / "a.txt").read_text() == "1\n"
    assert taken == [] and not [e for e in file_entries(agent) if checkpoint_of(e) is not None]  # off: nothing
    agent.settings.checkpoints.enabled = True  # turned on in the dialog: from the next call on
    agent.settings.checkpoints.max_file_size_mb = 1
    await agent.prompt("big")
    assert (folder / "big.txt").stat().st_size == 1_200_000
    found = [c for c in (checkpoint_of(e) for e in file_entries(agent)) if c is not None]
    assert taken == [1024 * 1024] * 2
    assert [(c.phase, [f.path for f in c.files], [s.path for s in c.skipped]) for c in found] == [
        (Phase.BEFORE, [], []),  # the baseline
        (Phase.AFTER, ["b.txt"], ["big.txt"]),  # over 1 MB: skipped and named
    ]
