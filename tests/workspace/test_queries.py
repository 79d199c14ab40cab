"""The window's questions about checkpoints on a tree (issue 25 item 4): the folder's state at an entry,
a turn's changes, a branch's changes since a node, a compaction's summarized files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop_app.session import SessionManager
from desktop_app.workspace import Workspace
from desktop_app.workspace.checkpoints import CHECKPOINT_TYPE, Phase
from desktop_app.workspace.queries import (
    branch_changes,
    changed_since,
    checkpoint_at,
    compaction_changes,
    turn_changes,
)
from desktop_app.workspace.recorder import CheckpointTaken, take_checkpoint

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "odd" / "checkpoints" / "three-turns.jsonl"


def _summary(files: Any) -> list[tuple[str, str, int, int]]:
    return [(f.kind.value, f.path, f.added, f.removed) for f in files]


def test_queries_on_the_done_when_session() -> None:
    manager = SessionManager.open_snapshot(FIXTURE)
    index = manager.index
    entries = manager.get_entries()
    users = [e["id"] for e in entries if e["type"] == "message" and e["message"]["role"] == "user"]
    replies = [e["id"] for e in entries if e["type"] == "message" and e["message"].get("stopReason") == "stop"]
    assert checkpoint_at(index, users[0]) is None
    at_first = checkpoint_at(index, replies[0])
    assert at_first is not None and at_first.phase is Phase.AFTER
    assert _summary(at_first.files) == [("A", "notes.md", 1, 0)]
    assert checkpoint_at(index, users[1]) == at_first  # the next turn starts where this one ended

    turns = [turn_changes(index, reply) for reply in replies]
    assert [_summary(t.files) if t else None for t in turns] == [
        [("A", "notes.md", 1, 0)], [("M", "notes.md", 1, 1)], [("A", "extra.txt", 1, 0), ("M", "notes.md", 1, 1)]]
    assert turns[0] is not None and turns[1] is not None and turns[2] is not None
    assert turns[0].start == turns[0].checkpoints[0].snapshot and turns[0].checkpoints[0].baseline
    assert turns[1].start == turns[0].end and (turns[2].added, turns[2].removed) == (2, 1)
    assert turn_changes(index, users[0]) is None  # nothing changed yet in that turn

    assert _summary(changed_since(index, replies[0], replies[2])) == [("A", "extra.txt", 1, 0), ("M", "notes.md", 2, 2)]
    assert changed_since(index, replies[2], replies[2]) == []


def _message(role: str, text: str) -> dict[str, Any]:
    if role == "user":
        return {"role": "user", "content": text, "timestamp": 1}
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "api": "anthropic-messages",
            "provider": "anthropic", "model": "m", "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0,
            "totalTokens": 2, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "stopReason": "stop", "timestamp": 2}


def _turn(manager: SessionManager, folder: Path, text: str, files: dict[str, str | None]) -> str:
    """A user message, a reply whose 'tools' change ``files`` (None: delete), checkpoints around them."""
    manager.append_message(_message("user", text))
    manager.append_message(_message("assistant", f"doing {text}"))  # (its tool calls left out)
    for phase in (Phase.BEFORE, Phase.AFTER):
        if phase is Phase.AFTER:
            for rel, content in files.items():
                if content is None:
                    (folder / rel).unlink()
                else:
                    (folder / rel).write_text(content)
        taken = take_checkpoint(str(folder), phase, ("t",), checkpoint_at(manager.index, manager.leaf_id or ""))
        assert isinstance(taken, CheckpointTaken)
        if taken.data is not None:
            manager.append_custom_entry(CHECKPOINT_TYPE, taken.data)
    return manager.append_message(_message("assistant", f"did {text}"))


def test_branch_and_compaction_changes_with_a_real_store(tmp_path: Path) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "keep.txt").write_text("k\n")
    manager = SessionManager.in_memory(str(folder))
    first = _turn(manager, folder, "one", {"a.txt": "1\n"})
    (folder / "keep.txt").write_text("k\nby hand\n")  # between turns: the next "before" records it
    second = _turn(manager, folder, "two", {"a.txt": "1\n2\n", "b.txt": "b\n"})
    third = _turn(manager, folder, "three", {"b.txt": None})
    hand = [c for c in (checkpoint_at(manager.index, e["id"]) for e in manager.get_entries()) if c and c.phase is Phase.BEFORE]
    assert _summary(hand[-1].files) == [("M", "keep.txt", 1, 0)]
    turn = turn_changes(manager.index, second)
    assert turn is not None and _summary(turn.files) == [("M", "a.txt", 1, 0), ("A", "b.txt", 1, 0)]  # not the hand edit

    workspace = Workspace.open(str(folder))
    assert _summary(branch_changes(manager.index, workspace, first, third)) == [("M", "a.txt", 1, 0), ("M", "keep.txt", 1, 0)]
    assert "+by hand\n" in workspace.diff_text(checkpoint_at(manager.index, first).snapshot,  # type: ignore[union-attr]
                                               checkpoint_at(manager.index, third).snapshot)  # type: ignore[union-attr]

    users = [e["id"] for e in manager.get_entries() if e["type"] == "message" and e["message"]["role"] == "user"]
    manager.branch(third)
    compaction = manager.append_compaction("summary", users[2], 1000)  # turns one and two summarized
    assert _summary(compaction_changes(manager.index, compaction)) == [
        ("A", "a.txt", 2, 0), ("A", "b.txt", 1, 0), ("M", "keep.txt", 1, 0)]
