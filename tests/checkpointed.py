"""A small session with real workspace checkpoints, made by driving the engine (no model, no window).

Three turns in ``folder``, as the agent records them (DESIGN.md §13): user → assistant with a tool
call → [``before`` checkpoint, the first one a baseline] → tool result → [``after`` checkpoint] →
final reply. Turn one writes ``notes.md`` (3 lines), turn two edits one of its lines, turn three
edits it again and adds ``extra.txt``. Snapshots go to the real store under ``$ARBOR_HOME``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop_app.session import SessionManager
from desktop_app.workspace.checkpoints import CHECKPOINT_TYPE, Phase
from desktop_app.workspace.queries import checkpoint_at
from desktop_app.workspace.recorder import CheckpointTaken, take_checkpoint
from tests.session.helpers import assistant, user

V1 = "alpha\nv1\ngamma\n"
V2 = "alpha\nv2\ngamma\n"
V3 = "alpha\nv3\ngamma\n"
EXTRA = "x\n"


@dataclass(frozen=True)
class Checkpointed:
    path: Path
    folder: Path
    replies: tuple[str, str, str]  #: each turn's final reply
    users: tuple[str, str, str]


def _call(call_id: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    message = assistant("")
    message["content"] = [{"type": "toolCall", "id": call_id, "name": tool, "arguments": arguments}]
    message["stopReason"] = "toolUse"
    return message


def _result(call_id: str, tool: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "toolResult", "toolCallId": call_id, "toolName": tool,
                               "content": [{"type": "text", "text": "done"}], "isError": False, "timestamp": 1}
    if details is not None:
        message["details"] = details
    return message


def _checkpoint(manager: SessionManager, folder: Path, phase: Phase, call_id: str) -> None:
    leaf = manager.leaf_id
    assert leaf is not None
    taken = take_checkpoint(str(folder), phase, (call_id,), checkpoint_at(manager.index, leaf))
    assert isinstance(taken, CheckpointTaken)
    if taken.data is not None:
        manager.append_custom_entry(CHECKPOINT_TYPE, taken.data)


def _turn(manager: SessionManager, folder: Path, text: str, call_id: str, tool: str, arguments: dict[str, Any],
          change: Any, reply: str) -> tuple[str, str]:
    user_id = manager.append_message(user(text))
    manager.append_message(_call(call_id, tool, arguments))
    _checkpoint(manager, folder, Phase.BEFORE, call_id)
    change()
    manager.append_message(_result(call_id, tool))
    _checkpoint(manager, folder, Phase.AFTER, call_id)
    return user_id, manager.append_message(assistant(reply))


def build_checkpointed(root: Path) -> Checkpointed:
    """The three-turn session in ``root`` (``root/work`` is the working folder)."""
    folder = root / "work"
    folder.mkdir(parents=True)
    (folder / "README.txt").write_text("the user's own file\n")
    manager = SessionManager.create(str(folder), root / "sessions", fsync=False)
    notes, extra = folder / "notes.md", folder / "extra.txt"

    def third() -> None:
        notes.write_text(V3)
        extra.write_text(EXTRA)

    u1, r1 = _turn(manager, folder, "Write v1", "call_w", "write", {"path": "notes.md", "content": V1},
                   lambda: notes.write_text(V1), "Wrote v1.")
    u2, r2 = _turn(manager, folder, "Make it v2", "call_e", "edit",
                   {"path": "notes.md", "edits": [{"oldText": "v1", "newText": "v2"}]},
                   lambda: notes.write_text(V2), "Now v2.")
    u3, r3 = _turn(manager, folder, "Run the command", "call_b", "bash",
                   {"command": "printf 'alpha\\nv3\\ngamma\\n' > notes.md; echo x > extra.txt"}, third, "Ran it.")
    path = manager.session_file
    assert path is not None
    manager.close()
    return Checkpointed(Path(path), folder, (r1, r2, r3), (u1, u2, u3))
